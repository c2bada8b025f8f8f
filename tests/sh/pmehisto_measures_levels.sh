#!/bin/bash
#
# pmehisto_measures_levels - pmehisto -V measures:LEVEL, the table of
# every measure per thread, process, module and line (issue 25), on
# events whose counts are known exactly (tests/fixtures/events/events.c):
#
# - "events threads 3 N": thread i (named ti) writes N * i times in
#   writer(), the main thread never: syscalls:sys_enter_write at every
#   hit is N, 2N and 3N in the rows of t1, t2 and t3, 0 in the main
#   thread's, 6N in the process's row and in the program's module, and
#   the page-faults column of each level sums to the faults -M
#   page-faults counts per routine;
# - "events pages K": K page faults at the store of a(), K/4 at b()'s:
#   the rows of those two source lines are K and K/4, beside the clock;
# - as text, the table's lines all as long as its heading (a path
#   longer than the 32 columns of a routine's name widens the column);
# - a measure of the run without a sample (alignment-faults, which x86
#   user code does not make) is a column of zeros beside the others, at
#   every level (it was an error, "no samples of alignment-faults");
# - a level that is none is refused, naming the levels, status 2.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/measures.sh"

need "$pmeclock" "$pmehisto"
cd "$tmp" || exit 1
build_ev
./ev threads 1 1 || skip "the fixture cannot run here"
if ! "$pmeclock" -q -e syscalls:sys_enter_write/1 -o probe.PMS ./ev \
    threads 1 1 2>probe.err; then
	grep -q 'perf_event_open\|tracefs\|tracepoint' probe.err ||
	    fail "pmeclock -e syscalls:sys_enter_write: $(cat probe.err)"
	[ -s probe.err ] && grep -q 'perf_event_open\|tracefs\|tracepoint' \
	    probe.err && skip "no tracepoints here: $(head -n 1 probe.err)"
	finish
fi

N=200
K=1000

# sum FILE COLUMN: the sum of COLUMN over the rows.
sum() {
	awk -F'",' -v c="$2" 'NR > 1 { split($2, v, ","); n += v[c - 1] }
	    END { print n + 0 }' "$1"
}

"$pmeclock" -q -e syscalls:sys_enter_write/1,page-faults/1 -o t.PMS \
    ./ev threads 3 $N || fail "pmeclock of the threads failed"
for lv in thread process module line; do
	"$pmehisto" -q -x -V measures:$lv -T csv t.PMS >$lv.csv ||
	    fail "-V measures:$lv failed"
done
is "-V measures:thread: headings" "$(head -n 1 thread.csv)" \
    'thread,"syscalls:sys_enter_write (hits)","page-faults (page faults)"'
for i in 1 2 3; do
	is "-V measures:thread: writes of t$i" "$(row thread.csv "t$i tid " 2)" \
	    $((N * i))
done
is "-V measures:thread: writes of the main thread" \
    "$(row thread.csv "ev tid " 2)" 0
is "-V measures:thread: rows" "$(($(wc -l <thread.csv) - 1))" 4
is "-V measures:process: writes" "$(row process.csv "ev pid " 2)" $((6 * N))
is "-V measures:module: writes of the program" \
    "$(row module.csv "$tmp/ev" 2)" $((6 * N))
is "-V measures:line: writes" "$(sum line.csv 2)" $((6 * N))
faults=$("$pmehisto" -q -x -M page-faults -T text -o - -B /dev/null t.PMS |
    awk '$1 == "Events:" { print $2; exit }')
for lv in thread process module line; do
	is "-V measures:$lv: page faults against -M page-faults" \
	    "$(sum $lv.csv 3)" "$faults"
done

"$pmeclock" -q -e page-faults/1,cpu-clock/100us -o p.PMS ./ev pages $K ||
    fail "pmeclock of the pages failed"
"$pmehisto" -q -x -V measures:line -T csv p.PMS >pline.csv ||
    fail "-V measures:line failed"
src=$top/tests/fixtures/events/events.c
la=$(grep -n '\[i \* pg\] = 1;' "$src" | cut -d: -f1)
lb=$(grep -n '\[i \* pg\] = 2;' "$src" | cut -d: -f1)
is "-V measures:line: faults at a()'s store" \
    "$(row pline.csv "events.c:$la a" 2)" $K
is "-V measures:line: faults at b()'s store" \
    "$(row pline.csv "events.c:$lb b" 2)" $((K / 4))
"$pmehisto" -q -x -V measures:line -T text p.PMS >pline.txt ||
    fail "-V measures:line -T text failed"
grep -q "^LINE  *page-faults (page faults)  *cpu-clock (samples)$" \
    pline.txt || fail "-V measures:line -T text: $(head -n 1 pline.txt)"

# Text: the first column as wide as the longest name (a module's path),
# so that every line of the table is as long as its heading.
"$pmehisto" -q -x -V measures:module -T text t.PMS >module.txt ||
    fail "-V measures:module -T text failed"
is "-V measures:module -T text: the lines' lengths" \
    "$(awk '{ print length($0) }' module.txt | sort -u | wc -l)" 1

"$pmeclock" -q -e syscalls:sys_enter_write/1,alignment-faults/1 -o z.PMS \
    ./ev threads 1 $N || fail "pmeclock of alignment-faults failed"
for lv in routine thread module line; do
	"$pmehisto" -q -x -V measures:$lv -T csv z.PMS >z$lv.csv 2>zerr ||
	    fail "-V measures:$lv of a measure without samples: $(cat zerr)"
	is "-V measures:$lv: writes beside alignment-faults" \
	    "$(sum z$lv.csv 2)" "$N"
	is "-V measures:$lv: alignment-faults" "$(sum z$lv.csv 3)" 0
done

expect "-V measures:bogus" 2 "$pmehisto" -x -V measures:bogus p.PMS
grep -q "^pmehisto: -V measures:bogus: not a level: routine, thread, process, module, function, line, instruction or cpu$" \
    err || fail "-V measures:bogus: $(head -n 1 err)"
finish
