/*
 * gate.c - pmeclock --start ROUTINE --stop ROUTINE: a thread's samples
 * are written only while its calls of the start routine exceed its
 * calls of the stop routine (the Cedar Spy's rule for its start and stop
 * breaks: recursion and nesting are safe), or, when both name one
 * routine, its entries exceed its returns.  See pmeclock(1), BREAKS.
 *
 * Per thread, not per process: a uprobe fires in the thread that made
 * the call, and a routine's return is its caller's, so a thread's count
 * is exact whatever the other threads do, and the window holds the work
 * of the routine, not whatever other threads do meanwhile.  A process
 * made by fork() starts with its parent thread's count (it returns from
 * the same calls: the kernel copies its return probes); a new thread
 * starts outside, and an exec or an exit ends a thread's window.
 *
 * Attached (-p, attach.c) or watching every process (-a) the same, for
 * each thread: one that pmeclock did not see start begins outside,
 * whatever calls it made before, as they cannot be known; a stop at a
 * count of 0 does nothing (the count does not go below zero), and the
 * return of a call entered before the attach is not seen at all (the
 * kernel places a return probe at an entry it sees).  With -a the breaks
 * fire in every process running the routines' file; a thread of any
 * other process never has a window, so its samples are not written.
 *
 * The breaks' records arrive in rings of their own, read one after the
 * other, while the program runs on: a reading can hold a sample taken
 * after a start that the next reading holds.  So the records are held
 * and sorted by time, and those older than the start of the previous
 * reading, less GATE_HOLD_NS, are converted: the kernel wrote each in
 * the microseconds after its time, before that reading began.  (A record
 * later than that is converted as it comes and counted, said with -v.)
 *
 * A routine's return probe is placed only on the kernel's first 64
 * nested calls of it in a thread (MAX_URETPROBE_DEPTH): the deeper
 * calls return unseen.  So with one routine each entry's stack pointer
 * is kept, and a return ends the calls entered at or below its stack
 * pointer, the unseen ones with it; an entry no deeper in the stack
 * than an open call ends that call too (it was left by longjmp).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/perf_event.h>

#if defined(__x86_64__) || defined(__aarch64__)
#include <asm/perf_regs.h>
#endif

#include "clock.h"
#include "perf.h"
#include "unwind.h"

#if defined(__x86_64__)
#define GATE_SP		PERF_REG_X86_SP
#elif defined(__aarch64__)
#define GATE_SP		PERF_REG_ARM64_SP
#endif

#define GATE_HOLD_NS	50000000ull	/* 50 ms, more than HIT_NS */
#define GATE_WAKEUP	(64 * 1024)

struct gthread {
	uint32_t	 tid;		/* 0: an empty slot */
	uint32_t	 n;		/* starts less stops, 0 at least */
	uint64_t	*sp;		/* one routine: its open calls' stack
					   pointers at entry, outermost first */
	uint64_t	*ret;		/* and their return addresses */
	size_t		 nsp, capsp, capret;
};

struct gate {
	struct gthread	*t;		/* open-addressed by tid */
	size_t		 nt, capt;
	int		 bysp;		/* one routine, its stack pointers */
	struct batch	 held[2];	/* held[cur]: records to convert,
					   h an offset into its arena */
	int		 cur;
	uint64_t	 prevstart;	/* the previous reading's start */
	uint64_t	 done;		/* the latest time converted */
	uint64_t	 inside, outside, windows, late, lost;
	int		 flushed;
};

int
gate_new(struct perfstate *ps)
{
	if ((ps->gate = calloc(1, sizeof(*ps->gate))) == NULL)
		return perf_fail(ps, "out of memory");
#ifdef GATE_SP
	ps->gate->bysp = ps->o->gateret;
#endif
	return 0;
}

void
gate_attr(struct perf_event_attr *a, const struct clockopts *o, int k,
    int ek)
{
	const struct clockevent *e = &o->gate[k == GATE_EV_STOP];

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = e->spec.type;
	a->config = e->spec.config;
	breaks_attr(&e->spec, a);
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	    PERF_SAMPLE_CPU;
#ifdef GATE_SP
	a->sample_type |= PERF_SAMPLE_REGS_USER;
	a->sample_regs_user = 1ull << GATE_SP;
	/* The return address, which the return probe replaces. */
	if (o->gateret && k == GATE_EV_START && o->callchain &&
	    o->callgraph == CALLGRAPH_DWARF) {
		a->sample_type |= PERF_SAMPLE_STACK_USER;
		a->sample_stack_user = 8;
	}
#endif
	a->disabled = 1;
	a->inherit = 1;
	a->enable_on_exec = 1;
	a->sample_id_all = 1;
	a->exclude_kernel = (unsigned)ek;
	a->exclude_hv = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = GATE_WAKEUP;
}

/* Thread tid's state; a new one when add (NULL when out of memory),
 * else NULL when it has none. */
static struct gthread *
thread(struct gate *g, uint32_t tid, int add)
{
	struct gthread *old = g->t, *t;
	size_t i, cap = g->capt;

	if (tid == 0)
		return NULL;
	for (i = (tid * 2654435761u) & (cap - 1); cap > 0 && g->t[i].tid != 0;
	    i = (i + 1) & (cap - 1))
		if (g->t[i].tid == tid)
			return &g->t[i];
	if (!add)
		return NULL;
	if (g->nt * 2 >= cap) {
		cap = cap ? cap * 2 : 64;
		if ((g->t = calloc(cap, sizeof(*g->t))) == NULL) {
			g->t = old;
			return NULL;
		}
		g->capt = cap;
		g->nt = 0;
		for (i = 0; i < cap / 2 && old != NULL; i++)
			if (old[i].tid != 0) {
				t = thread(g, old[i].tid, 1);
				*t = old[i];
			}
		free(old);
		return thread(g, tid, 1);
	}
	g->nt++;
	g->t[i].tid = tid;
	return &g->t[i];
}

/* How many of thread t's calls are open. */
static uint64_t
depth(const struct gate *g, const struct gthread *t)
{
	return t == NULL ? 0 : g->bysp ? t->nsp : t->n;
}

int
gate_sample(struct perfstate *ps, uint32_t tid)
{
	struct gate *g = ps->gate;

	if (depth(g, thread(g, tid, 0)) > 0) {
		g->inside++;
		return 1;
	}
	g->outside++;
	return 0;
}

/* A call of the routine at stack pointer sp in t, returning to ret (0
 * unknown): the calls at or below it have ended unseen. */
static int
enter(struct gthread *t, uint64_t sp, uint64_t ret)
{
	void *p;

	while (t->nsp > 0 && t->sp[t->nsp - 1] <= sp)
		t->nsp--;
	if ((p = perf_grow(t->sp, &t->capsp, t->nsp + 1, sizeof(*t->sp))) ==
	    NULL)
		return -1;
	t->sp = p;
	if ((p = perf_grow(t->ret, &t->capret, t->nsp + 1,
	    sizeof(*t->ret))) == NULL)
		return -1;
	t->ret = p;
	t->ret[t->nsp] = ret;
	t->sp[t->nsp++] = sp;
	return 0;
}

/*
 * The return probe puts the address of the kernel's trampoline in place
 * of the routine's return address on the stack: a sample's copy of the
 * stack gets the return addresses back, so that its chain is unwound
 * past the routine's calls (regs: the sample's user registers, of
 * unwind_regs_mask(); stack: len bytes from their stack pointer).
 */
void
gate_fix(struct perfstate *ps, uint32_t tid, const uint64_t *regs,
    uint8_t *stack, uint64_t len)
{
#ifdef GATE_SP
	uint64_t mask = unwind_regs_mask(), sp;
	const struct gthread *t;
	size_t i;

	if (!ps->gate->bysp || !(mask & (1ull << GATE_SP)) ||
	    (t = thread(ps->gate, tid, 0)) == NULL)
		return;
	sp = regs[__builtin_popcountll(mask & ((1ull << GATE_SP) - 1))];
	for (i = 0; i < t->nsp; i++)
		if (t->ret[i] != 0 && t->sp[i] >= sp && len >= 8 &&
		    t->sp[i] - sp <= len - 8)
			memcpy(stack + (t->sp[i] - sp), &t->ret[i], 8);
#else
	(void)ps, (void)tid, (void)regs, (void)stack, (void)len;
#endif
}

void
gate_record(struct perfstate *ps, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	struct gate *g = ps->gate;
	struct gthread *t;
	uint64_t sp = 0, ret = 0, was;
	int havesp;

	if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*h) + 16)
		g->lost += get64(p + 8);
	if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*h) + 32)
		return;
	havesp = h->size >= sizeof(*h) + 48 &&
	    get64(p + 32) != PERF_SAMPLE_REGS_ABI_NONE;
	if (havesp)
		sp = get64(p + 40);
	/* The return address: PERF_SAMPLE_STACK_USER's 8 bytes. */
	if (havesp && h->size >= sizeof(*h) + 72 && get64(p + 48) == 8 &&
	    get64(p + 64) == 8)
		ret = get64(p + 56);
	if ((t = thread(g, get32(p + 12), ps->curev == GATE_EV_START)) == NULL)
		return;
	was = depth(g, t);
	if (ps->curev == GATE_EV_START) {
		if (g->bysp && havesp ? enter(t, sp, ret) < 0 : (t->n++, 0))
			perf_fail(ps, "out of memory");
	} else if (g->bysp && havesp) {
		/* The return's stack pointer is above its entry's. */
		while (t->nsp > 0 && t->sp[t->nsp - 1] < sp)
			t->nsp--;
	} else if (g->bysp && t->nsp > 0)
		t->nsp--;
	else if (t->n > 0)
		t->n--;
	g->windows += was == 0 && depth(g, t) > 0;
}

void
gate_task(struct perfstate *ps, const struct pme_thread *t)
{
	struct gate *g = ps->gate;
	struct gthread *from, *to;

	if (t->kind == PME_THREAD_FORK && t->pid == t->tid &&
	    (from = thread(g, t->ptid, 0)) != NULL &&
	    (to = thread(g, t->tid, 1)) != NULL &&
	    (from = thread(g, t->ptid, 0)) != NULL) {
		to->n = from->n;
		for (to->nsp = 0; to->nsp < from->nsp; )
			if (enter(to, from->sp[to->nsp], from->ret[to->nsp]) < 0)
				break;
	} else if ((t->kind == PME_THREAD_EXEC || t->kind == PME_THREAD_EXIT ||
	    t->kind == PME_THREAD_FORK) && (to = thread(g, t->tid, 0)) != NULL)
		to->n = 0, to->nsp = 0;
}

/* Appends record r (h a pointer) to b, h made an offset; -1. */
static int
hold(struct batch *b, const struct rec *r)
{
	size_t len = (r->h->size + 7) & ~(size_t)7;
	void *p;

	if ((p = perf_grow(b->arena, &b->caparena, b->narena + len, 1)) ==
	    NULL)
		return -1;
	b->arena = p;
	if ((p = perf_grow(b->recs, &b->caprecs, b->nrecs + 1,
	    sizeof(*b->recs))) == NULL)
		return -1;
	b->recs = p;
	memcpy(b->arena + b->narena, r->h, r->h->size);
	b->recs[b->nrecs] = *r;
	b->recs[b->nrecs++].h = (void *)(uintptr_t)b->narena;
	b->narena += len;
	return 0;
}

#define HIT_NS	1000000ull	/* the records of one hit of a probe */

/* Record r of b (h an offset): its thread and address when a sample. */
static int
hit(const struct batch *b, const struct rec *r, uint32_t *tid, uint64_t *ip)
{
	const struct perf_event_header *h = (const void *)(b->arena +
	    (uintptr_t)r->h);

	if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*h) + 16)
		return 0;
	*ip = get64(h + 1);
	*tid = get32((const uint8_t *)(h + 1) + 12);
	return 1;
}

/*
 * A break's sample and --start's or --stop's record made by one hit of
 * one address come in the order the kernel runs the probes' handlers:
 * the gate's is put first, so that a call of --start's routine is in
 * the window, and a call of --stop's that closes it is not, whatever
 * that order.  b is sorted by time.
 */
static void
gate_first(struct batch *b)
{
	uint32_t tid, qtid;
	uint64_t ip, qip;
	struct rec r;
	size_t i, j, at;

	for (i = 1; i < b->nrecs; i++) {
		if (!GATE_EV(b->recs[i].ev) || !hit(b, &b->recs[i], &tid, &ip))
			continue;
		for (at = j = i; j-- > 0 && b->recs[i].time - b->recs[j].time <
		    HIT_NS; ) {
			if (!hit(b, &b->recs[j], &qtid, &qip) || qtid != tid)
				continue;
			if (b->recs[j].ev < 0 || qip != ip)
				break;
			at = j;
		}
		if (at == i)
			continue;
		r = b->recs[i];
		memmove(&b->recs[at + 1], &b->recs[at], (i - at) *
		    sizeof(*b->recs));
		b->recs[at] = r;
	}
}

/* Converts the held records older than limit, in time order, and keeps
 * the others. */
static void
release(struct perfstate *ps, uint64_t limit)
{
	struct gate *g = ps->gate;
	struct batch *b = &g->held[g->cur], *keep = &g->held[!g->cur];
	struct rec r;
	size_t i;

	if (b->nrecs > 1)	/* recs is NULL before the first */
		qsort(b->recs, b->nrecs, sizeof(*b->recs), perf_cmp_rec);
	gate_first(b);
	for (i = 0; i < b->nrecs && b->recs[i].time < limit &&
	    !ps->failed; i++) {
		r = b->recs[i];
		r.h = (void *)(b->arena + (uintptr_t)r.h);
		g->late += r.time < g->done;
		if (r.time > g->done)
			g->done = r.time;
		perf_convert(ps, &r);
	}
	keep->nrecs = keep->narena = 0;
	for (; i < b->nrecs && !ps->failed; i++) {
		r = b->recs[i];
		r.h = (void *)(b->arena + (uintptr_t)r.h);
		if (hold(keep, &r) < 0)
			perf_fail(ps, "out of memory");
	}
	b->nrecs = b->narena = 0;
	g->cur = !g->cur;
}

void
gate_batch(struct perfstate *ps, struct batch *b)
{
	struct gate *g = ps->gate;
	size_t i;

	for (i = 0; i < b->nrecs && !ps->failed; i++)
		if (hold(&g->held[g->cur], &b->recs[i]) < 0)
			perf_fail(ps, "out of memory");
	release(ps, g->prevstart > GATE_HOLD_NS ? g->prevstart -
	    GATE_HOLD_NS : 0);
	g->prevstart = b->start;
}

void
gate_flush(struct perfstate *ps)
{
	if (ps->gate == NULL)
		return;
	release(ps, UINT64_MAX);
	ps->gate->flushed = 1;
}

void
gate_end(struct perfstate *ps)
{
	struct gate *g = ps->gate;
	const struct clockopts *o = ps->o;
	size_t i;

	if (g == NULL)
		return;
	if (g->flushed && !o->quiet)
		fprintf(stderr, "%s: --start %s --stop %s: %llu windows, %llu "
		    "samples in them written, %llu outside left out\n", prog,
		    o->gatearg[0], o->gatearg[1],
		    (unsigned long long)g->windows,
		    (unsigned long long)g->inside,
		    (unsigned long long)g->outside);
	if (g->flushed && g->lost > 0 && !o->quiet)
		fprintf(stderr, "%s: %llu calls of --start's or --stop's "
		    "routine lost (the kernel's buffer was full): windows "
		    "may be wrong\n", prog, (unsigned long long)g->lost);
	if (g->flushed && g->late > 0 && o->verbose)
		fprintf(stderr, "%s: %llu records read after later ones were "
		    "converted\n", prog, (unsigned long long)g->late);
	for (i = 0; i < g->capt; i++) {
		free(g->t[i].sp);
		free(g->t[i].ret);
	}
	free(g->t);
	batch_free(&g->held[0]);
	batch_free(&g->held[1]);
	free(g);
	ps->gate = NULL;
}
