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

# Rates beyond the tick.
run 0 "perf: 1 kHz" -m perf -F 1000 -o khz -- ./spin cpu 1000
stat khz.PMS
between "perf: samples of 1 s at 1 kHz" "$(field samples)" 900 1100
run 0 "perf: 10 kHz" -m perf -i 100us -o tenk -- ./spin cpu 500
stat tenk.PMS
between "perf: samples of 0.5 s at 10 kHz" "$(field samples)" 4250 5500

# Call chains: hot's caller is main.
run 0 "perf: -g" -m perf -j 0 -g -o chain -- ./spin cpu 300
stat chain.PMS
has "perf: -g: flags" "^method perf period 10000000 flags 3"
between "perf: -g: samples with frames" "$(field frames)" 25 35

finish
