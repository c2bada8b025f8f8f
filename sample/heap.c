/*
 * heap.c - the shared libpmeclock's heap recording (pmeclock -e alloc):
 * the allocator's entries interposed, every call that allocates or frees
 * recorded with its thread, time, address, size and, for an allocation,
 * its call stack, and sent to pmeclock as HEAP chunk payloads (pme(5))
 * in PMECLOCK_MSG_HEAP messages.
 *
 * Stacks are interned in a tree of (parent, return address) nodes, as
 * heaptrack keeps them: a stack is the id of its innermost node, and a
 * node is sent once, the first time a stack passes through it.  The
 * records of a process go into one buffer under one lock, so that their
 * order is the order the heap changed in: a free is recorded before the
 * block goes back to the allocator, an allocation after it came out,
 * and a realloc with the lock held across it.  The buffer is sent when
 * full, by the writer thread every 100 ms, and at exit and exec.
 *
 * The allocations and releases are written as HEA2 records (pme(5)): a
 * release names its block by its age, the allocations since its own,
 * less the age of the release before it,
 * and a run of records that came before, at a distance of fewer than
 * PME_HEAP_WINDOW, is one REPEAT, so that a program that repeats itself
 * makes a small file (matching, below).
 *
 * The real functions come from dlsym(RTLD_NEXT), whose own allocations
 * (and any before it answered) are served from a static arena that free
 * and realloc know.  A thread inside the recording, or inside the
 * runtime's own work (rt_heap_hold), passes calls through unrecorded,
 * which is also what keeps libunwind's and dlsym's allocations out.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/mman.h>

#include "pme_sample.h"
#include "proto.h"
#include "runtime.h"
#include "util.h"
#include "varint.h"

#define MAXFRAMES	PMECLOCK_MAXFRAMES
#define BOOT_ARENA	(256u << 10)
#define TABLE0		(1u << 16)	/* stack nodes, at first */
/* The most a call adds: a realloc's release and allocation, each after
 * a THREAD, a TIME and a REPEAT, and its stack's nodes, each varint at
 * its longest. */
#define REC_MAX		(MAXFRAMES * 21 + 128)
/* Matching: a record's last GRAM records (itself among them) are looked
 * up in a table of HBITS bits, along at most CHAIN earlier places, the
 * place taken whose records before it match longest (up to BACK). */
#define GRAM		4
#define HBITS		16
#define CHAIN		8
#define BACK		64
#define WIN		PME_HEAP_WINDOW

typedef void *(*malloc_fn)(size_t);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*realloc_fn)(void *, size_t);
typedef void *(*reallocarray_fn)(void *, size_t, size_t);
typedef void (*free_fn)(void *);
typedef void *(*memalign_fn)(size_t, size_t);
typedef int (*posix_memalign_fn)(void **, size_t, size_t);
typedef void *(*valloc_fn)(size_t);

static struct {
	malloc_fn	 malloc;
	calloc_fn	 calloc;
	realloc_fn	 realloc;
	reallocarray_fn	 reallocarray;
	free_fn		 free;
	memalign_fn	 memalign, aligned_alloc;
	posix_memalign_fn posix_memalign;
	valloc_fn	 valloc, pvalloc;
} real;

/* The arena dlsym's allocations come from before the real ones are
 * known: never given back. */
static _Alignas(64) uint8_t boot[BOOT_ARENA];
static _Atomic size_t boot_used;

static __thread int hold __attribute__((tls_model("initial-exec")));
/* The thread's ID, asked of the kernel once (0: not yet); a fork child's
 * forking thread forgets it (on_child). */
static __thread uint32_t my_tid __attribute__((tls_model("initial-exec")));

/* A stack node: its caller's node (0: none) and its return address. */
struct node {
	uint32_t	 parent;
	uint64_t	 ip;
};

/* An allocation or release as HEA2 writes it: tag, function, and the
 * stack and size of an ALLOC, the age (0: no block) of a FREE. */
struct tok {
	uint8_t		 tag, fn;
	uint16_t	 pad;
	uint32_t	 stack;
	uint64_t	 v;
};

static struct {
	pthread_mutex_t	 lock;
	_Atomic int	 on;
	int		 ready;		/* the runtime has started: records
					   are sent, stacks unwound */
	uint64_t	 lost;		/* records dropped before it was */
	int		 fp;		/* frame pointers, not the CFI */
	uint32_t	 pid;
	uintptr_t	 self_lo, self_hi;	/* this library's text */
	int		 (*backtrace)(void **, int);
	struct node	*nodes;		/* [1..nnodes] */
	uint32_t	*table;		/* node ids, open addressing */
	uint32_t	 nnodes, cap;	/* table slots; nodes' room too */
	uint8_t		*msg;		/* header, then the payload */
	size_t		 len;
	uint64_t	 time;		/* of the last TIME record */
	struct live {
		uint64_t ptr;		/* 0: an empty slot of the table */
		uint64_t serial;	/* its allocation's, from 1 */
		uint32_t slot;		/* the block's number; INHERITED:
					   the parent's, at the fork */
	}		*live;		/* the live blocks, by address */
	uint32_t	 lcap, lused;
	uint32_t	*freeslots;	/* numbers given back, lcap / 2 room */
	uint32_t	 nfree, next;
	uint64_t	 serial;	/* allocations of the process image */
	uint64_t	 lastage;	/* of its last release of a block */
	uint64_t	 lastip;
	uint32_t	 tid;		/* of the last record, 0: none yet */
	/* Matching: the last WIN records (tok[n % WIN], n < ntok); the
	 * place after the last of each gram's hash (0: none) and of the
	 * one before it; the run of records that match those dist before
	 * them, pend long, not written yet; the chunk's last REPEAT's
	 * dist and its records. */
	struct tok	*tok;
	uint32_t	*head, *prev;
	uint64_t	 ntok;
	uint32_t	 dist, pend, lastdist, events;
} h = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* ---------------------------------------------------------- real ones */

static void *
boot_alloc(size_t size, size_t align)
{
	size_t at, end;

	if (align < 16)
		align = 16;
	at = atomic_load(&boot_used);
	do {
		at = (at + align - 1) & ~(align - 1);
		end = at + size;
		if (end > BOOT_ARENA || end < at)
			return NULL;
	} while (!atomic_compare_exchange_weak(&boot_used, &at, end));
	return boot + at;
}

static int
is_boot(const void *p)
{
	return (const uint8_t *)p >= boot && (const uint8_t *)p < boot +
	    BOOT_ARENA;
}

static void
find_real(void)
{
	static _Atomic int done;

	if (atomic_load_explicit(&done, memory_order_acquire))
		return;
	hold++;
	*(void **)&real.calloc = dlsym(RTLD_NEXT, "calloc");
	*(void **)&real.malloc = dlsym(RTLD_NEXT, "malloc");
	*(void **)&real.realloc = dlsym(RTLD_NEXT, "realloc");
	*(void **)&real.reallocarray = dlsym(RTLD_NEXT, "reallocarray");
	*(void **)&real.free = dlsym(RTLD_NEXT, "free");
	*(void **)&real.memalign = dlsym(RTLD_NEXT, "memalign");
	*(void **)&real.aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
	*(void **)&real.posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	*(void **)&real.valloc = dlsym(RTLD_NEXT, "valloc");
	*(void **)&real.pvalloc = dlsym(RTLD_NEXT, "pvalloc");
	hold--;
	atomic_store_explicit(&done, 1, memory_order_release);
}

/* ------------------------------------------------------------ sending */

static void
put_begin(void)
{
	uint8_t *p = h.msg + sizeof(struct pmeclock_msg);

	p = pme_uv_put(p, h.pid);
	p = pme_uv_put(p, h.time);
	h.len = (size_t)(p - h.msg);
	h.tid = 0;
	h.lastip = 0;
	h.lastdist = 0;
	h.events = 0;
}

static void	flush_pend(void);

/* Sends the records buffered (lock held). */
static void
send_all(void)
{
	struct pmeclock_msg *m = (void *)h.msg;
	size_t empty = sizeof(*m) + pme_uv_len(h.pid) + pme_uv_len(h.time);

	if (h.msg == NULL)
		return;
	flush_pend();
	if (h.len <= empty)
		return;
	m->size = (uint32_t)h.len;
	m->type = PMECLOCK_MSG_HEAP;
	m->pid = h.pid;
	m->pad = 0;
	rt_send(h.msg, h.len);
	put_begin();
}

static void
put(uint64_t v)
{
	h.len = (size_t)(pme_uv_put(h.msg + h.len, v) - h.msg);
}

/* ------------------------------------------------------------- stacks */

static uint32_t
slot_of(uint32_t parent, uint64_t ip, uint32_t cap)
{
	uint64_t x = (ip ^ (uint64_t)parent << 40) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(x >> 32) & (cap - 1);
}

static void *
map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Doubles the table and the nodes' room: 0, or -1 (no memory). */
static int
grow(void)
{
	uint32_t cap = h.cap ? h.cap * 2 : TABLE0, *t, i, s;
	struct node *n;

	if ((t = map(cap * sizeof(*t))) == NULL ||
	    (n = map((cap / 2 + 1) * sizeof(*n))) == NULL) {
		if (t != NULL)
			munmap(t, cap * sizeof(*t));
		return -1;
	}
	if (h.nodes != NULL) {
		memcpy(n, h.nodes, (h.nnodes + 1) * sizeof(*n));
		munmap(h.nodes, (h.cap / 2 + 1) * sizeof(*n));
		munmap(h.table, h.cap * sizeof(*t));
	}
	for (i = 1; i <= h.nnodes; i++) {
		for (s = slot_of(n[i].parent, n[i].ip, cap); t[s] != 0;
		    s = (s + 1) & (cap - 1))
			continue;
		t[s] = i;
	}
	h.nodes = n;
	h.table = t;
	h.cap = cap;
	return 0;
}

/* The node of ip called from parent, made (and recorded) if new; 0 when
 * out of memory. */
static uint32_t
node(uint32_t parent, uint64_t ip)
{
	uint32_t s, id;

	if (h.nnodes + 1 >= h.cap / 2 && grow() == -1)
		return 0;
	for (s = slot_of(parent, ip, h.cap); (id = h.table[s]) != 0;
	    s = (s + 1) & (h.cap - 1))
		if (h.nodes[id].ip == ip && h.nodes[id].parent == parent)
			return id;
	id = ++h.nnodes;
	h.nodes[id].parent = parent;
	h.nodes[id].ip = ip;
	h.table[s] = id;
	put(PME_HEAPREC_STACK);
	put(parent);
	put(pme_zig(ip - h.lastip));
	h.lastip = ip;
	return id;
}

/* The stack of frames[0..n), innermost first, as its innermost node. */
static uint32_t
intern(const uint64_t *frames, uint32_t n)
{
	uint32_t id = 0;

	while (n-- > 0)
		if ((id = node(id, frames[n])) == 0)
			return 0;
	return id;
}

/* -------------------------------------------------------- unwinding */

static __thread uintptr_t stack_top __attribute__((tls_model("initial-exec")));

/* The frame-pointer walk, from this frame, within the thread's stack. */
static uint32_t
walk_fp(uint64_t *frames)
{
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0), next, ip;
	uint32_t n = 0;
	pthread_attr_t a;
	size_t size;
	void *lo;

	if (stack_top == 0 && pthread_getattr_np(pthread_self(), &a) == 0) {
		if (pthread_attr_getstack(&a, &lo, &size) == 0)
			stack_top = (uintptr_t)lo + size;
		pthread_attr_destroy(&a);
	}
	while (n < MAXFRAMES && fp != 0 && fp + 16 <= stack_top &&
	    (fp & 7) == 0) {
		ip = ((const uintptr_t *)fp)[1];
		if (ip < 4096)
			break;
		frames[n++] = ip;
		next = ((const uintptr_t *)fp)[0];
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

/* The call stack of the interposed function's caller: the frames in
 * this library dropped. */
static uint32_t
unwind(uint64_t *frames)
{
	void *ips[MAXFRAMES + 8];
	uint32_t n, i, k;

	if (h.fp || h.backtrace == NULL)
		n = walk_fp(frames);
	else {
		n = (uint32_t)h.backtrace(ips, MAXFRAMES + 8);
		for (i = 0; i < n; i++)
			frames[i < MAXFRAMES ? i : 0] = (uint64_t)(uintptr_t)
			    ips[i];
		n = n < MAXFRAMES ? n : MAXFRAMES;
	}
	for (k = 0; k < n && frames[k] >= h.self_lo && frames[k] < h.self_hi;
	    k++)
		continue;
	memmove(frames, frames + k, (n - k) * sizeof(*frames));
	return n - k;
}

/* ---------------------------------------------------------- recording */

/*
 * Before an event, a THREAD record when its thread is not the last
 * record's, and a TIME record when the clock has moved on by TIME_STEP
 * since the last, the run pending written first (lock held).  Times to the step, as
 * heaptrack keeps them: a time in every record would be noise that no
 * compression takes out of a file of millions.
 */
#define TIME_STEP	1000000u	/* ns */

/* CLOCK_MONOTONIC to the kernel's tick, at a fraction of its cost. */
static uint64_t
coarse_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
stamp(void)
{
	uint32_t tid = my_tid != 0 ? my_tid : (my_tid = rt_gettid());
	uint64_t t = coarse_now();

	if (tid != h.tid || t >= h.time + TIME_STEP)
		flush_pend();
	if (tid != h.tid) {
		put(PME_HEAPREC_THREAD);
		put(tid);
		h.tid = tid;
	}
	if (t >= h.time + TIME_STEP) {
		put(PME_HEAPREC_TIME);
		put(t - h.time);
		h.time = t;
	}
}

/* ----------------------------------------------------------- matching */

/*
 * Each allocation and release is a tok, kept in a ring of the last WIN.
 * One equal to the tok dist before it (a program doing again what it
 * did) lengthens the run pending, written as one REPEAT when a tok does
 * not match, before a THREAD, TIME or FREE_PARENT record and at the
 * chunk's end.  Else the places where its last GRAM toks came before
 * are tried, and the one whose toks before match longest starts a run:
 * in a program that repeats itself every P records, P back, not a
 * nearer place that matches for a while.  A tok that starts no run is
 * written whole and dist kept, for the next may match there again (a
 * repetition with a difference).  Toks are compared whole, so a REPEAT
 * stands for exactly the records it replaces.
 */
static struct tok *
tok_at(uint64_t n)
{
	return &h.tok[n & (WIN - 1)];
}

static int
tok_eq(const struct tok *a, const struct tok *b)
{
	return a->v == b->v && a->stack == b->stack && a->tag == b->tag &&
	    a->fn == b->fn;
}

/* The hash of toks n - GRAM + 1 to n. */
static uint32_t
gram(uint64_t n)
{
	const struct tok *t;
	uint64_t x = 0;
	int i;

	for (i = 0; i < GRAM; i++) {
		t = tok_at(n - (uint64_t)i);
		x = (x ^ t->v ^ (uint64_t)t->stack << 24 ^
		    (uint64_t)t->fn << 8 ^ t->tag) * 0x9e3779b97f4a7c15ull;
	}
	return (uint32_t)(x >> (64 - HBITS));
}

/* The dist of the earlier place with the same hash as tok n's gram g
 * whose toks up to it match those up to n longest, GRAM at least; 0
 * for none. */
static uint32_t
search(uint64_t n, uint32_t g)
{
	uint32_t c = h.head[g], d, last = 0, best = 0, most = GRAM - 1, j,
	    k;

	for (k = 0; c != 0 && k < CHAIN; k++) {
		d = (uint32_t)n + 1 - c;	/* modulo 2^32 */
		if (d <= last || d >= WIN || d > n)
			break;
		for (j = 0; j < BACK && d + j < WIN && d + j <= n &&
		    tok_eq(tok_at(n - j), tok_at(n - d - j)); j++)
			continue;
		if (j > most) {
			best = d;
			most = j;
		}
		last = d;
		c = h.prev[(n - d) & (WIN - 1)];
	}
	return best;
}

static void
put_tok(const struct tok *t)
{
	put(t->tag);
	put(t->fn);
	put(t->v);
	if (t->tag == PME_HEAPREC_ALLOC)
		put(t->stack);
}

/* The run pending, as a REPEAT (dist 0: the chunk's last REPEAT's), or
 * its one tok whole. */
static void
flush_pend(void)
{
	if (h.pend == 1)
		put_tok(tok_at(h.ntok - 1));
	else if (h.pend > 1) {
		put(PME_HEAPREC_REPEAT);
		put(h.dist == h.lastdist ? 0 : h.dist);
		put(h.pend);
		h.lastdist = h.dist;
	}
	h.pend = 0;
}

/* An allocation (its stack, size) or a release (0, its age less the
 * last's, zigzagged, plus 1; 0: no block). */
static void
put_ev(int tag, int fn, uint32_t stack, uint64_t v)
{
	uint64_t n = h.ntok;
	struct tok *t = tok_at(n);
	uint32_t g = 0, d;

	stamp();
	t->tag = (uint8_t)tag;
	t->fn = (uint8_t)fn;
	t->pad = 0;
	t->stack = stack;
	t->v = v;
	if (n >= GRAM - 1)
		g = gram(n);
	if (h.dist != 0 && h.dist <= n && tok_eq(t, tok_at(n - h.dist)))
		h.pend++;
	else {
		flush_pend();
		if (n >= GRAM - 1 && (d = search(n, g)) != 0) {
			h.dist = d;
			h.pend = 1;
		} else
			put_tok(t);
	}
	if (n >= GRAM - 1) {
		h.prev[n & (WIN - 1)] = h.head[g];
		h.head[g] = (uint32_t)n + 1;
	}
	h.ntok = n + 1;
	h.events++;
}

/*
 * The live blocks.  A record names a block by a number, the smallest
 * free since the process began, given back at its release, so that a
 * reader can follow the blocks without their addresses, which are the
 * part of a record no compression takes out: the numbers of a program
 * that repeats itself repeat.  A reader numbers the allocations as
 * this does (pme(5), HEAP).
 */
#define INHERITED	0x80000000u
#define LIVE0		(1u << 16)

static uint32_t
live_slot(uint64_t ptr, uint32_t cap)
{
	return (uint32_t)((ptr >> 4) * 0x9e3779b97f4a7c15ull >> 32) &
	    (cap - 1);
}

static int
live_grow(void)
{
	uint32_t cap = h.lcap ? h.lcap * 2 : LIVE0, i, k, *fs;
	struct live *t;

	if ((t = map((size_t)cap * sizeof(*t))) == NULL ||
	    (fs = map((size_t)cap / 2 * sizeof(*fs))) == NULL) {
		if (t != NULL)
			munmap(t, (size_t)cap * sizeof(*t));
		return -1;
	}
	for (i = 0; i < h.lcap; i++) {
		if (h.live[i].ptr == 0)
			continue;
		for (k = live_slot(h.live[i].ptr, cap); t[k].ptr != 0;
		    k = (k + 1) & (cap - 1))
			continue;
		t[k] = h.live[i];
	}
	if (h.live != NULL) {
		memcpy(fs, h.freeslots, h.nfree * sizeof(*fs));
		munmap(h.live, (size_t)h.lcap * sizeof(*t));
		munmap(h.freeslots, (size_t)h.lcap / 2 * sizeof(*fs));
	}
	h.live = t;
	h.freeslots = fs;
	h.lcap = cap;
	return 0;
}

static struct live *
live_find(uint64_t ptr)
{
	uint32_t k;

	if (h.lcap == 0)
		return NULL;
	for (k = live_slot(ptr, h.lcap); h.live[k].ptr != 0;
	    k = (k + 1) & (h.lcap - 1))
		if (h.live[k].ptr == ptr)
			return &h.live[k];
	return NULL;
}

static size_t
live_home(uint64_t ptr, size_t cap)
{
	return live_slot(ptr, (uint32_t)cap);
}

/* Removes e (linear probing: the entries after it moved back). */
static void
live_del(struct live *e)
{
	h.lused--;
	pme_probe_remove(h.live, sizeof(*h.live), offsetof(struct live, ptr),
	    h.lcap, (size_t)(e - h.live), live_home);
}

/* A new block at ptr: its number, or 0 when out of memory. */
static uint32_t
live_add(uint64_t ptr)
{
	uint32_t k, n;

	if ((h.lused + 1) * 2 > h.lcap && live_grow() == -1)
		return 0;
	n = h.nfree > 0 ? h.freeslots[--h.nfree] : ++h.next;
	for (k = live_slot(ptr, h.lcap); h.live[k].ptr != 0;
	    k = (k + 1) & (h.lcap - 1))
		continue;
	h.live[k].ptr = ptr;
	h.live[k].serial = ++h.serial;
	h.live[k].slot = n;
	h.lused++;
	return n;
}

/* The release of live block e by fn (slot 0: a block forgotten, one the
 * process had from its parent's parent). */
static void
put_release(int fn, struct live *e)
{
	uint32_t n = e->slot;
	uint64_t age = h.serial - e->serial + 1, d = pme_zig(age - h.lastage);

	live_del(e);
	if (n == 0) {
		put_ev(PME_HEAPREC_FREE, fn, 0, 0);
		return;
	}
	if (n & INHERITED) {
		stamp();
		flush_pend();
		put(PME_HEAPREC_FREE_PARENT);
		put((uint64_t)fn);
		put(n & ~INHERITED);
		return;
	}
	h.freeslots[h.nfree++] = n;
	h.lastage = age;
	put_ev(PME_HEAPREC_FREE, fn, 0, d + 1);
}

static void
put_free(int fn, const void *p)
{
	struct live *e = live_find((uint64_t)(uintptr_t)p);

	if (e != NULL)
		put_release(fn, e);
	else {
		/* Not a block of the record's. */
		put_ev(PME_HEAPREC_FREE, fn, 0, 0);
	}
}

static void
put_alloc(int fn, const void *p, size_t size, const uint64_t *frames,
    uint32_t n)
{
	struct live *e;
	uint32_t id;

	id = intern(frames, n);
	/* At the address of a live block: its release was not seen. */
	if ((e = live_find((uint64_t)(uintptr_t)p)) != NULL) {
		if (e->slot == 0)
			live_del(e);
		else
			put_release(PME_HEAP_UNSEEN, e);
	}
	if (live_add((uint64_t)(uintptr_t)p) == 0) {
		atomic_store(&h.on, 0);	/* out of memory: no more */
		return;
	}
	put_ev(PME_HEAPREC_ALLOC, fn, id, size);
}

/*
 * Recording starts at the first call that the environment asks it for,
 * which may come before the runtime's constructor (another library's
 * constructor, libstdc++'s pool): those records wait in the buffer, each
 * with its caller's return address for its stack, until the runtime
 * starts (rt_heap_start), and are dropped, counted, when it fills first.
 */
static void
begin(void)
{
	if ((h.msg == NULL && (h.msg = map(PMECLOCK_HEAP_MAX)) == NULL) ||
	    (h.cap == 0 && grow() == -1) ||
	    (h.tok == NULL && (h.tok = map(WIN * sizeof(*h.tok))) == NULL) ||
	    (h.prev == NULL && (h.prev = map(WIN * sizeof(*h.prev))) ==
	    NULL) || (h.head == NULL && (h.head = map(sizeof(*h.head) <<
	    HBITS)) == NULL))
		return;
	h.pid = (uint32_t)getpid();
	h.time = coarse_now();
	put_begin();
	atomic_store(&h.on, 1);
}

static int
early(void)
{
	static _Atomic int tried;
	const char *how;

	if (atomic_load_explicit(&h.on, memory_order_relaxed))
		return 1;
	if (atomic_exchange(&tried, 1))
		return atomic_load(&h.on);
	hold++;
	if ((how = secure_getenv("PMECLOCK_HEAP")) != NULL &&
	    secure_getenv("PMECLOCK_FD") != NULL &&
	    (strcmp(how, "dwarf") == 0 || strcmp(how, "fp") == 0))
		begin();
	hold--;
	return atomic_load(&h.on);
}

/* The stack of an allocation into frames; ra is the interposed
 * function's return address, all that is taken before the runtime is
 * ready. */
static uint32_t
take(uint64_t *frames, void *ra)
{
	uint32_t n;

	hold++;
	if (h.ready)
		n = unwind(frames);
	else {
		frames[0] = (uint64_t)(uintptr_t)ra;
		n = 1;
	}
	hold--;
	return n;
}

static void
leave(void)
{
	pthread_mutex_unlock(&h.lock);
	hold--;
}

/* Whether the buffer has no room for a call's records (a realloc's two
 * events at most). */
static int
full(void)
{
	return h.len + REC_MAX > PMECLOCK_HEAP_MAX ||
	    h.events + 2 > PME_HEAP_CHUNK_EVENTS;
}

/* Whether this call is recorded: then the lock is held. */
static int
enter(void)
{
	if (!atomic_load_explicit(&h.on, memory_order_relaxed) || hold)
		return 0;
	hold++;
	pthread_mutex_lock(&h.lock);
	if (!atomic_load(&h.on)) {
		pthread_mutex_unlock(&h.lock);
		hold--;
		return 0;
	}
	if (full() && h.ready)
		send_all();
	if (full()) {
		h.lost++;
		leave();
		return 0;
	}
	return 1;
}

__attribute__((noinline)) static void
rec_alloc(int fn, const void *p, size_t size, void *ra)
{
	uint64_t frames[MAXFRAMES];
	uint32_t n;

	if (p == NULL || hold || !early())
		return;
	n = take(frames, ra);
	if (!enter())
		return;
	put_alloc(fn, p, size, frames, n);
	leave();
}

/* ------------------------------------------------------ the interposed */

#define RA	__builtin_return_address(0)

RT_EXPORT void *
malloc(size_t size)
{
	void *p;

	find_real();
	if (real.malloc == NULL)
		return boot_alloc(size, 16);
	p = real.malloc(size);
	rec_alloc(PME_HEAP_MALLOC, p, size, RA);
	return p;
}

RT_EXPORT void *
calloc(size_t n, size_t size)
{
	void *p;

	find_real();
	if (real.calloc == NULL) {
		/* The arena is zeroed and never reused. */
		if (size != 0 && n > SIZE_MAX / size)
			return NULL;
		return boot_alloc(n * size, 16);
	}
	p = real.calloc(n, size);
	rec_alloc(PME_HEAP_CALLOC, p, n * size, RA);
	return p;
}

RT_EXPORT void
free(void *p)
{
	if (p == NULL || is_boot(p))
		return;
	find_real();
	if (real.free == NULL)
		return;		/* dlsym has not answered: leaked */
	if (enter()) {
		put_free(PME_HEAP_FREE, p);
		leave();
	}
	real.free(p);
}

/* A realloc of a block of the arena: moved out of it. */
static void *
boot_realloc(void *p, size_t size)
{
	size_t room = (size_t)(boot + BOOT_ARENA - (uint8_t *)p);
	void *q = malloc(size);

	if (q != NULL)
		memcpy(q, p, size < room ? size : room);
	return q;
}

/* realloc and reallocarray: with the lock held across the call, so that
 * the block it frees is not another thread's before it is recorded. */
static void *
re(int fn, void *p, size_t n, size_t size)
{
	uint64_t frames[MAXFRAMES];
	uint32_t nf = 0;
	void *q;
	int on;

	find_real();
	if (p != NULL && is_boot(p))
		return boot_realloc(p, n * size);
	if (real.realloc == NULL)	/* dlsym has not answered yet */
		return p == NULL ? boot_alloc(n * size, 16) : NULL;
	if (!hold && early())
		nf = take(frames, RA);
	on = enter();
	/* A libc older than reallocarray's (2.26): its realloc, the
	 * product checked by the caller. */
	q = fn == PME_HEAP_REALLOC || real.reallocarray == NULL ?
	    real.realloc(p, n * size) : real.reallocarray(p, n, size);
	if (on) {
		if (p != NULL && (q != NULL || n * size == 0))
			put_free(fn, p);
		if (q != NULL)
			put_alloc(fn, q, n * size, frames, nf);
		leave();
	}
	return q;
}

RT_EXPORT void *
realloc(void *p, size_t size)
{
	return re(PME_HEAP_REALLOC, p, 1, size);
}

RT_EXPORT void *
reallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return re(PME_HEAP_REALLOCARRAY, p, n, size);
}

RT_EXPORT void *
memalign(size_t align, size_t size)
{
	void *p;

	find_real();
	if (real.memalign == NULL)
		return boot_alloc(size, align);
	p = real.memalign(align, size);
	rec_alloc(PME_HEAP_MEMALIGN, p, size, RA);
	return p;
}

RT_EXPORT void *
aligned_alloc(size_t align, size_t size)
{
	void *p;

	find_real();
	if (real.aligned_alloc == NULL)
		return boot_alloc(size, align);
	p = real.aligned_alloc(align, size);
	rec_alloc(PME_HEAP_ALIGNED_ALLOC, p, size, RA);
	return p;
}

RT_EXPORT int
posix_memalign(void **out, size_t align, size_t size)
{
	int rc;

	find_real();
	if (real.posix_memalign == NULL)
		return (*out = boot_alloc(size, align)) == NULL ? ENOMEM : 0;
	if ((rc = real.posix_memalign(out, align, size)) == 0)
		rec_alloc(PME_HEAP_POSIX_MEMALIGN, *out, size, RA);
	return rc;
}

RT_EXPORT void *
valloc(size_t size)
{
	void *p;

	find_real();
	if (real.valloc == NULL)
		return boot_alloc(size, 4096);
	p = real.valloc(size);
	rec_alloc(PME_HEAP_VALLOC, p, size, RA);
	return p;
}

RT_EXPORT void *
pvalloc(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	find_real();
	if (real.pvalloc == NULL)
		return boot_alloc(size == 0 ? page : (size + page - 1) &
		    ~(page - 1), page);
	p = real.pvalloc(size);
	/* pvalloc rounds the size up to whole pages (and 0 to one). */
	rec_alloc(PME_HEAP_PVALLOC, p, size == 0 ? page :
	    (size + page - 1) & ~(page - 1), RA);
	return p;
}

/* ------------------------------------------------------ C++'s operators */

/*
 * libstdc++'s operators, called as they are, so that a failed new throws
 * as it would (this file is built with -fexceptions), and marked held
 * around the call, so that the malloc inside them is not counted twice.
 * The hold is given back by a cleanup that also runs when new throws.
 */
static void
unhold(int *unused)
{
	(void)unused;
	hold--;
}

#define HELD	__attribute__((cleanup(unhold))) int held_ = (hold++, 0)

static void *
next_op(const char *name, void **cache)
{
	void *fn = atomic_load_explicit((_Atomic(void *) *)cache,
	    memory_order_acquire);

	if (fn == NULL) {
		hold++;
		fn = dlsym(RTLD_NEXT, name);
		hold--;
		atomic_store_explicit((_Atomic(void *) *)cache, fn,
		    memory_order_release);
	}
	if (fn == NULL)
		abort();	/* a call of new without libstdc++ */
	return fn;
}

/* An operator new: name, its arguments (size first), its kind. */
#define NEW_OP(sym, kind, params, args)					\
RT_EXPORT void *sym params;						\
RT_EXPORT void *								\
sym params								\
{									\
	static void *fn;						\
	void *p;							\
									\
	{								\
		HELD;							\
		(void)held_;						\
		p = ((void *(*)params)next_op(#sym, &fn))args;		\
	}								\
	rec_alloc(kind, p, size, RA);					\
	return p;							\
}

#define DELETE_OP(sym, kind, params, args)				\
RT_EXPORT void sym params;						\
RT_EXPORT void								\
sym params								\
{									\
	static void *fn;						\
									\
	if (p != NULL && enter()) {					\
		put_free(kind, p);					\
		leave();						\
	}								\
	{								\
		HELD;							\
		(void)held_;						\
		((void (*)params)next_op(#sym, &fn))args;		\
	}								\
}

typedef struct { int unused; } nothrow_t;
typedef size_t align_val_t;

#define NEW_	PME_HEAP_NEW
#define NEWA	PME_HEAP_NEW_ARRAY
#define DEL_	PME_HEAP_DELETE
#define DELA	PME_HEAP_DELETE_ARRAY

NEW_OP(_Znwm, NEW_, (size_t size), (size))
NEW_OP(_Znam, NEWA, (size_t size), (size))
NEW_OP(_ZnwmRKSt9nothrow_t, NEW_, (size_t size, const nothrow_t *nt),
    (size, nt))
NEW_OP(_ZnamRKSt9nothrow_t, NEWA, (size_t size, const nothrow_t *nt),
    (size, nt))
NEW_OP(_ZnwmSt11align_val_t, NEW_, (size_t size, align_val_t al),
    (size, al))
NEW_OP(_ZnamSt11align_val_t, NEWA, (size_t size, align_val_t al),
    (size, al))
NEW_OP(_ZnwmSt11align_val_tRKSt9nothrow_t, NEW_, (size_t size,
    align_val_t al, const nothrow_t *nt), (size, al, nt))
NEW_OP(_ZnamSt11align_val_tRKSt9nothrow_t, NEWA, (size_t size,
    align_val_t al, const nothrow_t *nt), (size, al, nt))

DELETE_OP(_ZdlPv, DEL_, (void *p), (p))
DELETE_OP(_ZdaPv, DELA, (void *p), (p))
DELETE_OP(_ZdlPvm, DEL_, (void *p, size_t size), (p, size))
DELETE_OP(_ZdaPvm, DELA, (void *p, size_t size), (p, size))
DELETE_OP(_ZdlPvRKSt9nothrow_t, DEL_, (void *p, const nothrow_t *nt),
    (p, nt))
DELETE_OP(_ZdaPvRKSt9nothrow_t, DELA, (void *p, const nothrow_t *nt),
    (p, nt))
DELETE_OP(_ZdlPvSt11align_val_t, DEL_, (void *p, align_val_t al), (p, al))
DELETE_OP(_ZdaPvSt11align_val_t, DELA, (void *p, align_val_t al), (p, al))
DELETE_OP(_ZdlPvmSt11align_val_t, DEL_, (void *p, size_t size,
    align_val_t al), (p, size, al))
DELETE_OP(_ZdaPvmSt11align_val_t, DELA, (void *p, size_t size,
    align_val_t al), (p, size, al))
DELETE_OP(_ZdlPvSt11align_val_tRKSt9nothrow_t, DEL_, (void *p,
    align_val_t al, const nothrow_t *nt), (p, al, nt))
DELETE_OP(_ZdaPvSt11align_val_tRKSt9nothrow_t, DELA, (void *p,
    align_val_t al, const nothrow_t *nt), (p, al, nt))

/* ------------------------------------------------------- start, stop */

void
rt_heap_hold(void)
{
	hold++;
}

void
rt_heap_release(void)
{
	hold--;
}

/* The parent's records go out before the fork, so that a reader has them
 * all when the child's birth tells it to give the child its blocks. */
static void
on_prepare(void)
{
	hold++;
	pthread_mutex_lock(&h.lock);
	if (atomic_load(&h.on) && h.ready)
		send_all();
}

static void
on_parent(void)
{
	pthread_mutex_unlock(&h.lock);
	hold--;
}

/* The parent's blocks, in a fork child: released by their parent's
 * numbers (a reader gives the child the parent's blocks at the fork);
 * those the parent had from its own parent are forgotten. */
static void
inherit(void)
{
	uint32_t i;

	for (i = 0; i < h.lcap; i++)
		h.live[i].slot = h.live[i].slot & INHERITED ? 0 :
		    h.live[i].slot | INHERITED;
	h.nfree = 0;
	h.next = 0;
	h.serial = 0;
	h.lastage = 0;
}

/* The child's heap is its own: its records start over, its stacks are
 * sent anew under its pid, and what the parent had buffered is the
 * parent's to send. */
static void
on_child(void)
{
	pthread_mutex_init(&h.lock, NULL);
	hold--;
	my_tid = 0;
	if (h.msg == NULL)
		return;
	h.pid = (uint32_t)getpid();
	memset(h.table, 0, h.cap * sizeof(*h.table));
	h.nnodes = 0;
	memset(h.head, 0, sizeof(*h.head) << HBITS);
	h.ntok = 0;
	h.dist = h.pend = 0;
	inherit();
	put_begin();
}

/* This library's text, whose frames a stack leaves out. */
static void
find_self(void)
{
	Dl_info info;
	const ElfW(Phdr) *ph;
	struct link_map *lm;
	int i;

	if (dladdr1((void *)find_self, &info, (void **)&lm,
	    RTLD_DL_LINKMAP) == 0 || lm == NULL)
		return;
	(void)info;
	h.self_lo = UINTPTR_MAX;
	for (i = 0; i < ((const ElfW(Ehdr) *)info.dli_fbase)->e_phnum; i++) {
		ph = (const ElfW(Phdr) *)((const uint8_t *)info.dli_fbase +
		    ((const ElfW(Ehdr) *)info.dli_fbase)->e_phoff) + i;
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (lm->l_addr + ph->p_vaddr < h.self_lo)
			h.self_lo = lm->l_addr + ph->p_vaddr;
		if (lm->l_addr + ph->p_vaddr + ph->p_memsz > h.self_hi)
			h.self_hi = lm->l_addr + ph->p_vaddr + ph->p_memsz;
	}
}

void
rt_heap_start(const char *how)
{
	void *lib;

	if (how == NULL || (strcmp(how, "dwarf") != 0 &&
	    strcmp(how, "fp") != 0))
		return;
	hold++;
	find_real();
	find_self();
	h.fp = strcmp(how, "fp") == 0;
	if (!h.fp && (lib = dlopen("libunwind.so.8", RTLD_NOW |
	    RTLD_LOCAL)) != NULL)
		*(void **)&h.backtrace = dlsym(lib, "unw_backtrace");
	pthread_mutex_lock(&h.lock);
	if (!atomic_load(&h.on))
		begin();
	if (atomic_load(&h.on)) {
		h.ready = 1;
		pthread_atfork(on_prepare, on_parent, on_child);
	}
	pthread_mutex_unlock(&h.lock);
	hold--;
}

void
rt_heap_flush(void)
{
	if (!atomic_load(&h.on))
		return;
	hold++;
	pthread_mutex_lock(&h.lock);
	send_all();
	pthread_mutex_unlock(&h.lock);
	hold--;
}

void
rt_heap_stop(void)
{
	if (!atomic_load(&h.on))
		return;
	hold++;
	pthread_mutex_lock(&h.lock);
	send_all();
	atomic_store(&h.on, 0);
	pthread_mutex_unlock(&h.lock);
	hold--;
}

/* From a signal handler or _exit: the lock only tried, as rt_final()
 * does, lest the thread interrupted hold it. */
void
rt_heap_final(void)
{
	int i;

	if (!atomic_load(&h.on))
		return;
	hold++;
	for (i = 0; pthread_mutex_trylock(&h.lock) != 0; i++)
		if (i == 200) {
			hold--;
			return;
		} else
			usleep(1000);
	send_all();
	atomic_store(&h.on, 0);
	pthread_mutex_unlock(&h.lock);
	hold--;
}
