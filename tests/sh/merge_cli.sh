#!/bin/bash
#
# merge_cli.sh - pmemerge's sums, exactly: every bucket's count and second
# count, runs, total, lost, unmapped and the outside counts of load
# modules the inputs added (matched by path, in the order they first
# appear); associativity, byte for byte (sum(sum(a,b),c), sum(a,sum(b,c))
# and sum(a,b,c) are the same file); the inputs from lists (-@ file, -@ -)
# and standard input; and every refusal: another layout, build-id,
# measure or second count, a sample file (files of one kind: the first's,
# merge_pms.sh), a missing or truncated file,
# each naming the file, exit 1 and the output left as it was; a period
# other than the first's warned of; usage errors exit 2.  The bucket files
# are made by tests/fixtures/merge/mkbf.c through libpme.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

pmemerge=$top/histo/pmemerge
need "$pmemerge" "$tsample"
command -v cc >/dev/null || skip "no C compiler for mkbf.c"
libs=$(sed -n 's/^LIBS = //p' "$top/config.mk")
# A sanitized libpme.a (build.sh's second run) wants its runtime.
sanitize=$(sed -n 's/^SANITIZE_FLAGS = *//p' "$top/config.mk" 2>/dev/null)
cc -std=c11 -D_GNU_SOURCE $sanitize -I"$top/lib" -o "$tmp/mkbf" \
    "$top/tests/fixtures/merge/mkbf.c" "$top/lib/libpme.a" $libs ||
    { fail "cannot build mkbf"; finish; }
mkbf=$tmp/mkbf

pm() {	# runs pmemerge; its stderr in err, status in rc
	$PME_VALGRIND "$pmemerge" "$@" >out 2>err
	rc=$?
}

expect() {	# STATUS WHAT
	[ "$rc" = "$1" ] || { fail "$2: exit status $rc, not $1:"; cat err >&2; }
}

errsays() {	# TEXT WHAT: stderr is exactly TEXT
	[ "$(cat err)" = "$1" ] ||
	    { fail "$2: stderr is not '$1':"; cat err >&2; }
}

cd "$tmp" || exit 1
$mkbf -s 1 -2 calls -x /lib/libc.so.6=7 a.pme &&
    $mkbf -s 2 -2 calls -x /lib/libm.so.6=3 -x /lib/libc.so.6=5 b.pme &&
    $mkbf -s 3 -2 calls -r 2 -x /lib/libz.so.1=1 -x /lib/libm.so.6=4 c.pme ||
    { fail "mkbf failed"; finish; }

# --- the sum -------------------------------------------------------------------

pm -o abc.pme a.pme b.pme c.pme
expect 0 "a+b+c"
[ -s out ] && fail "a+b+c: wrote to standard output"
[ -s err ] && { fail "a+b+c: said something:"; cat err >&2; }
for f in a b c abc; do
	$mkbf -d $f.pme >$f.dump || fail "cannot read $f.pme"
done
# Each bucket's two counts, summed.
paste -d' ' <(grep -E '^[0-9]' a.dump) <(grep -E '^[0-9]' b.dump) \
    <(grep -E '^[0-9]' c.dump) |
    awk '{ print $1 + $3 + $5, $2 + $4 + $6 }' >want.buckets
grep -E '^[0-9]' abc.dump >got.buckets
[ "$(wc -l <want.buckets)" = 100 ] || fail "mkbf: not 100 buckets"
cmp -s want.buckets got.buckets ||
    { fail "a+b+c: the bucket counts are not the sums:"; diff want.buckets got.buckets | head >&2; }
total=$(awk '$1 == "measure" { t += $8 } END { print t }' a.dump b.dump c.dump)
cat >want.head <<EOF
measure 1 period 10000000 runs 4 total $total lost 6 unmapped 12
module /bin/prog outside 0
module /lib/libc.so.6 outside 12
module /lib/libm.so.6 outside 7
module /lib/libz.so.1 outside 1
counts2 calls
EOF
grep -vE '^[0-9]' abc.dump >got.head
diff -u want.head got.head >&2 || fail "a+b+c: header or outside counts"

# --- associativity and the ways to name the inputs -----------------------------

pm -o ab.pme a.pme b.pme && pm -o ab_c.pme ab.pme c.pme &&
    pm -o bc.pme b.pme c.pme && pm -o a_bc.pme a.pme bc.pme
expect 0 "the trees"
cmp ab_c.pme abc.pme || fail "sum(sum(a,b),c) is not sum(a,b,c)"
cmp a_bc.pme abc.pme || fail "sum(a,sum(b,c)) is not sum(a,b,c)"
printf 'a.pme\n\nb.pme\nc.pme\n' >list
pm -o list.pme -@ list
expect 0 "-@ list"
cmp list.pme abc.pme || fail "-@ list: not the sum"
pm -o stdin.pme -@ - <list
expect 0 "-@ -"
cmp stdin.pme abc.pme || fail "-@ -: not the sum"
pm -o mixed.pme a.pme - -@ <(echo c.pme) <b.pme
expect 0 "- and -@"
cmp mixed.pme abc.pme || fail "a, - (b) and -@ (c): not the sum"
# Without an extension, .PME is added; one input is written as read.
cp a.pme one.PME
pm -v -o single one
expect 0 "one input"
cmp single.PME a.pme || fail "one input: not the same bytes"
errsays "pmemerge: wrote 'single.PME' (1 file, 1 run, total $(awk '{ print $8; exit }' a.dump))" "-v"
pm -o - a.pme b.pme c.pme
expect 0 "-o -"
cmp out abc.pme || fail "-o -: not the sum on standard output"

# --- a period other than the first's ---------------------------------------------

$mkbf -s 4 -2 calls -p 1000000 p1.pme && $mkbf -s 5 -2 calls -p 2000000 p2.pme
pm -o p.pme a.pme p1.pme b.pme p2.pme
expect 0 "periods"
errsays "pmemerge: 'p1.pme': sampled every 1 ms, 'a.pme' every 10 ms: the sum says 10 ms
pmemerge: 1 more files sampled at other intervals than 'a.pme'" "periods"
grep -q '^measure 1 period 10000000 runs 4 ' <($mkbf -d p.pme) ||
    fail "periods: not the first's period"
pm -q -o p.pme a.pme p1.pme
[ -s err ] && { fail "-q: still warned:"; cat err >&2; }

# --- refusals: exit 1, the file named, the output as it was ----------------------

cp abc.pme keep.pme
refused() {	# WHAT MESSAGE ARGS...: pmemerge -o keep.pme ARGS is refused
	local what=$1 msg=$2
	shift 2
	pm -o keep.pme "$@"
	expect 1 "$what"
	errsays "$msg" "$what"
	cmp -s keep.pme abc.pme || fail "$what: the output was changed"
	ls -a | grep -q '^\.keep\.pme\.' && fail "$what: a temporary file is left"
}
$mkbf -s 1 -2 calls -b 101 big.pme
refused "layout" "pmemerge: 'big.pme': cannot be added to 'a.pme': the bucket files differ in their units" \
    a.pme b.pme big.pme
$mkbf -s 1 -2 calls -i 0xcd other.pme
refused "build-id" "pmemerge: 'other.pme': cannot be added to 'a.pme': the bucket files differ in their load modules" \
    a.pme other.pme
$mkbf -s 1 -2 calls -m 2 instr.pme
refused "measure" "pmemerge: 'instr.pme': cannot be added to 'a.pme': the bucket files count different things" \
    a.pme instr.pme
$mkbf -s 1 -2 insns insns.pme
refused "second counts" "pmemerge: 'insns.pme': cannot be added to 'a.pme': the bucket files differ in their second counts" \
    a.pme insns.pme
$mkbf -s 1 nocalls.pme
refused "no second counts" "pmemerge: 'nocalls.pme': cannot be added to 'a.pme': the bucket files differ in their second counts" \
    a.pme nocalls.pme
"$tsample" write s.pms <"$top/tests/histo/gravel.smp" || exit 1
refused "sample file" "pmemerge: 's.pms' is a sample file (.PMS), not a bucket file (.PME); the inputs of a merge are of one kind, the first input's" \
    a.pme s.pms
refused "missing" "pmemerge: 'nosuch.PME': cannot open: No such file or directory" \
    a.pme nosuch
head -c 300 b.pme >cut.pme
pm -o keep.pme a.pme cut.pme
expect 1 "truncated"
grep -q "^pmemerge: 'cut.pme': " err && [ "$(wc -l <err)" = 1 ] ||
    { fail "truncated: not one message naming cut.pme:"; cat err >&2; }
cmp -s keep.pme abc.pme || fail "truncated: the output was changed"
refused "list" "pmemerge: 'nolist': cannot open: No such file or directory" \
    a.pme -@ nolist
refused "empty list" "pmemerge: no input: the lists name no file" -@ /dev/null

# --- usage ------------------------------------------------------------------------

pm a.pme b.pme
expect 2 "no -o"
grep -q "^pmemerge: no output: -o names it$" err || fail "no -o: message"
grep -q "^usage: pmemerge " err || fail "no -o: usage"
pm -o x.pme
expect 2 "no input"
pm -o x.pme - -@ - </dev/null
expect 2 "standard input twice"
grep -q "^pmemerge: standard input given twice$" err ||
    fail "standard input twice: message"
pm -k
expect 2 "unknown option"
[ -e x.pme ] && fail "usage errors: x.pme written"
pm --help
expect 0 "--help"
grep -q "^usage: pmemerge \[-qv\] \[-@ list\] -o output \[file ...\]$" out ||
    fail "--help: usage line"

finish
