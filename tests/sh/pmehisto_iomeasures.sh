#!/bin/bash
#
# pmehisto_iomeasures - pmeclock -e io's calls as measures (pmehisto -M
# io-time, -M io-bytes, -M io-calls) on tests/fixtures/io/io.c, against
# -V io of the same run, exactly (the same records): the folded stacks'
# total is the calls' total time, bytes and count; per line of the
# program, with the C library's frames hidden (-V caliper:line), each is
# -V io's call sites' at that line; the histogram's summary and scale
# and CSV's count column name the unit (bytes, ns); a run without I/O
# records is refused with -M io-time.  A call whose pc no mapping holds
# (seen once in a loaded sanitized run) is the line "(no function)" in
# the one and the site 0xADDRESS in the other.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$pmeclock" "$pmehisto"
cd "$tmp" || exit 1
gcc -O2 -g -o io "$top/tests/fixtures/io/io.c" ||
    { fail "cannot build the fixture"; finish; }
mkdir d || exit 1
if ! "$pmeclock" -q -e io -o io.PMS ./io "$tmp/d" 50 1000 20 2>run.err; then
	grep -q perf_event_open run.err ||
	    { fail "pmeclock -e io: $(cat run.err)"; finish; }
	skip "perf_event_open cannot trace system calls here: $(cat run.err)"
fi
"$pmehisto" -V io -T csv io.PMS >io.csv 2>err ||
    { fail "-V io: $(cat err)"; finish; }

# table,call,file,site,calls,errors,bytes,total_ns,max_ns
for m in io-calls:5 io-bytes:7 io-time:8; do
	c=${m#*:} m=${m%:*}
	$PME_VALGRIND "$pmehisto" -x -M $m -T folded io.PMS >$m.folded 2>err ||
	    fail "-M $m -T folded: $(cat err)"
	got=$(awk '{ s += $NF } END { printf "%.0f\n", s }' $m.folded)
	want=$(awk -F, -v c=$c '$1 == "call" { s += $c }
	    END { printf "%.0f\n", s }' io.csv)
	[ "$got" = "$want" ] && [ "$want" -gt 0 ] ||
	    fail "-M $m: folded stacks sum to $got, -V io's calls $want"
	"$pmehisto" -x -M $m --hide 'libc|ld-linux' -V caliper:line -T csv \
	    -o /dev/null io.PMS >$m.lines 2>/dev/null ||
	    fail "-M $m -V caliper:line failed"
	out=$(awk -F, -v c=$c '
	FNR == NR && $1 == "line" { got[$8 " (" $9 ":" $10 ")"] += $2; next }
	FNR != NR && $1 == "site" && $4 ~ /\/io\.c:[0-9]+\)$/ { want[$4] += $c }
	# a call whose pc no mapping holds (-V io names the site by its
	# address): the line of no function
	FNR != NR && $1 == "site" && $4 ~ /^0x[0-9a-f]+$/ { want["(no function) (:)"] += $c }
	END {
		for (s in want) {
			if (got[s] + 0 != want[s]) printf "%s: %d, -V io %d\n", s, got[s], want[s]
			else ok++
			delete got[s]
		}
		for (s in got) if (got[s] > 0) printf "%s: %d, not in -V io\n", s, got[s]
		if (ok < 8) printf "only %d sites\n", ok
	}' $m.lines io.csv)
	[ -z "$out" ] || fail "-M $m per line: $out"
done
"$pmehisto" -x -M io-bytes -T text -o - io.PMS >hist.txt 2>&1
grep -q "^ *Counts: *bytes of io-bytes (the bytes the I/O calls moved" \
    hist.txt || fail "the summary does not say bytes: $(grep Counts hist.txt)"
grep -q "^Scaling: [0-9.]* bytes/asterisk$" hist.txt ||
    fail "the scale is not in bytes: $(grep -m1 ^Scaling hist.txt)"
"$pmehisto" -x -M io-time -T csv io.PMS 2>/dev/null | head -n 1 |
    grep -q ",end,ns,percent," || fail "-M io-time: CSV's column not headed ns"

"$pmeclock" -o plain.PMS true 2>/dev/null
"$pmehisto" -x -M io-time plain.PMS >plain.out 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "no I/O calls recorded (pmeclock -e io records them)" \
    plain.out || fail "-M io-time without -e io: exit $rc: $(cat plain.out)"
finish
