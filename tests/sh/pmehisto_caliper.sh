#!/bin/bash
#
# pmehisto_caliper.sh - pmehisto -V caliper on a real run of the fixture
# tests/fixtures/caliper/work.c (two threads, one doing twice the rounds
# of the other, hot() and cold() each a loop of one line), built here.
#
# Exact relations on the one sample file: every level's rows (CSV, no
# cutoff) sum to the total the text report states, and each thread's
# functions to its row; the cumulative
# percentages rise and end at 100; the functions of the executable have
# the counts of pmehisto -x's routine buckets; the statements and the
# instructions of each function sum to its row; each instruction's
# disassembly is objdump -d's for that address (in AT&T syntax both;
# compared after the spellings that differ between capstone and objdump
# are made one: blanks, number bases, operand-size suffixes, symbolic
# targets); the hot line's row shows the source line's text, and says
# the source is not found once it is moved away.
#
# Sampled figures: each thread's share against the CPU time the fixture
# says it used (the truth of the run, not the 2:1 of its rounds, which a
# busy machine upsets), within 1 + 4.5 * 100 * sqrt(p (1 - p) / N)
# points for a true share p from N samples (accuracy.sh explains the
# bound); hot() is the hottest function (it does four times cold()'s
# iterations).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
fx=$top/tests/fixtures/caliper

need "$pmeclock" "$pmehisto"
command -v gcc >/dev/null || skip "no gcc to build the fixture"
command -v objdump >/dev/null || skip "no objdump (binutils) to compare with"
cd "$tmp" || exit 1
cp "$fx/work.c" . &&
    gcc -O1 -g -pthread -o work work.c || { fail "cannot build work.c"; finish; }

"$pmeclock" -q -F 4000 -o work.PMS ./work 600 >truth ||
    { fail "pmeclock failed"; finish; }
[ "$(wc -l <truth)" = 2 ] || { fail "the fixture's truth: $(cat truth)"; finish; }

caliper() {
	$PME_VALGRIND "$pmehisto" -q -V "$@" -o /dev/null work.PMS
}
caliper caliper -T text >all.txt 2>err ||
    { fail "-V caliper failed: $(cat err)"; finish; }
caliper caliper -T csv >all.csv 2>err ||
    { fail "-V caliper -T csv failed: $(cat err)"; finish; }
total=$(sed -n 's/^Caliper views: \([0-9]*\) clock samples$/\1/p' all.txt)
[ -n "$total" ] && [ "$total" -gt 500 ] ||
    { fail "too few samples, or no total in the report: '$total'"; finish; }

# The CSV's fields: level,samples,percent,cumulative,pid,tid,module,
# function,file,line,address,text; only text may hold commas.
for lv in thread process module function line instruction; do
	awk -F, -v lv=$lv -v total="$total" '
	$1 == lv {
		n++; sum += $2
		if ($4 + 0 < last - 0.00005) bad = bad " " $4 " after " last
		last = $4
	}
	END {
		if (n == 0) { print lv ": no rows"; exit 1 }
		if (sum != total) { print lv ": rows sum to " sum ", not " total; exit 1 }
		if (last != "100.0000") { print lv ": cumulative ends at " last; exit 1 }
		if (bad != "") { print lv ": cumulative falls:" bad; exit 1 }
	}' all.csv >msg || fail "$(cat msg)"
	# The single-level view is the same table.
	caliper caliper:$lv -T csv >one.csv 2>err || fail "caliper:$lv: $(cat err)"
	grep "^$lv," all.csv | cmp -s - <(tail -n +2 one.csv) ||
	    fail "-V caliper:$lv -T csv differs from -V caliper's $lv rows"
done

# Functions of the executable: the counts of its routine buckets
# (pmebuild -x of the executable alone: pmehisto -x has the libraries'
# and the kernel's routines too).
"$pmebuild" -q -x "$tmp/work" -o exe.PME || fail "pmebuild -x failed"
$PME_VALGRIND "$pmehisto" -q -b exe.PME -B /dev/null -C 0 -T csv \
    -o /dev/null work.PMS >x.csv || fail "pmehisto -b exe.PME failed"
awk -F, 'NR > 1 && $7 > 0 { print $2, $7 }' x.csv | sort >want
# (Samples in the executable but in no routine, the PLT's, are outside
# -x's buckets: "(no function)" here.)
awk -F, -v exe="$tmp/work" '$1 == "function" && $7 == exe &&
    $8 != "(no function)" { print $8, $2 }' all.csv | sort >got
[ -s want ] && cmp -s want got ||
    fail "functions differ from -x's routine counts: $(diff want got | head -5)"
top_fn=$(awk -F, '$1 == "function" { print $8; exit }' all.csv)
[ "$top_fn" = hot ] || fail "the hottest function is '$top_fn', not hot"

# Statements and instructions of each function sum to its row.
awk -F, '
$1 == "function" { f[$7 " " $8] = $2 }
$1 == "line" { l[$7 " " $8] += $2 }
$1 == "instruction" { i[$7 " " $8] += $2 }
END {
	for (k in f) {
		if (l[k] != f[k]) print k ": statements sum to " l[k] ", not " f[k]
		if (i[k] != f[k]) print k ": instructions sum to " i[k] ", not " f[k]
	}
}' all.csv >msg
[ -s msg ] && fail "$(head -5 msg)"

# Functions per thread: each thread's functions sum to its row, and
# those rows to the total.
awk -v total="$total" '
/^Functions per Thread$/ { on = 1; next }
/^Function Details$/ { on = 0 }
!on { next }
/^ *[0-9.]+ +[0-9.]+ +[0-9]+  \[/ { check(); t = $3; f = 0; all += $3; n++; next }
/^ *[0-9.]+ +[0-9]+    / { f += $2 }
function check() { if (n > 0 && f != t) print "a thread of " t " samples: functions sum to " f }
END {
	check()
	if (n < 2) print "no functions per thread for the " n " threads"
	if (all != total) print "threads sum to " all ", not " total
}' all.txt >msg
[ -s msg ] && fail "$(head -3 msg)"

# The hot line: its text, and where it is.
hl=$(grep -n 'the hot line' work.c | cut -d: -f1)
awk -F, -v hl="$hl" '$1 == "line" && $8 == "hot" && $10 == hl' all.csv >row
grep -q ',x += i \* i ^ (x >> 3);  */\* the hot line \*/$' row ||
    grep -q 'x += i \* i ^ (x >> 3);.*the hot line' row ||
    fail "no hot line row with its text: $(cat row)"
grep -q "^ *[0-9.]* *[0-9.]* *[0-9]* *$hl  >x += i \* i ^ (x >> 3);" all.txt ||
    fail "the function details show no hot line $hl with its text"
mkdir away && mv work.c away/
caliper caliper:line -T csv >gone.csv 2>err || fail "caliper:line: $(cat err)"
awk -F, -v hl="$hl" '$1 == "line" && $8 == "hot" && $10 == hl' gone.csv |
    grep -q '(source not found: work.c)$' ||
    fail "a moved source file is not said to be not found"
mv away/work.c .

# Disassembly against objdump -d, address by address.
if grep -q 'addresses only' all.txt; then
	echo "pmehisto was built without capstone: no disassembly to compare"
else
	objdump -d --no-show-raw-insn work >od.txt || fail "objdump failed"
	# The fixture's own functions: the C library's start-up code has
	# padding whose spellings differ more (cs nopw), never executed.
	awk -F, -v exe="$tmp/work" '$1 == "instruction" && $7 == exe &&
	    $8 ~ /^(hot|cold|worker|main)$/ {
		t = $0; for (k = 1; k < 13; k++) sub(/^[^,]*,/, "", t)
		gsub(/^"|"$/, "", t); print substr($11, 3), t }' all.csv >ours
	[ -s ours ] || fail "no instruction rows of the executable"
	awk '
	function dec(h,   i, v) {
		v = 0; h = tolower(h)
		for (i = 1; i <= length(h); i++)
			v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		return v
	}
	# One spelling of an AT&T instruction: no blanks, numbers decimal,
	# no symbolic target or comment, no zero displacement or scale 1.
	function norm(s,   m, o, out, tok) {
		sub(/[ \t]*#.*/, "", s); sub(/[ \t]*<[^>]*>/, "", s)
		m = s; sub(/[ \t].*/, "", m); o = substr(s, length(m) + 1)
		gsub(/[ \t]/, "", o)
		if (m ~ /^(j|call|jmp)/ && o ~ /^[0-9a-f]+$/) o = "0x" o
		out = ""
		while (match(o, /0x[0-9a-f]+|[0-9]+/)) {
			tok = substr(o, RSTART, RLENGTH)
			out = out substr(o, 1, RSTART - 1) \
			    (tok ~ /^0x/ ? dec(substr(tok, 3)) : tok)
			o = substr(o, RSTART + RLENGTH)
		}
		o = out o; gsub(/(^|[^0-9])0\(/, "(", o); gsub(/,1\)/, ")", o)
		return m " " o
	}
	function same(a, b,   ma, mb) {
		if (a == b) return 1
		ma = a; sub(/ .*/, "", ma); mb = b; sub(/ .*/, "", mb)
		return substr(a, length(ma) + 1) == substr(b, length(mb) + 1) &&
		    (ma ~ ("^" mb "[bwlq]$") || mb ~ ("^" ma "[bwlq]$"))
	}
	NR == FNR { want[$1] = $0; next }
	{
		a = $1; t = $0; sub(/^[^ ]* /, "", t)
		if (!(a in want)) { print "0x" a ": not in objdump -d"; next }
		o = want[a]; sub(/^[^\t]*\t/, "", o)
		if (!same(norm(t), norm(o)))
			print "0x" a ": \"" t "\", objdump \"" o "\""
	}' <(sed -n 's/^ *\([0-9a-f]*\):\t/\1 /p' od.txt | sed 's/ /\t/') \
	    ours >msg
	[ -s msg ] && fail "disassembly differs from objdump's: $(head -5 msg)"
fi

# Each thread's share against its CPU time.
awk -F, 'NR == FNR { ns[$1] = $2; all += $2; next }
$1 == "thread" && ($6 in ns) { got[$6] = $2; n += $2 }
END {
	for (t in ns) {
		p = ns[t] / all
		tol = 1 + 4.5 * 100 * sqrt(p * (1 - p) / n)
		share = 100 * got[t] / n
		d = share - 100 * p; if (d < 0) d = -d
		if (d > tol)
			printf "thread %s: %.1f%% of the samples, %.1f%% of the CPU time (tolerance %.1f)\n", t, share, 100 * p, tol
	}
}' <(tr ' ' , <truth) all.csv >msg
[ -s msg ] && fail "$(cat msg)"

# A cutoff sums the rows below it into one line; the total stays.
caliper caliper:instruction -C 5 >cut.txt 2>err || fail "-C 5: $(cat err)"
grep -q "more below 5%)$" cut.txt || fail "-C 5: no line for the rows below"
tail -3 cut.txt | grep -q "^  100.00 *$total  Total$" ||
    fail "-C 5: the total line is not $total"

# Trace input has no threads: refused for the level, said in the view.
"$pmehisto" -q -x -B filled.PME -o /dev/null -T none work.PMS ||
    fail "pmehisto -x -B failed"
expect "caliper:thread on trace input" 1 "$pmehisto" -t -b filled.PME \
    -V caliper:thread -o -
grep -q "trace input ('filled.PME') holds counts per bucket, not per thread" \
    "$tmp/err" || fail "caliper:thread on trace input: $(cat "$tmp/err")"
expect "caliper on trace input" 0 "$pmehisto" -t -b filled.PME -V caliper \
    -o -
grep -q "^None: trace input ('filled.PME') holds counts per bucket, not per instruction;" \
    "$tmp/out" || fail "caliper on trace input does not say it has no instructions"
expect "-V nonsense" 2 "$pmehisto" -V caliper:nonsense work.PMS
finish
