#!/bin/bash
#
# pmetrace_rep.sh - string instructions with a rep prefix
# (tests/fixtures/trace/rep.c): both engines count each routine as
# pmetrace(1) says, once per pass valgrind makes through the instruction
# (an iteration, or the check that finds the count zero): a count of 0
# counts 1, a count of n that runs out n + 1, a repe/repne compare or
# scan that stops on its condition after k iterations k; the address-size
# prefix counts ecx; a long rep stosb interrupted by a timer's signal
# handler again and again under the step engine counts the same.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/trace.sh"

need_valgrind
need_no_pme_valgrind "pmetrace runs valgrind itself"
need_step

cd "$tmp" || exit 1
# Not PIE: the address-size prefix makes rep stosb store at edi.
$cc -g -O1 -no-pie -fno-pie -o rep "$fx/rep.c" &&
build_pmecounts ||
    { echo "cannot build the fixtures" >&2; exit 1; }
$pmebuild -q -x ./rep -o rep.pme || { echo "pmebuild failed" >&2; exit 1; }

# Each routine: 4 instructions around the string instruction, which
# counts as many passes as the rule gives (fixtures/trace/rep.want).
cp "$fx/rep.want" want.txt

for e in $(engines); do
	$pmetrace -q -e $e -b rep.pme -o $e.pme -- ./rep signal >$e.err 2>&1 ||
	    fail "$e: exit status $?: $(head -c 300 $e.err)"
	# PLT stubs (memcpy@plt: pmebuild -x makes them routines) are
	# pmetrace_plt's; .init's and .fini's code (_init, _fini, run once
	# by the dynamic loader) must have the same counts in every engine.
	./pmecounts $e.pme | awk '$1 == "bucket" && $2 != "main" &&
	    $2 != "on_alarm" && $2 !~ /@plt$/ && $2 != "_init" &&
	    $2 != "_fini" { print $2, $3 }' | sort >$e.txt
	diff -u want.txt $e.txt >diff.txt ||
	    fail "$e: rep counts differ from the rule: $(cat diff.txt)"
	./pmecounts $e.pme | awk '$1 == "bucket" && ($2 == "_init" ||
	    $2 == "_fini") && $3 > 0 { print $2, $3 }' | sort >$e.init
	[ "$(wc -l <$e.init)" = 2 ] ||
	    fail "$e: _init and _fini not both counted: $(cat $e.init)"
	[ -n "${first:-}" ] || first=$e
	cmp -s $first.init $e.init ||
	    fail "$e: _init and _fini: $(cat $e.init), $first: $(cat $first.init)"
done
# libpmetrace stepping its own region (the whole of main's calls) by the
# same rule: shared and static.
if [ "$(uname -m)" = x86_64 ] && [ -f "$top/trace/libpmetrace.so" ]; then
	$cc -g -O1 -no-pie -fno-pie -DPME_REGION -I"$top/trace" -o rep_rt \
	    "$fx/rep.c" -L"$top/trace" -lpmetrace -Wl,-rpath,"$top/trace" \
	    -pthread &&
	$cc -g -O1 -no-pie -fno-pie -DPME_REGION -I"$top/trace" \
	    -o rep_rt_static "$fx/rep.c" "$top/trace/libpmetrace.a" -lz \
	    -pthread ||
	    { echo "cannot build the libpmetrace fixtures" >&2; exit 1; }
	for p in rep_rt rep_rt_static; do
		$pmebuild -q -x ./$p -o rep.pme &&
		rm -f region.pme &&
		./$p signal >$p.err 2>&1 ||
		    fail "$p: exit status $?: $(head -c 300 $p.err)"
		# the fixture's routines (the static one holds the runtime's)
		./pmecounts region.pme | awk 'NR == FNR { want[$1] = 1; next }
		    $1 == "bucket" && ($2 in want) { print $2, $3 }' \
		    want.txt - | sort >$p.txt
		diff -u want.txt $p.txt >diff.txt ||
		    fail "$p: rep counts differ from the rule: $(cat diff.txt)"
	done
fi

# The step engine ran sig_stos for long enough to be interrupted.
alarms=$(./pmecounts step.pme | awk '$2 == "on_alarm" { print $3 }')
[ "${alarms:-0}" -gt 0 ] ||
    fail "step: on_alarm never ran during the long rep stosb"

finish
