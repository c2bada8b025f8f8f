#!/bin/bash
#
# usage_synopsis.sh - each program's usage text (what it prints on a
# usage error) and its man page's SYNOPSIS (as mandoc(1) renders it) say
# the same, word for word, spaces and line breaks aside (issue 24): an
# option added to one and not the other fails.  Skipped without mandoc.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
command -v mandoc >/dev/null || skip "no mandoc(1) to render the man pages"
progs="build/pmebuild sample/pmeclock histo/pmehisto histo/pmemerge
    trace/pmetrace stats/stats"
for p in $progs; do
	need "$top/$p"
done

# words: standard input's words, one space apart.
words() {
	tr -s ' \t\n' '   ' | sed 's/^ //; s/ $//'
}

for p in $progs; do
	n=${p##*/}
	# The usage: its lines from "usage:" up to an empty line or the
	# help's first option line, the program's own message left out.
	"$top/$p" --no-such-option </dev/null 2>"$tmp/err" >/dev/null
	[ $? = 2 ] || fail "$n: a bad option did not exit 2"
	usage=$(awk '/^usage: / { on = 1; sub(/^usage: /, "") }
	    on && (/^$/ || /^ +-/) { exit } on' "$tmp/err" | words)
	[ -n "$usage" ] || fail "$n: no usage text in: $(head -c 300 "$tmp/err")"
	synopsis=$(mandoc -T ascii "$top/man/$n.1" | col -b |
	    sed -n '/^SYNOPSIS$/,/^[A-Z][A-Z ]*$/p' | sed '1d;$d' | words)
	[ -n "$synopsis" ] || fail "$n: no SYNOPSIS in man/$n.1"
	[ "$usage" = "$synopsis" ] ||
	    fail "$n: usage and SYNOPSIS differ:
  usage:    $usage
  SYNOPSIS: $synopsis"
done
finish
