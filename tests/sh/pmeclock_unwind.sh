#!/bin/bash
#
# pmeclock_unwind.sh - pmeclock -g unwinds call chains from the CFI, in
# the collector, on code without frame pointers.  tests/fixtures/unwind/
# calls.c is built here at -O1 and -O2 with -fomit-frame-pointer: a leaf
# util called from alpha (3/4 of the time) and beta (1/4), a recursion 12
# deep, two threads.  pmehisto -T folded with pmebuild -x's routines must
# name util's callers (main;burn;alpha;util and main;burn;beta;util, in
# the known proportion within a bound from the counts), the recursion's
# depth and the threads' own stacks; every stack that does not is a
# truncated chain, which the sample file counts (at most a tenth here);
# the folded counts sum to the samples.  A copy of the stack too short
# for the chains (-G dwarf,64) truncates them: the file counts them and
# pmeclock says so.  -G's spellings and errors; -g with the timer method
# unwinds from the CFI too (libunwind in the runtime), or says it walks
# frame pointers where the runtime is built without libunwind.  Skipped
# where perf_event_open is refused or pmeclock is built without elfutils'
# libdw.  Before the unwinder,
# pmeclock -g on this program gave util no caller at all (the kernel's
# frame-pointer walk stops at once).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"
. "$top/tests/sh/lib/unwind.sh"

need_unwinding

for o in O1 O2; do
	$cc -$o -g -fomit-frame-pointer -pthread -o "calls$o" \
	    "$top/tests/fixtures/unwind/calls.c" >build.log 2>&1 &&
	    "$pmebuild" -q -x "./calls$o" -o "calls$o.PME" >>build.log 2>&1 ||
	    { fail "cannot build calls$o: $(cat build.log)"; finish; }
done

# folded O FILE: pmehisto -T folded of FILE.PMS with calls$o's routines
# into FILE.folded; the folded counts must sum to the samples.  (The runs
# take fixed intervals, -j 0, so that the samples' weight counts them.)
folded() {
	if ! "$pmehisto" -q -T folded -b "calls$1.PME" -B out.PME \
	    -o out.HIS "$2.PMS" >"$2.folded" 2>herr; then
		fail "pmehisto -T folded $2.PMS: $(cat herr)"
		return
	fi
	stat "$2.PMS"
	# Samples in periods: a timer sample that stands for several
	# (an overrun) counts for each, in pmehisto as here.
	n=$(awk '$1 == "method" { p = $4 } $1 == "samples" { w = $4 }
	    END { print (p > 0 ? int(w / p + 0.5) : 0) }' "$tmp/stat")
	trunc=$(field truncated)
	sum=$(awk '{ s += $NF } END { print s + 0 }' "$2.folded")
	[ "$sum" = "$n" ] ||
	    fail "$2: the folded stacks count $sum samples, the file $n"
}

# stacks FILE ERE: the samples of the stacks of FILE.folded matching ERE.
stacks() {
	awk -v re="$2" '{ s = $0; sub(/ [0-9]+$/, "", s) }
	    s ~ re { n += $NF } END { print n + 0 }' "$1.folded"
}

# caller_ok WHAT FILE GOOD: the stacks holding util are those GOOD
# matches, but for at most the truncated chains; a tenth at most are.
caller_ok() {
	local all good
	all=$(stacks "$2" '(^|;)util(;|$)')
	good=$(stacks "$2" "$3")
	[ "$all" -ge $((n / 2)) ] ||
	    fail "$1: util in $all stacks of $n samples"
	[ $((all - good)) -le "$trunc" ] ||
	    fail "$1: $((all - good)) of $all stacks with util do not match" \
	    "'$3' ($trunc chains truncated):
$(grep -E "(^|;)util(;| )" "$2.folded" | grep -Ev "$3" | head -5)"
	[ $((trunc * 10)) -le "$n" ] ||
	    fail "$1: $trunc of $n chains truncated"
}

for o in O1 O2; do
	run 0 "$o shares" -j 0 -g -F 1000 -o "sh$o" -- "./calls$o" shares 400
	[ -s err ] && fail "$o shares: standard error: $(cat err)"
	folded "$o" "sh$o"
	caller_ok "$o shares" "sh$o" '(^|;)main;burn;(alpha|beta);util(;\[kernel\](_\[k\])?)*$'
	a=$(stacks "sh$o" ';alpha;util(;|$)')
	b=$(stacks "sh$o" ';beta;util(;|$)')
	# alpha's share of util is 3/4: four binomial deviations, and two.
	dev=$(calc "4 * sqrt(($a + $b) * 3 / 16) + 2")
	between "$o shares: util under alpha, of $((a + b))" "$a" \
	    $(((a + b) * 3 / 4 - dev)) $(((a + b) * 3 / 4 + dev))

	run 0 "$o rec" -j 0 -g -F 1000 -o "rec$o" -- "./calls$o" rec 300
	folded "$o" "rec$o"
	# rec12 calls rec, which recurses 11 deep: 12 frames (rec12's call
	# is a tail call at -O2: a jump, no frame).
	caller_ok "$o rec" "rec$o" '(^|;)main;burn;(rec12;)?rec;rec;rec;rec;rec;rec;rec;rec;rec;rec;rec;rec;util(;\[kernel\](_\[k\])?)*$'

	run 0 "$o threads" -j 0 -g -F 1000 -o "thr$o" -- "./calls$o" threads 250
	folded "$o" "thr$o"
	caller_ok "$o threads" "thr$o" '(^|;)(thread_alpha;burn;alpha|thread_beta;burn;beta);util(;\[kernel\](_\[k\])?)*$'
	a=$(stacks "thr$o" 'thread_alpha;burn;alpha;util')
	b=$(stacks "thr$o" 'thread_beta;burn;beta;util')
	dev=$(calc "4 * sqrt($a + $b) + 4")
	between "$o threads: util under thread_alpha, of $((a + b))" \
	    $((2 * a)) $((a + b - dev)) $((a + b + dev))
done

# A copy of 64 bytes of stack cannot hold 12 frames: every chain of util
# is cut short, counted in the file and said.
run 0 "-G dwarf,64" -j 0 -G dwarf,64 -F 1000 -o short -- ./callsO2 rec 200
folded O2 short
u=$(stacks short '(^|;)util(;|$)')
[ "$trunc" -ge "$u" ] && [ "$u" -gt 0 ] ||
    fail "-G dwarf,64: $trunc chains truncated, $u samples in util"
grep -q "^pmeclock: $trunc of $n call chains truncated" err ||
    fail "-G dwarf,64: not said: $(cat err)"
[ "$(stacks short 'rec;rec;rec;rec;rec;rec;rec;rec;rec;rec;rec;rec;util')" = 0 ] ||
    fail "-G dwarf,64: whole chains from 64 bytes of stack"

# -v says how many were unwound and how fast.
run 0 "-g -v" -j 0 -g -v -F 1000 -o v -- ./callsO2 shares 100
grep -Eq "^pmeclock: [0-9]+ call chains unwound from the CFI in [0-9.]+ s \([0-9]+ per second\), [0-9]+ truncated$" err ||
    fail "-g -v: no unwinding figures: $(cat err)"

# -G fp is the kernel's frame-pointer walk: no truncation counted.
run 0 "-G fp" -j 0 -G fp -F 1000 -o fp -- ./callsO2 shares 100
stat fp.PMS
has "-G fp: flags" "^method perf period 1000000 flags 3"
[ "$(field truncated)" = 0 ] || fail "-G fp: truncated chains counted"

# Bad spellings are usage errors.
for g in dwarf,8 dwarf,x dwarf, lbr dwarf,99999; do
	run 2 "-G $g" -G "$g" -o bad -- true
	grep -qx "pmeclock: -G: '$g' is not fp, dwarf or dwarf,size (size in bytes from 64 to 65528)" err ||
	    fail "-G $g: $(cat err)"
done

# err without pmeclock's note of a thread that gave fewer samples than
# its CPU time: a per-thread CPU timer on a loaded machine keeps about
# half of what it is due (tests/fixtures/clock/common.sh, expected()),
# which is what the note says; the checks here are of what else is said.
said() {
	grep -v "s of CPU and gave [0-9]* samples (" err
}

# The in-process methods unwind from the CFI with libunwind where the
# runtime is built with it; else they walk frame pointers, and say so.
# A sample may find the thread in the runtime's own signal handler (its
# records at a thread's end, on a busy machine: about 1 in 50 under
# load), run on top of util: the chain then goes on through libc's signal
# trampoline into libpmeclock, which is what the thread was doing.
rt='(;\[kernel\](_\[k\])?|;\[libc\.so\.6\];\[libpmeclock\.so\.0\](;\[libc\.so\.6\])*)?$'
if $pmeclock -q -m timer -o probe -- true 2>/dev/null; then
	if grep -q '^UNW_CPPFLAGS = -DHAVE_LIBUNWIND' "$top/config.mk"; then
		for o in O1 O2; do
			run 0 "$o -m timer -g" -j 0 -m timer -g -o "tm$o" -- \
			    "./calls$o" shares 400
			[ -n "$(said)" ] && fail "-m timer -g: $(cat err)"
			folded "$o" "tm$o"
			caller_ok "$o -m timer -g" "tm$o" \
			    "(^|;)main;burn;(alpha|beta);util$rt"
		done
		run 0 "-m timer -g threads" -j 0 -m timer -g -o tmt -- \
		    ./callsO2 threads 250
		folded O2 tmt
		caller_ok "-m timer -g threads" tmt \
		    "(^|;)(thread_alpha;burn;alpha|thread_beta;burn;beta);util$rt"
	else
		run 0 "-m timer -g" -j 0 -m timer -g -o tm -- ./callsO2 shares 50
		grep -q "^pmeclock: -g with the timer method: the in-process methods unwind by frame pointers" err ||
		    fail "-m timer -g: not said: $(cat err)"
		stat tm.PMS
		has "-m timer -g: note" "^note .*unwind by frame pointers"
	fi
	# -G fp is the frame-pointer walk, without a word.
	run 0 "-m timer -G fp" -j 0 -m timer -G fp -o tm -- ./callsO2 shares 50
	[ -n "$(said)" ] && fail "-m timer -G fp: $(cat err)"
fi

finish
