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

# cfi_fixture NAME [GCC-ARGUMENT...]: skips the test where pmeclock cannot
# unwind from the CFI (-G dwarf refused), else builds
# tests/fixtures/clock/NAME.c into ./NAME (-O1 -g and the arguments).
cfi_fixture() {
	local f=$1
	shift
	"$pmeclock" -G dwarf -o probe.PMS true 2>/dev/null ||
	    skip "pmeclock cannot unwind from the CFI here (-G dwarf refused)"
	gcc -O1 -g "$@" -o "$f" "$top/tests/fixtures/clock/$f.c" ||
	    { fail "cannot build $f.c"; finish; }
}
