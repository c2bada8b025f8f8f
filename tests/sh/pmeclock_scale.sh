#!/bin/bash
#
# pmeclock_scale.sh - a hundred children and sixteen threads, measured
# whole by every method that can.  The forks fixture (100 children of
# 60 ms of CPU each, one after another) gives a fork record and an exit
# for each child, the samples of at least 90 of them, and all their
# samples' weight within the bounds pmeclock_signals holds twenty to
# (expected(): the children's own CPU time, from getrusage, a tick each
# and the count's deviations).  Six periods, because on a crowded machine
# a timer on a thread's CPU-time clock keeps only half of what it is due,
# less a tick and the one signal pending at the exit (expected() says
# why): a child of three periods (30 ms, as this test had) is owed from
# (30 - 10) / 10 / 2 - 1 = 0 samples, and 14 of 100 had none beside a
# loaded suite; one of six, (60 - 10) / 10 / 2 - 1 = 1.5.  ITIMER_PROF,
# process wide, has no count to hold it
# to on a busy machine (count_ok): some samples.  The workers fixture (16
# threads started with every signal blocked, thread i using (i + 1) *
# 20 ms) gives every thread its samples: the timer method's per-thread
# clocks each within its CPU time's bounds, perf's and ITIMER_PROF's each
# a share of the samples within four deviations of its share of the CPU
# time (part_ok, as pmeclock_signals holds ITIMER_PROF's three workers).
# perf's cpu-clock counts each thread's time on an hrtimer that is stopped
# and restarted at every switch, so a thread of two periods gets from none
# to three samples on a busy machine (seen: none, once in eight runs
# beside two busy loops): every thread of at least five periods must have
# samples under perf, every thread under the timer method.
# perf is skipped, saying so, where perf_event_open is refused.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"

build_more forks workers
period=10000000
methods="timer itimer"
if $pmeclock -q -m perf -o probe -- true 2>"$tmp/err"; then
	methods="perf $methods"
else
	echo "perf_event_open refused here, perf not tried:" \
	    "$(head -n 1 "$tmp/err")"
fi

weight() {
	awk '$1 == "samples" { print $4 }' "$tmp/stat"
}

for m in $methods; do
	# ------------------------------------------------- 100 children
	run 0 "$m: 100 forks" -m "$m" -o fk -- ./forks 100 60 exit
	stat fk.PMS
	nf=$(grep -c '^thread fork ' "$tmp/stat")
	ne=$(awk '$1 == "thread" && $2 == "exit" && $3 == $4' "$tmp/stat" |
	    wc -l)
	[ "$nf" -ge 100 ] || fail "$m: 100 forks: $nf fork records"
	[ "$ne" -ge 100 ] || fail "$m: 100 forks: $ne process exits"
	np=$(grep -c '^pid ' "$tmp/stat")
	c=$(sed -n 's/^children 100 cpu //p' "$tmp/out")
	if [ "$m" = itimer ]; then
		[ "$(field samples)" -ge 1 ] || fail "$m: 100 forks: no samples"
	else
		[ "$np" -ge 90 ] || fail "$m: 100 forks: samples of $np processes"
		x=0
		[ "$m" = perf ] && x=$(perf_extra)
		expected "$m: 100 forks" "$(weight)" "${c:-0}" 100 $period \
		    0.5 "$x"
	fi

	# ------------------------------------------------- 16 threads
	run 0 "$m: 16 threads" -m "$m" -o wk -- ./workers 16 20
	stat wk.PMS
	[ "$(grep -c '^worker .* mask full$' "$tmp/out")" = 16 ] ||
	    fail "$m: 16 threads: $(grep -c '^worker ' "$tmp/out") of 16" \
	    "workers ended with their mask"
	nt=0
	n=$(field samples)
	total=$(awk '$1 == "worker" { c += $3 } END { print c + 0 }' \
	    "$tmp/out")
	while read -r _ tid cpu _; do
		w=$(awk -v t="$tid" '$1 == "tid" && $2 == t { print $4 }' \
		    "$tmp/stat")
		k=$(awk -v t="$tid" '$1 == "tid" && $2 == t { print $3 }' \
		    "$tmp/stat")
		[ -n "$w" ] && nt=$((nt + 1))
		[ "$m" = perf ] && [ -z "$w" ] && [ "$cpu" -ge $((5 * period)) ] &&
		    fail "$m: thread $tid: no samples for $cpu ns of CPU"
		if [ "$m" = timer ]; then
			expected "$m: thread $tid" "${w:-0}" "$cpu" 1 $period
		else
			part_ok "$m: thread $tid: samples of $n" "${k:-0}" \
			    "$n" "$(awk "BEGIN { print $cpu / $total }")"
		fi
	done <"$tmp/out"
	[ "$m" != timer ] || [ "$nt" = 16 ] ||
	    fail "$m: 16 threads: samples of $nt threads"
done
finish
