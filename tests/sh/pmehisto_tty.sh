#!/bin/bash
#
# pmehisto_tty.sh - pmehisto on a terminal, driven through tmux as a user
# would: the seed's questions (Clock or Trace, file names and their
# defaults) when the default files do not fit, none when they do, then the paged display fitted to the pane (no line wider
# than the pane, pages no longer than it) and its commands: Return (next
# page), H (help), S (summary), R (restart), cycling from the last page
# to the first, and K (kill).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
cols=100 rows=30

command -v tmux >/dev/null || { echo "skipped: tmux is not installed"; exit 77; }
need "$tsample"

TTY_COMMAND=$pmehisto TTY_COLS=$cols TTY_ROWS=$rows
. "$top/tests/sh/lib/tty.sh"

# fits: the screen's lines are no wider than the pane, and the page with
# its prompt fits it (the page header is on the screen's first line).
fits() {
	local w
	w=$(screen | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
	[ "$w" -le $cols ] || fail "a line of $w columns in a $cols-column pane"
	screen | head -n 1 | grep -q "^Performance Measurement and Evaluation Histogram" ||
	    { fail "the page does not start on the first line:"; screen >&2; }
}

# One group of 80 routines: several pages of the 30-line pane.
mkdir -p "$tmp/one" && cd "$tmp/one" || exit 1
"$pmebuild" -q "$top/tests/histo/long.pmd" PMEFILE.PME >/dev/null || exit 1
"$tsample" write PMEFILE.PMS <"$top/tests/histo/many.smp" || exit 1
tty_start "$tmp/one"
# The default files are there and fit (issue 12): nothing is asked.
wait_for "Page 1" && wait_for "Enter command (H for help):"
screen | grep -q "Clock or Trace\|specify file names" &&
    fail "a question asked though the default files fit"
fits
wait_for "PROGRAM MANY BY ROUTINE"
type_line ""
wait_for "Page 2" && fits
wait_for "PROGRAM MANY BY ROUTINE (continued)"
type_line H
wait_for "R       restart the display from the beginning"
wait_for "K       kill the display and exit"
type_line S
wait_for "Summary statistics" && fits
wait_for "Sample files:        PMEFILE.PMS"
# The summary is the last page: Return cycles to the first.
type_line ""
wait_for "Page 1"
type_line ""
wait_for "Page 2"
type_line R
wait_for "Page 1"
type_line K
wait_for "EXIT=0"
[ -s PMEFILE.HIS ] || fail "no PMEFILE.HIS written"

# Yes to the names: each asked with its default; the output bucket file
# defaults to the input's name (the seed's rule).
mkdir -p "$tmp/two" && cd "$tmp/two" || exit 1
"$pmebuild" -q "$top/tests/histo/gravel.pmd" gravel.PME >/dev/null || exit 1
"$tsample" write run.PMS <"$top/tests/histo/gravel.smp" || exit 1
tty_start "$tmp/two"
wait_for "Clock or Trace? (C or T):" && type_line x
wait_for "Clock or Trace? (C or T):" && type_line C
wait_for "Do you wish to specify file names? (Yes or No):" && type_line y
wait_for "Input sample file [PMEFILE.PMS]:" && type_line run
wait_for "Input bucket file [PMEFILE.PME]:" && type_line gravel
wait_for "Output bucket file [gravel.PME]:" && type_line ""
wait_for "Output histogram file [PMEFILE.HIS]:" && type_line gravel
wait_for "Page 1" && wait_for "PHASE TWO BY MODULE"
type_line K
wait_for "EXIT=0"
[ -s gravel.HIS ] || fail "no gravel.HIS written"
[ -e PMEFILE.PME ] && fail "PMEFILE.PME written"
grep -q "^Filled bucket file:  gravel.PME" gravel.HIS ||
    fail "gravel.PME was not the output bucket file"

finish
