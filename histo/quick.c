/*
 * quick.c - routine buckets for an executable when there is no bucket
 * file (pmehisto -x): what "pmebuild -x program" would make, without a
 * .PMD.  One unit PROGRAM named after the file, one unit ROUTINE per
 * function the symbol reader finds, one group "PROGRAM name BY ROUTINE"
 * with a bucket per routine.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "histo.h"
#include "pme_symbols.h"

struct piece {
	uint64_t	 start, end;
	uint32_t	 routine;
};

static int
cmp_piece(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->routine < y->routine ? -1 : x->routine > y->routine;
}

/*
 * The routines to make buckets of, in address order: a routine whose
 * range overlaps one before it (a symbol inside another) is left out,
 * since buckets of a group may not overlap.  Aliases are not among them:
 * the symbol reader makes code with several names one routine.
 */
static uint32_t *
pick(const struct pme_symroutine *rt, size_t n, size_t *np)
{
	struct piece *pc;
	uint32_t *keep;
	uint8_t *drop;
	size_t i, j, k = 0, m = 0;
	uint64_t end = 0;

	for (i = 0; i < n; i++)
		k += rt[i].nranges;
	pc = calloc(k ? k : 1, sizeof(*pc));
	drop = calloc(n ? n : 1, 1);
	keep = calloc(n ? n : 1, sizeof(*keep));
	if (pc == NULL || drop == NULL || keep == NULL) {
		free(pc);
		free(drop);
		free(keep);
		return NULL;
	}
	for (i = k = 0; i < n; i++)
		for (j = 0; j < rt[i].nranges; j++) {
			pc[k].start = rt[i].ranges[j].start;
			pc[k].end = rt[i].ranges[j].end;
			pc[k++].routine = (uint32_t)i;
		}
	qsort(pc, k, sizeof(*pc), cmp_piece);
	for (i = 0; i < k; i++) {
		if (drop[pc[i].routine])
			continue;
		if (i > 0 && pc[i].start < end) {
			drop[pc[i].routine] = 1;
			continue;
		}
		end = pc[i].end;
	}
	/* A routine dropped late may have kept earlier pieces: a second
	 * pass keeps the first piece's order of the survivors. */
	for (i = 0; i < k; i++)
		if (!drop[pc[i].routine]) {
			drop[pc[i].routine] = 2;
			keep[m++] = pc[i].routine;
		}
	free(pc);
	free(drop);
	*np = m;
	return keep;
}

static int
add_routines(struct pme_bucketfile *bf, const struct pme_symroutine *rt,
    const uint32_t *keep, size_t n, uint32_t prog, uint32_t kind,
    uint32_t mod, struct pme_error *err)
{
	struct pme_unit u;
	size_t i;
	uint32_t ui, j;

	for (i = 0; i < n; i++) {
		const struct pme_symroutine *r = &rt[keep[i]];

		memset(&u, 0, sizeof(u));
		u.name = r->name;
		u.kind = kind;
		u.parent = prog;
		u.module = mod;
		u.line = r->line;
		u.file = r->file;
		if ((ui = pme_bucketfile_add_unit(bf, &u, r->ranges,
		    r->nranges, err)) == PME_NONE ||
		    pme_bucketfile_add_bucket(bf, ui, r->ranges, r->nranges,
		    err) == PME_NONE)
			return -1;
		/* The other names of its code, as pmebuild -x keeps them. */
		for (j = 0; j < r->naliases; j++)
			if (pme_bucketfile_add_alias(bf, ui, r->aliases[j],
			    err) == PME_NONE)
				return -1;
	}
	return 0;
}

/* The bucket file for img, its routines picked. */
static struct pme_bucketfile *
make(struct pme_image *img, const char *path, uint32_t flags,
    const uint8_t *buildid, uint32_t idlen, struct pme_error *err)
{
	const struct pme_symroutine *rt;
	struct pme_bucketfile *bf;
	struct pme_range sec = pme_image_section(img);
	struct pme_unit u;
	const char *base = strrchr(path, '/');
	char *stmt = NULL;
	uint32_t kprog, krout, mod, prog, *keep = NULL;
	size_t n, nk = 0;

	base = base ? base + 1 : path;
	n = pme_image_routines(img, &rt);
	if ((bf = pme_bucketfile_new(err)) == NULL)
		return NULL;
	if ((keep = pick(rt, n, &nk)) == NULL ||
	    (stmt = malloc(strlen(base) + 32)) == NULL) {
		histo_err(err, PME_ENOMEM, "out of memory");
		goto fail;
	}
	if (nk == 0) {
		histo_err(err, PME_EFORMAT, "'%s': no routines in .text: no "
		    "buckets to make", path);
		goto fail;
	}
	sprintf(stmt, "PROGRAM %s BY ROUTINE", base);
	memset(&u, 0, sizeof(u));
	u.name = base;
	u.parent = PME_NONE;
	u.flags = PME_UNIT_DERIVED;
	if ((kprog = pme_bucketfile_add_kind(bf, "PROGRAM", err)) == PME_NONE ||
	    (krout = pme_bucketfile_add_kind(bf, "ROUTINE", err)) == PME_NONE ||
	    (mod = pme_bucketfile_add_module(bf, path, buildid, idlen, flags,
	    err)) == PME_NONE)
		goto fail;
	u.kind = kprog;
	u.module = mod;
	if ((prog = pme_bucketfile_add_unit(bf, &u, &sec, sec.end > sec.start,
	    err)) == PME_NONE ||
	    pme_bucketfile_add_group(bf, stmt, prog, krout, err) == PME_NONE ||
	    add_routines(bf, rt, keep, nk, prog, krout, mod, err) == -1)
		goto fail;
	free(keep);
	free(stmt);
	return bf;
fail:
	free(keep);
	free(stmt);
	pme_bucketfile_close(bf);
	return NULL;
}

struct pme_bucketfile *
quick_build(const char *path, uint32_t flags, const uint8_t *buildid,
    uint32_t idlen, struct pme_error *err)
{
	struct pme_bucketfile *bf;
	struct pme_image *img;
	const uint8_t *id;
	uint32_t ilen = 0;
	char real[PATH_MAX];

	if ((img = pme_image_open(path, NULL, err)) == NULL)
		return NULL;
	if (realpath(path, real) == NULL)
		snprintf(real, sizeof(real), "%s", path);
	id = pme_image_buildid(img, &ilen);
	if (buildid != NULL && idlen > 0 && id != NULL && ilen > 0 &&
	    (idlen != ilen || memcmp(id, buildid, idlen) != 0)) {
		pme_image_close(img);
		histo_err(err, PME_EINVAL, "'%s': not the file that ran: its "
		    "build-id differs from the one recorded", path);
		return NULL;
	}
	bf = make(img, real, flags, id ? id : buildid, id ? ilen : idlen,
	    err);
	pme_image_close(img);
	return bf;
}
