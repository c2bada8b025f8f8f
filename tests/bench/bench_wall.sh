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
# the recorder's with the program's), of it the program's own (its
# threads', the kernel's work for the recorder in them included: a
# wrapper's getrusage of its child) and the rest, the recorder's, the
# switches a second, and the size of the file each wrote,
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
# rus FILE COMMAND...: runs the command and writes the CPU time of it
# and its children (user and system) into FILE.
cat > "$tmp/rus.c" <<'EOF'
#include <stdio.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

int
main(int argc, char *argv[])
{
	struct rusage ru;
	FILE *fp;
	pid_t pid;
	int st;

	if (argc < 3 || (pid = fork()) < 0)
		return 2;
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || getrusage(RUSAGE_CHILDREN, &ru) < 0 ||
	    (fp = fopen(argv[1], "w")) == NULL)
		return 2;
	fprintf(fp, "%.3f\n", ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	fclose(fp);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
EOF
${CC:-cc} -O2 -o "$tmp/rus" "$tmp/rus.c"

now() { date +%s.%N; }

# best NAME COMMAND...: the best wall time of runs runs, into $NAME, and
# the least CPU time (user and system, of the command and every process
# it made: the recorder's own with the program's), into cpu_NAME; the
# program's own in that run, into prog_NAME.  The command runs the
# program as $prog does (rus, then pingpong).
best() {
	local name=$1 b="" c="" p="" t0 t1 t u i TIMEFORMAT='%U %S'
	shift
	for i in $(seq "$runs"); do
		rm -f "$tmp"/out.* "$tmp/ru"
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
			p=$(cat "$tmp/ru" 2>/dev/null || echo 0)
		fi
	done
	eval "$name=$b cpu_$name=$c prog_$name=$p"
}

size() { stat -c %s "$1" 2>/dev/null || echo 0; }

prog="$tmp/rus $tmp/ru $tmp/pingpong $rounds"
best bare $prog
switches=$(perf stat -x, -e context-switches -- "$tmp/pingpong" "$rounds" \
    2>&1 >/dev/null | awk -F, '/context-switches/ { print $1 }')
# Without -q pmeclock says how many scheduler records the kernel dropped
# (its buffers full): a run that drops them converts fewer, and is
# faster for it.
lost() { grep -o '[0-9]* scheduler records lost' "$tmp/err.$1" |
    awk '{ print $1 } END { if (NR == 0) print 0 }'; }
best pme "$top/sample/pmeclock" -w -o "$tmp/out.pms" -- $prog
spme=$(size "$tmp/out.pms") lpme=$(lost pme)
# With frame pointer chains (the program is built without them: the
# stacks stop short; the cost of copying and unwinding the stack, apart)
best pfp "$top/sample/pmeclock" -w -G fp -o "$tmp/out.pms" -- $prog
sfp=$(size "$tmp/out.pms") lfp=$(lost pfp)
best ptp perf record -q -e sched:sched_switch -g -o "$tmp/out.tp" -- \
    $prog
stp=$(size "$tmp/out.tp")
best psched perf sched record -q -o "$tmp/out.sched" -- $prog
ssched=$(size "$tmp/out.sched")

# The CPU time beyond the program's own is the recorder's overhead
# whatever the scheduler makes of the two threads' placement (a traced
# run may even end sooner than the program alone: its threads' wake-ups
# land otherwise).
awk -v bare="$bare" -v pme="$pme" -v pfp="$pfp" -v sfp="$sfp" -v ptp="$ptp" -v psched="$psched" \
    -v sw="$switches" -v spme="$spme" -v stp="$stp" -v ssched="$ssched" \
    -v rounds="$rounds" -v lpme="$lpme" -v lfp="$lfp" \
    -v cbare="$cpu_bare" -v cpme="$cpu_pme" -v cpfp="$cpu_pfp" \
    -v cptp="$cpu_ptp" -v cpsched="$cpu_psched" -v pbare="$prog_bare" \
    -v ppme="$prog_pme" -v ppfp="$prog_pfp" -v pptp="$prog_ptp" \
    -v ppsched="$prog_psched" '
function row(name, t, c, p, size) {
	printf "%-38s %7.3f %8.2f %6.2f %6.2f %6.2f %11s\n", name, t, t / bare,
	    c, p, c - p, size
}
BEGIN {
	printf "pingpong, %d rounds: %d context switches, %.0f a second alone\n",
	    rounds, sw, sw / bare
	printf "%-38s %7s %8s %6s %6s %6s %11s\n", "", "seconds", "slowdown",
	    "cpu s", "prog", "rec", "file bytes"
	row("alone", bare, cbare, pbare, "-")
	row("pmeclock -w", pme, cpme, ppme, spme)
	row("pmeclock -w -G fp", pfp, cpfp, ppfp, sfp)
	row("perf record -e sched:sched_switch -g", ptp, cptp, pptp, stp)
	row("perf sched record", psched, cpsched, ppsched, ssched)
	printf "(cpu: every process; prog: the program'"'"'s own threads, the " \
	    "kernel'"'"'s work in them included; rec: the rest, the recorder'"'"'s)\n"
	printf "scheduler records lost (last run): pmeclock -w %d, -G fp %d\n",
	    lpme, lfp
	printf "pmeclock -w against perf record -g: time %.2f, CPU beyond the " \
	    "program alone %.2f (in the program %.2f, the recorder'"'"'s %.2f), " \
	    "file %.3f\n", pme / ptp,
	    (cptp > cbare ? (cpme - cbare) / (cptp - cbare) : 0),
	    (pptp > pbare ? (ppme - pbare) / (pptp - pbare) : 0),
	    (cptp > pptp ? (cpme - ppme) / (cptp - pptp) : 0),
	    stp ? spme / stp : 0
	printf "pmeclock -w against perf sched record: time %.2f, CPU beyond " \
	    "the program alone %.2f, file %.3f\n", pme / psched,
	    (cpsched > cbare ? (cpme - cbare) / (cpsched - cbare) : 0),
	    ssched ? spme / ssched : 0
}'
