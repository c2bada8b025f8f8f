#!/bin/bash
#
# wrong_kind.sh - a file of one kind given where another goes (issue 12):
# each program says, in one line naming the file, what it is and what it
# should have been, in words (a sample file (.PMS), a bucket file (.PME)),
# and where to give it instead; nothing is written.  The inputs are
# tests/fixtures/bombs/orig.pme and orig.pms.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
v=${PME_VALGRIND:-}
stats=$top/stats/stats
need "$pmebuild" "$pmehisto" "$pmetrace" "$stats"

# expect WHAT STATUS TEXT COMMAND...: COMMAND exits STATUS, its standard
# error is exactly TEXT.
expect() {
	local what=$1 want=$2 text=$3 got
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	got=$?
	[ "$got" = "$want" ] ||
	    fail "$what: exit status $got, not $want: $(head -c 500 "$tmp/err")"
	[ "$(cat "$tmp/err")" = "$text" ] ||
	    fail "$what: stderr is '$(head -c 500 "$tmp/err")', not '$text'"
}

cd "$tmp" || exit 1
cp "$top/tests/fixtures/bombs/orig.pme" x.pme
cp "$top/tests/fixtures/bombs/orig.pms" x.pms
cp x.pms x.pmd

expect "pmehisto -b sample" 1 "pmehisto: 'x.pms' is a sample file (.PMS), not a bucket file (.PME); give it as a sample file operand, and a bucket file with -b" \
    $v "$pmehisto" -T none -o h.his -b x.pms x.pms
expect "pmehisto bucket operand" 1 "pmehisto: 'x.pme' is a bucket file (.PME), not a sample file (.PMS); give it with -b (and -t if pmetrace filled it), and sample files as operands" \
    $v "$pmehisto" -T none -o h.his -b x.pme x.pme
[ -e h.his ] && fail "pmehisto wrote a histogram"
expect "pmetrace -b sample" 1 "pmetrace: 'x.pms' is a sample file (.PMS), not a bucket file (.PME); -b takes a bucket file pmebuild made (sample files are for pmehisto)" \
    $v "$pmetrace" -b x.pms -o t.pme true
[ -e t.pme ] && fail "pmetrace wrote a bucket file"
expect "stats -f bucket" 1 "stats: 'x.pme' is a bucket file (.PME), not an event file nor a sample file (.PMS); give it with -B, and an event file or a sample file with -f" \
    $v "$stats" -T text -f x.pme
expect "stats -B sample" 1 "stats: 'x.pms' is a sample file (.PMS), not a bucket file (.PME); give it with -f, and a bucket file with -B" \
    $v "$stats" -T text -f x.pms -B x.pms
expect "pmebuild bucket input" 1 "pmebuild: 'x.pme' is a bucket file (.PME), not program definition statements (.PMD); pmebuild writes it: give it as the output" \
    $v "$pmebuild" x.pme b.pme
expect "pmebuild sample input" 1 "pmebuild: 'x.pmd' is a sample file (.PMS), not program definition statements (.PMD); pmehisto reads it" \
    $v "$pmebuild" x b.pme
expect "pmebuild sample on stdin" 1 "pmebuild: '<stdin>' is a sample file (.PMS), not program definition statements (.PMD); pmehisto reads it" \
    sh -c "$v \"\$0\" - b.pme <x.pms" "$pmebuild"
cp "$pmetrace" prog.x
expect "pmebuild program input" 1 "pmebuild: 'prog.x' is a program, not program definition statements (.PMD); pmebuild -x prog.x makes a bucket per routine of it" \
    $v "$pmebuild" prog.x b.pme
[ -e b.pme ] && fail "pmebuild wrote a bucket file"

finish
