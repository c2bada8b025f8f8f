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
#
# The callgrind outputs (regress/cgout: the output, then after a NUL byte
# its valgrind log) go to pmetrace as the directory PMETRACE_READ names,
# for a bucket file of a small program built here (-f: the outputs come
# from another build of it); a tally it writes must hold the
# instructions of the output's totals line, and a message of status 1
# name one of those files (the output, the log or the bucket file).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

# cgout_setup: small, its bucket file small.pme and pmecounts in $tmp;
# 1 without a compiler.
cgout_setup() {
	[ -n "${cgout_ready:-}" ] && return "$cgout_ready"
	cgout_ready=1
	printf 'int main(void) { return 0; }\n' >"$tmp/small.c"
	${CC:-cc} -o "$tmp/small" "$tmp/small.c" 2>/dev/null &&
	    ${CC:-cc} -std=c11 -D_GNU_SOURCE -I"$top/lib" -o "$tmp/pmecounts" \
	    "$top/tests/fixtures/trace/pmecounts.c" "$top/lib/bucket.c" \
	    "$top/lib/container.c" "$top/lib/util.c" -lz 2>/dev/null &&
	    "$pmebuild" -q -x "$tmp/small" -o "$tmp/small.pme" \
	    >/dev/null 2>&1 </dev/null && cgout_ready=0
	return "$cgout_ready"
}

# cgout_split FILE: FILE as $tmp/cg/cg.12531 and, after its first NUL
# byte, log.12531.
cgout_split() {
	local nul
	rm -rf "$tmp/cg" && mkdir "$tmp/cg" || return 1
	nul=$(od -An -v -tu1 "$1" | tr -s ' ' '\n' | sed '/^$/d' |
	    grep -nx 0 | head -n 1 | cut -d: -f1)
	if [ -z "$nul" ]; then
		cp "$1" "$tmp/cg/cg.12531"
	else
		head -c $((nul - 1)) "$1" >"$tmp/cg/cg.12531"
		tail -c +$((nul + 1)) "$1" >"$tmp/cg/log.12531"
	fi
}

# run_one KIND FILE: the program for KIND on FILE, output in $tmp/out, err;
# sets named, what a message of status 1 must name.
run_one() {
	local kind=$1 f=$2
	named=$(basename "$f")
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
	cgout)	cgout_setup && cgout_split "$f" || return 200
		named="'$tmp/"
		rm -f "$tmp/out.pme"
		PMETRACE_READ=$tmp/cg $PME_VALGRIND "$pmetrace" -f \
		    -b "$tmp/small.pme" -o "$tmp/out.pme" -- "$tmp/small" ;;
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
		# valgrind's own lines, not a message that names it.
		if grep -qE 'runtime error|Sanitizer|^==[0-9]+==|^valgrind:' \
		    "$tmp/err"; then
			fail "$what: a sanitizer or valgrind spoke:"
			head -n 5 "$tmp/err" | sed 's/^/    /' >&2
		fi
		if [ $kind = cgout ] && [ $st = 0 ]; then
			total=$(sed -n 's/^totals: *//p' "$tmp/cg/cg.12531" |
			    tail -n 1)
			got=$("$tmp/pmecounts" "$tmp/out.pme" |
			    sed -n 's/^info .* total \([0-9]*\) .*/\1/p')
			[ -n "$got" ] && [ "$got" = "$total" ] ||
			    fail "$what: a tally of ${got:-nothing}" \
				"instructions, not the totals line's $total"
		fi
		if [ $st = 1 ] && ! grep -q "^pme[a-z]*: .*$named" \
		    "$tmp/err"; then
			fail "$what: status 1 without a message naming the file:"
			head -n 3 "$tmp/err" | sed 's/^/    /' >&2
		fi
	done
done
[ $n -gt 0 ] || fail "no regression inputs found"
echo "$n regression inputs"
finish
