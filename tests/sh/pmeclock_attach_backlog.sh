#!/bin/bash
#
# pmeclock_attach_backlog.sh - pmeclock -p -g, attached to a running
# process, unwinds its stacks and keeps reading the kernel's rings while
# the conversion cannot go on, as sh/pmeclock_backlog checks for a
# command: pmeclock writes the sample file to a pipe that is read only
# once the process has ended, so its writes block once the pipe's 64 KiB
# are full.  The process (tests/fixtures/clock/gowork.c) has 8 threads,
# half of them made after the attach, that spin 0.1 to 0.8 s of CPU time
# each in hot(), under worker(): 3.6 s in all, some 36,000 samples of
# 4 KiB of stack at 10 kHz (-G dwarf,4096), 0.15 GB waiting in memory.
# Checks:
#   - the samples lost are none, or said ("N samples lost"), and fewer
#     than a quarter (the bound of sh/pmeclock_backlog: the reader must
#     run once in each ring's fill, which a loaded machine still gives
#     it); a collector that reads the rings only between conversions
#     loses most of them;
#   - the samples and lost ones together are at least half of the CPU
#     time the threads measured, at 10 kHz (a gross shortfall only: the
#     clock counts CPU time, whatever the load);
#   - each thread's share of the samples against its share of the CPU
#     time its own clock measured (the truth, written by the fixture),
#     within
#         1 + 4.5 * 100 * sqrt(p (1 - p) / N) + 100 * lost / (N + lost)
#     percentage points for a true share p and N samples (as
#     sh/pmeclock_attach: 4.5 standard deviations and a point; and the
#     lost samples, which may all have been one thread's);
#   - the stacks are unwound: of the samples in hot(), at least nine in
#     ten have worker() as its caller (pmehisto's folded stacks).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"
. "$top/tests/sh/lib/unwind.sh"

need_unwinding
build_more gowork
# Whatever a failed check leaves running.
trap 'kill $(jobs -p) 2>/dev/null' EXIT

./gowork 8 100 truth.txt >apid &
gpid=$!
apid=
for i in $(seq 300); do
	apid=$(head -n 1 apid 2>/dev/null)
	[ -n "$apid" ] && break
	sleep 0.05
done
[ -n "$apid" ] || { fail "gowork did not start"; finish; }
rm -f ended gone
# The reading starts when the process or pmeclock has ended.
# shellcheck disable=SC2086 # pmeclock may carry a valgrind prefix
{ $pmeclock -v -g -G dwarf,4096 -F 10000 -p "$apid" -o - 2>err </dev/null
    echo $? >gone; } |
    { while [ ! -e ended ] && [ ! -e gone ]; do sleep 0.1; done
    cat >run.PMS; } &
for i in $(seq 600); do
	grep -q "attached to" err 2>/dev/null && break
	sleep 0.05
done
grep -q "attached to '\./gowork' (pid $apid, 5 threads)" err ||
    fail "attach message: $(head -c 600 err)"
kill -USR1 "$apid"
wait "$gpid"
echo $? >ended
wait
[ "$(cat ended)" = 0 ] || fail "gowork failed"
[ "$(cat gone 2>/dev/null)" = 0 ] ||
    fail "pmeclock: exit status $(cat gone 2>/dev/null): $(head -c 600 err)"
stat run.PMS
n=$(field close samples)
lost=$(awk '$1 == "close" { print $5 }' "$tmp/stat")
lost=${lost:-0}
cpu=$(awk '{ s += $2 } END { printf "%d\n", s / 100000 }' truth.txt)
echo "attach: $n samples, $lost lost, $cpu periods of CPU time"
[ $((n + lost)) -ge $((cpu / 2)) ] ||
    fail "$n samples and $lost lost for $cpu periods of CPU time: $(head -c 600 err)"
[ "$lost" -gt 0 ] &&
    ! grep -Eq "^pmeclock: ($lost samples lost|[0-9]+ samples, $lost lost)" err &&
    fail "$lost lost, not said: $(head -c 600 err)"
[ $((lost * 4)) -lt $((n + lost)) ] ||
    fail "$lost of $((n + lost)) samples lost while the writes blocked"

# shellcheck disable=SC2016
awk -v n="$n" -v lost="$lost" '
	FNR == NR { t[$1] = $2; tt += $2; next }
	$1 == "tid" { c[$2] = $3 }
	END {
		if (n < 1000) { printf "attach: too few samples (%d)\n", n; exit 1 }
		line = sprintf("attach, per thread (%d samples):", n)
		bad = 0
		for (id in t) {
			p = t[id] / tt
			tol = 1 + 450 * sqrt(p * (1 - p) / n) + 100 * lost / (n + lost)
			d = 100 * (c[id] / n - p)
			line = line sprintf(" %.1f/%.1f", 100 * c[id] / n, 100 * p)
			if (d > tol || -d > tol) {
				bad = 1
				line = line sprintf(" (off by more than %.1f)", tol)
			}
		}
		print line
		exit bad
	}' truth.txt "$tmp/stat" || fail "attach: per-thread shares against their CPU clocks"

"$pmehisto" -q -x -B /dev/null -T folded run.PMS >folded ||
    fail "pmehisto -x -T folded on the attached run failed"
awk '{ k = $NF; sub(/ [0-9]+$/, "") }
    /(^|;)hot$/ { hot += k; if (/(^|;)worker;hot$/) called += k }
    END { printf "attach: %d of %d samples in hot() under worker()\n",
	called, hot
	exit !(hot > 0 && called * 10 >= hot * 9) }' folded ||
    fail "attach: stacks not unwound: $(head -n 3 folded)"

finish
