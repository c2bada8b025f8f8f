# tests/sh/lib/stats.sh - sourced after common.sh by the stats tests of
# sample files (stats_wall, stats_heap):
#
#	stats		stats/stats
#	refuses_chunk FILE TYPE
#			a copy of FILE (bad.PMS) whose first chunk of TYPE
#			("OFF2", "HEAP") has bytes of its payload changed:
#			stats -T csv, json and ps each exit 1 naming the file
#			and the chunk's offset, and write no -o file

stats=$top/stats/stats

refuses_chunk() {
	local off t
	off=$(grep -obUa "$2" "$1" | head -1 | cut -d: -f1)
	[ -n "$off" ] || { fail "no $2 chunk in $1"; return; }
	cp "$1" bad.PMS
	printf '\377\377\377\377' | dd of=bad.PMS bs=1 seek=$((off + 40)) \
	    conv=notrunc 2>/dev/null
	for t in csv json ps; do
		expect "corrupt $2, -T $t" 1 "$stats" -f bad.PMS -T $t -o bad.$t
		grep -q "^stats: 'bad.PMS': offset 0x[0-9a-f]*: " "$tmp/err" ||
		    fail "corrupt $2, -T $t: $(cat "$tmp/err")"
		[ ! -e bad.$t ] || fail "corrupt $2: bad.$t written"
	done
}
