#!/bin/bash
#
# pmehisto_spy_tty.sh - pmehisto -V spy -T term on a terminal, driven
# through tmux: the Spy's report paged with the pager of the views
# (pme_text_term(), lib/render.c) as pmehisto_caliper_tty checks it for
# Caliper's: the first two pages are the report's first lines, no page
# longer than the pane less the prompt; S, the last page; K, the end with
# exit status 0.  The input is pmehisto_spy's golden one (tests/histo:
# calls.pmd, calls.smp).  It was shown unpaged before.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
cols=80 rows=15

command -v tmux >/dev/null || skip "tmux is not installed"
need "$tsample" "$pmehisto"

mkdir -p "$tmp/v" && cd "$tmp/v" || exit 1
"$pmebuild" -q -o c.PME "$top/tests/histo/calls.pmd" >/dev/null || exit 1
"$tsample" write c.PMS <"$top/tests/histo/calls.smp" >/dev/null || exit 1
"$pmehisto" -q -V spy -b c.PME -T none -o all.txt c.PMS || exit 1
[ "$(wc -l <all.txt)" -gt $((2 * rows)) ] || fail "the report fits a page"

TTY_COMMAND="$pmehisto -q -V spy -b c.PME -T term -o /dev/null c.PMS"
TTY_COLS=$cols TTY_ROWS=$rows
. "$top/tests/sh/lib/tty.sh"

# page: the screen less its prompt is the next lines of all.txt (none
# of them wider than the pane).  It waits for the page to start with the
# line it must start with (the last page's prompt may still be on the
# screen when the command was typed) and to end with the prompt.
at=1
page() {
	local i first
	first=$(sed -n "${at}p" all.txt)
	for i in $(seq 100); do
		screen >scr
		[ "$(head -n 1 scr)" = "$first" ] &&
		    grep -q "^Enter command (H for help):" scr && break
		sleep 0.1
	done
	sed '/^Enter command (H for help):/,$d' scr >shown
	n=$(wc -l <shown)
	[ "$n" -le $((rows - 1)) ] || fail "a page of $n rows in a $rows-row pane"
	sed -n "$at,$((at + n - 1))p" all.txt >want
	cmp -s want shown || { fail "page at line $at:"; diff want shown >&2; }
	at=$((at + n))
}

tty_start "$tmp/v"
wait_for "Enter command (H for help):" && page
type_line ""
wait_for "Enter command (H for help):" && page
type_key S
wait_for "$(tail -n 1 all.txt)"
screen | sed '/^Enter command (H for help):/,$d' | grep -v '^$' | tail -n 1 >last
tail -n 1 all.txt | cmp -s - last || fail "S: not the last page: $(cat last)"
type_key K
wait_for "EXIT=0"
finish
