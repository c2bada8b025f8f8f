#!/bin/bash
#
# pmehisto_diffsvg.sh - pmehisto -T svg -D baseline: the differential
# flame graph (and -T folded -D, its input in FlameGraph's form).  Two t_sample texts with call chains against
# tests/histo/map.pmd (as in pmehisto_exports), the baseline of another
# total, with a stack that grew, one that shrank, one only in the new
# run and one only in the baseline.  Every frame of the graph is checked
# exactly against the two runs' -T folded lines, summed per path by awk
# here: its width (data-n) is the new run's samples on its path, data-b
# the baseline's, and its colour red (rgb(255,c,c)) where its share of
# the total grew, blue (rgb(c,c,255)) where it shrank, grey where it
# kept it (shares compared in integers: n x baseline total against b x
# new total), the largest change deepest (c = 0).  -T folded -D writes
# each stack of either run with both counts, as FlameGraph's
# difffolded.pl, equal to join(1) of the two runs' lines.  Then: the graph is
# well-formed XML and says what it compares; -D names a sample file
# (.PMS by default); a baseline that is missing, is a bucket file or
# holds another measure fails clearly and writes nothing; -D with -T callgrind and pprof stays
# a usage error (pmehisto_exports).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$tsample"
command -v xmllint >/dev/null || skip "no xmllint (libxml2-utils)"

cd "$tmp" || exit 1
cp "$top/tests/histo/map.pmd" "$top/tests/histo/prog.map" . || exit 1
"$pmebuild" -q -o in.PME map.pmd || { fail "pmebuild map.pmd"; exit 1; }

# PROG at 0x555555554000 (link-time 0x1000 at 0x555555555000): Scrt1.o
# 1040-1061, main.o 1062-117F, work.o 1180-137F, util.o 1380-13FF.
head='header method=test event=cpu-clock period=2000000 pid=300 start=0 start_mono=0 flags=callchain argv=./prog
map pid=300 start=0x555555555000 end=0x555555556000 offset=0x1000 vaddr=0x1000 path=/home/u/prog flags=exec,main
map pid=300 start=0x7ffff7c28000 end=0x7ffff7dbd000 offset=0x28000 vaddr=0x28000 path=/lib/x86_64-linux-gnu/libc.so.6 flags=exec'
{
	echo "$head"
	cat <<'SMP'
sample pid=300 pc=0x5555555552a0 frames=0x555555555180,0x555555555050,0x7ffff7c29d90 count=10
sample pid=300 pc=0x555555555390 frames=0x555555555200,0x555555555300,0x555555555100 count=4
sample pid=300 pc=0x7ffff7c30000 frames=0x555555555390,0x555555555100 count=6
sample pid=300 pc=0x555555555070 count=3
sample pid=300 pc=0x5555555552a0 frames=0x555555555100 count=7
close end=30000000 status=0 threads=1
SMP
} >new.smp
{
	echo "$head"
	cat <<'SMP'
sample pid=300 pc=0x5555555552a0 frames=0x555555555180,0x555555555050,0x7ffff7c29d90 count=5
sample pid=300 pc=0x555555555390 frames=0x555555555200,0x555555555300,0x555555555100 count=8
sample pid=300 pc=0x7ffff7c30000 frames=0x555555555390,0x555555555100 count=12
sample pid=300 pc=0x555555555070 count=3
sample pid=300 pc=0x555555555390 frames=0x555555555100 count=12
close end=40000000 status=0 threads=1
SMP
} >base.smp
"$tsample" write new.PMS <new.smp && "$tsample" write base.PMS <base.smp ||
    { fail "t_sample write"; exit 1; }
for r in new base; do
	"$pmehisto" -q -T folded -b in.PME -B $r.PME -o $r.HIS $r.PMS >$r.folded 2>err ||
	    fail "-T folded $r: $(cat err)"
done
# The runs differ as the header says: grew, shrank, new only, base only.
cat >new.want <<'EOF2'
[libc.so.6];Scrt1.o;main.o;work.o 10
main.o 3
main.o;util.o;[libc.so.6] 6
main.o;work.o 7
main.o;work.o;work.o;util.o 4
EOF2
diff -u new.want new.folded >diff || { fail "new -T folded:"; cat diff >&2; }
grep -q '^main.o;util.o 12$' base.folded || fail "base -T folded: $(cat base.folded)"

$PME_VALGRIND "$pmehisto" -q -T svg -D base -b in.PME -B d.PME -o diff.svg \
    new.PMS >stdout 2>err || fail "-T svg -D base: exit status $?: $(cat err)"
[ -s err ] && fail "-T svg -D base: standard error: $(cat err)"
xmllint --noout diff.svg 2>err || fail "diff.svg is not well-formed XML: $(cat err)"
cmp -s d.PME new.PME || fail "-D base: the filled bucket file is not the new run's"

# Each path's samples in a folded file: "path count" for every prefix,
# the root "all" first.
paths() {
	awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
	    s["all"] += n; p = "all"
	    for (i = 1; i <= k; i++) { p = p ";" f[i]; s[p] += n } }
	    END { for (p in s) print p, s[p] }' "$1" | LC_ALL=C sort
}
paths new.folded >new.paths
paths base.folded >base.paths
# The frames: "path n b r,g,b", each path from the frames below it
# (frames come by first sample, then depth).
awk '/<g class="f"/ {
	x = $0; sub(/.*data-d="/, "", x); d = x + 0
	x = $0; sub(/.*data-n="/, "", x); n = x + 0
	x = $0; sub(/.*data-b="/, "", x); b = x + 0
	x = $0; sub(/.*<title>/, "", x); sub(/ \([0-9]+ sample.*/, "", x)
	gsub(/_\[k\]$/, "", x)
	name[d] = d == 0 ? "all" : name[d - 1] ";" x
	c = $0; sub(/.*fill="rgb\(/, "", c); sub(/\)".*/, "", c)
	print name[d], n, b, c }' diff.svg | LC_ALL=C sort >frames
[ "$(wc -l <frames)" = "$(wc -l <new.paths)" ] ||
    fail "diff.svg: $(wc -l <frames) frames, $(wc -l <new.paths) paths"
nt=$(awk '$1 == "all" { print $2 }' new.paths)
bt=$(awk '$1 == "all" { print $2 }' base.paths)
# Expected: every new path with its baseline count (0 where the baseline
# has none) and the sign of n x bt - b x nt.
join -a 1 -e 0 -o 0,1.2,2.2 new.paths base.paths |
    awk -v nt=$nt -v bt=$bt '{ d = $2 * bt - $3 * nt; k = "kept"
	if (d > 0) k = "grew"; else if (d < 0) k = "shrank"
	print $1, $2, $3, k }' >want
awk '{ split($4, c, ","); r = c[1]; g = c[2]; b = c[3]; k = "colour " $4
	if (r == 255 && g == b && g < 255) k = "grew"
	else if (b == 255 && r == g && r < 255) k = "shrank"
	else if (r == 225 && g == 225 && b == 225) k = "kept"
	print $1, $2, $3, k }' frames >got
diff -u want got >diff || { fail "diff.svg's frames:"; cat diff >&2; }
# The known changes, said plainly: work.o under Scrt1.o grew (10 of 30
# against 5 of 40), main.o;util.o shrank (6 of 30 against 24 of 40: its
# own samples are only in the baseline), main.o;work.o grew (11 against
# 8: 7 of them new), the root kept its share.
grep -qx 'all;\[libc.so.6\];Scrt1.o;main.o;work.o 10 5 grew' got &&
    grep -qx 'all;main.o;util.o 6 24 shrank' got &&
    grep -qx 'all;main.o;work.o 11 8 grew' got &&
    grep -qx 'all 30 40 kept' got ||
    fail "diff.svg: the known changes are not there: $(cat got)"
# The largest change of share is drawn deepest: main.o;util.o's, from
# 60% to 20%.
grep -q '<title>util.o (6 samples, 20.00%; baseline 24, 60.00%: -40.00%)</title><rect[^>]*fill="rgb(0,0,255)"' diff.svg ||
    fail "diff.svg: main.o;util.o not the deepest blue, with its tooltip"
grep -q '>Differential Flame Graph</text>' diff.svg &&
    grep -q 'against a baseline of 40: red grew, blue shrank' diff.svg ||
    fail "diff.svg: no title saying what it compares"

# -T folded -D: FlameGraph's difffolded.pl form, each stack of either
# run once with the baseline's count, then the new run's (0 where none).
"$pmehisto" -q -T folded -D base -b in.PME -B f.PME -o f.HIS new.PMS \
    >diff.folded 2>err || fail "-T folded -D base: $(cat err)"
sed 's/ \([0-9]*\)$/\t\1/' base.folded >b.tab
sed 's/ \([0-9]*\)$/\t\1/' new.folded >n.tab
LC_ALL=C join -t "$(printf '\t')" -a 1 -a 2 -e 0 -o 0,1.2,2.2 b.tab n.tab |
    tr '\t' ' ' >diff.want
diff -u diff.want diff.folded >diff ||
    { fail "-T folded -D base:"; cat diff >&2; }
grep -qx 'main.o;util.o 12 0' diff.folded && grep -qx 'main.o;work.o 0 7' diff.folded ||
    fail "-T folded -D: a stack of one run only is not there: $(cat diff.folded)"

# -D base.PMS is the same; without -D the graph is the plain one.
"$pmehisto" -q -T svg -D base.PMS -b in.PME -B d2.PME -o diff2.svg new.PMS 2>err &&
    cmp -s diff.svg diff2.svg || fail "-D base.PMS: not the graph of -D base: $(cat err)"
"$pmehisto" -q -T svg -b in.PME -B p.PME -o plain.svg new.PMS 2>err &&
    ! grep -q 'data-b=' plain.svg || fail "-T svg without -D: a compared graph"

# A baseline that is not there, or is a bucket file: a clear error that
# names it, exit 1, nothing written, an old output left as it was.
echo old >old.svg
"$pmehisto" -T svg -D nosuch -b in.PME -B e.PME -o old.svg new.PMS >stdout 2>err
rc=$?
[ $rc = 1 ] || fail "-D nosuch: exit status $rc, not 1"
grep -q "'nosuch.PMS'" err || fail "-D nosuch: the message does not name nosuch.PMS: $(cat err)"
[ "$(cat old.svg)" = old ] && [ ! -s stdout ] && [ ! -e e.PME ] ||
    fail "-D nosuch: something written"
"$pmehisto" -T svg -D in.PME -b in.PME -B e.PME -o old.svg new.PMS >stdout 2>err
rc=$?
[ $rc = 1 ] || fail "-D in.PME: exit status $rc, not 1"
grep -q "'in.PME'" err || fail "-D in.PME: the message does not name in.PME: $(cat err)"
[ "$(cat old.svg)" = old ] && [ ! -e e.PME ] || fail "-D in.PME: something written"
# A baseline of another measure is not compared.
sed 's/event=cpu-clock/event=task-clock/' base.smp >tc.smp
"$tsample" write tc.PMS <tc.smp || fail "t_sample write tc.smp"
"$pmehisto" -T svg -D tc -b in.PME -B e.PME -o old.svg new.PMS >stdout 2>err
rc=$?
[ $rc = 1 ] || fail "-D tc: exit status $rc, not 1"
echo "pmehisto: 'tc.PMS' holds samples of task-clock, the sample files of" \
    "cpu-clock: they cannot be compared" | diff -u - err >diff ||
    { fail "-D tc: message:"; cat diff >&2; }
[ "$(cat old.svg)" = old ] && [ ! -e e.PME ] || fail "-D tc: something written"
ls -a | grep -q '^\.old\.' && fail "-D: a temporary file left"

finish
