#!/bin/bash
#
# pmeclock_region.sh - libpmeclock linked into a program, shared and
# static: pme_sname("region   ") names region.PMS, and the file holds the
# samples of the work between pme_init() and pme_exit() only; nested
# regions (region nested: pme_init() at each of three levels of a
# recursion, pme_exit() as each returns) sample until the outermost
# pme_exit(), so that the work of the levels above the deepest, done
# after its pme_exit(), is in the file too (it was not: the first
# pme_exit() stopped sampling).  Under
# pmeclock the program's pme_init() stands down and the launcher records
# the whole run.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"

lib=$top/sample
if ! $cc -g -O1 -I "$lib" -o region-shared "$fx/region.c" -L "$lib" \
    -lpmeclock >"$tmp/build.log" 2>&1 ||
    ! $cc -g -O1 -I "$lib" -o region-static "$fx/region.c" \
    "$lib/libpmeclock.a" -lz -pthread >>"$tmp/build.log" 2>&1; then
	fail "cannot link region: $(cat "$tmp/build.log")"
	finish
fi

for kind in shared static; do
	rm -f region.PMS
	LD_LIBRARY_PATH=$lib ./region-$kind >"$tmp/out" 2>"$tmp/err" ||
	    fail "$kind: exit status $?: $(cat "$tmp/err")"
	[ ! -s "$tmp/err" ] || fail "$kind: said $(cat "$tmp/err")"
	[ -f region.PMS ] || { fail "$kind: no region.PMS"; continue; }
	stat region.PMS
	has "$kind: method" "^method timer period 10000000 "
	has "$kind: closed" "^close samples "
	expected "$kind: samples of 0.5 s" \
	    "$(awk '$1 == "samples" { print $4 }' "$tmp/stat")" 500000000 1 \
	    10000000
	between "$kind: samples in inside" "$(field sym "region-$kind" inside)" \
	    $(($(field samples) - 1)) "$(field samples)"
	[ "$(field sym "region-$kind" outside)" = 0 ] ||
	    fail "$kind: samples outside the region"
	has "$kind: main mapping" "^map [0-9]* region-$kind xm$"

	rm -f nested.PMS
	LD_LIBRARY_PATH=$lib ./region-$kind nested >"$tmp/out" 2>"$tmp/err" ||
	    fail "$kind nested: exit status $?: $(cat "$tmp/err")"
	[ -f nested.PMS ] || { fail "$kind nested: no nested.PMS"; continue; }
	stat nested.PMS
	has "$kind nested: closed" "^close samples "
	expected "$kind nested: samples of 0.45 s" \
	    "$(awk '$1 == "samples" { print $4 }' "$tmp/stat")" 450000000 1 \
	    10000000
	[ "$(field sym "region-$kind" upper)" -gt 0 ] ||
	    fail "$kind nested: no samples in upper(), after the inner" \
	    "pme_exit()s"
	[ "$(field sym "region-$kind" deepest)" -gt 0 ] ||
	    fail "$kind nested: no samples in deepest()"
	[ "$(field sym "region-$kind" outside)" = 0 ] ||
	    fail "$kind nested: samples outside the regions"
done

# Under pmeclock: the launcher's file has everything, no region.PMS.
rm -f region.PMS
for m in perf timer; do
	LD_LIBRARY_PATH=$lib run 0 "under pmeclock -m $m" -q -m "$m" \
	    -o whole -- ./region-shared
	[ ! -e region.PMS ] || fail "under pmeclock -m $m: region.PMS made"
	stat whole.PMS
	count_ok "under pmeclock -m $m: samples" "$m" 1100000000 1
	part_ok "under pmeclock -m $m: samples outside" \
	    "$(field sym region-shared outside)" "$(user)" 0.5454
done

finish
