/*
 * tally.c - the bucket file being filled: matching the objects a program
 * ran to the file's load modules, and counting instructions and calls
 * into buckets, outside counts and unmapped.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trace.h"
#include "util.h"

struct obj {
	char		*path;		/* as the engine gave it */
	uint32_t	 module;
};

struct tr_tally {
	struct pme_bucketfile *bf;
	const struct tr_opts *o;
	struct pme_bucket *bk;
	uint32_t	 norig;		/* modules the file came with */
	uint8_t		*hasbkt;	/* [norig]: the module holds buckets */
	uint8_t		*matched;	/* [norig] */
	int		 hasabs;	/* buckets of absolute addresses */
	struct obj	*objs;
	size_t		 nobjs, capobjs, lastobj;
	char		**warn;		/* pending warnings */
	size_t		 nwarn, capwarn, nextwarn;
	char		*firstmismatch;
	char		*mainmismatch;	/* a main executable of another build */
};

struct tr_tally *
tr_tally_new(struct pme_bucketfile *bf, const struct tr_opts *o,
    struct pme_error *err)
{
	const struct pme_module *m;
	const struct pme_unit *u;
	struct tr_tally *t;
	size_t nb, i;

	if ((t = calloc(1, sizeof(*t))) == NULL) {
		pme_setnomem(err);
		return NULL;
	}
	t->bf = bf;
	t->o = o;
	t->norig = (uint32_t)pme_bucketfile_modules(bf, &m);
	pme_bucketfile_units(bf, &u);
	nb = pme_bucketfile_buckets(bf, &t->bk);
	t->hasbkt = calloc(t->norig + 1, 1);
	t->matched = calloc(t->norig + 1, 1);
	if (t->hasbkt == NULL || t->matched == NULL) {
		tr_tally_free(t);
		pme_setnomem(err);
		return NULL;
	}
	for (i = 0; i < nb; i++) {
		if (u[t->bk[i].unit].module == PME_NONE)
			t->hasabs = 1;
		else
			t->hasbkt[u[t->bk[i].unit].module] = 1;
	}
	/* The index before counting, so that a lookup cannot fail. */
	if (pme_bucketfile_index(bf, err) == -1) {
		tr_tally_free(t);
		return NULL;
	}
	return t;
}

void
tr_tally_free(struct tr_tally *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->nobjs; i++)
		free(t->objs[i].path);
	for (i = 0; i < t->nwarn; i++)
		free(t->warn[i]);
	free(t->objs);
	free(t->warn);
	free(t->hasbkt);
	free(t->matched);
	free(t->firstmismatch);
	free(t->mainmismatch);
	free(t);
}

static void
warn_mismatch(struct tr_tally *t, const char *real)
{
	char *s, **w;

	if (t->firstmismatch == NULL)
		t->firstmismatch = strdup(real);
	if (t->nwarn == t->capwarn) {
		t->capwarn = t->capwarn ? t->capwarn * 2 : 8;
		if ((w = realloc(t->warn, t->capwarn * sizeof(*w))) == NULL)
			return;
		t->warn = w;
	}
	if (asprintf(&s, "'%s': build-id differs from the bucket file's: "
	    "counted outside its buckets", real) != -1)
		t->warn[t->nwarn++] = s;
}

const char *
tr_tally_warning(struct tr_tally *t)
{
	return t->nextwarn < t->nwarn ? t->warn[t->nextwarn++] : NULL;
}

/* The module of bf that the object is (pme_fill_match), or PME_NONE;
 * another build of a module is remembered, for the warning and the
 * check. */
static uint32_t
match(struct tr_tally *t, const char *path, const char *real,
    const uint8_t *id, uint32_t idlen, int ismain)
{
	const struct pme_module *m;
	uint32_t mod, n, i;
	unsigned why;

	mod = pme_fill_match(t->bf, t->norig, path, id, idlen, ismain,
	    t->o->force ? PME_MATCH_FORCE : 0, &why);
	if (mod != PME_NONE)
		return mod;
	if ((why & PME_MATCH_OTHERMAIN) && t->mainmismatch == NULL)
		t->mainmismatch = strdup(real);
	if (why & PME_MATCH_OTHERBUILD)
		warn_mismatch(t, real);
	/* The modules this run added, for counts outside the buckets. */
	n = (uint32_t)pme_bucketfile_modules(t->bf, &m);
	for (i = t->norig; i < n; i++)
		if (strcmp(m[i].path, real) == 0)
			return i;
	return PME_NONE;
}

uint32_t
tr_tally_module(struct tr_tally *t, const char *path, const uint8_t *id,
    uint32_t idlen, int ismain)
{
	char real[PATH_MAX];
	struct obj *o;
	uint32_t mod;
	size_t i;

	if (t->lastobj < t->nobjs &&
	    strcmp(t->objs[t->lastobj].path, path) == 0)
		return t->objs[t->lastobj].module;
	for (i = 0; i < t->nobjs; i++)
		if (strcmp(t->objs[i].path, path) == 0) {
			t->lastobj = i;
			return t->objs[i].module;
		}
	if (path[0] != '/')
		mod = PME_NONE;
	else {
		if (realpath(path, real) == NULL)
			snprintf(real, sizeof(real), "%s", path);
		mod = match(t, path, real, id, idlen, ismain);
		if (mod == PME_NONE)
			mod = pme_bucketfile_add_module(t->bf, real, id, idlen,
			    0, NULL);
		else if (mod < t->norig)
			t->matched[mod] = 1;
	}
	if (t->nobjs == t->capobjs) {
		t->capobjs = t->capobjs ? t->capobjs * 2 : 16;
		if ((o = realloc(t->objs, t->capobjs * sizeof(*o))) == NULL)
			return mod;
		t->objs = o;
	}
	if ((t->objs[t->nobjs].path = strdup(path)) == NULL)
		return mod;
	t->objs[t->nobjs].module = mod;
	t->lastobj = t->nobjs++;
	return mod;
}

void
tr_tally_add(struct tr_tally *t, uint32_t module, uint64_t vaddr,
    uint64_t runaddr, int haverun, uint64_t n)
{
	struct pme_info *info = pme_bucketfile_info(t->bf);
	uint32_t b;

	info->total += n;
	if (module != PME_NONE &&
	    (b = pme_bucketfile_find(t->bf, module, vaddr, NULL)) != PME_NONE) {
		t->bk[b].count += n;
		return;
	}
	if (t->hasabs && haverun &&
	    (b = pme_bucketfile_find(t->bf, PME_NONE, runaddr, NULL)) !=
	    PME_NONE) {
		t->bk[b].count += n;
		return;
	}
	if (module != PME_NONE)
		*pme_bucketfile_outside(t->bf, module) += n;
	else
		info->unmapped += n;
}

void
tr_tally_calls(struct tr_tally *t, uint32_t module, uint64_t vaddr, uint64_t n)
{
	uint64_t *c;
	uint32_t b;

	if (module == PME_NONE || pme_bucketfile_counts2(t->bf, &c) == NULL)
		return;
	if ((b = pme_bucketfile_find(t->bf, module, vaddr, NULL)) != PME_NONE)
		c[b] += n;
}

/* Whether vaddr starts a range of the unit of bucket b (of its parent
 * when the unit is a line); *routine set when that unit is a routine of
 * a symbol (not pmebuild's "[name]", a stripped object's rest). */
static int
unit_entry(const struct tr_tally *t, uint32_t b, uint64_t vaddr,
    int *routine)
{
	const char *const *kinds;
	const struct pme_unit *u;
	const struct pme_range *r;
	size_t nk, nu, i;
	uint32_t k;

	nk = pme_bucketfile_kinds(t->bf, &kinds);
	nu = pme_bucketfile_units(t->bf, &u);
	pme_bucketfile_ranges(t->bf, &r);
	*routine = 0;
	if ((k = t->bk[b].unit) >= nu)
		return 0;
	if (u[k].kind < nk && strcasecmp(kinds[u[k].kind], "LINE") == 0 &&
	    u[k].parent < nu)
		k = u[k].parent;
	*routine = u[k].kind < nk &&
	    strcasecmp(kinds[u[k].kind], "ROUTINE") == 0 &&
	    u[k].name[0] != '[';	/* not a stripped object's rest */
	for (i = 0; i < u[k].nranges; i++)
		if (r[u[k].range + i].start == vaddr)
			return 1;
	return 0;
}

void
tr_tally_jumps(struct tr_tally *t, uint32_t module, uint64_t vaddr,
    uint32_t from, int switched, uint64_t n)
{
	uint64_t *c;
	uint32_t b;
	int routine;

	if (module == PME_NONE || pme_bucketfile_counts2(t->bf, &c) == NULL ||
	    (b = pme_bucketfile_find(t->bf, module, vaddr, NULL)) == PME_NONE)
		return;
	if (unit_entry(t, b, vaddr, &routine) ||
	    (from != module && !(switched && routine)))
		c[b] += n;
}

/*
 * An error when no module holding buckets matched, or when the main
 * program's module holds buckets, matched nothing and a main executable
 * of another build ran: a bucket file made for another program or an
 * earlier build.  A library of another build is only warned about.
 */
int
tr_tally_check(struct tr_tally *t, const char *bfname, struct pme_error *err)
{
	const struct pme_module *m;
	uint32_t i, want = 0, any = 0;

	if (t->o->force)
		return 0;
	pme_bucketfile_modules(t->bf, &m);
	for (i = 0; i < t->norig; i++) {
		if (t->hasbkt[i] && t->matched[i])
			any = 1;
		if (t->hasbkt[i] && !t->matched[i] &&
		    (m[i].flags & PME_MODULE_MAIN) && t->mainmismatch != NULL)
			return pme_seterr(err, PME_EINVAL, "'%s': made for "
			    "another program or build than '%s' (build-ids "
			    "differ; -f counts it anyway)", bfname,
			    t->mainmismatch);
		want |= t->hasbkt[i];
	}
	if (any || !want)
		return 0;	/* or only absolute buckets, or none */
	if (t->firstmismatch != NULL)
		return pme_seterr(err, PME_EINVAL, "'%s': describes another "
		    "build of '%s' (build-ids differ; -f counts it anyway)",
		    bfname, t->firstmismatch);
	return pme_seterr(err, PME_EINVAL, "'%s': the program ran none of "
	    "the load modules it describes (a bucket file for another "
	    "program?)", bfname);
}
