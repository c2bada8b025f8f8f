#!/bin/bash
#
# bench_quick.sh - pmehisto's quick path (-x) beside perf report --stdio on
# one real run of a Debian program each, at the same rate and sample count:
#	bench_quick.sh [-n RUNS] [-m MB] [-F HZ] [-b PMEHISTO]
#
# 1. The input: MB megabytes (default 40) of the system's shared libraries,
#    which xz -3 compresses in some seven seconds of CPU time.
# 2. perf record -F HZ (default 10000) records "xz -3 -c" of it, and
#    pmeclock -F HZ records the same with a sixth more input after it
#    (xz compresses the two files one after the other), so that its run
#    has more samples on a busy machine too; its file is cut to perf's
#    count by dropping its last samples (tests/unit/t_sample dump and
#    write): the same program at the same rate, the same sample count.
#    Should it still have fewer, both counts are printed, the times
#    compared as they are, and the ratios scaled to the same count too.
# 3. The load modules of the two reports, with their shares of the
#    samples (perf report --sort dso; pmehisto -V caliper:module): every
#    module either names, and a mark where the shares differ by more than
#    two points.  perf names libc's routines from libc6-dbg's debug file,
#    as pmehisto does, when it is installed.
# 4. perf report --stdio on the perf.data and pmehisto -x -T text on the
#    sample file (report on standard output, no file written: -o and -B
#    /dev/null), each run RUNS times (default 11) after one run that
#    warms the page cache and pmehisto's cache of the kernel's symbols
#    (its first run of a boot reads /proc/kallsyms: printed too); the
#    medians of wall time and of CPU time (task-clock) and their ratios.
#    With -b, a second pmehisto (one built before a change) in a column of
#    its own, and its ratios to perf and to the first.  -B /dev/null writes
#    no filled bucket file (pmehisto(1)): the quick path then makes buckets
#    only for the routines sampled and reads the sample file once.
#
# Skipped, with the reason, without perf, xz or a perf that can record.
# Run from the top directory (or set PME_TOP) after make.

set -eu
export LC_ALL=C
top=$(cd "${PME_TOP:-.}" && pwd)
runs=11 mb=40 hz=10000 other=
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-m) mb=$2; shift 2 ;;
	-F) hz=$2; shift 2 ;;
	-b) other=$2; shift 2 ;;
	*) echo "usage: bench_quick.sh [-n runs] [-m MB] [-F hz] [-b pmehisto]" >&2
	   exit 2 ;;
	esac
done
pmehisto=${PMEHISTO:-$top/histo/pmehisto}
pmeclock=${PMECLOCK:-$top/sample/pmeclock}
tsample=$top/tests/unit/t_sample
for f in "$pmehisto" "$pmeclock" "$tsample"; do
	[ -x "$f" ] || { echo "skipped: $f is not built"; exit 77; }
done
command -v perf >/dev/null || { echo "skipped: perf is not installed"; exit 77; }
xz=$(command -v xz) || { echo "skipped: xz is not installed"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/quickbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

# --- 1. the input -------------------------------------------------------------

cat /usr/lib/x86_64-linux-gnu/*.so* 2>/dev/null | head -c $((mb * 1000000)) \
    >input || true
[ "$(stat -c %s input)" -gt 1000000 ] ||
    { echo "skipped: too few shared libraries for the input"; exit 77; }

# --- 2. the two runs ------------------------------------------------------------

head -c $((mb * 1000000 / 6)) input >more
prog=("$xz" -3 -c input)
if ! perf record -q -F "$hz" -o x.data -- "${prog[@]}" >/dev/null \
    2>perf.err; then
	echo "skipped: perf record failed: $(head -n 1 perf.err)"
	exit 77
fi
p=$(perf script -i x.data -F ip 2>/dev/null | wc -l)
"$pmeclock" -q -F "$hz" -o full.PMS -- "${prog[@]}" more >/dev/null ||
    { echo "pmeclock failed" >&2; exit 1; }
q=$("$tsample" dump full.PMS | grep -c '^sample ')
# The first p samples of pmeclock's run, its other records kept.
"$tsample" dump full.PMS | awk -v p="$p" '
    /^sample / { if (++n > p) next } /^# / { next } { print }' |
    "$tsample" write run.PMS
n=$("$tsample" dump run.PMS | grep -c '^sample ')
printf '%s at %d Hz: perf record %d samples; pmeclock (and more) %d, ' \
    "${prog[*]}" "$hz" "$p" "$q"
printf 'cut to %d\n' "$n"

# --- 3. the load modules -----------------------------------------------------

histo() {	# PMEHISTO ARG...: the report on standard output, no file
	local h=$1
	shift
	"$h" -q -x -o /dev/null -B /dev/null "$@" run.PMS
}
t0=$(date +%s%N)
XDG_CACHE_HOME=$work/xdg histo "$pmehisto" -T none
first_ms=$((($(date +%s%N) - t0) / 1000000))
perf report -i x.data --stdio --sort dso 2>/dev/null |
    awk '$1 ~ /%$/ { sub(/%/, "", $1); n = $2
	if (n == "[kernel.kallsyms]") n = "[kernel]"
	print n, $1 }' | sort >perf.mods
histo "$pmehisto" -V caliper:module -T csv |
    awk -F, 'NR > 1 { n = $7; sub(/.*\//, "", n); print n, $3 }' |
    sort >pme.mods
echo "load modules, % of samples:"
printf '  %-32s %8s %8s\n' module perf pmehisto
join -a 1 -a 2 -e - -o 0,1.2,2.2 perf.mods pme.mods |
    awk '{ d = ($2 == "-" || $3 == "-") ? 100 : $2 - $3
	if (d < 0) d = -d
	printf "  %-32s %8s %8s%s\n", $1, $2, $3,
	    (d > 2 && ($2 + 0 >= 1 || $3 + 0 >= 1)) ? "   differ" : "" }'

# --- 4. the times ----------------------------------------------------------------

# stat CMD...: "wall CPU" in ms of one run (duration_time, task-clock).
stat1() {
	perf stat -x, -e duration_time,task-clock "$@" 2>&1 >/dev/null |
	    awk -F, '$3 ~ /^duration_time/ { w = $1 / 1e6 }
		$3 ~ /^task-clock/ { c = $1 } END { print w, c }'
}
# medians CMD...: "wall CPU", the medians of RUNS runs after one.
medians() {
	local i
	"$@" >/dev/null 2>&1 || true
	for i in $(seq "$runs"); do
		stat1 "$@"
	done | awk '{ w[NR] = $1; c[NR] = $2 }
	    function med(v, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
	    END { printf "%.1f %.1f\n", med(w, NR), med(c, NR) }'
}
export XDG_CACHE_HOME=$work/xdg
read -r pw pc < <(medians perf report -i x.data --stdio)
read -r hw hc < <(medians "$pmehisto" -q -x -o /dev/null -B /dev/null \
    -T text run.PMS)
perf report -i x.data --stdio 2>/dev/null | grep -c '^ *[0-9.]*%' \
    >perf.rows || true
histo "$pmehisto" -T csv -C 0 | awk -F, 'NR > 1 && $7 > 0' | wc -l \
    >pme.rows
if [ "$n" -eq "$p" ]; then
	printf '%d samples each, medians of %d runs (ms):\n' "$n" "$runs"
else
	printf '%d samples for perf, %d for pmehisto (pmeclock recorded ' \
	    "$p" "$n"
	printf 'fewer), medians of %d runs (ms):\n' "$runs"
fi
printf '  %-34s %8s %8s %6s\n' "" wall CPU rows
printf '  %-34s %8.1f %8.1f %6d\n' "perf report --stdio" "$pw" "$pc" \
    "$(cat perf.rows)"
printf '  %-34s %8.1f %8.1f %6d\n' "pmehisto -x -T text" "$hw" "$hc" \
    "$(cat pme.rows)"
if [ -n "$other" ]; then
	read -r ow oc < <(medians "$other" -q -x -o /dev/null -B /dev/null \
	    -T text run.PMS)
	printf '  %-34s %8.1f %8.1f\n' "pmehisto -x -T text (-b)" "$ow" "$oc"
fi
printf '  pmehisto faster by %.1fx wall, %.1fx CPU' \
    "$(awk -v a="$pw" -v b="$hw" 'BEGIN { print a / b }')" \
    "$(awk -v a="$pc" -v b="$hc" 'BEGIN { print a / b }')"
printf ' (first run of a boot, kallsyms read and cached: %s ms wall)\n' \
    "$first_ms"
[ "$n" -eq "$p" ] ||
    printf '  per sample (scaled by %d/%d): %.1fx wall, %.1fx CPU\n' \
	"$n" "$p" "$(awk -v a="$pw" -v b="$hw" -v n="$n" -v p="$p" \
	'BEGIN { print a / b * n / p }')" "$(awk -v a="$pc" -v b="$hc" \
	-v n="$n" -v p="$p" 'BEGIN { print a / b * n / p }')"
if [ -n "$other" ]; then
	printf '  the -b pmehisto faster by %.1fx wall, %.1fx CPU;' \
	    "$(awk -v a="$pw" -v b="$ow" 'BEGIN { print a / b }')" \
	    "$(awk -v a="$pc" -v b="$oc" 'BEGIN { print a / b }')"
	printf ' pmehisto faster than it by %.1fx wall, %.1fx CPU\n' \
	    "$(awk -v a="$ow" -v b="$hw" 'BEGIN { print a / b }')" \
	    "$(awk -v a="$oc" -v b="$hc" 'BEGIN { print a / b }')"
fi
