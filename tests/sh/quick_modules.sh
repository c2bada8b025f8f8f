#!/bin/bash
#
# quick_modules.sh - pmehisto's quick path (-x) names the routines of
# every load module the samples fell in, and reports a run started
# through a wrapper for the program the samples are in, on a real run:
#   prog (stripped, its debug file beside it through .gnu_debuglink)
#   spends its time in its own static spin_main, in the static w_inner of
#   libw.so (stripped with --strip-unneeded, its debug file beside it)
#   and in libc's memcpy; run by pmeclock through "sh -c" and "env";
#   the report is "PROGRAM prog BY ROUTINE", spin_main and w_inner have
#   rows, nothing is outside buckets but the kernel, the dynamic loader
#   and libc when libc has no debug file (a sample in prog's PLT stub of
#   memcpy, 1 run in 25, is memcpy@plt's), and the summary names prog;
#   with libc6-dbg installed (a debug file for libc's build-id), libc's
#   hottest routine is named too;
#   perf, where it can record cpu-clock, on the same run (perf recording
#   pmeclock and prog): the share of spin_main, w_inner and perf's
#   hottest libc symbol among those compared in pme's report against
#   perf's, within a binomial tolerance from both sample counts (6
#   standard deviations) plus 3 points.
# Before, the quick path read the first main executable only: sh's (no
# routines: "no routines in .text"), and libraries were outside buckets.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

command -v gcc >/dev/null || skip "no gcc"
command -v objcopy >/dev/null || skip "no objcopy"
need "$pmeclock" "$pmehisto"
unset PME_DEBUG_FILE_DIRECTORY

cd "$tmp" || exit 1
cat >w.c <<'C'
static volatile unsigned long wsink;
static __attribute__((noinline)) void w_inner(unsigned long n)
{ for (unsigned long i = 0; i < n; i++) wsink += i; }
void w_run(unsigned long n) { w_inner(n); }
C
cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
void w_run(unsigned long n);
static volatile unsigned long sink;
static char a[1 << 20], b[1 << 20];
static __attribute__((noinline)) void spin_main(unsigned long n)
{ for (unsigned long i = 0; i < n; i++) sink += i * 5; }
int main(int argc, char **argv)
{
	unsigned long k = argc > 1 ? strtoul(argv[1], NULL, 10) : 1, i;

	spin_main(k * 800000000UL);
	w_run(k * 800000000UL);
	for (i = 0; i < k * 30000; i++) {
		memcpy(a, b, sizeof(a));
		b[i % sizeof(b)] ^= 1;
	}
	printf("%lu %d\n", sink, a[5]);
	return 0;
}
C
mkdir -p lib
gcc -g -O1 -fPIC -shared -o libw.so w.c &&
    gcc -g -O1 -fno-builtin -o prog.full prog.c -L. -lw -Wl,-rpath,"$tmp/lib" ||
    { fail "cannot build the fixtures"; finish; }
objcopy --only-keep-debug libw.so lib/libw.so.debug &&
    objcopy --strip-unneeded --add-gnu-debuglink=lib/libw.so.debug libw.so \
    lib/libw.so &&
    objcopy --only-keep-debug prog.full prog.debug &&
    objcopy --strip-all --add-gnu-debuglink=prog.debug prog.full prog ||
    { fail "objcopy"; finish; }

libc=$(ldd ./prog | awk '/libc\.so/ { print $3 }')
id=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID/ { print $3 }')
dbg=
[ -n "$id" ] && [ -f "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ] &&
    dbg=1

# The rows of pmehisto -x -T csv of $1, as "name count".
rows() {
	"$pmehisto" -q -x -T csv -C 0 -o /dev/null "$1" 2>"$tmp/h.err" |
	    csv_counts
}

for how in "sh -c ./prog" "env ./prog"; do
	n=${how%% *}
	# shellcheck disable=SC2086
	expect "$how: pmeclock" 0 "$pmeclock" -q -F 1000 -o "$n.pms" -- $how
	expect "$how: pmehisto" 0 "$pmehisto" -x -T text -C 0 "$n.pms"
	grep -q '^PROGRAM "prog" BY ROUTINE' "$tmp/out" ||
	    fail "$how: not reported for prog: $(head -5 "$tmp/out")"
	grep -q "^Buckets: *routines of $tmp/prog (-x)" "$tmp/out" ||
	    fail "$how: the summary does not name prog: $(grep Buckets "$tmp/out")"
	for r in spin_main w_inner; do
		grep -q "^$r *|" "$tmp/out" || fail "$how: no row $r"
	done
	out=$(sed -n '/^Outside buckets:/,/^Unmapped:/p' "$tmp/out" |
	    grep -v '^Unmapped' | sed 's/^Outside buckets://' |
	    awk '{ print $1 }' | grep -v -e '^none$' -e '^\[kernel\]$' \
	    -e '^ld-linux' -e '^libc\.so')
	[ -z "$out" ] || fail "$how: outside buckets: $out"
	if [ -n "$dbg" ]; then
		grep -q '^ *libc\.so' <(sed -n '/^Outside/,/^Unmapped/p' \
		    "$tmp/out") && fail "$how: libc is outside buckets"
	fi
done
[ -n "$dbg" ] || echo "libc6-dbg: no debug file for $libc: its routines unnamed"

# Against perf on the same run: perf records pmeclock and the program it
# runs, each sampling the program on its own timer (the shares of code of
# different kinds move with the machine's load between runs: see
# quick_plt.sh), and its report keeps the program's samples (--comm).
if ! command -v perf >/dev/null ||
    ! perf record -q -e cpu-clock -F 1000 -o perf.data -- \
    "$pmeclock" -q -F 1000 -o same.pms -- ./prog >/dev/null 2>perf.err; then
	echo "perf cannot record here: no comparison"
	finish
fi
perf report -i perf.data --comm prog --stdio -n --sort dso,sym \
    2>/dev/null | awk '!/^#/ && NF >= 5 { n = $2; sub(/^.*\] /, ""); print $0, n }' \
    >perf.rows
rows same.pms >pme.rows
expect "under perf: pmehisto" 0 "$pmehisto" -x -T text -C 0 same.pms
top=$(grep -e "libc\.so" <(perf report -i perf.data --comm prog --stdio -n \
    --sort dso,sym 2>/dev/null | grep -v '^#') | head -1 |
    sed 's/^.*\] //')
want="spin_main w_inner"
[ -n "$dbg" ] && [ -n "$top" ] && want="$want $top"
# The shares are of the compared routines' samples together: perf, which
# records the sanitized pmeclock too, lost the memcpy phase at the end of
# a loaded ASan run (4479 samples, 2 beyond spin_main's 2221 and w_inner's
# 2256; pme 5515, equal in both routines), without saying so.
mtotal=0 ptotal=0
for r in $want; do
	p=$(awk -v r="$r" '$1 == r { print $2 }' perf.rows | head -1)
	m=$(awk -v r="$r" '$1 == r { print $2 }' pme.rows | head -1)
	mtotal=$((mtotal + ${m:-0})) ptotal=$((ptotal + ${p:-0}))
done
for r in $want; do
	p=$(awk -v r="$r" '$1 == r { print $2 }' perf.rows | head -1)
	m=$(awk -v r="$r" '$1 == r { print $2 }' pme.rows | head -1)
	near "$r" "${m:-0}" "$mtotal" "${p:-0}" "$ptotal"
done

finish
