#!/bin/bash
#
# pmehisto_perfcheck.sh - the Makefile performance gate of README.md
# ("Performance gates"), for real: tests/fixtures/perfcheck's Makefile
# counts its program's instructions with pmetrace (callgrind) and
# compares them with a baseline through pmehisto -D and two gates.
# After `make baseline`, `make perf-check` passes on a rebuild of the
# same source and on one that adds a routine before the others (its
# addresses move: buckets are matched by name), and fails, naming the
# routine and the gate, on the variant whose checksum() does 5% more
# work.  Trace counts are exact, so this holds on a busy machine too;
# PERFCHECK_ROUNDS (default 1) repeats the three checks.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$pmetrace"
command -v valgrind >/dev/null || skip "no valgrind (pmetrace -e callgrind)"
command -v make >/dev/null || skip "no make"
command -v "${CC:-cc}" >/dev/null || skip "no C compiler"

cd "$tmp" || exit 1
cp "$top/tests/fixtures/perfcheck/Makefile" \
    "$top/tests/fixtures/perfcheck/work.c" . || exit 1
progs=(PMEBUILD="$pmebuild" PMETRACE="$pmetrace" PMEHISTO="$pmehisto")

check() {	# VARIANT: make perf-check on a clean build; status in rc
	make -s clean >/dev/null
	make -s "${progs[@]}" VARIANT="$1" perf-check >out 2>err
	rc=$?
}

make -s "${progs[@]}" baseline >out 2>&1 ||
    { fail "make baseline failed:"; cat out >&2; finish; }
rounds=${PERFCHECK_ROUNDS:-1}
for ((i = 1; i <= rounds; i++)); do
	check ""
	[ "$rc" = 0 ] && [ ! -s err ] ||
	    { fail "round $i: unchanged rebuild: make exit $rc:"; cat err >&2; }
	grep -q '^checksum .* 0\.0%$' perf.his ||
	    { fail "round $i: unchanged rebuild: checksum changed:"; cat perf.his >&2; }

	check -DMOVED
	[ "$rc" = 0 ] && [ ! -s err ] ||
	    { fail "round $i: moved code: make exit $rc:"; cat err >&2; }
	grep -q '^checksum .* 0\.0%$' perf.his &&
	    grep -q '^Appeared: *unused$' perf.his &&
	    grep -q '^Vanished: *none$' perf.his ||
	    { fail "round $i: moved code: not matched by name:"; cat perf.his >&2; }

	check -DSLOW
	[ "$rc" = 2 ] ||
	    { fail "round $i: slower variant: make exit $rc, not 2:"; cat err >&2; }
	grep -q "^pmehisto: gate 'bucket:+2%,+1000' failed: checksum grew from [0-9]* to [0-9]* (+[0-9]*, +5\.0%)$" err &&
	    grep -q "^pmehisto: gate 'total:+1%' failed: the total grew" err &&
	    grep -q "perf-check.* Error 3$" err ||
	    { fail "round $i: slower variant: not said:"; cat err >&2; }
	grep -q "scramble" err &&
	    { fail "round $i: slower variant: an unchanged routine named:"; cat err >&2; }
	grep -q '^Verdict: *failed$' perf.his ||
	    { fail "round $i: slower variant: report:"; cat perf.his >&2; }
done
finish
