#!/bin/bash
#
# accuracy.sh - the clock pipeline against the truth of the same run and
# against perf on the same run.
#
# The split fixture spends its CPU time about 50/30/20 in fifty() and
# thirty() (in the executable) and twenty() (in libsplit.so), with one
# thread and with three.  On a shared machine the split by iterations is
# not what a run gets, so the fixture writes what it got, the truth of the
# run: each thread's CPU time (CLOCK_THREAD_CPUTIME_ID) with three
# threads, the iterations each routine ran with one (split.c says why
# these are the CPU shares).  perf record is attached to the same process
# (-p, started disabled and enabled through its control fifo before the
# fixture starts working), so pme and perf sample one and the same run.
#
# Shares are of the three routines' counts together (on a busy machine
# the kernel's share of interrupt exits varies and is no part of the
# split).  pmehisto counts sampling intervals: a timer sample that stands
# for several (overruns on a busy machine) counts as that many, so N
# below is the intervals counted scaled by the file's samples per interval
# (pmsstat), the number of samples they came from.  Tolerance, in
# percentage points, for a routine whose true share is p, from N samples
# (and M of perf's):
#
#     pme against the truth:  1 + 4.5 * 100 * sqrt(p (1 - p) / N)
#     pme against perf:       1 + 4.5 * 100 * sqrt(p (1 - p) (1/N + 1/M))
#
# that is 4.5 standard deviations of a share counted from that many
# independent samples, plus one point for what is not sampling noise
# (interrupts charged to the kernel, the slices' edges).  With 1,500
# samples and p = 0.5 it is 6.8 points against the truth.  The perf
# comparisons are skipped, with the reason, where perf cannot record.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
fx=$top/tests/fixtures/accuracy

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
sanitize=$(sed -n 's/^SANITIZE_FLAGS = *//p' "$top/config.mk" 2>/dev/null)
if ! cc -std=c11 -D_GNU_SOURCE -g $sanitize -I "$top/lib" -o pmsstat \
    "$top/tests/fixtures/clock/pmsstat.c" "$top/lib/libpme.a" -lelf \
    -ldwarf -lz; then
	fail "cannot build pmsstat"
	exit 1
fi
if ! "$pmebuild" -q -x ./split -l ./libsplit.so -o split.pme; then
	fail "pmebuild failed"
	exit 1
fi

# "fifty N thirty N twenty N": the three routines' counts, from "name
# value" lines (other names ignored).  Printed with %.0f: mawk's %d stops
# at 2^31 - 1, and a thread's CPU time in ns passes it after 2.1 s.
three() {
	awk '{ p[$1] += $2 }
	    END { printf "fifty %.0f thirty %.0f twenty %.0f\n", p["fifty"],
	    p["thirty"], p["twenty"] }'
}

# From pmehisto's CSV: the count column by unit.
pme_counts() {
	awk -F, 'NR > 1 { print $2, $7 }' "$1" | three
}

perf_counts() {
	perf report -i "$1" --stdio --sort sym -n 2>/dev/null |
	    awk '$1 ~ /%$/ { print $NF, $2 }' | three
}

# samples_per_interval FILE.PMS: samples / (weight / period) in the file.
samples_per_interval() {
	./pmsstat "$1" | awk '$1 == "method" { p = $4 }
	    $1 == "samples" { n = $2; w = $4 }
	    END { printf "%.4f\n", (p > 0 && w > 0) ? n * p / w : 1 }'
}

# compare WHAT SCALE "truth" "counts" ["counts2"]: each routine's share
# of counts against the truth's (or against counts2's) within the
# tolerance above, counts standing for SCALE samples each.  Prints the
# shares.
compare() {
	local what=$1 scale=$2 truth=$3 a=$4 b=${5:-}
	awk -v what="$what" -v scale="$scale" -v truth="$truth" -v a="$a" \
	    -v b="$b" '
	function load(s, v,   f, n, i, t) {
		n = split(s, f, " ")
		t = 0
		for (i = 2; i <= n; i += 2)
			t += f[i]
		for (i = 2; i <= n; i += 2)
			v[f[i - 1]] = t > 0 ? f[i] / t : 0
		return t
	}
	BEGIN {
		load(truth, p)
		na = load(a, x) * scale
		nb = b == "" ? 0 : load(b, y)
		if (na < 200 || (b != "" && nb < 200)) {
			printf "%s: too few samples (%d, %d)\n", what, na, nb
			exit 1
		}
		bad = 0
		line = what sprintf(" (%d samples%s):", na,
		    b == "" ? "" : sprintf(", perf %d", nb))
		split("fifty thirty twenty", r, " ")
		for (i = 1; i <= 3; i++) {
			q = p[r[i]]
			if (b == "") {
				tol = 1 + 450 * sqrt(q * (1 - q) / na)
				ref = q
			} else {
				tol = 1 + 450 * sqrt(q * (1 - q) * (1 / na + 1 / nb))
				ref = y[r[i]]
			}
			d = 100 * (x[r[i]] - ref)
			if (d < 0)
				d = -d
			line = line sprintf(" %s %.1f/%.1f", r[i],
			    100 * x[r[i]], 100 * ref)
			if (d > tol) {
				bad = 1
				line = line sprintf(" (off by %.1f, more than %.1f)",
				    d, tol)
			}
		}
		print line
		exit bad
	}' || fails=$((fails + 1))
}

perf_ok=0
if command -v perf >/dev/null &&
    perf record -q -e cpu-clock -o probe.data -- true >/dev/null 2>&1; then
	perf_ok=1
else
	echo "accuracy: perf cannot record here: comparisons with perf skipped"
fi

# wait_for PID-OF-PARENT: the pid of its child split, once it exists.
child_split() {
	local i pid
	for i in $(seq 300); do
		pid=$(pgrep -P "$1" -x split | head -n 1)
		[ -n "$pid" ] && { echo "$pid"; return 0; }
		sleep 0.1
	done
	return 1
}

# attach NAME PID: perf record on process PID, started disabled and
# enabled through its control fifo; returns once perf has acknowledged
# (perf's pid in perf_pid).
attach() {
	local name=$1 pid=$2 ack
	mkfifo "$name.ctl" "$name.ack" || return 1
	perf record -q -e cpu-clock -c 1000000 -D -1 \
	    --control "fifo:$name.ctl,$name.ack" -p "$pid" \
	    -o "$name.data" >/dev/null 2>"$name.perf.err" &
	perf_pid=$!
	timeout 60 bash -c 'echo enable >"$1" && read -r ack <"$2" &&
	    [ "$ack" = ack ]' _ "$name.ctl" "$name.ack"
}

# profile NAME PMECLOCK-OPTION... -- split ARGUMENTS: one run of split
# under pmeclock (and perf when it can record); compares the shares.
profile() {
	local name=$1 opts=() pid perf_pid=
	shift
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	rm -f "$name.go"
	SPLIT_GO=$tmp/$name.go SPLIT_TRUTH=$tmp/$name.truth \
	    "$pmeclock" -q "${opts[@]}" -o "$name.PMS" -- ./split "$@" \
	    >/dev/null &
	local clock=$!
	if ! pid=$(child_split "$clock"); then
		fail "$name: split did not start under pmeclock"
		kill "$clock" 2>/dev/null
		return 1
	fi
	if [ "$perf_ok" = 1 ] && ! attach "$name" "$pid"; then
		fail "$name: perf record did not attach: $(cat "$name.perf.err")"
		perf_pid=
	fi
	touch "$name.go"
	wait "$clock" || { fail "$name: pmeclock failed"; return 1; }
	[ -n "$perf_pid" ] && { wait "$perf_pid" ||
	    fail "$name: perf record failed: $(cat "$name.perf.err")"; }
	if ! "$pmehisto" -q -c -b split.pme -B "$name.pme" -o "$name.HIS" \
	    -T csv "$name.PMS" >"$name.csv"; then
		fail "$name: pmehisto failed"
		return 1
	fi
	local truth pme scale
	truth=$(three <"$name.truth")
	pme=$(pme_counts "$name.csv")
	scale=$(samples_per_interval "$name.PMS")
	compare "$name: pme/truth" "$scale" "$truth" "$pme"
	[ -n "$perf_pid" ] && compare "$name: pme/perf" "$scale" "$truth" \
	    "$pme" "$(perf_counts "$name.data")"
	return 0
}

for mode in single threads; do
	profile "$mode" -F 1000 -m perf -- "$mode" 1500
	# The timer method runs at the kernel tick (250 Hz here): a longer
	# run for as many samples.
	profile "$mode-timer" -i 4ms -m timer -- "$mode" 4000
done

finish
