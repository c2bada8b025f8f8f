#!/bin/bash
#
# accuracy.sh - the clock pipeline against the truth and against perf: the
# split fixture spends its CPU time 50/30/20 in fifty() and thirty() (in
# the executable) and twenty() (in libsplit.so); pmebuild, pmeclock and
# pmehisto must give each routine its share within 3 percentage points,
# and agree with `perf report` on the same program within 3 points, with
# one thread and with three.  The in-process timer method (the fallback)
# is checked against the truth as well.  Shares are of the three routines'
# samples together: on a busy machine the kernel's share (interrupt exits,
# task switches) varies from run to run and is no part of the split.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

set -u
top=${PME_TOP:?}
tmp=${TMPDIR:?}
pmebuild=${PMEBUILD:-$top/build/pmebuild}
pmeclock=${PMECLOCK:-$top/sample/pmeclock}
pmehisto=${PMEHISTO:-$top/histo/pmehisto}
fx=$top/tests/fixtures/accuracy
fails=0
tolerance=3

fail() {
	echo "accuracy: $*" >&2
	fails=$((fails + 1))
}

for p in "$pmebuild" "$pmeclock" "$pmehisto"; do
	[ -x "$p" ] || { echo "skipped: $p is not built"; exit 77; }
done

cd "$tmp" || exit 1
if ! gcc -g -O2 -shared -fPIC -o libsplit.so "$fx/libsplit.c" ||
    ! gcc -g -O2 -o split "$fx/split.c" -L. -lsplit -Wl,-rpath,'$ORIGIN' \
    -lpthread; then
	fail "cannot build the fixture"
	exit 1
fi
if ! "$pmebuild" -q -x ./split -l ./libsplit.so -o split.pme; then
	fail "pmebuild failed"
	exit 1
fi

# The three routines' shares of their samples together, from "name
# value" lines.
normalize() {
	awk '{ p[$1] += $2 }
	    END { t = p["fifty"] + p["thirty"] + p["twenty"]
	    if (t == 0) t = 1
	    printf "%.1f %.1f %.1f\n", 100 * p["fifty"] / t,
	    100 * p["thirty"] / t, 100 * p["twenty"] / t }'
}

# From pmehisto's CSV: the count column by unit.
pme_shares() {
	awk -F, 'NR > 1 { print $2, $7 }' "$1" | normalize
}

perf_shares() {
	perf report -i "$1" --stdio --sort sym 2>/dev/null |
	    awk '$1 ~ /%$/ { v = $1; sub(/%/, "", v); print $NF, v }' |
	    normalize
}

# within WHAT "a b c" "x y z": each pair within the tolerance.
within() {
	local what=$1
	set -- $2 $3
	awk -v t="$tolerance" -v a="$1" -v b="$2" -v c="$3" -v x="$4" \
	    -v y="$5" -v z="$6" 'BEGIN {
		d1 = a - x; d2 = b - y; d3 = c - z
		if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2; if (d3 < 0) d3 = -d3
		exit !(d1 <= t && d2 <= t && d3 <= t)
	}' || fail "$what: $1 $2 $3 against $4 $5 $6 (more than $tolerance points)"
}

# profile NAME METHOD-OPTIONS -- split arguments: the shares pmehisto gives.
profile() {
	local name=$1
	shift
	local opts=()
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	if ! "$pmeclock" -q "${opts[@]}" -o "$name.PMS" -- ./split "$@" \
	    >/dev/null; then
		fail "$name: pmeclock failed"
		return 1
	fi
	if ! "$pmehisto" -q -c -b split.pme -B "$name.pme" -o "$name.HIS" \
	    -T csv "$name.PMS" >"$name.csv"; then
		fail "$name: pmehisto failed"
		return 1
	fi
	pme_shares "$name.csv"
}

truth="50 30 20"
perf_ok=0
if command -v perf >/dev/null &&
    perf record -q -F 1000 -o probe.data -- true >/dev/null 2>&1; then
	perf_ok=1
else
	echo "accuracy: perf cannot record here: comparisons with perf skipped"
fi

for mode in single threads; do
	if [ "$perf_ok" = 1 ]; then
		got=$(profile "$mode" -F 1000 -m perf -- "$mode" 1500) || continue
		within "$mode (perf method) vs truth" "$got" "$truth"
		perf record -q -F 1000 -o "$mode.data" -- ./split "$mode" 1500 \
		    >/dev/null 2>&1 || { fail "$mode: perf record failed"; continue; }
		ref=$(perf_shares "$mode.data")
		within "$mode: pmehisto vs perf report" "$got" "$ref"
		echo "$mode: pmehisto $got, perf $ref, truth $truth"
	fi
	# The timer method runs at the kernel tick (250 Hz here): a longer
	# run for as many samples.
	got=$(profile "$mode-timer" -i 4ms -m timer -- "$mode" 4000) || continue
	within "$mode (timer method) vs truth" "$got" "$truth"
	echo "$mode: timer method $got, truth $truth"
done

[ "$fails" = 0 ] || exit 1
exit 0
