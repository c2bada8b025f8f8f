#!/bin/bash
#
# maps_repeated.sh - a MAPS chunk of one mapping repeated 184,364 times
# (129 KB in the hostile probe's file; issue 23, item 21) is read as the
# mappings it holds: libpme's reader passes a record the same as the one
# before it on once (pme(5)), so that pmehisto, stats and pmemerge do
# their work per mapping, not per copy (pmehisto -x took tens of seconds,
# each mapping checked against every one before it).  Counted, not
# timed: t_sample dump prints what the reader passes on, two mappings
# here (the main one and libc's); and pmehisto and stats tally the file
# as the same file with one copy.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$tsample" "$pmehisto" "$top/stats/stats"
cd "$tmp" || exit 1

# The file: every mapping in one chunk (a buffer larger than the chunk).
write() {	# COPIES OUT
	awk -v n="$1" 'BEGIN {
	print "header method=test event=cpu-clock period=1000000 pid=100 " \
	    "start=0 start_mono=0 argv=./demo bufsize=67108864"
	print "map pid=100 start=0x555555554000 end=0x555555556000 " \
	    "offset=0x1000 vaddr=0x1000 path=/bin/true flags=exec,main"
	for (i = 0; i < n; i++)
		print "map pid=100 start=0x7f0000000000 end=0x7f0000100000 " \
		    "offset=0 vaddr=0 path=/lib/x86_64-linux-gnu/libc.so.6 " \
		    "flags=exec"
	print "sample pid=100 pc=0x7f0000000100 count=7"
	print "sample pid=100 pc=0x555555554100 count=3"
	print "close"
	}' | "$tsample" write "$2" || fail "t_sample write $2"
}
mkdir many one || exit 1
write 184364 many/run.PMS
write 1 one/run.PMS

"$tsample" dump many/run.PMS >dump || fail "dump: exit $?"
n=$(grep -c '^map' dump)
[ "$n" = 2 ] || fail "the reader passed on $n mappings, not 2"

# The same tallies as the file with one copy.
for f in many one; do
	(cd $f && "$pmehisto" -q -x -B /dev/null -T csv -o h.csv run.PMS \
	    >/dev/null 2>err; echo "exit $?" >>err
	"$top/stats/stats" -f run.PMS -b module -T csv >stats 2>>err)
done
for o in h.csv err stats; do
	cmp -s many/$o one/$o || fail "$o: $(diff many/$o one/$o | head)"
done
[ -s one/h.csv ] && [ -s one/stats ] || fail "no output: $(cat one/err)"
finish
