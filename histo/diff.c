/*
 * diff.c - the differential report (pmehisto -D): a baseline's bucket
 * counts beside a new run's, buckets matched by their units' names, and
 * the gates that fail a build on growth (pmehisto(1), "Differential
 * reports and gates").
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histo.h"
#include "util.h"

#define DIFF_TITLE "Performance Measurement and Evaluation Differential " \
	"Histogram"
/* A clock gate's confidence that no bucket (nor the total) it fails
 * grew by chance: the family of tests at 1% together (Bonferroni). */
#define DIFF_ALPHA	0.01

/* ------------------------------------------------------------- the gates */

/* Skips "+", reads a number of counts or a percentage into g. */
static int
gate_limit(const char *s, size_t len, struct gate *g)
{
	char buf[64], *end;
	double v;

	if (len > 0 && *s == '+') {
		s++;
		len--;
	}
	if (len == 0 || len >= sizeof(buf) || *s < '0' || *s > '9')
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	if (buf[len - 1] == '%') {
		buf[len - 1] = '\0';
		v = strtod(buf, &end);
		if (errno || *end != '\0' || end == buf || g->pct >= 0 ||
		    !(v < 1e9))
			return -1;
		g->pct = v;
		return 0;
	}
	if (strspn(buf, "0123456789") != len || g->has_abs)
		return -1;
	g->abs = strtoull(buf, &end, 10);
	if (errno)
		return -1;
	g->has_abs = 1;
	return 0;
}

int
gate_parse(const char *s, struct gate *g)
{
	const char *p, *c;

	memset(g, 0, sizeof(*g));
	g->pct = -1;
	g->spec = s;
	if (strncmp(s, "total:", 6) == 0)
		g->total = 1;
	else if (strncmp(s, "bucket:", 7) != 0)
		return -1;
	for (p = strchr(s, ':') + 1;; p = c + 1) {
		c = strchr(p, ',');
		if (gate_limit(p, c ? (size_t)(c - p) : strlen(p), g) == -1)
			return -1;
		if (c == NULL)
			return 0;
	}
}

/* -------------------------------------------------------------- matching */

/* A bucket of one of the two files, by its key. */
struct keyed {
	char		*key;
	uint32_t	 bucket;
};

/* A row of the report: a bucket of either file or both. */
struct drow {
	uint32_t	 nb, bb;	/* bucket of the new file, of the
					   baseline; PME_NONE: none */
	size_t		 group;		/* in struct diff's groups */
	uint64_t	 a, b;		/* raw counts: baseline, new */
	uint64_t	 base;		/* a scaled to the new file's runs */
	uint32_t	 step;		/* the bucket's place in its unit */
	unsigned	 flags;		/* PME_DIFF_* */
	size_t		 gate;		/* the first gate it crossed */
};

/* A group of the report: its title, and the key that matches it. */
struct dgroup {
	const char	*title;		/* the statement of the file met first */
	char		*key;
};

struct diff {
	struct pme_bucketfile *bf[2];	/* baseline, new */
	const struct diff_input *in;
	struct drow	*rows;
	size_t		 nrows;
	struct dgroup	*groups;	/* the new file's, then the
					   baseline's others */
	size_t		 ngroups;
	uint64_t	 total[2];	/* all counts, in buckets or not */
	uint64_t	 runs[2];
	uint64_t	 total_base;	/* the baseline's, scaled */
	unsigned	 total_flags;
	size_t		 total_gate;
	size_t		 tests;		/* for the clock test's Bonferroni */
	size_t		 appeared, vanished, failed;
	int		 clock;
	uint32_t	 own[2];	/* each file's program unit, or
					   PME_NONE (own_unit()) */
	const char	*exe[2];	/* the base name of each file's main
					   executable, or NULL */
};

/* Whether mod is the main executable's load module. */
static int
is_main(struct pme_bucketfile *bf, uint32_t mod)
{
	const struct pme_module *m;
	size_t nm = pme_bucketfile_modules(bf, &m);

	return mod != PME_NONE && mod < nm && (m[mod].flags & PME_MODULE_MAIN);
}

/* A unit's load module in a key: another build of the program keeps
 * the main executable's place whatever its path. */
static const char *
module_key(struct pme_bucketfile *bf, uint32_t mod)
{
	const struct pme_module *m;
	size_t nm = pme_bucketfile_modules(bf, &m);

	if (mod == PME_NONE || mod >= nm)
		return "";
	if (is_main(bf, mod))
		return "(main)";
	return pme_base_name(m[mod].path);
}

/* The program's own unit: the one top unit of the main executable
 * (which -x names after the executable's file); PME_NONE when there is
 * none, or several that only their names tell apart. */
static uint32_t
own_unit(struct pme_bucketfile *bf)
{
	const struct pme_unit *u;
	size_t nu = pme_bucketfile_units(bf, &u), i;
	uint32_t own = PME_NONE;

	for (i = 0; i < nu; i++) {
		if (u[i].parent != PME_NONE || !is_main(bf, u[i].module))
			continue;
		if (own != PME_NONE)
			return PME_NONE;
		own = (uint32_t)i;
	}
	return own;
}

/* The base name of bf's main executable, or NULL. */
static const char *
exe_name(struct pme_bucketfile *bf)
{
	const struct pme_module *m;
	size_t nm = pme_bucketfile_modules(bf, &m), i;

	for (i = 0; i < nm; i++)
		if (is_main(bf, (uint32_t)i) && m[i].path[0] != '\0')
			return pme_base_name(m[i].path);
	return NULL;
}

/* Unit k's name in a key of side s: the program's own unit, and a unit
 * of the main executable named after its file as the quick path names
 * a stripped one's module and its routine ("gz_b", "[gz_b]"), are
 * "(main)" and "[(main)]" whatever the name, so that builds of one
 * source, or copies of one binary, under two names match. */
static const char *
unit_key(const struct diff *d, int s, uint32_t k)
{
	const struct pme_unit *u;
	const char *exe = d->exe[s], *name;
	size_t n;

	pme_bucketfile_units(d->bf[s], &u);
	name = u[k].name;
	if (k == d->own[s])
		return "(main)";
	if (exe == NULL || !is_main(d->bf[s], u[k].module))
		return name;
	n = strlen(exe);
	if (strcmp(name, exe) == 0)
		return "(main)";
	if (name[0] == '[' && strncmp(name + 1, exe, n) == 0 &&
	    strcmp(name + 1 + n, "]") == 0)
		return "[(main)]";
	return name;
}

static void
buf_text(struct pme_buf *b, const char *s)
{
	pme_buf_bytes(b, s, strlen(s));
}

/* The key of group g into b: its statement, but for one that names the
 * program's own unit that unit's key and the kind after BY. */
static void
group_key(struct pme_buf *b, const struct diff *d, int s, uint32_t g)
{
	const struct pme_group *grp;
	const char *const *kinds;
	size_t nk = pme_bucketfile_kinds(d->bf[s], &kinds);

	pme_bucketfile_groups(d->bf[s], &grp);
	if (grp[g].unit != d->own[s]) {
		buf_text(b, grp[g].statement);
		return;
	}
	buf_text(b, "(main) BY ");
	buf_text(b, grp[g].bykind < nk ? kinds[grp[g].bykind] : "");
}

/*
 * The key of bucket i: its group's statement, the names of its unit and
 * of the units above it (only its own with own), its load module, and
 * its place among the unit's buckets of the group (a unit cut in address
 * steps).  \001 separates the parts, which no name holds.
 */
static char *
bucket_key(const struct diff *d, int s, uint32_t i, uint32_t step, int own)
{
	struct pme_bucketfile *bf = d->bf[s];
	const struct pme_unit *u;
	struct pme_bucket *bk;
	size_t nu = pme_bucketfile_units(bf, &u);
	struct pme_buf b;
	uint32_t k, depth = 0;
	char num[32];

	pme_bucketfile_buckets(bf, &bk);
	memset(&b, 0, sizeof(b));
	group_key(&b, d, s, bk[i].group);
	buf_text(&b, "\001");
	buf_text(&b, module_key(bf, u[bk[i].unit].module));
	for (k = bk[i].unit; k < nu && depth++ < (own ? 1 : nu);
	    k = u[k].parent) {
		buf_text(&b, "\001");
		buf_text(&b, unit_key(d, s, k));
	}
	snprintf(num, sizeof(num), "\001%" PRIu32, step);
	pme_buf_bytes(&b, num, strlen(num) + 1);
	if (b.failed) {
		pme_buf_free(&b);
		return NULL;
	}
	return (char *)b.p;
}

static int
cmp_keyed(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	return c ? c : a->bucket < b->bucket ? -1 : a->bucket > b->bucket;
}

static int
cmp_bucket(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;

	return a->bucket < b->bucket ? -1 : a->bucket > b->bucket;
}

static void
keys_free(struct keyed *k, size_t n)
{
	size_t i;

	for (i = 0; k != NULL && i < n; i++)
		free(k[i].key);
	free(k);
}

/*
 * Every bucket's key, sorted.  A key met again (two static routines of
 * one name in a unit that does not tell them apart) is made unique by
 * its order among those, "#2" and on.  NULL when out of memory.
 */
static struct keyed *
keys_make(const struct diff *d, int side, uint32_t *steps, size_t *np)
{
	struct pme_bucket *bk;
	size_t nb = pme_bucketfile_buckets(d->bf[side], &bk), i, j;
	struct keyed *k = calloc(nb + 1, sizeof(*k));
	char *s;
	int n;

	if (k == NULL)
		return NULL;
	for (i = 0; i < nb; i++) {
		steps[i] = i > 0 && bk[i - 1].unit == bk[i].unit &&
		    bk[i - 1].group == bk[i].group ? steps[i - 1] + 1 : 0;
		k[i].bucket = (uint32_t)i;
		if ((k[i].key = bucket_key(d, side, (uint32_t)i, steps[i],
		    0)) == NULL) {
			keys_free(k, nb);
			return NULL;
		}
	}
	qsort(k, nb, sizeof(*k), cmp_keyed);
	for (i = 1, j = 0; i < nb; i++) {
		if (strcmp(k[i].key, k[j].key) != 0) {
			j = i;
			continue;
		}
		n = snprintf(NULL, 0, "%s#%zu", k[i].key, i - j + 1);
		if ((s = malloc((size_t)n + 1)) == NULL) {
			keys_free(k, nb);
			return NULL;
		}
		snprintf(s, (size_t)n + 1, "%s#%zu", k[i].key, i - j + 1);
		free(k[i].key);
		k[i].key = s;
	}
	qsort(k, nb, sizeof(*k), cmp_keyed);
	*np = nb;
	return k;
}

/* The index among d's groups of group g of side s's file, added when
 * new (by its key: the two files' titles of one may differ); -1: no
 * memory. */
static long
group_of(struct diff *d, int s, uint32_t g)
{
	const struct pme_group *grp;
	struct dgroup *v;
	struct pme_buf b;
	size_t i;

	pme_bucketfile_groups(d->bf[s], &grp);
	memset(&b, 0, sizeof(b));
	group_key(&b, d, s, g);
	pme_buf_bytes(&b, "", 1);
	if (b.failed) {
		pme_buf_free(&b);
		return -1;
	}
	for (i = 0; i < d->ngroups; i++)
		if (strcmp(d->groups[i].key, (char *)b.p) == 0) {
			pme_buf_free(&b);
			return (long)i;
		}
	if ((v = realloc(d->groups, (d->ngroups + 1) * sizeof(*v))) ==
	    NULL) {
		pme_buf_free(&b);
		return -1;
	}
	d->groups = v;
	v[d->ngroups].title = grp[g].statement;
	v[d->ngroups].key = (char *)b.p;
	return (long)d->ngroups++;
}

/* The row of new bucket nb and baseline bucket bb (either PME_NONE). */
static int
add_row(struct diff *d, uint32_t nb, uint32_t bb, const uint32_t *steps)
{
	struct pme_bucket *bk;
	struct drow *r = &d->rows[d->nrows];
	int side = nb != PME_NONE ? 1 : 0;
	uint32_t i = nb != PME_NONE ? nb : bb;
	long g;

	pme_bucketfile_buckets(d->bf[side], &bk);
	if ((g = group_of(d, side, bk[i].group)) < 0)
		return -1;
	memset(r, 0, sizeof(*r));
	r->nb = nb;
	r->bb = bb;
	r->group = (size_t)g;
	r->step = steps[i];
	if (nb != PME_NONE)
		r->b = bk[nb].count;
	else
		r->flags |= PME_DIFF_VANISHED;
	if (bb != PME_NONE) {
		pme_bucketfile_buckets(d->bf[0], &bk);
		r->a = bk[bb].count;
	} else
		r->flags |= PME_DIFF_APPEARED;
	d->nrows++;
	return 0;
}

/*
 * The buckets the full keys left unmatched on side s (k[s], sorted),
 * keyed by their unit's own name: bucket is the index into k[s].  *np
 * of them; NULL when out of memory.
 */
static struct keyed *
own_keys(struct diff *d, int s, const struct keyed *k, size_t n,
    const uint32_t *steps, const uint32_t *partner, size_t *np)
{
	struct keyed *o = calloc(n + 1, sizeof(*o));
	size_t i, m = 0;
	uint32_t b;

	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		b = k[i].bucket;
		if (b == PME_NONE || (s == 1 && partner[b] != PME_NONE))
			continue;
		o[m].bucket = (uint32_t)i;
		if ((o[m++].key = bucket_key(d, s, b, steps[b], 1)) ==
		    NULL) {
			keys_free(o, m);
			return NULL;
		}
	}
	qsort(o, m, sizeof(*o), cmp_keyed);
	*np = m;
	return o;
}

/* How many of o[i..n) have o[i]'s key. */
static size_t
run_of(const struct keyed *o, size_t i, size_t n)
{
	size_t j = i + 1;

	while (j < n && strcmp(o[j].key, o[i].key) == 0)
		j++;
	return j - i;
}

/*
 * A second pass over what the full keys left: a bucket whose unit's own
 * name (with the group, the load module and the step) is the only one
 * left of that name on each side is the same, though the units above it
 * differ: a routine moved to another source file, a file renamed.
 */
static int
rematch(struct diff *d, struct keyed **k, const size_t *n,
    uint32_t **steps, uint32_t *partner)
{
	struct keyed *o[2];
	size_t m[2], i, j, ri, rj;
	int c;

	if ((o[0] = own_keys(d, 0, k[0], n[0], steps[0], partner,
	    &m[0])) == NULL)
		return -1;
	if ((o[1] = own_keys(d, 1, k[1], n[1], steps[1], partner,
	    &m[1])) == NULL) {
		keys_free(o[0], m[0]);
		return -1;
	}
	for (i = j = 0; i < m[0] && j < m[1]; i += ri, j += rj) {
		ri = run_of(o[0], i, m[0]);
		rj = run_of(o[1], j, m[1]);
		if ((c = strcmp(o[0][i].key, o[1][j].key)) < 0)
			rj = 0;
		else if (c > 0)
			ri = 0;
		else if (ri == 1 && rj == 1) {
			partner[k[1][o[1][j].bucket].bucket] =
			    k[0][o[0][i].bucket].bucket;
			k[0][o[0][i].bucket].bucket = PME_NONE;
		}
	}
	keys_free(o[0], m[0]);
	keys_free(o[1], m[1]);
	return 0;
}

/*
 * The rows: the new file's buckets in its order, each with the
 * baseline's of the same key; then the baseline's buckets that have no
 * match.  The groups are the new file's, in its order, then the
 * baseline's that it lacks.
 */
static int
match(struct diff *d)
{
	struct keyed *k[2] = { NULL, NULL };
	uint32_t *steps[2], *partner = NULL;
	size_t n[2] = { 0, 0 }, i, j;
	const struct pme_group *grp;
	size_t ng = pme_bucketfile_groups(d->bf[1], &grp);
	struct pme_bucket *bk;
	int rc = -1;

	steps[0] = calloc(pme_bucketfile_buckets(d->bf[0], &bk) + 1,
	    sizeof(uint32_t));
	steps[1] = calloc(pme_bucketfile_buckets(d->bf[1], &bk) + 1,
	    sizeof(uint32_t));
	if (steps[0] == NULL || steps[1] == NULL ||
	    (k[0] = keys_make(d, 0, steps[0], &n[0])) == NULL ||
	    (k[1] = keys_make(d, 1, steps[1], &n[1])) == NULL ||
	    (partner = malloc((n[1] + 1) * sizeof(*partner))) == NULL ||
	    (d->rows = calloc(n[0] + n[1] + 1, sizeof(*d->rows))) == NULL)
		goto done;
	for (i = 0; i < ng; i++)
		if (group_of(d, 1, (uint32_t)i) < 0)
			goto done;
	for (i = 0; i < n[1]; i++)
		partner[i] = PME_NONE;
	/* Both sorted: a merge.  partner[] is by the new bucket; the
	 * baseline's unmatched are marked in their key. */
	for (i = j = 0; i < n[0] && j < n[1];) {
		int c = strcmp(k[0][i].key, k[1][j].key);

		if (c == 0) {
			partner[k[1][j++].bucket] = k[0][i].bucket;
			k[0][i++].bucket = PME_NONE;
		} else if (c < 0)
			i++;
		else
			j++;
	}
	if (rematch(d, k, n, steps, partner) == -1)
		goto done;
	for (i = 0; i < n[1]; i++)
		if (add_row(d, (uint32_t)i, partner[i], steps[1]) == -1)
			goto done;
	/* The vanished, in the baseline's order. */
	qsort(k[0], n[0], sizeof(*k[0]), cmp_bucket);
	for (i = 0; i < n[0]; i++)
		if (k[0][i].bucket != PME_NONE &&
		    add_row(d, PME_NONE, k[0][i].bucket, steps[0]) == -1)
			goto done;
	rc = 0;
done:
	keys_free(k[0], n[0]);
	keys_free(k[1], n[1]);
	free(steps[0]);
	free(steps[1]);
	free(partner);
	return rc;
}

/* ------------------------------------------------------------ statistics */

/* The continued fraction of the incomplete beta function (Lentz). */
static double
beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, dd = 1 - (a + b) * x / (a + 1), h, num, del;
	int m;

	if (fabs(dd) < tiny)
		dd = tiny;
	dd = 1 / dd;
	h = dd;
	for (m = 1; m < 10000000; m++) {
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		dd = 1 + num * dd;
		c = 1 + num / c;
		dd = 1 / (fabs(dd) < tiny ? tiny : dd);
		c = fabs(c) < tiny ? tiny : c;
		h *= dd * c;
		num = -(a + m) * (a + b + m) * x / ((a + 2 * m) *
		    (a + 2 * m + 1));
		dd = 1 + num * dd;
		c = 1 + num / c;
		dd = 1 / (fabs(dd) < tiny ? tiny : dd);
		c = fabs(c) < tiny ? tiny : c;
		del = dd * c;
		h *= del;
		if (fabs(del - 1) < 1e-12)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double
beta_inc(double a, double b, double x)
{
	double lbt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
	    b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * beta_cf(a, b, x) / a;
	return 1 - exp(lbt) * beta_cf(b, a, 1 - x) / b;
}

/*
 * The one-sided p-value of b samples in the new run against a in the
 * baseline, with runs ra and rb: given a + b, b is binomial with
 * p = rb / (ra + rb) when the counts per run are the same (both
 * Poisson), so the chance of b or more is I_p(b, a + 1).
 */
static double
growth_p(uint64_t a, uint64_t b, uint64_t ra, uint64_t rb)
{
	double p = (double)rb / ((double)ra + (double)rb);	/* no wrap */

	if (b == 0)
		return 1;
	return beta_inc((double)b, (double)a + 1, p);
}

/* ---------------------------------------------------------------- gates */

/* Whether growth from base to cur crosses gate g's limits: every limit
 * it has (a percentage of base, a number of counts). */
static int
crosses(const struct gate *g, uint64_t base, uint64_t cur)
{
	uint64_t up = cur - base;

	if (cur <= base)
		return 0;
	if (g->pct >= 0 && base > 0 &&
	    100.0 * (double)up / (double)base <= g->pct)
		return 0;
	return !g->has_abs || up > g->abs;
}

/* The verdict on one comparison: PME_DIFF_FAILED, PME_DIFF_NOISE or 0;
 * *which the first gate crossed.  Counts are exact but for clock
 * samples, whose growth must also be more than chance. */
static unsigned
verdict(const struct diff *d, int total, uint64_t base, uint64_t cur,
    uint64_t a, uint64_t b, size_t *which)
{
	const struct diff_input *in = d->in;
	size_t i;

	for (i = 0; i < in->ngates; i++)
		if (in->gates[i].total == total &&
		    crosses(&in->gates[i], base, cur))
			break;
	*which = i;
	if (i == in->ngates)
		return 0;
	if (!d->clock)
		return PME_DIFF_FAILED;
	return growth_p(a, b, d->runs[0], d->runs[1]) < DIFF_ALPHA /
	    (double)(d->tests ? d->tests : 1) ? PME_DIFF_FAILED :
	    PME_DIFF_NOISE;
}

/* The baseline's count c per run of the new file, rounded. */
static uint64_t
scaled(const struct diff *d, uint64_t c)
{
	if (d->runs[0] == d->runs[1])
		return c;
	return (uint64_t)llround((double)c * (double)d->runs[1] /
	    (double)d->runs[0]);
}

static int
any_gate(const struct diff_input *in, int total)
{
	size_t i;

	for (i = 0; i < in->ngates; i++)
		if (in->gates[i].total == total)
			return 1;
	return 0;
}

static void
judge(struct diff *d)
{
	struct drow *r;
	size_t i;

	d->tests = any_gate(d->in, 1);
	for (i = 0; i < d->nrows; i++)
		if (d->rows[i].a + d->rows[i].b > 0 && any_gate(d->in, 0))
			d->tests++;
	for (i = 0; i < d->nrows; i++) {
		r = &d->rows[i];
		r->base = scaled(d, r->a);
		r->flags |= verdict(d, 0, r->base, r->b, r->a, r->b,
		    &r->gate);
		d->appeared += (r->flags & PME_DIFF_APPEARED) != 0;
		d->vanished += (r->flags & PME_DIFF_VANISHED) != 0;
		d->failed += (r->flags & PME_DIFF_FAILED) != 0;
	}
	d->total_base = scaled(d, d->total[0]);
	d->total_flags = verdict(d, 1, d->total_base, d->total[1],
	    d->total[0], d->total[1], &d->total_gate);
}

/* ------------------------------------------------------------ the report */

/* Rows by group, then by their difference: the largest growth first,
 * then no change, then shrinkage, the largest last; equal differences
 * in the files' order. */
static int
cmp_drow(const void *x, const void *y)
{
	const struct drow *a = x, *b = y;
	int ga = a->b >= a->base, gb = b->b >= b->base;
	uint64_t ma = ga ? a->b - a->base : a->base - a->b;
	uint64_t mb = gb ? b->b - b->base : b->base - b->b;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (ga != gb)
		return ga ? -1 : 1;
	if (ma != mb)
		return (ma > mb) == ga ? -1 : 1;
	if ((a->nb == PME_NONE) != (b->nb == PME_NONE))
		return a->nb == PME_NONE ? 1 : -1;
	if (a->nb != b->nb)
		return a->nb < b->nb ? -1 : 1;
	return a->bb < b->bb ? -1 : a->bb > b->bb;
}

struct diff *
diff_new(struct pme_bucketfile *base, struct pme_bucketfile *cur,
    const struct diff_input *in, struct pme_error *err)
{
	struct pme_info *ia = pme_bucketfile_info(base);
	struct pme_info *ib = pme_bucketfile_info(cur);
	struct diff *d;

	if (ia->measure == PME_MEASURE_NONE) {
		histo_err(err, PME_EINVAL, "'%s': no counts (an empty bucket "
		    "file): nothing to compare with", in->base_name);
		return NULL;
	}
	if (ia->measure == PME_MEASURE_EVENT && ib->measure == ia->measure &&
	    strcmp(pme_bucketfile_event(base, NULL), pme_bucketfile_event(cur,
	    NULL)) != 0) {
		histo_err(err, PME_EINVAL, "'%s' holds samples of %s, '%s' of "
		    "%s: they cannot be compared", in->base_name,
		    pme_bucketfile_event(base, NULL), in->new_name,
		    pme_bucketfile_event(cur, NULL));
		return NULL;
	}
	if (ia->measure != ib->measure) {
		histo_err(err, PME_EINVAL, "'%s' holds %s, '%s' %s: they "
		    "cannot be compared", in->base_name,
		    report_measure(ia->measure), in->new_name,
		    report_measure(ib->measure));
		return NULL;
	}
	if ((d = calloc(1, sizeof(*d))) == NULL) {
		histo_err(err, PME_ENOMEM, "out of memory");
		return NULL;
	}
	d->bf[0] = base;
	d->bf[1] = cur;
	d->own[0] = own_unit(base);
	d->own[1] = own_unit(cur);
	d->exe[0] = exe_name(base);
	d->exe[1] = exe_name(cur);
	d->in = in;
	d->clock = ia->measure == PME_MEASURE_CLOCK;
	d->total[0] = report_total(base);
	d->total[1] = report_total(cur);
	d->runs[0] = ia->runs ? ia->runs : 1;
	d->runs[1] = ib->runs ? ib->runs : 1;
	if (match(d) == -1) {
		diff_free(d);
		histo_err(err, PME_ENOMEM, "out of memory");
		return NULL;
	}
	judge(d);
	qsort(d->rows, d->nrows, sizeof(*d->rows), cmp_drow);
	return d;
}

void
diff_free(struct diff *d)
{
	size_t i;

	if (d == NULL)
		return;
	free(d->rows);
	for (i = 0; i < d->ngroups; i++)
		free(d->groups[i].key);
	free(d->groups);
	free(d);
}

/* Whether the report shows r: not a row of no counts in either file,
 * unless asked (-z). */
static int
shown(const struct diff *d, const struct drow *r)
{
	return d->in->zeros || r->a > 0 || r->b > 0;
}

/* The report's row of r: the new file's bucket, or the baseline's. */
static int
put_row(struct pme_report *rep, const struct diff *d, const struct drow *r,
    uint32_t id, struct pme_error *err)
{
	struct pme_report_row row;

	report_row_of(d->bf[r->nb != PME_NONE],
	    r->nb != PME_NONE ? r->nb : r->bb, &row);
	/* Sorted, the buckets of a unit part: each row says its name. */
	row.unit = id;
	row.count = r->b;
	return pme_report_diff_row(rep, &row, r->base, r->flags, err);
}

static int
put_total(struct pme_report *rep, const struct diff *d,
    struct pme_error *err)
{
	struct pme_report_row row;

	memset(&row, 0, sizeof(row));
	row.name = "(total)";
	row.unit = UINT32_MAX;
	row.count = d->total[1];
	return pme_report_group(rep, "TOTAL", err) == -1 ? -1 :
	    pme_report_diff_row(rep, &row, d->total_base,
	    d->total_flags | PME_DIFF_TOTAL, err);
}

/* A row's name for the summary and messages: the unit, its step when
 * it has several buckets, its group when the report has several. */
static void
row_name(const struct diff *d, const struct drow *r, char *buf, size_t len)
{
	struct pme_report_row row;
	int n;

	report_row_of(d->bf[r->nb != PME_NONE],
	    r->nb != PME_NONE ? r->nb : r->bb, &row);
	n = snprintf(buf, len, "%s", row.name);
	if (r->step > 0 && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " (bucket %" PRIu32
		    " of the unit)", r->step + 1);
	if (d->ngroups > 1 && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " in %s",
		    d->groups[r->group].title);
}

/* The change from base to cur, as the report prints it. */
static void
change(uint64_t base, uint64_t cur, char *buf, size_t len)
{
	uint64_t m = cur >= base ? cur - base : base - cur;

	if (base == 0)
		snprintf(buf, len, "%s%" PRIu64 " from 0", m ? "+" : "", m);
	else
		snprintf(buf, len, "%c%" PRIu64 ", %c%.1f%%",
		    cur >= base ? '+' : '-', m, cur >= base ? '+' : '-',
		    100.0 * (double)m / (double)base);
}

static int
unmatched_lines(struct pme_report *rep, const struct diff *d,
    unsigned flag, const char *label, struct pme_error *err)
{
	char name[512];
	size_t i, n = 0;
	int rc = 0;

	for (i = 0; i < d->nrows && rc == 0; i++) {
		if (!(d->rows[i].flags & flag))
			continue;
		row_name(d, &d->rows[i], name, sizeof(name));
		rc = report_line(rep, n++ == 0 ? label : "", err, "%s", name);
	}
	if (n == 0 && rc == 0)
		rc = report_line(rep, label, err, "none");
	return rc;
}

static int
gate_lines(struct pme_report *rep, const struct diff *d,
    struct pme_error *err)
{
	char name[512], chg[64];
	size_t i, n = 0;
	int rc = 0;

	if (d->in->ngates == 0)
		return 0;
	for (i = 0; i < d->in->ngates && rc == 0; i++)
		rc = report_line(rep, i == 0 ? "Gates" : "", err, "%s",
		    d->in->gates[i].spec);
	if (d->clock && rc == 0)
		rc = report_line(rep, "Test", err, "one-sided exact binomial "
		    "test of the samples per run, %g%% confidence over %zu "
		    "comparison%s (Bonferroni)", 100 * (1 - DIFF_ALPHA),
		    d->tests, d->tests == 1 ? "" : "s");
	if (d->total_flags != 0 && rc == 0) {
		change(d->total_base, d->total[1], chg, sizeof(chg));
		rc = report_line(rep, n++ == 0 ? "Over the limits" : "", err,
		    "(total) %s%s", chg, d->total_flags & PME_DIFF_NOISE ?
		    ": within the noise" : "");
	}
	for (i = 0; i < d->nrows && rc == 0; i++) {
		const struct drow *r = &d->rows[i];

		if (!(r->flags & (PME_DIFF_FAILED | PME_DIFF_NOISE)))
			continue;
		row_name(d, r, name, sizeof(name));
		change(r->base, r->b, chg, sizeof(chg));
		rc = report_line(rep, n++ == 0 ? "Over the limits" : "", err,
		    "%s %s%s", name, chg, r->flags & PME_DIFF_NOISE ?
		    ": within the noise" : "");
	}
	if (rc == 0)
		rc = report_line(rep, "Verdict", err, "%s", d->failed > 0 ||
		    d->total_flags & PME_DIFF_FAILED ? "failed" : "passed");
	return rc;
}

/* What the counts are: pmehisto's wall and I/O measures say their unit
 * ("ns of wall (...)"), others what the file measures. */
static int
counts_line(struct pme_report *rep, struct pme_bucketfile *bf,
    struct pme_error *err)
{
	const char *unit = NULL, *name = NULL;

	if (pme_bucketfile_info(bf)->measure == PME_MEASURE_EVENT)
		name = pme_bucketfile_event(bf, &unit);
	if (name != NULL && unit != NULL && (wall_measure(name) != NULL ||
	    measure_amount(name, unit) != NULL))
		return report_line(rep, "Counts", err, "%s of %s (%s)", unit,
		    name, measure_says(name));
	return report_line(rep, "Counts", err, "%s",
	    report_measure(pme_bucketfile_info(bf)->measure));
}

static int
summary(struct pme_report *rep, const struct diff *d, struct pme_error *err)
{
	char chg[64];
	size_t i, zeros = 0;
	int rc = 0;

	rc |= report_line(rep, "Baseline", err, "%s (%" PRIu64 " run%s)",
	    d->in->base_name, d->runs[0], d->runs[0] == 1 ? "" : "s");
	rc |= report_line(rep, "New", err, "%s (%" PRIu64 " run%s)",
	    d->in->new_name, d->runs[1], d->runs[1] == 1 ? "" : "s");
	rc |= counts_line(rep, d->bf[1], err);
	if (d->runs[0] != d->runs[1])
		rc |= report_line(rep, "", err, "(the baseline's counts "
		    "scaled from %" PRIu64 " runs to %" PRIu64 ")",
		    d->runs[0], d->runs[1]);
	change(d->total_base, d->total[1], chg, sizeof(chg));
	rc |= report_line(rep, "Total", err, "%" PRIu64 " to %" PRIu64 " (%s)",
	    d->total_base, d->total[1], chg);
	rc |= report_line(rep, "Buckets matched", err, "%zu", d->nrows -
	    d->appeared - d->vanished);
	for (i = 0; i < d->nrows; i++)
		zeros += !shown(d, &d->rows[i]);
	if (zeros > 0)
		rc |= report_line(rep, "Left out", err, "%zu bucket%s with no "
		    "counts in either file (-z shows them)", zeros,
		    zeros == 1 ? "" : "s");
	if (rc == 0)
		rc = unmatched_lines(rep, d, PME_DIFF_APPEARED, "Appeared",
		    err);
	if (rc == 0)
		rc = unmatched_lines(rep, d, PME_DIFF_VANISHED, "Vanished",
		    err);
	if (rc == 0)
		rc = gate_lines(rep, d, err);
	return rc ? -1 : 0;
}

struct pme_report *
diff_report(const struct diff *d, struct pme_error *err)
{
	struct pme_report *rep;
	size_t g, i, j, n;
	uint64_t total = d->total[1] > d->total_base ? d->total[1] :
	    d->total_base;
	int quick = (pme_bucketfile_info(d->bf[1])->options |
	    pme_bucketfile_info(d->bf[0])->options) & PME_OPT_QUICK;

	if ((rep = pme_report_new(DIFF_TITLE, total, err)) == NULL)
		return NULL;
	pme_report_options(rep, (d->in->flags & ~PME_REPORT_SORT) |
	    (quick ? PME_REPORT_NOADDR : 0), d->in->cutoff);
	if (pme_report_diff(rep, err) == -1 ||
	    report_unit(rep, d->bf[1], err) == -1)
		goto fail;
	for (g = 0, i = 0; g < d->ngroups; g++) {
		/* A group none of whose rows is shown is left out too. */
		for (j = i, n = 0; j < d->nrows && d->rows[j].group == g; j++)
			n += shown(d, &d->rows[j]);
		if (n > 0 && pme_report_group(rep, d->groups[g].title, err) ==
		    -1)
			goto fail;
		for (; i < j; i++)
			if (shown(d, &d->rows[i]) && put_row(rep, d,
			    &d->rows[i], (uint32_t)i, err) == -1)
				goto fail;
	}
	if (put_total(rep, d, err) == -1 || summary(rep, d, err) == -1)
		goto fail;
	return rep;
fail:
	pme_report_free(rep);
	return NULL;
}

int
diff_tell(const struct diff *d, const char *prog, int quiet)
{
	char name[512], chg[64];
	size_t i;
	int failed = 0;

	if (!quiet && d->appeared + d->vanished > 0)
		histo_warn(prog, "%zu bucket%s of '%s' not in '%s', %zu of "
		    "'%s' not in '%s' (named in the report)", d->appeared,
		    d->appeared == 1 ? "" : "s", d->in->new_name,
		    d->in->base_name, d->vanished, d->in->base_name,
		    d->in->new_name);
	if (d->total_flags & PME_DIFF_FAILED) {
		change(d->total_base, d->total[1], chg, sizeof(chg));
		histo_warn(prog, "gate '%s' failed: the total grew from %"
		    PRIu64 " to %" PRIu64 " (%s)",
		    d->in->gates[d->total_gate].spec, d->total_base,
		    d->total[1], chg);
		failed = 1;
	}
	for (i = 0; i < d->nrows; i++) {
		const struct drow *r = &d->rows[i];

		if (!(r->flags & PME_DIFF_FAILED))
			continue;
		row_name(d, r, name, sizeof(name));
		change(r->base, r->b, chg, sizeof(chg));
		histo_warn(prog, "gate '%s' failed: %s grew from %" PRIu64
		    " to %" PRIu64 " (%s)", d->in->gates[r->gate].spec, name,
		    r->base, r->b, chg);
		failed = 1;
	}
	return failed;
}
