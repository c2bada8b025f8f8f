#!/bin/bash
#
# pmehisto_caliper_tty.sh - pmehisto -V caliper -T term on a terminal,
# driven through tmux: the view's text paged with the histogram's pager
# (lib/render.c, pme_text_term()): pages no longer than the pane less
# the prompt, a line wider than the pane counted as the rows it wraps to,
# Return (the next page), S (the last page), /text (the next page with a
# line holding text), R (the first) and K (the end, exit status 0).  The
# input is the golden test's (tests/fixtures/caliper: cal and cal.smp).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
fx=$top/tests/fixtures/caliper
cols=80 rows=20

command -v tmux >/dev/null || skip "tmux is not installed"
need "$tsample" "$pmehisto"

mkdir -p "$tmp/v" && cd "$tmp/v" || exit 1
cp "$fx/cal" "$fx/cal.c" . || exit 1
sed "s|@DIR@|$tmp/v|" "$fx/cal.smp" | "$tsample" write cal.PMS >/dev/null ||
    exit 1
# The text the pages must show, in order.
"$pmehisto" -q -V caliper -T none -o all.txt cal.PMS || exit 1

TTY_COMMAND="$pmehisto -q -V caliper -T term -o /dev/null cal.PMS"
TTY_COLS=$cols TTY_ROWS=$rows
. "$top/tests/sh/lib/tty.sh"

# page: the screen less its prompt line, no more rows than the pane less
# the prompt, must be the next lines of all.txt from line $at, a line
# wider than the pane wrapped to the rows tmux shows it in.
at=1
page() {
	local n
	screen | sed '/^Enter command (H for help):/,$d' >shown
	n=$(wc -l <shown)
	[ "$n" -le $((rows - 1)) ] || fail "a page of $n rows in a $rows-row pane"
	sed -n "$at,\$p" all.txt | awk -v c=$cols -v want="$n" '{
		k = length($0) > c ? int((length($0) + c - 1) / c) : 1
		if (r + k > want)
			exit
		for (i = 0; i < k; i++)
			print substr($0, i * c + 1, c)
		r += k
		lines++
	} END { print lines + 0 >"consumed" }' >want
	cmp -s want shown || { fail "page at line $at:"; diff want shown >&2; }
	at=$((at + $(cat consumed)))
}

tty_start "$tmp/v"
wait_for "Enter command (H for help):" && wait_for "Caliper views: 85 clock samples"
page
type_line ""
wait_for "Enter command (H for help):" && page
type_key S
wait_for "0xffffffff81000000:" || true
screen | grep -q "^Caliper views" && fail "S: still the first page"
type_key R
wait_for "Caliper views: 85 clock samples"
type_line "/worker"
wait_for "worker"
type_key K
wait_for "EXIT=0"
finish
