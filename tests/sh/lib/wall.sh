# wall.sh - helpers of the tests of pmeclock -w: sourced after common.sh,
# in $tmp.

# waits_fixture: builds tests/fixtures/clock/waits.c into ./waits and
# skips the test where pmeclock -w cannot run (no perf method) or the
# kinds of waits cannot be known (the sched tracepoints refused, no
# tracefs); a -w refusal for another reason fails it.  Leaves probe.err,
# pmeclock's word on a probe run.
waits_fixture() {
	gcc -O1 -g -pthread -o waits "$top/tests/fixtures/clock/waits.c" ||
	    { fail "cannot build the fixture"; finish; }
	if ! "$pmeclock" -w -o probe.PMS true 2>probe.err; then
		grep -q "perf_event_open\|perf method" probe.err ||
		    { fail "pmeclock -w: $(cat probe.err)"; finish; }
		skip "pmeclock -w cannot run here: $(head -1 probe.err)"
	fi
	if grep -q "tracepoints refused\|no tracefs" probe.err; then
		skip "$(head -1 probe.err)"
	fi
}
