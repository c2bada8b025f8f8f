#!/bin/bash
#
# pmehisto_modes.sh - the mode of every file pmehisto writes (the .HIS,
# the filled .PME, PostScript and CSV sent to files) and of pmebuild's
# .PME is what open(2) with mode 0666 gives under the caller's umask:
# 0600 under umask 077, 0644 under 022, whether the file is new or
# replaces one of another mode.  No temporary file is left beside them,
# and a .HIS that cannot be created is an error that writes nothing.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$tsample"

mode_is() {	# FILE MODE WHAT
	local m
	m=$(stat -c %a "$1" 2>/dev/null)
	[ "$m" = "$2" ] || fail "$3: '$1' has mode ${m:-(none)}, not $2"
}

cd "$tmp" || exit 1
"$tsample" write g.PMS <"$top/tests/histo/gravel.smp" || exit 1

for um in 077 022; do
	want=$(printf '%o' $((0666 & ~8#$um)))
	rm -rf "u$um" && mkdir "u$um" && cd "u$um" || exit 1
	cp "$top/tests/histo/gravel.pmd" g.pmd
	# Old files of another mode are replaced, not kept with their mode.
	: >PMEFILE.HIS && chmod 0640 PMEFILE.HIS
	(
		umask "$um"
		"$pmebuild" -q -o g.PME g.pmd >/dev/null &&
		"$pmehisto" -q -b g.PME -B filled.PME -T none ../g.PMS &&
		"$pmehisto" -q -t -b filled.PME -o t.HIS -T ps >f.ps &&
		"$pmehisto" -q -t -b filled.PME -o t2.HIS -T csv >f.csv
	) </dev/null || fail "umask $um: a run failed"
	mode_is g.PME "$want" "umask $um: pmebuild"
	mode_is PMEFILE.HIS "$want" "umask $um: pmehisto .HIS"
	mode_is filled.PME "$want" "umask $um: pmehisto filled .PME"
	mode_is t.HIS "$want" "umask $um: pmehisto -t .HIS"
	mode_is f.ps "$want" "umask $um: PostScript"
	mode_is f.csv "$want" "umask $um: CSV"
	leftover=$(ls -A | grep '^\.' || true)
	[ -z "$leftover" ] || fail "umask $um: temporary files left: $leftover"
	cd "$tmp" || exit 1
done

cp u022/g.PME g.PME && cp g.PME g.orig
"$pmehisto" -b g.PME -o nodir/x -T none g.PMS >out 2>err </dev/null
rc=$?
[ $rc = 1 ] || fail "no directory: exit status $rc, not 1"
[ "$(cat err)" = "pmehisto: 'nodir/x.HIS': cannot create: No such file or directory" ] ||
    fail "no directory: message: $(cat err)"
cmp -s g.PME g.orig || fail "no directory: g.PME was written"

finish
