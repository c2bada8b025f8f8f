#!/bin/bash
#
# pmeclock_write.sh - how the sample file is written, by pmeclock (perf
# and timer methods) and by libpmeclock linked into a program: a symbolic
# link at the name is replaced, never followed; a full disk (a file size
# limit: pmeclock ignores SIGXFSZ, and its writes fail with EFBIG; the
# program linked with libpmeclock is run with it ignored) leaves the
# previous file byte for byte and the command run to its end; a launcher killed leaves the file cut short under its
# name at once; no hidden temporary file is left behind.  The same on a
# file system that cannot exchange two names (noexchange), where the file
# is renamed into place at the end or, after a kill, by pmeclock's guard.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"

lib=$top/sample
if ! $cc -g -O1 -I "$lib" -o linked "$fx/linked.c" -L "$lib" \
    -lpmeclock >"$tmp/build.log" 2>&1 ||
    ! $cc -o noexchange "$fx/noexchange.c" >>"$tmp/build.log" 2>&1; then
	fail "cannot build the fixtures: $(cat "$tmp/build.log")"
	finish
fi
export LD_LIBRARY_PATH=$lib
methods=timer
if $pmeclock -q -m perf -o probe -- true 2>/dev/null; then
	methods="perf timer"
else
	echo "perf_event_open refused here: the perf method is not tested"
fi

# fresh DIR: an empty directory DIR, made the current one.
fresh() {
	cd "$tmp" && rm -rf "$1" && mkdir "$1" && cd "$1" || exit 1
}

# hidden WHAT: no hidden file (a temporary name) in the current directory.
hidden() {
	local h
	h=$(ls -A | grep '^\.')
	[ -z "$h" ] || fail "$1: left behind: $h"
}

# eventually WHAT COMMAND...: COMMAND succeeds within 10 s.
eventually() {
	local what=$1 i
	shift
	for i in $(seq 100); do
		"$@" && return 0
		sleep 0.1
	done
	fail "$what: still not so after 10 s"
}

no_hidden() {
	! ls -A | grep -q '^\.'
}

# previous NAME: a short run's file NAME.PMS, kept as NAME.keep.
previous() {
	$pmeclock -q -o "$1" -- "$tmp/spin" cpu 50 >/dev/null 2>&1 ||
	    fail "previous $1: exit status $?"
	cp "$1.PMS" "$1.keep"
}

# full WANT-STATUS KiB WHAT COMMAND...: COMMAND under a file size limit of
# KiB (SIGXFSZ as the shell leaves it, its default action killing; with
# XFSZ=ignore set, ignored), output in $tmp/out and $tmp/err (through a
# pipe, which the limit does not bound).
full() {
	local want=$1 kib=$2 what=$3 got
	shift 3
	(ulimit -f "$kib" && { [ "${XFSZ:-}" != ignore ] || trap '' XFSZ; } &&
	    exec "$@") 2>&1 >"$tmp/out" </dev/null | cat >"$tmp/err"
	got=${PIPESTATUS[0]}
	[ "$got" = "$want" ] ||
	    fail "$what: exit status $got, not $want: $(head -c 600 "$tmp/err")"
}

# --- a symbolic link planted at the name -----------------------------------

for m in $methods; do
	fresh "link-$m"
	echo "not a sample file" >victim
	cp victim victim.keep
	ln -s victim PMEFILE.PMS
	ln -s created dangling.PMS
	run 0 "link $m" -q -m "$m" -- "$tmp/spin" cpu 200
	run 0 "dangling link $m" -q -m "$m" -o dangling -- "$tmp/spin" cpu 50
	cmp -s victim victim.keep || fail "link $m: the victim was written"
	[ ! -e created ] || fail "dangling link $m: its target was created"
	for f in PMEFILE.PMS dangling.PMS; do
		[ -f $f ] && [ ! -L $f ] ||
		    fail "link $m: $f is not a regular file"
	done
	stat PMEFILE.PMS
	has "link $m: closed" "^close samples "
	# This test is about the file, not the counts (pmeclock_timer and
	# pmeclock_signals hold those to the CPU time measured in the same
	# run): some samples, not more than 200 ms can give.  Beside two
	# busy loops, a second suite and a CI run, the timer method gave 8
	# for 20 intervals (its CPU-clock signals coalesce under load).
	between "link $m: samples of 200 ms" "$(field samples)" 1 30
	hidden "link $m"
done

fresh link-linked
echo "not a sample file" >victim
cp victim victim.keep
ln -s victim lk.PMS
../linked lk 300 >"$tmp/out" 2>"$tmp/err" || fail "linked: exit status $?"
[ ! -s "$tmp/err" ] || fail "linked: said $(cat "$tmp/err")"
cmp -s victim victim.keep || fail "link linked: the victim was written"
[ -f lk.PMS ] && [ ! -L lk.PMS ] || fail "link linked: not a regular file"
stat lk.PMS
has "link linked: closed" "^close samples "
between "link linked: samples of 300 ms" "$(field sym linked inside)" 1 36
hidden "link linked"

# --- a full disk -----------------------------------------------------------

# 1 KiB holds the header, not the first second's samples at 1 kHz.
for m in $methods; do
	fresh "full-$m"
	previous old
	full 1 1 "full $m" $pmeclock -q -m "$m" -F 1000 -o old -- \
	    "$tmp/spin" cpu 2000
	grep -q "^pmeclock: 'old.PMS': write: File too large$" "$tmp/err" ||
	    fail "full $m: not said: $(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/err")" = 1 ] ||
	    fail "full $m: said more than once: $(cat "$tmp/err")"
	cmp -s old.PMS old.keep || fail "full $m: the previous file changed"
	full 1 1 "full $m, no previous" $pmeclock -q -m "$m" -F 1000 \
	    -o new -- "$tmp/spin" cpu 2000
	[ ! -e new.PMS ] || fail "full $m: a failed new.PMS was left"
	rm old.keep
	hidden "full $m"
done

# Not even the header fits: the command does not run.
fresh full-header
previous old
full 1 0 "full at the header" $pmeclock -q -o old -- sh -c 'touch ran'
grep -q "^pmeclock: 'old.PMS': .*File too large$" "$tmp/err" ||
    fail "full at the header: not said: $(cat "$tmp/err")"
[ ! -e ran ] || fail "full at the header: the command ran"
cmp -s old.PMS old.keep || fail "full at the header: the previous changed"
rm old.keep
hidden "full at the header"

# The linked runtime says so, when a flush fails while the program runs
# (and stops sampling; the program goes on) or at pme_exit: which comes
# first depends on how many bytes the first second's samples take.
fresh full-linked
previous lk
XFSZ=ignore full 0 1 "full linked" ../linked lk 2000
grep -q -E "^libpmeclock: 'lk.PMS': write: File too large(: sampling stopped)?$" \
    "$tmp/err" || fail "full linked: not said: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/err")" = 1 ] ||
    fail "full linked: said more than once: $(cat "$tmp/err")"
cmp -s lk.PMS lk.keep || fail "full linked: the previous file changed"
rm lk.keep
hidden "full linked"

# --- killed, terminated ----------------------------------------------------

# samples FILE: the samples in FILE, 0 if it cannot be read.
samples() {
	"$tmp/pmsstat" "$1" 2>/dev/null |
	    awk '$1 == "samples" { n = $2 } END { print n + 0 }'
}

# new_samples FILE: FILE is not FILE.keep and holds samples (the first
# flush, after 1 s).
new_samples() {
	! cmp -s "$1" "${1%.PMS}.keep" && [ "$(samples "$1")" -gt 0 ]
}

# killed PID: SIGKILL to pmeclock PID and its command.
killed() {
	local spin
	spin=$(pgrep -P "$1" -x spin)
	kill -KILL "$1"
	[ -n "$spin" ] && kill -KILL $spin
	wait "$1" 2>/dev/null
}

# SIGKILL: at once, the name is the killed run's file with what it had,
# and the previous file, set aside, goes with pmeclock's guard.  SIGTERM:
# passed on, the file closed, the previous one removed by pmeclock.
for m in $methods; do
	for sig in KILL TERM; do
		fresh "$sig-$m"
		previous cut
		$pmeclock -q -m "$m" -o cut -- "$tmp/spin" forever &
		pid=$!
		eventually "$sig $m: samples written" new_samples cut.PMS
		n=$(samples cut.PMS)
		if [ $sig = KILL ]; then
			killed $pid
			stat cut.PMS
			has "$sig $m: not closed" "^not closed"
			eventually "$sig $m: previous file removed" no_hidden
		else
			kill -TERM $pid
			wait $pid
			got=$?
			[ "$got" = 143 ] ||
			    fail "$sig $m: exit status $got, not 143"
			stat cut.PMS
			has "$sig $m: closed" "^close .* status 143 "
			hidden "$sig $m"
		fi
		between "$sig $m: samples kept" "$(field samples)" "$n" 100000
		rm cut.keep
	done
done

# A program killed in its region leaves its file cut short under the name
# and the previous one under a hidden name beside it (libpmeclock(3)).
fresh kill-linked
previous lk
../linked lk 0 &
pid=$!
eventually "kill linked: samples written" new_samples lk.PMS
kill -KILL $pid
wait $pid 2>/dev/null
stat lk.PMS
has "kill linked: not closed" "^not closed"
between "kill linked: samples kept" "$(field samples)" 1 100000
n=$(ls -A | grep -c '^\.lk\.PMS\.')
[ "$n" = 1 ] || fail "kill linked: $n hidden files, not 1: $(ls -A)"
cmp -s .lk.PMS.* lk.keep || fail "kill linked: the previous file is not kept"

# A normal run: no hidden file.
fresh normal
previous lk
../linked lk 100 || fail "normal linked: exit status $?"
cmp -s lk.PMS lk.keep && fail "normal linked: lk.PMS not replaced"
rm lk.keep
hidden "normal"

# --- standard output and a FIFO are written directly -----------------------

fresh fifo
mkfifo fifo.PMS
cat fifo.PMS >got &
pid=$!
run 0 "fifo" -q -o fifo -- "$tmp/spin" cpu 100
wait $pid
[ -p fifo.PMS ] || fail "fifo: no longer a FIFO"
stat got
has "fifo: closed" "^close samples "
hidden "fifo"

# --- a file system that cannot exchange two names --------------------------

for m in $methods; do
	fresh "noexchange-$m"
	previous old
	run 0 "noexchange $m" -q -m "$m" -o old -- "$tmp/spin" cpu 100
	stat old.PMS
	has "noexchange $m: closed" "^close samples "
	hidden "noexchange $m"
	cp old.PMS old.keep
	full 1 1 "noexchange full $m" ../noexchange $pmeclock -q -m "$m" \
	    -F 1000 -o old -- "$tmp/spin" cpu 2000
	cmp -s old.PMS old.keep || fail "noexchange full $m: previous changed"
	hidden "noexchange full $m"
	# Killed: the file is written under a hidden name, which the guard
	# renames into place once pmeclock has gone.
	../noexchange $pmeclock -q -m "$m" -o old -- "$tmp/spin" forever &
	pid=$!
	eventually "noexchange kill $m: samples written" \
	    eval 'new_samples .old.PMS.*'
	n=$(eval 'samples .old.PMS.*')
	killed $pid
	eventually "noexchange kill $m: renamed into place" no_hidden
	stat old.PMS
	has "noexchange kill $m: not closed" "^not closed"
	between "noexchange kill $m: samples" "$(field samples)" "$n" 100000
	rm old.keep
done

# The runtime renames at pme_exit; abandoning a writer (t_sample's abort,
# as when killed) puts the file cut short in place, as without noexchange.
fresh noexchange-linked
previous lk
../noexchange ../linked lk 100 || fail "noexchange linked: exit status $?"
stat lk.PMS
has "noexchange linked: closed" "^close samples "
tsample=$top/tests/unit/t_sample
for x in ../noexchange ""; do
	previous cut
	$x "$tsample" write cut.PMS <"$top/tests/histo/cut.smp" ||
	    fail "$x t_sample abort: exit status $?"
	stat cut.PMS
	has "$x t_sample abort: not closed" "^not closed"
	has "$x t_sample abort: samples" "^samples 15 "
	rm cut.keep
done
hidden "noexchange linked"

finish
