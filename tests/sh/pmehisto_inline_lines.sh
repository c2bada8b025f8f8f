#!/bin/bash
#
# pmehisto_inline_lines.sh - with --inline, a line of an inlined function
# is shown under the function whose source it is (issue 28): the line
# views name the innermost function inlined at its addresses, as
# addr2line -i -f names it first.  tests/fixtures/inline/inl.c built -O2
# -g (inner() inlined into middle() into outer() into work(), side() into
# outer()) is sampled by pmeclock -g at 4 kHz for a second; then
#
#   -V caliper --inline -T csv: the statement rows of the program (line,
#       function, samples) equal, exactly, the samples of its instruction
#       rows summed by what addr2line -i -f -e inl ADDR prints first for
#       each address (its function and file:line); without --inline the
#       same lines are work()'s;
#   -V spy --inline: under each highly active procedure, each pc's line
#       "(0xADDR inl.c:N)" is what addr2line -i -f gives ADDR, and the
#       procedure is its function: inner's and side's pcs have their
#       lines (they had none before: the Spy looked the lines up in the
#       inlined function's frame, which has no module);
#   the line histogram (pmebuild -x -b line) with --inline: each LINE
#       row with samples is named "inl.c:N FUNCTION", FUNCTION the one
#       addr2line -i -f gives at its first address;
#   perf record --call-graph dwarf and perf script --inline of the same
#       program: every address both sampled is in the same function and
#       line in pme's Spy as in perf's first (innermost) frame.
#
# The perf part is skipped where perf is missing or cannot record.
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"
. "$top/tests/sh/lib/unwind.sh"

need_unwinding
command -v addr2line >/dev/null || skip "no addr2line (binutils)"

$cc -O2 -g -fomit-frame-pointer -o inl "$top/tests/fixtures/inline/inl.c" \
    >build.log 2>&1 || { fail "cannot build inl: $(cat build.log)"; finish; }
run 0 "pmeclock -g" -g -F 4000 -o inl -- ./inl 1000

# a2l ADDR...: "ADDR FUNCTION FILE:LINE" per address, addr2line -i -f's
# first (innermost) function and line, the file's base name, without a
# discriminator.
a2l() {
	local a
	for a in "$@"; do
		addr2line -i -f -e inl "$a" | head -n 2 | tr '\n' ' ' |
		    awk -v a="$a" '{ sub(/.*\//, "", $2); print a, $1, $2 }'
	done
}

# Caliper: the statements against the instructions through addr2line.
# shellcheck disable=SC2086 # PME_VALGRIND may be a command
${PME_VALGRIND:-} "$pmehisto" -q -V caliper --inline -T csv -o /dev/null \
    inl.PMS >cal.csv 2>err || { fail "-V caliper --inline -T csv: $(cat err)"; finish; }
exe=$tmp/inl
awk -F, -v exe="$exe" '$1 == "instruction" && $7 == exe { print $11, $2 }' \
    cal.csv >insns
[ -s insns ] || { fail "no instruction rows of inl: $(head cal.csv)"; finish; }
# shellcheck disable=SC2046 # one word per address
a2l $(awk '{ print $1 }' insns) >a2l.txt
awk 'FNR == NR { fn[$1] = $2; ln[$1] = $3; next }
    { n[ln[$1] " " fn[$1]] += $2 }
    END { for (k in n) print k, n[k] }' a2l.txt insns | sort >want.lines
awk -F, -v exe="$exe" '$1 == "line" && $7 == exe {
	f = $9; sub(/.*\//, "", f); print f ":" $10, $8, $2 }' cal.csv |
    sort >got.lines
cmp -s got.lines want.lines ||
    fail "caliper statements (line function samples), pme then addr2line:
$(cat got.lines)
--
$(cat want.lines)"
grep -q ' inner [0-9]*$' got.lines && grep -q ' side [0-9]*$' got.lines ||
    fail "no statement of inner or side: $(cat got.lines)"
"$pmehisto" -q -V caliper:line -T csv -o /dev/null inl.PMS >plain.csv ||
    fail "-V caliper:line without --inline failed"
awk -F, '$1 == "line" && $8 ~ /^(inner|middle|outer|side)$/' plain.csv |
    grep -q . && fail "without --inline, a statement is an inlined function's"
"$pmehisto" -q -V caliper --inline -I "$top/tests" -o - inl.PMS >cal.txt ||
    fail "-V caliper --inline failed"
grep -Eq '^ +[0-9.]+ +[0-9]+ +~?2[23]  \*?>\[inner\] ' cal.txt ||
    fail "the function details do not mark inner's statements: $(cat cal.txt)"

# The Spy: each pc's line and procedure against addr2line.
# shellcheck disable=SC2086 # PME_VALGRIND may be a command
${PME_VALGRIND:-} "$pmehisto" -q -x -V spy --inline -o - inl.PMS >spy \
    2>err ||
    fail "-V spy --inline: $(cat err)"
sed -n '/^Breakdown of highly active/,$p' spy | awk '
	/^[^ ~]/ { proc = $1 }
	/^   \(0x/ { a = $1; sub(/^\(/, "", a); l = $2; sub(/\)$/, "", l)
		if ($2 ~ /^=/) l = "-"
		print a, proc, l }' >spy.pcs
grep -Eq ' (inner|side) inl\.c:[0-9]+$' spy.pcs ||
    fail "the Spy's inlined procedures have no lines: $(cat spy.pcs)"
# shellcheck disable=SC2046 # one word per address
a2l $(awk '{ print $1 }' spy.pcs) >spy.a2l
awk 'FNR == NR { fn[$1] = $2; ln[$1] = $3; next }
    fn[$1] != "" && ($2 != fn[$1] || $3 != ln[$1]) {
	print $1 ": " $2 " " $3 ", addr2line " fn[$1] " " ln[$1] }' \
    spy.a2l spy.pcs >msg
[ -s msg ] && fail "the Spy's pcs: $(head -5 msg)"

# The line histogram: each LINE row's function at its first address.
"$pmebuild" -q -x ./inl -b line -o line.PME ||
    { fail "pmebuild -x -b line failed"; finish; }
# shellcheck disable=SC2086 # PME_VALGRIND may be a command
${PME_VALGRIND:-} "$pmehisto" -q -b line.PME -B lf.PME --inline -C 0 \
    -T csv -o /dev/null inl.PMS >hist.csv 2>err || fail "histogram --inline: $(cat err)"
awk -F, 'NR > 1 && $7 > 0 && $11 ~ /\/inl$/ { print $5, $2 }' hist.csv \
    >hist.rows
[ -s hist.rows ] || fail "no LINE rows with samples: $(head hist.csv)"
while read -r start unit; do
	want=$(a2l "$start" | awk '{ print $3 " " $2 }')
	case $want in
	"??"*) ;;
	"$unit") ;;
	*) fail "histogram row '$unit' at $start: addr2line says '$want'" ;;
	esac
done <hist.rows
grep -q 'inl\.c:2[23] inner$' hist.rows ||
    fail "no histogram row of inner's lines: $(cat hist.rows)"

# perf on the same program: the innermost frame's function and line.
command -v perf >/dev/null 2>&1 || { echo "perf part skipped: no perf"; finish; }
if ! perf record -q -e cpu-clock -c 250000 --call-graph dwarf \
    -o inl.data -- ./inl 1000 >perf.err 2>&1 ||
    ! perf script --inline -F ip,sym,srcline -i inl.data >perf.txt \
    2>perf.err; then
	echo "perf part skipped: $(head -n 1 perf.err)"
	finish
fi
# The first frame of each sample: ip, function, file:line.
awk 'BEGIN { first = 1 }
    /^$/ { first = 1; next }
    first && /^[ \t]+[0-9a-f]+ / { ip = $1; fn = $2; getline
	sub(/^ +/, ""); print "0x" ip, fn, $1; first = 0 }' perf.txt |
    sort -u >perf.first
awk 'FNR == NR { p[$1] = $2 " " $3; next }
    ($1 in p) { n++; if (p[$1] != $2 " " $3)
	print $1 ": pme " $2 " " $3 ", perf " p[$1] }
    END { if (n == 0) print "no address sampled by both" }' \
    perf.first spy.pcs >msg
[ -s msg ] && fail "against perf script --inline: $(head -5 msg)"
finish
