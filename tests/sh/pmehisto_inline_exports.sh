#!/bin/bash
#
# pmehisto_inline_exports.sh - the exports of lines with --inline: each
# inlined level carries its own function, file and line, as addr2line -i
# gives them (the innermost the line table's, each outer level the call
# site of the one inside it).  tests/fixtures/inline/inl.c built -O2 -g
# (inner() inlined into middle() into outer() into work()), sampled by
# pmeclock -g:
# - -T pprof: each location of the program has the lines (function,
#   file:line, innermost first) that addr2line -i -f gives its address,
#   exactly, as go tool pprof -raw reads them; some have all four levels;
#   go tool pprof -lines puts the flat samples on the innermost lines of
#   those addresses;
# - -T callgrind: each function's own cost per (file, line) and each call
#   per (caller, file, line, callee) equal those of the same stacks
#   expanded by addr2line -i (a call from middle to inner at middle's
#   lines 30 and 33, from outer to middle at 49, from work to outer at
#   58), and callgrind_annotate --auto=yes annotates them without a
#   warning.
# The pprof checks are skipped, said, without go tool pprof.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"
. "$top/tests/sh/lib/unwind.sh"
. "$top/tests/sh/lib/stacks.sh"

need_unwinding
command -v addr2line >/dev/null || skip "no addr2line (binutils)"
command -v callgrind_annotate >/dev/null ||
    skip "no callgrind_annotate (valgrind)"

$cc -O2 -g -fomit-frame-pointer -o inl "$top/tests/fixtures/inline/inl.c" \
    >build.log 2>&1 || { fail "cannot build inl: $(cat build.log)"; finish; }
src=$top/tests/fixtures/inline/inl.c

run 0 "pmeclock -g" -g -F 4000 -o inl -- ./inl 500
# shellcheck disable=SC2086 # PME_VALGRIND may be a command
histo() { ${PME_VALGRIND:-} "$pmehisto" -q -x -B /dev/null "$@" inl.PMS; }
histo --inline -T pprof -o inl.pprof 2>herr ||
    fail "-T pprof --inline: $(cat herr)"
histo --inline -T callgrind -o inl.cg 2>herr ||
    fail "-T callgrind --inline: $(cat herr)"

# addr2line -i -f of addresses (hexadecimal, one a line on standard
# input): "ADDR function file:line" per level, innermost first, as pprof
# -raw spells them (no discriminator, ":0" where no line is known).
a2l() {
	# shellcheck disable=SC2046 # one argument per address
	addr2line -a -i -f -e inl $(cat) | awk '
	    /^0x[0-9a-f]+$/ { a = $1; sub(/^0x0*/, "0x", a); next }
	    fn == "" { fn = $0; next }
	    { l = $1; if (l ~ /^\?\?:/) l = ":0"; print a, fn, l; fn = "" }'
}

# --- pprof
if [ -n "$pprof" ]; then
	$pprof -raw -symbolize=none inl.pprof >raw 2>err ||
	    fail "$pprof -raw: $(cat err)"
	# The program's mapping; its locations' lines, and each location's
	# address by id.
	m=$(awk '/^Mappings/ { go = 1; next }
	    go && $3 ~ /\/inl$/ { sub(/:$/, "", $1); print $1; exit }' raw)
	awk -v m="M=$m" '
	    /^Locations/ { go = 1; next } /^Mappings/ { go = 0 }
	    !go { next }
	    $1 ~ /^[0-9]+:$/ { keep = $3 == m; a = $2; id = $1
		sub(/:$/, "", id); if (keep) print id, a > "locaddr"
		$1 = $2 = $3 = "" }
	    keep { print a, $(NF - 2), $(NF - 1) }' raw >pme.lines
	cut -d' ' -f1 pme.lines | uniq >addrs
	a2l <addrs >a2l.lines
	[ -s pme.lines ] || fail "pprof -raw: no location of the program"
	diff -u a2l.lines pme.lines >diff ||
	    { fail "pprof locations against addr2line -i:"; head -n 40 diff >&2; }
	awk '{ n[$1]++ } END { for (a in n) if (n[a] == 4) k++; print k + 0 }' \
	    pme.lines >four
	[ "$(cat four)" -gt 0 ] ||
	    fail "pprof: no location with inner, middle, outer, work"
	# -lines: the flat samples on the innermost lines of the sampled
	# addresses (the samples' first locations, by addr2line).
	awk 'NR == FNR { addr[$1] = $2; next }
	    /^Samples/ { go = 1; next } /^Locations/ { go = 0 }
	    go && $3 ~ /^[0-9]+$/ && ($3 in addr) { n[addr[$3]] += $1 }
	    END { for (a in n) print a, n[a] }' locaddr raw | LC_ALL=C sort >flat.addr
	cut -d' ' -f1 flat.addr | a2l | awk '!seen[$1]++' >flat.a2l
	awk 'NR == FNR { n[$1] = $2; next } { s[$2 " " $3] += n[$1] }
	    END { for (k in s) print k, s[k] }' flat.addr flat.a2l |
	    grep " $src:" | LC_ALL=C sort >flat.want
	$pprof -lines -top -sample_index=samples -nodecount=100000 \
	    -nodefraction=0 -edgefraction=0 -symbolize=none inl.pprof 2>/dev/null |
	    awk '$1 ~ /^[0-9]+$/ && $1 != 0 && $7 ~ /:[0-9]+$/ { print $6, $7, $1 }' |
	    grep " $src:" | LC_ALL=C sort >flat.got
	[ -s flat.want ] && diff -u flat.want flat.got >diff ||
	    { fail "$pprof -lines, flat per line:"; cat diff >&2; }
	grep -q "^inner $src:2[23] " flat.got ||
	    fail "$pprof -lines: no flat samples on inner's lines: $(cat flat.got)"
else
	echo "note: no go tool pprof nor pprof here: the pprof profile was not read"
fi

# --- callgrind: its costs, "self FN FILE LINE N" and "call FN FILE LINE
# CALLEE N", names uncompressed.
awk '
	function nm(kind, s,    id) {
		if (match(s, /^\([0-9]+\)/)) {
			id = substr(s, 2, RLENGTH - 2); s = substr(s, RLENGTH + 1)
			sub(/^ /, "", s)
			if (s != "") names[kind, id] = s; else s = names[kind, id]
		}
		return s
	}
	/^fl=/ { file = nm("fl", substr($0, 4)); next }
	/^(fi|fe)=/ { file = nm("fl", substr($0, 4)); next }
	/^fn=/ { fn = nm("fn", substr($0, 4)); next }
	/^cfn=/ { cfn = nm("fn", substr($0, 5)); next }
	/^(cfi|cfl)=/ { nm("fl", substr($0, 5)); next }
	/^(ob|cob)=/ { next }
	/^calls=/ { call = 1; next }
	/^[0-9]+ [0-9]+$/ {
		if (call) c["call " fn " " file " " $1 " " cfn] += $2
		else c["self " fn " " file " " $1] += $2
		call = 0
	}
	END { for (k in c) if (c[k] != 0) print k, c[k] }' inl.cg |
    grep "^[a-z]* [^ ]* $src " | LC_ALL=C sort >cg.got
# The same from the stacks of -T folded's samples expanded by addr2line:
# the sampled pcs and return addresses as the pprof profile holds them
# (its locations' addresses, checked above), else from -T callgrind's
# own file where go is missing: then only the callgrind file's lines at
# the inlined levels are checked against the source.
if [ -n "$pprof" ]; then
	# Each location's levels, "ID function file:line": addr2line's of
	# the program's, the profile's own of the others (the kernel's, the
	# C library's: not in inl).
	awk 'NR == FNR { n[$1]++; l[$1, n[$1]] = $2 " " $3; next }
	    { for (k = 1; k <= n[$2]; k++) print $1, l[$2, k] }' \
	    a2l.lines locaddr >loc.levels
	awk -v m="M=$m" '/^Locations/ { go = 1; next } /^Mappings/ { go = 0 }
	    !go { next }
	    $1 ~ /^[0-9]+:$/ { id = $1; sub(/:$/, "", id); other = $3 != m }
	    other && $(NF - 1) ~ /:[0-9]+$/ { print id, $(NF - 2), $(NF - 1) }
	    other && $(NF - 1) !~ /:[0-9]+$/ { print id, $(NF - 1), ":0" }' \
	    raw >>loc.levels
	awk 'FILENAME == ARGV[1] { k = ++n[$1]; fn[$1, k] = $2; fl[$1, k] = $3; next }
	    /^Samples/ { go = 1; next } /^Locations/ { go = 0 }
	    go && $3 ~ /^[0-9]+$/ {
		cnt = $1; m = 0
		for (i = 3; i <= NF; i++)
			for (k = 1; k <= n[$i]; k++) {
				m++; F[m] = fn[$i, k]; L[m] = fl[$i, k]
			}
		split(L[1], p, /:/); s["self " F[1] " " p[1] " " p[2]] += cnt
		for (j = 2; j <= m; j++) {
			split(L[j], p, /:/)
			s["call " F[j] " " p[1] " " p[2] " " F[j - 1]] += cnt
		}
	    }
	    END { for (k in s) print k, s[k] }' loc.levels raw |
	    grep "^[a-z]* [^ ]* $src " | LC_ALL=C sort >cg.want
	diff -u cg.want cg.got >diff ||
	    { fail "-T callgrind's costs per line against addr2line -i:"; cat diff >&2; }
fi
for want in "call middle $src 30 inner" "call middle $src 33 inner" \
    "call outer $src 49 middle" "call work $src 58 outer" "self inner $src 2[23]"; do
	grep -q "^$want " cg.got ||
	    fail "-T callgrind: no '$want' cost: $(cat cg.got)"
done
callgrind_annotate --auto=yes --threshold=100 inl.cg >ann 2>err ||
    fail "callgrind_annotate: $(cat err)"
grep -q WARNING err && fail "callgrind_annotate warned: $(cat err)"
grep -q "=> $src:inner (" ann && grep -q "Auto-annotated source: $src" ann ||
    fail "callgrind_annotate --auto=yes: inl.c's calls to inner not annotated"
finish
