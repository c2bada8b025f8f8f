#!/bin/bash
#
# pmehisto_chains_mapped.sh - call chains are resolved through the
# mappings of their own time, however pmehisto batches them: pmehisto
# counts repeated chains by their raw addresses and resolves each chain
# once, so a chain seen before a mapping record and again after it must be
# resolved apart, and a run's chains before the next run's mappings.
# Sample files made with the sample writer, Debian's true and false as
# the mapped files (stripped: a frame is its module, "[true]"):
# 1. two samples whose pc is in no mapping ("[unknown]"), then, after a
#    flush, a mapping of false over that pc and the same chain again:
#    [unknown] 2 and [false] 1.  Resolving the three at once, at the
#    first's time, gave "[true];[true];[unknown] 3" (seen with the flush
#    before a mapping record taken out).
# 2. a file of two runs of pid 1, true then false mapped at the same
#    address, one sample of the same chain each: one row each.
# 3. the same chains as in 1, spread over threads and mixed with others,
#    a thousand samples: -T folded's counts add up to the samples, and
#    equal those of the same file with each sample on a chain of its own
#    thread (which cannot repeat), resolved as they come.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$tsample" "$pmehisto"
[ -x /usr/bin/true ] && [ -x /usr/bin/false ] || skip "no /usr/bin/true or false"
cd "$tmp" || exit 1

folded() {	# FILE: pmehisto -x -T folded of FILE, its lines sorted
	"$pmehisto" -q -x -T folded -o /dev/null -B /dev/null "$1" 2>"$1.err" |
	    sort
}

hdr="header method=test period=1000000 pid=1 start=0 argv=x flags=callchain"
true_map="map pid=1 time=0 start=0x400000 end=0x500000 offset=0 vaddr=0x400000 path=/usr/bin/true flags=exec,main"

# --- 1. a mapping between two samples of one chain -----------------------
{
	echo "$hdr"
	echo "$true_map"
	echo "sample pid=1 time=10 pc=0x601000 frames=0x402000,0x403000"
	echo "sample pid=1 time=20 pc=0x601000 frames=0x402000,0x403000"
	echo flush
	echo "map pid=1 time=100 start=0x600000 end=0x700000 offset=0 vaddr=0x400000 path=/usr/bin/false flags=exec"
	echo "sample pid=1 time=200 pc=0x601000 frames=0x402000,0x403000"
	echo close
} | "$tsample" write remap.pms || fail "cannot write remap.pms"
folded remap.pms >remap.out
printf '%s\n' "[true];[true];[false] 1" "[true];[true];[unknown] 2" >want
diff -u want remap.out || fail "a mapping between samples of one chain: $(cat remap.pms.err)"

# --- 2. two runs, one process id ----------------------------------------
{
	echo "$hdr"
	echo "$true_map"
	echo "sample pid=1 time=10 pc=0x401000 frames=0x402000"
	echo close
	echo "$hdr"
	echo "${true_map/true/false}"
	echo "sample pid=1 time=10 pc=0x401000 frames=0x402000"
	echo close
} | "$tsample" write runs.pms || fail "cannot write runs.pms"
folded runs.pms >runs.out
printf '%s\n' "[false];[false] 1" "[true];[true] 1" >want
diff -u want runs.out || fail "two runs of one process id: $(cat runs.pms.err)"

# --- 3. many samples, repeated chains against chains of their own -------
# write TIDS FILE: a thousand samples of four chains on three threads,
# and from the 51st on false mapped over addresses true leaves out (its
# mapping record again every hundred samples); with TIDS "each", each
# sample on a thread of its own.
write() {
	awk -v each="$1" -v hdr="$hdr" -v tm="$true_map" 'BEGIN {
		print hdr; print tm
		split("0x601000 0x401000 0x601000 0x402000", pc, " ")
		for (i = 0; i < 1000; i++) {
			t = 1000 * (i + 1)
			if (i % 100 == 50) {
				print "flush"
				printf "map pid=1 time=%d start=0x600000 " \
				    "end=0x700000 offset=0 vaddr=0x400000 " \
				    "path=/usr/bin/false flags=exec\n", t - 1
			}
			printf "sample pid=1 tid=%d time=%d pc=%s " \
			    "frames=0x402000,0x40%d000\n",
			    each == "each" ? 2 + i : 1 + i % 3, t,
			    pc[1 + i % 4], 3 + i % 2
		}
		print "close"
	}' | "$tsample" write "$2" || fail "cannot write $2"
}
write some many.pms
write each each.pms
folded many.pms >many.out
folded each.pms >each.out
sum=$(awk '{ s += $NF } END { print s }' many.out)
[ "$sum" = 1000 ] || fail "many: the folded counts add up to $sum, not 1000"
diff -u each.out many.out || fail "repeated chains counted otherwise than chains of their own"
grep -q '\[false\]' many.out || fail "many: no sample in false: $(cat many.out)"
grep -q '\[unknown\]' many.out || fail "many: no sample in no mapping: $(cat many.out)"

finish
