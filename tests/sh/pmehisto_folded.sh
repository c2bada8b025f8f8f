#!/bin/bash
#
# pmehisto_folded.sh - pmehisto -T folded, the call stacks for
# flamegraph.pl and speedscope.  (1) Deterministic: a t_sample text with
# call chains against tests/histo/map.pmd (a PIE program's modules from
# prog.map, work.o cut in 0x100-byte steps): the lines must equal the
# expected text exactly (step buckets give one name, a return address at
# a routine's first byte belongs to the routine before it, libc, the
# kernel and addresses in no mapping are named in brackets), and -T folded
# with trace input must be a usage error.  (2) Real: pmeclock -g on the
# spin fixture (built with frame pointers), buckets from pmebuild -x: the
# stacks start at main or below it, end in hot or warm, and their counts
# sum to the samples.  (2) is skipped when no method gives call chains.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$tsample"

cd "$tmp" || exit 1
cp "$top/tests/histo/map.pmd" "$top/tests/histo/prog.map" . || exit 1
"$pmebuild" -q -o in.PME map.pmd || { fail "pmebuild map.pmd"; exit 1; }

# PROG at 0x555555554000 (link-time 0x1000 at 0x555555555000): Scrt1.o
# 1040-1061, main.o 1062-117F, work.o 1180-137F, util.o 1380-13FF.
cat >chain.smp <<'SMP'
header method=test event=cpu-clock period=1000000 pid=300 start=0 start_mono=0 flags=callchain argv=./prog
map pid=300 start=0x555555555000 end=0x555555556000 offset=0x1000 vaddr=0x1000 path=/home/u/prog flags=exec,main
map pid=300 start=0x7ffff7c28000 end=0x7ffff7dbd000 offset=0x28000 vaddr=0x28000 path=/lib/x86_64-linux-gnu/libc.so.6 flags=exec
sample pid=300 pc=0x5555555552a0 frames=0x555555555180,0x555555555050,0x7ffff7c29d90 count=5
sample pid=300 pc=0x555555555190 frames=0x555555555180,0x555555555050,0x7ffff7c29d90 count=3
sample pid=300 pc=0x555555555390 frames=0x555555555200,0x555555555300,0x555555555100 count=4
sample pid=300 pc=0x7ffff7c30000 frames=0x555555555390,0x555555555100 count=6
sample pid=300 pc=0x555555555800 frames=0x555555555100 count=2
sample pid=300 pc=0x555555555070 count=1
sample pid=300 pc=0x9999 frames=0x555555555100,0x10 count=2
sample pid=300 pc=0xffffffff81000000 flags=kernel frames=0x555555555390,0x555555555100 count=1
thread fork pid=301 tid=301 ppid=300 ptid=300
sample pid=301 pc=0x5555555552a0 frames=0x555555555180,0x555555555050,0x7ffff7c29d90 count=2
close end=26000000 status=0 threads=2
SMP
cat >want <<'EOF2'
[libc.so.6];Scrt1.o;main.o;work.o 10
[unknown];main.o;[unknown] 2
main.o 1
main.o;[prog] 2
main.o;util.o;[kernel]_[k] 1
main.o;util.o;[libc.so.6] 6
main.o;work.o;work.o;util.o 4
EOF2
if ! "$tsample" write chain.PMS <chain.smp; then
	fail "t_sample write chain.smp failed"
else
	$PME_VALGRIND "$pmehisto" -q -T folded -b in.PME -B out.PME \
	    -o out.HIS chain.PMS >got 2>err ||
	    fail "pmehisto -T folded: exit status $?: $(cat err)"
	diff -u want got >diff || { fail "folded stacks differ:"; cat diff >&2; }
	[ -s err ] && { fail "standard error not empty:"; cat err >&2; }
	# The histogram and the filled bucket file are written as ever.
	grep -q '^Total: *26$' out.HIS || fail "out.HIS: no 'Total: 26'"
	# Trace input has no call stacks.
	"$pmehisto" -t -T folded -b out.PME -o t.HIS >got 2>err
	rc=$?
	[ $rc = 2 ] || fail "-t -T folded: exit status $rc, not 2"
	grep -q "^pmehisto: -T folded: .*trace input" err ||
	    fail "-t -T folded: no clear message: $(cat err)"
fi

# (2) a real run.
[ -x "$pmeclock" ] || { echo "skipped: pmeclock is not built"; exit 77; }
cc=${CC:-cc}
$cc -g -O1 -fno-omit-frame-pointer -pthread -o spin \
    "$top/tests/fixtures/clock/spin.c" -ldl 2>build.log ||
    { fail "cannot build spin: $(cat build.log)"; exit 1; }
"$pmebuild" -q -x ./spin -o spin.PME || { fail "pmebuild -x ./spin"; exit 1; }
if ! $PME_VALGRIND "$pmeclock" -q -g -F 1000 -o spin -- ./spin cpu 400 \
    >/dev/null 2>clock.err </dev/null; then
	[ "$fails" = 0 ] || exit 1
	echo "skipped: pmeclock -g cannot record here: $(head -n 1 clock.err)"
	exit 77
fi
$PME_VALGRIND "$pmehisto" -q -T folded -b spin.PME -B spinout.PME \
    -o spin.HIS spin.PMS >folded 2>err ||
    fail "pmehisto -T folded on spin.PMS: $(cat err)"
total=$(sed -n 's/^Total: *//p' spin.HIS)
sum=$(awk '{ s += $NF } END { print s + 0 }' folded)
[ "$sum" = "$total" ] ||
    fail "the stacks count $sum samples, the histogram $total"
[ "${total:-0}" -ge 50 ] || fail "only ${total:-0} samples of 400 ms of CPU"
# Stacks of hot and warm, the fixture's burners, which main calls.
deep=$(awk '$1 ~ /(^|;)main;(hot|warm)$/ { s += $NF } END { print s + 0 }' folded)
if [ "$deep" = 0 ]; then
	if grep -q ';' folded; then
		fail "no stack main;hot or main;warm:"
		cat folded >&2
	else
		echo "skipped: pmeclock -g gave no call chains here (one-frame stacks only)"
		exit 77
	fi
fi
[ "$deep" -ge $((total * 8 / 10)) ] ||
    fail "only $deep of $total samples in stacks ...;main;hot or warm:
$(cat folded)"
# What is below main: the C library's start, the executable's _start
# (outside the buckets when it has no debugging information: [spin]).
awk -F'[; ]' '$0 ~ /;main;(hot|warm) / && $1 != "main" &&
    $1 != "_start" && $1 != "[spin]" && $1 !~ /^\[libc/ { bad = 1; print }
    END { exit bad }' folded >bad || fail "stacks that start elsewhere:
$(cat bad)"
LC_ALL=C sort -c folded 2>/dev/null || fail "lines not in byte order"

finish
