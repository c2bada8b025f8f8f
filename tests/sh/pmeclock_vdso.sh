#!/bin/bash
#
# pmeclock_vdso.sh - the vDSO's code (clock_gettime) named with the perf
# method, as perf names it, where its samples were "unmapped" before
# (93% of them for a program that reads the clock in a loop).  pmeclock
# writes the image of its own vDSO, named by its build-id, to
# $XDG_CACHE_HOME/pme/vdso/BUILD-ID/[vdso] (sample/vdso.c), and gives the
# program's [vdso] mapping that file.  Checked on
# tests/fixtures/clock/vdsoloop.c, run by pmeclock under perf record, the
# same run sampled by both (and by the preload methods, whose runtime
# finds the vDSO by dl_iterate_phdr): the file's build-id is readelf's, and that of
# the mapping perf reports (perf buildid-list); no sample unmapped;
# __vdso_clock_gettime's share of the program's samples within five
# standard deviations of the difference from perf's; with -g its
# stacks unwound through the vDSO to main (its CFI, as a library's), and
# callgrind_annotate of the callgrind export agreeing; a
# process attached to (-p) the same; and without a cache directory to
# write (HOME and XDG_CACHE_HOME unset), nothing said, the samples
# unmapped as before.  Skipped where perf_event_open is refused or perf
# cannot record.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"

if ! $pmeclock -q -m perf -o probe -- true 2>"$tmp/err"; then
	skip "perf_event_open refused here: $(head -n 1 "$tmp/err")"
fi
command -v perf >/dev/null 2>&1 || skip "no perf here"
build_more vdsoloop
export XDG_CACHE_HOME=$tmp/cache

if ! perf record -q -e cpu-clock -c 1000000 -o v.data -- \
    $pmeclock -q -F 1000 -o v.PMS -- ./vdsoloop 30 >perf.err 2>&1 ||
    ! perf script -i v.data --comm vdsoloop -F ip,sym >perf.txt \
    2>perf.err; then
	skip "perf record around pmeclock fails here: $(head -n 1 perf.err)"
fi

# The file, its build-id readelf's and perf's.
f=$(ls "$tmp"/cache/pme/vdso/*/"[vdso]" 2>/dev/null | head -n 1)
[ -n "$f" ] || { fail "no [vdso] in $tmp/cache: $(ls -R "$tmp/cache")"
    finish; }
id=$(basename "$(dirname "$f")")
rid=$(readelf -n "$f" | sed -n 's/.*Build ID: *//p')
[ "$id" = "$rid" ] || fail "[vdso]: named $id, readelf says '$rid'"
perf buildid-list -i v.data 2>/dev/null | grep -q "^$id \[vdso\]" ||
    fail "[vdso]: perf's build-id is not $id: $(perf buildid-list \
    -i v.data 2>&1 | grep vdso)"

stat v.PMS
has "mapping" "^map [0-9]* \[vdso\] x$"
[ "$(field unmapped)" = 0 ] || fail "$(field unmapped) samples unmapped"
"$pmehisto" -q -x -T csv -o /dev/null -B /dev/null v.PMS >v.csv ||
    fail "pmehisto -x: $?"
n=$(awk -F, 'NR > 1 { n += $7 } END { print n + 0 }' v.csv)
k=$(awk -F, '$2 == "__vdso_clock_gettime" && $NF ~ /\/\[vdso\]$/ {
    print $7 }' v.csv)
read -r pk pn <<<"$(awk 'NF > 0 { n++ } $2 == "__vdso_clock_gettime" {
    k++ } END { print k + 0, n + 0 }' perf.txt)"
[ -n "$k" ] && [ "$n" -gt 0 ] && [ "$pn" -gt 0 ] ||
    { fail "__vdso_clock_gettime: pme '$k' of $n, perf $pk of $pn"; finish; }
echo "pmeclock_vdso: __vdso_clock_gettime: pme $k of $n, perf $pk of $pn"
# Five standard deviations of the difference of the two shares, and a
# sample of each.
awk -v a="$k" -v na="$n" -v b="$pk" -v nb="$pn" 'BEGIN {
	p = (a / na + b / nb) / 2
	tol = 5 * sqrt(p * (1 - p) * (1 / na + 1 / nb)) + 1 / na + 1 / nb
	d = a / na - b / nb
	exit !(d <= tol && -d <= tol) }' ||
    fail "__vdso_clock_gettime: pme $k of $n, perf $pk of $pn"

# -g: through the vDSO to main.
run 0 "-g" -q -g -o g.PMS -- ./vdsoloop 10
"$pmehisto" -q -x -T folded -B /dev/null g.PMS >g.folded 2>g.err ||
    fail "pmehisto -T folded: $(cat g.err)"
awk '$1 ~ /__vdso_clock_gettime$/ { v += $2; if ($1 ~ /;main;reads;/) m += $2 }
    END { exit !(v > 0 && v == m) }' g.folded ||
    fail "-g: the vDSO's stacks do not all reach main: $(grep vdso g.folded | head -5)"

# The callgrind export of the same run: the vDSO's routine with its
# callees, as callgrind_annotate reads it (the object's path ends in
# "[vdso]", brackets in brackets), inclusive as the folded stacks say.
if command -v callgrind_annotate >/dev/null; then
	. "$top/tests/sh/lib/stacks.sh"
	"$pmehisto" -q -x -T callgrind -B /dev/null -o g.callgrind g.PMS \
	    2>g.err || fail "-T callgrind: $(cat g.err)"
	sed 's/_\[k\]//g' g.folded >g.plain
	want=$(inclusive g.plain | awk '$1 == "__vdso_clock_gettime"')
	got=$(cg_functions --inclusive=yes g.callgrind |
	    awk '$1 == "__vdso_clock_gettime"')
	[ -n "$want" ] && [ "$got" = "$want" ] ||
	    fail "-T callgrind: callgrind_annotate '$got', folded '$want'"
fi

# -p: the mapping found in /proc/PID/maps.
./vdsoloop forever >ready.txt &
pid=$!
for i in $(seq 100); do [ -s ready.txt ] && break; sleep 0.1; done
$pmeclock -q -p $pid -d 0.5 -o p.PMS 2>p.err || fail "-p: $(cat p.err)"
kill $pid
wait $pid 2>/dev/null
stat p.PMS
has "-p: mapping" "^map $pid \[vdso\] x$"

# The preload methods: the runtime finds the vDSO among the objects
# dl_iterate_phdr lists, pmeclock gives it the file by its build-id.
for m in timer itimer; do
	run 0 "-m $m" -q -m $m -o t.PMS -- ./vdsoloop 10
	stat t.PMS
	has "-m $m: mapping" "^map [0-9]* \[vdso\] x$"
	[ "$(field unmapped)" = 0 ] ||
	    fail "-m $m: $(field unmapped) samples unmapped"
	# (pmsstat names the routine by either of its two symbols.)
	[ "$(awk '$1 == "sym" && $2 == "[vdso]" && $3 ~ /clock_gettime$/ {
	    n += $4 } END { print n + 0 }' "$tmp/stat")" -gt 0 ] ||
	    fail "-m $m: no sample in the vDSO's clock_gettime"
done

# No cache directory: as before, and nothing said.
env -u HOME -u XDG_CACHE_HOME $pmeclock -o n.PMS -- ./vdsoloop 5 \
    >/dev/null 2>n.err || fail "no cache: exit status $?: $(cat n.err)"
[ ! -s n.err ] || fail "no cache: said $(cat n.err)"
stat n.PMS
grep -q '\[vdso\]' "$tmp/stat" && fail "no cache: a [vdso] mapping"
[ "$(field unmapped)" -gt 0 ] || fail "no cache: no sample unmapped"
finish
