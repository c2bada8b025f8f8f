#!/bin/bash
#
# fuzz_seeds - make fuzz-corpus seeds the sample file targets (fuzz_sample,
# fuzz_sample_rt) with a real run of each kind of record pmeclock writes
# in chunks of their own: among them a heap run of tests/fixtures/heap
# (pmeclock -e alloc, built by tests/sh/lib/heap.sh's heap_fixture),
# whose HEA2 chunks pmehisto -V heap reads, its two processes named.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/heap.sh"

need "$pmeclock" "$pmehisto"
command -v make >/dev/null || skip "no make"
cd "$tmp" || exit 1
heap_fixture
make -s -C "$top" fuzz-corpus FUZZ_DIR="$tmp/fuzz" >make.out 2>&1 ||
    fail "make fuzz-corpus: $(tail -n 3 make.out)"
for dir in corpus_sample corpus_sample_rt; do
	seed=
	for f in "$tmp/fuzz/$dir"/*; do
		grep -aq HEA2 "$f" && { seed=$f; break; }
	done
	[ -n "$seed" ] || { fail "$dir: no seed holds a HEA2 chunk"; continue; }
	"$pmehisto" -V heap "$seed" >heap.txt 2>err ||
	    { fail "$dir: -V heap of ${seed##*/}: $(cat err)"; continue; }
	[ "$(grep -c "^Heap of process [0-9]* ('heapfix')" heap.txt)" = 2 ] ||
	    fail "$dir: ${seed##*/} is not the fixture's two processes:" \
	    "$(grep '^Heap of' heap.txt)"
done
finish
