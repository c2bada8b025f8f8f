#!/bin/bash
#
# pmeclock_backlog.sh - the perf method with -g keeps reading the kernel's
# rings while its conversion of the samples (unwinding, writing) cannot
# go on: here pmeclock writes the sample file to a pipe that is read only
# once the command has ended, so its writes block once the pipe's 64 KiB
# are full, about a second into the run.  Two threads of 1.5 s at 10 kHz
# make 30,000 samples of 4 KiB of stack each (-G dwarf,4096), of which a
# ring holds some 3,900.  A collector that reads the rings only between
# conversions stops reading at the first blocked write and loses most of
# them (measured: 25,427 of 34,911 with two threads of 2 s); the reader
# thread empties the rings whatever the conversion does, and the samples
# wait in memory (about 150 MB here).  Fewer than a quarter lost, as the
# closing record counts them, is the bound: the reader must run once in
# each ring's fill (0.4 s of the program's CPU time on that CPU), which a
# loaded machine still gives it, where the collector that reads between
# conversions cannot read at all.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"
. "$top/tests/sh/lib/unwind.sh"

need_unwinding
rm -f ended gone
# The reading starts when the command or pmeclock has ended.
# shellcheck disable=SC2086 # pmeclock may carry a valgrind prefix
{ $pmeclock -g -G dwarf,4096 -F 10000 -o - -- \
    sh -c './spin threads 2 1500; echo $? >ended' 2>err </dev/null
    echo $? >gone; } |
    { while [ ! -e ended ] && [ ! -e gone ]; do sleep 0.1; done
    cat >run.PMS; }
[ "$(cat ended 2>/dev/null)" = 0 ] ||
    fail "the command failed: $(head -c 600 err)"
[ "$(cat gone)" = 0 ] ||
    fail "pmeclock: exit status $(cat gone): $(head -c 600 err)"
stat run.PMS
n=$(awk '$1 == "close" { print $3 }' stat)
lost=$(awk '$1 == "close" { print $5 }' stat)
[ $((${n:-0} + ${lost:-0})) -ge 15000 ] ||
    fail "${n:-no} samples: $(head -c 600 err) $(head -n 3 stat)"
[ "${lost:-0}" -gt 0 ] && ! grep -q "^pmeclock: $lost samples lost$" err &&
    fail "$lost lost, not said: $(head -c 600 err)"
[ $((${lost:-0} * 4)) -lt $((${n:-0} + ${lost:-0})) ] ||
    fail "$lost of $((n + lost)) samples lost while the writes blocked"

finish
