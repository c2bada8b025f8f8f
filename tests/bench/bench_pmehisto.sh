#!/bin/bash
#
# bench_pmehisto.sh - how fast pmehisto reduces sample files, and in how
# much memory:
#	bench_pmehisto.sh [-n RUNS] [-s SAMPLES] [-p SECONDS] [-m SAMPLES]...
#	    [-b PMEHISTO]
#
# 1. pmsgen.c (built here against libpme) writes a flat sample file of
#    SAMPLES samples (default 20 million) and its bucket file (1000
#    routine buckets of a PIE executable, one sample in 20 in libc);
#    pmehisto reduces it (-T none: the filled bucket file and the .HIS are
#    written, nothing displayed).  Prints the file's bytes per sample and
#    the reduction rate in million samples per second (best of RUNS,
#    default 3, wall time of the whole pmehisto run); then the same file
#    reduced under filters (issue 28: a filter is applied as the file
#    streams and costs no more than the unfiltered reduction): a time
#    window (--time 0%-50%), a CPU (--cpu 1), a thread (--tid 4243) and
#    a load module (--dso libc), each with its rate and its time as a
#    ratio of the unfiltered one.
# 2. pmsgen writes files of 1000, 1 million and 50 million samples (or
#    the -m counts given) with the same bucket file, and peakrss.c reports
#    pmehisto's peak resident set size (ru_maxrss) reducing each.  Printed
#    per file: its samples and size, and the peak RSS, in MB.  The
#    1000-sample file is the baseline: what pmehisto needs with almost
#    nothing to read.  "filtered MB" is the peak under --time 0%-50%
#    --cpu 1 (a filter is applied as the file streams: the same bound).  A reader that held the whole file would need the
#    file's size above it; one that streams stays near it.  With -b, a
#    second pmehisto (say, one built before a change) is measured on the
#    same files, in a column of its own.  The 50 million sample file takes
#    about 300 MB in TMPDIR while it is measured.
# 3. perf record -F 10000 samples a CPU-bound two-thread program for
#    SECONDS (default 6); pmsgen writes a sample file with the same number
#    of samples; perf report --stdio on the perf.data and pmehisto on the
#    sample file are timed (wall: best of RUNS; CPU: task-clock, mean of
#    RUNS) and their ratios printed.
#    Skipped, with the reason, when perf cannot record here.
#
# Run from the top directory (or set PME_TOP) after make.

set -eu
export LC_ALL=C
top=$(cd "${PME_TOP:-.}" && pwd)
runs=3 samples=20000000 seconds=6 counts=() other=
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-s) samples=$2; shift 2 ;;
	-p) seconds=$2; shift 2 ;;
	-m) counts+=("$2"); shift 2 ;;
	-b) other=$2; shift 2 ;;
	*) echo "usage: bench_pmehisto.sh [-n runs] [-s samples] [-p seconds]" \
	       "[-m samples]... [-b pmehisto]" >&2
	   exit 2 ;;
	esac
done
[ ${#counts[@]} -gt 0 ] || counts=(1000 1000000 50000000)
pmehisto=${PMEHISTO:-$top/histo/pmehisto}
libdir=${PME_LIBDIR:-$top/lib}
[ -x "$pmehisto" ] || { echo "skipped: $pmehisto is not built"; exit 77; }
[ -f "$libdir/libpme.a" ] || { echo "skipped: no $libdir/libpme.a"; exit 77; }
command -v gcc >/dev/null || { echo "skipped: no gcc"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pmehbench.XXXXXX")
trap 'rm -rf "$work"' EXIT

gcc -std=c11 -D_GNU_SOURCE -O2 -I"$top/lib" -o "$work/pmsgen" \
    "$top/tests/bench/pmsgen.c" "$libdir/libpme.a" -ldwarf -lelf -lz
gcc -O2 -o "$work/peakrss" "$top/tests/bench/peakrss.c"

# now, best_ms CMD...: tests/bench/lib.sh
. "$top/tests/bench/lib.sh"

reduce() {	# DIR [FILTER...]: pmehisto on DIR/b.PMS and DIR/b.PME
	local d=$1

	shift
	"$pmehisto" -q -T none -b "$d/b.PME" -B "$d/out.PME" -o "$d/out.HIS" \
	    "$@" "$d/b.PMS"
}

# --- 1. the reduction rate ----------------------------------------------------

mkdir "$work/flat"
"$work/pmsgen" "$work/flat/b.PMS" "$work/flat/b.PME" "$samples"
bytes=$(stat -c %s "$work/flat/b.PMS")
reduce "$work/flat" || { echo "pmehisto failed" >&2; exit 1; }
ms=$(best_ms reduce "$work/flat")
awk -v n="$samples" -v b="$bytes" -v ms="$ms" 'BEGIN {
	printf "pmehisto: %d samples, %.1f MB, %.2f bytes/sample: %.0f ms, " \
	    "%.1f M samples/s\n", n, b / 1e6, b / n, ms, n / ms / 1000 }'
for f in "--time 0%-50%" "--cpu 1" "--tid 4243" "--dso libc"; do
	# shellcheck disable=SC2086 # the filter's option and its value
	reduce "$work/flat" $f || { echo "pmehisto $f failed" >&2; exit 1; }
	# shellcheck disable=SC2086
	fms=$(best_ms reduce "$work/flat" $f)
	awk -v n="$samples" -v f="$f" -v ms="$fms" -v base="$ms" 'BEGIN {
		printf "pmehisto %-14s %.0f ms, %.1f M samples/s read, " \
		    "%.2fx the unfiltered time\n", f ":", ms, n / ms / 1000,
		    ms / base }'
done

# --- 2. memory ---------------------------------------------------------------

peak_mb() {	# PMEHISTO [FILTER...]: its peak RSS reducing $work/mem/b.PMS,
		# in MB
	local h=$1

	shift
	"$work/peakrss" "$work/rss" "$h" -q -T none -b "$work/mem/b.PME" \
	    -B "$work/mem/out.PME" -o "$work/mem/out.HIS" "$@" \
	    "$work/mem/b.PMS" ||
	    { echo "$1 failed" >&2; exit 1; }
	awk '{ printf "%.1f", $1 / 1024 }' "$work/rss"
}

mkdir "$work/mem"
filt="--time 0%-50% --cpu 1"
if [ -n "$other" ]; then
	printf '%12s %10s %14s %14s %14s\n' samples "file MB" "peak RSS MB" \
	    "filtered MB" "-b's peak MB"
else
	printf '%12s %10s %14s %14s\n' samples "file MB" "peak RSS MB" \
	    "filtered MB"
fi
for n in "${counts[@]}"; do
	"$work/pmsgen" "$work/mem/b.PMS" "$work/mem/b.PME" "$n"
	mb=$(awk -v b="$(stat -c %s "$work/mem/b.PMS")" 'BEGIN {
	    printf "%.1f", b / 1e6 }')
	# shellcheck disable=SC2086 # the filters' options and values
	row=$(printf '%12d %10s %14s %14s' "$n" "$mb" \
	    "$(peak_mb "$pmehisto")" "$(peak_mb "$pmehisto" $filt)")
	if [ -n "$other" ]; then
		printf '%s %14s\n' "$row" "$(peak_mb "$other")"
	else
		printf '%s\n' "$row"
	fi
done
rm -rf "$work/mem"

# --- 3. against perf report ---------------------------------------------------

if ! command -v perf >/dev/null; then
	echo "perf: skipped: perf is not installed"
	exit 0
fi
cat >"$work/busy.c" <<'EOF'
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
static void *work(void *a) {
	double x = 0, end = now() + secs;
	long i;
	(void)a;
	for (i = 0; ; i++) {
		x += (i % 7) * 0.5;
		if ((i & 0xfffff) == 0) {
			sink = x;
			if (now() > end)
				break;
		}
	}
	return NULL;
}
int main(int argc, char **argv) {
	pthread_t t[2];
	int i;
	secs = argc > 1 ? atof(argv[1]) : 5;
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
EOF
gcc -O1 -pthread -o "$work/busy" "$work/busy.c"
if ! perf record -q -F 10000 -o "$work/x.data" -- "$work/busy" "$seconds" \
    >/dev/null 2>"$work/perf.err"; then
	echo "perf: skipped: perf record failed: $(head -n 1 "$work/perf.err")"
	exit 0
fi
n=$(perf script -i "$work/x.data" -F ip 2>/dev/null | wc -l)
if [ "$n" -lt 1000 ]; then
	echo "perf: skipped: perf recorded only $n samples"
	exit 0
fi
mkdir "$work/same"
"$work/pmsgen" "$work/same/b.PMS" "$work/same/b.PME" "$n"
reduce "$work/same" || { echo "pmehisto failed" >&2; exit 1; }
perf_ms=$(best_ms perf report -i "$work/x.data" --stdio)
histo_ms=$(best_ms reduce "$work/same")
# CPU time (task-clock, mean of RUNS): pmehisto's wall time includes the
# fdatasync of its atomic bucket file write, which a loaded disk can make
# several times its CPU time; perf report writes nothing.
cpu_ms() {
	perf stat -x, -e task-clock -r "$runs" "$@" 2>&1 >/dev/null |
	    awk -F, '$3 == "task-clock" { print $1 }'
}
perf_cpu=$(cpu_ms perf report -i "$work/x.data" --stdio)
histo_cpu=$(cpu_ms "$pmehisto" -q -T none -b "$work/same/b.PME" \
    -B "$work/same/out.PME" -o "$work/same/out.HIS" "$work/same/b.PMS")
awk -v n="$n" -v p="$perf_ms" -v h="$histo_ms" -v pc="$perf_cpu" \
    -v hc="$histo_cpu" 'BEGIN {
	printf "perf report --stdio: %d samples: %.1f ms wall, %.1f ms CPU\n",
	    n, p, pc
	printf "pmehisto:            %d samples: %.1f ms wall, %.1f ms CPU\n",
	    n, h, hc
	printf "ratio: %.1fx wall, %.1fx CPU\n", p / h, (hc > 0 ? pc / hc : 0) }'
