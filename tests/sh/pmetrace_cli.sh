#!/bin/bash
#
# pmetrace_cli.sh - pmetrace's command line and files: usage errors, the
# default names and extensions, the program's exit status, no bucket file,
# a bucket file for another program or build (and -f), a command that is
# not there, CLEARCOUNTS and ACCUMCOUNTS over two runs, the totals and
# outside counts, valgrind missing from PATH (the step engine, said so).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/trace.sh"

grep_err() {	# WHAT PATTERN
	grep -q -- "$2" "$tmp/err" ||
	    fail "$1: stderr lacks '$2': $(head -c 500 "$tmp/err")"
}

need_no_pme_valgrind "pmetrace runs valgrind itself"

cd "$tmp" || exit 1
$cc -g -O1 -shared -fPIC -o libtr.so "$fx/lib.c" &&
$cc -g -O1 -o prog "$fx/prog.c" -L. -ltr -Wl,-rpath,"$tmp" -pthread &&
sed 's/sink += i;/sink += i + 1;/' "$fx/prog.c" >prog2.c &&
$cc -g -O1 -o prog2 prog2.c -L. -ltr -Wl,-rpath,"$tmp" -pthread &&
build_pmecounts ||
    { echo "cannot build the fixtures" >&2; exit 1; }
$pmebuild -q -x ./prog -l ./libtr.so -o prog.pme ||
    { echo "pmebuild failed" >&2; exit 1; }

# Usage.
expect "--help" 0 $pmetrace --help
grep -q '^usage: pmetrace \[-fPqv\] \[-b bucketfile\] \[-e engine\] \[-o output\] \[--start routine\]$' \
    "$tmp/out" && grep -q '^ *\[--stop routine\] \[--\] command \[argument \.\.\.\]$' \
    "$tmp/out" || fail "--help: no usage line"
expect "--version" 0 $pmetrace --version
grep -q '^pmetrace (pme) [0-9]' "$tmp/out" || fail "--version"
expect "no command" 2 $pmetrace
grep_err "no command" '^usage: pmetrace'
expect "bad option" 2 $pmetrace -Z ./prog
expect "bad engine" 2 $pmetrace -e nosuch ./prog
grep_err "bad engine" "pmetrace: 'nosuch': no such engine"
expect "-b without argument" 2 $pmetrace -b

# Commands that are not there: 127, as a shell says.
expect "not found" 127 $pmetrace -b prog.pme -- nosuchcommand
grep_err "not found" "pmetrace: 'nosuchcommand': command not found"
expect "no file" 127 $pmetrace -b prog.pme -- ./nosuch
grep_err "no file" "pmetrace: './nosuch': No such file or directory"

# No bucket file: nothing run, nothing written.
expect "no PMEFILE.PME" 1 $pmetrace -- ./prog exit 0
grep_err "no PMEFILE.PME" "pmetrace: 'PMEFILE.PME': cannot open: No such file"
expect "no -b file" 1 $pmetrace -b nosuch -- ./prog exit 0
grep_err "no -b file" "'nosuch.PME'"
[ -e PMEFILE.PME ] && fail "no bucket file: PMEFILE.PME written"

if command -v valgrind >/dev/null; then
	# Default names, extensions, the program's status.
	cp prog.pme PMEFILE.PME
	expect "defaults" 5 $pmetrace -- ./prog exit 5
	./pmecounts PMEFILE.PME | grep -q '^info measure 2 runs 1 ' ||
	    fail "defaults: PMEFILE.PME not filled"
	expect "extension" 0 $pmetrace -b PMEFILE -o filled -- ./prog calls 3
	[ -f filled.PME ] || fail "extension: no filled.PME"
	./pmecounts filled.PME >counts.txt
	grep -q '^bucket leaf 12 3$' counts.txt ||
	    fail "calls 3: leaf not 12 instructions in 3 calls"
	# total = buckets + outside + unmapped
	awk '$1 == "bucket" { s += $3 } $1 == "module" { s += $3 }
	    $1 == "info" { t = $7; s += $9 }
	    END { if (s != t) { print s, t; exit 1 } }' counts.txt ||
	    fail "the counts do not add up to the total"
	grep -q '^module .*libc.so.6 [1-9]' counts.txt ||
	    fail "no outside counts for libc"
	expect "killed" 143 $pmetrace -b prog.pme -o k.pme -- ./prog kill 1
	expect "crash" 139 $pmetrace -b prog.pme -o c.pme -- ./prog crash 1
	grep -q '^bucket kloop 302 ' <(./pmecounts c.pme) ||
	    fail "crash: counts not written"

	# Another program, another build, and -f.
	expect "other program" 1 $pmetrace -b prog.pme -o o.pme -- /bin/true
	grep_err "other program" "'prog.pme': made for another program or build than '/.*true'"
	[ -e o.pme ] && fail "other program: a bucket file was written"
	cp prog prog.orig && cp prog2 prog
	expect "other build" 1 $pmetrace -b prog.pme -o o.pme -- ./prog exit 0
	grep_err "other build" "build-ids differ; -f counts it anyway"
	expect "-f" 0 $pmetrace -q -f -b prog.pme -o o.pme -- ./prog calls 2
	grep -q '^bucket leaf [1-9][0-9]* 2$' <(./pmecounts o.pme) ||
	    fail "-f: leaf not counted"
	cp prog.orig prog

	# CLEARCOUNTS (the default) and ACCUMCOUNTS over two runs.
	expect "clear 1" 0 $pmetrace -b prog.pme -o clear.pme -- ./prog calls 2
	expect "clear 2" 0 $pmetrace -b clear.pme -o clear.pme -- ./prog calls 2
	grep -q '^bucket leaf 8 2$' <(./pmecounts clear.pme) ||
	    fail "CLEARCOUNTS: counts not cleared"
	grep -q ' runs 1 ' <(./pmecounts clear.pme) || fail "CLEARCOUNTS: runs"
	cat >acc.pmd <<-'EOF2'
	DEFINE UNITS: PROGRAM, MODULE, ROUTINE
	PROGRAM P
	DEFINE OPTIONS: ACCUMCOUNTS
	DEFINE ADDRESSES: EXE "prog"
	DEFINE SAMPLING
	PROGRAM P BY ROUTINE
	END
	EOF2
	$pmebuild -q -o acc.pme acc.pmd || fail "pmebuild acc.pmd"
	expect "accum 1" 0 $pmetrace -b acc.pme -o acc.pme -- ./prog calls 2
	expect "accum 2" 0 $pmetrace -b acc.pme -o acc.pme -- ./prog calls 3
	grep -q '^bucket leaf 20 5$' <(./pmecounts acc.pme) ||
	    fail "ACCUMCOUNTS: leaf not 8 + 12 in 2 + 3 calls"
	grep -q ' runs 2 ' <(./pmecounts acc.pme) || fail "ACCUMCOUNTS: runs"
	expect "-v" 0 $pmetrace -v -b prog.pme -o v.pme -- ./prog exit 0
	# The default engine: pme's valgrind tool where it was built.
	if [ -x "$top/trace/vgtool/pmevg-amd64-linux" ]; then
		grep_err "-v" "^pmetrace: engine pmevg$"
	else
		grep_err "-v" "^pmetrace: engine callgrind$"
	fi
	grep_err "-v" "^pmetrace: wrote 'v.pme': [0-9]* instructions"
fi

# valgrind missing: the step engine, and a message saying so.
if [ "$(uname -m)" = x86_64 ]; then
	mkdir -p nobin
	expect "no valgrind" 4 env PATH="$tmp/nobin" $top/trace/pmetrace \
	    -b prog.pme -o s.pme -- ./prog exit 4
	grep_err "no valgrind" "^pmetrace: valgrind is not installed (not found in PATH): using the step engine$"
	./pmecounts s.pme | grep -q '^bucket main [1-9][0-9]* -$' ||
	    fail "no valgrind: main not counted by the step engine"
fi

finish
