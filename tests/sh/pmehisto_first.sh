#!/bin/bash
#
# pmehisto_first.sh - a perf user's first runs of pmehisto (issue 12):
#
#   - clock or trace input chosen by what the files hold, not by their
#     dates alone: pmeclock then pmebuild -x (the bucket file newer, and
#     empty) is clock input, said nowhere because it is obvious; a filled
#     bucket file beside a sample file of its program, or a sample file of
#     another program, is said (-q silences it);
#   - on a terminal, no question when the default files fit; the reason
#     and the seed's questions when they do not;
#   - the quick path's rows by count with a 0.5% cutoff (-a address
#     order, -C 0 every row), a bucket file's rows as they are;
#   - trace input: a subtitle saying what the counts are of, and no
#     "Lost samples" or sampling interval in its summary.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
cc=${CC:-cc}
fx=$top/tests/fixtures/trace

# ph ARGS...: pmehisto, not on a terminal; output in out, messages in err.
ph() {
	"$pmehisto" "$@" >out 2>err </dev/null
}

# err_is TEXT WHAT: standard error is exactly TEXT.
err_is() {
	[ "$(cat err)" = "$1" ] ||
	    { fail "$2: stderr is not '$1':"; sed 's/^/    /' err >&2; }
}

his_has() {	# ERE WHAT
	grep -Eq -- "$1" PMEFILE.HIS ||
	    { fail "$2: no /$1/ in PMEFILE.HIS:"; sed 's/^/    /' PMEFILE.HIS >&2; }
}

cd "$tmp" || exit 1
$cc -g -O1 -shared -fPIC -o libtr.so "$fx/lib.c" &&
$cc -g -O1 -o prog "$fx/prog.c" -L. -ltr -Wl,-rpath,"$tmp" -pthread &&
cp /bin/true other || { echo "cannot build the fixtures" >&2; exit 1; }

# --- the choice ---------------------------------------------------------------

# pmeclock, then pmebuild -x: the empty bucket file is newer, and clock
# input is still what is meant (it took the bucket file as trace input
# and printed an empty histogram).
"$pmeclock" -q -F 1000 -- ./prog loop 10000000 || fail "pmeclock failed"
sleep 0.01
"$pmebuild" -q -x ./prog || fail "pmebuild -x failed"
ph -T none
err_is "" "clock after pmebuild"
his_has "^Counts: +clock samples" "clock after pmebuild"
his_has "^Sample files: +PMEFILE.PMS" "clock after pmebuild"
his_has "^kloop +\|" "clock after pmebuild"
total=$(sed -n 's/^Total: *//p' PMEFILE.HIS)
[ "${total:-0}" -gt 0 ] || fail "clock after pmebuild: no samples counted"

# Again: the filled bucket file is newer than the samples it holds:
# their counts are shown, and that is said.
ph -T none
err_is "pmehisto: trace input: the counts in 'PMEFILE.PME', which is newer than 'PMEFILE.PMS' (-c tallies the samples again)" \
    "trace after clock"
his_has "^Total: +$total\$" "trace after clock"
grep -q "^Sample files:" PMEFILE.HIS && fail "trace after clock: read samples"
ph -q -T none
err_is "" "-q"
# The bucket file on standard input (-b -), no sample file: its counts.
# Choosing the input must not read it (standard input is read once).
mkdir stdin && (cd stdin && "$pmehisto" -b - -T none -o - \
    <../PMEFILE.PME >../out 2>../err)
err_is "" "-b - (trace)"
grep -Eq "^Total: +$total\$" out || fail "-b -: not the counts: $(cat out)"

# Newer samples of the same program into a clock-filled file: obvious.
sleep 0.01
touch PMEFILE.PMS
ph -T none
err_is "" "newer samples"
his_has "^Sample files: +PMEFILE.PMS" "newer samples"

# Exact counts (pmetrace's step engine) beside newer samples of their
# program: clock input, said.
cp PMEFILE.PMS keep.PMS
"$pmebuild" -q -x ./prog -o empty.PME
if [ "$(uname -m)" = x86_64 ]; then
	"$pmetrace" -q -e step -b empty.PME -o counted.PME -- ./prog loop 10 \
	    >/dev/null 2>&1 || fail "pmetrace failed"
	cp counted.PME PMEFILE.PME
	sleep 0.01
	touch PMEFILE.PMS
	ph -T none
	err_is "pmehisto: clock input: 'PMEFILE.PMS' is newer than the counts in 'PMEFILE.PME' (-t shows those)" \
	    "samples newer than exact counts"
	his_has "^Counts: +clock samples" "samples newer than exact counts"
	cp counted.PME PMEFILE.PME
	ph -T none
	err_is "pmehisto: trace input: the counts in 'PMEFILE.PME', which is newer than 'PMEFILE.PMS' (-c tallies the samples)" \
	    "exact counts newer than samples"
	his_has "^Counts: +executed instructions" \
	    "exact counts newer than samples"
else
	echo "the exact counts' checks were skipped: the step engine needs x86-64"
fi

# Samples of another program beside an empty bucket file of a
# definition: clock input, and why it will count nothing in the buckets
# (the quick path's would be made again: pmehisto_stale.sh).
printf '%s\n' "DEFINE UNITS: PROGRAM, MODULE, ROUTINE" "PROGRAM \"prog\"" \
    "DEFINE ADDRESSES: EXE \"$tmp/prog\"" "DEFINE SAMPLING" \
    "PROGRAM \"prog\" BY ROUTINE" "END" >seed.pmd
"$pmebuild" -q seed.pmd seed.PME || fail "pmebuild seed.pmd failed"
cp seed.PME PMEFILE.PME
"$pmeclock" -q -o PMEFILE.PMS -- ./other || fail "pmeclock other failed"
ph -T none
err_is "pmehisto: clock input, but 'PMEFILE.PMS' holds samples of other, none of whose load modules is in 'PMEFILE.PME'" \
    "samples of another program"

# The same beside a filled bucket file: its counts, and why.
cp keep.PMS PMEFILE.PMS
ph -c -T none
sleep 0.01
"$pmeclock" -q -o PMEFILE.PMS -- ./other || fail "pmeclock other failed"
ph -T none
err_is "pmehisto: trace input: the counts in 'PMEFILE.PME' ('PMEFILE.PMS' holds samples of other, none of whose load modules is in it)" \
    "filled, samples of another program"

# No sample file and an empty bucket file: what to do.
rm PMEFILE.PMS
cp empty.PME PMEFILE.PME
ph -T none
err_is "pmehisto: 'PMEFILE.PME': no counts yet (an empty bucket file, as pmebuild makes it): give it samples from pmeclock (clock input, -c), or count with pmetrace" \
    "nothing to show"

# --- on a terminal -------------------------------------------------------------

if command -v tmux >/dev/null; then
	TTY_COMMAND="$pmehisto -T text" TTY_COLS=120 TTY_ROWS=40
	. "$top/tests/sh/lib/tty.sh"
	mkdir fits && cd fits || exit 1
	cp ../keep.PMS PMEFILE.PMS && cp ../empty.PME PMEFILE.PME
	tty_start "$tmp/fits"
	wait_for "EXIT=0"
	screen | grep -q "Clock or Trace\|specify file names" &&
	    fail "tty: a question though the default files fit"
	screen | grep -q "^Summary statistics" ||
	    fail "tty: no histogram shown"
	cd .. && mkdir notours && cd notours || exit 1
	cp ../seed.PME PMEFILE.PME
	"$pmeclock" -q -o PMEFILE.PMS -- ../other || fail "pmeclock failed"
	tty_start "$tmp/notours"
	wait_for "holds samples of other" &&
	    wait_for "Clock or Trace? (C or T):" && type_line ""
	wait_for "Do you wish to specify file names? (Yes or No):" &&
	    type_line ""
	wait_for "EXIT=0"
	cd .. || exit 1
else
	echo "the terminal checks were skipped: tmux is not installed"
fi

# --- the quick path's rows ----------------------------------------------------

cp keep.PMS q.PMS
"$pmehisto" -x -o q.HIS -T text q.PMS >q.txt 2>/dev/null || fail "-x failed"
# By count: the percentages never grow down the group, none below 0.5%.
awk -F'|' 'NF >= 2 { sub(/%.*/, "", $NF); n = split($NF, a, " "); p = a[n] + 0
	if (seen && p > last) bad = 1; if (p < 0.5) small = 1; last = p; seen = 1 }
	END { exit !(seen && !bad && !small) }' q.txt ||
    { fail "-x: rows not by count, or below the cutoff:"; sed 's/^/    /' q.txt >&2; }
grep -Eq "^\([0-9]+ buckets? below 0.5% not shown" q.txt ||
    fail "-x: no line for the rows left out"
rows=$(grep -c "^[A-Za-z_].*|.*%" q.txt)
all=$("$pmehisto" -x -a -C 0 -o - -T none q.PMS 2>/dev/null | grep -c "^[A-Za-z_].*|.*%")
[ "$all" -gt "$rows" ] || fail "-x -C 0: $all rows, not more than $rows"
# -a: address order, that of the bucket file pmebuild -x makes, which is
# the quick path's too (by count, the cutoff) unless -a and -C say.  The
# quick path's rows of the kernel and libraries the samples fell in
# come after the program's, which pmebuild -x makes alone.
"$pmehisto" -x -a -C 0 -o - -T none q.PMS 2>/dev/null |
    awk -F'|' 'NF >= 2 { gsub(/ /, "", $1); print $1 }' >a.names
"$pmehisto" -a -C 0 -b empty.PME -B e2.PME -o - -T none q.PMS 2>/dev/null |
    awk -F'|' 'NF >= 2 { gsub(/ /, "", $1); print $1 }' >b.names
head -n "$(wc -l <b.names)" a.names | cmp -s - b.names ||
    { fail "-x -a: rows not in the bucket file's order:"; diff a.names b.names | head >&2; }
[ "$(grep -c '^[A-Za-z_]' a.names)" = "$all" ] || fail "-a -C 0: not every row"
# Rows as "name share": the name column is as wide as the longest name
# shown, and the bars scale with what is left of the page, so the quick
# path's rows of long kernel names (under load) change both.
namepct() {
	grep "^[A-Za-z_].*|.*%" | awk -F'|' '{ n = $1; gsub(/ /, "", n)
	    p = $NF; sub(/%.*/, "", p); k = split(p, a, " "); print n, a[k] }'
}
"$pmehisto" -b empty.PME -B e2.PME -o - -T none q.PMS 2>/dev/null |
    namepct >b.rows
grep -q '^kloop [0-9.]*$' b.rows || fail "pmebuild -x's bucket file: no kloop row"
namepct <q.txt | awk 'NR == FNR { p[$1] = 1; next } $1 in p' b.names - |
    cmp -s - b.rows ||
    fail "pmebuild -x's bucket file: rows not those of the quick path"
# A .PMD's rows: as they are, all of them (the seed's page).
"$pmehisto" -b seed.PME -B s2.PME -o - -T none q.PMS 2>/dev/null |
    awk -F'|' 'NF >= 2 { gsub(/ /, "", $1); print $1 }' >s.names
head -n "$(wc -l <s.names)" a.names | cmp -s - s.names ||
    { fail ".PMD: rows not all, in address order:"; diff a.names s.names | head >&2; }

# --- trace input's page -------------------------------------------------------

if [ -f counted.PME ]; then
	"$pmehisto" -t -b counted.PME -T ps -o t.HIS >t.ps 2>err ||
	    fail "-t -T ps failed"
	grep -qF "/pme-subtitle where { pop } { /pme-subtitle (counted.PME: executed instructions of $tmp/prog, 1 run) def } ifelse" t.ps ||
	    { fail "-t -T ps: subtitle:"; grep pme-subtitle t.ps >&2; }
	grep -q "^Lost samples:\|^Sampling interval:" t.HIS &&
	    fail "trace input: a sampling line in the summary"
fi
cp keep.PMS PMEFILE.PMS && cp empty.PME PMEFILE.PME
ph -T none
his_has "^Lost samples: +[0-9]+ " "clock input's summary"

# -q: no warnings, the tally's too (the samples of another program's
# main executable beside a definition's buckets: "build-id differs").
$cc -g -O0 -o prog2 "$fx/prog.c" -L. -ltr -Wl,-rpath,"$tmp" -pthread &&
"$pmeclock" -q -F 1000 -o two.PMS -- ./prog2 loop 10000000 ||
    fail "cannot record prog2"
for t in none folded; do
	ph -b seed.PME -B /dev/null -o /dev/null -T $t two.PMS
	grep -q "build-id differs" err ||
	    fail "-T $t: another program: no warning: $(cat err)"
	ph -q -b seed.PME -B /dev/null -o /dev/null -T $t two.PMS
	err_is "" "-q -T $t: another program"
done
finish
