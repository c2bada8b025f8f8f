#!/bin/bash
#
# quick_program.sh - which program pmehisto's quick path (-x) reports:
# the main executable whose processes took the most samples, in any of
# their files, not the first one exec'ed nor the one with most samples in
# its own image.  A sample file from the writer: process 8 runs Debian's
# dash (5 samples in dash itself), execs true (1 sample in true, 10 in
# libc, as python's are in libpython), and forks process 9, which takes
# 2 samples in libc as true's child.  Reported: PROGRAM "true", its
# summary naming /usr/bin/true, rows "[true]" or true's routines, dash's
# and libc's; the per-file rows hold 5, 1 and 12 samples.
# Before, the first main mapping (dash) was the program, and libc was
# outside buckets; then, for a time, the main executable with most
# samples in itself (dash again).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$tsample" "$pmehisto"
libc=$(ldd /usr/bin/true 2>/dev/null | awk '/libc\.so/ { print $3 }')
[ -x /usr/bin/dash ] && [ -x /usr/bin/true ] && [ -n "$libc" ] ||
    skip "no /usr/bin/dash, /usr/bin/true or libc"
cd "$tmp" || exit 1

# An address inside the .text of file $1, link-time.
text() {
	local a
	a=$(readelf -SW "$1" | awk '$2 == ".text" { print $4 }')
	[ -n "$a" ] && printf '0x%x\n' $((0x$a + 64))
}
d=$(text /usr/bin/dash) t=$(text /usr/bin/true) c=$(text "$libc")
[ -n "$d" ] && [ -n "$t" ] && [ -n "$c" ] || skip "no .text in dash, true or libc"

B=0x555555554000 L=0x7ffff7c00000
{
	echo "header method=test event=cpu-clock period=1000000 pid=8 argv=sh,-c,true"
	echo "map pid=8 time=0 start=$B end=0x555555600000 offset=0 vaddr=0 path=/usr/bin/dash flags=exec,main"
	printf 'sample pid=8 time=1000 pc=0x%x count=5\n' $((B + d))
	echo "thread exec pid=8 tid=8 time=10000000 name=true"
	echo "map pid=8 time=10000001 start=$B end=0x555555600000 offset=0 vaddr=0 path=/usr/bin/true flags=exec,main"
	echo "map pid=8 time=10000002 start=$L end=0x7ffff7e00000 offset=0 vaddr=0 path=$libc flags=exec"
	printf 'sample pid=8 time=20000000 pc=0x%x count=1\n' $((B + t))
	printf 'sample pid=8 time=30000000 pc=0x%x count=10\n' $((L + c))
	echo "thread fork pid=9 tid=9 ppid=8 ptid=8 time=50000000"
	printf 'sample pid=9 time=60000000 pc=0x%x count=2\n' $((L + c))
	echo close
} | "$tsample" write run.pms || { fail "cannot write the sample file"; finish; }

expect "pmehisto" 0 "$pmehisto" -q -x -T text -C 0 run.pms
grep -q '^PROGRAM "true" BY ROUTINE' "$tmp/out" ||
    fail "not PROGRAM true: $(sed -n 3p "$tmp/out")"
grep -q "^Buckets: *routines of /usr/bin/true (-x)" "$tmp/out" ||
    fail "the summary does not name true: $(grep '^Buckets' "$tmp/out")"
grep -q '^In buckets: *18 ' "$tmp/out" ||
    fail "not all 18 samples in buckets: $(grep -A2 '^In buckets' "$tmp/out")"

finish
