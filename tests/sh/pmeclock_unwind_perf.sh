#!/bin/bash
#
# pmeclock_unwind_perf.sh - pmeclock -g against perf record --call-graph
# dwarf on the same run (pmeclock run under perf record, perf's samples
# of the program kept): tests/fixtures/unwind/calls.c built at -O2
# without frame pointers (a leaf called from two callers 3:1, two
# threads), sampled by each at 1 kHz of CPU time.  In runs of their own
# the two disagreed on a loaded machine (the CI's): a CPU clock's sample
# comes as the thread is back on its CPU, booked where it was preempted,
# and a busy machine preempts the threads most as their clock_gettime
# system calls return, outside util() (perf's run 94.2% in util, pme's
# 98.6%); in one run both see the same preemptions.  The
# inclusive share of each of the program's routines (the samples whose
# stack holds it) must agree within five standard deviations of the
# difference of two binomial shares of the two counts; and pmeclock's
# sample file must take at most a twentieth of perf.data's bytes per
# sample.  Skipped where perf_event_open is refused, pmeclock has no CFI
# unwinding, or perf is missing or cannot record.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"
. "$top/tests/sh/lib/unwind.sh"

need_unwinding
command -v perf >/dev/null 2>&1 || skip "no perf here"
if ! perf record -q -e cpu-clock -c 1000000 --call-graph dwarf \
    -o probe.data -- true >perf.err 2>&1; then
	skip "perf record --call-graph dwarf fails here: $(head -n 1 perf.err)"
fi

$cc -O2 -g -fomit-frame-pointer -pthread -o calls \
    "$top/tests/fixtures/unwind/calls.c" >build.log 2>&1 &&
    "$pmebuild" -q -x ./calls -o calls.PME >>build.log 2>&1 ||
    { fail "cannot build calls: $(cat build.log)"; finish; }

routines='^(util|alpha|beta|burn|main|cpu_ms|thread_alpha|thread_beta)$'
for mode in shares threads; do
	# shellcheck disable=SC2086 # pmeclock may carry a valgrind prefix
	if ! perf record -q -e cpu-clock -c 1000000 --call-graph dwarf \
	    -o "$mode.data" -- $pmeclock -g -F 1000 -o "$mode" -- \
	    ./calls "$mode" 500 >perf.err 2>&1 </dev/null ||
	    ! perf script --comm calls --no-inline -F ip,sym \
	    -i "$mode.data" >"$mode.perf" 2>>perf.err; then
		fail "pmeclock $mode under perf: $(head -n 3 perf.err)"
		continue
	fi
	if ! "$pmehisto" -q -T folded -b calls.PME -B out.PME -o out.HIS \
	    "$mode.PMS" >"$mode.folded" 2>herr; then
		fail "pmehisto -T folded $mode.PMS: $(cat herr)"
		continue
	fi
	incl_folded "$mode.folded" >pme.incl
	incl_perf "$mode.perf" >perf.incl
	compare_incl pme.incl perf.incl 0.02 "$routines" >"$mode.cmp"
	grep -q ' ok$' "$mode.cmp" ||
	    fail "$mode: no routine compared: $(cat "$mode.cmp")"
	grep -q ' BAD$' "$mode.cmp" && fail "$mode: inclusive shares" \
	    "(routine pmeclock% perf% tolerance%) differ:
$(cat "$mode.cmp")"
	# Bytes per sample: the sample file against perf.data.
	n=$(awk 'NR == 1 { print $3 }' pme.incl)
	m=$(awk 'NR == 1 { print $3 }' perf.incl)
	a=$(wc -c <"$mode.PMS")
	b=$(wc -c <"$mode.data")
	[ "${n:-0}" -gt 0 ] && [ "${m:-0}" -gt 0 ] &&
	    [ $((a * m * 20)) -le $((b * n)) ] ||
	    fail "$mode: $a bytes for $n samples, perf.data $b for $m"
done

finish
