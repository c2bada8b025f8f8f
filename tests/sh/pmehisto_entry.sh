#!/bin/bash
#
# pmehisto_entry.sh - call chains that begin at the program's entry, and
# those the unwinder stopped short of it marked.  tests/fixtures/inline/
# inl.c sampled by pmeclock -g: in the folded stacks every chain through
# main begins _start;__libc_start_main;__libc_start_call_main;main, as
# perf script gives it, with the quick path's bucket file and with one
# of the program's routines only (pmebuild -x), where _start is in no
# bucket and libc in no module and they were [inl];[libc.so.6] (the
# frames are named from the files' symbol tables); and with -G dwarf,128
# (a stack copy too small to reach main), the chains pmsstat counts
# truncated, exactly, are those that begin with [truncated], also after
# whole chains in the same file (the runs joined by pmemerge).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"
. "$top/tests/sh/lib/unwind.sh"

need_unwinding

$cc -O2 -g -o inl "$top/tests/fixtures/inline/inl.c" >build.log 2>&1 &&
    "$pmebuild" -q -x ./inl -o inl.PME >>build.log 2>&1 ||
    { fail "cannot build inl: $(cat build.log)"; finish; }
# shellcheck disable=SC2086 # PME_VALGRIND may be a command
histo() { ${PME_VALGRIND:-} "$pmehisto" -q -o out.HIS "$@"; }

entry='^_start;__libc_start_main;__libc_start_call_main;main;'
run 0 "pmeclock -g" -j 0 -g -F 1000 -o whole -- ./inl 300
for how in "-x" "-b inl.PME -B out.PME"; do
	# shellcheck disable=SC2086 # the words of $how
	histo $how -T folded whole.PMS >whole.folded 2>herr ||
	    fail "pmehisto $how: $(cat herr)"
	n=$(grep -c ';main;' whole.folded)
	[ "$n" -gt 0 ] || fail "$how: no chain through main: $(cat whole.folded)"
	grep ';main;' whole.folded | grep -v "$entry" >bad
	[ -s bad ] && fail "$how: chains through main not from _start:
$(head -n 5 bad)"
done

run 0 "pmeclock -G dwarf,128" -j 0 -g -G dwarf,128 -F 1000 -o short -- \
    ./inl 300
stat short.PMS
t=$(field truncated)
histo -x -T folded short.PMS >short.folded 2>herr ||
    fail "pmehisto short: $(cat herr)"
m=$(awk '/^\[truncated\];/ { n += $NF } END { print n + 0 }' short.folded)
[ "${t:-0}" -gt 0 ] && [ "$m" = "$t" ] ||
    fail "[truncated] stacks hold $m samples, pmsstat counts $t truncated"
grep -v '^\[truncated\];' short.folded | grep ';main;' | grep -v "$entry" >bad
[ -s bad ] && fail "short: untruncated chains not from _start: $(head -n 3 bad)"
# Whole chains, then truncated ones, in one file (a truncated chain
# after a longer whole one of the same file wrote through a null
# pointer): the two runs joined by pmemerge.
"$top/histo/pmemerge" -q -o both.PMS whole.PMS short.PMS 2>herr ||
    fail "pmemerge: $(cat herr)"
histo -x -T folded both.PMS >both.folded 2>herr ||
    fail "pmehisto of whole.PMS and short.PMS joined: $(cat herr)"
m=$(awk '/^\[truncated\];/ { n += $NF } END { print n + 0 }' both.folded)
[ "$m" = "$t" ] ||
    fail "whole and short: [truncated] stacks hold $m samples, not $t"
finish
