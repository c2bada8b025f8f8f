#!/bin/bash
#
# pmehisto_calls.sh - the second measure pmetrace keeps (callgrind's call
# counts, "calls") shown by pmehisto: a column of the text histogram and
# the last CSV column, with the counts the fixture's structure gives:
# `prog calls 5` calls mid() once, leaf() 5 times and libwork() once.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
fx=$top/tests/fixtures/trace

command -v valgrind >/dev/null ||
    { echo "skipped: no valgrind, so no callgrind engine and no calls"; exit 77; }

cd "$tmp" || exit 1
if ! gcc -g -O2 -shared -fPIC -o libwork.so "$fx/lib.c" ||
    ! gcc -g -O2 -o prog "$fx/prog.c" -L. -lwork -Wl,-rpath,'$ORIGIN' \
    -lpthread; then
	fail "cannot build the fixture"
	exit 1
fi
"$pmebuild" -q -x ./prog -l ./libwork.so -o prog.pme || { fail "pmebuild"; exit 1; }
"$pmetrace" -q -e callgrind -b prog.pme -o filled.pme -- ./prog calls 5 \
    >/dev/null || { fail "pmetrace failed"; exit 1; }

"$pmehisto" -q -t -b filled.pme -B out.pme -o out.HIS -T csv >out.csv ||
    fail "pmehisto -T csv failed"
head -n 1 out.csv | grep -q ',percent,file,line,module,calls$' ||
    fail "no calls column in the CSV header: $(head -n 1 out.csv)"
for want in "mid 1" "leaf 5" "libwork 1"; do
	set -- $want
	got=$(awk -F, -v u="$1" '$2 == u { print $NF }' out.csv)
	[ "$got" = "$2" ] || fail "calls of $1: '$got', not $2"
done

"$pmehisto" -q -t -b filled.pme -B out.pme -o out.HIS -T text -n -C 0 >out.txt ||
    fail "pmehisto -T text failed"
grep -q 'count  calls$' out.txt || fail "no calls heading in the histogram"
grep -E '^leaf ' out.txt | grep -qE ' 5$' ||
    fail "leaf's row does not end in its 5 calls: $(grep -E '^leaf ' out.txt)"

finish
