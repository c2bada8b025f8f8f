#!/bin/bash
#
# pmetrace_sigtrap.sh - a program's own SIGTRAPs under pmetrace's engines
# (tests/fixtures/trace/trap.c).  The step engine single-steps, and a
# step's trap while SIGTRAP is blocked makes the kernel reset the
# program's handler; so a program that handles SIGTRAP and raises it is
# refused by -e step (a clear message, a non-zero exit, the output file
# untouched), and valgrind's engines (pmevg where built, callgrind) run
# its handler five times (three raise(3), two int3) with equal counts.
# A program that installs a handler and never raises SIGTRAP, one that
# ignores it and raises it (itself, or started so), and one that dies of
# it: every engine runs
# them as they run alone (output, exit status) with counts equal to
# callgrind's, routine by routine.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/trace.sh"

need_valgrind
need_no_pme_valgrind "pmetrace runs valgrind itself"
need_step

cd "$tmp" || exit 1
$cc -g -O1 -o trap "$fx/trap.c" && build_pmecounts ||
    { echo "cannot build the fixtures" >&2; exit 1; }
$pmebuild -q -x ./trap -o trap.pme || { echo "pmebuild failed" >&2; exit 1; }

# counts FILE: "routine count" of the fixture's routines.
counts() {
	./pmecounts "$1" | awk '$1 == "bucket" &&
	    $2 ~ /^(main|work|on_trap)$/ { print $2, $3 }' | sort
}

# trace ENGINE MODE OUT: runs trap MODE under ENGINE; $got is its status.
trace() {
	$pmetrace -e "$1" -b trap.pme -o "$3" -- ./trap "$2" >run.out \
	    2>run.err
	got=$?
}

# Handled: refused by the step engine, run by valgrind's.
echo keep >st.pme
trace step handle st.pme
[ "$got" != 0 ] || fail "step handle: exit status 0, not a refusal"
grep -q "handles SIGTRAP" run.err ||
    fail "step handle: no message saying why: $(cat run.err)"
[ "$(cat st.pme)" = keep ] || fail "step handle: the output file was written"
[ -s run.out ] && fail "step handle: the program went on: $(cat run.out)"
for e in $(engines); do
	[ "$e" = step ] && continue
	trace "$e" handle "$e.pme"
	[ "$got" = 0 ] || fail "$e handle: exit status $got: $(cat run.err)"
	grep -qx "handle: handled 5" run.out ||
	    fail "$e handle: the handler did not run five times: $(cat run.out)"
	counts "$e.pme" >"$e.txt"
done
have_pmevg && { diff -u callgrind.txt pmevg.txt >diff.txt ||
    fail "handle: pmevg differs from callgrind: $(cat diff.txt)"; }
grep -q '^on_trap [1-9]' callgrind.txt ||
    fail "handle: on_trap not counted: $(cat callgrind.txt)"

# The others: as alone, counts equal; "inherited" is trap default
# started with SIGTRAP ignored (by the shell's trap '' TRAP).
for mode in install ignore default inherited; do
	pre=
	m=$mode
	[ "$mode" = inherited ] && pre="trap '' TRAP;" m=default
	bash -c "$pre ./trap $m" >alone.out 2>/dev/null
	want=$?
	for e in $(engines); do
		( eval "$pre"; trace "$e" "$m" "$e.pme"; exit $got )
		got=$?
		[ "$got" = "$want" ] ||
		    fail "$e $mode: exit status $got, alone $want: $(cat run.err)"
		cmp -s alone.out run.out ||
		    fail "$e $mode: printed '$(cat run.out)', alone '$(cat alone.out)'"
		counts "$e.pme" >"$e.txt"
	done
	grep -q '^work [1-9]' callgrind.txt ||
	    fail "$mode: work not counted: $(cat callgrind.txt)"
	for e in $(engines); do
		[ "$e" = callgrind ] && continue
		diff -u callgrind.txt "$e.txt" >diff.txt ||
		    fail "$mode: $e differs from callgrind: $(cat diff.txt)"
	done
done
finish
