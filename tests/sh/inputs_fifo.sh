#!/bin/bash
#
# inputs_fifo.sh - a FIFO where a regular file is meant (issue 23, item
# 20): at a default input name (PMEFILE.PME, PMEFILE.PMS, Graphfile), as a
# -b, .PMD or -@ input, or as the path a sample file's main mapping names
# (pmehisto -x opens that program).  Nobody writes the FIFO, so a reader
# that opened it would wait for ever (timeout(1) only ends such a hang: 124
# fails the check); each program instead says, naming the file, that it is
# a FIFO and not read, and exits 1.  A FIFO reached through a name of a
# descriptor (bash's <(...)) is read, as in a shell.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
v=${PME_VALGRIND:-}
stats=$top/stats/stats
pmemerge=$top/histo/pmemerge
need "$pmebuild" "$pmehisto" "$pmetrace" "$stats" "$pmemerge" "$tsample"
command -v timeout >/dev/null || skip "no timeout(1)"
limit=${PME_VALGRIND:+600}
limit=${limit:-60}

# refused WHAT FILE COMMAND...: COMMAND exits 1 with one line on standard
# error that names FILE as a FIFO not read.
refused() {
	local what=$1 file=$2 got
	shift 2
	timeout "$limit" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	got=$?
	[ "$got" = 1 ] ||
	    fail "$what: exit status $got, not 1: $(head -c 500 "$tmp/err")"
	grep -qF "'$file': a FIFO, not a regular file: not read" "$tmp/err" ||
	    fail "$what: no message naming '$file' as a FIFO: $(head -c 500 "$tmp/err")"
}

cd "$tmp" || exit 1
cp "$top/tests/fixtures/bombs/orig.pme" x.pme
"$tsample" write s.pms <"$top/tests/histo/gravel.smp" || exit 1

mkdir d g && mkfifo d/PMEFILE.PME d/PMEFILE.PMS g/Graphfile d/f.pmd d/list ||
    skip "cannot make FIFOs here"
refused "pmehisto PMEFILE.PME" PMEFILE.PME \
    sh -c 'cd d && exec $0 "$1" -T none -o ../h.his ../s.pms' "$v" "$pmehisto"
refused "pmehisto PMEFILE.PMS" PMEFILE.PMS \
    sh -c 'cd d && exec $0 "$1" -T none -b ../x.pme -o ../h.his' "$v" "$pmehisto"
refused "pmehisto -b" d/PMEFILE.PME \
    $v "$pmehisto" -T none -o h.his -b d/PMEFILE.PME s.pms
refused "pmetrace -b" d/PMEFILE.PME \
    $v "$pmetrace" -e step -b d/PMEFILE.PME -o t.pme true
refused "pmebuild .PMD" d/f.pmd $v "$pmebuild" d/f.pmd b.pme
refused "pmemerge input" d/PMEFILE.PME \
    $v "$pmemerge" -o m.pme x.pme d/PMEFILE.PME
refused "pmemerge -@" d/list $v "$pmemerge" -o m.pme -@ d/list x.pme
refused "stats Graphfile" Graphfile \
    sh -c 'cd g && exec $0 "$1" -T text -o ../g.out -f ../s.pms' "$v" "$stats"
[ -e h.his ] || [ -e t.pme ] || [ -e b.pme ] || [ -e m.pme ] ||
    [ -e g.out ] && fail "an output was written: $(ls)"

# The main mapping of a sample file names a FIFO: pmehisto -x makes its
# buckets from the program, which it must not open.
mkfifo prog
sed "s|^header .*|&\nmap pid=100 start=0x1000 end=0x2000 offset=0 vaddr=0x1000 path=$tmp/prog flags=exec,main|" \
    "$top/tests/histo/gravel.smp" | "$tsample" write fifo.pms || exit 1
timeout "$limit" $v "$pmehisto" -x -T text -B /dev/null -o - fifo.pms \
    >out 2>err </dev/null
rc=$?
[ "$rc" = 124 ] && fail "pmehisto -x: hung on the FIFO its sample file names"
grep -qF "'$tmp/prog': a FIFO, not a regular file: not read" err ||
    fail "pmehisto -x: nothing said of the FIFO (exit $rc): $(head -c 500 err)"

# A FIFO named as a descriptor is what the user asked for: read.
timeout "$limit" $v "$pmebuild" <(printf '%s\n' 'DEFINE UNITS: PROGRAM, MODULE' \
    'PROGRAM P' 'MODULE M, 0 - FF' 'DEFINE SAMPLING' 'PROGRAM P BY MODULE' \
    'END') b2.pme </dev/null 2>err || fail "pmebuild <(...): $(head -c 500 err)"
[ -s b2.pme ] || fail "pmebuild <(...): no bucket file"
finish
