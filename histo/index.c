/*
 * index.c - pmehisto's bucket lookup: per load module, the bucket ranges
 * sorted by address and a page table over them, so that finding the
 * bucket of an address is an index and a short search inside one page,
 * with no pointer chasing.  pme_bucketfile_lookup() answers the same in
 * O(log n) over all modules at once; samples come by the million, and
 * the binary search's cache misses were most of the time of a reduction.
 */
#include <stdlib.h>
#include <string.h>

#include "histo.h"

struct entry {
	uint32_t	 module;
	uint32_t	 bucket;
	uint64_t	 start, end;
};

static int
cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

static int
build_module(struct modix *m, const struct entry *e, size_t n)
{
	size_t i, p, k;
	uint64_t span, maxpages = 2 * (uint64_t)n + 64;

	m->n = n;
	m->start = malloc(n * sizeof(*m->start));
	m->end = malloc(n * sizeof(*m->end));
	m->bucket = malloc(n * sizeof(*m->bucket));
	if (m->start == NULL || m->end == NULL || m->bucket == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		m->start[i] = e[i].start;
		m->end[i] = e[i].end;
		m->bucket[i] = e[i].bucket;
		if (i > 0 && e[i].start < e[i - 1].end)
			m->overlap = 1;
	}
	m->lo = e[0].start;
	span = e[n - 1].end - m->lo;
	for (i = 1; i < n; i++)
		if (e[i].end - m->lo > span)
			span = e[i].end - m->lo;
	while ((span >> m->shift) >= maxpages)
		m->shift++;
	m->npages = (size_t)(span >> m->shift) + 1;
	if ((m->first = malloc((m->npages + 1) * sizeof(*m->first))) == NULL)
		return -1;
	for (p = k = 0; p < m->npages; p++) {
		uint64_t pstart = m->lo + ((uint64_t)p << m->shift);

		while (k < n && m->end[k] <= pstart)
			k++;
		m->first[p] = (uint32_t)k;
	}
	m->first[m->npages] = (uint32_t)n;
	return 0;
}

struct bindex *
bindex_build(struct pme_bucketfile *bf)
{
	const struct pme_unit *u;
	const struct pme_range *rng;
	struct pme_bucket *bk;
	struct entry *e;
	struct bindex *x;
	size_t nb, nm, n = 0, i, j, k;

	nb = pme_bucketfile_buckets(bf, &bk);
	pme_bucketfile_units(bf, &u);
	pme_bucketfile_ranges(bf, &rng);
	nm = pme_bucketfile_modules(bf, &(const struct pme_module *){ NULL });
	for (i = 0; i < nb; i++)
		n += bk[i].nranges;
	if ((x = calloc(1, sizeof(*x))) == NULL)
		return NULL;
	x->bf = bf;
	x->nm = nm;
	e = malloc((n ? n : 1) * sizeof(*e));
	x->m = calloc(nm + 1, sizeof(*x->m));
	if (e == NULL || x->m == NULL)
		goto fail;
	for (i = k = 0; i < nb; i++)
		for (j = 0; j < bk[i].nranges; j++) {
			uint32_t mod = u[bk[i].unit].module;

			e[k].module = mod == PME_NONE || mod >= nm ?
			    (uint32_t)nm : mod;
			e[k].bucket = (uint32_t)i;
			e[k].start = rng[bk[i].range + j].start;
			e[k++].end = rng[bk[i].range + j].end;
		}
	qsort(e, n, sizeof(*e), cmp_entry);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && e[j].module == e[i].module; j++)
			continue;
		if (build_module(&x->m[e[i].module], e + i, j - i) == -1)
			goto fail;
	}
	free(e);
	return x;
fail:
	free(e);
	bindex_free(x);
	return NULL;
}

void
bindex_free(struct bindex *x)
{
	size_t i;

	if (x == NULL)
		return;
	for (i = 0; x->m != NULL && i <= x->nm; i++) {
		free(x->m[i].first);
		free(x->m[i].start);
		free(x->m[i].end);
		free(x->m[i].bucket);
	}
	free(x->m);
	free(x);
}

uint32_t
bindex_slow(const struct bindex *x, uint32_t module, uint64_t addr)
{
	return pme_bucketfile_lookup(x->bf, module == x->nm ? PME_NONE :
	    module, addr);
}
