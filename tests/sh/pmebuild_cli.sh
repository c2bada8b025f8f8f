#!/bin/bash
#
# pmebuild_cli.sh - pmebuild's command line and files: default names and
# extensions, standard input and output, usage errors, no bucket file (and
# an old one untouched) after an error, the quick path -x, LINES /
# SOMELINES / NOLINES with EXE, declared modules and routines matched to
# the compilation units found.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
pmebuild="${PME_VALGRIND:-} ${PMEBUILD:-$top/build/pmebuild}"
dumper=$top/tests/unit/t_pmebuild
fx=$top/tests/fixtures/multi

grep_err() {	# WHAT PATTERN
	grep -q -- "$2" "$tmp/err" ||
	    fail "$1: stderr lacks '$2': $(head -c 500 "$tmp/err")"
}

is_bucketfile() {
	[ "$(head -c 8 "$1" | od -An -c | tr -d ' ')" = '177PMEBUCK' ]
}

cd "$tmp" || exit 1
cat >simple.pmd <<'EOF'
DEFINE UNITS: PROGRAM, MODULE
PROGRAM P
MODULE A, 1000 - 1FFF
DEFINE SAMPLING
PROGRAM P BY MODULE
END
EOF

# Default names: PMEFILE.PMD in, PMEFILE.PME out.
cp simple.pmd PMEFILE.PMD
expect "defaults" 0 $pmebuild
is_bucketfile PMEFILE.PME || fail "defaults: no PMEFILE.PME"
rm -f PMEFILE.PMD PMEFILE.PME
expect "no PMEFILE.PMD" 1 $pmebuild
grep_err "no PMEFILE.PMD" "pmebuild: cannot open 'PMEFILE.PMD': No such file"
[ -e PMEFILE.PME ] && fail "no PMEFILE.PMD: a bucket file was written"

# Extension-less names get .PMD and .PME; operands and -o.
cp simple.pmd gravel.PMD
expect "extension" 0 $pmebuild gravel out
is_bucketfile out.PME || fail "extension: no out.PME"
expect "-o" 0 $pmebuild -o named.pme simple.pmd
is_bucketfile named.pme || fail "-o: no named.pme"
[ -e PMEFILE.PME ] && fail "operands: PMEFILE.PME written too"

# Standard input and standard output.
$pmebuild - -o - <simple.pmd >stdout.pme 2>"$tmp/err" ||
    fail "stdin/stdout: $(cat "$tmp/err")"
is_bucketfile stdout.pme || fail "-o -: standard output is no bucket file"
cmp -s stdout.pme named.pme || fail "-o - differs from a file written"

# Usage.
expect "--help" 0 $pmebuild --help
grep -q "^usage: pmebuild \[-qv\] \[--no-demangle\] \[-o output\] \[input" \
    "$tmp/out" || fail "--help: no usage line"
expect "--version" 0 $pmebuild --version
grep -q "^pmebuild (pme) [0-9]" "$tmp/out" || fail "--version"
expect "bad option" 2 $pmebuild -Z
grep_err "bad option" "^usage: pmebuild"
expect "three operands" 2 $pmebuild a b c
expect "-b without -x" 2 $pmebuild -l libx.so simple.pmd
expect "-b bad" 2 $pmebuild -x /bin/true -b phase
grep_err "-b bad" "'phase' is not module, routine or line"

# An error: status 1, no bucket file, an old one left as it was.
cp named.pme old.pme
cat >bad.pmd <<'EOF'
DEFINE UNITS: PROGRAM
PROGRAM P, 0 - F
BOGUS
DEFINE SAMPLING
PROGRAM P
END
EOF
expect "error" 1 $pmebuild -o old.pme bad.pmd
grep_err "error" "^pmebuild: bad.pmd:3: unknown unit kind 'BOGUS'"
grep_err "error" "^pmebuild: no bucket file written: 1 error$"
cmp -s old.pme named.pme || fail "error: the old bucket file was changed"
ls -a | grep -q '^\.*old\.pme\..' && fail "error: a temporary file was left"

# Input without END, and a file that cannot be written.
head -n 5 simple.pmd >noend.pmd
expect "no END" 1 $pmebuild -o noend.pme noend.pmd
grep_err "no END" "noend.pmd: end of input before END"
[ -e noend.pme ] && fail "no END: a bucket file was written"
expect "unwritable" 1 $pmebuild -o nosuchdir/x.pme simple.pmd
grep_err "unwritable" "nosuchdir/x.pme"
printf 'DEFINE UNITS: P\nP X, 0-F\nEND\n' >nogroups.pmd
expect "no groups" 1 $pmebuild -o ng.pme nogroups.pmd
grep_err "no groups" "no bucket groups were defined"

# The quick path on something that is not a program.
expect "-x missing" 1 $pmebuild -x ./nosuch -o q.pme
grep_err "-x missing" "'./nosuch'"
expect "-x not ELF" 1 $pmebuild -x simple.pmd -o q.pme
grep_err "-x not ELF" "simple.pmd"

# With a program: modules, routines, lines.
if ! gcc -g -O2 -o multi "$fx/main.c" "$fx/util.c" "$fx/hot.c" \
    "$fx/data.c"; then
	fail "cannot build the fixture"
	exit 1
fi
count() {	# FILE KIND: units of that kind in the bucket file
	"$dumper" dump "$1" | awk -v k="$2" '$1 == "unit" && $2 == k' |
	    wc -l
}
buckets() {	# FILE KIND
	"$dumper" dump "$1" | awk -v k="$2" '$1 != "unit" && $2 == k' |
	    cut -d' ' -f1-3 | sort -u | wc -l
}
expect "-x module" 0 $pmebuild -x ./multi -b module -o m.pme
[ "$(buckets m.pme MODULE)" = 3 ] ||
    fail "-b module: $(buckets m.pme MODULE) module buckets, not 3"
expect "-x line" 0 $pmebuild -x ./multi -b line -o l.pme
[ "$(buckets l.pme LINE)" -gt 20 ] || fail "-b line: few line buckets"

# LINES keyword with the default SOMELINES: lines of util.c only.
cat >some.pmd <<'EOF'
DEFINE UNITS: PROGRAM, MODULE, ROUTINE, LINE
PROGRAM P
MODULE util, , , LINES
MODULE MAIN
DEFINE ADDRESSES: EXE "multi"
DEFINE SAMPLING
PROGRAM P BY ROUTINE
END
EOF
expect "SOMELINES" 0 $pmebuild -o some.pme some.pmd
"$dumper" dump some.pme >some.dump
awk '$1 == "unit" && $2 == "LINE"' some.dump >some.lines
[ -s some.lines ] || fail "SOMELINES: no lines for util"
# Every line unit's parent routine belongs to util.c.
for r in $(awk '{ print $4 }' some.lines | sort -u); do
	awk -v r="$r" '$1 == "unit" && $2 == "ROUTINE" && $3 == r { print $4 }' \
	    some.dump | grep -qx util ||
	    fail "SOMELINES: lines under routine $r outside util"
done
# Declared modules took the compilation units' addresses and names stay
# as declared; new modules were added under P.
grep -q "^unit MODULE util P [1-9]" some.dump ||
    fail "declared module util did not match util.c"
grep -q "^unit MODULE main P 0" some.dump && fail "MAIN matched main.c?"
grep -q "^unit MODULE MAIN P [1-9]" some.dump ||
    fail "declared module MAIN did not match main.c (case is folded)"
grep -q "^unit MODULE .*hot.c P [1-9]" some.dump ||
    fail "hot.c was not added under P"

sed 's/^PROGRAM P$/DEFINE OPTIONS: LINES\nPROGRAM P/' some.pmd >all.pmd
expect "LINES" 0 $pmebuild -o all.pme all.pmd
sed 's/^PROGRAM P$/DEFINE OPTIONS: NOLINES\nPROGRAM P/' some.pmd >none.pmd
expect "NOLINES" 0 $pmebuild -o none.pme none.pmd
[ "$(count none.pme LINE)" = 0 ] || fail "NOLINES: lines were read"
[ "$(count all.pme LINE)" -gt "$(count some.pme LINE)" ] ||
    fail "LINES: not more lines than SOMELINES"

# A routine declared under its module is the one EXE fills in.
cat >decl.pmd <<'EOF'
DEFINE UNITS: PROGRAM, MODULE, ROUTINE
PROGRAM P
MODULE hot
ROUTINE hot_loop, , 10
DEFINE ADDRESSES: EXE "multi"
DEFINE SAMPLING
ROUTINE hot_loop
END
EOF
expect "declared routine" 0 $pmebuild -o decl.pme decl.pmd
n=$("$dumper" dump decl.pme | awk '$1 == "unit" && $3 == "hot_loop"' |
    wc -l)
[ "$n" = 1 ] || fail "declared routine: $n units named hot_loop"
n=$("$dumper" dump decl.pme | awk '$1 == "1"' | wc -l)
[ "$n" -gt 2 ] || fail "declared routine: its step of 10 made $n buckets"

# Addresses written after EXE are the module's link-time addresses.
cat >explicit.pmd <<'EOF'
DEFINE UNITS: PROGRAM, MODULE
PROGRAM P
MODULE util
DEFINE ADDRESSES: EXE "multi"
MODULE util, 1000 - 100F
DEFINE SAMPLING
MODULE util
END
EOF
expect "explicit after EXE" 0 $pmebuild -o explicit.pme explicit.pmd
"$dumper" dump explicit.pme | grep -qx "1 MODULE util 1000 1010 multi" ||
    fail "explicit after EXE: $("$dumper" dump explicit.pme | head -1)"

# A library's util.c does not take the program's util.c.
if gcc -g -O2 -shared -fPIC -o libu.so "$fx/util.c" &&
    gcc -g -O2 -o app "$fx/main.c" "$fx/util.c" "$fx/hot.c" "$fx/data.c" \
    -L. -lu; then
	cat >twolib.pmd <<'EOF'
DEFINE UNITS: PROGRAM, MODULE
PROGRAM app
DEFINE ADDRESSES: EXE "app"
DEFINE ADDRESSES: EXE "libu.so"
DEFINE SAMPLING
PROGRAM app BY MODULE
END
EOF
	expect "two util.c" 0 $pmebuild -o twolib.pme twolib.pmd
	"$dumper" dump twolib.pme | awk '$1 != "unit" && $3 ~ /util\.c$/ {
	    print $6 }' | sort -u | tr '\n' ' ' >mods
	[ "$(cat mods)" = "app libu.so " ] ||
	    fail "two util.c: modules are '$(cat mods)', not 'app libu.so '"
else
	fail "cannot build the library fixture"
fi

# Standard output for the bucket file sends PRINT to standard error.
printf 'DEFINE OPTIONS PRINT\n' | cat - simple.pmd >print.pmd
$pmebuild -o - print.pmd >print.pme 2>print.err
is_bucketfile print.pme || fail "-o - with PRINT: not a bucket file"
grep -q "^Bucket group 1: PROGRAM P BY MODULE" print.err ||
    fail "-o - with PRINT: no listing on standard error"

finish
