#!/bin/bash
#
# stats_hostile.sh - stats(1) on inputs a hostile or unlucky user gives
# (issue 23, items 21 and 24), each bounded by what the input holds and
# checked by counting, never by timing:
#  - an event file declaring 16,777,220 processors, two of which have
#    events: -T json names two threads (it named every processor
#    declared: 1.37 GB from 7 KB), and its output is whole JSON;
#  - -T csv: a processor's name with a comma or a quote is one field,
#    quoted as RFC 4180 says; a plain name is left as it was;
#  - a sample file with no samples: "no samples", exit 1, not a message
#    that blames the graph file (and no null pointer under UBSan);
#  - GraphfileTemp that cannot be written (a directory of that name; a
#    directory stats cannot write when not run as root): the graphs are
#    drawn all the same, with a warning;
#  - an endless line (/dev/zero as the graph file) is refused with
#    "file:line: line longer than 1048576 bytes", under a memory limit.
# (unit/t_gfile_work counts the parser's work on 32,000 graphs.)
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

stats=$top/stats/stats
need "$stats"
cd "$tmp" || exit 1
sanitize=$(sed -n 's/^SANITIZE_FLAGS = *//p' "$top/config.mk" 2>/dev/null)
cat >ev.c <<'C'
/* ev many|comma: processors 0 and 1 busy then idle; "many" declares
 * 16,777,220 processors, "comma" names processor 0 'a,b' and 1 'say
 * "hi"'. */
#include <string.h>
#include "pme_event.h"
int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "many") == 0)
		pme_event_processors(16777220);
	else {
		pme_event_processors(3);
		pme_event_proc_name(0, "a,b");
		pme_event_proc_name(1, "say \"hi\"");
		GraphSpec("StateGraph mine (x, 0, NO_OF_PROCESSORS - 1) "
		    "{ menu <- \"mine\", action { EV_STATE: VALUE(x) } }");
	}
	for (unsigned p = 0; p < 3; p++) {
		stateEvent(PME_STATE_BUSY, p, 10 * p, S_EVS_on);
		stateEvent(PME_STATE_BUSY, p, 10 * p + 50, S_EVS_off);
	}
	return 0;
}
C
if ! ${CC:-cc} -std=c11 -D_GNU_SOURCE -g $sanitize -I"$top/lib" -o ev ev.c \
    "$top/lib/libpme.a" -lz -lpthread; then
	fail "cannot build the fixture"
	finish
fi

# --- JSON of a file declaring 2^24 + 4 processors ---------------------------
mkdir many && (cd many && ../ev many) || fail "ev many: exit $?"
# Cut at 1 MB: the output that named every processor runs to 1.37 GB.
"$stats" -f many/events.sim -T json 2>err | head -c 1000000 >j.json
n=$(grep -o '"thread_name"' j.json | wc -l)
[ "$n" = 3 ] || fail "json: $n thread names, not 3 (the processors with events)"
tail -c 4 j.json | grep -q ']}' || fail "json: not whole: $(tail -c 80 j.json)"
if command -v python3 >/dev/null; then
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' j.json ||
	    fail "json: not valid JSON"
fi

# --- CSV: names quoted as RFC 4180 says -------------------------------------
mkdir comma && cd comma || exit 1
../ev comma || fail "ev comma: exit $?"
"$stats" -T csv states >csv 2>err || fail "csv: exit $?: $(cat err)"
grep -q '^"a,b",0,50,' csv || fail "csv: 'a,b' not quoted: $(cat csv)"
grep -q '^"say ""hi""",10,60,' csv ||
    fail "csv: 'say \"hi\"' not quoted: $(cat csv)"
grep -q '^2,20,70,' csv || fail "csv: a plain name changed: $(cat csv)"
if command -v python3 >/dev/null; then
	python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert {len(r) for r in rows} == {5}, rows' csv || fail "csv: rows not of 5 fields"
fi
cd .. || exit 1

# --- a sample file with no samples ------------------------------------------
printf 'header method=test event=cpu-clock period=1000000 pid=1 argv=./x\nclose\n' |
    "$tsample" write none.PMS || fail "t_sample write"
"$stats" -f none.PMS -T text -o out.txt >out 2>err
rc=$?
[ "$rc" = 1 ] || fail "no samples: exit $rc, not 1"
[ "$(cat err)" = "stats: 'none.PMS': no samples in the sample file: nothing to draw" ] ||
    fail "no samples: said: $(cat err)"
[ ! -e out.txt ] || fail "no samples: wrote out.txt"

# --- GraphfileTemp cannot be written -------------------------------------
mkdir ro ro/GraphfileTemp && cp comma/events.sim ro/ || exit 1
cd ro || exit 1
"$stats" -T text states mine >out 2>err || fail "GraphfileTemp: exit $?: $(cat err)"
grep -q 'a,b' out || fail "GraphfileTemp: nothing drawn: $(cat out)"
grep -q "^stats: .*GraphfileTemp.*: the merged graphs are drawn, not kept$" err ||
    fail "GraphfileTemp: said: $(cat err)"
rmdir GraphfileTemp
if [ "$(id -u)" != 0 ]; then
	chmod a-w .
	"$stats" -T text states mine >out 2>err ||
	    fail "unwritable directory: exit $?: $(cat err)"
	grep -q 'a,b' out || fail "unwritable directory: nothing drawn: $(cat out)"
	chmod u+w .
fi
"$stats" -T text states mine >out 2>err || fail "GraphfileTemp: exit $?: $(cat err)"
grep -q '^StateGraph mine' GraphfileTemp || fail "GraphfileTemp: not written"
cd .. || exit 1

# --- an endless line --------------------------------------------------------
# The limit keeps a fault from taking the machine's memory; not under
# the sanitizers, whose shadow memory it would refuse.
limit=unlimited
[ -n "$sanitize${PME_VALGRIND:-}" ] || limit=400000
( ulimit -v $limit; exec ${PME_VALGRIND:-} "$stats" -g /dev/fd/3 \
    -f comma/events.sim -T text -o out.txt ) >out 2>err 3</dev/zero
rc=$?
[ "$rc" = 1 ] || fail "/dev/zero: exit $rc, not 1: $(head -c 300 err)"
[ "$(cat err)" = "stats: /dev/fd/3:1: line longer than 1048576 bytes" ] ||
    fail "/dev/zero: said: $(head -c 300 err)"

finish
