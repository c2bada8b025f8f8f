/*
 * units.c - the program unit list: units, their subunits and ranges, and
 * what DEFINE ADDRESSES: EXE and MAP put into it.
 *
 * The list is a tree kept in declaration order; a unit's index is always
 * above its parent's, so walking indexes downwards visits subunits before
 * the units that contain them.
 */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "plt.h"
#include "pmd.h"
#include "pme_symbols.h"
#include "quick.h"

/* ---------------------------------------------------- (kind, parent, name) */

static uint64_t
key_hash(uint32_t kind, uint32_t parent, const char *name)
{
	uint64_t h = (uint64_t)(uintptr_t)name ^ ((uint64_t)kind << 59) ^
	    (uint64_t)parent << 20;

	/* splitmix64's finalizer: every key bit reaches the low bits that
	 * pick the slot. */
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	return h ^ h >> 31;
}

static int
hash_insert(struct pmd *p, uint32_t u)
{
	struct pmd_unit *unit = pmd_unit(p, u);
	size_t j;

	if ((p->nhashed + 1) * 2 > p->hashcap) {
		size_t cap = p->hashcap ? p->hashcap * 2 : 1024, i;
		uint32_t *h = malloc(cap * sizeof(*h));

		if (h == NULL)
			return -1;
		memset(h, 0xff, cap * sizeof(*h));
		free(p->hash);
		p->hash = h;
		p->hashcap = cap;
		p->nhashed = 0;
		/* Rehash every unit but u, then u below. */
		for (i = 0; i < p->units.n; i++)
			if (i != u && pmd_unit(p, (uint32_t)i)->hashed &&
			    hash_insert(p, (uint32_t)i) == -1)
				return -1;
		unit = pmd_unit(p, u);
	}
	j = key_hash(unit->kind, unit->parent, unit->name) & (p->hashcap - 1);
	while (p->hash[j] != PME_NONE)
		j = (j + 1) & (p->hashcap - 1);
	p->hash[j] = u;
	unit->hashed = 1;
	p->nhashed++;
	return 0;
}

/* The unit of that kind and name directly under parent, or PME_NONE. */
uint32_t
pmd_lookup(struct pmd *p, uint32_t kind, const char *name, uint32_t parent)
{
	const struct pmd_unit *par;
	const char *in;
	size_t j;
	uint32_t c;

	if ((in = pme_intern(&p->names, name)) == NULL)
		return PME_NONE;
	j = p->hashcap ? key_hash(kind, parent, in) & (p->hashcap - 1) : 0;
	for (; p->hashcap && p->hash[j] != PME_NONE;
	    j = (j + 1) & (p->hashcap - 1)) {
		struct pmd_unit *u = pmd_unit(p, p->hash[j]);

		if (u->kind == kind && u->parent == parent && u->name == in)
			return p->hash[j];
	}
	if (parent == PME_NONE || !(par = pmd_unit(p, parent))->unhashed)
		return PME_NONE;
	/* Units not hashed (line units) may have names not interned. */
	for (c = 0; c < par->nch; c++) {
		const struct pmd_unit *u = pmd_unit(p, par->ch[c]);

		if (u->kind == kind && (u->name == in ||
		    (!u->hashed && strcmp(u->name, in) == 0)))
			return par->ch[c];
	}
	return PME_NONE;
}

static int
push_child(struct pmd *p, uint32_t parent, uint32_t u)
{
	struct pmd_unit *par;
	uint32_t *ch;

	if (parent == PME_NONE) {
		uint32_t *r = pme_vec_push(&p->roots);

		if (r == NULL)
			return -1;
		*r = u;
		return 0;
	}
	par = pmd_unit(p, parent);
	if (par->nch == par->chcap) {
		uint32_t cap = par->chcap ? par->chcap * 2 : 4;

		if ((ch = realloc(par->ch, cap * sizeof(*ch))) == NULL)
			return -1;
		par->ch = ch;
		par->chcap = cap;
	}
	par->ch[par->nch++] = u;
	return 0;
}

/*
 * pmd_add_unit() for a name already interned.  Units not hashed (the many
 * line units) are found by pmd_lookup() among their parent's subunits.
 */
static uint32_t
add_unit(struct pmd *p, const char *in, uint32_t kind, uint32_t parent,
    int hashed)
{
	struct pmd_unit *u;
	uint32_t idx = (uint32_t)p->units.n;

	if (idx == PME_NONE - 1 || (u = pme_vec_push(&p->units)) == NULL)
		return PME_NONE;
	u->name = in;
	u->kind = kind;
	u->parent = parent;
	u->module = parent == PME_NONE ? PME_NONE : pmd_unit(p, parent)->module;
	if ((hashed && hash_insert(p, idx) == -1) ||
	    push_child(p, parent, idx) == -1) {
		p->units.n--;
		return PME_NONE;
	}
	if (!hashed && parent != PME_NONE)
		pmd_unit(p, parent)->unhashed = 1;
	return idx;
}

uint32_t
pmd_add_unit(struct pmd *p, const char *name, uint32_t kind, uint32_t parent)
{
	const char *in = pme_intern(&p->names, name);

	return in == NULL ? PME_NONE : add_unit(p, in, kind, parent, 1);
}

int
pmd_add_range(struct pmd *p, uint32_t ui, uint64_t start, uint64_t end)
{
	struct pmd_unit *u = pmd_unit(p, ui);
	struct pme_range *last;
	int unsorted;

	if (start >= end)
		return 0;
	last = u->nr ? &u->r[u->nr - 1] : NULL;
	if (last != NULL && start >= last->start && start <= last->end) {
		if (end > last->end)
			last->end = end;
		return 0;
	}
	unsorted = last != NULL && start < last->start;
	/* rcap 0 with ranges: they are in the arena (line units, made
	 * with their ranges counted), and grow into a copy of their own. */
	if (u->nr >= u->rcap) {
		uint32_t cap = u->rcap ? u->rcap * 2 : u->nr ? u->nr * 2 : 1;
		struct pme_range *r = u->rcap ? realloc(u->r, cap *
		    sizeof(*r)) : malloc(cap * sizeof(*r));

		if (r == NULL)
			return -1;
		if (u->rcap == 0 && u->nr > 0)
			memcpy(r, u->r, u->nr * sizeof(*r));
		u->r = r;
		u->rcap = cap;
	}
	u->r[u->nr].start = start;
	u->r[u->nr++].end = end;
	if (unsorted)
		u->nr = (uint32_t)pme_ranges_merge(u->r, u->nr);
	return 0;
}

static int
set_ranges(struct pmd *p, uint32_t u, const struct pme_range *r, uint32_t n)
{
	uint32_t i;

	pmd_unit(p, u)->nr = 0;
	pmd_unit(p, u)->flags &= ~(uint32_t)(PME_UNIT_EXPLICIT |
	    PME_UNIT_DERIVED);
	for (i = 0; i < n; i++)
		if (pmd_add_range(p, u, r[i].start, r[i].end) == -1)
			return -1;
	return 0;
}

/* 1 if every range lies inside the unit's ranges. */
static int
contains(const struct pmd_unit *u, const struct pme_range *r, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < u->nr; j++)
			if (r[i].start >= u->r[j].start &&
			    r[i].end <= u->r[j].end)
				break;
		if (j == u->nr)
			return 0;
	}
	return 1;
}

static int
may_hold(const struct pmd_unit *u, uint32_t kind,
    const struct pme_range *r, size_t n)
{
	if (u->kind >= kind)
		return 0;
	return !(u->flags & PME_UNIT_EXPLICIT) || contains(u, r, n);
}

/*
 * Where a unit found in an image or map goes: at the end of the unit list,
 * so under the latest declared unit of a higher kind (the seed's rule), but
 * never under one whose explicit addresses exclude it; failing that, under
 * the latest top-level unit that may hold it; failing that, at the top.
 */
uint32_t
pmd_new_parent(struct pmd *p, uint32_t kind, const struct pme_range *r,
    size_t n)
{
	size_t i;
	int j;

	for (j = (int)kind - 1; j >= 0; j--)
		if (p->open[j] != PME_NONE &&
		    may_hold(pmd_unit(p, p->open[j]), kind, r, n))
			return p->open[j];
	for (i = p->roots.n; i-- > 0;) {
		uint32_t u = PME_VEC_AT(&p->roots, uint32_t, i);

		if (may_hold(pmd_unit(p, u), kind, r, n))
			return u;
	}
	return PME_NONE;
}

/* ------------------------------------------------------- load modules */

static uint32_t
main_module(const struct pmd *p)
{
	uint32_t i;

	for (i = 0; i < p->modules.n; i++)
		if (PME_VEC_AT(&p->modules, struct pmd_module, i).flags &
		    PME_MODULE_MAIN)
			return i;
	return PME_NONE;
}

static uint32_t
add_module(struct pmd *p, const char *path, uint32_t flags)
{
	struct pmd_module *m;

	if ((m = pme_vec_push(&p->modules)) == NULL)
		return PME_NONE;
	if ((m->path = pme_arena_strdup(&p->arena, path)) == NULL) {
		p->modules.n--;
		return PME_NONE;
	}
	m->flags = flags;
	return (uint32_t)p->modules.n - 1;
}

/* The load module for an image: the same file read before, the main
 * program a map left without a path, or a new one. */
static uint32_t
image_module(struct pmd *p, const char *path, struct pme_image *img)
{
	unsigned fl = pme_image_flags(img);
	int isexe = (fl & (PME_IMAGE_EXEC | PME_IMAGE_PIE)) != 0;
	char real[PATH_MAX];
	const uint8_t *id;
	uint32_t idlen, i, m;
	struct pmd_module *mod;

	if (realpath(path, real) == NULL)
		snprintf(real, sizeof(real), "%s", path);
	for (i = 0; i < p->modules.n; i++)
		if (strcmp(PME_VEC_AT(&p->modules, struct pmd_module, i).path,
		    real) == 0)
			return i;
	m = main_module(p);
	if (isexe && m != PME_NONE &&
	    PME_VEC_AT(&p->modules, struct pmd_module, m).path[0] == '\0') {
		mod = &PME_VEC_AT(&p->modules, struct pmd_module, m);
		if ((mod->path = pme_arena_strdup(&p->arena, real)) == NULL)
			return PME_NONE;
	} else if ((m = add_module(p, real, isexe && m == PME_NONE ?
	    PME_MODULE_MAIN : 0)) == PME_NONE)
		return PME_NONE;
	mod = &PME_VEC_AT(&p->modules, struct pmd_module, m);
	if ((id = pme_image_buildid(img, &idlen)) != NULL && idlen > 0 &&
	    mod->buildid == NULL) {
		if ((mod->buildid = malloc(idlen)) == NULL)
			return PME_NONE;
		memcpy(mod->buildid, id, idlen);
		mod->buildid_len = idlen;
	}
	/* As pmehisto's quick path says it (lib/quick.c). */
	if (p->quick && pme_image_debugfile(img) == NULL &&
	    !(fl & PME_IMAGE_DWARF))
		mod->flags |= PME_MODULE_NODEBUG;
	return m;
}

/* ------------------------------------------------- matching module names */

/* A module name reduced for matching: the archive member if any, its last
 * path component, without extension, lower case. */
static void
norm_name(const char *name, char *out, size_t outlen)
{
	const char *s = name, *e = name + strlen(name), *p;
	size_t n, i;

	if (e > s && e[-1] == ')' && (p = strrchr(s, '(')) != NULL) {
		s = p + 1;
		e--;
	}
	for (p = s; p < e; p++)
		if (*p == '/')
			s = p + 1;
	for (p = e; p > s + 1; p--)
		if (p[-1] == '.') {
			e = p - 1;
			break;
		}
	n = (size_t)(e - s);
	if (n >= outlen)
		n = outlen - 1;
	for (i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[n] = '\0';
}

struct cand {
	char	 norm[128];
	uint32_t unit;
	int	 used;
};

static int
cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = strcmp(x->norm, y->norm);

	return c ? c : (x->unit > y->unit) - (x->unit < y->unit);
}

struct matcher {
	struct cand	*c;
	size_t		 n;
};

/*
 * The units of kind MODULE that found modules of load module lm may match:
 * those declared and not yet found, and those already found in lm (the
 * same file read again, or a map of the same program).  A library's
 * util.c never takes the program's util.c.
 */
static int
matcher_init(struct pmd *p, struct matcher *m, uint32_t kmod, uint32_t lm)
{
	uint32_t i;

	m->n = 0;
	if ((m->c = calloc(p->units.n + 1, sizeof(*m->c))) == NULL)
		return -1;
	for (i = 0; i < p->units.n; i++) {
		const struct pmd_unit *u = pmd_unit(p, i);

		if (u->kind != kmod || (u->module != PME_NONE &&
		    u->module != lm))
			continue;
		norm_name(pmd_unit(p, i)->name, m->c[m->n].norm,
		    sizeof(m->c[0].norm));
		m->c[m->n++].unit = i;
	}
	qsort(m->c, m->n, sizeof(*m->c), cmp_cand);
	return 0;
}

/* The unused declared module named name exactly, else one whose reduced
 * name is name's reduced name; PME_NONE if none. */
static uint32_t
matcher_find(struct pmd *p, struct matcher *m, const char *name)
{
	struct cand key, *c;
	size_t i, lo, hi;

	for (i = 0; i < m->n; i++)
		if (!m->c[i].used &&
		    strcmp(pmd_unit(p, m->c[i].unit)->name, name) == 0) {
			m->c[i].used = 1;
			return m->c[i].unit;
		}
	norm_name(name, key.norm, sizeof(key.norm));
	/* The first candidate of that reduced name, by binary search. */
	lo = 0;
	hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(m->c[mid].norm, key.norm) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	c = lo < m->n ? &m->c[lo] : NULL;
	for (; c != NULL && c < m->c + m->n && strcmp(c->norm, key.norm) == 0;
	    c++)
		if (!c->used) {
			c->used = 1;
			return c->unit;
		}
	return PME_NONE;
}

/* The unit for a found module: a declared one, or a new one. */
static uint32_t
module_unit(struct pmd *p, struct matcher *m, uint32_t kmod,
    const char *name, const struct pme_range *r, uint32_t n, uint32_t lm)
{
	uint32_t u = matcher_find(p, m, name);

	if (u == PME_NONE &&
	    (u = pmd_add_unit(p, name, kmod, pmd_new_parent(p, kmod, r, n)))
	    == PME_NONE)
		return PME_NONE;
	if (set_ranges(p, u, r, n) == -1)
		return PME_NONE;
	pmd_unit(p, u)->module = lm;
	return u;
}

/* -------------------------------------------------------------- EXE */

struct kinds {
	uint32_t	 mod, routine, line;
};

static int
exe_kinds(struct pmd *p, struct kinds *k, const char *what)
{
	k->mod = pmd_find_kind(p, "MODULE");
	k->routine = pmd_find_kind(p, "ROUTINE");
	k->line = pmd_find_kind(p, "LINE");
	if (k->mod == PME_NONE) {
		pmd_error(p, "DEFINE ADDRESSES: %s needs a unit kind called "
		    "MODULE", what);
		return -1;
	}
	if (k->routine != PME_NONE && k->routine < k->mod) {
		pmd_warn(p, "ROUTINE is not a subunit of MODULE: no routines "
		    "are read");
		k->routine = PME_NONE;
	}
	if (k->line != PME_NONE && (k->line < k->mod ||
	    (k->routine != PME_NONE && k->line < k->routine))) {
		pmd_warn(p, "LINE is not a subunit of MODULE and ROUTINE: no "
		    "lines are read");
		k->line = PME_NONE;
	}
	return 0;
}

static int
want_lines(const struct pmd *p, const struct pmd_unit *mod)
{
	if (p->options & PME_OPT_LINES)
		return 1;
	if (p->options & PME_OPT_NOLINES)
		return 0;
	return (mod->flags & PME_UNIT_LINES) != 0;
}

/* Copies the routine's aliases but name to unit u: the image's strings
 * go with it. */
static int
set_aliases(struct pmd *p, uint32_t u, const struct pme_symroutine *r,
    const char *name)
{
	const char **v = NULL;
	uint32_t i, k = 0;

	if (r->naliases > 0 && (v = pme_arena_alloc(&p->arena,
	    r->naliases * sizeof(*v))) == NULL)
		return -1;
	for (i = 0; i < r->naliases; i++)
		if (r->aliases[i] != name && (v[k++] = pme_intern(&p->names,
		    r->aliases[i])) == NULL)
			return -1;
	pmd_unit(p, u)->aliases = v;
	pmd_unit(p, u)->naliases = k;
	return 0;
}

/* Units of the module's routines (of those keep marks, when not NULL);
 * units[i] is that of its routine i, PME_NONE for one left out. */
static int
add_routines(struct pmd *p, const struct kinds *k, uint32_t mu,
    const struct pme_symmod *m, const struct pme_symroutine *rt,
    const uint8_t *keep, uint32_t *units)
{
	const char *name;
	uint32_t i, u;

	for (i = 0; i < m->nroutines; i++) {
		const struct pme_symroutine *r = &rt[m->first_routine + i];

		units[i] = PME_NONE;
		if (keep != NULL && !keep[m->first_routine + i])
			continue;

		/* --no-demangle: the raw names, as nm prints them without -C. */
		name = p->nodemangle ? r->raw : r->name;
		u = pmd_lookup(p, k->routine, name, mu);
		if (u == PME_NONE &&
		    (u = pmd_add_unit(p, name, k->routine, mu)) == PME_NONE)
			return -1;
		if (set_ranges(p, u, r->ranges, r->nranges) == -1 ||
		    set_aliases(p, u, r, name) == -1)
			return -1;
		/* The image's strings go with it: keep a copy. */
		pmd_unit(p, u)->file = r->file ? pme_intern(&p->names,
		    r->file) : NULL;
		pmd_unit(p, u)->line = r->line;
		units[i] = u;
	}
	return 0;
}

/*
 * A source file of a module's lines: its rank in unit order (the CU's
 * own file first, then the others by name) and the name its line units
 * carry, the base name unless another file of the module has the same.
 */
struct lfile {
	const char	*file;		/* the image's, interned there */
	const char	*shown;		/* base name, or file when ambiguous */
	uint32_t	 rank;
	int		 own;		/* the CU's own file */
};

/* The module's distinct files, found through a table on the pointer. */
struct lfiles {
	struct lfile	*v;
	uint32_t	 n;
	uint32_t	*slot;		/* index + 1 into v, 0: free */
	size_t		 cap;		/* slots, a power of two */
};

static size_t
ptr_slot(const void *f, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)f * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 32) & (cap - 1);
}

/* The index of file f in fs, added when new; UINT32_MAX when out of
 * memory.  The slots are grown to keep them at most half full. */
static uint32_t
lfile_index(struct lfiles *fs, const char *f, int own)
{
	size_t j, i;

	if (2 * ((size_t)fs->n + 1) > fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 16;
		uint32_t *slot = calloc(cap, sizeof(*slot));
		struct lfile *v = realloc(fs->v, cap / 2 * sizeof(*v));

		if (slot == NULL || v == NULL) {
			free(slot);
			if (v != NULL)
				fs->v = v;
			return UINT32_MAX;
		}
		for (i = 0; i < fs->n; i++) {
			for (j = ptr_slot(v[i].file, cap); slot[j] != 0;
			    j = (j + 1) & (cap - 1))
				continue;
			slot[j] = (uint32_t)i + 1;
		}
		free(fs->slot);
		fs->slot = slot;
		fs->v = v;
		fs->cap = cap;
	}
	for (j = ptr_slot(f, fs->cap); fs->slot[j] != 0;
	    j = (j + 1) & (fs->cap - 1))
		if (fs->v[fs->slot[j] - 1].file == f)
			return fs->slot[j] - 1;
	fs->slot[j] = fs->n + 1;
	fs->v[fs->n].file = f;
	fs->v[fs->n].shown = f == NULL ? "?" : pme_base_name(f);
	fs->v[fs->n].own = f == NULL || own;
	return fs->n++;
}

static int
cmp_lfile(const void *a, const void *b)
{
	const struct lfile *x = *(const struct lfile *const *)a;
	const struct lfile *y = *(const struct lfile *const *)b;

	if (x->own != y->own)
		return x->own ? -1 : 1;
	return strcmp(x->shown, y->shown) != 0 ? strcmp(x->shown, y->shown) :
	    strcmp(x->file ? x->file : "", y->file ? y->file : "");
}

/* The last k + 1 components of path f ("x/util.h" for k 1). */
static const char *
tail(const char *f, unsigned k)
{
	const char *t = f + strlen(f);

	while (t > f && (t[-1] != '/' || k-- > 0))
		t--;
	return t;
}

/* Gives the n files of one base name in o the shortest tails of their
 * paths that tell them apart ("x/util.h", "y/util.h"). */
static void
unique_tails(struct lfile **o, uint32_t n)
{
	uint32_t i, j;
	unsigned k;

	for (i = 0; i < n; i++) {
		for (k = 1; (o[i]->shown = tail(o[i]->file, k)) != o[i]->file;
		    k++) {
			for (j = 0; j < n; j++)
				if (j != i && strcmp(tail(o[j]->file, k),
				    o[i]->shown) == 0)
					break;
			if (j == n)
				break;
		}
	}
}

/* Ranks the files; files of one base name are shown by longer tails. */
static int
lfile_rank(struct lfiles *fs)
{
	struct lfile **o;
	uint32_t i, j;

	if ((o = malloc(((size_t)fs->n + 1) * sizeof(*o))) == NULL)
		return -1;
	for (i = 0; i < fs->n; i++)
		o[i] = &fs->v[i];
	qsort(o, fs->n, sizeof(*o), cmp_lfile);
	for (i = 0; i < fs->n; i = j) {
		for (j = i + 1; j < fs->n && o[i]->file != NULL &&
		    o[j]->file != NULL && strcmp(o[i]->shown, o[j]->shown) == 0;
		    j++)
			continue;
		if (j - i > 1)
			unique_tails(&o[i], j - i);
	}
	/* Ranks again: the longer names may sort otherwise. */
	qsort(o, fs->n, sizeof(*o), cmp_lfile);
	for (i = 0; i < fs->n; i++)
		o[i]->rank = i;
	free(o);
	return 0;
}

/*
 * One line-table range on its way to a line unit: the unit's key (parent
 * unit, file rank, line) and the row it came from.  Rows come sorted by
 * address, and the sort is stable, so each unit's ranges stay in address
 * order.  key is rank << bl | line, bl the bits of the module's highest
 * line.
 */
struct lkey {
	uint64_t	 key;
	uint32_t	 parent;
	uint32_t	 row;
};

/* How a key holds its rank and line: the line in its low bl bits, the
 * rank above it. */
struct lsplit {
	unsigned	 shift;		/* bl */
	uint64_t	 rmask;		/* the rank's bits, after the shift */
};

static uint32_t
key_line(const struct lsplit *sp, uint64_t key)
{
	return (uint32_t)(key & ((UINT64_C(1) << sp->shift) - 1));
}

static uint32_t
key_rank(const struct lsplit *sp, uint64_t key)
{
	return (uint32_t)((key >> sp->shift) & sp->rmask);
}

/* add_lines() puts the rows' ranges where the sort's keys were. */
_Static_assert(sizeof(struct pme_range) <= sizeof(struct lkey),
    "a range takes more room than a sort key");


/* Runs of keys sorted by insertion before sort_group() merges them. */
#define RUN	16

/*
 * Sorts the n keys of one parent at t stably by key, through tmp (room
 * for n): runs of RUN by insertion, then merged pairwise (a routine's
 * rows, in address order, are nearly in line order).
 */
static void
sort_group(struct lkey *t, struct lkey *tmp, size_t n)
{
	struct lkey *a = t, *o = tmp, *sw, x;
	size_t i, j, k, e, m, w, lo;

	for (lo = 0; lo < n; lo += RUN) {
		e = lo + RUN < n ? lo + RUN : n;
		for (i = lo + 1; i < e; i++) {
			x = t[i];
			for (j = i; j > lo && t[j - 1].key > x.key; j--)
				t[j] = t[j - 1];
			t[j] = x;
		}
	}
	for (w = RUN; w < n; w *= 2) {
		for (lo = 0; lo < n; lo += 2 * w) {
			m = lo + w < n ? lo + w : n;
			e = lo + 2 * w < n ? lo + 2 * w : n;
			for (i = lo, j = m, k = lo; k < e; k++)
				o[k] = j >= e || (i < m && a[i].key <= a[j].key) ?
				    a[i++] : a[j++];
		}
		sw = a;
		a = o;
		o = sw;
	}
	if (a != t)
		memcpy(t, a, n * sizeof(*t));
}

/*
 * Sorts keys[0..n) stably by parent, then key, through keys[n..2n):
 * by a counting sort on the parent, a pass each way (the rows of one
 * routine are a group), then each group by its key (sort_group).  A
 * radix sort of all the keys at once took a pass for each byte of
 * parent, rank and line (five on the SQLite amalgamation).  Returns where
 * the sorted keys are, keys + n; NULL when out of memory.
 */
static struct lkey *
sort_keys(struct lkey *keys, size_t n, uint32_t minp, uint32_t maxp)
{
	struct lkey *t = keys + n;
	size_t np = (size_t)(maxp - minp) + 1, i, a, g, *at;

	if ((at = calloc(np + 1, sizeof(*at))) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		at[keys[i].parent - minp + 1]++;
	for (g = 1; g <= np; g++)
		at[g] += at[g - 1];
	for (i = 0; i < n; i++)
		t[at[keys[i].parent - minp]++] = keys[i];
	/* at[g] is now the end of group g. */
	for (g = 0, a = 0; g < np; a = at[g++])
		if (at[g] - a > 1)
			sort_group(t + a, keys + a, at[g] - a);
	free(at);
	return t;
}

/* The bits that hold v. */
static unsigned
bits_of(uint64_t v)
{
	unsigned b = 0;

	while (v > 0) {
		b++;
		v >>= 1;
	}
	return b;
}

/*
 * The name of a line unit: "file:line", in the arena, not interned: the
 * names are nearly all distinct (a million in a big program), and line
 * units, never hashed, are found by strcmp (pmd_lookup).  No snprintf
 * either, for the same reason.
 */
static const char *
line_name(struct pmd *p, const char *shown, uint32_t line)
{
	char name[PATH_MAX + 16], digits[12], *d = digits + sizeof(digits);
	size_t len = strlen(shown);

	if (len > PATH_MAX)
		len = PATH_MAX;
	memcpy(name, shown, len);
	name[len++] = ':';
	*--d = '\0';
	do
		*--d = (char)('0' + line % 10);
	while ((line /= 10) > 0);
	memcpy(name + len, d, (size_t)(digits + sizeof(digits) - d));
	return pme_arena_strndup(&p->arena, name, len + (size_t)(digits +
	    sizeof(digits) - d) - 1);
}

/* Whether unit u already has subunits of kind (declared lines). */
static int
has_kind_child(struct pmd *p, uint32_t u, uint32_t kind)
{
	const struct pmd_unit *unit = pmd_unit(p, u);
	uint32_t c;

	for (c = 0; c < unit->nch; c++)
		if (pmd_unit(p, unit->ch[c])->kind == kind)
			return 1;
	return 0;
}

/* The parent unit of line l: its routine's unit, else the module's. */
static uint32_t
line_parent(const struct kinds *k, uint32_t mu, const struct pme_symmod *m,
    const struct pme_symline *l, const uint32_t *runits)
{
	if (k->routine != PME_NONE && l->routine != PME_NONE &&
	    l->routine >= m->first_routine &&
	    l->routine - m->first_routine < m->nroutines &&
	    runits[l->routine - m->first_routine] != PME_NONE)
		return runits[l->routine - m->first_routine];
	return mu;
}

/*
 * Gives new unit u the ranges of rows w[0 .. n), in address order, in
 * one piece of the arena, counted first: a big program has hundreds of
 * thousands of line units, most of one range, and a malloc each cost
 * time and memory.  Rows out of order (not seen: the rows are sorted by
 * address and the sort is stable) go through pmd_add_range.
 */
static int
line_ranges(struct pmd *p, uint32_t u, const struct pme_range *w, size_t n)
{
	struct pmd_unit *unit;
	struct pme_range *r = NULL;
	uint64_t end = 0;
	size_t i, k;
	uint32_t nr;

	for (i = 0, k = 0; i < n; i++) {
		if (w[i].start >= w[i].end)
			continue;
		if (k > 0 && w[i].start < w[i - 1].start)
			break;
		if (k == 0 || w[i].start > end) {
			k++;
			end = w[i].end;
		} else if (w[i].end > end)
			end = w[i].end;
	}
	if (i < n) {
		for (i = 0; i < n; i++)
			if (pmd_add_range(p, u, w[i].start, w[i].end) == -1)
				return -1;
		return 0;
	}
	if (k == 0)
		return 0;
	if (k > UINT32_MAX || (r = pme_arena_alloc(&p->arena,
	    k * sizeof(*r))) == NULL)
		return -1;
	for (i = 0, nr = 0; i < n; i++) {
		if (w[i].start >= w[i].end)
			continue;
		if (nr == 0 || w[i].start > r[nr - 1].end) {
			r[nr].start = w[i].start;
			r[nr++].end = w[i].end;
		} else if (w[i].end > r[nr - 1].end)
			r[nr - 1].end = w[i].end;
	}
	unit = pmd_unit(p, u);
	unit->r = r;
	unit->nr = nr;
	unit->rcap = 0;
	return 0;
}

/*
 * Makes the units of the sorted keys s, whose rows' ranges w holds in
 * their order (copied there once, where following each key's row number
 * into the image's rows missed the cache); a key's rank is that of file
 * fs->v[byrank[rank]].  0 or -1.
 */
static int
line_units(struct pmd *p, const struct kinds *k, const struct lkey *s,
    const struct pme_range *w, size_t n, const struct lfiles *fs,
    const uint32_t *byrank, const struct lsplit *sp)
{
	const struct lfile *f = NULL;
	const char *copy = NULL, *name;
	uint32_t u, parent, line;
	size_t i, j, r;
	int lookup = 0;

	for (i = 0; i < n; i = j) {
		parent = s[i].parent;
		if (i == 0 || parent != s[i - 1].parent)
			lookup = has_kind_child(p, parent, k->line);
		for (j = i + 1; j < n && s[j].key == s[i].key &&
		    s[j].parent == parent; j++)
			continue;
		if (f != &fs->v[byrank[key_rank(sp, s[i].key)]]) {
			f = &fs->v[byrank[key_rank(sp, s[i].key)]];
			/* The image's strings go with it: a copy. */
			copy = f->file ? pme_intern(&p->names, f->file) : NULL;
			if (f->file != NULL && copy == NULL)
				return -1;
		}
		line = key_line(sp, s[i].key);
		if ((name = line_name(p, f->shown, line)) == NULL)
			return -1;
		u = lookup ? pmd_lookup(p, k->line, name, parent) : PME_NONE;
		if (u == PME_NONE) {
			if ((u = add_unit(p, name, k->line, parent, 0)) ==
			    PME_NONE || line_ranges(p, u, w + i, j - i) == -1)
				return -1;
		} else
			for (r = i; r < j; r++)
				if (pmd_add_range(p, u, w[r].start,
				    w[r].end) == -1)
					return -1;
		pmd_unit(p, u)->line = line;
		pmd_unit(p, u)->file = copy;
		pmd_unit(p, u)->ownfile = f->own;
	}
	return 0;
}

/*
 * The module's line ranges become line units under their routines (or
 * the module), one per file and line, in source order: the CU's own file
 * first.  Sorting the rows groups each unit's ranges, so no unit needs
 * looking up unless lines were declared before.
 */
static int
add_lines(struct pmd *p, const struct kinds *k, uint32_t mu,
    const struct pme_symmod *m, const struct pme_symline *ln,
    const uint32_t *runits)
{
	struct lfiles fs = { 0 };
	struct lkey *keys, *s;
	struct pme_range *w;
	struct lsplit sp;
	uint32_t i, n = m->nlines, *fidx, *byrank = NULL, minp = 0, maxp = 0;
	uint32_t maxline = 0;
	unsigned bl, br;
	int rc = -1;

	if (n == 0)
		return 0;
	ln += m->first_line;
	keys = malloc(2 * (size_t)n * sizeof(*keys));
	fidx = malloc((size_t)n * sizeof(*fidx));
	if (keys == NULL || fidx == NULL)
		goto out;
	for (i = 0; i < n; i++)
		if ((fidx[i] = lfile_index(&fs, ln[i].file,
		    ln[i].file_is_primary != 0)) == UINT32_MAX)
			goto out;
	if (lfile_rank(&fs) == -1)
		goto out;
	for (i = 0; i < n; i++) {
		keys[i].parent = line_parent(k, mu, m, &ln[i], runits);
		keys[i].row = i;
		if (i == 0 || keys[i].parent < minp)
			minp = keys[i].parent;
		if (i == 0 || keys[i].parent > maxp)
			maxp = keys[i].parent;
		if (ln[i].line > maxline)
			maxline = ln[i].line;
	}
	bl = bits_of(maxline);
	br = bits_of(fs.n);
	for (i = 0; i < n; i++)
		keys[i].key = (uint64_t)fs.v[fidx[i]].rank << bl | ln[i].line;
	/* At most a unit per row: the unit table grows once. */
	if ((s = sort_keys(keys, n, minp, maxp)) == NULL ||
	    pme_vec_reserve(&p->units, p->units.n + n) == -1 ||
	    (byrank = malloc(((size_t)fs.n + 1) * sizeof(*byrank))) == NULL)
		goto out;
	for (i = 0; i < fs.n; i++)
		byrank[fs.v[i].rank] = i;
	sp.shift = bl;
	sp.rmask = br >= 32 ? UINT32_MAX : (UINT64_C(1) << br) - 1;
	/* The rows' ranges in key order, in the sort's other half (a
	 * range is the size of a key). */
	w = (struct pme_range *)(void *)(s == keys ? keys + n : keys);
	for (i = 0; i < n; i++) {
		w[i].start = ln[s[i].row].start;
		w[i].end = ln[s[i].row].end;
	}
	rc = line_units(p, k, s, w, n, &fs, byrank, &sp);
out:
	free(byrank);
	free(keys);
	free(fidx);
	free(fs.v);
	free(fs.slot);
	return rc;
}

static int
exe_module(struct pmd *p, const struct kinds *k, struct pme_image *img,
    const uint8_t *keep, struct matcher *mt, uint32_t mi, uint32_t lm)
{
	const struct pme_symmod *mods, *m;
	const struct pme_symroutine *rt;
	const struct pme_symline *ln;
	struct pme_error err;
	uint32_t mu, *runits;
	int rc = -1;

	pme_image_modules(img, &mods);
	pme_image_routines(img, &rt);
	m = &mods[mi];
	if (m->nranges == 0)
		return 0;
	if ((mu = module_unit(p, mt, k->mod, m->name, m->ranges, m->nranges,
	    lm)) == PME_NONE)
		return -1;
	if ((runits = calloc((size_t)m->nroutines + 1,
	    sizeof(*runits))) == NULL)
		return -1;
	if (k->routine != PME_NONE &&
	    add_routines(p, k, mu, m, rt, keep, runits) == -1)
		goto out;
	rc = 0;
	if (k->line != PME_NONE && want_lines(p, pmd_unit(p, mu))) {
		if (pme_image_load_lines(img, mi, &err) == -1) {
			pmd_error(p, "%s", pme_strerror(&err));
			goto out;
		}
		pme_image_modules(img, &mods);
		pme_image_lines(img, &ln);
		rc = add_lines(p, k, mu, &mods[mi], ln, runits);
	}
out:
	free(runits);
	return rc;
}

/*
 * -x: the image's PLT stubs (lib/plt.c) as pmehisto's quick path makes
 * them, a MODULE "plt" with a ROUTINE "function@plt" for each, and a
 * MODULE "init" with the ROUTINEs "_init" and "_fini" (.init's and
 * .fini's code), so that the two bucket files stay the same.
 */
static int
exe_plt(struct pmd *p, const struct kinds *k, const struct pme_image *img,
    struct matcher *mt, uint32_t lm)
{
	struct pme_error err;
	struct pme_plt plt;
	const char *name, *mod;
	uint32_t mu, u;
	size_t i, j, first, n;
	int rc = -1;

	if (pme_image_plt(img, &plt, &err) == -1)
		return -1;
	for (j = 0; j < PME_PLT_PARTS; j++) {
		mod = pme_plt_part(&plt, j, &first, &n);
		if (n == 0)
			continue;
		if ((mu = module_unit(p, mt, k->mod, mod, plt.ranges + first,
		    (uint32_t)n, lm)) == PME_NONE)
			goto out;
		for (i = first; i < first + n; i++)
			if ((name = pme_intern(&p->names, plt.names[i])) ==
			    NULL || (u = pmd_add_unit(p, name, k->routine,
			    mu)) == PME_NONE ||
			    set_ranges(p, u, &plt.ranges[i], 1) == -1)
				goto out;
	}
	rc = 0;
out:
	pme_plt_free(&plt);
	return rc;
}

int
pmd_exe(struct pmd *p, const char *path, const char *psect)
{
	const struct pme_symmod *mods;
	struct pme_image *img;
	struct pme_error err;
	struct matcher mt;
	struct kinds k;
	const char *note;
	uint8_t *keep = NULL;
	uint32_t lm, i, n;
	size_t nkept;
	int rc = 0;

	if (p->nofiles) {
		pmd_error(p, "EXE is not read here");
		return -1;
	}
	if (exe_kinds(p, &k, "EXE") == -1)
		return -1;
	if ((img = pme_image_open(path, psect, &err)) == NULL) {
		pmd_error(p, "%s", pme_strerror(&err));
		return -1;
	}
	if ((note = pme_image_note(img)) != NULL)
		pmd_warn(p, "'%s': %s", path, note);
	/* -x: the routines pmehisto's quick path makes buckets of. */
	if ((p->quick && (keep = pme_quick_pick(img, &nkept)) == NULL) ||
	    (lm = image_module(p, path, img)) == PME_NONE ||
	    matcher_init(p, &mt, k.mod, lm) == -1) {
		free(keep);
		pme_image_close(img);
		pmd_error(p, "out of memory");
		return -1;
	}
	n = (uint32_t)pme_image_modules(img, &mods);
	for (i = 0; i < n && rc == 0; i++)
		if ((rc = exe_module(p, &k, img, keep, &mt, i, lm)) == -1 &&
		    p->errors == 0)
			pmd_error(p, "out of memory");
	if (rc == 0 && p->quick && k.routine != PME_NONE &&
	    (rc = exe_plt(p, &k, img, &mt, lm)) == -1 && p->errors == 0)
		pmd_error(p, "out of memory");
	free(mt.c);
	free(keep);
	pme_image_close(img);
	return rc;
}

/* -------------------------------------------------------------- MAP */

/* "/usr/lib/x/libc_nonshared.a(atexit.o)" -> "libc_nonshared.a(atexit.o)" */
static const char *
short_object(const char *name)
{
	const char *p = strchr(name, '('), *s = name, *q;

	for (q = name; *q != '\0' && (p == NULL || q < p); q++)
		if (*q == '/')
			s = q + 1;
	return s;
}

int
pmd_map(struct pmd *p, const char *path, const char *psect)
{
	const struct pme_symmod *mods;
	struct pme_map *map;
	struct pme_error err;
	struct matcher mt;
	struct kinds k;
	uint32_t lm, i, n;
	int rc = 0;

	if (p->nofiles) {
		pmd_error(p, "MAP is not read here");
		return -1;
	}
	if (exe_kinds(p, &k, "MAP") == -1)
		return -1;
	if ((map = pme_map_open(path, psect, &err)) == NULL) {
		pmd_error(p, "%s", pme_strerror(&err));
		return -1;
	}
	if ((lm = main_module(p)) == PME_NONE &&
	    (lm = add_module(p, "", PME_MODULE_MAIN)) == PME_NONE)
		rc = -1;
	mt.c = NULL;
	if (rc == 0 && matcher_init(p, &mt, k.mod, lm) == -1)
		rc = -1;
	n = rc == 0 ? (uint32_t)pme_map_modules(map, &mods) : 0;
	for (i = 0; i < n && rc == 0; i++)
		if (mods[i].nranges > 0 && module_unit(p, &mt, k.mod,
		    short_object(mods[i].name), mods[i].ranges,
		    mods[i].nranges, lm) == PME_NONE)
			rc = -1;
	free(mt.c);
	if (rc == -1)
		pmd_error(p, "out of memory");
	if (rc == 0 && n == 0)
		pmd_warn(p, "'%s': no input objects in section %s", path,
		    psect ? psect : ".text");
	pme_map_close(map);
	return rc;
}

/* -------------------------------------------------------- derived ranges */

static void
derive_one(struct pmd *p, uint32_t ui)
{
	struct pmd_unit *u = pmd_unit(p, ui);
	uint32_t c, j, module = PME_NONE;
	int first = 1, mixed = 0;

	if ((u->flags & PME_UNIT_EXPLICIT) ||
	    (u->nr > 0 && !(u->flags & PME_UNIT_DERIVED)))
		return;
	u->nr = 0;
	for (c = 0; c < u->nch; c++) {
		struct pmd_unit *s = pmd_unit(p, u->ch[c]);

		mixed |= s->mixed;
		if (s->nr == 0)
			continue;
		if (first)
			module = s->module;
		else if (s->module != module)
			mixed = 1;
		first = 0;
		for (j = 0; j < s->nr; j++)
			if (pmd_add_range(p, ui, s->r[j].start, s->r[j].end)
			    == -1)
				mixed = 1;	/* out of memory: no ranges */
		u = pmd_unit(p, ui);
	}
	u->nr = mixed ? 0 : (uint32_t)pme_ranges_merge(u->r, u->nr);
	u->mixed = mixed;
	if (!first)
		u->module = module;
	if (!first || mixed)
		u->flags |= PME_UNIT_DERIVED;
}

void
pmd_derive(struct pmd *p)
{
	uint32_t i;

	for (i = (uint32_t)p->units.n; i-- > 0;)
		derive_one(p, i);
}
