#!/bin/bash
#
# bench_event.sh - what posting an event costs, and how fast stats loads
# an event file:
#	bench_event.sh [-n RUNS] [-e EVENTS]
#
# evbench.c (built here against libpme) measures, in one run and side by
# side: a plain buffered fwrite(3) of the same 24 bytes per event (the
# baseline), pme_event_post() on one thread and on two at once (wall
# time per event, the file's close included, and the posting threads'
# own CPU time per event: what a post costs the program, the library's
# writer thread doing the encoding and writing), then the loading of the
# one-thread file of EVENTS events (default 10 million) as stats reads
# it, beside a plain sequential read(2) of its bytes.  Best of RUNS
# (default 3).  Printed: ns per event and the ratio to the baseline;
# million events per second and the ratio to the plain read.  The target
# of the event API is 10 ns per event or less; of loading, 20 million
# events a second or more.
#
# Run from the top directory (or set PME_TOP) after make.

set -eu
export LC_ALL=C
top=$(cd "${PME_TOP:-.}" && pwd)
runs=3 events=10000000
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-e) events=$2; shift 2 ;;
	*) echo "usage: bench_event.sh [-n runs] [-e events]" >&2; exit 2 ;;
	esac
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_event.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -I"$top/lib" -o "$tmp/evbench" \
    "$top/tests/bench/evbench.c" "$top/lib/libpme.a" -lz -lpthread

best() {	# best KEY MIN|MAX: the best value of KEY over the runs
	awk -v k="$1" -v m="$2" '$1 == k {
		better = m == "min" ? $2 < b : $2 > b
		if (n++ == 0 || better) b = $2
	} END { print b }' "$tmp/out"
}
: >"$tmp/out"
for i in $(seq "$runs"); do
	"$tmp/evbench" "$tmp" "$events" >>"$tmp/out"
	rm -f "$tmp"/*.sim
done
w=$(best write min) p1=$(best post1 min) p2=$(best post2 min)
c1=$(best cpu1 min) c2=$(best cpu2 min)
r=$(best read max) l=$(best load max)
echo "events: $events, best of $runs runs"
printf '%-34s %8s %8s\n' "" "ns/event" "ratio"
printf '%-34s %8.2f %8.2f\n' "fwrite of 24-byte records (base)" "$w" 1
printf '%-34s %8.2f %8.2f\n' "pme_event_post, one thread" "$p1" \
    "$(echo "$p1 / $w" | bc -l)"
printf '%-34s %8.2f %8.2f\n' "pme_event_post, two threads" "$p2" \
    "$(echo "$p2 / $w" | bc -l)"
printf '%-34s %8.2f %8.2f\n' "  the posting thread's CPU, one" "$c1" \
    "$(echo "$c1 / $w" | bc -l)"
printf '%-34s %8.2f %8.2f\n' "  the posting threads' CPU, two" "$c2" \
    "$(echo "$c2 / $w" | bc -l)"
printf '%-34s %8s %8s\n' "" "Mev/s" "ratio"
printf '%-34s %8.1f %8.2f\n' "read(2) of the file's bytes (base)" "$r" 1
printf '%-34s %8.1f %8.2f\n' "loading as stats does" "$l" \
    "$(echo "$l / $r" | bc -l)"
