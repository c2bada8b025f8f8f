#!/bin/bash
#
# pmehisto_stale.sh - the default pipeline's bucket file against samples
# it was not made for (issue 23, items 1 and 6):
#
#   - the quick path's PMEFILE.PME (pmehisto with no bucket file, or
#     pmebuild -x) is pme's own: made again, said in one line, when the
#     samples are of another build of the program (the work moved to
#     another routine), of another program, or when a debug file was
#     found since it was made; -q says nothing; -V caliper after a plain
#     pmehisto has its thread, process and instruction tables;
#   - a bucket file made from a .PMD is the user's: samples of another
#     build of a file it names are an error that says what to do, and
#     the file stays as it was;
#   - in an empty directory pmehisto says to run pmeclock first.
#
# The programs are built here, twice from one source: the hot routine is
# alpha in one build and beta in the other, so the hot row is each
# run's whatever the load.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
cc=${CC:-cc}
cd "$tmp" || exit 1

cat >prog.c <<'EOF'
#include <stdlib.h>
volatile double sink;
__attribute__((noinline)) void alpha(long n)
{ double s = 0; for (long i = 0; i < n; i++) s += i * 0.5; sink = s; }
__attribute__((noinline)) void beta(long n)
{ double s = 0; for (long i = 0; i < n; i++) s += i * 0.25; sink = s; }
__attribute__((noinline)) void gamma_(long n)
{ double s = 0; for (long i = 0; i < n; i++) s += i * 0.125; sink = s; }
int main(int argc, char **argv)
{ WORK(argc > 1 ? atol(argv[1]) : 100000000); return 0; }
EOF
n=60000000

# build WORK NAME: prog.c built as NAME with WORK its hot routine.
build() {
	$cc -g -O2 -DWORK="$1" -o "$2" prog.c ||
	    { echo "cannot build $2" >&2; exit 1; }
}

# ph ARGS...: pmehisto, not on a terminal; output in out, messages in err.
ph() {
	$PME_VALGRIND "$pmehisto" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
}

# err_is TEXT WHAT: standard error is exactly TEXT.
err_is() {
	[ "$(cat "$tmp/err")" = "$1" ] ||
	    { fail "$2: stderr is not '$1':"; sed 's/^/    /' "$tmp/err" >&2; }
}

# top_is ROUTINE WHAT: the histogram's first row (by count) is ROUTINE.
top_is() {
	local top
	top=$(awk -F'|' 'NF >= 2 && /%/ { gsub(/ /, "", $1); print $1; exit }' \
	    "$tmp/out")
	[ "$top" = "$1" ] ||
	    { fail "$2: the hot row is '$top', not '$1':"; head -20 "$tmp/out" >&2; }
}

record() {	# PROGRAM: recorded into PMEFILE.PMS
	"$pmeclock" -q -F 1000 -- "$@" || fail "pmeclock $* failed"
}

# --- another build of the program ---------------------------------------------

build alpha prog
record ./prog $n
ph -T none -o -
err_is "pmehisto: no 'PMEFILE.PME': a bucket per routine of the recorded program (-x)" "first run"
top_is alpha "first run"

# The work moves to beta: the second report named alpha (trace input:
# the old counts), or counted beta outside the old buckets.
build beta prog
record ./prog $n
ph -T none -o -
err_is "pmehisto: 'PMEFILE.PMS': samples of another build of '$tmp/prog': the quick path's buckets in 'PMEFILE.PME' made again (-x)" \
    "another build"
top_is beta "another build"
# Made again: the next run shows the counts it holds, beta's.
ph -T none -o -
top_is beta "the file made again"
# -V caliper after a plain pmehisto: its tables are the samples'.
ph -V caliper -T none -o -
grep -q "^None: trace input" out &&
    fail "-V caliper: tables left out: $(grep '^None' out | head -1)"
grep -A6 "^Thread Summary" out | grep -Eq "^ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9,?-]+ +prog$" ||
    { fail "-V caliper: no thread row"; head -20 out >&2; }

# pmebuild -x's file is the quick path's too; -q says nothing.
build alpha prog
"$pmebuild" -q -x ./prog || fail "pmebuild -x failed"
build gamma_ prog
record ./prog $n
ph -q -T none -o -
err_is "" "-q"
top_is gamma_ "pmebuild -x's file, another build"

# --- another program ----------------------------------------------------------

build alpha other
record ./other $n
ph -T none -o -
err_is "pmehisto: 'PMEFILE.PMS': samples of another program, '$tmp/other': the quick path's buckets in 'PMEFILE.PME' made again (-x)" \
    "another program"
top_is alpha "another program"
grep -q '^PROGRAM "other" BY ROUTINE' "$tmp/out" || fail "another program: not its buckets"

# --- a debug file found since -------------------------------------------------

if command -v objcopy >/dev/null && command -v readelf >/dev/null; then
	mkdir dbg nodbg && build beta sprog &&
	objcopy --only-keep-debug sprog sprog.debug && strip sprog ||
	    fail "cannot split the debug file"
	id=$(readelf -n sprog | sed -n 's/.*Build ID: *//p')
	mkdir -p "dbg/.build-id/${id:0:2}" &&
	mv sprog.debug "dbg/.build-id/${id:0:2}/${id:2}.debug"
	export PME_DEBUG_FILE_DIRECTORY=$tmp/nodbg
	record ./sprog $n
	rm -f PMEFILE.PME
	ph -q -T none -o -
	top_is "[sprog]" "stripped, no debug file"
	export PME_DEBUG_FILE_DIRECTORY=$tmp/dbg
	ph -c -T none -o -
	err_is "pmehisto: '$tmp/sprog': a debug file found now: the quick path's buckets in 'PMEFILE.PME' made again (-x)" \
	    "debug file installed"
	top_is beta "debug file installed"
	ph -c -T none -o -
	err_is "" "debug file used"
	unset PME_DEBUG_FILE_DIRECTORY
else
	echo "the debug file's check was skipped: no objcopy or readelf"
fi

# --- a definition's bucket file -----------------------------------------------

build alpha prog
printf '%s\n' "DEFINE UNITS: PROGRAM, MODULE, ROUTINE" "PROGRAM \"prog\"" \
    "DEFINE ADDRESSES: EXE \"$tmp/prog\"" "DEFINE SAMPLING" \
    "PROGRAM \"prog\" BY ROUTINE" "END" >PMEFILE.PMD
rm -f PMEFILE.PME
"$pmebuild" -q || fail "pmebuild failed"
cp PMEFILE.PME def.PME
build beta prog
record ./prog $n
echo old >PMEFILE.HIS
for q in "" -q; do
	ph $q -T none
	[ $? = 1 ] || fail ".PMD $q: exit status not 1"
	err_is "pmehisto: 'PMEFILE.PMS': samples of another build of '$tmp/prog' than 'PMEFILE.PME' has buckets of (build-id differs): make it again from its definition (pmebuild), or use -x -B FILE for a bucket per routine" \
	    ".PMD $q"
	cmp -s def.PME PMEFILE.PME || fail ".PMD $q: the bucket file was replaced"
	[ "$(cat PMEFILE.HIS)" = old ] || fail ".PMD $q: the histogram file was replaced"
done
# Made again from its definition: the samples are counted in it.
"$pmebuild" -q || fail "pmebuild again failed"
ph -c -s -T none -o -
err_is "" ".PMD made again"
top_is beta ".PMD made again"
grep -q "^main  *|" out || fail ".PMD made again: not its rows"


# --- an empty directory -------------------------------------------------------

mkdir empty && cd empty || exit 1
for m in "" -c -x -V; do
	[ "$m" = -V ] && m="-V caliper"
	ph $m
	[ $? = 1 ] || fail "empty directory $m: exit status not 1"
	err_is "pmehisto: no 'PMEFILE.PMS' here: record a run first with pmeclock (pmeclock -- PROGRAM [ARG ...]), or name a sample file" \
	    "empty directory $m"
done
ph -t
err_is "pmehisto: no 'PMEFILE.PME' here: count a run with pmetrace first, or name a bucket file with -b" \
    "empty directory -t"
[ -z "$(ls)" ] || fail "empty directory: files left: $(ls)"
cd .. || exit 1
# On a terminal: said before the seed's questions, which it asked.
if command -v tmux >/dev/null; then
	TTY_COMMAND="$pmehisto" TTY_COLS=120 TTY_ROWS=10
	. "$top/tests/sh/lib/tty.sh"
	tty_start "$tmp/empty"
	wait_for "EXIT=1" &&
	screen | grep -q "record a run first with pmeclock" ||
	    fail "tty: not said what to run first"
	screen | grep -q "Clock or Trace" && fail "tty: a question asked"
else
	echo "the terminal check was skipped: tmux is not installed"
fi
finish
