/*
 * export.c - pmehisto -T svg, callgrind and pprof: the call stacks of
 * -T folded (folded.c) by frame name (export.h), with their frames'
 * addresses and source lines where the export wants them.  The flame
 * graph is svg.c's, the callgrind file callgrind.c's, the pprof profile
 * pprof.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "pme_symbols.h"
#include "util.h"

/* Doubles the slots of set (each an index + 1 into set->s, 0 empty). */
static int
strset_grow(struct strset *set)
{
	size_t cap = set->cap ? set->cap * 2 : 64, i, j;
	size_t *slot = calloc(cap, sizeof(*slot));

	if (slot == NULL)
		return -1;
	for (i = 0; i < set->n; i++) {
		for (j = pme_hash(set->s[i], strlen(set->s[i])) & (cap - 1);
		    slot[j] != 0; j = (j + 1) & (cap - 1))
			;
		slot[j] = i + 1;
	}
	free(set->slot);
	set->slot = slot;
	set->cap = cap;
	return 0;
}

size_t
strset_add(struct strset *set, const char *str)
{
	const char **v;
	size_t j;

	if ((set->n + 1) * 2 > set->cap && strset_grow(set) == -1)
		return (size_t)-1;
	for (j = pme_hash(str, strlen(str)) & (set->cap - 1);
	    set->slot[j] != 0; j = (j + 1) & (set->cap - 1))
		if (strcmp(set->s[set->slot[j] - 1], str) == 0)
			return set->slot[j] - 1;
	if ((v = realloc(set->s, (set->n + 1) * sizeof(*v))) == NULL)
		return (size_t)-1;
	set->s = v;
	v[set->n] = str;
	set->slot[j] = set->n + 1;
	return set->n++;
}

void
strset_free(struct strset *set)
{
	free(set->s);
	free(set->slot);
}

/* ------------------------------------------------------------ the model */

/* The stacks as folded.c holds them, copied: ids innermost first, then
 * with addrs (t->addrs) as many addresses. */
struct raw {
	uint64_t	*ids;
	size_t		 nids, capids;
	struct xstack	*st;
	size_t		 nst, capst;
	int		 addrs;
	uint32_t	*mods;		/* with addrs: beside the model's pool,
					   each frame's module (xloc) */
};

static int
raw_add(void *arg, const uint64_t *id, size_t n, uint64_t count)
{
	struct raw *r = arg;

	if (r->nst == r->capst) {
		size_t cap = r->capst ? r->capst * 2 : 256;
		struct xstack *v = realloc(r->st, cap * sizeof(*v));

		if (v == NULL)
			return -1;
		r->st = v;
		r->capst = cap;
	}
	if (r->nids + n > r->capids) {
		size_t cap = r->capids ? r->capids * 2 : 1024;
		uint64_t *v;

		while (cap < r->nids + n)
			cap *= 2;
		if ((v = realloc(r->ids, cap * sizeof(*v))) == NULL)
			return -1;
		r->ids = v;
		r->capids = cap;
	}
	memcpy(r->ids + r->nids, id, n * sizeof(*id));
	r->st[r->nst].off = r->nids;
	r->st[r->nst].n = (uint32_t)(r->addrs ? n / 2 : n);
	r->st[r->nst++].count = count;
	r->nids += n;
	return 0;
}

static int
id_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct named {
	char		*name;
	uint64_t	 id;
};

static int
named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c != 0 ? c : id_cmp(&x->id, &y->id);
}

/* Frame id's module in the bucket file, or PME_NONE. */
static uint32_t
frame_module(const struct tally *t, uint64_t id)
{
	const struct pme_unit *units;

	if (t->bf == NULL)
		return PME_NONE;
	if ((id & FRAME_TYPE) == FRAME_MODULE)
		return (uint32_t)id;
	if ((id & FRAME_TYPE) != FRAME_UNIT)
		return PME_NONE;
	pme_bucketfile_units(t->bf, &units);
	return units[(uint32_t)id].module;
}

/* Whether frame id is a function --inline found inlined at its address
 * (named by its file's symbols, a function has its module's path). */
static int
frame_inlined(const struct tally *t, uint64_t id)
{
	return t->inl != NULL && (id & FRAME_TYPE) == FRAME_INLINE &&
	    stacks_frame_path(t->stacks, t, id) == NULL;
}

/* What the bucket file says of frame x->id: its module, and its unit's
 * file, line and address; -1 when out of memory. */
static int
frame_facts(const struct tally *t, struct xname *x)
{
	const struct pme_unit *units;
	const struct pme_range *ranges;
	const struct pme_module *mods;
	const char *path = stacks_frame_path(t->stacks, t, x->id);
	uint32_t i = (uint32_t)x->id, mod = frame_module(t, x->id);
	size_t nmods;

	if (path != NULL && (x->path = pme_escape_dup(path)) == NULL)
		return -1;
	x->kernel = stacks_frame_kernel(t, x->id);
	if (t->bf == NULL)
		return 0;
	pme_bucketfile_units(t->bf, &units);
	pme_bucketfile_ranges(t->bf, &ranges);
	nmods = pme_bucketfile_modules(t->bf, &mods);
	if ((x->id & FRAME_TYPE) == FRAME_UNIT) {
		x->line = units[i].line;
		if (units[i].nranges > 0)
			x->addr = ranges[units[i].range].start;
		if (units[i].file != NULL &&
		    (x->file = pme_escape_dup(units[i].file)) == NULL)
			return -1;
	}
	if (mod < nmods)
		x->mod = &mods[mod];
	return 0;
}

/*
 * Names the distinct ids ids[0..n) (sorted): m->names, one per name, and
 * of[k] the name index of ids[k].
 */
static int
name_ids(struct xmodel *m, const uint64_t *ids, size_t n, uint32_t *of)
{
	struct named *v = calloc(n + 1, sizeof(*v));
	size_t i, k;
	int rc = -1;

	if (v == NULL || (m->names = calloc(n + 1, sizeof(*m->names))) ==
	    NULL)
		goto done;
	for (i = 0; i < n; i++) {
		v[i].id = ids[i];
		if ((v[i].name = stacks_frame_name(m->t->stacks, m->t,
		    ids[i])) == NULL)
			goto done;
	}
	qsort(v, n, sizeof(*v), named_cmp);
	for (i = 0; i < n; i++) {
		if (m->nnames == 0 ||
		    strcmp(m->names[m->nnames - 1].name, v[i].name) != 0) {
			struct xname *x = &m->names[m->nnames++];

			x->name = v[i].name;
			v[i].name = NULL;
			x->id = v[i].id;
			if (frame_facts(m->t, x) == -1)
				goto done;
		}
		k = (uint64_t *)bsearch(&v[i].id, ids, n, sizeof(*ids),
		    id_cmp) - ids;
		of[k] = (uint32_t)(m->nnames - 1);
	}
	rc = 0;
done:
	for (i = 0; v != NULL && i < n; i++)
		free(v[i].name);
	free(v);
	return rc;
}

static const uint32_t *cmp_pool;
static const uint64_t *cmp_addr;	/* NULL: stacks without addresses */

static int
stack_cmp(const void *a, const void *b)
{
	const struct xstack *x = a, *y = b;
	uint32_t i, n = x->n < y->n ? x->n : y->n;

	for (i = 0; i < n; i++)
		if (cmp_pool[x->off + i] != cmp_pool[y->off + i])
			return cmp_pool[x->off + i] < cmp_pool[y->off + i] ?
			    -1 : 1;
	if (x->n != y->n || cmp_addr == NULL)
		return x->n < y->n ? -1 : x->n > y->n;
	for (i = 0; i < n; i++)
		if (cmp_addr[x->off + i] != cmp_addr[y->off + i])
			return cmp_addr[x->off + i] < cmp_addr[y->off + i] ?
			    -1 : 1;
	return 0;
}

/*
 * Each frame's level and module of stack s (raw ids innermost first)
 * into the pool's order: a function inlined at an address is one level
 * inside the frame after it, and of its module, up to the frame that
 * holds the address (frame_inlined()).
 */
static void
levels(struct xmodel *m, struct raw *r, const struct xstack *s)
{
	const uint64_t *id = r->ids + s->off;
	uint32_t j, run = 0, mod = PME_NONE;
	size_t last = s->off + s->n - 1;

	for (j = 0; j < s->n; j++) {
		m->level[last - j] = run;
		run = frame_inlined(m->t, id[j]) ? run + 1 : 0;
	}
	for (j = s->n; j-- > 0; ) {
		if (!frame_inlined(m->t, id[j]))
			mod = frame_module(m->t, id[j]);
		r->mods[last - j] = mod;
	}
}

/* The stacks by name, outermost first, sorted, equal ones merged. */
static int
name_stacks(struct xmodel *m, struct raw *r, const uint64_t *ids,
    size_t nids, const uint32_t *of)
{
	size_t i, j, k;

	if ((m->pool = calloc(r->nids + 1, sizeof(*m->pool))) == NULL ||
	    (r->addrs && ((m->addr = calloc(r->nids + 1, sizeof(*m->addr))) ==
	    NULL || (m->level = calloc(r->nids + 1, sizeof(*m->level))) ==
	    NULL || (r->mods = calloc(r->nids + 1, sizeof(*r->mods))) ==
	    NULL)))
		return -1;
	for (i = 0; i < r->nst; i++) {
		struct xstack *s = &r->st[i];

		if (r->addrs)
			levels(m, r, s);

		for (j = 0; j < s->n; j++) {
			const uint64_t *p = bsearch(&r->ids[s->off + j], ids,
			    nids, sizeof(*ids), id_cmp);

			m->pool[s->off + s->n - 1 - j] = of[p - ids];
			if (m->addr != NULL)
				m->addr[s->off + s->n - 1 - j] =
				    r->ids[s->off + s->n + j];
		}
		m->total += s->count;
		if (s->n > m->depth)
			m->depth = s->n;
	}
	cmp_pool = m->pool;
	cmp_addr = m->addr;
	qsort(r->st, r->nst, sizeof(*r->st), stack_cmp);
	for (i = k = 0; i < r->nst; i++)
		if (k > 0 && stack_cmp(&r->st[k - 1], &r->st[i]) == 0)
			r->st[k - 1].count += r->st[i].count;
		else
			r->st[k++] = r->st[i];
	m->st = r->st;
	m->nst = k;
	r->st = NULL;
	return 0;
}

static void
xmodel_free(struct xmodel *m)
{
	size_t i;

	for (i = 0; i < m->nnames; i++) {
		free(m->names[i].name);
		free(m->names[i].path);
		free(m->names[i].file);
	}
	free(m->names);
	free(m->st);
	free(m->pool);
	free(m->addr);
	free(m->locof);
	free(m->level);
	free(m->locs);
	for (i = 0; i < m->nfiles; i++)
		free(m->files[i]);
	free(m->files);
	free(m->command);
}

/* ------------------------------------------------------ the source lines */

/* The files the frames are in, each opened once; a compilation unit's
 * line table is read when an address falls in it, not the whole file's
 * (libc's debug file holds thousands). */
struct ltfile {
	struct pme_image *img;		/* NULL: no lines */
};

struct ltab {
	struct strset	 paths;		/* index into f */
	struct ltfile	*f;
};

/* Whether img is the build of mod the samples were of: the same
 * build-id, when the bucket file has one. */
static int
same_build(struct pme_image *img, const struct pme_module *mod)
{
	const uint8_t *id;
	uint32_t len;

	if (mod->buildid == NULL)
		return 1;
	id = pme_image_buildid(img, &len);
	return id != NULL && len == mod->buildid_len &&
	    memcmp(id, mod->buildid, len) == 0;
}

/* Module mod's file, opened now if it is new; NULL when out of memory.
 * A file that cannot be read, or is another build (its lines would be
 * another program's), has no lines. */
static struct ltfile *
ltab_file(struct ltab *lt, const struct pme_module *mod)
{
	struct pme_error err;
	struct ltfile *f;
	size_t i, n = lt->paths.n;

	if ((i = strset_add(&lt->paths, mod->path)) == (size_t)-1)
		return NULL;
	if (i < n)
		return &lt->f[i];
	if ((f = realloc(lt->f, (n + 1) * sizeof(*f))) == NULL)
		return NULL;
	lt->f = f;
	f = &f[i];
	if ((f->img = pme_image_open(mod->path, NULL, &err)) != NULL &&
	    !same_build(f->img, mod)) {
		pme_image_close(f->img);
		f->img = NULL;
	}
	return f;
}

static void
ltab_free(struct ltab *lt)
{
	size_t i;

	for (i = 0; i < lt->paths.n; i++)
		pme_image_close(lt->f[i].img);
	free(lt->f);
	strset_free(&lt->paths);
}

/* The compilation unit of f holding addr, or PME_NONE. */
static uint32_t
ltab_unit(const struct ltfile *f, uint64_t addr)
{
	const struct pme_symmod *mods;
	size_t n = pme_image_modules(f->img, &mods), i;
	uint32_t j;

	for (i = 0; i < n; i++)
		for (j = 0; j < mods[i].nranges; j++)
			if (addr >= mods[i].ranges[j].start &&
			    addr < mods[i].ranges[j].end)
				return (uint32_t)i;
	return PME_NONE;
}

/* The line holding addr in f, its unit's table read now if need be, or
 * NULL. */
static const struct pme_symline *
ltab_find(const struct ltfile *f, uint64_t addr)
{
	const struct pme_symmod *mods;
	const struct pme_symline *ln;
	struct pme_error err;
	size_t lo, hi, mid;
	uint32_t u;

	if (f->img == NULL || (u = ltab_unit(f, addr)) == PME_NONE ||
	    pme_image_load_lines(f->img, u, &err) == -1)
		return NULL;
	pme_image_modules(f->img, &mods);
	pme_image_lines(f->img, &ln);
	/* A unit's lines are sorted by start and do not overlap. */
	lo = mods[u].first_line;
	hi = lo + mods[u].nlines;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ln[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > mods[u].first_line && addr < ln[lo - 1].end ?
	    &ln[lo - 1] : NULL;
}

/* The escaped file name s, once in m->files; NULL when out of memory. */
static const char *
file_intern(struct xmodel *m, struct strset *set, const char *s)
{
	char *e, **v;
	size_t i;

	if ((e = pme_escape_dup(s)) == NULL ||
	    (i = strset_add(set, e)) == (size_t)-1) {
		free(e);
		return NULL;
	}
	if (i < m->nfiles) {
		free(e);
		return m->files[i];
	}
	if ((v = realloc(m->files, (m->nfiles + 1) * sizeof(*v))) == NULL) {
		free(e);
		return NULL;
	}
	m->files = v;
	return v[m->nfiles++] = e;
}

/* The file and line of location x of module mod: the line table's,
 * or an inlined level's call site; 0 when none says, 1, -1 when out of
 * memory. */
static int
loc_line(const struct xmodel *m, struct ltab *lt, const struct xloc *x,
    const struct pme_module *mod, const char **file, uint32_t *line)
{
	const struct pme_symline *l;
	struct ltfile *f;

	if (x->level > 0)
		return inlines_site(m->t->inl, m->t, x->mod, x->addr, x->level,
		    file, line);
	if ((f = ltab_file(lt, mod)) == NULL)
		return -1;
	if ((l = ltab_find(f, x->addr)) == NULL)
		return 0;
	*file = l->file;
	*line = l->line;
	return 1;
}

/* The line of each location; 0, or -1 when out of memory. */
static int
locs_lines(struct xmodel *m)
{
	struct ltab lt;
	struct strset files;
	const struct pme_module *mods;
	const char *file;
	size_t i, nmods = m->t->bf != NULL ?
	    pme_bucketfile_modules(m->t->bf, &mods) : 0;
	int rc = -1, has;

	memset(&lt, 0, sizeof(lt));
	memset(&files, 0, sizeof(files));
	for (i = 0; i < m->nlocs; i++) {
		struct xloc *x = &m->locs[i];

		/* A module of the bucket file only: the samples' build of
		 * it is known. */
		if (x->mod >= nmods || mods[x->mod].path[0] == '\0' ||
		    m->names[x->name].kernel)
			continue;
		if ((has = loc_line(m, &lt, x, &mods[x->mod], &file,
		    &x->line)) == -1)
			goto done;
		if (has && file != NULL &&
		    (x->file = file_intern(m, &files, file)) == NULL)
			goto done;
	}
	rc = 0;
done:
	ltab_free(&lt);
	strset_free(&files);
	return rc;
}

/* A function inlined at an address (no path of its own) takes the load
 * module of the routine it is inlined into, the first of its
 * locations': callgrind's object, pprof's mapping.  0 or -1. */
static int
inlined_paths(struct xmodel *m)
{
	const struct pme_module *mods;
	size_t i, nmods = m->t->bf != NULL ?
	    pme_bucketfile_modules(m->t->bf, &mods) : 0;

	for (i = 0; i < m->nlocs; i++) {
		struct xname *x = &m->names[m->locs[i].name];
		uint32_t mod = m->locs[i].mod;

		if (x->path != NULL || x->kernel || mod >= nmods ||
		    !frame_inlined(m->t, x->id))
			continue;
		if ((x->path = pme_escape_dup(mods[mod].path)) == NULL)
			return -1;
		x->mod = &mods[mod];
	}
	return 0;
}

static int
loc_cmp(const void *a, const void *b)
{
	const struct xloc *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	return x->mod < y->mod ? -1 : x->mod > y->mod;
}

/* The distinct locations of m's frames (m->addr, m->level, mods),
 * their lines, and each frame's (m->locof); 0, or -1 when out of
 * memory. */
static int
locate(struct xmodel *m, const uint32_t *mods)
{
	size_t i, j, k = 0, top = 0;
	struct xloc key, *p;

	for (i = 0; i < m->nst; i++)
		if (m->st[i].off + m->st[i].n > top)
			top = m->st[i].off + m->st[i].n;
	if ((m->locs = calloc(top + 1, sizeof(*m->locs))) == NULL ||
	    (m->locof = calloc(top + 1, sizeof(*m->locof))) == NULL)
		return -1;
	for (i = 0; i < m->nst; i++)
		for (j = m->st[i].off; j < m->st[i].off + m->st[i].n; j++) {
			m->locs[k].name = m->pool[j];
			m->locs[k].addr = m->addr[j];
			m->locs[k].level = m->level[j];
			m->locs[k++].mod = mods[j];
		}
	qsort(m->locs, k, sizeof(*m->locs), loc_cmp);
	for (i = 0; i < k; i++)
		if (m->nlocs == 0 ||
		    loc_cmp(&m->locs[m->nlocs - 1], &m->locs[i]) != 0)
			m->locs[m->nlocs++] = m->locs[i];
	for (i = 0; i < m->nst; i++)
		for (j = m->st[i].off; j < m->st[i].off + m->st[i].n; j++) {
			key.name = m->pool[j];
			key.addr = m->addr[j];
			key.level = m->level[j];
			key.mod = mods[j];
			p = bsearch(&key, m->locs, m->nlocs, sizeof(key),
			    loc_cmp);
			m->locof[j] = (uint32_t)(p - m->locs);
		}
	return inlined_paths(m) == -1 ? -1 : locs_lines(m);
}

static int
xmodel_make(struct xmodel *m, const struct tally *t)
{
	struct raw r;
	uint64_t *ids = NULL;
	uint32_t *of = NULL;
	size_t n = 0, i, k;
	int rc = -1;

	memset(m, 0, sizeof(*m));
	memset(&r, 0, sizeof(r));
	m->t = t;
	r.addrs = t->addrs;
	/* The command line is the program's bytes: made safe for a
	 * terminal, a text line and XML (no controls) as names are. */
	if ((t->command != NULL && (m->command = pme_escape_dup(t->command)) ==
	    NULL) || stacks_walk(t->stacks, raw_add, &r) == -1 ||
	    (ids = malloc((r.nids + 1) * sizeof(*ids))) == NULL ||
	    (of = calloc(r.nids + 1, sizeof(*of))) == NULL)
		goto done;
	for (i = 0; i < r.nst; i++) {
		memcpy(ids + n, r.ids + r.st[i].off, r.st[i].n * sizeof(*ids));
		n += r.st[i].n;
	}
	qsort(ids, n, sizeof(*ids), id_cmp);
	for (i = 0, k = 0; i < n; i++)
		if (k == 0 || ids[k - 1] != ids[i])
			ids[k++] = ids[i];
	if (name_ids(m, ids, k, of) == 0 &&
	    name_stacks(m, &r, ids, k, of) == 0 &&
	    (m->addr == NULL || locate(m, r.mods) == 0))
		rc = 0;
done:
	free(ids);
	free(of);
	free(r.ids);
	free(r.st);
	free(r.mods);
	return rc;
}

/* ------------------------------------------------------------ the entry */

/* The end of an export written to out through fp; failed says whether
 * the writer failed.  0, or -1 with err filled and no data. */
static int
mem_close(FILE *fp, int failed, struct export_out *out,
    struct pme_error *err)
{
	if (fclose(fp) == EOF || failed) {
		free(out->data);
		out->data = NULL;
		return histo_err(err, PME_ENOMEM, "out of memory");
	}
	return 0;
}

static int
to_memory(const struct xmodel *m, int (*write)(const struct xmodel *,
    FILE *), struct export_out *out, struct pme_error *err)
{
	FILE *fp;

	if ((fp = open_memstream(&out->data, &out->len)) == NULL)
		return histo_err(err, PME_ENOMEM, "out of memory");
	return mem_close(fp, write(m, fp) == -1, out, err);
}

/* -T callgrind of trace input: the filled bucket file's counts. */
static int
callgrind_trace(struct pme_bucketfile *bf, struct export_out *out,
    struct pme_error *err)
{
	FILE *fp;

	memset(out, 0, sizeof(*out));
	if ((fp = open_memstream(&out->data, &out->len)) == NULL)
		return histo_err(err, PME_ENOMEM, "out of memory");
	return mem_close(fp, callgrind_counts(bf, fp) == -1, out, err);
}

static int
svg_make(const struct xmodel *m, struct export_out *out,
    struct pme_error *err)
{
	return to_memory(m, svg_write, out, err);
}

static int
callgrind_make(const struct xmodel *m, struct export_out *out,
    struct pme_error *err)
{
	return to_memory(m, callgrind_write, out, err);
}

/* The registry: -T's word, the help's gloss, -o's default extension,
 * binary, the family, whether the stacks hold addresses, whether it
 * compares with -D's stacks, the writer, the writer of trace input. */
const struct export_format export_formats[] = {
	{ "svg", "a flame graph", ".svg", 0, EXPORT_STACKS, 0, 1, svg_make,
	    NULL },
	{ "callgrind", NULL, "", 0, EXPORT_STACKS, 1, 0, callgrind_make,
	    callgrind_trace },
	{ "pprof", NULL, ".pb.gz", 1, EXPORT_STACKS, 1, 0, pprof_make, NULL }
};
const size_t export_nformats = sizeof(export_formats) /
    sizeof(export_formats[0]);

const struct export_format *
export_find(const char *name)
{
	size_t i;

	for (i = 0; i < export_nformats; i++)
		if (strcmp(name, export_formats[i].name) == 0)
			return &export_formats[i];
	return NULL;
}

int
export_make(const struct export_format *f, const struct tally *t,
    const char *what, struct export_out *out, struct pme_error *err)
{
	return export_compare(f, t, NULL, what, out, err);
}

int
export_compare(const struct export_format *f, const struct tally *t,
    const struct tally *base, const char *what, struct export_out *out,
    struct pme_error *err)
{
	struct xmodel m, bm;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&bm, 0, sizeof(bm));
	if (xmodel_make(&m, t) == -1 || (base != NULL &&
	    xmodel_make(&bm, base) == -1)) {
		xmodel_free(&m);
		xmodel_free(&bm);
		return histo_err(err, PME_ENOMEM, "out of memory");
	}
	if (base != NULL)
		m.base = &bm;
	if (m.depth < 2) {
		xmodel_free(&m);
		xmodel_free(&bm);
		return histo_err(err, PME_EFORMAT, "%s%s%s: no call chains "
		    "for -T %s (record them with pmeclock -g)",
		    what != NULL ? "'" : "", what != NULL ? what :
		    "the sample files", what != NULL ? "'" : "", f->name);
	}
	/* pmehisto sets t->addrs for the formats that want it. */
	rc = f->addrs && m.addr == NULL ? histo_err(err, PME_EFORMAT,
	    "-T %s: the call stacks were read without their addresses",
	    f->name) : f->make(&m, out, err);
	xmodel_free(&m);
	xmodel_free(&bm);
	return rc;
}
