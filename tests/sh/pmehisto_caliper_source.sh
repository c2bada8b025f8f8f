#!/bin/bash
#
# pmehisto_caliper_source.sh - -V caliper shows the text of source files
# under the compilation directory (DW_AT_comp_dir) and the -I directories
# only: a line table may name any file (#line "/etc/passwd", the probe's
# leak.c), and pmehisto must not print it.  A program built here in
# src/ names, by #line, a file outside src/ by its absolute name, one by
# a relative name that leaves src/ ("../"), and one by a name in src/
# that is a symbolic link to a file outside; each file holds a marker.
#
# Checks, on one sample file of it running (each loop is many samples,
# whatever the load): without -I no marker is printed, each of the
# three rows says "(source not shown: NAME)" and standard error says so
# once per file, naming it; the statement of src/main.c itself shows its
# text; with -I naming the outside directory the three markers are
# shown and nothing is said; -q keeps the notices quiet; -I without
# -V caliper is a usage error.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$pmeclock" "$pmehisto"
command -v gcc >/dev/null || skip "no gcc to build the fixture"
cd "$tmp" || exit 1
mkdir src out || exit 1
for k in 1 2 3; do
	for l in 1 2 3 4; do
		echo "MARKER$k line $l"
	done >out/secret$k.txt
done
ln -s ../out/secret3.txt src/link.txt
cat >src/main.c <<EOF
volatile unsigned long s;
int main(void) {
	for (long i = 0; i < 200000000L; i++) s += i * 7; /* main.c's own */
#line 2 "$tmp/out/secret1.txt"
for (long i = 0; i < 200000000L; i++) s += i;
#line 2 "../out/secret2.txt"
for (long i = 0; i < 200000000L; i++) s += i * 3;
#line 2 "link.txt"
for (long i = 0; i < 200000000L; i++) s += i * 5;
return 0;
}
EOF
(cd src && gcc -g -O1 -o prog main.c) || { fail "cannot build the fixture"; finish; }
"$pmeclock" -q -o prog.PMS -- src/prog || { fail "pmeclock failed"; finish; }

line() {
	$PME_VALGRIND "$pmehisto" -c -V caliper:line -T text -o /dev/null \
	    "$@" prog.PMS
}
line >plain 2>err || fail "-V caliper:line failed: $(cat err)"
if grep -q MARKER plain; then
	fail "a file outside the compilation directory shown: $(grep MARKER plain)"
fi
for f in "$tmp/out/secret1.txt" ../out/secret2.txt link.txt; do
	grep -qF ">(source not shown: $f)" plain ||
	    fail "no row says '$f' is not shown: $(cat plain)"
	[ "$(grep -cF "pmehisto: '$f': source not shown: not under the compilation directory of '$tmp/src/prog' (-I DIR shows the files under DIR)" err)" = 1 ] ||
	    fail "no one notice names '$f': $(cat err)"
done
[ "$(grep -c . err)" = 3 ] || fail "more than three notices: $(cat err)"
grep -qF '>for (long i = 0; i < 200000000L; i++) s += i * 7; /* main.c'"'"'s own */' \
    plain || fail "main.c's own statement is not shown: $(cat plain)"

line -I "$tmp/out" >allowed 2>err || fail "-I failed: $(cat err)"
for k in 1 2 3; do
	grep -q ">MARKER$k line 2\$" allowed ||
	    fail "-I: secret$k.txt's line 2 not shown: $(cat allowed)"
done
[ ! -s err ] || fail "-I: notices: $(cat err)"

line -q >quiet 2>err || fail "-q failed: $(cat err)"
[ ! -s err ] || fail "-q: notices: $(cat err)"
cmp -s plain quiet || fail "-q changed the text"

$PME_VALGRIND "$pmehisto" -I out -T text -o /dev/null prog.PMS >/dev/null \
    2>err
rc=$?
[ $rc = 2 ] || fail "-I without -V caliper: exit $rc, not 2: $(cat err)"
grep -q "^pmehisto: -I: source directories are for -V caliper$" err ||
    fail "-I without -V caliper: $(cat err)"
finish
