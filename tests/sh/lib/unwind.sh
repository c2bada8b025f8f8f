# unwind.sh - sourced by tests/sh/pmeclock_unwind*.sh: inclusive shares
# of routines from pmehisto's folded stacks and from perf script, and
# their comparison with a tolerance from the sample counts; and
# need_unwinding, which skips the test (exit 77, saying why) where the
# perf method or its CFI unwinding cannot run.

need_unwinding() {
	if ! $pmeclock -q -m perf -o probe -- true 2>"$tmp/err"; then
		echo "perf_event_open refused here: $(head -n 1 "$tmp/err")"
		exit 77
	fi
	if ! $pmeclock -q -G dwarf -o probe -- true 2>"$tmp/err"; then
		echo "no CFI unwinding here: $(head -n 1 "$tmp/err")"
		exit 77
	fi
}

# incl_folded FILE: "name samples total" for each routine of pmehisto -T
# folded stacks in FILE (a routine counts once per stack, recursion or
# not); names in brackets (modules) are left out.
incl_folded() {
	awk '{ n = $NF; sub(/ [0-9]+$/, ""); total += n
	    k = split($0, f, ";"); delete seen
	    for (i = 1; i <= k; i++)
		if (f[i] !~ /^\[/ && !(f[i] in seen)) {
			seen[f[i]] = 1; c[f[i]] += n
		}
	    } END { for (r in c) print r, c[r], total }' "$1" | sort
}

# incl_perf FILE: the same from `perf script --no-inline -F ip,sym` of
# FILE (one block of "ip symbol" lines per sample, blank lines between;
# symbol versions and offsets dropped).
incl_perf() {
	awk 'function flush() { if (inb) { total++; for (r in seen) c[r]++ }
		delete seen; inb = 0 }
	    /^[ \t]*$/ { flush(); next }
	    { sub(/^[ \t]*[0-9a-f]+ /, ""); sub(/\+0x[0-9a-f]+$/, "")
	      sub(/@.*/, "")
	      inb = 1; if ($0 != "[unknown]") seen[$0] = 1 }
	    END { flush(); for (r in c) print r, c[r], total }' "$1" | sort
}

# compare_incl PME PERF MIN [ERE]: for every routine (whose name matches
# ERE) with an inclusive share of at least MIN (a fraction) in either,
# "name pme% perf% tol% ok|BAD";
# tol is five standard deviations of the difference of two independent
# binomial shares of the two sample counts, plus a sample of each.
compare_incl() {
	join -a 1 -a 2 -e 0 -o 0,1.2,1.3,2.2,2.3 "$1" "$2" |
	    awk -v min="$3" -v re="${4:-.}" '
	    $1 !~ re { next }
	    { a = $3 > 0 ? $2 / $3 : 0; b = $5 > 0 ? $4 / $5 : 0
	      if ($3 > 0) na = $3; if ($5 > 0) nb = $5
	      name[NR] = $1; pa[NR] = a; pb[NR] = b }
	    END { for (i = 1; i <= NR; i++) {
		a = pa[i]; b = pb[i]
		if (a < min && b < min) continue
		p = (a + b) / 2
		tol = 5 * sqrt(p * (1 - p) * (1 / na + 1 / nb)) + 1 / na + 1 / nb
		d = a - b; if (d < 0) d = -d
		printf "%s %.1f %.1f %.1f %s\n", name[i], 100 * a, 100 * b,
		    100 * tol, d <= tol ? "ok" : "BAD" } }'
}
