#!/bin/bash
#
# pmetrace_setid.sh - a set-user-ID or set-group-ID program of another
# user or group (issue 23, item 11): traced, it would run without its
# privileges (the kernel ignores them under ptrace, the step engine's;
# valgrind runs it as the caller), doing something else than it does
# untraced, and the counts would be of that.  pmetrace refuses it before
# it runs, with every engine, saying what it is as pmeclock(1) says it
# (exit 1, the program not run, no output).  Root makes a program
# set-user-ID to nobody and one set-group-ID to nobody's group; skipped
# when not root, without the nobody user, or on a nosuid file system.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
v=${PME_VALGRIND:-}
need "$pmetrace" "$pmebuild"
[ "$(id -u)" = 0 ] ||
    skip "not root: cannot make a set-user-ID program of another user"
id nobody >/dev/null 2>&1 || skip "no user nobody"
findmnt -n -o OPTIONS -T "$tmp" 2>/dev/null | grep -qw nosuid &&
    skip "$tmp is on a nosuid file system: set-user-ID bits are ignored"

cd "$tmp" || exit 1
# The program leaves a file 'ran' behind: whether it ran.
printf '#include <stdio.h>\nint main(void) { return fopen("ran", "w") == NULL; }\n' \
    >ran.c
${CC:-cc} -O1 -o prog ran.c || { fail "cannot build the program"; finish; }
$v "$pmebuild" -q -x ./prog -o prog.PME </dev/null || { fail "pmebuild -x"; finish; }
nobody=$(id -u nobody)
group=$(id -g nobody)
gname=$(getent group "$group" | cut -d: -f1)
cp prog suid && chown nobody suid && chmod 4755 suid
cp prog sgid && chgrp "$group" sgid && chmod 2755 sgid

for e in step callgrind pmevg; do
	for p in suid sgid; do
		if [ $p = suid ]; then
			who="a set-user-ID program of 'nobody' (uid $nobody)"
		else
			who="a set-group-ID program of ${gname:+"'$gname' ("}gid $group${gname:+)}"
		fi
		rm -f ran t.PME
		$v "$pmetrace" -e $e -b prog.PME -o t.PME -- ./$p \
		    </dev/null >out 2>err
		rc=$?
		[ "$rc" = 1 ] || fail "$e $p: exit $rc, not 1: $(cat err)"
		grep -qxF "pmetrace: './$p' is $who: no engine runs it with its privileges (the kernel ignores them under ptrace, valgrind runs it as you): not run" err ||
		    fail "$e $p: stderr is '$(head -c 500 err)'"
		[ -e ran ] && fail "$e $p: the program ran"
		[ -e t.PME ] && fail "$e $p: a bucket file was written"
	done
done

# The same program without the bit is traced.
rm -f ran
$v "$pmetrace" -e step -q -b prog.PME -o t.PME -- ./prog </dev/null 2>err ||
    fail "plain program: $(cat err)"
[ -e ran ] || fail "plain program: it did not run"
finish
