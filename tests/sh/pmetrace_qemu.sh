#!/bin/bash
#
# pmetrace_qemu.sh - the qemu engine (QEMU's user-mode emulator with pme's
# TCG plugin) on the fixture program (tests/fixtures/trace): every bucket
# (the program's own routines, its PLT stubs, _init and _fini, its shared
# library's routines) counts exactly what callgrind's and pmevg's count,
# instructions and calls, on a PIE and a non-PIE build, one thread or
# three, fork and a signal handler, and the calls of calls.c (recursion,
# tail calls, pointers, the PLT), a stripped program's too, longjmp and
# C++ exceptions (tests/fixtures/trace/cxxwork.cc), Debian's xz; rep string
# instructions count by valgrind's rule (pmetrace_rep's figures); a
# program that execs is followed (the new program, or a script's
# interpreter, runs under QEMU too); one that
# dies of a signal (SIGTERM, SIGSEGV, SIGKILL, SIGILL) keeps its counts,
# a forked child that does too
# and its status; one QEMU cannot load is refused with the engine named
# and another suggested, no file written; the libpmetrace region
# counts what pmevg and callgrind count; a command found in PATH
# runs; without qemu-x86_64 pmevg counts, said.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/trace.sh"
KLOOP=302	# instructions per call of kloop (prog.c)

need_valgrind
need_no_pme_valgrind "pmetrace runs valgrind itself"
command -v qemu-x86_64 >/dev/null ||
    { echo "qemu-x86_64 is not installed (Debian's qemu-user)"; exit 77; }
[ -f "$top/trace/qemu/pmeqemu.so" ] ||
    { echo "pme's QEMU plugin is not built (x86-64 only)"; exit 77; }

cd "$tmp" || exit 1
build_prog &&
$cc -g -O1 -no-pie -fno-pie -o rep "$fx/rep.c" &&
build_pmecounts ||
    { echo "cannot build the fixtures" >&2; exit 1; }
$pmebuild -q -x ./prog -l ./libtr.so -o prog.pme &&
$pmebuild -q -x ./prog_nopie -l ./libtr.so -o prog_nopie.pme &&
$pmebuild -q -x ./rep -o rep.pme ||
    { echo "pmebuild failed" >&2; exit 1; }

# counts FILE: "bucket count calls" of every bucket.
counts() {
	./pmecounts "$1" | awk '$1 == "bucket" { print $2, $3, $4 }' | sort
}

# run ENGINE PME OUT WANT-STATUS PROG ARGS...
run() {
	local e=$1 pme=$2 out=$3 want=$4 got
	shift 4
	command -p rm -f "$out"
	$pmetrace -e "$e" -b "$pme" -o "$out" -- "$@" >run.out 2>run.err
	got=$?
	[ "$got" = "$want" ] ||
	    fail "$e $*: exit status $got, not $want: $(head -c 300 run.err)"
}

# same PROG PME WANT-STATUS ARGS...: qemu's counts equal callgrind's and
# pmevg's in every bucket, instructions and calls.
same() {
	local prog=$1 pme=$2 want=$3 e
	shift 3
	case $prog in */*) ;; *) prog=./$prog;; esac
	run qemu "$pme" q.pme "$want" "$prog" "$@"
	counts q.pme >q3.txt
	cut -d' ' -f1,2 q3.txt >q.txt
	[ -s q.txt ] || fail "$prog $*: qemu counted no buckets"
	awk '$3 == "-" { print; exit 1 }' q3.txt >bad.txt ||
	    fail "$prog $*: qemu gave no call counts: $(cat bad.txt)"
	for e in callgrind $(have_pmevg && echo pmevg); do
		run $e "$pme" $e.pme "$want" "$prog" "$@"
		counts $e.pme >$e.txt
		diff -u $e.txt q3.txt >diff.txt ||
		    fail "$prog $*: qemu differs from $e: $(cat diff.txt)"
	done
}

same prog prog.pme 0 calls 7
grep -q '^libleaf 28$' q.txt ||
    fail "calls 7: libleaf in the shared library not counted: $(cat q.txt)"
grep -q '^_init [1-9]' q.txt && grep -q '^strcmp@plt [1-9]' q.txt ||
    fail "calls 7: _init or a PLT stub not counted: $(cat q.txt)"
same prog_nopie prog_nopie.pme 0 calls 7
same prog prog.pme 0 loop 3
grep -qx "kloop $((3 * KLOOP))" q.txt || fail "loop 3: $(cat q.txt)"
same prog prog.pme 0 threads 3 2
grep -qx "kloop $((6 * KLOOP))" q.txt || fail "threads 3 2: $(cat q.txt)"
same prog prog.pme 3 fork 3
grep -qx "kloop $((4 * KLOOP))" q.txt || fail "fork 3: $(cat q.txt)"
same prog prog.pme 0 signal 2
grep -qx "on_usr1 [1-9][0-9]* 0" q3.txt ||
    fail "signal 2: a handler's entry counted as a call: $(cat q3.txt)"

# Calls (tests/fixtures/trace/calls.c): recursion, tail calls by jmp and
# by a conditional jump to a routine's entry, a call through a pointer,
# through the PLT and back from the C library, PIE and not.
$cc -g -O2 -o calls "$fx/calls.c" &&
$cc -g -O2 -no-pie -fno-pie -o calls_nopie "$fx/calls.c" ||
    fail "cannot build calls.c"
for p in calls calls_nopie; do
	$pmebuild -q -x ./$p -o $p.pme || fail "pmebuild $p"
	same $p $p.pme 0 12
	# fib recurses (gcc -O2 makes one of its two calls a loop); leaf:
	# 12 from tail, 6 from ctail, 6 through apply and 6 from tail
	# through apply.
	awk '$1 == "fib" && $3 > 12 { f = 1 } END { exit !f }' q3.txt &&
	    grep -qx "leaf [0-9]* 30" q3.txt &&
	    grep -qx "ctail [0-9]* 12" q3.txt &&
	    grep -qx "qsort@plt [0-9]* 1" q3.txt && grep -q "^cmp [0-9]* [1-9]" q3.txt ||
	    fail "calls $p: $(cat q3.txt)"
done

# A stripped program: its code outside .dynsym's routines is the
# module's bucket, where calls go to addresses no routine starts at (cmp
# through qsort, leaf through the pointer apply gets); they count as
# under callgrind and pmevg.
cp calls calls_strip && strip calls_strip &&
    $pmebuild -q -x ./calls_strip -o calls_strip.pme ||
    fail "cannot strip calls or pmebuild it"
same calls_strip calls_strip.pme 0 12
awk '$3 > 30 { f = 1 } END { exit !f }' q3.txt ||
    fail "calls_strip: no bucket with the calls: $(cat q3.txt)"

# Jumps that return into an older frame after moving the stack pointer
# (x86sp.h): longjmp back to main's setjmp from the C library, and C++
# exceptions landing in a catch from libgcc.  callgrind counts no call
# of main for them; before, qemu counted main's 23 landings of cxxwork
# as calls, pmevg the 10 longjmps of longjmp.
$cc -g -O1 -o longjmp "$fx/longjmp.c" &&
    $pmebuild -q -x ./longjmp -o longjmp.pme ||
    fail "cannot build longjmp.c"
same longjmp longjmp.pme 0 30
grep -qx "main [0-9]* 1" q3.txt && grep -qx "work [0-9]* 30" q3.txt ||
    fail "longjmp 30: $(cat q3.txt)"
if command -v g++ >/dev/null; then
	g++ -g -O1 -o cxxwork "$fx/cxxwork.cc" &&
	    $pmebuild -q -x ./cxxwork -o cxxwork.pme ||
	    fail "cannot build cxxwork.cc"
	same cxxwork cxxwork.pme 0 50
	grep -qx "main [0-9]* 1" q3.txt ||
	    fail "cxxwork 50: main not called once: $(grep ^main q3.txt)"
else
	echo "pmetrace_qemu: no g++: the C++ program not run"
fi

# Debian's xz (stripped: .dynsym's routines and the rest) and its
# liblzma compressing 100 kB: every bucket of both equal.  (python3's
# counts differ from one run to the next under any one engine, as its
# addresses do: pmetrace(1).)
lzma=$(ldd /usr/bin/xz 2>/dev/null | awk '$1 ~ /^liblzma/ { print $3 }')
if [ -x /usr/bin/xz ] && [ -n "$lzma" ]; then
	head -c 100000 "$fx/prog.c" "$fx/calls.c" "$fx/rep.c" /usr/bin/xz \
	    >xzin 2>/dev/null
	$pmebuild -q -x /usr/bin/xz -l "$lzma" -o xz.pme ||
	    fail "pmebuild of xz and $lzma"
	same /usr/bin/xz xz.pme 0 -c -1 xzin
	grep -q "^lzma_code [1-9][0-9]* [1-9]" q3.txt ||
	    fail "xz: lzma_code not counted: $(head -c 300 q3.txt)"
else
	echo "pmetrace_qemu: no /usr/bin/xz with liblzma: not run on it"
fi

# The libpmetrace region (pme_init to pme_exit, marked by the runtime's
# system call to the plugin): every bucket of the program counts what
# pmevg's and callgrind's count, in the main thread or in threads made in
# the region, the runtime shared and static.  The runtime's own routines
# (pme_init, pme_exit and the syscall stub) differ: its marks differ.
# region PROG ARGS...
region() {
	local p=$1 e
	shift
	run qemu "$p.pme" q.pme 0 "./$p" "$@"
	counts q.pme | grep -Ev '^(pme_init|pme_exit|syscall@plt) ' >q3.txt
	cut -d' ' -f1,2 q3.txt >q.txt
	for e in callgrind $(have_pmevg && echo pmevg); do
		run $e "$p.pme" $e.pme 0 "./$p" "$@"
		counts $e.pme | grep -Ev '^(pme_init|pme_exit|syscall@plt) ' \
		    >$e.txt
		diff -u $e.txt q3.txt >diff.txt ||
		    fail "region $p $*: qemu differs from $e: $(cat diff.txt)"
	done
}
$cc -g -O1 -I"$top/trace" -o rt "$fx/rt.c" -L"$top/trace" -lpmetrace \
    -Wl,-rpath,"$top/trace" -pthread &&
$cc -g -O1 -I"$top/trace" -o rt_static "$fx/rt.c" \
    "$top/trace/libpmetrace.a" -lz -pthread ||
    fail "cannot build rt.c with libpmetrace"
for p in rt rt_static; do
	$pmebuild -q -x ./$p -o $p.pme || fail "pmebuild $p"
	region $p 3
	grep -qx "kloop $((3 * KLOOP))" q.txt && grep -qx "main 6" q.txt ||
	    fail "region $p 3: not the region's counts: $(cat q.txt)"
	region $p 2 2
	grep -qx "kloop $((4 * KLOOP))" q.txt ||
	    fail "region $p 2 2: $(cat q.txt)"
done

# A command found in PATH (QEMU does not look there), argv[0] kept.
PATH=$tmp:$PATH run qemu prog.pme q.pme 0 prog loop 3
counts q.pme | grep -qx "kloop $((3 * KLOOP)) 3" ||
    fail "prog in PATH: kloop not 3 x $KLOOP: $(counts q.pme)"

# exec: the new program ("prog loop 1") runs under QEMU too, counted; a
# shell that forks and execs a script that execs.
same prog prog.pme 0 exec 2
grep -qx "kloop $((3 * KLOOP)) 3" q3.txt ||
    fail "exec 2: kloop not 3 x $KLOOP: $(cat q3.txt)"
printf '#!/bin/sh\n./prog loop 1\nexec ./prog loop 2\n' >s.sh &&
    chmod +x s.sh || fail "cannot write s.sh"
same /bin/sh prog.pme 0 -c ./s.sh
grep -qx "kloop $((3 * KLOOP)) 3" q3.txt ||
    fail "sh -c ./s.sh: kloop not 3 x $KLOOP: $(cat q3.txt)"

# rep string instructions: valgrind's rule (pmetrace_rep.sh).
cp "$fx/rep.want" want.txt
run qemu rep.pme q.pme 0 ./rep signal
counts q.pme | awk '$1 != "main" && $1 != "on_alarm" && $1 !~ /@plt$/ &&
    $1 != "_init" && $1 != "_fini" { print $1, $2 }' >q.txt
diff -u want.txt q.txt >diff.txt ||
    fail "rep: qemu's counts differ from the rule: $(cat diff.txt)"

# A program that dies of a signal keeps its counts (QEMU 7.2 ends no
# plugin then: the plugin's guard writes them), its status passed
# through: SIGTERM from itself, every bucket what pmevg and callgrind
# count; SIGSEGV, what pmevg counts but for the faulting instruction,
# which QEMU counts begun (main, one more).
same prog prog.pme 143 kill 2
grep -qx "kloop $((2 * KLOOP))" q.txt || fail "kill 2: $(cat q.txt)"
# A forked child that dies of SIGTERM, waited for by its parent, which
# ends at once: the child's guard has written before pmetrace reads.
same prog prog.pme 0 forkkill 3
grep -qx "kloop $((4 * KLOOP))" q.txt || fail "forkkill 3: $(cat q.txt)"
run qemu prog.pme q.pme 139 ./prog crash 2
counts q.pme >q3.txt
if have_pmevg; then
	run pmevg prog.pme pmevg.pme 139 ./prog crash 2
	counts pmevg.pme | awk '$1 == "main" { $2++ } { print }' >pmevg.txt
	diff -u pmevg.txt q3.txt >diff.txt ||
	    fail "crash 2: qemu differs from pmevg (main + 1): $(cat diff.txt)"
fi
grep -qx "kloop $((2 * KLOOP)) 2" q3.txt || fail "crash 2: $(cat q3.txt)"
# SIGKILL, which QEMU cannot catch (pmevg writes nothing then): work's
# bucket counts what a run that ends by _exit counts.
cat >k.c <<'EOF'
#include <signal.h>
#include <unistd.h>
volatile int sink;
void work(int n) { for (int i = 0; i < n; i++) sink += i; }
int main(int argc, char **argv)
{
	(void)argv;
	work(1000);
	if (argc > 1)
		kill(getpid(), SIGKILL);
	_exit(0);
}
EOF
$cc -g -O1 -o k k.c && $pmebuild -q -x ./k -o k.pme || fail "cannot build k.c"
run qemu k.pme q.pme 0 ./k
counts q.pme | grep '^work ' >want.txt
run qemu k.pme q.pme 137 ./k kill
counts q.pme | grep '^work ' >got.txt
grep -q '^work [1-9][0-9]* 1$' want.txt && diff -u want.txt got.txt >diff.txt ||
    fail "SIGKILL: work's counts differ from _exit's: $(cat want.txt diff.txt)"
# SIGILL (here ud2, which is one natively too): counted, with a word on
# instructions QEMU does not emulate.
printf 'int main(void) { __asm__ volatile("ud2"); return 0; }\n' >ill.c &&
    $cc -g -o ill ill.c && $pmebuild -q -x ./ill -o ill.pme ||
    fail "cannot build ill.c"
run qemu ill.pme q.pme 132 ./ill
grep -q "^pmetrace: the program died of SIGILL under the qemu engine: QEMU may not emulate one of its instructions (try -e pmevg)" \
    run.err || fail "ill: $(cat run.err)"
counts q.pme | grep -q '^main [1-9]' || fail "ill: main not counted"
# A program QEMU cannot load (a script: QEMU loads ELF files only).
printf '#!/bin/sh\nexit 0\n' >script && chmod +x script
run qemu prog.pme q.pme 1 ./script
grep -q "^pmetrace: qemu wrote no counts.*QEMU cannot run this program? try -e pmevg" \
    run.err || fail "script: $(cat run.err)"
[ ! -e q.pme ] || fail "script: a file written"

# qemu-x86_64 not in PATH: said, and pmevg counts instead.
if have_pmevg; then
	mkdir -p noqemu
	printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v valgrind)" \
	    >noqemu/valgrind && chmod +x noqemu/valgrind
	PATH=$tmp/noqemu run qemu prog.pme q.pme 0 ./prog loop 1
	grep -qx "pmetrace: qemu-x86_64 is not installed (Debian's qemu-user): using the pmevg engine" \
	    run.err || fail "no qemu: $(cat run.err)"
	counts q.pme | grep -qx "kloop $KLOOP 1" ||
	    fail "no qemu: pmevg did not count: $(counts q.pme)"
fi

finish
