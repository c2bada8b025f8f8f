# tests/sh/lib/trace.sh - sourced by the pmetrace tests; gives what
# lib/common.sh does, and:
#
#	pmetrace fx cc		pmetrace (after PME_VALGRIND),
#				tests/fixtures/trace, the compiler
#	need_valgrind		skips the test (77) without valgrind
#	need_step		skips it off x86-64 (the step engine)
#	need_no_pme_valgrind WHY	skips it under PME_VALGRIND
#	have_pmevg		whether pme's valgrind tool is built
#	engines			the engines that run here: pmevg (where it
#				is built), callgrind, step (x86-64)
#	build_pmecounts		builds ./pmecounts (fixtures/trace/pmecounts.c)
#	build_prog		builds the fixture program in the current folder:
#				./libtr.so, ./prog (PIE), ./prog_nopie
#	eventually SECONDS COMMAND...	whether COMMAND succeeds within SECONDS
#				(valgrind starts slowly on a busy machine)
#	signal_run SIG COMMAND...	runs COMMAND (pmetrace) in a process
#				group of its own, sends it SIG once "ready"
#				is in ./out, and leaves its status in $got

. "${PME_TOP:?}/tests/sh/lib/common.sh"
pmetrace="${PME_VALGRIND:-} $top/trace/pmetrace"
fx=$top/tests/fixtures/trace
cc=${CC:-cc}

need_valgrind() {
	command -v valgrind >/dev/null && return
	echo "valgrind is not installed: the callgrind engine cannot run"
	exit 77
}

need_step() {
	[ "$(uname -m)" = x86_64 ] && return
	echo "the step engine needs x86-64"
	exit 77
}

need_no_pme_valgrind() {
	[ -z "${PME_VALGRIND:-}" ] && return
	echo "$1: not under PME_VALGRIND"
	exit 77
}

have_pmevg() {
	[ -x "$top/trace/vgtool/pmevg-amd64-linux" ]
}

engines() {
	have_pmevg && echo pmevg
	echo callgrind
	[ "$(uname -m)" = x86_64 ] && echo step
}

build_pmecounts() {
	$cc -std=c11 -D_GNU_SOURCE -I"$top/lib" -o pmecounts \
	    "$fx/pmecounts.c" "$top/lib/bucket.c" "$top/lib/container.c" \
	    "$top/lib/util.c" -lz
}

build_prog() {
	$cc -g -O1 -shared -fPIC -o libtr.so "$fx/lib.c" &&
	$cc -g -O1 -pie -fPIE -o prog "$fx/prog.c" -L. -ltr \
	    -Wl,-rpath,"$(pwd)" -pthread &&
	$cc -g -O1 -no-pie -fno-pie -o prog_nopie "$fx/prog.c" -L. -ltr \
	    -Wl,-rpath,"$(pwd)" -pthread
}

eventually() {
	local i
	for i in $(seq $(($1 * 5))); do
		"${@:2}" && return 0
		sleep 0.2
	done
	return 1
}

signal_run() {
	local sig=$1 pid
	shift
	rm -f out
	set -m
	"$@" >out 2>err &
	pid=$!
	set +m
	eventually 120 grep -qs ready out || fail "$sig: the program never ran"
	kill -s "$sig" $pid
	wait $pid
	got=$?
	kill -s KILL -- -$pid 2>/dev/null	# what a failure left running
}
