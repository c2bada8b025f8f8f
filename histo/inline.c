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

int
inlines_site(struct inlines *in, const struct tally *t, uint32_t m,
    uint64_t va, uint32_t level, const char **file, uint32_t *line)
{
	const struct pme_syminline *c[MAXDEPTH];
	const struct pme_module *mods;
	struct pme_image *img;
	size_t n;

	*file = NULL;
	*line = 0;
	if (t->bf == NULL || level == 0 || level > MAXDEPTH)
		return 0;
	n = pme_bucketfile_modules(t->bf, &mods);
	if ((img = image_of(in, mods, n, m)) == NULL ||
	    pme_image_inline_chain(img, va, c, MAXDEPTH) < level)
		return 0;
	*file = c[level - 1]->call_file;
	*line = c[level - 1]->call_line;
	return 1;
}

const char *
inlines_bucket(struct inlines *in, struct pme_bucketfile *bf, uint32_t b)
{
	const struct pme_syminline *c[MAXDEPTH];
	const struct pme_module *mods;
	const struct pme_unit *units;
	const struct pme_range *rng;
	const struct pme_bucket *bk;
	struct pme_bucket *v;
	struct pme_image *img;
	const char *best = NULL, *name;
	uint64_t most = 0, own = 0, bytes;
	size_t nmods = pme_bucketfile_modules(bf, &mods), nb, i, j;

	nb = pme_bucketfile_buckets(bf, &v);
	pme_bucketfile_units(bf, &units);
	pme_bucketfile_ranges(bf, &rng);
	if (b >= nb)
		return NULL;
	bk = &v[b];
	if ((img = image_of(in, mods, nmods, units[bk->unit].module)) == NULL)
		return NULL;
	for (i = 0; i < bk->nranges; i++) {
		const struct pme_range *r = &rng[bk->range + i];

		if (pme_image_inline_chain(img, r->start, c, MAXDEPTH) == 0) {
			own += r->end - r->start;
			continue;
		}
		/* This range's name, and the bytes of every range of it. */
		name = c[0]->name;
		for (bytes = 0, j = 0; j < bk->nranges; j++) {
			const struct pme_range *q = &rng[bk->range + j];

			if (pme_image_inline_chain(img, q->start, c,
			    MAXDEPTH) > 0 && strcmp(c[0]->name, name) == 0)
				bytes += q->end - q->start;
		}
		if (bytes > most) {
			most = bytes;
			best = name;
		}
	}
	return most > own ? best : NULL;
}

/*
 * Frames outside the buckets named by their files' symbols (symnames_at):
 * a return address in the program's _start, which no DWARF routine
 * holds, or in libc when the bucket file has no module of it, is named
 * as perf names it ("_start", "__libc_start_call_main"), not "[prog]" or
 * "[libc.so.6]".  Each file's symbol table is read once
 * (pme_image_open_symbols()), its routines' ranges sorted by address;
 * only a file whose build-id is the mapping's is named from, so that
 * another build of it, or a file the run did not record one for, names
 * nothing.
 */
struct symaddr {
	uint64_t	 start, end;
	const char	*name;
};

struct symfile {
	char		*path;
	struct pme_image *img;		/* NULL: unreadable */
	struct symaddr	*v;
	size_t		 n;
};

struct symnames {
	struct symfile	*f;
	size_t		 n;
};

struct symnames *
symnames_new(void)
{
	return calloc(1, sizeof(struct symnames));
}

void
symnames_free(struct symnames *sn)
{
	size_t i;

	if (sn == NULL)
		return;
	for (i = 0; i < sn->n; i++) {
		free(sn->f[i].path);
		free(sn->f[i].v);
		pme_image_close(sn->f[i].img);
	}
	free(sn->f);
	free(sn);
}

static int
cmp_symaddr(const void *a, const void *b)
{
	const struct symaddr *p = a, *q = b;

	return (p->start > q->start) - (p->start < q->start);
}

/* f's routines' ranges, sorted; 0 or -1 (no memory). */
static int
symfile_read(struct symfile *f)
{
	const struct pme_symroutine *r;
	struct pme_error err;
	size_t nr, i, n = 0;
	uint32_t j;

	if ((f->img = pme_image_open_symbols(f->path, NULL, &err)) == NULL)
		return 0;
	nr = pme_image_routines(f->img, &r);
	for (i = 0; i < nr; i++)
		n += r[i].nranges;
	if (n == 0)
		return 0;
	if ((f->v = malloc(n * sizeof(*f->v))) == NULL)
		return -1;
	for (i = 0; i < nr; i++)
		for (j = 0; j < r[i].nranges; j++) {
			/* "[libc.so.6]": the rest of a stripped image */
			if (r[i].name[0] == '[')
				continue;
			f->v[f->n].start = r[i].ranges[j].start;
			f->v[f->n].end = r[i].ranges[j].end;
			f->v[f->n++].name = r[i].name;
		}
	qsort(f->v, f->n, sizeof(*f->v), cmp_symaddr);
	return 0;
}

/* Whether f's image has the build-id id[0..len). */
static int
same_build(const struct symfile *f, const uint8_t *id, uint32_t len)
{
	const uint8_t *b;
	uint32_t n;

	if (f->img == NULL || id == NULL || len == 0 ||
	    (b = pme_image_buildid(f->img, &n)) == NULL)
		return 0;
	return n == len && memcmp(b, id, len) == 0;
}

static struct symfile *
symfile_of(struct symnames *sn, const char *path)
{
	struct symfile *f;
	size_t i;

	for (i = 0; i < sn->n; i++)
		if (strcmp(sn->f[i].path, path) == 0)
			return &sn->f[i];
	if ((f = realloc(sn->f, (sn->n + 1) * sizeof(*f))) == NULL)
		return NULL;
	sn->f = f;
	f = &sn->f[sn->n];
	memset(f, 0, sizeof(*f));
	if ((f->path = strdup(path)) == NULL)
		return NULL;
	sn->n++;
	return symfile_read(f) == -1 ? NULL : f;
}

uint64_t
symnames_at(struct symnames *sn, struct stacks *s,
    const struct pme_mapping *m, uint64_t va)
{
	const struct symfile *f;
	size_t lo = 0, hi, mid;

	if (m->path == NULL || m->path[0] != '/' || m->buildid == NULL ||
	    (f = symfile_of(sn, m->path)) == NULL ||
	    !same_build(f, m->buildid, m->buildid_len))
		return 0;
	for (hi = f->n; lo < hi; ) {
		mid = lo + (hi - lo) / 2;
		if (f->v[mid].start <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || va >= f->v[lo - 1].end)
		return 0;
	return stacks_inline_in(s, f->v[lo - 1].name, m->path);
}
