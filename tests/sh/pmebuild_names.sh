#!/bin/bash
#
# pmebuild_names.sh - the names pmebuild gives what it reads from an ELF
# image: LINE units are "file:line" (the file's base name, its path when
# two files of the module share a base name), checked against readelf's
# decoded line table; a .PMD names a line of the module's own file by
# "main.c:10" or by its bare number, as before.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
dumper=$top/tests/unit/t_pmebuild
fx=$top/tests/fixtures/names

for t in gcc readelf; do
	command -v $t >/dev/null || skip "no $t"
done
need "$pmebuild" "$dumper"
cd "$tmp" || exit 1
dump() { "$dumper" dump "$1" | awk '$1 != "unit"'; }

# LINE names against the peer: for every range, the file (base name)
# and line of readelf's last row at its start address.
gcc -g -O2 -I"$fx" -o lines "$fx/lines.c" || fail "cannot build lines.c"
expect "-b line" 0 $pmebuild -q -x lines -b line -o lines.pme
readelf --debug-dump=decodedline lines | awk '$3 ~ /^0x/ {
	a = $3; sub(/^0x0*/, "", a); name[a] = $1 ":" $2 }
	END { for (a in name) print a, name[a] }' | sort >peer
dump lines.pme | awk '$2 == "LINE" { n = $3; sub(/.*\//, "", n);
	print $4, n }' | sort >got
[ -s got ] || fail "-b line: no LINE buckets"
join got peer | awk '$2 != $3' >diff
[ -s diff ] && fail "LINE names differ from readelf's rows: $(head -3 diff)"
[ "$(join got peer | wc -l)" = "$(wc -l <got)" ] ||
    fail "LINE ranges start where readelf has no row: $(join -v1 got peer)"
dump lines.pme | awk '$2 == "LINE" && $3 !~ /:[0-9]+$/' >bare
[ -s bare ] && fail "LINE names without a file: $(head -3 bare)"
# x/util.h and y/util.h share a base name: their paths tell them apart.
for n in lines.c:11 x/util.h:7 y/util.h:5; do
	dump lines.pme | awk -v n="$n" '$3 == n { f = 1 } END { exit !f }' ||
	    fail "-b line: no unit '$n': $(dump lines.pme | cut -d' ' -f3 |
	    sort -u | tr '\n' ' ')"
done

# A .PMD names a line by "file:line", or by its number alone when the
# line is of the module's own file; a number never names a header's.
pmd() {		# SAMPLING-STATEMENT
	printf '%s\n' 'DEFINE UNITS: PROGRAM, MODULE, ROUTINE, LINE' \
	    'PROGRAM P' 'DEFINE OPTIONS: LINES' 'DEFINE ADDRESSES: EXE "lines"' \
	    'DEFINE SAMPLING' "$1" END
}
pmd 'LINE "lines.c:11" IN main' >file.pmd
pmd 'LINE 11 IN main' >bare.pmd
expect "LINE \"lines.c:11\"" 0 $pmebuild -o file.pme file.pmd
expect "LINE 11" 0 $pmebuild -o bare.pme bare.pmd
dump file.pme >file.dump
dump bare.pme >bare.dump
[ -s file.dump ] && cmp -s file.dump bare.dump ||
    fail "LINE 11 and LINE \"lines.c:11\" differ: $(cat file.dump bare.dump)"
awk '$3 != "lines.c:11"' file.dump | grep . &&
    fail "LINE \"lines.c:11\": other buckets"
pmd 'LINE "x/util.h:7" IN main' >hdr.pmd
expect "LINE \"x/util.h:7\"" 0 $pmebuild -o hdr.pme hdr.pmd
pmd 'LINE 6 IN main' >six.pmd
expect "LINE 6 (a header's line)" 1 $pmebuild -o six.pme six.pmd
grep -q "LINE '6' IN main is not declared" "$tmp/err" ||
    fail "LINE 6: $(cat "$tmp/err")"

finish
