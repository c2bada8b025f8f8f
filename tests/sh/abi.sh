#!/bin/bash
#
# abi.sh - libpme.so.0 exports the documented API and nothing else: the
# functions its installed headers declare (lib/pme.h, pme_sample.h,
# pme_symbols.h, pme_render.h, pme_event.h), each described in a section 3 man page,
# and lib/libpme.map lists exactly those.  lib/util.h's internals
# (pme_seterr, pme_vec_push, pme_tmp_create, ...) stay inside, so a
# program cannot come to rely on them.  A program linked against the
# shared library runs.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

so=$top/lib/libpme.so.0
[ -e "$so" ] || skip "lib/libpme.so.0 is not built"
command -v nm >/dev/null || skip "no nm"
cd "$tmp" || exit 1

nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' |
    sed 's/@.*//' | sort -u >exported
# The declarations: a name followed by "(" at the start of a prototype's
# name column (the headers put the return type before it).
# Variables are declared "extern".
sed -n 's/^[a-z].*[ *]\(pme_[a-z0-9_]*\)(.*/\1/p; s/^[ 	]\{1,\}[a-z].*[ *]\(pme_[a-z0-9_]*\)(.*/\1/p; s/^extern [a-z].*[ *	]\(pme_[a-z0-9_]*\);.*/\1/p' \
    "$top"/lib/pme.h "$top"/lib/pme_sample.h "$top"/lib/pme_symbols.h \
    "$top"/lib/pme_render.h "$top"/lib/pme_event.h | sort -u >declared
sed -n 's/^[ 	]*\(pme_[a-z0-9_]*\);$/\1/p' "$top/lib/libpme.map" |
    sort -u >mapped

[ "$(wc -l <declared)" -ge 80 ] ||
    fail "only $(wc -l <declared) declarations found in the headers"
comm -23 exported declared >extra
comm -13 exported declared >missing
[ ! -s extra ] || fail "exported, not in an installed header:" $(cat extra)
[ ! -s missing ] || fail "declared, not exported:" $(cat missing)
cmp -s mapped declared ||
    fail "lib/libpme.map differs from the headers:" \
        "$(diff mapped declared | grep '^[<>]' | tr '\n' ' ')"
grep -v '^pme_' exported >other
[ ! -s other ] || fail "exported without the pme_ prefix:" $(cat other)
for s in pme_seterr pme_vec_push pme_tmp_create pme_with_ext pme_escape; do
	grep -qx "$s" exported && fail "internal $s is exported"
done
for s in $(cat declared); do
	grep -qw -- "$s" "$top"/man/*.3 ||
	    fail "$s is exported but no man page of section 3 describes it"
done

# A program of the public API only, linked against the shared library.
cat >use.c <<'C'
#include <stdio.h>
#include "pme.h"

int
main(void)
{
	struct pme_error err;
	struct pme_bucketfile *bf = pme_bucketfile_new(&err);
	const struct pme_unit *u;

	if (bf == NULL)
		return 1;
	printf("%zu\n", pme_bucketfile_units(bf, &u));
	pme_bucketfile_close(bf);
	return 0;
}
C
# A sanitized library (build.sh's second run) wants its runtime first.
san=
ldd "$so" 2>/dev/null | grep -q libasan && san=-fsanitize=address,undefined
if ${CC:-cc} $san -I"$top/lib" -o use use.c -L"$top/lib" -l:libpme.so.0 \
    2>cc.err; then
	out=$(LD_LIBRARY_PATH=$top/lib ./use) || fail "use: exit $?"
	[ "$out" = 0 ] || fail "use printed '$out', not 0"
else
	fail "a program of the public API does not link: $(cat cc.err)"
fi
finish
