/*
 * sampling.c - DEFINE SAMPLING: bucket groups, the seed's restrictions on
 * them, their PRINT listing, and the bucket file written at END.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bucketw.h"
#include "pmd.h"

#define KERNEL_BIT (UINT64_C(1) << 63)	/* "negative" addresses */

/* A group being made, checked whole before it joins the others. */
struct draft {
	struct pme_vec	 buckets;	/* struct pmd_bucket; range indexes
					   into ranges below */
	struct pme_vec	 ranges;	/* struct pme_range */
	size_t		 room;		/* buckets the table has left */
	int		 full;		/* a bucket was refused for room */
	/* A unit whose step makes more than PMD_MAXSTEP buckets: the
	 * unit, its step and the buckets it would make (over: 1). */
	int		 over;
	uint32_t	 over_unit;
	uint64_t	 over_step, over_n;
};

static void
draft_init(struct pmd *p, struct draft *d)
{
	pme_vec_init(&d->buckets, sizeof(struct pmd_bucket));
	pme_vec_init(&d->ranges, sizeof(struct pme_range));
	d->room = p->maxbuckets - p->buckets.n;
	d->full = 0;
	d->over = 0;
}

static void
draft_free(struct draft *d)
{
	pme_vec_free(&d->buckets);
	pme_vec_free(&d->ranges);
}

/* Starts a bucket of unit u in the draft; its ranges follow. */
static struct pmd_bucket *
draft_bucket(struct draft *d, uint32_t u)
{
	struct pmd_bucket *b;

	/* Stop at the table's size, not after building what cannot fit. */
	if (d->buckets.n >= d->room) {
		d->full = 1;
		return NULL;
	}
	/* Every field set: no pme_vec_push(), which clears each element
	 * (a draft takes a bucket and a range for each of a program's
	 * lines). */
	if (d->buckets.n == d->buckets.cap &&
	    pme_vec_reserve(&d->buckets, d->buckets.n + 1) == -1)
		return NULL;
	b = &PME_VEC_AT(&d->buckets, struct pmd_bucket, d->buckets.n++);
	b->unit = u;
	b->group = 0;
	b->range = d->ranges.n;
	b->nranges = 0;
	return b;
}

static int
draft_range(struct draft *d, uint64_t start, uint64_t end)
{
	struct pme_range *r;
	struct pmd_bucket *b;

	if (d->ranges.n == d->ranges.cap &&
	    pme_vec_reserve(&d->ranges, d->ranges.n + 1) == -1)
		return -1;
	r = &PME_VEC_AT(&d->ranges, struct pme_range, d->ranges.n++);
	r->start = start;
	r->end = end;
	b = &PME_VEC_AT(&d->buckets, struct pmd_bucket, d->buckets.n - 1);
	b->nranges++;
	return 0;
}

/*
 * The buckets a step makes over r[0..n) inside [lo, hi), at most: each
 * range touches windows first..last, and neighbouring ranges share at
 * most one window.
 */
static uint64_t
windows(const struct pme_range *r, uint32_t n, uint64_t lo, uint64_t hi,
    uint64_t step)
{
	uint64_t s, e, w = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		s = r[i].start > lo ? r[i].start : lo;
		e = r[i].end < hi ? r[i].end : hi;
		if (s < e)
			w += (e - 1 - lo) / step - (s - lo) / step + 1;
	}
	if (w > (uint64_t)n - 1)
		w -= (uint64_t)n - 1;
	return w;
}

/*
 * Whether the step buckets of unit u over r[0..n) inside [lo, hi) cannot
 * be made, told before any is: more than a step may make, or more than
 * the table has room for.
 */
static int
too_many(struct draft *d, uint32_t u, const struct pme_range *r,
    uint32_t n, uint64_t lo, uint64_t hi, uint64_t step)
{
	uint64_t w = windows(r, n, lo, hi, step);

	if (w > PMD_MAXSTEP) {
		d->over = 1;
		d->over_unit = u;
		d->over_step = step;
		d->over_n = w;
		return 1;
	}
	if (d->buckets.n + w <= d->room)
		return 0;
	d->full = 1;
	return 1;
}

/*
 * Buckets over the parts of ranges r[0..n) inside [lo, hi): one bucket for
 * all of them without step, else one per step bytes counted from lo (a
 * bucket may then hold pieces of several ranges).
 */
static int
split(struct draft *d, uint32_t u, const struct pme_range *r, uint32_t n,
    uint64_t lo, uint64_t hi, uint64_t step)
{
	uint64_t s, e, w, wend;
	uint64_t cur = UINT64_MAX;	/* window of the open bucket */
	uint32_t i;

	if (step == 0 && draft_bucket(d, u) == NULL)
		return -1;
	if (step > 0 && too_many(d, u, r, n, lo, hi, step))
		return -1;
	/* One bucket over all of them: the ranges as they are, at once
	 * (each line of a program takes this way). */
	if (step == 0 && n > 0 && lo <= r[0].start && hi >= r[n - 1].end) {
		if (pme_vec_reserve(&d->ranges, d->ranges.n + n) == -1)
			return -1;
		memcpy(&PME_VEC_AT(&d->ranges, struct pme_range, d->ranges.n),
		    r, n * sizeof(*r));
		d->ranges.n += n;
		PME_VEC_AT(&d->buckets, struct pmd_bucket, d->buckets.n -
		    1).nranges = n;
		return 0;
	}
	for (i = 0; i < n; i++) {
		s = r[i].start > lo ? r[i].start : lo;
		e = r[i].end < hi ? r[i].end : hi;
		while (s < e) {
			if (step == 0) {
				wend = e;
			} else {
				w = (s - lo) / step;
				wend = (w + 1) * step + lo;
				if (wend > e || wend < s)
					wend = e;
				if (w != cur && draft_bucket(d, u) == NULL)
					return -1;
				cur = w;
			}
			if (draft_range(d, s, wend) == -1)
				return -1;
			s = wend;
		}
	}
	return 0;
}

static int	early(struct pmd *, uint32_t, uint32_t, uint64_t, uint64_t);

/* ------------------------------------------------------------ checking */

static int
cmp_span(const void *a, const void *b)
{
	const struct pmd_span *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

static const char *
unit_desc(struct pmd *p, uint32_t u, char *buf, size_t len)
{
	const struct pmd_unit *unit = pmd_unit(p, u);

	snprintf(buf, len, "%s '%s'", p->kinds[unit->kind], unit->name);
	return buf;
}

/*
 * "'prog': " when unit u has its addresses from an image (EXE), so that a
 * problem of the image's (overlapping functions in corrupt DWARF) names
 * it; else "".
 */
static const char *
image_of(struct pmd *p, uint32_t u, char *buf, size_t len)
{
	const struct pmd_unit *unit = pmd_unit(p, u);
	const char *path;

	buf[0] = '\0';
	if (unit->module == PME_NONE || unit->module >= p->modules.n ||
	    (unit->flags & PME_UNIT_EXPLICIT))
		return buf;
	path = PME_VEC_AT(&p->modules, struct pmd_module, unit->module).path;
	if (path[0] != '\0')
		snprintf(buf, len, "'%s': ", path);
	return buf;
}

/* The radix sort's key of a span: its start, then its module. */
static void
span_key(const void *e, uint64_t *k)
{
	const struct pmd_span *s = e;

	k[0] = s->start;
	k[1] = s->module;
}

/*
 * Sorts s[0..n) as cmp_span() orders them, stably: a radix sort on the
 * module and start (a few passes over a group of a quarter of a million
 * lines, where qsort made n log n calls), then the rare runs of one
 * module and start by their ends.  Returns s or tmp, whichever holds the
 * sorted spans; NULL when out of memory.
 */
static struct pmd_span *
sort_spans(struct pmd_span *s, struct pmd_span *tmp, size_t n)
{
	struct pmd_span *v, x;
	size_t i, j;

	if ((v = pme_radix_sort(s, tmp, n, sizeof(*s), 2, span_key)) == NULL)
		return NULL;
	for (i = 1; i < n; i++) {
		if (v[i].module != v[i - 1].module ||
		    v[i].start != v[i - 1].start || v[i].end >= v[i - 1].end)
			continue;
		x = v[i];
		for (j = i; j > 0 && v[j - 1].module == x.module &&
		    v[j - 1].start == x.start && v[j - 1].end > x.end; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	return v;
}

/* The spans of the draft, sorted; bucket fields are draft indexes. */
static struct pmd_span *
draft_spans(struct pmd *p, const struct draft *d, size_t *n)
{
	struct pmd_span *s, *tmp, *v;
	size_t i, j, k = 0;

	if ((s = malloc((d->ranges.n + 1) * sizeof(*s))) == NULL)
		return NULL;
	if ((tmp = malloc((d->ranges.n + 1) * sizeof(*tmp))) == NULL) {
		free(s);
		return NULL;
	}
	for (i = 0; i < d->buckets.n; i++) {
		const struct pmd_bucket *b = &PME_VEC_AT(&d->buckets,
		    struct pmd_bucket, i);

		for (j = 0; j < b->nranges; j++, k++) {
			const struct pme_range *r = &PME_VEC_AT(&d->ranges,
			    struct pme_range, b->range + j);

			s[k].module = pmd_unit(p, b->unit)->module;
			s[k].start = r->start;
			s[k].end = r->end;
			s[k].bucket = (uint32_t)i;
		}
	}
	if ((v = sort_spans(s, tmp, k)) == NULL) {
		free(s);
		free(tmp);
		return NULL;
	}
	free(v == s ? tmp : s);
	*n = k;
	return v;
}

static uint32_t
draft_unit(const struct draft *d, uint32_t b)
{
	return PME_VEC_AT(&d->buckets, struct pmd_bucket, b).unit;
}

/* The seed's restrictions (3) and (4): no overlaps in a group, and no
 * bucket or group on both sides of the user/kernel line. */
static int
check_group(struct pmd *p, const struct draft *d, const struct pmd_span *s,
    size_t n)
{
	char a[256], b[256], f[4096 + 8];
	size_t i;

	for (i = 0; i < n; i++) {
		if ((s[i].start & KERNEL_BIT) != ((s[i].end - 1) & KERNEL_BIT)) {
			pmd_error(p, "%s at %" PRIX64 " - %" PRIX64 " crosses "
			    "from user to kernel (negative) addresses",
			    unit_desc(p, draft_unit(d, s[i].bucket), a,
			    sizeof(a)), s[i].start, s[i].end - 1);
			return -1;
		}
		if ((s[i].start & KERNEL_BIT) != (s[0].start & KERNEL_BIT)) {
			pmd_error(p, "bucket group mixes user and kernel "
			    "(negative) addresses: %s at %" PRIX64 " and %s "
			    "at %" PRIX64, unit_desc(p, draft_unit(d,
			    s[0].bucket), a, sizeof(a)), s[0].start,
			    unit_desc(p, draft_unit(d, s[i].bucket), b,
			    sizeof(b)), s[i].start);
			return -1;
		}
		if (i > 0 && s[i].module == s[i - 1].module &&
		    s[i].start < s[i - 1].end) {
			pmd_error(p, "%sbuckets overlap: %s at %" PRIX64 " - %"
			    PRIX64 " and %s at %" PRIX64 " - %" PRIX64,
			    image_of(p, draft_unit(d, s[i].bucket), f,
			    sizeof(f)),
			    unit_desc(p, draft_unit(d, s[i - 1].bucket), a,
			    sizeof(a)), s[i - 1].start, s[i - 1].end - 1,
			    unit_desc(p, draft_unit(d, s[i].bucket), b,
			    sizeof(b)), s[i].start, s[i].end - 1);
			return -1;
		}
	}
	return 0;
}

/* The seed's restriction (2): groups do not overlap one another. */
static int
check_others(struct pmd *p, const struct pmd_span *s, size_t n)
{
	const struct pmd_span *all = p->spans.v;
	size_t i, lo, hi, mid;
	char a[256];

	for (i = 0; i < n; i++) {
		lo = 0;
		hi = p->spans.n;
		while (lo < hi) {	/* first span not below s[i] */
			mid = (lo + hi) / 2;
			if (cmp_span(&all[mid], &s[i]) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0 && all[lo - 1].module == s[i].module &&
		    all[lo - 1].end > s[i].start)
			lo--;
		if (lo < p->spans.n && all[lo].module == s[i].module &&
		    all[lo].start < s[i].end && all[lo].end > s[i].start) {
			const struct pmd_bucket *b = &PME_VEC_AT(&p->buckets,
			    struct pmd_bucket, all[lo].bucket);

			pmd_error(p, "bucket group overlaps group %u (%s at %"
			    PRIX64 " - %" PRIX64 ")", b->group + 1,
			    unit_desc(p, b->unit, a, sizeof(a)),
			    all[lo].start, all[lo].end - 1);
			return -1;
		}
	}
	return 0;
}

/*
 * Whether the group a statement would make is refused for overlapping
 * another group, told from the ranges it would cover (its buckets' ranges
 * tile them, so they overlap another group exactly when the buckets do,
 * and check_others() names the same bucket of it) before a bucket is
 * made: a refused statement of a step of 1 over a megabyte made a million
 * buckets to find out (100 such statements: a minute).  s[0..n) are the
 * ranges, sorted here.  When they break the group's own rules, or the
 * groups are full, it is left to commit() to say so from the buckets, as
 * before.  Returns -1 when refused (said), else 0.
 */
static int
refused_early(struct pmd *p, struct pmd_span *s, size_t n)
{
	size_t i;

	if (n == 0 || p->spans.n == 0 || p->groups.n >= PMD_MAXGROUPS)
		return 0;
	qsort(s, n, sizeof(*s), cmp_span);
	for (i = 0; i < n; i++)
		if ((s[i].start & KERNEL_BIT) != ((s[i].end - 1) & KERNEL_BIT) ||
		    (s[i].start & KERNEL_BIT) != (s[0].start & KERNEL_BIT) ||
		    (i > 0 && s[i].module == s[i - 1].module &&
		    s[i].start < s[i - 1].end))
			return 0;
	return check_others(p, s, n);
}

/* Appends unit u's ranges inside [lo, hi) to v (struct pmd_span); -1
 * when out of memory. */
static int
unit_spans(struct pmd *p, struct pme_vec *v, uint32_t u, uint64_t lo,
    uint64_t hi)
{
	const struct pmd_unit *unit = pmd_unit(p, u);
	struct pmd_span *sp;

	for (uint32_t i = 0; i < unit->nr; i++) {
		uint64_t a = unit->r[i].start > lo ? unit->r[i].start : lo;
		uint64_t b = unit->r[i].end < hi ? unit->r[i].end : hi;

		if (a >= b)
			continue;
		if ((sp = pme_vec_push(v)) == NULL)
			return -1;
		sp->start = a;
		sp->end = b;
		sp->module = unit->module;
	}
	return 0;
}

/* ------------------------------------------------------------ PRINT */

static const char *
module_tag(struct pmd *p, uint32_t m, char *buf, size_t len)
{
	const struct pmd_module *mod;
	const char *s;

	if (m == PME_NONE || m >= p->modules.n) {
		buf[0] = '\0';
		return buf;
	}
	mod = &PME_VEC_AT(&p->modules, struct pmd_module, m);
	if (mod->flags & PME_MODULE_MAIN) {
		buf[0] = '\0';
		return buf;
	}
	s = strrchr(mod->path, '/');
	snprintf(buf, len, "  [%s]", s ? s + 1 : mod->path);
	return buf;
}

/* Appends "  (alias a, b)" for the unit's other names to buf. */
static void
alias_tag(const struct pmd_unit *u, char *buf, size_t len)
{
	size_t n = strlen(buf);
	uint32_t i;

	for (i = 0; i < u->naliases && n < len; i++) {
		snprintf(buf + n, len - n, "%s%s", i == 0 ? u->naliases > 1 ?
		    "  (aliases " : "  (alias " : ", ", u->aliases[i]);
		n += strlen(buf + n);
	}
	if (u->naliases > 0 && n < len)
		snprintf(buf + n, len - n, ")");
}

static int
hexwidth(uint64_t v)
{
	int n = 1;

	while (v >>= 4)
		n++;
	return n;
}

/* Prints one line without trailing blanks, escaped for a terminal (its
 * names come from files). */
static void
print_row(FILE *out, size_t num, int kw, const char *kind, int nw,
    const char *name, int aw, const struct pme_range *r, const char *tag)
{
	char line[1024], shown[4 * 1024];
	size_t n;

	if (num > 0)
		n = (size_t)snprintf(line, sizeof(line), "  %5zu  ", num);
	else
		n = (size_t)snprintf(line, sizeof(line), "  %5s  ", "");
	snprintf(line + n, sizeof(line) - n, "%-*s %-*s  %*" PRIX64 " - %-*"
	    PRIX64 "%s", kw, kind, nw, name, aw, r->start, aw, r->end - 1,
	    tag);
	n = strlen(line);
	while (n > 0 && line[n - 1] == ' ')
		line[--n] = '\0';
	pme_escape(shown, sizeof(shown), line);
	fprintf(out, "%s\n", shown);
}

/*
 * PRINT: the group's statement, then a line per bucket range; the further
 * ranges of a bucket (a routine and its .cold part) follow unnumbered.
 */
static void
print_group(struct pmd *p, uint32_t g)
{
	const struct pmd_group *grp = &PME_VEC_AT(&p->groups,
	    struct pmd_group, g);
	const struct pme_range *rg = p->bucket_ranges.v;
	size_t nw = 1, i, j;
	int kw = 1, aw = 1;
	uint32_t k;
	char tag[1024];

	for (k = 0; k < p->nkinds; k++)
		if ((int)strlen(p->kinds[k]) > kw)
			kw = (int)strlen(p->kinds[k]);
	for (i = grp->first; i < grp->first + grp->count; i++) {
		const struct pmd_bucket *b = &PME_VEC_AT(&p->buckets,
		    struct pmd_bucket, i);

		if (strlen(pmd_unit(p, b->unit)->name) > nw)
			nw = strlen(pmd_unit(p, b->unit)->name);
		for (j = 0; j < b->nranges; j++)
			if (hexwidth(rg[b->range + j].end - 1) > aw)
				aw = hexwidth(rg[b->range + j].end - 1);
	}
	if (nw > 40)
		nw = 40;
	pme_escape(tag, sizeof(tag), grp->statement);
	fprintf(p->out, "Bucket group %u: %s\n", g + 1, tag);
	for (i = grp->first; i < grp->first + grp->count; i++) {
		const struct pmd_bucket *b = &PME_VEC_AT(&p->buckets,
		    struct pmd_bucket, i);
		const struct pmd_unit *u = pmd_unit(p, b->unit);

		module_tag(p, u->module, tag, sizeof(tag));
		alias_tag(u, tag, sizeof(tag));
		for (j = 0; j < b->nranges; j++)
			print_row(p->out, j ? 0 : i - grp->first + 1, kw,
			    j ? "" : p->kinds[u->kind], (int)nw,
			    j ? "" : u->name, aw, &rg[b->range + j],
			    j ? "" : tag);
	}
	fprintf(p->out, "  %u bucket%s\n", grp->count,
	    grp->count == 1 ? "" : "s");
}

/* ------------------------------------------------------------ groups */

/* Appends src to dst, which has room when it is not empty; an empty dst
 * takes src's array instead of a copy. */
static void
append(struct pme_vec *dst, struct pme_vec *src)
{
	if (dst->n == 0) {
		pme_vec_free(dst);
		*dst = *src;
		pme_vec_init(src, src->size);
		return;
	}
	memcpy((char *)dst->v + dst->n * dst->size, src->v,
	    src->n * src->size);
	dst->n += src->n;
}

/* Merges the sorted spans s[0..n) into the sorted vector all, which has
 * room for them. */
static void
merge_spans(struct pme_vec *all, const struct pmd_span *s, size_t n)
{
	struct pmd_span *a = all->v;
	size_t i = all->n, j = n, k = all->n + n;

	while (j > 0) {
		if (i > 0 && cmp_span(&a[i - 1], &s[j - 1]) > 0)
			a[--k] = a[--i];
		else
			a[--k] = s[--j];
	}
	all->n += n;
}

static int
commit(struct pmd *p, const char *stmt, uint32_t u, uint32_t bykind,
    struct draft *d)
{
	struct pmd_span *s;
	struct pmd_group *g;
	size_t n, i, rbase;
	uint32_t gi = (uint32_t)p->groups.n;

	if (p->groups.n >= PMD_MAXGROUPS) {
		pmd_error(p, "more than %d bucket groups; DEFINE CLEAR starts "
		    "over", PMD_MAXGROUPS);
		return -1;
	}
	if ((s = draft_spans(p, d, &n)) == NULL)
		goto nomem;
	if (check_group(p, d, s, n) == -1 || check_others(p, s, n) == -1) {
		free(s);
		return -1;
	}
	rbase = p->bucket_ranges.n;
	if ((p->buckets.n > 0 && pme_vec_reserve(&p->buckets, p->buckets.n +
	    d->buckets.n) == -1) || (rbase > 0 &&
	    pme_vec_reserve(&p->bucket_ranges, rbase + d->ranges.n) == -1) ||
	    (p->spans.n > 0 && pme_vec_reserve(&p->spans, p->spans.n + n) ==
	    -1) || (g = pme_vec_push(&p->groups)) == NULL) {
		free(s);
		goto nomem;
	}
	g->statement = pme_arena_strdup(&p->arena, stmt);
	g->unit = u;
	g->bykind = bykind;
	g->first = (uint32_t)p->buckets.n;
	g->count = (uint32_t)d->buckets.n;
	for (i = 0; i < n; i++)
		s[i].bucket += g->first;
	if (p->spans.n == 0) {
		free(p->spans.v);
		p->spans.v = s;
		p->spans.n = n;
		p->spans.cap = d->ranges.n + 1;
		s = NULL;
	} else
		merge_spans(&p->spans, s, n);
	append(&p->buckets, &d->buckets);
	append(&p->bucket_ranges, &d->ranges);
	for (i = g->first; i < g->first + g->count; i++) {
		struct pmd_bucket *bk = &PME_VEC_AT(&p->buckets,
		    struct pmd_bucket, i);

		bk->group = gi;
		bk->range += rbase;
	}
	free(s);
	if (g->statement == NULL)
		goto nomem;
	if (p->options & PME_OPT_PRINT)
		print_group(p, gi);
	return 0;
nomem:
	pmd_error(p, "out of memory");
	return -1;
}

/* Reports why a draft could not be made. */
static void
draft_failed(struct pmd *p, const struct draft *d)
{
	char a[256];

	if (d->over)
		pmd_error(p, "%s in steps of %" PRIX64 " makes %" PRIu64
		    " buckets, more than a step may make (%u); use a larger "
		    "step", unit_desc(p, d->over_unit, a, sizeof(a)),
		    d->over_step, d->over_n, PMD_MAXSTEP);
	else if (d->full)
		pmd_error(p, "too many buckets: the table holds %zu and has "
		    "room for %zu more; use a larger step, or DEFINE CLEAR",
		    p->maxbuckets, d->room);
	else
		pmd_error(p, "out of memory");
}

/* The unit's ranges, or an error saying why it has none. */
static int
unit_ranges(struct pmd *p, uint32_t u, int error)
{
	const struct pmd_unit *unit = pmd_unit(p, u);
	char a[256];

	if (unit->nr > 0)
		return 0;
	unit_desc(p, u, a, sizeof(a));
	if (unit->mixed) {
		if (error)
			pmd_error(p, "%s spans several load modules: sample "
			    "it BY a subunit kind", a);
		else
			pmd_warn(p, "%s spans several load modules: no "
			    "bucket", a);
	} else if (error)
		pmd_error(p, "%s has no addresses", a);
	else
		pmd_warn(p, "%s has no addresses: no bucket", a);
	return -1;
}

int
pmd_sample_unit(struct pmd *p, const char *stmt, uint32_t u, int haswin,
    uint64_t wstart, uint64_t wend, uint64_t step)
{
	const struct pmd_unit *unit;
	struct draft d;
	uint64_t base, lo, hi, nb;
	char a[256];
	int rc;

	pmd_derive(p);
	if (unit_ranges(p, u, 1) == -1)
		return -1;
	unit = pmd_unit(p, u);
	base = unit->r[0].start;
	lo = base;
	hi = unit->r[unit->nr - 1].end;
	if (haswin) {
		if (wend >= hi - base) {
			pmd_error(p, "range %" PRIX64 " - %" PRIX64 " is "
			    "outside %s (0 - %" PRIX64 ")", wstart, wend,
			    unit_desc(p, u, a, sizeof(a)), hi - base - 1);
			return -1;
		}
		lo = base + wstart;
		hi = base + wend + 1;	/* wend < hi - base: no overflow */
	}
	if (step == 0)
		step = unit->step;
	nb = step == 0 ? 1 : windows(unit->r, unit->nr, lo, hi, step);
	if (nb <= PMD_MAXSTEP && nb <= p->maxbuckets - p->buckets.n &&
	    early(p, u, PME_NONE, lo, hi) == -1)
		return -1;
	draft_init(p, &d);
	rc = split(&d, u, unit->r, unit->nr, lo, hi, step);
	if (rc == 0 && d.ranges.n == 0) {
		pmd_error(p, "range %" PRIX64 " - %" PRIX64 " holds no address"
		    " of %s", wstart, wend, unit_desc(p, u, a, sizeof(a)));
		rc = -1;
	} else if (rc == -1)
		draft_failed(p, &d);
	else
		rc = commit(p, stmt, u, PME_NONE, &d);
	draft_free(&d);
	return rc;
}

/* The buckets and ranges by_units() makes without a step: one bucket of
 * each unit of kind bykind below u, over its ranges. */
static void
by_count(struct pmd *p, uint32_t u, uint32_t bykind, size_t *nb, size_t *nr)
{
	const struct pmd_unit *unit = pmd_unit(p, u);
	uint32_t c;

	if (unit->kind == bykind) {
		*nb += unit->nr > 0;
		*nr += unit->nr;
		return;
	}
	for (c = 0; c < unit->nch; c++)
		by_count(p, unit->ch[c], bykind, nb, nr);
}

/*
 * The spans of every unit of kind bykind below u into v, and the buckets
 * they make in *nb (at most; UINT64_MAX when a step makes more than
 * PMD_MAXSTEP).  -1 when out of memory.
 */
static int
by_spans(struct pmd *p, struct pme_vec *v, uint32_t u, uint32_t bykind,
    uint64_t *nb)
{
	const struct pmd_unit *unit = pmd_unit(p, u);
	uint64_t w;
	uint32_t c;

	if (unit->kind == bykind) {
		if (unit->nr == 0)
			return 0;
		w = unit->step == 0 ? 1 : windows(unit->r, unit->nr,
		    unit->r[0].start, unit->r[unit->nr - 1].end, unit->step);
		*nb = w > PMD_MAXSTEP || *nb == UINT64_MAX ? UINT64_MAX :
		    *nb + w;
		return unit_spans(p, v, u, 0, UINT64_MAX);
	}
	for (c = 0; c < unit->nch; c++)
		if (by_spans(p, v, pmd_unit(p, u)->ch[c], bykind, nb) == -1)
			return -1;
	return 0;
}

/*
 * refused_early() for the group a statement would make of unit u inside
 * [lo, hi) (bykind PME_NONE), or of its units of kind bykind, when the
 * buckets would fit (else the draft says why, as before): -1 when
 * refused, said.
 */
static int
early(struct pmd *p, uint32_t u, uint32_t bykind, uint64_t lo, uint64_t hi)
{
	struct pme_vec v;
	uint64_t nb = 0;
	int rc = 0;

	pme_vec_init(&v, sizeof(struct pmd_span));
	/* Out of memory here: the draft finds it again, and says so. */
	if ((bykind == PME_NONE ? unit_spans(p, &v, u, lo, hi) :
	    by_spans(p, &v, u, bykind, &nb)) == 0 &&
	    nb <= p->maxbuckets - p->buckets.n)
		rc = refused_early(p, v.v, v.n);
	pme_vec_free(&v);
	return rc;
}

/* Buckets for every unit of kind bykind below u, in list order. */
static int
by_units(struct pmd *p, struct draft *d, uint32_t u, uint32_t bykind)
{
	const struct pmd_unit *unit = pmd_unit(p, u);
	uint32_t c;

	if (unit->kind == bykind) {
		if (unit_ranges(p, u, 0) == -1)
			return 0;
		return split(d, u, unit->r, unit->nr, unit->r[0].start,
		    unit->r[unit->nr - 1].end, unit->step);
	}
	for (c = 0; c < unit->nch; c++) {
		if (by_units(p, d, pmd_unit(p, u)->ch[c], bykind) == -1)
			return -1;
	}
	return 0;
}

int
pmd_sample_by(struct pmd *p, const char *stmt, uint32_t u, uint32_t bykind)
{
	struct draft d;
	size_t nb = 0, nr = 0;
	char a[256];
	int rc;

	pmd_derive(p);
	if (early(p, u, bykind, 0, UINT64_MAX) == -1)
		return -1;
	draft_init(p, &d);
	/* The draft's room at once, not grown (and copied) by doubling;
	 * units with a step take more as they go. */
	by_count(p, u, bykind, &nb, &nr);
	if (nb > d.room)
		nb = d.room;
	if (pme_vec_reserve(&d.buckets, nb) == -1 ||
	    pme_vec_reserve(&d.ranges, nr) == -1) {
		pmd_error(p, "out of memory");
		rc = -1;
	} else if ((rc = by_units(p, &d, u, bykind)) == -1)
		draft_failed(p, &d);
	else if (d.buckets.n == 0) {
		/* -x wrote the statements: say it in the user's terms. */
		if (p->quick)
			pmd_error(p, "no buckets to make: no %s of %s has an "
			    "address in its file", p->kinds[bykind],
			    unit_desc(p, u, a, sizeof(a)));
		else
			pmd_error(p, "%s has no %s units with addresses",
			    unit_desc(p, u, a, sizeof(a)), p->kinds[bykind]);
		rc = -1;
	} else
		rc = commit(p, stmt, u, bykind, &d);
	draft_free(&d);
	return rc;
}

void
pmd_clear(struct pmd *p)
{
	p->groups.n = 0;
	p->buckets.n = 0;
	p->bucket_ranges.n = 0;
	p->spans.n = 0;
}

/* ------------------------------------------------------- the bucket file */

/* Units in list order (preorder), so that parents come first. */
static int
preorder(struct pmd *p, uint32_t *order, uint32_t *remap)
{
	uint32_t *stack, sp = 0, n = 0, i;
	size_t r;

	if ((stack = malloc((p->units.n + 1) * sizeof(*stack))) == NULL)
		return -1;
	for (r = p->roots.n; r-- > 0;)
		stack[sp++] = PME_VEC_AT(&p->roots, uint32_t, r);
	while (sp > 0) {
		uint32_t u = stack[--sp];
		const struct pmd_unit *unit = pmd_unit(p, u);

		remap[u] = n;
		order[n++] = u;
		for (i = unit->nch; i-- > 0;)
			stack[sp++] = unit->ch[i];
	}
	free(stack);
	return 0;
}

static int
write_units(struct pmd *p, struct pme_bucketfile *bf, const uint32_t *order,
    const uint32_t *remap, struct pme_error *err)
{
	uint32_t i, j;

	for (i = 0; i < p->units.n; i++) {
		const struct pmd_unit *u = pmd_unit(p, order[i]);
		struct pme_unit pu;

		memset(&pu, 0, sizeof(pu));
		pu.name = u->name;
		pu.kind = u->kind;
		pu.parent = u->parent == PME_NONE ? PME_NONE :
		    remap[u->parent];
		pu.module = u->module;
		pu.flags = u->flags;
		pu.step = u->step;
		pu.line = u->line;
		pu.file = u->file;
		if (pme_bucketfile_add_unit(bf, &pu, u->r, u->nr, err) ==
		    PME_NONE)
			return -1;
		for (j = 0; j < u->naliases; j++)
			if (pme_bucketfile_add_alias(bf, i, u->aliases[j],
			    err) == PME_NONE)
				return -1;
	}
	return 0;
}

/* A bucket's range index when its ranges are its unit's (shared()). */
#define UNIT_RANGES	SIZE_MAX

/*
 * Before the file takes its copies, drops from p->bucket_ranges the
 * ranges of the buckets over exactly their unit's (every line of -x):
 * they are the unit's, which the file has (write_groups() passes them
 * from there), and their room goes to the file's tables instead of
 * adding to the peak.  The others are kept, in a table of their own.
 * 0, or -1 when out of memory (nothing changed).
 */
static int
unit_own(struct pmd *p, const struct pmd_bucket *b)
{
	const struct pmd_unit *u = pmd_unit(p, b->unit);

	return b->nranges == u->nr && u->nr > 0 && memcmp(&PME_VEC_AT(
	    &p->bucket_ranges, struct pme_range, b->range), u->r,
	    u->nr * sizeof(*u->r)) == 0;
}

static void
shared(struct pmd *p)
{
	struct pme_range *r = p->bucket_ranges.v, *less;
	size_t i, n = 0;

	/* The buckets' ranges are in bucket order: those kept move down. */
	for (i = 0; i < p->buckets.n; i++) {
		struct pmd_bucket *b = &PME_VEC_AT(&p->buckets,
		    struct pmd_bucket, i);

		if (unit_own(p, b)) {
			b->range = UNIT_RANGES;
			continue;
		}
		memmove(r + n, r + b->range, b->nranges * sizeof(*r));
		b->range = n;
		n += b->nranges;
	}
	p->bucket_ranges.n = n;
	if (n == 0)
		pme_vec_free(&p->bucket_ranges);
	else if ((less = realloc(r, n * sizeof(*r))) != NULL) {
		p->bucket_ranges.v = less;
		p->bucket_ranges.cap = n;
	}
}

static int
write_groups(struct pmd *p, struct pme_bucketfile *bf,
    const uint32_t *remap, struct pme_error *err)
{
	const struct pme_unit *units;
	const struct pme_range *pool, *r;
	uint32_t g, i;

	for (g = 0; g < p->groups.n; g++) {
		const struct pmd_group *grp = &PME_VEC_AT(&p->groups,
		    struct pmd_group, g);

		if (pme_bucketfile_add_group(bf, grp->statement,
		    remap[grp->unit], grp->bykind, err) == PME_NONE)
			return -1;
		for (i = grp->first; i < grp->first + grp->count; i++) {
			const struct pmd_bucket *b = &PME_VEC_AT(&p->buckets,
			    struct pmd_bucket, i);

			pme_bucketfile_units(bf, &units);
			pme_bucketfile_ranges(bf, &pool);
			r = b->range != UNIT_RANGES ? &PME_VEC_AT(
			    &p->bucket_ranges, struct pme_range, b->range) :
			    pool + units[remap[b->unit]].range;
			if (pme_bucketfile_add_bucket(bf, remap[b->unit], r,
			    b->nranges, err) == PME_NONE)
				return -1;
		}
	}
	return 0;
}

/* Frees the strings (the arena: units' names and ranges, statements,
 * paths) once the bucket file that borrowed them is closed. */
static void
spend_strings(struct pmd *p)
{
	size_t i;

	for (i = 0; i < p->groups.n; i++)
		PME_VEC_AT(&p->groups, struct pmd_group, i).statement = NULL;
	for (i = 0; i < p->modules.n; i++)
		PME_VEC_AT(&p->modules, struct pmd_module, i).path = NULL;
	pme_intern_free(&p->names);
	pme_arena_free(&p->arena);
}

static int
fill(struct pmd *p, struct pme_bucketfile *bf, struct pme_error *err)
{
	uint32_t *order, *remap, i;
	int rc = -1;

	pme_bucketfile_info(bf)->options = p->options |
	    (p->quick ? PME_OPT_QUICK : 0);
	for (i = 0; i < p->nkinds; i++)
		if (pme_bucketfile_add_kind(bf, p->kinds[i], err) == PME_NONE)
			return -1;
	for (i = 0; i < p->modules.n; i++) {
		const struct pmd_module *m = &PME_VEC_AT(&p->modules,
		    struct pmd_module, i);

		if (pme_bucketfile_add_module(bf, m->path, m->buildid,
		    m->buildid_len, m->flags, err) == PME_NONE)
			return -1;
	}
	order = malloc((p->units.n + 1) * sizeof(*order));
	remap = malloc((p->units.n + 1) * sizeof(*remap));
	if (order == NULL || remap == NULL || preorder(p, order, remap) == -1)
		pme_setnomem(err);
	else if (shared(p), write_units(p, bf, order, remap, err) == 0) {
		/* The file has its copy of the units: what it takes next
		 * (its buckets, its encoded tables) reuses their room, not
		 * adding to the peak (the SQLite amalgamation's fifty
		 * thousand line units are 5.7 MB of it). */
		pmd_free_units(p);
		rc = write_groups(p, bf, remap, err);
	}
	free(order);
	free(remap);
	return rc;
}

int
pmd_write(struct pmd *p, const char *path, struct pme_error *err)
{
	struct pme_bucketfile *bf;
	int rc = -1;

	pmd_derive(p);
	/* Overlaps were checked as groups came: the spans are done with. */
	pme_vec_free(&p->spans);
	if ((bf = pme_bucketfile_new(err)) == NULL)
		return -1;
	/* The file keeps the names of the units as they are here, where a
	 * copy of each took time and memory (the SQLite amalgamation's fifty
	 * thousand line units are a megabyte of names). */
	pme_bucketfile_borrow_strings(bf);
	if (fill(p, bf, err) == 0)
		rc = pme_bucketfile_write(bf, path, err);
	pme_bucketfile_close(bf);
	spend_strings(p);
	return rc;
}
