#!/bin/bash
#
# bench_pmeclock.sh - pmeclock's overhead at 100 Hz and 1 kHz, against the
# program alone and against `perf record` at the same rate, on a fixed
# amount of work (tests/fixtures/clock/spin.c "work"); and the sample
# file's bytes per sample.  Not run by make check.
#
#     tests/bench/bench_pmeclock.sh [RUNS [MILLIONS]]
#
# Each configuration runs RUNS times (default 9) over MILLIONS million
# loop iterations (default 1000, about a second); the medians of the wall
# time and of the CPU time of the whole command (the launcher, the
# program, the kernel's sampling) are printed with their ratios to the
# program alone.  On a loaded machine the CPU ratio is the steadier.

set -u
export LC_ALL=C
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-9}
mill=${2:-1000}
pmeclock=$top/sample/pmeclock
work=$(mktemp -d "${TMPDIR:-/tmp}/bench_pmeclock.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

[ -x "$pmeclock" ] || { echo "bench_pmeclock: build pmeclock first" >&2; exit 1; }
cc -g -O1 -fno-omit-frame-pointer -pthread -o spin \
    "$top/tests/fixtures/clock/spin.c" -ldl || exit 1
have_perf=0
perf record -q -o perf.data -- true >/dev/null 2>&1 && have_perf=1

# measure NAME COMMAND...: medians of wall and CPU seconds.
measure() {
	local name=$1 i
	shift
	: >times
	# bash's time keeps milliseconds where /usr/bin/time keeps ten.
	local TIMEFORMAT='%3R %3U %3S'
	for ((i = 0; i < runs; i++)); do
		{ time "$@" >/dev/null 2>&1 ||
		    { echo "bench_pmeclock: $name failed" >&2; return 1; }
		} 2>t.out
		awk '{ printf "%s %.3f\n", $1, $2 + $3 }' t.out >>times
	done
	wall=$(sort -n -k1,1 times | awk -v n="$runs" \
	    'NR == int((n + 1) / 2) { print $1 }')
	cpu=$(sort -n -k2,2 times | awk -v n="$runs" \
	    'NR == int((n + 1) / 2) { print $2 }')
	printf '%-28s %8.3f %8.3f' "$name" "$wall" "$cpu"
	if [ -n "${base_wall:-}" ]; then
		awk -v w="$wall" -v c="$cpu" -v bw="$base_wall" -v bc="$base_cpu" \
		    'BEGIN { printf " %+8.2f%% %+8.2f%%", (w / bw - 1) * 100,
		    (c / bc - 1) * 100 }'
	fi
	printf '\n'
}

# bytes FILE: bytes per sample of a sample file pmeclock wrote.
bytes() {
	local n
	n=$("$top/tests/unit/t_sample" dump "$1" 2>/dev/null | grep -c '^sample')
	[ "$n" -gt 0 ] && awk -v s="$(stat -c %s "$1")" -v n="$n" \
	    'BEGIN { printf "%.2f bytes/sample (%d samples)", s / n, n }'
}

echo "spin work $mill, median of $runs runs; ratios to the program alone"
printf '%-28s %8s %8s %9s %9s\n' "" "wall s" "cpu s" "wall" "cpu"
base_wall= base_cpu=
measure "program alone" ./spin work "$mill"
base_wall=$wall base_cpu=$cpu
for hz in 100 1000; do
	measure "pmeclock -F $hz (perf)" "$pmeclock" -q -m perf -F "$hz" \
	    -o "p$hz" -- ./spin work "$mill"
	if [ "$have_perf" = 1 ]; then
		measure "perf record -F $hz" perf record -q -e cpu-clock \
		    -F "$hz" -o "perf$hz.data" -- ./spin work "$mill"
	fi
done
measure "pmeclock -F 100 (timer)" "$pmeclock" -q -m timer -F 100 \
    -o t100 -- ./spin work "$mill"
measure "pmeclock -F 250 (timer)" "$pmeclock" -q -m timer -F 250 \
    -o t250 -- ./spin work "$mill"
echo
for f in p100 p1000 t250; do
	printf '%-28s %s\n' "$f.PMS" "$(bytes "$f.PMS")"
done
"$pmeclock" -q -m perf -F 1000 -g -o g1000 -- ./spin work "$mill"
printf '%-28s %s\n' "g1000.PMS (-g)" "$(bytes g1000.PMS)"
if [ "$have_perf" = 1 ]; then
	n=$(perf script -i perf1000.data -F ip 2>/dev/null | wc -l)
	[ -n "$n" ] && [ "$n" -gt 0 ] && awk -v s="$(stat -c %s perf1000.data)" \
	    -v n="$n" 'BEGIN { printf "%-28s %.2f bytes/sample (%d samples)\n",
	    "perf1000.data", s / n, n }'
fi
