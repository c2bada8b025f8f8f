#!/bin/bash
#
# pmebuild_corrupt.sh - images with corrupt DWARF: a message that names the
# file, exit status 1, no bucket file, never a signal:
#   a subprogram's DW_AT_high_pc made to reach into the next function:
#     "buckets overlap" names the image.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

set -u
top=${PME_TOP:?}
tmp=${TMPDIR:?}
pmebuild=${PMEBUILD:-$top/build/pmebuild}
fx=$top/tests/fixtures/multi
fails=0

for t in gcc readelf dd od; do
	command -v $t >/dev/null || { echo "skipped: no $t"; exit 77; }
done
cd "$tmp" || exit 1

fail() {
	echo "pmebuild_corrupt: $*" >&2
	fails=$((fails + 1))
}

# run WHAT WANT-STATUS CMD...: runs CMD with stderr in err; its status
# must be WANT-STATUS, and never that of a signal.
run() {
	local what=$1 want=$2 rc
	shift 2
	$PME_VALGRIND "$@" >out 2>err
	rc=$?
	if [ $rc -ge 128 ] && [ $rc != 99 ]; then
		fail "$what: killed by signal $((rc - 128)): $(cat err)"
	elif [ $rc != "$want" ]; then
		fail "$what: exit $rc, not $want: $(cat err)"
	fi
	return $rc
}

# first_err PATTERN WHAT: the first line of err matches the ERE (whole);
# without valgrind nothing else may follow.
first_err() {
	if ! head -n 1 err | grep -Eqx -- "$1"; then
		fail "$2: message '$(head -n 1 err)', not /$1/"
	elif [ -z "$PME_VALGRIND" ] && [ "$(wc -l <err)" != 1 ]; then
		fail "$2: more than the message: $(cat err)"
	fi
}

# ERE for a path, its characters taken literally.
quote() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }

# sect FILE NAME: "offset size" of section NAME, in decimal.
sect() {
	readelf -S -W "$1" | awk -v s="$2" '{
		for (i = 1; i <= NF; i++)
			if ($i == s)
				print $(i + 3), $(i + 4)
	}' | while read -r o n; do echo $((16#$o)) $((16#$n)); done
}
# patch FILE OFFSET HEX: overwrites bytes at OFFSET.
patch() {
	printf "$(printf '%s' "$3" | sed 's/../\\x&/g')" |
	    dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# A subprogram of a DWARF 4 -O0 build made to reach 0x200 bytes: its
# bucket overlaps the next function's, and the message names the image.
gcc -g -gdwarf-4 -O0 -o o0 "$fx/main.c" "$fx/util.c" "$fx/hot.c" \
    "$fx/data.c" || fail "cannot build the -O0 fixture"
read -r info _ <<<"$(sect o0 .debug_info)"
at=$(readelf --debug-dump=info o0 2>/dev/null | awk '
	/DW_TAG_subprogram/ { insub = 1; next }
	/DW_TAG/ { insub = 0 }
	insub && /DW_AT_high_pc/ { gsub(/[<>]/, "", $1); print $1; exit }')
if [ -z "$at" ] || [ -z "$info" ]; then
	fail "no DW_AT_high_pc in the -O0 fixture"
elif [ "$(od -An -tx8 -j $((info + 16#$at)) -N 8 o0 | tr -d ' ')" != \
    "$(readelf --debug-dump=info o0 2>/dev/null |
    awk -v a="<$at>" '$1 == a { printf "%016x", $NF }')" ]; then
	fail "DW_AT_high_pc at <$at> is not 8 bytes of its value"
else
	cp o0 d
	patch d $((info + 16#$at)) 0002000000000000
	rm -f d.pme
	run "high_pc" 1 "$pmebuild" -q -x ./d -o d.pme
	first_err "pmebuild: '$(quote "$tmp/d")': buckets overlap: ROUTINE .*" \
	    "high_pc"
	[ ! -e d.pme ] || fail "high_pc: a bucket file was written"
fi

[ "$fails" -eq 0 ] || exit 1
exit 0
