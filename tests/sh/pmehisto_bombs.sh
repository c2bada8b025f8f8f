#!/bin/bash
#
# pmehisto_bombs.sh - small files that ask for huge memory, and sample
# files too short to hold a profile.  pmehisto reads each bucket and
# sample file through libpme's streaming readers, which skip chunks of
# unknown types without inflating them, refuse a chunk larger than its
# type holds before inflating it, and refuse a repeated chunk unread.
#
# The inputs: zbomb.pms (an SMPL chunk of 256 MiB of zeros in 255 KiB,
# found by probing; tests/fixtures/bombs/README) and the bombs bombgen.c
# makes from the good files orig.pme and orig.pms (unknown chunks of
# 256 MiB, tables and headers of 256 MiB, a repeated chunk, chunks at and
# just above their limits).  For each: the exit status, standard error
# exactly, no output file left behind when refused, the same CSV as the
# good files when only unknown chunks were added, and a peak RSS under
# 64 MiB (before these limits each took 264 MB or more; a correct reader
# needs a few MB, 25 at most for the largest header a file may hold).
# The RSS bound is not checked under valgrind, whose own memory it would
# measure.  Then a sample file of its 16-byte container header alone, and
# one cut inside its header chunk: exit 1, "it holds no samples".
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
fx=$top/tests/fixtures/bombs
limit=65536	# KiB

command -v gcc >/dev/null || { echo "skipped: no gcc"; exit 77; }

cd "$tmp" || exit 1
if ! gcc -O2 -I"$top/tests/fuzz" -o bombgen "$fx/bombgen.c" -lz ||
    ! gcc -O2 -o peakrss "$top/tests/bench/peakrss.c"; then
	fail "cannot build bombgen or peakrss"
	exit 1
fi
cp "$fx/orig.pme" "$fx/orig.pms" "$fx/zbomb.pms" . || exit 1
mkdir b && ./bombgen orig.pme orig.pms b || { fail "bombgen failed"; exit 1; }

ph() {	# STDIN ARGS...: pmehisto, CSV on out, stderr in err, status in rc
	local in=$1
	shift
	rm -f out.PME out.HIS
	# shellcheck disable=SC2086
	./peakrss rss ${PME_VALGRIND:-} "$pmehisto" -q -B out.PME -o out.HIS \
	    -T csv "$@" <"$in" >out 2>err
	rc=$?
}

# check LABEL STATUS MESSAGE: the last run
check() {
	local kib
	[ "$rc" = "$2" ] || fail "$1: exit status $rc, not $2"
	if [ -n "$3" ]; then
		printf '%s\n' "$3" >want
		diff -u want err >&2 || fail "$1: unexpected standard error"
	elif [ -s err ]; then
		fail "$1: unexpected standard error:"
		cat err >&2
	fi
	if [ "$2" != 0 ] && { [ -e out.PME ] || [ -e out.HIS ]; }; then
		fail "$1: refused, but an output file was written"
	fi
	kib=$(cat rss)
	if [ -z "${PME_VALGRIND:-}" ] && [ "$kib" -ge "$limit" ]; then
		fail "$1: peak RSS $kib KiB, not under $limit KiB"
	fi
}

ph /dev/null -b orig.pme orig.pms
check "good files" 0 ""
cp out good.csv

# --- bucket files ---------------------------------------------------------------

for f in b_unknown4 b_unknown20; do
	ph /dev/null -b b/$f.pme orig.pms
	check "$f" 0 ""
	cmp -s out good.csv || fail "$f: not the good files' CSV"
done
ph /dev/null -b b/b_opts.pme orig.pms
check b_opts 1 "pmehisto: 'b/b_opts.pme': offset 0x10: 'OPTS' chunk: payload of 268435456 bytes, not 48"
ph /dev/null -b b/b_rngs.pme orig.pms
check b_rngs 1 "pmehisto: 'b/b_rngs.pme': offset 0x172: 'RNGS' chunk: 268435455 bytes for 0 records of at most 20"
ph /dev/null -b b/b_strs.pme orig.pms
check b_strs 1 "pmehisto: 'b/b_strs.pme': offset 0x54: 'STRS' chunk: 268435455 bytes after the table"
ph /dev/null -b b/b_twice.pme orig.pms
check b_twice 1 "pmehisto: 'b/b_twice.pme': offset 0x209: second 'UNIT' chunk"

# --- sample files ---------------------------------------------------------------

ph /dev/null -b orig.pme zbomb.pms
check zbomb 1 "pmehisto: 'zbomb.pms': offset 0x19e: 'SMPL' chunk of 268435456 bytes, more than the 16777472 it may hold"
ph zbomb.pms -b orig.pme -
check "zbomb on standard input" 1 "pmehisto: '-': offset 0x19e: 'SMPL' chunk of 268435456 bytes, more than the 16777472 it may hold"
ph /dev/null -b orig.pme b/s_unknown4.pms
check s_unknown4 0 ""
cmp -s out good.csv || fail "s_unknown4: not the good files' CSV"
ph /dev/null -b orig.pme b/s_shdr.pms
check s_shdr 1 "pmehisto: 'b/s_shdr.pms': offset 0x10: 'SHDR' chunk of 268435456 bytes, more than the 8388608 it may hold"
ph /dev/null -b orig.pme b/s_shdrmax.pms
check s_shdrmax 1 "pmehisto: 'b/s_shdrmax.pms': offset 0x10: 'SHDR' chunk: bad length"
ph /dev/null -b orig.pme b/s_twice.pms
check s_twice 1 "pmehisto: 'b/s_twice.pms': offset 0x55: 'SHDR' chunk of 268435456 bytes, more than the 8388608 it may hold"
ph /dev/null -b orig.pme b/s_maps.pms
check s_maps 1 "pmehisto: 'b/s_maps.pms': offset 0x7c: 'MAPS' chunk: bytes after the last record"
ph /dev/null -b orig.pme b/s_smpl.pms
check s_smpl 1 "pmehisto: 'b/s_smpl.pms': offset 0x19e: 'SMPL' chunk of 16777473 bytes, more than the 16777472 it may hold"

# --- sample files without a profile ---------------------------------------------

head -c 16 orig.pms >hdr.pms
ph /dev/null -b orig.pme hdr.pms
check "header only" 1 "pmehisto: 'hdr.pms': offset 0x10: cut short before its header chunk: it holds no samples"
head -c 40 orig.pms >shdrcut.pms
ph /dev/null -b orig.pme shdrcut.pms
check "cut in SHDR" 1 "pmehisto: 'shdrcut.pms': offset 0x10: cut short before its header chunk: it holds no samples"
ph hdr.pms -b orig.pme -
check "header only, standard input" 1 "pmehisto: '-': offset 0x10: cut short before its header chunk: it holds no samples"

finish
