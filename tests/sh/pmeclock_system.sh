#!/bin/bash
#
# pmeclock_system - pmeclock -a, every process on every CPU (issue 25),
# on the events fixture (tests/fixtures/events/events.c), whose counts
# are known exactly:
#
# - -a -- ./evPID writes N M: syscalls:sys_enter_write at every hit is N in
#   the row of the command's process (-V measures:process) and in
#   writer(); the command's exit status is pmeclock's;
# - a process pmeclock did not start ("ev go FILE K N", started before,
#   let go by the command): K page faults in its a() and N writes in its
#   process's row, so the process was watched from outside;
# - -d without a command ends the run, the file whole; with a command
#   still running then, the command is ended (SIGTERM: status 143);
# - a program run from a memfd (tests/fixtures/clock/memfdexec.c), which
#   no path opens, beside another run from its file (both spin in their
#   own code): pmehisto -x reports the run, says the program was not
#   read (or, when another's buckets are read, not of them) and counts
#   its samples outside buckets under its name; the same when it is the
#   run's only program;
# - refused: -a with -p, -j, -m timer and --count (status 2); run as an
#   unprivileged user where perf_event_paranoid is above 0, exit 1 with
#   what it takes, no file written.
# Other programs run beside, tests of the same fixture too: the fixture
# runs under a name of this test's own (evPID), and only its rows count.
# Every process's events fill the kernel's rings: when the busy machine
# made pmeclock lose some (its file says how many), a count may be short
# by at most those, and is exact otherwise.
# Skipped when -a is not permitted to the user running the tests.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/measures.sh"

need "$pmeclock" "$pmehisto"
cd "$tmp" || exit 1
build_ev
me=ev$$
mv ev "$me"
./"$me" writes 1 1 || skip "the fixture cannot run here"
if ! "$pmeclock" -q -a -e syscalls:sys_enter_write -o probe.PMS -- true \
    2>probe.err; then
	grep -q 'not permitted\|perf_event_open\|tracepoint' probe.err ||
	    { fail "pmeclock -a: $(cat probe.err)"; finish; }
	skip "pmeclock -a cannot watch here: $(head -n 1 probe.err)"
fi
trap 'kill $(jobs -p) 2>/dev/null' EXIT

K=1000 N=300 M=3

# exact WHAT GOT WANT FILE EVENT: GOT is WANT, or short of it by at most
# the samples of EVENT that FILE says were lost.
exact() {
	local lost
	lost=$("$pmehisto" -q -x -M "$5" -T text -o - -B /dev/null "$4" |
	    awk '$1 == "Lost" && $2 == "samples:" { print $3; exit }')
	lost=${lost:-0}
	if [ "$lost" -gt 0 ] && [ "$2" -le "$3" ] && [ "$2" -ge $(($3 - lost)) ]
	then
		echo "pmeclock_system: $1: $2 of $3 ($lost lost on a busy machine)"
		return
	fi
	is "$1" "$2" "$3"
}

expect "-a -- ./ev writes" 0 "$pmeclock" -q -a -e \
    syscalls:sys_enter_write/1 -o w.PMS -- sh -c \
    ": >cmd.\$\$; exec ./$me writes $N $M"
"$pmehisto" -q -x -V measures:process -T csv w.PMS >w.csv &&
    "$pmehisto" -q -x -V measures:function -T csv w.PMS >wf.csv ||
    fail "-V measures:process, function of -a failed"
# The row of the command's pid (named by a file its shell made, which
# writes nothing): processes of others whose names the file does not
# have are called as the command.
cmd=$(ls cmd.* 2>/dev/null | sed 's/^cmd\.//')
exact "-a: writes of the command's process" \
    "$(row w.csv "$me pid $cmd\"" 2)" $N \
    w.PMS syscalls:sys_enter_write
exact "-a: writes in writer()" "$(row wf.csv "writer $me\"" 2)" $N \
    w.PMS syscalls:sys_enter_write
expect "-a: the command's exit status" 3 "$pmeclock" -q -a -o s.PMS -- \
    sh -c 'exit 3'

# A process started before, let go by the command.
rm -f go
./"$me" go go $K $N &
evp=$!
expect "-a, another process" 0 "$pmeclock" -q -a \
    -e page-faults/1,syscalls:sys_enter_write/1 -o o.PMS -- sh -c \
    "touch go; while kill -0 $evp 2>/dev/null; do sleep 0.05; done"
wait $evp
"$pmehisto" -q -x -V measures:process -T csv o.PMS >o.csv ||
    fail "-V measures:process of -a failed"
exact "-a: writes of a process not started by pmeclock" \
    "$(row o.csv "$me pid $evp\"" 3)" $N o.PMS syscalls:sys_enter_write
"$pmehisto" -q -x -V measures:function -T csv o.PMS >of.csv ||
    fail "-V measures:function of -a failed"
exact "-a: page faults in a() of that process" "$(row of.csv "a $me\"" 2)" \
    $K o.PMS page-faults

expect "-a -d" 0 "$pmeclock" -q -a -d 200ms -o d.PMS
"$pmehisto" -q -x -T none -o /dev/null -B /dev/null d.PMS ||
    fail "-a -d: the file is not whole"
expect "-a -d -- sleep 600" 143 "$pmeclock" -q -a -d 200ms -o d2.PMS -- \
    sleep 600
"$pmehisto" -q -x -T none -o /dev/null -B /dev/null d2.PMS ||
    fail "-a -d -- sleep 600: the file is not whole"

# A program run from a memfd (as runc runs its own) has no file to open:
# its samples stay under its name, and the other programs' are reported.
if gcc -O2 -o memfdexec "$top/tests/fixtures/clock/memfdexec.c" &&
    gcc -O2 -DOTHER -o other "$top/tests/fixtures/clock/memfdexec.c"; then
	expect "-a -- memfdexec" 0 "$pmeclock" -q -a -o mf.PMS -- sh -c \
	    './memfdexec --spinning 200 & ./memfdexec 300 ./other; wait'
	"$pmehisto" -x -T text -o - -B /dev/null mf.PMS >mf.txt 2>mf.err ||
	    fail "-a with a program run from a memfd: $(cat mf.err)"
	grep -q "^pmehisto: '/memfd:pme-test': " mf.err ||
	    fail "-a: the memfd program not said: $(cat mf.err)"
	grep -q " memfd:pme-test [0-9.]*% ([1-9][0-9]*)\$" mf.txt || fail \
	    "-a: the memfd program's samples not under its name: $(grep -A 3 '^Outside' mf.txt)"
	# A run whose only program is one run from a memfd (an -a run
	# on a machine where only such a sandbox ran, as the CI's was):
	# reported, not an error.  --dso keeps its samples only (a few
	# may fall in memfdexec's file before its exec, or in libc).
	expect "memfdexec alone" 0 "$pmeclock" -q -o mo.PMS -- ./memfdexec 300
	"$pmehisto" -x --dso /memfd:pme-test -T text -o - -B /dev/null \
	    mo.PMS >mo.txt 2>mo.err ||
	    fail "a run of a program run from a memfd alone: $(cat mo.err)"
	grep -q "^pmehisto: '/memfd:pme-test': " mo.err ||
	    fail "the memfd program alone not said: $(cat mo.err)"
	grep -q " memfd:pme-test 100.0% ([1-9][0-9]*)\$" mo.txt || fail \
	    "the memfd program alone: samples not under its name: $(grep -A 3 '^Outside' mo.txt)"
else
	fail "cannot build memfdexec"
fi

for o in "-p 1" "-j 5" "-m timer"; do
	# shellcheck disable=SC2086 # the option and its argument
	expect "-a $o" 2 "$pmeclock" -a $o -o r.PMS -- true
done
is "-a -m timer: message" "$(cat err)" \
    "pmeclock: -a: the timer method samples only the program its runtime is preloaded into: watch every process with -m perf"
expect "--count -a" 2 "$pmeclock" --count -a -- true
[ ! -e r.PMS ] || fail "a refused -a wrote r.PMS"

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [ "$(id -u)" = 0 ] && [ "$paranoid" -gt 0 ] &&
    command -v setpriv >/dev/null; then
	chmod 777 "$tmp"
	expect "-a as nobody" 1 setpriv --reuid=65534 --regid=65534 \
	    --clear-groups "$pmeclock" -a -o "$tmp/n.PMS" -- true
	is "-a as nobody: message" "$(cat err)" \
	    "pmeclock: -a: not permitted: watching every process needs root, or CAP_PERFMON (CAP_SYS_ADMIN before Linux 5.8), or perf_event_paranoid at 0 or below (it is $paranoid); perf_event_open: Permission denied"
	[ ! -e n.PMS ] || fail "-a as nobody wrote n.PMS"
else
	echo "pmeclock_system: not root, or perf_event_paranoid 0: the refusal not checked"
fi
finish
