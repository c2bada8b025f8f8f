# tests/sh/lib/common.sh - sourced first by every shell test, as
#
#	. "${PME_TOP:?}/tests/sh/lib/common.sh"
#
# It sets -u and gives what the tests share (tests/run's header says what
# the environment holds):
#
#	top tmp		the tree (PME_TOP) and the test's own TMPDIR
#	pmebuild pmeclock pmehisto pmetrace
#			the programs (PMEBUILD, PMECLOCK, PMEHISTO, else the
#			tree's); no valgrind prefix: a test that wants
#			PME_VALGRIND puts it itself
#	tsample		tests/unit/t_sample, the sample file writer
#	name		the test's name, for its messages
#	fail MESSAGE...	reports a failed check on standard error, counts it
#	finish		exits 1 (saying how many checks failed) or 0
#	skip REASON...	exits 77, the first line of standard output REASON
#	need FILE...	skips unless each FILE is an executable

set -u
top=${PME_TOP:?}
tmp=${TMPDIR:?}
pmebuild=${PMEBUILD:-$top/build/pmebuild}
pmeclock=${PMECLOCK:-$top/sample/pmeclock}
pmehisto=${PMEHISTO:-$top/histo/pmehisto}
pmetrace=$top/trace/pmetrace
tsample=$top/tests/unit/t_sample
name=${0##*/}
name=${name%.sh}
fails=0

fail() {
	echo "$name: $*" >&2
	fails=$((fails + 1))
}

finish() {
	[ "$fails" = 0 ] && exit 0
	echo "$name: $fails checks failed" >&2
	exit 1
}

skip() {
	echo "skipped: $*"
	exit 77
}

need() {
	local f
	for f; do
		[ -x "$f" ] || skip "${f#"$top"/} is not built"
	done
}
