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
grep -Eq '^(fl|cfi)=\([0-9]+\) (.*/)?calls\.c$' out.callgrind ||
    fail "out.callgrind: no file calls.c"

# Per line: pmehisto's own report of the lines and pcs samples fell on
# (the Spy's breakdown of each procedure, every one with -C 0) as
# "function file:line count" and "address function file:line count".
"$pmehisto" -q -x -V spy -C 0 -B spy.PME -o spy.HIS calls.PMS >spy 2>err ||
    fail "-V spy: $(cat err)"
awk '/^Breakdown of highly active/ { on = 1; next }
    on && /^[^ ~]/ { fn = $1 }
    on && /^   [^ (]*:[0-9]* = / { print fn, $1, $3 }' spy |
    LC_ALL=C sort >spy.lines
awk '/^Breakdown of highly active/ { on = 1; next }
    on && /^[^ ~]/ { fn = $1 }
    on && /^   \(0x[0-9a-f]* [^ ]*:[0-9]*\) = / { sub(/^\(/, "", $1); sub(/\)$/, "", $2)
	print $1, fn, $2, $4 }' spy |
    while read -r a rest; do printf '%016x %s\n' "$a" "$rest"; done |
    LC_ALL=C sort >spy.addrs
for f in burn solo_c; do
	[ "$(awk -v f=$f '$1 == f { s += $NF } END { print s + 0 }' spy.lines)" = \
	    "$(awk -v f=$f '$1 == f { print $2 }' self.want)" ] ||
	    fail "-V spy: $f's lines do not hold its samples: $(cat spy)"
done
grep -q '^burn calls\.c:18 ' spy.lines && grep -q '^solo_c calls\.c:47 ' spy.lines ||
    fail "-V spy: no samples on burn's and solo_c's loop bodies: $(cat spy.lines)"
# callgrind_annotate's annotation of calls.c (the whole file: each line
# that is not a call's "=>" is the next source line): the own costs on
# each line, equal to the Spy's; and the calls at their call sites, as
# many as the callee's inclusive samples along those stacks: leaf_b
# calls burn on line 24, rec on 39 (the stacks through each are
# disjoint here, so their sum is burn's).
callgrind_annotate --auto=yes --context=100000 out.callgrind 2>>err >annotated
awk '/^-- Auto-annotated source: (.*\/)?calls\.c$/ { on = 1; next }
    on == 1 && /^$/ { on = 2; ln = 1; next }
    on == 2 && /^---/ { exit }
    on == 2 && /=>/ { sub(/^ */, ""); sub(/ .*=> /, " "); print "call", ln - 1, $0; next }
    on == 2 { c = $1; gsub(/,/, "", c); if (c ~ /^[0-9]+$/ && c > 0) print ln, c; ln++ }' \
    annotated >cg.lines
awk 'sub(/^calls\.c:/, "", $2) { print $2, $3 }' spy.lines |
    awk '{ s[$1] += $2 } END { for (l in s) print l, s[l] }' | LC_ALL=C sort >want.lines
grep -v '^call ' cg.lines | LC_ALL=C sort | diff -u want.lines - >diff ||
    { fail "callgrind_annotate's lines differ from -V spy's:"; cat diff >&2; }
burn=$(awk '$1 == "burn" { print $2 }' incl.want)
b24=$(awk '$1 == "call" && $2 == 24 && $4 == "calls.c:burn" { print $3 }' cg.lines)
b39=$(awk '$1 == "call" && $2 == 39 && $4 == "calls.c:burn" { print $3 }' cg.lines)
[ -n "$b24" ] && [ -n "$b39" ] && [ $((b24 + b39)) = "$burn" ] ||
    fail "callgrind_annotate: calls to burn on lines 24 and 39 not $burn: $(grep call cg.lines)"

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
	# A location per line and per address: -lines and -addresses
	# give the Spy's figures exactly.
	$pprof -top -lines -sample_index=samples -nodecount=100000 \
	    -nodefraction=0 out.pprof 2>/dev/null |
	    awk 'NF == 7 && $1 > 0 && $6 !~ /^\[/ { sub(/^.*\//, "", $7); print $6, $7, $1 }' |
	    LC_ALL=C sort | diff -u spy.lines - >diff ||
	    { fail "$pprof -top -lines:"; cat diff >&2; }
	$pprof -top -addresses -sample_index=samples -nodecount=100000 \
	    -nodefraction=0 out.pprof 2>/dev/null |
	    awk 'NF == 8 && $1 > 0 && $7 !~ /^\[/ { sub(/^.*\//, "", $8); print $6, $7, $8, $1 }' |
	    LC_ALL=C sort | diff -u spy.addrs - >diff ||
	    { fail "$pprof -top -addresses:"; cat diff >&2; }
else
	echo "note: no go tool pprof nor pprof here: pprof -top not run"
fi

finish
