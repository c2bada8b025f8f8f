/*
 * quick.c - the quick path's routine buckets (quick.h): which routines
 * get one, and the bucket file pmebuild -x compiles from its statements,
 * made here without them for pmehisto.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"
#include "plt.h"
#include "quick.h"
#include "util.h"

struct piece {
	uint64_t	 start, end;
	uint32_t	 routine;
};

static void
start_key(const void *e, uint64_t *k)
{
	k[0] = ((const struct piece *)e)->start;
}

/* The ranges of the routines of modules with ranges, sorted; *k of them. */
static struct piece *
pieces(const struct pme_image *img, size_t *k)
{
	const struct pme_symmod *m;
	const struct pme_symroutine *rt;
	struct piece *pc, t;
	size_t nm = pme_image_modules(img, &m), i, j, n = 0;
	uint32_t r, p;

	pme_image_routines(img, &rt);
	for (i = 0; i < nm; i++)
		for (r = 0; m[i].nranges > 0 && r < m[i].nroutines; r++)
			n += rt[m[i].first_routine + r].nranges;
	if ((pc = malloc((n ? n : 1) * sizeof(*pc))) == NULL)
		return NULL;
	for (i = 0, n = 0; i < nm; i++)
		for (r = m[i].first_routine; m[i].nranges > 0 &&
		    r < m[i].first_routine + m[i].nroutines; r++)
			for (p = 0; p < rt[r].nranges; p++) {
				pc[n].start = rt[r].ranges[p].start;
				pc[n].end = rt[r].ranges[p].end;
				pc[n++].routine = r;
			}
	/* By start, then routine: a radix sort by start in place, as the
	 * addresses of one image differ in their low bytes only (libc's
	 * 6,800 pieces and a copy for a sort that needs one were 80 pages
	 * touched for the first time, a page fault each), then the few
	 * pieces of one start by routine. */
	if (pme_radix_sort_inplace(pc, n, sizeof(*pc), start_key) == -1) {
		free(pc);
		return NULL;
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && pc[j - 1].start == pc[j].start &&
		    pc[j - 1].routine > pc[j].routine; j--) {
			t = pc[j];
			pc[j] = pc[j - 1];
			pc[j - 1] = t;
		}
	*k = n;
	return pc;
}

uint8_t *
pme_quick_pick(const struct pme_image *img, size_t *nkept)
{
	const struct pme_symroutine *rt;
	struct piece *pc;
	uint8_t *keep;
	size_t n = pme_image_routines(img, &rt), i, k = 0;
	uint64_t end = 0;

	*nkept = 0;
	if ((pc = pieces(img, &k)) == NULL ||
	    (keep = calloc(n ? n : 1, 1)) == NULL) {
		free(pc);
		return NULL;
	}
	/* 2: dropped; 1: has a piece that overlaps nothing before it. */
	for (i = 0; i < k; i++) {
		if (keep[pc[i].routine] == 2)
			continue;
		if (i > 0 && pc[i].start < end) {
			keep[pc[i].routine] = 2;
			continue;
		}
		keep[pc[i].routine] = 1;
		end = pc[i].end;
	}
	for (i = 0; i < n; i++)
		if (keep[i] == 2)
			keep[i] = 0;
		else
			*nkept += keep[i];
	free(pc);
	return keep;
}

void
pme_quick_quote(FILE *fp, const char *name)
{
	fputc('"', fp);
	for (; *name != '\0'; name++) {
		if (*name == '"')
			fputc('"', fp);
		fputc(*name, fp);
	}
	fputc('"', fp);
}

/* What building needs at hand; img, keep and lm are the image at hand's. */
struct quick {
	struct pme_bucketfile	*bf;
	const struct pme_image	*img;
	const uint8_t		*keep;
	uint32_t		 kind[3];	/* PROGRAM, MODULE, ROUTINE */
	uint32_t		 lm;		/* the load module */
	struct pme_range	*scratch;	/* room for the most ranges */
	uint32_t		*buckets;	/* routine units, in order */
	size_t			 nbuckets;
	struct pme_plt		 plt;		/* the image's PLT stubs */
	const uint64_t		*addrs;		/* sparse: sampled addresses */
	size_t			 naddrs;
	size_t			*unmade;	/* sparse: buckets not made */
	struct pme_error	*err;
};

/* Whether a sampled address is in [start, end) (always, when all the
 * routines are made). */
static int
sampled(const struct quick *q, uint64_t start, uint64_t end)
{
	size_t lo = 0, hi = q->naddrs, mid;

	if (q->addrs == NULL)
		return 1;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (q->addrs[mid] < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < q->naddrs && q->addrs[lo] < end;
}

/* Whether routine rt gets its bucket: one of its ranges sampled. */
static int
routine_sampled(const struct quick *q, const struct pme_symroutine *rt)
{
	uint32_t j;

	for (j = 0; j < rt->nranges; j++)
		if (sampled(q, rt->ranges[j].start, rt->ranges[j].end))
			return 1;
	return 0;
}

/*
 * Adds unit u with ranges r[0..n) as pmebuild keeps a unit's ranges:
 * sorted, touching ones merged.
 */
static uint32_t
add_unit(struct quick *q, struct pme_unit *u, const struct pme_range *r,
    size_t n)
{
	if (n > 0 && q->scratch != r)
		memcpy(q->scratch, r, n * sizeof(*r));
	n = pme_ranges_merge(q->scratch, n);
	u->module = q->lm;
	return pme_bucketfile_add_unit(q->bf, u, q->scratch, n, q->err);
}

/* The routine units of module m that get a bucket, under unit mu. */
static int
add_routines(struct quick *q, const struct pme_symmod *m, uint32_t mu)
{
	const struct pme_symroutine *rt;
	struct pme_unit u;
	uint32_t i, j, ui;

	pme_image_routines(q->img, &rt);
	for (i = m->first_routine; i < m->first_routine + m->nroutines;
	    i++) {
		if (!q->keep[i])
			continue;
		if (!routine_sampled(q, &rt[i])) {
			++*q->unmade;
			continue;
		}
		memset(&u, 0, sizeof(u));
		u.name = rt[i].name;
		u.kind = q->kind[2];
		u.parent = mu;
		u.file = rt[i].file;
		u.line = rt[i].line;
		if ((ui = add_unit(q, &u, rt[i].ranges, rt[i].nranges)) ==
		    PME_NONE)
			return -1;
		for (j = 0; j < rt[i].naliases; j++)
			if (pme_bucketfile_add_alias(q->bf, ui,
			    rt[i].aliases[j], q->err) == PME_NONE)
				return -1;
		q->buckets[q->nbuckets++] = ui;
	}
	return 0;
}

/*
 * The PROGRAM unit, its ranges its modules' (none when it spans several
 * load modules: a unit's ranges are of one, as pmebuild derives them).
 */
static int
add_program(struct quick *q, const char *base, int several)
{
	const struct pme_symmod *m;
	struct pme_unit u;
	size_t nm = pme_image_modules(q->img, &m), i, n = 0;

	for (i = 0; i < nm && !several; i++) {
		if (m[i].nranges == 0)
			continue;	/* and its ranges may be NULL */
		memcpy(q->scratch + n, m[i].ranges, m[i].nranges *
		    sizeof(*m[i].ranges));
		n += m[i].nranges;
	}
	if (!several && q->plt.n > 0) {
		memcpy(q->scratch + n, q->plt.ranges, q->plt.n *
		    sizeof(*q->plt.ranges));
		n += q->plt.n;
	}
	memset(&u, 0, sizeof(u));
	u.name = base;
	u.kind = q->kind[0];
	u.parent = PME_NONE;
	u.flags = PME_UNIT_DERIVED;
	return add_unit(q, &u, q->scratch, n) == PME_NONE ? -1 : 0;
}

/* The image's modules below the PROGRAM unit, their routines below them. */
static int
add_units(struct quick *q)
{
	const struct pme_symmod *m;
	struct pme_unit u;
	size_t nm = pme_image_modules(q->img, &m), i;
	uint32_t mu;

	for (i = 0; i < nm; i++) {
		if (m[i].nranges == 0)
			continue;
		memset(&u, 0, sizeof(u));
		u.name = m[i].name;
		u.kind = q->kind[1];
		u.parent = 0;
		if ((mu = add_unit(q, &u, m[i].ranges, m[i].nranges)) ==
		    PME_NONE || add_routines(q, &m[i], mu) == -1)
			return -1;
	}
	return 0;
}

/*
 * The image's PLT stubs (lib/plt.c), as perf shows them: a MODULE unit
 * "plt" with a ROUTINE unit "function@plt" for each, so that a sample in
 * a stub is its function's stub and not outside the load module's
 * buckets; and a MODULE unit "init" with the ROUTINE units "_init" and
 * "_fini", the code of .init and .fini.
 */
static int
add_plt(struct quick *q)
{
	const struct pme_plt *plt = &q->plt;
	struct pme_unit u;
	uint32_t mu, ui;
	size_t i, k, first, n;

	for (k = 0; k < PME_PLT_PARTS; k++) {
		memset(&u, 0, sizeof(u));
		u.name = pme_plt_part(plt, k, &first, &n);
		u.kind = q->kind[1];
		u.parent = 0;
		if (n == 0)
			continue;
		if ((mu = add_unit(q, &u, plt->ranges + first, n)) ==
		    PME_NONE)
			return -1;
		for (i = first; i < first + n; i++) {
			if (!sampled(q, plt->ranges[i].start,
			    plt->ranges[i].end)) {
				++*q->unmade;
				continue;
			}
			memset(&u, 0, sizeof(u));
			u.name = plt->names[i];
			u.kind = q->kind[2];
			u.parent = mu;
			if ((ui = add_unit(q, &u, &plt->ranges[i], 1)) ==
			    PME_NONE)
				return -1;
			q->buckets[q->nbuckets++] = ui;
		}
	}
	return 0;
}

/* The group (made with the first image's units) and its buckets, a
 * bucket with each routine unit's ranges. */
static int
add_group(struct quick *q, const char *base, int first)
{
	const struct pme_unit *units;
	const struct pme_range *r;
	char *stmt = NULL;
	size_t len = 0, i;
	FILE *t;
	uint32_t g;

	if (!first)
		goto buckets;
	if ((t = open_memstream(&stmt, &len)) == NULL)
		return pme_setnomem(q->err);
	fputs("PROGRAM ", t);
	pme_quick_quote(t, base);
	fputs(" BY ROUTINE", t);
	if (fclose(t) == EOF) {
		free(stmt);
		return pme_setnomem(q->err);
	}
	g = pme_bucketfile_add_group(q->bf, stmt, 0, q->kind[2], q->err);
	free(stmt);
	if (g == PME_NONE)
		return -1;
buckets:
	pme_bucketfile_units(q->bf, &units);
	pme_bucketfile_ranges(q->bf, &r);
	for (i = 0; i < q->nbuckets; i++) {
		const struct pme_unit *u = &units[q->buckets[i]];

		/* A copy: adding may move the file's ranges. */
		if (u->nranges > 0)
			memcpy(q->scratch, &r[u->range],
			    u->nranges * sizeof(*r));
		if (pme_bucketfile_add_bucket(q->bf, q->buckets[i],
		    q->scratch, u->nranges, q->err) == PME_NONE)
			return -1;
		pme_bucketfile_units(q->bf, &units);
		pme_bucketfile_ranges(q->bf, &r);
	}
	return 0;
}

/* The most ranges a unit of img has: the program's, all the modules'
 * together. */
static size_t
most_ranges(const struct pme_image *img)
{
	const struct pme_symmod *m;
	const struct pme_symroutine *rt;
	size_t nm = pme_image_modules(img, &m), nr, i, n = 0, most = 1;

	for (i = 0; i < nm; i++)
		n += m[i].nranges;
	nr = pme_image_routines(img, &rt);
	for (i = 0; i < nr; i++)
		if (rt[i].nranges > most)
			most = rt[i].nranges;
	return n > most ? n : most;
}

/* The kinds, the bucket file's first. */
static int
add_kinds(struct quick *q)
{
	static const char *const kinds[3] = { "PROGRAM", "MODULE",
	    "ROUTINE" };
	size_t i;

	if ((q->bf = pme_bucketfile_new(q->err)) == NULL)
		return -1;
	pme_bucketfile_info(q->bf)->options = PME_OPT_QUICK;
	for (i = 0; i < 3; i++)
		if ((q->kind[i] = pme_bucketfile_add_kind(q->bf, kinds[i],
		    q->err)) == PME_NONE)
			return -1;
	return 0;
}

/*
 * Opens image v, checks it is the file that ran and picks its routines;
 * 0 when it has none, 1 when it is at hand (q->img, q->keep), -1 with
 * q->err filled.
 */
static int
open_image(struct quick *q, const struct pme_quick_image *v)
{
	const struct pme_symroutine *rt;
	struct pme_image *img;
	const uint8_t *id;
	uint32_t ilen = 0;
	size_t nk = 0, most;

	/* The libraries' routines from their symbols: their DWARF (a
	 * -dbg package's) would cost far more than the whole report. */
	img = v->flags & PME_MODULE_MAIN ? pme_image_open(v->path, NULL,
	    q->err) : pme_image_open_symbols(v->path, NULL, q->err);
	if (img == NULL)
		return -1;
	id = pme_image_buildid(img, &ilen);
	if (v->buildid != NULL && v->idlen > 0 && id != NULL && ilen > 0 &&
	    (v->idlen != ilen || memcmp(id, v->buildid, ilen) != 0)) {
		pme_image_close(img);
		return pme_seterr(q->err, PME_EINVAL, "'%s': not the file "
		    "that ran: its build-id differs from the one recorded",
		    v->path);
	}
	q->img = img;
	if (pme_image_plt(img, &q->plt, q->err) == -1)
		return -1;
	most = most_ranges(img) + q->plt.n;
	free(q->scratch);
	free(q->buckets);
	q->scratch = calloc(most, sizeof(*q->scratch));
	q->buckets = calloc(pme_image_routines(img, &rt) + q->plt.n + 1,
	    sizeof(*q->buckets));
	q->nbuckets = 0;
	if (q->scratch == NULL || q->buckets == NULL ||
	    (q->keep = pme_quick_pick(img, &nk)) == NULL)
		return pme_setnomem(q->err);
	return nk > 0;
}

static void
close_image(struct quick *q)
{
	pme_image_close((struct pme_image *)q->img);
	pme_plt_free(&q->plt);
	free((void *)q->keep);
	q->img = NULL;
	q->keep = NULL;
}

/* Image v's load module, units and buckets; 0 when it has no routine. */
static int
add_image(struct quick *q, const struct pme_quick_image *v,
    const char *program, int first, int several)
{
	char real[PATH_MAX];
	const uint8_t *id;
	uint32_t ilen = 0, flags = v->flags;
	int rc;

	if ((rc = open_image(q, v)) != 1) {
		close_image(q);
		return rc;
	}
	if (realpath(v->path, real) == NULL)
		snprintf(real, sizeof(real), "%s", v->path);
	if ((id = pme_image_buildid(q->img, &ilen)) == NULL) {
		id = v->buildid;
		ilen = v->idlen;
	}
	/* Said, so that a bucket file made before a debug file was
	 * installed is made again (pmehisto). */
	if (pme_image_debugfile(q->img) == NULL &&
	    !(pme_image_flags(q->img) & PME_IMAGE_DWARF))
		flags |= PME_MODULE_NODEBUG;
	rc = 1;
	if ((q->lm = pme_bucketfile_add_module(q->bf, real, id, ilen,
	    flags, q->err)) == PME_NONE ||
	    (first && add_program(q, program, several) == -1) ||
	    add_units(q) == -1 || add_plt(q) == -1 ||
	    add_group(q, program, first) == -1)
		rc = -1;
	close_image(q);
	return rc;
}

/* The PROGRAM unit, of no ranges, of a run none of whose programs could
 * be read (each run from a memfd, say): its samples are outside, under
 * their programs' names, and the kernel's rows go below it. */
static int
empty_program(struct quick *q, const char *program)
{
	struct pme_unit u;

	memset(&u, 0, sizeof(u));
	u.name = program;
	u.kind = q->kind[0];
	u.parent = PME_NONE;
	u.flags = PME_UNIT_DERIVED;
	u.module = PME_NONE;
	q->nbuckets = 0;
	if (pme_bucketfile_add_unit(q->bf, &u, NULL, 0, q->err) == PME_NONE)
		return -1;
	return add_group(q, program, 1);
}

struct pme_bucketfile *
pme_quick_build_images(const struct pme_quick_image *v, size_t n,
    const char *program, struct pme_error *err)
{
	return pme_quick_build_sampled(v, n, program, NULL, 0, NULL, err);
}

struct pme_bucketfile *
pme_quick_build_sampled(const struct pme_quick_image *v, size_t n,
    const char *program, const uint64_t *addrs, size_t naddrs,
    size_t *unmade, struct pme_error *err)
{
	struct quick q;
	struct pme_error first;
	size_t i, made = 0, none = 0, failed = 0, mains = 0;
	int rc = 0;

	memset(&q, 0, sizeof(q));
	q.err = err;
	q.addrs = addrs;
	q.naddrs = naddrs;
	q.unmade = unmade != NULL ? unmade : &none;
	*q.unmade = 0;
	if (n == 0 || add_kinds(&q) == -1)
		rc = n == 0 ? pme_seterr(err, PME_EINVAL, "no image") : -1;
	for (i = 0; i < n; i++)
		mains += (v[i].flags & PME_MODULE_MAIN) != 0;
	for (i = 0; i < n && rc != -1; i++) {
		if ((rc = add_image(&q, &v[i], program, made == 0,
		    n > 1)) == -1 && q.bf != NULL && (i > 0 || mains > 1 ||
		    strncmp(v[i].path, "/memfd:", 7) == 0)) {
			/* A library's file gone or rebuilt since the run,
			 * or a program's of several (pmeclock -a), or one
			 * no path opens (a program run from a memfd): its
			 * samples stay outside buckets, under its name,
			 * while another's buckets are made; the first such
			 * error is the call's when none is.  The one
			 * program of a run is an error of its own. */
			if (failed++ == 0 && err != NULL)
				first = *err;
			rc = 0;
			continue;
		}
		made += rc == 1;
	}
	if (rc != -1 && made == 0 && failed > 0 && mains <= 1 &&
	    strncmp(v[0].path, "/memfd:", 7) != 0) {
		if (err != NULL)
			*err = first;
		rc = -1;
	}
	if (rc != -1 && made == 0 && failed > 0 && empty_program(&q,
	    program) == -1)
		rc = -1;
	if (rc != -1 && made == 0 && failed == 0)
		rc = pme_seterr(err, PME_EFORMAT, "'%s': no routines in .text: "
		    "no buckets to make", v[0].path);
	free(q.scratch);
	free(q.buckets);
	if (rc == -1) {
		pme_bucketfile_close(q.bf);
		return NULL;
	}
	return q.bf;
}

struct pme_bucketfile *
pme_quick_build(const char *path, uint32_t flags, const uint8_t *buildid,
    uint32_t idlen, struct pme_error *err)
{
	struct pme_quick_image v;
	const char *base = strrchr(path, '/');

	v.path = path;
	v.flags = flags;
	v.buildid = buildid;
	v.idlen = idlen;
	return pme_quick_build_images(&v, 1, base ? base + 1 : path, err);
}

/* ------------------------------------------------------------ the kernel */

static int
cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* A unit of absolute addresses under parent, and its bucket if kind is
 * the routine kind. */
static int
kernel_unit(struct pme_bucketfile *bf, const char *name, uint32_t kind,
    uint32_t parent, const struct pme_range *r, size_t nr, int bucket,
    uint32_t *out, struct pme_error *err)
{
	struct pme_unit u;
	uint32_t ui;

	memset(&u, 0, sizeof(u));
	u.name = name;
	u.kind = kind;
	u.parent = parent;
	u.module = PME_NONE;
	if ((ui = pme_bucketfile_add_unit(bf, &u, r, nr, err)) == PME_NONE ||
	    (bucket && pme_bucketfile_add_bucket(bf, ui, r, nr, err) ==
	    PME_NONE))
		return -1;
	if (out != NULL)
		*out = ui;
	return 0;
}

/*
 * The sampled routines' ranges, each once, into r (the index of each's
 * symbol in owner); the rest of the kernel's half into rest.  -1 when k,
 * the cache, cannot answer for one of the pcs, -2 when it is damaged.
 */
static int
kernel_ranges(const struct pme_ksyms *k, const uint64_t *pcs, size_t n,
    struct pme_range *r, size_t *owner, size_t *nr, struct pme_range *rest,
    size_t *nrest)
{
	size_t i, j;
	uint64_t at = PME_KERNEL_START, end;
	int found;

	*nr = *nrest = 0;
	for (i = 0; i < n; i++) {
		/* The symbol at or before the pc (of several there, the
		 * first kallsyms lists), ended by the next one with a
		 * higher address; none past the last. */
		if ((found = pme_ksyms_find(k, pcs[i], &j, &end)) < 0)
			return found;
		if (found == 0 || (*nr > 0 && r[*nr - 1].start == k->addr[j]))
			continue;
		r[*nr].start = k->addr[j];
		r[*nr].end = end;
		owner[(*nr)++] = j;
	}
	for (i = 0; i <= *nr; i++) {
		uint64_t next = i < *nr ? r[i].start : UINT64_MAX;

		if (next > at) {
			rest[*nrest].start = at;
			rest[(*nrest)++].end = next;
		}
		if (i < *nr)
			at = r[i].end;
	}
	return 0;
}

/*
 * The routines of the sampled pcs (sorted), from the cache in cachedir
 * when it is this boot's and answers for them all, else from kallsyms,
 * whose kernel's own symbols are then cached; k empty when there are
 * none.  0, or -1 when memory ran out.
 */
static int
kernel_symbols(struct pme_ksyms *k, const char *kallsyms,
    const char *cachedir, const uint64_t *pcs, size_t n, struct pme_range *r,
    size_t *owner, size_t *nr, struct pme_range *rest, size_t *nrest)
{
	char key[80];
	int keyed, rc;

	memset(k, 0, sizeof(*k));
	keyed = kallsyms != NULL && cachedir != NULL &&
	    pme_ksyms_key(key, sizeof(key)) == 0;
	if (keyed && pme_ksyms_load(k, cachedir, key) == 1) {
		if ((rc = kernel_ranges(k, pcs, n, r, owner, nr, rest,
		    nrest)) == 0)
			return 0;
		/* A pc of a module's (-1): the cache is sound, kallsyms is
		 * asked; a damaged cache (-2) is written anew. */
		pme_ksyms_free(k);
		*nr = *nrest = 0;
		keyed = rc == -2;
	}
	if (kallsyms == NULL)
		return 0;
	switch (pme_ksyms_read(k, kallsyms)) {
	case -1:
		return -1;
	case 0:
		return 0;
	}
	if (keyed)
		pme_ksyms_save(k, cachedir, key);
	return kernel_ranges(k, pcs, n, r, owner, nr, rest, nrest);
}

int
pme_quick_kernel_routines(struct pme_kroutines *kr, const uint64_t *pcs,
    size_t n, const char *kallsyms, const char *cachedir)
{
	uint64_t *sorted;
	int rc;

	memset(kr, 0, sizeof(*kr));
	if ((kr->r = calloc(n + 1, sizeof(*kr->r))) == NULL ||
	    (kr->rest = calloc(n + 2, sizeof(*kr->rest))) == NULL ||
	    (kr->owner = calloc(n + 1, sizeof(*kr->owner))) == NULL ||
	    (sorted = calloc(n + 1, sizeof(*sorted))) == NULL)
		return -1;
	if (n > 0)
		memcpy(sorted, pcs, n * sizeof(*pcs));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	rc = kernel_symbols(&kr->k, kallsyms, cachedir, sorted, n, kr->r,
	    kr->owner, &kr->nr, kr->rest, &kr->nrest);
	free(sorted);
	return rc;
}

void
pme_quick_kernel_free(struct pme_kroutines *kr)
{
	pme_ksyms_free(&kr->k);
	free(kr->r);
	free(kr->rest);
	free(kr->owner);
	memset(kr, 0, sizeof(*kr));
}

int
pme_quick_add_kernel(struct pme_bucketfile *bf,
    const struct pme_kroutines *kr, struct pme_error *err)
{
	const char *const *kinds;
	struct pme_range all;
	size_t i;
	uint32_t mu;

	if (pme_bucketfile_kinds(bf, &kinds) < 3)
		return pme_seterr(err, PME_EINVAL, "not a quick path's "
		    "bucket file");
	all.start = PME_KERNEL_START;
	all.end = UINT64_MAX;
	if (kernel_unit(bf, "[kernel]", 1, 0, &all, 1, 0, &mu, err) == -1)
		return -1;
	for (i = 0; i < kr->nr; i++)
		if (kernel_unit(bf, kr->k.str + kr->k.name[kr->owner[i]], 2,
		    mu, &kr->r[i], 1, 1, NULL, err) == -1)
			return -1;
	if (kr->nr == 0)
		return kernel_unit(bf, "[kernel]", 2, mu, &all, 1, 1, NULL,
		    err);
	return kr->nrest == 0 ? 0 : kernel_unit(bf, "[kernel]", 2, mu,
	    kr->rest, kr->nrest, 1, NULL, err);
}
