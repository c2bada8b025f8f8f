/*
 * calls.c - the call graph of the samples' call chains, for the views
 * (calls.h): each distinct stack that reduce.c counted (with t->sites:
 * frame ids, their link-time addresses, the thread) adds its samples to
 * the procedures in it (a procedure once per stack, however deep it
 * recursed), to the calls between them (a call of one caller, site and
 * callee once per stack), to the pc of its innermost frame and to its
 * thread.  Then the immediate dominators of the procedures: the root is
 * above every outermost frame, and the call graph's edges are the calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"

/* ------------------------------------------------------------ the maps */

static uint64_t
hash_key(const uint64_t *k, unsigned w)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	unsigned i;

	for (i = 0; i < w; i++) {
		h ^= k[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

static int
imap_grow(struct imap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i, j;
	uint64_t *k = malloc(cap * m->w * sizeof(*k));
	uint32_t *v = malloc(cap * sizeof(*v));

	if (k == NULL || v == NULL) {
		free(k);
		free(v);
		return -1;
	}
	for (i = 0; i < cap; i++)
		v[i] = CALLS_NONE;
	for (i = 0; i < m->cap; i++) {
		if (m->v[i] == CALLS_NONE)
			continue;
		for (j = hash_key(m->k + i * m->w, m->w) & (cap - 1);
		    v[j] != CALLS_NONE; j = (j + 1) & (cap - 1))
			;
		memcpy(k + j * m->w, m->k + i * m->w, m->w * sizeof(*k));
		v[j] = m->v[i];
	}
	free(m->k);
	free(m->v);
	m->k = k;
	m->v = v;
	m->cap = cap;
	return 0;
}

/* The index of key in m; a new one (m->n before) when it was not there,
 * *added set; CALLS_NONE when out of memory. */
static uint32_t
imap_get(struct imap *m, const uint64_t *key, int *added)
{
	size_t i;

	*added = 0;
	if ((m->n + 1) * 2 > m->cap && imap_grow(m) == -1)
		return CALLS_NONE;
	for (i = hash_key(key, m->w) & (m->cap - 1); m->v[i] != CALLS_NONE;
	    i = (i + 1) & (m->cap - 1))
		if (memcmp(m->k + i * m->w, key, m->w * sizeof(*key)) == 0)
			return m->v[i];
	memcpy(m->k + i * m->w, key, m->w * sizeof(*key));
	*added = 1;
	return m->v[i] = (uint32_t)m->n++;
}

static void
imap_free(struct imap *m)
{
	free(m->k);
	free(m->v);
}

/* Room for one more element of size sz in *v of *cap; -1: no memory. */
static int
room(void *vp, size_t n, size_t *cap, size_t sz)
{
	void **v = vp, *nv;
	size_t nc;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 64;
	if ((nv = realloc(*v, nc * sz)) == NULL)
		return -1;
	*v = nv;
	*cap = nc;
	return 0;
}

/* ------------------------------------------------------ adding stacks */

static uint32_t
proc_of(struct calls *c, uint64_t id)
{
	uint32_t i;
	int added;

	if ((i = imap_get(&c->mp, &id, &added)) == CALLS_NONE || !added)
		return i;
	if (room(&c->p, c->np, &c->capp, sizeof(*c->p)) == -1)
		return CALLS_NONE;
	memset(&c->p[i], 0, sizeof(c->p[i]));
	c->p[i].id = id;
	c->p[i].idom = CALLS_NONE;
	c->np++;
	return i;
}

static struct edge *
edge_of(struct calls *c, uint32_t caller, uint64_t site, uint32_t callee)
{
	uint64_t key[3] = { caller, site, callee };
	uint32_t i;
	int added;

	if ((i = imap_get(&c->me, key, &added)) == CALLS_NONE)
		return NULL;
	if (added) {
		if (room(&c->e, c->ne, &c->cape, sizeof(*c->e)) == -1)
			return NULL;
		memset(&c->e[i], 0, sizeof(c->e[i]));
		c->e[i].caller = caller;
		c->e[i].callee = callee;
		c->e[i].site = site;
		c->ne++;
		if (site != SITE_ANY)
			c->p[callee].refs++;
	}
	return &c->e[i];
}

static int
add_pc(struct calls *c, uint32_t proc, uint64_t addr, uint64_t home,
    uint64_t n)
{
	uint64_t key[3] = { proc, addr, home };
	uint32_t i;
	int added;

	if ((i = imap_get(&c->mpc, key, &added)) == CALLS_NONE)
		return -1;
	if (added) {
		if (room(&c->pc, c->npc, &c->cappc, sizeof(*c->pc)) == -1)
			return -1;
		c->pc[i].proc = proc;
		c->pc[i].addr = addr;
		c->pc[i].home = home;
		c->pc[i].count = 0;
		c->npc++;
	}
	c->pc[i].count += n;
	return 0;
}

static int
add_thread(struct calls *c, uint64_t pidtid, uint32_t proc, uint64_t n)
{
	uint64_t key[2];
	uint32_t i, j;
	int added;

	if ((i = imap_get(&c->mth, &pidtid, &added)) == CALLS_NONE)
		return -1;
	if (added) {
		if (room(&c->th, c->nth, &c->capth, sizeof(*c->th)) == -1)
			return -1;
		c->th[i].pid = (uint32_t)(pidtid >> 32);
		c->th[i].tid = (uint32_t)pidtid;
		c->th[i].count = 0;
		c->nth++;
	}
	c->th[i].count += n;
	key[0] = i;
	key[1] = proc;
	if ((j = imap_get(&c->mtp, key, &added)) == CALLS_NONE)
		return -1;
	if (added) {
		if (room(&c->tp, c->ntp, &c->captp, sizeof(*c->tp)) == -1)
			return -1;
		c->tp[j].thr = i;
		c->tp[j].proc = proc;
		c->tp[j].count = 0;
		c->ntp++;
	}
	c->tp[j].count += n;
	return 0;
}

/* Counts the call from frame k of a stack to frame k - 1 at its site, and
 * the same call of any site, each once per stack. */
static int
add_call(struct calls *c, const uint32_t *p, const uint64_t *addr,
    size_t k, uint64_t n)
{
	uint64_t sites[2] = { addr[k], SITE_ANY };
	struct edge *e;
	int i;

	for (i = 0; i < 2; i++) {
		if ((e = edge_of(c, p[k], sites[i], p[k - 1])) == NULL)
			return -1;
		if (e->stamp == c->stamp)
			continue;
		e->stamp = c->stamp;
		e->count += n;
		if (p[k - 1] == p[0])
			e->self += n;
	}
	return 0;
}

/* One distinct stack of stacks_walk(): k frame ids, then the addresses
 * of the calls of frames 1 .. k - 1 (reduce.c, add_stacks). */
static int
add_stack(void *arg, const uint64_t *key, size_t len, uint64_t n)
{
	struct calls *c = arg;
	size_t k = (len + 1) / 2, i;
	const uint64_t *addr = key + k - 1;	/* addr[i], i >= 1 */
	uint32_t buf[64], *p = k <= 64 ? buf : malloc(k * sizeof(*p));

	if (p == NULL || k == 0 || len % 2 == 0)
		goto fail;
	c->stamp++;
	c->stacks++;
	c->total += n;
	if (k > 1)
		c->chained += n;
	if (k > c->deepest)
		c->deepest = (uint32_t)k;
	for (i = 0; i < k; i++) {
		if ((p[i] = proc_of(c, key[i])) == CALLS_NONE)
			goto fail;
		if (c->p[p[i]].stamp != c->stamp) {
			c->p[p[i]].stamp = c->stamp;
			c->p[p[i]].total += n;
		}
	}
	c->p[p[0]].self += n;
	c->p[p[k - 1]].outer = 1;
	for (i = 1; i < k; i++)
		if (add_call(c, p, addr, i, n) == -1)
			goto fail;
	if (p != buf)
		free(p);
	return 0;
fail:
	if (p != buf)
		free(p);
	c->failed = 1;
	return -1;
}

/* A pc of t->pcs: frame id, address, home frame. */
static int
add_pcs(void *arg, const uint64_t *key, size_t len, uint64_t n)
{
	struct calls *c = arg;
	uint32_t p;

	if (len != 3 || (p = proc_of(c, key[0])) == CALLS_NONE)
		return -1;
	return add_pc(c, p, key[1], key[2], n);
}

/* A thread's procedure of t->tprocs: pid << 32 | tid, frame id. */
static int
add_tprocs(void *arg, const uint64_t *key, size_t len, uint64_t n)
{
	struct calls *c = arg;
	uint32_t p;

	if (len != 2 || (p = proc_of(c, key[1])) == CALLS_NONE)
		return -1;
	return add_thread(c, key[0], p, n);
}

/* ---------------------------------------------------------- dominators */

struct graph {
	uint32_t	*off, *adj;	/* successors of node i:
					   adj[off[i] .. off[i + 1]) */
	uint32_t	*poff, *padj;	/* predecessors likewise */
};

/* Edges of the call graph: the calls of any site between two procedures
 * (a procedure's calls of itself dominate nothing), and the root (np) to
 * each outermost frame.  from[i] -> to[i], n of them. */
static size_t
graph_edges(const struct calls *c, uint32_t *from, uint32_t *to)
{
	size_t n = 0, i;

	for (i = 0; i < c->ne; i++)
		if (c->e[i].site == SITE_ANY &&
		    c->e[i].caller != c->e[i].callee) {
			from[n] = c->e[i].caller;
			to[n++] = c->e[i].callee;
		}
	for (i = 0; i < c->np; i++)
		if (c->p[i].outer) {
			from[n] = (uint32_t)c->np;
			to[n++] = (uint32_t)i;
		}
	return n;
}

int
calls_csr(const uint32_t *a, const uint32_t *b, size_t n, size_t nn,
    uint32_t **off, uint32_t **adj)
{
	uint32_t *at;
	size_t i;

	*off = calloc(nn + 1, sizeof(**off));
	*adj = malloc((n + 1) * sizeof(**adj));
	at = malloc((nn + 1) * sizeof(*at));
	if (*off == NULL || *adj == NULL || at == NULL) {
		free(at);
		return -1;
	}
	for (i = 0; i < n; i++)
		(*off)[a[i] + 1]++;
	for (i = 0; i < nn; i++)
		(*off)[i + 1] += (*off)[i];
	memcpy(at, *off, (nn + 1) * sizeof(*at));
	for (i = 0; i < n; i++)
		(*adj)[at[a[i]]++] = b[i];
	free(at);
	return 0;
}

/* Postorder numbers from the root r (depth-first, iterative); the nodes
 * in reverse postorder into rpo, their count returned. */
static size_t
postorder(const struct graph *g, uint32_t r, size_t nn, uint32_t *po,
    uint32_t *rpo)
{
	uint32_t *stack = malloc((nn + 1) * sizeof(*stack));
	uint32_t *next = calloc(nn, sizeof(*next));
	size_t sp = 0, n = 0, i;

	if (stack == NULL || next == NULL) {
		free(stack);
		free(next);
		return 0;
	}
	for (i = 0; i < nn; i++)
		po[i] = CALLS_NONE;
	po[r] = CALLS_NONE - 1;		/* on the stack */
	stack[sp++] = r;
	while (sp > 0) {
		uint32_t u = stack[sp - 1];

		if (g->off[u] + next[u] < g->off[u + 1]) {
			uint32_t v = g->adj[g->off[u] + next[u]++];

			if (po[v] == CALLS_NONE) {
				po[v] = CALLS_NONE - 1;
				stack[sp++] = v;
			}
			continue;
		}
		sp--;
		po[u] = (uint32_t)n;
		rpo[nn - 1 - n] = u;
		n++;
	}
	memmove(rpo, rpo + nn - n, n * sizeof(*rpo));
	free(stack);
	free(next);
	return n;
}

static uint32_t
intersect(const uint32_t *idom, const uint32_t *po, uint32_t a, uint32_t b)
{
	while (a != b) {
		while (po[a] < po[b])
			a = idom[a];
		while (po[b] < po[a])
			b = idom[b];
	}
	return a;
}

/* Cooper, Harvey and Kennedy's "A simple, fast dominance algorithm". */
static int
dominators(struct calls *c)
{
	size_t nn = c->np + 1, n, ng, i, j;
	uint32_t r = (uint32_t)c->np, *from, *to, *po, *rpo, *idom;
	struct graph g;
	int changed, rc = -1;

	memset(&g, 0, sizeof(g));
	from = malloc((c->ne + c->np + 1) * sizeof(*from));
	to = malloc((c->ne + c->np + 1) * sizeof(*to));
	po = malloc(nn * sizeof(*po));
	rpo = malloc(nn * sizeof(*rpo));
	idom = malloc(nn * sizeof(*idom));
	if (from == NULL || to == NULL || po == NULL || rpo == NULL ||
	    idom == NULL)
		goto done;
	ng = graph_edges(c, from, to);
	if (calls_csr(from, to, ng, nn, &g.off, &g.adj) == -1 ||
	    calls_csr(to, from, ng, nn, &g.poff, &g.padj) == -1)
		goto done;
	if ((n = postorder(&g, r, nn, po, rpo)) == 0)
		goto done;
	for (i = 0; i < nn; i++)
		idom[i] = CALLS_NONE;
	idom[r] = r;
	do {
		changed = 0;
		for (i = 1; i < n; i++) {
			uint32_t b = rpo[i], d = CALLS_NONE;

			for (j = g.poff[b]; j < g.poff[b + 1]; j++) {
				uint32_t q = g.padj[j];

				if (idom[q] == CALLS_NONE)
					continue;
				d = d == CALLS_NONE ? q :
				    intersect(idom, po, q, d);
			}
			if (d != idom[b]) {
				idom[b] = d;
				changed = 1;
			}
		}
	} while (changed);
	for (i = 0; i < c->np; i++)
		c->p[i].idom = idom[i] == r ? CALLS_NONE : idom[i];
	rc = 0;
done:
	free(from);
	free(to);
	free(po);
	free(rpo);
	free(idom);
	free(g.off);
	free(g.adj);
	free(g.poff);
	free(g.padj);
	return rc;
}

/* -------------------------------------------------------------- names */

static int
name_procs(struct calls *c)
{
	size_t i, len;
	FILE *fp;

	for (i = 0; i < c->np; i++) {
		if ((fp = open_memstream(&c->p[i].name, &len)) == NULL)
			return -1;
		if (frame_put(fp, c->p[i].id, c->t->stacks, c->t) == -1) {
			fclose(fp);
			return -1;
		}
		if (fclose(fp) == EOF)
			return -1;
	}
	return 0;
}

struct calls *
calls_new(const struct tally *t, struct pme_error *err)
{
	struct calls *c = calloc(1, sizeof(*c));

	if (c == NULL)
		goto nomem;
	c->t = t;
	c->mp.w = 1;
	c->me.w = 3;
	c->mpc.w = 3;
	c->mth.w = 1;
	c->mtp.w = 2;
	if ((t->stacks != NULL && stacks_walk(t->stacks, add_stack, c) ==
	    -1) || (t->pcs != NULL && stacks_walk(t->pcs, add_pcs, c) == -1) ||
	    (t->tprocs != NULL && stacks_walk(t->tprocs, add_tprocs, c) == -1))
		goto nomem;
	if (c->np > 0 && dominators(c) == -1)
		goto nomem;
	if (name_procs(c) == -1)
		goto nomem;
	return c;
nomem:
	calls_free(c);
	histo_err(err, PME_ENOMEM, "out of memory");
	return NULL;
}

void
calls_free(struct calls *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->np; i++)
		free(c->p[i].name);
	free(c->p);
	free(c->e);
	free(c->pc);
	free(c->th);
	free(c->tp);
	imap_free(&c->mp);
	imap_free(&c->me);
	imap_free(&c->mpc);
	imap_free(&c->mth);
	imap_free(&c->mtp);
	free(c);
}

double
calls_pct(const struct calls *c, uint64_t n)
{
	return c->total ? 100.0 * (double)n / (double)c->total : 0;
}

int
calls_shown(const struct calls *c, uint64_t n, double cutoff)
{
	return n > 0 && calls_pct(c, n) >= cutoff;
}

static int
by_total(const void *a, const void *b, void *arg)
{
	const struct calls *c = arg;
	const struct proc *p = &c->p[*(const uint32_t *)a];
	const struct proc *q = &c->p[*(const uint32_t *)b];
	int d;

	if (p->total != q->total)
		return p->total > q->total ? -1 : 1;
	if ((d = strcmp(p->name, q->name)) != 0)
		return d;
	return p->id < q->id ? -1 : p->id > q->id;
}

void
calls_sort_total(const struct calls *c, uint32_t *v, size_t n)
{
	qsort_r(v, n, sizeof(*v), by_total, (void *)c);
}
