#!/bin/bash
#
# outputs_inputs.sh - an output that would replace an input, or an
# existing pme file of another kind (issue 23, item 14): `pmehisto -o
# s.PMS s.PMS`, `-B acc.PME -o acc.PME`, `-B y.out -o y.out`, `pmebuild
# b.pmd b.pmd`, `pmemerge -o r4.PMS a.PME b.PME` over a sample file, stats -o over its event
# file, pmetrace and pmeclock -o over a file of the other kind.  Each is
# refused before anything runs, in one line naming both files, exit 1,
# the file left byte for byte.  What pmehisto(1), pmetrace(1) and
# pmemerge(1) document stays: -B naming the -b file (an ACCUMCOUNTS file
# read and rewritten), pmetrace filling its -b file, pmemerge's sum
# written over one of its inputs, and a histogram written over a text
# file.  The inputs are tests/histo/gravel.pmd and gravel.smp.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
v=${PME_VALGRIND:-}
stats=$top/stats/stats
pmemerge=$top/histo/pmemerge
need "$pmebuild" "$pmehisto" "$pmetrace" "$pmeclock" "$stats" "$pmemerge" \
    "$tsample"

# refused WHAT FILE TEXT COMMAND...: COMMAND exits 1 saying TEXT (a fixed
# string) on standard error, and FILE is as it was.
refused() {
	local what=$1 file=$2 text=$3 got
	shift 3
	cp -p "$file" "$tmp/before"
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	got=$?
	[ "$got" = 1 ] ||
	    fail "$what: exit status $got, not 1: $(head -c 500 "$tmp/err")"
	grep -qF -- "$text" "$tmp/err" ||
	    fail "$what: stderr is '$(head -c 500 "$tmp/err")', not '$text'"
	cmp -s "$tmp/before" "$file" || fail "$what: '$file' was replaced"
}

cd "$tmp" || exit 1
sed 's/^DEFINE OPTIONS NOPRINT$/DEFINE OPTIONS NOPRINT ACCUMCOUNTS/' \
    "$top/tests/histo/gravel.pmd" >acc.pmd
$v "$pmebuild" -q acc.pmd acc.PME </dev/null || { fail "pmebuild"; finish; }
"$tsample" write s.PMS <"$top/tests/histo/gravel.smp" || exit 1
cp s.PMS r4.PMS

refused "pmehisto -o the sample file" s.PMS \
    "pmehisto: 's.PMS' is the input 's.PMS': not replaced by a histogram; name another output" \
    $v "$pmehisto" -c -q -b acc.PME -B /dev/null -T none -o s.PMS s.PMS
refused "pmehisto -o the bucket file" acc.PME \
    "pmehisto: 'acc.PME' is the input 'acc.PME': not replaced by a histogram; name another output" \
    $v "$pmehisto" -c -q -b acc.PME -B acc.PME -T none -o acc.PME s.PMS
refused "pmehisto -B the sample file" s.PMS \
    "pmehisto: 's.PMS' is the input 's.PMS': not replaced by a bucket file (.PME); name another output" \
    $v "$pmehisto" -c -q -b acc.PME -B s.PMS -T none -o h.HIS s.PMS
refused "pmehisto -o a sample file" r4.PMS \
    "pmehisto: 'r4.PMS' is a sample file (.PMS): not replaced by a histogram; remove it or name another output" \
    $v "$pmehisto" -c -q -b acc.PME -B /dev/null -T none -o r4.PMS s.PMS
cp acc.pmd b.pmd
refused "pmebuild b.pmd b.pmd" b.pmd \
    "pmebuild: 'b.pmd' is the input 'b.pmd': not replaced by a bucket file (.PME); name another output" \
    $v "$pmebuild" -q b.pmd b.pmd
refused "pmebuild over a sample file" r4.PMS \
    "pmebuild: 'r4.PMS' is a sample file (.PMS): not replaced by a bucket file (.PME); remove it or name another output" \
    $v "$pmebuild" -q acc.pmd r4.PMS
cp acc.PME a.PME
cp acc.PME b.PME
refused "pmemerge over a sample file" r4.PMS \
    "pmemerge: 'r4.PMS' is a sample file (.PMS): not replaced by a bucket file (.PME); remove it or name another output" \
    $v "$pmemerge" -o r4.PMS a.PME b.PME
refused "pmetrace over a sample file" r4.PMS \
    "pmetrace: 'r4.PMS' is a sample file (.PMS): not replaced by a bucket file (.PME); remove it or name another output" \
    $v "$pmetrace" -e step -b acc.PME -o r4.PMS true
refused "pmeclock over a bucket file" a.PME \
    "pmeclock: 'a.PME' is a bucket file (.PME): not replaced by a sample file (.PMS); remove it or name another output" \
    $v "$pmeclock" -o a.PME true
refused "stats -o the sample file" s.PMS \
    "stats: 's.PMS' is the input 's.PMS': not replaced by stats' output; name another output" \
    $v "$stats" -T text -f s.PMS -B acc.PME -o s.PMS
ln -s s.PMS link.PMS
refused "pmehisto -o a link that is the input" s.PMS \
    "pmehisto: 'link.PMS' is the input 'link.PMS': not replaced by a histogram; name another output" \
    $v "$pmehisto" -c -q -b acc.PME -B /dev/null -T none -o link.PMS link.PMS
[ -L link.PMS ] || fail "link.PMS was replaced"
[ -e h.HIS ] && fail "pmehisto wrote h.HIS"

# -B and -o naming one file that does not exist yet: the histogram would
# have been written over the filled bucket file just made.
$v "$pmehisto" -c -q -b acc.PME -B y.out -o y.out s.PMS </dev/null \
    >out 2>err
got=$?
[ "$got" = 1 ] || fail "-B y.out -o y.out: exit status $got, not 1"
grep -qF "pmehisto: 'y.out' is named by both -B and -o" err ||
    fail "-B y.out -o y.out: stderr is '$(head -c 500 err)'"
[ -e y.out ] && fail "-B y.out -o y.out wrote y.out"

# What is documented still works: -B of the ACCUMCOUNTS -b file adds each
# run to the file's counts.
for run in 1 2; do
	$v "$pmehisto" -c -q -b acc.PME -B acc.PME -T none -o h.HIS s.PMS \
	    </dev/null 2>err || fail "pmehisto -b acc.PME -B acc.PME: $(cat err)"
	"$pmehisto" -t -b acc.PME -T csv -o t.HIS </dev/null >$run.csv ||
	    fail "pmehisto -t after run $run"
done
[ "$(awk -F, 'NR > 1 { print $1, $7 * 2 }' 1.csv)" = \
    "$(awk -F, 'NR > 1 { print $1, $7 }' 2.csv)" ] &&
    awk -F, 'NR > 1 && $7 > 0 { n++ } END { exit !n }' 1.csv ||
    fail "-B of the ACCUMCOUNTS -b file did not add the run: $(cat 1.csv 2.csv)"
$v "$pmemerge" -o a.PME a.PME b.PME </dev/null 2>err ||
    fail "pmemerge into an input: $(cat err)"
echo "some text" >t.HIS
$v "$pmehisto" -c -q -b acc.PME -B /dev/null -T none -o t.HIS s.PMS \
    </dev/null 2>err || fail "pmehisto -o over a text file: $(cat err)"
grep -q "some text" t.HIS && fail "the text file was not replaced"
finish
