#!/bin/bash
#
# pmeclock_timer.sh - the preload methods (timer: timer_create per thread;
# itimer: ITIMER_PROF) on the spin fixture: the checks of the perf method,
# the kernel tick's limit said and applied, call chains by frame pointers,
# and the automatic fall back when perf_event_open is refused (a seccomp
# filter, as in a container).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"

method_suite timer
method_suite itimer

# Above the kernel tick: said, and the interval the tick allows used.
if [ "$hz" -gt 0 ] && [ "$hz" -lt 1000 ]; then
	run 0 "timer: 1 kHz" -m timer -F 1000 -o khz -- ./spin cpu 1000
	grep -q "limited by the kernel tick ($hz Hz)" "$tmp/err" ||
	    fail "timer: 1 kHz: no word of the tick: $(cat "$tmp/err")"
	stat khz.PMS
	has "timer: 1 kHz: period" "^method timer period $((1000000000 / hz)) "
	# (Fewer samples than ticks on a busy machine, each standing for
	# the expiries it stands for: their weight counts.)
	expected "timer: samples of 1 s at the tick" \
	    "$(awk '$1 == "samples" { print $4 }' "$tmp/stat")" 1000000000 \
	    1 $((1000000000 / hz))
fi

# Call chains from the frame-pointer walk, main thread and others; the
# samples held to the CPU time spin used, not the 600 ms it asks for (a
# loaded ASan CI run: 67 samples' worth where 65 were allowed for 600).
SPIN_SAY_CPU=1 run 0 "timer: -g" -m timer -g -o chain -- ./spin threads 2 300
stat chain.PMS
count_ok "timer: -g: samples" timer "$(spincpu 600000000)" 3
between "timer: -g: samples with frames" "$(field frames)" \
    $(($(field samples) * 9 / 10)) "$(field samples)"

# perf_event_open refused: the timer method, said on stderr and recorded.
if "$tmp/noperf" true 2>/dev/null; then
	# shellcheck disable=SC2086
	"$tmp/noperf" $pmeclock -o fb -- ./spin cpu 300 >"$tmp/out" \
	    2>"$tmp/err" || fail "fallback: exit status $?"
	grep -q "perf_event_open refused.*sampling with the timer method" \
	    "$tmp/err" || fail "fallback: not said: $(cat "$tmp/err")"
	stat fb.PMS
	has "fallback: method" "^method timer "
	has "fallback: note" "^note perf_event_open refused"
	count_ok "fallback: samples" timer 300000000 1
	# shellcheck disable=SC2086
	"$tmp/noperf" $pmeclock -q -m perf -o fb2 -- ./spin cpu 10 \
	    >"$tmp/out" 2>"$tmp/err"
	[ $? = 1 ] || fail "-m perf refused: exit status not 1"
	[ ! -e fb2.PMS ] || fail "-m perf refused: a sample file was made"
fi

finish
