#!/bin/bash
#
# pmehisto_registry.sh - the exports are one registry (histo/export.c's
# export_formats[], issue 24): the words pmehisto -h lists after
# "histogram:" are the exports the option parser takes (each a stacks
# export: refused for trace input with the message that names it, but
# callgrind, which writes a filled bucket file's counts too), and
# each has its entry in pmehisto(1)'s list of exports (.It Cm WORD) and
# in the SYNOPSIS-level -T list of the help.  A word the registry does
# not hold is a usage error.  Adding an export adds its row, its file,
# its man page entry, and a test of its own; this one then covers the
# help, the parser and the page for it.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
cd "$tmp" || exit 1

"$pmehisto" -h >help 2>&1 || fail "-h: exit status $?"
# "histogram: svg (a flame graph), callgrind, pprof" -> the words.
words=$(sed -n 's/^ *histogram: //p' help | sed 's/ ([^)]*)//g; s/,/ /g')
[ -n "$words" ] || fail "-h lists no exports: $(cat help)"
n=0
for w in $words; do
	n=$((n + 1))
	"$pmehisto" -t -b x.PME -T "$w" >out 2>err </dev/null
	rc=$?
	case $w in
	callgrind)
		# It has a writer of a filled bucket file's counts too: trace
		# input is taken, and the missing file is what it says.
		[ $rc = 1 ] && grep -q "^pmehisto: 'x.PME': cannot open" err ||
		    fail "-T $w: trace input not taken (exit $rc): $(head -n 1 err)"
		;;
	*)
		[ $rc = 2 ] && grep -q "^pmehisto: -T $w: call stacks come from sample files" err ||
		    fail "-T $w: not taken as a stacks export (exit $rc): $(head -n 1 err)"
		;;
	esac
	grep -qx "\.It Cm $w" "$top/man/pmehisto.1" ||
	    fail "$w: no entry '.It Cm $w' in pmehisto(1)"
done
[ "$n" -ge 3 ] || fail "only $n exports in the help: $words"
"$pmehisto" -T nosuch x.PMS >out 2>err </dev/null
[ $? = 2 ] || fail "-T nosuch: not a usage error"
finish
