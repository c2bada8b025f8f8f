/*
 * callgrind.c - pmehisto -T callgrind: the call stacks of export.h as a
 * callgrind profile, in the form valgrind --tool=callgrind
 * --dump-instr=no writes (positions are source lines), so that
 * callgrind_annotate and KCachegrind show the samples on the lines they
 * fell on: a function's own cost per line of the sampled pcs, its calls
 * at the lines of their call sites (the return address less one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "export.h"
#include "measure.h"
#include "util.h"

/*
 * A cost at a line of function fn: its own (callee UINT32_MAX), or a call
 * from it to callee at that line, costed with the samples of the stacks
 * the call is on, counted once per stack: at the outermost of the
 * callee's frames, so that callgrind_annotate --inclusive=yes, which
 * sums the calls into a function, gives each the samples whose stacks
 * hold it, recursion or not.  The caller of a stack's outermost frame is
 * the root, (all), index nnames.
 */
struct cost {
	uint32_t	 fn, callee;
	const char	*file;		/* the line's, or NULL: fn's */
	uint32_t	 line;
	uint64_t	 cost;
};

#define SELF	UINT32_MAX

static int
str_cmp(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

/* By function, its own costs before its calls, then by file and line. */
static int
cost_cmp(const void *a, const void *b)
{
	const struct cost *x = a, *y = b;
	int c;

	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	if ((x->callee == SELF) != (y->callee == SELF))
		return x->callee == SELF ? -1 : 1;
	if ((c = str_cmp(x->file, y->file)) != 0)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->callee < y->callee ? -1 : x->callee > y->callee;
}

/* The location of the frame in pool slot j, or NULL. */
static const struct xloc *
slot_loc(const struct xmodel *m, size_t j)
{
	return m->locof != NULL ? &m->locs[m->locof[j]] : NULL;
}

static void
cost_at(struct cost *c, uint32_t fn, uint32_t callee, const struct xloc *l,
    uint64_t cost)
{
	c->fn = fn;
	c->callee = callee;
	c->file = l != NULL ? l->file : NULL;
	c->line = l != NULL ? l->line : 0;
	c->cost = cost;
}

/* The costs of m's stacks, sorted, merged (*n of them); NULL when out
 * of memory. */
static struct cost *
costs_of(const struct xmodel *m, size_t *ncost)
{
	struct cost *c;
	size_t *seen, n = 0, i, j, k;
	const uint32_t root = (uint32_t)m->nnames;

	for (i = 0, k = 0; i < m->nst; i++)
		k += m->st[i].n + 1;
	if ((seen = calloc(m->nnames + 1, sizeof(*seen))) == NULL ||
	    (c = calloc(k + 1, sizeof(*c))) == NULL) {
		free(seen);
		return NULL;
	}
	for (i = 0; i < m->nst; i++) {
		const struct xstack *s = &m->st[i];
		const uint32_t *a = m->pool + s->off;

		for (j = 0; j < s->n; j++) {
			if (seen[a[j]] == i + 1)
				continue;
			seen[a[j]] = i + 1;
			cost_at(&c[n++], j == 0 ? root : a[j - 1], a[j],
			    j == 0 ? NULL : slot_loc(m, s->off + j - 1),
			    s->count);
		}
		cost_at(&c[n++], a[s->n - 1], SELF, slot_loc(m, s->off +
		    s->n - 1), s->count);
	}
	free(seen);
	qsort(c, n, sizeof(*c), cost_cmp);
	for (i = k = 0; i < n; i++)
		if (k > 0 && cost_cmp(&c[k - 1], &c[i]) == 0)
			c[k - 1].cost += c[i].cost;
		else
			c[k++] = c[i];
	*ncost = k;
	return c;
}

/* Compressed names (callgrind's "(id) name" once, "(id)" after): the
 * ids of one kind of name, those already given. */
struct cgnames {
	struct strset	 set;
	unsigned char	*given;
	size_t		 cap;
};

/* Name s, whose id is i + 1, under key. */
static int
cg_id(FILE *fp, const char *key, struct cgnames *k, size_t i, const char *s)
{
	if (i >= k->cap) {
		size_t cap = (i + 1) * 2;
		unsigned char *v = realloc(k->given, cap);

		if (v == NULL)
			return -1;
		memset(v + k->cap, 0, cap - k->cap);
		k->given = v;
		k->cap = cap;
	}
	if (k->given[i])
		return fprintf(fp, "%s=(%zu)\n", key, i + 1) < 0 ? -1 : 0;
	k->given[i] = 1;
	return fprintf(fp, "%s=(%zu) %s\n", key, i + 1, s) < 0 ? -1 : 0;
}

static int
cg_name(FILE *fp, const char *key, struct cgnames *k, const char *s)
{
	size_t i = strset_add(&k->set, s);

	return i == (size_t)-1 ? -1 : cg_id(fp, key, k, i, s);
}

struct cg {
	const struct xmodel *m;
	FILE		*fp;
	struct cgnames	 ob, fl, fn;
	const char	**home;		/* per name: its file, or NULL */
	const char	*file;		/* the file of the cost lines now */
};

/* Name index i's source file (the root's when i is nnames). */
static const char *
cg_file(const struct cg *g, uint32_t i)
{
	return i < g->m->nnames && g->home[i] != NULL ? g->home[i] : "???";
}

/*
 * Each name's file: its unit's, or where it has none (a module in no
 * bucket, as '[libc.so.6]') the file of its largest cost with a line.
 * callgrind_annotate names a function by its file and ties the object
 * to the function's own file only, so that costs in another file (fi=)
 * are listed apart without it.
 */
static const char **
homes(const struct xmodel *m, const struct cost *c, size_t n)
{
	const char **home = calloc(m->nnames + 1, sizeof(*home));
	uint64_t *best = calloc(m->nnames + 1, sizeof(*best));
	size_t i;

	if (home != NULL && best != NULL) {
		for (i = 0; i < m->nnames; i++)
			home[i] = m->names[i].file;
		for (i = 0; i < n; i++)
			if (c[i].fn < m->nnames && m->names[c[i].fn].file ==
			    NULL && c[i].file != NULL && c[i].cost >
			    best[c[i].fn]) {
				home[c[i].fn] = c[i].file;
				best[c[i].fn] = c[i].cost;
			}
	} else {
		free(home);
		home = NULL;
	}
	free(best);
	return home;
}

/* The object, file and function lines of name index i (the root's when
 * i is nnames), with prefix "" or "c" (a call's callee). */
static int
cg_fn(struct cg *g, uint32_t i, const char *prefix)
{
	const struct xname *x = i < g->m->nnames ? &g->m->names[i] : NULL;
	char key[8];

	/* Each time: callgrind_annotate keeps the last object named. */
	snprintf(key, sizeof(key), "%sob", prefix);
	if (cg_name(g->fp, key, &g->ob, x != NULL && x->path != NULL ?
	    x->path : "???") == -1)
		return -1;
	snprintf(key, sizeof(key), "%s", prefix[0] ? "cfi" : "fl");
	if (cg_name(g->fp, key, &g->fl, cg_file(g, i)) == -1)
		return -1;
	/* Functions are numbered as the names, the root after them. */
	snprintf(key, sizeof(key), "%sfn", prefix);
	return cg_id(g->fp, key, &g->fn, i, x != NULL ? x->name : "(all)");
}

/* Name index i's first line, the target of calls to it. */
static uint32_t
cg_line(const struct cg *g, uint32_t i)
{
	return i < g->m->nnames ? g->m->names[i].line : 0;
}

/* The cost line of c (after a calls= line for a call), under an fi=
 * line when its file is not the one of the lines before. */
static int
cg_cost(struct cg *g, const struct cost *c)
{
	const char *file = c->file != NULL ? c->file : cg_file(g, c->fn);

	if (strcmp(file, g->file) != 0) {
		if (cg_name(g->fp, "fi", &g->fl, file) == -1)
			return -1;
		g->file = file;
	}
	/* Samples do not count calls, and the format has no unknown
	 * count: 1, the call was made (callgrind_annotate takes a count
	 * of 0 for no call and books the cost as the caller's own). */
	if (c->callee != SELF && (cg_fn(g, c->callee, "c") == -1 ||
	    fprintf(g->fp, "calls=1 %u\n", cg_line(g, c->callee)) < 0))
		return -1;
	return fprintf(g->fp, "%u %llu\n", c->line,
	    (unsigned long long)c->cost) < 0 ? -1 : 0;
}

/* Function f's lines: its own costs, then its calls, c[0..n).  Every
 * function has them, so that each is named with its object. */
static int
cg_function(struct cg *g, uint32_t f, const struct cost *c, size_t n)
{
	size_t i;

	if (fputc('\n', g->fp) == EOF || cg_fn(g, f, "") == -1)
		return -1;
	g->file = cg_file(g, f);
	/* A cost line even of 0: callgrind_annotate annotates a source
	 * file only from them, and warns on one with calls only. */
	if (f < g->m->nnames && (n == 0 || c[0].callee != SELF) &&
	    fprintf(g->fp, "%u 0\n", cg_line(g, f)) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (cg_cost(g, &c[i]) == -1)
			return -1;
	return 0;
}

/* The root first, then the functions in the order of their names. */
static int
cg_body(struct cg *g, const struct cost *c, size_t n)
{
	const uint32_t root = (uint32_t)g->m->nnames;
	size_t i = 0, k, first;
	uint32_t f;

	/* The root's calls sort last (its index is the largest). */
	for (k = n; k > 0 && c[k - 1].fn == root; k--)
		;
	if (cg_function(g, root, c + k, n - k) == -1)
		return -1;
	for (f = 0; f < root; f++) {
		for (first = i; i < k && c[i].fn == f; i++)
			;
		if (cg_function(g, f, c + first, i - first) == -1)
			return -1;
	}
	return 0;
}

/* The event line: a clock's samples, or a weighted measure's unit
 * (pmehisto's wall time, states and I/O: "ns"). */
static int
cg_event(const struct xmodel *m, FILE *fp)
{
	const struct measure *ms = &m->t->measure;

	if (ms->kind != PME_EV_WALL)
		return fprintf(fp, "event: Samples : clock samples\n"
		    "events: Samples\n");
	return fprintf(fp, "event: %s : %s of %s (%s)\nevents: %s\n",
	    ms->unit, ms->unit, ms->name, wall_measure(ms->name), ms->unit);
}

int
callgrind_write(const struct xmodel *m, FILE *fp)
{
	struct cg g;
	struct cost *c;
	size_t n;
	int rc = -1;

	memset(&g, 0, sizeof(g));
	g.m = m;
	g.fp = fp;
	if ((c = costs_of(m, &n)) == NULL)
		return -1;
	if ((g.home = homes(m, c, n)) == NULL)
		goto done;
	if (fprintf(fp, "# callgrind format\nversion: 1\n"
	    "creator: pmehisto (pme) %s\n", PME_VERSION_STRING) < 0 ||
	    (m->command != NULL && fprintf(fp, "cmd: %s\n", m->command) < 0) ||
	    fprintf(fp, "positions: line\n") < 0 || cg_event(m, fp) < 0)
		goto done;
	if (cg_body(&g, c, n) == -1 ||
	    fprintf(fp, "\ntotals: %llu\n", (unsigned long long)m->total) < 0)
		goto done;
	rc = 0;
done:
	free(c);
	free(g.home);
	strset_free(&g.ob.set);
	strset_free(&g.fl.set);
	free(g.ob.given);
	free(g.fl.given);
	free(g.fn.given);
	return rc;
}

/* ------------------------------------------------ trace input: counts */

/*
 * pmehisto -t -T callgrind: a filled bucket file (pmetrace's) as a
 * callgrind profile.  It holds counts per bucket and, from pmetrace's
 * pmevg and callgrind engines, the calls into each routine (a second
 * count, "calls", on the bucket of its entry), but no call stacks: who
 * called is not known.  So the calls are an event, "Calls", booked to
 * the called routine at its entry, exact, and there are no calls= lines
 * at all (they would need a caller).  A bucket is a cost of the routine
 * unit that holds it (the unit itself where none does), at its unit's
 * line; the counts in a module outside the buckets are the function
 * "[module]", as in the stacks.
 */
struct tcost {
	uint32_t	 fn;		/* a unit, or PME_NONE: the outside
					   counts of module mod */
	uint32_t	 mod;
	const char	*file;		/* the bucket unit's, raw, or NULL */
	uint32_t	 line;
	uint64_t	 count, calls;
};

struct tcg {
	FILE		*fp;
	struct cgnames	 ob, fl, fn;
	char		**own;		/* the escaped strings named */
	size_t		 nown;
	const struct pme_unit *units;
	const struct pme_module *mods;
	size_t		 nmods;
	int		 calls;		/* a second event */
};

static int
tcost_cmp(const void *a, const void *b)
{
	const struct tcost *x = a, *y = b;
	int c;

	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	if (x->mod != y->mod)
		return x->mod < y->mod ? -1 : 1;
	if ((c = str_cmp(x->file, y->file)) != 0)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The routine unit that holds unit u (u when none does). */
static uint32_t
routine_of(const struct pme_bucketfile *bf, const struct pme_unit *units,
    uint32_t u)
{
	const char *const *kinds;
	size_t nk = pme_bucketfile_kinds(bf, &kinds);
	uint32_t r;

	for (r = u; r != PME_NONE; r = units[r].parent)
		if (units[r].kind < nk && strcasecmp(kinds[units[r].kind],
		    "ROUTINE") == 0)
			return r;
	return u;
}

/* Names s (escaped, kept until the end) under key; 0 or -1. */
static int
tcg_name(struct tcg *g, const char *key, struct cgnames *k, const char *s)
{
	char **v, *e;

	if ((e = pme_escape_dup(s != NULL ? s : "???")) == NULL ||
	    (v = realloc(g->own, (g->nown + 1) * sizeof(*v))) == NULL) {
		free(e);
		return -1;
	}
	g->own = v;
	v[g->nown++] = e;
	return cg_name(g->fp, key, k, e);
}

/* The file and object of function c->fn, then its name. */
static int
tcg_fn(struct tcg *g, const struct tcost *c, const char **file)
{
	const struct pme_unit *u = c->fn != PME_NONE ? &g->units[c->fn] :
	    NULL;
	uint32_t mod = u != NULL ? u->module : c->mod;
	const char *path = mod < g->nmods ? g->mods[mod].path : NULL, *base;
	char buf[512];

	*file = u != NULL ? u->file : NULL;
	if (fputc('\n', g->fp) == EOF || tcg_name(g, "ob", &g->ob, path !=
	    NULL && path[0] != '\0' ? path : NULL) == -1 ||
	    tcg_name(g, "fl", &g->fl, *file) == -1)
		return -1;
	if (u != NULL)
		return tcg_name(g, "fn", &g->fn, u->name);
	base = path == NULL ? "unmapped" : strrchr(path, '/') != NULL ?
	    strrchr(path, '/') + 1 : path;
	snprintf(buf, sizeof(buf), "[%s]", base);
	return tcg_name(g, "fn", &g->fn, buf);
}

/* The cost lines of c[0..n), a function's after another's. */
static int
tcg_body(struct tcg *g, const struct tcost *c, size_t n)
{
	const char *home = NULL, *file = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		if (i == 0 || c[i].fn != c[i - 1].fn || c[i].mod !=
		    c[i - 1].mod) {
			if (tcg_fn(g, &c[i], &home) == -1)
				return -1;
			file = home;
		}
		if (str_cmp(c[i].file != NULL ? c[i].file : home, file) != 0) {
			file = c[i].file != NULL ? c[i].file : home;
			if (tcg_name(g, "fi", &g->fl, file) == -1)
				return -1;
		}
		if (fprintf(g->fp, "%u %llu", c[i].line,
		    (unsigned long long)c[i].count) < 0 || (g->calls &&
		    fprintf(g->fp, " %llu", (unsigned long long)c[i].calls) <
		    0) || fputc('\n', g->fp) == EOF)
			return -1;
	}
	return 0;
}

/* The costs of bf's buckets and outside counts, sorted; NULL when out
 * of memory. */
static struct tcost *
tcosts(struct pme_bucketfile *bf, const struct tcg *g, size_t *n)
{
	struct pme_bucket *bk;
	uint64_t *c2 = NULL;
	size_t nb = pme_bucketfile_buckets(bf, &bk), i, k = 0;
	struct tcost *c = calloc(nb + g->nmods + 2, sizeof(*c));

	if (c == NULL)
		return NULL;
	if (g->calls)
		pme_bucketfile_counts2(bf, &c2);
	for (i = 0; i < nb; i++) {
		const struct pme_unit *u = &g->units[bk[i].unit];

		if (bk[i].count == 0 && (c2 == NULL || c2[i] == 0))
			continue;
		c[k].fn = routine_of(bf, g->units, bk[i].unit);
		c[k].mod = u->module;
		c[k].file = u->file;
		c[k].line = u->line;
		c[k].count = bk[i].count;
		c[k++].calls = c2 != NULL ? c2[i] : 0;
	}
	for (i = 0; i < g->nmods; i++)
		if (g->mods[i].outside != 0) {
			c[k].fn = PME_NONE;
			c[k].mod = (uint32_t)i;
			c[k++].count = g->mods[i].outside;
		}
	/* Counts at addresses in no module: "[unmapped]". */
	if (pme_bucketfile_info(bf)->unmapped != 0) {
		c[k].fn = c[k].mod = PME_NONE;
		c[k++].count = pme_bucketfile_info(bf)->unmapped;
	}
	qsort(c, k, sizeof(*c), tcost_cmp);
	*n = k;
	return c;
}

/* callgrind's name of the counts of measure m. */
static const char *
event_name(uint32_t m)
{
	switch (m) {
	case PME_MEASURE_INSTR:
		return "Ir";
	case PME_MEASURE_CLOCK:
		return "Samples";
	case PME_MEASURE_PAGEFAULT:
		return "Faults";
	case PME_MEASURE_BYTES:
		return "Bytes";
	default:
		return "Events";
	}
}

static int
tcg_header(struct tcg *g, struct pme_bucketfile *bf)
{
	const struct pme_info *info = pme_bucketfile_info(bf);
	const char *ev = event_name(info->measure);

	if (fprintf(g->fp, "# callgrind format\nversion: 1\n"
	    "creator: pmehisto (pme) %s\npositions: line\n"
	    "event: %s : %s\n", PME_VERSION_STRING, ev,
	    report_measure(info->measure)) < 0 || (g->calls &&
	    fprintf(g->fp, "event: Calls : calls into the routine\n") < 0))
		return -1;
	return fprintf(g->fp, "events: %s%s\n", ev, g->calls ? " Calls" :
	    "") < 0 ? -1 : 0;
}

int
callgrind_counts(struct pme_bucketfile *bf, FILE *fp)
{
	struct tcg g;
	struct tcost *c;
	const char *name;
	uint64_t total = 0, calls = 0;
	size_t n, i;
	int rc = -1;

	memset(&g, 0, sizeof(g));
	g.fp = fp;
	pme_bucketfile_units(bf, &g.units);
	g.nmods = pme_bucketfile_modules(bf, &g.mods);
	name = pme_bucketfile_counts2(bf, NULL);
	g.calls = name != NULL && strcmp(name, "calls") == 0;
	if ((c = tcosts(bf, &g, &n)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		total += c[i].count;
		calls += c[i].calls;
	}
	if (tcg_header(&g, bf) == 0 && tcg_body(&g, c, n) == 0 &&
	    fprintf(fp, "\ntotals: %llu", (unsigned long long)total) >= 0 &&
	    (!g.calls || fprintf(fp, " %llu", (unsigned long long)calls) >=
	    0) && fputc('\n', fp) != EOF)
		rc = 0;
	free(c);
	for (i = 0; i < g.nown; i++)
		free(g.own[i]);
	free(g.own);
	strset_free(&g.ob.set);
	strset_free(&g.fl.set);
	strset_free(&g.fn.set);
	free(g.ob.given);
	free(g.fl.given);
	free(g.fn.given);
	return rc;
}
