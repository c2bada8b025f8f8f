/*
 * heap.c - pmehisto -V heap: what the heap records of pmeclock -e alloc
 * (pme(5), HEAP) say that no count of samples can: per process, its
 * peak (the largest total of live bytes, when, and what was live then,
 * by stack: massif's peak snapshot), its leaks (the blocks not freed
 * when it ended, by stack) and its temporary allocations (heaptrack's
 * definition: a block freed when the process's last heap event was its
 * own allocation, nothing allocated or freed between).  Bytes and
 * allocations per routine, line, module, thread and stack are -M bytes
 * and -M allocations, through every other view.
 *
 * The records are replayed twice: the first pass finds each process's
 * peak, the second stops at it to take what was live, so that memory is
 * bounded by the blocks live at once and the stacks, never by events.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histo.h"
#include "measure.h"
#include "pme_symbols.h"
#include "util.h"

#define NFN	(PME_HEAP_FNMAX + 1)
#define SHOWN	30	/* stacks a table shows */
#define DEPTH	6	/* routines a stack shows */

struct block {
	uint64_t	 addr;		/* 0: an empty slot */
	uint64_t	 size;
	uint32_t	 stack;
	int		 inherited;	/* the parent's, at a fork */
};

/* Per stack of a process: indexed by its innermost node's id. */
struct site {
	uint64_t	 allocs, bytes;
	uint64_t	 leaks, leakbytes;
	uint64_t	 temps;
	uint64_t	 peakblocks, peakbytes;
};

struct hproc {
	uint32_t	 pid;
	char		 comm[64];
	struct hnode {
		uint32_t parent;
		uint64_t ip;
		uint32_t mi;	/* an image's before its exec: ip's
				   mapping then (PME_NONE: none), */
		uint64_t vaddr;	/* its link-time address */
	}		*node;		/* [1..nnode] */
	struct site	*site;		/* [0..nnode] */
	size_t		 nnode, cap;
	struct block	*b;		/* open addressing by address */
	size_t		 bcap, nb;
	uint64_t	 cur, curblocks;
	uint64_t	 peak, peakblocks, peakseq, peaktime;
	uint64_t	 seq;
	uint64_t	 allocs, bytes, frees, temps, unknown;
	uint64_t	 unseen;	/* blocks whose free was not seen */
	uint64_t	 fn[NFN];	/* allocations by function */
	uint64_t	 freefn[NFN];	/* releases by function */
	uint64_t	 last;		/* address of the last event when it
					   was an allocation, else 0 */
	int		 gone;		/* an image an exec replaced */
	int		 after;		/* an image an exec started */
	uint64_t	 atexec, atexecblocks;	/* its live blocks then */
};

struct heap {
	struct hproc	*p;
	size_t		 np;
	int		 pass;		/* 1 or 2 */
	uint64_t	 start;		/* the run's start_mono */
	struct pme_addrmap *am;
	const char	*path;
	struct pme_error *err;
	int		 any;		/* heap records seen */
	int		 watched;	/* the run watched the allocator */
	heap_curve_fn	 curve;		/* heap_curve()'s, or NULL */
	void		*carg;
};

static const char *const fnames[NFN] = { "", "malloc", "calloc", "realloc",
    "reallocarray", "memalign", "posix_memalign", "aligned_alloc",
    "valloc", "pvalloc", "new", "new[]", "free", "delete", "delete[]",
    "unseen" };

/* ------------------------------------------------------------ blocks */

static size_t
bslot(uint64_t addr, size_t cap)
{
	return (size_t)(addr * 0x9e3779b97f4a7c15ull >> 32) & (cap - 1);
}

static int
bgrow(struct hproc *p)
{
	size_t cap = p->bcap ? p->bcap * 2 : 1024, i, s;
	struct block *b = calloc(cap, sizeof(*b));

	if (b == NULL)
		return -1;
	for (i = 0; i < p->bcap; i++) {
		if (p->b[i].addr == 0)
			continue;
		for (s = bslot(p->b[i].addr, cap); b[s].addr != 0;
		    s = (s + 1) & (cap - 1))
			continue;
		b[s] = p->b[i];
	}
	free(p->b);
	p->b = b;
	p->bcap = cap;
	return 0;
}

static struct block *
bfind(struct hproc *p, uint64_t addr)
{
	size_t s;

	if (p->bcap == 0)
		return NULL;
	for (s = bslot(addr, p->bcap); p->b[s].addr != 0;
	    s = (s + 1) & (p->bcap - 1))
		if (p->b[s].addr == addr)
			return &p->b[s];
	return NULL;
}

/* Removes b (linear probing: the entries after it moved back); the
 * table's count goes down, lest it grow with the events, not the live
 * blocks. */
static void
bremove(struct hproc *p, struct block *b)
{
	p->nb--;
	pme_probe_remove(p->b, sizeof(*p->b), offsetof(struct block, addr),
	    p->bcap, (size_t)(b - p->b), bslot);
}

static int
badd(struct hproc *p, const struct block *nb)
{
	size_t s;

	if ((p->nb + 1) * 2 > p->bcap && bgrow(p) == -1)
		return -1;
	for (s = bslot(nb->addr, p->bcap); p->b[s].addr != 0;
	    s = (s + 1) & (p->bcap - 1))
		continue;
	p->b[s] = *nb;
	p->nb++;
	return 0;
}

/* --------------------------------------------------------- processes */

static struct hproc *
proc_of(struct heap *hp, uint32_t pid)
{
	struct hproc *p;
	size_t i;

	for (i = 0; i < hp->np; i++)
		if (hp->p[i].pid == pid && !hp->p[i].gone)
			return &hp->p[i];
	if ((p = realloc(hp->p, (hp->np + 1) * sizeof(*p))) == NULL)
		return NULL;
	hp->p = p;
	p = &hp->p[hp->np++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

/* Drops p's blocks (and its stacks when all is set): an exec. */
static void
proc_clear(struct hproc *p, int all)
{
	free(p->b);
	p->b = NULL;
	p->bcap = p->nb = 0;
	p->cur = p->curblocks = 0;
	p->last = 0;
	if (all)
		p->nnode = 0;
}

static int
nomem(struct heap *hp)
{
	return histo_err(hp->err, PME_ENOMEM, "out of memory");
}

/* A fork: the child has the parent's blocks, which are not its leaks. */
static int
inherit(struct heap *hp, uint32_t ppid, uint32_t pid, uint64_t time)
{
	struct hproc *c, *pp;
	struct block b;
	size_t i;

	if ((pp = proc_of(hp, ppid)) == NULL || (c = proc_of(hp, pid)) ==
	    NULL || (pp = proc_of(hp, ppid)) == NULL)
		return nomem(hp);
	proc_clear(c, 1);
	snprintf(c->comm, sizeof(c->comm), "%s", pp->comm);
	for (i = 0; i < pp->bcap; i++) {
		/* Its own: those it had from its parent are not the
		 * child's to free (the recorder forgets them). */
		if (pp->b[i].addr == 0 || pp->b[i].inherited)
			continue;
		b = pp->b[i];
		b.addr |= PME_HEAP_PARENT;
		b.inherited = 1;
		b.stack = 0;
		if (badd(c, &b) == -1)
			return nomem(hp);
		c->cur += b.size;
		c->curblocks++;
	}
	/* Its heap at the fork is its parent's: its peak when it frees
	 * before it allocates more (nothing of its own live then). */
	if (hp->pass == 1 && c->cur > c->peak) {
		c->peak = c->cur;
		c->peakblocks = c->curblocks;
		c->peakseq = c->seq;
		c->peaktime = time;
	}
	return hp->curve != NULL && hp->curve(hp->carg, pid, c->comm, time,
	    c->cur) != 0 ? -1 : 0;
}

/* ---------------------------------------------------------- visitors */

static int
on_header(void *arg, const struct pme_sample_header *h)
{
	struct heap *hp = arg;
	uint32_t i;

	if (hp->start == 0)
		hp->start = h->start_mono;
	for (i = 0; i < h->nevents; i++)
		if (h->events[i].kind == PME_EV_HEAP)
			hp->watched = 1;
	return 0;
}

static int
on_mapping(void *arg, const struct pme_mapping *m)
{
	struct heap *hp = arg;

	return hp->pass == 1 && pme_addrmap_mapping(hp->am, m, hp->err) ==
	    -1 ? -1 : 0;
}

/*
 * An exec of t->pid, before the address map forgets the old image.  An
 * image that had a heap of its own is reported as it was, with what was
 * live at the exec (the exec released it: not leaks; its stacks named by
 * the mappings then), and the new image is a process report of its own,
 * as memcheck has them.  One that had none (the start, or a fork child
 * that execs before it allocates or frees) is reset, its peak too: its
 * parent's blocks are not the new image's.
 */
static int
exec_ends(struct heap *hp, const struct pme_thread *t)
{
	struct hproc *p = proc_of(hp, t->pid);
	size_t i;

	if (p == NULL)
		return nomem(hp);
	if (p->seq == 0) {
		proc_clear(p, 1);
		if (hp->pass == 1)
			p->peak = p->peakblocks = p->peakseq = p->peaktime = 0;
		return 0;
	}
	if (hp->pass == 1) {
		p->atexec = p->cur;
		p->atexecblocks = p->curblocks;
		for (i = 1; i <= p->nnode; i++)
			p->node[i].mi = pme_addrmap_lookup(hp->am, p->pid,
			    t->time, p->node[i].ip - 1, &p->node[i].vaddr);
	}
	proc_clear(p, 0);
	p->gone = 1;
	if ((p = proc_of(hp, t->pid)) == NULL)
		return nomem(hp);
	p->after = 1;
	return 0;
}

static int
on_thread(void *arg, const struct pme_thread *t)
{
	struct heap *hp = arg;
	struct hproc *p;

	if (t->kind == PME_THREAD_EXEC && exec_ends(hp, t) == -1)
		return -1;
	if (hp->pass == 1 && pme_addrmap_thread(hp->am, t, hp->err) == -1)
		return -1;
	if (t->kind == PME_THREAD_FORK && t->pid == t->tid &&
	    t->ppid != t->pid)
		return inherit(hp, t->ppid, t->pid, t->time);
	if ((t->kind == PME_THREAD_EXEC || (t->kind == PME_THREAD_COMM &&
	    t->tid == t->pid)) && t->name != NULL) {
		if ((p = proc_of(hp, t->pid)) == NULL)
			return nomem(hp);
		snprintf(p->comm, sizeof(p->comm), "%s", t->name);
		if (t->kind == PME_THREAD_EXEC) {
			if (hp->curve != NULL && hp->curve(hp->carg, t->pid,
			    p->comm, t->time, 0) != 0)
				return -1;
		}
	}
	return 0;
}

static int
on_stack(void *arg, uint32_t pid, uint32_t id, uint32_t parent, uint64_t ip)
{
	struct heap *hp = arg;
	struct hproc *p;
	void *q;
	size_t cap;

	if ((p = proc_of(hp, pid)) == NULL)
		return nomem(hp);
	if (id >= p->cap) {
		cap = p->cap * 2 > id + 1 ? p->cap * 2 : (size_t)id + 64;
		if ((q = realloc(p->node, cap * sizeof(*p->node))) == NULL)
			return nomem(hp);
		p->node = q;
		if ((q = realloc(p->site, cap * sizeof(*p->site))) == NULL)
			return nomem(hp);
		p->site = q;
		memset(p->site + p->cap, 0, (cap - p->cap) * sizeof(*p->site));
		p->cap = cap;
	}
	p->node[id].parent = parent;
	p->node[id].ip = ip;
	if (hp->pass == 1)
		memset(&p->site[id], 0, sizeof(p->site[id]));
	p->nnode = id;
	return 0;
}

static struct site *
site_of(struct hproc *p, uint32_t stack)
{
	static struct site none;

	return stack != 0 && stack <= p->nnode ? &p->site[stack] : &none;
}

/* What was live at p's peak, by stack (pass 2). */
static void
snapshot(struct hproc *p)
{
	struct site *s;
	size_t i;

	for (i = 0; i < p->bcap; i++) {
		if (p->b[i].addr == 0 || p->b[i].inherited)
			continue;
		s = site_of(p, p->b[i].stack);
		s->peakblocks++;
		s->peakbytes += p->b[i].size;
	}
}

static int
on_alloc(struct heap *hp, struct hproc *p, const struct pme_heap_event *e)
{
	struct block b, *old;
	struct site *s = site_of(p, e->stack);

	if ((old = bfind(p, e->block)) != NULL) {
		/* Freed where it was not seen. */
		if (hp->pass == 1)
			p->unseen++;
		p->cur -= old->size;
		p->curblocks--;
		bremove(p, old);
	}
	memset(&b, 0, sizeof(b));
	b.addr = e->block;
	b.size = e->size;
	b.stack = e->stack;
	if (e->block == 0 || badd(p, &b) == -1)
		return e->block == 0 ? 0 : nomem(hp);
	p->cur += e->size;
	p->curblocks++;
	p->last = e->block;
	if (hp->pass == 2)
		return 0;
	p->allocs++;
	p->bytes += e->size;
	s->allocs++;
	s->bytes += e->size;
	if (p->cur > p->peak) {
		p->peak = p->cur;
		p->peakblocks = p->curblocks;
		p->peakseq = p->seq;
		p->peaktime = e->time;
	}
	return 0;
}

static void
on_free(struct heap *hp, struct hproc *p, const struct pme_heap_event *e)
{
	struct block *b = e->block != 0 ? bfind(p, e->block) : NULL;
	int temp = p->last != 0 && p->last == e->block;

	p->last = 0;
	if (hp->pass == 1 && e->fn == PME_HEAP_UNSEEN)
		p->unseen++;
	else if (hp->pass == 1)
		p->frees++;
	if (b == NULL) {
		if (hp->pass == 1)
			p->unknown++;
		return;
	}
	if (temp && hp->pass == 1) {
		p->temps++;
		site_of(p, b->stack)->temps++;
	}
	p->cur -= b->size;
	p->curblocks--;
	bremove(p, b);
}

static int
on_event(void *arg, const struct pme_heap_event *e)
{
	struct heap *hp = arg;
	struct hproc *p;

	hp->any = 1;
	if ((p = proc_of(hp, e->pid)) == NULL)
		return nomem(hp);
	p->seq++;
	if (hp->pass == 1)
		(e->kind == PME_HEAPREC_ALLOC ? p->fn : p->freefn)[e->fn <
		    NFN ? e->fn : 0]++;
	if (e->kind == PME_HEAPREC_FREE)
		on_free(hp, p, e);
	else if (on_alloc(hp, p, e) == -1)
		return -1;
	if (hp->pass == 2 && p->seq == p->peakseq && p->peak > 0)
		snapshot(p);
	return hp->curve != NULL && hp->curve(hp->carg, e->pid, p->comm,
	    e->time, p->cur) != 0 ? -1 : 0;
}

/* The leaks: what each process still held at its end (pass 1). */
static void
leaks(struct heap *hp)
{
	struct hproc *p;
	struct site *s;
	size_t i;

	for (p = hp->p; p < hp->p + hp->np; p++)
		for (i = 0; i < p->bcap; i++) {
			if (p->b[i].addr == 0 || p->b[i].inherited)
				continue;
			s = site_of(p, p->b[i].stack);
			s->leaks++;
			s->leakbytes += p->b[i].size;
		}
}

static int
replay(struct heap *hp, const char *path, struct pme_sample_summary *sum)
{
	static const struct pme_sample_visitor v = {
		on_header, on_mapping, on_thread, NULL, NULL
	};
	static const struct pme_heap_visitor hv = { on_stack, on_event };
	struct hproc *p;

	for (p = hp->p; p < hp->p + hp->np; p++) {
		proc_clear(p, 1);
		p->seq = 0;
		p->gone = 0;
	}
	hp->path = path;
	return pme_samplefile_heap(path, &v, &hv, hp, sum, hp->err);
}

/* ------------------------------------------------------------ names */

struct rsym {
	uint64_t	 lo, hi;
	const char	*name;
};

struct img {
	char		*path;
	struct pme_image *im;
	struct rsym	*r;
	size_t		 n;
};

struct names {
	struct img	*img;
	size_t		 n;
};

static int
rsym_cmp(const void *a, const void *b)
{
	const struct rsym *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static struct img *
img_of(struct names *nm, const char *path)
{
	const struct pme_symroutine *r;
	struct pme_error err;
	struct img *g;
	size_t i, k, nr;

	for (i = 0; i < nm->n; i++)
		if (strcmp(nm->img[i].path, path) == 0)
			return &nm->img[i];
	if ((g = realloc(nm->img, (nm->n + 1) * sizeof(*g))) == NULL)
		return NULL;
	nm->img = g;
	g = &nm->img[nm->n];
	memset(g, 0, sizeof(*g));
	if ((g->path = strdup(path)) == NULL)
		return NULL;
	nm->n++;
	if ((g->im = pme_image_open_symbols(path, NULL, &err)) == NULL)
		return g;
	nr = pme_image_routines(g->im, &r);
	for (i = 0; i < nr; i++)
		g->n += r[i].nranges;
	if ((g->r = calloc(g->n + 1, sizeof(*g->r))) == NULL)
		return g;
	for (g->n = 0, i = 0; i < nr; i++)
		for (k = 0; k < r[i].nranges; k++) {
			g->r[g->n].lo = r[i].ranges[k].start;
			g->r[g->n].hi = r[i].ranges[k].end;
			g->r[g->n++].name = r[i].name;
		}
	qsort(g->r, g->n, sizeof(*g->r), rsym_cmp);
	return g;
}

static const char *
routine_at(const struct img *g, uint64_t addr)
{
	size_t lo = 0, hi = g->n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (g->r[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && addr < g->r[lo - 1].hi)
		return g->r[lo - 1].name;
	return NULL;
}

/* The name of the routine holding return address ip of node n of p: in
 * its mapping at the end, or before the exec for an image one replaced. */
static void
frame_name(struct heap *hp, struct names *nm, const struct hproc *p,
    const struct hnode *n, char *buf, size_t len)
{
	const struct pme_mapping *maps;
	const char *name = NULL, *base;
	struct img *g;
	uint64_t vaddr = n->vaddr, ip = n->ip;
	uint32_t mi = n->mi;

	if (!p->gone)
		mi = pme_addrmap_lookup(hp->am, p->pid, UINT64_MAX, ip - 1,
		    &vaddr);
	if (mi == PME_NONE) {
		snprintf(buf, len, "0x%" PRIx64, ip);
		return;
	}
	pme_addrmap_mappings(hp->am, &maps);
	if ((g = img_of(nm, maps[mi].path)) != NULL && g->r != NULL)
		name = routine_at(g, vaddr);
	base = strrchr(maps[mi].path, '/');
	base = base != NULL ? base + 1 : maps[mi].path;
	if (name != NULL)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, base, vaddr);
}

/* s, escaped for a terminal. */
static void
put_escaped(FILE *fp, const char *s)
{
	char *e = pme_escape_dup(s);

	fputs(e != NULL ? e : "?", fp);
	free(e);
}

static void
stack_put(struct heap *hp, struct names *nm, const struct hproc *p,
    uint32_t id, FILE *fp)
{
	char buf[512];
	int d;

	if (id == 0) {
		fputs("(no stack)", fp);
		return;
	}
	for (d = 0; id != 0 && d < DEPTH; d++, id = p->node[id].parent) {
		frame_name(hp, nm, p, &p->node[id], buf, sizeof(buf));
		fprintf(fp, "%s", d > 0 ? " < " : "");
		put_escaped(fp, buf);
	}
	if (id != 0)
		fputs(" < ...", fp);
}

/* ---------------------------------------------------------- reports */

/* The key a table sorts its stacks by. */
static const struct site *cmp_sites;
static int cmp_which;

static uint64_t
key(const struct site *s, int which)
{
	switch (which) {
	case 0:
		return s->leakbytes;
	case 1:
		return s->peakbytes;
	case 2:
		return s->temps;
	default:
		return s->bytes;
	}
}

static int
site_cmp(const void *a, const void *b)
{
	uint64_t x = key(&cmp_sites[*(const uint32_t *)a], cmp_which);
	uint64_t y = key(&cmp_sites[*(const uint32_t *)b], cmp_which);

	if (x != y)
		return x < y ? 1 : -1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void
table(struct heap *hp, struct names *nm, const struct hproc *p, int which,
    const char *title, FILE *fp)
{
	uint32_t *ids, i, n = 0;
	const struct site *s;

	if ((ids = calloc(p->nnode + 1, sizeof(*ids))) == NULL)
		return;
	for (i = 0; i <= p->nnode; i++)
		if (key(site_of((struct hproc *)p, i), which) > 0)
			ids[n++] = i;
	if (n > 0) {
		cmp_sites = p->site;
		cmp_which = which;
		qsort(ids, n, sizeof(*ids), site_cmp);
		fprintf(fp, "\n%s:\n", title);
		fprintf(fp, which == 2 ? "%12s %12s  %s\n" :
		    "%12s %12s  %s\n", which == 2 ? "temporary" : "bytes",
		    which == 2 ? "allocations" : "blocks", "stack");
	}
	for (i = 0; i < n && i < SHOWN; i++) {
		s = site_of((struct hproc *)p, ids[i]);
		fprintf(fp, "%12" PRIu64 " %12" PRIu64 "  ", which == 0 ?
		    s->leakbytes : which == 1 ? s->peakbytes : s->temps,
		    which == 0 ? s->leaks : which == 1 ? s->peakblocks :
		    s->allocs);
		stack_put(hp, nm, p, ids[i], fp);
		fputc('\n', fp);
	}
	if (n > SHOWN)
		fprintf(fp, "%12s %12s  (%u more stacks)\n", "", "",
		    n - SHOWN);
	free(ids);
}

/* The calls counted in n, by function: " malloc 12, calloc 3". */
static void
by_fn(const uint64_t *n, FILE *fp)
{
	int k, any = 0;

	for (k = 1; k < NFN; k++)
		if (n[k] > 0 && k != PME_HEAP_UNSEEN)
			fprintf(fp, "%s %s %" PRIu64, any++ ? "," : "",
			    fnames[k], n[k]);
}

static void
summary(const struct heap *hp, const struct hproc *p, FILE *fp)
{
	uint64_t leaks = 0, leakbytes = 0;
	size_t i;

	for (i = 0; i <= p->nnode; i++) {
		leaks += site_of((struct hproc *)p, (uint32_t)i)->leaks;
		leakbytes += site_of((struct hproc *)p, (uint32_t)i)->leakbytes;
	}
	fprintf(fp, "Heap of process %u ('", p->pid);
	put_escaped(fp, p->comm);
	fprintf(fp, "')%s\n", p->after ? ", after an exec" : "");
	fprintf(fp, "  allocations    %" PRIu64 " (%" PRIu64 " bytes):",
	    p->allocs, p->bytes);
	by_fn(p->fn, fp);
	fprintf(fp, "\n  frees          %" PRIu64 ":", p->frees);
	by_fn(p->freefn, fp);
	fputc('\n', fp);
	fprintf(fp, "  peak           %" PRIu64 " bytes in %" PRIu64
	    " blocks, at %.6f s\n", p->peak, p->peakblocks, p->peaktime >
	    hp->start ? (double)(p->peaktime - hp->start) / 1e9 : 0.0);
	if (p->gone)
		fprintf(fp, "  at the exec    %" PRIu64 " bytes in %" PRIu64
		    " blocks live, released by the exec (not leaks)\n",
		    p->atexec, p->atexecblocks);
	fprintf(fp, "  leaked         %" PRIu64 " bytes in %" PRIu64
	    " blocks (not freed at the end)\n", leakbytes, leaks);
	fprintf(fp, "  temporary      %" PRIu64 " allocations (%.1f%%)\n",
	    p->temps, p->allocs ? 100.0 * (double)p->temps /
	    (double)p->allocs : 0.0);
	if (p->unseen > 0)
		fprintf(fp, "  unseen frees   %" PRIu64 " (blocks allocated "
		    "again at their address, their free not recorded)\n",
		    p->unseen);
	if (p->unknown > 0)
		fprintf(fp, "  unknown frees  %" PRIu64 " (of blocks not "
		    "recorded: allocated before recording began, or not by "
		    "the allocator)\n", p->unknown);
}

static void
names_free(struct names *nm)
{
	size_t i;

	for (i = 0; i < nm->n; i++) {
		free(nm->img[i].path);
		free(nm->img[i].r);
		pme_image_close(nm->img[i].im);
	}
	free(nm->img);
}

static void
report(struct heap *hp, FILE *fp)
{
	struct names nm = { NULL, 0 };
	const struct hproc *p;

	for (p = hp->p; p < hp->p + hp->np; p++) {
		if (p->allocs == 0 && p->frees == 0)
			continue;
		if (p != hp->p)
			fputc('\n', fp);
		summary(hp, p, fp);
		table(hp, &nm, p, 0, "Leaks, by stack", fp);
		table(hp, &nm, p, 1, "Live at the peak, by stack", fp);
		table(hp, &nm, p, 2, "Temporary allocations, by stack", fp);
	}
	names_free(&nm);
}

static void
heap_free(struct heap *hp)
{
	size_t i;

	for (i = 0; i < hp->np; i++) {
		free(hp->p[i].b);
		free(hp->p[i].node);
		free(hp->p[i].site);
	}
	free(hp->p);
	pme_addrmap_free(hp->am);
}

int
heap_curve(const char *path, heap_curve_fn fn, void *arg,
    struct pme_error *err)
{
	struct heap hp;
	int rc = -1;

	memset(&hp, 0, sizeof(hp));
	hp.err = err;
	hp.curve = fn;
	hp.carg = arg;
	if ((hp.am = pme_addrmap_new(err)) == NULL)
		return -1;
	hp.pass = 1;
	if (replay(&hp, path, NULL) == -1)
		;
	else if (!hp.any && hp.watched)
		histo_err(err, PME_EINVAL, "'%s': no call of the allocator "
		    "(pmeclock -e alloc watched the run): no heap to draw",
		    path);
	else if (!hp.any)
		histo_err(err, PME_EINVAL, "'%s': no heap records (record "
		    "them with pmeclock -e alloc)", path);
	else
		rc = 0;
	heap_free(&hp);
	return rc;
}

int
heap_view(const char *prog, const char *const *paths, size_t n, FILE *fp,
    struct pme_error *err)
{
	struct pme_sample_summary sum;
	struct heap hp;
	int rc = -1;

	if (n != 1)
		return histo_err(err, PME_EINVAL, "-V heap: one sample file, "
		    "not %zu", n);
	memset(&hp, 0, sizeof(hp));
	hp.err = err;
	if ((hp.am = pme_addrmap_new(err)) == NULL)
		return -1;
	hp.pass = 1;
	memset(&sum, 0, sizeof(sum));
	if (replay(&hp, paths[0], &sum) == -1)
		goto out;
	histo_warn_cut(prog, paths[0], &sum, "the report shows the events "
	    "read: blocks freed after them count as leaks");
	if (!hp.any && hp.watched) {
		/* a program that allocated nothing: a report of nothing */
		fprintf(fp, "Heap: no call of the allocator (pmeclock -e "
		    "alloc watched the run)\n");
		rc = fflush(fp) == 0 ? 0 : histo_err(err, PME_EIO,
		    "standard output: write failed");
		goto out;
	}
	if (!hp.any) {
		histo_err(err, PME_EINVAL, "'%s': no heap records (record "
		    "them with pmeclock -e alloc)", paths[0]);
		goto out;
	}
	leaks(&hp);
	hp.pass = 2;
	if (replay(&hp, paths[0], NULL) == -1)
		goto out;
	report(&hp, fp);
	rc = fflush(fp) == 0 ? 0 : histo_err(err, PME_EIO, "standard output: "
	    "write failed");
out:
	heap_free(&hp);
	return rc;
}
