#!/bin/bash
#
# pmetrace_runtime.sh - libpmetrace, shared and static: a program that
# steps its own region counts the known loop exactly, in its thread or in
# threads it creates, names its files with pme_iname/pme_oname (blanks
# trimmed, .PME added); a missing bucket file is reported and the program
# goes on; under pmetrace's callgrind engine only the region is counted,
# under its step engine the whole program; under another valgrind tool it
# says it measures nothing.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/trace.sh"

[ "$(uname -m)" = x86_64 ] || { echo "the stepping runtime needs x86-64"; exit 77; }
need_no_pme_valgrind "the runtime steps with the trap flag"
[ -f "$top/trace/libpmetrace.so" ] && [ -f "$top/trace/libpmetrace.a" ] ||
    { echo "libpmetrace is not built" >&2; exit 1; }

cd "$tmp" || exit 1
$cc -g -O1 -I"$top/trace" -o rt "$fx/rt.c" -L"$top/trace" -lpmetrace \
    -Wl,-rpath,"$top/trace" -pthread &&
$cc -g -O1 -I"$top/trace" -o rt_static "$fx/rt.c" \
    "$top/trace/libpmetrace.a" -lz -pthread &&
build_pmecounts ||
    { echo "cannot build the fixtures" >&2; exit 1; }

# check WHAT FILE KLOOP [MIN-TOTAL MAX-TOTAL]
check() {
	local what=$1 f=$2 k=$3 lo=${4:-0} hi=${5:-999999999} got total
	if [ ! -f "$f" ]; then
		fail "$what: no $f"
		return
	fi
	got=$(./pmecounts "$f" | awk '$1 == "bucket" && $2 == "kloop" { print $3 }')
	[ "$got" = "$k" ] || fail "$what: kloop counted $got, not $k"
	total=$(./pmecounts "$f" | awk '$1 == "info" { print $7 }')
	[ "$total" -ge "$lo" ] && [ "$total" -le "$hi" ] ||
	    fail "$what: $total instructions, not within $lo - $hi"
}

for p in rt rt_static; do
	$pmebuild -q -x ./$p -o rtin.PME || fail "pmebuild $p"
	rm -f rtout.PME
	./$p 3 >out 2>err || fail "$p 3: exit status $?: $(cat err)"
	[ -s err ] && fail "$p 3: $(cat err)"
	check "$p 3" rtout.PME 906 906 20000
	./pmecounts rtout.PME | grep -q ' runs 1 total ' || fail "$p: runs"
	rm -f rtout.PME
	./$p 2 2 >out 2>err || fail "$p 2 2: exit status $?: $(cat err)"
	check "$p threads" rtout.PME 1208 1208 40000
done

# No bucket file: said, and the program goes on.
rm -f rtin.PME rtout.PME
./rt 1 >out 2>err || fail "no bucket file: exit status $?"
grep -q "^libpmetrace: 'rtin.PME': cannot open" err ||
    fail "no bucket file: $(cat err)"
grep -q '^done$' out || fail "no bucket file: the program did not go on"
[ -e rtout.PME ] && fail "no bucket file: rtout.PME written"

$pmebuild -q -x ./rt -o rtin.PME || fail "pmebuild rt"
if command -v valgrind >/dev/null; then
	$pmetrace -b rtin.PME -o rtc.PME -- ./rt 3 >out 2>err ||
	    fail "pmetrace callgrind: $(cat err)"
	check "pmetrace callgrind" rtc.PME 906 906 20000
	./pmecounts rtc.PME | grep -q '^bucket kloop 906 3$' ||
	    fail "pmetrace callgrind: kloop not 3 calls"
	valgrind -q --tool=none ./rt 1 >out 2>err
	grep -q "^libpmetrace: under valgrind but not under pmetrace's pmevg or callgrind engine: nothing measured$" err ||
	    fail "valgrind --tool=none: $(cat err)"
fi
$pmetrace -e step -b rtin.PME -o rts.PME -- ./rt 1 >out 2>err ||
    fail "pmetrace step: $(cat err)"
check "pmetrace step" rts.PME 302 50000

finish
