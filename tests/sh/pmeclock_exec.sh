#!/bin/bash
#
# pmeclock_exec.sh - the preload methods across every exec function of
# libc (the execs fixture execs itself by execl, execle, execlp, execv,
# execve, execvp, execvpe, fexecve and execveat, then exits 9).  Each
# image loads libslowinit, whose constructor uses 50 ms of CPU before the
# preloaded runtime's constructor runs: an ITIMER_PROF left running
# across an exec (libc's execl calls its execve past the preload) then
# expires in every image before the runtime has its handler, and SIGPROF
# kills the program (exit 155, issue 23 items 5 and 19).  The command's
# own status must come back, every exec be recorded, nothing be said.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"

if ! { $cc -g -O1 -fPIC -shared -o "$tmp/libslowinit.so" \
    "$fx/slowinit.c" && $cc -g -O1 -o "$tmp/execs" "$fx/execs.c" \
    -L"$tmp" -lslowinit -Wl,-rpath,"$tmp"; } >"$tmp/build.log" 2>&1; then
	echo "$name: cannot build execs:" >&2
	cat "$tmp/build.log" >&2
	exit 1
fi

for m in itimer timer; do
	run 9 "$m: execs" -m "$m" -o ex -- ./execs
	# (ITIMER_PROF may lose signals on a busy machine: said.)
	grep -v 'SIGPROF signals were lost' "$tmp/err" >"$tmp/said"
	[ ! -s "$tmp/said" ] || fail "$m: execs: said $(cat "$tmp/said")"
	stat ex.PMS
	has "$m: execs: closing record" "^close .* status 9 "
	# pmeclock's exec of the command, then the nine of the chain.
	n=$(grep -c '^thread exec ' "$tmp/stat")
	[ "$n" = 10 ] || fail "$m: execs: $n exec records, not 10"
	# 20 ms in hot() in each of ten images.
	count_ok "$m: execs: samples" "$m" 200000000 10
	between "$m: execs: samples in hot" "$(field sym execs hot)" \
	    $(($(user) * 95 / 100)) "$(user)"
done

finish
