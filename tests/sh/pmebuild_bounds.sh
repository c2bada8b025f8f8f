#!/bin/bash
#
# pmebuild_bounds.sh - pmebuild and pmemerge on inputs that asked for far
# more than they hold (issue 23, items 21 and 22), each refused with a
# message that names the file and line, exit 1, no bucket file; the work
# bounded by counting memory (peak RSS, a limit of address space), never
# by timing:
#  - 'MODULE M, 0 - FFFFFF, 1' (90 bytes of .PMD) asked for 16,777,216
#    buckets (40 s, 1.6 GB): a step makes at most 1,048,576;
#  - a statement refused for overlapping another group is refused from
#    the ranges it covers, before its buckets are made: twenty refused
#    statements of 262,144 buckets each cost no more memory than the
#    accepted one (each built its buckets first, taking as much again:
#    100 took a minute);
#  - a NUL byte in a statement ('MODULE c<NUL>d, 20 - 30' declared c
#    without addresses) is an error naming its line and column;
#  - an endless line (/dev/zero on a descriptor as the .PMD, or as
#    pmemerge's -@ list)
#    stops at 1 MiB with "FILE:1: line longer than 1048576 bytes".
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

pmemerge=$top/histo/pmemerge
need "$pmebuild" "$pmemerge"
command -v gcc >/dev/null || skip "no gcc"
cd "$tmp" || exit 1
gcc -O2 -o peakrss "$top/tests/bench/peakrss.c" || { fail "peakrss"; finish; }
# A limit of address space where the tree's own programs run: it keeps
# the faults above from taking the machine's memory.  Not under the
# sanitizers, whose shadow memory it would refuse.
sanitize=$(sed -n 's/^SANITIZE_FLAGS = *//p' "$top/config.mk" 2>/dev/null)
limit=unlimited
[ -n "$sanitize${PME_VALGRIND:-}" ] || limit=1000000

# run WHAT STATUS ERR COMMAND...: COMMAND under the limit, its stderr
# exactly ERR and its status STATUS.
run() {
	local what=$1 status=$2 want=$3 rc
	shift 3
	(ulimit -v "$limit"; exec ${PME_VALGRIND:-} "$@") >out 2>err </dev/null
	rc=$?
	[ "$rc" = "$status" ] || fail "$what: exit $rc, not $status"
	[ "$(cat err)" = "$want" ] || fail "$what: said:
$(head -c 600 err)
not:
$want"
}

pmd_head() {	# the .PMD's first lines
	printf 'DEFINE UNITS: PROGRAM, MODULE\nPROGRAM P\n'
}

# --- a step of too many buckets ---------------------------------------------
{ pmd_head; printf 'MODULE M, 0 - FFFFFF, 1\nDEFINE SAMPLING\nPROGRAM P BY MODULE\nEND\n'; } >step.pmd
run step 1 "pmebuild: step.pmd:5: MODULE 'M' in steps of 1 makes 16777216 buckets, more than a step may make (1048576); use a larger step
pmebuild: no bucket file written: 1 error" "$pmebuild" step.pmd step.PME
[ ! -e step.PME ] || fail "step: step.PME written"
{ pmd_head; printf 'MODULE M, 0 - FFFFFF\nDEFINE SAMPLING\nMODULE M, 0 - FFFFF, 1\nEND\n'; } >max.pmd
run "a step of 1048576 buckets" 0 "" "$pmebuild" max.pmd max.PME

# --- refused statements ---------------------------------------------------
{ pmd_head; printf 'MODULE M, 0 - 3FFFF, 1\nDEFINE SAMPLING\nPROGRAM P BY MODULE\n'; } >one.pmd
cp one.pmd refused.pmd
for i in $(seq 20); do echo 'PROGRAM P BY MODULE'; done >>refused.pmd
echo END >>one.pmd
echo END >>refused.pmd
want=$(for i in $(seq 6 25); do
	echo "pmebuild: refused.pmd:$i: bucket group overlaps group 1 (MODULE 'M' at 0 - 0)"
done; echo "pmebuild: no bucket file written: 20 errors")
run refused 1 "$want" "$pmebuild" refused.pmd refused.PME
if [ -z "${PME_VALGRIND:-}" ]; then
	./peakrss rss1 "$pmebuild" one.pmd one.PME 2>/dev/null ||
	    fail "one.pmd: exit $?"
	./peakrss rss2 "$pmebuild" refused.pmd refused.PME 2>/dev/null
	# With the refused statements, at most a tenth more than the file
	# of the accepted one alone took, writing its bucket file (0.74
	# times measured; 1.23 times when each built its buckets).
	[ $(($(cat rss2) * 10)) -le $(($(cat rss1) * 11)) ] ||
	    fail "refused statements: peak RSS $(cat rss2) KiB, one statement $(cat rss1) KiB"
fi

# --- a NUL byte -------------------------------------------------------------
{ pmd_head; printf 'MODULE a, 0 - 10\nMODULE c\0d, 20 - 30\nDEFINE SAMPLING\nPROGRAM P BY MODULE\nEND\n'; } >nul.pmd
run nul 1 "pmebuild: nul.pmd:4: column 9: a NUL byte in the statement
pmebuild: no bucket file written: 1 error" "$pmebuild" nul.pmd nul.PME
[ ! -e nul.PME ] || fail "nul: nul.PME written"

# --- endless lines ----------------------------------------------------------
# A device is not read as a .PMD or a list (a regular file is meant);
# an endless stream on a descriptor name (as a pipe or <(...) gives) is
# bounded by the line limit.
run "pmebuild /dev/zero" 1 "pmebuild: '/dev/zero': a character device, not a regular file: not read" \
    "$pmebuild" /dev/zero zero.PME
run "pmebuild /dev/fd/3 from /dev/zero" 1 "pmebuild: /dev/fd/3:1: line longer than 1048576 bytes" \
    "$pmebuild" /dev/fd/3 zero.PME 3</dev/zero
[ ! -e zero.PME ] || fail "pmebuild /dev/fd/3: zero.PME written"
run "pmemerge -@ /dev/fd/3 from /dev/zero" 1 "pmemerge: '/dev/fd/3':1: line longer than 1048576 bytes" \
    "$pmemerge" -o merged.PMS -@ /dev/fd/3 3</dev/zero
printf 'b\0c.PMS\na.PMS\n' >list
run "pmemerge -@ with a NUL" 1 "pmemerge: 'list':1: a NUL byte in the file name" \
    "$pmemerge" -o merged.PMS -@ list
[ ! -e merged.PMS ] || fail "pmemerge: merged.PMS written"
finish
