#!/bin/bash
#
# pmebuild_peers.sh - pmebuild's buckets, read back from the bucket file it
# writes, against the peers:
#   routine buckets (-x PROG -b routine) vs nm -S: every function of the
#     fixture's own objects, its ".cold" part as a second range;
#   the routines _init and _fini vs readelf -S: .init's and .fini's
#     address and size (their symbols have no size, and a sample in them
#     was outside buckets);
#   line buckets (-b line) vs the symbol reader's line table (itself
#     checked against readelf by symbols_peers.sh), flattened to ranges;
#   MAP modules vs the input sections the linker's -Map file lists;
#   a shared library read as a second EXE lands in its own load module;
# for gcc -O2 PIE and -no-pie, gcc -O0 DWARF 4, clang -O2 DWARF 5, a
# binary without DWARF, and a stripped shared library.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
# Bucket lines of the dump only (unit lines start with "unit").
dump() { "$top/tests/unit/t_pmebuild" dump "$1" | awk '$1 != "unit"'; }
ts=$top/tests/unit/t_symbols
fx=$top/tests/fixtures/multi

for t in gcc nm readelf; do
	command -v $t >/dev/null || { echo "skipped: no $t"; exit 77; }
done

compare() {	# WHAT PEER GOT
	if [ ! -s "$2" ]; then
		fail "$1: the peer found nothing"
	elif ! diff -u "$2" "$3" >"$tmp/diff"; then
		fail "$1: differs from the peer (- peer, + pmebuild):"
		head -n 30 "$tmp/diff" >&2
	fi
}

# nm's view of BIN: "name start end" for every function of the fixture's
# own objects (names in $tmp/names), "f.cold" as a second range of f.
nm_routines() {
	nm -S --defined-only "$1" | awk -v names="$tmp/names" '
	BEGIN { while ((getline n < names) > 0) want[n] = 1 }
	$3 ~ /^[tTW]$/ && ($4 in want) {
		name = $4; sub(/\.cold(\.[0-9]+)?$/, "", name)
		printf "%s %s %s\n", name, $1, $2
	}' | while read -r name start size; do
		printf '%s %x %x\n' "$name" $((16#$start)) \
		    $((16#$start + 16#$size))
	done | sort
}

# pmebuild's view: "name start end" per range of the ROUTINE buckets.
# The PLT stubs' routines ("f@plt", outside .text, which nm lists with
# --synthetic only and without sizes) are left out: pmebuild_names holds
# them to nm --synthetic, quick_plt to objdump's labels; so are _init
# and _fini, which init_sections holds to readelf.
pme_routines() {
	dump "$1" | awk '$2 == "ROUTINE" && $3 !~ /@plt$/ &&
	    $3 != "_init" && $3 != "_fini" { print $3, $4, $5 }' | sort
}

# readelf's .init and .fini as "_init start end", "_fini start end".
init_sections() {
	readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\] *//' | awk '
	$1 == ".init" || $1 == ".fini" {
		print "_" substr($1, 2), $3, $5
	}' | while read -r name start size; do
		printf '%s %x %x\n' "$name" $((16#$start)) \
		    $((16#$start + 16#$size))
	done
}

# Lines flattened: "start end line", adjacent ranges of one line joined.
flatten() {
	sort -k1,1 | awk '
	function hex(s,  i, v) {
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	{
		s = hex($1); e = hex($2)
		if (n > 0 && s == E && $3 == L) { E = e; next }
		if (n > 0) printf "%x %x %s\n", S, E, L
		S = s; E = e; L = $3; n++
	}
	END { if (n > 0) printf "%x %x %s\n", S, E, L }'
}

objs() {	# CC FLAGS...: compiles the fixture into $tmp/o/*.o
	local cc=$1
	shift
	rm -rf "$tmp/o" && mkdir -p "$tmp/o" || return 1
	for f in main util hot data; do
		$cc "$@" -c -o "$tmp/o/$f.o" "$fx/$f.c" || return 1
	done
	nm --defined-only "$tmp"/o/*.o | awk '$2 ~ /^[tTW]$/ { print $3 }' |
	    sort -u >"$tmp/names"
}

variant() {	# NAME CC LINKFLAGS -- CFLAGS...
	local name=$1 cc=$2 link=$3
	shift 4
	command -v "$cc" >/dev/null || return 0
	if ! objs "$cc" "$@" || ! $cc $link -o "$tmp/$name" "$tmp"/o/*.o; then
		fail "$name: cannot build the fixture"
		return
	fi
	if ! $pmebuild -q -x "$tmp/$name" -o "$tmp/$name.pme"; then
		fail "$name: pmebuild -x failed"
		return
	fi
	nm_routines "$tmp/$name" >"$tmp/r.peer"
	pme_routines "$tmp/$name.pme" >"$tmp/r.got"
	compare "$name routines" "$tmp/r.peer" "$tmp/r.got"
	init_sections "$tmp/$name" >"$tmp/i.peer"
	dump "$tmp/$name.pme" | awk '$2 == "ROUTINE" &&
	    ($3 == "_init" || $3 == "_fini") { print $3, $4, $5 }' >"$tmp/i.got"
	compare "$name .init and .fini" "$tmp/i.peer" "$tmp/i.got"
}

variant gcc-O2-pie gcc "" -- -g -O2
variant gcc-O2-nopie gcc -no-pie -- -g -O2 -fno-pie
variant gcc-O0-dwarf4 gcc "" -- -g -gdwarf-4 -O0
variant clang-O2-dwarf5 clang "" -- -g -gdwarf-5 -O2
variant clang-O0-dwarf4 clang -no-pie -- -g -gdwarf-4 -O0 -fno-pie

# gcc -O2 split hot_loop: one bucket with two ranges.
if [ -f "$tmp/gcc-O2-pie.pme" ]; then
	n=$(dump "$tmp/gcc-O2-pie.pme" | awk '$3 == "hot_loop"' | wc -l)
	[ "$n" = 2 ] || fail "gcc -O2: hot_loop bucket has $n ranges, not 2"
	b=$(dump "$tmp/gcc-O2-pie.pme" |
	    awk '$3 == "hot_loop" { print $1 }' | sort -u | wc -l)
	[ "$b" = 1 ] || fail "gcc -O2: hot_loop is in $b groups"
fi

# Without DWARF: routines come from .symtab; the fixture's must all be
# there (the C runtime's are there too, and not compared).
objs gcc -O2 && gcc -o "$tmp/nodwarf" "$tmp"/o/*.o &&
if $pmebuild -q -x "$tmp/nodwarf" -o "$tmp/nodwarf.pme"; then
	nm_routines "$tmp/nodwarf" >"$tmp/r.peer"
	pme_routines "$tmp/nodwarf.pme" | awk -v names="$tmp/names" '
	    BEGIN { while ((getline n < names) > 0) want[n] = 1 }
	    ($1 in want)' >"$tmp/r.got"
	compare "no DWARF routines" "$tmp/r.peer" "$tmp/r.got"
	$pmebuild -x "$tmp/nodwarf" -o "$tmp/x.pme" 2>"$tmp/err"
	grep -q "warning: .*nodwarf.*DWARF" "$tmp/err" ||
	    fail "no DWARF: pmebuild does not warn: $(cat "$tmp/err")"
else
	fail "no DWARF: pmebuild -x failed"
fi

# Lines: every line-table range of every routine, as buckets.
objs gcc -g -O2 && gcc -o "$tmp/lines" "$tmp"/o/*.o &&
if $pmebuild -q -x "$tmp/lines" -b line -o "$tmp/lines.pme"; then
	"$ts" lines "$tmp/lines" | awk '{ print $1, $2, $3 }' | flatten \
	    >"$tmp/l.peer"
	dump "$tmp/lines.pme" | awk '$2 == "LINE" {
		line = $3; sub(/.*:/, "", line); print $4, $5, line }' |
	    flatten >"$tmp/l.got"
	# Rows outside every routine (none in this fixture) would have no
	# bucket under BY LINE of the routines; the peer must equal.
	compare "line buckets" "$tmp/l.peer" "$tmp/l.got"
	n=$(wc -l <"$tmp/l.got")
	[ "$n" -gt 20 ] || fail "lines: only $n line ranges"
else
	fail "lines: pmebuild -b line failed"
fi

# MAP: modules of the linker's map, by object.
if (cd "$tmp/o" && gcc -o mapped -Wl,-Map=mapped.map main.o util.o hot.o \
    data.o); then
	cat >"$tmp/o/map.pmd" <<-'EOF'
	DEFINE UNITS: PROGRAM, MODULE
	PROGRAM P
	DEFINE ADDRESSES: MAP "mapped.map"
	DEFINE SAMPLING
	PROGRAM P BY MODULE
	END
	EOF
	if (cd "$tmp/o" && $pmebuild -o map.pme map.pmd); then
		# The map's own words: input .text sections of our objects.
		# (a long section name puts the rest on the next line).
		awk 'NF == 1 && $1 ~ /^\.text/ { held = $1; next }
		    held != "" && NF == 3 { $0 = held " " $0 }
		    { held = "" }
		    $1 ~ /^\.text/ && NF == 4 && $4 ~ /^(main|util|hot)\.o$/ &&
		    $3 != "0x0" { print $4, $2, $3 }' "$tmp/o/mapped.map" |
		while read -r o s z; do
			printf '%s %x %x\n' "$o" $((s)) $((s + z))
		done | sort >"$tmp/m.peer"
		dump "$tmp/o/map.pme" | awk '$2 == "MODULE" &&
		    $3 ~ /^(main|util|hot)\.o$/ { print $3, $4, $5 }' |
		    sort >"$tmp/m.got"
		compare "map modules" "$tmp/m.peer" "$tmp/m.got"
	else
		fail "map: pmebuild failed"
	fi
else
	fail "map: cannot link with -Map"
fi

# A shared library as a second EXE: its routines in their own module.
lib=$tmp/libfx.so
if gcc -g -O2 -shared -fPIC -o "$lib" "$top/tests/fixtures/shlib/lib.c" &&
    objs gcc -g -O2 && gcc -o "$tmp/withlib" "$tmp"/o/*.o; then
	if $pmebuild -q -x "$tmp/withlib" -l "$lib" -o "$tmp/lib.pme"; then
		nm -S --defined-only "$lib" | awk '$3 ~ /^[tT]$/ && NF == 4 &&
		    $4 !~ /^_/ { print $4 }' | sort >"$tmp/l.peer"
		dump "$tmp/lib.pme" | awk '$2 == "ROUTINE" &&
		    $6 == "libfx.so" && $3 !~ /@plt$/ && $3 != "_init" &&
		    $3 != "_fini" { print $3 }' |
		    sort -u >"$tmp/l.got"
		compare "shared library routines" "$tmp/l.peer" "$tmp/l.got"
		dump "$tmp/lib.pme" | awk '$2 == "ROUTINE" &&
		    $3 == "main" { print $6 }' | grep -qx withlib ||
		    fail "main is not in the executable's module"
	else
		fail "shared library: pmebuild -l failed"
	fi
	# Stripped: exported functions only, and a warning saying so.
	strip -o "$tmp/libstripped.so" "$lib"
	if $pmebuild -x "$tmp/libstripped.so" -o "$tmp/s.pme" 2>"$tmp/err"
	then
		nm -D --defined-only "$tmp/libstripped.so" |
		    awk '$2 ~ /^[TW]$/ { print $3 }' | sort >"$tmp/s.peer"
		# The rest of .text is one routine apart (symbols_debugfile).
		pme_routines "$tmp/s.pme" | cut -d' ' -f1 |
		    grep -vx '\[libstripped.so\]' | sort >"$tmp/s.got"
		compare "stripped library routines" "$tmp/s.peer" "$tmp/s.got"
		grep -q "warning: .*static functions, modules and lines" \
		    "$tmp/err" || fail "stripped: no warning: $(cat "$tmp/err")"
	else
		fail "stripped library: pmebuild failed: $(cat "$tmp/err")"
	fi
else
	fail "cannot build the shared library fixture"
fi

finish
