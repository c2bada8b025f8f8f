#!/bin/bash
#
# stats.sh - stats(1) on event files the fixture tests/fixtures/stats/sim.c
# writes through the event API:
#  - a run small enough to check by hand (sim tiny): its text chart and
#    CSV against tests/stats/tiny.text and tiny.csv, whose every cell and
#    percentage was worked out from the events (the header of sim.c);
#  - a larger run: each legend's share of time equals the share the CSV's
#    segments give (two independent passes over the events), the
#    specification the program stored is merged into GraphfileTemp with
#    the Graphfile's descriptors winning, scale and format applied;
#  - bad graph files and specifications: a message with file and line,
#    exit 1, no output file; an event file cut short is drawn with a
#    warning;
#  - the JSON in Chrome's trace event format: valid JSON, and parsed by
#    Chrome DevTools' own trace engine (the npm package
#    @paulirish/trace_engine) into the threads and states expected, when
#    npm can install it.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

stats=$top/stats/stats
need "$stats"
cd "$tmp" || exit 1
sanitize=$(sed -n 's/^SANITIZE_FLAGS = *//p' "$top/config.mk" 2>/dev/null)
cc_libpme sim "$top/tests/fixtures/stats/sim.c" || finish

# --- by hand -----------------------------------------------------------
mkdir tiny && cd tiny || exit 1
../sim tiny || fail "sim tiny: exit $?"
"$stats" -T text -w 10 states utilization >text 2>err ||
    fail "text: exit $?: $(cat err)"
diff -u "$top/tests/stats/tiny.text" text >diff || fail "text:
$(cat diff)"
"$stats" -T csv states >csv 2>err || fail "csv: exit $?: $(cat err)"
diff -u "$top/tests/stats/tiny.csv" csv >diff || fail "csv: $(cat diff)"
# Not a terminal: text is the default, to standard output.
"$stats" states </dev/null >plain 2>err || fail "default: exit $?"
grep -q '^0   |' plain || fail "the default output is not the text chart"
[ ! -e GraphfileTemp ] || fail "GraphfileTemp written without specifications"
# PostScript's legend cuts a label longer than its column (28
# characters) and marks the cut with '~'; one that fits is whole
# (issue 23 item 8: the cut was unmarked).
cat >long.graph <<'EOF'
StateGraph long (x, 0, NO_OF_PROCESSORS - 1) {
	action { EV_STATE: VALUE(x) }
	map { 0: black "Idle state of exactly 28 ch", 1: gray "Busy with a very long state name indeed" }
}
EOF
"$stats" -g long.graph -T ps -o long.ps long 2>err || fail "long: $(cat err)"
grep -q '(Busy with a very long state~)' long.ps ||
    fail "long: the cut label: $(grep -o '(Busy[^)]*)' long.ps)"
grep -q '(Idle state of exactly 28 ch)' long.ps ||
    fail "long: the label that fits: $(grep -o '(Idle[^)]*)' long.ps)"
cd .. || exit 1

# --- a larger run --------------------------------------------------------
mkdir big && cd big || exit 1
../sim 500 || fail "sim 500: exit $?"
"$stats" -n -T text -w 70 states >text 2>err || fail "states: $(cat err)"
"$stats" -T csv states >csv 2>err || fail "csv: $(cat err)"
# The legend's time per state against the CSV's segments.
# A CSV line: row,start,end,value,"label" (the label may hold commas).
awk -F, 'NR > 1 { l = $0; for (i = 0; i < 4; i++) sub(/^[^,]*,/, "", l)
    gsub(/"/, "", l); t[l] += $3 - $2 }
    END { for (k in t) printf "%s|%d\n", k, t[k] }' csv | sort >from_csv
sed -n '/^Legend/,$p' text |
    sed -n 's/^  .  \(.*[^ ]\)  *\([0-9][0-9,]*\)$/\1|\2/p' |
    awk -F'|' '{ gsub(/,/, "", $2) } $2 > 0 { print $1 "|" $2 }' |
    sort >from_chart
[ -s from_csv ] || fail "no segments in the CSV"
diff -u from_csv from_chart >diff || fail "legend and CSV disagree:
$(cat diff)"
[ -s GraphfileTemp ] || fail "GraphfileTemp not written"
grep -q 'accesslatency' GraphfileTemp || fail "GraphfileTemp lacks the spec"
"$stats" -g GraphfileTemp -l >list 2>err || fail "GraphfileTemp: $(cat err)"
grep -q '^ArrayGraph *accesslatency' list || fail "-l: $(cat list)"
"$stats" -T text accesslatency >lat 2>err || fail "accesslatency: $(cat err)"
grep -q '^Memory Access Latency$' lat || fail "the spec's name: $(head -1 lat)"
# scale 0.01, format %.1f: values of 1,000 to 27,000 read 10.0 to 270.0
grep -q '^  #  10\.0 - ' lat || fail "scale and format: $(grep '^  #' lat)"
grep -q 'Average value: ' lat || fail "no average value"
# The Graphfile's descriptors win over the event file's.
cat >Graphfile <<'G'
ArrayGraph accesslatency (x, 0, NO_OF_PROCESSORS - 1) {
	name <- "Mine",
	bins <- 4
}
G
"$stats" -T text accesslatency >mine 2>err || fail "merged: $(cat err)"
grep -q '^Mine$' mine || fail "the Graphfile's name lost: $(head -1 mine)"
[ "$(grep -c '^  [#=+*]  ' mine)" = 4 ] || fail "bins <- 4 not used"
grep -q '^  #  10\.0 - ' mine || fail "the spec's scale lost in the merge"
grep -q "action" GraphfileTemp || fail "merged GraphfileTemp lacks the action"
rm Graphfile
# Metrics, parameters, names: the API's, back through the file.
"$stats" -m -T csv >m.csv 2>err || fail "-m: $(cat err)"
for want in 'metric,"Utilization",0,0.875' 'array,"Per processor",2,-1.5' \
    'array,"Per processor",3,0.001' 'parameter,"CACHE_LINES",0,"64"' \
    'run,processors,0,4'; do
	grep -qxF "$want" m.csv || fail "-m: no '$want' in: $(cat m.csv)"
done
# 2000 latencies, the states' changes besides.
awk -F, '$2 == "events" { exit !($4 > 2000) }' m.csv || fail "-m: events"
grep -q '^cpu two *|' text || fail "processor 2 not named: $(grep '|' text)"
# A parameter in a graph's range.
printf 'StateGraph p (x, 1, CACHE_LINES / 32) {\n\taction { EV_STATE: VALUE(x) }\n}\n' \
    >p.graph
"$stats" -g p.graph -T text p >p.text 2>err || fail "parameter: $(cat err)"
grep -q 'rows 1 to 2$' p.text || fail "parameter range: $(sed -n 2p p.text)"
# Histometrics.
"$stats" -T csv latency >h.csv 2>err || fail "histogram: $(cat err)"
awk -F, 'NR > 1 { n += $4 } END { exit n != 2000 }' h.csv ||
    fail "the composite histogram does not hold the 2000 samples"
cat >hs <<'G'
HistoSummary all { }
G
"$stats" -g hs -T csv all >sum.csv 2>err || fail "HistoSummary: $(cat err)"
[ "$(grep -c '^"Message Latency",' sum.csv)" = 4 ] ||
    fail "HistoSummary: $(cat sum.csv)"
cd .. || exit 1

# --- bad input ------------------------------------------------------------
cd big || exit 1
printf 'StateGraph s {\n\tmenu = "x"\n}\n' >bad.graph
"$stats" -g bad.graph -o out.txt s >/dev/null 2>err
rc=$?
[ $rc = 1 ] || fail "bad graph file: exit $rc"
grep -q "^stats: bad.graph:2: " err || fail "bad graph file: $(cat err)"
[ ! -e out.txt ] || fail "an output was written for a bad graph file"
printf 'StateGraph s (x, 0, 3) {\n\taction { EV_NOPE: VALUE(x) }\n}\n' \
    >nope.graph
"$stats" -g nope.graph -o out.txt s >/dev/null 2>err
rc=$?
[ $rc = 1 ] || fail "unknown event: exit $rc"
grep -q "nope.graph:2: unknown event 'EV_NOPE'" err ||
    fail "unknown event: $(cat err)"
[ ! -e out.txt ] || fail "an output was written for an unknown event"
"$stats" -T nope >/dev/null 2>err
[ $? = 2 ] || fail "-T nope: not a usage error"
"$stats" -f nothere.sim 2>err >/dev/null
[ $? = 1 ] && grep -q "nothere.sim" err || fail "missing file: $(cat err)"
# A program's own hostile specification.
cat >hostile.c <<'C'
#include "pme_event.h"
int
main(void)
{
	GraphSpec("ArrayGraph a (x, 0, 1) {\n  format <- \"%n%s\",\n"
	    "  action { EV_STATE: VALUE(x) }\n}\n");
	stateEvent(PME_STATE_BUSY, 0, 1, S_EVS_on);
	return 0;
}
C
mkdir hostile && ${CC:-cc} -std=c11 $sanitize -I"$top/lib" -o hostile/h \
    hostile.c "$top/lib/libpme.a" -lz -lpthread || fail "cannot build hostile.c"
(cd hostile && ./h && "$stats" -T text >out 2>err)
rc=$?
[ $rc = 1 ] || fail "hostile format: exit $rc"
grep -q "spec 1):2: bad format" hostile/err || fail "hostile: $(cat hostile/err)"
# Cut short: drawn, with a warning.
size=$(stat -c %s events.sim)
head -c $((size - 10)) events.sim >cut.sim
"$stats" -f cut.sim -T text states >cut 2>err || fail "cut short: exit $?"
grep -q "cut short" err || fail "cut short: no warning: $(cat err)"
grep -q '^0 ' cut || fail "cut short: nothing drawn"
cd .. || exit 1

# --- Chrome's trace event format -------------------------------------------
cd tiny || exit 1
"$stats" -T json -o trace.json 2>err || fail "json: $(cat err)"
if command -v python3 >/dev/null; then
	python3 - trace.json <<'P' || fail "json: not what was expected"
import json, sys
t = json.load(open(sys.argv[1]))
x = [(e["tid"], e["name"], e["ts"], e["dur"]) for e in t["traceEvents"]
     if e["ph"] == "X"]
assert sorted(x) == [(0, "Busy", 0, 50), (0, "Getting lock", 50, 10),
                     (0, "Idle", 60, 40), (1, "In barrier, idle", 0, 100)], x
names = {e["tid"]: e["args"]["name"] for e in t["traceEvents"]
         if e["ph"] == "M" and e["name"] == "thread_name"}
assert names == {0: "0", 1: "1"}, names
P
fi
npmdir=$top/tests/out/npm
engine=$npmdir/node_modules/@paulirish/trace_engine/models/trace/trace.js
if [ ! -e "$engine" ] && command -v npm >/dev/null; then
	mkdir -p "$npmdir"
	(cd "$npmdir" && timeout 300 npm install --no-audit --no-fund \
	    --silent @paulirish/trace_engine@0.0.65) >/dev/null 2>&1
fi
if [ -e "$engine" ] && command -v node >/dev/null; then
	cat >check.mjs <<J
import fs from 'node:fs';
import * as Trace from '$engine';
const json = JSON.parse(fs.readFileSync('trace.json', 'utf8'));
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(json.traceEvents);
const d = model.parsedTrace().data;
for (const [, p] of d.Renderer.processes)
  for (const [tid, t] of p.threads)
    console.log(tid, t.name, t.entries.map(e => e.name + '@' + e.ts + '+' +
      e.dur).join(' '));
J
	node check.mjs >engine.out 2>engine.err || fail "trace_engine: $(cat engine.err)"
	printf '%s\n' '0 0 Busy@0+50 Getting lock@50+10 Idle@60+40' \
	    '1 1 In barrier, idle@0+100' >engine.want
	diff -u engine.want engine.out >diff || fail "trace_engine read:
$(cat diff)"
else
	echo "note: Chrome's trace engine (npm @paulirish/trace_engine) not" \
	    "installable here: the JSON was checked with python3's json only"
fi
cd .. || exit 1
finish
