#!/bin/bash
#
# tutorial.sh - pme(7)'s tutorial, run as a reader would: every command
# of its TUTORIAL section (the lines that start with "$ "), taken from the
# page itself and run in order in one directory with the tutorial's
# program (tests/fixtures/tutorial), not on a terminal.  Each must exit 0
# and give what the page says it gives: a flat profile by count, folded
# stacks for a flame graph, a line profile of the program and its shared
# library from the same samples, exact counts with calls, and page
# faults beside the CPU time (a column per measure), where xz's memory
# goes (bytes allocated, all liblzma's; its peak and leaks), and where
# the wall-clock time of xz -T2 goes (a row per thread whose states sum
# to its life; the lock and condition waits; -M wall's folded stacks,
# which sum to the threads' wall time exactly, and per thread to each
# one's).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

page=$top/man/pme.7
command -v valgrind >/dev/null ||
    skip "valgrind is not installed: the tutorial's pmetrace step needs it"
[ -z "${PME_VALGRIND:-}" ] || skip "runs valgrind itself: not under PME_VALGRIND"
export PATH="$top/build:$top/sample:$top/histo:$top/trace:$PATH"

cd "$tmp" || exit 1
cp "$top"/tests/fixtures/tutorial/*.c . || exit 1
sed -n '/^\.Sh TUTORIAL/,/^\.Sh /p' "$page" | sed -n 's/^\$ //p' >cmds
[ "$(wc -l <cmds)" = 18 ] ||
    { fail "$(wc -l <cmds) commands in the tutorial, not 18:"; cat cmds >&2; }

# step N: the output of the tutorial's Nth command.
i=0
while IFS= read -r c; do
	i=$((i + 1))
	bash -c "$c" >out.$i 2>err.$i </dev/null
	rc=$?
	printf '$ %s\n' "$c" >>transcript
	cat out.$i err.$i >>transcript
	[ $rc = 0 ] || fail "'$c': exit status $rc: $(head -c 400 err.$i)"
done <cmds

rows() {	# the histogram rows' names of output N
	awk -F'|' 'NF >= 2 { gsub(/ /, "", $1); print $1 }' "out.$1"
}

# 4: pmehisto, the flat profile: the library's routine work first, then
# prog's mix (the quick path names the routines of every module the
# samples fell in), none of the two outside, and what it did said.
[ "$(rows 4 | head -n 2 | tr '\n' ' ')" = "work mix " ] ||
    fail "flat profile: not work, then mix: $(rows 4 | tr '\n' ' ')"
sed -n '/^Outside buckets:/,/^Unmapped:/p' out.4 |
    grep -Eq "(:| ) +(libwork.so|prog) " &&
    fail "flat profile: libwork.so or prog outside buckets"
grep -q "a bucket per routine of the recorded program" err.4 ||
    fail "flat profile: the quick path was not said: $(cat err.4)"
# 5: folded stacks through the routines of the program and the library
# (the quick path names the routines of every module), unwound from the
# CFI: parse and compute are in them, though their callees, leaves, have
# no frame of their own (the frame-pointer chain of pmeclock -G fp skips
# them, as pme(7) says).
grep -Eq "(^|;)main;parse;mix [0-9]+$" prog.folded ||
    fail "folded: no main;parse;mix stack: $(cat prog.folded)"
grep -Eq "(^|;)main;compute;work [0-9]+$" prog.folded ||
    fail "folded: no main;compute;work stack: $(cat prog.folded)"
# 7: the same samples by line, prog's and libwork.so's, nothing said.
[ -s err.7 ] && fail "line profile: a message: $(cat err.7)"
grep -Eq "^Counts: +clock samples" out.7 || fail "line profile: not clock input"
# The same samples as step 4: every one in a routine of prog or the
# library is on one of their lines, and at most those that were outside
# in prog or libwork.so are added; those step 4 had in routines of libc,
# the loader or the kernel are outside step 7's lines (a sample may also
# fall in code with no line: outside either way).
inb() { sed -n 's/^In buckets: *\([0-9]*\) .*/\1/p' "out.$1"; }
outof() {	# N FILE: step N's samples outside, in FILE
	sed -n '/^Outside buckets:/,/^Unmapped:/p' "out.$1" |
	    sed -n "s/.*[: ] *$2 [0-9.]*% (\([0-9]*\))\$/\1/p"
}
others() {	# N: step N's samples outside, but in prog or libwork.so
	sed -n '/^Outside buckets:/,/^Unmapped:/p' "out.$1" | grep -v '^Unmapped' |
	    sed 's/^Outside buckets://' | awk '$1 != "prog" &&
	    $1 != "libwork.so" { gsub(/[()]/, "", $3); s += $3 }
	    END { print s + 0 }'
}
in4=$(inb 4) in7=$(inb 7) others7=$(others 7)
lib4=$(outof 4 libwork.so) prog4=$(outof 4 prog)
[ $((${in7:-0} + others7)) -ge "${in4:-0}" ] &&
    [ "$in7" -le $((in4 + ${lib4:-0} + ${prog4:-0})) ] ||
    fail "line profile: $in7 samples in buckets, $others7 outside in libc, the loader or the kernel; by routine $in4, libwork.so ${lib4:-0}, prog ${prog4:-0} outside"
# 9: exact counts by line, by count: the hot lines of mix and work, the
# first lines of each called ten times (the calls column), and the
# rest below the cutoff.
grep -Eq "^Counts: +executed instructions" out.9 ||
    fail "exact counts: not instructions"
ncalls=$(awk -F'|' 'NF >= 2 && $NF ~ / 10$/' out.9 | wc -l)
[ "$ncalls" = 2 ] || fail "exact counts: $ncalls rows with 10 calls, not 2"
grep -Eq "^In buckets: +[0-9]+ \(100.0%\)" out.9 ||
    fail "exact counts: not all in the buckets"
# 11: a column per measure, page faults and CPU time, a row per
# routine; the faults of each routine those that -M page-faults books to
# it, exactly (a period of one), and work has the CPU time.
head -n 1 out.11 | grep -q "page-faults.*cpu-clock" ||
    fail "measures: no page-faults and cpu-clock columns: $(head -n 1 out.11)"
pmehisto -x -V measures -T csv faults.PMS 2>/dev/null |
    awk -F, 'NR > 1 && $2 > 0 { gsub(/"/, "", $1); print $1, $2 }' |
    sort >faults.table
pmehisto -x -M page-faults -T csv faults.PMS 2>/dev/null |
    awk -F, 'NR > 1 && $7 > 0 { print $2, $7 }' | sort >faults.flat
[ -s faults.table ] && cmp -s faults.table faults.flat ||
    fail "measures: page faults by routine differ from -M page-faults: $(diff faults.table faults.flat | head -n 6)"
awk '$1 == "work" && $NF > 0 { ok = 1 } END { exit !ok }' out.11 ||
    fail "measures: work has no CPU time: $(grep -w work out.11)"
if [ "$fails" != 0 ]; then
	echo "the transcript:" >&2
	cut -c1-150 transcript | sed 's/^/    /' >&2
fi
# 13, 14: xz's heap: bytes by routine, the peak and the leaks.
grep -Eq "^Counts: +bytes of bytes \(" out.13 ||
    fail "heap: not counting bytes: $(grep ^Counts out.13)"
grep -q "liblzma" out.13 || fail "heap: no liblzma row: $(head -n 8 out.13)"
grep -q "^Heap of process [0-9]* ('xz')" out.14 ||
    fail "heap: no report of xz: $(head -n 3 out.14)"
awk '$1 == "peak" && $2 > 60000000 { ok = 1 } END { exit !ok }' out.14 ||
    fail "heap: a peak below xz's 64 MiB: $(grep peak out.14)"
grep -q "^Leaks, by stack:" out.14 || fail "heap: no leaks table"
# 15, 16, 17: xz -T2's wall time: two threads or more, each row's states
# summing to its WALL (to the rounding of the columns); the waits' report.
awk '/^TID / { t = 1; next } t && NF == 0 { exit } t && NF == 12 && $12 == "xz" {
	n++; s = 0; for (i = 3; i <= 11; i++) s += $i
	if (s - $2 > 0.02 || $2 - s > 0.02) bad = bad " " $1 }
    END { exit !(n >= 2 && bad == "") }' out.16 ||
    fail "states: not two threads of xz whose states sum to their life: $(head -n 6 out.16)"
grep -q "^Lock and condition waits of 1.000 ms or more" out.17 ||
    fail "locks: $(head -n 3 out.17)"
# 18: -M wall's stacks sum to the threads' wall time (-V states -T csv
# of the same run), exactly, and per thread (--tid) to each one's.
pmehisto -V states -T csv waits.PMS >states.csv 2>&1 ||
    fail "states -T csv: $(cat states.csv)"
got=$(awk '{ s += $NF } END { printf "%.0f", s }' waits.folded)
want=$(awk -F, '$1 ~ /^[0-9]+$/ { s += $3 } END { printf "%.0f", s }' \
    states.csv)
[ "$got" = "$want" ] && [ "$want" -gt 0 ] ||
    fail "-M wall: the stacks sum to $got ns, the threads' wall $want"
for t in $(awk -F, '$1 ~ /^[0-9]+$/ { print $1 }' states.csv); do
	got=$(pmehisto -x -M wall --tid "$t" -T folded waits.PMS 2>/dev/null |
	    awk '{ s += $NF } END { printf "%.0f", s }')
	want=$(awk -F, -v t="$t" '$1 == t { print $3 }' states.csv)
	[ "$got" = "$want" ] ||
	    fail "-M wall: thread $t's stacks sum to $got ns, its wall $want"
done
finish
