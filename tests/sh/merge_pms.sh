#!/bin/bash
#
# merge_pms.sh - pmemerge joins sample files into one file of all their
# runs (pme(5)), which pmehisto tallies as it tallies the files given as
# operands: the same filled bucket file, byte for byte, and the same CSV,
# for 5 files and for 1,000 (tests/sh/lib/merge_runs.sh's runs, written
# by tests/unit/t_sample).  Also: two runs of one process ID whose
# mappings differ stay apart (each sample rebased through its own run's
# mappings: one run of both runs' records would put the second's samples
# in the first's library); the join is associative byte for byte, and a
# joined file joined again keeps its runs; a run cut short between chunks
# is joined and warned of, by pmemerge and by pmehisto; a damaged input,
# one cut inside a chunk and one of another kind are refused naming the
# file (and the offset), the output left as it was; stats -f draws a row
# per thread of each run.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/merge_runs.sh"

pmemerge=$top/histo/pmemerge
stats=$top/stats/stats
need "$pmemerge" "$tsample" "$pmebuild" "$pmehisto" "$stats"

pm() {	# runs pmemerge; its stderr in err, status in rc
	$PME_VALGRIND "$pmemerge" "$@" >out 2>err
	rc=$?
}

cd "$tmp" || exit 1
"$pmebuild" -q "$top/tests/histo/gravel.pmd" layout.pme >/dev/null ||
    { fail "pmebuild failed"; finish; }

tally() {	# OUT.pme SAMPLEFILES...: filled, and OUT.pme.csv its CSV
	local out=$1
	shift
	"$pmehisto" -c -q -b layout.pme -B "$out" -o /dev/null -T none "$@" ||
	    { fail "pmehisto -c $out failed"; return 1; }
	"$pmehisto" -t -b "$out" -o /dev/null -T csv >"$out.csv" 2>/dev/null
}

same() {	# A.pme B.pme WHAT: the same filled file and CSV
	cmp -s "$1" "$2" || fail "$3: not the filled bucket file of the operands"
	cmp -s "$1.csv" "$2.csv" ||
	    { fail "$3: not the counts of the operands:"; diff "$1.csv" "$2.csv" | head >&2; }
}

# --- 5 files, then 1,000 -------------------------------------------------------

merge_runs 1000
for f in s*.smp; do
	"$tsample" write "${f%.smp}.pms" <"$f" || { fail "t_sample write $f"; finish; }
done
five="s0000.pms s0001.pms s0002.pms s0003.pms s0004.pms"
pm -o five.pms $five
[ "$rc" = 0 ] && [ ! -s err ] || { fail "pmemerge of 5: exit $rc:"; cat err >&2; }
tally ops5.pme $five && tally join5.pme five.pms && same ops5.pme join5.pme "5 files"
grep -q "^Runs:  *5$" <("$pmehisto" -t -b join5.pme -o - -T none 2>/dev/null) ||
    fail "5 files: not 5 runs"
grep -q '^0,CRUNCH,' ops5.pme.csv || fail "5 files: no CSV report"

ls s*.pms >list
pm -v -o all.pms -@ list
[ "$rc" = 0 ] || { fail "pmemerge of 1000: exit $rc:"; cat err >&2; }
[ "$(cat err)" = "pmemerge: wrote 'all.pms' (1000 files, 1000 runs)" ] ||
    { fail "-v:"; cat err >&2; }
tally ops.pme s*.pms && tally join.pme all.pms && same ops.pme join.pme "1000 files"
# Its bytes: the header, each file's chunks but END, one END.
{ head -c 16 s0000.pms; for f in s*.pms; do
	n=$(stat -c %s "$f"); tail -c +17 "$f" | head -c $((n - 36)); done
  tail -c 20 s0000.pms; } >spliced
cmp -s spliced all.pms || fail "1000 files: not the files' chunks in order"

# --- associative, and a joined file joined again keeps its runs ----------------

pm -o ab.pms s0000.pms s0001.pms && pm -o ab_c.pms ab.pms s0002.pms &&
    pm -o bc.pms s0001.pms s0002.pms && pm -o a_bc.pms s0000.pms bc.pms &&
    pm -o abc.pms s0000.pms s0001.pms s0002.pms || fail "pmemerge a, b, c failed"
cmp -s ab_c.pms a_bc.pms || fail "(a+b)+c is not a+(b+c)"
cmp -s ab_c.pms abc.pms || fail "(a+b)+c is not a+b+c"
# A tree: 10 sums of 100, then their sum.
for ((j = 0; j < 10; j++)); do
	sed -n "$((j * 100 + 1)),$((j * 100 + 100))p" list >l$j
	"$pmemerge" -o p$j.pms -@ l$j || fail "part $j"
done
pm -o tree.pms p0.pms p1.pms p2.pms p3.pms p4.pms p5.pms p6.pms p7.pms \
    p8.pms p9.pms
cmp -s tree.pms all.pms || fail "a tree of joins is not the join of all"
# One file: itself.
pm -o one.pms s0007.pms
cmp -s one.pms s0007.pms || fail "the join of one file is not that file"

# --- one process ID, two runs, other mappings -----------------------------------

# The second run's library was mapped after the samples it holds: through
# its own run's mappings they are in it (the earliest mapping holding the
# pc); through one map of both runs, in the first run's library.
cat >a.smp <<'EOF'
header pid=100 argv=./a start=1000000000 start_mono=0
map pid=100 time=0 start=0x7f0000000000 end=0x7f0000100000 offset=0 vaddr=0 path=/x/liba.so flags=exec
sample pid=100 pc=0x7f0000000100 time=0 count=3
close end=2000000000
EOF
cat >b.smp <<'EOF'
header pid=100 argv=./b start=5000000000 start_mono=0
map pid=100 time=1000000000 start=0x7f0000000000 end=0x7f0000100000 offset=0 vaddr=0 path=/x/libb.so flags=exec
sample pid=100 pc=0x7f0000000100 time=0 count=2
close end=6000000000
EOF
# What joining them as one run would read.
{ grep -v '^close' a.smp; grep -v '^header' b.smp; } >joined.smp
for f in a b joined; do "$tsample" write $f.pms <$f.smp || fail "write $f"; done
pm -o samepid.pms a.pms b.pms
outside() {	# SAMPLEFILES...: the Outside buckets lines of the report
	"$pmehisto" -c -q -b layout.pme -B /dev/null -o - -T none "$@" |
	    sed -n '/^Outside buckets:/,/^Unmapped:/p' | sed 's/^Outside buckets://; s/^ *//' |
	    grep -v '^Unmapped:'
}
want="liba.so 60.0% (3)
libb.so 40.0% (2)"
[ "$(outside a.pms b.pms)" = "$want" ] || fail "the operands: $(outside a.pms b.pms)"
[ "$(outside samepid.pms)" = "$want" ] ||
    fail "one PID in two runs: $(outside samepid.pms), not $want"
[ "$(outside joined.pms)" = "liba.so 100.0% (5)" ] ||
    fail "joined as one run: $(outside joined.pms) (the test cannot tell)"
"$pmehisto" -c -q -b layout.pme -B /dev/null -o - -T none samepid.pms |
    grep -q '^Command: *\./a (and 1 more run of other commands)$' ||
    fail "the command of two runs"

# --- stats -f: a row per thread of each run -------------------------------------

"$stats" -f samepid.pms -b module -T csv states >states.csv 2>err ||
    fail "stats -f: $(cat err)"
cut -d, -f1 states.csv | sed 1d | sort -u >rows
[ "$(cat rows)" = "100 (run 1)
100 (run 2)" ] || fail "stats -f: rows $(tr '\n' '|' <rows)"
# The second run on the first's clock: it started 4 s later.
grep -q '^100 (run 2),4000000000,4010000000,1,"libb.so"$' states.csv ||
    fail "stats -f: the second run's samples: $(grep 'run 2' states.csv)"
"$stats" -f a.pms -b module -T csv states | cut -d, -f1 | sed 1d | sort -u >rows
[ "$(cat rows)" = 100 ] || fail "stats -f of one run: rows $(cat rows)"

# --- runs cut short, refusals ---------------------------------------------------

# Cut between chunks (a recorder killed): joined, warned of, read.
{ grep -v '^close' a.smp; echo flush; } | "$tsample" write killed.pms
pm -o k.pms killed.pms b.pms
[ "$rc" = 0 ] || fail "a run cut between chunks: exit $rc"
[ "$(cat err)" = "pmemerge: 'killed.pms': cut short (no closing record, no END chunk): merged as it is, a run cut short" ] ||
    { fail "a run cut between chunks: message:"; cat err >&2; }
"$pmehisto" -c -b layout.pme -B /dev/null -o /dev/null -T none k.pms 2>err
grep -q "^pmehisto: 'k.pms': 1 run cut short (no closing record) before the next header: reduced the samples read$" err ||
    { fail "pmehisto: the run cut short:"; cat err >&2; }
[ "$(outside k.pms)" = "$want" ] || fail "a run cut short: $(outside k.pms)"

cp five.pms keep.pms
refused() {	# WHAT MESSAGE ARGS...: pmemerge -o keep.pms ARGS is refused
	local what=$1 msg=$2
	shift 2
	pm -o keep.pms "$@"
	[ "$rc" = 1 ] || fail "$what: exit status $rc, not 1"
	[ "$(cat err)" = "$msg" ] || { fail "$what: stderr is not '$msg':"; cat err >&2; }
	cmp -s keep.pms five.pms || fail "$what: the output was changed"
	ls -a | grep -q '^\.keep\.pms\.' && fail "$what: a temporary file is left"
}
n=$(stat -c %s s0003.pms)
head -c $((n - 25)) s0003.pms >cut.pms
refused "cut inside a chunk" "pmemerge: 'cut.pms': offset 0x$(printf %x $((n - 20 - 52))): cut short inside a chunk: 47 bytes lost" \
    s0001.pms s0002.pms cut.pms
cp s0003.pms bad.pms
printf '\x55' | dd of=bad.pms bs=1 seek=60 conv=notrunc 2>/dev/null
refused "damaged" "pmemerge: 'bad.pms': offset 0x10: chunk crc mismatch" \
    s0001.pms bad.pms
refused "a bucket file" "pmemerge: 'layout.pme' is a bucket file (.PME), not a sample file (.PMS); the inputs of a merge are of one kind, the first input's" \
    s0001.pms layout.pme
refused "missing" "pmemerge: 'nosuch.PMS': cannot open: No such file or directory" \
    s0001.pms nosuch

finish
