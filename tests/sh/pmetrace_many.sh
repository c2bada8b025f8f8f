#!/bin/bash
#
# pmetrace_many.sh - the callgrind engine on a program of twenty shared
# libraries built here (tests/fixtures/trace/manylib.c, manymain.c),
# more objects than its first table held: every library's routine is
# counted exactly (workN: N calls of 20N + 2 instructions), as the step
# engine counts it.  And pmetrace's temporary directory is gone after a
# normal run, an error, a crash of the program, SIGTERM, SIGHUP and
# SIGINT sent to pmetrace (passed on to the program, whose counts are
# written and whose status is pmetrace's) and the terminal's ^C.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/trace.sh"

need_valgrind
need_no_pme_valgrind "pmetrace runs valgrind itself"

cd "$tmp" || exit 1
libs=
for n in $(seq 1 20); do
	$cc -g -O1 -shared -fPIC -DN=$n -o libm$n.so "$fx/manylib.c" ||
	    { echo "cannot build libm$n.so" >&2; exit 1; }
	libs="$libs -lm$n"
done
$cc -g -O1 -o main "$fx/manymain.c" -L. $libs -Wl,-rpath,"$tmp" &&
$cc -g -O1 -DN=1 -o other "$fx/manylib.c" -nostartfiles -e work1 &&
build_pmecounts || { echo "cannot build the fixtures" >&2; exit 1; }
$pmebuild -q -x ./main $(for n in $(seq 1 20); do echo -l ./libm$n.so; done) \
    -o m.pme && $pmebuild -q -x ./other -o other.pme ||
    { echo "pmebuild failed" >&2; exit 1; }

# The counts workN must have: N(20N + 2).
for n in $(seq 1 20); do
	echo "work$n $((n * (20 * n + 2)))"
done | sort >want.txt

# works WHAT FILE: FILE's workN counts are the known ones.
works() {
	./pmecounts "$2" | awk '$1 == "bucket" && $2 ~ /^work/ { print $2, $3 }' |
	    sort >got.txt
	diff -u want.txt got.txt >diff.txt ||
	    fail "$1: the libraries' routines: $(cat diff.txt)"
}

# clean WHAT: pmetrace left nothing in its TMPDIR.
clean() {
	[ -z "$(ls -A t)" ] || fail "$1: left in TMPDIR: $(ls -A t)"
	rm -rf t
}

# run WHAT STATUS ARGS...: pmetrace with a TMPDIR of its own.
run() {
	local what=$1 want=$2 got
	shift 2
	mkdir -p t
	TMPDIR=$tmp/t $pmetrace "$@" >out 2>err
	got=$?
	[ "$got" = "$want" ] ||
	    fail "$what: exit status $got, not $want: $(head -c 300 err)"
	clean "$what"
}

run "normal" 0 -b m.pme -o df.pme -- ./main
works "default engine" df.pme
run "callgrind" 0 -e callgrind -b m.pme -o cg.pme -- ./main
works "callgrind" cg.pme
if [ "$(uname -m)" = x86_64 ]; then
	run "step" 0 -e step -b m.pme -o st.pme -- ./main
	works "step" st.pme
fi
run "error" 1 -b other.pme -o o.pme -- ./main
grep -q "made for another program" err || fail "error: $(cat err)"
run "crash" 139 -b m.pme -o crash.pme -- ./main crash
works "crash" crash.pme

# signal SIG STATUS: SIG sent to pmetrace while the program waits.
signal() {
	mkdir -p t
	rm -f sig.pme
	signal_run $1 env TMPDIR=$tmp/t $pmetrace -b m.pme -o sig.pme -- \
	    ./main sleep
	[ "$got" = "$2" ] ||
	    fail "$1: exit status $got, not $2: $(head -c 300 err)"
	works "$1" sig.pme
	clean "$1"
}

signal TERM 143
signal HUP 129
signal INT 130

# The terminal's ^C reaches the program and pmetrace alike: pmetrace
# lets the program have it, and writes its counts.
if command -v tmux >/dev/null; then
	. "$top/tests/sh/lib/tty.sh"
	mkdir -p t
	TTY_COMMAND="trap : INT; TMPDIR=$tmp/t $top/trace/pmetrace -b m.pme \
	    -o tty.pme -- ./main sleep >tty.out" TTY_COLS=80 TTY_ROWS=24
	tty_start "$tmp"
	on_screen() {
		screen | grep -qF -- "$1"
	}
	if ! eventually 120 grep -qs ready tty.out; then
		fail "^C: the program never ran: $(screen)"
	else
		tmux -L "$tty_sock" send-keys -t t C-c
		eventually 120 on_screen "EXIT=130" &&
		    works "^C" tty.pme ||
		    fail "^C: pmetrace did not end with 130: $(screen)"
	fi
	clean "^C"
fi

finish
