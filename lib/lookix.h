/*
 * lookix.h - libpme internals: the index that finds the bucket of an
 * address (pme_bucketfile_index(), pme.h), and its lookup inline, for
 * pmehisto, which looks up millions of samples: the call into
 * pme_bucketfile_find() cost it a tenth of its time.  Not installed.
 *
 * Per load module (slot nm: absolute addresses), the bucket ranges made
 * disjoint and sorted by address (start, end, bucket side by side) and a
 * page table over them, so that finding the bucket of an address is an
 * index and a short search inside one page.
 */
#ifndef PME_LOOKIX_H
#define PME_LOOKIX_H

#include <stddef.h>
#include <stdint.h>

#include "pme.h"

struct pme_modix {
	uint64_t	 lo;		/* lowest start */
	unsigned	 shift;		/* page size 2^shift */
	size_t		 npages;
	uint32_t	*first;		/* per page: first entry ending after
					   the page's start; npages + 1 */
	uint64_t	*start, *end;
	uint32_t	*bucket;
	size_t		 n;
};

struct pme_lookix {
	size_t		 nm;		/* modules when built */
	struct pme_modix *m;		/* nm + 1 */
};

/* bf's index, NULL until pme_bucketfile_index() built it; valid until a
 * bucket is added to bf or it is closed. */
const struct pme_lookix *pme_bucketfile_lookix(const struct pme_bucketfile *bf);

/* pme_bucketfile_find() over index x (NULL: none). */
static inline uint32_t
pme_lookix_find(const struct pme_lookix *x, uint32_t module, uint64_t addr,
    struct pme_range *in)
{
	const struct pme_modix *m;
	uint64_t off;
	size_t a, z, mid;

	if (x == NULL)
		return PME_NONE;
	if (module == PME_NONE)
		module = (uint32_t)x->nm;
	else if (module >= x->nm)
		return PME_NONE;	/* added since: no buckets */
	m = &x->m[module];
	if (m->n == 0 || addr < m->lo ||
	    (off = (addr - m->lo) >> m->shift) >= m->npages)
		return PME_NONE;
	/* The entry holding addr, if any, is the first in
	 * [first[off], first[off + 1]] that ends after addr. */
	a = m->first[off];
	z = m->first[off + 1];
	if (z >= m->n)
		z = m->n - 1;
	while (a < z) {
		mid = a + (z - a) / 2;
		if (m->end[mid] <= addr)
			a = mid + 1;
		else
			z = mid;
	}
	if (a >= m->n || addr < m->start[a] || addr >= m->end[a])
		return PME_NONE;	/* a == n: all end before the page */
	if (in != NULL) {
		in->start = m->start[a];
		in->end = m->end[a];
	}
	return m->bucket[a];
}

#endif /* PME_LOOKIX_H */
