#!/bin/bash
#
# pmeclock_perf.sh - the perf_event_open method on the spin fixture:
# sample counts and rates (100 Hz, 1 kHz, 10 kHz), shares of known
# routines, the main mapping, exit statuses and signals, threads, fork and
# exec, dlopen, a deleted binary, standard output, a launcher killed, and
# call chains.  Skipped when perf_event_open is refused here.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"

if ! $pmeclock -q -m perf -o probe -- true 2>"$tmp/err"; then
	echo "perf_event_open refused here: $(head -n 1 "$tmp/err")"
	exit 77
fi

method_suite perf

# Rates beyond the tick, against the CPU time spin used (start-up and
# the burn loop's overshoot are 10 or 20 samples at 10 kHz).  A late
# hrtimer skips the periods it missed: on a busy machine a tenth, then
# (at 10 kHz) a seventh fewer.
SPIN_SAY_CPU=1 run 0 "perf: 1 kHz" -m perf -F 1000 -o khz -- ./spin cpu 1000
stat khz.PMS
expected "perf: samples of 1 s at 1 kHz" \
    "$(awk '$1 == "samples" { print $4 }' "$tmp/stat")" \
    "$(spincpu 1000000000)" 1 1000000 0.9 "$(perf_extra)"
SPIN_SAY_CPU=1 run 0 "perf: 10 kHz" -m perf -i 100us -o tenk -- \
    ./spin cpu 500
stat tenk.PMS
expected "perf: samples of 0.5 s at 10 kHz" \
    "$(awk '$1 == "samples" { print $4 }' "$tmp/stat")" \
    "$(spincpu 500000000)" 1 100000 0.85 "$(perf_extra)"

# Call chains: every sample has its frames, their count as the CPU time
# spin used asks.
SPIN_SAY_CPU=1 run 0 "perf: -g" -m perf -j 0 -g -o chain -- ./spin cpu 300
stat chain.PMS
has "perf: -g: flags" "^method perf period 10000000 flags 3"
count_ok "perf: -g: samples" perf "$(spincpu 300000000)" 1
between "perf: -g: samples with frames" "$(field frames)" \
    "$(field samples)" "$(field samples)"

finish
