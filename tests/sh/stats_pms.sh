#!/bin/bash
#
# stats_pms.sh - stats(1) draws a sampled run: pmeclock samples a program
# of two threads, each spinning in a routine of its own
# (tests/fixtures/stats/twothreads.c); stats draws the sample file as a
# state graph of a row per thread, coloured by the routine pmebuild's
# buckets name.  Checked: two rows, the main thread's row mostly spin_a
# and the other's mostly spin_b (more than half its time, more than any
# other routine), by the time the CSV gives each (a thread's samples are
# its own: the split hardly depends on the load),
# the axis from 0 in nanoseconds (PostScript's in s, ms or us), and -b
# module.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

stats=$top/stats/stats
need "$stats" "$pmebuild" "$pmeclock"
cd "$tmp" || exit 1
if ! ${CC:-cc} -O1 -g -o two "$top/tests/fixtures/stats/twothreads.c" \
    -lpthread; then
	fail "cannot build the fixture"
	finish
fi
"$pmebuild" -q -x ./two -o two.pme || fail "pmebuild: exit $?"
"$pmeclock" -q -o run.pms -- ./two || fail "pmeclock: exit $?"
"$stats" -f run.pms -B two.pme -T csv states >csv 2>err ||
    fail "stats: exit $?: $(cat err)"
# Time per row and label.
awk -F, 'NR > 1 { l = $0; for (i = 0; i < 4; i++) sub(/^[^,]*,/, "", l)
    gsub(/"/, "", l); t[$1 "|" l] += $3 - $2; rows[$1] = 1 }
    END { for (k in t) print k "|" t[k]; n = 0; for (r in rows) n++
    print "rows|" n }' csv >split
[ "$(sed -n 's/^rows|//p' split)" = 2 ] || fail "not two rows: $(cat split)"
# The row whose time is mostly spin_a, and the one mostly spin_b.
for r in spin_a spin_b; do
	# Mostly: more than half the row's time, and more than any other
	# routine's (the kernel's share grows with the load).
	awk -F'|' -v r=$r '$1 != "rows" { tot[$1] += $3
		if ($2 == r) in_[$1] = $3; else if ($3 > top[$1]) top[$1] = $3 }
	    END { for (k in in_) if (in_[k] > 0.5 * tot[k] && in_[k] > top[k])
		found = 1
	    exit !found }' split || fail "no row mostly $r: $(cat split)"
done
"$stats" -f run.pms -B two.pme -T text -w 60 states >text 2>err ||
    fail "text: $(cat err)"
grep -q '^run.pms: ns 0 to ' text || fail "axis: $(sed -n 2p text)"
grep -q 'Time / ns' text || fail "unit: $(grep Time text)"
# PostScript's time axis in the largest of s, ms and us the run reaches,
# its end with four significant digits (issue 23 item 8: nanoseconds).
"$stats" -f run.pms -B two.pme -T ps -o run.ps states 2>err ||
    fail "ps: $(cat err)"
grep -Eq '\(Time / (s|ms|us)\)' run.ps ||
    fail "ps: axis unit: $(grep -o '(Time / [^)]*)' run.ps)"
grep -Eq '\(run\.pms: (s|ms|us) 0\.?0* to [0-9]{1,3}\.?[0-9]*, rows' run.ps ||
    fail "ps: subtitle: $(grep -o '(run.pms: [^)]*)' run.ps)"
# Chrome's trace format: consecutive samples in one routine are one slice
# (issue 23 item 8: a slice a sample), when the gap between them (the
# timer's jitter) is shorter than a sample's weight; a longer gap ends
# one.
need "$tsample"
cat >adj.smp <<'S'
header method=test event=cpu-clock period=10000000 pid=7 start=0 start_mono=0 argv=./adj
map pid=7 start=0x555555554000 end=0x555555560000 offset=0 vaddr=0 path=/nonexistent/adj flags=exec,main
sample pid=7 pc=0x555555555000 time=10000000 weight=10000000
sample pid=7 pc=0x555555555000 time=20000050 weight=10000000
sample pid=7 pc=0x555555555000 time=30000100 weight=10000000
sample pid=7 pc=0x555555555000 time=50000100 weight=10000000
close end=50000100 status=0 threads=1
S
"$tsample" write adj.pms <adj.smp || fail "t_sample write adj.smp"
"$stats" -f adj.pms -T json 2>err | grep '"ph":"X"' |
    sed 's/.*"ts":\([0-9.]*\),"dur":\([0-9.]*\),"name":"\([^"]*\)".*/\1+\2 \3/' >adj.x
printf '%s\n' '0.000+30000.100 adj' '40000.100+10000.000 adj' >adj.want
diff -u adj.want adj.x >diff || fail "json slices: $(cat diff)"
# A sample whose interval begins before the previous one ended (a timer
# that fired late, then on time: 10 ms, 18 ms, 28 ms) holds the overlap;
# the previous sample's end cut it short and left [10, 18) blank, the
# row's time 20 ms where its samples' union is 28 ms.
sed -e '/^sample/d' -e '/^close/d' adj.smp >ovl.smp
cat >>ovl.smp <<'S'
sample pid=7 pc=0x555555555000 time=10000000 weight=10000000
sample pid=7 pc=0x555555555000 time=18000000 weight=10000000
sample pid=7 pc=0x555555555000 time=28000000 weight=10000000
close end=28000000 status=0 threads=1
S
"$tsample" write ovl.pms <ovl.smp || fail "t_sample write ovl.smp"
"$stats" -f ovl.pms -T csv states >ovl.csv 2>err || fail "stats ovl: $(cat err)"
got=$(awk -F, 'NR > 1 { t += $3 - $2 } END { print t + 0 }' ovl.csv)
[ "$got" = 28000000 ] ||
    fail "overlapping samples: the row holds $got ns, not 28000000: $(cat ovl.csv)"
"$stats" -f run.pms -b module -T text -w 60 states >mod 2>err ||
    fail "-b module: $(cat err)"
grep -q '  two  *[0-9.]*%$' mod || fail "-b module: $(sed -n '/Legend/,$p' mod)"
finish
