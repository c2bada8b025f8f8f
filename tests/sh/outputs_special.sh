#!/bin/bash
#
# outputs_special.sh - outputs named by a device, a FIFO or a link to one
# are written there, as a shell user expects: `-o /dev/null` discards
# (no "/dev/null.HIS" made by the extension rule, no device replaced by a
# file), `-o /dev/stdout` and bash's `-o >(...)` write to the pipe, and a
# FIFO gets the same bytes a file would.  A symbolic link that another
# user planted is still replaced, never followed (as root: the test makes
# one owned by nobody; skipped otherwise).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

# ok WHAT COMMAND...: the command exits 0.
ok() {
	local what=$1
	shift
	"$@" 2>"$tmp/err" || fail "$what: exit status $?: $(cat "$tmp/err")"
}

# dev_unchanged WHAT: /dev holds no new file and /dev/null and
# /dev/stdout are what they were.
dev_unchanged() {
	[ -c /dev/null ] || fail "$1: /dev/null is no longer a device"
	[ -L /dev/stdout ] || fail "$1: /dev/stdout is no longer a link"
	local now
	now=$(ls -A /dev | sort)
	[ "$now" = "$dev_before" ] ||
	    fail "$1: /dev changed: $(diff <(echo "$dev_before") <(echo "$now") | grep '^[<>]')"
}

cd "$tmp" || exit 1
gcc -g -O1 -pthread -o prog "$top/tests/fixtures/clock/spin.c" -ldl ||
    { fail "cannot build the fixture"; exit 1; }
dev_before=$(ls -A /dev | sort)

# pmebuild: -o /dev/null, and /dev/stdout into a file equal to -o file.
ok "pmebuild -o /dev/null" "$pmebuild" -q -x ./prog -o /dev/null
dev_unchanged "pmebuild -o /dev/null"
ok "pmebuild -o file" "$pmebuild" -q -x ./prog -o prog.pme
"$pmebuild" -q -x ./prog -o /dev/stdout >viastdout.pme 2>"$tmp/err" ||
    fail "pmebuild -o /dev/stdout: $(cat "$tmp/err")"
cmp -s prog.pme viastdout.pme ||
    fail "pmebuild -o /dev/stdout: not the bytes of -o prog.pme"
dev_unchanged "pmebuild -o /dev/stdout"

# pmeclock.
ok "pmeclock -o /dev/null" "$pmeclock" -q -o /dev/null -- ./prog cpu 50
dev_unchanged "pmeclock -o /dev/null"
ok "pmeclock -o file" "$pmeclock" -q -o run.PMS -- ./prog cpu 200

# pmehisto: the .HIS and the filled .PME to /dev/null; the .HIS through
# /dev/stdout, a FIFO and >(...) equal to the one written to a file.
ok "pmehisto -o /dev/null -B /dev/null" "$pmehisto" -q -c -b prog.pme \
    -B /dev/null -o /dev/null -T none run.PMS
dev_unchanged "pmehisto -o /dev/null"
ok "pmehisto -o file" "$pmehisto" -q -c -b prog.pme -B filled.pme \
    -o file.HIS -T none run.PMS
"$pmehisto" -q -c -b prog.pme -B filled.pme -o /dev/stdout -T none \
    run.PMS >stdout.HIS 2>"$tmp/err" ||
    fail "pmehisto -o /dev/stdout: $(cat "$tmp/err")"
cmp -s file.HIS stdout.HIS ||
    fail "pmehisto -o /dev/stdout: not the .HIS written to a file"
mkfifo fifo
cat fifo >fifo.HIS &
reader=$!
ok "pmehisto -o fifo" "$pmehisto" -q -c -b prog.pme -B filled.pme \
    -o fifo -T none run.PMS
wait $reader
[ -p fifo ] || fail "pmehisto -o fifo: the FIFO was replaced"
[ ! -e fifo.HIS.HIS ] && cmp -s file.HIS fifo.HIS ||
    fail "pmehisto -o fifo: not the .HIS written to a file"
ok "pmehisto -o >(...)" "$pmehisto" -q -c -b prog.pme -B filled.pme \
    -o >(cat >procsub.HIS) -T none run.PMS
for i in $(seq 50); do
	cmp -s file.HIS procsub.HIS && break
	sleep 0.1
done
cmp -s file.HIS procsub.HIS ||
    fail "pmehisto -o >(...): not the .HIS written to a file"
dev_unchanged "pmehisto -o /dev/stdout"

# pmetrace, with the step engine (no valgrind needed) on a tiny static
# program.
if [ -x "$pmetrace" ] && printf 'int main(void) { return 0; }\n' |
    gcc -static -O1 -o tiny -x c - 2>/dev/null; then
	ok "pmetrace -o /dev/null" "$pmetrace" -q -e step -f -b prog.pme \
	    -o /dev/null -- ./tiny
	dev_unchanged "pmetrace -o /dev/null"
else
	echo "outputs_special: no static libc here: pmetrace not tried"
fi

# A link another user planted to a file of ours: replaced, not followed.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	echo "victim" >victim
	ln -s "$tmp/victim" planted.HIS
	chown -h nobody planted.HIS
	ok "pmehisto -o planted link" "$pmehisto" -q -c -b prog.pme \
	    -B filled.pme -o planted -T none run.PMS
	[ "$(cat victim)" = victim ] ||
	    fail "planted link: the victim was written through it"
	[ -f planted.HIS ] && [ ! -L planted.HIS ] && cmp -s file.HIS planted.HIS ||
	    fail "planted link: not replaced by the .HIS"
	# Even when it leads to a device.
	ln -s /dev/null planted2.HIS
	chown -h nobody planted2.HIS
	ok "pmehisto -o planted link to /dev/null" "$pmehisto" -q -c \
	    -b prog.pme -B filled.pme -o planted2 -T none run.PMS
	[ -f planted2.HIS ] && [ ! -L planted2.HIS ] ||
	    fail "planted link to a device: followed, not replaced"
else
	echo "outputs_special: not root: planted links of another user not tried"
fi

finish
