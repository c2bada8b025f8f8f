#!/bin/bash
#
# pmetrace_startstop.sh - pmetrace --start ROUTINE --stop ROUTINE on
# tests/fixtures/trace/calls.c: counting from the first entry of even()
# while its entries exceed those of cmp() (qsort's comparator, entered
# after the 13 entries of even: the 13th entry of cmp stops it), under
# the pmevg engine and, where QEMU is installed, the qemu engine, which
# count the same in every bucket, instructions and calls; --start alone
# counts to the end; a routine no object has, --stop alone, and the
# callgrind and step engines are refused, said, no file written.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/trace.sh"

need_valgrind
need_no_pme_valgrind "pmetrace runs valgrind itself"
have_pmevg || { echo "pme's valgrind tool is not built here"; exit 77; }

cd "$tmp" || exit 1
$cc -g -O2 -o calls "$fx/calls.c" && build_pmecounts ||
    { echo "cannot build the fixtures" >&2; exit 1; }
$pmebuild -q -x ./calls -o calls.pme || { echo "pmebuild failed" >&2; exit 1; }

# counts FILE: "bucket count calls" of every bucket.
counts() {
	./pmecounts "$1" | awk '$1 == "bucket" { print $2, $3, $4 }' | sort
}
# get FILE BUCKET FIELD (2 instructions, 3 calls)
get() {
	awk -v b="$2" -v f="$3" '$1 == b { print $f }' "$1"
}

engines=pmevg
command -v qemu-x86_64 >/dev/null && [ -f "$top/trace/qemu/pmeqemu.so" ] &&
    engines="pmevg qemu"

$pmetrace -q -e pmevg -b calls.pme -o all.pme -- ./calls 12 ||
    fail "pmevg, no --start: exit status $?"
counts all.pme >all.txt
for e in $engines; do
	$pmetrace -q -e $e --start even --stop cmp -b calls.pme -o $e.pme \
	    -- ./calls 12 2>err.txt || fail "$e: exit status $?: $(cat err.txt)"
	counts $e.pme >$e.txt
	# Before even's first entry: nothing; even whole, its first call
	# (made while not counting) not; cmp 12 times.
	[ "$(get $e.txt fib 2)" = 0 ] && [ "$(get $e.txt main 3)" = 0 ] &&
	[ "$(get $e.txt even 2)" = "$(get all.txt even 2)" ] &&
	[ "$(get $e.txt even 3)" = $(($(get all.txt even 3) - 1)) ] &&
	[ "$(get $e.txt leaf 2)" = "$(get all.txt leaf 2)" ] &&
	[ "$(get $e.txt cmp 2)" = $(($(get all.txt cmp 2) / \
	    $(get all.txt cmp 3) * 12)) ] ||
	    fail "$e --start even --stop cmp: $(paste -d' ' all.txt $e.txt)"
	# --start alone: from even's first entry to the end.
	$pmetrace -q -e $e --start even -b calls.pme -o $e.1.pme \
	    -- ./calls 12 || fail "$e --start alone: exit status $?"
	counts $e.1.pme >$e.1.txt
	[ "$(get $e.1.txt cmp 2)" = "$(get all.txt cmp 2)" ] &&
	[ "$(get $e.1.txt fib 2)" = 0 ] ||
	    fail "$e --start even: $(cat $e.1.txt)"
done
if [ "$engines" = "pmevg qemu" ]; then
	diff -u pmevg.txt qemu.txt >diff.txt ||
	    fail "qemu differs from pmevg: $(cat diff.txt)"
	diff -u pmevg.1.txt qemu.1.txt >diff.txt ||
	    fail "--start alone: qemu differs from pmevg: $(cat diff.txt)"
fi

# refused WHAT WANT-STATUS MESSAGE ARGS...
refused() {
	local what=$1 want=$2 msg=$3 got
	shift 3
	rm -f no.pme
	$pmetrace -b calls.pme -o no.pme "$@" -- ./calls 3 >out.txt 2>err.txt
	got=$?
	[ "$got" = "$want" ] && grep -qF "$msg" err.txt && [ ! -e no.pme ] ||
	    fail "$what: exit status $got, not $want: $(cat err.txt)"
}
refused callgrind 1 "pmetrace: --start: the callgrind engine cannot count from a routine (the pmevg and qemu engines can)" \
    -e callgrind --start even
refused step 1 "pmetrace: --start: the step engine cannot count from a routine (the pmevg and qemu engines can)" \
    -e step --start even
refused nosuch 1 "pmetrace: --stop: 'nosuch': no routine of that name in the bucket file's objects" \
    --start even --stop nosuch
refused "--stop alone" 2 "pmetrace: --stop needs --start" --stop cmp

finish
