#!/bin/bash
#
# pmehisto_capstone_lazy.sh - pmehisto loads capstone (the Caliper view's
# disassembler) when it first disassembles, not when it starts: linked,
# its 77,000 relocations cost every run a millisecond, a sixth of the
# quick path's report (histo/cslazy.c).  In a build with capstone
# (config.mk), as the dynamic loader says (LD_DEBUG=files):
#   pmehisto --version and the quick path's histogram (-x) of a real run
#   of Debian's xz never load it;
#   -V caliper:instruction of the same run loads it, dynamically, and its
#   rows have their instructions (the disassembly itself is compared
#   with objdump's in pmehisto_caliper.sh).
# Before, pmehisto needed it (DT_NEEDED): loaded at every start.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$pmeclock" "$pmehisto"
grep -q '^CAPSTONE_CPPFLAGS *= *-DHAVE_CAPSTONE' "$top/config.mk" 2>/dev/null ||
    skip "pmehisto is built without capstone"
xz=$(command -v xz) || skip "no xz"
cd "$tmp" || exit 1

# The loader's lines about capstone while pmehisto ARG... runs.
loads() {
	LD_DEBUG=files "$pmehisto" "$@" 2>&1 >/dev/null |
	    grep 'file=libcapstone' || true
}

[ -z "$(loads --version)" ] ||
    fail "--version loads capstone: $(loads --version | head -n 2)"
if readelf -d "$pmehisto" 2>/dev/null | grep -q 'NEEDED.*libcapstone'; then
	fail "pmehisto needs libcapstone at start (DT_NEEDED)"
fi

cat /usr/lib/x86_64-linux-gnu/*.so* 2>/dev/null | head -c 3000000 >input ||
    true
[ "$(stat -c %s input)" -gt 1000000 ] || skip "too few shared libraries"
"$pmeclock" -q -F 2000 -o run.pms -- "$xz" -3 -c input >/dev/null ||
    skip "pmeclock cannot record here"
got=$(loads -q -x -T text -o /dev/null -B /dev/null run.pms)
[ -z "$got" ] || fail "the quick path loads capstone: $got"

got=$(loads -q -V caliper:instruction -T text -o /dev/null run.pms)
grep -q 'dynamically loaded by' <<<"$got" ||
    fail "caliper:instruction does not load capstone: ${got:-nothing said}"
"$pmehisto" -q -V caliper:instruction -T text -o /dev/null run.pms \
    >ins.txt 2>err || fail "caliper:instruction: $(cat err)"
grep -q 'addresses only' ins.txt &&
    fail "caliper:instruction shows addresses only: $(head -n 5 ins.txt)"
grep -Eq '\]\+0x[0-9a-f]+ +[a-z]+' ins.txt ||
    fail "no row with its instruction: $(head -n 12 ins.txt)"

finish
