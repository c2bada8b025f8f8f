#!/bin/bash
#
# stats_heap - stats -f of a pmeclock -e alloc run: the heap's live bytes
# over time, a LineGraph row per process, and the Chrome trace JSON's
# counter track of them (issue 27), on pmeclock_heap's fixture
# (tests/fixtures/heap/heap.c, whose child of a fork ends holding its
# parent's blocks besides its own leaks):
#
# - the rows are named as pmehisto's processes, "heapfix pid PID", in
#   the CSV, the text chart and the JSON's series;
# - in the CSV (a point per heap event), each process's largest value is
#   its peak of pmehisto -V heap, exactly; the main process's last is its
#   leaked bytes, the child's its leaked bytes and what it had of its
#   parent at the fork (its first point);
# - the text chart says the same largest and last values;
# - -T json loads with python3's json and its "heap" counter's series of
#   each process has the same largest and last values;
# - -T ps is DSC PostScript that ghostscript renders, when installed;
# - a child of a fork that frees its parent's blocks before it allocates
#   (tests/fixtures/heap/forkfree.c) has its peak at the fork, in -V
#   heap and the curve alike;
# - a filter with a heap run is an error; a corrupt HEA2 chunk is an error
#   naming the file and offset, and -o's file is not written.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/heap.sh"
. "$top/tests/sh/lib/stats.sh"

need "$stats" "$pmeclock" "$pmehisto"
cd "$tmp" || exit 1
heap_fixture
"$pmeclock" -q -e alloc -o h.PMS ./heapfix || fail "pmeclock -e alloc failed"
"$pmehisto" -V heap h.PMS >heap.txt 2>err ||
    { fail "pmehisto -V heap: $(cat err)"; finish; }
# "pid peak leaked" of each process.
awk '/^Heap of process/ { pid = $4 } $1 == "peak" { peak[pid] = $2 }
    $1 == "leaked" { print pid, peak[pid], $2 }' heap.txt >want
[ "$(wc -l <want)" = 2 ] || fail "not two processes: $(cat heap.txt)"
main=$(head -1 want | cut -d' ' -f1)

# check WHAT FILE: FILE's "pid first largest last" lines against want.
check() {
	awk -v what="$1" -v main="$main" 'FNR == NR { peak[$1] = $2
	    leak[$1] = $3; next }
	{ n++; if (!($1 in peak)) { print what ": pid " $1 " not in -V heap"
		next }
	  if ($3 != peak[$1]) print what ": pid " $1 ": largest " $3 \
	    ", the peak " peak[$1]
	  want = $1 == main ? leak[$1] : leak[$1] + $2
	  if ($4 != want) print what ": pid " $1 ": last " $4 ", not " want }
	END { if (n != 2) print what ": " n + 0 " processes, not 2" }' \
	    want "$2" >bad
	[ ! -s bad ] || fail "$(cat bad)"
}

"$stats" -f h.PMS -T csv heap >csv 2>err || fail "stats -T csv: $(cat err)"
head -1 csv | grep -qx 'row,time,value' || fail "csv: $(head -1 csv)"
awk -F, 'NR > 1 { k = $1
    if (sub(/^heapfix pid /, "", k) != 1 || k !~ /^[0-9]+$/) k = "(" $1 ")"
    if (!(k in first)) { first[k] = $3; max[k] = $3 }
    if ($3 > max[k]) max[k] = $3; last[k] = $3 }
    END { for (k in first) printf "%s %.0f %.0f %.0f\n", k, first[k],
    max[k], last[k] }' csv >got
check csv got

"$stats" -f h.PMS -T text -w 60 heap >text 2>err || fail "text: $(cat err)"
sed -n 's/^heapfix pid \([0-9]*\): largest \([0-9,]*\) at [0-9]*, last \([0-9,]*\)$/\1 \2 \3/p' \
    text | tr -d , | while read -r pid max last; do
	echo "$pid $(awk -v p="$pid" '$1 == p { print $2 }' got) $max $last"
done >gottext
check text gottext

"$stats" -f h.PMS -T json -o h.json 2>err || fail "json: $(cat err)"
if command -v python3 >/dev/null; then
	python3 - h.json >gotjson <<'P' || fail "json does not load"
import json, sys
d = json.load(open(sys.argv[1]))
first, top, last = {}, {}, {}
for e in d["traceEvents"]:
    if e["ph"] != "C" or e["name"] != "heap":
        continue
    for k, v in e["args"].items():
        w = k.split()
        pid = w[2] if len(w) == 3 and w[:2] == ["heapfix", "pid"] else k
        first.setdefault(pid, v)
        top[pid] = max(top.get(pid, v), v)
        last[pid] = v
for pid in first:
    print(pid, first[pid], top[pid], last[pid])
P
	check json gotjson
fi

"$stats" -f h.PMS -T ps -o h.ps heap 2>err || fail "ps: $(cat err)"
head -1 h.ps | grep -q '^%!PS-Adobe-3.0' || fail "ps: $(head -1 h.ps)"
if command -v gs >/dev/null; then
	gs -q -dSAFER -dBATCH -dNOPAUSE -sDEVICE=nullpage h.ps >gs.out 2>&1 ||
	    fail "ghostscript: $(cat gs.out)"
fi

# A child whose heap is largest at the fork (forkfree.c: it frees 5 of
# its parent's 10 blocks of 1000 bytes, then allocates 16): its peak is
# the 10000 bytes it had of its parent, in -V heap (which took the
# largest after an allocation, 5016) and in the curve, whose last point
# is the 5016 it ended with.
gcc -O0 -g -o forkfree "$fx/forkfree.c" || fail "cannot build forkfree.c"
"$pmeclock" -q -e alloc -o ff.PMS ./forkfree || fail "pmeclock forkfree"
"$pmehisto" -V heap ff.PMS >ff.txt 2>err || fail "-V heap forkfree: $(cat err)"
"$stats" -f ff.PMS -T csv heap >ff.csv 2>err || fail "forkfree: $(cat err)"
got=$(awk '/^Heap of process/ { n++ } $1 == "peak" && n == 2 { print $2 }' \
    ff.txt)
[ "$got" = 10000 ] || fail "forkfree: the child's peak ${got:-none}, not 10000"
got=$(awk -F, 'NR > 1 { if ($1 != r) { r = $1; n++ } if (n == 2) {
    if ($3 > m) m = $3; l = $3 } } END { print m + 0, l + 0 }' ff.csv)
[ "$got" = "10000 5016" ] ||
    fail "forkfree: the child's curve's largest and last $got, not 10000 5016"

expect "a filter of a heap run" 1 "$stats" -f h.PMS --tid 1 -T csv
grep -q "'h.PMS': .*the filters take samples" "$tmp/err" ||
    fail "filter: $(cat "$tmp/err")"

refuses_chunk h.PMS HEA2
finish
