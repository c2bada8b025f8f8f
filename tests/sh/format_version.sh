#!/bin/bash
#
# format_version - a bucket, sample or event file of a format version this
# pme does not read (its header's major version changed, CRC made good) is
# refused by every program that reads it with a message that names the
# file, the offset of the version, the version found, the one read, and
# for a newer file what to do; exit status 1, nothing written.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$tsample"
cd "$tmp" || exit 1
cp "$top/tests/histo/gravel.pmd" g.pmd
"$pmebuild" -q -o g.PME g.pmd >/dev/null || { fail "pmebuild"; finish; }
"$tsample" write g.PMS <"$top/tests/histo/gravel.smp" || exit 1

# bump IN OUT MAJOR: IN with its major version set to MAJOR, CRC redone.
bump() {
	python3 - "$1" "$2" "$3" <<'PY'
import struct, sys, zlib
d = bytearray(open(sys.argv[1], 'rb').read())
d[8:10] = struct.pack('<H', int(sys.argv[3]))
d[12:16] = struct.pack('<I', zlib.crc32(bytes(d[:12])))
open(sys.argv[2], 'wb').write(d)
PY
}
command -v python3 >/dev/null || skip "no python3"
bump g.PME new.PME 9
bump g.PMS new.PMS 9
bump g.PME old.PME 0

# refused WHAT FILE WORD COMMAND...: status 1, the message, no output.
refused() {
	local what=$1 file=$2 word=$3
	shift 3
	rm -f out.HIS out.PME
	"$@" >out 2>err </dev/null
	local st=$?
	[ $st = 1 ] || fail "$what: exit status $st, not 1"
	grep -q "'$file': offset 0x8: format version [09]\.[0-9]*, $word than this pme reads (1\.x)" err ||
	    fail "$what: message: $(cat err)"
	if [ "$word" = newer ]; then
		grep -q "read it with the pme that wrote it, or a newer one" err ||
		    fail "$what: no advice: $(cat err)"
	fi
	[ ! -e out.HIS ] && [ ! -e out.PME ] || fail "$what: wrote an output"
}

refused "pmehisto, bucket file" new.PME newer \
    "$pmehisto" -b new.PME -s g.PMS -T none -o out.HIS
refused "pmehisto, sample file" new.PMS newer \
    "$pmehisto" -b g.PME -s new.PMS -T none -o out.HIS
refused "pmehisto, older bucket file" old.PME older \
    "$pmehisto" -b old.PME -s g.PMS -T none -o out.HIS
[ -x "$top/histo/pmemerge" ] &&
    refused "pmemerge" new.PME newer "$top/histo/pmemerge" -o out.PME \
    g.PME new.PME
finish
