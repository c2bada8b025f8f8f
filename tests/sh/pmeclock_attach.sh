#!/bin/bash
#
# pmeclock_attach.sh - pmeclock -p: attaching to a running process.  The
# attachee fixture (tests/fixtures/clock/attachee.c) has a thread that
# exists before the attach and one created after it; each spins in a
# routine of its own for a given CPU time and the fixture writes the CPU
# time each routine took, the truth of the run.  Checks: the shares of
# the three routines (pmehisto's quick path, which finds the executable
# from the mappings read from /proc) against the truth, within
#
#     1 + 4.5 * 100 * sqrt(p (1 - p) / N)
#
# percentage points for a routine of true share p from N samples (4.5
# standard deviations, and a point for what is not sampling noise, as in
# accuracy.sh); the process's exit ends the run; -d ends it, with no more
# samples than the wall time it took allows; SIGTERM ends it with the file
# closed; and the errors: no such process, another user's process (run as
# nobody when the test runs as root, else pid 1 when it is another
# user's; skipped with the reason otherwise), the timer and itimer methods
# (which cannot attach), and -d or a command used wrongly with -p.
# Skipped when perf_event_open is refused here.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"

if ! $pmeclock -q -m perf -o probe -- true 2>"$tmp/err"; then
	echo "perf_event_open refused here: $(head -n 1 "$tmp/err")"
	exit 77
fi
build_more attachee
if ! $cc -fPIC -shared -o "$tmp/nomaps.so" "$fx/nomaps.c" -ldl \
    >"$tmp/build.log" 2>&1; then
	echo "$name: cannot build nomaps:" >&2
	cat "$tmp/build.log" >&2
	exit 1
fi
# Whatever a failed check leaves running (attachee spins until killed).
trap 'kill $(jobs -p) 2>/dev/null' EXIT

# start_attachee ARGS...: runs ./attachee ARGS in the background, its pid
# in apid once it has printed it.
starts=0
start_attachee() {
	local i
	starts=$((starts + 1))
	./attachee "$@" >"apid.$starts" &
	apid=
	for i in $(seq 300); do
		apid=$(head -n 1 "apid.$starts" 2>/dev/null)
		[ -n "$apid" ] && return 0
		sleep 0.05
	done
	fail "attachee did not start"
	return 1
}

# attached ERRFILE: waits until pmeclock -v says it has attached.
attached() {
	local i
	for i in $(seq 600); do
		grep -q "attached to" "$1" && return 0
		sleep 0.05
	done
	fail "pmeclock did not attach: $(cat "$1")"
	return 1
}

ms() {
	echo $(($(date +%s%N) / 1000000))
}

# --- a thread before the attach, one after; the process's exit ends it.
start_attachee truth.txt 300 600 450 || finish
# shellcheck disable=SC2086 # pmeclock may carry a valgrind prefix
$pmeclock -v -F 1000 -p "$apid" -o att >att.out 2>att.err &
clock=$!
attached att.err
kill -USR1 "$apid"
# The fixture ends after about 1.4 s of CPU time; pmeclock must follow.
( sleep 60; kill "$clock" 2>/dev/null ) &
watchdog=$!
wait "$apid" || fail "attachee failed"
wait "$clock"
st=$?
kill "$watchdog" 2>/dev/null
wait "$watchdog" 2>/dev/null
[ "$st" = 0 ] || fail "exit ends the run: pmeclock exit status $st, not 0" \
    "(killed by the watchdog after 60 s?): $(cat att.err)"
grep -q "attached to '\./attachee' (pid $apid, 2 threads)" att.err ||
    fail "attach message: $(head -n 1 att.err)"
stat att.PMS
has "attach: the command line" "^thread exec $apid $apid attachee"
has "attach: the main mapping" "^map $apid attachee xm$"
has "attach: closed" "^close samples"
# It ended; pmeclock, not its parent, cannot know how.
has "attach: status not known" "^close .* status -1 "
# delta's thread was created after the attach: a fork record and samples.
[ "$(grep -c "^thread fork $apid " "$tmp/stat")" -ge 1 ] ||
    fail "attach: no fork record of the thread created after the attach"
"$pmehisto" -q -x -B att.pme -o att.HIS -T csv att.PMS >att.csv ||
    fail "pmehisto -x on the attached run failed"
# shellcheck disable=SC2016
awk -v truth="$(tr '\n' ' ' <truth.txt)" -F, '
	BEGIN { n = split(truth, f, " ")
		for (i = 1; i < n; i += 2) { t[f[i]] = f[i + 1]; tt += f[i + 1] } }
	NR > 1 && ($2 in t) { c[$2] = $7; nc += $7 }
	END {
		if (nc < 300) { printf "attach: too few samples (%d)\n", nc; exit 1 }
		line = sprintf("attach (%d samples):", nc)
		bad = 0
		for (r in t) {
			p = t[r] / tt
			tol = 1 + 450 * sqrt(p * (1 - p) / nc)
			d = 100 * (c[r] / nc - p)
			line = line sprintf(" %s %.1f/%.1f", r, 100 * c[r] / nc, 100 * p)
			if (d > tol || -d > tol) {
				bad = 1
				line = line sprintf(" (off by more than %.1f)", tol)
			}
		}
		print line
		exit bad
	}' att.csv || fail "attach: shares against the truth"

# --- -d ends the run; the process runs on.
start_attachee - || finish
t0=$(ms)
run 0 "-d" -F 1000 -d 0.5 -p "$apid" -o dur
t1=$(ms)
if kill -0 "$apid" 2>/dev/null; then
	kill "$apid"
	wait "$apid" 2>/dev/null
else
	fail "-d: the process did not survive the attach"
fi
between "-d: the run's wall time (ms)" $((t1 - t0)) 500 30000
stat dur.PMS
has "-d: closed" "^close samples"
# Still running when the attach ended: said so, no exit status.
has "-d: still running" "^close .* status -2 "
"$pmehisto" -q -x -B dur.pme -o dur.HIS dur.PMS >dur.txt ||
    fail "-d: pmehisto failed"
grep -q "^Exit status: *none: still running when the recording ended$" \
    dur.txt || fail "-d: summary: $(grep -i status dur.txt)"
# One thread at 1 kHz for at most the wall time pmeclock took.
between "-d: samples" "$(field samples)" 1 $(((t1 - t0) + 10))

# --- an attach that fails once the file is open (here /proc/PID/maps
# refused, as when the process ends as pmeclock attaches) exits 1 and
# leaves the previous file.  (Without valgrind, which the preload would
# go into; with ASan, which wants to be first, told not to check.)
start_attachee - || finish
cp dur.PMS prev.PMS
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
    LD_PRELOAD=$tmp/nomaps.so "${PMECLOCK:-$top/sample/pmeclock}" -d 1 \
    -p "$apid" -o prev >out 2>err </dev/null
st=$?
kill "$apid"
wait "$apid" 2>/dev/null
[ "$st" = 1 ] || fail "maps refused: exit status $st, not 1: $(cat err)"
grep -qx "pmeclock: '/proc/$apid/maps': Permission denied" err ||
    fail "maps refused: message: $(cat err)"
cmp -s prev.PMS dur.PMS || fail "maps refused: the previous file replaced"
[ -z "$(ls -A | grep -v -x -e '[^.].*')" ] ||
    fail "maps refused: left $(ls -A | grep '^\.')"

# --- SIGTERM ends the run, the file closed.
start_attachee - || finish
# shellcheck disable=SC2086
$pmeclock -v -p "$apid" -o term >term.out 2>term.err &
clock=$!
attached term.err
sleep 0.3
kill -TERM "$clock"
wait "$clock"
st=$?
[ "$st" = 0 ] || fail "SIGTERM: exit status $st, not 0: $(cat term.err)"
kill -0 "$apid" 2>/dev/null || fail "SIGTERM: the process did not survive"
kill "$apid"
wait "$apid" 2>/dev/null
stat term.PMS
has "SIGTERM: closed" "^close samples"

# --- errors.
true &
gone=$!
wait "$gone"
run 1 "no such process" -p "$gone" -o none
grep -qx "pmeclock: -p $gone: no such process" err ||
    fail "no such process: message: $(cat err)"
[ -e none.PMS ] && fail "no such process: a sample file was left"
for m in timer itimer; do
	run 2 "-m $m -p" -m "$m" -p $$ -o none
	grep -q "^pmeclock: -p: the $m method cannot attach to a running process: its runtime is preloaded" err ||
	    fail "-m $m -p: message: $(cat err)"
done
run 2 "-p with a command" -p $$ -o none -- true
grep -qx "pmeclock: -p attaches to a running process: no command with it" \
    err || fail "-p with a command: message: $(cat err)"
run 2 "-d without -p" -d 1 -o none -- true
run 2 "-d 0" -d 0 -p $$ -o none
run 2 "-p 0" -p 0 -o none

# Another user's process: as nobody on ours when root, else on pid 1.
other= who=
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
    setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	start_attachee - || finish
	other=$apid
	who="setpriv --reuid=65534 --regid=65534 --clear-groups"
elif [ "$(id -u)" != 0 ] && [ "$(command stat -c %u /proc/1)" != "$(id -u)" ]; then
	other=1
fi
if [ -n "$other" ]; then
	# shellcheck disable=SC2086
	$who $pmeclock -p "$other" -o - >/dev/null 2>err
	st=$?
	[ "$st" = 1 ] || fail "another user's process: exit status $st, not 1"
	grep -q "^pmeclock: -p $other: not permitted: the process is another user's (uid [0-9]*), and perf_event_open refuses" err ||
	    fail "another user's process: message: $(cat err)"
	[ "$other" = 1 ] || { kill "$other"; wait "$other" 2>/dev/null; }
else
	echo "another user's process: not checked (not root with setpriv, and pid 1 is ours)"
fi

finish
