/*
 * spy.c - the Cedar Spy's report of the call chains (pmehisto -V spy;
 * the seed's "Interpreting the Results"): a header with the run's
 * parameters and totals; the threads of each process with their shares
 * and the procedures they ran in; the procedures, each with its counts,
 * its refs and the calls it made, sorted by site, indented under its
 * immediate dominator in the call graph, siblings joined in disjoint
 * sets ('!' within a set, '.' between sets); and the highly active
 * procedures by pc.  pmehisto(1) describes the layout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "pme_symbols.h"
#include "util.h"

#define RULE "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~"

struct out {
	const struct calls *c;
	double		 cutoff;
	FILE		*fp;
	uint32_t	*kids;		/* children of each procedure in the */
	uint32_t	*koff;		/*   dominator tree: kids[koff[i]..
					   koff[i + 1]), the root's last */
	char		*rails;		/* the rail of each level */
	uint8_t		*mark;		/* reach(): visited */
	uint32_t	*stack;
	uint32_t	*eoff;		/* calls of each procedure in e order */
	uint32_t	*eidx;
};

static void
section(FILE *fp, const char *title)
{
	fprintf(fp, "\n%s\n%s\n%s\n", RULE, title, RULE);
}

/* "= SELF, CALLEES (SELF%) (TOTAL%)." of procedure p. */
static void
counts(const struct out *o, const struct proc *p)
{
	const struct calls *c = o->c;

	fprintf(o->fp, "%u ref%s) = %llu, %llu", p->refs,
	    p->refs == 1 ? "" : "s", (unsigned long long)p->self,
	    (unsigned long long)(p->total - p->self));
	if (calls_shown(c, p->self, o->cutoff))
		fprintf(o->fp, " (%.1f%%)", calls_pct(c, p->self));
	fprintf(o->fp, " (%.1f%%).\n", calls_pct(c, p->total));
}

static void
header(const struct out *o)
{
	const struct calls *c = o->c;
	const struct tally *t = c->t;
	size_t i, nprocs = 0;
	char *cmd, every[1200];

	for (i = 0; i < c->np; i++)
		nprocs += calls_shown(c, c->p[i].total, o->cutoff);
	cmd = pme_escape_dup(t->command != NULL ? t->command : "");

	fprintf(o->fp, "Spy of: %s\n", cmd != NULL ? cmd : "?");
	free(cmd);
	fprintf(o->fp, "Watching: %s%s\n", report_method(t->method),
	    report_watched(t));
	if (t->duration > 0)
		fprintf(o->fp, "Ran for: %.3f s", (double)t->duration / 1e9);
	if (t->status >= 0)
		fprintf(o->fp, "%s %d", t->duration > 0 ? "; exit status" :
		    "Exit status:", t->status);
	else if (t->status == PME_STATUS_RUNNING)
		fprintf(o->fp, "%s", t->duration > 0 ? "; still running "
		    "at the end" : "Still running at the end");
	if (t->duration > 0 || t->status >= 0 ||
	    t->status == PME_STATUS_RUNNING)
		fputc('\n', o->fp);
	fprintf(o->fp, "Samples: %llu%s; lost: %llu\n",
	    (unsigned long long)c->total, report_every(t, every,
	    sizeof(every)), (unsigned long long)t->lost);
	fprintf(o->fp, "With call chains: %llu (%.1f%%); deepest: %u "
	    "frames; distinct stacks: %llu\n",
	    (unsigned long long)c->chained, calls_pct(c, c->chained),
	    c->deepest, (unsigned long long)c->stacks);
	fprintf(o->fp, "Threads: %zu; procedures: %zu, %zu at or above the "
	    "cutoff of %g%%\n", c->nth, c->np, nprocs, o->cutoff);
	fprintf(o->fp, "\nProcedure NAME (N refs) = SELF, CALLEES (SELF%%) "
	    "(TOTAL%%).\n"
	    "  SELF: samples in NAME itself; CALLEES: samples in what it "
	    "called;\n"
	    "  TOTAL%%: of all samples, those with NAME in the stack (once "
	    "however deep);\n"
	    "  (SELF%%) only when SELF is at or above the cutoff (highly "
	    "active);\n"
	    "  N refs: the call sites that called NAME; [under a non-caller]: "
	    "NAME is\n"
	    "  indented under a procedure that does not call it directly.\n"
	    "(RETURN) CALLEE = COUNT (PCT%%): samples with the call NAME "
	    "made at the\n"
	    "  return address RETURN (link-time, in NAME's module) in the "
	    "stack.\n");
}

/* ------------------------------------------------------------ threads */

static const char *
thread_name(const struct tally *t, uint32_t pid, uint32_t tid)
{
	size_t i;

	for (i = 0; i < t->ntnames; i++)
		if (t->tnames[i].pid == pid && t->tnames[i].tid == tid)
			return t->tnames[i].name;
	return NULL;
}

static int
by_count_thr(const void *a, const void *b, void *arg)
{
	const struct calls *c = arg;
	const struct thr *p = &c->th[*(const uint32_t *)a];
	const struct thr *q = &c->th[*(const uint32_t *)b];

	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	if (p->count != q->count)
		return p->count > q->count ? -1 : 1;
	return p->tid < q->tid ? -1 : p->tid > q->tid;
}

static int
by_count_tp(const void *a, const void *b, void *arg)
{
	const struct calls *c = arg;
	const struct tproc *p = a, *q = b;
	int d;

	if (p->thr != q->thr)
		return p->thr < q->thr ? -1 : 1;
	if (p->count != q->count)
		return p->count > q->count ? -1 : 1;
	if ((d = strcmp(c->p[p->proc].name, c->p[q->proc].name)) != 0)
		return d;
	return p->proc < q->proc ? -1 : p->proc > q->proc;
}

static void
put_name(FILE *fp, const char *name)
{
	char *e = pme_escape_dup(name);

	fputs(e != NULL ? e : "?", fp);
	free(e);
}

static int
threads(const struct out *o)
{
	const struct calls *c = o->c;
	uint32_t *v = malloc((c->nth + 1) * sizeof(*v));
	struct tproc *tp = malloc((c->ntp + 1) * sizeof(*tp));
	size_t i, j, k, lo;
	const char *name;

	if (v == NULL || tp == NULL) {
		free(v);
		free(tp);
		return -1;
	}
	for (i = 0; i < c->nth; i++)
		v[i] = (uint32_t)i;
	qsort_r(v, c->nth, sizeof(*v), by_count_thr, (void *)c);
	memcpy(tp, c->tp, c->ntp * sizeof(*tp));
	qsort_r(tp, c->ntp, sizeof(*tp), by_count_tp, (void *)c);
	section(o->fp, "Breakdown of processes and threads.");
	for (i = 0; i < c->nth; i = k) {
		const struct thr *h = &c->th[v[i]];
		uint64_t sum = 0;

		for (k = i; k < c->nth && c->th[v[k]].pid == h->pid; k++)
			sum += c->th[v[k]].count;
		fprintf(o->fp, "%sProcess %u", i > 0 ? "\n" : "", h->pid);
		if ((name = thread_name(c->t, h->pid, h->pid)) != NULL) {
			fputs(" (", o->fp);
			put_name(o->fp, name);
			fputc(')', o->fp);
		}
		fprintf(o->fp, ", %zu thread%s = %llu (%.1f%%).\n", k - i,
		    k - i == 1 ? "" : "s", (unsigned long long)sum,
		    calls_pct(c, sum));
		for (j = i; j < k; j++) {
			const struct thr *th = &c->th[v[j]];

			fprintf(o->fp, "Thread %u", th->tid);
			if ((name = thread_name(c->t, th->pid, th->tid)) !=
			    NULL) {
				fputs(" (", o->fp);
				put_name(o->fp, name);
				fputc(')', o->fp);
			}
			fprintf(o->fp, " = %llu (%.1f%%).\n",
			    (unsigned long long)th->count,
			    calls_pct(c, th->count));
			for (lo = 0; lo < c->ntp && tp[lo].thr != v[j]; lo++)
				;
			for (; lo < c->ntp && tp[lo].thr == v[j]; lo++)
				if (calls_shown(c, tp[lo].count, o->cutoff))
					fprintf(o->fp, "   %s = %llu "
					    "(%.1f%%).\n",
					    c->p[tp[lo].proc].name,
					    (unsigned long long)tp[lo].count,
					    calls_pct(c, tp[lo].count));
		}
	}
	free(v);
	free(tp);
	return 0;
}

/* --------------------------------------------------------- procedures */

struct lines {			/* a module's line table */
	int		 tried;
	struct pme_image *img;
	struct pme_symline *v;		/* sorted by start */
	size_t		 n;
};

struct tree {
	const struct calls *c;
	double		 cutoff;
	FILE		*fp;
	uint32_t	*koff, *kids;	/* dominator tree children, shown only,
					   by total: kids[koff[i]..koff[i+1]),
					   the root's at np */
	uint32_t	*soff, *succ;	/* callees of each procedure (all
					   sites, itself not) */
	uint32_t	*eoff, *eidx;	/* calls by site: c->e[eidx[..]] */
	uint8_t		*direct;	/* called by its dominator */
	uint32_t	*seen;		/* reach() stamps */
	uint32_t	*inset;		/* reached from the set: stamps */
	uint32_t	*stack;
	uint32_t	 stamp, setstamp;
	char		*rails;
	struct lines	*lines;		/* per module of the bucket file */
	size_t		 nmods;
};

static int
by_site(const void *a, const void *b, void *arg)
{
	const struct calls *c = arg;
	const struct edge *p = &c->e[*(const uint32_t *)a];
	const struct edge *q = &c->e[*(const uint32_t *)b];
	int d;

	if (p->caller != q->caller)
		return p->caller < q->caller ? -1 : 1;
	if (p->site != q->site)
		return p->site < q->site ? -1 : 1;
	if ((d = strcmp(c->p[p->callee].name, c->p[q->callee].name)) != 0)
		return d;
	return p->callee < q->callee ? -1 : p->callee > q->callee;
}

static int
tree_make(struct tree *tr)
{
	const struct calls *c = tr->c;
	size_t np = c->np, i, n = 0, ns = 0, ne = 0;
	uint32_t *k = malloc((np + 1) * sizeof(*k));
	uint32_t *v = malloc((np + 1) * sizeof(*v));
	uint32_t *a = calloc(c->ne + 1, sizeof(*a));
	uint32_t *b = calloc(c->ne + 1, sizeof(*b));
	int rc = -1;

	tr->direct = calloc(np + 1, 1);
	tr->seen = calloc(np + 1, sizeof(*tr->seen));
	tr->inset = calloc(np + 1, sizeof(*tr->inset));
	tr->stack = malloc((np + 1) * sizeof(*tr->stack));
	tr->rails = malloc(np + 2);
	tr->eidx = malloc((c->ne + 1) * sizeof(*tr->eidx));
	if (k == NULL || v == NULL || a == NULL || b == NULL ||
	    tr->direct == NULL || tr->seen == NULL || tr->inset == NULL ||
	    tr->stack == NULL || tr->rails == NULL || tr->eidx == NULL)
		goto done;
	for (i = 0; i < np; i++)
		v[i] = (uint32_t)i;
	calls_sort_total(c, v, np);
	for (i = 0; i < np; i++)
		if (calls_shown(c, c->p[v[i]].total, tr->cutoff)) {
			k[n] = c->p[v[i]].idom == CALLS_NONE ? (uint32_t)np :
			    c->p[v[i]].idom;
			v[n++] = v[i];
		}
	if (calls_csr(k, v, n, np + 1, &tr->koff, &tr->kids) == -1)
		goto done;
	for (i = 0; i < c->ne; i++) {
		const struct edge *e = &c->e[i];

		if (e->site != SITE_ANY) {
			tr->eidx[ne++] = (uint32_t)i;
			continue;
		}
		if (e->caller == e->callee)
			continue;
		if (c->p[e->callee].idom == e->caller)
			tr->direct[e->callee] = 1;
		a[ns] = e->caller;
		b[ns++] = e->callee;
	}
	if (calls_csr(a, b, ns, np, &tr->soff, &tr->succ) == -1)
		goto done;
	qsort_r(tr->eidx, ne, sizeof(*tr->eidx), by_site, (void *)c);
	for (i = 0; i < ne; i++)
		a[i] = c->e[tr->eidx[i]].caller;
	free(b);
	b = NULL;
	if (calls_csr(a, tr->eidx, ne, np, &tr->eoff, &b) == -1)
		goto done;
	free(tr->eidx);
	tr->eidx = b;
	b = NULL;
	rc = 0;
done:
	free(k);
	free(v);
	free(a);
	free(b);
	return rc;
}

static void
tree_free(struct tree *tr)
{
	free(tr->koff);
	free(tr->kids);
	free(tr->soff);
	free(tr->succ);
	free(tr->eoff);
	free(tr->eidx);
	free(tr->direct);
	free(tr->seen);
	free(tr->inset);
	free(tr->stack);
	free(tr->rails);
	for (size_t i = 0; tr->lines != NULL && i < tr->nmods; i++) {
		free(tr->lines[i].v);
		pme_image_close(tr->lines[i].img);
	}
	free(tr->lines);
}

/* Marks what u reaches in the call graph (u too) with the value val in
 * mark; what is marked so already was reached from there. */
static void
reach(struct tree *tr, uint32_t *mark, uint32_t val, uint32_t u)
{
	size_t sp = 0, j;

	if (mark[u] == val)
		return;
	mark[u] = val;
	tr->stack[sp++] = u;
	while (sp > 0) {
		u = tr->stack[--sp];
		for (j = tr->soff[u]; j < tr->soff[u + 1]; j++)
			if (mark[tr->succ[j]] != val) {
				mark[tr->succ[j]] = val;
				tr->stack[sp++] = tr->succ[j];
			}
	}
}

/*
 * The disjoint sets of the children kids[0..n) (in order): a child joins
 * the set before it when none of the set reaches it and it reaches none
 * of the set; set[i] is child i's set number.
 */
static void
disjoint(struct tree *tr, const uint32_t *kids, size_t n, uint32_t *set)
{
	size_t i, j, first = 0;
	int ok;

	for (i = 0; i < n; i++) {
		ok = i > 0 && tr->inset[kids[i]] != tr->setstamp;
		if (ok) {
			reach(tr, tr->seen, ++tr->stamp, kids[i]);
			for (j = first; j < i && ok; j++)
				if (tr->seen[kids[j]] == tr->stamp)
					ok = 0;
		}
		if (!ok) {
			first = i;
			tr->setstamp++;
		}
		set[i] = i == 0 ? 0 : ok ? set[i - 1] : set[i - 1] + 1;
		reach(tr, tr->inset, tr->setstamp, kids[i]);
	}
}

static void
prefix(const struct tree *tr, unsigned depth)
{
	unsigned k;

	for (k = 0; k < depth; k++) {
		fputc(tr->rails[k], tr->fp);
		fputc(' ', tr->fp);
	}
}

static void
proc_line(const struct tree *tr, uint32_t u, const char *lead)
{
	const struct calls *c = tr->c;
	const struct proc *p = &c->p[u];
	struct out o;

	o.c = c;
	o.cutoff = tr->cutoff;
	o.fp = tr->fp;
	fprintf(tr->fp, "%s%s%s (", lead, p->name,
	    p->idom != CALLS_NONE && !tr->direct[u] ?
	    " [under a non-caller]" : "");
	counts(&o, p);
}

/* Procedure u at depth with the marker before its name; its calls; then
 * the procedures it dominates. */
static int
print_proc(struct tree *tr, uint32_t u, unsigned depth, char marker)
{
	const struct calls *c = tr->c;
	size_t j, n = tr->koff[u + 1] - tr->koff[u];
	const uint32_t *kids = tr->kids + tr->koff[u];
	uint32_t *set;
	int rc = 0;

	prefix(tr, depth);
	fputc(marker, tr->fp);
	fputc(' ', tr->fp);
	proc_line(tr, u, "Procedure ");
	for (j = tr->eoff[u]; j < tr->eoff[u + 1]; j++) {
		const struct edge *e = &c->e[tr->eidx[j]];

		if (!calls_shown(c, e->count, tr->cutoff))
			continue;
		prefix(tr, depth + 1);
		fprintf(tr->fp, "   (0x%llx) %s = %llu (%.1f%%).\n",
		    (unsigned long long)e->site + 1, c->p[e->callee].name,
		    (unsigned long long)e->count, calls_pct(c, e->count));
	}
	if (n == 0)
		return 0;
	if ((set = malloc(n * sizeof(*set))) == NULL)
		return -1;
	disjoint(tr, kids, n, set);
	for (j = 0; j < n && rc == 0; j++) {
		tr->rails[depth + 1] = j + 1 == n ? ' ' :
		    set[j + 1] == set[j] ? '!' : '.';
		rc = print_proc(tr, kids[j], depth + 1, j == 0 ? ' ' :
		    set[j] == set[j - 1] ? '!' : '.');
	}
	free(set);
	return rc;
}

static int
procedures(struct tree *tr)
{
	size_t np = tr->c->np, n = tr->koff[np + 1] - tr->koff[np], j;
	const uint32_t *kids = tr->kids + tr->koff[np];
	uint32_t *set = malloc((n + 1) * sizeof(*set));
	int rc = 0;

	if (set == NULL)
		return -1;
	section(tr->fp, "Breakdown of procedures.");
	disjoint(tr, kids, n, set);
	for (j = 0; j < n && rc == 0; j++) {
		tr->rails[0] = j + 1 == n ? ' ' :
		    set[j + 1] == set[j] ? '!' : '.';
		rc = print_proc(tr, kids[j], 0, j == 0 ? ' ' :
		    set[j] == set[j - 1] ? '!' : '.');
	}
	free(set);
	return rc;
}

/* ------------------------------------------------------ highly active */

static int
by_self(const void *a, const void *b, void *arg)
{
	const struct calls *c = arg;
	const struct proc *p = &c->p[*(const uint32_t *)a];
	const struct proc *q = &c->p[*(const uint32_t *)b];
	int d;

	if (p->self != q->self)
		return p->self > q->self ? -1 : 1;
	if ((d = strcmp(p->name, q->name)) != 0)
		return d;
	return p->id < q->id ? -1 : p->id > q->id;
}

static int
by_pc(const void *a, const void *b)
{
	const struct pcount *p = a, *q = b;

	if (p->proc != q->proc)
		return p->proc < q->proc ? -1 : 1;
	return p->addr < q->addr ? -1 : p->addr > q->addr;
}

static int
by_start(const void *a, const void *b)
{
	const struct pme_symline *p = a, *q = b;

	return p->start < q->start ? -1 : p->start > q->start;
}

/* Reads the line table of module m, once; none when its file cannot be
 * read or has no DWARF lines. */
static void
lines_read(struct lines *l, const char *path)
{
	const struct pme_symline *v;
	struct pme_error err;

	l->tried = 1;
	if (path == NULL || path[0] == '\0' ||
	    (l->img = pme_image_open(path, NULL, &err)) == NULL ||
	    pme_image_load_lines(l->img, PME_NONE, &err) == -1)
		return;
	l->n = pme_image_lines(l->img, &v);
	if (l->n == 0 || (l->v = malloc(l->n * sizeof(*l->v))) == NULL) {
		l->n = 0;
		return;
	}
	memcpy(l->v, v, l->n * sizeof(*l->v));
	qsort(l->v, l->n, sizeof(*l->v), by_start);
}

/* The source line of addr in frame id's module, or NULL. */
static const struct pme_symline *
line_of(struct tree *tr, uint64_t id, uint64_t addr)
{
	const struct pme_bucketfile *bf = tr->c->t->bf;
	const struct pme_unit *u;
	const struct pme_module *mods;
	uint32_t m = PME_NONE;
	struct lines *l;
	size_t lo = 0, hi;

	if (bf == NULL)
		return NULL;
	tr->nmods = pme_bucketfile_modules(bf, &mods);
	if ((id & FRAME_TYPE) == FRAME_UNIT) {
		pme_bucketfile_units(bf, &u);
		m = u[(uint32_t)id].module;
	} else if ((id & FRAME_TYPE) == FRAME_MODULE)
		m = (uint32_t)id;
	if (m >= tr->nmods || (tr->lines == NULL && (tr->lines =
	    calloc(tr->nmods, sizeof(*tr->lines))) == NULL))
		return NULL;
	l = &tr->lines[m];
	if (!l->tried)
		lines_read(l, mods[m].path);
	for (hi = l->n; lo < hi; ) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && addr < l->v[lo - 1].end ? &l->v[lo - 1] : NULL;
}

struct lcount {
	const char	*file;
	uint32_t	 line;
	uint64_t	 count;
};

static int
by_line(const void *a, const void *b)
{
	const struct lcount *p = a, *q = b;
	int d = strcmp(p->file, q->file);

	if (d != 0)
		return d;
	return p->line < q->line ? -1 : p->line > q->line;
}

/* The samples of pc[0..n) (one procedure's) by source line, when lines
 * are known. */
static int
by_lines(struct tree *tr, const struct pcount *pc, size_t n)
{
	const struct calls *c = tr->c;
	struct lcount *v = malloc((n + 1) * sizeof(*v));
	const struct pme_symline *l;
	size_t i, k = 0, j;

	if (v == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		if ((l = line_of(tr, pc[i].home, pc[i].addr)) == NULL)
			continue;
		v[k].file = pme_base_name(l->file);
		v[k].line = l->line;
		v[k++].count = pc[i].count;
	}
	qsort(v, k, sizeof(*v), by_line);
	for (i = 0; i < k; i = j) {
		uint64_t sum = 0;

		for (j = i; j < k && v[j].line == v[i].line &&
		    strcmp(v[j].file, v[i].file) == 0; j++)
			sum += v[j].count;
		fprintf(tr->fp, "   %s:%u = %llu (%.1f%%).\n", v[i].file,
		    v[i].line, (unsigned long long)sum, calls_pct(c, sum));
	}
	free(v);
	return 0;
}

static int
active(struct tree *tr)
{
	const struct calls *c = tr->c;
	uint32_t *v = malloc((c->np + 1) * sizeof(*v));
	struct pcount *pc = malloc((c->npc + 1) * sizeof(*pc));
	uint32_t *off = calloc(c->np + 1, sizeof(*off));
	size_t i, n = 0, j;
	int rc = 0;

	if (v == NULL || pc == NULL || off == NULL) {
		free(v);
		free(pc);
		free(off);
		return -1;
	}
	memcpy(pc, c->pc, c->npc * sizeof(*pc));
	qsort(pc, c->npc, sizeof(*pc), by_pc);
	for (i = c->npc; i-- > 0; )
		off[pc[i].proc] = (uint32_t)i;
	for (i = 0; i < c->np; i++)
		if (calls_shown(c, c->p[i].self, tr->cutoff))
			v[n++] = (uint32_t)i;
	qsort_r(v, n, sizeof(*v), by_self, (void *)c);
	section(tr->fp, "Breakdown of highly active procedures.");
	for (i = 0; i < n; i++) {
		proc_line(tr, v[i], "");
		for (j = off[v[i]]; j < c->npc && pc[j].proc == v[i]; j++)
			;
		if ((rc = by_lines(tr, pc + off[v[i]], j - off[v[i]])) == -1)
			break;
		for (j = off[v[i]]; j < c->npc && pc[j].proc == v[i]; j++) {
			const struct pme_symline *l = line_of(tr,
			    pc[j].home, pc[j].addr);

			fprintf(tr->fp, "   (0x%llx", (unsigned long long)
			    pc[j].addr);
			if (l != NULL)
				fprintf(tr->fp, " %s:%u", pme_base_name(
				    l->file), l->line);
			fprintf(tr->fp, ") = %llu (%.1f%%).\n",
			    (unsigned long long)pc[j].count,
			    calls_pct(c, pc[j].count));
		}
	}
	free(v);
	free(pc);
	free(off);
	return rc;
}

int
spy_write(const struct calls *c, double cutoff, FILE *fp,
    struct pme_error *err)
{
	struct tree tr;
	struct out o;
	int rc = -1;

	memset(&tr, 0, sizeof(tr));
	tr.c = c;
	tr.cutoff = cutoff;
	tr.fp = fp;
	o.c = c;
	o.cutoff = cutoff;
	o.fp = fp;
	header(&o);
	if (tree_make(&tr) == 0 && threads(&o) == 0 && procedures(&tr) == 0 &&
	    active(&tr) == 0)
		rc = 0;
	tree_free(&tr);
	if (rc == -1)
		return histo_err(err, PME_ENOMEM, "out of memory");
	return 0;
}
