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
#   none       valgrind --tool=none: valgrind's own cost, no tool
#   callgrind  bare callgrind (valgrind --tool=callgrind, its defaults)
#   pmetrace   pmetrace's callgrind engine: the same run with one cost
#              line per instruction, the output read and tallied; its
#              ratio to bare callgrind should stay within 1.15
#   pmevg      pmetrace's pmevg engine (pme's own valgrind tool, where it
#              is built): its ratios to native (target 20 or less), to
#              bare callgrind (target 0.33 or less) and to --tool=none
#              (within 1.5)
#   qemu       pmetrace's qemu engine (QEMU's user-mode emulator with
#              pme's TCG plugin, where qemu-x86_64 is installed): its
#              ratios to native (target 12 or less), to bare callgrind
#              (target 0.2 or less) and to pmevg
#   before     with BEFORE=PLUGIN in the environment: the qemu engine
#              again with that plugin (pmeqemu.so of an earlier build),
#              for a change's figures before and after in one run
#   step       pmetrace's step engine on "prog loop LOOPS/1000" (it is
#              some ten thousand times slower): instructions per second
#              (target: 80,000 or more)
#   runtime    libpmetrace stepping its own region (rt LOOPS/1000):
#              instructions per second
#
# The same rows (but step and runtime) follow for a C++ program of many
# small functions (tests/fixtures/trace/cxxwork.cc, CXXROUNDS rounds,
# default 10000), with two more: the qemu and pmevg engines counting its
# line buckets (pmebuild -b line), and for a large real program,
# SQLite (tests/fixtures/trace/sqlwork.c with the amalgamation from the
# npm package better-sqlite3, built -O2; SQLROWS rows, default 20000,
# some 230 million instructions), when npm can fetch it.
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
. "$top/tests/bench/lib.sh"
. "$top/tests/sh/lib/sqlite.sh"

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

total() {	# FILE: the instructions a filled bucket file counted
	./pmecounts "$1" | awk '$1 == "info" { print $7 }'
}

step=$(best_ms "$top/trace/pmetrace" -e step -b prog.pme -o st.pme -- \
    ./prog loop "$small")
steps=$(total st.pme)
rtms=$(best_ms ./rt "$small")
rtsteps=$(total rtout.PME)

# pmetrace beside an earlier plugin (BEFORE): pmetrace finds its plugin
# in the folder qemu beside it.
if [ -n "${BEFORE:-}" ]; then
	mkdir -p before/qemu
	cp "$top/trace/pmetrace" before/ &&
	    cp "$BEFORE" before/qemu/pmeqemu.so ||
	    { echo "BEFORE: cannot copy '$BEFORE'"; exit 1; }
fi

qemu_ms() {	# DIR PME ARGS...: the qemu engine's best with DIR's
		# pmetrace, "" where it cannot run
	command -v qemu-x86_64 >/dev/null &&
	    [ -f "$1/qemu/pmeqemu.so" ] || return 0
	best_ms "$1/pmetrace" -e qemu -b "$2" -o qm.pme -- "${@:3}"
}

# measure PME COMMAND...: sets native, none, bare, ours, pmevg, qemu and
# before, the best of each run of COMMAND (cg.pme: the callgrind
# engine's counts).
measure() {
	local pme=$1
	shift
	native=$(best_ms "$@")
	none=$(best_ms valgrind --tool=none "$@")
	bare=$(best_ms valgrind --tool=callgrind --callgrind-out-file=bare.out \
	    "$@")
	ours=$(best_ms "$top/trace/pmetrace" -e callgrind -b "$pme" -o cg.pme \
	    -- "$@")
	pmevg=
	[ -x "$top/trace/vgtool/pmevg-amd64-linux" ] &&
	    pmevg=$(best_ms "$top/trace/pmetrace" -e pmevg -b "$pme" \
	    -o pv.pme -- "$@")
	qemu=$(qemu_ms "$top/trace" "$pme" "$@")
	before=
	[ -z "${BEFORE:-}" ] || before=$(qemu_ms before "$pme" "$@")
}
measure prog.pme ./prog loop "$loops"

ratio() {	# A B: A / B to two places
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'
}
persec() {	# N MS
	awk -v n="$1" -v ms="$2" 'BEGIN { printf "%.0f", (ms > 0 ? n * 1000 / ms : 0) }'
}

row() {	# NAME MS SLOWDOWN NOTE
	printf '%-10s %10s %10s  %s\n' "$@"
}

# valgrind_rows NATIVE NONE BARE OURS PMEVG QEMU BEFORE: the rows of
# valgrind's runs, and QEMU's.
valgrind_rows() {
	row none "$2" "$(ratio "$2" "$1")" "valgrind --tool=none"
	row callgrind "$3" "$(ratio "$3" "$1")" "bare callgrind"
	row pmetrace "$4" "$(ratio "$4" "$1")" \
	    "$(ratio "$4" "$3") x bare callgrind (target <= 1.15)"
	if [ -n "$5" ]; then
		row pmevg "$5" "$(ratio "$5" "$1")" "$(ratio "$5" "$3") x bare \
callgrind (<= 0.33), $(ratio "$5" "$2") x none (<= 1.5)"
	else
		row pmevg - - "not built here"
	fi
	if [ -n "$6" ]; then
		row qemu "$6" "$(ratio "$6" "$1")" "$(ratio "$6" "$3") x bare \
callgrind (<= 0.2)${5:+, $(ratio "$6" "$5") x pmevg}"
	else
		row qemu - - "qemu-x86_64 or the plugin missing"
	fi
	[ -z "$7" ] || row before "$7" "$(ratio "$7" "$1")" "$(ratio "$7" "$3") \
x bare callgrind: the qemu engine with $BEFORE"
}

printf '%-10s %10s %10s  %s\n' run ms slowdown note
row native "$native" 1.00 "prog loop $loops"
valgrind_rows "$native" "$none" "$bare" "$ours" "$pmevg" "$qemu" "$before"
row step "$step" - \
    "$steps instructions, $(persec "$steps" "$step")/s (target >= 80000)"
row runtime "$rtms" - \
    "$rtsteps instructions, $(persec "$rtsteps" "$rtms")/s (in-process)"

# A C++ program of many small functions (virtual calls, templates,
# std::sort, std::map, exceptions): routine buckets, then line buckets.
if command -v g++ >/dev/null; then
	echo
	g++ -g -O1 -o cxxwork "$fx/cxxwork.cc"
	"$top/build/pmebuild" -q -x ./cxxwork -o cxx.pme
	"$top/build/pmebuild" -q -x ./cxxwork -b line -o cxxline.pme
	measure cxx.pme ./cxxwork "${CXXROUNDS:-10000}"
	row native "$native" 1.00 \
	    "cxxwork ${CXXROUNDS:-10000}: $(total cg.pme) instructions"
	valgrind_rows "$native" "$none" "$bare" "$ours" "$pmevg" "$qemu" \
	    "$before"
	lq=$(qemu_ms "$top/trace" cxxline.pme ./cxxwork "${CXXROUNDS:-10000}")
	lv=
	[ -z "$pmevg" ] || lv=$(best_ms "$top/trace/pmetrace" -e pmevg \
	    -b cxxline.pme -o pv.pme -- ./cxxwork "${CXXROUNDS:-10000}")
	row "qemu -L" "${lq:--}" "$(ratio "${lq:-0}" "$native")" \
	    "line buckets: $(ratio "${lq:-0}" "$bare") x bare callgrind"
	row "pmevg -L" "${lv:--}" "$(ratio "${lv:-0}" "$native")" \
	    "line buckets: $(ratio "${lv:-0}" "$bare") x bare callgrind"
else
	echo "cxxwork: skipped: no g++"
fi

# A large real program: SQLite.
rows=${SQLROWS:-20000}
echo
if ! why=$(fetch_sqlite "$work"); then
	echo "sqlite: skipped: $why"
	exit 0
fi
gcc -O2 -g -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -I. \
    -o sqlwork "$fx/sqlwork.c" sqlite3.c -lm
"$top/build/pmebuild" -q -x ./sqlwork -o sql.pme
measure sql.pme ./sqlwork "$rows"
row native "$native" 1.00 "sqlwork $rows: $(total cg.pme) instructions"
valgrind_rows "$native" "$none" "$bare" "$ours" "$pmevg" "$qemu" "$before"
