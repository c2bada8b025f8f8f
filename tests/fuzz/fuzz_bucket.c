/*
 * fuzz_bucket.c - libFuzzer target for the bucket file reader: any bytes
 * must either be refused with an error or give a bucket file whose every
 * index (kinds, parents, modules, ranges, groups, buckets) is in bounds.
 * `make fuzz` builds and runs it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pme.h"
#include "crcfix.h"

/* Touches every byte of a string, so that the sanitizers see a bad one. */
static size_t
touch(const char *s)
{
	return s == NULL ? 0 : strlen(s);
}

static void
check_range(size_t nranges, uint64_t first, uint32_t n)
{
	if (n > 0 && (first >= nranges || n > nranges - first))
		abort();
}

static void
walk(struct pme_bucketfile *bf)
{
	const char *const	*kinds;
	const struct pme_module	*mods;
	const struct pme_unit	*units;
	const struct pme_group	*groups;
	const struct pme_range	*ranges;
	struct pme_bucket	*buckets;
	size_t			 nk, nm, nu, ng, nb, nr, sum = 0;

	sum += pme_bucketfile_info(bf)->options;
	nk = pme_bucketfile_kinds(bf, &kinds);
	nm = pme_bucketfile_modules(bf, &mods);
	nu = pme_bucketfile_units(bf, &units);
	ng = pme_bucketfile_groups(bf, &groups);
	nb = pme_bucketfile_buckets(bf, &buckets);
	nr = pme_bucketfile_ranges(bf, &ranges);

	for (size_t i = 0; i < nk; i++)
		sum += touch(kinds[i]);
	for (size_t i = 0; i < nm; i++) {
		sum += touch(mods[i].path);
		for (uint32_t j = 0; j < mods[i].buildid_len; j++)
			sum += mods[i].buildid[j];
		if (pme_bucketfile_outside(bf, (uint32_t)i) == NULL)
			abort();
	}
	if (pme_bucketfile_outside(bf, (uint32_t)nm) != NULL)
		abort();
	for (size_t i = 0; i < nu; i++) {
		sum += touch(units[i].name) + touch(units[i].file);
		if (units[i].kind >= nk ||
		    (units[i].parent != PME_NONE && units[i].parent >= nu) ||
		    (units[i].module != PME_NONE && units[i].module >= nm))
			abort();
		check_range(nr, units[i].range, units[i].nranges);
	}
	for (size_t i = 0; i < ng; i++) {
		sum += touch(groups[i].statement);
		if (groups[i].unit >= nu ||
		    (groups[i].bykind != PME_NONE && groups[i].bykind >= nk) ||
		    groups[i].first > nb || groups[i].count > nb - groups[i].first)
			abort();
	}
	for (size_t i = 0; i < nb; i++) {
		if (buckets[i].unit >= nu || buckets[i].group >= ng)
			abort();
		check_range(nr, buckets[i].range, buckets[i].nranges);
	}
	/* Every address a bucket owns must find a bucket. */
	for (size_t i = 0; i < nb && i < 256; i++) {
		const struct pme_unit *u = &units[buckets[i].unit];
		uint32_t b;

		if (buckets[i].nranges == 0 ||
		    ranges[buckets[i].range].start >=
		    ranges[buckets[i].range].end)
			continue;
		b = pme_bucketfile_lookup(bf, u->module,
		    ranges[buckets[i].range].start);
		if (b == PME_NONE || b >= nb)
			abort();
	}
	(void)pme_bucketfile_lookup(bf, PME_NONE, 0);
	(void)pme_bucketfile_lookup(bf, 0, UINT64_MAX);
	pme_bucketfile_clear(bf);
	if (sum == SIZE_MAX)
		abort();
}

static void
one(const uint8_t *data, size_t size)
{
	struct pme_bucketfile	*bf;
	struct pme_error	 err;

	memset(&err, 0, sizeof(err));
	if ((bf = pme_bucketfile_mem(data, size, "fuzz", &err)) == NULL) {
		if (err.code == PME_OK || touch(pme_strerror(&err)) == 0)
			abort();
		return;
	}
	walk(bf);
	pme_bucketfile_close(bf);
}

/* The bytes as they come, then with their CRCs made good. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	with_crcs_fixed(data, size, one);
	return 0;
}
