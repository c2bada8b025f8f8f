#!/bin/bash
#
# pmehisto_caliper_golden.sh - the layout of pmehisto -V caliper, exactly,
# on deterministic input: the committed program tests/fixtures/caliper/cal
# (built from cal.c by the command there) and the samples cal.smp that
# t_sample writes into a sample file (threads 500 and 501, a library
# that is not there, the kernel).  Each case's output, with the test's
# directory written @DIR@, must equal tests/fixtures/caliper/NAME.his
# (NAME.csv), and its standard error NAME.err (no file: empty):
#
#   caliper      -V caliper: every summary and the function details
#   csv          -V caliper -T csv: every level's rows
#   insn         -V caliper:instruction -C 10: a cutoff's summed line
#   function     -V caliper:function -t on the bucket file the samples
#                fill (pmehisto -x -B): trace input's ROUTINE units
#   nosource     -V caliper:line from another directory: cal's comp_dir
#                is ".", so its source is not found there
#   tracelines   -V caliper -t on the bucket file of cal's lines
#                (pmebuild -x -b line) the samples fill: statements
#                with their functions (the LINE units' ROUTINE parents)
#                and text, the functions' counts their lines'
#   runs         -V caliper:thread -T csv of two sample files: each
#                run's ids told apart, "(run N)"
#   narrow       -V caliper:function of cal under a name of 120
#                characters: its Load Module column is cut to fit the
#                text's 132 columns, with a '~'
#
# The expected instruction texts are capstone's: without it (configure
# found none) the test is skipped.  PME_REGEN=1 writes the expected files.
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
fx=$top/tests/fixtures/caliper

need "$tsample" "$pmehisto" "$pmebuild"
grep -q '^CAPSTONE_LIBS = .' "$top/config.mk" ||
    skip "pmehisto is built without capstone: no disassembly to compare"
. "$top/tests/sh/lib/golden.sh"

cd "$tmp" || exit 1
cp "$fx/cal" "$fx/cal.c" . || exit 1
sed "s|@DIR@|$tmp|" "$fx/cal.smp" | "$tsample" write cal.PMS >/dev/null ||
    { fail "t_sample write failed"; finish; }

# check NAME EXT COMMAND...: COMMAND's output against NAME.EXT.
check() {
	local case=$1 ext=$2
	shift 2
	$PME_VALGRIND "$@" >out 2>err
	local rc=$?
	[ $rc = 0 ] || fail "$case: exit status $rc: $(cat err)"
	sed "s|$tmp|@DIR@|g" out >"$case.$ext"
	sed "s|$tmp|@DIR@|g" err >"$case.err"
	same "$fx/$case.$ext" "$case.$ext" "$case"
	same "$fx/$case.err" "$case.err" "$case: standard error"
}

check caliper his "$pmehisto" -V caliper -o caliper.HIS cal.PMS
cmp -s out caliper.HIS || fail "caliper: standard output is not the .HIS text"
check csv csv "$pmehisto" -V caliper -T csv -o /dev/null cal.PMS
check insn his "$pmehisto" -V caliper:instruction -C 10 -o - cal.PMS
check runs csv "$pmehisto" -V caliper:thread -T csv -o /dev/null cal.PMS \
    cal.PMS
"$pmehisto" -q -x -B filled.PME -T none -o /dev/null cal.PMS ||
    fail "pmehisto -x -B failed"
check function his "$pmehisto" -t -b filled.PME -V caliper:function -o -
"$pmebuild" -q -x ./cal -b line -o line.PME &&
    "$pmehisto" -q -b line.PME -B linefilled.PME -T none -o /dev/null \
    cal.PMS || fail "pmebuild -x -b line, pmehisto -B failed"
check tracelines his "$pmehisto" -t -b linefilled.PME -V caliper -o -
long=cal-under-a-name-long-enough-to-be-cut-in-the-function-summary
long=$long-so-that-the-row-fits-the-page.so
cp cal "$long" || exit 1
sed "s|@DIR@/cal|$tmp/$long|" "$fx/cal.smp" | "$tsample" write long.PMS \
    >/dev/null || { fail "t_sample write failed"; finish; }
check narrow his "$pmehisto" -q -V caliper:function -o - long.PMS
# Bad input and output: said, naming the file; a file cut short is
# shown as far as it goes, with a warning.
head -c 600 cal.PMS >cut.PMS
expect "a cut file" 0 "$pmehisto" -V caliper:module -o - cut.PMS
grep -q "^pmehisto: 'cut.PMS': cut short (no closing record): [0-9]* bytes after the last whole chunk lost; the view shows the [0-9]* samples read$" \
    "$tmp/err" || fail "a cut file: $(cat "$tmp/err")"
echo junk >junk.PMS
expect "not a sample file" 1 "$pmehisto" -V caliper junk.PMS
grep -q "^pmehisto: 'junk.PMS': offset 0x0: not a pme file$" "$tmp/err" ||
    fail "not a sample file: $(cat "$tmp/err")"
expect "an unwritable histogram file" 1 "$pmehisto" -V caliper \
    -o "$tmp/no/such/dir/x.HIS" cal.PMS
grep -q "^pmehisto: '$tmp/no/such/dir/x.HIS': cannot create: No such file or directory$" \
    "$tmp/err" || fail "an unwritable histogram file: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && fail "an unwritable histogram file: the view was shown"
expect "-V caliper -T ps" 2 "$pmehisto" -V caliper -T ps cal.PMS
# -V histogram is the default report; --version is still the version.
"$pmehisto" -q -x -o a.HIS -T none cal.PMS &&
    "$pmehisto" -q -x -V histogram -o b.HIS -T none cal.PMS &&
    cmp -s a.HIS b.HIS || fail "-V histogram is not the default report"
expect "--version" 0 "$pmehisto" --version
grep -q "^pmehisto (pme) " "$tmp/out" || fail "--version: $(cat "$tmp/out")"

mkdir elsewhere && cd elsewhere || exit 1
check nosource his "$pmehisto" -q -V caliper:line -o - ../cal.PMS
finish
