# measures.sh - helpers of the tests of measures (pmeclock -e, pmehisto
# -M): sourced after common.sh.

# counts FILE.PMS MEASURE: "routine count" lines of the measure, -x.
counts() {
	"$pmehisto" -q -x -C 0 -M "$2" -T csv -o /dev/null -B /dev/null "$1" |
	    csv_counts | awk '$2 > 0'
}

# count ROUTINE <counts: the routine's count, 0 when absent.
count() {
	awk -v r="$1" '$1 == r { n = $2 } END { print n + 0 }'
}

# is WHAT GOT WANT
is() {
	[ "$2" = "$3" ] || fail "$1: $2, not $3"
}

# need_uprobes PMECLOCK-ARGUMENT...: skips unless this kernel has the
# uprobe PMU and pmeclock with these arguments (a break on a fixture)
# runs; fail()s and finishes when it fails for another reason.
need_uprobes() {
	[ -r /sys/bus/event_source/devices/uprobe/type ] ||
	    skip "no uprobe PMU here (no /sys/bus/event_source/devices/uprobe)"
	"$pmeclock" -q -o "$tmp/probe.PMS" "$@" >/dev/null 2>"$tmp/probe.err" &&
	    return
	grep -q perf_event_open "$tmp/probe.err" ||
	    { fail "pmeclock $*: $(cat "$tmp/probe.err")"; finish; }
	skip "perf_event_open cannot place a uprobe here: $(cat "$tmp/probe.err")"
}

# build_ev: the events fixture (tests/fixtures/events/events.c) built
# into ./ev; fail()s and finishes when it cannot be.
build_ev() {
	gcc -O2 -g -pthread -o ev "$top/tests/fixtures/events/events.c" ||
	    { fail "cannot build the fixture"; finish; }
}

# row FILE.csv PREFIX COLUMN: the count in COLUMN of the row of a
# pmehisto -V measures CSV table whose name starts with PREFIX (0 when
# there is none).
row() {
	awk -F'",' -v p="\"$2" -v c="$3" 'index($0, p) == 1 {
	    split($2, v, ","); n = v[c - 1] } END { print n + 0 }' "$1"
}
