#!/bin/bash
#
# bench_pmetrace.sh - the cost of counting every instruction:
#	bench_pmetrace.sh [-n RUNS] [LOOPS]
# The program is the tests' fixture (tests/fixtures/trace/prog.c): "prog
# loop LOOPS" runs LOOPS calls of a 302-instruction loop after the
# dynamic loader's start-up (default 100000 calls, some 30 million
# instructions).  Each command runs RUNS times (default 3); the table
# gives the best wall time in milliseconds and the slowdown against the
# native run:
#
#   native     ./prog loop LOOPS
#   callgrind  bare callgrind (valgrind --tool=callgrind, its defaults)
#   pmetrace   pmetrace's callgrind engine: the same run with one cost
#              line per instruction, the output read and tallied; its
#              ratio to bare callgrind should stay within 1.15
#   step       pmetrace's step engine on "prog loop LOOPS/1000" (it is
#              some ten thousand times slower): instructions per second
#              (target: 80,000 or more)
#   runtime    libpmetrace stepping its own region (rt LOOPS/1000):
#              instructions per second
#
# Run from the top directory (or set PME_TOP) after make.

set -eu
top=$(cd "${PME_TOP:-.}" && pwd)
runs=3
if [ "${1:-}" = -n ]; then
	runs=$2
	shift 2
fi
loops=${1:-100000}
small=$((loops / 1000 > 0 ? loops / 1000 : 1))
work=$(mktemp -d "${TMPDIR:-/tmp}/pmetbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
fx=$top/tests/fixtures/trace

for tool in gcc valgrind; do
	command -v $tool >/dev/null || { echo "skipped: no $tool"; exit 77; }
done
cd "$work"
gcc -O1 -shared -fPIC -o libtr.so "$fx/lib.c"
gcc -g -O1 -o prog "$fx/prog.c" -L. -ltr -Wl,-rpath,"$work" -pthread
gcc -g -O1 -I"$top/trace" -o rt "$fx/rt.c" -L"$top/trace" -lpmetrace \
    -Wl,-rpath,"$top/trace" -pthread
gcc -std=c11 -D_GNU_SOURCE -I"$top/lib" -o pmecounts "$fx/pmecounts.c" \
    "$top/lib/bucket.c" "$top/lib/container.c" "$top/lib/util.c" -lz
"$top/build/pmebuild" -q -x ./prog -l ./libtr.so -o prog.pme
"$top/build/pmebuild" -q -x ./rt -o rtin.PME

# best CMD...: the best wall time of RUNS runs, in milliseconds.
best() {
	local i t0 t1 ms b=
	for ((i = 0; i < runs; i++)); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		t1=$(date +%s%N)
		ms=$(((t1 - t0) / 1000000))
		if [ -z "$b" ] || [ "$ms" -lt "$b" ]; then b=$ms; fi
	done
	echo "${b:-0}"
}

total() {	# FILE: the instructions a filled bucket file counted
	./pmecounts "$1" | awk '$1 == "info" { print $7 }'
}

native=$(best ./prog loop "$loops")
bare=$(best valgrind --tool=callgrind --callgrind-out-file=bare.out \
    ./prog loop "$loops")
ours=$(best "$top/trace/pmetrace" -e callgrind -b prog.pme -o cg.pme -- \
    ./prog loop "$loops")
step=$(best "$top/trace/pmetrace" -e step -b prog.pme -o st.pme -- \
    ./prog loop "$small")
steps=$(total st.pme)
rtms=$(best ./rt "$small")
rtsteps=$(total rtout.PME)
[ "$native" -gt 0 ] || native=1

ratio() {	# A B: A / B to two places
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'
}
persec() {	# N MS
	awk -v n="$1" -v ms="$2" 'BEGIN { printf "%.0f", (ms > 0 ? n * 1000 / ms : 0) }'
}

printf '%-10s %10s %10s  %s\n' run ms slowdown note
printf '%-10s %10d %10s  %s\n' native "$native" 1.00 "prog loop $loops"
printf '%-10s %10d %10s  %s\n' callgrind "$bare" "$(ratio "$bare" "$native")" \
    "bare callgrind"
printf '%-10s %10d %10s  %s\n' pmetrace "$ours" "$(ratio "$ours" "$native")" \
    "$(ratio "$ours" "$bare") x bare callgrind (target <= 1.15)"
printf '%-10s %10d %10s  %s\n' step "$step" - \
    "$steps instructions, $(persec "$steps" "$step")/s (target >= 80000)"
printf '%-10s %10d %10s  %s\n' runtime "$rtms" - \
    "$rtsteps instructions, $(persec "$rtsteps" "$rtms")/s (in-process)"
