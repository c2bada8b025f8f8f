#!/bin/bash
#
# quick_null.sh - pmehisto -B /dev/null (or a name of the null device)
# writes no filled bucket file, and its report is the one written with a
# file, on a real run of Debian's xz (samples in xz, liblzma, libc, the
# kernel):
#   the histogram (-T text, the .HIS of -o), with the quick path's cutoff,
#   with -C 2 -n -k and with -C 0, -T ps, and -T csv -C 0 (every bucket,
#   those with no sample too) are byte for byte those of -B FILE, but for
#   the summary's "Filled bucket file:" line, which names it;
#   -v says no filled bucket file was written, and, on the quick path
#   with a histogram that has a cutoff, that buckets were made only for
#   the routines samples fell in: those made and those not made are the
#   buckets of the filled file (-T csv -C 0 lists each), those made at
#   least its rows with a count (the report says the others among the
#   rows below the cutoff: the -T text comparison above);
#   under strace (when installed), /dev/null is never opened for writing
#   (before, the filled file was encoded, compressed and written there),
#   and the sample file is opened once: read in one pass, the files
#   samples fell in found beside the tally (before, read twice);
#   the same for a file of two runs (pmemerge: each its own mappings)
#   and for one cut short: report, warnings and exit status alike;
#   a bucket file too (-b, pmebuild -x): its report with -B /dev/null is
#   the one with -B FILE, and the input is not changed.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$pmeclock" "$pmehisto" "$pmebuild"
xz=$(command -v xz) || skip "no xz"
cd "$tmp" || exit 1

cat /usr/lib/x86_64-linux-gnu/*.so* 2>/dev/null | head -c 4000000 >input ||
    true
[ "$(stat -c %s input)" -gt 1000000 ] || skip "too few shared libraries"
"$pmeclock" -q -F 2000 -o run.pms -- "$xz" -3 -c input >/dev/null ||
    skip "pmeclock cannot record here"

# The outputs of pmehisto ARGS with -B $1, in $2.*: standard output, the
# .HIS, without the line that names the filled bucket file.
outputs() {	# BOUT TAG ARG...
	local bout=$1 tag=$2
	shift 2
	"$pmehisto" -q -o "$tag.his" -B "$bout" "$@" run.pms \
	    >"$tag.raw" 2>"$tag.err" || fail "$tag: pmehisto $*: $(cat "$tag.err")"
	grep -v 'Filled bucket file' "$tag.raw" >"$tag.out"
	grep -v 'Filled bucket file' "$tag.his" >"$tag.hisx" 2>/dev/null
}

n=0
for args in "-x -T text" "-x -T text -C 2 -n -k" "-x -T text -C 0" \
    "-x -T ps" "-x -T csv -C 0"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	outputs file$n.PME f$n $args
	# shellcheck disable=SC2086
	outputs /dev/null z$n $args
	cmp -s f$n.out z$n.out ||
	    fail "$args: the report differs with -B /dev/null:" \
	    "$(diff f$n.out z$n.out | head -n 20)"
	cmp -s f$n.hisx z$n.hisx ||
	    fail "$args: the .HIS differs with -B /dev/null"
	[ -s file$n.PME ] || fail "$args: no filled bucket file with -B FILE"
done
grep -q '^PROGRAM "xz" BY ROUTINE' f1.out ||
    fail "not a report of xz: $(head -n 5 f1.out)"
grep -q 'liblzma' f5.out || fail "no row of liblzma: $(head -n 5 f5.out)"

# A name of the null device, and -v.
ln -s /dev/null null.PME
"$pmehisto" -v -x -T none -o /dev/null -B null.PME run.pms 2>v.err ||
    fail "-B null.PME: $(cat v.err)"
grep -q "^pmehisto: 'null.PME': the null device: no filled bucket file written$" \
    v.err || fail "-v does not say the file is not written: $(cat v.err)"
[ -L null.PME ] || fail "null.PME is no longer the symbolic link"
made=$(sed -n 's/^pmehisto: \([0-9]*\) buckets made, of the routines samples fell in; \([0-9]*\) of the others not made (no filled bucket file)$/\1 \2/p' v.err)
all=$(awk -F, 'NR > 1' f5.out | wc -l)
counted=$(awk -F, 'NR > 1 && $7 > 0' f5.out | wc -l)
if [ -z "$made" ]; then
	fail "-v does not say which buckets were made: $(cat v.err)"
else
	read -r m u <<<"$made"
	[ $((m + u)) = "$all" ] ||
	    fail "$m buckets made and $u not, but the filled file has $all"
	[ "$m" -ge "$counted" ] && [ "$m" -lt "$all" ] ||
	    fail "$m buckets made: $counted rows have counts, of $all"
fi

if command -v strace >/dev/null; then
	# LeakSanitizer (a sanitized build's) cannot run under ptrace.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -o trace -e trace=open,openat,creat "$pmehisto" -q -x \
	    -T none -o x.his -B /dev/null run.pms 2>s.err ||
	    fail "strace pmehisto: $(cat s.err)"
	if grep -q '"/dev/null", O_WRONLY\|"/dev/null", O_RDWR\|creat("/dev/null"' \
	    trace; then
		fail "/dev/null opened for writing: $(grep /dev/null trace)"
	fi
	grep -q 'run.pms' trace || fail "strace saw nothing: $(head -n 5 trace)"
	[ "$(grep -c '"run.pms", O_RDONLY' trace)" = 1 ] ||
	    fail "run.pms not opened once: $(grep run.pms trace)"
else
	echo "no strace: the writes not watched"
fi

# Two runs in one file, and a file cut short.
if "$top/histo/pmemerge" -o two.pms run.pms run.pms 2>m.err; then
	sz=$(stat -c %s run.pms)
	head -c $((sz / 2)) run.pms >cut.pms
	for f in two.pms cut.pms; do
		"$pmehisto" -x -T text -C 0.01 -n -o /dev/null -B "$f.PME" "$f" \
		    >"$f.f" 2>&1
		echo "status $?" >>"$f.f"
		"$pmehisto" -x -T text -C 0.01 -n -o /dev/null -B /dev/null \
		    "$f" >"$f.z" 2>&1
		echo "status $?" >>"$f.z"
		diff <(grep -v 'Filled bucket file' "$f.f") \
		    <(grep -v 'Filled bucket file' "$f.z") >"$f.diff" ||
		    fail "$f: differs with -B /dev/null: $(head -n 20 "$f.diff")"
	done
	grep -q '^Runs: *2$' two.pms.z || fail "two.pms: not two runs"
	grep -q 'cut short' cut.pms.z || fail "cut.pms: not said to be cut short"
else
	fail "pmemerge: $(cat m.err)"
fi

# With a bucket file: the same report, the input unchanged.
"$pmebuild" -q -x "$xz" -o in.PME || fail "pmebuild -x $xz"
cp in.PME keep.PME
outputs f.PME b1 -b in.PME -T text
outputs /dev/null b2 -b in.PME -T text
cmp -s b1.out b2.out || fail "-b: the report differs with -B /dev/null:" \
    "$(diff b1.out b2.out | head -n 20)"
cmp -s in.PME keep.PME || fail "-b in.PME -B /dev/null changed in.PME"

finish
