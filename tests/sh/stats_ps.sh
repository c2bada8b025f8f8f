#!/bin/bash
#
# stats_ps.sh - stats -T ps on an event file of known states written by
# tests/fixtures/stats/psevents.c: the DSC comments (a page a graph), a
# rendering by ghostscript without a word on standard output or error,
# the exact colours of known cells, a title defined before the file is
# read winning over the file's, -t and -u with characters PostScript
# strings escape, the paper sizes and an unknown one refused, a paper
# too small for a page's furniture drawn scaled down, and the
# size of the file for 1,000,000 events on 1,000 rows staying that of
# its grid.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

stats=${STATS:-$top/stats/stats}
need "$stats"
[ -f "$top/lib/libpme.a" ] || skip "lib/libpme.a is not built"
command -v gs >/dev/null || skip "ghostscript (gs) is not installed"

cd "$tmp" || exit 1
sanitize=$(sed -n 's/^SANITIZE_FLAGS = *//p' "$top/config.mk" 2>/dev/null)
if ! cc -std=c11 -D_GNU_SOURCE -g $sanitize -I "$top/lib" -o psevents \
    "$top/tests/fixtures/stats/psevents.c" "$top/lib/libpme.a" -lelf \
    -ldwarf -lz; then
	fail "cannot build psevents"
	finish
fi
./psevents small ev.sim || { fail "psevents small failed"; finish; }

# The shipped graphs, a normalized UtilGraph of two rows, the
# histometric and the summary: five pages.
{
	cat "$top/stats/Graphfile"
	cat <<'EOF'

UtilGraph two (x, 0, NO_OF_PROCESSORS - 1) {
	name <- "Two Rows",
	normalize <- true,
	plotset <- {3, 0},
	action { EV_STATE: VALUE(x) }
	map { 0: black "Idle", 1: gray "Busy", 2: red "Getting lock",
	    3: navy "In barrier, idle", 4: brown "In barrier, busy",
	    5: blue "User 1" }
}

HistoGraph latency {
	name <- "Message Latency",
	metric <- "Latency"
}

HistoSummary all {
	name <- "All Histometrics"
}
EOF
} >g.graph

# gs FILE ARGS...: renders, and fails on anything ghostscript says.
render() {
	local f=$1
	shift
	if ! gs -q -dSAFER -dBATCH -dNOPAUSE "$@" "$f" >gs.out 2>&1 ||
	    [ -s gs.out ]; then
		fail "$f: ghostscript complained:"
		cat gs.out >&2
	fi
}

if ! $PME_VALGRIND "$stats" -f ev.sim -g g.graph -T ps -o out.ps 2>err; then
	fail "stats -T ps failed:"
	cat err >&2
	finish
fi
[ -s err ] && { fail "stats -T ps said:"; cat err >&2; }

# --- DSC --------------------------------------------------------------------
[ "$(head -n 1 out.ps)" = "%!PS-Adobe-3.0" ] ||
    fail "first line is not %!PS-Adobe-3.0"
[ "$(tail -n 1 out.ps)" = "%%EOF" ] || fail "does not end with %%EOF"
for c in '%%Pages: 5' '%%BoundingBox: 0 0 595 842' '%%EndComments' \
    '%%BeginProlog' '%%EndProlog' '%%BeginSetup' '%%EndSetup' \
    '%%Trailer'; do
	grep -qx -- "$c" out.ps || fail "no '$c' line"
done
[ "$(grep -c '^%%BeginProlog' out.ps)" = 1 ] || fail "not one prolog"
[ "$(grep -c '^%%Page: ' out.ps)" = 5 ] || fail "not 5 %%Page comments"
for i in 1 2 3 4 5; do
	grep -qx "%%Page: $i $i" out.ps || fail "no '%%Page: $i $i'"
done
grep -qx '/stats-title where { pop } { /stats-title () def } ifelse' out.ps ||
    fail "no stats-title definition in the prolog"
grep -q '^/stats-subtitle where { pop }' out.ps ||
    fail "no stats-subtitle definition in the prolog"
grep -q '^/stats-background where { pop }' out.ps ||
    fail "no stats-background definition in the prolog"
awk 'length > 255 { bad = 1 } END { exit bad }' out.ps ||
    fail "a line longer than 255 characters"

# --- rendering --------------------------------------------------------------
render out.ps -sDEVICE=png16m -r50 -sOutputFile=p%d.png
[ "$(ls p*.png 2>/dev/null | wc -l)" = 5 ] ||
    fail "ghostscript did not make 5 pages"

# The text of the pages: each graph's name, and a title defined before
# the file is read in place of every one.
render out.ps -sDEVICE=txtwrite -sOutputFile=text
for t in "Processor States" "Processor Utilization" "Two Rows" \
    "Message Latency" "All Histometrics" "Share of the time not idle" \
    "Legend (time, % in view)" "3 of 3 sets, 10 bins from 0 to 100"; do
	grep -qF "$t" text || fail "no '$t' in the pages"
done
gs -q -dSAFER -dBATCH -dNOPAUSE -sDEVICE=txtwrite -sOutputFile=over \
    -c '/stats-title (XYZ Override) def' -f out.ps >gs.out 2>&1 ||
    fail "ghostscript failed with stats-title defined before"
[ "$(grep -c 'XYZ Override' over)" = 5 ] ||
    fail "the title defined before the file is not on every page"
grep -q 'Processor States' over &&
    fail "the graph's name is still there with stats-title defined"

# -t and -u: the defaults written, escaped.
"$stats" -f ev.sim -g g.graph -T ps -t 'T (1) \ x' -u 'sub)' -o t.ps states ||
    fail "stats -t -u failed"
grep -qF '/stats-title (T \(1\) \\ x) def' t.ps ||
    fail "-t not written escaped"
render t.ps -sDEVICE=txtwrite -sOutputFile=t.text
grep -qF 'T (1) \ x' t.text || fail "-t's title not on the page"
grep -qF 'sub)' t.text || fail "-u's subtitle not on the page"

# --- colours ----------------------------------------------------------------
# The colours are graphfile(5)'s names (stats/gfile.c's table), exact: the
# cells are filled without anti-aliasing.
# pixel PPM X Y: the colour of the pixel at x, y points on an A4 page.
pixel() {
	local w h size px py
	read -r w h < <(sed -n '3p' "$1")
	size=$(stat -c %s "$1")
	px=$(awk -v x="$2" 'BEGIN { printf "%d", x * 50 / 72 }')
	py=$(awk -v y="$3" 'BEGIN { printf "%d", (842 - y) * 50 / 72 }')
	od -An -tx1 -j $((size - w * h * 3 + (py * w + px) * 3)) -N3 "$1" |
	    tr -d ' \n'
}
render out.ps -sDEVICE=ppmraw -r50 -dFirstPage=1 -dLastPage=1 \
    -sOutputFile=p1.ppm
read -r x0 y0 x1 y1 < <(sed -n 's/^% plot //p' out.ps | head -n 1)
[ -n "${y1:-}" ] || fail "no '% plot' comment on page 1"
# at FRACTION-OF-TIME ROW: a point in the middle of a cell of row ROW.
at() {
	awk -v f="$1" -v r="$2" -v x0="$x0" -v y0="$y0" -v x1="$x1" \
	    -v y1="$y1" 'BEGIN { print x0 + (x1 - x0) * f,
	    y1 - (y1 - y0) * (r + 0.5) / 4 }'
}
colour() {	# FRACTION ROW EXPECTED WHAT
	local got
	got=$(pixel p1.ppm $(at "$1" "$2"))
	[ "$got" = "$3" ] || fail "$4: pixel $got, not $3"
}
if [ -n "${y1:-}" ]; then
	colour 0.5 0 808080 "processor 0 busy (gray)"
	colour 0.25 1 000000 "processor 1 idle (black)"
	colour 0.75 1 ff0000 "processor 1 getting a lock (red)"
	colour 0.05 2 808080 "processor 2 busy first"
	colour 0.15 2 000000 "processor 2 idle next"
	colour 0.1 3 0000ff "processor 3 in user state 1 (blue)"
	colour 0.5 3 000080 "processor 3 in a barrier, idle (navy)"
	colour 0.9 3 a52a2a "processor 3 in a barrier, busy (brown)"
fi

# --- paper ------------------------------------------------------------------
for p in "letter 612 792" "a3 842 1191" "a5 420 595" "legal 612 1008" \
    "tabloid 792 1224" "8x10 576 720" "8.5x11 612 792" "20x15cm 567 425"; do
	set -- $p
	"$stats" -f ev.sim -s "$1" -T ps -o s.ps states ||
	    { fail "-s $1 failed"; continue; }
	grep -qx "%%BoundingBox: 0 0 $2 $3" s.ps ||
	    fail "-s $1: not a $2 x $3 bounding box"
	grep -qF "/PageSize [$2 $3]" s.ps || fail "-s $1: no page size"
done
render s.ps -sDEVICE=png16m -r20 -sOutputFile=s.png
for p in tiny 0x5 8x 1x1 8x10mm x10; do
	rm -f bad.ps
	"$stats" -f ev.sim -s "$p" -T ps -o bad.ps states >out 2>err &&
	    fail "-s $p: accepted"
	grep -qF "stats: -s: unknown paper size '$p'" err ||
	    fail "-s $p: not the message: $(cat err)"
	[ -e bad.ps ] && fail "-s $p: bad.ps written"
	[ -s out ] && fail "-s $p: output on standard output"
done

# A paper smaller than a page's furniture (P on a 14-row terminal made
# a 2.8-inch page, on which the legend and heading took more than the
# height and the plot's box came out inside out: fuzz_term's input
# regress/term/negative-pitch) is drawn larger and scaled down: every
# page's plot box the right way round, inside the page it is drawn on.
for p in 2x2 8x2 2x8 9.6x2.8; do
	"$stats" -f ev.sim -g g.graph -s "$p" -T ps -o small.ps 2>err ||
	    { fail "-s $p failed: $(cat err)"; continue; }
	[ -s err ] && fail "-s $p said: $(cat err)"
	read -r w h < <(awk '/^%%BoundingBox:/ { print $4, $5 }' small.ps)
	awk -v w="$w" -v h="$h" '
	/^%%Page:/ { pw = w; ph = h; s = 1 }
	/ dup scale \/pw / { s = $1; pw = $5; ph = $8 }
	/^% plot / {
		n++
		if (!($3 < $5 && $4 < $6 && $3 >= 0 && $4 >= 0 &&
		    $5 <= pw && $6 <= ph) || pw * s > w + 0.5 ||
		    ph * s > h + 0.5) {
			print "box " $3, $4, $5, $6 " on " pw " x " ph \
			    " scaled " s; bad = 1
		}
	}
	END { if (n != 3) { print n + 0 " plots, not 3"; bad = 1 }
	    exit bad }' small.ps >box.out ||
	    fail "-s $p: $(cat box.out)"
	render small.ps -sDEVICE=nullpage
done
grep -q ' dup scale /pw ' small.ps || fail "9.6x2.8: not scaled down"

# --- size -------------------------------------------------------------------
# 1,000,000 events on 1,000 rows, a state at random nearly every cell:
# the file is the grid's runs, 600 x 1,000 cells at four bytes at most.
./psevents big big.sim || fail "psevents big failed"
"$stats" -f big.sim -T ps -o big.ps states || fail "stats on big.sim failed"
size=$(stat -c %s big.ps 2>/dev/null || echo 0)
[ "$size" -gt 100000 ] && [ "$size" -lt 2600000 ] ||
    fail "big.ps is $size bytes, not the grid's (100,000 to 2,600,000)"
render big.ps -sDEVICE=png16m -r50 -sOutputFile=big.png

finish
