#!/bin/bash
#
# pmeclock_kchain.sh - the kernel's call chains below the user's with
# pmeclock -g: tests/fixtures/kchain/sys.c (reads of /dev/zero, page
# faults on fresh pages, computing) run by pmeclock -g at 1 kHz under
# perf record --call-graph dwarf at 1 kHz, the same run sampled by both.
# Of the program's samples, the inclusive share of every kernel routine,
# faults() and compute() (at least 3% in either) must agree within
# five standard deviations of the difference of two binomial shares
# (tests/sh/lib/unwind.sh), kernel routines among them; no sample lost
# its user frames; pmehisto
# --hide-kernel has no kernel frame left and every sample kept; -G fp
# records the kernel's chains too; run by a user whom /proc/kallsyms
# shows no addresses (nobody, where perf_event_paranoid is above 1),
# pmehisto says so and names the frames [kernel].  Skipped where perf_event_open is
# refused, the kernel is not sampled (perf_event_paranoid), kallsyms
# hides its addresses (kptr_restrict), or perf cannot record.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"
. "$top/tests/sh/lib/unwind.sh"

need_unwinding
p=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
[ "$(id -u)" = 0 ] || [ "$p" -le 1 ] ||
    skip "perf_event_paranoid is $p: the kernel is not sampled"
awk '$1 !~ /^0+$/ { found = 1; exit } END { exit !found }' /proc/kallsyms ||
    skip "/proc/kallsyms hides its addresses (kptr_restrict)"
command -v perf >/dev/null 2>&1 || skip "no perf here"

$cc -O2 -g -fno-omit-frame-pointer -o sys "$top/tests/fixtures/kchain/sys.c" >build.log 2>&1 ||
    { fail "cannot build sys: $(cat build.log)"; finish; }

if ! perf record -q -e cpu-clock -c 1000000 --call-graph dwarf \
    -o sys.data -- $pmeclock -q -g -F 1000 -o sys -- ./sys 1500 \
    >perf.err 2>&1 ||
    ! perf script --comm sys --no-inline -F ip,sym -i sys.data \
    >perf.txt 2>perf.err; then
	skip "perf record around pmeclock fails here: $(head -n 1 perf.err)"
fi
# shellcheck disable=SC2086 # PME_VALGRIND may be a command
histo() { ${PME_VALGRIND:-} "$pmehisto" -q -x -o out.HIS "$@"; }

histo -T folded sys.PMS >sys.folded 2>herr ||
    fail "pmehisto -T folded: $(cat herr)"
grep -q '_\[k\];.*_\[k\] [0-9]*$' sys.folded ||
    fail "no stack with two kernel frames: $(head -n 5 sys.folded)"
# Every sample of the program has its user frames: a stack of kernel
# frames right below "[truncated]" lost them (pmeclock once cut records
# with the kernel's chain as if they had none, and a sixth of the page
# faults' samples came without their user registers).
lost=$(awk '$1 ~ /^\[truncated\];[^;]*_\[k\]/ { n += $NF } END { print n + 0 }' sys.folded)
[ "$lost" = 0 ] ||
    fail "$lost samples without their user frames: $(grep '^\[truncated\];[^;]*_\[k\]' sys.folded | head -n 3)"
sed 's/_\[k\]//g' sys.folded >pme.folded
incl_folded pme.folded | grep -v '^__libc_start_main ' >pme.incl
# perf names __libc_start_main_impl (inlined, from libc's DWARF) where
# pme has __libc_start_main.
incl_perf perf.txt | grep -v '^__libc_start_main' >perf.incl
# The kernel's routines, and the program's that do not call libc (perf's
# unwinding from libc's read into syscalls() fails at times here).
kre=$(tr ';' '\n' <sys.folded | sed -n 's/_\[k\]$//p' | sort -u |
    sed 's/[.[\]*^$]/\\&/g' | paste -sd '|')
compare_incl pme.incl perf.incl 0.03 "^(faults|compute|$kre)\$" >cmp
grep -q ' BAD$' cmp &&
    fail "inclusive shares (routine pme% perf% tolerance%) differ: $(cat cmp)"
[ "$(grep -c ' ok$' cmp)" -ge 5 ] && grep -q '^faults .* ok$' cmp &&
    grep -q '^compute .* ok$' cmp ||
    fail "fewer than 3 kernel routines compared, or not faults: $(cat cmp)"

histo -T folded --hide-kernel sys.PMS >hide.folded 2>herr ||
    fail "--hide-kernel: $(cat herr)"
grep -q '_\[k\]' hide.folded &&
    fail "--hide-kernel: kernel frames left: $(grep '_\[k\]' hide.folded | head -n 3)"
a=$(awk '{ n += $NF } END { print n + 0 }' sys.folded)
b=$(awk '{ n += $NF } END { print n + 0 }' hide.folded)
[ "$a" = "$b" ] && [ "$a" -gt 0 ] || fail "samples: $a, with --hide-kernel $b"
grep -q ';faults [0-9]*$' hide.folded ||
    fail "--hide-kernel: faults' page faults not booked to it"

# A user whom /proc/kallsyms shows no addresses (kptr_restrict, or
# perf_event_paranoid above 1 with kptr_restrict 0): told, and the
# kernel's frames are [kernel].
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 &&
    id nobody >/dev/null 2>&1 &&
    setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
    awk '{ exit $1 !~ /^0+$/ }' /proc/kallsyms 2>/dev/null; then
	# nobody reads the program through the test's directory
	chmod 711 "$tmp"
	nd=$(mktemp -d /tmp/pme-kchain.XXXXXX)
	chmod 755 "$nd" && cp sys.PMS "$nd/" && chmod 644 "$nd/sys.PMS" &&
	    chmod 777 "$nd"
	(cd "$nd" && setpriv --reuid=nobody --regid="$(id -g nobody)" \
	    --clear-groups env HOME="$nd" XDG_CACHE_HOME="$nd/cache" \
	    "$pmehisto" -x -T folded -o "$nd/o.HIS" sys.PMS) >hidden.folded \
	    2>hidden.err || fail "pmehisto as nobody: $(cat hidden.err)"
	rm -rf "$nd"
	grep -q 'kallsyms shows this user no addresses' hidden.err ||
	    fail "hidden kallsyms not said: $(cat hidden.err)"
	grep -q ';\[kernel\]_\[k\];\[kernel\]_\[k\]' hidden.folded ||
	    fail "hidden kallsyms: no [kernel] frames: $(head -n 3 hidden.folded)"
	c=$(awk '{ n += $NF } END { print n + 0 }' hidden.folded)
	[ "$c" = "$a" ] || fail "hidden kallsyms: $c samples, not $a"
else
	echo "no user here whom kallsyms hides addresses from: part skipped"
fi

run 0 "pmeclock -G fp" -g -G fp -F 1000 -o fp -- ./sys 300
histo -T folded fp.PMS >fp.folded 2>herr || fail "-G fp: $(cat herr)"
grep -q '_\[k\];.*_\[k\] [0-9]*$' fp.folded ||
    fail "-G fp: no stack with two kernel frames: $(head -n 5 fp.folded)"
finish
