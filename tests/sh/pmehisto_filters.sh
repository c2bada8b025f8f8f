#!/bin/bash
#
# pmehisto_filters.sh - pmehisto's sample filters (--time, --tid, --pid,
# --comm, --cpu; issue 28) keep exactly the samples a reference filter
# keeps on the same sample file.  The fixture (tests/fixtures/filters/
# phases.c) runs two threads, each pinned to a CPU of its own where the
# machine has two, each in phase_a and then phase_b; pmeclock records it.
# The reference is an awk script over the file's raw samples (pmsstat -s:
# time from the run's start, pid, tid, cpu, intervals, routine, and the
# thread records in file order, for --comm).  For each filter: the
# per-routine counts of the flat view (-T csv) equal the reference's, the
# summary's "kept K of N samples" equal its, a folded export and the
# Caliper function view sum to the same total, stats -f draws as many
# intervals of phase_a and phase_b (with the perf method's samples of one
# interval each) and says it kept as many.  Then a joined file of two
# runs (pmemerge), filtered by each run's own start, and bad filters
# (usage errors naming the option and the text).  Nothing here is timed:
# the phases' samples are whatever they are; the comparison is against
# the reference on the same file.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

pmemerge=$top/histo/pmemerge
stats=$top/stats/stats
need "$pmebuild" "$pmeclock" "$pmehisto" "$pmemerge" "$stats"
cd "$tmp" || exit 1
${CC:-cc} -O1 -g -o phases "$top/tests/fixtures/filters/phases.c" \
    -lpthread || { fail "cannot build the fixture"; finish; }
cc_libpme pmsstat "$top/tests/fixtures/clock/pmsstat.c" -lelf || finish
"$pmebuild" -q -x ./phases -o ph.PME || fail "pmebuild: exit $?"
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
pin=
[ "$ncpu" -ge 2 ] && pin=pin
# With call chains where pmeclock -g can record them: the folded export
# and the Spy then take the chains of the samples kept.
g=-g
"$pmeclock" -q -g -o run.PMS -- ./phases $pin 2>clock.err || {
	echo "without call chains: pmeclock -g: $(head -n 1 clock.err)"
	g=
	"$pmeclock" -q -o run.PMS -- ./phases $pin ||
	    fail "pmeclock: exit $?"
}
./pmsstat -s run.PMS >raw || { fail "pmsstat -s: exit $?"; finish; }
total=$(grep -c '^s ' raw)
[ "$total" -gt 0 ] || { fail "no samples in run.PMS"; finish; }
# stats draws a slice a sample, each standing for one interval, when the
# perf method samples with the default 10 ms period.
perf=
grep -q '^method perf period 10000000 ' raw && perf=1
[ -n "$perf" ] || echo "stats' slices not checked: $(head -1 raw)"


# The reference: the samples of raw that pass the filter given as awk
# variables (t0, t1 in ns, "" for none; tid, pid, cpu, comm), by routine
# ("name count"), then "kept K" and "intervals I".  A t0 of
# "pct:LO-HI,..." is windows in percent of each run's length (its close
# line's, read in a first pass, or where a run has none, its last
# sample's time): from int(length * LO / 100) to int(length * HI / 100),
# not included unless HI is 100.
reference() {
	awk -v t0="$1" -v t1="$2" -v tid="$3" -v pid="$4" -v cpu="$5" \
	    -v comm="$6" '
	BEGIN { if (t0 ~ /^pct:/) {
		nw = split(substr(t0, 5), w, ",")
		for (i = 1; i <= nw; i++) { split(w[i], b, "-")
			lo[i] = b[1]; hi[i] = b[2] }
		t0 = "" } }
	FNR == NR { if ($1 == "method") r++
		if ($1 == "s" && $2 > mx[r]) mx[r] = $2
		if ($1 == "close") len[++nr] = $NF; next }
	$1 == "method" && !((run + 1) in len) { len[run + 1] = mx[run + 1] }
	$1 == "method" { run++ }
	$1 == "thread" && ($2 == "exec" || $2 == "comm") { c[$4] = $5 }
	$1 == "thread" && $2 == "fork" { c[$4] = c[$5] }
	$1 != "s" { next }
	t0 != "" && $2 < t0 { next }
	t1 != "" && $2 >= t1 { next }
	nw > 0 { in_w = 0
		for (i = 1; i <= nw; i++)
			if ($2 >= int(len[run] * lo[i] / 100) && (hi[i] >= 100 ||
			    $2 < int(len[run] * hi[i] / 100)))
				in_w = 1
		if (!in_w) next }
	tid != "" && $4 != tid { next }
	pid != "" && $3 != pid { next }
	cpu != "" && $5 != cpu { next }
	comm != "" && c[$4] != comm { next }
	{ n[$7] += $6; kept++; iv += $6 }
	END { for (k in n) print k, n[k]; print "kept", kept + 0
	    print "intervals", iv + 0 }' raw raw
}

# check WHAT T0 T1 TID PID CPU COMM -- OPTIONS...: the flat view, the
# summary, the folded export and the Caliper view under OPTIONS against
# the reference of the same filter.
check() {
	local what=$1 ref kept got folded cal
	ref=$(reference "$2" "$3" "$4" "$5" "$6" "$7")
	shift 8
	kept=$(echo "$ref" | sed -n 's/^kept //p')
	$PME_VALGRIND "$pmehisto" -q -b ph.PME -B o.PME -T csv -o /dev/null \
	    "$@" run.PMS >csv 2>err || { fail "$what: -T csv: $(cat err)"; return; }
	# Every routine of the program the reference names (its symbol
	# table's functions; the PLT's stubs are in none) counts as many.
	got=$(csv_counts <csv | awk -v ref="$ref" 'BEGIN {
		n = split(ref, l, "\n")
		for (i = 1; i <= n; i++) { split(l[i], f, " "); r[f[1]] = f[2] } }
	    $1 !~ /@plt$/ && $2 != r[$1] + 0 { print $1 " " $2 " not " \
		r[$1] + 0 }')
	[ -z "$got" ] || fail "$what: flat view: $got"
	"$pmehisto" -q -b ph.PME -B o.PME -T text -o /dev/null "$@" \
	    run.PMS >text 2>err || fail "$what: -T text: $(cat err)"
	grep -q "^Filters: *.*: kept $kept of $total samples\$" text ||
	    fail "$what: summary: $(grep Filters text), not kept $kept of" \
		"$total"
	folded=$("$pmehisto" -q -b ph.PME -B o.PME -T folded -o /dev/null \
	    "$@" run.PMS 2>err | awk '{ n += $NF } END { print n + 0 }')
	[ "$folded" = "$(echo "$ref" | sed -n 's/^intervals //p')" ] ||
	    fail "$what: folded sums to $folded: $(echo "$ref" | tail -1)"
	cal=$("$pmehisto" -q -V caliper:function -T csv "$@" run.PMS \
	    2>err | awk -F, '$1 == "function" { n += $2 } END { print n + 0 }')
	[ "$cal" = "$folded" ] ||
	    fail "$what: -V caliper:function sums to $cal, not $folded"
	# stats draws the same samples: its rows' slices in phase_a and
	# phase_b, a slice a sample (with the perf method, whose samples
	# each stand for one interval; their time is not compared, as a
	# timer that fires late makes two samples' intervals overlap), and
	# its count of those kept.
	if [ -n "$perf" ]; then
		"$stats" -f run.PMS -B ph.PME -T csv "$@" states >scsv \
		    2>err || fail "$what: stats: $(head -1 err)"
		got=$(awk -F, -v ref="$ref" 'BEGIN {
			n = split(ref, l, "\n")
			for (i = 1; i <= n; i++) { split(l[i], f, " ")
				r[f[1]] = f[2] } }
		    NR > 1 { gsub(/"/, "", $5); t[$5]++ }
		    END { for (k in r) if (k ~ /^phase_[ab]$/ &&
			t[k] != r[k]) print k, t[k] + 0, "not", r[k] }' \
		    scsv)
		[ -z "$got" ] || fail "$what: stats: $got"
		grep -q "^stats: 'run.PMS': filters .*: kept $kept of $total samples\$" \
		    err || fail "$what: stats: $(cat err), not kept $kept"
	fi
	# The quick path (-x, read once) counts the fixture's routines
	# alike; the Spy takes as many samples.
	got=$("$pmehisto" -q -x -T csv -o /dev/null "$@" run.PMS 2>err |
	    csv_counts | awk -v ref="$ref" 'BEGIN {
		n = split(ref, l, "\n")
		for (i = 1; i <= n; i++) { split(l[i], f, " "); r[f[1]] = f[2] } }
	    $1 ~ /^phase_[ab]$/ && $2 != r[$1] + 0 { print $1 " " $2 " not " \
		r[$1] + 0 }')
	[ -z "$got" ] || fail "$what: -x flat view: $got $(cat err)"
	if [ -n "$g" ]; then
		"$pmehisto" -q -x -V spy -o /dev/null "$@" run.PMS >spy 2>err ||
		    fail "$what: -V spy: $(cat err)"
		grep -q "^Samples: $kept," spy ||
		    fail "$what: -V spy: $(grep '^Samples' spy), not $kept"
	fi
	echo "$what: kept $kept of $total"
}

main=$(awk '$1 == "thread" && $2 == "exec" { print $4; exit }' raw)
worker=$(awk '$1 == "thread" && $2 == "comm" && $5 == "worker" {
    print $4; exit }' raw)
[ -n "$main" ] && [ -n "$worker" ] ||
    { fail "no exec or worker thread record: $(grep thread raw)"; finish; }
# The window's edges: a third and two thirds of the last sample's time.
last=$(awk '$1 == "s" && $2 > m { m = $2 } END { print m }' raw)
e1=$((last / 3))
e2=$((2 * last / 3))
s1=$(awk -v n="$e1" 'BEGIN { printf "%.9f", n / 1e9 }')
s2=$(awk -v n="$e2" 'BEGIN { printf "%.9f", n / 1e9 }')

check "--tid worker" "" "" "$worker" "" "" "" -- --tid "$worker"
check "--tid main" "" "" "$main" "" "" "" -- --tid "$main"
check "--pid" "" "" "" "$main" "" "" -- --pid "$main"
check "--comm worker" "" "" "" "" "" worker -- --comm worker
check "--comm phases" "" "" "" "" "" phases -- --comm phases
check "--time window" "$e1" "$e2" "" "" "" "" -- --time "$s1,$s2"
check "--time from" "$e2" "" "" "" "" "" -- --time "$s2,"
check "--time to" "" "$e1" "" "" "" "" -- --time ",$s1"
check "--time and --tid" "$e1" "" "$worker" "" "" "" -- \
    --time "$s1," --tid "$worker"
# In percent of the run (perf report's forms): a slice, a range, two
# ranges, and a slice to the end.
check "--time 25%/2" pct:25-50 "" "" "" "" "" -- --time 25%/2
check "--time 10%-40%" pct:10-40 "" "" "" "" "" -- --time 10%-40%
check "--time two windows" pct:0-20,60-80 "" "" "" "" "" -- \
    --time 0%-20%,60%-80%
check "--time 50%/2 and --tid" pct:50-100 "" "$worker" "" "" "" -- \
    --time 50%/2 --tid "$worker"
if [ -n "$pin" ]; then
	check "--cpu 0" "" "" "" "" 0 "" -- --cpu 0
	check "--cpu 1" "" "" "" "" 1 "" -- --cpu 1
	# Pinned: a thread's samples are those of its CPU.
	[ "$(reference "" "" "" "" 1 "" | tail -2)" = \
	    "$(reference "" "" "$worker" "" "" "" | tail -2)" ] ||
	    fail "--cpu 1 is not the worker's samples (not pinned?)"
else
	echo "the CPU filter not checked against pinned threads: one CPU"
fi

# A run cut short before its closing record (a killed pmeclock): its
# length in percent is its last sample's time (pmehisto reads the
# closing records first, passing the samples over, and the samples only
# for a run without one).
off=$(grep -obUa CLOS run.PMS | tail -n 1 | cut -d: -f1)
mv run.PMS whole.PMS && head -c "${off:-0}" whole.PMS >run.PMS
./pmsstat -s run.PMS >raw || fail "pmsstat -s of the cut run: exit $?"
total=$(grep -c '^s ' raw)
! grep -q '^close' raw && [ "$total" -gt 0 ] ||
    fail "the run cut at offset $off still closed, or without samples"
check "cut short --time 25%/2" pct:25-50 "" "" "" "" "" -- --time 25%/2
check "cut short --time 50%-100%" pct:50-100 "" "" "" "" "" -- \
    --time 50%-100%
mv whole.PMS run.PMS && ./pmsstat -s run.PMS >raw
total=$(grep -c '^s ' raw)

# A joined file of two runs: --time from each run's own start.
"$pmeclock" -q $g -o run2.PMS -- ./phases $pin || fail "pmeclock: exit $?"
"$pmemerge" -q -o join.PMS run.PMS run2.PMS || fail "pmemerge: exit $?"
mv run.PMS one.PMS && mv join.PMS run.PMS
./pmsstat -s run.PMS >raw || fail "pmsstat -s join: exit $?"
total=$(grep -c '^s ' raw)
check "joined --time" "" "$e1" "" "" "" "" -- --time ",$s1"
check "joined --comm" "" "" "" "" "" worker -- --comm worker
# In percent: of each run's own length.
check "joined --time 20%/2" pct:20-40 "" "" "" "" "" -- --time 20%/2
[ "$(reference "" "$e1" "" "" "" "" | sed -n 's/^kept //p')" -gt \
    "$(awk -v e="$e1" '$1 == "s" && $2 < e { n++ } /^close/ { exit }
    END { print n + 0 }' raw)" ] ||
    fail "joined --time: the second run's window kept nothing"

# Bad filters: usage errors naming the option and the text.
for bad in "--time 5,1" "--time 1" "--time a,2" "--time -1,2" \
    "--time 10%/11" "--time 0%/1" "--time 20%-10%" "--time 10%-101%" \
    "--time 10%,20%" "--time 10%/2," "--time 1,20%" \
    "--tid x" "--tid 1-" "--pid 1,,2" "--cpu 3-1" "--comm="; do
	expect "$bad" 2 $PME_VALGRIND "$pmehisto" -q -b ph.PME -B o.PME -T csv -o /dev/null \
	    $bad one.PMS
	opt=${bad%%[ =]*}
	text=${bad#"$opt"}
	text=${text#[ =]}
	grep -q "^pmehisto: $opt: '$text' is not" "$tmp/err" ||
	    fail "$bad: $(head -1 "$tmp/err")"
done
for twice in "--time 1,2 --time 3,4" "--comm a --comm b"; do
	expect "$twice" 2 "$pmehisto" -q -b ph.PME -B o.PME -T csv \
	    -o /dev/null $twice one.PMS
	grep -q "^pmehisto: ${twice%% *}: given twice" "$tmp/err" ||
	    fail "$twice: $(head -1 "$tmp/err")"
done
# A list given twice is joined.
check "--tid twice" "" "" "" "$main" "" "" -- --tid "$main" --tid "$worker"
# In percent from standard input: refused (its runs' lengths are read
# first), nothing written.
"$pmehisto" -q -b ph.PME -B pct.PME -T csv -o pct.csv --time 10%/1 - \
    <one.PMS >/dev/null 2>err
rc=$?
[ "$rc" = 1 ] && grep -q "^pmehisto: standard input: --time in percent" err ||
    fail "--time 10%/1 of standard input: exit $rc: $(head -1 err)"
[ ! -e pct.csv ] && [ ! -e pct.PME ] ||
    fail "--time 10%/1 of standard input: wrote $(ls pct.*)"
# Filters of a filled bucket file (trace input) are refused.
expect "-t --tid 1" 2 "$pmehisto" -t -b o.PME -o /dev/null --tid 1
finish
