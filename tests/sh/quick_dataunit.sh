#!/bin/bash
#
# quick_dataunit.sh - pmehisto's quick path (-x) on a program one of whose
# compilation units holds data and no code (tests/fixtures/quick/table.c:
# a DWARF unit without ranges): its module unit has no ranges, and making
# the program's unit of its modules' ranges copies none from it.  That
# copy passed memcpy a null pointer (UBSan: "null pointer passed as
# argument 2" at lib/quick.c, found by a system-wide run in CI; this
# fixture makes it every time): the run reduces with nothing said on
# standard error, every sample of the program's own code in main.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$pmeclock" "$pmehisto"
cd "$tmp" || exit 1
src=$top/tests/fixtures/quick
gcc -g -O1 -o prog "$src/loop.c" "$src/table.c" ||
    { fail "cannot build the fixture"; finish; }
"$pmeclock" -q -o r.PMS ./prog 100000000 2>err ||
    { fail "pmeclock: $(cat err)"; finish; }
"$pmehisto" -q -x -T csv -o /dev/null -B /dev/null r.PMS >r.csv 2>err ||
    fail "pmehisto -x: exit $?: $(cat err)"
[ ! -s err ] || fail "pmehisto -x said: $(cat err)"
total=$("$pmehisto" -q -x -T text -o - -B /dev/null r.PMS 2>/dev/null |
    awk '$1 == "Total:" { print $2; exit }')
main=$(awk -F, '$2 == "main" { print $7 }' r.csv)
# The program's own samples, every row of its module (a busy machine may
# put one of the run's in the loader, libc or the kernel: 26 of 27 in a
# loaded run).
own=$(awk -F, -v m="$tmp/prog" '$NF == m { n += $7 } END { print n + 0 }' \
    r.csv)
[ -n "$main" ] && [ "$main" -gt 0 ] && [ "$main" = "$own" ] ||
    fail "main counts '$main' of the program's '$own' samples"
[ -n "$total" ] && [ "$total" -ge "$own" ] ||
    fail "the run's total '$total' is below the program's '$own' samples"
finish
