#!/bin/bash
#
# pmehisto_units - a histogram of a measure whose counts are amounts, not
# samples or events, says their unit: the heap's bytes (pmeclock -e
# alloc) on tests/fixtures/heap, where every row is exact:
#
# - the text page scales the bars in bytes ("Scaling: N bytes/asterisk",
#   N the largest row's bytes over its asterisks) and heads the counts
#   column (-n) "bytes"; CSV heads its count column "bytes"; PostScript's
#   scale says the longest bar's bytes; a filled bucket file of bytes
#   read again (-t) and a differential report (-D: bytes/character) too;
#   the summary's Counts says "bytes of bytes", with no Events line
#   (a sample per allocation, of its size: not "a sample every 1 event");
# - the allocations, a number of calls, keep "counts/asterisk" and
#   "count", as clock samples do (golden/ keeps their pages byte for
#   byte; sh/pmehisto_wallmeasures and sh/pmehisto_iomeasures check ns).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/heap.sh"

need "$pmeclock" "$pmehisto"
cd "$tmp" || exit 1
heap_fixture
"$pmeclock" -q -e alloc -o h.PMS ./heapfix || fail "pmeclock -e alloc failed"

# scaling FILE: "N WORD" of FILE's first "Scaling: N WORD/asterisk" line
scaling() {
	sed -n 's/^Scaling: \([0-9.]*\) \(.*\)\/\(asterisk\|character\)$/\1 \2/p' \
	    "$1" | head -n 1
}

# The page of -M bytes: its scale in bytes, the largest row's bytes
# (peak_d's 100000, exact) over its asterisks, as the page rounds it.
$PME_VALGRIND "$pmehisto" -q -x -M bytes -n -T text -o - h.PMS >bytes.txt \
    2>err || fail "-M bytes -T text: $(cat err)"
set -- $(scaling bytes.txt)
[ "${2:-}" = bytes ] || fail "-M bytes: scaling '$*', not in bytes"
stars=$(awk '$1 == "peak_d" { s = $2; gsub(/[^*]/, "", s); print length(s) }' \
    bytes.txt)
[ -n "$stars" ] && [ "${1:-}" = "$(awk -v s="$stars" \
    'BEGIN { printf "%.0f\n", 100000 / s }')" ] ||
    fail "-M bytes: scaling $1, peak_d's 100000 bytes in ${stars:-no} asterisks"
grep -q '^ *+[-+]*  *% *bytes$' bytes.txt ||
    fail "-M bytes -n: the column is not headed bytes: $(grep -m1 '^ *+' bytes.txt)"
grep -q "^peak_d .* 100000$" bytes.txt ||
    fail "-M bytes -n: no peak_d 100000: $(grep peak_d bytes.txt)"
# The summary: counts of bytes, not samples (one an allocation).
grep -q "^Counts: *bytes of bytes (bytes the allocations asked for" bytes.txt &&
    ! grep -q "^Events:" bytes.txt ||
    fail "-M bytes: the summary: $(grep -A1 ^Counts bytes.txt | tr '\n' ' ')"

# CSV: the column headed bytes, peak_d's 100000 in it.
$PME_VALGRIND "$pmehisto" -q -x -M bytes -T csv -B base.PME h.PMS \
    >bytes.csv 2>err || fail "-M bytes -T csv: $(cat err)"
[ "$(head -n 1 bytes.csv)" = \
    "bucket,unit,kind,group,start,end,bytes,percent,file,line,module" ] ||
    fail "-M bytes -T csv: heading $(head -n 1 bytes.csv)"
[ "$(csv_counts <bytes.csv | awk '$1 == "peak_d" { print $2 }')" = 100000 ] ||
    fail "-M bytes -T csv: peak_d not 100000"

# PostScript: the longest bar's bytes.
"$pmehisto" -q -x -M bytes -T ps h.PMS >bytes.ps 2>err ||
    fail "-M bytes -T ps: $(cat err)"
grep -aq "(Scaling: the longest bar is 100000 bytes " bytes.ps ||
    fail "-M bytes -T ps: $(grep -a -o '(Scaling[^)]*' bytes.ps | head -n 1)"

# The filled bucket file read again, and -D against it.
"$pmehisto" -q -t -b base.PME -T csv >again.csv 2>err ||
    fail "-t -b base.PME: $(cat err)"
head -n 1 again.csv | grep -q ",end,bytes,percent," ||
    fail "-t -b base.PME -T csv: heading $(head -n 1 again.csv)"
"$pmehisto" -q -t -b base.PME -n -T text -o - >again.txt 2>err ||
    fail "-t -b base.PME -T text: $(cat err)"
set -- $(scaling again.txt)
[ "${2:-}" = bytes ] || fail "-t -b base.PME: scaling '$*', not in bytes"
"$pmehisto" -q -x -M bytes -D base.PME -T text -o - h.PMS >diff.txt 2>err ||
    fail "-M bytes -D: $(cat err)"
grep -q "^Scaling: [0-9.]* bytes/character$" diff.txt ||
    fail "-M bytes -D: $(grep -m1 ^Scaling diff.txt)"
grep -q "^Counts: *bytes of bytes (" diff.txt ||
    fail "-M bytes -D: $(grep -m1 ^Counts diff.txt)"

# The allocations are a number: counts, as before.
"$pmehisto" -q -x -M allocations -n -T text -o - h.PMS >allocs.txt 2>err ||
    fail "-M allocations -T text: $(cat err)"
grep -q "^Scaling: [0-9.]* counts/asterisk$" allocs.txt ||
    fail "-M allocations: $(grep -m1 ^Scaling allocs.txt)"
grep -q '^ *+[-+]*  *% *count$' allocs.txt ||
    fail "-M allocations -n: $(grep -m1 '^ *+' allocs.txt)"
grep -q "^Counts: *samples of allocations (period 1" allocs.txt ||
    fail "-M allocations: the summary: $(grep -m1 ^Counts allocs.txt)"
"$pmehisto" -q -x -M allocations -T csv h.PMS 2>/dev/null | head -n 1 |
    grep -q ",end,count,percent," ||
    fail "-M allocations -T csv: the column is not headed count"
finish
