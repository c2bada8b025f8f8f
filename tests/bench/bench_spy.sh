#!/bin/bash
#
# bench_spy.sh - how fast pmehisto's views of the call chains are, beside
# perf's paths to the same reports:
#	bench_spy.sh [-n RUNS] [-s SAMPLES] [-p SECONDS]
#
# 1. pmsgen.c (built here against libpme) writes a sample file of SAMPLES
#    (default 1 million) samples with call chains (up to a dozen frames,
#    1000 routines) and its bucket file; pmehisto -V spy (the whole Spy
#    report: reduction, call graph, dominators, pages) and -T folded (the
#    folded stacks) are timed on it, best wall time of RUNS (default 3).
# 2. One program of deep call chains on two threads (built here with frame
#    pointers) recorded by both: perf record -g for SECONDS (default 25)
#    and pmeclock -g -G fp (frame pointers too) for a quarter longer, its
#    file cut to perf's sample count by dropping its last samples
#    (tests/unit/t_sample dump and write): the same program, rate, way of
#    unwinding and count.  perf report --children --stdio and perf script
#    | stackcollapse (perf's own script, perf script report stackcollapse)
#    on the perf.data, and pmehisto -x -V spy and -x -T folded on the
#    sample file (every load module named, as perf names them; output on
#    standard output, no file written: -o and -B /dev/null), are timed,
#    and the ratios printed side by side, of wall time (best of RUNS) and
#    of CPU time (task-clock, least of RUNS: the steadier on a loaded
#    machine).  Skipped, with the reason, when perf cannot record here.
#
# Run from the top directory (or set PME_TOP) after make.

set -eu
export LC_ALL=C
top=$(cd "${PME_TOP:-.}" && pwd)
runs=3 samples=1000000 seconds=25
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-s) samples=$2; shift 2 ;;
	-p) seconds=$2; shift 2 ;;
	*) echo "usage: bench_spy.sh [-n runs] [-s samples] [-p seconds]" >&2
	   exit 2 ;;
	esac
done
pmehisto=${PMEHISTO:-$top/histo/pmehisto}
libdir=${PME_LIBDIR:-$top/lib}
[ -x "$pmehisto" ] || { echo "skipped: $pmehisto is not built"; exit 77; }
[ -f "$libdir/libpme.a" ] || { echo "skipped: no $libdir/libpme.a"; exit 77; }
command -v gcc >/dev/null || { echo "skipped: no gcc"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/spybench.XXXXXX")
trap 'rm -rf "$work"' EXIT

gcc -std=c11 -D_GNU_SOURCE -O2 -I"$top/lib" -o "$work/pmsgen" \
    "$top/tests/bench/pmsgen.c" "$libdir/libpme.a" -ldwarf -lelf -lz

# now, best_ms CMD...: tests/bench/lib.sh
. "$top/tests/bench/lib.sh"

spy() {		# DIR
	"$pmehisto" -q -V spy -T none -b "$1/b.PME" -B "$1/out.PME" \
	    -o "$1/out.HIS" "$1/b.PMS"
}
folded() {	# DIR
	"$pmehisto" -q -T folded -b "$1/b.PME" -B "$1/out.PME" \
	    -o "$1/out.HIS" "$1/b.PMS" >"$1/folded"
}
gen() {		# DIR SAMPLES
	mkdir -p "$1"
	"$work/pmsgen" "$1/b.PMS" "$1/b.PME" "$2" 1000 chains
	spy "$1" || { echo "pmehisto -V spy failed" >&2; exit 1; }
	folded "$1" || { echo "pmehisto -T folded failed" >&2; exit 1; }
	sum=$(awk '{ s += $NF } END { print s }' "$1/folded")
	[ "$sum" = "$2" ] ||
	    { echo "folded stacks count $sum samples, not $2" >&2; exit 1; }
}

# --- 1. a million samples ---------------------------------------------------

gen "$work/pme" "$samples"
spy_ms=$(best_ms spy "$work/pme")
fold_ms=$(best_ms folded "$work/pme")
awk -v n="$samples" -v s="$spy_ms" -v f="$fold_ms" 'BEGIN {
	printf "pmehisto -V spy:    %d call-chain samples: %.0f ms, " \
	    "%.2f M samples/s\n", n, s, n / s / 1000
	printf "pmehisto -T folded: %d call-chain samples: %.0f ms, " \
	    "%.2f M samples/s\n", n, f, n / f / 1000 }'

# --- 2. against perf ----------------------------------------------------------

if ! command -v perf >/dev/null; then
	echo "perf: skipped: perf is not installed"
	exit 0
fi
cat >"$work/deep.c" <<'EOF'
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
static volatile double sink;
static double secs;
static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
__attribute__((noinline)) static double leaf(long i) { return (i % 7) * 0.5; }
__attribute__((noinline)) static double walk(int d, long i) {
	return d > 0 ? walk(d - 1 - (i & 1), i + 1) + 1 : leaf(i);
}
static void *work(void *a) {
	double end = now() + secs;
	long i;
	(void)a;
	for (i = 0; ; i++) {
		sink += walk(2 + (int)(i % 10), i);
		if ((i & 0xffff) == 0 && now() > end)
			break;
	}
	return NULL;
}
int main(int argc, char **argv) {
	pthread_t t;
	secs = argc > 1 ? atof(argv[1]) : 1;
	pthread_create(&t, NULL, work, NULL);
	work(NULL);
	pthread_join(t, NULL);
	return 0;
}
EOF
gcc -O1 -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread \
    -o "$work/deep" "$work/deep.c"
if ! perf record -q -g -F 10000 -o "$work/x.data" -- "$work/deep" \
    "$seconds" >/dev/null 2>"$work/perf.err"; then
	echo "perf: skipped: perf record failed: $(head -n 1 "$work/perf.err")"
	exit 0
fi
n=$(perf script -i "$work/x.data" -F tid 2>/dev/null | wc -l)
if [ "$n" -lt 1000 ]; then
	echo "perf: skipped: perf recorded only $n samples"
	exit 0
fi
tsample=$top/tests/unit/t_sample
pmeclock=${PMECLOCK:-$top/sample/pmeclock}
for f in "$tsample" "$pmeclock"; do
	[ -x "$f" ] || { echo "perf: skipped: $f is not built"; exit 0; }
done
dir=$work/real
mkdir "$dir"
"$pmeclock" -q -g -G fp -F 10000 -o "$dir/full.PMS" -- "$work/deep" \
    "$(awk -v s="$seconds" 'BEGIN { print s * 1.25 }')" >/dev/null ||
    { echo "pmeclock failed" >&2; exit 1; }
q=$("$tsample" dump "$dir/full.PMS" | grep -c '^sample ')
"$tsample" dump "$dir/full.PMS" | awk -v p="$n" '
    /^sample / { if (++n > p) next } /^# / { next } { print }' |
    "$tsample" write "$dir/b.PMS"
m=$("$tsample" dump "$dir/b.PMS" | grep -c '^sample ')
echo "deep, 2 threads, at 10000 Hz: perf record -g $n samples;" \
    "pmeclock -g -G fp $q, cut to $m"
spy() {		# DIR
	"$pmehisto" -q -x -V spy -T text -o /dev/null -B /dev/null "$1/b.PMS"
}
folded() {	# DIR
	"$pmehisto" -q -x -T folded -o /dev/null -B /dev/null "$1/b.PMS"
}
sum=$(folded "$dir" | awk '{ s += $NF } END { print s }')
[ "$sum" = "$m" ] ||
    { echo "folded stacks count $sum samples, not $m" >&2; exit 1; }
report() { perf report -i "$work/x.data" --children --stdio; }
collapse() { perf script report stackcollapse -i "$work/x.data"; }
collapse >"$work/collapsed" 2>"$work/collapse.err" ||
    { echo "perf script report stackcollapse failed:" \
      "$(head -n 1 "$work/collapse.err")" >&2; exit 1; }
report_ms=$(best_ms report)
collapse_ms=$(best_ms collapse)
spy_ms=$(best_ms spy "$dir")
fold_ms=$(best_ms folded "$dir")
# CPU time too (task-clock, counting children, the least of RUNS): on a
# loaded machine a command waits for a core for as long again as it
# runs, and its wall time says more about the load than about it.
least_cpu_ms() {
	local i
	for i in $(seq "$runs"); do
		perf stat -x, -e task-clock "$@" 2>&1 >/dev/null |
		    awk -F, '$3 == "task-clock" { print $1 }'
	done | sort -n | head -n 1
}
report_cpu=$(least_cpu_ms perf report -i "$work/x.data" --children --stdio)
collapse_cpu=$(least_cpu_ms perf script report stackcollapse \
    -i "$work/x.data")
spy_cpu=$(least_cpu_ms "$pmehisto" -q -x -V spy -T text -o /dev/null \
    -B /dev/null "$dir/b.PMS")
fold_cpu=$(least_cpu_ms "$pmehisto" -q -x -T folded -o /dev/null \
    -B /dev/null "$dir/b.PMS")
awk -v n="$n" -v r="$report_ms" -v c="$collapse_ms" -v s="$spy_ms" \
    -v f="$fold_ms" -v rc="$report_cpu" -v cc="$collapse_cpu" \
    -v sc="$spy_cpu" -v fc="$fold_cpu" 'BEGIN {
	printf "%d call-chain samples each (ms, best of runs):\n", n
	printf "  perf report --children --stdio %9.0f   pmehisto -V spy    " \
	    "%7.0f   %6.1fx faster\n", r, s, r / s
	printf "  perf script | stackcollapse    %9.0f   pmehisto -T folded " \
	    "%7.0f   %6.1fx faster\n", c, f, c / f
	printf "CPU time (ms, task-clock, least of runs):\n"
	printf "  perf report --children --stdio %9.0f   pmehisto -V spy    " \
	    "%7.0f   %6.1fx faster\n", rc, sc, (sc > 0 ? rc / sc : 0)
	printf "  perf script | stackcollapse    %9.0f   pmehisto -T folded " \
	    "%7.0f   %6.1fx faster\n", cc, fc, (fc > 0 ? cc / fc : 0) }'
