/*
 * symmods.c - modules and their routines as the readers (DWARF, or the
 * symbol table without it) add them: a module's routines sorted by
 * entry, those of one entry merged into one routine with perf's name and
 * the other names as its aliases.  One room of the ELF/DWARF reader,
 * whose rooms share lib/symint.h (lib/symbols.c says which does what).
 */
#include <stdlib.h>
#include <string.h>

#include "symint.h"

struct pme_symmod *
add_module(struct pme_image *img, const char *name,
    const struct modinfo *info)
{
	static const struct modinfo none;
	struct pme_symmod *m;
	struct modinfo *o;

	if ((name = pme_intern(&img->names, name)) == NULL ||
	    (m = pme_vec_push(&img->mods)) == NULL ||
	    (o = pme_vec_push(&img->info)) == NULL) {
		sym_nomem(img);
		return NULL;
	}
	*o = info != NULL ? *info : none;
	m->name = name;
	m->first_routine = (uint32_t)img->routines.n;
	return m;
}

/* By entry; at one entry the preferred name first (cmp_fsym's rule for
 * names), then by name, so that equal inputs give equal results. */
static int
cmp_routine(const void *a, const void *b)
{
	const struct pme_symroutine *x = a, *y = b;
	int c;

	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	if (x->name == y->name)
		return 0;
	if ((c = cmp_names(x->name, y->name)) != 0)
		return c;
	return strcmp(x->name, y->name);
}

/* Whether r and s have the same ranges. */
static int
same_ranges(const struct pme_symroutine *r, const struct pme_symroutine *s)
{
	return r->nranges == s->nranges && (r->nranges == 0 ||
	    memcmp(r->ranges, s->ranges, r->nranges * sizeof(*r->ranges)) ==
	    0);
}

/* Gives r[0] the union of the ranges of r[0..n). */
static int
join_ranges(struct pme_image *img, struct pme_symroutine *r, uint32_t n)
{
	uint32_t i, j;

	for (i = 1; i < n && same_ranges(&r[0], &r[i]); i++)
		continue;
	if (i == n)
		return 0;
	img->scratch.n = 0;
	for (i = 0; i < n; i++)
		for (j = 0; j < r[i].nranges; j++)
			if (scratch_add(img, r[i].ranges[j].start,
			    r[i].ranges[j].end) == -1)
				return -1;
	return scratch_take(img, 1, &r[0].ranges, &r[0].nranges);
}

/* Whether name is r's own or one of the k aliases in v. */
int
has_name(const struct pme_symroutine *r, const char **v, uint32_t k,
    const char *name)
{
	uint32_t i;

	if (strcmp(r->name, name) == 0)
		return 1;
	for (i = 0; i < k; i++)
		if (strcmp(v[i], name) == 0)
			return 1;
	return 0;
}

/*
 * The aliases of r: the other ELF function symbols at its entry (nm -S
 * lists them all), then the names of the n routines in other, merged into
 * r; each name once, at most PME_MAXALIASES of them.
 */
static int
set_aliases(struct pme_image *img, struct pme_symroutine *r,
    const struct pme_symroutine *other, uint32_t n)
{
	const struct fsym *f;
	const char **v;
	size_t nf, i, max;
	uint32_t k = 0;

	r->aliases = NULL;
	r->naliases = 0;
	f = syms_at(img, r->entry, &nf);
	if ((max = nf + n) > PME_MAXALIASES)
		max = PME_MAXALIASES;
	if (max == 0 || (nf <= 1 && n == 0))
		return 0;
	if ((v = pme_arena_alloc(&img->arena, max * sizeof(*v))) == NULL)
		return sym_nomem(img);
	for (i = 0; i < nf && k < max; i++)
		if (!has_name(r, v, k, f[i].name))
			v[k++] = f[i].name;
	for (i = 0; i < n && k < max; i++)
		if (!has_name(r, v, k, other[i].name))
			v[k++] = other[i].name;
	r->aliases = k > 0 ? v : NULL;
	r->naliases = k;
	return 0;
}

/*
 * Routines of module m that start at one address are one routine, as
 * perf and nm show them: a DWARF subprogram per name (GNU as writes
 * __finitel, finitel and __GI___finitel so) would otherwise make buckets
 * that overlap.  The first by cmp_routine keeps its name and takes the
 * others' ranges; their names become its aliases.  m's routines are the
 * last ones.
 */
static int
merge_routines(struct pme_image *img, struct pme_symmod *m)
{
	struct pme_symroutine *r;
	uint32_t i, j, out = 0;

	if (m->nroutines == 0)
		return 0;
	r = &PME_VEC_AT(&img->routines, struct pme_symroutine,
	    m->first_routine);
	for (i = 0; i < m->nroutines; i = j) {
		for (j = i + 1; j < m->nroutines && r[j].entry == r[i].entry;
		    j++)
			continue;
		if (join_ranges(img, &r[i], j - i) == -1 ||
		    set_aliases(img, &r[i], &r[i + 1], j - i - 1) == -1)
			return -1;
		r[out++] = r[i];
	}
	m->nroutines = out;
	img->routines.n = (size_t)m->first_routine + out;
	return 0;
}

/*
 * Ends the module last added: sorts its routines by entry, merges those
 * of one entry, and, when it has no ranges of its own, gives it the union
 * of its routines' ranges.
 */
int
end_module(struct pme_image *img)
{
	struct pme_symmod *m;
	struct pme_symroutine *r;
	uint32_t i, j;

	m = &PME_VEC_AT(&img->mods, struct pme_symmod, img->mods.n - 1);
	m->nroutines = (uint32_t)img->routines.n - m->first_routine;
	r = m->nroutines == 0 ? NULL : &PME_VEC_AT(&img->routines,
	    struct pme_symroutine, m->first_routine);
	/* Symbols and DIEs mostly come in address order: qsort() would
	 * allocate and copy for nothing (glibc's is a stable merge sort,
	 * so the order of equal routines is the same either way). */
	for (i = 1; i < m->nroutines && cmp_routine(&r[i - 1], &r[i]) <= 0;
	    i++)
		continue;
	if (i < m->nroutines)
		qsort(r, m->nroutines, sizeof(*r), cmp_routine);
	if (merge_routines(img, m) == -1)
		return -1;
	if (m->nranges > 0)
		return 0;
	r = m->nroutines == 0 ? NULL : &PME_VEC_AT(&img->routines,
	    struct pme_symroutine, m->first_routine);
	img->scratch.n = 0;
	for (i = 0; i < m->nroutines; i++)
		for (j = 0; j < r[i].nranges; j++)
			if (scratch_add(img, r[i].ranges[j].start,
			    r[i].ranges[j].end) == -1)
				return -1;
	return scratch_take(img, 1, &m->ranges, &m->nranges);
}
