#!/bin/bash
#
# pmehisto_quick_columns.sh - the quick path (-x: a bucket per routine)
# shows no address column (issue 12: "0 - ACCA" beside every routine was
# noise): its text pages have rows "name  |bar  pct%", the bar where the
# range was, exact for the demo fixture built here (the widths follow
# from its names and counts); PostScript has no range either; CSV keeps
# its columns, start and end the routine's link-time range as nm -S
# tells it, then the file and line that declare it and the program's
# path.  The bucket file the quick path filled, read back (-t), is
# still the quick path's (pme(5)'s option 0x40): no column either.
# (Bucket files of a .PMD keep it: tests/histo's golden pages.)
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

command -v gcc >/dev/null || skip "no gcc"
command -v nm >/dev/null || skip "no nm"
need "$tsample" "$pmehisto"
cd "$tmp" || exit 1

fx=$top/tests/fixtures/demo
gcc -g -O0 -o demo "$fx/work.c" "$fx/main.c" || { fail "cannot build the demo"; finish; }
# nm -S: the routine's link-time start and size, in hexadecimal.
start() { nm -S demo | awk -v f="$1" '$4 == f { print $1 }'; }
size() { nm -S demo | awk -v f="$1" '$4 == f { print $2 }'; }
[ -n "$(start sort)" ] && [ -n "$(size sort)" ] || { fail "nm: no sort"; finish; }
base=0x555555554000
{
	echo "header method=test event=cpu-clock period=1000000 pid=8 argv=./demo"
	echo "map pid=8 start=$base end=$((base + 0x10000)) offset=0 vaddr=0 path=$PWD/demo flags=exec,main"
	echo "sample pid=8 pc=$((base + 0x$(start sort) + 4)) count=30"
	echo "sample pid=8 pc=$((base + 0x$(start checksum))) count=10"
	echo "close"
} | "$tsample" write demo.PMS || exit 1

# stars N: N asterisks.
stars() { printf "%$1s" "" | tr ' ' '*'; }

# The quick path's text, every row (-C 0): 132 columns, the name column
# as wide as the longest name (count_primes, or a PLT stub's such as
# __cxa_finalize@plt: which stubs there are is the toolchain's), the bar
# what is left in fives (132 - (names + 3) - 7): sort's 30 the whole bar,
# checksum's 10 a third of it, rounded.
$PME_VALGRIND "$pmehisto" -q -x -C 0 -T text -o demo.HIS -B demo.PME demo.PMS \
    >text.out 2>err || fail "pmehisto -x -T text: $(cat err)"
nw=$("$pmehisto" -q -x -C 0 -T csv -o /dev/null demo.PMS 2>/dev/null |
    awk -F, 'NR > 1 && length($2) > w { w = length($2) } END { print w + 0 }')
bw=$(((132 - (nw + 3) - 7) / 5 * 5))
[ "$nw" -ge 12 ] || fail "csv: the longest name is $nw wide, not count_primes' 12"
third=$(((bw + 1) / 3))
want_sort="$(printf "%-$((nw + 2))s" sort)|$(stars "$bw")  75.0%"
want_sum="$(printf "%-$((nw + 2))s" checksum)|$(stars "$third")$(printf "%$((bw - third))s" '')  25.0%"
want_scale="$(printf "%$((nw + 2))s" '')+$(printf -- '----+%.0s' $(seq $((bw / 5))))"
grep -qxF -- "$want_sort" text.out || fail "quick path: no row '$want_sort'"
grep -qxF -- "$want_sum" text.out || fail "quick path: no row '$want_sum'"
grep -qxF -- "$want_scale" text.out || fail "quick path: no scale '$want_scale'"
grep -E ' [0-9A-F]+ - [0-9A-F]+ ' text.out &&
    fail "quick path: an address range on the page"
cmp -s text.out demo.HIS || fail "quick path: the .HIS differs from the display"

$PME_VALGRIND "$pmehisto" -q -x -T ps -o /dev/null demo.PMS >ps.out 2>err ||
    fail "pmehisto -x -T ps: $(cat err)"
grep -q '^54.0 [0-9.]* moveto (sort) show$' ps.out || fail "ps: no sort row"
grep -E '\( *[0-9A-F]+ - [0-9A-F]+ *\) show' ps.out &&
    fail "ps: an address range on the page"

# CSV as before: the link-time range, nm's.
$PME_VALGRIND "$pmehisto" -q -x -T csv -o /dev/null demo.PMS >csv.out 2>err ||
    fail "pmehisto -x -T csv: $(cat err)"
[ "$(head -n 1 csv.out)" = "bucket,unit,kind,group,start,end,count,percent,file,line,module" ] ||
    fail "csv: header $(head -n 1 csv.out)"
# file and line: where sort is declared (its name at the start of a line
# in work.c); module: the program's path.
decl=$(grep -n '^sort(' "$fx/work.c" | cut -d: -f1)
row=$(printf ',sort,ROUTINE,"PROGRAM ""demo"" BY ROUTINE",0x%x,0x%x,30,75.0000,%s,%s,%s' \
    $((0x$(start sort))) $((0x$(start sort) + 0x$(size sort) - 1)) \
    "$fx/work.c" "$decl" "$PWD/demo")
grep -q -- "^[0-9]*$row\$" csv.out || fail "csv: no row '$row' in $(cat csv.out)"

# The filled bucket file as trace input: the same rows, no column.
$PME_VALGRIND "$pmehisto" -q -t -C 0 -b demo.PME -T text -o /dev/null \
    >trace.out 2>err || fail "pmehisto -t: $(cat err)"
grep -qxF -- "$want_sort" trace.out ||
    fail "trace input: no row '$want_sort': $(grep '^sort' trace.out)"

finish
