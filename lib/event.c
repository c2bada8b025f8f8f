/*
 * event.c - writing event files (pme_event(3), pme(5)): the one file of
 * the process, its per-thread buffers, event types, metrics, parameters
 * and graph specifications.  The state machine and histometrics are in
 * evstate.c, the reader in evread.c.
 *
 * Posting takes no lock: each thread fills a block of its own.  A full
 * block goes to the writer thread, which encodes it into an EVTS chunk
 * and writes it while the poster fills its second block (it waits only
 * when the writer is a whole block behind), so a post costs the poster
 * a few stores, not the encoding and the write(2).  Without the writer
 * thread (it could not be made, or in a child after fork) the poster
 * encodes and writes its block itself.  The close and a thread's end
 * first let the writer finish the blocks it has (a thread's chunks stay
 * in order), then encode the blocks being filled.  A block's count is
 * published with a release store after its record is written, so the
 * close, which reads it with an acquire load, never encodes half a
 * record; a post racing with the close lands after what the close took
 * and is dropped.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pme_event.h"
#include "evfmt.h"
#include "util.h"
#include "varint.h"

struct rec {
	uint64_t	 time;
	int64_t		 value;
	uint32_t	 type;
	uint32_t	 proc;
};

struct tbuf;

/* A full block handed to the writer thread. */
struct job {
	struct tbuf	*tb;
	int		 blk;
	uint32_t	 n;
	struct job	*next;
};

struct tbuf {
	_Atomic uint32_t n;		/* records written in rec */
	_Atomic uint32_t lim;		/* posts beyond go the slow way */
	struct rec	*rec;		/* the block being filled */
	int		 cur;		/* its index */
	int		 queued[2];	/* the writer has the block (lock) */
	struct job	 jobs[2];
	uint32_t	 gen;		/* the file it belongs to */
	uint32_t	 thread;	/* pme_event_thread() */
	uint64_t	 last;		/* the thread's latest time */
	struct tbuf	*next, **prevp;	/* the writer's list */
	struct rec	*blk[2];
};

static struct {
	pthread_mutex_t	 lock;
	struct pme_writer *w;
	uint32_t	 gen;		/* counts opens */
	int		 opened;	/* a file was opened once */
	int		 closing;
	unsigned	 flags;
	uint64_t	 start, start_mono;
	int32_t		 utc_offset;
	char		*unit;
	uint32_t	 nproc;		/* pme_event_processors(), or 0 */
	uint32_t	 maxproc;	/* highest posted + 1 */
	_Atomic uint32_t ntypes;	/* types 1 .. ntypes - 1 exist */
	char		**types;
	size_t		 typecap;
	uint64_t	 failed;
	char		 first[512];	/* the first failure's message */
	struct tbuf	*bufs;
	uint32_t	 threads;
	pthread_key_t	 key;
	int		 keyed;
	/* The writer thread and its queue. */
	pthread_t	 writer;
	int		 writing;	/* it runs */
	int		 stop;		/* it is asked to end */
	int		 busy;		/* it is encoding a job */
	int		 final;		/* the close took the blocks */
	struct job	*qhead, **qtail;
	pthread_cond_t	 work, done;
} g = { .lock = PTHREAD_MUTEX_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER };

/* Initial-exec: a post reads its buffer without a call into the
 * dynamic linker (libpme is linked, not dlopened). */
#define TLS __thread __attribute__((tls_model("initial-exec")))
static TLS struct tbuf *tls_tb;
static TLS uint32_t tls_thread = UINT32_MAX;
static TLS char tls_err[512];

int pme_sev_default_resolution;

static void	flush_locked(struct tbuf *tb);
static void	drain_locked(struct tbuf *tb);

/* ------------------------------------------------------------- errors */

static int
vfail_locked(const char *fmt, va_list ap)
{
	vsnprintf(tls_err, sizeof(tls_err), fmt, ap);
	if (g.failed++ == 0)
		memcpy(g.first, tls_err, sizeof(tls_err));
	return -1;
}

static int
fail_locked(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_locked(fmt, ap);
	va_end(ap);
	return -1;
}

int
ev_fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&g.lock);
	va_start(ap, fmt);
	vfail_locked(fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&g.lock);
	return -1;
}

const char *
pme_event_error(void)
{
	return tls_err;
}

/* ------------------------------------------------------------- chunks */

static int
chunk_locked(uint32_t type, const struct pme_buf *b)
{
	struct pme_error e;

	if (g.w == NULL)
		return -1;
	if (b->failed) {
		g.failed++;
		return -1;
	}
	if (pme_writer_chunk(g.w, type, b->p, b->n, 0, &e) == -1) {
		if (g.failed++ == 0)
			snprintf(g.first, sizeof(g.first), "%s", e.msg);
		snprintf(tls_err, sizeof(tls_err), "%s", e.msg);
		return -1;
	}
	return 0;
}

int
ev_chunk(uint32_t type, const struct pme_buf *b)
{
	int rc;

	pthread_mutex_lock(&g.lock);
	rc = chunk_locked(type, b);
	if (rc == -1 && g.w == NULL)
		fail_locked("no event file is open");
	pthread_mutex_unlock(&g.lock);
	return rc;
}

static void
info_locked(int complete)
{
	struct pme_buf b = { 0 };
	uint64_t host = 0;
	uint32_t flags = 0;
	struct timespec ts;

	if (complete) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		host = (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec -
		    g.start_mono;
		flags |= PME_RUN_COMPLETE;
	}
	if (g.flags & PME_EVENT_CLOCKTIME)
		flags |= PME_RUN_CLOCKTIME;
	pme_buf_u32(&b, flags);
	pme_buf_u32(&b, (uint32_t)g.utc_offset);
	pme_buf_u64(&b, g.start);
	pme_buf_u64(&b, host);
	pme_buf_u32(&b, g.nproc != 0 ? g.nproc : g.maxproc);
	pme_buf_u64(&b, g.failed);
	pme_buf_str(&b, g.failed ? g.first : "");
	pme_buf_str(&b, g.unit);
	pme_buf_str(&b, program_invocation_name != NULL ?
	    program_invocation_name : "");
	chunk_locked(EV_CHUNK_INFO, &b);
	pme_buf_free(&b);
}

/* --------------------------------------------------------- open, close */

static void
atfork_child(void)
{
	/* The child is not the program that opened the file: its posts go
	 * nowhere, and its exit must not finish the parent's file. */
	pthread_mutex_init(&g.lock, NULL);
	pthread_cond_init(&g.work, NULL);
	pthread_cond_init(&g.done, NULL);
	g.w = NULL;
	g.bufs = NULL;
	g.writing = g.busy = g.stop = 0;
	g.qhead = NULL;
	g.qtail = &g.qhead;
	tls_tb = NULL;
}

/*
 * The file still open at exit (the implicit events.sim, or one opened
 * and never closed) is closed here, where no caller can be given an
 * error: a failed write (a full disk, a file size limit) is said on
 * standard error, the one place lib/ writes to, as glibc's gmon.out and
 * libgcov's .gcda writers say theirs.  The exit status stays the
 * program's (pme_event(3) says why); the previous file is kept.
 */
static void
at_exit(void)
{
	struct pme_error e;

	/* The first failed write says why; the close, that one did. */
	if (pme_event_close(&e) == -1)
		dprintf(STDERR_FILENO, "%s: pme_event: %s: not written, any "
		    "previous file of the name kept\n",
		    program_invocation_short_name, g.failed > 0 &&
		    g.first[0] != '\0' ? g.first : e.msg);
}

static void
thread_end(void *p)
{
	struct tbuf *tb = p;

	pthread_mutex_lock(&g.lock);
	drain_locked(tb);
	if (tb->gen == g.gen && g.w != NULL && !g.final)
		flush_locked(tb);
	if (tb->prevp != NULL) {
		*tb->prevp = tb->next;
		if (tb->next != NULL)
			tb->next->prevp = tb->prevp;
	}
	pthread_mutex_unlock(&g.lock);
	if (tls_tb == tb)
		tls_tb = NULL;
	free(tb->blk[0]);
	free(tb->blk[1]);
	free(tb);
}

/* ------------------------------------------------------- the writer */

/* Encodes n records of one thread into out; the payload's length. */
static size_t
encode(const struct rec *rec, uint32_t n, uint32_t thread, uint8_t *out,
    uint32_t *maxproc)
{
	uint64_t tmin = UINT64_MAX, tmax = 0, prev = 0;
	uint32_t pmax = 0, i;
	uint8_t *p = out + EV_EVTS_HEAD;

	for (i = 0; i < n; i++) {
		const struct rec *r = &rec[i];

		if (r->time < tmin)
			tmin = r->time;
		if (r->time > tmax)
			tmax = r->time;
		if (r->proc > pmax && r->proc != UINT32_MAX)
			pmax = r->proc;	/* 2^32 - 1 is no row: the reader
					   passes over a chunk saying it */
		p = pme_uv_put(p, r->type);
		p = pme_uv_put(p, r->proc);
		p = pme_uv_put(p, pme_zig(r->time - prev));
		p = pme_uv_put(p, pme_zig((uint64_t)r->value));
		prev = r->time;
	}
	pme_le32(out, thread);
	pme_le32(out + 4, n);
	for (i = 0; i < 8; i++) {
		out[8 + i] = (uint8_t)(tmin >> 8 * i);
		out[16 + i] = (uint8_t)(tmax >> 8 * i);
	}
	pme_le32(out + 24, pmax);
	*maxproc = pmax;
	return (size_t)(p - out);
}

static void
events_locked(const uint8_t *out, size_t len, uint32_t pmax)
{
	struct pme_error e;

	if (g.w == NULL)
		return;
	if (pmax + 1 > g.maxproc)
		g.maxproc = pmax + 1;
	if (pme_writer_chunk(g.w, EV_CHUNK_EVENTS, out, len, 0, &e) == -1 &&
	    g.failed++ == 0)
		snprintf(g.first, sizeof(g.first), "%s", e.msg);
}

static void *
writer_main(void *arg)
{
	static uint8_t out[EV_EVTS_BYTES];
	struct job *j;
	uint32_t pmax;
	size_t len;

	(void)arg;
	pthread_mutex_lock(&g.lock);
	for (;;) {
		while (g.qhead == NULL && !g.stop)
			pthread_cond_wait(&g.work, &g.lock);
		if ((j = g.qhead) == NULL)
			break;
		if ((g.qhead = j->next) == NULL)
			g.qtail = &g.qhead;
		g.busy = 1;
		pthread_mutex_unlock(&g.lock);
		/* The poster fills its other block meanwhile. */
		len = encode(j->tb->blk[j->blk], j->n, j->tb->thread, out,
		    &pmax);
		pthread_mutex_lock(&g.lock);
		events_locked(out, len, pmax);
		j->tb->queued[j->blk] = 0;
		g.busy = 0;
		pthread_cond_broadcast(&g.done);
	}
	pthread_mutex_unlock(&g.lock);
	return NULL;
}

/* Starts the writer thread, with every signal blocked in it (the
 * program's handlers are not for it).  Without it, posters write. */
static void
writer_start_locked(void)
{
	sigset_t all, old;

	g.qhead = NULL;
	g.qtail = &g.qhead;
	g.stop = g.busy = 0;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	g.writing = pthread_create(&g.writer, NULL, writer_main, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Waits until the writer has written tb's blocks (NULL: every block). */
static void
drain_locked(struct tbuf *tb)
{
	while (tb != NULL ? tb->queued[0] || tb->queued[1] :
	    g.qhead != NULL || g.busy)
		pthread_cond_wait(&g.done, &g.lock);
}

static int
open_locked(const char *path, unsigned flags, struct pme_error *err)
{
	struct timespec rt, mono;
	struct tm tm;
	time_t t;

	if (path == NULL)
		path = PME_EVENT_FILE;
	if (!g.keyed) {
		if (pthread_key_create(&g.key, thread_end) != 0)
			return pme_seterr(err, PME_ENOMEM,
			    "no thread key for the event buffers");
		pthread_atfork(NULL, NULL, atfork_child);
		atexit(at_exit);
		g.keyed = 1;
	}
	g.w = pme_writer_open(path, PME_KIND_EVENT, PME_WRITE_LIVE, err);
	if (g.w == NULL)
		return -1;
	g.gen++;
	g.opened = 1;
	g.final = 0;
	g.flags = flags;
	writer_start_locked();
	g.nproc = g.maxproc = 0;
	g.failed = 0;
	g.first[0] = '\0';
	free(g.unit);
	g.unit = strdup(flags & PME_EVENT_CLOCKTIME ? "ns" : "cycles");
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	g.start = (uint64_t)rt.tv_sec * 1000000000u + rt.tv_nsec;
	g.start_mono = (uint64_t)mono.tv_sec * 1000000000u + mono.tv_nsec;
	t = rt.tv_sec;
	g.utc_offset = localtime_r(&t, &tm) != NULL ? (int32_t)tm.tm_gmtoff : 0;
	info_locked(0);
	/* The types of the last file stay registered: write them again. */
	for (uint32_t i = 1; i < g.ntypes; i++) {
		struct pme_buf b = { 0 };

		pme_buf_u32(&b, i);
		pme_buf_str(&b, g.types[i]);
		chunk_locked(EV_CHUNK_TYPE, &b);
		pme_buf_free(&b);
	}
	return 0;
}

static int register_locked(const char *name);

int
pme_event_open(const char *path, unsigned flags, struct pme_error *err)
{
	int rc;

	if (flags & ~PME_EVENT_CLOCKTIME)
		return pme_seterr(err, PME_EINVAL,
		    "pme_event_open: unknown flags 0x%x", flags);
	if (pme_event_close(err) == -1)
		return -1;
	pthread_mutex_lock(&g.lock);
	if (g.ntypes == 0 && register_locked("EV_STATE") != (int)PME_EV_STATE) {
		pthread_mutex_unlock(&g.lock);
		return pme_setnomem(err);
	}
	rc = open_locked(path, flags, err);
	pthread_mutex_unlock(&g.lock);
	if (rc == 0)
		ev_state_reset();	/* writes the default sub-states */
	return rc;
}

int
ev_ensure(void)
{
	struct pme_error e;

	if (g.w != NULL)
		return 0;
	if (g.opened)
		return ev_fail("no event file is open");
	if (pme_event_open(NULL, 0, &e) == -1 && g.w == NULL) {
		snprintf(tls_err, sizeof(tls_err), "%s", e.msg);
		return -1;
	}
	return 0;
}

int
pme_event_close(struct pme_error *err)
{
	struct pme_writer *w;
	struct tbuf *tb;
	int rc;

	pthread_mutex_lock(&g.lock);
	if (g.w == NULL || g.closing) {
		pthread_mutex_unlock(&g.lock);
		return 0;
	}
	g.closing = 1;
	pthread_mutex_unlock(&g.lock);
	ev_state_flush();
	ev_histo_flush();
	pthread_mutex_lock(&g.lock);
	g.final = 1;
	drain_locked(NULL);
	for (tb = g.bufs; tb != NULL; tb = tb->next)
		if (tb->gen == g.gen)
			flush_locked(tb);
	for (tb = g.bufs; tb != NULL; tb = tb->next)
		atomic_store_explicit(&tb->lim, 0, memory_order_relaxed);
	info_locked(1);
	if (g.writing) {
		g.stop = 1;
		pthread_cond_signal(&g.work);
		pthread_mutex_unlock(&g.lock);
		pthread_join(g.writer, NULL);
		pthread_mutex_lock(&g.lock);
		g.writing = 0;
	}
	w = g.w;
	g.w = NULL;
	g.closing = 0;
	rc = pme_writer_commit(w, err);
	pthread_mutex_unlock(&g.lock);
	return rc;
}

int
pme_event_flush(void)
{
	struct tbuf *tb = tls_tb;

	pthread_mutex_lock(&g.lock);
	if (g.w == NULL || g.final) {
		pthread_mutex_unlock(&g.lock);
		return ev_fail("pme_event_flush: no event file is open");
	}
	if (tb != NULL && tb->gen == g.gen) {
		drain_locked(tb);
		flush_locked(tb);
	}
	drain_locked(NULL);
	pthread_mutex_unlock(&g.lock);
	return 0;
}

uint64_t
pme_event_clock(void)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
	return g.start_mono != 0 && now > g.start_mono ? now - g.start_mono : 0;
}

uint32_t
pme_event_thread(void)
{
	if (tls_thread == UINT32_MAX) {
		pthread_mutex_lock(&g.lock);
		tls_thread = g.threads++;
		pthread_mutex_unlock(&g.lock);
	}
	return tls_thread;
}

/* ------------------------------------------------------------- types */

static int
register_locked(const char *name)
{
	uint32_t n = g.ntypes;
	struct pme_buf b = { 0 };
	char **nt;

	if (n == 0)
		n = 1;		/* type 0 is none */
	if (n >= g.typecap) {
		size_t cap = g.typecap ? g.typecap * 2 : 16;

		if ((nt = realloc(g.types, cap * sizeof(*nt))) == NULL)
			return -1;
		g.types = nt;
		g.typecap = cap;
	}
	if ((g.types[n] = strdup(name)) == NULL)
		return -1;
	g.types[0] = NULL;
	atomic_store_explicit(&g.ntypes, n + 1, memory_order_release);
	pme_buf_u32(&b, n);
	pme_buf_str(&b, name);
	chunk_locked(EV_CHUNK_TYPE, &b);
	pme_buf_free(&b);
	return (int)n;
}

uint32_t
pme_event_type(const char *name)
{
	uint32_t i;
	int id;

	if (name == NULL || *name == '\0' || strlen(name) > 255) {
		ev_fail("pme_event_type: a name of 1 to 255 bytes is needed");
		return PME_NONE;
	}
	if (ev_ensure() == -1)
		return PME_NONE;
	pthread_mutex_lock(&g.lock);
	for (i = 1; i < g.ntypes; i++)
		if (strcmp(g.types[i], name) == 0) {
			pthread_mutex_unlock(&g.lock);
			return i;
		}
	id = register_locked(name);
	if (id == -1)
		fail_locked("pme_event_type: out of memory");
	pthread_mutex_unlock(&g.lock);
	return id == -1 ? PME_NONE : (uint32_t)id;
}

/* ------------------------------------------------------------- posting */

/* Encodes and writes the block tb is filling, here and now. */
static void
flush_locked(struct tbuf *tb)
{
	static uint8_t out[EV_EVTS_BYTES];
	uint32_t n = atomic_load_explicit(&tb->n, memory_order_acquire);
	uint32_t pmax;
	size_t len;

	if (n > 0 && g.w != NULL) {
		len = encode(tb->rec, n, tb->thread, out, &pmax);
		events_locked(out, len, pmax);
	}
	atomic_store_explicit(&tb->n, 0, memory_order_relaxed);
}

/* Hands the full block of tb to the writer thread and turns to the
 * other, once the writer is done with it. */
static void
hand_over_locked(struct tbuf *tb)
{
	int b = tb->cur, o = 1 - b;

	tb->jobs[b].tb = tb;
	tb->jobs[b].blk = b;
	tb->jobs[b].n = atomic_load_explicit(&tb->n, memory_order_relaxed);
	tb->jobs[b].next = NULL;
	tb->queued[b] = 1;
	*g.qtail = &tb->jobs[b];
	g.qtail = &tb->jobs[b].next;
	pthread_cond_signal(&g.work);
	while (tb->queued[o])
		pthread_cond_wait(&g.done, &g.lock);
	tb->cur = o;
	tb->rec = tb->blk[o];
	atomic_store_explicit(&tb->n, 0, memory_order_relaxed);
}

static struct tbuf *
tbuf_new_locked(void)
{
	struct tbuf *tb;

	if ((tb = calloc(1, sizeof(*tb))) == NULL)
		return NULL;
	if ((tb->blk[0] = malloc(EV_EVTS_MAX * sizeof(struct rec))) == NULL ||
	    (tb->blk[1] = malloc(EV_EVTS_MAX * sizeof(struct rec))) == NULL) {
		free(tb->blk[0]);
		free(tb);
		return NULL;
	}
	tb->rec = tb->blk[0];
	atomic_init(&tb->n, 0);
	atomic_init(&tb->lim, EV_EVTS_MAX);
	tb->gen = g.gen;
	tb->last = 0;
	if (tls_thread == UINT32_MAX)
		tls_thread = g.threads++;
	tb->thread = tls_thread;
	tb->next = g.bufs;
	tb->prevp = &g.bufs;
	if (g.bufs != NULL)
		g.bufs->prevp = &tb->next;
	g.bufs = tb;
	pthread_setspecific(g.key, tb);
	return tb;
}

/* A post that found no room: the first of the thread, a full buffer, a
 * file closed or opened since. */
static void
post_slow(uint32_t type, uint32_t proc, uint64_t time, int64_t value)
{
	struct tbuf *tb;

	if (ev_ensure() == -1)
		return;
	pthread_mutex_lock(&g.lock);
	if (g.w == NULL || g.final) {
		pthread_mutex_unlock(&g.lock);
		return;
	}
	if (type == 0 || type >= g.ntypes) {
		fail_locked("pme_event_post: no event type %u", type);
		pthread_mutex_unlock(&g.lock);
		return;
	}
	if ((tb = tls_tb) == NULL) {
		if ((tb = tbuf_new_locked()) == NULL) {
			fail_locked("pme_event_post: out of memory");
			pthread_mutex_unlock(&g.lock);
			return;
		}
		tls_tb = tb;
	} else if (tb->gen != g.gen) {
		/* Posted for a file closed since: dropped. */
		drain_locked(tb);
		atomic_store_explicit(&tb->n, 0, memory_order_relaxed);
		tb->gen = g.gen;
	} else if (atomic_load_explicit(&tb->n, memory_order_relaxed) <
	    EV_EVTS_MAX)
		;	/* room: the limit was lifted by a new open */
	else if (g.writing)
		hand_over_locked(tb);
	else
		flush_locked(tb);
	atomic_store_explicit(&tb->lim, EV_EVTS_MAX, memory_order_relaxed);
	pthread_mutex_unlock(&g.lock);
	pme_event_post(type, proc, time, value);
}

void
pme_event_post(uint32_t type, uint32_t proc, uint64_t time, int64_t value)
{
	struct tbuf *tb = tls_tb;
	uint32_t n;
	struct rec *r;

	if (__builtin_expect(tb == NULL, 0) ||
	    (n = atomic_load_explicit(&tb->n, memory_order_relaxed)) >=
	    atomic_load_explicit(&tb->lim, memory_order_relaxed) ||
	    type - 1 >= atomic_load_explicit(&g.ntypes,
	    memory_order_relaxed) - 1) {
		post_slow(type, proc, time, value);
		return;
	}
	r = &tb->rec[n];
	r->time = time;
	r->value = value;
	r->type = type;
	r->proc = proc;
	tb->last = time;
	atomic_store_explicit(&tb->n, n + 1, memory_order_release);
}

uint64_t
ev_now(void)
{
	if (g.flags & PME_EVENT_CLOCKTIME)
		return pme_event_clock();
	return tls_tb != NULL ? tls_tb->last : 0;
}

void
ev_post_state(uint32_t proc, uint64_t time, int32_t colour)
{
	pme_event_post(PME_EV_STATE, proc, time, colour);
}

/* ------------------------------------------------- names, metrics, specs */

static int
named(const char *what, const char *name)
{
	if (name == NULL || *name == '\0' || strlen(name) > 4096)
		return ev_fail("%s: a name of 1 to 4096 bytes is needed", what);
	return ev_ensure();
}

int
pme_event_proc_name(uint32_t proc, const char *name)
{
	struct pme_buf b = { 0 };
	int rc;

	if (named("pme_event_proc_name", name) == -1)
		return -1;
	pme_buf_u32(&b, proc);
	pme_buf_str(&b, name);
	rc = ev_chunk(EV_CHUNK_PROC, &b);
	pme_buf_free(&b);
	return rc;
}

int
pme_event_processors(uint32_t n)
{
	if (ev_ensure() == -1)
		return -1;
	pthread_mutex_lock(&g.lock);
	g.nproc = n;
	pthread_mutex_unlock(&g.lock);
	return 0;
}

int
pme_event_unit(const char *unit)
{
	char *u;

	if (named("pme_event_unit", unit) == -1)
		return -1;
	if ((u = strdup(unit)) == NULL)
		return ev_fail("pme_event_unit: out of memory");
	pthread_mutex_lock(&g.lock);
	free(g.unit);
	g.unit = u;
	info_locked(0);
	pthread_mutex_unlock(&g.lock);
	return 0;
}

int
pme_graph_spec(const char *spec)
{
	struct pme_buf b = { 0 };
	int rc;

	if (spec == NULL)
		return ev_fail("GraphSpec: no text");
	if (ev_ensure() == -1)
		return -1;
	pme_buf_bytes(&b, spec, strlen(spec));
	rc = ev_chunk(EV_CHUNK_SPEC, &b);
	pme_buf_free(&b);
	return rc;
}

static int
metric_chunk(enum pme_metric_kind kind, const char *name, double value,
    const double *v, size_t n, const char *text)
{
	struct pme_buf b = { 0 };
	int rc;

	if (named("pme_metric", name) == -1)
		return -1;
	pme_buf_u32(&b, kind);
	pme_buf_str(&b, name);
	if (kind == PME_METRIC_SCALAR)
		ev_put_f64(&b, value);
	else if (kind == PME_METRIC_ARRAY) {
		pme_buf_u32(&b, (uint32_t)n);
		for (size_t i = 0; i < n; i++)
			ev_put_f64(&b, v[i]);
	} else
		pme_buf_str(&b, text);
	rc = ev_chunk(EV_CHUNK_METRIC, &b);
	pme_buf_free(&b);
	return rc;
}

int
pme_metric(const char *name, double value)
{
	return metric_chunk(PME_METRIC_SCALAR, name, value, NULL, 0, NULL);
}

int
pme_metric_array(const char *name, const double *v, size_t n)
{
	if ((v == NULL && n > 0) || n > 1000000)
		return ev_fail("pme_metric_array: '%s': %zu values", name ?
		    name : "", n);
	return metric_chunk(PME_METRIC_ARRAY, name, 0, v, n, NULL);
}

int
pme_param(const char *name, const char *value)
{
	if (value == NULL)
		return ev_fail("pme_param: '%s': no value", name ? name : "");
	return metric_chunk(PME_METRIC_PARAM, name, 0, NULL, 0, value);
}
