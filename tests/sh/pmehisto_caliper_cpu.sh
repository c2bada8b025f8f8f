#!/bin/bash
#
# pmehisto_caliper_cpu.sh - pmehisto -V caliper's CPU Summary and its
# thread table's CPUs column (issue 28) against the raw samples of the
# same run.  The fixture (tests/fixtures/filters/phases.c) runs two
# threads, each pinned with sched_setaffinity to a CPU of its own (0 and
# 1), each in phase_a and then phase_b; pmeclock records it.  The
# reference is pmsstat -s's samples (CPU, thread, intervals, function:
# tests/fixtures/clock/pmsstat.c).  -V caliper:cpu -T csv must give each
# CPU the intervals the reference has on it, exactly; -V caliper:thread
# each thread the set of CPUs the reference has its samples on, as a
# list ("0", "1-3", "0,2"); each CPU's top function must be one of the
# reference's largest on it among the program's functions.  The text's
# CPU Summary has as many rows; a run of several sample files says each
# CPU once with their sum.  Skipped with one CPU: nothing to pin apart.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$pmeclock" "$pmehisto"
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
[ "$ncpu" -ge 2 ] || skip "one CPU online: no threads pinned to two CPUs"
cd "$tmp" || exit 1
${CC:-cc} -O1 -g -o phases "$top/tests/fixtures/filters/phases.c" \
    -lpthread || { fail "cannot build the fixture"; finish; }
cc_libpme pmsstat "$top/tests/fixtures/clock/pmsstat.c" -lelf || finish
"$pmeclock" -q -o run.PMS -- ./phases pin 2>clock.err ||
    { fail "pmeclock: $(cat clock.err)"; finish; }
grep -q sched_setaffinity clock.err &&
    skip "sched_setaffinity refused here: $(head -n 1 clock.err)"
./pmsstat -s run.PMS >raw || { fail "pmsstat -s: exit $?"; finish; }

# The reference: "cpu CPU INTERVALS" (CPU -1 unknown: "?"), "thread TID
# CPU,CPU,..." (ascending, known ones; "?" for none), "fn CPU NAME N".
awk '$1 == "s" { c = $5 == -1 ? "?" : $5
	n[c] += $6; if ($5 != -1) on[$4 "," $5] = 1; t[$4] = 1
	f[c " " $7] += $6 }
    END { for (c in n) print "cpu", c, n[c]
	for (k in on) { split(k, a, ","); print "on", a[1], a[2] }
	for (x in t) print "tid", x
	for (k in f) print "fn", k, f[k] }' raw >ref
[ "$(grep -c '^cpu [0-9]' ref)" -ge 2 ] ||
    fail "the pinned threads' samples are on fewer than two CPUs: $(cat ref)"

$PME_VALGRIND "$pmehisto" -q -V caliper:cpu -T csv -o /dev/null run.PMS \
    >cpu.csv 2>err || { fail "-V caliper:cpu -T csv: $(cat err)"; finish; }
head -n 1 cpu.csv | grep -q ',address,cpu,text$' ||
    fail "no cpu column before text: $(head -n 1 cpu.csv)"
# Per CPU: pme's samples against the reference's, every CPU of either.
awk -F, 'NR > 1 && $1 == "cpu" { print "cpu", $12, $2 }' cpu.csv |
    sort >got.cpu
grep '^cpu ' ref | sort >want.cpu
cmp -s got.cpu want.cpu ||
    fail "per-CPU samples (cpu CPU N) differ, pme then the reference:
$(cat got.cpu)
--
$(cat want.cpu)"

# The top function of each CPU is one of the largest the reference has
# there (the program's functions: its kernel rows are one "[kernel]").
awk -F, 'NR > 1 && $1 == "cpu" && $8 ~ /^phase_/ { print $12, $8 }' \
    cpu.csv >top
[ -s top ] || fail "no CPU's top function is a phase: $(cat cpu.csv)"
while read -r c f; do
	awk -v c="$c" -v f="$f" '$1 == "fn" && $2 == c && $3 !~ /^\[/ {
		if ($3 == f) mine = $4; if ($4 > most) most = $4 }
	    END { exit !(mine > 0 && mine == most) }' ref ||
	    fail "CPU $c: top function $f is not the reference's largest:
$(grep "^fn $c " ref)"
done <top

# Per thread: the CPUs it ran on, as a list, against the reference's.
$PME_VALGRIND "$pmehisto" -q -V caliper:thread -T csv -o /dev/null \
    run.PMS >thr.csv 2>err || fail "-V caliper:thread -T csv: $(cat err)"
# The CPUs field (the 12th, quoted when it holds a comma) expanded.
awk -F, 'NR > 1 && $1 == "thread" {
	l = $0; for (k = 0; k < 11; k++) sub(/^[^,]*,/, "", l)
	if (l ~ /^"/) { sub(/^"/, "", l); sub(/".*/, "", l) }
	else sub(/,.*/, "", l)
	m = split(l, r, ",")
	for (i = 1; i <= m; i++)
		if (r[i] ~ /-/) { split(r[i], b, "-")
			for (k = b[1] + 0; k <= b[2] + 0; k++) print $6, k }
		else if (r[i] != "?") print $6, r[i] }' thr.csv | sort >got.on
awk '$1 == "on" { print $2, $3 }' ref | sort >want.on
cmp -s got.on want.on ||
    fail "threads' CPUs (tid CPU) differ, pme then the reference:
$(cat got.on)
--
$(cat want.on)"
[ "$(awk -F, 'NR > 1 && $1 == "thread"' thr.csv | wc -l)" = \
    "$(grep -c '^tid ' ref)" ] || fail "not a row per thread: $(cat thr.csv)"

# The text: a CPU Summary with a row per CPU, a CPUs column.
"$pmehisto" -q -V caliper -o - run.PMS >all.txt 2>err ||
    fail "-V caliper: $(cat err)"
rows=$(sed -n '/^CPU Summary/,/^$/p' all.txt |
    grep -Ec '^ +[0-9.]+ +[0-9.]+ +[0-9]+  [0-9?]+ ')
[ "$rows" = "$(grep -c '^cpu ' ref)" ] ||
    fail "CPU Summary: $rows rows, not $(grep -c '^cpu ' ref): $(cat all.txt)"
grep -q '^ % Total  Cumulat  Samples  Thread  Process  CPUs  ' all.txt ||
    fail "Thread Summary has no CPUs column"

# Two sample files: each CPU's samples are the sum of both.
"$pmehisto" -q -V caliper:cpu -T csv -o /dev/null run.PMS run.PMS \
    >two.csv 2>err || fail "two files: $(cat err)"
awk -F, 'NR > 1 { print "cpu", $12, $2 / 2 }' two.csv | sort >got2
cmp -s got2 want.cpu || fail "two files: $(cat two.csv)"
# Trace input has no CPUs: an error naming the level, as for threads.
"$pmehisto" -q -x -B filled.PME -T none -o /dev/null run.PMS ||
    fail "pmehisto -x -B failed"
expect "caliper:cpu of trace input" 1 "$pmehisto" -t -b filled.PME \
    -V caliper:cpu -o -
grep -q "caliper:cpu: trace input ('filled.PME') holds counts per bucket, not per CPU" err ||
    fail "trace input: $(cat err)"
finish
