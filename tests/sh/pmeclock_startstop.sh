#!/bin/bash
#
# pmeclock_startstop - pmeclock --start ROUTINE --stop ROUTINE: a
# thread's samples are written only while its calls of the start routine
# exceed those of the stop routine (entries and returns when both name
# one routine).  The fixture (tests/fixtures/clock/startstop.c, with
# startlib.c, a shared library) runs 2 threads that each spin in
# out_work() outside the window and in in_work() inside it, entered as
# its mode says: region (recursion of the start routine, --start region
# --stop region), pair (nesting: begin begin end end, after a stray end:
# --start begin --stop end), deep (recursion 100 deep, past the kernel's
# 64 return probes of a thread) and lib (the routine in the library);
# meanwhile the main thread spins in out_work(), all of it while the
# others are inside their windows.  It prints the truth: the CPU time of
# the calls of in_work() and of out_work(), and their numbers.  Checks,
# with -e cpu-clock/1ms,break:tick (tick() is called once by each call
# of in_work() and of out_work()):
#
# - exact: no sample of out_work() written (per thread: the main
#   thread's time is outside while the others are inside); the calls of
#   tick() written are the calls of in_work(); one window a thread;
# - the share of the clock's samples inside (written) of all (written
#   and left out, which pmeclock's last line counts) is in_work()'s
#   share of the CPU time within 1 + 4.5 * 100 * sqrt(p (1 - p) / N)
#   points (as pmeclock_attach.sh);
# - -g and -G fp: the stacks of in_work() are whole (main or
#   start_thread at their root) through the start routine's calls, whose
#   return addresses the return probe replaces;
# - a break on the start routine counts its every call (each opens the
#   window), one on the stop routine its calls that do not close it;
# - a window opened and closed 20,000 times in each thread, sampled
#   every 20 us: none of the routine outside it is written (exact);
# - -j 20: a window a thread, none of out_work() written (the clock's
#   period changes, the breaks' stays at every call);
# - without --start, out_work() has samples (the checks can fail);
# - refusals, exit status and nothing written: an unknown routine (with
#   the nearest name), --start without --stop and --stop without
#   --start, the timer and itimer methods, -w.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/measures.sh"
. "$top/tests/sh/lib/startstop.sh"

need "$pmeclock" "$pmehisto"
cd "$tmp" || exit 1
startstop_fixture

T=2 MS=200

# check MODE START STOP [OPTION...]: a run of MODE and its checks.
check() {
	local mode=$1 start=$2 stop=$3 what
	shift 3
	what="$mode $*"
	"$pmeclock" "$@" -e cpu-clock/1ms,break:tick --start "$start" \
	    --stop "$stop" -o "$mode.PMS" ./startstop "$mode" $T $MS \
	    >"$mode.truth" 2>"$mode.err" ||
	    { fail "$what: pmeclock failed: $(cat "$mode.err")"; return; }
	gated "$mode" "$what" $T break:tick || return
	# The clock's samples: written, and left out (less tick()'s).
	share "$what" "$(truth "$mode.truth" inside)" \
	    "$(truth "$mode.truth" outside)" \
	    "$(truth "$mode.truth" out_calls)" "$mode.clock" "$mode.sum"
}

check region region region -g
check pair begin end -G fp
check deep region2 region2 -g
check lib libstartlib.so:lib_window libstartlib.so:lib_window

# -g: the stacks of in_work() reach the thread's first routine through
# the start routine's calls (-G fp: the kernel puts back the return
# addresses; -g: pmeclock does).
for mode in region pair deep; do
	"$pmehisto" -q -x -M cpu-clock -T folded -o - "$mode.PMS" 2>&1 |
	    grep ';in_work ' >"$mode.folded"
	[ -s "$mode.folded" ] || fail "$mode: no stacks of in_work()"
	bad=$(grep -cv '^\(_start;\|clone3;\|\)\(__libc_start_main;__libc_start_call_main;main;\|start_thread;\)body;' \
	    "$mode.folded")
	is "$mode: stacks of in_work() not whole" "$bad" 0
done
grep -q ';region;region;region;region;in_work ' region.folded ||
    fail "region -g: no stack of in_work() under four calls of region()"
grep -q "$(printf 'region2;%.0s' $(seq 101))in_work " deep.folded ||
    fail "deep -g: no stack of in_work() under 101 calls of region2()"

# Breaks on the start and stop routines: every call of the start
# routine opens the window; the call of the stop routine that closes it
# is outside, the nested one inside.
"$pmeclock" -q -e break:region --start region --stop region -o b.PMS \
    ./startstop region $T 10 >/dev/null || fail "break:region failed"
is "calls of region() in the windows" \
    "$(counts b.PMS break:region | count region)" $((4 * T))
"$pmeclock" -q -e break:begin,break:end --start begin --stop end \
    -o b.PMS ./startstop pair $T 10 >/dev/null || fail "break:end failed"
is "calls of begin() in the windows" \
    "$(counts b.PMS break:begin | count begin)" $((2 * T))
is "calls of end() in the windows" \
    "$(counts b.PMS break:end | count end)" $T

# A window opened and closed 20,000 times a thread (some 10 us inside,
# 10 us outside), a sample every 20 us: none of spin_out() is written.
# The breaks' records come in rings of their own: converted in the order
# they are read, a sample read after a start that came later than it was
# taken in its thread's window (1 to 4 of spin_out() in each of 3 runs).
"$pmeclock" -q -i 20us --start win --stop win -o many.PMS \
    ./startstop many $T 100 >/dev/null || fail "many windows: pmeclock failed"
counts many.PMS cpu-clock >many.clock
is "many windows: samples of spin_out()" "$(count spin_out <many.clock)" 0
[ "$(count spin_in <many.clock)" -gt 1000 ] ||
    fail "many windows: $(count spin_in <many.clock) samples of spin_in()"

# -j changes the clock's period as pmeclock reads, not the breaks' (once
# it gave them the clock's: 0 windows).
"$pmeclock" -j 20 --start region --stop region -o j.PMS \
    ./startstop region $T 50 >/dev/null 2>j.err ||
    fail "-j: pmeclock failed: $(cat j.err)"
is "-j: windows" "$(windows j.err)" $T
is "-j: samples of out_work()" "$(counts j.PMS cpu-clock | count out_work)" 0

# Without --start the same run has samples of out_work().
"$pmeclock" -q -e cpu-clock/1ms -o all.PMS ./startstop region $T 50 \
    >/dev/null || fail "pmeclock without --start failed"
[ "$(counts all.PMS cpu-clock | count out_work)" -gt 0 ] ||
    fail "without --start: no sample of out_work()"

# ---------------------------------------------------------- refusals

expect "an unknown routine" 1 "$pmeclock" --start regoin --stop region \
    -o no.PMS ./startstop region 1 1
is "an unknown routine's message" "$(cat err)" \
    "pmeclock: '--start regoin': no routine 'regoin' in './startstop'; did you mean 'region'?"
[ -s out ] && fail "an unknown routine: the program ran"
expect "--start without --stop" 2 "$pmeclock" --start region -o no.PMS \
    ./startstop region 1 1
is "--start without --stop: its message" "$(cat err)" \
    "pmeclock: --start region: no --stop (the window is from a call of --start's routine to a call of --stop's; --start f --stop f: to f's return)"
expect "--stop without --start" 2 "$pmeclock" --stop end -o no.PMS \
    ./startstop pair 1 1
grep -q "^pmeclock: --stop end: no --start " err ||
    fail "--stop without --start: $(cat err)"
for m in timer itimer; do
	expect "-m $m" 1 "$pmeclock" -m $m --start region --stop region \
	    -o no.PMS ./startstop region 1 1
	is "-m $m: its message" "$(cat err)" \
	    "pmeclock: --start/--stop: the $m method cannot break on a routine; breaks need perf_event_open (-m perf)"
	[ -s out ] && fail "-m $m: the program ran"
done
expect "-w" 2 "$pmeclock" -w --start region --stop region -o no.PMS \
    ./startstop region 1 1
is "-w: its message" "$(cat err)" "pmeclock: --start/--stop: not with -w"
expect "-l" 2 "$pmeclock" -l --start region --stop region
expect "--start twice" 2 "$pmeclock" --start region --start win \
    --stop region -o no.PMS ./startstop region 1 1
is "--start twice: its message" "$(cat err)" "pmeclock: --start: given twice"
[ -e no.PMS ] && fail "refusals: no.PMS written"

finish
