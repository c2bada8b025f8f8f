#!/bin/bash
#
# pmeclock_xz.sh - xz -T2, whose liblzma workers start with every signal
# blocked, sampled by the timer and itimer methods and by the perf
# method on the same machine: the preload methods sample the workers,
# the timer method as much as the CPU time the run used (cpuof), and
# both give the workers the share of the samples the perf method gives
# them.  Skipped without xz, or (the comparison) without perf_event_open.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"

if ! command -v xz >/dev/null; then
	echo "xz is not installed (Debian: apt-get install xz-utils)"
	exit 77
fi
build_more cpuof
period=10000000

# 4 MB of text in blocks of 1 MiB: work for both threads of -T2.
seq 1 600000 >data
seq 600000 1 -1 >>data

# xz METHOD: runs xz -T2 under pmeclock; sets n (samples), nw (samples
# of the workers: threads that are no process's main thread), w (their
# weight in ns) and c (the CPU time of the run).
xz_run() {
	run 0 "$1: xz -T2" -m "$1" -o "xz-$1" -- ./cpuof xz -T2 -6 \
	    --block-size=1MiB -c data
	c=$(cpuof)
	stat "xz-$1.PMS"
	n=$(field samples)
	w=$(awk '$1 == "samples" { print $4 }' "$tmp/stat")
	nw=$(awk '$1 == "pid" { main[$2] = 1 }
	    $1 == "tid" { n[$2] = $3 }
	    END { for (t in n) if (!(t in main)) s += n[t]; print s + 0 }' \
	    "$tmp/stat")
}

xz_run timer
t_n=$n t_nw=$nw
# Three processes' and threads' worth of rounding: cpuof, xz's main
# thread, two workers.
expected "timer: xz -T2" "$w" "$c" 4 $period
xz_run itimer
i_n=$n i_nw=$nw
[ "$i_nw" -gt 0 ] || fail "itimer: xz -T2: no samples in the workers"

if ! $pmeclock -q -m perf -o probe -- true 2>/dev/null; then
	echo "perf_event_open refused here: no comparison with the perf method"
	finish
fi
xz_run perf
# The workers' share of the perf method's samples, within four standard
# deviations of each method's count.
share() {	# WHAT N NW
	local lo hi
	lo=$(calc "$2 * $nw / $n - 4 * sqrt($2 * $nw / $n) - 2")
	hi=$(calc "$2 * $nw / $n + 4 * sqrt($2 * $nw / $n) + 2")
	between "$1: xz -T2: the workers' samples, of $2" "$3" "$lo" "$hi"
}
share timer "$t_n" "$t_nw"
share itimer "$i_n" "$i_nw"

finish
