#!/bin/bash
#
# pmetrace_engines.sh - pmetrace's engines on the fixture program
# (tests/fixtures/trace): they agree exactly, routine by routine, on the
# program's own routines and its shared library's, for a PIE and a
# non-PIE build, one thread or three, fork, a hundred children at once,
# exec, a signal handler, a
# crash and a kill (pmevg, where built, and callgrind in calls too;
# pmevg and step in a crash); SIGTERM sent to pmetrace ends the program, whose
# counts are written; the hand-written loop gives its known count; the
# callgrind engine's counts equal callgrind_annotate's per-function Ir
# and its calls equal callgrind_annotate's call counts on the same run.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/trace.sh"
KLOOP=302	# instructions per call of kloop (prog.c)

need_valgrind
need_no_pme_valgrind "pmetrace runs valgrind itself"
need_step

cd "$tmp" || exit 1
build_prog &&
build_pmecounts ||
    { echo "cannot build the fixtures" >&2; exit 1; }
$pmebuild -q -x ./prog -l ./libtr.so -o prog.pme &&
$pmebuild -q -x ./prog_nopie -l ./libtr.so -o prog_nopie.pme ||
    { echo "pmebuild failed" >&2; exit 1; }

ROUTINES='kloop|leaf|mid|loops|on_usr1|thread|main|libleaf|libwork'

# counts FILE: "routine count calls" lines of the fixture's routines.
counts() {
	./pmecounts "$1" | awk -v r="^($ROUTINES)\$" \
	    '$1 == "bucket" && $2 ~ r { print $2, $3, $4 }' | sort
}

# run ENGINE PME OUT WANT-STATUS PROG ARGS...
run() {
	local e=$1 pme=$2 out=$3 want=$4 got
	shift 4
	$pmetrace -e "$e" -b "$pme" -o "$out" -- "$@" >run.out 2>run.err
	got=$?
	[ "$got" = "$want" ] ||
	    fail "$e $*: exit status $got, not $want: $(head -c 300 run.err)"
}

# both PROG PME WANT-STATUS ARGS...: the engines, counts compared:
# instructions of all three, and calls of pmevg and callgrind.
both() {
	local prog=$1 pme=$2 want=$3
	shift 3
	run callgrind "$pme" cg.pme "$want" "./$prog" "$@"
	run step "$pme" st.pme "$want" "./$prog" "$@"
	counts cg.pme >cgcalls.txt
	cut -d' ' -f1,2 cgcalls.txt >cg.txt
	counts st.pme | cut -d' ' -f1,2 >st.txt
	diff -u cg.txt st.txt >diff.txt ||
	    fail "$prog $*: the engines differ: $(cat diff.txt)"
	have_pmevg || return
	run pmevg "$pme" pv.pme "$want" "./$prog" "$@"
	counts pv.pme >pvcalls.txt
	diff -u cgcalls.txt pvcalls.txt >diff.txt ||
	    fail "$prog $*: pmevg differs from callgrind: $(cat diff.txt)"
}

# kloop_is FILE N: kloop counted N calls' worth.
kloop_is() {
	local got
	got=$(counts "$1" | awk '$1 == "kloop" { print $2 }')
	[ "$got" = $(($2 * KLOOP)) ] ||
	    fail "$3: kloop counted $got, not $2 x $KLOOP"
}

both prog prog.pme 0 calls 7
both prog_nopie prog_nopie.pme 0 calls 7
counts st.pme | grep -q '^libleaf 28 ' ||
    fail "calls 7: libleaf in the shared library not counted: $(cat st.txt)"
both prog prog.pme 0 loop 3
kloop_is cg.pme 3 "loop 3 callgrind"
kloop_is st.pme 3 "loop 3 step"
both prog prog.pme 0 threads 3 2
kloop_is st.pme 6 "threads 3 2"
both prog prog.pme 3 fork 3
kloop_is cg.pme 4 "fork 3 callgrind"
both prog prog.pme 0 children 100
kloop_is st.pme 100 "children 100 step"
kloop_is cg.pme 100 "children 100 callgrind"
both prog prog.pme 0 exec 2
kloop_is st.pme 3 "exec 2"
both prog prog.pme 0 signal 2
both prog prog.pme 143 kill 2

# SIGTERM sent to pmetrace: the program ends of it, its counts written.
for e in $(engines); do
	signal_run TERM $pmetrace -e $e -b prog.pme -o $e.pme -- ./prog sleep 2
	[ "$got" = 143 ] ||
	    fail "$e: SIGTERM: exit status $got, not 143: $(cat err)"
	kloop_is $e.pme 2 "$e: SIGTERM"
done

# A crash: status 139, counts written; callgrind does not charge the basic
# block that faulted (pmetrace(1)), so only the loop is compared.
run callgrind prog.pme cg.pme 139 ./prog crash 2
run step prog.pme st.pme 139 ./prog crash 2
kloop_is cg.pme 2 "crash callgrind"
kloop_is st.pme 2 "crash step"
# pmevg charges the block that faulted up to the faulting instruction, as
# stepping does.
if have_pmevg; then
	run pmevg prog.pme pv.pme 139 ./prog crash 2
	counts st.pme | cut -d' ' -f1,2 >st.txt
	counts pv.pme | cut -d' ' -f1,2 >pv.txt
	diff -u st.txt pv.txt >diff.txt ||
	    fail "crash: pmevg differs from step: $(cat diff.txt)"
fi

# callgrind_annotate on the same run: Ir per function, calls per callee.
rm -rf keep && mkdir keep
TMPDIR=$tmp/keep PMETRACE_KEEP=1 $pmetrace -e callgrind -b prog.pme -o cg.pme -- \
    ./prog calls 7 >/dev/null 2>run.err || fail "kept run: $(cat run.err)"
cgout=$(ls keep/pmetrace.*/cg.* 2>/dev/null | head -n 1)
if [ -z "$cgout" ]; then
	fail "no callgrind output kept"
else
	# "  1,234 ( 0.12%)  file:function [object]" -> "1234 file:function"
	strip='s/,//g; s/^ *([0-9]+) +\([^)]*\) +/\1 /'
	callgrind_annotate --inclusive=no --threshold=100 "$cgout" \
	    2>/dev/null | sed -E "$strip" | awk -v r="^($ROUTINES)\$" '
	    $2 ~ /:/ { f = $2; sub(/.*:/, "", f); if (f ~ r) ir[f] += $1 }
	    END { for (f in ir) print f, ir[f] }' | sort >annotate.txt
	counts cg.pme | awk '$2 > 0 { print $1, $2 }' >ours.txt
	diff -u annotate.txt ours.txt >diff.txt ||
	    fail "Ir differs from callgrind_annotate's: $(cat diff.txt)"
	# Callers "N < file:caller (Kx)" precede their callee "N * file:f".
	callgrind_annotate --tree=caller --threshold=100 "$cgout" \
	    2>/dev/null | sed -E "$strip" | awk -v r="^($ROUTINES)\$" '
	    $2 == "<" { for (i = 3; i <= NF; i++) if ($i ~ /^\([0-9]+x\)$/) {
	        n = $i; gsub(/[(x)]/, "", n); sum += n } }
	    $2 == "*" { f = $3; sub(/.*:/, "", f);
	        if (f ~ r) calls[f] += sum; sum = 0 }
	    NF == 0 { sum = 0 }
	    END { for (f in calls) print f, calls[f] }' | sort >acalls.txt
	counts cg.pme | awk '$3 > 0 { print $1, $3 }' >ocalls.txt
	grep -q '^leaf 7$' ocalls.txt || fail "leaf: not 7 calls"
	grep -q '^libleaf 7$' ocalls.txt || fail "libleaf: not 7 calls"
	diff -u acalls.txt ocalls.txt >diff.txt ||
	    fail "calls differ from callgrind_annotate's: $(cat diff.txt)"
	rm -rf keep
fi

finish
