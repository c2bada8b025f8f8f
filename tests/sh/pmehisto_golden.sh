#!/bin/bash
#
# pmehisto_golden.sh - pmehisto's .HIS pages against the expected ones in
# tests/histo.  Each NAME.case there names a program definition (pmd=,
# built with pmebuild: explicit addresses or a linker map, so the bucket
# file is the same everywhere), sample files (smp=: t_sample write
# texts, deterministic) and pmehisto's options (args=).  pmehisto runs as
#     pmehisto ARGS -b in.PME -B out.PME -o out.HIS SMP.PMS...
# with standard output a file: out.HIS must equal NAME.his, standard
# output the same page text (the display of a pipeline), standard error
# NAME.err (no file: empty), and the exit status 0.  Then the filled
# out.PME is read back as trace input (-t) and its pages must equal
# NAME.his but for the summary's clock-only lines.
#
# PME_REGEN=1 writes the expected files instead of comparing.
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
dir=$top/tests/histo

need "$tsample"
[ -x "$pmehisto" ] || { echo "skipped: pmehisto is not built"; exit 77; }

. "$top/tests/sh/lib/golden.sh"

for case in "$dir"/*.case; do
	name=$(basename "$case" .case)
	pmd= smp= args=
	. "$case"
	w=$tmp/$name
	mkdir -p "$w" && cd "$w" || exit 1
	cp "$dir/$pmd.pmd" "$dir"/*.map .
	if ! "$pmebuild" -q -o in.PME "$pmd.pmd" >pmebuild.out 2>&1; then
		fail "$name: pmebuild failed:"
		cat pmebuild.out >&2
		continue
	fi
	files=() i=0
	for s in $smp; do
		i=$((i + 1))
		"$tsample" write "$s$i.PMS" <"$dir/$s.smp" ||
		    fail "$name: t_sample write $s.smp failed"
		files+=("$s$i.PMS")
	done
	$PME_VALGRIND "$pmehisto" $args -b in.PME -B out.PME -o out.HIS \
	    "${files[@]}" >stdout 2>stderr
	rc=$?
	[ $rc = 0 ] || { fail "$name: exit status $rc:"; cat stderr >&2; }
	same "$dir/$name.his" out.HIS "$name: out.HIS"
	same "$dir/$name.err" stderr "$name: standard error"
	[ "${PME_REGEN:-0}" = 1 ] || cmp -s out.HIS stdout ||
	    fail "$name: standard output is not the .HIS text"
	# The filled file as trace input: the same bars and percentages.
	$PME_VALGRIND "$pmehisto" -t $args -b out.PME -o trace.HIS \
	    >/dev/null 2>trace.err ||
	    { fail "$name: -t on the filled file failed:"; cat trace.err >&2; }
	sed '/^Summary statistics/,$d' out.HIS >a
	sed '/^Summary statistics/,$d' trace.HIS >b
	cmp -s a b || { fail "$name: -t pages differ:"; diff -u a b >&2; }
done

finish
