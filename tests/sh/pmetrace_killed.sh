#!/bin/bash
#
# pmetrace_killed.sh - pmetrace killed by SIGKILL while its program runs
# (issue 23, item 17): the program (under valgrind, or traced by the step
# engine) does not run on unattended, and no temporary directory is left
# in TMPDIR.  pmetrace's guard (prog.h, pmeclock's) kills the program and
# removes the directory; the step engine's tracee dies with its tracer
# (PTRACE_O_EXITKILL).  The program writes its pid and waits for a file
# 'stop', which the test makes only to end a program left running.  The
# waits are bounded (a hang fails the test), no time is asserted.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
need "$pmetrace" "$pmebuild"
[ "$(uname -m)" = x86_64 ] || skip "pmetrace's engines need x86-64"

cd "$tmp" || exit 1
cat >prog.c <<'EOF'
#include <stdio.h>
#include <unistd.h>
int
main(void)
{
	FILE *f = fopen("started.tmp", "w");

	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	rename("started.tmp", "started");
	while (access("stop", F_OK) != 0)
		usleep(10000);
	return 0;
}
EOF
${CC:-cc} -O1 -o prog prog.c || { fail "cannot build the program"; finish; }
"$pmebuild" -q -x ./prog -o prog.PME </dev/null || { fail "pmebuild -x"; finish; }

# until N COMMAND...: COMMAND succeeds within N tenths of a second.
until_ok() {
	local n=$1 i=0
	shift
	while ! "$@"; do
		i=$((i + 1))
		[ $i -ge "$n" ] && return 1
		sleep 0.1
	done
}
gone() { ! kill -0 "$1" 2>/dev/null; }
empty() { [ -z "$(ls -A "$1")" ]; }

engines=step
command -v valgrind >/dev/null && engines="pmevg callgrind step"
for e in $engines; do
	rm -f started stop
	rm -rf t && mkdir t
	TMPDIR=$tmp/t "$pmetrace" -q -e $e -b prog.PME -o out.PME -- ./prog \
	    </dev/null >out 2>err &
	tp=$!
	if ! until_ok 1200 test -e started; then
		fail "$e: the program did not start: $(cat err)"
		kill -KILL $tp 2>/dev/null
		wait $tp 2>/dev/null
		continue
	fi
	pid=$(cat started)
	kill -KILL $tp
	wait $tp 2>/dev/null
	until_ok 600 gone "$pid" ||
	    fail "$e: the program ($pid) runs on after pmetrace's SIGKILL"
	until_ok 600 empty t ||
	    fail "$e: left in TMPDIR: $(ls -A t)"
	touch stop
	until_ok 600 gone "$pid"
	[ -e out.PME ] && fail "$e: a bucket file was written"
done
finish
