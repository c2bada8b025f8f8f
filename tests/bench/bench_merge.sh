#!/bin/bash
#
# bench_merge.sh - how fast pmemerge sums filled bucket files, and in how
# much memory, beside cat(1) reading the same bytes:
#	bench_merge.sh [-n RUNS] [-f FILES] [-k BUCKETS]
#
# tests/fixtures/merge/mkbf.c (built here against libpme) writes FILES
# (default 1000) filled bucket files of BUCKETS (default 10000) routine
# buckets each, with counts that differ from file to file.  Then, best of
# RUNS (default 3) wall times, and the peak resident set size
# (tests/bench/peakrss.c: getrusage's ru_maxrss):
#	pmemerge -o sum.pme -@ list	the FILES summed, names from a list
#	cat FILES >/dev/null		the same bytes read
# printed with their ratios; and pmemerge's peak RSS summing the first 2
# files, beside that of FILES: memory bounded by the bucket count, not the
# number of files, keeps the two alike.
#
# Run from the top directory (or set PME_TOP) after make.

set -eu
export LC_ALL=C
top=$(cd "${PME_TOP:-.}" && pwd)
runs=3 files=1000 buckets=10000
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-f) files=$2; shift 2 ;;
	-k) buckets=$2; shift 2 ;;
	*) echo "usage: bench_merge.sh [-n runs] [-f files] [-k buckets]" >&2
	   exit 2 ;;
	esac
done
pmemerge=$top/histo/pmemerge
libdir=${PME_LIBDIR:-$top/lib}
[ -x "$pmemerge" ] || { echo "skipped: $pmemerge is not built"; exit 77; }
[ -f "$libdir/libpme.a" ] || { echo "skipped: no $libdir/libpme.a"; exit 77; }
command -v gcc >/dev/null || { echo "skipped: no gcc"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pmembench.XXXXXX")
trap 'rm -rf "$work"' EXIT

gcc -std=c11 -D_GNU_SOURCE -O2 -I"$libdir" -o "$work/mkbf" \
    "$top/tests/fixtures/merge/mkbf.c" "$libdir/libpme.a" -ldwarf -lelf -lz
gcc -O2 -o "$work/peakrss" "$top/tests/bench/peakrss.c"

# now, best_ms CMD...: tests/bench/lib.sh
. "$top/tests/bench/lib.sh"

peak_mb() {	# COMMAND...: its peak RSS, in MB
	"$work/peakrss" "$work/rss" "$@" >/dev/null ||
	    { echo "$1 failed" >&2; exit 1; }
	awk '{ printf "%.1f", $1 / 1024 }' "$work/rss"
}

cd "$work"
for ((i = 0; i < files; i++)); do
	./mkbf -b "$buckets" -s "$i" "$(printf 'f%05d.pme' "$i")"
done
ls f*.pme >list
bytes=$(cat f*.pme | wc -c)
catall() { cat f*.pme >/dev/null; }
merge() { "$pmemerge" -o sum.pme -@ list; }
merge || { echo "pmemerge failed" >&2; exit 1; }

merge_ms=$(best_ms merge)
cat_ms=$(best_ms catall)
merge_mb=$(peak_mb "$pmemerge" -o sum.pme -@ list)
two_mb=$(peak_mb "$pmemerge" -o sum.pme f00000.pme f00001.pme)
cat_mb=$(peak_mb sh -c 'cat f*.pme >/dev/null')
awk -v f="$files" -v k="$buckets" -v b="$bytes" -v m="$merge_ms" \
    -v c="$cat_ms" -v mm="$merge_mb" -v tm="$two_mb" -v cm="$cat_mb" '
BEGIN {
	printf "%d files of %d buckets, %.1f MB (%.0f bytes a file)\n",
	    f, k, b / 1e6, b / f
	printf "%-28s %10s %12s\n", "", "wall ms", "peak RSS MB"
	printf "%-28s %10.1f %12.1f\n", "pmemerge -o sum.pme -@ list", m, mm
	printf "%-28s %10.1f %12.1f\n", "cat (the same bytes)", c, cm
	printf "pmemerge/cat: %.1fx the time; pmemerge: %.2f ms a file, " \
	    "%.1f MB/s\n", m / c, m / f, b / m / 1000
	printf "pmemerge peak RSS: %.1f MB for 2 files, %.1f MB for %d\n",
	    tm, mm, f }'
