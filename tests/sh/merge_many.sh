#!/bin/bash
#
# merge_many.sh - the merge of 1,000 filled bucket files equals one tally
# of the same samples.  1,000 sample files (tests/unit/t_sample; each a
# run of its own with samples spread over the ranges of GRAVEL's buckets,
# in libc, the kernel and no mapping, and lost samples) are each filled
# into a bucket file of their own by pmehisto -c, under make -j2 (the map
# step); pmemerge sums them: at once from a list, as a tree of sums by
# make -j2 from a generated Makefile (10 files a sum, three levels), and
# by GNU parallel (skipped, with the reason, where it is not installed).
# Each sum is the same file, byte for byte, as the one pmehisto fills
# tallying all 1,000 sample files in one run, and its CSV report the
# same.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/merge_runs.sh"

pmemerge=$top/histo/pmemerge
need "$pmemerge" "$tsample" "$pmebuild" "$pmehisto"
command -v make >/dev/null || skip "no make"
n=1000

cd "$tmp" || exit 1
"$pmebuild" -q "$top/tests/histo/gravel.pmd" layout.pme >/dev/null ||
    { fail "pmebuild failed"; finish; }

merge_runs $n
# The map step: a sample file and a filled bucket file per run.
cat >map.mk <<EOF
SMP := \$(wildcard s*.smp)
all: \$(SMP:s%.smp=f%.pme)
.SECONDARY:
s%.pms: s%.smp
	"$tsample" write \$@ <\$<
f%.pme: s%.pms
	"$pmehisto" -c -q -b layout.pme -B \$@ -o /dev/null -T none \$<
EOF
make -s -j2 -f map.mk >make.out 2>&1 || { fail "the map step failed:"; tail make.out >&2; finish; }
[ "$(ls f*.pme | wc -l)" = $n ] || { fail "not $n filled files"; finish; }

# The truth: one run of pmehisto over the 1,000 sample files.
"$pmehisto" -c -q -b layout.pme -B direct.pme -o /dev/null -T none s*.pms ||
    { fail "pmehisto over $n sample files failed"; finish; }
"$pmehisto" -t -b direct.pme -o /dev/null -T csv >direct.csv 2>/dev/null
grep -q '^0,CRUNCH,' direct.csv || { fail "no CSV report"; finish; }

grep -q "^Runs:  *$n$" <("$pmehisto" -t -b direct.pme -o - -T none 2>/dev/null) ||
    fail "direct.pme: not $n runs"

same() {	# FILE WHAT: FILE is direct.pme, and reports as it does
	cmp -s "$1" direct.pme ||
	    fail "$2: not the bucket file of one run over the $n sample files"
	"$pmehisto" -t -b "$1" -o /dev/null -T csv >"$1.csv" 2>/dev/null
	cmp -s "$1.csv" direct.csv ||
	    { fail "$2: its counts are not those of one run:"; diff direct.csv "$1.csv" | head >&2; }
}

# At once, the names from a list.
ls f*.pme >list
$PME_VALGRIND "$pmemerge" -o flat.pme -@ list || fail "pmemerge -@ list failed"
same flat.pme "pmemerge -@ list"

# A tree of sums under make -j2: 10 files a sum, 100 sums, 10, 1.
{
	echo "all: tree.pme"
	echo "tree.pme: $(printf 'm2_%d.pme ' $(seq 0 9))"
	printf '\t"%s" -o $@ $^\n' "$pmemerge"
	for j in $(seq 0 9); do
		echo "m2_$j.pme: $(printf "m1_%d.pme " $(seq $((j * 10)) $((j * 10 + 9))))"
		printf '\t"%s" -o $@ $^\n' "$pmemerge"
	done
	for j in $(seq 0 99); do
		echo "m1_$j.pme: $(printf 'f%04d.pme ' $(seq $((j * 10)) $((j * 10 + 9))))"
		printf '\t"%s" -o $@ $^\n' "$pmemerge"
	done
} >tree.mk
make -s -j2 -f tree.mk >make.out 2>&1 || { fail "make -j2 tree failed:"; tail make.out >&2; }
same tree.pme "make -j2 tree"

# GNU parallel: 100 files a sum, two at a time, then the sum of those.
if parallel --version 2>/dev/null | grep -q "GNU parallel"; then
	parallel --will-cite -j2 -N100 "$pmemerge" -o 'p{#}.pme' {} :::: list ||
	    fail "parallel failed"
	ls p*.pme | sort -V >plist
	"$pmemerge" -o par.pme -@ plist || fail "the sum of parallel's sums failed"
	same par.pme "GNU parallel"
else
	echo "merge_many: GNU parallel is not installed: its part skipped" >&2
fi

finish
