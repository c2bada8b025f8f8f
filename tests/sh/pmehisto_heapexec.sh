#!/bin/bash
#
# pmehisto_heapexec - pmehisto -V heap of a process whose heap an exec
# replaces (tests/fixtures/heap/execheap.c): each image of it is a
# report of its own, as memcheck has them.
#
# - the first image: its 3 blocks of 1000 bytes (first_image) live at
#   the exec, which released them: not leaks; its peak 3000 in 3 blocks,
#   named by its own stacks (the mappings before the exec);
# - the image after the exec: 2 allocations of 600 bytes, 1 free, 300
#   bytes in 1 block leaked at second_image, its peak 600;
# - the fork child that execs before it allocates: its peak is its own
#   16 bytes (child_image), not its parent's 3000 it had at the fork;
# - beside valgrind's memcheck (--trace-children=yes), when installed:
#   the same allocations, frees, bytes and bytes in use at exit for the
#   image after the exec and for the child.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$pmeclock" "$pmehisto"
[ -e "$top/sample/libpmeclock.so" ] ||
    skip "sample/libpmeclock.so is not built"
cd "$tmp" || exit 1
gcc -O0 -g -o execheap "$top/tests/fixtures/heap/execheap.c" ||
    { fail "cannot build the fixture"; finish; }
"$pmeclock" -q -e alloc -o x.PMS ./execheap || fail "pmeclock -e alloc failed"
$PME_VALGRIND "$pmehisto" -V heap x.PMS >heap.txt 2>err ||
    { fail "-V heap: $(cat err)"; finish; }

# The reports in turn, a file each: r1 (first image), r2 (the child),
# r3 (after the exec).
awk '/^Heap of process/ { n++ } n > 0 { print > ("r" n) }' heap.txt
[ "$(grep -c '^Heap of process' heap.txt)" = 3 ] ||
    fail "not three reports: $(grep '^Heap of' heap.txt)"

# check FILE PATTERN WHAT: FILE has a line matching PATTERN
check() {
	grep -q "$2" "$1" 2>/dev/null ||
	    fail "$3: $(grep -m1 "${2%% *}" "$1" 2>/dev/null)"
}
check r1 "^Heap of process [0-9]* ('execheap')$" "first image's head"
check r1 "^  allocations    3 (3000 bytes): malloc 3$" "first image"
check r1 "^  at the exec    3000 bytes in 3 blocks live, released by the exec (not leaks)$" \
    "first image at the exec"
check r1 "^  leaked         0 bytes in 0 blocks" "first image's leaks"
check r1 "^  peak           3000 bytes in 3 blocks" "first image's peak"
check r1 "^ *3000 *3  first_image < main" "first image's peak stack"
check r3 "^Heap of process [0-9]* ('execheap'), after an exec$" \
    "second image's head"
check r3 "^  allocations    2 (600 bytes): malloc 2$" "second image"
check r3 "^  frees          1: free 1$" "second image's frees"
check r3 "^  leaked         300 bytes in 1 blocks" "second image's leaks"
check r3 "^ *300 *1  second_image < main" "second image's leak stack"
check r3 "^  peak           600 bytes in 2 blocks" "second image's peak"
check r2 "^  peak           16 bytes in 1 blocks" "the child's peak"
check r2 "^ *16 *1  child_image < main" "the child's leak"
[ "$(sed -n 's/^Heap of process \([0-9]*\).*/\1/p' r1)" = \
    "$(sed -n 's/^Heap of process \([0-9]*\).*/\1/p' r3)" ] ||
    fail "the two images are not one process"

# memcheck: the image after the exec and the child, each its own.
if command -v valgrind >/dev/null; then
	valgrind --trace-children=yes ./execheap >vg.log 2>&1 ||
	    fail "valgrind failed: $(tail -n 3 vg.log)"
	# "allocs frees bytes inuse" of each image memcheck summed up
	awk '/total heap usage:/ { gsub(/,/, ""); a = $(NF - 6); f = $(NF - 4)
	    b = $(NF - 2) } /in use at exit:/ { gsub(/,/, ""); u = $(NF - 4) }
	    /ERROR SUMMARY/ { print a, f, b, u }' vg.log | sort >vg.sums
	for r in r2 r3; do
		awk '$1 == "allocations" { a = $2; b = $3; sub(/\(/, "", b) }
		    $1 == "frees" { f = $2; sub(/:/, "", f) }
		    $1 == "leaked" { u = $2 }
		    END { print a, f, b, u }' $r
	done | sort >pme.sums
	cmp -s vg.sums pme.sums ||
	    fail "memcheck's images ($(tr '\n' ';' <vg.sums)) are not pme's" \
	    "($(tr '\n' ';' <pme.sums))"
fi
finish
