#!/bin/bash
#
# pmeclock_startstop_attach - pmeclock --start ROUTINE --stop ROUTINE
# attached to a running process (-p) and watching every process (-a).
# The fixture (tests/fixtures/clock/startstop.c, modes attach-region and
# attach-pair) starts a thread that enters its window (region(0), or
# begin()) and waits inside it; the fixture then says "ready" and waits
# for SIGUSR1.  pmeclock attaches, the test sends the signal: that
# thread finishes the window it was in when pmeclock attached (its calls
# of in_work() counted apart, as early) and leaves it (a return the
# kernel placed no return probe for, or an end() with no begin() seen),
# then $T threads are made (after the attach: they inherit the events)
# and each thread runs $R rounds of out_work(), a window, out_work();
# the main thread spins in out_work() meanwhile.  The fixture prints the
# truth: the CPU time and the calls of in_work() in the windows, of
# out_work(), and of the early window's in_work().  Checks, with -e
# cpu-clock/1ms,break:tick (tick() is called once by each call of
# in_work() and of out_work()):
#
# - exact: no sample of out_work() written; the calls of tick() written
#   are the calls of in_work() in the windows made after the attach (the
#   early window's are left out: a thread inside its window when
#   pmeclock attaches starts outside it, and a stop seen outside does not
#   count below zero); $R windows a thread;
# - the share of the clock's samples written of all (written and left
#   out, which pmeclock's last line counts, less tick()'s left out) is
#   in_work()'s share of the CPU time within 1 + 4.5 * 100 * sqrt(p (1 -
#   p) / N) points (as pmeclock_startstop.sh);
# - -g and -G fp: the stacks of in_work() are whole (start_thread at
#   their root) through the start routine's calls;
# - -j 20 (the clock's period changed as pmeclock reads): the windows,
#   none of out_work() written (the breaks' period stays 1);
# - -p with the uprobe PMU's breaks (tracefs hidden in a mount
#   namespace; skipped where it cannot be): the process makes its
#   threads, which are outside (not inherited), the windows of the one
#   there at the attach counted;
# - -a, the routines named by the program's file, the fixture started
#   before pmeclock: the same exact checks, and every sample written is
#   of the fixture's process (the other processes are outside any
#   window);
# - refusals, exit status and nothing written: -a with no command and a
#   routine not named by its file; --count, -e io, -w with -p.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/measures.sh"
. "$top/tests/sh/lib/startstop.sh"

need "$pmeclock" "$pmehisto"
cd "$tmp" || exit 1
startstop_fixture
# Whatever a failed check leaves running.
trap 'kill $(jobs -p) 2>/dev/null' EXIT

T=2 MS=200 R=3

# waitfor FILE TEXT PID WHAT: until FILE has a line with TEXT; fails WHAT
# (1) when process PID ends first.
waitfor() {
	until grep -q "$2" "$1" 2>/dev/null; do
		kill -0 "$3" 2>/dev/null ||
		    { fail "$4: $(cat "$1")"; return 1; }
		sleep 0.05
	done
}

# start MODE: the fixture in the background, in its first window; its
# pid in fpid, its truth in MODE.truth.  MODE.ready removed first: the
# last start's "ready" in it, read before the shell's child had
# truncated it, let pmeclock attach to that child before its exec
# ("no routine 'begin' in '/usr/bin/bash'", a loaded CI run).
start() {
	rm -f "$1.ready"
	./startstop "attach-$1" $T $MS >"$1.truth" 2>"$1.ready" &
	fpid=$!
	waitfor "$1.ready" '^ready$' $fpid "$1: the fixture did not start"
}

# attach MODE START STOP [OPTION...]: MODE's fixture attached with -p,
# let go, and the checks, with the share inside.
attach() {
	local mode=$1 start=$2 stop=$3 what cp
	shift 3
	what="-p $mode $*"
	start "$mode" || return
	"$pmeclock" -v "$@" -e cpu-clock/1ms,break:tick --start "$start" \
	    --stop "$stop" -d 250s -p $fpid -o "$mode.PMS" 2>"$mode.err" &
	cp=$!
	waitfor "$mode.err" "attached to" $cp "$what: pmeclock did not attach" ||
	    { kill $fpid; wait $fpid; return; }
	kill -USR1 $fpid
	wait $fpid || fail "$what: the fixture failed"
	wait $cp || { fail "$what: pmeclock failed: $(cat "$mode.err")"; return; }
	gated "$mode" "$what" $(((T + 1) * R)) break:tick || return
	# The clock's samples: written, and left out (less tick()'s: one
	# a call of out_work(), and of the early window's in_work()).
	share "$what" "$(truth "$mode.truth" inside)" \
	    "$(($(truth "$mode.truth" outside) + $(truth "$mode.truth" early)))" \
	    "$(($(truth "$mode.truth" out_calls) + \
	    $(truth "$mode.truth" early_calls)))" "$mode.clock" "$mode.sum"
	"$pmehisto" -q -x -M cpu-clock -T folded -o - "$mode.PMS" 2>&1 |
	    grep ';in_work ' >"$mode.folded"
	[ -s "$mode.folded" ] || fail "$what: no stacks of in_work()"
	is "$what: stacks of in_work() not whole" "$(grep -cv \
	    '^\(clone3;\|\)start_thread;body;\(attach_body;\)\{0,1\}round_of;' \
	    "$mode.folded")" 0
}

attach region region region -g
grep -q ';round_of;region;region;region;region;in_work ' region.folded ||
    fail "-p region -g: no stack of in_work() under four calls of region()"
attach pair begin end -G fp

# -j changes the clock's period as pmeclock reads, not the breaks' (once
# it gave them the clock's: no window); -j is for the clock alone.
if start pair; then
	"$pmeclock" -v -j 20 --start begin --stop end -d 250s -p $fpid \
	    -o j.PMS 2>j.err &
	cp=$!
	if ! waitfor j.err "attached to" $cp "-p -j: pmeclock did not attach"
	then
		kill $fpid
		wait $fpid
	else
		kill -USR1 $fpid
		wait $fpid || fail "-p -j: the fixture failed"
		wait $cp || fail "-p -j: pmeclock failed: $(cat j.err)"
		is "-p -j: windows" "$(windows j.err)" $(((T + 1) * R))
		is "-p -j: samples of out_work()" \
		    "$(counts j.PMS cpu-clock | count out_work)" 0
	fi
fi

# -p where tracefs cannot be written (hidden in a mount namespace of its
# own): the breaks are the uprobe PMU's, which the threads the process
# makes later do not inherit (inherited, they failed its pthread_create:
# "Bad address"): it runs on, and only the windows of the thread that
# was there at the attach are counted (3 calls of in_work() each).
hide='mount -t tmpfs none /sys/kernel/tracing 2>/dev/null
mount -t tmpfs none /sys/kernel/debug 2>/dev/null
[ ! -e /sys/kernel/tracing/events ] && [ ! -e /sys/kernel/debug/tracing/events ]'
if ! unshare -m sh -c "$hide" 2>/dev/null; then
	echo "-p with the uprobe PMU: not checked (tracefs cannot be hidden here)"
elif start pair; then
	unshare -m sh -c "$hide && exec \"\$@\"" sh "$pmeclock" -v \
	    -e cpu-clock/1ms,break:tick --start begin --stop end -d 250s \
	    -p $fpid -o pmu.PMS 2>pmu.err &
	cp=$!
	if ! waitfor pmu.err "attached to" $cp "-p, PMU: pmeclock did not attach"
	then
		kill $fpid
		wait $fpid
	else
		kill -USR1 $fpid
		wait $fpid || fail "-p, PMU: the fixture failed: $(cat pair.ready)"
		wait $cp || fail "-p, PMU: pmeclock failed: $(cat pmu.err)"
		is "-p, PMU: windows" "$(windows pmu.err)" $R
		is "-p, PMU: calls of tick() in the windows" \
		    "$(counts pmu.PMS break:tick | count tick)" $((3 * R))
		is "-p, PMU: samples of out_work()" \
		    "$(counts pmu.PMS cpu-clock | count out_work)" 0
	fi
fi

# -a: every process running the file is gated, the fixture started
# before pmeclock, let go by the command; the others are outside.
exe=$PWD/startstop
if start region; then
	"$pmeclock" -a -e "cpu-clock/1ms,break:$exe:tick" --start \
	    "$exe:region" --stop "$exe:region" -d 250s -o sys.PMS -- sh -c \
	    "kill -USR1 $fpid; while kill -0 $fpid 2>/dev/null; do sleep 0.05; done" \
	    2>sys.err || { fail "-a: pmeclock failed: $(cat sys.err)"; kill $fpid; }
	wait $fpid || fail "-a: the fixture failed"
	mv region.truth sys.truth
	gated sys "-a" $(((T + 1) * R)) "break:$exe:tick"
	"$pmehisto" -q -x -V measures:process -T csv sys.PMS >sys.csv ||
	    fail "-a: pmehisto -V measures:process failed"
	# "startstop pid N",count,...: every process with samples.
	is "-a: the processes written" "$(awk -F'",' 'NR > 1 &&
	    $2 + 0 > 0 { print $1 }' sys.csv | tr -d '"')" \
	    "startstop pid $fpid"
fi

# ---------------------------------------------------------- refusals

expect "-a with no command, a routine with no file" 1 "$pmeclock" -a \
    --start region --stop region -d 1s -o no.PMS
is "-a with no command: its message" "$(cat err)" \
    "pmeclock: '--start region': -a with no command: no program to break in; name its file (--start /path/to/program:region)"
for o in --count "-e io" -w; do
	# shellcheck disable=SC2086 # the option and its argument
	expect "-p $o" 2 "$pmeclock" $o --start region --stop region \
	    -o no.PMS -p $$
	is "-p $o: its message" "$(cat err)" \
	    "pmeclock: --start/--stop: not with $o"
done
[ -e no.PMS ] && fail "refusals: no.PMS written"

finish
