#!/bin/bash
#
# pmehisto_tty.sh - pmehisto on a terminal, driven through tmux as a user
# would: the seed's questions (Clock or Trace, file names and their
# defaults) when the default files do not fit, none when they do, then the paged display fitted to the pane (no line wider
# than the pane, pages no longer than it) and its commands: Return (next
# page), H (help), S (summary), R (restart), cycling from the last page
# to the first, and K (kill); the commands added to the seed's (issue
# 12): B (back, from the first page to the last), a page number, /text
# (case ignored, the page shown or the next with a name containing text,
# those rows in reverse video: the pane's attributes read back), n and /
# (again, from the next page, round the pages), not found, and q (as K);
# letters act at once, without Return (issue 23 item 7).  tests/unit/t_pager checks the
# same byte for byte, without a terminal.
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

# marked ERE: the rows named ERE on the screen (at least one), and only
# they, are in reverse video, each whole line: the pane read back with
# its attributes (tmux gives an attribute where it changes).
marked() {
	local want got
	want=$(screen | grep -E "^($1) ")
	got=$(tmux -L "$tty_sock" capture-pane -p -e -t t | awk '{
		line = ""; state = -1; s = $0
		while (match(s, /\033\[[0-9;]*m/)) {
			if (RSTART > 1) {
				if (state < 0)
					state = rev
				line = line substr(s, 1, RSTART - 1)
			}
			n = split(substr(s, RSTART + 2, RLENGTH - 3), p, ";")
			if (n == 0)
				rev = 0
			for (k = 1; k <= n; k++)
				if (p[k] == "7")
					rev = 1
				else if (p[k] == "" || p[k] == "0" || p[k] == "27")
					rev = 0
			s = substr(s, RSTART + RLENGTH)
		}
		if (s != "" && state < 0)
			state = rev
		if (state == 1)
			print line s
	}')
	[ -n "$want" ] && [ "$got" = "$want" ] ||
	    fail "/$1: reverse video on '$got', not on '$want'"
}

# One group of 80 routines: several pages of the 30-line pane, the
# summary the fifth: PARSE_00 to PARSE_22 on the first, to EMIT_05 on the
# second, to EMIT_28 on the third.
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
type_key H
wait_for "R       restart the display from the beginning"
wait_for "K       kill the display and exit"
type_key S
wait_for "Summary statistics" && fits
wait_for "Sample files:        PMEFILE.PMS"
# The summary is the last page: Return cycles to the first.
type_line ""
wait_for "Page 1"
type_line ""
wait_for "Page 2"
type_key R
wait_for "Page 1"
# The additions.
type_key B
wait_for "Page 5" && wait_for "Summary statistics"
type_line 2
wait_for "Page 2" && wait_for "PARSE_39"
type_key H
wait_for "Q       quit: the same as K"
wait_for "B       back: display the page before"
wait_for "/ or n  search for the same text again"
# A search starts on the page shown (the help below it goes as the page
# is drawn again); n and / go on after it.
type_line /_2
wait_gone "Q       quit" && wait_for "Page 2" && marked "PARSE_2[3-9]" && fits
type_key n
wait_for "Page 3" && marked "EMIT_2[0-8]"
type_key n
wait_for "Page 4" && marked "EMIT_29"
type_line /
wait_for "Page 1" && marked "PARSE_2[0-2]"
type_line /EMIT_2
wait_for "Page 3" && marked "EMIT_2[0-8]"
type_line /nosuch
wait_for "'nosuch': not found"
# The page stays (scrolled up by the message and the prompt).
screen | grep -q "^EMIT_28 " || fail "not found: the page changed"
type_line 9
wait_for "no page 9: the pages are 1 to 5"
type_key K
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
# q quits at once, without Return.
type_key q
wait_for "EXIT=0"
[ -s gravel.HIS ] || fail "no gravel.HIS written"
[ -e PMEFILE.PME ] && fail "PMEFILE.PME written"
grep -q "^Filled bucket file:  gravel.PME" gravel.HIS ||
    fail "gravel.PME was not the output bucket file"

finish
