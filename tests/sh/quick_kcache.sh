#!/bin/bash
#
# quick_kcache.sh - pmehisto -x names kernel samples through its cache of
# the kernel's symbols (lib/kallsyms.h, pmehisto(1) "Kernel names") as it
# names them from /proc/kallsyms.  A sample file made with the sample
# writer holds a sample one byte into each of 300 kernel text symbols
# (spread over kallsyms, each alone at its address, with a higher one
# after it) and one in /usr/bin/true.  Checked, with XDG_CACHE_HOME in the
# test's directory:
#  - PME_KALLSYMS_CACHE=0: the rows are those kallsyms gives (computed
#    here with awk) and no cache is written;
#  - the first run writes the cache (mode 0600), the second reads it: both
#    give the same rows; a name changed in the cache (same length) shows,
#    so the second run did read it;
#  - a sample above the kernel's own symbols (where modules are) has
#    kallsyms read, and the sound cache is not written again;
#  - a cache of another boot (its key changed), cut short, with a name
#    offset out of bounds, a symbolic link to a good cache, readable by
#    others, or (as root) another user's is ignored and rewritten: the
#    rows are kallsyms' again and the link's target is left as it was.
# Skipped where /proc/kallsyms hides the addresses (kernel.kptr_restrict).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$tsample" "$pmehisto"
[ -x /usr/bin/true ] || skip "no /usr/bin/true"
[ -r /proc/kallsyms ] || skip "no /proc/kallsyms"
[ -r /proc/sys/kernel/random/boot_id ] || skip "no boot_id"
cd "$tmp" || exit 1
export XDG_CACHE_HOME=$tmp/xdg
cache=$XDG_CACHE_HOME/pme/kallsyms

# 300 symbols: "address name", each alone at its address and followed by
# a higher one, names of plain characters (printed as they are).
awk '$2 == "T" || $2 == "t" { print $1, $3, NF }' /proc/kallsyms |
    sort -k1,1 -s | awk '
	{ a[NR] = $1; s[NR] = $2; plain[NR] = $3 == 3 && $2 ~ /^[A-Za-z0-9_.]+$/ }
	END {
		for (i = 2; i < NR; i++)
			if (plain[i] && a[i] != a[i - 1] && a[i] != a[i + 1] &&
			    a[i] !~ /^0+$/)
				k[n++] = i
		for (j = 0; j < 300 && n >= 300; j++)
			print a[k[int(j * n / 300)]], s[k[int(j * n / 300)]]
	}' >syms
[ "$(wc -l <syms)" = 300 ] ||
    skip "/proc/kallsyms hides the kernel's addresses (kptr_restrict)"

# write FILE [PC]: the sample file, with a kernel sample at PC too.
write() {
	{
		echo "header method=test event=cpu-clock period=1000000 pid=8 start=$(($(date +%s) * 1000000000)) argv=true"
		echo "map pid=8 start=0x555555554000 end=0x555555560000 offset=0 vaddr=0 path=/usr/bin/true flags=exec,main"
		echo "sample pid=8 pc=0x555555556400 count=2"
		while read -r addr sym; do
			printf 'sample pid=8 pc=0x%x flags=kernel count=1\n' \
			    $((0x$addr + 1))
		done <syms
		[ $# -lt 2 ] || echo "sample pid=8 pc=$2 flags=kernel count=1"
		echo close
	} | "$tsample" write "$1" || fail "cannot write $1"
}
write run.pms
# A sample above the kernel's own symbols, where modules are: kallsyms
# is read for it, and the cache left as it is.
write high.pms 0xfffffffffffffff0

# rows NAME [FILE]: "name count" of pmehisto -x -T csv, into NAME.
rows() {
	"$pmehisto" -q -x -T csv -C 0 -o /dev/null -B "$1.pme" \
	    "${2:-run.pms}" 2>"$1.err" | csv_counts | awk '$2 > 0' | sort >"$1"
}
{ awk '{ print $2, 1 }' syms; echo "[true] 2"; } | sort >want

PME_KALLSYMS_CACHE=0 rows off
diff -u want off || fail "PME_KALLSYMS_CACHE=0: not kallsyms' names: $(cat off.err)"
[ -e "$XDG_CACHE_HOME" ] && fail "PME_KALLSYMS_CACHE=0 wrote $(ls -R "$XDG_CACHE_HOME")"

rows first
diff -u want first || fail "first run: not kallsyms' names: $(cat first.err)"
[ -f "$cache" ] || fail "the first run wrote no cache"
[ "$(stat -c %a "$cache" 2>/dev/null)" = 600 ] ||
    fail "cache mode $(stat -c %a "$cache" 2>/dev/null), not 600"
[ "$(stat -c %a "$XDG_CACHE_HOME/pme" 2>/dev/null)" = 700 ] ||
    fail "cache directory mode $(stat -c %a "$XDG_CACHE_HOME/pme"), not 700"
cp "$cache" good
rows second
diff -u want second || fail "second run: not kallsyms' names: $(cat second.err)"

# The first symbol's name with its first letter in the other case, in a
# copy of the cache: "renamed" (same length, found between two NULs).
read -r _ sym <syms
other=$(printf '%s' "${sym:0:1}" | tr 'a-zA-Z_' 'A-Za-z_')${sym:1}
[ "$other" != "$sym" ] || other=X${sym:1}
off=$(LC_ALL=C grep -obUaP "\\x00\\Q$sym\\E\\x00" good | head -n 1 |
    cut -d: -f1)
[ -n "$off" ] || fail "$sym is not in the cache"
off=$((${off:-0} + 1))
cp good renamed
printf '%s' "$other" | dd of=renamed bs=1 seek="$off" conv=notrunc \
    status=none
cp renamed "$cache"
rows read
sed "s/^$sym 1\$/$other 1/" want | sort >want.renamed
diff -u want.renamed read || fail "a name changed in the cache does not show: the cache was not read"

cp good "$cache"
inode=$(stat -c %i "$cache")
rows high high.pms
{ cat want; echo "[kernel] 1"; } | sort >want.high
diff -u want.high high || fail "a pc above the kernel's: not kallsyms' names: $(cat high.err)"
[ "$(stat -c %i "$cache")" = "$inode" ] ||
    fail "a pc above the kernel's symbols: the sound cache was written again"

# check WHAT: the rows are kallsyms' (the bad cache ignored) and the
# cache is a good one again (rewritten).
check() {
	rows bad
	diff -u want bad || fail "$1: not kallsyms' names: $(cat bad.err)"
	[ -f "$cache" ] && [ ! -L "$cache" ] && cmp -s good "$cache" ||
	    fail "$1: the cache was not rewritten"
}

# Another boot's: the boot id's first character changed.
cp renamed "$cache"
printf 'Z' | dd of="$cache" bs=1 seek=8 conv=notrunc status=none
check "a cache of another boot"
head -c 1000 renamed >"$cache"
check "a cache cut short"
# Every name offset (after the 88-byte header and the n addresses) made
# 0xffffffff: out of bounds, the sizes still holding together.
n=$(od -An -tu8 -j72 -N8 renamed | tr -d ' ')
cp renamed "$cache"
head -c $((n * 4)) /dev/zero | tr '\0' '\377' |
    dd of="$cache" bs=4096 seek=$((88 + n * 8)) oflag=seek_bytes \
    conv=notrunc status=none
check "a name offset out of bounds"
rm -f "$cache"
cp renamed target
ln -s "$tmp/target" "$cache"
check "a symbolic link"
cmp -s renamed target || fail "the link's target was written"
cp renamed "$cache"
chmod 644 "$cache"
check "a cache readable by others"
if [ "$(id -u)" = 0 ]; then
	cp renamed "$cache"
	chown 65534 "$cache"
	check "another user's cache"
fi
finish
