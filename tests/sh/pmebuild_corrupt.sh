#!/bin/bash
#
# pmebuild_corrupt.sh - images with corrupt DWARF: a message that names the
# file (and the section when it is known), exit status 1, no bucket file,
# never a signal, whatever libdwarf does with them (it reads in a child
# process, lib/symbols.c):
#   tests/fixtures/corrupt/rnglists_doublefree, on which libdwarf frees
#     memory twice: pmebuild -x, an EXE statement, and pmehisto -x and
#     -V caliper on a sample of it running;
#   copies of a program built here with bytes of .debug_info,
#     .debug_abbrev, .debug_rnglists and .debug_loclists overwritten: the
#     headers of each (an exact message), then 200 copies with bytes
#     overwritten at pseudo-random places (each a clean error or a good
#     bucket file; -b line too, so the line decoder reads them), the
#     file named as given or, when functions overlap, by its real path;
#   a subprogram's DW_AT_high_pc made to reach into the next function:
#     in a .PMD, "buckets overlap" names the image; pmebuild -x leaves the
#     routine that overlaps out, as pmehisto's quick path does.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

dumper=$top/tests/unit/t_pmebuild
repro=$top/tests/fixtures/corrupt/rnglists_doublefree
fx=$top/tests/fixtures/multi

for t in gcc readelf dd od; do
	command -v $t >/dev/null || skip "no $t"
done
need "$dumper"
cd "$tmp" || exit 1

# The reader's death: a signal, or under a sanitizer or valgrind, which
# catch the fault and exit, a status.
died='the DWARF reader (died of SIG[A-Z]+|exited with status [0-9]+)'

# run WHAT WANT-STATUS CMD...: runs CMD with stderr in err; its status
# must be WANT-STATUS, and never that of a signal.
run() {
	local what=$1 want=$2 rc
	shift 2
	$PME_VALGRIND "$@" >out 2>err
	rc=$?
	if [ $rc -ge 128 ] && [ $rc != 99 ]; then
		fail "$what: killed by signal $((rc - 128)): $(cat err)"
	elif [ $rc != "$want" ]; then
		fail "$what: exit $rc, not $want: $(cat err)"
	fi
	return $rc
}

# first_err PATTERN WHAT: the first line of err matches the ERE (whole);
# without valgrind nothing else may follow.
first_err() {
	if ! head -n 1 err | grep -Eqx -- "$1"; then
		fail "$2: message '$(head -n 1 err)', not /$1/"
	elif [ -z "$PME_VALGRIND" ] && [ "$(wc -l <err)" != 1 ]; then
		fail "$2: more than the message: $(cat err)"
	fi
}

# ERE for a path, its characters taken literally.
quote() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }

# The probe's input, as pmebuild -x reads it.
cp "$repro" repro && chmod +x repro
run "repro -x" 1 "$pmebuild" -q -x ./repro -o repro.pme
first_err "pmebuild: '\\./repro': corrupt DWARF \\(\\.debug_rnglists\\): $died" \
    "repro -x"
[ ! -e repro.pme ] || fail "repro -x: a bucket file was written"
[ -z "$(ls -A | grep -v '^repro$\|^out$\|^err$')" ] ||
    fail "repro -x: files left: $(ls -A)"

# ... as an EXE statement: the statement's place, then the file.
cat >repro.pmd <<'EOF'
DEFINE UNITS: PROGRAM, MODULE, ROUTINE
PROGRAM P
DEFINE ADDRESSES: EXE "repro"
DEFINE SAMPLING
PROGRAM P BY ROUTINE
END
EOF
run "repro EXE" 1 "$pmebuild" -o stmt.pme repro.pmd
grep -Eq "^pmebuild: repro\\.pmd:3: 'repro': corrupt DWARF \\(\\.debug_rnglists\\): $died\$" \
    err || fail "repro EXE: $(cat err)"
[ ! -e stmt.pme ] || fail "repro EXE: a bucket file was written"

# ... and by pmehisto -x, which reads the program that ran.
if "$pmeclock" -q -o repro.pms -- ./repro >/dev/null 2>&1; then
	run "pmehisto -x" 1 "$pmehisto" -q -x -T text -B q.pme -o q.his \
	    repro.pms
	first_err "pmehisto: '$(quote "$tmp/repro")': corrupt DWARF \\(\\.debug_rnglists\\): $died" \
	    "pmehisto -x"
	[ ! -e q.pme ] && [ ! -e q.his ] ||
	    fail "pmehisto -x: an output was written"
	# ... and by pmehisto -V caliper, which reads the functions, lines
	# and code of the modules the samples name through lib/ alone: the
	# same error, and no text.
	for v in caliper caliper:line caliper:instruction; do
		run "-V $v" 1 "$pmehisto" -q -c -V $v -T text -o /dev/null \
		    repro.pms
		first_err "pmehisto: '$(quote "$tmp/repro")': corrupt DWARF \\(\\.debug_rnglists\\): $died" \
		    "-V $v"
		[ ! -s out ] || fail "-V $v: text written: $(head -n 3 out)"
	done
else
	fail "pmeclock cannot run the probe's program"
fi

# A program of our own, its debug sections damaged.
if ! gcc -g -O2 -o multi "$fx/main.c" "$fx/util.c" "$fx/hot.c" \
    "$fx/data.c"; then
	fail "cannot build the fixture"
	exit 1
fi
# sect FILE NAME: "offset size" of section NAME, in decimal.
sect() {
	readelf -S -W "$1" | awk -v s="$2" '{
		for (i = 1; i <= NF; i++)
			if ($i == s)
				print $(i + 3), $(i + 4)
	}' | while read -r o n; do echo $((16#$o)) $((16#$n)); done
}
# patch FILE OFFSET HEX: overwrites bytes at OFFSET.
patch() {
	printf "$(printf '%s' "$3" | sed 's/../\\x&/g')" |
	    dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# Headers: what libdwarf reports, or dies of, in each section.
for c in ".debug_info 4 0000 \\.debug_info" \
    ".debug_info 0 00000000 \\.debug_info" \
    ".debug_abbrev 0 ffffffff \\.debug_info" \
    ".debug_rnglists 0 00000000 \\.debug_rnglists" \
    ".debug_rnglists 0 ffffff7f \\.debug_rnglists" \
    ".debug_loclists 4 0000 \\.debug_loclists"; do
	set -- $c
	read -r off size <<<"$(sect multi "$1")"
	if [ -z "$off" ]; then
		fail "the fixture has no $1"
		continue
	fi
	cp multi d && patch d $((off + $2)) "$3"
	rm -f d.pme
	run "$1+$2=$3" 1 "$pmebuild" -q -x ./d -o d.pme
	first_err "pmebuild: '\\./d': corrupt DWARF \\($4\\): .*" "$1+$2=$3"
	[ ! -e d.pme ] || fail "$1+$2=$3: a bucket file was written"
done

# Bytes overwritten anywhere in those sections (and .debug_line, for the
# line decoder): a clean error naming the file, or a good bucket file.
seed=20210528
rand() { seed=$(((seed * 1103515245 + 12345) % 2147483648)); r=$((seed >> 8)); }
sections=(.debug_info .debug_abbrev .debug_rnglists .debug_loclists
    .debug_line)
errors=0
for ((i = 0; i < 200; i++)); do
	cp multi d
	rand
	s=${sections[r % ${#sections[@]}]}
	read -r off size <<<"$(sect multi "$s")"
	rand
	n=$((1 + r % 4))
	for ((k = 0; k < n; k++)); do
		rand
		at=$((off + r % size))
		rand
		patch d $at "$(printf '%02x' $((r % 256)))"
	done
	b=routine
	[ $((i % 4)) = 0 ] && b=line
	rm -f d.pme
	$PME_VALGRIND "$pmebuild" -q -x ./d -b $b -o d.pme >out 2>err
	rc=$?
	what="damage $i ($s, $n bytes, -b $b)"
	case $rc in
	0)	"$dumper" dump d.pme >/dev/null 2>&1 ||
		    fail "$what: exit 0, no good bucket file" ;;
	1)	errors=$((errors + 1))
		head -n 1 err |
		    grep -Eq "^pmebuild: '(\./d|$(quote "$tmp/d"))': " ||
		    fail "$what: the message names no file: $(cat err)"
		[ ! -e d.pme ] || fail "$what: a bucket file was written" ;;
	*)	fail "$what: exit $rc: $(cat err)" ;;
	esac
done
[ $errors -ge 20 ] || fail "only $errors of 200 damaged copies refused"

# A subprogram of a DWARF 4 -O0 build made to reach 0x200 bytes: its
# bucket overlaps the next function's, and the message names the image.
gcc -g -gdwarf-4 -O0 -o o0 "$fx/main.c" "$fx/util.c" "$fx/hot.c" \
    "$fx/data.c" || fail "cannot build the -O0 fixture"
read -r info _ <<<"$(sect o0 .debug_info)"
at=$(readelf --debug-dump=info o0 2>/dev/null | awk '
	/DW_TAG_subprogram/ { insub = 1; next }
	/DW_TAG/ { insub = 0 }
	insub && /DW_AT_high_pc/ { gsub(/[<>]/, "", $1); print $1; exit }')
if [ -z "$at" ] || [ -z "$info" ]; then
	fail "no DW_AT_high_pc in the -O0 fixture"
elif [ "$(od -An -tx8 -j $((info + 16#$at)) -N 8 o0 | tr -d ' ')" != \
    "$(readelf --debug-dump=info o0 2>/dev/null |
    awk -v a="<$at>" '$1 == a { printf "%016x", $NF }')" ]; then
	fail "DW_AT_high_pc at <$at> is not 8 bytes of its value"
else
	cp o0 d
	patch d $((info + 16#$at)) 0002000000000000
	rm -f d.pme
	printf '%s\n' "DEFINE UNITS: PROGRAM, MODULE, ROUTINE" "PROGRAM d" \
	    "DEFINE ADDRESSES: EXE d" "DEFINE SAMPLING" "PROGRAM d BY ROUTINE" \
	    END >d.pmd
	run "high_pc" 1 "$pmebuild" -q d.pmd d.pme
	# The statement's error, then that no file was written.
	head -n 1 err | grep -Eqx "pmebuild: d.pmd:5: '$(quote "$tmp/d")': \
buckets overlap: ROUTINE .*" || fail "high_pc: message '$(head -n 1 err)'"
	[ ! -e d.pme ] || fail "high_pc: a bucket file was written"
	run "high_pc -x" 0 "$pmebuild" -q -x ./d -o d.pme
	[ -s d.pme ] || fail "high_pc -x: no bucket file"
fi

finish
