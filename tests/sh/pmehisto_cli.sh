#!/bin/bash
#
# pmehisto_cli.sh - pmehisto's command line: default names and the
# automatic clock/trace choice, the seed's rule for the output bucket
# name, ACCUMCOUNTS and CLEARCOUNTS across runs, CSV and PostScript
# exports, the quick path (-x) on a program built here, and every error
# path: missing, truncated, corrupt and mismatched files give a message
# naming the file and exit 1 with the old outputs untouched; usage errors
# exit 2.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$tsample"

ph() {	# runs pmehisto; output in out, err; status in rc
	$PME_VALGRIND "$pmehisto" "$@" >out 2>err
	rc=$?
}

expect() {	# STATUS WHAT: the last run's status, with its stderr on failure
	[ "$rc" = "$1" ] || { fail "$2: exit status $rc, not $1:"; cat err >&2; }
}

has() {	# FILE TEXT WHAT
	grep -qF -- "$2" "$1" || { fail "$3: no '$2' in $1:"; cat "$1" >&2; }
}

cd "$tmp" || exit 1
cp "$top/tests/histo/gravel.pmd" PMEFILE.PMD
"$pmebuild" -q >/dev/null || { fail "pmebuild failed"; exit 1; }
cp PMEFILE.PME empty.PME
"$tsample" write g.PMS <"$top/tests/histo/gravel.smp" || exit 1

# --- names and modes -----------------------------------------------------------

# No PMEFILE.PMS: trace input of the empty PMEFILE.PME, with a warning.
ph -T none
expect 0 "trace of an empty file"
has err "'PMEFILE.PME': no counts yet (an empty bucket file" "trace of an empty file"
[ -s PMEFILE.HIS ] || fail "no PMEFILE.HIS"

# PMEFILE.PMS newer than the bucket file: clock input, all defaults.
sleep 0.01
cp g.PMS PMEFILE.PMS
ph -T none
expect 0 "clock defaults"
grep -q "^Filled bucket file:  PMEFILE.PME" PMEFILE.HIS ||
    fail "clock defaults: PMEFILE.PME not filled"
grep -q "^Total:  *160" PMEFILE.HIS || fail "clock defaults: not 160 samples"
# Now the filled file is newer: trace input.
ph -T none
expect 0 "trace after clock"
grep -q "^Sample files:" PMEFILE.HIS && fail "trace after clock: read samples"
grep -q "^Total:  *160" PMEFILE.HIS || fail "trace after clock: lost counts"

# The seed: a named input bucket file is the output's name too; names
# without an extension get the default one.
cp empty.PME named.PME
ph -b named g
expect 0 "-b named"
grep -q "^Total:  *160" out || fail "-b named: the display is not the report"
"$pmehisto" -t -b named.PME -T csv -o x.HIS >named.csv 2>&1
grep -q '^1,CRUSH,MODULE,PHASE TWO BY MODULE,0x1300,0x13ff,50,31.2500,,,$' named.csv ||
    { fail "-b named: named.PME not filled (csv):"; cat named.csv >&2; }
ph -b empty -B other.PME -o other g.PMS
expect 0 "-B"
[ -f other.PME ] && [ -f other.HIS ] || fail "-B/-o: other.PME, other.HIS missing"
"$pmehisto" -t -b empty -o - -T none >e.txt 2>/dev/null
grep -q "^Total:  *0$" e.txt || fail "-B: empty.PME was changed"

# --- CLEARCOUNTS and ACCUMCOUNTS -----------------------------------------------

# CLEARCOUNTS (the default): a filled file reused as empty.
ph -b named -T none g.PMS
expect 0 "clear"
grep -q "^Total:  *160" PMEFILE.HIS && grep -q "^Runs:  *1$" PMEFILE.HIS ||
    fail "CLEARCOUNTS: counts were not cleared"
sed 's/^DEFINE OPTIONS NOPRINT$/DEFINE OPTIONS NOPRINT ACCUMCOUNTS/' \
    PMEFILE.PMD >acc.pmd
"$pmebuild" -q acc.pmd acc.PME >/dev/null
for i in 1 2 3; do
	ph -b acc -T none g.PMS
	expect 0 "accumulate $i"
done
grep -q "^Total:  *480$" PMEFILE.HIS && grep -q "^Runs:  *3$" PMEFILE.HIS ||
    { fail "ACCUMCOUNTS: three runs did not add up:"; cat PMEFILE.HIS >&2; }
grep -q "CRUSH .*31.2%" PMEFILE.HIS || fail "ACCUMCOUNTS: shares changed"
# A run at another interval: warned, and the file takes the latest.
sed 's/period=10000000/period=1000000/' "$top/tests/histo/gravel.smp" |
    "$tsample" write g1.PMS || exit 1
ph -b acc -T none g1.PMS
expect 0 "accumulate at 1 ms"
has err "'acc.PME': accumulated runs sampled every 10 ms, this one every 1 ms" \
    "accumulate at 1 ms"
grep -q "^Sampling interval:   1 ms (1000 Hz)$" PMEFILE.HIS &&
    grep -q "^Runs:  *4$" PMEFILE.HIS ||
    { fail "ACCUMCOUNTS: not the latest interval:"; cat PMEFILE.HIS >&2; }

# --- exports ---------------------------------------------------------------------

ph -t -b named -T csv -o x.HIS -C 10
expect 0 "csv"
[ "$(head -n 1 out)" = "bucket,unit,kind,group,start,end,count,percent,file,line,module" ] ||
    fail "csv: header"
[ "$(wc -l <out)" = 11 ] || fail "csv: not a line per bucket whatever -C"
ph -t -b named -T ps -o x.HIS
expect 0 "ps"
has out "%!PS-Adobe-3.0" "ps"
has out "%%EOF" "ps"

# --- the quick path: routine buckets of the recorded program -------------------

if command -v cc >/dev/null && command -v nm >/dev/null; then
	mkdir quick && cd quick || exit 1
	cat >q.c <<'EOS'
int hot(int x) { int i; for (i = 0; i < 100; i++) x = x * 3 + i; return x; }
int cold(int x) { return x + 1; }
int main(void) { return hot(1) + cold(2) == 42; }
EOS
	cc -g -O0 -o q q.c
	addr() { printf '0x%x' $((0x555555554000 + 0x$(nm q | awk -v f="$1" \
	    '$3 == f { print $1 }'))); }
	{
		echo "header method=test event=cpu-clock period=1000000 pid=8 argv=./q"
		echo "map pid=8 start=0x555555554000 end=0x555555560000 offset=0 vaddr=0 path=$PWD/q flags=exec,main"
		echo "sample pid=8 pc=$(addr hot) count=30"
		echo "sample pid=8 pc=$(addr cold) count=10"
		echo "close"
	} >q.smp
	"$tsample" write PMEFILE.PMS <q.smp
	ph -T none
	expect 0 "quick path"
	has err "no 'PMEFILE.PME': a bucket per routine" "quick path"
	has PMEFILE.HIS 'PROGRAM "q" BY ROUTINE' "quick path"
	grep -q "^hot .*75.0%" PMEFILE.HIS && grep -q "^cold .*25.0%" \
	    PMEFILE.HIS || { fail "quick path: shares:"; cat PMEFILE.HIS >&2; }
	# The routine buckets it wrote are used by the next run as any.
	ph -n -T text
	expect 0 "quick path, trace of its file"
	grep -q "^hot .*75.0%" out || fail "quick path: the filled file"
	cd .. || exit 1
fi

# --- errors ----------------------------------------------------------------------

cp PMEFILE.HIS keep.HIS
cp PMEFILE.PME keep.PME
unchanged() {	# WHAT: PMEFILE.HIS and PMEFILE.PME as before, no temporary
	cmp -s keep.HIS PMEFILE.HIS && cmp -s keep.PME PMEFILE.PME ||
	    fail "$1: the old outputs were changed"
	ls -a | grep -q '^\.PMEFILE' && fail "$1: a temporary file was left"
}

ph -c nosuch.PMS
expect 1 "missing sample file"
has err "pmehisto: 'nosuch.PMS'" "missing sample file"
unchanged "missing sample file"

ph -b nosuch g.PMS
expect 1 "missing bucket file"
has err "pmehisto: 'nosuch.PME'" "missing bucket file"
unchanged "missing bucket file"

head -c 100 g.PMS >short.PMS
ph short.PMS
expect 0 "truncated sample file"
has err "'short.PMS': cut short (no closing record)" "truncated sample file"
cp keep.HIS PMEFILE.HIS
cp keep.PME PMEFILE.PME

size=$(stat -c %s g.PMS)
cp g.PMS bad.PMS
printf '\377' | dd of=bad.PMS bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
ph bad.PMS
expect 1 "corrupt sample file"
has err "pmehisto: 'bad.PMS': offset 0x" "corrupt sample file"
unchanged "corrupt sample file"

head -c 200 keep.PME >cut.PME
ph -b cut g.PMS
expect 1 "truncated bucket file"
has err "pmehisto: 'cut.PME'" "truncated bucket file"
unchanged "truncated bucket file"

ph -b g.PMS g.PMS
expect 1 "a sample file as bucket file"
has err "pmehisto: 'g.PMS'" "a sample file as bucket file"
unchanged "a sample file as bucket file"

ph -c -b keep.PME PMEFILE.PME
expect 1 "a bucket file as sample file"
has err "pmehisto: 'PMEFILE.PME'" "a bucket file as sample file"

# A .PMS of another program: a warning, all samples outside.
cat >other.smp <<'EOS'
header method=test event=cpu-clock period=10000000 pid=5 argv=./other
map pid=5 start=0x400000 end=0x500000 offset=0 vaddr=0x400000 path=/usr/bin/other flags=exec,main
sample pid=5 pc=0x401000 count=20
close
EOS
"$tsample" write other.PMS <other.smp
"$pmebuild" -q "$top/tests/histo/map.pmd" map.PME >/dev/null 2>&1 ||
    (cd "$top/tests/histo" && "$pmebuild" -q map.pmd "$tmp/map.PME" >/dev/null)
ph -b map.PME -B mapout.PME -o map.HIS -T none other.PMS
expect 0 "another program"
# The map's main module has no path: the main mapping is taken as it.
# A module with a build-id that differs is another program:
cat >other2.smp <<'EOS'
header method=test event=cpu-clock period=10000000 pid=5 argv=./other
map pid=5 start=0x7f0000000000 end=0x7f0000100000 offset=0 vaddr=0 path=/usr/lib/libother.so flags=exec
sample pid=5 pc=0x7f0000001000 count=20
close
EOS
"$tsample" write other2.PMS <other2.smp
ph -b map.PME -B mapout.PME -o map.HIS -T none other2.PMS
expect 0 "another program's library"
has err "'other2.PMS': no sample fell in a load module of 'map.PME'" \
    "another program's library"

# Usage errors.
ph -t g.PMS
expect 2 "-t with a sample file"
ph -T bogus
expect 2 "-T bogus"
ph -C 200
expect 2 "-C 200"
ph -Q
expect 2 "unknown option"
ph --help
expect 0 "--help"
has out "usage: pmehisto" "--help"

finish
