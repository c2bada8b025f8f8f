#!/bin/bash
#
# pmebuild_alias.sh - code with several names (aliases) is one routine
# bucket, named as perf names it, its other names kept as the unit's
# aliases (ALIA chunk), where pmebuild -x used to fail with "buckets
# overlap" or name the bucket otherwise:
#   tests/fixtures/alias/alias.c built with DWARF (gcc -g -O2) and with
#     only a symbol table (gcc -O2): each routine's name and aliases equal
#     the rule applied to readelf's symbol table (rule.awk below, what
#     perf's symbols__fixup_duplicate does and nm -S lists), and to what
#     perf report shows when perf can sample here;
#   an alias names its routine in a .PMD statement, and PRINT shows it;
#   pmehisto -x makes the same routine units, names and aliases;
#   libc's own debug file (libc6-dbg): every routine that starts at a
#     function symbol against the rule (skipped when it is not installed),
#     whose .symtab spells symbol versions in names: __libc_start_main,
#     not __libc_start_main@@GLIBC_2.34, in pmebuild -x and pmehisto -x.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

dumper=$top/tests/unit/t_pmebuild
fx=$top/tests/fixtures/alias

for t in gcc readelf; do
	command -v $t >/dev/null || skip "no $t"
done
need "$dumper"

# The rule: readelf -sW's .symtab -> "start name alias..." for every
# address of sized function symbols, names in perf's order: a non-weak
# symbol first, then a global one, fewer leading underscores, the longer
# name, the earlier in the table; each name once.  A default symbol
# version is not part of the name ("__libc_start_main@@GLIBC_2.34" is
# __libc_start_main, as .dynsym spells it), and an old version's name
# ("memcpy@GLIBC_2.2.5") comes after all the others.
peer() {
	readelf -sW "$1" 2>/dev/null | awk '
	/^Symbol table / { tab = ($3 == "'"'.symtab'"'") }
	tab && NF >= 8 && ($4 == "FUNC" || $4 == "IFUNC") && $7 != "UND" &&
	    $3 != "0" {
		n = $8; old = 0
		if ((i = index(n, "@@")) > 1)
			n = substr(n, 1, i - 1)
		else if (index(n, "@") > 1)
			old = 1
		us = match(n, /[^_]/) - 1
		printf "%s %d %d %d %04d %06d %08d %s\n", $2, old,
		    ($5 == "WEAK"), ($5 != "GLOBAL"), us, 999999 - length(n),
		    NR, n
	}' | sort | awk '
	{
		a = $1; sub(/^0+/, "", a)
		if (a != last) {
			if (line != "") print line
			line = a " " $8; seen = " " $8 " "
		} else if (index(seen, " " $8 " ") == 0) {
			line = line " " $8; seen = seen $8 " "
		}
		last = a
	}
	END { if (line != "") print line }' | sort
}

# pmebuild's view: "start name alias..." for every range of every ROUTINE
# bucket of the bucket file (of load module $2 only, when given).
got() {
	"$dumper" dump "$1" | awk -v mod="${2:-}" '
	$1 == "unit" && $2 == "ROUTINE" {
		s = ""; for (i = 6; i <= NF; i++) s = s " " $i; al[$3] = s
		next
	}
	$1 ~ /^[0-9]+$/ && $2 == "ROUTINE" && (mod == "" || $6 == mod) {
		start[++n] = $4; name[n] = $3
	}
	END { for (i = 1; i <= n; i++) print start[i] " " name[i] al[name[i]] }
	' | sort
}

# Compares the peer's lines whose address is a bucket's start (cold parts
# of a routine, "f.cold", aside) with pmebuild's; at least MIN of them.
compare() {	# WHAT PEER GOT MIN
	awk -v what="$1" -v min="$4" '
	NR == FNR { have[$1] = $0; next }
	$2 ~ /\.cold(\.[0-9]+)?$/ { next }
	$1 in have {
		n++
		if (have[$1] != $0) {
			printf "%s: pmebuild %s, the rule %s\n", what,
			    have[$1], $0
			bad++
		}
	}
	END {
		if (n < min)
			printf "%s: %d routines compared, not %d\n", what, n, min
		exit bad > 0 || n < min
	}' "$3" "$2" >"$tmp/cmp" || fail "$(cat "$tmp/cmp")"
}

# The fixture's four alias cases and main, with and without DWARF.
for v in dwarf:-g symtab:; do
	name=${v%%:*} flags=${v#*:}
	if ! gcc $flags -O2 -o "$tmp/$name" "$fx/alias.c"; then
		fail "$name: cannot build the fixture"
		continue
	fi
	if ! $PME_VALGRIND "$pmebuild" -q -x "$tmp/$name" -o "$tmp/$name.pme" \
	    2>"$tmp/err"; then
		fail "$name: pmebuild -x failed: $(cat "$tmp/err")"
		continue
	fi
	peer "$tmp/$name" | grep -E ' (main|__mysqrt|helper_api|spin|sum_all)( |$)' \
	    >"$tmp/$name.peer"
	got "$tmp/$name.pme" >"$tmp/$name.got"
	compare "$name" "$tmp/$name.peer" "$tmp/$name.got" 5
	# The four cases, spelled out: the rule's first name, the others.
	for want in "__mysqrt mysqrt" "helper_api helper" "spin __spin" \
	    "sum_all sum"; do
		grep -q " $want\$" "$tmp/$name.got" ||
		    fail "$name: no routine '$want' in: $(cat "$tmp/$name.got")"
	done
done

# An alias names its routine in statements; its own name still wins.
cat >"$tmp/alias.pmd" <<EOF
DEFINE UNITS: PROGRAM, MODULE, ROUTINE
PROGRAM P
DEFINE OPTIONS: PRINT
DEFINE ADDRESSES: EXE "$tmp/dwarf"
DEFINE SAMPLING
ROUTINE mysqrt
ROUTINE helper
END
EOF
if $PME_VALGRIND "$pmebuild" -o "$tmp/stmt.pme" "$tmp/alias.pmd" \
    >"$tmp/print" 2>"$tmp/err"; then
	"$dumper" dump "$tmp/stmt.pme" | awk '$1 ~ /^[0-9]+$/ { print $1, $3 }' \
	    >"$tmp/stmt.got"
	printf '1 __mysqrt\n2 helper_api\n' | diff -u - "$tmp/stmt.got" \
	    >"$tmp/diff" || fail "ROUTINE by alias: $(cat "$tmp/diff")"
	grep -q '  1  ROUTINE __mysqrt  *[0-9A-F]* - [0-9A-F]*  (alias mysqrt)$' \
	    "$tmp/print" || fail "PRINT shows no alias: $(cat "$tmp/print")"
else
	fail "ROUTINE by alias: $(cat "$tmp/err")"
fi

# perf as a peer: the name it reports for each of the four.
if command -v perf >/dev/null &&
    perf record -q -e task-clock -o "$tmp/perf.data" "$tmp/dwarf" \
    >/dev/null 2>&1 &&
    perf report -q --stdio --sort sym -i "$tmp/perf.data" \
    >"$tmp/perf.out" 2>/dev/null; then
	for group in "__mysqrt mysqrt" "helper_api helper" "spin __spin" \
	    "sum_all sum"; do
		shown=$(awk -v g=" $group " '$2 == "[.]" &&
		    index(g, " " $3 " ") { print $3 }' "$tmp/perf.out")
		[ "$shown" = "${group%% *}" ] ||
		    fail "perf shows '$shown' for '$group', not its first name"
	done
else
	echo "perf cannot sample here: its comparison skipped"
fi

# pmehisto -x builds its routine buckets through the same reader.
if "$pmeclock" -q -o "$tmp/dwarf.pms" -- "$tmp/dwarf" &&
    $PME_VALGRIND "$pmehisto" -q -x -T none -o "$tmp/q.his" -B "$tmp/q.pme" \
    "$tmp/dwarf.pms"; then
	# The quick path's rows of the program only: a sample in the kernel
	# or libc brings their routines too (seen under load).
	got "$tmp/q.pme" dwarf >"$tmp/q.got"
	diff -u "$tmp/dwarf.got" "$tmp/q.got" >"$tmp/diff" ||
	    fail "pmehisto -x and pmebuild -x differ: $(cat "$tmp/diff")"
else
	fail "pmeclock or pmehisto -x failed on the fixture"
fi

# libc's debug file, found by the build-id of the libc the fixture uses.
libc=$(ldd "$tmp/dwarf" 2>/dev/null | awk '$1 ~ /^libc\.so/ { print $3 }')
id=$(readelf -n "${libc:-/nonexistent}" 2>/dev/null |
    awk '/Build ID:/ { print $3 }')
dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
if [ -n "$id" ] && [ -f "$dbg" ]; then
	if ! $PME_VALGRIND "$pmebuild" -q -x "$dbg" -o "$tmp/libc.pme" \
	    2>"$tmp/err"; then
		fail "libc: pmebuild -x failed: $(cat "$tmp/err")"
	else
		peer "$dbg" >"$tmp/libc.peer"
		got "$tmp/libc.pme" >"$tmp/libc.got"
		compare libc "$tmp/libc.peer" "$tmp/libc.got" 1000
		grep -q " __finitel __GI___finitel finitel\$" "$tmp/libc.got" ||
		    fail "libc: __finitel is not one routine with its aliases"
		awk '$2 == "__libc_start_main"' "$tmp/libc.got" | grep -q . ||
		    fail "libc: no routine named __libc_start_main"
		! grep -q "@@" "$tmp/libc.got" ||
		    fail "libc: versioned names: $(grep "@@" "$tmp/libc.got" | head -n 3)"
	fi
else
	echo "no debug file for ${libc:-libc} (libc6-dbg): libc not compared"
fi

finish
