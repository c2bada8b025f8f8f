#!/bin/bash
#
# stats_term.sh - stats' interactive view on a terminal, driven through
# tmux as a user would: the event file of tests/fixtures/stats/sim.c
# shown as the states graph (the view count, row labels, legend with
# occupancy), a zoom (C-Down: view 2/2, about the centre), a pan of the
# latest view in place (Right), views back and forth (M-Left, M-Right,
# M-Up), the legend in absolute times (%), a redraw at a resize, the
# help (?) fitted to the pane, the text marks with NO_COLOR, and q: exit status 0, the alternate screen
# left, the cursor shown and the terminal's settings as they were.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
cols=100 rows=30
stats=${STATS:-$top/stats/stats}

command -v tmux >/dev/null || skip "tmux is not installed"
need "$stats"

mkdir -p "$tmp/run" && cd "$tmp/run" || exit 1
sanitize=$(sed -n 's/^SANITIZE_FLAGS = *//p' "$top/config.mk" 2>/dev/null)
if ! cc -std=c11 -D_GNU_SOURCE -g $sanitize -I "$top/lib" -o sim \
    "$top/tests/fixtures/stats/sim.c" "$top/lib/libpme.a" -lelf -ldwarf \
    -lz -lpthread; then
	fail "cannot build sim"
	exit 1
fi
./sim 200 || { fail "sim failed"; exit 1; }

# The machine is busy: up to 60 s for what should come at once.
TTY_COLS=$cols TTY_ROWS=$rows TTY_WAIT=60
TTY_COMMAND="stty -g >before; $stats -f events.sim; rc=\$?; stty -g >after; (exit \$rc)"
. "$top/tests/sh/lib/tty.sh"

tty_start "$tmp/run"
wait_for "view 1/1  Processor States  (graph 1/4)"
wait_for "cycles 0 to 2,600, rows 0 to 3"
for r in 0 1 "cpu two" 3; do	# sim names processor 2
	wait_re "^$r *\|.*\|$"
done
wait_re "^ +0 +2,600$"
wait_re "Busy +45\.7%"
wait_re "Getting lock +3\.3%"
wait_re "In barrier, idle +16\.3%"
wait_re "User 1 +32\.7%"

# View 1 is the whole run: Right has nowhere to go, no view is added.
tmux -L "$tty_sock" send-keys -t t Right C-Down
wait_for "view 2/2  Processor States"
wait_for "cycles 650 to 1,950, rows 0 to 3"
# The latest view pans in place by 20%.
tmux -L "$tty_sock" send-keys -t t Right
wait_for "cycles 910 to 2,210, rows 0 to 3"
wait_for "view 2/2"
tmux -L "$tty_sock" send-keys -t t M-Left
wait_for "view 1/2"
wait_for "cycles 0 to 2,600"
tmux -L "$tty_sock" send-keys -t t M-Right
wait_for "view 2/2"
wait_for "cycles 910 to 2,210"
tmux -L "$tty_sock" send-keys -t t M-Up
wait_for "view 1/2"
wait_for "cycles 0 to 2,600"
# Times, not percentages.
tmux -L "$tty_sock" send-keys -t t %
wait_re "Busy +4,480$"

# A narrower terminal: the chart is redrawn to its width.
tmux -L "$tty_sock" resize-window -t t -x 80 -y $rows
wait_re "^ +0 +2,600$"
w=$(screen | awk '/2,600$/ { print length($0) }' | head -n 1)
[ "$w" = 80 ] || fail "after the resize the axis is $w columns, not 80"

# P: the view as PostScript, the page in the terminal's proportions.
tmux -L "$tty_sock" send-keys -t t P
wait_for "wrote stats.ps (8.0x6.0 inches)"
grep -q '^%%BoundingBox: 0 0 576 432$' stats.ps ||
    fail "P: $(grep BoundingBox stats.ps)"
if command -v gs >/dev/null; then
	gs -q -dSAFER -dBATCH -dNOPAUSE -sDEVICE=nullpage stats.ps \
	    >gs.out 2>&1 </dev/null || fail "P: gs: $(cat gs.out)"
	[ ! -s gs.out ] || fail "P: gs said: $(cat gs.out)"
fi

# ?: the help fits the 80 columns on the last rows, each line narrower
# than the pane, and the heading stays on the first (issue 23 item 7: a
# line of 180 columns wrapped and scrolled it off).
tmux -L "$tty_sock" send-keys -t t '?'
wait_for "q quit" && wait_for "Left/Right pan 20%"
screen | head -n 1 | grep -q "^view 1/" ||
    fail "?: the heading left the first line: $(screen | head -n 2)"
w=$(screen | awk '/pan 20%|zoom|q quit/ { if (length($0) > m) m = length($0) }
    END { print m + 0 }')
[ "$w" -gt 0 ] && [ "$w" -lt 80 ] ||
    fail "?: a help line of $w columns in an 80-column pane"

tmux -L "$tty_sock" send-keys -t t q
wait_for "EXIT=0"
screen | grep -q "view " && fail "the view is still on the screen after q"
state=$(tmux -L "$tty_sock" display-message -p -t t \
    '#{alternate_on} #{cursor_flag}')
[ "$state" = "0 1" ] ||
    fail "after q: alternate screen, cursor shown: '$state', not '0 1'"
for i in $(seq 600); do [ -s after ] && break; sleep 0.1; done
cmp -s before after || fail "the terminal's settings were not restored"

# Without colours the legend's marks draw the chart: Busy is '='.
TTY_COMMAND="NO_COLOR=1 $stats -f events.sim"
mkdir -p "$tmp/mono" && cp events.sim "$tmp/mono" || exit 1
tty_start "$tmp/mono"
wait_re "^0 +\|=+"
wait_re " = Busy +45\.7%"
tmux -L "$tty_sock" send-keys -t t Escape
wait_for "EXIT=0"

finish
