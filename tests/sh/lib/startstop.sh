# startstop.sh - helpers of the tests of pmeclock --start/--stop
# (pmeclock_startstop*.sh): sourced after common.sh and measures.sh.

# startstop_fixture: tests/fixtures/clock/startstop.c and its library
# built into ./startstop (frame pointers for -G fp); skips when it
# cannot run or pmeclock cannot place its breaks here, fail()s and
# finishes when it cannot be built.
startstop_fixture() {
	local fx=$top/tests/fixtures/clock
	gcc -O1 -g -shared -fPIC -o libstartlib.so "$fx/startlib.c" &&
	    gcc -O1 -g -fno-omit-frame-pointer -pthread -I"$fx" -o startstop \
	    "$fx/startstop.c" -L. -lstartlib -Wl,-rpath,'$ORIGIN' ||
	    { fail "cannot build the fixture"; finish; }
	./startstop region 1 1 >/dev/null ||
	    skip "the fixture cannot run here"
	need_uprobes --start region --stop region ./startstop region 1 1
}

# truth FILE WORD: the fixture's figure.
truth() {
	awk -v w="$2" '$1 == w { print $2 }' "$1"
}

# share WHAT IN_NS OUT_NS TICKS CLOCK SUM: the share of the clock's
# samples inside the windows (CLOCK: "routine count" lines of those
# written) of all (SUM: pmeclock's last line's "windows written
# left-out", the left out less TICKS samples of a break) is IN_NS's
# share of the CPU time within 1 + 4.5 * 100 * sqrt(p (1 - p) / N)
# points; fail()s WHAT when it is not, says both.
share() {
	awk -v in_ns="$2" -v out_ns="$3" -v ticks="$4" -v what="$1" '
	    NR == FNR { c += $2; next }
	    { o = $3 - ticks }
	    END {
		n = c + o; p = in_ns / (in_ns + out_ns)
		if (n < 300) { printf "%s: too few samples (%d)\n", what, n; exit 1 }
		tol = 1 + 450 * sqrt(p * (1 - p) / n)
		d = 100 * (c / n - p)
		printf "%s: %d of %d samples inside, %.1f%%; CPU time %.1f%% (within %.1f)\n",
		    what, c, n, 100 * c / n, 100 * p, tol
		exit (d > tol || -d > tol)
	    }' "$5" "$6" ||
	    fail "$1: the share inside is not the CPU time's"
}

# windows FILE: the windows pmeclock's last line in FILE counts.
windows() {
	sed -n 's/.*: \([0-9]*\) windows, .*/\1/p' "$1"
}

# gated RUN WHAT WINDOWS TICK: the exact checks of run RUN (its file
# RUN.PMS, pmeclock's standard error RUN.err, the fixture's truth
# RUN.truth): no sample of out_work() written, the calls of tick()
# written (TICK: the break's measure) those of in_work() in the windows,
# WINDOWS windows; leaves RUN.clock and RUN.sum for share(), or fail()s
# WHAT and returns 1 when pmeclock's last line is missing.
gated() {
	counts "$1.PMS" cpu-clock >"$1.clock"
	is "$2: samples of out_work()" "$(count out_work <"$1.clock")" 0
	is "$2: calls of tick() in the windows" \
	    "$(counts "$1.PMS" "$4" | count tick)" \
	    "$(truth "$1.truth" in_calls)"
	# pmeclock: --start R --stop R: W windows, N samples in them
	# written, M outside left out
	sed -n 's/.*: \([0-9]*\) windows, \([0-9]*\) samples in them '`
	    `'written, \([0-9]*\) outside left out$/\1 \2 \3/p' \
	    "$1.err" >"$1.sum"
	[ -s "$1.sum" ] || { fail "$2: no summary: $(cat "$1.err")"; return 1; }
	is "$2: windows" "$(cut -d' ' -f1 "$1.sum")" "$3"
}
