/*
 * inline.c - pmehisto --inline: the functions inlined at a frame's
 * address, as frames of their own (perf report --inline, addr2line -i).
 * A frame of a routine at link-time address va of a load module of the
 * bucket file becomes the chain of the instances inlined there, the
 * innermost first, then the routine: the DWARF's inlined subroutines
 * (lib/image.h, pme_image_inline_chain()), read when a module's first
 * frame asks, each image once.  The chains are kept by (module, va):
 * call chains repeat their addresses.  An inlined function's frame is
 * named as the DWARF names it ("inner"), as addr2line -f does.
 */
#include <stdlib.h>
#include <string.h>

#include "histo.h"
#include "image.h"

#define MAXDEPTH	64

struct slot {
	uint64_t	 mod, va;
	uint32_t	 off, n;
	int		 used;
};

struct inlines {
	struct pme_image **img;		/* by module of the bucket file */
	unsigned char	*tried;
	size_t		 nmods;
	struct slot	*slot;		/* open addressing */
	size_t		 cap, used;
	uint64_t	*pool;		/* frame ids of the chains */
	uint64_t	*starts;	/* beside each, its instance's start */
	size_t		 npool, cappool;
	const char	*prog;
	int		 quiet;
};

struct inlines *
inlines_new(const char *prog, int quiet)
{
	struct inlines *in = calloc(1, sizeof(*in));

	if (in != NULL) {
		in->prog = prog;
		in->quiet = quiet;
	}
	return in;
}

void
inlines_free(struct inlines *in)
{
	size_t i;

	if (in == NULL)
		return;
	for (i = 0; i < in->nmods; i++)
		pme_image_close(in->img[i]);
	free(in->img);
	free(in->tried);
	free(in->slot);
	free(in->pool);
	free(in->starts);
	free(in);
}

/* Module m's image, opened with its inlined subroutines at the first
 * call; NULL when it has none to give (the kernel, no file, no DWARF). */
static struct pme_image *
image_of(struct inlines *in, const struct pme_module *mods, size_t nmods,
    uint32_t m)
{
	struct pme_error err;
	size_t n;

	if (m >= nmods)
		return NULL;
	if (m >= in->nmods) {
		void *a = realloc(in->img, nmods * sizeof(*in->img));
		void *b = a != NULL ? realloc(in->tried, nmods) : NULL;

		if (a != NULL)
			in->img = a;
		if (b == NULL)
			return NULL;
		in->tried = b;
		n = in->nmods;
		memset(in->img + n, 0, (nmods - n) * sizeof(*in->img));
		memset(in->tried + n, 0, nmods - n);
		in->nmods = nmods;
	}
	if (in->tried[m])
		return in->img[m];
	in->tried[m] = 1;
	if (mods[m].path[0] == '\0' || mods[m].path[0] == '[')
		return NULL;
	if ((in->img[m] = pme_image_open_inlines(mods[m].path, NULL,
	    &err)) == NULL && !in->quiet)
		histo_warn(in->prog, "--inline: %s: no inlined frames of it",
		    err.msg);
	return in->img[m];
}

static int
grow(struct inlines *in)
{
	size_t cap = in->cap ? in->cap * 2 : 1024, i, j;
	struct slot *s = calloc(cap, sizeof(*s));

	if (s == NULL)
		return -1;
	for (i = 0; i < in->cap; i++) {
		if (!in->slot[i].used)
			continue;
		for (j = stacks_hash(&in->slot[i].mod, 2) & (cap - 1);
		    s[j].used; j = (j + 1) & (cap - 1))
			;
		s[j] = in->slot[i];
	}
	free(in->slot);
	in->slot = s;
	in->cap = cap;
	return 0;
}

/* The frame ids of the chain at va of module m into the pool, in slot
 * s; 0 or -1 (no memory). */
static int
make_chain(struct inlines *in, struct tally *t, struct pme_image *img,
    uint64_t va, struct slot *s)
{
	const struct pme_syminline *c[MAXDEPTH];
	size_t n = img != NULL ? pme_image_inline_chain(img, va, c,
	    MAXDEPTH) : 0, i;

	s->off = (uint32_t)in->npool;
	s->n = 0;
	if (n == 0)
		return 0;
	if (in->npool + n > in->cappool) {
		size_t cap = in->cappool ? in->cappool * 2 : 1024;
		uint64_t *p, *q;

		while (cap < in->npool + n)
			cap *= 2;
		if ((p = realloc(in->pool, cap * sizeof(*p))) == NULL)
			return -1;
		in->pool = p;
		if ((q = realloc(in->starts, cap * sizeof(*q))) == NULL)
			return -1;
		in->starts = q;
		in->cappool = cap;
	}
	for (i = 0; i < n; i++) {
		if ((in->pool[in->npool + i] = stacks_inline(t->stacks,
		    c[i]->name)) == FRAME_UNKNOWN)
			return -1;
		in->starts[in->npool + i] = c[i]->start;
	}
	in->npool += n;
	s->n = (uint32_t)n;
	return 0;
}

int
inlines_at(struct inlines *in, struct tally *t, uint64_t id, uint64_t va,
    const uint64_t **out, const uint64_t **starts)
{
	const struct pme_unit *units;
	const struct pme_module *mods;
	uint64_t key[2];
	size_t nmods, i;
	uint32_t m;
	struct slot *s;

	*out = *starts = NULL;
	if (t->bf == NULL || ((id & FRAME_TYPE) != FRAME_UNIT &&
	    (id & FRAME_TYPE) != FRAME_MODULE))
		return 0;
	nmods = pme_bucketfile_modules(t->bf, &mods);
	pme_bucketfile_units(t->bf, &units);
	m = (id & FRAME_TYPE) == FRAME_UNIT ? units[(uint32_t)id].module :
	    (uint32_t)id;
	key[0] = m;
	key[1] = va;
	if ((in->used + 1) * 2 > in->cap && grow(in) == -1)
		return -1;
	for (i = stacks_hash(key, 2) & (in->cap - 1); in->slot[i].used;
	    i = (i + 1) & (in->cap - 1))
		if (in->slot[i].mod == m && in->slot[i].va == va)
			goto found;
	s = &in->slot[i];
	if (make_chain(in, t, image_of(in, mods, nmods, m), va, s) == -1)
		return -1;
	s->mod = m;
	s->va = va;
	s->used = 1;
	in->used++;
found:
	*out = in->pool + in->slot[i].off;
	*starts = in->starts + in->slot[i].off;
	return (int)in->slot[i].n;
}
