#!/bin/bash
#
# accum_lock.sh - ACCUMCOUNTS with runs at the same time: two loops of N
# runs each fill one bucket file, for pmehisto (a sample file tallied),
# pmetrace (the step engine on a program of some 600 instructions) and
# libpmetrace (a region counted by the program itself).  Every run must
# succeed and the file must end with Runs = 2N and every count exactly
# 2N times one run's: no run's counts lost (pmehisto(1), pme(5): the
# read-add-write is done under a lock on the file).  Counts of another
# measure are refused by each of the three, and the file left as it was.
#
# PME_ACCUM_RUNS sets N (default 25).
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
fx=$top/tests/fixtures/accum
N=${PME_ACCUM_RUNS:-25}

need "$tsample"

# loop TAG COMMAND...: COMMAND N times; a failed run's number and
# messages go to fail.TAG.
loop() {
	local tag=$1 i
	shift
	for i in $(seq "$N"); do
		"$@" >/dev/null 2>>"err.$tag" </dev/null ||
		    echo "run $i: exit status $?" >>"fail.$tag"
	done
}

# together TAG COMMAND...: two loops at the same time.
together() {
	local tag=$1
	shift
	rm -f "fail.$tag"* "err.$tag"*
	loop "$tag.a" "$@" &
	loop "$tag.b" "$@" &
	wait
	for f in "fail.$tag.a" "fail.$tag.b"; do
		[ -f "$f" ] &&
		    fail "$tag: runs failed: $(cat "$f" "err.${f#fail.}")"
	done
}

# is TAG WHAT GOT WANT
is() {
	[ "$3" = "$4" ] || fail "$1: $2 is $3, not $4"
}

cd "$tmp" || exit 1

# --- pmehisto ---------------------------------------------------------------
sed 's/^DEFINE OPTIONS NOPRINT$/DEFINE OPTIONS NOPRINT ACCUMCOUNTS/' \
    "$top/tests/histo/gravel.pmd" >conc.pmd
"$pmebuild" -q -o conc.PME conc.pmd </dev/null ||
    { fail "pmebuild conc.pmd"; exit 1; }
cp conc.PME one.PME
"$tsample" write g.PMS <"$top/tests/histo/gravel.smp" || exit 1
"$pmehisto" -q -b one.PME -o one.HIS -T none g.PMS </dev/null ||
    fail "pmehisto: one run failed"
together pmehisto "$pmehisto" -q -b conc.PME -o a.HIS -T none g.PMS
"$pmehisto" -t -b conc.PME -o conc.HIS -T csv >conc.csv </dev/null
"$pmehisto" -t -b one.PME -o one.HIS -T csv >one.csv </dev/null
is pmehisto runs "$(sed -n 's/^Runs: *//p' conc.HIS)" $((2 * N))
is pmehisto total "$(sed -n 's/^Total: *//p' conc.HIS)" $((2 * N * 160))
is pmehisto "the counts" "$(awk -F, 'NR > 1 { print $1, $7 }' conc.csv)" \
    "$(awk -F, -v k=$((2 * N)) 'NR > 1 { print $1, $7 * k }' one.csv)"

# --- pmetrace and libpmetrace: x86-64 ----------------------------------------
if [ "$(uname -m)" != x86_64 ]; then
	echo "pmetrace's step engine and libpmetrace's stepping need x86-64" >&2
	[ $fails -eq 0 ] || exit 1
	exit 0
fi
cc=${CC:-cc}
$cc -std=c11 -D_GNU_SOURCE -I"$top/lib" -o pmecounts \
    "$top/tests/fixtures/trace/pmecounts.c" "$top/lib/bucket.c" \
    "$top/lib/container.c" "$top/lib/util.c" -lz &&
$cc -g -O1 -static -nostdlib -fno-pie -no-pie -o tiny "$fx/tiny.c" &&
$cc -g -O1 -I"$top/trace" -o rtacc "$fx/rtacc.c" \
    "$top/trace/libpmetrace.a" -lz -pthread ||
    { fail "cannot build the fixtures"; exit 1; }

# count FILE UNIT: the count of UNIT's bucket; runs FILE: the runs.
count() {
	./pmecounts "$1" | awk -v u="$2" '$1 == "bucket" && $2 == u { print $3 }'
}
runs() { ./pmecounts "$1" | sed -n 's/^info .* runs \([0-9]*\) .*/\1/p'; }

for p in tiny rtacc; do
	cat >"$p.pmd" <<-EOF2
	DEFINE UNITS: PROGRAM, MODULE, ROUTINE
	PROGRAM P
	DEFINE OPTIONS: ACCUMCOUNTS
	DEFINE ADDRESSES: EXE "$p"
	DEFINE SAMPLING
	PROGRAM P BY ROUTINE
	END
	EOF2
	"$pmebuild" -q -o "$p.pme" "$p.pmd" </dev/null || fail "pmebuild $p.pmd"
done

# The step engine is exact: every run counts what one run alone does.
cp tiny.pme one.pme
"$pmetrace" -q -e step -b one.pme -o one.pme -- ./tiny </dev/null ||
    fail "pmetrace: one run failed"
together pmetrace "$pmetrace" -q -e step -b tiny.pme -o tiny.pme -- ./tiny
is pmetrace runs "$(runs tiny.pme)" $((2 * N))
is pmetrace "the counts" "$(./pmecounts tiny.pme | awk '$1 == "bucket"')" \
    "$(./pmecounts one.pme | awk -v k=$((2 * N)) \
    '$1 == "bucket" { print $1, $2, $3 * k, $4 }')"
[ "$(count one.pme work)" -gt 100 ] || fail "pmetrace: work not counted"

cp rtacc.pme conc.PME
together libpmetrace ./rtacc 3
is libpmetrace runs "$(runs conc.PME)" $((2 * N))
is libpmetrace kloop "$(count conc.PME kloop)" $((2 * N * 3 * 302))

# --- the measure, checked on every path --------------------------------------
# A file of clock samples (a run with none, tallied by pmehisto) takes no
# instructions, from libpmetrace or pmetrace; one of instructions takes
# no clock samples.  Each is refused with a message and left as it was.
printf 'header method=test event=cpu-clock period=1000000 pid=1 argv=./x\nclose\n' |
    "$tsample" write none.PMS || exit 1
"$pmehisto" -q -b rtacc.pme -B conc.PME -o x.HIS -T none none.PMS </dev/null ||
    fail "pmehisto: a run of no samples failed"
cp conc.PME clock.orig
./rtacc 1 >/dev/null 2>err </dev/null
[ "$(cat err)" = "libpmetrace: 'conc.PME': its counts are clock samples, not instructions: they cannot be added up (ACCUMCOUNTS)
libpmetrace: nothing measured" ] || fail "libpmetrace: clock counts: $(cat err)"
cmp -s conc.PME clock.orig || fail "libpmetrace: clock counts were changed"
cp conc.PME clk.pme
"$pmetrace" -e step -b clk.pme -o clk.pme -- ./tiny >/dev/null 2>err </dev/null
[ $? = 1 ] || fail "pmetrace: clock counts: not an error"
[ "$(cat err)" = "pmetrace: 'clk.pme': its counts are clock samples, not instructions: they cannot be added up (ACCUMCOUNTS)" ] ||
    fail "pmetrace: clock counts: $(cat err)"
cmp -s clk.pme clock.orig || fail "pmetrace: clock counts were changed"
cp tiny.pme instr.orig
"$pmehisto" -b tiny.pme -o x.HIS -T none none.PMS >/dev/null 2>err </dev/null
[ $? = 1 ] || fail "pmehisto: instruction counts: not an error"
[ "$(cat err)" = "pmehisto: 'tiny.pme': its counts are instructions, not clock samples: they cannot be added up (ACCUMCOUNTS)" ] ||
    fail "pmehisto: instruction counts: $(cat err)"
cmp -s tiny.pme instr.orig || fail "pmehisto: instruction counts were changed"

finish
