#!/bin/bash
#
# first_build.sh - what a new user of pmebuild meets first (issue 12):
# -x and -l find a bare name as execvp(3) and the dynamic loader would,
# and say in one line where they looked when it is nowhere; an input
# named without its extension is found as NAME.PMD or NAME.pmd, and when
# it is not, the message says which names were tried and suggests a
# .PMD file of a near name, or -x for a program; a misspelt unit in a
# .PMD file gets the nearest declared name of its kind.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
pmebuild="${PME_VALGRIND:-} ${PMEBUILD:-$top/build/pmebuild}"
fx=$top/tests/fixtures/multi

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

# Found, but stripped (as Debian's programs are) and no debug file for
# it: what the file lacks, and its code one bucket "[stripped]"
# (symbols_debugfile tests the rest).
if command -v strip >/dev/null; then
	cp bin/mytool stripped && strip stripped
	expect "-x stripped" 0 $pmebuild -x ./stripped -o c.pme
	err_is "-x stripped" "pmebuild: warning: './stripped': stripped: no debug file found: only the exported functions of .dynsym are named, the rest of its code is one routine named after it in brackets; static functions, modules and lines are missing"
	[ -e c.pme ] || fail "-x stripped: no bucket file written"
fi

# A wrapper script found first in PATH (as a pyenv shim is): says so, and
# what it runs.
mkdir shims && printf '#!/usr/bin/env bash\nexec mytool "$@"\n' >shims/mytool &&
    chmod +x shims/mytool
expect "-x script" 1 env PATH="$tmp/shims:$tmp/bin:$PATH" \
    $pmebuild -x mytool -o d.pme
err_is "-x script" "pmebuild: '$tmp/shims/mytool': a script (#!/usr/bin/env bash), not an ELF file: give the program it runs"
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

# The input's extension: .PMD, else .pmd; the names tried when neither
# is there, and the nearest file of the extension in any case (an edit
# distance of at most a third of the length).
mkdir pmd && cd pmd || exit 1
printf 'DEFINE UNITS: PROGRAM\nPROGRAM P, 1000 - 1FFF\nDEFINE SAMPLING\nPROGRAM P\nEND\n' >typo.pmd
expect "lower-case .pmd" 0 $pmebuild typo out
[ -s out.PME ] || fail "lower-case .pmd: no out.PME"
cp typo.pmd both.PMD
echo garbage >both.pmd
expect "upper case first" 0 $pmebuild both out
expect "misspelt" 1 $pmebuild typo3 out
err_is "misspelt" "pmebuild: cannot open 'typo3.PMD' or 'typo3.pmd': No such file or directory; did you mean 'typo.pmd'?"
expect "other case" 1 $pmebuild TYPO out
err_is "other case" "pmebuild: cannot open 'TYPO.PMD' or 'TYPO.pmd': No such file or directory; did you mean 'typo.pmd'?"
expect "swapped letters in the extension" 1 $pmebuild typo.pdm out
err_is "swapped letters in the extension" "pmebuild: cannot open 'typo.pdm': No such file or directory; did you mean 'typo.pmd'?"
# Too far, or another extension (out.PME is one letter from out.PMD):
# no suggestion.
expect "nothing near" 1 $pmebuild zz out
err_is "nothing near" "pmebuild: cannot open 'zz.PMD' or 'zz.pmd': No such file or directory"
expect "another extension" 1 $pmebuild out out2
err_is "another extension" "pmebuild: cannot open 'out.PMD' or 'out.pmd': No such file or directory"
# In another directory, named with it.
cd "$tmp" || exit 1
expect "in a directory" 1 $pmebuild pmd/typ out
err_is "in a directory" "pmebuild: cannot open 'pmd/typ.PMD' or 'pmd/typ.pmd': No such file or directory; did you mean 'pmd/typo.pmd'?"
# A program given where the statements go.
expect "a program" 1 $pmebuild bin/mytool out
err_is "a program" "pmebuild: cannot open 'bin/mytool.PMD' or 'bin/mytool.pmd': No such file or directory; 'bin/mytool' is a program: pmebuild -x bin/mytool makes a bucket per routine of it"

# A misspelt unit: the nearest name of that kind (a module of the name is
# not one), under the qualifiers given; none when nothing is near.  Among
# thousands of routines, as in SQLite.
{
	echo 'DEFINE UNITS: PROGRAM, MODULE, ROUTINE'
	echo 'PROGRAM P'
	echo 'MODULE sqlite3VdbeExek, 0 - FFF'
	echo 'MODULE "vdbe.c", 1000 - 1FFFF'
	echo 'ROUTINE sqlite3VdbeExec, 1000 - 10FF'
	echo 'ROUTINE sqlite3VdbeExpandSql, 1100 - 11FF'
	awk 'BEGIN { for (i = 0; i < 5000; i++)
		printf "ROUTINE sqlite3Routine%d, %X - %X\n", i,
		    8192 + i * 16, 8192 + i * 16 + 15 }'
	echo 'MODULE "other.c", 20000 - 2FFFF'
	echo 'ROUTINE sqlite3VdbeExecs, 20000 - 200FF'
	echo 'DEFINE SAMPLING'
	echo 'ROUTINE sqlite3VdbeExek'
	echo 'ROUTINE sqlite3VdbeExecs IN "vdbe.c"'
	echo 'ROUTINE sqlite3VdbeExek IN "other.c"'
	echo 'ROUTINE xyzzy'
	echo 'MODULE "vdbe.x" BY ROUTINE'
	echo 'END'
} >misspelt.pmd
expect "misspelt units" 1 $pmebuild misspelt.pmd out
err_is "misspelt units" "pmebuild: misspelt.pmd:5010: ROUTINE 'sqlite3VdbeExek' is not declared; did you mean 'sqlite3VdbeExec'?
pmebuild: misspelt.pmd:5011: ROUTINE 'sqlite3VdbeExecs' IN vdbe.c is not declared; did you mean 'sqlite3VdbeExec'?
pmebuild: misspelt.pmd:5012: ROUTINE 'sqlite3VdbeExek' IN other.c is not declared; did you mean 'sqlite3VdbeExecs'?
pmebuild: misspelt.pmd:5013: ROUTINE 'xyzzy' is not declared
pmebuild: misspelt.pmd:5014: MODULE 'vdbe.x' is not declared; did you mean 'vdbe.c'?
pmebuild: no bucket file written: 5 errors"

finish
