/*
 * tally.h - for the fuzz targets of pmetrace's engines' readers: a bucket
 * file with one routine of absolute addresses [0x400000, 0x401000) in
 * four buckets and a "calls" second count, the tally filling it, and the
 * check that what a reader accepted was tallied in bounds: the header's
 * total is the sum of the buckets, the outside counts of every module
 * and the unmapped count.
 */
#ifndef PME_FUZZ_TALLY_H
#define PME_FUZZ_TALLY_H

#include <stdlib.h>
#include <string.h>

#include "pme.h"
#include "trace.h"

static char *const fuzz_argv[] = { (char *)"prog", NULL };
static const struct tr_opts fuzz_opts = { .argv = fuzz_argv,
    .exe = "/nonexistent/prog", .quiet = 1 };

/* A new bucket file and its tally; NULL when out of memory. */
static struct tr_tally *
fuzz_tally(struct pme_bucketfile **bfp)
{
	static const struct pme_range r = { 0x400000, 0x401000 };
	struct pme_range b;
	struct pme_bucketfile *bf;
	struct pme_unit u;
	struct pme_error err;
	struct tr_tally *t;
	uint32_t kind, unit, i;

	memset(&err, 0, sizeof(err));
	memset(&u, 0, sizeof(u));
	if ((bf = pme_bucketfile_new(&err)) == NULL ||
	    (kind = pme_bucketfile_add_kind(bf, "routine", &err)) == PME_NONE)
		abort();
	u.name = "fuzz";
	u.kind = kind;
	u.parent = PME_NONE;
	u.module = PME_NONE;
	if ((unit = pme_bucketfile_add_unit(bf, &u, &r, 1, &err)) ==
	    PME_NONE || pme_bucketfile_add_group(bf, "DEFINE SAMPLING fuzz",
	    unit, PME_NONE, &err) == PME_NONE)
		abort();
	for (i = 0; i < 4; i++) {
		b.start = r.start + i * 0x400;
		b.end = b.start + 0x400;
		if (pme_bucketfile_add_bucket(bf, unit, &b, 1, &err) ==
		    PME_NONE)
			abort();
	}
	if (pme_bucketfile_set_counts2(bf, "calls", &err) == -1 ||
	    (t = tr_tally_new(bf, &fuzz_opts, &err)) == NULL)
		abort();
	*bfp = bf;
	return t;
}

/* Aborts unless every count the tally added is accounted for. */
static void
fuzz_tally_check(struct pme_bucketfile *bf)
{
	const struct pme_module *m;
	struct pme_bucket *bk;
	const struct pme_info *info = pme_bucketfile_info(bf);
	uint64_t sum, *out;
	size_t n, i;

	sum = info->unmapped;
	n = pme_bucketfile_buckets(bf, &bk);
	for (i = 0; i < n; i++)
		sum += bk[i].count;
	n = pme_bucketfile_modules(bf, &m);
	for (i = 0; i < n; i++) {
		if (m[i].path == NULL ||
		    (out = pme_bucketfile_outside(bf, (uint32_t)i)) == NULL)
			abort();
		sum += *out;
	}
	if (sum != info->total)
		abort();
}

#endif
