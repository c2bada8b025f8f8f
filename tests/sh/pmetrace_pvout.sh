#!/bin/bash
#
# pmetrace_pvout.sh - the pmevg engine's counts files when they cannot be
# written whole (a full disk, here a file size limit): pmetrace names the
# file and the line where it is cut short, quotes the tool's error from
# valgrind's log, exits 1 and writes no bucket file; with room enough the
# same run counts.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/trace.sh"

need_valgrind
need_no_pme_valgrind "pmetrace runs valgrind itself"
have_pmevg || { echo "pme's valgrind tool is not built here"; exit 77; }

cd "$tmp" || exit 1
$cc -g -O1 -shared -fPIC -o libtr.so "$fx/lib.c" &&
$cc -g -O1 -o prog "$fx/prog.c" -L. -ltr -Wl,-rpath,"$tmp" -pthread ||
    { echo "cannot build the fixtures" >&2; exit 1; }
$pmebuild -q -x ./prog -l ./libtr.so -o prog.pme ||
    { echo "pmebuild failed" >&2; exit 1; }

# Writes beyond 8 KiB fail (EFBIG): the counts file, some 25 KiB for the
# loader alone, is cut short.
mkdir t
(trap '' XFSZ; ulimit -f 8; TMPDIR=$tmp/t $pmetrace -e pmevg -b prog.pme \
    -o out.pme -- ./prog calls 7 >/dev/null 2>err)
got=$?
[ "$got" = 1 ] || fail "file size limit: exit status $got, not 1: $(cat err)"
# The cut may fall inside a line or, by chance, after one.
re="^pmetrace: '$tmp/t/pmetrace\.[A-Za-z0-9]+/pv\.([0-9]+)\.1': (line [0-9]+: "
re="${re}cut short: the file ends inside a line|cut short: the file ends "
re="${re}before its end line) \(valgrind exit status 0: "
re="${re}==[0-9]+== Error: pmevg: '$tmp/t/pmetrace\.[A-Za-z0-9]+/pv\.[0-9]+\.1': "
re="${re}cannot write the counts\)$"
grep -Eq "$re" err || fail "file size limit: $(cat err)"
[ -e out.pme ] && fail "file size limit: out.pme written"
[ -z "$(ls -A t)" ] || fail "file size limit: left in TMPDIR: $(ls -A t)"

# The same run with room.
TMPDIR=$tmp/t $pmetrace -e pmevg -b prog.pme -o out.pme -- ./prog calls 7 \
    >/dev/null 2>err || fail "with room: exit status $?: $(cat err)"
[ -s err ] && fail "with room: $(cat err)"
[ -s out.pme ] || fail "with room: no out.pme"

finish
