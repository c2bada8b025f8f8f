# tests/bench/lib.sh - sourced by the benchmarks that time commands
# themselves: the best wall time of a few runs.
#
#	now		the wall clock, in nanoseconds
#	best_ms CMD...	the best wall time of $runs runs of CMD (its output
#			thrown away), in milliseconds with three decimals

now() { date +%s%N; }

best_ms() {
	local i t0 t1 best=
	for i in $(seq "$runs"); do
		t0=$(now)
		"$@" >/dev/null 2>&1
		t1=$(now)
		t1=$(((t1 - t0) / 1000))
		[ -z "$best" ] || [ "$t1" -lt "$best" ] && best=$t1
	done
	[ "$best" -gt 0 ] || best=1
	awk -v us="$best" 'BEGIN { printf "%.3f\n", us / 1000 }'
}
