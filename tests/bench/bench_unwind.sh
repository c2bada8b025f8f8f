#!/bin/bash
#
# bench_unwind.sh - samples lost with call chains from the CFI at a high
# rate: THREADS busy threads (tests/fixtures/clock/spin.c "threads") at
# RATE Hz of CPU time, sampled by `pmeclock -g` and by `perf record
# --call-graph dwarf` on the same program, each RUNS times.  Prints per
# run the samples kept and lost, the share lost, the wall and CPU seconds
# of the whole command, and for pmeclock its unwinding rate (-v: chains
# per second of the unwinding thread's time).  Not run by make check.
#
#     tests/bench/bench_unwind.sh [RUNS [THREADS [RATE [MS]]]]
#
# Defaults: 3 runs, 16 threads, 10000 Hz, 1000 ms of CPU per thread.

set -u
export LC_ALL=C
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-3}
threads=${2:-16}
rate=${3:-10000}
ms=${4:-1000}
pmeclock=$top/sample/pmeclock
work=$(mktemp -d "${TMPDIR:-/tmp}/bench_unwind.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

[ -x "$pmeclock" ] || { echo "bench_unwind: build pmeclock first" >&2; exit 1; }
cc -g -O1 -pthread -o spin "$top/tests/fixtures/clock/spin.c" -ldl || exit 1
have_perf=0
perf record -q -e cpu-clock -c 1000000 --call-graph dwarf -o probe.data \
    -- true >/dev/null 2>&1 && have_perf=1

# line TOOL KEPT LOST WALL CPU [NOTE]
line() {
	awk -v t="$1" -v k="$2" -v l="$3" -v w="$4" -v c="$5" -v n="${6:-}" \
	    'BEGIN { printf "%-10s %9d %9d %7.2f%% %8.2f %8.2f  %s\n", t, k, l,
	    (k + l > 0 ? 100 * l / (k + l) : 0), w, c, n }'
}

# timed CMD...: runs CMD with its standard error in err; "wall cpu" in t.
timed() {
	local TIMEFORMAT='%3R %3U %3S'
	{ time "$@" >/dev/null 2>err; } 2>t.raw
	awk '{ printf "%s %.3f\n", $1, $2 + $3 }' t.raw >t
}

echo "spin threads $threads $ms at $rate Hz with call chains, $runs runs;" \
    "load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
printf '%-10s %9s %9s %8s %8s %8s\n' "" kept lost lost "wall s" "cpu s"
for ((i = 0; i < runs; i++)); do
	timed "$pmeclock" -v -g -F "$rate" -o p -- ./spin threads "$threads" \
	    "$ms"
	read -r k l < <(sed -n 's/^pmeclock: \([0-9]*\) samples, \([0-9]*\) lost.*/\1 \2/p' err)
	u=$(sed -n 's/.*unwound from the CFI in .* (\([0-9]*\) per second).*/\1/p' err)
	read -r w c <t
	line pmeclock "${k:-0}" "${l:-0}" "$w" "$c" "${u:-?} chains/s"
	[ "$have_perf" = 1 ] || continue
	timed perf record -e cpu-clock -F "$rate" --call-graph dwarf \
	    -o perf.data -- ./spin threads "$threads" "$ms"
	read -r w c <t
	# The event's own section counts the samples kept and lost (the
	# aggregated one counts records).
	perf report -i perf.data --stats 2>/dev/null >stats
	k=$(awk '/^cpu-clock stats:/ { e = 1 }
	    e && /SAMPLE events:/ && $1 == "SAMPLE" { print $3; exit }' stats)
	l=$(awk '/^cpu-clock stats:/ { e = 1 }
	    e && /LOST_SAMPLES events:/ { print $3; exit }' stats)
	line perf "${k:-0}" "${l:-0}" "$w" "$c"
done
[ "$have_perf" = 1 ] || echo "(no perf record --call-graph dwarf here)"
