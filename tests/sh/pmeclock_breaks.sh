#!/bin/bash
#
# pmeclock_breaks - user breaks: pmeclock -e break:ROUTINE and
# u:[MODULE:]ROUTINE, a uprobe on the routine's entry, every call a
# sample, on tests/fixtures/breaks (prog.c: `prog N K D` calls f() N
# times from main() and K times from h(); r() K times from main() and
# K * D times from itself; g() of libg.so K times from h()):
#
# - the samples of each break are exactly the calls: N + K of f(),
#   K * (D + 1) of r(), K of g() in the library (u:libg.so:g); several
#   breaks in one run count as each alone; the program stripped, with f()
#   exported (.dynsym), the same; break:f/10 a tenth of them, and
#   u:PATH:g/3 a third of g()'s;
# - the same counts as pmetrace's exact call counts of the same program
#   (the callgrind engine, the calls column) and as perf's (perf probe
#   -x, perf stat) when this machine has them;
# - with -g, the callers view of each break (pmehisto -M break:f -V
#   callers:f) names the callers the program has, each with its count:
#   f() by main N and h K; r() by main K * (D + 1) (every stack of r has
#   main under it) and by r K * D; g() by h K;  with -G fp the same; the
#   Spy's report, the call graph and the SVG say they count calls of f();
# - an unknown routine is refused before the program runs, with the
#   nearest name (exit 1, nothing written), as is a library the program
#   does not load.
#
# The counts are exact however loaded the machine is: every sample fits
# the ring buffer pmeclock reads (fewer than 300 samples with stacks of
# 8 KiB in 4 MiB; 1100 without in 512 KiB), so none is lost whenever the
# reader runs.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/measures.sh"

need "$pmeclock" "$pmehisto"
fx=$top/tests/fixtures/breaks
cd "$tmp" || exit 1
if ! gcc -O0 -g -shared -fPIC -o libg.so "$fx/lib.c" ||
    ! gcc -O0 -g -o prog "$fx/prog.c" -L. -lg -Wl,-rpath,'$ORIGIN'; then
	fail "cannot build the fixture"
	finish
fi
./prog 1 1 1 >/dev/null || skip "the fixture cannot run here"
need_uprobes -e break:f ./prog 1 1 1

N=1000 K=30 D=5

# ------------------------------------------------------ exact counts

for b in f r; do
	"$pmeclock" -q -e break:$b -o $b.PMS ./prog $N $K $D >/dev/null ||
	    fail "pmeclock -e break:$b failed"
done
"$pmeclock" -q -e u:libg.so:g -o g.PMS ./prog $N $K $D >/dev/null ||
    fail "pmeclock -e u:libg.so:g failed"
is "calls of f()" "$(counts f.PMS break:f | count f)" $((N + K))
is "calls of r()" "$(counts r.PMS break:r | count r)" $((K * (D + 1)))
is "calls of g() in libg.so" "$(counts g.PMS break:libg.so:g | count g)" $K
# The breaks' samples are of their routine only.
is "routines of break:f" "$(counts f.PMS break:f | wc -l)" 1

"$pmeclock" -q -e break:f,break:r,u:libg.so:g -o all.PMS ./prog $N $K $D \
    >/dev/null || fail "pmeclock with three breaks failed"
is "calls of f() beside r() and g()" "$(counts all.PMS break:f | count f)" \
    $((N + K))
is "calls of r() beside f() and g()" "$(counts all.PMS break:r | count r)" \
    $((K * (D + 1)))
is "calls of g() beside f() and r()" \
    "$(counts all.PMS break:libg.so:g | count g)" $K

# One call in 10 (/PERIOD); a library by its path, with a period too.
"$pmeclock" -q -e break:f/10 -o f10.PMS ./prog $N $K $D >/dev/null ||
    fail "pmeclock -e break:f/10 failed"
is "calls of f(), one in 10" "$(counts f10.PMS break:f | count f)" \
    $(((N + K) / 10))
"$pmeclock" -q -e "u:$tmp/libg.so:g/3" -o gp.PMS ./prog $N $K $D \
    >/dev/null || fail "pmeclock -e u:PATH:g/3 failed"
is "calls of g() by the library's path, one in 3" \
    "$(counts gp.PMS "break:$tmp/libg.so:g" | count g)" $((K / 3))

# Stripped: the routine from .dynsym.
gcc -O0 -rdynamic -o stripped "$fx/prog.c" -L. -lg -Wl,-rpath,'$ORIGIN' &&
    strip stripped || fail "cannot build the stripped fixture"
"$pmeclock" -q -e break:f -o s.PMS ./stripped $N $K $D >/dev/null ||
    fail "pmeclock -e break:f of a stripped program failed"
is "calls of f() in the stripped program" \
    "$(counts s.PMS break:f | count f)" $((N + K))

# -------------------------------------------------------------- peers

if command -v valgrind >/dev/null && [ -x "$pmetrace" ] &&
    "$pmebuild" -q -x ./prog -l ./libg.so -o prog.pme &&
    "$pmetrace" -q -e callgrind -b prog.pme -o filled.pme -- \
    ./prog $N $K $D >/dev/null; then
	"$pmehisto" -q -t -b filled.pme -B out.pme -o out.HIS -T csv \
	    >trace.csv || fail "pmehisto of pmetrace's counts failed"
	# routine, calls (the last column)
	awk -F, 'NR > 1 { print $2, $NF }' trace.csv >trace.calls
	is "pmetrace's calls of f()" "$(count f <trace.calls)" \
	    "$(counts f.PMS break:f | count f)"
	is "pmetrace's calls of r()" "$(count r <trace.calls)" \
	    "$(counts r.PMS break:r | count r)"
	is "pmetrace's calls of g()" "$(count g <trace.calls)" \
	    "$(counts g.PMS break:libg.so:g | count g)"
else
	echo "pmeclock_breaks: no pmetrace callgrind engine here (valgrind):" \
	    "pmetrace's counts skipped"
fi

# perf probe's events are the machine's, shared: a group of this run's
# own, deleted at the end.
grp=pmebrk$$
if command -v perf >/dev/null &&
    perf probe -q -x ./prog "$grp:f=f" >/dev/null 2>&1; then
	perf probe -q -x ./prog "$grp:r=r" >/dev/null 2>&1 &&
	    perf probe -q -x ./libg.so "$grp:g=g" >/dev/null 2>&1 ||
	    fail "perf probe of r() or g() failed"
	perf stat -x, -e "$grp:f,$grp:r,$grp:g" -o perf.stat ./prog $N $K $D \
	    >/dev/null || fail "perf stat of the probes failed"
	perf probe -q -d "$grp:*" >/dev/null 2>&1
	pc() { awk -F, -v e="$grp:$1" '$3 == e { print $1 }' perf.stat; }
	is "perf's calls of f()" "$(pc f)" "$(counts f.PMS break:f | count f)"
	is "perf's calls of r()" "$(pc r)" "$(counts r.PMS break:r | count r)"
	is "perf's calls of g()" "$(pc g)" \
	    "$(counts g.PMS break:libg.so:g | count g)"
else
	echo "pmeclock_breaks: perf probe cannot place uprobes here:" \
	    "perf's counts skipped"
fi

# ---------------------------------------------------------- callers

N=200 K=10
# callers FILE.PMS ROUTINE MEASURE: "caller count" of -V callers.
callers() {
	"$pmehisto" -q -x -M "$3" -V callers:"$2" -o - -B /dev/null "$1" |
	    awk '/^Called by:/ { on = 1; next } /^Calls:/ { on = 0 }
	    on && NF >= 4 { print $1, $(NF - 1) }'
}
for G in -g "-G fp"; do
	"$pmeclock" -q $G -e break:f,break:r,u:libg.so:g -o c.PMS \
	    ./prog $N $K $D >/dev/null || fail "pmeclock $G failed"
	callers c.PMS f break:f >f.callers
	is "$G: callers of f()" "$(sort f.callers | tr '\n' ' ')" \
	    "h $K main $N "
	callers c.PMS r break:r >r.callers
	is "$G: callers of r()" "$(sort r.callers | tr '\n' ' ')" \
	    "main $((K * (D + 1))) r $((K * D)) "
	callers c.PMS g break:libg.so:g >g.callers
	is "$G: callers of g()" "$(sort g.callers | tr '\n' ' ')" "h $K "
done
# The views say what was watched: calls of f(), not a clock.
"$pmehisto" -q -x -M break:f -V spy -o - -B /dev/null c.PMS >spy.txt ||
    fail "-V spy -M break:f failed"
grep -q '^Watching: perf_event_open, break:f$' spy.txt ||
    fail "-V spy: $(grep Watching spy.txt)"
grep -q "^Samples: $((N + K)) of break:f, one every event; lost: 0$" \
    spy.txt || fail "-V spy: $(grep Samples spy.txt)"
"$pmehisto" -q -x -M break:f -V callgraph -o - -B /dev/null c.PMS \
    >cg.txt || fail "-V callgraph -M break:f failed"
grep -q "^$((N + K)) samples of break:f, one every event; entries" cg.txt ||
    fail "-V callgraph: $(sed -n 2p cg.txt)"
"$pmehisto" -q -x -M break:f -T svg -o f.svg c.PMS ||
    fail "-T svg -M break:f failed"
grep -q ": $((N + K)) samples of break:f, one every event</text>" f.svg ||
    fail "-T svg: not the measure's head"

# ---------------------------------------------------------- refusals

# ----------------------------------------- probes a killed pmeclock left

# tracefs is the kernel's: a group pmeclock_NS_PID of our PID namespace
# whose PID is gone is removed by the next pmeclock that makes probes;
# one of another namespace, whose PID we cannot see, is not (NS here a
# gone PID too: the first pmeclocks read the group's first number as
# the PID, and removed it).
t=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -w $d/uprobe_events ] && { t=$d; break; }
done
ns=$(stat -Lc %i /proc/self/ns/pid 2>/dev/null)
if [ -n "$t" ] && [ -n "$ns" ]; then
	# f's file offset: its address less its segment's, plus the
	# segment's offset.
	a=$((16#$(nm prog | awk '$3 == "f" { print $1 }')))
	off=
	while read -r _ o v _ _ m _; do
		[ $((a)) -ge $((v)) ] && [ $((a)) -lt $((v + m)) ] &&
		    off=$(printf '0x%x' $((a - v + o)))
	done < <(readelf -lW prog | awk '$1 == "LOAD"')
	sh -c 'exit 0' & dead=$!
	wait $dead
	mine=pmeclock_${ns}_$dead other=pmeclock_${dead}_$dead
	echo "p:$mine/b0 $tmp/prog:$off" >>$t/uprobe_events &&
	    echo "p:$other/b0 $tmp/prog:$off" >>$t/uprobe_events ||
	    fail "cannot make the stale probes (f at $off)"
	"$pmeclock" -q -e break:f -o stale.PMS ./prog 1 1 1 >/dev/null ||
	    fail "pmeclock -e break:f beside stale probes failed"
	[ -d $t/events/$mine ] && fail "$mine (gone PID) not removed"
	[ -d $t/events/$other ] ||
	    fail "$other (another PID namespace's) removed"
	grep -q "^p:pmeclock_${ns}_[0-9]*/b" $t/uprobe_events &&
	    fail "probes left: $(grep pmeclock_ $t/uprobe_events)"
	echo "-:$mine/b0" >>$t/uprobe_events 2>/dev/null
	echo "-:$other/b0" >>$t/uprobe_events 2>/dev/null
else
	echo "pmeclock_breaks: skipped part: no writable uprobe_events or" \
	    "PID namespace: stale probes not tried"
fi

expect "an unknown routine" 1 "$pmeclock" -e break:ff -o no.PMS ./prog 1 1 1
is "an unknown routine's message" "$(cat err)" \
    "pmeclock: 'break:ff': no routine 'ff' in './prog'; did you mean 'f'?"
[ -e no.PMS ] && fail "an unknown routine: no.PMS written"
[ -s out ] && fail "an unknown routine: the program ran"
expect "a library not loaded" 1 "$pmeclock" -e u:libx.so:g -o no.PMS \
    ./prog 1 1 1
is "a library not loaded: its message" "$(cat err)" \
    "pmeclock: break:libx.so:...: './prog' loads no shared library 'libx.so' (ldd ./prog lists those it loads)"
expect "break: and u: of one routine" 2 "$pmeclock" -e break:f,u:f \
    -o no.PMS ./prog 1 1 1
grep -q "^pmeclock: -e: break:f: named twice$" err ||
    fail "break: and u: of one routine: $(cat err)"
expect "a break of no routine" 2 "$pmeclock" -e break: -o no.PMS ./prog 1 1 1
[ -e no.PMS ] && fail "refusals: no.PMS written"

finish
