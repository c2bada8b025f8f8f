#!/bin/bash
#
# pmehisto_ps.sh - pmehisto -T ps: the DSC comments (%!PS-Adobe-3.0,
# %%Pages matching the %%Page comments, %%BoundingBox, %%EndComments,
# %%Trailer, %%EOF), the title and subtitle defined in the prolog, and a
# clean rendering by ghostscript with one PNG per page, for a one-page
# and a several-page histogram.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$tsample"
command -v gs >/dev/null ||
    { echo "skipped: ghostscript (gs) is not installed"; exit 77; }

cd "$tmp" || exit 1
check() {	# NAME PMD SMP PAGES
	local n=$1 pages
	"$pmebuild" -q -o "$n.PME" "$top/tests/histo/$2.pmd" >/dev/null ||
	    { fail "$n: pmebuild failed"; return; }
	"$tsample" write "$n.PMS" <"$top/tests/histo/$3.smp"
	$PME_VALGRIND "$pmehisto" -q -n -k -T ps -b "$n" -o "$n.HIS" \
	    "$n.PMS" >"$n.ps" 2>"$n.err" ||
	    { fail "$n: pmehisto failed:"; cat "$n.err" >&2; return; }
	[ "$(head -n 1 "$n.ps")" = "%!PS-Adobe-3.0" ] ||
	    fail "$n: first line is not %!PS-Adobe-3.0"
	for c in '%%BoundingBox: 0 0 612 792' '%%EndComments' \
	    '%%BeginProlog' '%%EndProlog' '%%Trailer' '%%EOF'; do
		grep -qx -- "$c" "$n.ps" || fail "$n: no '$c' line"
	done
	[ "$(tail -n 1 "$n.ps")" = "%%EOF" ] || fail "$n: does not end with %%EOF"
	grep -q '^/pme-title where .*(Performance Measurement and Evaluation Histogram)' \
	    "$n.ps" || fail "$n: no title in the prolog"
	grep -q '^/pme-subtitle where .*(\./' "$n.ps" ||
	    fail "$n: no subtitle (the command) in the prolog"
	pages=$(sed -n 's/^%%Pages: //p' "$n.ps")
	[ "$pages" = "$4" ] || fail "$n: %%Pages: $pages, not $4"
	[ "$(grep -c '^%%Page: ' "$n.ps")" = "$4" ] ||
	    fail "$n: not $4 %%Page comments"
	if ! gs -q -dSAFER -dNOPAUSE -dBATCH -sDEVICE=png16m -r60 \
	    -sOutputFile="$n-%d.png" "$n.ps" >"$n.gs" 2>&1 || [ -s "$n.gs" ]; then
		fail "$n: ghostscript complained:"
		cat "$n.gs" >&2
	fi
	[ "$(ls "$n"-*.png 2>/dev/null | wc -l)" = "$4" ] ||
	    fail "$n: ghostscript did not make $4 pages"
}
check gravel gravel gravel 1
check long long many 2

finish
