#!/bin/bash
#
# pmeclock_count - pmeclock --count, as perf stat: the events counted, not
# sampled, printed on standard error, no sample file; on the programs of
# pmeclock_events (tests/fixtures/events: "pages K" touches K + K/4 fresh
# pages, "writes N M" writes N times) and pmeclock_breaks
# (tests/fixtures/breaks: f() called N + K times, r() K * (D + 1), g()
# of libg.so K):
#
# - writes: syscalls:sys_enter_write is exactly N, and 2N for a shell
#   that runs the program twice (the counts are inherited by children);
# - page faults: at least K + K/4, and equal to perf stat's of the same
#   program in the same environment (the one perf gives its command: perf
#   adds to it, and the size of the environment moves where the stack
#   ends), both without address space randomization (setarch -R: with
#   it, where the stack and the mappings fall moves the program's count by
#   a few faults from run to run, for perf as for pmeclock);
# - breaks: exactly the calls, several in one run, one in a library;
# - --per-thread: "threads 3 N" (thread i, named ti, writes N * i
#   times) gives exactly N, 2N, 3N writes in the rows of t1, t2, t3 and
#   0 in the main thread's, in each of many runs (the kernel may swap
#   two threads' counters at a switch: the counts stay the threads');
#   every event's rows add up to its total; a shell's two children are
#   rows of their own processes; --per-thread without --count is
#   refused;
# - without -e the four default events, each with its unit, and the wall,
#   user and system times;
# - the command's exit status is pmeclock's (a signal's 128 + N, 127 for
#   no such command); no sample file is written, an existing one is left
#   as it was;
# - the options of sampling, a period and a hardware event where there is
#   no PMU are refused, naming them.
#
# The counts are exact: nothing is sampled, so nothing can be lost.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/measures.sh"

need "$pmeclock"
cd "$tmp" || exit 1
build_ev
./ev pages 4 || skip "the fixture cannot run here"
if ! "$pmeclock" --count -e page-faults ./ev pages 4 2>probe.err; then
	grep -q perf_event_open probe.err ||
	    { fail "pmeclock --count -e page-faults: $(cat probe.err)"; finish; }
	skip "perf_event_open cannot count page-faults here: $(cat probe.err)"
fi

K=2000 N=500 M=3

# counted EVENT <err: the count pmeclock printed for EVENT.
counted() {
	awk -v e="$1" '$2 == e { print $1 }'
}

perf_ok=0
command -v perf >/dev/null && perf stat -e page-faults -x, -- true \
    >/dev/null 2>&1 && perf_ok=1
[ "$perf_ok" = 1 ] ||
    echo "pmeclock_count: perf stat cannot count here: comparisons skipped"
norand=
setarch -R true 2>/dev/null && norand="setarch -R"
[ -n "$norand" ] ||
    echo "pmeclock_count: setarch -R refused: perf's page faults not compared"

# The environment perf stat gives its command, from a small one of our
# own, for pmeclock's runs compared with perf's (pmeclock adds
# PMECLOCK_ACTIVE=1: it is in both).
base=(env -i HOME="$tmp" PATH="$PATH" PMECLOCK_ACTIVE=1)
pmenv=()
if [ "$perf_ok" = 1 ]; then
	"${base[@]}" perf stat -x, -o /dev/null -- env >perf.env 2>/dev/null ||
	    fail "perf stat -- env failed"
	mapfile -t penv <perf.env
	pmenv=(env -i "${penv[@]}")
fi

# perf_stat EVENT COMMAND...: perf stat's count of EVENT.
perf_stat() {
	local ev=$1
	shift
	"${base[@]}" $norand perf stat -e "$ev" -x, -o perf.csv -- "$@" \
	    >/dev/null 2>&1 || { echo "perf stat failed"; return; }
	awk -F, -v e="$ev" '$3 == e || $3 == e ":u" { print $1 }' perf.csv
}

# ------------------------------------------------------ the fixture

echo before >PMEFILE.PMS
touch out err after.ls
ls >before.ls
expect "--count of writes" 0 "${pmenv[@]}" $norand "$pmeclock" --count \
    -e page-faults,syscalls:sys_enter_write ./ev writes $N $M
is "writes" "$(counted syscalls:sys_enter_write <err)" $N
[ -s out ] && fail "the command's output: $(head -c 200 out)"
[ "$(cat PMEFILE.PMS)" = before ] || fail "--count changed PMEFILE.PMS"
ls >after.ls
cmp -s before.ls after.ls ||
    fail "--count wrote a file: $(diff before.ls after.ls | tr '\n' ' ')"
if [ "$perf_ok" = 1 ] && [ -n "$norand" ]; then
	is "page faults of writes against perf stat's" \
	    "$(counted page-faults <err)" "$(perf_stat page-faults ./ev \
	    writes $N $M)"
	is "perf stat's writes" \
	    "$(perf_stat syscalls:sys_enter_write ./ev writes $N $M)" $N
fi

expect "--count of pages" 0 "${pmenv[@]}" $norand "$pmeclock" --count -e page-faults \
    ./ev pages $K
got=$(counted page-faults <err)
[ "${got:-0}" -ge $((K + K / 4)) ] ||
    fail "page faults of pages $K: $got, fewer than $((K + K / 4))"
[ "$perf_ok" = 1 ] && [ -n "$norand" ] &&
    is "page faults of pages $K against perf stat's" "$got" \
    "$(perf_stat page-faults ./ev pages $K)"

# Inherited: the shell's two children.
expect "--count of a shell" 0 "$pmeclock" --count \
    -e syscalls:sys_enter_write sh -c "./ev writes $N $M; ./ev writes $N $M"
is "writes of two children" "$(counted syscalls:sys_enter_write <err)" \
    $((2 * N))

# The default events and the times.
expect "--count without -e" 0 "$pmeclock" --count ./ev pages 40
for e in "task-clock ns" "context-switches switches" \
    "cpu-migrations migrations" "page-faults page faults"; do
	grep -Eq "^ +[0-9]+  ${e%% *} +${e#* }$" err ||
	    fail "--count without -e: no $e line: $(cat err)"
done
for t in "wall time" user sys; do
	grep -Eq "^ +[0-9]+\.[0-9]{6}  seconds $t$" err ||
	    fail "--count: no $t line: $(cat err)"
done

# ------------------------------------------------------- per thread

# rows EVENT <err: "name count" of the per-thread rows of EVENT.
rows() {
	awk -v e="$1" 'NF == 5 && $1 ~ /^[0-9]+$/ && $5 == e {
	    print $3, $4 }'
}
for i in 1 2 3 4 5 6 7 8 9 10; do
	expect "--count --per-thread ($i)" 0 "$pmeclock" --count \
	    --per-thread -e syscalls:sys_enter_write,page-faults ./ev \
	    threads 3 $N
	is "--per-thread: writes per thread ($i)" \
	    "$(rows syscalls:sys_enter_write <err | sort | tr '\n' ' ')" \
	    "ev 0 t1 $N t2 $((2 * N)) t3 $((3 * N)) "
	for e in syscalls:sys_enter_write page-faults; do
		is "--per-thread: the rows of $e add up to its total ($i)" \
		    "$(rows $e <err | awk '{ n += $2 } END { print n }')" \
		    "$(counted $e <err)"
	done
done
grep -q '^     pid      tid  name                            count  event$' \
    err || fail "--per-thread: no heading: $(cat err)"
expect "--count --per-thread of a shell" 0 "$pmeclock" --count \
    --per-thread -e syscalls:sys_enter_write sh -c \
    "./ev threads 2 $N; ./ev threads 1 $N"
is "--per-thread: the processes of a shell" \
    "$(rows syscalls:sys_enter_write <err | tr '\n' ' ')" \
    "sh 0 ev 0 t1 $N t2 $((2 * N)) ev 0 t1 $N "
expect "--per-thread without --count" 2 "$pmeclock" --per-thread ./ev \
    pages 4
is "--per-thread without --count: message" "$(cat err)" \
    "pmeclock: --per-thread: only with --count"

# ----------------------------------------------------------- breaks

if [ -r /sys/bus/event_source/devices/uprobe/type ]; then
	fx=$top/tests/fixtures/breaks
	gcc -O0 -g -shared -fPIC -o libg.so "$fx/lib.c" &&
	    gcc -O0 -g -o prog "$fx/prog.c" -L. -lg -Wl,-rpath,'$ORIGIN' ||
	    fail "cannot build the breaks fixture"
	B=1000 BK=30 D=5
	expect "--count of breaks" 0 "$pmeclock" --count \
	    -e break:f,break:r,u:libg.so:g ./prog $B $BK $D
	is "calls of f()" "$(counted break:f <err)" $((B + BK))
	is "calls of r()" "$(counted break:r <err)" $((BK * (D + 1)))
	is "calls of g() in libg.so" "$(counted break:libg.so:g <err)" $BK
else
	echo "pmeclock_count: no uprobe PMU here: breaks not counted"
fi

# ------------------------------------------------------ exit status

expect "exit status 7" 7 "$pmeclock" --count -e page-faults sh -c 'exit 7'
grep -q "^pmeclock: counts of 'sh' (exit status 7):$" err ||
    fail "exit status 7: $(cat err)"
expect "a signal" 143 "$pmeclock" --count sh -c 'kill -TERM $$'
expect "no such command" 127 "$pmeclock" --count ./no-such-command
grep -q "^pmeclock: './no-such-command': command not found$" err ||
    fail "no such command: $(cat err)"

# --------------------------------------------------------- refusals

for o in "-g" "-G fp" "-o x.PMS" "-F 100" "-i 1ms" "-j 5" "-m timer" \
    "-m itimer" "-p 1"; do
	# shellcheck disable=SC2086 # the option and its argument
	expect "--count $o" 2 "$pmeclock" --count $o ./ev pages 4
	name1=${o%% *}
	[ "$name1" = -m ] && name1=$o
	want="pmeclock: --count counts the events of a command, writing no sample file: not with $name1"
	is "--count $o: message" "$(cat err)" "$want"
done
expect "--count -g -o" 2 "$pmeclock" --count -g -o x ./ev pages 4
is "--count -g -o: message" "$(cat err)" "pmeclock: --count counts the events of a command, writing no sample file: not with -g, -o"
expect "--count -l" 2 "$pmeclock" --count -l
expect "--count with a period" 2 "$pmeclock" --count -e page-faults/4 \
    ./ev pages 4
is "--count with a period: message" "$(cat err)" \
    "pmeclock: --count: -e page-faults/4: a count has no period"
expect "--count without a command" 2 "$pmeclock" --count
if [ ! -e /sys/bus/event_source/devices/cpu ]; then
	expect "--count -e cycles" 1 "$pmeclock" --count -e cycles ./ev pages 4
	is "--count -e cycles: message" "$(cat err)" "pmeclock: cycles: this machine has no PMU to count it (perf_event_open: No such file or directory): use cpu-clock (CPU time) instead"
fi
[ "$(cat PMEFILE.PMS)" = before ] || fail "a refused --count wrote PMEFILE.PMS"
finish
