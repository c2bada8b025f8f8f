/*
 * nodwarf.c - modules and routines without DWARF: STT_FILE groups of
 * local functions and one module of the global ones, routines from the
 * function symbols with their "f.cold" parts joined; stripped, one
 * module of the exported functions and a routine "[image]" for the rest
 * of the section.  One room of the ELF/DWARF reader, whose rooms share
 * lib/symint.h (lib/symbols.c says which does what).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symint.h"

/* Length of the "f" in "f.cold" and "f.cold.3", else 0. */
static size_t
cold_base(const char *name)
{
	const char *p = strchr(name, '.');
	size_t k;

	/* Most names have no dot: strchr() is the cheaper search. */
	if (p != NULL)
		p = strstr(p, ".cold");
	if (p == NULL || p == name)
		return 0;
	if (p[5] == '.') {
		for (k = 6; p[k] >= '0' && p[k] <= '9'; k++)
			continue;
		if (k == 6 || p[k] != '\0')
			return 0;
	} else if (p[5] != '\0')
		return 0;
	return (size_t)(p - name);
}

/* Symbol indexes sorted by name, to find the owner of a cold part. */
static const struct fsym *byname_syms;

static int
cmp_byname(const void *a, const void *b)
{
	const struct fsym *x = &byname_syms[*(const uint32_t *)a];
	const struct fsym *y = &byname_syms[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	return (*(const uint32_t *)a > *(const uint32_t *)b) -
	    (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* Compares the first len bytes of name, as a whole name, with s. */
static int
cmp_prefix(const char *name, size_t len, const char *s)
{
	int c = strncmp(name, s, len);

	if (c != 0)
		return c;
	return s[len] == '\0' ? 0 : -1;
}

/*
 * The symbol a cold part belongs to: "f" of the cold part's own file
 * group (a static f), else a global "f", else any "f"; PME_NONE if none.
 */
static uint32_t
cold_owner(const struct fsym *v, const uint32_t *byname, size_t n,
    uint32_t ci)
{
	size_t len = cold_base(v[ci].name), lo = 0, hi = n, mid;
	uint32_t any = PME_NONE, j;

	if (len == 0)
		return PME_NONE;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cmp_prefix(v[ci].name, len, v[byname[mid]].name) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && cmp_prefix(v[ci].name, len,
	    v[byname[lo]].name) == 0; lo++) {
		j = byname[lo];
		if (v[j].group == v[ci].group)
			return j;
		if (v[j].group == PME_NONE || any == PME_NONE)
			any = j;
	}
	return any;
}

/*
 * For each symbol: PME_NONE when it starts a routine, else the symbol
 * whose routine it joins (its cold part's owner; the preferred name of an
 * alias at the same address).  Cold parts of a symbol are chained from
 * cold[owner] through cold[part], ending in PME_NONE.
 */
/*
 * The symbols that may own a cold part, sorted by name (cmp_byname), in
 * *byname (malloc'd), *nb of them: those whose name hashes as a cold
 * part's base does.  Sorting them all cost more than the rest of reading
 * libc's symbols; a cold part's owner is one of these or none.
 */
static int
cold_candidates(struct pme_image *img, uint32_t **byname, uint32_t *nb)
{
	const struct fsym *v = img->syms.v;
	uint32_t i, n = (uint32_t)img->syms.n, ncold = 0, k = 0;
	uint64_t *set, h;
	size_t cap = 16, len, j;

	*nb = 0;
	for (i = 0; i < n; i++)
		ncold += cold_base(v[i].name) > 0;
	if ((*byname = malloc((n + 1) * sizeof(**byname))) == NULL)
		return sym_nomem(img);
	if (ncold == 0)
		return 0;
	while (cap < (size_t)ncold * 4)
		cap *= 2;
	if ((set = calloc(cap, sizeof(*set))) == NULL)
		return sym_nomem(img);
	for (i = 0; i < n; i++)
		if ((len = cold_base(v[i].name)) > 0) {
			h = pme_hash(v[i].name, len) | 1;
			for (j = h & (cap - 1); set[j] != 0 && set[j] != h;
			    j = (j + 1) & (cap - 1))
				continue;
			set[j] = h;
		}
	for (i = 0; i < n; i++) {
		h = pme_hash(v[i].name, strlen(v[i].name)) | 1;
		for (j = h & (cap - 1); set[j] != 0 && set[j] != h;
		    j = (j + 1) & (cap - 1))
			continue;
		if (set[j] == h)
			(*byname)[k++] = i;
	}
	free(set);
	byname_syms = v;
	if (k > 1)
		qsort(*byname, k, sizeof(**byname), cmp_byname);
	*nb = k;
	return 0;
}

static int
link_symbols(struct pme_image *img, uint32_t *join, uint32_t *cold)
{
	const struct fsym *v = img->syms.v;
	uint32_t *byname, i, n = (uint32_t)img->syms.n, o, nb;

	if (cold_candidates(img, &byname, &nb) == -1) {
		free(byname);
		return -1;
	}
	for (i = 0; i < n; i++)
		join[i] = cold[i] = PME_NONE;
	for (i = 0; i < n; i++) {
		if (i > 0 && v[i - 1].addr == v[i].addr) {
			join[i] = join[i - 1] != PME_NONE ? join[i - 1] : i - 1;
			continue;
		}
		o = nb == 0 ? PME_NONE : cold_owner(v, byname, nb, i);
		if (o == PME_NONE || o == i)
			continue;
		while (join[o] != PME_NONE && join[o] != o)
			o = join[o];
		join[i] = o;
		cold[i] = cold[o];
		cold[o] = i;
	}
	free(byname);
	return 0;
}

/* A routine for symbol i, with its cold parts. */
static int
sym_routine(struct pme_image *img, uint32_t i, const uint32_t *cold,
    uint32_t mod)
{
	const struct fsym *v = img->syms.v;
	struct pme_symroutine *r;
	uint32_t j;

	if ((r = pme_vec_push(&img->routines)) == NULL)
		return sym_nomem(img);
	r->name = v[i].name;
	r->module = mod;
	r->entry = v[i].addr;
	img->scratch.n = 0;
	for (j = i; j != PME_NONE; j = cold[j])
		if (scratch_add(img, v[j].addr, v[j].addr + v[j].size) == -1)
			return -1;
	return scratch_take(img, 0, &r->ranges, &r->nranges);
}

/* Module of a group (or the globals), the symbols of which are
 * in[0..n), in address order, if it has routines. */
static int
sym_module(struct pme_image *img, const uint32_t *in, uint32_t n,
    const char *name, const uint32_t *join, const uint32_t *cold)
{
	uint32_t i, mod = (uint32_t)img->mods.n;
	size_t before = img->routines.n;

	if (add_module(img, name, NULL) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (join[in[i]] == PME_NONE &&
		    sym_routine(img, in[i], cold, mod) == -1)
			return -1;
	if (img->routines.n > before)
		return end_module(img);
	img->mods.n--;
	img->info.n--;
	return 0;
}

static int
cmp_range(const void *a, const void *b)
{
	const struct pme_range *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/*
 * The routine "[image]" of a stripped image: the code of section-wide
 * module m in none of its routines, or none when they cover it all.
 */
static int
rest_routine(struct pme_image *img, const struct pme_symmod *m, uint32_t mod)
{
	struct pme_symroutine *r, *rt;
	struct pme_range *v;
	uint64_t at = img->sec.start;
	size_t n = 0, i;
	uint32_t j, k;
	char *name;

	/* routines.v may be NULL (none): no offset to it. */
	rt = img->routines.n > 0 ? &PME_VEC_AT(&img->routines,
	    struct pme_symroutine, 0) : NULL;
	for (k = m->first_routine; k < img->routines.n; k++)
		n += rt[k].nranges;
	if ((v = malloc((n + 1) * sizeof(*v))) == NULL)
		return sym_nomem(img);
	for (k = m->first_routine, n = 0; k < img->routines.n; k++)
		for (j = 0; j < rt[k].nranges; j++)
			v[n++] = rt[k].ranges[j];
	qsort(v, n, sizeof(*v), cmp_range);
	img->scratch.n = 0;
	for (i = 0; i <= n; i++) {
		uint64_t next = i < n ? v[i].start : img->sec.end;

		if (next > at && scratch_add(img, at, next) == -1) {
			free(v);
			return -1;
		}
		if (i < n && v[i].end > at)
			at = v[i].end;
	}
	free(v);
	if (img->scratch.n == 0)
		return 0;
	if ((r = pme_vec_push(&img->routines)) == NULL ||
	    (name = pme_arena_alloc(&img->arena, strlen(img->base) + 3)) ==
	    NULL)
		return sym_nomem(img);
	sprintf(name, "[%s]", img->base);
	r->name = name;
	r->module = mod;
	if (scratch_take(img, 0, &r->ranges, &r->nranges) == -1)
		return -1;
	r->entry = r->ranges[0].start;
	return 0;
}

/*
 * A stripped image (no .symtab): one module named after it that holds the
 * whole section, with the exported functions of .dynsym as routines, and
 * one routine named "[image]" for the code in none of them (its static
 * functions, unnamed), so that all its code has a bucket.
 */
static int
stripped_module(struct pme_image *img, const uint32_t *join,
    const uint32_t *cold)
{
	struct pme_symmod *m;
	uint32_t i, mod = (uint32_t)img->mods.n;

	if ((m = add_module(img, img->base, NULL)) == NULL)
		return -1;
	img->scratch.n = 0;
	if (scratch_add(img, img->sec.start, img->sec.end) == -1 ||
	    scratch_take(img, 1, &m->ranges, &m->nranges) == -1)
		return -1;
	for (i = 0; i < img->syms.n; i++)
		if (join[i] == PME_NONE &&
		    sym_routine(img, i, cold, mod) == -1)
			return -1;
	if (rest_routine(img, m, mod) == -1)
		return -1;
	return end_module(img);
}

/*
 * Modules from symbols: each STT_FILE group with functions, then one
 * module named after the image for the global functions, which the symbol
 * table does not tie to a file; a stripped image's as stripped_module()
 * says.  A cold part joins its owner even when
 * the owner is global and the part a local of the owner's file group.
 */
int
read_symbol_modules(struct pme_image *img, const struct pme_vec *groups)
{
	const struct fsym *v = img->syms.v;
	uint32_t *join, *cold, *first = NULL, *in = NULL, g, i, k;
	uint32_t ng = (uint32_t)groups->n, n = (uint32_t)img->syms.n;
	int rc = -1;

	join = malloc((n + 1) * sizeof(*join));
	cold = malloc((n + 1) * sizeof(*cold));
	/* Each group's symbols in address order, the globals' last (group
	 * ng): one pass, not one per group over all of them (libc's debug
	 * file has thousands of groups). */
	first = calloc((size_t)ng + 2, sizeof(*first));
	in = malloc((n + 1) * sizeof(*in));
	if (join == NULL || cold == NULL || first == NULL || in == NULL) {
		sym_nomem(img);
		goto out;
	}
	for (i = 0; i < n; i++)
		first[(v[i].group == PME_NONE ? ng : v[i].group) + 1]++;
	for (g = 0; g <= ng; g++)
		first[g + 1] += first[g];
	for (i = 0; i < n; i++) {
		k = v[i].group == PME_NONE ? ng : v[i].group;
		in[first[k]++] = i;
	}
	/* first[g] is now the end of group g, the start of g + 1.  A
	 * routine a symbol at most, and a stripped image's rest: their room
	 * at once, as for the symbols (read_fsyms()). */
	if (link_symbols(img, join, cold) == -1)
		goto out;
	if (pme_vec_reserve(&img->routines, img->routines.n + n + 1) == -1) {
		sym_nomem(img);
		goto out;
	}
	for (g = 0; g < ng; g++)
		if (sym_module(img, in + (g ? first[g - 1] : 0), first[g] -
		    (g ? first[g - 1] : 0), PME_VEC_AT(groups, const char *, g),
		    join, cold) == -1)
			goto out;
	rc = img->flags & PME_IMAGE_SYMTAB ? sym_module(img, in + (ng ?
	    first[ng - 1] : 0), first[ng] - (ng ? first[ng - 1] : 0),
	    img->base, join, cold) : stripped_module(img, join, cold);
out:
	free(join);
	free(cold);
	free(first);
	free(in);
	return rc;
}
