#!/bin/bash
#
# writes_limit.sh - outputs that cannot be written whole (issue 23, item
# 16's stats part, item 18), under a file size limit (ulimit -f, with
# SIGXFSZ ignored, which makes write(2) fail with EFBIG as a full disk
# fails it with ENOSPC):
#  - stats -o says so, naming the output and the cause, exits 1 and
#    leaves the previous output as it was;
#  - a program of the event API whose implicit events.sim, written at
#    exit, does not fit says so on standard error, naming the file and
#    the cause, and the previous events.sim stays; its exit status stays
#    its own (pme_event(3)).
# The events are those of tests/fixtures/stats/sim.c.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
v=${PME_VALGRIND:-}
stats=$top/stats/stats
need "$stats"
cd "$tmp" || exit 1
cc_libpme sim "$top/tests/fixtures/stats/sim.c" || finish
./sim 2000 || { fail "sim: exit $?"; finish; }

# stats -o under a limit of 4 blocks (4 KB): the PostScript is larger.
$v "$stats" -T ps -o whole.ps </dev/null 2>err || fail "stats: $(cat err)"
[ "$(stat -c %s whole.ps)" -gt 8192 ] ||
    fail "the PostScript is too small to test a limit: $(stat -c %s whole.ps)"
echo OLD >u.ps
(ulimit -f 4; exec $v "$stats" -T ps -o u.ps) </dev/null >out 2>err
rc=$?
[ "$rc" = 1 ] || fail "stats -o under ulimit -f: exit $rc, not 1: $(cat err)"
grep -qx "stats: 'u.ps': write failed: File too large" err ||
    fail "stats -o under ulimit -f: stderr is '$(head -c 500 err)'"
[ "$(cat u.ps)" = OLD ] || fail "stats -o under ulimit -f: u.ps replaced"
ls -a | grep -q '^\.u\.ps\.' && fail "a temporary file was left: $(ls -a)"

# The implicit events.sim at exit: the whole run's file is about 30 KB.
mkdir ev && cd ev || exit 1
echo OLD >events.sim
(trap '' XFSZ; ulimit -f 8; exec ../sim 2000) </dev/null >out 2>err
rc=$?
[ "$rc" = 0 ] || fail "sim under ulimit -f: exit $rc, not its own 0: $(cat err)"
grep -qx "sim: pme_event: 'events.sim': write: File too large: not written, any previous file of the name kept" err ||
    fail "sim under ulimit -f: stderr is '$(head -c 500 err)'"
[ "$(cat events.sim)" = OLD ] || fail "sim under ulimit -f: events.sim replaced"
[ "$(ls -A)" = "$(printf 'err\nevents.sim\nout')" ] ||
    fail "sim under ulimit -f: files left: $(ls -A)"
cd .. || exit 1
finish
