#!/bin/bash
#
# pmetrace_sqlite.sh - pmetrace's pmevg engine on a large real program,
# SQLite (the amalgamation from the npm package better-sqlite3, built
# here, with tests/fixtures/trace/sqlwork.c): its counts equal the
# callgrind engine's routine by routine, instructions and calls, on
# every routine of the program (recursion summed, as both count it); the
# qemu engine's instructions and calls equal pmevg's in every routine
# where QEMU is installed.
# Skipped when npm cannot fetch the package.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/trace.sh"
. "$top/tests/sh/lib/sqlite.sh"

need_valgrind
need_no_pme_valgrind "pmetrace runs valgrind itself"
have_pmevg || { echo "pme's valgrind tool is not built here"; exit 77; }

cd "$tmp" || exit 1
fetch_sqlite "$tmp" || exit 77
$cc -g -O1 -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -I. \
    -o sqlwork "$fx/sqlwork.c" sqlite3.c -lm &&
build_pmecounts || { echo "cannot build the fixtures" >&2; exit 1; }
$pmebuild -q -x ./sqlwork -o sql.pme || { echo "pmebuild failed" >&2; exit 1; }

want=$(./sqlwork 3000) || { echo "sqlwork fails" >&2; exit 1; }
for e in pmevg callgrind; do
	$pmetrace -q -e $e -b sql.pme -o $e.pme -- ./sqlwork 3000 \
	    >$e.out 2>$e.err || fail "$e: exit status $?: $(head -c 300 $e.err)"
	[ "$(cat $e.out)" = "$want" ] || fail "$e: the program's output differs"
	./pmecounts $e.pme | awk '$1 == "bucket"' >$e.txt
done
diff -u callgrind.txt pmevg.txt >diff.txt ||
    fail "pmevg differs from callgrind: $(head -n 40 diff.txt)"
# Not a comparison of two empty files: most of SQLite ran.
# The qemu engine, where QEMU is installed: the same instructions and
# calls in every routine.
if command -v qemu-x86_64 >/dev/null && [ -f "$top/trace/qemu/pmeqemu.so" ]
then
	$pmetrace -q -e qemu -b sql.pme -o qemu.pme -- ./sqlwork 3000 \
	    >qemu.out 2>qemu.err ||
	    fail "qemu: exit status $?: $(head -c 300 qemu.err)"
	[ "$(cat qemu.out)" = "$want" ] ||
	    fail "qemu: the program's output differs"
	./pmecounts qemu.pme | awk '$1 == "bucket"' >qemu.txt
	diff -u pmevg.txt qemu.txt >diff.txt ||
	    fail "qemu differs from pmevg: $(head -n 40 diff.txt)"
fi
ran=$(awk '$3 > 0' pmevg.txt | wc -l)
[ "$ran" -ge 300 ] || fail "only $ran routines counted"
awk '$4 > 0 && $4 != "-"' pmevg.txt | grep -q . || fail "no calls counted"

finish
