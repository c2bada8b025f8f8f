#!/bin/bash
#
# symbols_peers.sh - compares what libpme's symbol readers find with what
# the peers say about the same binaries:
#   routines  vs readelf -s (STT_FUNC value and size; "f.cold" is a second
#             range of f)
#   lines     vs readelf --debug-dump=decodedline, turned into ranges by the
#             same rule the reader documents (every row, is_stmt or not,
#             holds up to the next row; consecutive rows of one file and
#             line are one range; zero-length rows vanish)
#   modules   vs the linker's own -Map file (input sections of each object)
#             and the map reader vs the DWARF compilation units
# for gcc and clang, DWARF 4 and 5, -O0 and -O2, PIE and -no-pie, a shared
# library, a binary without DWARF and a stripped one.
#
# Run from the top directory with PME_TOP and TMPDIR set (see the test
# runner).  Exit 0 pass, 77 skip, 1 fail.

. "${PME_TOP:?}/tests/sh/lib/common.sh"
top=${PME_TOP:-.}
tmp=${TMPDIR:?TMPDIR must be set}
ts=$top/tests/unit/t_symbols
fx=tests/fixtures

if [ ! -x "$ts" ]; then
	echo "skipped: $ts is not built"
	exit 77
fi
for tool in gcc readelf; do
	if ! command -v $tool >/dev/null; then
		echo "skipped: $tool is not installed"
		exit 77
	fi
done
compilers=gcc
command -v clang >/dev/null && compilers="gcc clang"

# compare WHAT EXPECTED GOT: sorted files must be equal and not empty.
compare() {
	if [ ! -s "$2" ]; then
		fail "$1: the peer found nothing"
	elif ! diff -u "$2" "$3" >"$tmp/diff" 2>&1; then
		fail "$1: differs from the peer (- peer, + libpme):"
		head -n 20 "$tmp/diff" >&2
	fi
}

# Lowest and one-past-highest address of BIN's .text, in decimal.
text_range() {
	readelf -SW "$1" | awk '
	function hex(s,  i, v) {
		v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	{ sub(/^ *\[ *[0-9]+\] */, "") }
	$1 == ".text" { printf "%d %d\n", hex($3), hex($3) + hex($5) }'
}

# Expected routine ranges of BIN from its symbol table TABLE (.symtab or
# .dynsym): "name start end", f.cold parts renamed f, EXCLUDE (a regular
# expression) left out.
peer_routines() {
	local bin=$1 table=$2 exclude=$3
	readelf -sW "$bin" | awk -v table="$table" -v range="$(text_range "$bin")" \
	    -v exclude="$exclude" '
	function hex(s,  i, v) {
		v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	BEGIN { split(range, r, " ") }
	/^Symbol table/ { intable = index($0, "'\''" table "'\''") > 0; next }
	!intable || ($4 != "FUNC" && $4 != "IFUNC") || $7 == "UND" { next }
	{
		v = hex($2); s = ($3 ~ /^0x/) ? hex($3) : $3 + 0
		name = $8; sub(/@.*/, "", name)
		if (s == 0 || v < r[1] || v >= r[2] || name ~ exclude)
			next
		sub(/\.cold(\.[0-9]+)?$/, "", name)
		key = v
		if (key in seen)	# an alias: the reader keeps one name
			next
		seen[key] = 1
		printf "%s %x %x\n", name, v, v + s
	}' | sort
}

# Expected line ranges of BIN from readelf's decoded line table:
# "start end line basename".
peer_lines() {
	readelf -W --debug-dump=decodedline "$1" 2>/dev/null | awk '
	function hex(s,  i, v) {
		v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function emit(s, e, line, file) {
		if (e <= s)
			return
		if (n > 0 && E[n] == s && L[n] == line && F[n] == file) {
			E[n] = e
			return
		}
		n++; S[n] = s; E[n] = e; L[n] = line; F[n] = file
	}
	$3 !~ /^0x[0-9a-fA-F]+$/ { next }
	{
		addr = hex($3); file = $1; sub(/.*\//, "", file)
		if ($2 == "-") {		# end of sequence
			if (open)
				emit(start, addr, cline, cfile)
			open = 0
			next
		}
		if (open && file == cfile && $2 == cline)
			next
		if (open)
			emit(start, addr, cline, cfile)
		open = 1; start = addr; cline = $2; cfile = file
	}
	END {
		for (i = 1; i <= n; i++)
			printf "%x %x %s %s\n", S[i], E[i], L[i], F[i]
	}' | sort
}

got_lines() {
	"$ts" lines "$1" | awk '{ f = $4; sub(/.*\//, "", f); print $1, $2, $3, f }' |
	    sort
}

# check_image NAME BIN: routines and lines against readelf.
check_image() {
	local name=$1 bin=$2
	peer_routines "$bin" .symtab '^(_start|_dl_relocate_static_pie)$' >"$tmp/r.peer"
	"$ts" routines "$bin" | sort >"$tmp/r.got" || fail "$name: t_symbols routines failed"
	compare "$name routines" "$tmp/r.peer" "$tmp/r.got"
	peer_lines "$bin" >"$tmp/l.peer"
	got_lines "$bin" >"$tmp/l.got" || fail "$name: t_symbols lines failed"
	compare "$name lines" "$tmp/l.peer" "$tmp/l.got"
}

# check_flag NAME BIN WORD...: t_symbols info lists each flag word.
check_flags() {
	local name=$1 bin=$2 w
	shift 2
	"$ts" info "$bin" >"$tmp/info" || fail "$name: t_symbols info failed"
	for w; do
		case "$w" in
		!*)	grep -q "^flags.* ${w#!}\( \|$\)" "$tmp/info" &&
			    fail "$name: flag ${w#!} set" ;;
		*)	grep -q "^flags.* $w\( \|$\)" "$tmp/info" ||
			    fail "$name: flag $w missing" ;;
		esac
	done
}

srcs="$fx/multi/main.c $fx/multi/util.c $fx/multi/hot.c $fx/multi/data.c"

# The matrix of compilers, DWARF versions, optimisation and PIE.
for cc in $compilers; do
	for dw in 4 5; do
		for opt in O0 O2; do
			for pie in pie no-pie; do
				name=$cc-dwarf$dw-$opt-$pie
				bin=$tmp/$name
				pf=
				[ $pie = no-pie ] && pf=-no-pie
				if ! (cd "$top" && $cc -g -gdwarf-$dw -$opt $pf \
				    -o "$bin" $srcs); then
					fail "$name: cannot build"
					continue
				fi
				check_image "$name" "$bin"
				if [ $pie = pie ]; then
					check_flags $name "$bin" dwarf symtab pie '!exec'
				else
					check_flags $name "$bin" dwarf symtab exec '!pie'
				fi
				[ $dw = 5 ] && check_flags $name "$bin" dwarf5
				[ $dw = 4 ] && check_flags $name "$bin" '!dwarf5'
				# Modules are named relative to comp_dir.
				"$ts" modules "$bin" | cut -d' ' -f1 | sort -u \
				    >"$tmp/m.got"
				printf '%s\n' $srcs | sort >"$tmp/m.peer"
				compare "$name module names" "$tmp/m.peer" "$tmp/m.got"
			done
		done
	done
done

# gcc -O2 splits hot_loop: the reader must give it two ranges.
n=$("$ts" routines "$tmp/gcc-dwarf5-O2-pie" | grep -c '^hot_loop ')
[ "$n" = 2 ] || fail "gcc -O2: hot_loop has $n ranges, not 2 (hot and cold)"

# A unit of seven sequences laid out in descending order: the reader
# merges its runs of ascending rows.
bin=$tmp/runs
if (cd "$top" && gcc -g -O1 -ffunction-sections -Wl,--sort-section=name \
    -o "$bin" $fx/runs/runs.c); then
	n=1 p=0
	for a in $(readelf --debug-dump=decodedline "$bin" |
	    awk '$3 ~ /^0x/ { print substr($3, 3) }'); do
		[ $((16#$a)) -lt $p ] && n=$((n + 1))
		p=$((16#$a))
	done
	[ $n -ge 3 ] || fail "runs: the line table has $n runs, not 3 or more"
	check_image runs "$bin"
else
	fail "runs: cannot build"
fi

# A shared library, with and without its symbol table.
lib=$tmp/libshlib.so
if gcc -g -O2 -shared -fPIC -o "$lib" "$top/$fx/shlib/lib.c"; then
	check_image shlib "$lib"
	check_flags shlib "$lib" dwarf shared '!pie' '!exec'
	strip -o "$tmp/libstripped.so" "$lib"
	peer_routines "$tmp/libstripped.so" .dynsym '^$' >"$tmp/r.peer"
	"$ts" routines "$tmp/libstripped.so" | sort >"$tmp/r.all"
	# The rest of .text, its static functions, is one routine apart.
	grep -v '^\[libstripped.so\] ' "$tmp/r.all" >"$tmp/r.got"
	compare "stripped shlib routines" "$tmp/r.peer" "$tmp/r.got"
	grep -q '^\[libstripped.so\] ' "$tmp/r.all" ||
	    fail "stripped shlib: no routine [libstripped.so] for the rest"
	check_flags "stripped shlib" "$tmp/libstripped.so" dynsym shared '!dwarf'
	grep -q "^note stripped: .*static functions, modules and lines" \
	    "$tmp/info" || fail "stripped shlib: note does not say what is missing"
	mods=$("$ts" modules "$tmp/libstripped.so" | cut -d' ' -f1 | sort -u)
	[ "$mods" = libstripped.so ] ||
	    fail "stripped shlib: modules '$mods', not the image's name"
else
	fail "cannot build the shared library"
fi

# Without DWARF: STT_FILE groups and one module for the global functions.
bin=$tmp/nodwarf
if (cd "$top" && gcc -O2 -o "$bin" $srcs); then
	peer_routines "$bin" .symtab '^$' >"$tmp/r.peer"
	"$ts" routines "$bin" | sort >"$tmp/r.got"
	compare "no-DWARF routines" "$tmp/r.peer" "$tmp/r.got"
	check_flags nodwarf "$bin" symtab '!dwarf'
	grep -q "^note no DWARF" "$tmp/info" || fail "nodwarf: no note"
	"$ts" modules "$bin" | grep -q '^hot\.c ' || fail "nodwarf: no module hot.c"
	"$ts" modules "$bin" | grep -q '^nodwarf ' ||
	    fail "nodwarf: no module named after the image"
	[ -z "$("$ts" lines "$bin")" ] || fail "nodwarf: lines without DWARF"
	# Stripped executable: a PIE exports no function, so nothing is found,
	# and the note says why.
	strip -o "$tmp/stripped" "$bin"
	check_flags stripped "$tmp/stripped" dynsym '!symtab' '!dwarf'
	grep -q "^note stripped" "$tmp/info" || fail "stripped: no note"
else
	fail "cannot build the no-DWARF binary"
fi

# The map reader against the linker's map and against DWARF: objects
# compiled one by one (one with -ffunction-sections, so the map wraps its
# long input section names), util.o taken from an archive.
obj=$tmp/obj
mkdir -p "$obj"
if (cd "$top" && gcc -g -O2 -c -o "$obj/main.o" $fx/multi/main.c &&
    gcc -g -O2 -ffunction-sections -c -o "$obj/hot.o" $fx/multi/hot.c &&
    gcc -g -O2 -c -o "$obj/util.o" $fx/multi/util.c &&
    gcc -g -O2 -c -o "$obj/data.o" $fx/multi/data.c) &&
    ar rcs "$obj/libutil.a" "$obj/util.o" &&
    (cd "$obj" && gcc -o mapped -Wl,-Map=mapped.map main.o hot.o data.o \
    libutil.a); then
	"$ts" map "$obj/mapped.map" >"$tmp/map.got" || fail "map: t_symbols map failed"
	grep -q '^ \.text\.unlikely\.complain$' "$obj/mapped.map" ||
	    fail "map: no wrapped input section name to test"
	# DWARF modules, named as the map names their objects.
	"$ts" modules "$obj/mapped" | awk '$2 != "-" {
		m = $1; sub(/.*\//, "", m); sub(/\.c$/, ".o", m)
		if (m == "util.o") m = "libutil.a(util.o)"
		print m, $2, $3 }' | sort >"$tmp/map.peer"
	grep -E '^(main|hot|data)\.o |^libutil\.a\(util\.o\) ' "$tmp/map.got" |
	    sort >"$tmp/map.fx"
	compare "map vs DWARF" "$tmp/map.peer" "$tmp/map.fx"
	grep -q '^data\.o ' "$tmp/map.got" && fail "map: data.o has no code"
	grep -q 'crtbeginS\.o [0-9a-f]* [0-9a-f]*$' "$tmp/map.got" ||
	    fail "map: crtbeginS.o missing"
	# Other output sections: .fini holds crti.o and crtn.o.
	"$ts" map "$obj/mapped.map" .fini | grep -q 'crti\.o ' ||
	    fail "map: .fini has no crti.o"
	"$ts" map "$obj/mapped.map" .nosuch 2>/dev/null &&
	    fail "map: a missing output section is not an error"
else
	fail "cannot build the mapped binary"
fi

finish
