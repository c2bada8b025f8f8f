/*
 * fuzz_bucket_rt.c - libFuzzer round trip of the bucket file: whatever
 * the reader takes (as it comes, or with its CRCs made good) is written
 * (pme_bucketfile_write), read again and written again; the second read
 * must hold what the first did (kinds, modules, units, ranges, groups,
 * buckets and their counts, outside counts) and the two writes must be
 * the same bytes.  `make fuzz` builds and runs it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pme.h"
#include "crcfix.h"
#include "digest.h"

static char dir[] = "/tmp/pme-fuzz-rt.XXXXXX", *made;

/* A digest of what a bucket file holds, field by field. */
static uint64_t
digest(struct pme_bucketfile *bf)
{
	const char *const	*kinds;
	const struct pme_module	*mods;
	const struct pme_unit	*units;
	const struct pme_group	*groups;
	const struct pme_range	*ranges;
	struct pme_bucket	*b;
	const uint64_t		*out;
	size_t			 nk, nm, nu, ng, nb, nr, i;
	uint64_t		 h = 0xcbf29ce484222325ull;
	uint32_t		 j;

	h = mix(h, pme_bucketfile_info(bf)->options);
	nk = pme_bucketfile_kinds(bf, &kinds);
	nm = pme_bucketfile_modules(bf, &mods);
	nu = pme_bucketfile_units(bf, &units);
	ng = pme_bucketfile_groups(bf, &groups);
	nb = pme_bucketfile_buckets(bf, &b);
	nr = pme_bucketfile_ranges(bf, &ranges);
	h = mix(mix(mix(mix(mix(mix(h, nk), nm), nu), ng), nb), nr);
	for (i = 0; i < nk; i++)
		h = mixs(h, kinds[i]);
	for (i = 0; i < nm; i++) {
		h = mixs(h, mods[i].path);
		for (j = 0; j < mods[i].buildid_len; j++)
			h = mix(h, mods[i].buildid[j]);
		if ((out = pme_bucketfile_outside(bf, (uint32_t)i)) != NULL)
			h = mix(h, *out);
	}
	for (i = 0; i < nu; i++)
		h = mix(mix(mix(mix(mixs(mixs(h, units[i].name),
		    units[i].file), units[i].kind), units[i].parent),
		    units[i].module), units[i].nranges) ^
		    mix(mix(mix(units[i].flags, units[i].step), units[i].line),
		    units[i].range);
	for (i = 0; i < nr; i++)
		h = mix(mix(h, ranges[i].start), ranges[i].end);
	for (i = 0; i < ng; i++)
		h = mix(mix(mix(mixs(h, groups[i].statement), groups[i].unit),
		    groups[i].first), groups[i].count);
	for (i = 0; i < nb; i++)
		h = mix(mix(mix(mix(h, b[i].unit), b[i].group), b[i].count),
		    b[i].nranges);
	return h;
}

/* The bytes of a file, malloc'ed; NULL on failure. */
static uint8_t *
slurp(const char *path, size_t *len)
{
	uint8_t *buf = NULL;
	FILE *fp;
	long n;

	if ((fp = fopen(path, "rb")) == NULL)
		return NULL;
	if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 &&
	    fseek(fp, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) != NULL &&
	    fread(buf, 1, (size_t)n, fp) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	*len = buf != NULL ? (size_t)n : 0;
	fclose(fp);
	return buf;
}

static void
one(const uint8_t *data, size_t size)
{
	struct pme_bucketfile	*bf, *bf2;
	struct pme_error	 err;
	char			 a[64], b[64];
	uint8_t			*ba, *bb;
	size_t			 la, lb;
	uint64_t		 h;

	memset(&err, 0, sizeof(err));
	if ((bf = pme_bucketfile_mem(data, size, "fuzz", &err)) == NULL)
		return;
	h = digest(bf);
	snprintf(a, sizeof(a), "%s/a.pme", made);
	snprintf(b, sizeof(b), "%s/b.pme", made);
	if (pme_bucketfile_write(bf, a, &err) == -1) {
		/* Only what cannot be written as read may be refused: a
		 * bucket file read whole is one the writer takes. */
		fprintf(stderr, "write: %s\n", pme_strerror(&err));
		abort();
	}
	pme_bucketfile_close(bf);
	if ((bf2 = pme_bucketfile_open(a, &err)) == NULL) {
		fprintf(stderr, "read back: %s\n", pme_strerror(&err));
		abort();
	}
	if (digest(bf2) != h)
		abort();
	if (pme_bucketfile_write(bf2, b, &err) == -1)
		abort();
	pme_bucketfile_close(bf2);
	if ((ba = slurp(a, &la)) == NULL || (bb = slurp(b, &lb)) == NULL ||
	    la != lb || memcmp(ba, bb, la) != 0)
		abort();
	free(ba);
	free(bb);
	unlink(a);
	unlink(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (made == NULL && (made = mkdtemp(dir)) == NULL)
		abort();
	with_crcs_fixed(data, size, one);
	return 0;
}
