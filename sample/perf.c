/*
 * perf.c - pmeclock's perf_event_open method, as `perf record -- cmd`
 * does it: one software cpu-clock event per online CPU on the stopped
 * child, inherited by its threads and children, enabled at its exec; the
 * ring buffers' records are converted to sample file records.
 *
 * The event is PERF_COUNT_SW_CPU_CLOCK with a fixed period: an hrtimer
 * runs while a task of the child is on a CPU, so each sample stands for
 * one period of CPU time (what the seed's clock interrupt measured) and
 * it is what `perf record` uses by default.  TASK_CLOCK measures the same
 * time but through the task's clock, which the kernel only updates at
 * context switches and ticks; it gives no better samples.
 *
 * Attaching to a running process (-p) is attach.c's; what the two share
 * is declared in perf.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include "clock.h"
#include "maps.h"
#include "perf.h"
#include "unwind.h"
#include "util.h"
#include "wall.h"

/* With stacks a ring holds about 120 samples a MiB: 16 MiB when the
 * locked-memory limits allow (root), else 4 MiB, which they allow on two
 * CPUs with perf_event_mlock_kb and RLIMIT_MEMLOCK at their defaults. */
#define RING_PAGES_DWARF 4096
#define RING_PAGES_DWARF_LOW 1024
/* No more than 256 MiB of them: more rings are the smaller ones. */
#define RING_BIG_MAX	16
/* The reader is woken this often, whatever the ring's size. */
#define RING_WAKEUP	(256 * 1024)

static int exclude_kernel = -1;	/* decided by perf_probe() */
static size_t ring_pages = RING_PAGES;
static uint64_t jitter_weight(const struct jitter *j,
		    const struct clockopts *o, uint32_t tid, uint64_t time,
		    uint64_t period);
static void jitter_fork(struct jitter *j, const struct clockopts *o,
		    uint32_t ptid, uint32_t tid, uint64_t time);

long
perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1,
	    PERF_FLAG_FD_CLOEXEC);
}

/* The user registers and a copy of the user stack with each sample, for
 * unwind.c: the kernel's own chain is not taken. */
static void
fill_attr_dwarf(struct perf_event_attr *a, const struct clockopts *o)
{
	a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = unwind_regs_mask();
	a->sample_stack_user = o->stacksize;
	ring_pages = RING_PAGES_DWARF;
}

void
perf_stack_attr(struct perf_event_attr *a, const struct clockopts *o)
{
	fill_attr_dwarf(a, o);
}

/* Whether event k's records carry the kernel's call chain: with -g by
 * frame pointers, and for an event that is not a clock, whose samples in
 * the kernel are booked to the user code that entered it (its chain's
 * first user frame). */
static int
kernel_chain(const struct clockopts *o, int k)
{
	if (o->callchain)
		return o->callgraph != CALLGRAPH_DWARF;
	return k >= 0 && !events_clock(o, k);
}

/* Whether event k's samples carry a call chain of the kernel's, before
 * the user registers of -g's unwinding (fill_attr()). */
static int
has_chain(const struct clockopts *o, int k)
{
	return kernel_chain(o, k) || (o->callchain &&
	    o->callgraph == CALLGRAPH_DWARF && !exclude_kernel);
}

/* Whether event k's samples carry their period: a clock's (which -j
 * varies), or the kernel's for a rate (-F). */
static int
sample_period(const struct clockopts *o, int k)
{
	return k < 0 || events_clock(o, k) || o->ev[k].freq;
}

/* The attributes of event k of o->ev (-1: the cpu-clock, to probe). */
static void
fill_attr(struct perf_event_attr *a, const struct clockopts *o, int ek,
    int k)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = o->period;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
	    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (o->callchain && o->callgraph == CALLGRAPH_DWARF)
		fill_attr_dwarf(a, o);
	else if (kernel_chain(o, k))
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	a->disabled = 1;
	a->inherit = 1;
	a->enable_on_exec = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->exclude_kernel = ek;
	a->exclude_hv = 1;
	/* With -g the kernel's frames of a sample in it too, when the
	 * kernel is sampled (perf -g); a chain taken to book an event to
	 * the user code that entered the kernel wants the user's only. */
	a->exclude_callchain_kernel = !o->callchain || ek;
	if (o->callchain && o->callgraph == CALLGRAPH_DWARF && !ek) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->exclude_callchain_user = 1;
	}
	/* Times on CLOCK_MONOTONIC, the clock the runtime uses too. */
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(ring_pages * 4096 / 4);
	if (a->wakeup_watermark > RING_WAKEUP)
		a->wakeup_watermark = RING_WAKEUP;
	if (k < 0)
		return;
	events_attr(o, k, a);
	/* A software event asked for its period samples every event, each
	 * of period 1 (perf_swevent_event()): a fixed period is known. */
	if (!sample_period(o, k))
		a->sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
	/* The first event's records say what the process does. */
	if (k > 0)
		a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 0;
}

/* The online CPUs, from sysfs ("0-3,5"); -1 if unknown. */
int
online_cpus(int *cpus, int max)
{
	char buf[4096], *p;
	int fd, n = 0, a, b;
	ssize_t len;

	if ((fd = open("/sys/devices/system/cpu/online", O_RDONLY |
	    O_CLOEXEC)) < 0)
		goto guess;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		goto guess;
	buf[len] = '\0';
	for (p = buf; *p != '\0' && *p != '\n'; ) {
		a = (int)strtol(p, &p, 10);
		b = a;
		if (*p == '-')
			b = (int)strtol(p + 1, &p, 10);
		for (; a <= b && n < max; a++)
			cpus[n++] = a;
		if (*p == ',')
			p++;
		else if (*p != '\0' && *p != '\n')
			goto guess;
	}
	if (n > 0)
		return n;
guess:
	for (n = 0; n < max && n < sysconf(_SC_NPROCESSORS_ONLN); n++)
		cpus[n] = n;
	return n > 0 ? n : -1;
}

int
paranoid(void)
{
	FILE *fp = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = -99;

	if (fp != NULL) {
		if (fscanf(fp, "%d", &v) != 1)
			v = -99;
		fclose(fp);
	}
	return v;
}

/* Opens event k (fill_attr; io: that attr instead, -e io's filtered)
 * on pid on every online CPU; -1 with errno. */
static int
open_all(const struct clockopts *o, pid_t pid, int ek, int k, int *fds,
    int *cpus, int *n, const struct perf_event_attr *io)
{
	struct perf_event_attr a;
	int ncpu, i, e;
	long fd;

	if ((ncpu = online_cpus(cpus, MAX_CPUS)) < 0) {
		errno = ENODEV;
		return -1;
	}
	if (io != NULL)
		a = *io;
	else
		fill_attr(&a, o, ek, k);
	for (i = 0; i < ncpu; i++) {
		if ((fd = perf_open(&a, pid, cpus[i])) < 0 || (IO_EV(k) &&
		    io_filter((int)fd) < 0 && close((int)fd) == 0 &&
		    (fd = -1) < 0)) {
			e = errno;
			while (i-- > 0)
				close(fds[i]);
			errno = e;
			return -1;
		}
		fds[i] = (int)fd;
	}
	*n = ncpu;
	return 0;
}

int
perf_probe(struct clockopts *o)
{
	int fds[MAX_CPUS], cpus[MAX_CPUS], n, i, e, p;

	/* Kernel samples too where allowed: system calls are the
	 * program's CPU time as well. */
	for (exclude_kernel = 0; exclude_kernel < 2; exclude_kernel++) {
		if (open_all(o, getpid(), exclude_kernel, -1, fds, cpus,
		    &n, NULL) == 0) {
			for (i = 0; i < n; i++)
				close(fds[i]);
			if (exclude_kernel && o->verbose)
				fprintf(stderr, "%s: perf_event_paranoid is "
				    "%d: kernel samples excluded%s\n", prog,
				    paranoid(), o->callchain ? ", and the "
				    "kernel's call chains" : "");
			return 0;
		}
		if (errno != EACCES && errno != EPERM)
			break;
	}
	e = errno;
	p = paranoid();
	if (e == EACCES || e == EPERM)
		snprintf(o->note, sizeof(o->note), "perf_event_open refused "
		    "(%s): perf_event_paranoid is %d%s", strerror(e), p,
		    p <= 2 ? " (a seccomp filter or a container?)" : "");
	else if (e == ENOSYS)
		snprintf(o->note, sizeof(o->note), "perf_event_open is not "
		    "in this kernel (%s)", strerror(e));
	else
		snprintf(o->note, sizeof(o->note), "perf_event_open has no "
		    "software cpu-clock here (%s)", strerror(e));
	return -1;
}

/* ------------------------------------------------------ reading rings */

void *
perf_grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return p;
	while (c < need)
		c *= 2;
	if ((q = realloc(p, c * size)) == NULL)
		return NULL;
	*cap = c;
	return q;
}

/* n bytes of ring r from its position pos into dst, across its end. */
static void
ring_copy(const struct ring *r, uint64_t pos, void *dst, size_t n)
{
	size_t off = (size_t)(pos & (r->size - 1)), first = r->size - off;

	if (first >= n)
		memcpy(dst, r->data + off, n);
	else {
		memcpy(dst, r->data + off, first);
		memcpy((uint8_t *)dst + first, r->data, n - first);
	}
}

/* The 8 bytes of ring r at its position pos, across its end. */
static inline uint64_t
ring_get64(const struct ring *r, uint64_t pos)
{
	size_t off = (size_t)(pos & (r->size - 1));
	uint64_t v;

	if (r->size - off >= 8)
		return get64(r->data + off);
	ring_copy(r, pos, &v, 8);
	return v;
}

/*
 * A sample of n bytes at pos of ring r into dst with its copy of the
 * user stack cut to what was in use (dyn_size): the record reserves the
 * whole size asked for, ssize, and a backlog of samples waiting for the
 * unwinder would hold it all.  The stack is the record's last field,
 * after the user registers of mask; the record is read where it lies in
 * the ring, so that the rest is never copied (cutting the copy once made
 * cost as much again: its last stores not yet done).  The record keeps
 * its layout (size, bytes, dyn_size).  Its new size, or 0 when it is not
 * so laid out (no user registers: no stack; a size the kernel cut).
 */
static size_t
copy_cut(const struct ring *r, uint64_t pos, size_t n, uint64_t ssize,
    uint64_t mask, uint8_t *dst)
{
	uint64_t size, dyn, keep, abi;
	size_t off, regs = 8 + 8 * (size_t)__builtin_popcountll(mask);

	if (ssize == 0 || n < sizeof(struct perf_event_header) + regs + 16 +
	    ssize)
		return 0;
	off = n - 16 - (size_t)ssize;
	abi = ring_get64(r, pos + off - regs);
	size = ring_get64(r, pos + off);
	dyn = ring_get64(r, pos + n - 8);
	if (abi == PERF_SAMPLE_REGS_ABI_NONE || size != ssize || dyn > size)
		return 0;
	keep = (dyn + 7) & ~(uint64_t)7;
	ring_copy(r, pos, dst, off + 8 + (size_t)keep);
	memcpy(dst + off, &keep, 8);
	memcpy(dst + off + 8 + keep, &dyn, 8);
	n = off + 16 + (size_t)keep;
	((struct perf_event_header *)(void *)dst)->size = (uint16_t)n;
	return n;
}

/* Copies the records of ring r into b (offsets kept in b->recs); the
 * copies of the stack are cut to what was in use (copy_cut()). */
static int
read_ring(struct perfstate *ps, struct batch *b, struct ring *r)
{
	uint64_t head, tail, ssize = r->ssize, mask = r->rmask, v;
	struct perf_event_header hd;
	uint8_t *dst;
	void *p;

	if (ssize == 0 && ps->uw != NULL && r->ev >= 0) {	/* -g's */
		ssize = ps->o->stacksize;
		mask = unwind_regs_mask();
	}

	head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	tail = r->meta->data_tail;
	while (tail + sizeof(hd) <= head) {
		v = ring_get64(r, tail);
		memcpy(&hd, &v, sizeof(hd));
		if (hd.size < sizeof(hd) || tail + hd.size > head)
			break;
		if ((p = perf_grow(b->arena, &b->caparena, b->narena +
		    hd.size + 8, 1)) == NULL)
			return -1;
		b->arena = p;
		dst = b->arena + b->narena;
		if (hd.type != PERF_RECORD_SAMPLE ||
		    copy_cut(r, tail, hd.size, ssize, mask, dst) == 0)
			ring_copy(r, tail, dst, hd.size);
		if ((p = perf_grow(b->recs, &b->caprecs, b->nrecs + 1,
		    sizeof(*b->recs))) == NULL)
			return -1;
		b->recs = p;
		/* The pointer is fixed up once the arena stops moving. */
		b->recs[b->nrecs].h = (void *)(uintptr_t)b->narena;
		b->recs[b->nrecs].seq = ps->seq++;
		b->recs[b->nrecs].ev = r->ev;
		b->nrecs++;
		b->narena += (((struct perf_event_header *)dst)->size + 7) &
		    ~(size_t)7;
		tail += hd.size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return 0;
}

/* PME_READ_GAP: microseconds to wait after reading each ring, so that
 * a test can see the records of a reading come out of order (perf_
 * drain()); 0 unset. */
static unsigned long
read_gap(void)
{
	static int known;
	static unsigned long us;
	const char *s;

	if (!known) {
		known = 1;
		if ((s = getenv("PME_READ_GAP")) != NULL)
			us = strtoul(s, NULL, 10);
		if (us > 1000000)
			us = 1000000;
	}
	return us;
}

int
perf_read(struct perfstate *ps, struct batch *b)
{
	unsigned long gap = read_gap();
	int r;

	if (b->nrecs == 0)
		b->start = now_mono();
	for (r = 0; r < ps->nrings; r++) {
		if (read_ring(ps, b, &ps->rings[r]) < 0)
			return -1;
		if (gap > 0)
			usleep((useconds_t)gap);
	}
	return 0;
}

void
batch_free(struct batch *b)
{
	if (b == NULL)
		return;
	free(b->recs);
	free(b->arena);
}

/* A record's time: in the body of a sample (every event's samples begin
 * with IP, TID, TIME), else in its sample_id (TID, TIME, CPU last). */
static uint64_t
rec_time(const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)h;

	if (h->type == PERF_RECORD_SAMPLE)
		return h->size >= 32 ? get64(p + 24) : 0;
	return h->size >= sizeof(*h) + 24 ? get64(p + h->size - 16) : 0;
}

int
perf_cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* -------------------------------------------------------- converting */

void
add_tid(struct perfstate *ps, uint32_t tid)
{
	size_t i, cap;
	uint32_t *old;

	if (tid == 0)
		return;
	if (ps->ntids * 2 >= ps->captids) {
		old = ps->tids;
		cap = ps->captids ? ps->captids * 2 : 256;
		if ((ps->tids = calloc(cap, sizeof(*ps->tids))) == NULL) {
			ps->tids = old;
			return;
		}
		ps->captids = cap;
		ps->ntids = 0;
		for (i = 0; old != NULL && i < cap / 2; i++)
			if (old[i] != 0)
				add_tid(ps, old[i]);
		free(old);
	}
	for (i = (tid * 2654435761u) & (ps->captids - 1); ps->tids[i] != 0;
	    i = (i + 1) & (ps->captids - 1))
		if (ps->tids[i] == tid)
			return;
	ps->tids[i] = tid;
	ps->ntids++;
}

static struct execwait *
execwait(struct perfstate *ps, uint32_t pid, int add)
{
	size_t i;
	void *p;

	for (i = 0; i < ps->new; i++)
		if (ps->ew[i].pid == pid)
			return &ps->ew[i];
	if (!add || (p = perf_grow(ps->ew, &ps->capew, ps->new + 1,
	    sizeof(*ps->ew))) == NULL)
		return NULL;
	ps->ew = p;
	ps->ew[ps->new].pid = pid;
	ps->ew[ps->new].waiting = 0;
	return &ps->ew[ps->new++];
}

/*
 * The run's errors: the functions of perf.c (and attach.c) record the
 * first one in ps->err and mark the run failed; perf_say() is the one
 * place that prints it, once, when the run stops recording.
 */
void
perf_werr(struct perfstate *ps, const struct pme_error *err)
{
	if (!ps->failed)
		ps->err = *err;
	ps->failed = 1;
}

int
perf_fail(struct perfstate *ps, const char *fmt, ...)
{
	va_list ap;

	if (!ps->failed) {
		va_start(ap, fmt);
		ps->err.code = PME_EIO;
		vsnprintf(ps->err.msg, sizeof(ps->err.msg), fmt, ap);
		va_end(ap);
	}
	ps->failed = 1;
	return -1;
}

void
perf_say(struct perfstate *ps)
{
	if (ps->failed && !ps->said && ps->err.code != PME_OK)
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&ps->err));
	ps->said = 1;
}

/*
 * A sample's call chain from its user registers and its copy of the user
 * stack (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER follow the other
 * fields): unwound at once, only the frames kept.  A chain that stops
 * short of the outermost frame is flagged PME_SAMPLE_TRUNCATED.
 */
void
conv_stack(struct perfstate *ps, struct pme_sample *s, const uint8_t *p,
    const uint8_t *end)
{
	uint64_t regs[64], abi, size, dyn, mask = unwind_regs_mask();
	uint32_t nregs = (uint32_t)__builtin_popcountll(mask), i, n = 0;
	uint32_t k = s->nframes;	/* the kernel's, before the user's */
	uint64_t *f = ps->frames + k;
	const uint8_t *stack;

	s->frames = ps->frames;
	s->flags |= PME_SAMPLE_TRUNCATED;
	if (end - p < 8)
		return;
	abi = get64(p);
	p += 8;
	/* No user registers: a kernel thread, or user state unknown. */
	if (abi == PERF_SAMPLE_REGS_ABI_NONE ||
	    (uint64_t)(end - p) < 8 * (uint64_t)nregs + 8)
		return;
	for (i = 0; i < nregs; i++)
		regs[i] = get64(p + 8 * i);
	p += 8 * nregs;
	size = get64(p);
	p += 8;
	if (size > (uint64_t)(end - p) || (size > 0 && (uint64_t)(end - p) -
	    size < 8))
		return;
	stack = p;
	dyn = size > 0 ? get64(p + size) : 0;
	if (dyn > size)
		dyn = size;
	if (ps->gate != NULL)	/* the record is ours: stack is writable */
		gate_fix(ps, s->tid, regs, (uint8_t *)(uintptr_t)stack, dyn);
	if (unwind_sample(ps->uw, s->pid, s->tid, regs, stack, dyn,
	    f, 512 - k, &n))
		s->flags &= ~(uint32_t)PME_SAMPLE_TRUNCATED;
	/* The chain starts with the pc of the user code: the sample's pc
	 * itself, unless the sample is in the kernel. */
	if (!(s->flags & PME_SAMPLE_KERNEL) && n > 0)
		memmove(f, f + 1, --n * sizeof(*f));
	s->nframes = k + n;
}

/*
 * The kernel's call chain (PERF_SAMPLE_CALLCHAIN) at *pp into ps->frames
 * and s, *pp moved past it: its addresses but the context markers and the
 * sample's pc, which comes first.
 */
static void
conv_chain(struct perfstate *ps, struct pme_sample *s, const uint8_t **pp,
    const uint8_t *end)
{
	const uint8_t *p = *pp;
	uint64_t nr, ip, i;

	s->frames = ps->frames;
	if (end - p < 8)
		return;
	nr = get64(p);
	p += 8;
	if (nr > (uint64_t)(end - p) / 8)
		nr = (uint64_t)(end - p) / 8;
	for (i = 0; i < nr; i++) {
		ip = get64(p + 8 * i);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX)
			continue;	/* a context marker */
		if (s->nframes == 0 && ip == s->pc)
			continue;
		if (s->nframes < 512)
			ps->frames[s->nframes++] = ip;
	}
	*pp = p + 8 * nr;
}

/*
 * An event other than a clock that happened in the kernel (a tracepoint,
 * a context switch) is booked to the user code that entered the kernel,
 * the first frame of its user chain, as the Spy booked a page fault to
 * the process's stack; the chain is kept only with -g.
 */
static void
book_user(struct perfstate *ps, struct pme_sample *s)
{
	uint32_t k = 0;

	/* past the kernel's frames (-g), to the first of the user's */
	while (k < s->nframes && PME_KERNEL_ADDR(s->frames[k]))
		k++;
	if ((s->flags & PME_SAMPLE_KERNEL) && k < s->nframes) {
		s->pc = s->frames[k];
		s->nframes -= k + 1;
		memmove(ps->frames, ps->frames + k + 1, s->nframes *
		    sizeof(*ps->frames));
		s->flags &= ~(uint32_t)PME_SAMPLE_KERNEL;
	}
	if (!ps->o->callchain)
		s->nframes = 0;
}

static void
conv_sample(struct perfstate *ps, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	const uint8_t *end = (const uint8_t *)h + h->size;
	struct pme_sample s;
	struct pme_error err;

	if (ps->curev >= 0 && ps->curev < PME_EVENTS_MAX)
		ps->evseen[ps->curev]++;
	if (end - p < 40 - (sample_period(ps->o, ps->curev) ? 0 : 8))
		return;
	memset(&s, 0, sizeof(s));
	s.pc = get64(p);
	s.pid = get32(p + 8);
	s.tid = get32(p + 12);
	s.time = get64(p + 16);
	s.cpu = get32(p + 24);
	s.event = (uint32_t)ps->curev;
	/* --start/--stop: not in the thread's window, not written. */
	if (ps->gate != NULL && !gate_sample(ps, s.tid))
		return;
	if (!sample_period(ps->o, ps->curev)) {
		s.weight = ps->o->ev[ps->curev].period;
		p += 32;
	} else {
		s.weight = events_clock(ps->o, ps->curev) ?
		    jitter_weight(&ps->jit, ps->o, s.tid, s.time, get64(p + 32)) :
		    get64(p + 32);
		p += 40;
	}
	if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
	    PERF_RECORD_MISC_KERNEL)
		s.flags |= PME_SAMPLE_KERNEL;
	if (has_chain(ps->o, ps->curev))
		conv_chain(ps, &s, &p, end);
	if (ps->uw != NULL && ps->o->callchain)
		conv_stack(ps, &s, p, end);
	if (!events_clock(ps->o, ps->curev))
		book_user(ps, &s);
	add_tid(ps, s.tid);
	ps->samples++;
	if (pme_samplewriter_sample(ps->w, &s, &err) < 0)
		perf_werr(ps, &err);
}

/* A [vdso] mapping m given the file of the image (vdso.c): its path
 * into path (PATH_MAX), its device and inode; 0 when there is none. */
int
vdso_map(const struct pme_mapping *m, char *path, uint64_t *dev,
    uint64_t *ino)
{
	const char *f = vdso_file(m->end - m->start);
	struct stat st;

	if (f == NULL || strlen(f) >= PATH_MAX || stat(f, &st) < 0)
		return 0;
	strcpy(path, f);
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 1;
}

/* Finds the link-time address of a mapping; 0, or -1 if unreadable. */
int
mapping_vaddr(struct perfstate *ps, struct pme_mapping *m, uint64_t dev,
    uint64_t ino, uint8_t *buildid)
{
	struct pme_error err;
	struct stat st;
	struct vcache *v;
	char alt[PATH_MAX];
	size_t i;
	void *p;

	for (i = 0; i < ps->nvc; i++) {
		v = &ps->vc[i];
		if (v->ino == ino && v->dev == dev && v->pgoff == m->offset &&
		    strcmp(v->path, m->path) == 0)
			goto found;
	}
	if ((p = realloc(ps->vc, (ps->nvc + 1) * sizeof(*ps->vc))) == NULL)
		return -1;
	ps->vc = p;
	v = &ps->vc[ps->nvc];
	memset(v, 0, sizeof(*v));
	if ((v->path = strdup(m->path)) == NULL)
		return -1;
	ps->nvc++;
	v->dev = dev;
	v->ino = ino;
	v->pgoff = m->offset;
	/* The file named may be gone or replaced: the mapped one is read
	 * through /proc while the process lives. */
	if (!(m->flags & PME_MAP_DELETED) && stat(m->path, &st) == 0 &&
	    st.st_ino == ino && st.st_dev == dev)
		v->ok = pme_elf_vaddr(m->path, m->offset, &v->vaddr,
		    v->buildid, &v->idlen, &err) == 0;
	if (!v->ok) {
		snprintf(alt, sizeof(alt), "/proc/%u/map_files/%llx-%llx",
		    m->pid, (unsigned long long)m->start,
		    (unsigned long long)m->end);
		v->ok = pme_elf_vaddr(alt, m->offset, &v->vaddr, v->buildid,
		    &v->idlen, &err) == 0;
	}
	if (!v->ok && (m->flags & PME_MAP_MAIN)) {
		snprintf(alt, sizeof(alt), "/proc/%u/exe", m->pid);
		v->ok = pme_elf_vaddr(alt, m->offset, &v->vaddr, v->buildid,
		    &v->idlen, &err) == 0;
	}
	if (!v->ok) {
		if (ps->o->verbose)
			fprintf(stderr, "%s: '%s': link-time address "
			    "unknown: %s\n", prog, m->path,
			    pme_strerror(&err));
		/* Not a readable file: pc - start + offset. */
		v->vaddr = m->offset;
		v->idlen = 0;
		if (!(m->flags & PME_MAP_DELETED) && stat(m->path, &st) < 0)
			m->flags |= PME_MAP_DELETED;
	}
found:
	m->vaddr = v->vaddr;
	memcpy(buildid, v->buildid, v->idlen);
	m->buildid = v->idlen ? buildid : NULL;
	m->buildid_len = v->idlen;
	return 0;
}

/* Tells the unwinder of a mapping: the file, or while the process lives
 * the mapped one when the file is gone. */
void
perf_unwind_map(struct perfstate *ps, const struct pme_mapping *m)
{
	char alt[PATH_MAX];
	const char *file = m->path;

	if (m->flags & PME_MAP_DELETED) {
		snprintf(alt, sizeof(alt), "/proc/%u/map_files/%llx-%llx",
		    m->pid, (unsigned long long)m->start,
		    (unsigned long long)m->end);
		file = alt;
	}
	if (unwind_mapping(ps->uw, m, file) < 0)
		perf_fail(ps, "out of memory");
}

static void
conv_mmap2(struct perfstate *ps, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	const uint8_t *end = (const uint8_t *)h + h->size;
	struct pme_mapping m;
	struct pme_error err;
	struct execwait *ew;
	uint8_t buildid[64];
	char path[PATH_MAX];
	uint64_t dev, ino;
	size_t len, sl = strlen(DELETED_SUFFIX);
	uint32_t prot;

	if (end - p < 64)
		return;
	memset(&m, 0, sizeof(m));
	m.pid = get32(p);
	m.start = get64(p + 8);
	m.end = m.start + get64(p + 16);
	m.offset = get64(p + 24);
	dev = makedev(get32(p + 32), get32(p + 36));
	ino = get64(p + 40);
	prot = get32(p + 56);
	len = strnlen((const char *)p + 64, (size_t)(end - p - 64));
	if ((prot & PROT_EXEC) && len == 6 && memcmp(p + 64, "[vdso]", 6) == 0 &&
	    vdso_map(&m, path, &dev, &ino))
		len = strlen(path);
	else if (!(prot & PROT_EXEC) || len == 0 || len >= sizeof(path) ||
	    p[64] != '/')
		return;		/* anonymous memory, [vsyscall], ... */
	else {
		memcpy(path, p + 64, len);
		path[len] = '\0';
	}
	m.flags = PME_MAP_EXEC;
	if (len > sl && strcmp(path + len - sl, DELETED_SUFFIX) == 0) {
		path[len - sl] = '\0';
		m.flags |= PME_MAP_DELETED;
	}
	m.path = path;
	m.time = rec_time(h);
	if ((ew = execwait(ps, m.pid, 0)) != NULL && ew->waiting) {
		m.flags |= PME_MAP_MAIN;
		ew->waiting = 0;
	}
	if (mapping_vaddr(ps, &m, dev, ino, buildid) < 0) {
		perf_fail(ps, "out of memory");
		return;
	}
	if (ps->uw != NULL)
		perf_unwind_map(ps, &m);
	if (pme_samplewriter_mapping(ps->w, &m, &err) < 0)
		perf_werr(ps, &err);
}

/*
 * A process ends before the image it exec'd mapped anything: the kernel
 * ended its events at the exec, as it does when the exec changes the
 * process's credentials (a set-user-ID or set-group-ID program: see
 * setid.h) or the program cannot be read, and it runs on unsampled.
 */
static void
exit_check(struct perfstate *ps, const struct execwait *ew)
{
	if (ps->o->quiet || !ew->waiting || (ps->o->setid &&
	    ew->pid == ps->mainpid))
		return;
	fprintf(stderr, "%s: process %u exec'd '%s' (a set-user-ID or "
	    "set-group-ID program, or one it may not read): the kernel "
	    "ended perf sampling at the exec, so it was not sampled\n",
	    prog, ew->pid, ew->comm);
}

/* A new process has its parent's mappings; one that exec'd or ended has
 * none. */
static void
unwind_task(struct perfstate *ps, const struct pme_thread *t)
{
	if (t->kind == PME_THREAD_FORK && t->pid != t->ppid) {
		if (unwind_fork(ps->uw, t->ppid, t->pid) < 0)
			perf_fail(ps, "out of memory");
	} else if (t->kind == PME_THREAD_EXEC || (t->kind ==
	    PME_THREAD_EXIT && t->pid == t->tid))
		unwind_forget(ps->uw, t->pid);
}

static void
conv_task(struct perfstate *ps, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	const uint8_t *end = (const uint8_t *)h + h->size;
	struct pme_thread t;
	struct pme_error err;
	struct execwait *ew;
	char name[64];
	size_t len;

	memset(&t, 0, sizeof(t));
	if (end - p < 8)
		return;
	t.pid = get32(p);
	t.time = rec_time(h);
	if (h->type == PERF_RECORD_COMM) {
		t.tid = get32(p + 4);
		len = strnlen((const char *)p + 8, (size_t)(end - p - 8));
		if (len >= sizeof(name))
			len = sizeof(name) - 1;
		memcpy(name, p + 8, len);
		name[len] = '\0';
		t.name = name;
		t.kind = PME_THREAD_COMM;
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
			t.kind = PME_THREAD_EXEC;
			if ((ew = execwait(ps, t.pid, 1)) != NULL) {
				ew->waiting = 1;
				snprintf(ew->comm, sizeof(ew->comm), "%s",
				    name);
			}
		}
	} else {
		if (end - p < 24)
			return;
		t.ppid = get32(p + 4);
		t.tid = get32(p + 8);
		t.ptid = get32(p + 12);
		t.time = get64(p + 16);
		t.kind = h->type == PERF_RECORD_FORK ? PME_THREAD_FORK :
		    PME_THREAD_EXIT;
		if (t.kind == PME_THREAD_FORK)
			jitter_fork(&ps->jit, ps->o, t.ptid, t.tid, t.time);
		if (t.kind == PME_THREAD_EXIT) {
			t.ppid = t.ptid = 0;
			if (t.pid == t.tid && (ew = execwait(ps, t.pid, 0))) {
				exit_check(ps, ew);
				ew->waiting = 0;
			}
		}
	}
	add_tid(ps, t.tid);
	if (ps->uw != NULL)
		unwind_task(ps, &t);
	if (ps->io != NULL)
		io_task(ps, &t);
	if (ps->gate != NULL)
		gate_task(ps, &t);
	if (pme_samplewriter_thread(ps->w, &t, &err) < 0)
		perf_werr(ps, &err);
}

static void
convert(struct perfstate *ps, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)(h + 1);

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		if (IO_EV(ps->curev))
			io_sample(ps, h);
		else
			conv_sample(ps, h);
		break;
	case PERF_RECORD_MMAP2:
		conv_mmap2(ps, h);
		break;
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		conv_task(ps, h);
		break;
	case PERF_RECORD_LOST:	/* -e io's are I/O records, not samples */
		if (h->size >= sizeof(*h) + 16 && IO_EV(ps->curev))
			io_lost(ps, get64(p + 8));
		else if (h->size >= sizeof(*h) + 16) {
			ps->lost += get64(p + 8);
			if (ps->curev >= 0 && ps->curev < PME_EVENTS_MAX)
				ps->evlost[ps->curev] += get64(p + 8);
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (h->size >= sizeof(*h) + 8) {
			ps->lost += get64(p);
			if (ps->curev >= 0 && ps->curev < PME_EVENTS_MAX)
				ps->evlost[ps->curev] += get64(p);
		}
		break;
	default:
		break;
	}
}

void
perf_convert(struct perfstate *ps, const struct rec *r)
{
	ps->curev = r->ev;
	if (ps->wall != NULL)
		wall_record(ps, ps->curev, r->h);
	if (GATE_EV(ps->curev))
		gate_record(ps, r->h);
	else if (ps->curev >= 0 || IO_EV(ps->curev))
		convert(ps, r->h);
}

static void
rec_key(const void *e, uint64_t *k)
{
	k[0] = ((const struct rec *)e)->time;
}

/* More runs than this in a batch are sorted by radix. */
#define SORT_RUNS	16

/*
 * b's records merged by time into t, when they are a few runs each in
 * time order: a reading of the rings is a run a ring, and the kernel
 * writes a ring's records in the order of their times (a batch of
 * pmeclock -w at 100,000 switches a second held 3 runs, some 5; a
 * ring whose times go back makes one more).  Ties go to the earlier
 * run, so seq orders them, as the sort's.  0, or -1 with too many runs.
 */
static int
merge_runs(struct batch *b, struct rec *t)
{
	size_t at[SORT_RUNS], end[SORT_RUNS], i, n = b->nrecs;
	uint64_t head[SORT_RUNS], m;
	int nr = 0, k, best;

	at[0] = 0;
	for (i = 0; i < n; i++)
		if (b->recs[i].time == UINT64_MAX)
			return -1;
		else if (i > 0 && b->recs[i].time < b->recs[i - 1].time) {
			if (nr + 1 == SORT_RUNS)
				return -1;
			end[nr++] = i;
			at[nr] = i;
		}
	end[nr++] = n;
	if (nr == 1)
		return 0;
	/* An ended run's head is UINT64_MAX, more than any record's. */
	for (k = 0; k < nr; k++)
		head[k] = b->recs[at[k]].time;
	for (i = 0; i < n; i++) {
		for (best = 0, m = head[0], k = 1; k < nr; k++)
			if (head[k] < m)
				m = head[best = k];
		t[i] = b->recs[at[best]++];
		head[best] = at[best] < end[best] ? b->recs[at[best]].time :
		    UINT64_MAX;
	}
	memcpy(b->recs, t, n * sizeof(*t));
	return 0;
}

/*
 * Sorts b's records by time, then seq (the records are in seq order, as
 * read): merged when they are a few runs in time order, as they are
 * (merge_runs()), else by a stable radix sort by time, which at 100,000
 * switches a second costs the collector a fraction of qsort's (its
 * comparisons were an eighth of pmeclock -w's CPU here); qsort when the
 * room for either cannot be had.
 */
static void
sort_batch(struct perfstate *ps, struct batch *b)
{
	struct rec *t, *sorted = NULL;
	size_t cap;

	if (b->nrecs < 2)		/* recs may be NULL when empty */
		return;
	if (ps->capsort < b->nrecs) {
		cap = b->nrecs + b->nrecs / 2;
		if ((t = realloc(ps->sorttmp, cap * sizeof(*t))) != NULL) {
			ps->sorttmp = t;
			ps->capsort = cap;
		}
	}
	if (ps->capsort >= b->nrecs && merge_runs(b, ps->sorttmp) == 0)
		return;
	if (ps->capsort >= b->nrecs)
		sorted = pme_radix_sort(b->recs, ps->sorttmp, b->nrecs,
		    sizeof(*b->recs), 1, rec_key);
	if (sorted == NULL)
		qsort(b->recs, b->nrecs, sizeof(*b->recs), perf_cmp_rec);
	else if (sorted != b->recs)
		memcpy(b->recs, sorted, b->nrecs * sizeof(*b->recs));
}

/*
 * The rings are read one after the other while the program runs on, so
 * a reading can hold a record of one ring and miss an older one that
 * another ring got after it was read: the next reading has it.  Wall
 * mode lost an interval's kind and stack so, and -e io unwound an
 * entry with the mapping of its library not yet known (the site was a
 * word of the caller's frame).  The kernel writes each record in the
 * microseconds after its time, so every ring holds the records older
 * than a reading's start when it is read: the records older than that,
 * less HOLD_NS (a virtual CPU can stall in between), are converted, in
 * time order, and the others are held for the next reading with their
 * batch.  --start/--stop hold their records in gate.c.
 */
#define HOLD_NS		1000000ull	/* 1 ms */

/* b, converted, for the next reading. */
static void
give_back(struct perfstate *ps, struct batch *b)
{
	b->nrecs = b->narena = 0;
	if (ps->rd != NULL)
		reader_give(ps->rd, b);
	else {
		b->next = ps->spare;
		ps->spare = b;
	}
}

/* Whether held record i comes before b's record j (n in all): at equal
 * times the held first, read before. */
static inline int
held_first(const struct perfstate *ps, size_t i, const struct batch *b,
    size_t j, size_t n)
{
	return i < ps->ndue && (j == n || ps->due[i].time <= b->recs[j].time);
}

/*
 * The held records and those of b (NULL: none), both in time order,
 * converted in time order while older than ps->limit (held_first());
 * the others held, and b with them when it has some; the batches none
 * of whose records wait given back.
 * The records held are those of the last HOLD_NS and what came since,
 * few against a reading's: each is copied once or twice.
 */
static void
convert_due(struct perfstate *ps, struct batch *b)
{
	size_t i = 0, j = 0, k = 0, n = b != NULL ? b->nrecs : 0, left, cap;
	struct batch *h, **pp;
	const struct rec *r;
	struct rec *t;
	int held;

	while (!ps->failed && (i < ps->ndue || j < n)) {
		held = held_first(ps, i, b, j, n);
		r = held ? &ps->due[i] : &b->recs[j];
		if (r->time >= ps->limit)
			break;
		perf_convert(ps, r);
		i += held;
		j += !held;
	}
	left = ps->failed ? 0 : ps->ndue - i + n - j;
	if (left > ps->capdue) {
		cap = left + left / 2;
		if ((t = realloc(ps->duetmp, cap * sizeof(*t))) == NULL ||
		    (ps->duetmp = t, t = realloc(ps->due, cap *
		    sizeof(*t))) == NULL) {
			perf_fail(ps, "out of memory");
			left = 0;
		} else {
			ps->due = t;
			ps->capdue = cap;
		}
	}
	if (ps->failed)
		left = 0;
	while (k < left)
		ps->duetmp[k++] = held_first(ps, i, b, j, n) ? ps->due[i++] :
		    b->recs[j++];
	t = ps->due;
	ps->due = ps->duetmp;
	ps->duetmp = t;
	ps->ndue = left;
	for (pp = &ps->held; (h = *pp) != NULL; )
		if (left == 0 || h->last < ps->limit) {
			*pp = h->next;
			give_back(ps, h);
		} else
			pp = &h->next;
	if (b != NULL && (left == 0 || b->last < ps->limit))
		give_back(ps, b);
	else if (b != NULL) {
		b->next = NULL;
		*pp = b;
	}
}

/* Converts the records of b in time order, those due (--start/--stop:
 * gate.c); b is given back once none of its records waits. */
static void
convert_batch(struct perfstate *ps, struct batch *b)
{
	size_t i;

	b->last = 0;
	for (i = 0; i < b->nrecs; i++) {
		b->recs[i].h = (void *)(b->arena + (uintptr_t)b->recs[i].h);
		b->recs[i].time = rec_time(b->recs[i].h);
		if (b->recs[i].time > b->last)
			b->last = b->recs[i].time;
	}
	if (ps->gate != NULL) {
		gate_batch(ps, b);
		give_back(ps, b);
		return;
	}
	sort_batch(ps, b);
	if (b->start > HOLD_NS && b->start - HOLD_NS > ps->limit)
		ps->limit = b->start - HOLD_NS;
	convert_due(ps, b);
}

int
perf_drain(struct perfstate *ps)
{
	struct batch *b, *next;

	if (ps->rd == NULL) {
		if ((b = ps->spare) != NULL)
			ps->spare = b->next;
		else if ((b = calloc(1, sizeof(*b))) == NULL)
			return perf_fail(ps, "out of memory");
		b->nrecs = b->narena = 0;
		if (perf_read(ps, b) < 0) {
			give_back(ps, b);
			return perf_fail(ps, "out of memory");
		}
		convert_batch(ps, b);
		return ps->failed ? -1 : 0;
	}
	for (b = reader_take(ps->rd); b != NULL; b = next) {
		next = b->next;
		convert_batch(ps, b);
	}
	return ps->failed ? -1 : 0;
}

/*
 * The samples of -e's events of a fixed period the kernel could not
 * write, added to ps->lost: a LOST record says how many only once a
 * later record fits in the ring, so those lost as the run ended went
 * unsaid.  Each event counts its every occurrence, its threads' counts
 * folded in once they have ended: a period of P made count / P samples,
 * less one for each of its instances (a thread on a CPU) whose last
 * period was not complete.  Exact with P = 1 (perf stat's counts); with
 * more, a lower bound.  (A clock's samples cannot be so counted: the
 * kernel's count is time, its periods varied by -j.)
 */
static void
count_lost(struct perfstate *ps)
{
	uint64_t count, made, slack;
	int k, n;

	for (k = 0; k < ps->o->nev && k < PME_EVENTS_MAX; k++) {
		if (sample_period(ps->o, k) || ps->o->ev[k].period == 0 ||
		    perf_count(ps, k, k, &count) < 0)
			continue;
		for (n = 0, slack = 0; n < ps->nrings; n++)
			slack += ps->rings[n].ev == k;
		slack = ps->o->ev[k].period == 1 ? 0 : slack * (ps->ntids + 1);
		made = count / ps->o->ev[k].period;
		if (made > ps->evseen[k] + ps->evlost[k] + slack)
			ps->lost += made - ps->evseen[k] - ps->evlost[k] -
			    slack;
	}
}

void
perf_flush(struct perfstate *ps)
{
	ps->limit = UINT64_MAX;
	convert_due(ps, NULL);
	gate_flush(ps);
	count_lost(ps);
}

int
perf_ring_of(const struct perfstate *ps, int ev, int cpu)
{
	int r;

	for (r = 0; r < ps->nrings; r++)
		if (ps->rings[r].ev == ev && ps->rings[r].cpu == cpu)
			return r;
	return -1;
}

uint64_t
perf_lost(const struct perfstate *ps, int ev1, int ev2, uint64_t seen,
    uint64_t said)
{
	uint64_t count;

	return perf_count(ps, ev1, ev2, &count) == 0 && count > seen &&
	    count - seen > said ? count - seen : said;
}

int
perf_keep_out(struct perfstate *ps, int fd, int ev)
{
	void *p;

	if ((p = perf_grow(ps->outs, &ps->capouts, ps->nouts + 1,
	    sizeof(*ps->outs))) == NULL)
		return -1;
	ps->outs = p;
	ps->outs[ps->nouts].fd = fd;
	ps->outs[ps->nouts++].ev = ev;
	return 0;
}

/* Adds the count of event fd to *count; -1 when it cannot be read. */
static int
add_count(int fd, uint64_t *count)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return -1;
	*count += v;
	return 0;
}

int
perf_count(const struct perfstate *ps, int ev1, int ev2, uint64_t *count)
{
	size_t i;
	int r;

	*count = 0;
	for (r = 0; r < ps->nrings; r++)
		if ((ps->rings[r].ev == ev1 || ps->rings[r].ev == ev2) &&
		    add_count(ps->rings[r].fd, count) < 0)
			return -1;
	for (i = 0; i < ps->nouts; i++)
		if ((ps->outs[i].ev == ev1 || ps->outs[i].ev == ev2) &&
		    add_count(ps->outs[i].fd, count) < 0)
			return -1;
	return 0;
}

static void
close_rings(struct perfstate *ps)
{
	long pg = sysconf(_SC_PAGESIZE);
	int r;

	for (r = 0; r < ps->nrings; r++) {
		if (ps->rings[r].meta != NULL)
			munmap(ps->rings[r].meta, ps->rings[r].size +
			    (size_t)pg);
		close(ps->rings[r].fd);
	}
	free(ps->rings);
}

void
free_state(struct perfstate *ps)
{
	struct batch *b;
	size_t i;

	ps->ndue = 0;		/* the held batches given back */
	convert_due(ps, NULL);
	/* The thread reads the rings until it ends. */
	reader_free(ps->rd);
	ps->rd = NULL;
	wall_end(ps);
	io_free(ps);		/* both read their events' counts */
	close_rings(ps);
	for (i = 0; i < ps->nvc; i++)
		free(ps->vc[i].path);
	free(ps->vc);
	while ((b = ps->spare) != NULL) {
		ps->spare = b->next;
		batch_free(b);
		free(b);
	}
	free(ps->due);
	free(ps->duetmp);
	free(ps->sorttmp);
	free(ps->ew);
	free(ps->tids);
	free(ps->frames);
	free(ps->outs);
	unwind_free(ps->uw);
	gate_end(ps);
}

/*
 * Randomized periods (-j): the kernel's software clocks have a fixed
 * period, so from time to time, as it drains the rings, pmeclock gives
 * the events it holds a new one (PERF_EVENT_IOC_PERIOD).  The change
 * restarts the interval under way at a moment unrelated to the program's
 * work: the samples move to another point of a program's cycle, with
 * another spacing, at every change.  The events the kernel made for
 * threads and processes created later (inherited) cannot be reached:
 * each keeps the period its parent's event had when it was made, itself
 * drawn at random, and the kernel gives it with each sample.
 *
 * A period is kept for JITTER_SAMPLES periods of each thread whose events
 * pmeclock holds, counted in samples (a program that waits for the CPU on
 * a busy machine changes no more often): each change drops the part of
 * the interval under way, about half an interval, 2% of the samples.
 * The changes come at drains, that is with time, and samples come at
 * the rate of the period in force, so the rate is what is drawn,
 * uniformly from the asked-for one plus or minus o->jitter percent (but
 * for the band nearest it, JITTER_GAP), and
 * every other change mirrors the one before (rate r becomes 2 - r times
 * the asked-for one): the samples come at the asked-for rate, where
 * independent draws would leave the number of samples of a short run off
 * by up to a third.  Each sample's weight is the period in force when it
 * was taken (jitter_weight(); the kernel's own figure lags a change, and
 * for an inherited event is at times the run's first period).
 */
#define JITTER_SAMPLES	32
/*
 * A rate within an eighth of -j's spread of the asked-for one keeps a
 * program locked to that rate (a 100 Hz loop sampled at 100 Hz) at one
 * point of its cycle for the period's 32 samples and more: within 0.8%,
 * 32 samples drift by less than a quarter cycle, and its mirror is as
 * near.  The lockstep fixture's randomized share was 46.8% for 25% so
 * in one CI run.  So the draw leaves that band out: with -j 30 the rate
 * is 3.75% to 30% above or below, and moves at least 1.2 cycles in 32
 * samples.
 */
#define JITTER_GAP	0.125

/* The next uniform draw in [0, 1) (xorshift64*). */
static double
jitter_uniform(struct jitter *j)
{
	uint64_t x = j->state;

	if (x == 0)
		x = (now_mono() ^ ((uint64_t)getpid() << 32)) | 1;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	j->state = x;
	return (double)((x * 0x2545f4914f6cdd1dull) >> 11) /
	    9007199254740992.0;
}

/* Whether a new period is due (then in j->cur) after the samples
 * taken so far, by threads threads whose events pmeclock holds. */
static int
jitter_due(struct jitter *j, const struct clockopts *o, uint64_t samples,
    uint64_t threads)
{
	double x;

	if (o->jitter <= 0 || (j->cur != 0 && (double)(samples -
	    j->mark) * (double)j->cur < (double)JITTER_SAMPLES *
	    (double)threads * (double)o->period))
		return 0;
	j->mark = samples;
	j->odd = !j->odd;
	j->u = j->odd ? jitter_uniform(j) : 1 - j->u;
	/* x in [-1, 1) made JITTER_GAP or more from 0, its sign kept. */
	x = 2 * j->u - 1;
	x = x < 0 ? -JITTER_GAP + (1 - JITTER_GAP) * x :
	    JITTER_GAP + (1 - JITTER_GAP) * x;
	j->cur = (uint64_t)((double)o->period / (1 + o->jitter / 100.0 * x) +
	    0.5);
	/* The kernel's shortest hrtimer period. */
	if (j->cur < 10000)
		j->cur = 10000;
	j->when[j->nch % JITTER_HIST] = now_mono();
	j->per[j->nch++ % JITTER_HIST] = j->cur;
	return 1;
}

/* The period of thread tid's events at time; 0 when not known here.
 * The records are converted some time after they were taken (perf_
 * drain() holds the latest), so the periods of the latest changes are
 * kept: a sample older than all of them has the oldest's. */
static uint64_t
jitter_period(const struct jitter *j, uint32_t tid, uint64_t time)
{
	unsigned k, n = j->nch < JITTER_HIST ? j->nch : JITTER_HIST;
	size_t i;

	for (i = 0; i < j->nowned && n > 0; i++)
		if (j->owned[i] == tid) {
			for (k = 1; k < n && j->when[(j->nch - k) %
			    JITTER_HIST] > time; k++)
				;
			return j->per[(j->nch - k) % JITTER_HIST];
		}
	for (i = j->ninh; i-- > 0; )
		if (j->inh[i].tid == tid)
			return j->inh[i].period;
	return 0;
}

/*
 * A thread or process created at time by thread ptid: its events, which
 * the kernel made from ptid's, keep the period ptid's had then.  (The
 * kernel's own figure in its samples is at times the period the run
 * started with.)
 */
static void
jitter_fork(struct jitter *j, const struct clockopts *o, uint32_t ptid,
    uint32_t tid, uint64_t time)
{
	uint64_t p;
	void *q;

	if (o->jitter <= 0 || j->cur == 0 ||
	    (p = jitter_period(j, ptid, time)) == 0)
		return;
	if (j->ninh == j->capinh) {
		if ((q = realloc(j->inh, (j->capinh * 2 + 16) *
		    sizeof(*j->inh))) == NULL)
			return;
		j->inh = q;
		j->capinh = j->capinh * 2 + 16;
	}
	j->inh[j->ninh].tid = tid;
	j->inh[j->ninh++].period = p;
}

/* The CPU time a sample of thread tid at time stands for, the kernel
 * saying period. */
static uint64_t
jitter_weight(const struct jitter *j, const struct clockopts *o,
    uint32_t tid, uint64_t time, uint64_t period)
{
	uint64_t p;

	if (o->jitter <= 0 || j->cur == 0 ||
	    (p = jitter_period(j, tid, time)) == 0)
		return period;
	return p;
}

void
jitter_end(struct jitter *j)
{
	free(j->inh);
	j->inh = NULL;
	j->ninh = j->capinh = 0;
}

void
jitter_fd(const struct jitter *j, int fd)
{
	if (fd >= 0)
		(void)ioctl(fd, PERF_EVENT_IOC_PERIOD, &j->cur);
}

int
jitter_rings(struct perfstate *ps, uint64_t threads)
{
	int r;

	if (!jitter_due(&ps->jit, ps->o, ps->samples, threads))
		return 0;
	for (r = 0; r < ps->nrings; r++)
		if (ps->rings[r].ev >= 0)	/* not --start's, -e io's */
			jitter_fd(&ps->jit, ps->rings[r].fd);
	return 1;
}

void
perf_attr(struct perf_event_attr *a, const struct clockopts *o, int k)
{
	if (GATE_EV(k))
		gate_attr(a, o, k, exclude_kernel);
	else
		fill_attr(a, o, exclude_kernel, k);
}

/* Opens every event on the child, event k's ring for CPU cpus[i] at
 * rings[k * ncpu + i]. */
static int
open_events(struct perfstate *ps, struct child *c)
{
	int cpus[MAX_CPUS], *fds, n = 0, i, j, k, nev = ps->o->nev;
	struct perf_event_attr io;

	if ((fds = calloc(MAX_CPUS, sizeof(*fds))) == NULL ||
	    (ps->rings = calloc(MAX_CPUS, sizeof(*ps->rings))) == NULL) {
		free(fds);
		return perf_fail(ps, "out of memory");
	}
	if (ps->o->io && io_new(ps) < 0) {
		free(fds);
		return -1;
	}
	/* The events of -e, then -e io's exits and entries (drain()); or
	 * --start's and --stop's breaks first: the kernel runs the newest
	 * handler of a probe first, and gate.c puts the gate's record of a
	 * hit before a break's sample whatever the order (the tests see it
	 * work so). */
	for (j = 0; j < nev + (ps->o->io || ps->gate ? 2 : 0); j++) {
		if (ps->gate != NULL)
			k = j > 1 ? j - 2 : j == 0 ? GATE_EV_START :
			    GATE_EV_STOP;
		else
			k = j < nev ? j : j == nev ? IO_EV_EXIT : IO_EV_ENTER;
		if (IO_EV(k)) {
			io_attr(&io, ps->o, k);
			io.config = io_config(ps, k);
		} else if (GATE_EV(k))
			gate_attr(&io, ps->o, k, exclude_kernel);
		if (open_all(ps->o, c->pid, exclude_kernel, k, fds, cpus,
		    &n, k < 0 ? &io : NULL) < 0) {
			perf_fail(ps, "perf_event_open: %s: %s",
			    k >= 0 ? ps->o->ev[k].spec.name : GATE_EV(k) ?
			    ps->o->gate[k == GATE_EV_STOP].spec.name : k ==
			    IO_EV_ENTER ? "raw_syscalls:sys_enter" :
			    "raw_syscalls:sys_exit", strerror(errno));
			break;
		}
		if ((size_t)ps->nrings + (size_t)n > MAX_CPUS) {
			perf_fail(ps, "%d events on %d CPUs: more than %d "
			    "rings", ps->o->nev, n, MAX_CPUS);
			for (i = 0; i < n; i++)
				close(fds[i]);
			break;
		}
		for (i = 0; i < n; i++, ps->nrings++) {
			ps->rings[ps->nrings].fd = fds[i];
			ps->rings[ps->nrings].cpu = cpus[i];
			ps->rings[ps->nrings].ev = k;
			if (IO_EV(k)) {
				ps->rings[ps->nrings].ssize = io.sample_stack_user;
				ps->rings[ps->nrings].rmask =
				    io.sample_regs_user;
			}
		}
	}
	free(fds);
	nev += ps->o->io || ps->gate ? 2 : 0;
	if (j == nev && ps->o->io)
		io_names_open(ps, c->pid);
	if (j == nev && ps->o->wall && wall_open(ps, c->pid) < 0)
		return -1;
	return j == nev ? 0 : -1;
}

/* Maps ring i (its fd open) with pages data pages; -1 with errno. */
static int
map_ring(struct perfstate *ps, int i, size_t pages)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *m;

	m = mmap(NULL, (pages + 1) * (size_t)pg, PROT_READ | PROT_WRITE,
	    MAP_SHARED, ps->rings[i].fd, 0);
	if (m == MAP_FAILED)
		return -1;
	ps->rings[i].meta = m;
	ps->rings[i].data = (uint8_t *)m + pg;
	ps->rings[i].size = pages * (size_t)pg;
	return 0;
}

/* Whether the rings of stacks may shrink, as the locked memory they
 * need was refused (errno). */
static int
ring_shrinks(void)
{
	return (errno == EPERM || errno == ENOMEM) &&
	    ring_pages > RING_PAGES_DWARF_LOW;
}

/* Pages for each of n rings of max pages, 2 * max in all at most, a
 * power of two. */
static size_t
big_pages(size_t max, int n)
{
	size_t pages = max;

	while (n > 0 && pages > ring_pages && pages * (size_t)n > 2 * max)
		pages /= 2;
	return pages;
}

/* Maps every ring; the large rings of stacks shrink when the locked
 * memory they need is refused.  -e io's entries, each with its stack
 * copy, come faster than samples: larger rings where the kernel allows
 * them, IO_RING_PAGES in all at most (a power of two each).  So do -w's
 * switch-outs (WALL_RING_PAGES). */
static int
map_rings(struct perfstate *ps)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t pages, iopages, wpages;
	int i, nio = 0, nw = 0, rc;

	if (ps->nrings > RING_BIG_MAX)
		ring_pages = RING_PAGES_DWARF_LOW;
	for (i = 0; i < ps->nrings; i++) {
		nio += ps->rings[i].ev == IO_EV_ENTER;
		nw += ps->rings[i].ev == WALL_EV_SCHED;
	}
	iopages = big_pages(IO_RING_PAGES, nio);
	wpages = big_pages(WALL_RING_PAGES, nw);
	for (i = 0; i < ps->nrings; i++) {
		pages = ring_pages;
		if (ps->rings[i].ev == IO_EV_ENTER && iopages > ring_pages)
			pages = iopages;
		if (ps->rings[i].ev == WALL_EV_SCHED && wpages > ring_pages)
			pages = wpages;
		if ((rc = map_ring(ps, i, pages)) < 0 && pages != ring_pages)
			rc = map_ring(ps, i, ring_pages);
		if (rc < 0 && ring_shrinks()) {
			while (i-- > 0) {
				munmap(ps->rings[i].meta, ps->rings[i].size +
				    (size_t)pg);
				ps->rings[i].meta = NULL;
			}
			ring_pages = RING_PAGES_DWARF_LOW;
			continue;
		}
		if (rc < 0)
			return perf_fail(ps, "mmap of the perf ring buffer: %s",
			    strerror(errno));
	}
	return 0;
}

int
perf_map_ring(struct perfstate *ps, int i)
{
	if (ps->nrings > RING_BIG_MAX && ring_pages > RING_PAGES_DWARF_LOW)
		ring_pages = RING_PAGES_DWARF_LOW;
	if (map_ring(ps, i, ring_pages) == 0)
		return 0;
	if (!ring_shrinks())
		return -1;
	ring_pages = RING_PAGES_DWARF_LOW;
	return map_ring(ps, i, ring_pages);
}

static int
setup(struct perfstate *ps, struct child *c)
{
	if ((ps->o->ngate != 0 && gate_new(ps) < 0) || open_events(ps, c) < 0 || map_rings(ps) < 0 ||
	    (ps->wall != NULL && wall_attach(ps) < 0))
		return -1;
	io_names_attach(ps);
	if ((ps->frames = malloc(512 * sizeof(*ps->frames))) == NULL ||
	    ((ps->o->callchain || ps->o->io) &&
	    ps->o->callgraph == CALLGRAPH_DWARF &&
	    (ps->uw = unwind_new(ps->o->verbose)) == NULL))
		return perf_fail(ps, "out of memory");
	return 0;
}

void
perf_unwind_report(struct perfstate *ps)
{
	uint64_t chains, trunc, ns, hits, checked, differ;

	if (ps->uw == NULL)
		return;
	unwind_counts(ps->uw, &chains, &trunc, &ns);
	unwind_cache_counts(ps->uw, &hits, &checked, &differ);
	/* A hidden check (unwind.c): said whatever -q and -v. */
	if (checked != UINT64_MAX)
		fprintf(stderr, "%s: PME_UNWIND_CHECK: %llu of %llu chains "
		    "from the table of recent chains, %llu of them unwound "
		    "again, %llu differ\n", prog, (unsigned long long)hits,
		    (unsigned long long)chains, (unsigned long long)checked,
		    (unsigned long long)differ);
	if (ps->o->verbose) {
		fprintf(stderr, "%s: %llu call chains unwound from the CFI in "
		    "%.3f s (%.0f per second), %llu truncated\n", prog,
		    (unsigned long long)chains, (double)ns / 1e9, ns > 0 ?
		    (double)chains * 1e9 / (double)ns : 0.0,
		    (unsigned long long)trunc);
		fprintf(stderr, "%s: %llu of the chains were those of earlier "
		    "samples (the same registers and stack words)\n", prog,
		    (unsigned long long)hits);
	}
	if (!ps->o->verbose && !ps->o->quiet && trunc * 10 > chains)
		fprintf(stderr, "%s: %llu of %llu call chains truncated (see "
		    "pmeclock(1), -G)\n", prog, (unsigned long long)trunc,
		    (unsigned long long)chains);
}

/* The reader thread's loop is the rings' poll; this one converts what
 * it read and watches the command.  Without the thread (it could not
 * start), the rings are polled here as before. */
static int
run_loop(struct perfstate *ps, struct child *c)
{
	struct pollfd pfd[MAX_CPUS + 1];
	struct pme_error err;
	uint64_t last;
	int r, n = 0, rc = 0, done;

	/* A poll() that fails leaves revents as they were. */
	memset(pfd, 0, sizeof(pfd));
	if (ps->rd != NULL) {
		pfd[n].fd = reader_fd(ps->rd);
		pfd[n++].events = POLLIN;
	} else
		for (r = 0; r < ps->nrings; r++) {
			pfd[n].fd = ps->rings[r].fd;
			pfd[n++].events = POLLIN;
		}
	pfd[n].fd = c->sigfd;
	pfd[n].events = POLLIN;
	last = now_mono();
	do {
		if (poll(pfd, (nfds_t)n + 1, 250) < 0 && errno != EINTR)
			rc = perf_fail(ps, "poll: %s", strerror(errno));
		/* An event whose task has gone reports POLLHUP for good. */
		for (r = 0; r < n; r++)
			if (pfd[r].revents & (POLLHUP | POLLERR))
				pfd[r].fd = -1;
		done = child_poll(c);
		if (done && reader_stop(ps->rd) < 0)
			rc = perf_fail(ps, "out of memory");
		if (perf_drain(ps) < 0)
			rc = -1;
		jitter_rings(ps, 1);
		if (now_mono() - last >= 1000000000u) {
			if (pme_samplewriter_flush(ps->w, &err) < 0)
				perf_werr(ps, &err);
			last = now_mono();
		}
	} while (!done && rc == 0 && !ps->failed);
	if (!done) {
		/* The file failed: the program runs on, unrecorded. */
		perf_say(ps);
		reader_free(ps->rd);
		ps->rd = NULL;
		close_rings(ps);
		ps->rings = NULL;
		ps->nrings = 0;
		while (!child_poll(c))
			poll(&pfd[n], 1, -1);
	}
	return rc;
}

int
perf_run(struct clockopts *o, struct child *c, struct pme_samplewriter *w,
    struct pme_sample_close *cl)
{
	struct perfstate ps;
	int rc = 0;

	memset(&ps, 0, sizeof(ps));
	ps.o = o;
	ps.w = w;
	ps.mainpid = (uint32_t)c->pid;
	if (setup(&ps, c) < 0) {
		perf_say(&ps);
		free_state(&ps);
		return -1;
	}
	ps.jit.owned = &ps.mainpid;
	ps.jit.nowned = 1;
	jitter_rings(&ps, 1);
	reader_begin(&ps);
	if ((rc = child_go(c)) != 0) {
		free_state(&ps);
		return rc;
	}
	rc = run_loop(&ps, c);
	perf_flush(&ps);
	perf_say(&ps);
	perf_unwind_report(&ps);
	cl->samples = ps.samples;
	cl->lost = ps.lost;
	cl->threads = (uint32_t)ps.ntids;
	free_state(&ps);
	jitter_end(&ps.jit);
	return ps.failed ? -1 : rc;
}
