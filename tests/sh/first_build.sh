#!/bin/bash
#
# first_build.sh - what a new user of pmebuild meets first (issue 12):
# -x and -l find a bare name as execvp(3) and the dynamic loader would,
# and say in one line where they looked when it is nowhere.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
pmebuild="${PME_VALGRIND:-} ${PMEBUILD:-$top/build/pmebuild}"
fx=$top/tests/fixtures/multi

# expect WHAT STATUS COMMAND...: runs COMMAND (output in $tmp/out and
# $tmp/err) and checks its exit status.
expect() {
	local what=$1 want=$2 got
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	got=$?
	[ "$got" = "$want" ] ||
	    fail "$what: exit status $got, not $want: $(head -c 500 "$tmp/err")"
}

# err_is WHAT TEXT: standard error is exactly TEXT.
err_is() {
	[ "$(cat "$tmp/err")" = "$2" ] ||
	    fail "$1: stderr is '$(head -c 500 "$tmp/err")', not '$2'"
}

grep_err() {	# WHAT PATTERN
	grep -qF -- "$2" "$tmp/err" ||
	    fail "$1: stderr lacks '$2': $(head -c 500 "$tmp/err")"
}

cd "$tmp" || exit 1
command -v gcc >/dev/null || skip "no gcc to build the fixture program"
mkdir bin lib here
gcc -g -O2 -o bin/mytool "$fx/main.c" "$fx/util.c" "$fx/hot.c" \
    "$fx/data.c" || fail "cannot build the fixture program"
gcc -g -O2 -shared -fPIC -o lib/libfx.so "$top/tests/fixtures/shlib/lib.c" ||
    fail "cannot build the fixture library"
# A file of the name that is not executable is passed over, as execvp does.
mkdir bin0
echo 'not a program' >bin0/mytool

# -x with a bare name: found in PATH, read from there.
expect "-x in PATH" 0 env PATH="$tmp/bin0:$tmp/bin:$PATH" \
    $pmebuild -v -x mytool -o a.pme
grep_err "-x in PATH" "DEFINE ADDRESSES: EXE \"$tmp/bin/mytool\""
grep_err "-x in PATH" 'PROGRAM "mytool" BY ROUTINE'
[ -s a.pme ] || fail "-x in PATH: no bucket file"

# Found nowhere: one line saying where pmebuild looked.
expect "-x nowhere" 1 env PATH="$tmp/bin0:/nonexistent" \
    $pmebuild -x mytool -o b.pme
err_is "-x nowhere" "pmebuild: 'mytool': not in the current directory nor in PATH ($tmp/bin0:/nonexistent)"
[ -e b.pme ] && fail "-x nowhere: a bucket file was written"

# A file in the current directory comes first; a name with a '/' is
# used as given, never searched for.
cp bin/mytool here/mytool
cd here || exit 1
expect "-x here" 0 env PATH=/nonexistent $pmebuild -v -x mytool -o ../c.pme
cd "$tmp" || exit 1
grep_err "-x here" 'DEFINE ADDRESSES: EXE "mytool"'
expect "-x with a slash" 1 env PATH="$tmp/bin" \
    $pmebuild -x ./mytool -o d.pme
err_is "-x with a slash" "pmebuild: './mytool': open: No such file or directory"

# -l with a bare name: LD_LIBRARY_PATH, then the system's directories.
expect "-l in LD_LIBRARY_PATH" 0 env LD_LIBRARY_PATH="$tmp/lib" \
    $pmebuild -v -x bin/mytool -l libfx.so -o e.pme
grep_err "-l in LD_LIBRARY_PATH" "DEFINE ADDRESSES: EXE \"$tmp/lib/libfx.so\""
expect "-l nowhere" 1 env LD_LIBRARY_PATH="$tmp/bin" \
    $pmebuild -x bin/mytool -l libfx.so -o f.pme
[ "$(wc -l <"$tmp/err")" = 1 ] ||
    fail "-l nowhere: not one line: $(cat "$tmp/err")"
grep_err "-l nowhere" "pmebuild: 'libfx.so': not in the current directory nor in the dynamic loader's directories ($tmp/bin:"
grep_err "-l nowhere" ":/usr/lib)"
# The C library, by the name the loader knows it by, where there is one.
if [ -e /lib/x86_64-linux-gnu/libc.so.6 ] && [ "$(uname -m)" = x86_64 ]
then
	expect "-l libc.so.6" 0 env -u LD_LIBRARY_PATH \
	    $pmebuild -q -v -x bin/mytool -l libc.so.6 -o g.pme
	grep_err "-l libc.so.6" \
	    'DEFINE ADDRESSES: EXE "/lib/x86_64-linux-gnu/libc.so.6"'
fi

finish
