#!/bin/bash
#
# man_pages.sh - every man page ends in the same footer as the others
# ("pme", the date, "pme": .Os pme), so that none shows the build
# machine's system name in its place (pmetrace(1) did, issue 12), and
# every page of a program has a SEE ALSO and a HISTORY section.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

mandoc=${MANDOC:-$(command -v mandoc)}
[ -n "$mandoc" ] && [ -x "$mandoc" ] ||
    skip "mandoc is not installed (apt-get install mandoc)"

n=0
for page in "$top"/man/*.[0-9]; do
	n=$((n + 1))
	foot=$("$mandoc" -T ascii "$page" | sed '/^ *$/d' | tail -n 1)
	set -- $foot
	[ "$#" -ge 3 ] && [ "$1" = pme ] && [ "${!#}" = pme ] ||
	    fail "${page##*/}: footer '$foot', not 'pme <date> pme'"
	case $page in
	*.1)
		for s in "SEE ALSO" HISTORY; do
			grep -q "^\.Sh $s\$" "$page" ||
			    fail "${page##*/}: no $s section"
		done ;;
	esac
done
[ "$n" -gt 0 ] || fail "no man pages in $top/man"
finish
