#!/bin/bash
#
# quick_kernel.sh - pmehisto's quick path (-x) gives the kernel's samples
# rows: the kernel routine of each, from /proc/kallsyms when it can be
# read with addresses and the run started since this boot, and
# "[kernel]" for the rest of the kernel's half of the address space; a
# run from before this boot (its kallsyms addresses unknown) gets the one
# row "[kernel]".  A run's boot id, when its header has one, decides
# instead of its start: a run recorded in another boot (another machine,
# its clock ahead) gets the one row, a run of this boot whose start is
# before this boot (a clock set back) the kernel's routines.  The
# Caliper view's kernel functions are the same rows.  Sample files made
# with the sample writer: a sample in
# Debian's true (its routine "[true]"), three kernel samples inside a
# routine kallsyms lists (its address + 1) and one at the top of the
# address space (no routine after it: "[kernel]").  Where kallsyms hides
# addresses (kernel.kptr_restrict), only the "[kernel]" rows are checked.
# Before, kernel samples were outside buckets in the summary alone.
# A file of kernel samples only, of a process whose program has none (an
# idle pmeclock -a run), gets its "[kernel]" row.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$tsample" "$pmehisto" "$pmeclock"
[ -x /usr/bin/true ] || skip "no /usr/bin/true"
cd "$tmp" || exit 1

# A kernel text symbol with a text symbol at a higher address after it.
sym= addr=
if [ -r /proc/kallsyms ]; then
	read -r addr sym < <(awk '($2 == "T" || $2 == "t") && $1 !~ /^0+$/ &&
	    $3 ~ /^[a-z_]+$/ && !seen[$1]++ { a[n] = $1; s[n++] = $3 }
	    END { if (n > 100) print a[50], s[50] }' /proc/kallsyms |
	    sort -u | head -1)
fi

# write START FILE [BOOT]: the sample file of a run that started at START
# ns, in the boot of id BOOT.
write() {
	{
		echo "header method=test event=cpu-clock period=1000000 pid=8 start=$1 argv=true${3:+ boot=$3}"
		echo "map pid=8 start=0x555555554000 end=0x555555560000 offset=0 vaddr=0 path=/usr/bin/true flags=exec,main"
		echo "sample pid=8 pc=0x555555556400 count=2"
		[ -n "$addr" ] &&
		    printf 'sample pid=8 pc=0x%x flags=kernel count=3\n' \
		    $((0x$addr + 1))
		echo "sample pid=8 pc=0xfffffffffffffff0 flags=kernel count=1"
		echo close
	} | "$tsample" write "$2" || fail "cannot write $2"
}

now=$(($(date +%s) * 1000000000))
write "$now" now.pms
write 1000000000 old.pms
boot=$(cat /proc/sys/kernel/random/boot_id) || skip "no boot id"
write "$now" other.pms 00000000-1111-2222-3333-444444444444
write 1000000000 oldthis.pms "$boot"

# rows FILE: "name count" of pmehisto -x -T csv.
rows() {
	"$pmehisto" -q -x -T csv -C 0 -o /dev/null -B "$1.pme" "$1" \
	    2>"$1.err" | csv_counts | awk '$2 > 0' | sort
}

rows old.pms >old.rows
if [ -n "$addr" ]; then
	printf '%s\n' "[kernel] 4" "[true] 2" >want
else
	printf '%s\n' "[kernel] 1" "[true] 2" >want
fi
diff -u want old.rows || fail "before this boot: not one row [kernel]: $(cat old.pms.err)"
rows other.pms >other.rows
diff -u want other.rows || fail "another boot's id: not one row [kernel]: $(cat other.pms.err)"

rows now.pms >now.rows
if [ -n "$addr" ]; then
	printf '%s\n' "$sym 3" "[kernel] 1" "[true] 2" | sort >want
else
	echo "/proc/kallsyms hides the kernel's addresses: [kernel] only"
fi
diff -u want now.rows || fail "this boot: not $sym and [kernel]: $(cat now.pms.err)"
rows oldthis.pms >oldthis.rows
diff -u want oldthis.rows || fail "this boot's id, an old start: not $sym and [kernel]: $(cat oldthis.pms.err)"

# The Caliper view's functions of the kernel (-V caliper:function) are
# the -x buckets' rows, "(no function)" standing for the rest row
# "[kernel]" (they were all "(no function)").
# caliper FILE: "name count" of the view's rows of the [kernel] module.
caliper() {
	"$pmehisto" -q -x -V caliper:function -o - "$1" 2>"$1.cerr" |
	    awk '$NF == "[kernel]" && $3 ~ /^[0-9]+$/ {
		name = $4; for (i = 5; i < NF; i++) name = name " " $i
		if (name == "(no function)") name = "[kernel]"
		print name, $3 }' | sort
}
for f in now other oldthis; do
	grep -v '^\[true\] ' $f.rows >want.k
	caliper $f.pms >$f.cal
	diff -u want.k $f.cal >diff.k ||
	    fail "$f: Caliper's kernel functions are not -x's rows: $(cat diff.k $f.pms.cerr)"
done

# Kernel samples only, of a process whose program has none (an idle
# system-wide run: the CPUs' idle task, pid 0): the program's file is
# dropped from the scan as without samples, and the bucket file is made
# of it still, for its kernel row (the scan's dropped entry was freed a
# second time: "double free", exit 134, in pmeclock -a's fresh-clone CI).
{
	echo "header method=test event=cpu-clock period=1000000 pid=8 start=$now argv=true"
	echo "map pid=8 start=0x555555554000 end=0x555555560000 offset=0 vaddr=0 path=/usr/bin/true flags=exec,main"
	echo "sample pid=0 pc=0xfffffffffffffff0 flags=kernel count=1"
	echo close
} | "$tsample" write idle.pms || fail "cannot write idle.pms"
"$pmehisto" -q -x -T csv -C 0 -o /dev/null -B /dev/null idle.pms \
    >idle.csv 2>idle.err || fail "kernel samples only: exit $?: $(cat idle.err)"
[ "$(csv_counts <idle.csv | awk '$2 > 0')" = "[kernel] 1" ] ||
    fail "kernel samples only: not the [kernel] row: $(cat idle.csv idle.err)"

# pmeclock records this boot's id
"$pmeclock" -q -o rec.pms -- /usr/bin/true || fail "pmeclock failed"
"$tsample" dump rec.pms | grep -q "^header .* boot=$boot\$" ||
    fail "pmeclock's header has not this boot's id: $("$tsample" dump rec.pms | grep '^header')"

finish
