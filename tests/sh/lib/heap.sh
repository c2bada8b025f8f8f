# heap.sh - helpers of the tests of pmeclock -e alloc: sourced after
# common.sh, in $tmp.

# heap_fixture: builds tests/fixtures/heap (heap.c and heapcxx.cc) into
# ./heapfix, skipping the test where the preload runtime is not built,
# g++ is missing or the fixture cannot run; sets fx to the fixtures'
# directory.
heap_fixture() {
	[ -e "$top/sample/libpmeclock.so" ] ||
	    skip "sample/libpmeclock.so is not built"
	command -v g++ >/dev/null || skip "no g++ for the fixture's C++ part"
	fx=$top/tests/fixtures/heap
	gcc -O0 -g -c -o heap.o "$fx/heap.c" && g++ -O0 -g -c -o heapcxx.o \
	    "$fx/heapcxx.cc" && g++ -o heapfix heap.o heapcxx.o -pthread ||
	    { fail "cannot build the fixture"; finish; }
	./heapfix || skip "the fixture cannot run here"
}
