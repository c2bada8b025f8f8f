#!/bin/bash
#
# pmehisto_exports_real.sh - pmehisto -T svg, callgrind and pprof on a
# real recording: a program of known call structure (main calls mid_a,
# which calls leaf_b, which calls burn; rec, recursing four deep before
# it calls burn; solo_c, which burns itself), built here with frame
# pointers, sampled by pmeclock -g, reduced through the quick path (-x).
# -T folded must show the three paths; then each export, read back by its
# consumer as in pmehisto_exports, must hold the samples and the stacks
# of -T folded: the SVG's frames, callgrind_annotate's self and inclusive
# costs, pprof-format's stacks (and the program's mapping with its
# build-id, as readelf prints it), go tool pprof -top's flat and
# cumulative counts.  Skipped when pmeclock cannot record call chains
# here; the pprof readers when they cannot be installed (said).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/stacks.sh"

need "$pmeclock"
command -v xmllint >/dev/null || skip "no xmllint (libxml2-utils)"
command -v callgrind_annotate >/dev/null || skip "no callgrind_annotate (valgrind)"

cd "$tmp" || exit 1
cat >calls.c <<'C'
#include <time.h>

static volatile unsigned long sink;

static double
cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void
burn(long n)
{
	for (long i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) void
leaf_b(long n)
{
	burn(n);
}

__attribute__((noinline)) void
mid_a(long n)
{
	leaf_b(n);
}

__attribute__((noinline)) void
rec(int depth, long n)
{
	if (depth > 0)
		rec(depth - 1, n);
	else
		burn(n);
	sink++;
}

__attribute__((noinline)) void
solo_c(long n)
{
	for (long i = 0; i < n; i++)
		sink ^= i;
}

int
main(void)
{
	double end = cpu_ms() + 300;

	while (cpu_ms() < end) {
		mid_a(200000);
		rec(3, 200000);
		solo_c(200000);
	}
	return 0;
}
C
cc=${CC:-cc}
$cc -g -O0 -fno-omit-frame-pointer -o calls calls.c 2>build.log ||
    { fail "cannot build calls.c: $(cat build.log)"; exit 1; }
if ! "$pmeclock" -q -g -F 1000 -o calls -- ./calls >/dev/null 2>clock.err; then
	skip "pmeclock -g cannot record here: $(head -n 1 clock.err)"
fi
"$pmehisto" -q -x -T folded -B x.PME -o x.HIS calls.PMS >folded 2>err ||
    { fail "-T folded: $(cat err)"; exit 1; }
total=$(sed -n 's/^Total: *//p' x.HIS)
sum=$(awk '{ s += $NF } END { print s + 0 }' folded)
[ "$sum" = "$total" ] || fail "-T folded: $sum samples, the histogram $total"
grep -q ';' folded || skip "pmeclock -g gave no call chains here (one-frame stacks only)"
[ "${total:-0}" -ge 50 ] || fail "only ${total:-0} samples of 300 ms of CPU"
# The three paths, each with a good part of the samples: a third each,
# give or take what the clock and the loop's own code take.
for path in 'main;mid_a;leaf_b;burn' 'main;rec;rec;rec;rec;burn' 'main;solo_c'; do
	n=$(awk -v p="$path" 'index($0, p " ") || index($0, p ";") \
	    { s += $NF } END { print s + 0 }' folded)
	[ "$n" -ge $((total / 8)) ] ||
	    fail "only $n of $total samples in stacks through $path:
$(cat folded)"
done

for t in svg callgrind pprof; do
	$PME_VALGRIND "$pmehisto" -q -x -T $t -B $t.PME -o out.$t calls.PMS \
	    2>err || fail "-T $t: exit status $?: $(cat err)"
	[ -s err ] && fail "-T $t: standard error: $(cat err)"
done

# SVG
xmllint --noout out.svg 2>err || fail "out.svg is not well-formed XML: $(cat err)"
svg_stacks out.svg >svg.stacks || fail "out.svg: frames of the wrong width"
diff -u folded svg.stacks >diff || { fail "the flame graph's stacks:"; cat diff >&2; }

# callgrind
# The folded stacks mark the kernel's frames _[k]; callgrind's names do
# not.
sed 's/_\[k\]//g' folded >folded.plain
self folded.plain >self.want
inclusive folded.plain >incl.want
cg_functions out.callgrind >cg.self 2>err
diff -u self.want cg.self >diff ||
    { fail "callgrind_annotate's self costs:"; cat diff >&2; }
cg_functions --inclusive=yes out.callgrind 2>>err | grep -v '^(all) ' >cg.incl
diff -u incl.want cg.incl >diff ||
    { fail "callgrind_annotate --inclusive=yes:"; cat diff >&2; }
callgrind_annotate out.callgrind 2>>err | grep -q "^ *$total (100.0%)  PROGRAM TOTALS" ||
    fail "callgrind_annotate: program totals not $total"
grep -q 'WARNING' err && fail "callgrind_annotate warned: $(cat err)"
# burn's costs at its first address, as nm prints it.
addr=$(nm calls | awk '$3 == "burn" { sub(/^0+/, "", $1); print $1 }')
grep -q "^0x$addr [0-9]* [0-9]*$" out.callgrind ||
    fail "out.callgrind: no cost at burn's address 0x$addr"
grep -Eq '^(fl|cfi)=\([0-9]+\) (.*/)?calls\.c$' out.callgrind ||
    fail "out.callgrind: no file calls.c"

# pprof
id=$(readelf -n calls | sed -n 's/^ *Build ID: *//p')
gzip -t out.pprof 2>err || fail "out.pprof is not gzipped: $(cat err)"
if pprof_npm; then
	pprof_decode out.pprof >decoded 2>err || fail "pprof-format: $(cat err)"
	sed -n 's/^stack //p' decoded >pprof.stacks
	diff -u folded.plain pprof.stacks >diff ||
	    { fail "pprof-format's stacks:"; cat diff >&2; }
	grep -q "^total $total " decoded ||
	    fail "pprof-format: not $total samples: $(grep total decoded)"
	exe=$(readlink -f calls)
	grep -qx "mapping 1 $exe ${id:--}" decoded ||
	    fail "pprof-format: mapping 1 is not $exe, build-id ${id:--}:
$(grep mapping decoded)"
else
	echo "note: the npm package pprof-format cannot be installed here:" \
	    "out.pprof was not decoded"
fi
if [ -n "$pprof" ]; then
	$pprof -top out.pprof >top 2>&1
	grep -qx "File: calls" top || fail "$pprof: not 'File: calls': $(head -3 top)"
	[ -z "$id" ] || grep -qx "Build ID: $id" top ||
	    fail "$pprof: not 'Build ID: $id': $(head -3 top)"
	pprof_top out.pprof 1 | diff -u self.want - >diff ||
	    { fail "$pprof -top, flat:"; cat diff >&2; }
	pprof_top out.pprof 4 | diff -u incl.want - >diff ||
	    { fail "$pprof -top, cum:"; cat diff >&2; }
else
	echo "note: no go tool pprof nor pprof here: pprof -top not run"
fi

finish
