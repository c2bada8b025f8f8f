#!/bin/bash
#
# bench_events.sh - what watching an event other than the clock costs
# (issue 25), beside perf on the same program: not run by make check.
#
#     tests/bench/bench_events.sh [RUNS]
#
# Three programs, each timed alone, under pmeclock and under perf record
# of the same event with the same period (every event: -e EVENT/1 and
# perf's -c 1):
#
# - page faults: tests/fixtures/events "pages 200000" (250,000 faults);
# - context switches: "writes 0 2000" (2,000 sleeps of 1 ms, a switch
#   each and what the machine adds);
# - a break on a routine called a million times: tests/fixtures/breaks
#   "prog 1000000 0 0", f() a million times: pmeclock -e break:f against
#   perf probe -x prog f + perf record -e probe_prog:f -c 1 (perf probe
#   needs root and tracefs; skipped otherwise).
#
# The median of RUNS runs (default 5) of the wall time and of the CPU
# time (user + system of the whole command: launcher, program, kernel)
# is printed with the ratio of each to the program alone, pmeclock's and
# perf's side by side, then pmeclock's over perf's.  perf writes its records and converts nothing;
# pmeclock converts each to a sample file record as it reads them.

set -u
export LC_ALL=C
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-5}
pmeclock=$top/sample/pmeclock
work=$(mktemp -d "${TMPDIR:-/tmp}/bench_events.XXXXXX") || exit 1
probe=
trap '[ -n "$probe" ] && perf probe -q -d "$probe" >/dev/null 2>&1; rm -rf "$work"' EXIT
cd "$work" || exit 1

[ -x "$pmeclock" ] || { echo "bench_events: build pmeclock first" >&2; exit 1; }
cc -O2 -g -pthread -o ev "$top/tests/fixtures/events/events.c" || exit 1
cc -O0 -g -shared -fPIC -o libg.so "$top/tests/fixtures/breaks/lib.c" &&
    cc -O0 -g -o prog "$top/tests/fixtures/breaks/prog.c" -L. -lg \
    -Wl,-rpath,'$ORIGIN' || exit 1
have_perf=0
perf record -q -e page-faults -c 1 -o probe.data -- true >/dev/null 2>&1 &&
    have_perf=1

# run NAME COMMAND...: the medians of RUNS runs' wall and CPU seconds
# into wall and cpu; prints them, and their ratios to base_wall and
# base_cpu when those are set.
run() {
	local name=$1 i
	shift
	: >times
	for ((i = 0; i < runs; i++)); do
		/usr/bin/time -f '%e %U %S' -o t.out "$@" >/dev/null 2>&1 ||
		    { echo "bench_events: $name failed" >&2; return 1; }
		awk '{ printf "%s %.3f\n", $1, $2 + $3 }' t.out >>times
	done
	wall=$(awk '{ print $1 }' times | sort -n | awk -v n="$runs" \
	    'NR == int((n + 1) / 2)')
	cpu=$(awk '{ print $2 }' times | sort -n | awk -v n="$runs" \
	    'NR == int((n + 1) / 2)')
	printf '  %-38s %8.3f %8.3f' "$name" "$wall" "$cpu"
	# A base under 10 ms is below what time(1) resolves: no ratio.
	[ -n "${base_wall:-}" ] && awk -v w="$wall" -v c="$cpu" \
	    -v bw="$base_wall" -v bc="$base_cpu" 'BEGIN {
	    if (bw >= 0.01) printf " %8.2fx", w / bw; else printf " %9s", "-"
	    if (bc >= 0.01) printf " %8.2fx", c / bc; else printf " %9s", "-" }'
	printf '\n'
}

# versus: pmeclock's run (pw, pc) over perf's (wall, cpu).
versus() {
	awk -v pw="$pw" -v pc="$pc" -v w="$wall" -v c="$cpu" 'BEGIN {
	    printf "  %-38s %8s %8s %8.2fx %8.2fx\n", "pmeclock over perf", "",
	    "", pw / (w > 0 ? w : 0.001), pc / (c > 0 ? c : 0.001) }'
}

# alone NAME COMMAND...: the program alone, the base of the ratios.
alone() {
	base_wall= base_cpu=
	run "$@"
	base_wall=$wall base_cpu=$cpu
}

echo "median of $runs runs; ratios to the program alone"
printf '  %-38s %8s %8s %9s %9s\n' "" "wall s" "cpu s" "wall" "cpu"

echo "page faults (ev pages 200000: 250,000 faults)"
alone "program alone" ./ev pages 200000
run "pmeclock -e page-faults/1" "$pmeclock" -q -e page-faults/1 -o pf \
    ./ev pages 200000
pw=$wall pc=$cpu
[ "$have_perf" = 1 ] && run "perf record -e page-faults -c 1" perf record \
    -q -e page-faults -c 1 -o pf.data -- ./ev pages 200000 && versus

echo "context switches (ev writes 0 2000: 2,000 sleeps)"
alone "program alone" ./ev writes 0 2000
run "pmeclock -e context-switches/1" "$pmeclock" -q \
    -e context-switches/1 -o cs ./ev writes 0 2000
pw=$wall pc=$cpu
[ "$have_perf" = 1 ] && run "perf record -e context-switches -c 1" \
    perf record -q -e context-switches -c 1 -o cs.data -- \
    ./ev writes 0 2000 && versus

echo "a break on f(), called 1,000,000 times (prog 1000000 0 0)"
alone "program alone" ./prog 1000000 0 0
run "pmeclock -e break:f" "$pmeclock" -q -e break:f -o brk \
    ./prog 1000000 0 0
pw=$wall pc=$cpu
if [ "$have_perf" = 1 ] && perf probe -q -x ./prog f >probe.out 2>&1; then
	probe=probe_prog:f
	run "perf probe + perf record -c 1" perf record -q -e "$probe" -c 1 \
	    -o brk.data -- ./prog 1000000 0 0 && versus
else
	echo "  (perf probe -x prog f refused: $(head -n 1 probe.out 2>/dev/null))"
fi
