#!/bin/bash
#
# pmeclock_two.sh - two runs of pmeclock writing one name at once: the
# later one finds the file busy (its writer holds a lock on it), says so,
# exits 1 without running its command, and the earlier run keeps its
# file; once that run has ended, the name is free again.  Before, the
# later run set the earlier run's growing file aside as "the previous
# file" and removed it when it ended, silently.  No timing: the first
# run's command waits for a file the test makes after the second run.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"

methods=timer
if $pmeclock -q -m perf -o probe -- true 2>/dev/null; then
	methods="perf timer"
else
	echo "perf_event_open refused here: the perf method is not tested"
fi

for m in $methods; do
	cd "$tmp" && rm -rf "$m" && mkdir "$m" && cd "$m" || exit 1
	# Some CPU time first, so that the file has samples to show.
	$pmeclock -q -m "$m" -F 1000 -o x -- sh -c 'i=0
	    while [ $i -lt 50000 ]; do i=$((i + 1)); done
	    while [ ! -e go ]; do sleep 0.01; done; exit 7' &
	first=$!
	n=0
	while [ ! -e x.PMS ] && [ $n -lt 3000 ]; do
		sleep 0.01
		n=$((n + 1))
	done
	[ -e x.PMS ] || fail "$m: the first run's x.PMS never appeared"
	$pmeclock -q -m "$m" -o x -- touch ran2 >out 2>err
	rc=$?
	touch go
	wait $first
	rc1=$?
	[ "$rc" = 1 ] || fail "$m: the second run: exit $rc, not 1"
	[ "$(cat err)" = "pmeclock: 'x.PMS': another run is writing it now: give this run a name of its own" ] ||
	    fail "$m: the second run said: $(cat err)"
	[ -e ran2 ] && fail "$m: the second run's command ran"
	[ "$rc1" = 7 ] || fail "$m: the first run: exit $rc1, not 7"
	"$pmehisto" -q -x x.PMS >his 2>herr ||
	    fail "$m: the first run's x.PMS unreadable: $(cat herr)"
	grep -q "^Exit status: *7" his ||
	    fail "$m: x.PMS is not the first run's (exit status 7): $(grep -i exit his)"
	[ -z "$(ls -A | grep '^\.')" ] || fail "$m: hidden files left: $(ls -A)"
	# The name is free again.
	$pmeclock -q -m "$m" -o x -- true || fail "$m: a third run refused"
done
finish
