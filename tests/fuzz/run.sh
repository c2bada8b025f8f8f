#!/bin/bash
#
# tests/fuzz/run.sh - runs pme's libFuzzer targets, each for SECONDS
# (`make fuzz` builds them and the corpora, then runs this):
#
#     tests/fuzz/run.sh SECONDS OUTDIR TARGET...
#
# For each TARGET (a fuzz_NAME binary): its committed regression inputs
# (tests/fuzz/regress/NAME/, each a fault found once) are run once, then
# the fuzzer runs SECONDS on OUTDIR/corpus_NAME (made by `make
# fuzz-corpus`; the committed seeds of tests/fuzz/corpus/NAME/ are added
# to it), with tests/fuzz/NAME.dict when there is one, inputs up to 1 MB
# for the binary formats (many chunks), 256 bytes of keys for the terminal
# view (each key draws a frame) and 64 KB for text, 10 s per input
# (a slower one is a hang), 1 GB of memory (a bigger allocation is one
# sized by a field nobody checked).  A target fails when the fuzzer
# reports a finding or when any crash, leak, timeout or out-of-memory
# input appears in its artifact directory: the DWARF reader's child
# process (lib/symbols.c) writes those too, since libFuzzer's death
# callback runs in it.  Each target prints a PASS or FAIL line with its
# executions per second and coverage; the last line is "N passed,
# N failed".  New corpus entries stay in OUTDIR/corpus_NAME, findings in
# OUTDIR/artifacts_NAME.

set -u
export LC_ALL=C

[ $# -ge 3 ] || { echo "usage: tests/fuzz/run.sh SECONDS OUTDIR TARGET..." >&2
	exit 2; }
seconds=$1 out=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
pass=0 fail=0

for bin; do
	name=$(basename "$bin")
	name=${name#fuzz_}
	corpus=$out/corpus_$name
	art=$out/artifacts_$name
	log=$out/fuzz_$name.log
	mkdir -p "$corpus" "$art"
	rm -f "$art"/*
	if [ -d "$top/tests/fuzz/corpus/$name" ]; then
		cp "$top/tests/fuzz/corpus/$name"/* "$corpus"/ 2>/dev/null
	fi
	case $name in
	bucket*|sample*|event*|elf)	maxlen=1048576 ;;
	term)				maxlen=256 ;;
	*)				maxlen=65536 ;;
	esac
	opts=(-max_len=$maxlen -timeout=10 -rss_limit_mb=1024
	    -malloc_limit_mb=1024 -artifact_prefix="$art/")
	[ -f "$top/tests/fuzz/$name.dict" ] &&
	    opts+=(-dict="$top/tests/fuzz/$name.dict")
	why=
	regress=("$top/tests/fuzz/regress/$name"/*)
	if [ -e "${regress[0]}" ] &&
	    ! "$bin" "${opts[@]}" "${regress[@]}" >"$log" 2>&1; then
		why="a regression input fails again"
	elif ! "$bin" "${opts[@]}" -max_total_time="$seconds" \
	    -print_final_stats=1 "$corpus" >>"$log" 2>&1; then
		why="a finding"
	elif compgen -G "$art/*" >/dev/null; then
		why="a finding in a child process"
	fi
	stats=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 |
	    sed -E 's/^#([0-9]+)[[:space:]]+DONE[[:space:]]+cov: ([0-9]+).*exec\/s: ([0-9]+).*/\1 runs, \3 exec\/s, coverage \2/')
	if [ -z "$why" ]; then
		pass=$((pass + 1))
		echo "PASS fuzz/$name (${stats:-no statistics})"
	else
		fail=$((fail + 1))
		echo "FAIL fuzz/$name: $why ($(ls "$art" | head -n 3 |
		    tr '\n' ' ')in $art; log $log)"
		grep -E 'ERROR|runtime error|SUMMARY|deadly|Test unit' "$log" |
		    head -n 8 | sed 's/^/    /'
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
