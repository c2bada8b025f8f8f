#!/bin/bash
#
# fuzz_regress - every input a fuzz target once faulted on
# (tests/fuzz/regress/TARGET/*) given to the program that reads that kind
# of file, as a user would: it must end with status 0, or 1 and a message
# that starts with the program's name and names the file, never by a
# signal, and say nothing of a sanitizer (under the ASan+UBSan run of CI,
# a fault found again shows there: the DWARF reader's child prints its
# report on the same standard error; gcc's UBSan does not check every
# case clang's does, such as an offset of 0 to a null pointer).  The fuzz
# targets, built with clang, run them first in `make fuzz`
# (tests/fuzz/run.sh), which CI runs too.

. "${PME_TOP:?}/tests/sh/lib/common.sh"

# run_one KIND FILE: the program for KIND on FILE, output in $tmp/out, err.
run_one() {
	local kind=$1 f=$2
	case $kind in
	elf)	$PME_VALGRIND "$pmebuild" -x "$f" -b line \
		    -o "$tmp/out.pme" ;;
	map)	printf 'DEFINE UNITS: PROGRAM, MODULE\nDEFINE ADDRESSES: MAP "%s"\nEND\n' \
		    "$f" >"$tmp/map.pmd"
		$PME_VALGRIND "$pmebuild" -o "$tmp/out.pme" "$tmp/map.pmd" ;;
	pmd)	$PME_VALGRIND "$pmebuild" -o "$tmp/out.pme" "$f" ;;
	bucket*) $PME_VALGRIND "$pmehisto" -b "$f" -s "$tmp/none.pms" \
		    -T text ;;
	sample)	$PME_VALGRIND "$pmehisto" -x -s "$f" -T text ;;
	*)	return 200 ;;
	esac >"$tmp/out" 2>"$tmp/err" </dev/null
}

n=0
for dir in "$top"/tests/fuzz/regress/*/; do
	kind=$(basename "$dir")
	for f in "$dir"*; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		run_one "$kind" "$f"
		st=$?
		what="$kind/$(basename "$f")"
		if [ $st = 200 ]; then
			n=$((n - 1))	# a target with no program of its own
			continue
		fi
		if [ $st -ne 0 ] && [ $st -ne 1 ]; then
			fail "$what: exit status $st"
			sed 's/^/    /' "$tmp/err" >&2
		fi
		if grep -qE 'runtime error|Sanitizer|valgrind' "$tmp/err"; then
			fail "$what: a sanitizer or valgrind spoke:"
			head -n 5 "$tmp/err" | sed 's/^/    /' >&2
		fi
		if [ $st = 1 ] && ! grep -q "^pme[a-z]*: .*$(basename "$f")" \
		    "$tmp/err"; then
			fail "$what: status 1 without a message naming the file:"
			head -n 3 "$tmp/err" | sed 's/^/    /' >&2
		fi
	done
done
[ $n -gt 0 ] || fail "no regression inputs found"
echo "$n regression inputs"
finish
