#!/bin/bash
#
# pmetrace_cgout.sh - callgrind output that is short, unfinished or
# missing is an error naming the file and what is missing, and no bucket
# file is written: a full disk simulated by a file size limit (SIGXFSZ
# ignored, so that valgrind's writes fail as on a full disk), and a real
# output kept with PMETRACE_KEEP, read back with PMETRACE_READ whole (the
# same counts), from a directory without it, and damaged: cut before its
# totals line (and with the first error of valgrind's log in the
# message), inside it, at half its lines, its totals changed, a cost
# line removed, emptied with its log, without it, or with a log that
# shows its process killed.  A process killed by SIGKILL loses its last
# counts, and says so.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/trace.sh"

need_valgrind
need_no_pme_valgrind "pmetrace runs valgrind itself"

cd "$tmp" || exit 1
$cc -g -O1 -shared -fPIC -o libtr.so "$fx/lib.c" &&
$cc -g -O1 -o prog "$fx/prog.c" -L. -ltr -Wl,-rpath,"$tmp" -pthread &&
build_pmecounts || { echo "cannot build the fixtures" >&2; exit 1; }
$pmebuild -q -x ./prog -l ./libtr.so -o prog.pme ||
    { echo "pmebuild failed" >&2; exit 1; }

# expect WHAT STATUS: the last command's status, in $got.
expect() {
	[ "$got" = "$2" ] ||
	    fail "$1: exit status $got, not $2: $(head -c 300 err)"
}

# error WHAT EXPECTED-STDERR: the exact message, and no output written.
error() {
	printf '%s\n' "$2" >want.err
	diff -u want.err err >diff.txt || fail "$1: $(cat diff.txt)"
	[ ! -e out.pme ] || fail "$1: out.pme written"
	rm -f out.pme
}

# A full disk: valgrind's writes beyond 100 KiB fail (EFBIG).
mkdir t
(trap '' XFSZ; ulimit -f 100; TMPDIR=$tmp/t $pmetrace -e callgrind \
    -b prog.pme -o out.pme -- ./prog calls 7 >/dev/null 2>err)
got=$?
expect "file size limit" 1
grep -Eq "^pmetrace: '$tmp/t/pmetrace\.[A-Za-z0-9]+/cg\.[0-9]+': offset 0x19000: cut short: the file ends (inside a line|before its totals line) \(valgrind exit status 0\)$" err ||
    fail "file size limit: $(cat err)"
[ ! -e out.pme ] || fail "file size limit: out.pme written"
[ -z "$(ls -A t)" ] || fail "file size limit: left in TMPDIR: $(ls -A t)"

# A real output, kept, and read back as it is.
mkdir keep
TMPDIR=$tmp/keep PMETRACE_KEEP=1 $pmetrace -q -e callgrind -b prog.pme \
    -o kept.pme -- ./prog calls 7 >/dev/null 2>err
got=$?
expect "kept" 0
kept=$(echo keep/pmetrace.*)
cg=$(cd "$kept" && echo cg.*)
log=$(cd "$kept" && echo log.*)
pid=${cg#cg.}
[ -f "$kept/$cg" ] && [ -f "$kept/$log" ] ||
    { echo "no callgrind output kept: $(ls -R keep)" >&2; exit 1; }
PMETRACE_READ=$kept $pmetrace -b prog.pme -o out.pme -- ./prog calls 7 \
    >/dev/null 2>err
got=$?
expect "read" 0
./pmecounts kept.pme >kept.txt && ./pmecounts out.pme >read.txt &&
    diff -u kept.txt read.txt >diff.txt ||
    fail "read: counts differ from the run's: $(cat diff.txt)"
rm -f out.pme

mkdir empty
PMETRACE_READ=$tmp/empty $pmetrace -b prog.pme -o out.pme -- ./prog calls 7 \
    >/dev/null 2>err
got=$?
expect "no output" 1
error "no output" "pmetrace: '$tmp/empty': no callgrind output in it (cg.*)"

# damaged WHAT: a copy of the kept output in d/ to damage, $f its file.
damaged() {
	rm -rf d
	cp -r "$kept" d
	f=d/$cg
	size=$(wc -c <"$f")
	tline=$(grep -n '^totals: ' "$f" | cut -d: -f1)
	toff=$(head -n $((tline - 1)) "$f" | wc -c)
	total=$(sed -n 's/^totals: //p' "$f")
}

# read_back: pmetrace reads d/.
read_back() {
	PMETRACE_READ=$tmp/d $pmetrace -b prog.pme -o out.pme -- \
	    ./prog calls 7 >/dev/null 2>err
	got=$?
}

damaged
head -n $((tline - 1)) "$f" >x && mv x "$f"
read_back
expect "no totals" 1
error "no totals" "pmetrace: '$tmp/$f': offset $(printf 0x%x $toff): cut short: the file ends before its totals line"

damaged
head -c $((size - 1)) "$f" >x && mv x "$f"
read_back
expect "totals cut" 1
error "totals cut" "pmetrace: '$tmp/$f': offset $(printf 0x%x $((size - 1))): cut short: the file ends inside a line"

damaged
head -n $((tline / 2)) "$f" >x && mv x "$f"
read_back
expect "half" 1
error "half" "pmetrace: '$tmp/$f': offset $(printf 0x%x $(wc -c <"$f")): cut short: the file ends before its totals line"

damaged
sed "s/^totals: .*/totals: $((total + 1))/" "$f" >x && mv x "$f"
read_back
expect "totals changed" 1
error "totals changed" "pmetrace: '$tmp/$f': offset $(printf 0x%x $toff): totals line says $((total + 1)) instructions, its cost lines add up to $total"

# valgrind's first error in its log goes with the message.
damaged
head -n $((tline - 1)) "$f" >x && mv x "$f"
echo "==$pid== Error: can not open cache simulation output file \`$f'" \
    >>d/$log
read_back
expect "log error" 1
error "log error" "pmetrace: '$tmp/$f': offset $(printf 0x%x $toff): cut short: the file ends before its totals line (valgrind's log: ==$pid== Error: can not open cache simulation output file \`$f')"

# The first cost line of leaf, a plain one (no call before it).
damaged
kl=$(awk '/^fn=leaf$/ { f = 1; next } f && /^0x/ { print NR; exit }' "$f")
cost=$(sed -n "${kl}p" "$f" | cut -d' ' -f2)
sed "${kl}d" "$f" >x && mv x "$f"
toff=$(head -n $((tline - 2)) "$f" | wc -c)
read_back
expect "cost line gone" 1
error "cost line gone" "pmetrace: '$tmp/$f': offset $(printf 0x%x $toff): totals line says $total instructions, its cost lines add up to $((total - cost))"

damaged
: >"$f"
read_back
expect "empty" 1
error "empty" "pmetrace: '$tmp/$f': offset 0x0: empty: callgrind could not write it"

damaged
: >"$f"
rm d/$log
read_back
expect "empty, no log" 1
error "empty, no log" "pmetrace: '$tmp/$f': offset 0x0: empty: callgrind could not write it, nor valgrind its log"

# The log of a process killed before its final dump has no summary.
damaged
: >"$f"
grep -v '== Collected : ' "$kept/$log" >d/$log
read_back
expect "killed" 1
error "killed" "pmetrace: '$tmp/$f': process $pid ended before callgrind wrote its last counts (killed by SIGKILL?): they are lost
pmetrace: callgrind wrote no counts: every process ended before writing them"

# A process killed by SIGKILL from outside (a shell's busy loop, once it
# runs): its last counts are lost, and said so; prog's are kept.
mkdir -p t
TMPDIR=$tmp/t $pmetrace -e callgrind -b prog.pme -o out.pme -- sh -c 'sh -c "touch ready;
    while :; do :; done" & while [ ! -e ready ]; do sleep 0.1; done;
    ./prog loop 1; kill -9 $!; wait $!; exit 0' >/dev/null 2>err
got=$?
expect "SIGKILL" 0
grep -Eq "^pmetrace: '$tmp/t/pmetrace\.[A-Za-z0-9]+/cg\.[0-9]+': process [0-9]+ ended before callgrind wrote its last counts \(killed by SIGKILL\?\): they are lost$" err ||
    fail "SIGKILL: $(cat err)"
grep -q '^bucket kloop 302 ' <(./pmecounts out.pme) ||
    fail "SIGKILL: prog's kloop not counted"
[ -z "$(ls -A t)" ] || fail "SIGKILL: left in TMPDIR: $(ls -A t)"

finish
