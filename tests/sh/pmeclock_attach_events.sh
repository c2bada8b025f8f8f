#!/bin/bash
#
# pmeclock_attach_events - pmeclock -p with -e (issue 25): events other
# than the clock, several at once, on a process attached to.  The
# events fixture (tests/fixtures/events/events.c) "go FILE K N" waits
# for FILE, then touches K fresh pages in a() and writes N times in
# writer(); it is attached to while it waits, and FILE made once
# pmeclock -v says it has attached, so every event of a() and writer()
# is watched:
#
# - page-faults/1 in a() is exactly K, syscalls:sys_enter_write/1 in
#   writer() exactly N, each its own measure of the one file (the
#   header names both);
# - break:writer, resolved in the process's program (/proc/PID/exe):
#   exactly 1 call;
# - a hardware event where there is no PMU is refused before attaching,
#   exit status 1, no file written; the process runs on.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/measures.sh"

need "$pmeclock" "$pmehisto"
cd "$tmp" || exit 1
build_ev
touch now
./ev go now 4 4 || skip "the fixture cannot run here"
"$pmeclock" -q -e page-faults -o probe.PMS ./ev pages 4 2>probe.err ||
    skip "perf_event_open cannot watch page-faults here: $(cat probe.err)"
trap 'kill $(jobs -p) 2>/dev/null' EXIT

K=1000
N=300

# watch RUN EVENTS: runs "ev go RUN.go K N", attaches pmeclock -v -e
# EVENTS to it (RUN.PMS, RUN.err), lets it go once attached, waits for
# both; pmeclock's status in st.
watch() {
	local i evp cp
	rm -f "$1.go"
	./ev go "$1.go" $K $N &
	evp=$!
	# Attached before the shell's child has exec'd, pmeclock would look
	# for the routines of break: in bash (seen on a loaded machine).
	for i in $(seq 600); do
		[ "$(readlink "/proc/$evp/exe")" = "$(readlink -f ev)" ] && break
		sleep 0.1
	done
	"$pmeclock" -v -e "$2" -p $evp -o "$1.PMS" 2>"$1.err" &
	cp=$!
	for i in $(seq 600); do
		grep -q "^pmeclock: attached to " "$1.err" && break
		kill -0 $cp 2>/dev/null || break
		sleep 0.1
	done
	touch "$1.go"
	wait $cp
	st=$?
	wait $evp
}

watch two page-faults/1,syscalls:sys_enter_write/1
is "-p -e: pmeclock's status" "$st" 0
grep -q "^pmeclock: watching './ev' (pid [0-9]*) into 'two.PMS':  *page-faults every event, syscalls:sys_enter_write every event$" two.err ||
    fail "-p -e -v: $(cat two.err)"
is "-p -e: page faults in a()" "$(counts two.PMS page-faults | count a)" $K
is "-p -e: writes in writer()" \
    "$(counts two.PMS syscalls:sys_enter_write | count writer)" $N

if [ -r /sys/bus/event_source/devices/uprobe/type ]; then
	watch brk break:writer
	is "-p -e break:writer: pmeclock's status" "$st" 0
	is "-p -e break:writer: calls" \
	    "$(counts brk.PMS break:writer | count writer)" 1
else
	echo "pmeclock_attach_events: no uprobe PMU here: breaks not checked"
fi

if [ ! -e /sys/bus/event_source/devices/cpu ]; then
	rm -f hw.go
	./ev go hw.go 1 1 &
	evp=$!
	expect "-p -e cycles" 1 "$pmeclock" -e cycles -p $evp -o hw.PMS
	is "-p -e cycles: message" "$(cat err)" "pmeclock: cycles: this machine has no PMU to count it (perf_event_open: No such file or directory): use cpu-clock (CPU time) instead"
	[ ! -e hw.PMS ] || fail "-p -e cycles wrote hw.PMS"
	kill -0 $evp 2>/dev/null || fail "-p -e cycles: the process ended"
	touch hw.go
	wait $evp
fi
finish
