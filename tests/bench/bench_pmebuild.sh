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
# (default 5); the table gives the best and median wall time in
# milliseconds, the peak resident memory in kilobytes, and the ratios of
# readelf's median time to the others'.
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
# symbench is linked with $PME_LIBDIR/libpme.a when there is one (and
# config.mk's libraries), else built from lib/util.c, lib/symbols.c,
# lib/ldmap.c and lib/debugfile.c.  Run from the top directory (or set
# PME_TOP).

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
if [ -n "${PME_LIBDIR:-}" ] && [ -f "$PME_LIBDIR/libpme.a" ]; then
	libs=$(sed -n 's/^LIBS = //p' "$top/config.mk" 2>/dev/null)
	gcc $cflags -o "$sb" "$top/tests/bench/symbench.c" \
	    "$PME_LIBDIR/libpme.a" ${libs:--ldwarf -lelf -lz}
else
	gcc $cflags -o "$sb" "$top/tests/bench/symbench.c" \
	    "$top/lib/util.c" "$top/lib/symbols.c" "$top/lib/ldmap.c" \
	    "$top/lib/debugfile.c" \
	    -ldwarf -lelf -lz
fi

timer=
[ -x /usr/bin/time ] && timer=/usr/bin/time

# measure NAME CMD...: RUNS runs; prints "best median peakKB".
measure() {
	local name=$1 i t0 t1 peak=0 m
	shift
	: >"$work/$name.ms"
	for ((i = 0; i < runs; i++)); do
		t0=$(date +%s%N)
		if [ -n "$timer" ]; then
			$timer -f %M -o "$work/mem" "$@" >/dev/null 2>&1
			m=$(tail -n 1 "$work/mem")
		else
			"$@" >/dev/null 2>&1
			m=0
		fi
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000)) >>"$work/$name.ms"
		[ "$m" -gt "$peak" ] && peak=$m
	done
	sort -n "$work/$name.ms" | awk -v peak="$peak" '
	{ v[NR] = $1 }
	END { printf "%.1f %.1f %d\n", v[1] / 1000, v[int((NR + 1) / 2)] / 1000, peak }'
}

# Without /usr/bin/time, symbench reports its own peak (getrusage).
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
	read -r pb_best pb_med pb_peak <<<"$(measure pmebuild "$pmebuild" -q \
	    -x "$b" -b line -o "$work/big.pme")"
	read -r sb_best sb_med sb_peak <<<"$(measure symbench "$sb" -q "$b")"
	read -r re_best re_med re_peak <<<"$(measure readelf readelf \
	    --debug-dump=decodedline "$b")"
	n=$(rows "$b")
	printf '\n%s: %s line-table rows, %d runs each\n' "$b" "$n" "$runs"
	printf '%-10s %10s %10s %10s %14s\n' tool "best ms" "median ms" \
	    "peak KB" "bytes/row"
	for t in pmebuild symbench readelf; do
		case $t in
		pmebuild) set -- "$pb_best" "$pb_med" "$pb_peak" ;;
		symbench) set -- "$sb_best" "$sb_med" "$sb_peak" ;;
		readelf) set -- "$re_best" "$re_med" "$re_peak" ;;
		esac
		printf '%-10s %10s %10s %10s %14.1f\n' $t "$1" "$2" "$3" \
		    "$(awk -v k="$3" -v n="$n" 'BEGIN { print k * 1024 / n }')"
	done
	awk -v r="$re_med" -v p="$pb_med" -v s="$sb_med" 'BEGIN {
		printf "ratio readelf/pmebuild (median): %.2fx\n", r / p
		printf "ratio readelf/symbench (median): %.2fx\n", r / s
	}'
	awk -v r="$re_peak" -v p="$pb_peak" 'BEGIN { if (r > 0)
		printf "ratio pmebuild/readelf (peak memory): %.2fx\n", p / r }'
done
