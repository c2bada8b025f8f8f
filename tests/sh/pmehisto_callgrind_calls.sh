#!/bin/bash
#
# pmehisto_callgrind_calls.sh - the call counts of -T callgrind.  Trace
# input: pmetrace's filled bucket file of tests/fixtures/trace (prog
# calls 5: mid() once, leaf() 5 times, libwork() once, libleaf() 5
# times) as a callgrind profile whose events are the instructions ("Ir")
# and the exact calls into each routine ("Calls"): callgrind_annotate's
# per-function Ir and Calls equal pmehisto -T csv's count and calls of
# the same file for every routine, the program total is the file's total,
# and the calls into the fixture's own routines equal valgrind
# --tool=callgrind's calls= summed per callee on the same program.  With
# line buckets each line's instructions are at its file and line, as the
# CSV has them.  A
# filled bucket file has no callers, so no calls= line.  The call counts
# of clock input (sampled stacks) are tests/sh/pmehisto_exports.sh's.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
fx=$top/tests/fixtures/trace

command -v valgrind >/dev/null ||
    skip "no valgrind: no pmetrace engine that counts calls"
command -v callgrind_annotate >/dev/null ||
    skip "no callgrind_annotate (valgrind)"

cd "$tmp" || exit 1
if ! gcc -g -O2 -shared -fPIC -o libwork.so "$fx/lib.c" ||
    ! gcc -g -O2 -o prog "$fx/prog.c" -L. -lwork -Wl,-rpath,'$ORIGIN' \
    -lpthread; then
	fail "cannot build the fixture"
	exit 1
fi
"$pmebuild" -q -x ./prog -l ./libwork.so -o prog.pme || { fail "pmebuild"; exit 1; }
"$pmetrace" -q -b prog.pme -o filled.pme -- ./prog calls 5 >/dev/null ||
    { fail "pmetrace failed"; exit 1; }

$PME_VALGRIND "$pmehisto" -q -t -b filled.pme -B /dev/null -T callgrind \
    -o out.cg >stdout 2>err || fail "-t -T callgrind: $(cat err)"
[ -s err ] && fail "-t -T callgrind: standard error: $(cat err)"
[ -s stdout ] && fail "-t -T callgrind -o: standard output not empty"
grep -qx 'events: Ir Calls' out.cg || fail "out.cg: not 'events: Ir Calls'"
grep -q '^calls=' out.cg && fail "out.cg: a calls= line, with no caller known"
"$pmehisto" -q -t -b filled.pme -B /dev/null -T csv -o out.HIS >out.csv 2>err ||
    fail "-t -T csv: $(cat err)"

# "file:function Ir Calls" of callgrind_annotate (a routine without a
# file is in ???), and the same of the CSV's routines (its outside
# counts aside: they are callgrind's "[module]" functions).
callgrind_annotate --auto=no --threshold=100 out.cg 2>err >ann ||
    fail "callgrind_annotate: $(cat err)"
grep -q WARNING err && fail "callgrind_annotate warned: $(cat err)"
sed -n '/file:function$/,$p' ann | sed 's/([^)]*)//g' | tr -d , |
    awk 'NF >= 3 && $1 ~ /^[0-9]+$/ && $3 !~ /:\[/ { print $3, $1, $2 }' |
    LC_ALL=C sort >cg.fns
awk -F, 'NR > 1 && ($7 != 0 || $NF != 0) {
	f = $9 == "" ? "???" : $9; k = f ":" $2; ir[k] += $7; c[k] += $NF }
    END { for (k in ir) print k, ir[k], c[k] }' out.csv | LC_ALL=C sort >csv.fns
[ -s csv.fns ] && diff -u csv.fns cg.fns >diff ||
    { fail "callgrind_annotate's Ir and Calls against the CSV's:"; cat diff >&2; }
total=$("$pmehisto" -q -t -b filled.pme -B /dev/null -o - |
    sed -n 's/^Total: *//p')
got=$(sed -n 's/^ *\([0-9,]*\) (100.0%).*PROGRAM TOTALS$/\1/p' ann | tr -d ,)
[ -n "$total" ] && [ "$got" = "$total" ] ||
    fail "callgrind_annotate: program total $got, not the file's $total"
for want in "mid 1" "leaf 5" "libwork 1" "libleaf 5"; do
	set -- $want
	grep -q ":$1 [0-9]* $2\$" cg.fns ||
	    fail "callgrind_annotate: $1 not called $2 times: $(grep ":$1 " cg.fns)"
done

# Line buckets (pmebuild -x -b line): each line's instructions under its
# routine, at its own file and line (fi= where it is another file than
# the routine's), as the CSV has them.
"$pmebuild" -q -x ./prog -l ./libwork.so -b line -o line.pme &&
    "$pmetrace" -q -b line.pme -o lfill.pme -- ./prog calls 5 >/dev/null ||
    fail "pmetrace with line buckets"
"$pmehisto" -q -t -b lfill.pme -B /dev/null -T callgrind -o line.cg 2>err ||
    fail "-t -T callgrind, line buckets: $(cat err)"
"$pmehisto" -q -t -b lfill.pme -B /dev/null -T csv -o l.HIS >line.csv 2>err ||
    fail "-t -T csv, line buckets: $(cat err)"
awk '/^fl=/ || /^fi=/ || /^fe=/ { v = substr($0, 4)
	if (match(v, /^\([0-9]+\)/)) { id = substr(v, 2, RLENGTH - 2)
		v = substr(v, RLENGTH + 2); if (v != "") f[id] = v; else v = f[id] }
	file = v }
    /^[0-9]+ [0-9]+ [0-9]+$/ && file != "???" && $2 != 0 { n[file ":" $1] += $2 }
    END { for (k in n) print k, n[k] }' line.cg | LC_ALL=C sort >line.got
awk -F, 'NR > 1 && $9 != "" && $7 != 0 { n[$9 ":" $10] += $7 }
    END { for (k in n) print k, n[k] }' line.csv | LC_ALL=C sort >line.want
[ "$(wc -l <line.want)" -gt 10 ] && diff -u line.want line.got >diff ||
    { fail "-t -T callgrind's instructions per line against the CSV's:"; cat diff >&2; }
grep -q '^fi=([0-9]*) /usr/include/' line.cg ||
    echo "note: no line of a header in another file here (fi=)"

# valgrind's callgrind on the same program: its calls= summed per
# callee, for the fixture's own routines (those with a source file here).
valgrind -q --tool=callgrind --callgrind-out-file=vg.out ./prog calls 5 \
    >/dev/null 2>vg.err || { fail "valgrind --tool=callgrind: $(cat vg.err)"; finish; }
awk 'function nm(s,    id) {
		if (match(s, /^\([0-9]+\)/)) {
			id = substr(s, 2, RLENGTH - 2); s = substr(s, RLENGTH + 1)
			sub(/^ /, "", s)
			if (s != "") names[id] = s; else s = names[id]
		}
		return s
	}
	/^cfn=/ { cfn = nm(substr($0, 5)); next }
	/^fn=/ { nm(substr($0, 4)); next }
	/^calls=/ { split($0, a, /[= ]/); c[cfn] += a[2] }
	END { for (k in c) print k, c[k] }' vg.out | LC_ALL=C sort >vg.calls
grep -E "^($fx/prog\.c|$fx/lib\.c):" cg.fns |
    awk '$3 != 0 { sub(/^.*:/, "", $1); print $1, $3 }' | LC_ALL=C sort >pme.calls
[ "$(wc -l <pme.calls)" -ge 4 ] || fail "too few routines called: $(cat pme.calls)"
join pme.calls vg.calls >both
diff -u pme.calls <(cut -d' ' -f1,3 both) >diff ||
    { fail "Calls against valgrind --tool=callgrind's calls:"; cat diff >&2; }
finish
