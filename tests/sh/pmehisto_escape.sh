#!/bin/bash
#
# pmehisto_escape.sh - names from files never reach a terminal or a text
# output raw.  On the probe's esc.pme (a unit name holding ESC ] 0;PWNED
# BEL ESC [2J) and on classes.pmd (a name of each class: valid UTF-8 kept
# as is, C1 controls, bytes that are not UTF-8, DEL, a backslash, a C0
# control, a comma and quotes, a long name cut just before an escape),
# the text display, the .HIS, the CSV and the folded stacks must equal
# the expected files in tests/fixtures/escape exactly, PostScript shows
# the same escaped name, and an error naming a mapping's path from a
# sample file is escaped too.
#
# PME_REGEN=1 writes the expected files instead of comparing.
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
fx=$top/tests/fixtures/escape

need "$tsample"

. "$top/tests/sh/lib/golden.sh"

# No byte of a C0 control but newline and form feed, DEL or a C1 control.
clean() {	# FILE WHAT
	if LC_ALL=C grep -q "$(printf '[\001-\011\013\015-\037\177]')" "$1" ||
	    LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$1"; then
		fail "$2: a control character passed: $(cat -A "$1" | head -c 400)"
	fi
}

# check NAME BUCKETFILE SAMPLEFILE: every text output of one run.
check() {
	local name=$1 bf=$2 pms=$3
	$PME_VALGRIND "$pmehisto" -b "$bf" -B out.PME -o "$name.HIS" -T text \
	    "$pms" >"$name.txt" 2>"$name.err" </dev/null ||
	    fail "$name: pmehisto failed: $(cat -A "$name.err")"
	[ -s "$name.err" ] && fail "$name: messages: $(cat -A "$name.err")"
	same "$fx/$name.his" "$name.HIS" "$name: .HIS"
	cmp -s "$name.HIS" "$name.txt" || fail "$name: -T text is not the .HIS"
	$PME_VALGRIND "$pmehisto" -b "$bf" -B out.PME -o x.HIS -T csv \
	    "$pms" >"$name.csv" 2>/dev/null </dev/null
	same "$fx/$name.csv" "$name.csv" "$name: CSV"
	# A frame in libc, which the bucket file has no module of, is named
	# from libc's symbols where the machine's has the build-id the run
	# recorded (pmehisto(1), Exports), else [libc.so.6]: the expected
	# file has the latter.
	$PME_VALGRIND "$pmehisto" -b "$bf" -B out.PME -o x.HIS \
	    -T folded "$pms" 2>/dev/null </dev/null |
	    sed 's/^__memset_avx2_unaligned_erms 3$/[libc.so.6] 3/' | LC_ALL=C sort \
	    >"$name.folded"
	same "$fx/$name.folded" "$name.folded" "$name: folded"
	for f in "$name.HIS" "$name.csv" "$name.folded"; do
		clean "$f" "$name: $f"
	done
}

cd "$tmp" || exit 1
cp "$fx/esc.pme" "$fx/orig.pms" .
check esc esc.pme orig.pms
grep -qF '\x1b]0;PWNED\x07\x1b[2J  | 0 - 64' esc.HIS ||
    fail "esc: the name is not escaped, or its column is not as wide"
# PostScript shows the same escaped name (its string syntax doubles the
# backslashes).
"$pmehisto" -b esc.pme -B out.PME -o x.HIS -T ps orig.pms >esc.ps \
    2>/dev/null </dev/null
grep -qF '(\\x1b]0;PWNED\\x07\\x1b[2J) show' esc.ps ||
    fail "esc: PostScript does not show the escaped name"
clean esc.ps "esc: PostScript"

cp "$fx/classes.pmd" .
"$pmebuild" -q -o classes.PME classes.pmd </dev/null ||
    { fail "pmebuild classes.pmd failed"; exit 1; }
"$tsample" write classes.PMS <"$fx/classes.smp" || exit 1
check classes classes.PME classes.PMS
# Valid UTF-8 is kept, and counts one column a character.
grep -Eq "^Größe_日本 {66}\| 0 - FF  \|" classes.HIS ||
    fail "classes: the UTF-8 name is not kept, or not padded by characters"

# A mapping's path from a sample file, in an error message.
"$tsample" write badpath.PMS <"$fx/badpath.smp" || exit 1
$PME_VALGRIND "$pmehisto" -x -o x.HIS -T none badpath.PMS \
    >/dev/null 2>badpath.err </dev/null
[ $? = 1 ] || fail "badpath: not an error"
same "$fx/badpath.err" badpath.err "badpath: message"
clean badpath.err "badpath: message"

finish
