#!/bin/bash
#
# pmeclock_wall_cache - pmeclock's table of recent call chains
# (sample/unwind.c: a chain kept with the registers it depends on and
# the words of the stack it read, given again to a sample that has the
# same) gives the chains libdwfl gives.  With PME_UNWIND_CHECK in the
# environment, each chain the table gives is unwound again by libdwfl
# with all the registers and the two are compared; pmeclock says how
# many chains the table gave, how many it checked and how many differ.
# For each run: none differs, every chain the table gave was checked,
# and the table gave chains:
#
# - tests/fixtures/clock/samesp.c (-O2), whose second thread waits
#   20,000 times in wait_byte() called alternately from left() and
#   right() with the same pc, stack pointer and registers (a loop
#   counter in a callee-saved register, and its saved value on the
#   stack, apart), only the return address on the stack telling the
#   callers: all of its chains but 200 (the first of each place; the
#   kernel may drop records, so not a count of waits) and at least 100
#   from the table (a table that did not compare the stack's words gave
#   10,165 of 40,718 the other caller's chain; one that needed the
#   saved counter's value gave 19,998 of 40,023);
# - the waits fixture of pmeclock_wall (tests/sh/lib/wall.sh): one or
#   more;
# - Debian's xz -T2 compressing 13 MB in blocks of 1 MiB (its threads
#   wait on condition variables) and python3 with threads passing items
#   through a queue.Queue and taking a lock, where installed: one or
#   more.
#
# Skipped where pmeclock -w cannot run or cannot unwind from the CFI.
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/wall.sh"

need "$pmeclock"
cd "$tmp" || exit 1
waits_fixture
cfi_fixture samesp -O2 -pthread

# checked WHAT MIN MISSES PMECLOCK-ARGS...: runs pmeclock with the
# check and compares what it says: MIN chains or more from the table,
# and all but MISSES (all: -1).
checked() {
	local what=$1 min=$2 misses=$3 line hits chains n differ
	shift 3
	PME_UNWIND_CHECK=1 "$pmeclock" -q -o out.PMS "$@" >/dev/null \
	    2>err.txt </dev/null ||
	    { fail "$what: pmeclock: $(head -c 500 err.txt)"; return; }
	line=$(grep "PME_UNWIND_CHECK:" err.txt)
	read -r hits chains n differ <<<"$(echo "$line" | sed -n \
	    's/.*: \([0-9]*\) of \([0-9]*\) chains .*, \([0-9]*\) of them unwound again, \([0-9]*\) differ$/\1 \2 \3 \4/p')"
	if [ -z "${differ:-}" ]; then
		fail "$what: no count of the check: $(head -c 500 err.txt)"
		return
	fi
	echo "$what: $hits of $chains chains from the table, $n checked," \
	    "$differ differ"
	[ "$differ" = 0 ] ||
	    fail "$what: $differ of $n chains from the table differ"
	[ "$n" = "$hits" ] ||
	    fail "$what: $n of the table's $hits chains checked"
	[ "$hits" -ge "$min" ] ||
	    fail "$what: $hits chains from the table, fewer than $min"
	[ "$misses" -lt 0 ] || [ $((chains - hits)) -le "$misses" ] ||
	    fail "$what: $((chains - hits)) of $chains chains not from the" \
	    "table, more than $misses"
}

checked "samesp -w" 100 200 -w ./samesp 20000
checked "waits -w" 1 -1 -w ./waits "$tmp"
if [ -x /usr/bin/xz ]; then
	head -c 6000000 /dev/urandom >big
	seq 1 1000000 >>big
	checked "xz -T2 -w" 1 -1 -w /usr/bin/xz -T2 -1 --block-size=1MiB \
	    -c big
else
	echo "pmeclock_wall_cache: no /usr/bin/xz: not run on it"
fi
if [ -x /usr/bin/python3 ]; then
	cat >thr.py <<'PY'
import queue, threading, time
q = queue.Queue()
lock = threading.Lock()
def prod():
    for i in range(20000):
        q.put(i)
    q.put(None)
def cons():
    while q.get() is not None:
        pass
def locker():
    for i in range(3000):
        with lock:
            time.sleep(0)
ts = [threading.Thread(target=f) for f in (prod, cons, locker, locker)]
for t in ts:
    t.start()
for t in ts:
    t.join()
PY
	checked "python3 threads -w" 1 -1 -w /usr/bin/python3 thr.py
else
	echo "pmeclock_wall_cache: no /usr/bin/python3: not run on it"
fi
finish
