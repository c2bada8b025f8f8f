#!/bin/bash
#
# quick_plt.sh - pmehisto -x names PLT stubs as perf does ("f@plt"): a
# program that calls a one-line function of its shared library through
# its PLT stub in a loop (a good share of its time in the stub), built
# with lazy binding, with -z now, and with IBT stubs (.plt.sec, where the
# linker makes them).  For every load module of the run (the program, its
# library, libc, the dynamic loader) pmehisto -x -T csv's "name@plt" rows
# are objdump -d's synthetic "<name@plt>" labels of .plt, .plt.sec and
# .plt.got, at the same addresses (objdump's "*ABS*+0x..." stubs of
# IRELATIVE slots, which name no function, left out); nothing of the
# program is outside buckets; the Caliper view's function f@plt has the
# count of -x's bucket (it was "(no function)"); and f@plt's share is
# perf's on the same run (samples at f@plt's address in perf script, of
# a build that is not PIE), within 6 standard deviations of the two
# counts plus 3 points.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

[ "$(uname -m)" = x86_64 ] || skip "PLT stubs are named on x86-64 only"
command -v gcc >/dev/null || skip "no gcc"
command -v objdump >/dev/null || skip "no objdump"
need "$pmeclock" "$pmehisto"

cd "$tmp" || exit 1
cat >f.c <<'C'
int f(int x) { return x + 1; }
C
cat >main.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int f(int);
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1, i;
	int x = 0;

	for (i = 0; i < n; i++)
		x = f(x);
	printf("%d\n", x);
	return 0;
}
C
gcc -O1 -fPIC -shared -o libf.so f.c || { fail "cannot build libf.so"; finish; }
builds="lazy now ibt nopie"
for b in $builds; do
	case $b in
	lazy) flags=-Wl,-z,lazy ;;
	now) flags=-Wl,-z,now ;;
	ibt) flags="-fcf-protection=full -Wl,-z,ibtplt" ;;
	nopie) flags="-no-pie -fno-pie" ;;
	esac
	# shellcheck disable=SC2086
	gcc -O1 $flags -o "$b" main.c -L. -lf -Wl,-rpath,"$tmp" ||
	    fail "cannot build $b ($flags)"
done

# objdump_plt FILE: "address name" of objdump's <name@plt> labels.
objdump_plt() {
	objdump -d -j .plt -j .plt.sec -j .plt.got "$1" 2>/dev/null |
	    sed -n 's/^0*\([0-9a-f][0-9a-f]*\) <\(.*@plt\)>:$/\1 \2/p' |
	    grep -v ' \*ABS\*' | sort -u
}

for b in $builds; do
	[ -x "$b" ] || continue
	expect "$b: pmeclock" 0 "$pmeclock" -q -F 1000 -o "$b.pms" -- \
	    "./$b" 200000000
	expect "$b: pmehisto" 0 "$pmehisto" -x -a -C 0 -T csv -o /dev/null \
	    "$b.pms"
	cp "$tmp/out" "$b.csv"
	# The modules of the run, from the CSV's module column.
	mods=$(awk -F, 'NR > 1 && $NF ~ /^\// { print $NF }' "$b.csv" | sort -u)
	echo "$mods" | grep -q "/$b\$" ||
	    fail "$b: the program is not among the CSV's modules"
	for m in $mods; do
		objdump_plt "$m" >want.txt
		awk -F, -v m="$m" 'NR > 1 && $NF == m && $2 ~ /@plt$/ {
		    a = $5; sub(/^0x0*/, "", a); print a, $2 }' "$b.csv" |
		    sort -u >got.txt
		diff -u want.txt got.txt >diff.txt ||
		    fail "$b: $m: the @plt rows are not objdump's: $(head -20 diff.txt)"
		[ "$m" = "$tmp/$b" ] && ! [ -s got.txt ] &&
		    fail "$b: no @plt row of the program"
	done
	expect "$b: pmehisto text" 0 "$pmehisto" -x -T text -C 0 -o - \
	    "$b.pms"
	cp "$tmp/out" "$b.txt"
	sed -n '/^Outside buckets:/,/^Unmapped:/p' "$tmp/out" |
	    grep -q "[ /]$b " && fail "$b: samples outside its buckets:" \
	    "$(sed -n '/^Outside buckets:/,/^Unmapped:/p' "$tmp/out")"
	# The Caliper view's function of the stub: its -x bucket's count.
	expect "$b: pmehisto -V caliper:function" 0 "$pmehisto" -x \
	    -V caliper:function -o - "$b.pms"
	c=$(awk -v m="$b" '$4 == "f@plt" && $5 == m { print $3 }' \
	    "$tmp/out")
	w=$(csv_counts <"$b.csv" | awk '$1 == "f@plt" { print $2 }' |
	    head -1)
	[ -n "$w" ] && [ "$w" != 0 ] && [ "${c:-none}" != "$w" ] &&
	    fail "$b: Caliper's f@plt has ${c:-no row}, -x's bucket $w"
done

# f@plt's share against perf's on the same run: perf records pmeclock and
# the program it runs, each sampling the program on its own timer.  The
# stub's share of a run varies with the machine's load (seen from 10% to
# 37% between runs on a busy machine, in pme and in perf alike), so two
# separate runs cannot be compared by their sample counts.  Not PIE, so
# that perf script's addresses are the link-time ones: perf here gives
# the stubs to _init, whose size 0 it stretches to the next symbol.
if ! command -v perf >/dev/null ||
    ! perf record -q -e cpu-clock -F 1000 -o perf.data -- \
    "$pmeclock" -q -F 1000 -o shared.pms -- ./nopie 200000000 \
    >/dev/null 2>perf.err; then
	echo "perf cannot record here: no comparison"
	finish
fi
expect "nopie under perf: pmehisto" 0 "$pmehisto" -x -C 0 -T csv \
    -o shared.txt -B /dev/null shared.pms
cp "$tmp/out" shared.csv
at=$(objdump_plt nopie | awk '$2 == "f@plt" { print $1 }')
[ -n "$at" ] || { fail "nopie: objdump shows no f@plt"; finish; }
p=0 ptotal=0
while read -r ip; do
	ptotal=$((ptotal + 1))
	ip=$((16#$ip)) && [ "$ip" -ge $((16#$at)) ] &&
	    [ "$ip" -lt $((16#$at + 16)) ] && p=$((p + 1))
done < <(perf script -i perf.data -F comm,ip 2>/dev/null |
    awk '$1 == "nopie" { print $2 }')
m=$(csv_counts <shared.csv | awk '$1 == "f@plt" { print $2 }' | head -1)
mtotal=$(grep -m1 '^Total:' shared.txt | awk '{ print $2 }')
[ "${p:-0}" -gt 0 ] || fail "perf has no samples in f@plt at 0x$at"
near f@plt "${m:-0}" "${mtotal:-0}" "${p:-0}" "${ptotal:-0}"
finish
