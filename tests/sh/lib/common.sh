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
#	csv_counts	pmehisto -T csv on standard input as "name count"
#			lines (the count column found by its heading:
#			count, or the unit of amounts, ns or bytes)
#	expect WHAT STATUS COMMAND...
#			runs COMMAND (stdin /dev/null, output in $tmp/out
#			and $tmp/err) and fails WHAT unless it exits STATUS;
#			a test may define an expect() of its own instead
#	near WHAT PME_N PME_TOTAL PERF_N PERF_TOTAL
#			a share of pme's and perf's separate runs agree

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

expect() {
	local what=$1 want=$2 got
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	got=$?
	[ "$got" = "$want" ] ||
	    fail "$what: exit status $got, not $want: $(head -c 500 "$tmp/err")"
}

csv_counts() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "count" ||
		$i == "ns" || $i == "bytes") c = i; next } { print $2, $c }'
}

# near WHAT PME_N PME_TOTAL PERF_N PERF_TOTAL: pme's share and perf's of
# separate runs agree within six standard deviations of the difference of
# two binomial shares of the two counts, plus 3 points for the runs being
# two; fail()s saying both, else says them.
near() {
	awk -v m="$2" -v nm="$3" -v p="$4" -v np="$5" 'BEGIN {
		if (nm == 0 || np == 0)
			exit 1
		a = m / nm; b = p / np; q = (a + b) / 2
		tol = 6 * sqrt(q * (1 - q) * (1 / nm + 1 / np)) + 0.03
		exit (a - b > tol || b - a > tol)
	}' || fail "$1: pme $2 of $3, perf $4 of $5: too far apart"
	echo "$1: pme $2 of $3 ($(awk -v a="$2" -v b="$3" \
	    'BEGIN { printf "%.1f%%", 100 * a / b }')), perf $4 of $5"
}

# steal: the time in ns the hypervisor took from this machine's CPUs, all
# of them, since it booted (/proc/stat, in the clock ticks of CLK_TCK).
# A clock of the machine's time while a task is on a CPU (perf's
# cpu-clock, an interval between its switches) counts it; the task's CPU
# time (getrusage, CLOCK_*_CPUTIME_ID) does not, with
# CONFIG_PARAVIRT_TIME_ACCOUNTING (Debian's): no more can have been
# stolen from one task meanwhile than from all the CPUs.
clk_tck=$(getconf CLK_TCK 2>/dev/null || echo 100)
steal() {
	awk -v t="$clk_tck" '$1 == "cpu" { printf "%.0f\n", $9 * 1e9 / t }' \
	    /proc/stat 2>/dev/null || echo 0
}

# cc_libpme OUT SOURCE: builds SOURCE, a program of libpme's APIs (the
# event API of tests/fixtures/stats/sim.c), into OUT, linked with
# lib/libpme.a and sanitized as the tree is; fail()s when it cannot.
cc_libpme() {
	local sanitize
	sanitize=$(sed -n 's/^SANITIZE_FLAGS = *//p' "$top/config.mk" \
	    2>/dev/null)
	# shellcheck disable=SC2086 # flag lists
	${CC:-cc} -std=c11 -D_GNU_SOURCE -g $sanitize -I"$top/lib" -o "$1" \
	    "$2" "$top/lib/libpme.a" $(sed -n 's/^LIBS = //p' \
	    "$top/config.mk" 2>/dev/null) -lz -lpthread -lm ||
	    { fail "cannot build $2"; return 1; }
}
