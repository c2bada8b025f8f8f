#!/bin/bash
#
# pmehisto_diff.sh - differential reports and gates (pmehisto -D, -G) on
# clock samples written exactly by t_sample, so that every figure is
# known: GRAVEL (tests/histo/gravel.pmd) against runs with more samples
# in one bucket (tests/histo/diff/).  The page (.HIS) and CSV are
# compared whole with tests/histo/diff/*.his and *.csv; a growth within
# the noise of the counts passes its gate, one beyond it fails with exit
# status 3 and the bucket named; a rebuild whose code moved
# (diff/moved.pmd) matches by name, naming the unit renamed; clock input
# tallied on the spot compares as the filled file does; the errors and
# usage errors exit 1 and 2.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

layout=$top/tests/unit/t_pmebuild
need "$tsample" "$layout"
d=$top/tests/histo/diff

ph() {	# runs pmehisto; output in out, err; status in rc
	$PME_VALGRIND "$pmehisto" "$@" >out 2>err
	rc=$?
}

expect() {	# STATUS WHAT: the last run's status, with its stderr on failure
	[ "$rc" = "$1" ] || { fail "$2: exit status $rc, not $1:"; cat err >&2; }
}

same() {	# EXPECTED ACTUAL WHAT
	diff -u "$1" "$2" >diff.out ||
	    { fail "$3: differs from ${1#"$top"/}:"; cat diff.out >&2; }
}

cd "$tmp" || exit 1
"$pmebuild" -q -o gravel.PME "$top/tests/histo/gravel.pmd" >/dev/null &&
    "$pmebuild" -q -o moved.PME "$d/moved.pmd" >/dev/null ||
    { fail "pmebuild failed"; finish; }
"$tsample" write base.PMS <"$top/tests/histo/gravel.smp" || exit 1
for f in noise slow moved; do
	"$tsample" write $f.PMS <"$d/$f.smp" || exit 1
done
fill() {	# EMPTY SAMPLES OUT
	"$pmehisto" -q -c -b "$1" -B "$3" -o /dev/null -T none "$2" ||
	    fail "filling $3 failed"
}
fill gravel.PME base.PMS base.PME
fill gravel.PME noise.PMS noise.PME
fill gravel.PME slow.PMS slow.PME
fill moved.PME moved.PMS moved.PME

gates=(-G bucket:+10% -G total:+5%)

# --- within the noise: over the limits, but no failure --------------------------

ph -D base "${gates[@]}" -t -b noise -o noise.his -T csv
expect 0 "noise"
[ ! -s err ] || { fail "noise: said something:"; cat err >&2; }
same "$d/noise.csv" out "noise (csv)"
grep -q '^CRUSH .* +20\.0%  noise$' noise.his &&
    grep -q '^ *CRUSH in PHASE TWO BY MODULE +10, +20\.0%: within the noise$' noise.his &&
    grep -q '^Verdict: *passed$' noise.his ||
    { fail "noise: the page does not say it:"; cat noise.his >&2; }

# --- beyond the noise: the gate fails, the bucket named ------------------------

ph -D base.PME "${gates[@]}" -t -b slow.PME -o slow.his -T none
expect 3 "slow"
cat >want.err <<'E'
pmehisto: gate 'total:+5%' failed: the total grew from 160 to 307 (+147, +91.9%)
pmehisto: gate 'bucket:+10%' failed: CRUSH in PHASE TWO BY MODULE grew from 50 to 200 (+150, +300.0%)
E
same want.err err "slow (messages)"
same "$d/slow.his" slow.his "slow (page)"
# An exact figure over the limit by one count fails trace counts; here
# the same growth with a limit of counts it does not exceed passes.
ph -D base -G bucket:+150 -t -b slow -o /dev/null -T none
expect 0 "slow, +150 counts"
ph -D base -G bucket:+149 -G bucket:+1000% -t -b slow -o /dev/null -T none
expect 3 "slow, +149 counts"
grep -qF "gate 'bucket:+149' failed: CRUSH" err || fail "slow, +149: not said"
ph -D base -G bucket:+10%,+150 -t -b slow -o /dev/null -T none
expect 0 "slow, +10% and +150 counts"

# The same, clock input tallied here rather than a filled file.
cp gravel.PME empty.PME
ph -D base "${gates[@]}" -b empty.PME -B new.PME -o clock.his -T none slow.PMS
expect 3 "slow, clock input"
same want.err err "slow, clock input (messages)"
grep -q '^New: *slow.PMS (1 run)$' clock.his ||
    { fail "slow, clock input: the page:"; cat clock.his >&2; }

# A baseline of two runs (ACCUMCOUNTS): its counts per run are compared,
# the test with the new run's share of the runs (1 of 3).
sed 's/^DEFINE OPTIONS NOPRINT$/DEFINE OPTIONS NOPRINT ACCUMCOUNTS/' \
    "$top/tests/histo/gravel.pmd" >accum.pmd
"$pmebuild" -q -o two.PME accum.pmd >/dev/null || fail "pmebuild accum.pmd"
fill two.PME base.PMS two.PME
fill two.PME base.PMS two.PME
ph -D two "${gates[@]}" -t -b slow -o two.his -T none
expect 3 "two runs"
same want.err err "two runs (messages)"
grep -q "^Baseline: *two.PME (2 runs)$" two.his &&
    grep -q "^ *(the baseline's counts scaled from 2 runs to 1)$" two.his &&
    grep -q '^CRUSH .*  50  *200  *+150  *+300\.0%  FAIL$' two.his ||
    { fail "two runs: the page:"; cat two.his >&2; }

# --- a rebuild whose code moved: matched by name --------------------------------

ph -D base "${gates[@]}" -t -b moved -o moved.his -T csv
expect 0 "moved"
same "$d/moved.csv" out "moved (csv)"
echo "pmehisto: 1 bucket of 'moved.PME' not in 'base.PME', 1 of 'base.PME' not in 'moved.PME' (named in the report)" >want.err
same want.err err "moved (messages)"
grep -q '^Appeared: *SIFT in PHASE THREE BY MODULE$' moved.his &&
    grep -q '^Vanished: *SIEVE in PHASE THREE BY MODULE$' moved.his &&
    grep -q '^Buckets matched: *9$' moved.his ||
    { fail "moved: the page does not name them:"; cat moved.his >&2; }
ph -q -D base -t -b moved -o /dev/null -T none
[ "$rc" = 0 ] && [ ! -s err ] || fail "moved -q: exit $rc or said something"

# A routine moved to another module (source file), another renamed: the
# moved one is still matched by its own name, the only one of it left
# on each side; the renamed one is not.
pmd() {	# FILE UNITS...: P's modules and routines
	local f=$1
	shift
	printf '%s\n' "DEFINE OPTIONS NOPRINT" \
	    "DEFINE UNITS: PROGRAM, MODULE, ROUTINE" "PROGRAM P" "$@" \
	    "DEFINE SAMPLING" "PROGRAM P BY ROUTINE" "END" >"$f"
}
smp() {	# FILE F-ADDRESS
	printf '%s\n' "header method=test event=cpu-clock period=10000000 pid=7 start=0 start_mono=0 argv=./p" \
	    "sample pid=7 pc=$2 count=40" "sample pid=7 pc=0x1108 count=10" \
	    "sample pid=7 pc=0x2008 count=5" "close" | "$tsample" write "$1"
}
pmd f1.pmd "MODULE A, 1000 - 1FFF" "ROUTINE F, 1000 - 10FF" \
    "ROUTINE G, 1100 - 11FF" "MODULE B, 2000 - 2FFF" "ROUTINE H, 2000 - 20FF" &&
pmd f2.pmd "MODULE A, 1000 - 1FFF" "ROUTINE G, 1100 - 11FF" \
    "MODULE B, 2000 - 2FFF" "ROUTINE H2, 2000 - 20FF" \
    "ROUTINE F, 2100 - 21FF" &&
"$pmebuild" -q -o f1.PME f1.pmd >/dev/null &&
    "$pmebuild" -q -o f2.PME f2.pmd >/dev/null && smp f1.PMS 0x1008 &&
    smp f2.PMS 0x2108 || fail "cannot make the moved routine's files"
fill f1.PME f1.PMS f1b.PME
fill f2.PME f2.PMS f2b.PME
ph -D f1b -t -b f2b -o f.his -T none
expect 0 "routine moved"
grep -Eq '^F +\| .* 40 +40 +0 +0\.0%$' f.his ||
    { fail "routine moved: F not matched:"; cat f.his >&2; }
grep -q '^Appeared: *H2$' f.his &&
    grep -q '^Vanished: *H$' f.his ||
    { fail "routine moved: H, H2 not named:"; cat f.his >&2; }

# --- files that claim what they cannot hold -------------------------------------
# The baseline's OPTS chunk patched (CRC redone): 2^64-1 runs made every
# growth "noise" and the gate pass; 1000 runs is a file's and fails it.
# A total below a bucket's count, or below the buckets' sum, is refused
# wherever the file is read.
opts() {	# IN OUT FIELD VALUE: IN with OPTS's u64 at FIELD (16 runs, 24 total)
	python3 - "$@" <<'PY'
import struct, sys, zlib
d = bytearray(open(sys.argv[1], 'rb').read())
o = 16
while d[o:o + 4] != b'OPTS':
	o += 20 + struct.unpack_from('<I', d, o + 8)[0]
flags, stored = struct.unpack_from('<II', d, o + 4)
p = bytearray(zlib.decompress(d[o + 20:o + 20 + stored]) if flags & 1 else
    d[o + 20:o + 20 + stored])
struct.pack_into('<Q', p, int(sys.argv[3]), int(sys.argv[4]))
h = b'OPTS' + struct.pack('<III', 0, len(p), len(p))
c = h + struct.pack('<I', zlib.crc32(h + p)) + p
open(sys.argv[2], 'wb').write(bytes(d[:o]) + c + bytes(d[o + 20 + stored:]))
PY
}
if command -v python3 >/dev/null; then
	opts base.PME runsmax.PME 16 18446744073709551615 &&
	    opts base.PME runs1000.PME 16 1000 &&
	    opts base.PME low.PME 24 49 && opts base.PME sum.PME 24 148 ||
	    fail "cannot patch base.PME"
	ph -D runsmax "${gates[@]}" -t -b slow -o /dev/null -T none
	expect 1 "2^64-1 runs"
	grep -q "^pmehisto: 'runsmax.PME': offset 0x[0-9a-f]*: 'OPTS' chunk: 18446744073709551615 runs, more than a file can hold (2^53)$" err ||
	    { fail "2^64-1 runs: said:"; cat err >&2; }
	ph -D runs1000 "${gates[@]}" -t -b slow -o /dev/null -T none
	expect 3 "1000 runs"
	ph -t -b low -o low.his -T none
	expect 1 "a count above the total"
	grep -q "^pmehisto: 'low.PME': offset 0x[0-9a-f]*: 'BCKT' chunk: bucket 1 counts 50, more than the file's total of 49$" err ||
	    { fail "a count above the total: said:"; cat err >&2; }
	[ ! -e low.his ] || fail "a count above the total: wrote low.his"
	ph -D sum -t -b slow -o /dev/null -T none
	expect 1 "counts above the total"
	grep -qF "'sum.PME': offset 0x" err &&
	    grep -qF "'BCKT' chunk: the buckets count 149 in all, more than the file's total of 148" err ||
	    { fail "counts above the total: said:"; cat err >&2; }
fi

# --- the main executable under another name -------------------------------------
# Two builds of one source named demo and demo_v2, and one binary copied
# under two names: the quick path (-x) names the program's unit and its
# group after the executable, yet every bucket matches its own, as the
# main executable is matched whatever its name.  So does a stripped
# binary copied, whose module and one routine the quick path names after
# the file too (demo_s, [demo_s]).
quick() {	# EXE NAME [SYMS]: NAME.PME filled by -x, count_primes 20
	local f a	# samples, sort 10, at their addresses in SYMS (EXE)
	{
		echo "header method=test event=cpu-clock period=1000000 pid=8 argv=./$1"
		echo "map pid=8 start=0x400000 end=0x10000000 offset=0 vaddr=0 path=$tmp/$1 flags=exec,main"
		for f in count_primes:20 sort:10; do
			a=$(nm "${3:-$1}" | awk -v f="${f%:*}" '$3 == f { print $1 }')
			[ -n "$a" ] || return 1
			printf 'sample pid=8 pc=0x%x count=%s\n' \
			    $((0x400000 + 0x$a + 1)) "${f#*:}"
		done
		echo close
	} | "$tsample" write "$2.PMS" &&
	    "$pmehisto" -q -x -T none -o /dev/null -B "$2.PME" "$2.PMS"
}
fx=$top/tests/fixtures/demo
if command -v gcc >/dev/null && command -v nm >/dev/null; then
	gcc -g -O2 -o demo "$fx/work.c" "$fx/main.c" &&
	    gcc -g -O1 -o demo_v2 "$fx/work.c" "$fx/main.c" &&
	    cp demo demo_cp && quick demo d1 && quick demo_v2 d2 &&
	    quick demo_cp d3 || fail "cannot make the demo's bucket files"
	if command -v strip >/dev/null; then
		strip -o demo_s demo && cp demo_s demo_s2 &&
		    quick demo_s s1 demo && quick demo_s2 s2 demo ||
		    fail "cannot make the stripped demo's bucket files"
		ph -D s1 -G bucket:+0 -G total:+0 -t -b s2 -o s2.his -T none
		expect 0 "stripped main renamed"
		b=$("$layout" layout s2.PME | grep -c '^bucket ')
		grep -q "^Buckets matched: *$b\$" s2.his &&
		    grep -q '^Appeared: *none$' s2.his &&
		    grep -Eq '^\[demo_s2\] +\| .* 30 +30 +0 +0\.0%$' s2.his ||
		    { fail "stripped main renamed: not all matched:"; cat s2.his >&2; }
	fi
	for n in d2 d3; do
		ph -D d1 -G bucket:+0 -G total:+0 -t -b $n -o $n.his -T none
		expect 0 "main renamed ($n)"
		[ ! -s err ] || { fail "main renamed ($n): said:"; cat err >&2; }
		b=$("$layout" layout $n.PME | grep -c '^bucket ')
		grep -q "^Buckets matched: *$b\$" $n.his &&
		    grep -q '^Appeared: *none$' $n.his &&
		    grep -q '^Vanished: *none$' $n.his &&
		    grep -Eq '^count_primes +\| .* 20 +20 +0 +0\.0%$' $n.his ||
		    { fail "main renamed ($n): not all matched:"; cat $n.his >&2; }
	done
	# The routines with no samples in either file are left out of the
	# page and the CSV, and counted; -z shows them.
	z=$((b - 2))
	grep -q "^Left out: *$z buckets with no counts in either file (-z shows them)\$" d3.his &&
	    ! grep -q '^main ' d3.his ||
	    { fail "zero rows: not left out:"; cat d3.his >&2; }
	ph -D d1 -t -b d3 -o /dev/null -T csv
	[ "$(grep -c ',matched,' out)" = 2 ] || { fail "zero rows in the csv:"; cat out >&2; }
	ph -D d1 -z -t -b d3 -o z.his -T csv
	[ "$(grep -c ',matched,' out)" = "$b" ] &&
	    grep -Eq '^main +\| .* 0 +0 +0 +0\.0%$' z.his &&
	    ! grep -q '^Left out:' z.his ||
	    { fail "-z: not all rows:"; cat z.his out >&2; }
fi

# --- PostScript -----------------------------------------------------------------

ph -D base "${gates[@]}" -t -b slow -o /dev/null -T ps
expect 3 "ps"
grep -q '^%%Pages: 1$' out && grep -q '(difference) RS' out &&
    grep -q '(+300.0%) RS' out && grep -q '(FAIL) show' out ||
    fail "ps: not the differential page"
if command -v gs >/dev/null; then
	gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=nullpage out >gs.out 2>&1 ||
	    { fail "ps: ghostscript refused it:"; cat gs.out >&2; }
fi

# --- errors and usage errors ----------------------------------------------------

ph -D nothere -t -b slow -o /dev/null -T none
expect 1 "missing baseline"
grep -q "^pmehisto: 'nothere.PME'" err || { fail "missing baseline: said:"; cat err >&2; }
ph -D gravel -t -b slow -o /dev/null -T none
expect 1 "empty baseline"
grep -qF "'gravel.PME': no counts (an empty bucket file): nothing to compare with" err ||
    { fail "empty baseline: said:"; cat err >&2; }
ph -G bucket:+2% -t -b slow -o /dev/null -T none
expect 2 "-G without -D"
grep -qF -- "-G: a gate needs a baseline to compare with (-D)" err || fail "-G without -D: said"
ph -z -t -b slow -o /dev/null -T none
expect 2 "-z without -D"
grep -qF -- "-z: the rows zero in both files are a comparison's (-D)" err || fail "-z without -D: said"
for g in bucket total: bucket:-2% bucket:+2%,+3% routine:+2% bucket:+x bucket:+2%,; do
	ph -D base -G "$g" -t -b slow -o /dev/null -T none
	expect 2 "-G $g"
	grep -qF -- "-G: '$g' is not a gate" err || fail "-G $g: not said"
done
finish
