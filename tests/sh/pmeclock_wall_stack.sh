#!/bin/bash
#
# pmeclock_wall_stack - how much user stack pmeclock -w copies at a
# switch-out: 2 KiB, unless -G dwarf,SIZE names a size, larger ones
# too (-G's 8 KiB default is not taken: copying 4 KiB at 200,000
# switches a second was twenty times perf's bytes, and waits' stacks
# need less than 2 KiB).  tests/fixtures/clock/deepwait.c sleeps 200
# times under BYTES of its own stack.  Under 3,000 bytes: with -w alone
# every wait's chain is cut short (pmeclock -v: at least 190 chains, all
# of them truncated but 2; pmehisto -M sleep puts every sleep's stack
# under "[truncated]", as a sample's), with -w -G dwarf,4096 none is (2
# at most: the clock's samples; no sleep's stack under "[truncated]").  Under 5,000 bytes with -w -G dwarf,8192, none
# is.  Before, -w copied 4 KiB (none of the 3,000-byte waits cut short)
# and -G dwarf,8192 4 KiB too (all 200 of the 5,000-byte ones).
#
# Skipped where pmeclock -w cannot run or cannot unwind from the CFI.
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/wall.sh"

need "$pmeclock" "$pmehisto"
cd "$tmp" || exit 1
waits_fixture
cfi_fixture deepwait

# unwound WHAT PMECLOCK-ARGS...: sets chains and trunc from -v's line.
unwound() {
	local what=$1
	shift
	chains= trunc=
	"$pmeclock" -v -o out.PMS "$@" >/dev/null 2>err.txt </dev/null ||
	    { fail "$what: pmeclock: $(head -c 500 err.txt)"; return; }
	read -r chains trunc <<<"$(sed -n 's/^pmeclock: \([0-9]*\) call chains unwound from the CFI in .*, \([0-9]*\) truncated$/\1 \2/p' err.txt)"
	[ -n "$trunc" ] ||
	    fail "$what: no unwinding figures: $(head -c 500 err.txt)"
	echo "$what: $chains chains, $trunc truncated"
}

# whole WHAT WANT PMECLOCK-ARGS...: WANT all: every chain truncated
# but 2; none: 2 at most.
whole() {
	local what=$1 want=$2
	shift 2
	unwound "$what" "$@"
	[ -n "$trunc" ] || return
	[ "$chains" -ge 190 ] || fail "$what: $chains chains, not 190 or more"
	# The sleeps' stacks in the reports: nanosleep's under
	# "[truncated]" where the chains were cut, as a sample's are.
	"$pmehisto" -q -x -M sleep -T folded -B /dev/null out.PMS \
	    >sleep.folded 2>sleep.err ||
	    fail "$what: pmehisto -M sleep: $(cat sleep.err)"
	read -r cut whole <<<"$(awk '$1 ~ /nanosleep/ { n++
	    if ($1 ~ /^\[truncated\];/) t++ } END { print t + 0, n + 0 }' \
	    sleep.folded)"
	if [ "$want" = all ]; then
		[ "$trunc" -ge $((chains - 2)) ] ||
		    fail "$what: $trunc of $chains chains truncated, not all"
		[ "$whole" -gt 0 ] && [ "$cut" = "$whole" ] ||
		    fail "$what: $cut of $whole sleep stacks under [truncated]"
	else
		[ "$trunc" -le 2 ] ||
		    fail "$what: $trunc of $chains chains truncated"
		[ "$whole" -gt 0 ] && [ "$cut" = 0 ] ||
		    fail "$what: $cut of $whole sleep stacks under [truncated]"
	fi
}

whole "-w, 3000 bytes" all -w ./deepwait 3000
whole "-w -G dwarf,4096, 3000 bytes" none -w -G dwarf,4096 ./deepwait 3000
whole "-w -G dwarf,8192, 5000 bytes" none -w -G dwarf,8192 ./deepwait 5000
finish
