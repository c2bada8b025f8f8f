/*
 * callgraph.c - the call graph as gprof prints it (pmehisto -V
 * callgraph), and the callers and callees of one routine (-V
 * callers:ROUTINE, the Spy's "who called it"), from the samples' call
 * chains (calls.h).  Sampling counts no calls: where gprof has call
 * counts these views have samples.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "util.h"

struct cg {
	const struct calls *c;
	double		 cutoff;
	FILE		*fp;
	uint32_t	*index;		/* gprof's [n] of each procedure, 0:
					   not shown */
	uint32_t	*v;		/* calls of all sites, by caller */
	uint32_t	*u;		/* the same by callee */
};

static int
by_caller(const void *a, const void *b, void *arg)
{
	const struct calls *c = arg;
	const struct edge *p = &c->e[*(const uint32_t *)a];
	const struct edge *q = &c->e[*(const uint32_t *)b];

	if (p->caller != q->caller)
		return p->caller < q->caller ? -1 : 1;
	if (p->count != q->count)		/* children: largest first */
		return p->count > q->count ? -1 : 1;
	return strcmp(c->p[p->callee].name, c->p[q->callee].name);
}

static int
by_callee(const void *a, const void *b, void *arg)
{
	const struct calls *c = arg;
	const struct edge *p = &c->e[*(const uint32_t *)a];
	const struct edge *q = &c->e[*(const uint32_t *)b];

	if (p->callee != q->callee)
		return p->callee < q->callee ? -1 : 1;
	if (p->count != q->count)		/* parents: smallest first */
		return p->count < q->count ? -1 : 1;
	return strcmp(c->p[p->caller].name, c->p[q->caller].name);
}

/* A caller's or callee's line: the call's samples in the callee itself
 * and in what it called, and the name with its index. */
static void
call_line(const struct cg *g, const struct edge *e, uint32_t who)
{
	const struct calls *c = g->c;

	fprintf(g->fp, "%15s %9llu %9llu        %s", "",
	    (unsigned long long)e->self,
	    (unsigned long long)(e->count - e->self), c->p[who].name);
	if (g->index[who] != 0)
		fprintf(g->fp, " [%u]", g->index[who]);
	fputc('\n', g->fp);
}

/* The first of v[0..n) (edges sorted by key) whose key is k, or n. */
static size_t
first_of(const struct calls *c, const uint32_t *v, size_t n, uint32_t k,
    int callee)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct edge *e = &c->e[v[mid]];

		if ((callee ? e->callee : e->caller) < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
entry(const struct cg *g, uint32_t i, size_t ne)
{
	const struct calls *c = g->c;
	const struct proc *p = &c->p[i];
	const struct edge *e;
	char idx[16];
	size_t j;

	if (p->outer)
		fprintf(g->fp, "%44s<spontaneous>\n", "");
	for (j = first_of(c, g->u, ne, i, 1); j < ne &&
	    (e = &c->e[g->u[j]])->callee == i; j++)
		if (e->caller != i && calls_shown(c, e->count, g->cutoff))
			call_line(g, e, e->caller);
	snprintf(idx, sizeof(idx), "[%u]", g->index[i]);
	fprintf(g->fp, "%-7s %7.1f %9llu %9llu    %s %s\n", idx,
	    calls_pct(c, p->total), (unsigned long long)p->self,
	    (unsigned long long)(p->total - p->self), p->name, idx);
	for (j = first_of(c, g->v, ne, i, 0); j < ne &&
	    (e = &c->e[g->v[j]])->caller == i; j++)
		if (e->callee != i && calls_shown(c, e->count, g->cutoff))
			call_line(g, e, e->callee);
	fputs("-----------------------------------------------\n", g->fp);
}

/* The calls of all sites, sorted by caller into g->v, by callee into
 * g->u; their count. */
static size_t
sorted_calls(struct cg *g)
{
	const struct calls *c = g->c;
	size_t n = 0, i;

	for (i = 0; i < c->ne; i++)
		if (c->e[i].site == SITE_ANY)
			g->v[n++] = (uint32_t)i;
	memcpy(g->u, g->v, n * sizeof(*g->u));
	qsort_r(g->v, n, sizeof(*g->v), by_caller, (void *)c);
	qsort_r(g->u, n, sizeof(*g->u), by_callee, (void *)c);
	return n;
}

int
callgraph_write(const struct calls *c, double cutoff, FILE *fp,
    struct pme_error *err)
{
	struct cg g;
	uint32_t *order = malloc((c->np + 1) * sizeof(*order));
	size_t i, n = 0, ne;
	char *cmd, every[1200];

	memset(&g, 0, sizeof(g));
	g.c = c;
	g.cutoff = cutoff;
	g.fp = fp;
	g.index = calloc(c->np + 1, sizeof(*g.index));
	g.v = malloc((c->ne + 1) * sizeof(*g.v));
	g.u = malloc((c->ne + 1) * sizeof(*g.u));
	if (order == NULL || g.index == NULL || g.v == NULL || g.u == NULL) {
		free(order);
		free(g.index);
		free(g.v);
		free(g.u);
		return histo_err(err, PME_ENOMEM, "out of memory");
	}
	for (i = 0; i < c->np; i++)
		order[i] = (uint32_t)i;
	calls_sort_total(c, order, c->np);
	for (i = 0; i < c->np; i++)
		if (calls_shown(c, c->p[order[i]].total, cutoff)) {
			n++;
			g.index[order[i]] = (uint32_t)n;
		}
	ne = sorted_calls(&g);
	cmd = pme_escape_dup(c->t->command != NULL ? c->t->command : "");
	fprintf(fp, "Call graph of: %s\n"
	    "%llu samples%s; entries at or above %g%% of them\n\n"
	    "Each entry: the procedure's callers (the samples of their calls "
	    "of it in\nit and in what it called), its line [index], its "
	    "callees likewise.\n%%total: samples with it in the stack, once "
	    "however deep.\n\n"
	    "index  %%total      self  children    name\n",
	    cmd != NULL ? cmd : "?",
	    (unsigned long long)c->total, report_every(c->t, every,
	    sizeof(every)), cutoff);
	free(cmd);
	for (i = 0; i < n; i++)
		entry(&g, order[i], ne);
	free(order);
	free(g.index);
	free(g.v);
	free(g.u);
	return 0;
}

static int
by_site_name(const void *a, const void *b, void *arg)
{
	const struct calls *c = arg;
	const struct edge *p = &c->e[*(const uint32_t *)a];
	const struct edge *q = &c->e[*(const uint32_t *)b];
	int d;

	if ((d = strcmp(c->p[p->caller].name, c->p[q->caller].name)) != 0)
		return d;
	if (p->site != q->site)
		return p->site < q->site ? -1 : 1;
	return strcmp(c->p[p->callee].name, c->p[q->callee].name);
}

/* The calls of one site into or out of procedure i, sorted. */
static void
site_lines(const struct calls *c, uint32_t i, int out, double cutoff,
    uint32_t *v, FILE *fp)
{
	size_t j, n = 0;

	for (j = 0; j < c->ne; j++) {
		const struct edge *e = &c->e[j];

		if ((out ? e->caller : e->callee) == i &&
		    e->site != SITE_ANY && calls_shown(c, e->count, cutoff))
			v[n++] = (uint32_t)j;
	}
	qsort_r(v, n, sizeof(*v), by_site_name, (void *)c);
	if (n == 0)
		fputs("   (none)\n", fp);
	for (j = 0; j < n; j++) {
		const struct edge *e = &c->e[v[j]];

		if (out)
			fprintf(fp, "   (0x%llx) %s", (unsigned long long)
			    e->site + 1, c->p[e->callee].name);
		else
			fprintf(fp, "   %s (0x%llx)", c->p[e->caller].name,
			    (unsigned long long)e->site + 1);
		fprintf(fp, " = %llu (%.1f%%).\n",
		    (unsigned long long)e->count, calls_pct(c, e->count));
	}
}

/*
 * The length of name less its parameter list: up to the '(' that opens
 * the parentheses its last ')' closes ("dots(int)", "f(int) const",
 * "operator()(int)", "(anonymous namespace)::g(int)"); all of it when it
 * has none.
 */
static size_t
unparamed(const char *name)
{
	const char *close = strrchr(name, ')'), *p;
	int depth = 0;

	if (close == NULL)
		return strlen(name);
	for (p = close; p > name; p--) {
		depth += *p == ')' ? 1 : *p == '(' ? -1 : 0;
		if (depth == 0)
			break;
	}
	return depth == 0 && p > name ? (size_t)(p - name) : strlen(name);
}

/* Whether procedure name is the routine asked for: the same, or the
 * same without its parameters (a C++ routine named as in C). */
static int
is_routine(const char *name, const char *routine)
{
	size_t n = unparamed(name);

	return strcmp(name, routine) == 0 || (n < strlen(name) &&
	    strlen(routine) == n && strncmp(name, routine, n) == 0);
}

/* The name less its parameters of c's procedure nearest routine, for
 * "did you mean" (what -V callers: takes), escaped; NULL when none is
 * near.  The caller frees it. */
static char *
near_routine(const struct calls *c, const char *routine)
{
	struct pme_near nr;
	size_t i, d, best = 0;
	char *bare, *e;

	pme_near_init(&nr, routine);
	for (i = 0; i < c->np; i++) {
		const char *name = c->p[i].name;

		bare = strndup(name, unparamed(name));
		if (bare != NULL && (d = pme_near_dist(&nr, bare)) != SIZE_MAX)
			nr.name = name, nr.best = d, best = i;
		free(bare);
	}
	if (nr.name == NULL || (bare = strndup(c->p[best].name,
	    unparamed(c->p[best].name))) == NULL)
		return NULL;
	e = pme_escape_dup(bare);
	free(bare);
	return e;
}

/* The error of a routine no procedure is, with the nearest name. */
static int
no_routine(const struct calls *c, const char *routine,
    struct pme_error *err)
{
	char *near = near_routine(c, routine);

	histo_err(err, PME_EINVAL, "-V callers:%s: no routine of that name in "
	    "the call chains%s%s%s", routine, near ? "; did you mean '" : "",
	    near ? near : "", near ? "'?" : "");
	free(near);
	return -1;
}

int
callers_write(const struct calls *c, const char *routine, double cutoff,
    FILE *fp, struct pme_error *err)
{
	uint32_t *v = malloc((c->ne + 1) * sizeof(*v));
	size_t i, found = 0;

	if (v == NULL)
		return histo_err(err, PME_ENOMEM, "out of memory");
	for (i = 0; i < c->np; i++) {
		const struct proc *p = &c->p[i];

		if (!is_routine(p->name, routine))
			continue;
		fprintf(fp, "%s%s (%u ref%s) = %llu, %llu (%.1f%%) "
		    "(%.1f%%).\n", found++ ? "\n" : "", p->name, p->refs,
		    p->refs == 1 ? "" : "s", (unsigned long long)p->self,
		    (unsigned long long)(p->total - p->self),
		    calls_pct(c, p->self), calls_pct(c, p->total));
		fputs("Called by:\n", fp);
		site_lines(c, (uint32_t)i, 0, cutoff, v, fp);
		fputs("Calls:\n", fp);
		site_lines(c, (uint32_t)i, 1, cutoff, v, fp);
	}
	free(v);
	return found == 0 ? no_routine(c, routine, err) : 0;
}
