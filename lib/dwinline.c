/*
 * dwinline.c - the inlined subroutines of an image (lib/image.h,
 * pme_image_open_inlines()), as the DWARF reader's child sent them
 * (dwarfdie.c reads them, contain.c carries them): sorted by depth, then
 * address, so that the chain at an address is a binary search per
 * depth.  Instances of one depth do not overlap: each lies in a routine,
 * or in one instance of the depth above, and those do not.  One room of
 * the ELF/DWARF reader, whose rooms share lib/symint.h.
 */
#include <stdlib.h>
#include <string.h>

#include "symint.h"

static int
cmp_inline(const void *a, const void *b)
{
	const struct pme_syminline *p = a, *q = b;

	if (p->depth != q->depth)
		return p->depth < q->depth ? -1 : 1;
	if (p->start != q->start)
		return p->start < q->start ? -1 : 1;
	return (p->end > q->end) - (p->end < q->end);
}

int
sort_inlines(struct pme_image *img)
{
	struct pme_syminline *v = img->inlines.v;
	size_t n = img->inlines.n, i;
	uint32_t d;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_inline);
	img->inl_depths = v[n - 1].depth;
	if ((img->inl_off = calloc(img->inl_depths + 1,
	    sizeof(*img->inl_off))) == NULL)
		return sym_nomem(img);
	for (i = 0, d = 1; d <= img->inl_depths; d++) {
		while (i < n && v[i].depth == d)
			i++;
		img->inl_off[d] = i;
	}
	return 0;
}

/* The instance of v[lo..hi) (sorted by start) that holds addr, or NULL;
 * of two that overlap (DWARF that breaks the rule), the later. */
static const struct pme_syminline *
find(const struct pme_syminline *v, size_t lo, size_t hi, uint64_t addr)
{
	size_t mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && v[lo - 1].start <= addr && addr < v[lo - 1].end ?
	    &v[lo - 1] : NULL;
}

size_t
pme_image_inline_chain(const struct pme_image *img, uint64_t addr,
    const struct pme_syminline **out, size_t max)
{
	const struct pme_syminline *v = img->inlines.v, *in;
	size_t n = 0, i;
	uint32_t d;

	for (d = 1; d <= img->inl_depths; d++) {
		if (n == max || (in = find(v, img->inl_off[d - 1],
		    img->inl_off[d], addr)) == NULL)
			break;
		out[n++] = in;
	}
	/* Found outermost first: innermost first for the caller. */
	for (i = 0; i < n / 2; i++) {
		in = out[i];
		out[i] = out[n - 1 - i];
		out[n - 1 - i] = in;
	}
	return n;
}
