#!/bin/bash
#
# pmeclock_heap - pmeclock -e alloc and pmehisto's heap reports on a
# program whose heap is known exactly (tests/fixtures/heap/heap.c, its
# comment says what each routine does):
#
# - -M allocations and -M bytes per routine are the fixture's, exactly,
#   per thread too (25 allocations in each of its two threads), and the
#   fork child's are its own;
# - -V heap: the peak's live blocks by stack (peak_d 100000, fill_a
#   4800 in 100, leak_c 231 in 7) and a peak equal to what was live,
#   the leaks (leak_c's 7 blocks, the child's 2 of fork_f), the
#   temporaries (temp_e 50, chain_b 4, peak_d 1);
# - beside valgrind's DHAT on the same program: the blocks and bytes of
#   each routine of the fixture, the total blocks and the peak (t-gmax)
#   equal; memcheck's definitely lost blocks of the child are pme's
#   leaks of it; heaptrack, where installed: the same peak (as it
#   rounds it) and as many calls less the allocations made before its
#   library started, which pme records (libstdc++'s pool); Debian's
#   sqlite3 on an in-memory workload: allocations, bytes and the peak
#   equal DHAT's;
# - -D with -G on bytes: a gate that fails when the program allocates
#   more;
# - a program that repeats itself (heapbench) makes a file of a few
#   bytes a millisecond, not a call, its totals exact, and reading it
#   takes memory bounded by its live blocks, not its events;
# - a killed program keeps what was sent; -m perf and --count refuse
#   alloc; bad heap records are an error naming the file and offset.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/heap.sh"

need "$pmeclock" "$pmehisto"
cd "$tmp" || exit 1
heap_fixture

"$pmeclock" -q -e alloc -o h.PMS ./heapfix || fail "pmeclock -e alloc failed"

# counts MEASURE: "routine count" of the quick path's routines
counts() {
	"$pmehisto" -q -x -M "$1" -T csv h.PMS | csv_counts
}

# want WHAT FILE ROUTINE N: ROUTINE's count in FILE is N
want() {
	local got
	got=$(awk -v r="$3" '$1 == r { print $2 }' "$2")
	[ "$got" = "$4" ] || fail "$1: $3: ${got:-none}, not $4"
}

counts allocations >allocs || fail "pmehisto -M allocations failed"
counts bytes >bytes || fail "pmehisto -M bytes failed"
for rb in "fill_a 100 4800" "leak_c 7 231" "peak_d 1 100000" \
    "chain_b 4 240" "aligned_g 5 1728" "cxx_h 3 128" "temp_e 52 1016" \
    "thread_t 50 3200" "fork_f 5 640"; do
	set -- $rb
	want "-M allocations" allocs "$1" "$2"
	want "-M bytes" bytes "$1" "$3"
done

# Per thread: the two threads' 25 each (Caliper's thread table).
"$pmehisto" -q -x -V caliper:thread -M allocations h.PMS >threads ||
    fail "pmehisto -V caliper:thread -M allocations failed"
[ "$(awk '$3 == 25 && $NF == "heapfix"' threads | wc -l)" = 2 ] ||
    fail "two threads of 25 allocations each: $(cat threads)"

# ------------------------------------------------------------- -V heap

"$pmehisto" -V heap h.PMS >heap.txt || fail "pmehisto -V heap failed"
# section TITLE NTH: the rows of the NTH process's table TITLE, as
# "bytes-or-count count first-routine"
section() {
	awk -v t="$1:" -v k="$2" '/^Heap of process/ { p++ }
	    p == k && $0 == t { on = 1; next } on && NF == 0 { on = 0 }
	    on && $1 ~ /^[0-9]+$/ { print $1, $2, $3 }' heap.txt
}
section "Live at the peak, by stack" 1 >peak.rows
section "Leaks, by stack" 1 >leaks.rows
section "Temporary allocations, by stack" 1 >temps.rows
section "Leaks, by stack" 2 >child.rows
grep -qx "100000 1 peak_d" peak.rows || fail "peak: no peak_d 100000 1"
grep -qx "4800 100 fill_a" peak.rows || fail "peak: no fill_a 4800 100"
grep -qx "231 7 leak_c" peak.rows || fail "peak: no leak_c 231 7"
peak=$(awk '/^Heap of process/ { p++ } p == 1 && $1 == "peak" { print $2,
    $5; exit }' heap.txt)
sum=$(awk '{ b += $1; n += $2 } END { print b, n }' peak.rows)
[ "$peak" = "$sum" ] ||
    fail "peak $peak (bytes, blocks) is not what was live then: $sum"
grep -qx "231 7 leak_c" leaks.rows || fail "leaks: no leak_c 231 7"
grep -qx "256 2 fork_f" child.rows || fail "the child's leaks: no fork_f 256 2"
[ "$(awk '$3 == "chain_b" { n += $1 } END { print n }' temps.rows)" = 4 ] ||
    fail "temporaries: chain_b's not 4"
grep -qx "50 50 temp_e" temps.rows || fail "temporaries: no temp_e 50 of 50"
grep -qx "1 1 peak_d" temps.rows || fail "temporaries: no peak_d 1 of 1"
allocs=$(awk '/^Heap of process/ { p++ } p == 1 && $1 == "allocations" {
    print $2; exit }' heap.txt)

# A gate on bytes: the same program passes, one whose peak_d allocates
# 100000 bytes more fails it (exit 3).
rm -f PMEFILE.PME
"$pmehisto" -q -x -M bytes h.PMS >/dev/null && mv PMEFILE.PME base.PME ||
    fail "pmehisto -M bytes: no filled bucket file"
"$pmeclock" -q -e alloc -o h2.PMS ./heapfix || fail "pmeclock: second run"
expect "-G total:+10% on the same program" 0 "$pmehisto" -q -x -M bytes \
    -D base.PME -G total:+10% h2.PMS
sed 's/100000/200000/' "$fx/heap.c" >heap2.c && gcc -O0 -g -c heap2.c &&
    g++ -o heapfix2 heap2.o heapcxx.o -pthread ||
    fail "cannot build the fixture's second version"
"$pmeclock" -q -e alloc -o h3.PMS ./heapfix2 || fail "pmeclock: heapfix2"
expect "-G total:+10% on 100000 bytes more" 3 "$pmehisto" -q -x -M bytes \
    -D base.PME -G total:+10% h3.PMS
grep -q "peak_d.*100000 *200000 *+100000" "$tmp/out" ||
    fail "-D: peak_d not 100000 to 200000: $(grep peak_d "$tmp/out")"

# -------------------------------------------------------------- peers

if command -v valgrind >/dev/null; then
	valgrind --tool=dhat --dhat-out-file=dhat.%p.json ./heapfix \
	    >dhat.log 2>&1 || fail "valgrind --tool=dhat failed"
	# The parent's summary, the last (the child's ends first).
	pid=$(awk '/^==[0-9]+== Total:/ { p = $1 } END { print p }' dhat.log)
	total=$(grep -- "^$pid Total:" dhat.log | tr -d , |
	    awk '{ print $6 }')
	gmax=$(grep -- "^$pid At t-gmax:" dhat.log | tr -d , |
	    awk '{ print $4, $7 }')
	[ "$total" = "$allocs" ] ||
	    fail "DHAT: $total blocks in all, pme $allocs allocations"
	[ "$gmax" = "$peak" ] || fail "DHAT: t-gmax $gmax, pme's peak $peak"
	# Each routine of the fixture: DHAT's blocks and bytes there.
	pid=${pid//=/}
	python3 - "dhat.$pid.json" >dhat.rows <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
tot = {}
for pp in d["pps"]:
    for f in pp["fs"]:
        m = re.search(r": (\w+) \((heap\.c|heapcxx\.cc):", d["ftbl"][f])
        if m:
            b, n = tot.get(m.group(1), (0, 0))
            tot[m.group(1)] = (b + pp["tb"], n + pp["tbk"])
            break
for r, (b, n) in sorted(tot.items()):
    print(r, n, b)
EOF
	[ -s dhat.rows ] || fail "cannot read dhat.$pid.json"
	while read -r r n b; do
		[ "$r" = main ] && continue
		want "DHAT's blocks" allocs "$r" "$n"
		want "DHAT's bytes" bytes "$r" "$b"
	done <dhat.rows
	[ "$(wc -l <dhat.rows)" -ge 8 ] ||
	    fail "DHAT: routines of the fixture: $(cat dhat.rows)"
	valgrind --leak-check=full ./heapfix >mc.log 2>&1 ||
	    fail "valgrind memcheck failed"
	grep -q "definitely lost: 256 bytes in 2 blocks" mc.log ||
	    fail "memcheck: the child's definitely lost is not fork_f's 2"
	# A real program nobody here wrote: Debian's sqlite3 on an
	# in-memory workload; its blocks, bytes and peak are DHAT's.
	if command -v sqlite3 >/dev/null; then
		cat >w.sql <<'EOF'
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 5000)
INSERT INTO t SELECT i, printf('%08x', i * 2654435761 % 4294967296), i * 0.5
FROM n;
CREATE INDEX tb ON t(b);
SELECT count(*), sum(c) FROM t WHERE b LIKE 'a%';
EOF
		"$pmeclock" -q -e alloc -o sq.PMS sqlite3 :memory: <w.sql \
		    >/dev/null || fail "pmeclock sqlite3 failed"
		"$pmehisto" -V heap sq.PMS >sq.txt || fail "-V heap sqlite3"
		valgrind --tool=dhat --dhat-out-file=sq.json sqlite3 \
		    :memory: <w.sql 2>sq.log >/dev/null ||
		    fail "DHAT sqlite3 failed"
		got=$(awk '$1 == "allocations" { print $2, $3 }
		    $1 == "peak" { print $2, $5 }' sq.txt | tr -d '(' |
		    tr '\n' ' ')
		want=$(tr -d , <sq.log | awk '$2 == "Total:" { print $6, $3 }
		    $3 == "t-gmax:" { print $4, $7 }' | tr '\n' ' ')
		[ -n "$want" ] && [ "$got" = "$want" ] ||
		    fail "sqlite3: pme's allocations," \
		    "bytes, peak and its blocks '$got', DHAT's '$want'"
	fi
else
	echo "pmeclock_heap: no valgrind: DHAT and memcheck not compared"
fi
if command -v heaptrack >/dev/null && command -v heaptrack_print >/dev/null
then
	heaptrack -o ht ./heapfix >ht.log 2>&1 || fail "heaptrack failed"
	heaptrack_print -f ht.zst >ht.txt 2>/dev/null ||
	    fail "heaptrack_print failed"
	calls=$(awk '/^calls to allocation functions:/ { print $5 }' ht.txt)
	hpeak=$(awk '/^peak heap memory consumption:/ { print $5 }' ht.txt)
	# pme's allocations before heaptrack's library started: libstdc++'s.
	early=$(awk '$3 ~ /libstdc\+\+/ { n += $2 } END { print n + 0 }' \
	    leaks.rows)
	[ "$calls" = "$((allocs - early))" ] ||
	    fail "heaptrack: $calls calls, pme $allocs less $early"
	[ "$hpeak" = "$(awk -v b="${peak% *}" \
	    'BEGIN { printf "%.2fK", b / 1000 }')" ] ||
	    fail "heaptrack: peak $hpeak, pme ${peak% *} bytes"
else
	echo "pmeclock_heap: no heaptrack: not compared"
fi

# The clock in the same run, on tests/bench/heapbench.c (long enough for
# CPU samples: 300000 rounds, 400000 allocations in round_): a column
# each in -V measures, the allocations exact, the clock's samples its
# own (they were booked to the header's first event, allocations).
gcc -O2 -g -o hb "$top/tests/bench/heapbench.c" || fail "cannot build heapbench"
"$pmeclock" -q -e alloc,cpu-clock/1ms -o mix.PMS ./hb 300000 ||
    fail "pmeclock -e alloc,cpu-clock failed"
"$pmehisto" -q -x -V measures mix.PMS >mix.txt ||
    fail "pmehisto -V measures failed"
head -n 1 mix.txt | grep -q "allocations.*bytes.*cpu-clock" ||
    fail "-V measures: no allocations, bytes and cpu-clock columns: \
$(head -n 1 mix.txt)"
awk '$1 == "round_" && $2 == 400000 { ok = 1 } END { exit !ok }' mix.txt ||
    fail "-V measures: round_ not 400000: $(grep round_ mix.txt)"
awk 'NR > 1 { n += $4 } END { exit !(n > 0) }' mix.txt ||
    fail "-V measures: no CPU samples"

# The record's size (HEA2 in pme(5)): heapbench alone repeats itself, and
# its 800000 calls cost a few bytes a millisecond of the run (a TIME
# record and the REPEAT it cuts), not bytes a call (1.8 each, 1.4 MB,
# before HEA2): at most 16 KiB and 16 bytes a millisecond.  Its totals
# are still exact: 300000 mallocs and 100000 callocs, 100000 of the
# mallocs' blocks freed at once (temporaries), everything freed.
t0=$(date +%s%N)
"$pmeclock" -q -e alloc -o rep.PMS ./hb 300000 || fail "pmeclock heapbench"
ms=$((($(date +%s%N) - t0) / 1000000))
size=$(stat -c %s rep.PMS)
[ "$size" -le $((16384 + 16 * ms)) ] ||
    fail "heapbench: a file of $size bytes for a run of $ms ms"
"$pmehisto" -V heap rep.PMS >rep.txt || fail "-V heap heapbench"
got=$(awk '/^  (allocations|frees|leaked|temporary) / { sub(/:$/, "", $2)
    print $1, $2 }' rep.txt | tr '\n' ' ')
[ "$got" = "allocations 400000 frees 400000 leaked 0 temporary 100000 " ] ||
    fail "heapbench: $got"

# heaptrack on the same program: its recorder's summary counts pme's
# 100000 temporaries (by block); heaptrack_print counts a free as
# temporary when the freed block has the last allocation's size and
# stack, any block: in rounds i = 2 (mod 3), i >= 1000, heapbench frees
# the block of round i - 1000, of the size and stack of the one just
# allocated, 99667 more at round_ (pmehisto(1), The heap).
if command -v heaptrack >/dev/null && command -v heaptrack_print >/dev/null
then
	heaptrack -o htb ./hb 300000 >htb.log 2>&1 ||
	    fail "heaptrack heapbench failed"
	got=$(awk '/temporary allocations:/ { print $NF }' htb.log)
	[ "$got" = 100000 ] ||
	    fail "heaptrack's summary: ${got:-no} temporaries, pme 100000"
	got=$(heaptrack_print -f htb.zst 2>/dev/null | awk '
	    /temporary allocations of .* from$/ { n = $1; getline
	    if ($1 == "round_") { print n; exit } }')
	[ "$got" = $((100000 + (299999 - 1001) / 3 + 1)) ] ||
	    fail "heaptrack_print: ${got:-no} temporaries at round_," 	    "not pme's 100000 and 99667 frees of like blocks"
fi

# Reading it: memory bounded by the live blocks (1000) and the stacks,
# not by the events: -V heap's peak RSS on these 800000 events at most
# twice its peak on 80000 (the table of blocks grew with the events,
# 3 times as much, before).
if gcc -O2 -o peakrss "$top/tests/bench/peakrss.c"; then
	"$pmeclock" -q -e alloc -o rep10.PMS ./hb 30000 ||
	    fail "pmeclock heapbench 30000"
	./peakrss rss10 "$pmehisto" -V heap rep10.PMS >/dev/null ||
	    fail "-V heap heapbench 30000"
	./peakrss rss "$pmehisto" -V heap rep.PMS >/dev/null ||
	    fail "-V heap heapbench 300000"
	[ "$(cat rss)" -le $((2 * $(cat rss10))) ] ||
	    fail "-V heap: peak RSS $(cat rss) KiB on 800000 events," \
	    "$(cat rss10) KiB on 80000"
else
	fail "cannot build peakrss"
fi

# ---------------------------------------------------- the bad and odd

"$pmeclock" -q -o clock.PMS ./heapfix || fail "pmeclock (the clock) failed"
expect "-V heap of a clock run" 1 "$pmehisto" -V heap clock.PMS
grep -q "no heap records (record them with pmeclock -e alloc)" "$tmp/err" ||
    fail "-V heap of a clock run: $(cat "$tmp/err")"
expect "-V heap of two files" 1 "$pmehisto" -V heap h.PMS h2.PMS
expect "-V heap with a filter" 2 "$pmehisto" --time 0%-50% -V heap h.PMS
grep -q "^pmehisto: --time 0%-50%: the filters narrow samples, not the records of -V heap: the measures (-M bytes, -M allocations) show them filtered$" \
    "$tmp/err" || fail "-V heap with a filter: $(head -n 1 "$tmp/err")"
# A program that calls no allocator, watched: a report of nothing, not
# an error.
printf 'int main(void) { return 0; }\n' >none.c
if gcc -o none none.c; then
	"$pmeclock" -q -e alloc -o none.PMS ./none ||
	    fail "pmeclock -e alloc of a program that allocates nothing"
	expect "-V heap of no allocation" 0 "$pmehisto" -V heap none.PMS
	is "-V heap of no allocation" "$(cat "$tmp/out")" \
	    "Heap: no call of the allocator (pmeclock -e alloc watched the run)"
else
	fail "cannot build none.c"
fi

expect "-m perf -e alloc" 2 "$pmeclock" -q -m perf -e alloc -o x.PMS \
    ./heapfix
grep -q "not with -m perf" "$tmp/err" || fail "-m perf: $(cat "$tmp/err")"
expect "--count -e alloc" 2 "$pmeclock" --count -e alloc ./heapfix
# Attached or system-wide: a usage error naming it (-p said
# perf_event_open's "No such file or directory", exit 1).
for o in "-p $$" "-a"; do
	expect "-e alloc $o" 2 "$pmeclock" -e alloc $o -d 1 -o x.PMS
	grep -q "^pmeclock: -e alloc: .*not with ${o%% *}$" "$tmp/err" ||
	    fail "-e alloc $o: $(cat "$tmp/err")"
done
# Beside -w or -e io, which need the perf method: a usage error (it was
# exit 1, "-w: needs the perf method").
for o in "-w" "-e io"; do
	expect "-e alloc $o" 2 "$pmeclock" -e alloc $o -o x.PMS ./heapfix
	grep -q "^pmeclock: -e alloc: .*; $o reads the perf method's records: not both$" \
	    "$tmp/err" || fail "-e alloc $o: $(cat "$tmp/err")"
done
expect "-e alloc/10" 2 "$pmeclock" -e alloc/10 ./heapfix

# Killed: what was sent before is read, the file cut short said.
cat >sleepy.c <<'EOF'
#include <stdlib.h>
#include <unistd.h>
int
main(void)
{
	void *p;
	int i;

	for (i = 0; i < 1000; i++)
		if ((p = malloc(100)) == NULL)
			return 1;
	sleep(30);
	return 0;
}
EOF
gcc -O0 -o sleepy sleepy.c || fail "cannot build sleepy"
"$pmeclock" -q -e alloc -o k.PMS ./sleepy &
pmepid=$!
for i in $(seq 150); do
	[ -s k.PMS ] && "$pmehisto" -q -x -M allocations -T csv k.PMS \
	    2>/dev/null | csv_counts | grep -q "^main 1000$" && break
	sleep 0.2
done
kid=$(pgrep -P $pmepid -x sleepy)
kill -9 $pmepid
wait $pmepid 2>/dev/null
[ -n "$kid" ] && kill "$kid"
"$pmehisto" -x -M allocations -T csv k.PMS 2>k.err | csv_counts |
    grep -q "^main 1000$" || fail "killed: the 1000 allocations not read"
grep -q "cut short" k.err || fail "killed: not said cut short: $(cat k.err)"
# -V heap of it says so too, its 1000 blocks leaks of what was read (it
# said nothing); -q not.
"$pmehisto" -V heap k.PMS >kheap.txt 2>k.err ||
    fail "killed: -V heap: $(cat k.err)"
grep -q "^pmehisto: 'k.PMS': cut short.*; the report shows the events read: blocks freed after them count as leaks$" \
    k.err || fail "killed: -V heap did not say cut short: '$(cat k.err)'"
"$pmehisto" -q -V heap k.PMS >/dev/null 2>k.err && ! [ -s k.err ] ||
    fail "killed: -q -V heap: $(cat k.err)"

finish
