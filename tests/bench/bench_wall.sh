#!/bin/bash
#
# bench_wall.sh - what pmeclock -w costs a program that switches often,
# beside perf's ways of recording the same switches:
#	bench_wall.sh [-n RUNS] [-r ROUNDS]
#
# The program: two threads passing a byte back and forth over two pipes
# ROUNDS times (default 200000), some 100,000 context switches a second
# or more here (tests/fixtures/clock/samesp.c).  Run alone, under
# pmeclock -w (off-CPU intervals, their kinds and stacks unwound from
# the CFI, with the cpu-clock samples), under perf record -e sched:sched_switch -g (the switches with frame
# pointer chains, per thread, inherited) and under perf sched record
# (system-wide: every CPU's scheduler events).  Best wall time of RUNS
# (default 3) each.  Printed: seconds, the slowdown against the program
# alone, the least CPU time of the runs (user and system, every process:
# the recorder's with the program's), the switches a second, and the
# size of the file each wrote,
# with pmeclock's file against each of perf's as a ratio.  The target
# (issue 26): less overhead than perf's and a file at most a tenth of
# perf.data.  pmeclock -w -G fp (frame pointer chains, as perf's -g,
# no stack copied) is timed too.
#
# Run from the top directory (or set PME_TOP) after make; perf must be
# able to record tracepoints (root or CAP_PERFMON).

set -eu
export LC_ALL=C
top=$(cd "${PME_TOP:-.}" && pwd)
runs=3 rounds=200000
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-r) rounds=$2; shift 2 ;;
	*) echo "usage: bench_wall.sh [-n runs] [-r rounds]" >&2; exit 2 ;;
	esac
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_wall.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The program is the fixture of sh/pmeclock_wall_cache: its second
# thread takes each byte in a function called alternately from two
# others.
${CC:-cc} -O2 -pthread -o "$tmp/pingpong" "$top/tests/fixtures/clock/samesp.c"

now() { date +%s.%N; }

# best NAME COMMAND...: the best wall time of runs runs, into $NAME, and
# the least CPU time (user and system, of the command and every process
# it made: the recorder's own with the program's), into cpu_NAME.
best() {
	local name=$1 b="" c="" t0 t1 t u i TIMEFORMAT='%U %S'
	shift
	for i in $(seq "$runs"); do
		rm -f "$tmp"/out.*
		t0=$(now)
		{ time "$@" >/dev/null 2>"$tmp/err.$name"; } 2>"$tmp/time"
		t1=$(now)
		t=$(echo "$t1 - $t0" | bc -l)
		u=$(awk '{ print $1 + $2 }' "$tmp/time")
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then
			b=$t
		fi
		if [ -z "$c" ] || [ "$(echo "$u < $c" | bc -l)" = 1 ]; then
			c=$u
		fi
	done
	eval "$name=$b cpu_$name=$c"
}

size() { stat -c %s "$1" 2>/dev/null || echo 0; }

best bare "$tmp/pingpong" "$rounds"
switches=$(perf stat -x, -e context-switches -- "$tmp/pingpong" "$rounds" \
    2>&1 >/dev/null | awk -F, '/context-switches/ { print $1 }')
# Without -q pmeclock says how many scheduler records the kernel dropped
# (its buffers full): a run that drops them converts fewer, and is
# faster for it.
lost() { grep -o '[0-9]* scheduler records lost' "$tmp/err.$1" |
    awk '{ print $1 } END { if (NR == 0) print 0 }'; }
best pme "$top/sample/pmeclock" -w -o "$tmp/out.pms" -- \
    "$tmp/pingpong" "$rounds"
spme=$(size "$tmp/out.pms") lpme=$(lost pme)
# With frame pointer chains (the program is built without them: the
# stacks stop short; the cost of copying and unwinding the stack, apart)
best pfp "$top/sample/pmeclock" -w -G fp -o "$tmp/out.pms" -- \
    "$tmp/pingpong" "$rounds"
sfp=$(size "$tmp/out.pms") lfp=$(lost pfp)
best ptp perf record -q -e sched:sched_switch -g -o "$tmp/out.tp" -- \
    "$tmp/pingpong" "$rounds"
stp=$(size "$tmp/out.tp")
best psched perf sched record -q -o "$tmp/out.sched" -- \
    "$tmp/pingpong" "$rounds"
ssched=$(size "$tmp/out.sched")

# The CPU time beyond the program's own is the recorder's overhead
# whatever the scheduler makes of the two threads' placement (a traced
# run may even end sooner than the program alone: its threads' wake-ups
# land otherwise).
awk -v bare="$bare" -v pme="$pme" -v pfp="$pfp" -v sfp="$sfp" -v ptp="$ptp" -v psched="$psched" \
    -v sw="$switches" -v spme="$spme" -v stp="$stp" -v ssched="$ssched" \
    -v rounds="$rounds" -v lpme="$lpme" -v lfp="$lfp" \
    -v cbare="$cpu_bare" -v cpme="$cpu_pme" -v cpfp="$cpu_pfp" \
    -v cptp="$cpu_ptp" -v cpsched="$cpu_psched" 'BEGIN {
	printf "pingpong, %d rounds: %d context switches, %.0f a second alone\n",
	    rounds, sw, sw / bare
	printf "%-40s %8s %9s %8s %12s\n", "", "seconds", "slowdown", "cpu s",
	    "file bytes"
	printf "%-40s %8.3f %9s %8.2f %12s\n", "alone", bare, "1.00", cbare, "-"
	printf "%-40s %8.3f %9.2f %8.2f %12d\n", "pmeclock -w", pme, pme / bare,
	    cpme, spme
	printf "%-40s %8.3f %9.2f %8.2f %12d\n", "pmeclock -w -G fp", pfp,
	    pfp / bare, cpfp, sfp
	printf "%-40s %8.3f %9.2f %8.2f %12d\n",
	    "perf record -e sched:sched_switch -g", ptp, ptp / bare, cptp, stp
	printf "%-40s %8.3f %9.2f %8.2f %12d\n", "perf sched record", psched,
	    psched / bare, cpsched, ssched
	printf "scheduler records lost (last run): pmeclock -w %d, -G fp %d\n",
	    lpme, lfp
	printf "pmeclock -w against perf record -g: time %.2f, CPU beyond the " \
	    "program alone %.2f, file %.3f\n", pme / ptp,
	    (cptp > cbare ? (cpme - cbare) / (cptp - cbare) : 0),
	    stp ? spme / stp : 0
	printf "pmeclock -w against perf sched record: time %.2f, CPU beyond " \
	    "the program alone %.2f, file %.3f\n", pme / psched,
	    (cpsched > cbare ? (cpme - cbare) / (cpsched - cbare) : 0),
	    ssched ? spme / ssched : 0
}'
