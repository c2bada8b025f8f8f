#!/bin/bash
#
# pmeclock_lockstep.sh - randomized sampling intervals (issue 10): the
# lockstep fixture works in cycles of exactly 10 ms of its CPU time, a
# quarter of each in quarter(), and is sampled at 100 Hz.  A fixed period
# sees it at the same points of its cycle (in pme and perf alike, 9 of 102
# samples for the quarter); with the default randomized intervals
# (-j 30) quarter()'s share must be the CPU time it took (the fixture
# measures it, the truth of the run) within
#
#     1 + 4.5 * 100 * sqrt(1.5 p (1 - p) / N)
#
# percentage points from N samples: 4.5 standard deviations, as in
# accuracy.sh, of samples that are less independent than a binomial's:
# the perf method keeps a spacing for 32 samples or more (sample/perf.c),
# which a simulation of this program puts at 1.15 times the binomial
# deviation, hence the factor 1.5 on the variance.  (A rate drawn near
# 100 Hz kept the program locked for a period's samples: 46.8% in one CI
# run, 20.4-29.5% in five here; the draw leaves the band nearest the
# asked-for rate out now: 23.4-27.2% in six.)  That is checked for
# the perf method, whose clock is an hrtimer; the timer method's CPU-time
# timers fire at the kernel's ticks, which a program locked to the tick
# still aliases with (pmeclock(1)), so for it the check is that the
# re-armed timers keep the asked-for rate: the samples' weight against
# the CPU time, as for a fixed period (expected in common.sh).  The
# shares of a fixed period (-j 0) and of the timer method are printed,
# not checked.  Skipped when perf_event_open is refused here.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"

build_more lockstep

# share NAME.PMS: "Q N" from pmehisto's quick path: quarter()'s count and
# the count of quarter() and rest() together.
share() {
	"$pmehisto" -q -x -B "$1.pme" -o "$1.HIS" -T csv "$1" |
	    awk -F, 'NR > 1 { c[$2] = $7 }
	    END { print c["quarter"] + 0, c["quarter"] + c["rest"] }'
}

# truth: quarter()'s share of the two routines' CPU time, from $tmp/err.
truth() {
	awk '$1 == "lockstep:" { printf "%.6f\n", $3 / ($3 + $5) }' \
	    "$tmp/err"
}

# blocks NAME.PMS: the standard deviation of quarter()'s share between
# 8 runs of consecutive samples (of quarter() and rest(), in the file's
# order), divided by the square root of 8: the standard error of the
# share as the run itself shows it (batch means).  A period the
# collector left in force for hundreds of samples (its changes come as
# it drains the rings: a busy machine starves it) makes samples less
# independent than the model below holds; the runs' spread shows it.
blocks() {
	"$tmp/pmsstat" -s "$1" | awk '$1 == "s" && ($7 == "quarter" ||
	    $7 == "rest") { f[n++] = $7 == "quarter" }
	END {
		if (n < 80) { print 0; exit }
		for (b = 0; b < 8; b++) {
			q = 0; k = 0
			for (i = int(b * n / 8); i < int((b + 1) * n / 8); i++) {
				q += f[i]; k++
			}
			s[b] = q / k; m += s[b] / 8
		}
		for (b = 0; b < 8; b++) v += (s[b] - m) ^ 2 / 7
		printf "%.6f\n", sqrt(v / 8)
	}'
}

# report WHAT Q N P [SE]: prints the share and its tolerance; 1 when
# outside.  With SE (blocks()), the tolerance is at least 4.5 such
# standard errors, up to 1.6 times the model's: a fixed period, whose
# share is 0 or nearly 1 in every run of samples, still fails (25 points
# off at least, against 21 at most), where two runs here under a loaded
# CI run were 13.7 and 18.4 points off with 13 allowed.
report() {
	awk -v what="$1" -v q="$2" -v n="$3" -v p="$4" -v se="${5:-0}" 'BEGIN {
		if (n < 100) {
			printf "%s: too few samples (%d)\n", what, n
			exit 1
		}
		tol = 1 + 450 * sqrt(1.5 * p * (1 - p) / n)
		if (450 * se > tol)
			tol = 450 * se < 1.6 * tol ? 450 * se : 1.6 * tol
		d = 100 * (q / n - p)
		printf "%s: quarter %d of %d samples, %.1f%% for %.1f%% " \
		    "(tolerance %.1f)\n", what, q, n, 100 * q / n, 100 * p, tol
		exit (d > tol || -d > tol)
	}'
}

if $pmeclock -q -m perf -o probe -- true 2>"$tmp/err"; then
	run 0 "perf" -m perf -j 30 -o rand -- ./lockstep 400
	p=$(truth)
	# shellcheck disable=SC2046
	report "perf, randomized" $(share rand.PMS) "$p" \
	    "$(blocks rand.PMS)" ||
	    fail "perf, randomized: quarter()'s share is not its CPU time's"
	run 0 "perf -j 0" -m perf -j 0 -o fixed -- ./lockstep 200
	# shellcheck disable=SC2046
	report "perf, fixed period (not checked)" $(share fixed.PMS) "$(truth)"
else
	echo "perf_event_open refused here: perf not checked: $(head -n 1 "$tmp/err")"
fi

run 0 "timer" -m timer -o timer -- ./lockstep 300
# shellcheck disable=SC2046
report "timer, randomized (not checked)" $(share timer.PMS) "$(truth)"
stat timer.PMS
cpu=$(awk '$1 == "lockstep:" { print $3 + $5 }' "$tmp/err")
weight=$(awk '$1 == "samples" { print $4 }' "$tmp/stat")
expected "timer, randomized: samples" "$weight" "$cpu" 1 10000000

finish
