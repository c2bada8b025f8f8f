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
hz=$(zcat /proc/config.gz 2>/dev/null | sed -n 's/^CONFIG_HZ=//p')
[ -n "$hz" ] || hz=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(uname -r)" \
    2>/dev/null)
if [ -n "$hz" ] && [ "$hz" -lt 1000 ]; then
	run 0 "timer: 1 kHz" -m timer -F 1000 -o khz -- ./spin cpu 1000
	grep -q "limited by the kernel tick ($hz Hz)" "$tmp/err" ||
	    fail "timer: 1 kHz: no word of the tick: $(cat "$tmp/err")"
	stat khz.PMS
	has "timer: 1 kHz: period" "^method timer period $((1000000000 / hz)) "
	# Tick-based CPU timers lose up to a fifth when other programs
	# share the CPUs (199 of 250 seen beside two busy loops).
	between "timer: samples of 1 s at the tick" "$(field samples)" \
	    $((hz * 75 / 100)) $((hz * 115 / 100))
fi

# Call chains from the frame-pointer walk, main thread and others.
run 0 "timer: -g" -m timer -g -o chain -- ./spin threads 2 300
stat chain.PMS
between "timer: -g: samples with frames" "$(field frames)" 50 70

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
	between "fallback: samples" "$(field samples)" 25 35
	# shellcheck disable=SC2086
	"$tmp/noperf" $pmeclock -q -m perf -o fb2 -- ./spin cpu 10 \
	    >"$tmp/out" 2>"$tmp/err"
	[ $? = 1 ] || fail "-m perf refused: exit status not 1"
	[ ! -e fb2.PMS ] || fail "-m perf refused: a sample file was made"
fi

finish
