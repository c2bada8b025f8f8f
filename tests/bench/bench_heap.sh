#!/bin/bash
#
# bench_heap.sh - what recording the heap costs (pmeclock -e alloc),
# beside heaptrack and valgrind's massif and DHAT on the same program:
#	bench_heap.sh [-n RUNS] [-r ROUNDS]
#
# heapbench.c (built here, -O2 -g) makes ROUNDS (default 2000000) rounds
# of allocations from a few call sites at depths 1 to 5, most freed
# soon: about 2.7 million allocations and as many frees.  Each tool runs
# it RUNS times (default 3); printed, best of the runs: the wall time
# and the CPU time (user + system, the tool's own processes included:
# pmeclock, heaptrack_interpret), each as a ratio to the program alone
# and to heaptrack's; the recorded file's size beside heaptrack's, of
# this program and of Debian's python3 on a JSON workload; and
# the reading of the record (pmehisto -V heap against heaptrack_print).
# The machine is shared: CPU time is the figure to compare, wall time
# shows what waiting added.  Tools that are not installed are left out.
#
# Run from the top directory (or set PME_TOP) after make.  Not part of
# the test suite.

set -u
export LC_ALL=C
top=$(cd "${PME_TOP:-.}" && pwd)
runs=3 rounds=2000000
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-r) rounds=$2; shift 2 ;;
	*) echo "usage: bench_heap.sh [-n runs] [-r rounds]" >&2; exit 2 ;;
	esac
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_heap.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
${CC:-cc} -O2 -g -o hb "$top/tests/bench/heapbench.c" || exit 1
pmeclock=$top/sample/pmeclock
pmehisto=$top/histo/pmehisto

# measure NAME COMMAND...: the best wall and CPU seconds of the runs,
# "NAME wall cpu", appended to results
measure() {
	local name=$1 i out best_w= best_c=
	shift
	for i in $(seq "$runs"); do
		out=$( { TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>&1; } \
		    2>&1 | tail -1)
		set -- "$@"
		best_w=$(awk -v a="$best_w" -v b="${out%% *}" \
		    'BEGIN { print (a == "" || b < a) ? b : a }')
		best_c=$(echo "$out" | awk -v a="$best_c" '{ c = $2 + $3;
		    print (a == "" || c < a) ? c : a }')
	done
	echo "$name $best_w $best_c" >>results
}

: >results
measure program ./hb "$rounds"
measure "pmeclock -e alloc" "$pmeclock" -q -e alloc -o hb.PMS ./hb "$rounds"
measure "pmeclock -e alloc -G fp" "$pmeclock" -q -G fp -e alloc \
    -o fp.PMS ./hb "$rounds"
have_ht=0
if command -v heaptrack >/dev/null; then
	have_ht=1
	measure heaptrack heaptrack -o ht ./hb "$rounds"
fi
if command -v valgrind >/dev/null; then
	measure "valgrind massif" valgrind --tool=massif \
	    --massif-out-file=massif.out ./hb "$rounds"
	measure "valgrind dhat" valgrind --tool=dhat \
	    --dhat-out-file=dhat.json ./hb "$rounds"
fi

awk -v ht="$have_ht" '
	{ name[NR] = $0; sub(/ [^ ]+ [^ ]+$/, "", name[NR]);
	  w[NR] = $(NF - 1); c[NR] = $NF
	  if (name[NR] == "heaptrack") { hw = w[NR]; hc = c[NR] } }
	END {
		printf "%-26s %8s %8s %9s %9s %10s %10s\n", "", "wall s",
		    "cpu s", "wall x", "cpu x", "wall /ht", "cpu /ht"
		for (i = 1; i <= NR; i++) {
			printf "%-26s %8.2f %8.2f %9.1f %9.1f", name[i], w[i],
			    c[i], w[i] / w[1], c[i] / (c[1] > 0 ? c[1] : 0.01)
			if (ht)
				printf " %10.2f %10.2f", w[i] / hw, c[i] / hc
			printf "\n"
		}
	}' results

size() { stat -c %s "$1" 2>/dev/null || echo 0; }
echo
printf "%-26s %12s\n" "recorded file" bytes
printf "%-26s %12s\n" "pmeclock -e alloc (.PMS)" "$(size hb.PMS)"
printf "%-26s %12s\n" "pmeclock -G fp (.PMS)" "$(size fp.PMS)"
if [ "$have_ht" = 1 ]; then
	printf "%-26s %12s\n" "heaptrack (.zst)" "$(size ht.zst)"
	awk -v a="$(size hb.PMS)" -v b="$(size ht.zst)" 'BEGIN {
		printf "%-26s %12.1f\n", "ratio, pme / heaptrack", a / b }'
fi

# A real program's file: Debian's python3 on a JSON workload, whose
# heap does not repeat itself as heapbench's does (heapbench's period,
# 4800 rounds, is one REPEAT of pme(5)'s HEA2, as it is a match of
# zstd's window for heaptrack).
if [ -x /usr/bin/python3 ] && [ "$have_ht" = 1 ]; then
	cat >work.py <<'EOF'
import json, re
d = [{"k": str(i), "v": list(range(i % 50)), "s": "x" * (i % 300)}
     for i in range(30000)]
t = json.dumps(d)
print(len(json.loads(t)), len(re.findall(r'"k"', t)))
EOF
	"$pmeclock" -q -e alloc -o py.PMS /usr/bin/python3 work.py >/dev/null
	heaptrack -o htpy /usr/bin/python3 work.py >/dev/null 2>&1
	printf "%-26s %12s\n" "python3 (.PMS)" "$(size py.PMS)"
	printf "%-26s %12s\n" "python3, heaptrack (.zst)" "$(size htpy.zst)"
	awk -v a="$(size py.PMS)" -v b="$(size htpy.zst)" 'BEGIN {
		printf "%-26s %12.2f\n", "ratio, pme / heaptrack", a / b }'
fi

echo
: >results
measure "pmehisto -V heap" "$pmehisto" -V heap hb.PMS
[ "$have_ht" = 1 ] && measure heaptrack_print heaptrack_print -f ht.zst
awk '{ n = $0; sub(/ [^ ]+ [^ ]+$/, "", n); printf "%-26s %8.2f s wall %8.2f s cpu\n", "reading: " n, $(NF - 1), $NF }' results
