#!/bin/bash
#
# pmehisto_caliper_marks.sh - HP Caliper's statement marks in pmehisto -V
# caliper's function details: "*>" before a statement out of order (its
# code begins before that of a statement on an earlier line of its file)
# and "~" before the line number of a statement whose code is in pieces,
# in a function that has one out of order (pmehisto(1), stmtmark.c).
# A loop built at -O2, sampled by pmeclock: each statement shown in mix's
# details has exactly the marks that awk decides here from binutils'
# reading of the same line table (readelf --debug-dump=decodedline: the
# last row at an address holds it, consecutive rows of a line are one
# piece), and among them at least one of each; the same program at -O0
# has none.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$pmeclock"
command -v gcc >/dev/null || skip "no gcc to build the fixture"
command -v readelf >/dev/null || skip "no readelf (binutils)"

cd "$tmp" || exit 1
cat >opt.c <<'C'
#include <stdlib.h>
#include <time.h>

static volatile long sink;

static double
cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) long
mix(long *a, long n)
{
	long s = 0, t = 1;

	for (long i = 0; i < n; i++) {
		s += a[i] * 3;
		t ^= a[i] << 2;
		if (t & 1)
			s -= t;
	}
	return s + t;
}

int
main(int argc, char **argv)
{
	long n = 4096, *a = malloc(n * sizeof(*a));
	double end = cpu_ms() + 300;

	for (long i = 0; i < n; i++)
		a[i] = i * argc;
	while (cpu_ms() < end)
		sink += mix(a, n);
	(void)argv;
	return 0;
}
C

# mix's statements as -V caliper's details show them: "line marks",
# marks "~" and "*>" or "-".
shown() {
	awk '/^ *[0-9.]+ +[0-9.]+ +[0-9]+  \[/ { on = index($0, "::mix,") > 0; next }
	    on && /^ *[0-9.]+ +[0-9]+ +~?[0-9]+  \*?>/ {
		l = $3; m = ""
		if (sub(/^~/, "", l)) m = "~"
		if ($4 ~ /^\*>/) m = m "*>"
		print l, m == "" ? "-" : m }' "$1" | LC_ALL=C sort -n
}

# The marks of every statement of mix, from readelf's decoded lines.
want() {
	set -- $(nm -S "$1" | awk '$4 == "mix" { print $1, $2 }')
	readelf --debug-dump=decodedline "$exe" | awk -v lo=$((16#$1)) \
	    -v hi=$((16#$1 + 16#$2)) '
	function hex(s,    i, v, c) { v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) {
			c = index("0123456789abcdef", substr(s, i, 1)) - 1
			v = v * 16 + c }
		return v }
	$3 ~ /^0x/ { a = hex($3); if (a < lo || a >= hi) next
		if (n > 0 && addr[n] == a) { line[n] = $2; file[n] = $1; next }
		n++; addr[n] = a; line[n] = $2; file[n] = $1 }
	END {
		for (i = 1; i <= n; i++) {
			if (line[i] == "-") continue
			k = file[i] SUBSEP line[i]
			if (!(k in first)) { first[k] = addr[i]; st[++ns] = k }
			if (prev != k) pieces[k]++
			prev = k
		}
		for (i = 1; i <= ns; i++) {
			split(st[i], x, SUBSEP)
			for (j = 1; j <= ns; j++) {
				split(st[j], y, SUBSEP)
				if (y[1] == x[1] && y[2] + 0 < x[2] + 0 &&
				    first[st[j]] > first[st[i]]) { order[st[i]] = 1; moved = 1 }
			}
		}
		for (i = 1; i <= ns; i++) {
			split(st[i], x, SUBSEP); m = ""
			if (moved && pieces[st[i]] > 1) m = "~"
			if (order[st[i]]) m = m "*>"
			print x[2], m == "" ? "-" : m
		}
	}' | LC_ALL=C sort -n
}

for o in 2 0; do
	exe=opt$o
	gcc -O$o -g -o $exe opt.c 2>build.log ||
	    { fail "cannot build opt.c -O$o: $(cat build.log)"; finish; }
	if ! "$pmeclock" -q -F 2000 -o $exe -- ./$exe >/dev/null 2>clock.err; then
		skip "pmeclock cannot record here: $(head -n 1 clock.err)"
	fi
	"$pmehisto" -q -V caliper -C 0 -o $exe.HIS $exe.PMS >$exe.out 2>err ||
	    { fail "-V caliper -O$o: $(cat err)"; continue; }
	shown $exe.out >$exe.shown
	want $exe >$exe.want
	[ -s $exe.shown ] || { fail "-O$o: no statement of mix shown: $(cat $exe.out)"; continue; }
	join $exe.shown $exe.want | awk '$2 != $3' >$exe.diff
	[ -s $exe.diff ] && fail "-O$o: marks (line, shown, readelf's):
$(cat $exe.diff)"
	join -v 1 $exe.shown $exe.want >$exe.extra
	[ -s $exe.extra ] && fail "-O$o: statements not in readelf's table: $(cat $exe.extra)"
	if [ $o = 2 ]; then
		grep -q '\*>' $exe.shown && grep -q '~' $exe.shown ||
		    fail "-O2: no statement out of order and none approximate:
$(cat $exe.shown)"
	else
		awk '$2 != "-"' $exe.shown | grep -q . &&
		    fail "-O0: marks where the code is in source order: $(cat $exe.shown)"
	fi
done

finish
