#!/bin/bash
#
# escape_all.sh - no text output of any program lets a control byte from
# a file through (issue 23 item 12).  Hostile inputs, built here from
# tests/fixtures/hostile: an event file whose every name holds a terminal
# control sequence (ev.c), a program whose hot routine's symbol and
# thread name hold one (sym.c), and a sample file of tests/histo/calls.smp
# whose recorded command line holds one.  Every text output over them
# (pmehisto's -T types and -V views and .HIS, stats' types, -m and -l,
# pmebuild's PRINT listing and -x, a trace's page, pmemerge -v, the
# programs' standard error) is searched for
# a C0 control other than newline and form feed, DEL, and a C1 control
# (raw or UTF-8 encoded); each output must also show the escaped form
# (\x1b), so that a check that never saw the name cannot pass.  The
# pprof export is binary and left out.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
fx=$top/tests/fixtures/hostile
stats=$top/stats/stats

need "$tsample" "$stats"
cd "$tmp" || exit 1

# clean FILE WHAT: no control byte but newline and form feed.
clean() {
	if LC_ALL=C grep -q "$(printf '[\001-\011\013\015-\037\177]')" "$1" ||
	    LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$1"; then
		fail "$2: a control character passed: $(grep -a "$(printf '\033')" "$1" | cat -A | head -c 300)"
	fi
}

# shown FILE WHAT: the escaped name is there (\x1b, or in a PostScript
# string \033).
shown() {
	grep -qF -e '\x1b' -e '\033' "$1" ||
	    fail "$2: no escaped name in the output"
}

# run WHAT COMMAND...: COMMAND's standard output and error are clean,
# and its standard output shows an escaped name (unless SHOWN=0).
run() {
	local what=$1
	shift
	"$@" >out 2>err </dev/null
	clean out "$what"
	clean err "$what: standard error"
	[ "${SHOWN:-1}" = 0 ] || shown out "$what"
}

sanitize=$(sed -n 's/^SANITIZE_FLAGS = *//p' "$top/config.mk" 2>/dev/null)

# --- stats over an event file with hostile names ---------------------------
mkdir ev && cd ev || exit 1
if ${CC:-cc} -std=c11 -D_GNU_SOURCE $sanitize -I"$top/lib" -o ev "$fx/ev.c" \
    "$top/lib/libpme.a" -lz -lpthread && ./ev; then
	for t in text csv json ps; do
		run "stats -T $t" "$stats" -T $t
	done
	run "stats -m" "$stats" -m
	run "stats -m -T csv" "$stats" -m -T csv
	run "stats -l" "$stats" -l
else
	fail "cannot build or run ev.c"
fi
cd .. || exit 1

# --- pmehisto over a command line with a control sequence ------------------
"$pmebuild" -q -o calls.PME "$top/tests/histo/calls.pmd" ||
    fail "pmebuild calls.pmd"
sed "s|argv=./calls|argv=./ca$(printf '\033')]0;PWNED$(printf '\007')lls|" \
    "$top/tests/histo/calls.smp" | "$tsample" write calls.PMS ||
    fail "t_sample write"
h() {	# WHAT ARGS...: pmehisto on calls.PMS; its .HIS is checked too
	local what=$1
	shift
	rm -f out.HIS
	SHOWN=$shows run "$what" "$pmehisto" -q "$@" -b calls.PME -B out.PME -o out.HIS \
	    calls.PMS
	[ -e out.HIS ] && clean out.HIS "$what: .HIS"
}
shows=1
for v in spy callgraph; do
	h "pmehisto -V $v" -V $v -T text
done
h "pmehisto -T text" -T text
h "pmehisto -T ps" -T ps
shows=0
h "pmehisto -V callers:util" -V callers:util -T text
h "pmehisto -T folded" -T folded

# --- a program whose symbols hold a control sequence -----------------------
if ${CC:-cc} -O1 -g -o sym "$fx/sym.c"; then
	printf '%s\n' 'DEFINE OPTIONS: PRINT' \
	    'DEFINE UNITS: PROGRAM, MODULE, ROUTINE' 'PROGRAM S' \
	    'DEFINE ADDRESSES: EXE "sym"' 'DEFINE SAMPLING' \
	    'PROGRAM S BY ROUTINE' 'END' >sym.pmd
	run "pmebuild PRINT" "$pmebuild" sym.pmd sym.PME
	# Sampled: the hot routine is the one named; nothing is asserted
	# about the counts but that the hot routine has some.
	if "$pmeclock" -q -g -o sym -- ./sym 200000000 </dev/null >/dev/null \
	    2>clock.err; then
		# The exports go to -o's file.
		for t in text csv folded svg callgrind; do
			SHOWN=0 run "pmehisto -x -T $t" "$pmehisto" -q -x \
			    -C 0 -T $t -B x.PME -o x.out sym.PMS
			clean x.out "pmehisto -x -T $t: -o"
			cat out x.out >both
			shown both "pmehisto -x -T $t"
		done
		for v in caliper caliper:thread caliper:function; do
			run "pmehisto -x -V $v" "$pmehisto" -q -x -V $v \
			    -T text -B x.PME -o x.HIS sym.PMS
		done
		run "pmehisto -T text (PRINT's buckets)" "$pmehisto" -q \
		    -b sym.PME -B y.PME -o y.HIS -T text sym.PMS
		run "stats -f sym.PMS" "$stats" -f sym.PMS -B sym.PME -T text
	else
		echo "pmeclock could not sample here: $(head -c 200 clock.err)"
	fi
	# Traced: pmetrace's counts of pmebuild -x's buckets, the trace
	# input's page, and pmemerge's sum of two runs.
	SHOWN=0 run "pmebuild -x" "$pmebuild" -x ./sym -o symx.PME
	if "$pmetrace" -q -b symx.PME -o tr.PME -- ./sym 2000000 \
	    </dev/null >/dev/null 2>trace.err; then
		run "pmehisto -t" "$pmehisto" -q -t -T text -C 0 -b tr.PME \
		    -B tr2.PME -o tr.HIS
		SHOWN=0 run "pmemerge -v" "$top/histo/pmemerge" -v -o m.PME \
		    tr.PME tr.PME
	else
		echo "pmetrace could not trace here: $(head -c 200 trace.err)"
	fi
else
	fail "cannot build sym.c"
fi

finish
