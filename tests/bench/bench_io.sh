#!/bin/bash
#
# bench_io.sh - what tracing I/O costs a program that makes many small
# reads (issue 26), side by side on the same program:
#	bench_io.sh [-n RUNS] [-r READS]
#
# The program (built here) preads 64 bytes of a small file READS times
# (default 300000) from one routine.  Timed, best of RUNS (default 3),
# wall time of the whole command: the program alone; pmeclock -e io
# (stacks unwound from the CFI, the default); pmeclock -e io -G fp
# (frame-pointer chains, no stack copies); perf trace -s; strace -c -f.
# Printed: seconds, calls per second of the program, the ratio to the
# program alone, and for pmeclock the calls its file holds (those it
# could not keep up with are lost, and said) and the file's size.
#
# Not in the suite (a timing).  Run from the top directory (or set
# PME_TOP) after make.

set -eu
export LC_ALL=C
top=$(cd "${PME_TOP:-.}" && pwd)
runs=3 reads=300000
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-r) reads=$2; shift 2 ;;
	*) echo "usage: bench_io.sh [-n runs] [-r reads]" >&2; exit 2 ;;
	esac
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_io.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/reads.c" <<'C'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) static long
reader(int fd, long n)
{
	char buf[64];
	long i, sum = 0;

	for (i = 0; i < n; i++)
		sum += pread(fd, buf, sizeof(buf), (i * 64) % 4096);
	return sum;
}

int
main(int argc, char **argv)
{
	int fd = open(argv[1], O_RDONLY);

	return fd < 0 || argc != 3 || reader(fd, atol(argv[2])) !=
	    64 * atol(argv[2]);
}
C
${CC:-cc} -O2 -g -o "$tmp/reads" "$tmp/reads.c"
head -c 4096 /dev/urandom >"$tmp/file"

now() { date +%s%N; }
# best LABEL COMMAND...: the least wall time of RUNS runs, in ns
best() {
	local b=0 t0 t1 i
	for i in $(seq "$runs"); do
		t0=$(now)
		"$@" >/dev/null 2>&1 || { echo "bench_io: $1 failed" >&2;
		    return 1; }
		t1=$(now)
		if [ "$b" = 0 ] || [ $((t1 - t0)) -lt "$b" ]; then
			b=$((t1 - t0))
		fi
	done
	echo "$b"
}
cd "$tmp"
base=$(best ./reads file "$reads")
row() {	# label ns [file]
	awk -v l="$1" -v t="$2" -v b="$base" -v r="$reads" -v f="${3:-}" \
	    'BEGIN { printf "%-26s %8.3f s %10.0f calls/s %7.2fx %s\n", l,
	    t / 1e9, r / (t / 1e9), t / b, f }'
}
echo "bench_io: $reads preads of 64 bytes, best of $runs"
row "program alone" "$base"
t=$(best "$top/sample/pmeclock" -q -e io -o io.PMS ./reads file "$reads")
held() {	# the calls of sample file $1
	"$top/histo/pmehisto" -V io "$1" | awk 'NR == 1 { sub(",", "", $3);
	    print $3 }'
}
row "pmeclock -e io" "$t" "$(held io.PMS) calls held, $(stat -c %s \
    io.PMS) bytes"
t=$(best "$top/sample/pmeclock" -q -e io -G fp -o fp.PMS ./reads file \
    "$reads")
row "pmeclock -e io -G fp" "$t" "$(held fp.PMS) calls held, $(stat -c %s \
    fp.PMS) bytes"
if command -v perf >/dev/null; then
	t=$(best perf trace -s -o perf.out ./reads file "$reads") &&
	    row "perf trace -s" "$t"
fi
if command -v strace >/dev/null; then
	t=$(best strace -c -f -o strace.out ./reads file "$reads") &&
	    row "strace -c -f" "$t"
fi
