#!/bin/bash
#
# quick_same.sh - pmehisto's quick path (no bucket file) and pmebuild -x
# make their routine buckets with one builder (lib/quick.h): for the same
# executable, the bucket file pmehisto writes and the one pmebuild -x
# writes have the same kinds, load module, units (names, parents, ranges,
# source lines, aliases), group and buckets, counts aside (t_pmebuild
# layout), for
#   the demo fixture built with DWARF (two compilation units: PROGRAM,
#     MODULE and ROUTINE units), with main in .text.startup;
#   a program whose symbol table has a function inside another: the inner
#     one is left out by both (pmebuild -x used to fail on it, "buckets
#     overlap", where pmehisto left it out);
#   Debian's own stripped binaries, their debug info absent: ls (a few
#     exported functions), bash (many), and xz (none: both make one
#     routine "[xz]" of its .text).
# pmehisto reads the executable a sample file recorded: a made-up one
# names it (tests/unit/t_sample's writer), so nothing here runs it.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

layout=$top/tests/unit/t_pmebuild
command -v gcc >/dev/null || skip "no gcc"
need "$layout" "$tsample" "$pmebuild" "$pmehisto"

# A sample file of one sample in the executable $1, its main mapping.
record() {
	{
		echo "header method=test event=cpu-clock period=1000000 pid=8 argv=x"
		echo "map pid=8 start=0x400000 end=0x10000000 offset=0 vaddr=0 path=$1 flags=exec,main"
		echo "sample pid=8 pc=0x400100 count=1"
		echo "close"
	} | "$tsample" write "$2"
}

# Both programs on executable $2 (named $1 here); at least $3 buckets
# alike, or with $3 "none" both refusing it.
same() {	# NAME EXE MIN
	local n=$1 exe=$2 min=$3 b=0 h=0
	record "$exe" "$tmp/$n.pms" || { fail "$n: no sample file"; return; }
	${PME_VALGRIND:-} "$pmebuild" -q -x "$exe" -o "$tmp/$n.b.pme" \
	    2>"$tmp/$n.b.err" || b=$?
	${PME_VALGRIND:-} "$pmehisto" -q -x -T none -o "$tmp/$n.his" \
	    -B "$tmp/$n.h.pme" "$tmp/$n.pms" 2>"$tmp/$n.h.err" || h=$?
	if [ "$min" = none ]; then
		[ $b != 0 ] && [ $h != 0 ] ||
		    fail "$n: not refused by both (pmebuild $b, pmehisto $h)"
		return
	fi
	if [ $b != 0 ] || [ $h != 0 ]; then
		fail "$n: pmebuild $b: $(cat "$tmp/$n.b.err"); pmehisto $h:" \
		    "$(cat "$tmp/$n.h.err")"
		return
	fi
	"$layout" layout "$tmp/$n.b.pme" >"$tmp/$n.b" &&
	    "$layout" layout "$tmp/$n.h.pme" >"$tmp/$n.h" ||
	    { fail "$n: cannot read the bucket files"; return; }
	diff -u "$tmp/$n.b" "$tmp/$n.h" >"$tmp/$n.diff" ||
	    fail "$n: pmebuild -x and pmehisto's quick path differ:" \
	    "$(head -n 40 "$tmp/$n.diff")"
	[ "$(grep -c '^bucket ' "$tmp/$n.b")" -ge "$min" ] ||
	    fail "$n: fewer than $min buckets: $(cat "$tmp/$n.b")"
}

# The demo: main (in .text.startup at -O2) before work.c's routines.
fx=$top/tests/fixtures/demo
if gcc -g -O2 -o "$tmp/demo" "$fx/work.c" "$fx/main.c"; then
	same demo "$tmp/demo" 5
	grep -qs "^unit [0-9]* 'count_primes' kind 2 parent " "$tmp/demo.h" ||
	    fail "demo: no routine count_primes under its module"
else
	fail "cannot build the demo"
fi

# inner lies inside outer: a bucket for outer only, in both.
cat >"$tmp/nested.c" <<'EOF'
__asm__(".text\n.globl outer\n.type outer, @function\nouter:\n\tnop\n"
    ".globl inner\n.type inner, @function\ninner:\n\tnop\n\tret\n"
    ".size inner, .-inner\n.size outer, .-outer\n");
void outer(void);
int main(void) { outer(); return 0; }
EOF
if gcc -O2 -o "$tmp/nested" "$tmp/nested.c"; then
	same nested "$tmp/nested" 2
	grep -qs "^unit [0-9]* 'outer' " "$tmp/nested.h" ||
	    fail "nested: no unit outer"
	! grep -qs "^unit [0-9]* 'inner' " "$tmp/nested.h" ||
	    fail "nested: inner, inside outer, has a unit"
else
	fail "cannot build the nested fixture"
fi

# Debian's binaries, as installed (no debug file looked for here: a
# stripped one has none beside it unless a -dbgsym package is installed).
[ -x /usr/bin/ls ] && same ls /usr/bin/ls 6
[ -x /usr/bin/bash ] && same bash /usr/bin/bash 1000
[ -x /usr/bin/xz ] && same xz /usr/bin/xz 1

finish
