#!/bin/bash
#
# bench_pmebuild.sh - times pmebuild with LINES, and the symbol reader
# alone, on a large program, against readelf's decoded line dump of the
# same binary:
#	bench_pmebuild.sh [-n RUNS] [DIR]
# DIR (default $TMPDIR/pmebig, else /tmp/pmebig) holds the program made by
# gen_big.sh (10,050 functions, about 4 million line-table rows); it is
# generated when missing, and so is DIR-half, the same program with half
# the files, to show how memory grows.  Each tool runs RUNS times
# (default 5), the three in turn (pmebuild, symbench, readelf, then
# again), so that a machine whose load changes slows each alike; the
# table gives the best and median wall time and the median CPU time
# (user + system, of the processes the tool waited for: pmebuild's
# DWARF reader runs in a child) in milliseconds, the peak resident
# memory in kilobytes, and the ratios of readelf's median times, CPU and
# wall, to the others' (above 1: faster than readelf).  The times come
# from tests/bench/peakrss.c (wait4's rusage, the monotonic clock).
#
#   pmebuild  pmebuild -x big -b line: every line of every routine a
#             bucket, the bucket file written
#   symbench  opens the image and loads all lines through
#             pme_image_load_lines(img, PME_NONE, ...)
#   readelf   readelf --debug-dump=decodedline, output to /dev/null
#
# A real program follows: the SQLite amalgamation of the npm package
# better-sqlite3 (npm pack; deps/sqlite3/sqlite3.c) with a small main,
# built gcc -O2 -g once into DIR-sqlite (a few minutes); skipped, with
# the reason, when npm cannot fetch it.
#
# symbench is linked with $PME_LIBDIR/libpme.a (default: the tree's
# lib/libpme.a, when built) and config.mk's libraries, else built from
# lib/util.c, lib/symbols.c, lib/ldmap.c, lib/debugfile.c and lib/plt.c.
# Run from the top directory (or set PME_TOP).

set -eu
top=${PME_TOP:-.}
runs=5
if [ "${1:-}" = -n ]; then
	runs=$2
	shift 2
fi
dir=${1:-${TMPDIR:-/tmp}/pmebig}
bin=$dir/big
work=$(mktemp -d "${TMPDIR:-/tmp}/pmebench.XXXXXX")
trap 'rm -rf "$work"' EXIT

for tool in gcc readelf make; do
	command -v $tool >/dev/null || { echo "skipped: no $tool"; exit 77; }
done
if [ ! -x "$bin" ]; then
	echo "generating $bin (gen_big.sh) ..."
	sh "$top/tests/bench/gen_big.sh" "$dir"
fi
if [ ! -x "$dir-half/big" ]; then
	echo "generating $dir-half/big (gen_big.sh, 25 files) ..."
	sh "$top/tests/bench/gen_big.sh" "$dir-half" 25
fi
pmebuild=${PMEBUILD:-$top/build/pmebuild}
[ -x "$pmebuild" ] || { echo "skipped: $pmebuild is not built"; exit 77; }

sb=$work/symbench
cflags="-std=c11 -D_GNU_SOURCE -O2 -I$top/lib"
# The tree's own library when it is built (the symbol reader needs
# lib/plt.c and more since the list below was written).
if [ -z "${PME_LIBDIR:-}" ] && [ -f "$top/lib/libpme.a" ]; then
	PME_LIBDIR=$top/lib
fi
if [ -n "${PME_LIBDIR:-}" ] && [ -f "$PME_LIBDIR/libpme.a" ]; then
	libs=$(sed -n 's/^LIBS = //p' "$top/config.mk" 2>/dev/null)
	gcc $cflags -o "$sb" "$top/tests/bench/symbench.c" \
	    "$PME_LIBDIR/libpme.a" ${libs:--ldwarf -lelf -lz}
else
	gcc $cflags -o "$sb" "$top/tests/bench/symbench.c" \
	    "$top/lib/util.c" "$top/lib/symbols.c" "$top/lib/ldmap.c" \
	    "$top/lib/debugfile.c" "$top/lib/plt.c" \
	    -ldwarf -lelf -lz
fi

gcc -O2 -o "$work/peakrss" "$top/tests/bench/peakrss.c"

# run NAME CMD...: one run, its "peakKB user_us sys_us wall_us" appended
# to $work/NAME.runs.
run() {
	local name=$1
	shift
	"$work/peakrss" -c "$work/one" "$@" >/dev/null 2>&1 || true
	cat "$work/one" >>"$work/$name.runs"
}

# summary NAME: "best_wall_ms median_wall_ms median_cpu_ms peakKB".
summary() {
	awk '{ w[NR] = $4; c[NR] = $2 + $3; if ($1 > peak) peak = $1 }
	function median(a, n,  i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		mw = median(w, NR); mc = median(c, NR)
		printf "%.1f %.1f %.1f %d\n", w[1] / 1000, mw / 1000,
		    mc / 1000, peak
	}' "$work/$1.runs"
}
# symbench's own account: counts, and the time to open and to load lines.
"$sb" "$bin"
rows() {
	readelf --debug-dump=decodedline "$1" 2>/dev/null | awk '$3 ~ /^0x/' |
	    wc -l
}
# sqlite_program DIR: DIR/sq, SQLite built -O2 -g; 1 (said) when npm
# cannot fetch better-sqlite3.
sqlite_program() {
	local d=$1 src
	[ -x "$d/sq" ] && return 0
	command -v npm >/dev/null || { echo "SQLite: skipped: no npm"; return 1; }
	mkdir -p "$d" && (cd "$d" && npm pack better-sqlite3 >npm.log 2>&1) ||
	    { echo "SQLite: skipped: npm pack better-sqlite3 failed:" \
	    "$(tail -n 1 "$d/npm.log")"; return 1; }
	tar -xzf "$d"/better-sqlite3-*.tgz -C "$d" &&
	src=$(find "$d/package" -path '*deps/sqlite3/sqlite3.c' | head -n 1)
	[ -n "$src" ] || { echo "SQLite: skipped: no sqlite3.c in the package"
	    return 1; }
	printf '%s\n' '#include "sqlite3.h"' \
	    'int main(void) { sqlite3 *db; sqlite3_open(":memory:", &db);' \
	    '  sqlite3_exec(db, "create table t(a); insert into t values(1);",' \
	    '    0, 0, 0); return sqlite3_close(db); }' >"$d/main.c"
	echo "building $d/sq (SQLite, gcc -O2 -g) ..."
	gcc -O2 -g -I"${src%/*}" -o "$d/sq" "$d/main.c" "$src" -lpthread \
	    -ldl -lm || { echo "SQLite: skipped: it does not build"; return 1; }
}
images=("$dir-half/big" "$bin")
sqlite_program "$dir-sqlite" && images+=("$dir-sqlite/sq")

for b in "${images[@]}"; do
	rm -f "$work"/*.runs
	for ((i = 0; i < runs; i++)); do
		run pmebuild "$pmebuild" -q -x "$b" -b line -o "$work/big.pme"
		run symbench "$sb" -q "$b"
		run readelf readelf --debug-dump=decodedline "$b"
	done
	read -r pb_best pb_med pb_cpu pb_peak <<<"$(summary pmebuild)"
	read -r sb_best sb_med sb_cpu sb_peak <<<"$(summary symbench)"
	read -r re_best re_med re_cpu re_peak <<<"$(summary readelf)"
	n=$(rows "$b")
	printf '\n%s: %s line-table rows, %d runs each\n' "$b" "$n" "$runs"
	printf '%-10s %10s %10s %10s %10s %14s\n' tool "best ms" "median ms" \
	    "cpu ms" "peak KB" "bytes/row"
	for t in pmebuild symbench readelf; do
		case $t in
		pmebuild) set -- "$pb_best" "$pb_med" "$pb_cpu" "$pb_peak" ;;
		symbench) set -- "$sb_best" "$sb_med" "$sb_cpu" "$sb_peak" ;;
		readelf) set -- "$re_best" "$re_med" "$re_cpu" "$re_peak" ;;
		esac
		printf '%-10s %10s %10s %10s %10s %14.1f\n' $t "$1" "$2" "$3" \
		    "$4" "$(awk -v k="$4" -v n="$n" \
		    'BEGIN { print k * 1024 / n }')"
	done
	awk -v r="$re_med" -v p="$pb_med" -v s="$sb_med" -v rc="$re_cpu" \
	    -v pc="$pb_cpu" -v sc="$sb_cpu" 'BEGIN {
		printf "ratio readelf/pmebuild (median): cpu %.2fx  wall " \
		    "%.2fx\n", rc / pc, r / p
		printf "ratio readelf/symbench (median): cpu %.2fx  wall " \
		    "%.2fx\n", rc / sc, r / s
	}'
	awk -v r="$re_peak" -v p="$pb_peak" 'BEGIN { if (r > 0)
		printf "ratio pmebuild/readelf (peak memory): %.2fx\n", p / r }'
done
