#!/bin/bash
#
# pmehisto_wallmeasures - pmeclock -w's wall time and states as measures
# (pmehisto -M wall, -M lock, ...), on tests/fixtures/clock/waits.c (the
# program of sh/pmeclock_wall), against -V states of the same run; all
# exact, the same intervals and the same shares of the threads' CPU time:
#
# - per routine of the program, every state's measure in its folded
#   stacks (each stack counted once for each routine on it) is -V states'
#   column of the routine;
# - per line: -M lock and -M condition with the C library's frames
#   hidden (-V caliper:line) are -V states' columns of the program's
#   lines;
# - per thread (--tid), -M wall's folded stacks sum to its wall column,
#   and -M user's to its user column; a file cut short, all its threads
#   to -V states' wall time of what is left;
# - the histogram's summary and scale ("ns/asterisk"), CSV's count
#   column, the Spy and the callgrind export name the unit (ns); pprof's
#   sample type is the measure in nanoseconds;
# - -D of two runs under -M wall, their totals the threads' (ns, said),
#   a gate on it that passes and one that fails with exit status 3 (a
#   run against itself and against one of its threads: no gate between
#   two runs is certain); -D of two measures is refused;
# - -M lock of a run without -w is an error that says so, -M wall of
#   standard input a usage error (it reads the file twice), and a file
#   cut before its header keeps the reader's message; -V states and
#   locks with a filter are usage errors naming the measures.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/wall.sh"

need "$pmeclock" "$pmehisto"
cd "$tmp" || exit 1
waits_fixture
for r in w w2; do
	"$pmeclock" -w -o $r.PMS ./waits "$tmp" 2>truth.$r ||
	    { fail "pmeclock -w: $(cat truth.$r)"; finish; }
done
$PME_VALGRIND "$pmehisto" -V states -T csv w.PMS >states.csv 2>err ||
    { fail "-V states: $(cat err)"; finish; }

# The text tables are the CSV's, in ms, each row's name last (a long
# name once shifted the columns after it); the text of -V locks names
# its rows last too.
"$pmehisto" -V states -T text -o - w.PMS >states.txt 2>err ||
    fail "-V states -T text: $(cat err)"
out=$(awk '
	FNR == NR && /^[a-z]*,name,wall,/ { next }
	FNR == NR { split($0, c, ",")
		k = (c[1] ~ /^[0-9]+$/) ? c[1] : c[1] "," c[2]
		v = ""; for (i = 3; i <= 12; i++) v = v sprintf(" %.3f", c[i] / 1e6)
		want[k] = v; next }
	$1 == "TID" && $2 == "WALL" && NF == 12 && $12 == "NAME" { t = "thread"; next }
	$1 == "WALL" && NF == 11 && $11 == "ROUTINE" { t = "routine"; next }
	$1 == "WALL" && NF == 11 && $11 == "LINE" { t = "line"; next }
	t != "" && NF == 0 { t = ""; next }
	t != "" {
		f = t == "thread"
		v = ""; for (i = 1 + f; i <= 10 + f; i++) v = v " " $i
		name = $0
		for (i = 0; i < 10 + f; i++) sub(/^ *[^ ]+ +/, "", name)
		k = f ? $1 : t "," name
		if (!(k in want)) printf "%s: not in the CSV\n", k
		else if (want[k] != v) printf "%s:%s, CSV%s\n", k, v, want[k]
		else n[t]++
		delete want[k]
	}
	END {
		for (k in want) printf "%s: only in the CSV\n", k
		if (n["thread"] < 10 || n["routine"] < 10 || n["line"] < 5)
			printf "%d threads, %d routines, %d lines\n", n["thread"], n["routine"], n["line"]
	}' states.csv states.txt)
[ -z "$out" ] || fail "-V states as text against CSV: $(echo "$out" | head -5)"
"$pmehisto" -V locks -T text -o - w.PMS >locks.txt 2>err ||
    fail "-V locks -T text: $(cat err)"
grep -q "^ *COUNT *TOTAL(ms) *MEAN(ms) *MAX(ms)  OBJECT$" locks.txt &&
    grep -q "^ *[0-9]* *[0-9.]* *[0-9.]* *[0-9.]*  queue_lock$" locks.txt &&
    grep -q "^ *[0-9.]* lock *[0-9]* *[0-9-]* *queue_lock *locker$" locks.txt ||
    fail "-V locks as text: $(head -c 600 locks.txt)"

# Per routine: the program's routines, inclusive, every state.
routines="main timed holder locker waiter signaler writer reader sleeper"
routines="$routines computer disk busy"
col=4
for m in user system wait-cpu lock condition io fault sleep other; do
	# A state no thread was in has no samples (-x: an error).
	if [ "$(awk -F, -v c=$col '$1 ~ /^[0-9]+$/ { s += $c }
	    END { print s + 0 }' states.csv)" = 0 ]; then
		col=$((col + 1))
		continue
	fi
	$PME_VALGRIND "$pmehisto" -x -M $m -T folded w.PMS >$m.folded 2>err ||
	    fail "-M $m -T folded: $(cat err)"
	out=$(awk -v c=$col -v list="$routines" '
	BEGIN { n = split(list, r, " "); for (i = 1; i <= n; i++) want[r[i]] = 1 }
	FNR == NR {
		k = split($0, w, " "); cnt = w[k]; sub(/ [0-9]+$/, "")
		split("", once); m = split($0, f, ";")
		for (i = 1; i <= m; i++)
			if (f[i] in want && !(f[i] in once)) { once[f[i]] = 1; got[f[i]] += cnt }
		next
	}
	$1 == "routine" && ($2 in want) {
		if (got[$2] + 0 != $c) printf "%s: %d ns, -V states %d\n", $2, got[$2], $c
		else ok++
		delete got[$2]
	}
	END { for (x in got) if (got[x] > 0) printf "%s: %d ns, not in -V states\n", x, got[x]
	      if (ok < 3 && (c == 7 || c == 8 || c == 11)) printf "only %d routines\n", ok }
	' FS=, "$m.folded" FS=, states.csv)
	[ -z "$out" ] || fail "-M $m per routine: $out"
	col=$((col + 1))
done

# Per line: lock (column 7) and condition (8) at the program's lines.
for m in lock:7 condition:8; do
	"$pmehisto" -x -M ${m%:*} --hide 'libc|ld-linux' -V caliper:line \
	    -T csv -o /dev/null w.PMS >${m%:*}.lines 2>/dev/null ||
	    fail "-M ${m%:*} -V caliper:line failed"
	out=$(awk -F, -v c=${m#*:} '
	FNR == NR && $1 == "line" { n = split($9, p, "/"); got[p[n] ":" $10] += $2; next }
	FNR != NR && $1 == "line" && $2 != "name" && $c > 0 {
		if (got[$2] + 0 != $c) printf "%s: %d ns, -V states %d\n", $2, got[$2], $c
		else ok++
		delete got[$2]
	}
	END { for (l in got) printf "%s: %d ns, not in -V states\n", l, got[l]
	      if (ok < 1) print "no line" }
	' ${m%:*}.lines states.csv)
	[ -z "$out" ] || fail "-M ${m%:*} per line: $out"
done

# Per thread: wall and user.
for t in $(awk -F, '$1 ~ /^[0-9]+$/ { print $1 }' states.csv); do
	for m in wall:3 user:4; do
		got=$("$pmehisto" -x -M ${m%:*} --tid "$t" -T folded w.PMS \
		    2>/dev/null |
		    awk '{ s += $NF } END { printf "%.0f\n", s }')
		want=$(awk -F, -v t="$t" -v c=${m#*:} '$1 == t { print $c }' \
		    states.csv)
		[ "$got" = "$want" ] ||
		    fail "thread $t: -M ${m%:*} sums to $got ns, -V states $want"
	done
done

# A file cut short: -M wall is still -V states' wall time of what is
# left, the threads without a clock sample included (their time on a
# CPU is given with the run's first records, not at its close).
head -c $(($(wc -c <w.PMS) * 7 / 10)) w.PMS >cut.PMS
"$pmehisto" -V states -T csv cut.PMS >cut.csv 2>cut.err ||
    fail "-V states of a file cut short failed"
# ... and says so, as the histogram does (-V states, locks and timeline
# said nothing); -q not.
for v in states locks timeline; do
	"$pmehisto" -V $v cut.PMS >/dev/null 2>cut.err ||
	    fail "-V $v of a file cut short: $(cat cut.err)"
	grep -q "^pmehisto: 'cut.PMS': cut short.* bytes after the last whole chunk lost; the view shows" \
	    cut.err || fail "-V $v of a file cut short: said '$(cat cut.err)'"
done
"$pmehisto" -q -V states cut.PMS >/dev/null 2>cut.err && ! [ -s cut.err ] ||
    fail "-q -V states of a file cut short: $(cat cut.err)"
got=$("$pmehisto" -x -M wall -T folded cut.PMS 2>/dev/null |
    awk '{ s += $NF } END { printf "%.0f\n", s }')
want=$(awk -F, '$1 ~ /^[0-9]+$/ { s += $3 } END { printf "%.0f\n", s }' \
    cut.csv)
[ "$got" = "$want" ] && [ "$want" -gt 0 ] ||
    fail "cut short: -M wall sums to $got ns, -V states' threads $want"

# Units named: the summary, the Spy, callgrind, pprof.
"$pmehisto" -x -M lock -T text -o - w.PMS >hist.txt 2>&1
grep -q "^ *Counts: *ns of lock (lock waits" hist.txt ||
    fail "the histogram's summary does not say ns: $(grep Counts hist.txt)"
grep -q "^Scaling: [0-9.]* ns/asterisk$" hist.txt ||
    fail "the histogram's scale is not in ns: $(grep -m1 ^Scaling hist.txt)"
"$pmehisto" -x -M lock -T csv w.PMS 2>/dev/null | head -n 1 |
    grep -q ",end,ns,percent," || fail "CSV's count column is not headed ns"
$PME_VALGRIND "$pmehisto" -x -M wall -V spy w.PMS >spy.txt 2>&1
grep -q "^Samples: [0-9]*; counts are ns of wall" spy.txt ||
    fail "the Spy does not say ns: $(grep Samples spy.txt)"
$PME_VALGRIND "$pmehisto" -x -M lock -T callgrind w.PMS >lock.cg 2>err ||
    fail "-T callgrind: $(cat err)"
grep -q "^event: ns : ns of lock" lock.cg && grep -qx "events: ns" lock.cg ||
    fail "callgrind's event: $(grep ^event lock.cg)"
$PME_VALGRIND "$pmehisto" -x -M lock -T pprof w.PMS >lock.pprof 2>err ||
    fail "-T pprof: $(cat err)"
# pprof's sample types, read from the profile's protobuf by python3:
# lock/nanoseconds alone.
if command -v python3 >/dev/null; then
	types=$(zcat lock.pprof | python3 -c '
import sys
def fields(b):
	i = 0
	while i < len(b):
		k = v = 0; s = 0
		while True:
			c = b[i]; i += 1; k |= (c & 127) << s; s += 7
			if c < 128: break
		if k & 7 == 0:
			s = 0
			while True:
				c = b[i]; i += 1; v |= (c & 127) << s; s += 7
				if c < 128: break
			yield k >> 3, v
		elif k & 7 == 2:
			s = n = 0
			while True:
				c = b[i]; i += 1; n |= (c & 127) << s; s += 7
				if c < 128: break
			yield k >> 3, b[i:i + n]; i += n
		else:
			raise SystemExit("wire type %d" % (k & 7))
b = sys.stdin.buffer.read()
f = list(fields(b))
strs = [v.decode() for k, v in f if k == 6]
for k, v in f:
	if k == 1:
		t = dict(fields(v))
		print(strs[t.get(1, 0)] + "/" + strs[t.get(2, 0)])
') || fail "pprof: cannot be read"
	[ "$types" = lock/nanoseconds ] || fail "pprof's sample types: $types"
fi

# -D of two runs under -M wall: their totals are their threads' wall
# time, exactly (runs differ: no gate between them is certain); gates on
# one run against itself (growth 0: passes +0%) and against one thread
# of it (the other threads' time is growth: fails with 3).
"$pmehisto" -V states -T csv w2.PMS >states2.csv 2>err ||
    fail "-V states of w2: $(cat err)"
sum() {	# the threads' wall time in -V states -T csv file $1
	awk -F, '$1 ~ /^[0-9]+$/ { s += $3 } END { printf "%.0f", s }' "$1"
}
"$pmehisto" -x -M wall -B base.PME -o /dev/null w.PMS >/dev/null 2>err ||
    fail "-M wall -B: $(cat err)"
$PME_VALGRIND "$pmehisto" -x -M wall -D base.PME -T text -o - w2.PMS \
    >diff.txt 2>err
rc=$?
[ $rc -eq 0 ] || fail "-D of two runs: exit $rc: $(cat err)"
grep -q "^Total: *$(sum states.csv) to $(sum states2.csv) " diff.txt ||
    fail "-D: $(grep ^Total diff.txt), the threads' $(sum states.csv)" \
    "and $(sum states2.csv)"
grep -q "^Counts: *ns of wall (" diff.txt ||
    fail "-D does not say ns: $(grep ^Counts diff.txt)"
grep -q "^Scaling: [0-9.]* ns/character$" diff.txt ||
    fail "-D's scale is not in ns: $(grep -m1 ^Scaling diff.txt)"
"$pmehisto" -x -M wall -D base.PME -G total:+0% -o /dev/null w.PMS \
    >/dev/null 2>err
rc=$?
[ $rc -eq 0 ] || fail "-G total:+0% against itself: exit $rc: $(cat err)"
main=$(awk -F, '$1 ~ /^[0-9]+$/ { print $1; exit }' states.csv)
"$pmehisto" -x -M wall --tid "$main" -B small.PME -o /dev/null w.PMS \
    >/dev/null 2>err || fail "-M wall --tid -B: $(cat err)"
"$pmehisto" -x -M wall -D small.PME -G total:+0% -o /dev/null w.PMS \
    >/dev/null 2>err
rc=$?
[ $rc -eq 3 ] && grep -q "gate 'total:+0%' failed" err ||
    fail "-G total:+0% against one thread: exit $rc, not 3: $(cat err)"
# (sleep: every run has its sleeps; a run on a busy machine whose locker
# came late had no lock wait, and said "no samples" instead)
"$pmehisto" -x -M sleep -D base.PME -o /dev/null w2.PMS >/dev/null 2>err
rc=$?
[ $rc -ne 0 ] && grep -q "wall" err && grep -q "sleep" err ||
    fail "-D of wall against sleep: exit $rc: $(cat err)"

# The filters narrow samples: -V states and -V locks with one are usage
# errors that name the measures, which -M wall --tid above shows filtered.
for v in states locks; do
	"$pmehisto" --tid 1 -V $v w.PMS >filt.out 2>&1
	rc=$?
	[ $rc -eq 2 ] && grep -q "^pmehisto: --tid 1: the filters narrow samples, not the records of -V $v: the measures (-M wall, or a state: -M lock, ...) show them filtered\$" \
	    filt.out || fail "-V $v --tid 1: exit $rc: $(head -n 1 filt.out)"
done

# Standard input: -M wall reads the file twice (a usage error, 2); a file
# cut before its header keeps the reader's words.
"$pmehisto" -x -M wall -T folded - <w.PMS >stdin.out 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "standard input: -M wall reads the sample file" \
    stdin.out || fail "-M wall from standard input: exit $rc: $(cat stdin.out)"
head -c 100 w.PMS >head.PMS
"$pmehisto" -x -M lock head.PMS >head.out 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "cut short before its header chunk" head.out ||
    fail "-M lock of a file cut before its header: exit $rc: $(cat head.out)"

# A run without -w.
"$pmeclock" -o plain.PMS true 2>/dev/null
"$pmehisto" -x -M lock plain.PMS >plain.out 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "no wall-time records (record them with pmeclock -w)" \
    plain.out || fail "-M lock without -w: exit $rc: $(cat plain.out)"
finish
