#!/bin/bash
#
# pmebuild_names.sh - the names pmebuild gives what it reads from an ELF
# image: LINE units are "file:line" (the file's base name, its path when
# two files of the module share a base name), checked against readelf's
# decoded line table; a .PMD names a line of the module's own file by
# "main.c:10" or by its bare number, as before; pmehisto's CSV gives
# each bucket's file, line and load module.  C++ routines are named
# as nm -C names them, their mangled symbols (nm's) kept as aliases, and
# a .PMD names them either way; --no-demangle keeps nm's raw names.
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

# pmehisto's CSV of those lines: a sample in the sampled line's bucket,
# whose file and line columns are addr2line's for its address, and the
# program's path as the module.
if command -v addr2line >/dev/null && [ -x "$tsample" ]; then
	a=$(dump lines.pme | awk '$2 == "LINE" && $3 ~ /^x\/util.h:/ {
		print $4; exit }')
	base=0x555555554000
	printf '%s\n' "header method=test event=cpu-clock period=1000000 pid=8 argv=./lines" \
	    "map pid=8 start=$base end=$((base + 0x10000)) offset=0 vaddr=0 path=$PWD/lines flags=exec,main" \
	    "sample pid=8 pc=$((base + 0x$a)) count=5" close |
	    "$tsample" write lines.PMS || fail "cannot write lines.PMS"
	"$pmehisto" -q -c -b lines.pme -B out.pme -T csv -o x.HIS lines.PMS \
	    >lines.csv 2>err || fail "pmehisto -T csv: $(cat err)"
	peer=$(addr2line -e lines "0x$a" | sed 's/ .*//')
	row=$(awk -F, '$7 == 5 { print $9 ":" $10 }' lines.csv)
	[ "$row" = "$peer" ] ||
	    fail "CSV file:line '$row', addr2line says '$peer': $(cat lines.csv)"
	awk -F, -v m="$PWD/lines" 'NR > 1 && $11 != m' lines.csv | grep . &&
	    fail "CSV: rows whose module is not $PWD/lines"
else
	echo "CSV: skipped: no addr2line or t_sample"
fi

# A .PMD names a line by "file:line", or by its number alone when the
# line is of the module's own file; a number never names a header's.
pmd() {		# KINDS EXE SAMPLING-STATEMENT
	printf '%s\n' "DEFINE UNITS: $1" 'PROGRAM P' 'DEFINE OPTIONS: LINES' \
	    "DEFINE ADDRESSES: EXE \"$2\"" 'DEFINE SAMPLING' "$3" END
}
# same KINDS EXE UNIT A B: statements A and B (naming UNIT two ways)
# make the same bucket file, with UNIT's buckets only.
same() {
	pmd "$1" "$2" "$4" >a.pmd
	pmd "$1" "$2" "$5" >b.pmd
	expect "$4" 0 $pmebuild -o a.pme a.pmd
	expect "$5" 0 $pmebuild -o b.pme b.pmd
	dump a.pme >a.dump
	dump b.pme >b.dump
	[ -s a.dump ] && cmp -s a.dump b.dump ||
	    fail "$4 and $5 differ: $(cat a.dump b.dump)"
	awk -v u="$3" '{ $1 = $2 = $NF = $(NF - 1) = $(NF - 2) = "" }
	    $0 != "  " u "   "' a.dump | grep . && fail "$4: other buckets"
}
lk='PROGRAM, MODULE, ROUTINE, LINE'
same "$lk" lines lines.c:11 'LINE "lines.c:11" IN main' 'LINE 11 IN main'
# Reading the image twice finds the line units the first read made.
{ pmd "$lk" lines 'LINE "lines.c:11" IN main' | sed '/^DEFINE ADDRESSES/p'; } >twice.pmd
expect "EXE read twice" 0 $pmebuild -o twice.pme twice.pmd
pmd "$lk" lines 'LINE "x/util.h:7" IN main' >hdr.pmd
expect "LINE \"x/util.h:7\"" 0 $pmebuild -o hdr.pme hdr.pmd
pmd "$lk" lines 'LINE 6 IN main' >six.pmd
expect "LINE 6 (a header's line)" 1 $pmebuild -o six.pme six.pmd
grep -q "LINE '6' IN main is not declared" "$tmp/err" ||
    fail "LINE 6: $(cat "$tmp/err")"

# Demangling needs libiberty (configure's PME_HAVE_DEMANGLE).
grep -q -- '-DPME_HAVE_DEMANGLE' "$top/config.mk" 2>/dev/null || {
	echo "C++ and Rust names: skipped: pme was built without libiberty"
	finish
}

# Rust, both manglings: geo::area as nm -C names it, raw as the alias.
if command -v rustc >/dev/null; then
	for m in legacy v0; do
		# legacy is rustc's default; naming it needs -Z.
		opt=
		[ $m = v0 ] && opt="-C symbol-mangling-version=v0"
		rustc -g -O $opt -o geo-$m "$fx/geo.rs" 2>rustc.err || {
			echo "Rust $m: skipped: rustc fails: $(head -1 rustc.err)"
			continue
		}
		expect "Rust $m -x" 0 $pmebuild -q -x geo-$m -o geo-$m.pme
		peer=$(nm -C geo-$m | awk '$3 ~ /::geo::area$/ { print $3 }')
		raw=$(nm geo-$m | awk '$3 ~ /geo4area/ { print $3 }')
		"$dumper" dump geo-$m.pme | grep -q "^unit ROUTINE $peer .* $raw\$" ||
		    fail "Rust $m: no routine '$peer' alias '$raw'"
	done
else
	echo "Rust: skipped: no rustc"
fi

# C++: each routine's name is one of nm -C's at its entry, its aliases
# the raw names nm prints there.
command -v g++ >/dev/null || { echo "C++: skipped: no g++"; finish; }
g++ -g -O1 -fno-inline -o cxx "$fx/cxx.cc" || fail "cannot build cxx.cc"
expect "C++ -x" 0 $pmebuild -q -x cxx -o cxx.pme
"$dumper" dump cxx.pme | awk '$1 != "unit" && $2 == "ROUTINE" {
	n = $3; for (i = 4; i <= NF - 3; i++) n = n " " $i
	print $(NF - 2) "\t" n }' | sort >cxx.got
grep -q 'geo::area(long, long)' cxx.got ||
    fail "C++: no routine 'geo::area(long, long)': $(cat cxx.got)"
nm -C --defined-only --synthetic cxx | awk '{ a = $1; sub(/^0*/, "", a); $1 = $2 = "";
	sub(/^  /, ""); print a "\t" $0 }' | sort >cxx.peer
awk -F'\t' 'NR == FNR { ok[$0] = 1; next } !($0 in ok)' cxx.peer cxx.got \
    >cxx.bad
[ -s cxx.bad ] && fail "C++ names that nm -C has not there: $(cat cxx.bad)"
if ! "$dumper" dump cxx.pme | grep -q '^unit ROUTINE geo::Point::Point(long) .* _ZN3geo5PointC1El _ZN3geo5PointC2El$'; then
	fail "C++: the constructor's raw names are not its aliases"
fi
expect "--no-demangle" 0 $pmebuild -q --no-demangle -x cxx -o raw.pme
"$dumper" dump raw.pme | awk '$1 != "unit" && $2 == "ROUTINE" {
	print $4, $3 }' | sort >raw.got
nm --defined-only cxx | awk '{ a = $1; sub(/^0*/, "", a); print a, $3 }' |
    sort >raw.peer
join raw.got raw.peer | awk '$2 != $3 { bad[$1] = 1; next } { ok[$1] = 1 }
	END { for (a in bad) if (!(a in ok)) print a }' >raw.bad
[ -s raw.bad ] && fail "--no-demangle: names not nm's: $(cat raw.bad)"
grep -q '_ZN3geo4areaEll' raw.got || fail "--no-demangle: $(cat raw.got)"
# A .PMD names a C++ routine by its demangled or its raw name.
same 'PROGRAM, MODULE, ROUTINE' cxx 'geo::area(long, long)' \
    'ROUTINE "geo::area(long, long)"' 'ROUTINE _ZN3geo4areaEll'

finish
