#!/bin/bash
#
# bench_heap_sqlite.sh - a real program nobody here wrote under pmeclock
# -e alloc, beside valgrind's DHAT and heaptrack on the same workload:
#	bench_heap_sqlite.sh [-n ROWS] [-s SQLITE3.C]
#
# The SQLite of better-sqlite3 (npm's package: its deps/sqlite3/sqlite3.c
# and the defines of its deps/download.sh), fetched with npm pack unless
# -s names a sqlite3.c (the defines are then read from the download.sh
# two directories up, when there is one), is built -O2 -g with
# tests/bench/sqlitedrv.c, a workload of ROWS rows (default 200000).
# Printed: each tool's allocations, bytes, peak (bytes and blocks at
# DHAT's t-gmax) and leaked bytes, which should be equal (heaptrack's
# peak as it rounds it; its leaks in its own words; massif's peak is its
# largest snapshot's, which need not be taken at the peak itself), each tool's CPU
# time (its own processes included) as a ratio to the program alone, and
# the recorded files' sizes.
#
# Run from the top directory (or set PME_TOP) after make.  Not part of
# the test suite (it needs npm and the network, and takes minutes).

set -u
export LC_ALL=C
top=$(cd "${PME_TOP:-.}" && pwd)
rows=200000 src=
while [ $# -gt 0 ]; do
	case $1 in
	-n) rows=$2; shift 2 ;;
	-s) src=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
	*) echo "usage: bench_heap_sqlite.sh [-n rows] [-s sqlite3.c]" >&2
	   exit 2 ;;
	esac
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_heap_sqlite.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
if [ -z "$src" ]; then
	if ! npm pack better-sqlite3 >npm.log 2>&1 ||
	    ! tar xzf better-sqlite3-*.tgz; then
		echo "bench_heap_sqlite.sh: npm pack failed" >&2
		exit 1
	fi
	src=$tmp/package/deps/sqlite3/sqlite3.c
fi
dl=$(dirname "$(dirname "$src")")/download.sh
defs=
[ -f "$dl" ] && defs=$(awk '/^DEFINES="/ { f = 1; next }
    f && /^"/ { exit } f && NF { printf "-D%s ", $0 }' "$dl")
# shellcheck disable=SC2086 # defs is a list of options
${CC:-cc} -O2 -g $defs -I"$(dirname "$src")" -o drv \
    "$top/tests/bench/sqlitedrv.c" "$src" -lm -lpthread || exit 1
${CC:-cc} -O2 -o peakrss "$top/tests/bench/peakrss.c" || exit 1

# cpu COMMAND...: its CPU seconds (user + system, its children's too)
cpu() {
	./peakrss -c out "$@" >/dev/null 2>>err.log
	awk '{ printf "%.2f", ($2 + $3) / 1e6 }' out
}

base=$(cpu ./drv "$rows")
echo "SQLite $(sed -n 's/^#define SQLITE_VERSION *"\(.*\)"/\1/p' \
    "$(dirname "$src")/sqlite3.h"), $rows rows: the program alone $base s"
printf "%-18s %11s %12s %10s %7s %10s %7s %10s\n" "" allocations bytes \
    "peak B" blocks "leaked B" "cpu x" "file B"

c=$(cpu "$top/sample/pmeclock" -q -e alloc -o s.PMS ./drv "$rows")
"$top/histo/pmehisto" -V heap s.PMS >pme.txt
awk -v c="$c" -v b="$base" -v f="$(stat -c %s s.PMS)" '
	$1 == "allocations" { a = $2; by = substr($3, 2) }
	$1 == "peak" { p = $2; k = $5 }
	$1 == "leaked" { l = $2 }
	END { printf "%-18s %11s %12s %10s %7s %10s %7.1f %10s\n",
	    "pmeclock -e alloc", a, by, p, k, l, c / b, f }' pme.txt

if command -v valgrind >/dev/null; then
	c=$(cpu valgrind --tool=dhat --dhat-out-file=d.json ./drv "$rows")
	tr -d , <err.log | awk -v c="$c" -v b="$base" \
	    -v f="$(stat -c %s d.json)" '
		$2 == "Total:" { a = $6; by = $3 }
		$3 == "t-gmax:" { p = $4; k = $7 }
		$3 == "t-end:" { l = $4 }
		END { printf "%-18s %11s %12s %10s %7s %10s %7.1f %10s\n",
		    "valgrind dhat", a, by, p, k, l, c / b, f }'
fi
if command -v valgrind >/dev/null; then
	# massif: its peak snapshot's heap bytes (without its extra-heap
	# admin bytes, --heap-admin=0), the issue's third peer for overhead
	c=$(cpu valgrind --tool=massif --heap-admin=0 --massif-out-file=ms.out \
	    ./drv "$rows")
	awk -F= -v c="$c" -v b="$base" -v f="$(stat -c %s ms.out)" '
		$1 == "mem_heap_B" && $2 + 0 > p { p = $2 + 0 }
		END { printf "%-18s %11s %12s %10s %7s %10s %7.1f %10s\n",
		    "valgrind massif", "-", "-", p, "-", "-", c / b, f }' ms.out
fi
if command -v heaptrack >/dev/null; then
	c=$(cpu heaptrack -o ht ./drv "$rows")
	heaptrack_print -f ht.zst >ht.txt 2>/dev/null
	awk -v c="$c" -v b="$base" -v f="$(stat -c %s ht.zst)" '
		/^calls to allocation functions:/ { a = $5 }
		/^peak heap memory consumption:/ { p = $5 }
		/^total memory leaked:/ { l = $4 }
		END { printf "%-18s %11s %12s %10s %7s %10s %7.1f %10s\n",
		    "heaptrack", a, "-", p, "-", l, c / b, f }' ht.txt
fi
