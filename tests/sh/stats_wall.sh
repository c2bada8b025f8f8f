#!/bin/bash
#
# stats_wall - stats -f of a pmeclock -w run: the Proteus state graph of
# its threads, a row per thread coloured by state (issue 26), on the
# fixture of pmeclock_wall (tests/fixtures/clock/waits.c):
#
# - in the CSV, each thread's slices of each state sum to its column of
#   pmehisto -V states -T csv exactly (nanoseconds), every state of
#   every thread, and the rows are the table's threads;
# - the text chart's legend is the nine states, in pmehisto's order;
# - -T json is pmehisto -V timeline's, byte for byte (one writer), loads
#   with python3's json, and its slices of each state of each thread sum
#   to the same columns (to the nanosecond its microseconds print);
#   every off-CPU slice names a routine, no on-CPU one does;
# - -T ps is DSC PostScript that ghostscript renders, when installed, its
#   rows' axis labelled Thread (the rows are threads, not processors),
#   the shipped graph's title "Thread States" (an event file's "Processor
#   States");
# - -b routine draws the samples by routine (module without a bucket
#   file) as before, no state among them; -b state of a run
#   without -w and a filter with a -w run's states are errors;
# - a corrupt OFF2 chunk is an error naming the file and offset, and
#   -o's file is not written.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/wall.sh"
. "$top/tests/sh/lib/stats.sh"

need "$stats" "$pmeclock" "$pmehisto"
cd "$tmp" || exit 1
waits_fixture
"$pmeclock" -w -o w.PMS ./waits "$tmp" 2>truth.txt ||
    { fail "pmeclock -w: $(cat truth.txt)"; finish; }
"$pmehisto" -V states -T csv w.PMS >states.csv 2>err ||
    { fail "pmehisto -V states: $(cat err)"; finish; }
# "tid state ns" of every thread and state of the table, zeros too.
awk -F, 'NR == 1 { for (i = 4; i <= 12; i++) h[i] = $i; next }
    $1 !~ /^[0-9]+$/ { exit }
    { for (i = 4; i <= 12; i++) print $1, h[i], $i }' states.csv |
    sort >want
[ -s want ] || fail "no threads in -V states: $(cat states.csv)"

# The CSV's segments "tid name,start,end,value,\"state\"" summed.
"$stats" -f w.PMS -T csv states >csv 2>err || fail "stats -T csv: $(cat err)"
awk -F, 'NR == 1 { next } { split($1, t, " "); l = $5; gsub(/"/, "", l)
    s[t[1] " " l] += $3 - $2; rows[t[1]] = 1 }
    END { for (k in s) printf "%s %.0f\n", k, s[k] }' csv | sort >got.csv
awk 'FNR == NR { got[$1 " " $2] = $3; next }
    got[$1 " " $2] + 0 != $3 { print $1, $2, $3, got[$1 " " $2] + 0 }' \
    got.csv want >diff.csv
[ ! -s diff.csv ] || fail "CSV slices against -V states (key want got):" \
    "$(head -5 diff.csv)"
[ "$(cut -d' ' -f1 want | sort -u | wc -l)" = \
    "$(awk -F, 'NR > 1 { split($1, t, " "); print t[1] }' csv | sort -u |
    wc -l)" ] || fail "rows: not the threads of -V states"

"$stats" -f w.PMS -T text -w 60 states >text 2>err || fail "text: $(cat err)"
sed -n '/^Legend/,$p' text | awk 'NR > 1 && NF { print $2 }' >legend
printf '%s\n' user system wait-cpu lock condition io fault sleep other |
    diff -u - legend >diff || fail "text legend: $(cat diff)"

"$stats" -f w.PMS -T json -o w.json 2>err || fail "json: $(cat err)"
"$pmehisto" -V timeline w.PMS >timeline.json 2>err ||
    fail "-V timeline: $(cat err)"
cmp -s w.json timeline.json || fail "stats -T json is not -V timeline's"
if command -v python3 >/dev/null; then
	python3 - w.json want <<'P' || fail "json: $(cat py.err)"
import json, sys
d = json.load(open(sys.argv[1]))
tot, bad = {}, []
for e in d["traceEvents"]:
    if e["ph"] != "X":
        continue
    k = "%d %s" % (e["tid"], e["name"])
    tot[k] = tot.get(k, 0) + round(e["dur"] * 1000)
    if (e["cat"] == "off-cpu") != ("routine" in e.get("args", {})):
        bad.append("slice %s: cat %s, args %s" % (k, e["cat"], e.get("args")))
for line in open(sys.argv[2]):
    tid, state, ns = line.split()
    if tot.get(tid + " " + state, 0) != int(ns):
        bad.append("%s %s: %d, not %s" % (tid, state,
            tot.get(tid + " " + state, 0), ns))
open("py.err", "w").write("\n".join(bad[:5]))
sys.exit(1 if bad else 0)
P
fi

"$stats" -f w.PMS -T ps -o w.ps states 2>err || fail "ps: $(cat err)"
head -1 w.ps | grep -q '^%!PS-Adobe-3.0' || fail "ps: $(head -1 w.ps)"
grep -aq ' (Thread) VS$' w.ps ||
    fail "ps: the rows' axis: $(grep -a ' VS$' w.ps | head -n 1)"
grep -aq '^(Thread States) (w.PMS: ' w.ps ||
    fail "ps: the title: $(grep -a ') H$' w.ps | head -n 1)"
"$stats" -f w.PMS -b routine -T ps -o r.ps states 2>err &&
    grep -aq ' (Thread) VS$' r.ps ||
    fail "ps -b routine: the rows' axis: $(grep -a ' VS$' r.ps | head -n 1)"
if command -v gs >/dev/null; then
	gs -q -dSAFER -dBATCH -dNOPAUSE -sDEVICE=nullpage w.ps >gs.out 2>&1 ||
	    fail "ghostscript: $(cat gs.out)"
fi

"$stats" -f w.PMS -b routine -T csv states >rcsv 2>err ||
    fail "-b routine: $(cat err)"
# The samples by where they fell (no bucket file: the module, the
# kernel), none by state.
[ "$(wc -l <rcsv)" -gt 1 ] || fail "-b routine: no samples: $(cat rcsv)"
! grep -q '"\(sleep\|condition\|lock\|wait-cpu\)"$' rcsv ||
    fail "-b routine: states: $(head -3 rcsv)"
"$pmeclock" -q -o clock.PMS ./waits "$tmp" 2>/dev/null ||
    fail "pmeclock without -w"
expect "-b state without -w" 1 "$stats" -f clock.PMS -b state -T csv
grep -q "'clock.PMS': -b state: no wall-time records" "$tmp/err" ||
    fail "-b state without -w: $(cat "$tmp/err")"
expect "a filter of a -w run's states" 1 "$stats" -f w.PMS --tid 1 -T csv
grep -q "'w.PMS': .*the filters take samples" "$tmp/err" ||
    fail "filter: $(cat "$tmp/err")"

refuses_chunk w.PMS OFF2
# A file cut short: its states drawn, and said (they were not).
head -c $(($(wc -c <w.PMS) * 7 / 10)) w.PMS >cut.PMS
"$stats" -f cut.PMS -T csv states >/dev/null 2>err ||
    fail "a file cut short: $(cat err)"
grep -q "^stats: 'cut.PMS': the file was cut short: [0-9]* bytes after its last whole chunk lost$" \
    err || fail "a file cut short: said '$(cat err)'"
finish
