#!/bin/bash
#
# pmehisto_inline.sh - pmehisto --inline: the functions inlined at a
# frame's address as frames of their own.  tests/fixtures/inline/inl.c
# built -O2 -g (inner() inlined into middle() into outer() into work(),
# side() into outer())
# sampled by pmeclock -g at 4 kHz for a second: the folded stacks and the views have inner,
# middle and outer as frames in that order, which they lack without
# --inline; and perf record --call-graph dwarf of the same run (pmeclock
# run under it, as sh/pmeclock_unwind_perf does: a loaded machine's
# preemptions bias each run's shares its own way), read by perf script
# --inline, gives each of them, side, work and main an inclusive share
# that agrees with pme's within five standard deviations of the
# difference of two binomial shares (tests/sh/lib/unwind.sh).  The
# chains at each address are checked exactly against addr2line -i by
# unit/t_inline.  The perf part is skipped where perf is missing or
# cannot record.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"
. "$top/tests/sh/lib/unwind.sh"

need_unwinding

$cc -O2 -g -fomit-frame-pointer -o inl "$top/tests/fixtures/inline/inl.c" \
    >build.log 2>&1 || { fail "cannot build inl: $(cat build.log)"; finish; }

perf_ok=0
if command -v perf >/dev/null 2>&1 && perf record -q -e cpu-clock \
    -c 250000 --call-graph dwarf -o probe.data -- true >perf.err 2>&1; then
	perf_ok=1
	# shellcheck disable=SC2086 # pmeclock may carry a valgrind prefix
	perf record -q -e cpu-clock -c 250000 --call-graph dwarf -o inl.data \
	    -- $pmeclock -g -F 4000 -o inl -- ./inl 1000 >perf.err 2>&1 \
	    </dev/null || fail "pmeclock -g under perf: $(head -n 3 perf.err)"
else
	echo "perf part skipped: no perf, or it cannot record here:" \
	    "$(head -n 1 perf.err 2>/dev/null)"
	run 0 "pmeclock -g" -g -F 4000 -o inl -- ./inl 1000
fi
# shellcheck disable=SC2086 # PME_VALGRIND may be a command
histo() { ${PME_VALGRIND:-} "$pmehisto" -q -x -o out.HIS "$@" inl.PMS; }

histo -T folded >plain.folded 2>herr || fail "pmehisto -T folded: $(cat herr)"
histo -T folded --inline >inl.folded 2>herr ||
    fail "pmehisto -T folded --inline: $(cat herr)"
grep -q ';work;outer;middle;inner [0-9]*$' inl.folded ||
    fail "--inline: no stack ends in work;outer;middle;inner:
$(head -n 20 inl.folded)"
grep -q ';inner' plain.folded && fail "without --inline: inner is a frame"
# Every sample is kept: the counts add up to the same.
a=$(awk '{ n += $NF } END { print n + 0 }' plain.folded)
b=$(awk '{ n += $NF } END { print n + 0 }' inl.folded)
[ "$a" = "$b" ] && [ "$a" -gt 0 ] ||
    fail "samples: $a without --inline, $b with"

# The views: inner is called by middle only, at its instances' starts.
histo -V callers:inner --inline >callers 2>herr ||
    fail "-V callers:inner --inline: $(cat herr)"
grep -q '^inner ' callers && grep -q '^   middle (0x' callers &&
    ! sed -n '/^Called by/,/^Calls/p' callers | grep -v '^Call' |
    grep -vq '^   middle (0x' ||
    fail "callers:inner: not called by middle alone: $(cat callers)"
histo -V callgraph --inline >graph 2>herr ||
    fail "-V callgraph --inline: $(cat herr)"
for f in inner middle outer; do
	grep -q "  $f \[[0-9]*\]\$" graph || fail "callgraph: no $f: $(cat graph)"
done
histo -T svg --inline -o inl.svg >/dev/null 2>herr ||
    fail "-T svg --inline: $(cat herr)"
grep -q '>inner' inl.svg 2>/dev/null || grep -q 'inner (' inl.svg ||
    fail "-T svg --inline: no inner frame"

# perf's samples of the same run.
[ "$perf_ok" = 1 ] || finish
perf script --comm inl --inline -F ip,sym -i inl.data >perf.txt 2>perf.err ||
    { fail "perf script: $(head -n 1 perf.err)"; finish; }
sed 's/ (inlined)$//' perf.txt >perf.inl
incl_folded inl.folded >pme.incl
incl_perf perf.inl >perf.incl
compare_incl pme.incl perf.incl 0.02 '^(inner|middle|side|outer|work|main)$' >cmp
[ "$(grep -c ' ok$' cmp)" = 6 ] ||
    fail "inclusive shares (routine pme% perf% tolerance%): $(cat cmp)"
finish
