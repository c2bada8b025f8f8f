#!/bin/bash
#
# bench_heap_read.sh - reading the heap record of millions of allocation
# events, pmehisto -V heap beside heaptrack_print on the same program:
#	bench_heap_read.sh [-e EVENTS]...
#
# heapbench.c (built here, -O2 -g) makes 8 events every 3 rounds (4
# allocations, 4 frees), a window of 1000 live blocks, from a few
# stacks.  For each EVENTS (default 1000000, 10000000 and 100000000) it
# is recorded by pmeclock -e alloc and by heaptrack, with as many
# rounds, and each record is read once: printed, each reader's wall
# time, CPU time and peak RSS (tests/bench/peakrss.c: wait4's
# ru_maxrss), the ratios pme / heaptrack side by side, and each
# record's size.  pmehisto's memory is bounded by the live blocks and
# the stacks (and a fixed window of 262144 events for the REPEATs of
# pme(5)'s HEA2), not by the events: its peak RSS stays flat as EVENTS
# grows.  The machine is shared: CPU time is the figure to compare.
# Without heaptrack, pme's figures alone.
#
# Run from the top directory (or set PME_TOP) after make.  Not part of
# the test suite.

set -u
export LC_ALL=C
top=$(cd "${PME_TOP:-.}" && pwd)
counts=
while [ $# -gt 0 ]; do
	case $1 in
	-e) counts="$counts $2"; shift 2 ;;
	*) echo "usage: bench_heap_read.sh [-e events]..." >&2; exit 2 ;;
	esac
done
[ -n "$counts" ] || counts="1000000 10000000 100000000"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_heap_read.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
${CC:-cc} -O2 -g -o hb "$top/tests/bench/heapbench.c" || exit 1
${CC:-cc} -O2 -o peakrss "$top/tests/bench/peakrss.c" || exit 1
have_ht=0
command -v heaptrack >/dev/null && command -v heaptrack_print \
    >/dev/null && have_ht=1

# read NAME COMMAND...: "NAME rss_kib cpu_s wall_s" of one run
read_one() {
	local name=$1
	shift
	./peakrss -c out "$@" >/dev/null 2>&1 || echo "$name failed" >&2
	awk -v n="$name" '{ printf "%s %d %.2f %.2f\n", n, $1,
	    ($2 + $3) / 1e6, $4 / 1e6 }' out
}

row() { printf "%-11s %-16s %10s %9s %9s %12s\n" "$@"; }

row events reader "peak KiB" "cpu s" "wall s" "record B"
for n in $counts; do
	rounds=$((n * 3 / 8))
	"$top/sample/pmeclock" -q -e alloc -o hb.PMS ./hb "$rounds" ||
	    exit 1
	pme=$(read_one pme "$top/histo/pmehisto" -V heap hb.PMS)
	read -r _ rss cpu wall <<<"$pme"
	row "$n" "pmehisto -V heap" "$rss" "$cpu" "$wall" \
	    "$(stat -c %s hb.PMS)"
	[ "$have_ht" = 1 ] || continue
	heaptrack -o ht ./hb "$rounds" >/dev/null 2>&1 || exit 1
	ht=$(read_one ht heaptrack_print -f ht.zst)
	read -r _ rss cpu wall <<<"$ht"
	row "$n" "heaptrack_print" "$rss" "$cpu" "$wall" \
	    "$(stat -c %s ht.zst)"
	echo "$pme $ht" | awk '{ printf "%-11s %-16s %10.2f %9.2f %9.2f\n",
	    "", "pme / ht", $2 / $6, $3 / ($7 > 0 ? $7 : 0.01),
	    $4 / ($8 > 0 ? $8 : 0.01) }'
	rm -f hb.PMS ht.zst
done
