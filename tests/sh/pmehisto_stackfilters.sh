#!/bin/bash
#
# pmehisto_stackfilters.sh - pmehisto's filters by stack and module
# (--focus, --ignore, --hide, --dso; issue 28) against peers on the same
# sample file.  The fixture (tests/fixtures/filters/phases.c: main and a
# thread "worker" started in other(), each in phase_a, then phase_b, both
# calling cpu(), which calls libc's clock_gettime) is recorded by
# pmeclock -g.  (1) pprof: pmehisto's pprof export of the unfiltered
# file, narrowed by go tool pprof's own -focus (with -show_from: focus
# shows the stacks from the routine down), -ignore and -hide, has the
# same stacks with the same values (go tool pprof -traces, summed by
# stack) as pmehisto's export with the same filters.  (2) Every view
# agrees: the flat view's count of each routine (-x -T csv) is the
# folded export's samples whose leaf it is, the folded export sums to
# the summary's kept count, the Spy and stats -f take as many.  (3)
# --dso: the samples of the pc's module, against pmsstat -s's module
# column.  (4) Bad values: usage errors naming the option and the text.
# Skipped without call chains; the pprof checks without go.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

stats=$top/stats/stats
need "$pmeclock" "$pmehisto" "$stats"
cd "$tmp" || exit 1
${CC:-cc} -O1 -g -o phases "$top/tests/fixtures/filters/phases.c" \
    -lpthread || { fail "cannot build the fixture"; finish; }
cc_libpme pmsstat "$top/tests/fixtures/clock/pmsstat.c" -lelf || finish
"$pmeclock" -q -g -o run.PMS -- ./phases 2>clock.err ||
    skip "pmeclock -g cannot record call chains here: $(head -n 1 clock.err)"
./pmsstat -s run.PMS >raw || { fail "pmsstat -s: exit $?"; finish; }
total=$(grep -c '^s ' raw)
[ "$(sed -n 's/^frames //p' raw)" -gt 0 ] || skip "no call chains recorded"

# views WHAT OPTIONS...: the flat view, the folded export, the summary
# and the Spy under OPTIONS agree; prints the kept count.
views() {
	local what=$1 kept folded bad
	shift
	"$pmehisto" -q -x -C 0 -T text -o /dev/null "$@" run.PMS >text \
	    2>err || { fail "$what: -T text: $(head -1 err)"; return; }
	kept=$(sed -n 's/^Filters: .*: kept \([0-9]*\) of [0-9]* samples$/\1/p' \
	    text)
	[ -n "$kept" ] || { fail "$what: no Filters line: $(cat text)"; return; }
	$PME_VALGRIND "$pmehisto" -q -x -C 0 -T folded -o /dev/null "$@" \
	    run.PMS >folded 2>err || fail "$what: -T folded: $(head -1 err)"
	folded=$(awk '{ n += $NF } END { print n + 0 }' folded)
	[ "$folded" = "$kept" ] ||
	    fail "$what: folded sums to $folded, kept $kept"
	"$pmehisto" -q -x -C 0 -T csv -o /dev/null "$@" run.PMS 2>err |
	    csv_counts >csv || fail "$what: -T csv: $(head -1 err)"
	# (a kernel frame's leaf without FlameGraph's "_[k]" mark)
	bad=$(awk 'FNR == NR { n = split($1, f, ";"); sub(/_\[k\]$/, "", f[n])
		leaf[f[n]] += $NF; next }
	    $2 > 0 && $2 != leaf[$1] + 0 { print $1, $2, "not", leaf[$1] + 0 }' \
	    folded csv)
	[ -z "$bad" ] || fail "$what: flat view against folded leaves: $bad"
	"$pmehisto" -q -x -V spy -o /dev/null "$@" run.PMS >spy 2>err ||
	    fail "$what: -V spy: $(head -1 err)"
	grep -q "^Samples: $kept," spy ||
	    fail "$what: -V spy: $(grep '^Samples' spy), not $kept"
	"$stats" -f run.PMS -T csv "$@" states >/dev/null 2>err ||
	    fail "$what: stats: $(head -1 err)"
	grep -q "^stats: 'run.PMS': filters .*: kept $kept of $total samples\$" \
	    err || fail "$what: stats: $(head -1 err), not kept $kept"
	echo "$what: kept $kept of $total"
}

# traces FILE PPROF-OPTIONS...: the stacks of a pprof file, "NS
# leaf;...;root" a line, summed by stack, sorted.
traces() {
	local f=$1
	shift
	go tool pprof -traces "$@" "$f" 2>/dev/null | awk '
	function ns(v) {
		if (v ~ /ns$/) return substr(v, 1, length(v) - 2)
		if (v ~ /us$/) return substr(v, 1, length(v) - 2) * 1e3
		if (v ~ /ms$/) return substr(v, 1, length(v) - 2) * 1e6
		return substr(v, 1, length(v) - 1) * 1e9
	}
	function done() { if (k != "") s[k] += v; k = "" }
	/^-----------\+/ { done(); on = 1; next }
	!on { next }
	k == "" && NF >= 2 { v = ns($1); k = $2; next }
	k != "" && NF == 1 { k = k ";" $1 }
	END { done(); for (x in s) printf "%.0f %s\n", s[x], x }' | sort
}

# pcheck WHAT "PMEHISTO-OPTIONS" "PPROF-OPTIONS": the stacks of
# pmehisto's filtered export equal pprof's filter of the unfiltered one.
pcheck() {
	local what=$1 a b
	# shellcheck disable=SC2086 # option lists
	"$pmehisto" -q -x -T pprof -o f.pb.gz $2 run.PMS 2>err ||
	    { fail "$what: -T pprof: $(head -1 err)"; return; }
	# shellcheck disable=SC2086
	a=$(traces f.pb.gz) && b=$(traces all.pb.gz $3)
	[ -n "$a" ] || { fail "$what: no stacks in the export"; return; }
	[ "$a" = "$b" ] || fail "$what: not pprof's $3:
$(diff <(echo "$b") <(echo "$a"))"
	echo "$what: $(echo "$a" | wc -l) stacks as pprof's"
}

views "--focus phase_a" --focus '^phase_a$'
views "--ignore phase_b" --ignore '^phase_b$'
views "--hide libc and cpu" --hide 'libc|^cpu$'
views "--focus other --hide libc" --focus '^other$' --hide libc
views "--dso phases" --dso phases
# The pc's module, as pmsstat names it.
for d in phases '[kernel]'; do
	want=$(awk -v d="$d" '$1 == "s" && $8 == d { n++ } END { print n + 0 }' \
	    raw)
	views "--dso $d" --dso "$d" >/dev/null
	got=$(sed -n 's/^Filters: .*: kept \([0-9]*\) of .*/\1/p' text)
	[ "$got" = "$want" ] || fail "--dso $d: kept $got, pmsstat says $want"
done
# Hiding a routine moves its samples to its callers: phase_a's own
# count under --hide cpu is phase_a's and cpu's under phase_a unhidden.
"$pmehisto" -q -x -T folded -o /dev/null run.PMS >all.folded 2>err ||
    fail "-T folded: $(head -1 err)"
want=$(awk '$1 ~ /;phase_a(;cpu)?$/ { n += $NF } END { print n + 0 }' \
    all.folded)
got=$("$pmehisto" -q -x -C 0 -T csv -o /dev/null --hide '^cpu$' run.PMS |
    csv_counts | awk '$1 == "phase_a" { print $2 }')
[ "$got" = "$want" ] || fail "--hide cpu: phase_a $got, not $want"

if command -v go >/dev/null && "$pmehisto" -q -x -T pprof -o all.pb.gz \
    run.PMS && go tool pprof -traces all.pb.gz >/dev/null 2>&1; then
	pcheck "--focus" "--focus ^phase_a$" \
	    "-focus=^phase_a$ -show_from=^phase_a$"
	pcheck "--ignore" "--ignore ^phase_b$" "-ignore=^phase_b$"
	pcheck "--hide" "--hide libc|^cpu$" "-hide=libc|^cpu$"
	pcheck "--focus --ignore --hide" \
	    "--focus ^other$ --ignore ^phase_b$ --hide libc" \
	    "-focus=^other$ -ignore=^phase_b$ -hide=libc -show_from=^other$"
else
	echo "the stacks not checked against pprof: no go tool pprof"
fi

# Bad values: usage errors naming the option and the text.
for bad in "--focus (" "--ignore [a" "--hide a{2,1}" "--dso ,a" "--dso a,,b" \
    "--focus="; do
	expect "$bad" 2 $PME_VALGRIND "$pmehisto" -q -x -T csv -o bad.csv \
	    $bad run.PMS
	opt=${bad%%[ =]*}
	text=${bad#"$opt"}
	text=${text#[ =]}
	head -n 1 "$tmp/err" | grep -qF "pmehisto: $opt: '$text' is not" ||
	    fail "$bad: $(head -1 "$tmp/err")"
	[ ! -e bad.csv ] || fail "$bad: wrote bad.csv"
done
finish
