#!/bin/bash
#
# bench_stats.sh - how long the interactive view of stats takes to redraw:
#	bench_stats.sh [-e EVENTS]...
#
# lodbench.c (built here against stats' modules and libpme) writes an
# event file of EVENTS state events in 32 rows (default: 100 thousand,
# then 10 million) and draws a 200-column window of it both ways: by
# grid_draw (a pass over the whole file, what -T text does) and by
# lod_draw (the level-of-detail index the terminal view builds once).
# Printed per file: the index's build time, then for the whole run and
# for a thousandth of it, the best of three redraws in milliseconds, side
# by side, and how many times faster the index is.  The 10 million event
# file takes about 150 MB in TMPDIR, and the index about as much memory.
#
# Run from the top directory (or set PME_TOP) after make.

set -eu
export LC_ALL=C
top=$(cd "${PME_TOP:-.}" && pwd)
counts=()
while [ $# -gt 0 ]; do
	case $1 in
	-e) counts+=("$2"); shift 2 ;;
	*) echo "usage: bench_stats.sh [-e events]..." >&2; exit 2 ;;
	esac
done
[ ${#counts[@]} -gt 0 ] || counts=(100000 10000000)
[ -f "$top/stats/libstats.a" ] || { echo "skipped: stats/libstats.a is not built"; exit 77; }
[ -f "$top/lib/libpme.a" ] || { echo "skipped: lib/libpme.a is not built"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/statsbench.XXXXXX")
trap 'rm -rf "$work"' EXIT

gcc -std=c11 -D_GNU_SOURCE -O2 -I"$top/lib" -I"$top/stats" \
    -o "$work/lodbench" "$top/tests/bench/lodbench.c" \
    "$top/stats/libstats.a" "$top/lib/libpme.a" -ldwarf -lelf -lz -lm \
    -lpthread

printf '%-10s %-5s %12s %12s %8s\n' events view grid_draw lod_draw faster
for n in "${counts[@]}"; do
	"$work/lodbench" "$work" "$n" >"$work/out"
	awk -v n="$n" '
	$1 == "build" { printf "%-10s %-5s %12s %12.3f   (lod_build, ms)\n", n, "", "", $2 }
	$1 != "build" { printf "%-10s %-5s %12.3f %12.3f %7.1fx\n", n, $1, $2, $3, $4 }
	' "$work/out"
	rm -f "$work/lod.sim"
done
