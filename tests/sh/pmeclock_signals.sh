#!/bin/bash
#
# pmeclock_signals.sh - the preload methods (timer, itimer) against
# programs that take their signal away, against threads that start with
# signals blocked, and at the end of short processes and threads: what
# they sample is compared with the CPU time measured in the same run
# (the cpuof fixture, getrusage), and what they cannot sample is said,
# with the figures.
#
#   blocksig, ownprof (the probe's inputs), sigprof: a program that
#     blocks every signal is sampled; one with its own SIGPROF handler
#     and ITIMER_PROF is sampled by the timer method, its handler getting
#     only its own signals, and is said to be the program's under itimer;
#   rawblock: signals blocked by a system call no library sees: said;
#   a process killed by SIGKILL, which loses the runtime's buffer: said;
#   vfork: what a vfork child does with its signals is not its parent's;
#   workers: threads started with every signal blocked, as liblzma's are,
#     are sampled in proportion to the CPU time each measured itself, and
#     still see the mask they set;
#   forks: short children ending by exit, _exit, SIGTERM, abort and a
#     fault keep their samples;
#   forks at a longer interval: short children are sampled in proportion
#     to their CPU time, not one sample short each.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"

build_more cpuof blocksig ownprof sigprof rawblock workers forks vfork
period=10000000

# The weight of all samples, in ns.
weight() {
	awk '$1 == "samples" { print $4 }' "$tmp/stat"
}

# The text of a warning with its ids, figures and samples made X, but
# the CPU time "after" which the program took the signal.
shape() {
	sed -E -e 's/(thread|pid|process) [0-9]+/\1 X/g' \
	    -e 's/after ([0-9]+\.[0-9][0-9]) s/after \1@s/' \
	    -e 's/[0-9]+\.[0-9][0-9] s/X s/g' -e 's/@s/ s/' \
	    -e 's/gave [0-9]+ samples/gave X samples/'
}

# unseen FILE: the CPU time unseen of the warning in FILE, in ns.
unseen() {
	sed -n 's/.*(\([0-9]*\)\.\([0-9][0-9]\) s unseen).*/\1\20000000/p' \
	    "$1" | head -n 1
}

# near WHAT NS CPU: a figure of a warning (two decimals of a second) is
# the CPU time measured: at most 10 ms above it (rounding), 30 ms below
# (what the runtime does not see: the dynamic linker, the exit).
near() {
	[ -n "$2" ] && [ "$2" -le $(($3 + 10000000)) ] &&
	    [ "$2" -ge $(($3 - 30000000)) ] ||
	    fail "$1: ${2:-no figure}, not the $3 ns of CPU measured"
}

# ------------------------------------------------- blocksig, ownprof

for m in timer itimer; do
	run 0 "$m: blocksig" -m "$m" -o bs -- ./cpuof ./blocksig
	c=$(cpuof)
	stat bs.PMS
	if [ "$m" = timer ]; then
		expected "$m: blocksig" "$(weight)" "$c" 2 $period
	else
		# ITIMER_PROF is process-wide and loose (a quarter lost on a
		# busy machine, half again too many on some): only that it
		# samples what blocked its signal.
		n=$(field samples)
		between "$m: blocksig: samples" "$n" $((c / period / 4)) \
		    $((c / period * 2 + 2))
	fi
	# (ITIMER_PROF may lose half its signals on a busy machine: said.)
	grep -v -e '^cpuof: ' -e 'SIGPROF signals were lost' "$tmp/err" \
	    >"$tmp/said"
	[ ! -s "$tmp/said" ] || fail "$m: blocksig: said $(cat "$tmp/said")"
done

# The timer method samples on a signal of its own: the program with a
# SIGPROF handler and ITIMER_PROF of its own is sampled, and its handler
# gets only the signals of its timer.
run 0 "timer: ownprof" -m timer -o op -- ./cpuof ./ownprof
c=$(cpuof)
stat op.PMS
expected "timer: ownprof" "$(weight)" "$c" 2 $period
grep -q '^ownprof done hits=[1-9]' "$tmp/out" ||
    fail "timer: ownprof: its handler: $(cat "$tmp/out")"
grep -v '^cpuof: ' "$tmp/err" >"$tmp/said"
[ ! -s "$tmp/said" ] || fail "timer: ownprof: said $(cat "$tmp/said")"
for m in timer itimer; do
	run 0 "$m: sigprof" -m "$m" -o sp -- ./sigprof 300
	grep -q '^sigprof own [1-9][0-9]* foreign 0$' "$tmp/out" ||
	    fail "$m: sigprof: its handler: $(cat "$tmp/out")"
done

# Under ITIMER_PROF the program that sets its own owns it: said, with
# the CPU time unseen; its handler gets its signals, not the runtime's.
run 0 "itimer: ownprof" -m itimer -o op -- ./cpuof ./ownprof
c=$(cpuof)
grep -v '^cpuof: ' "$tmp/err" >"$tmp/said"
shape <"$tmp/said" >"$tmp/got"
cat >"$tmp/want" <<'EOF'
pmeclock: 'ownprof' (pid X) used X s of CPU and gave X samples (X s unseen): after 0.00 s it installed its own SIGPROF handler, and ITIMER_PROF is the program's: -m timer or -m perf sample it
EOF
diff -u "$tmp/want" "$tmp/got" >"$tmp/diff" ||
    fail "itimer: ownprof: the warning: $(cat "$tmp/diff")"
near "itimer: ownprof: CPU time unseen" "$(unseen "$tmp/said")" "$c"
grep -q '^ownprof done hits=[1-9]' "$tmp/out" ||
    fail "itimer: ownprof: its handler: $(cat "$tmp/out")"

# ------------------------------------------------------------ rawblock

run 0 "timer: rawblock" -m timer -o rb -- ./cpuof ./rawblock 500
c=$(cpuof)
grep -v '^cpuof: ' "$tmp/err" >"$tmp/said"
shape <"$tmp/said" >"$tmp/got"
cat >"$tmp/want" <<'EOF'
pmeclock: thread X of 'rawblock' (pid X) used X s of CPU and gave X samples (X s unseen): its signals were blocked (by a call the runtime does not interpose)
EOF
diff -u "$tmp/want" "$tmp/got" >"$tmp/diff" ||
    fail "timer: rawblock: the warning: $(cat "$tmp/diff")"
near "timer: rawblock: CPU time unseen" "$(unseen "$tmp/said")" "$c"

run 0 "itimer: rawblock" -m itimer -o rb -- ./cpuof ./rawblock 500
c=$(cpuof)
grep -v '^cpuof: ' "$tmp/err" >"$tmp/said"
shape <"$tmp/said" >"$tmp/got"
cat >"$tmp/want" <<'EOF'
pmeclock: 'rawblock' (pid X) used X s of CPU and gave X samples (X s unseen): its signals were blocked (by a call the runtime does not interpose)
EOF
diff -u "$tmp/want" "$tmp/got" >"$tmp/diff" ||
    fail "itimer: rawblock: the warning: $(cat "$tmp/diff")"
near "itimer: rawblock: CPU time unseen" "$(unseen "$tmp/said")" "$c"
# -q: nothing said.
run 0 "itimer: rawblock -q" -q -m itimer -o rb -- ./rawblock 50
[ ! -s "$tmp/err" ] || fail "itimer: rawblock -q: said $(cat "$tmp/err")"

# A process killed by SIGKILL cannot send its last records: said.
run 137 "timer: SIGKILL" -m timer -o kl -- sh -c 'kill -KILL $$'
shape <"$tmp/err" >"$tmp/got"
cat >"$tmp/want" <<'EOF'
pmeclock: process X ('sh') ended without its runtime's last records: killed by SIGKILL (the samples of its last 100 ms lost), or it closed the runtime's socket (its samples from then on lost)
EOF
diff -u "$tmp/want" "$tmp/got" >"$tmp/diff" ||
    fail "timer: SIGKILL: the warning: $(cat "$tmp/diff")"

# A vfork child's signal calls are its own, not its parent's.
for m in timer itimer; do
	run 130 "$m: vfork" -m "$m" -o vf -- ./vfork
	[ "$(cat "$tmp/out")" = "parent SIGRTMAX-3 blocked 0" ] ||
	    fail "$m: vfork: $(cat "$tmp/out")"
done

# ------------------------------------------------------------- workers

# Three workers of 150, 300 and 450 ms.  The timer method gives each
# its CPU time within its rounding and a tick; ITIMER_PROF, statistical,
# gives each its share of the samples within four standard deviations.
for m in timer itimer; do
	run 0 "$m: workers" -m "$m" -o wk -- ./workers 3 150
	stat wk.PMS
	total=$(awk '$1 == "worker" { c += $3 } END { print c + 0 }' \
	    "$tmp/out")
	n=$(field samples)
	[ "$(grep -c '^worker .* mask full$' "$tmp/out")" = 3 ] ||
	    fail "$m: workers: masks: $(cat "$tmp/out")"
	while read -r _ tid cpu _; do
		w=$(awk -v t="$tid" '$1 == "tid" && $2 == t { print $4 }' \
		    "$tmp/stat")
		if [ "$m" = timer ]; then
			expected "$m: worker $tid" "${w:-0}" "$cpu" 1 $period
			continue
		fi
		k=$(awk -v t="$tid" '$1 == "tid" && $2 == t { print $3 }' \
		    "$tmp/stat")
		part_ok "$m: worker $tid: samples of $n" "${k:-0}" "$n" \
		    "$(awk "BEGIN { print $cpu / $total }")"
	done <"$tmp/out"
done

# --------------------------------------------------------------- forks

# Twenty children of 40 ms each, one after another, ending in each way:
# every child's samples are kept (the runtime's buffer is sent at _exit
# and before a fatal signal's default action).
for how in exit _exit term abort segv; do
	run 0 "timer: forks $how" -m timer -o fk -- ./forks 20 40 "$how"
	stat fk.PMS
	c=$(sed -n 's/^children 20 cpu //p' "$tmp/out")
	expected "timer: forks $how" "$(weight)" "${c:-0}" 20 \
	    $period
	n=$(grep -c '^pid ' "$tmp/stat")
	[ "$n" -ge 15 ] || fail "timer: forks $how: samples of $n processes"
done
run 0 "itimer: forks _exit" -m itimer -o fk -- ./forks 20 40 _exit
stat fk.PMS
c=$(sed -n 's/^children 20 cpu //p' "$tmp/out")
# (ITIMER_PROF gives no count to hold it to under load: count_ok.)
between "itimer: forks _exit: samples" "$(field samples)" \
    1 $((${c:-0} / period * 2 + 20))

# ------------------------------------------------------ short children

# Sixty children of 60 ms at 40 ms, one after another: a timer started
# at the interval would give each one sample (60 in all), not 1.5.
run 0 "timer: short children" -m timer -i 40ms -o sc -- ./forks 60 60 exit
stat sc.PMS
c=$(sed -n 's/^children 60 cpu //p' "$tmp/out")
expected "timer: short children" "$(weight)" "${c:-0}" 60 40000000

finish
