/*
 * wall.c - pmeclock -w: where the wall-clock time goes when a thread is
 * off its CPU.  The samples of the clock say where the CPU time went;
 * the scheduler's own switches say, exactly, when each thread left its
 * CPU and when it came back, and these intervals are written as OFFC
 * records (pme(5)) beside the samples.
 *
 * Three events per online CPU, inherited by the command's threads:
 *  - a dummy software event with context_switch: PERF_RECORD_SWITCH at
 *    every switch-out and switch-in of a thread, the intervals' ends.
 *    Any user may have it, so the intervals are exact everywhere, and a
 *    switch-out flagged PREEMPT is a thread that was still runnable.  Its
 *    records go to the clock's ring of its CPU (PERF_EVENT_IOC_SET_OUTPUT):
 *    a ring of its own would pass the locked memory a user may have;
 *  - sched:sched_switch, sampled at every switch-out: the scheduler's
 *    state of the thread (prev_state), the kernel's call chain (where it
 *    waits: the rules below), the user stack (unwound as -g does) and
 *    registers (a futex's address is the system call's first argument);
 *  - sched:sched_wakeup, which the kernel delivers to the woken thread's
 *    events (__perf_task): when a sleeper was made runnable, and by whom.
 * The tracepoints need CAP_PERFMON (or perf_event_paranoid -1) and
 * tracefs; without them the waits' kinds are unknown and said so.
 *
 * The rules, in order: a thread switched out runnable (prev_state R,
 * preempted or yielding) waits for a CPU; a kernel chain through the
 * page fault handler is a page fault (a major fault is one that waits);
 * else the innermost frame of the chain named in krules[] decides; a
 * chain that none names is "other"; without a chain, unknown.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>

#include "clock.h"
#include "perf.h"
#include "unwind.h"
#include "wall.h"

#define FRAMES		512
#define REGS_FUTEX	((1ull << 4) | (1ull << 5))	/* si, di */
/* The user stack copied at a switch-out, unless -G dwarf,SIZE names a
 * size: a thread waits in a system call, whose callers a few frames up
 * tell the wait's kind and call site.  Copying -G's 8 KiB at 100,000
 * switches a second overflowed the rings (a third of the records lost
 * here), and 4 KiB was still some 20 times the bytes of perf's record
 * of a switch with its frame-pointer chain (208), for the kernel to
 * write and the reader to copy.  The stacks unwound here needed less
 * than 2 KiB: 19,446 of 19,456 waits of python3.11's threads, every
 * wait of tests/fixtures/clock/waits.c (under 512 bytes) and of xz -T2. */
#define WALL_STACK	2048
#define KALLSYMS_BUF	(256 * 1024)

/* Kernel functions whose presence in a waiting thread's chain says what
 * it waits for (x86-64 names, this kernel's generation). */
static const struct {
	const char	*name;
	int		 cls;
} krules[] = {
	{ "asm_exc_page_fault", PME_WC_FAULT },
	{ "exc_page_fault", PME_WC_FAULT },
	{ "do_user_addr_fault", PME_WC_FAULT },
	{ "handle_mm_fault", PME_WC_FAULT },
	{ "futex_wait_queue", PME_WC_FUTEX },
	{ "futex_wait", PME_WC_FUTEX },
	{ "__futex_wait", PME_WC_FUTEX },
	{ "futex_wait_multiple", PME_WC_FUTEX },
	{ "futex_lock_pi", PME_WC_FUTEX },
	{ "do_futex", PME_WC_FUTEX },
	{ "__x64_sys_futex", PME_WC_FUTEX },
	{ "io_schedule", PME_WC_IO },
	{ "io_schedule_timeout", PME_WC_IO },
	{ "bit_wait_io", PME_WC_IO },
	{ "folio_wait_bit_common", PME_WC_IO },
	{ "folio_wait_writeback", PME_WC_IO },
	{ "__folio_lock", PME_WC_IO },
	{ "__folio_lock_killable", PME_WC_IO },
	{ "submit_bio_wait", PME_WC_IO },
	{ "jbd2_log_wait_commit", PME_WC_IO },
	{ "file_write_and_wait_range", PME_WC_IO },
	{ "__x64_sys_fsync", PME_WC_IO },
	{ "__x64_sys_fdatasync", PME_WC_IO },
	{ "__x64_sys_sync_file_range", PME_WC_IO },
	{ "__x64_sys_syncfs", PME_WC_IO },
	{ "__x64_sys_sync", PME_WC_IO },
	{ "do_nanosleep", PME_WC_SLEEP },
	{ "hrtimer_nanosleep", PME_WC_SLEEP },
	{ "do_sys_poll", PME_WC_SLEEP },
	{ "do_select", PME_WC_SLEEP },
	{ "do_epoll_wait", PME_WC_SLEEP },
	{ "ep_poll", PME_WC_SLEEP },
	{ "pipe_read", PME_WC_SLEEP },
	{ "pipe_write", PME_WC_SLEEP },
	{ "anon_pipe_read", PME_WC_SLEEP },
	{ "anon_pipe_write", PME_WC_SLEEP },
	{ "fifo_pipe_read", PME_WC_SLEEP },
	{ "pipe_wait_readable", PME_WC_SLEEP },
	{ "pipe_wait_writable", PME_WC_SLEEP },
	{ "do_epoll_pwait", PME_WC_SLEEP },
	{ "unix_stream_read_generic", PME_WC_SLEEP },
	{ "sk_wait_data", PME_WC_SLEEP },
	{ "wait_woken", PME_WC_SLEEP },
	{ "__x64_sys_pause", PME_WC_SLEEP },
	{ "do_sigtimedwait", PME_WC_SLEEP },
	{ "do_wait", PME_WC_SLEEP },
	{ "n_tty_read", PME_WC_SLEEP },
};
#define NKRULES	(sizeof(krules) / sizeof(krules[0]))

struct krange {
	uint64_t	 start, end;
	int		 cls;
};

/* A thread of the run: its open interval, and what the last
 * sched_switch sample said of it (taken just before its switch-out). */
struct wthread {
	uint32_t	 pid, tid;
	int		 out;		/* off CPU: o is open */
	struct pme_offcpu o;
	int		 said;		/* a sched_switch sample is kept */
	uint64_t	 saidtime;
	struct pme_offcpu s;
	uint64_t	 fr[FRAMES];
};

struct wall {
	int		 tp;		/* the tracepoints are open */
	uint32_t	 off_state;	/* of prev_state in sched_switch */
	uint32_t	 off_wpid;	/* of pid in sched_wakeup */
	uint64_t	 regsmask;
	struct krange	*kr;
	size_t		 nkr;
	int		 krloaded;	/* kr is read, at the first wait */
	struct wthread	**th;		/* open-addressed by tid */
	size_t		 nth, capth;
	uint64_t	 intervals, unended;
	uint64_t	 unmatched;	/* switch-outs without their sample */
	uint64_t	 lost;		/* records the kernel could not write */
	uint64_t	 tpseen;	/* sched_switch's samples read */
	uint64_t	 tplost;	/* and lost, its rings' LOST records */
	int		 csfd[MAX_CPUS];	/* the dummy event per CPU */
	int		 cscpu[MAX_CPUS];
	int		 ncs;
	uint64_t	 last;		/* the latest record's time */
};

/* ------------------------------------------------- tracefs, kallsyms */

static const char *const tracefs[] = {
	"/sys/kernel/tracing/events/sched",
	"/sys/kernel/debug/tracing/events/sched",
};

/* The id of tracepoint sched:ev and the offset of its field, from its
 * format file; 0, or -1. */
static int
tp_read(const char *ev, const char *field, uint64_t *id, uint32_t *off)
{
	char path[256], line[256], want[64];
	unsigned long long v;
	const char *q;
	size_t i;
	FILE *fp;
	int found = 0, denied = 0;

	snprintf(want, sizeof(want), " %s;", field);
	for (i = 0; i < sizeof(tracefs) / sizeof(tracefs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s/id", tracefs[i], ev);
		if ((fp = fopen(path, "r")) == NULL) {
			denied |= errno == EACCES;
			continue;
		}
		found = fscanf(fp, "%llu", &v) == 1;
		fclose(fp);
		*id = v;
		snprintf(path, sizeof(path), "%s/%s/format", tracefs[i], ev);
		if (!found || (fp = fopen(path, "r")) == NULL)
			return -1;
		found = 0;
		while (!found && fgets(line, sizeof(line), fp) != NULL)
			if (strstr(line, want) != NULL &&
			    (q = strstr(line, "offset:")) != NULL) {
				*off = (uint32_t)strtoul(q + 7, NULL, 10);
				found = 1;
			}
		fclose(fp);
		return found ? 0 : -1;
	}
	errno = denied ? EACCES : ENOENT;
	return -1;
}

static int
cmp_kr(const void *a, const void *b)
{
	const struct krange *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The address ranges of krules[]' functions, from /proc/kallsyms: each
 * runs to the next symbol's address.  Without them (kptr_restrict) every
 * chain is "other". */
static void
krules_load(struct wall *wl)
{
	char line[512], *name, *q;
	unsigned long long a;
	struct krange *open = NULL;
	size_t i, cap = 0, len, klen[NKRULES];
	char *buf;
	FILE *fp;
	void *p;

	if ((fp = fopen("/proc/kallsyms", "r")) == NULL)
		return;
	/* Some 120,000 lines, while the command runs: read in large pieces
	 * (stdio reads a /proc file 1 KiB at a time), each parsed by hand
	 * rather than by sscanf (a third of the time). */
	if ((buf = malloc(KALLSYMS_BUF)) != NULL)
		setvbuf(fp, buf, _IOFBF, KALLSYMS_BUF);
	for (i = 0; i < NKRULES; i++)
		klen[i] = strlen(krules[i].name);
	while (fgets(line, sizeof(line), fp) != NULL) {
		a = strtoull(line, &q, 16);
		if (q == line || a == 0 || q[0] != ' ' || q[1] == '\0' ||
		    q[2] != ' ')
			continue;
		if (open != NULL && a > open->start)
			open->end = a;
		if (open != NULL && a > open->start)
			open = NULL;
		if (q[1] != 't' && q[1] != 'T')
			continue;
		name = q + 3;
		len = strcspn(name, " \t\n");
		for (i = 0; i < NKRULES; i++)
			if (klen[i] == len &&
			    memcmp(name, krules[i].name, len) == 0)
				break;
		if (i == NKRULES)
			continue;
		if ((p = perf_grow(wl->kr, &cap, wl->nkr + 1, sizeof(*wl->kr)))
		    == NULL)
			break;
		wl->kr = p;
		open = &wl->kr[wl->nkr++];
		open->start = open->end = a;
		open->cls = krules[i].cls;
	}
	fclose(fp);
	free(buf);
	if (wl->nkr > 1)
		qsort(wl->kr, wl->nkr, sizeof(*wl->kr), cmp_kr);
}

static int
kclass_of(const struct wall *wl, uint64_t ip)
{
	size_t lo = 0, hi = wl->nkr, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (ip < wl->kr[mid].start)
			hi = mid;
		else if (ip >= wl->kr[mid].end)
			lo = mid + 1;
		else
			return wl->kr[mid].cls;
	}
	return PME_WC_UNKNOWN;
}

/* ------------------------------------------------------------ opening */

static void
base_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	    PERF_SAMPLE_CPU;
	a->disabled = 1;
	a->inherit = 1;
	a->enable_on_exec = 1;
	a->sample_id_all = 1;
	a->exclude_hv = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = RING_PAGES * 4096 / 4;
}

/* Event attributes for ev on every online CPU into ps->rings; -1. */
static int
open_rings(struct perfstate *ps, struct perf_event_attr *a, int pid, int ev)
{
	int cpus[MAX_CPUS], n, i, first = ps->nrings;
	long fd;

	if ((n = online_cpus(cpus, MAX_CPUS)) < 0 ||
	    ps->nrings + n > MAX_CPUS) {
		errno = ENODEV;
		return -1;
	}
	for (i = 0; i < n; i++) {
		if ((fd = perf_open(a, pid, cpus[i])) < 0) {
			while (ps->nrings > first)
				close(ps->rings[--ps->nrings].fd);
			return -1;
		}
		ps->rings[ps->nrings].fd = (int)fd;
		ps->rings[ps->nrings].cpu = cpus[i];
		ps->rings[ps->nrings].ssize = a->sample_stack_user;
		ps->rings[ps->nrings].rmask = a->sample_regs_user;
		ps->rings[ps->nrings++].ev = ev;
	}
	return 0;
}

/* sched:sched_switch with the chains, and sched:sched_wakeup. */
static int
open_tracepoints(struct perfstate *ps, struct wall *wl, int pid)
{
	struct perf_event_attr a;
	uint64_t ids, idw;
	uint32_t offpid;

	errno = 0;
	if (tp_read("sched_switch", "prev_pid", &ids, &offpid) < 0 ||
	    tp_read("sched_switch", "prev_state", &ids, &wl->off_state) < 0 ||
	    tp_read("sched_wakeup", "pid", &idw, &wl->off_wpid) < 0) {
		snprintf(ps->o->note, sizeof(ps->o->note), "wall mode: %s: "
		    "the kinds of waits are unknown", errno == EACCES ?
		    "the sched tracepoints' formats in tracefs cannot be read "
		    "(Permission denied)" : "no tracefs with the sched "
		    "tracepoints");
		return -1;
	}
	base_attr(&a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = ids;
	a.sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_RAW |
	    PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER;
	wl->regsmask = REGS_FUTEX;
	if (ps->o->callchain && ps->o->callgraph == CALLGRAPH_DWARF) {
		/* The user chain unwound from the CFI, as -g's. */
		a.sample_type |= PERF_SAMPLE_STACK_USER;
		a.sample_stack_user = ps->o->stackgiven ||
		    ps->o->stacksize < WALL_STACK ? ps->o->stacksize :
		    WALL_STACK;
		a.exclude_callchain_user = 1;
		a.wakeup_watermark = WALL_WAKEUP;
		wl->regsmask = unwind_regs_mask();
	}
	a.sample_regs_user = wl->regsmask;
	if (open_rings(ps, &a, pid, WALL_EV_SCHED) < 0)
		goto refused;
	/* The ip too, that the time is where perf.c's rec_time() reads a
	 * sample's (without, a wake-up was sorted by its CPU's number). */
	base_attr(&a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = idw;
	a.sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_RAW;
	if (open_rings(ps, &a, pid, WALL_EV_WAKE) < 0)
		goto refused;
	return 0;
refused:
	snprintf(ps->o->note, sizeof(ps->o->note), "wall mode: the sched "
	    "tracepoints refused (%s; perf_event_paranoid %d, they need "
	    "CAP_PERFMON or -1): the kinds of waits are unknown",
	    strerror(errno), paranoid());
	return -1;
}

/* The dummy event of the context switches on every online CPU. */
static int
open_switches(struct wall *wl, int pid)
{
	struct perf_event_attr a;
	int cpus[MAX_CPUS], n, i;
	long fd;

	base_attr(&a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.context_switch = 1;
	a.exclude_kernel = 1;
	if ((n = online_cpus(cpus, MAX_CPUS)) < 0) {
		errno = ENODEV;
		return -1;
	}
	for (i = 0; i < n; i++) {
		if ((fd = perf_open(&a, pid, cpus[i])) < 0)
			return -1;
		wl->csfd[wl->ncs] = (int)fd;
		wl->cscpu[wl->ncs++] = cpus[i];
	}
	return 0;
}

int
wall_open(struct perfstate *ps, int pid)
{
	struct wall *wl;
	int keep;

	if ((wl = calloc(1, sizeof(*wl))) == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	ps->wall = wl;
	if (open_switches(wl, pid) < 0) {
		fprintf(stderr, "%s: -w: perf_event_open of the context "
		    "switches: %s\n", prog, strerror(errno));
		return -1;
	}
	keep = ps->nrings;
	if (open_tracepoints(ps, wl, pid) == 0)
		wl->tp = 1;
	else {
		while (ps->nrings > keep)
			close(ps->rings[--ps->nrings].fd);
		if (!ps->o->quiet)
			fprintf(stderr, "%s: %s\n", prog, ps->o->note);
	}
	return 0;
}

int
wall_attach(struct perfstate *ps)
{
	struct wall *wl = ps->wall;
	int i, r;

	for (i = 0; wl != NULL && i < wl->ncs; i++) {
		r = perf_ring_of(ps, 0, wl->cscpu[i]);
		if (r < 0 || ioctl(wl->csfd[i], PERF_EVENT_IOC_SET_OUTPUT,
		    ps->rings[r].fd) < 0) {
			fprintf(stderr, "%s: -w: the context switches of CPU "
			    "%d into its ring: %s\n", prog, wl->cscpu[i],
			    r < 0 ? "no ring" : strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ threads */

static size_t
slot(uint32_t tid, size_t cap)
{
	return (size_t)((tid * 0x9e3779b97f4a7c15ull) >> 40) & (cap - 1);
}

static int
rehash(struct wall *wl)
{
	struct wthread **old = wl->th;
	size_t oldcap = wl->capth, i, k;

	wl->capth = oldcap ? oldcap * 2 : 64;
	if ((wl->th = calloc(wl->capth, sizeof(*wl->th))) == NULL) {
		wl->th = old;
		wl->capth = oldcap;
		return -1;
	}
	for (i = 0; i < oldcap; i++) {
		if (old[i] == NULL)
			continue;
		for (k = slot(old[i]->tid, wl->capth); wl->th[k] != NULL;
		    k = (k + 1) & (wl->capth - 1))
			;
		wl->th[k] = old[i];
	}
	free(old);
	return 0;
}

/* Thread tid, made when add; NULL. */
static struct wthread *
thread(struct wall *wl, uint32_t pid, uint32_t tid, int add)
{
	size_t k;

	if (wl->capth > 0)
		for (k = slot(tid, wl->capth); wl->th[k] != NULL;
		    k = (k + 1) & (wl->capth - 1))
			if (wl->th[k]->tid == tid)
				return wl->th[k];
	if (!add || ((wl->nth + 1) * 2 > wl->capth && rehash(wl) < 0))
		return NULL;
	for (k = slot(tid, wl->capth); wl->th[k] != NULL;
	    k = (k + 1) & (wl->capth - 1))
		;
	if ((wl->th[k] = calloc(1, sizeof(**wl->th))) == NULL)
		return NULL;
	wl->th[k]->pid = pid;
	wl->th[k]->tid = tid;
	wl->nth++;
	return wl->th[k];
}

/* --------------------------------------------------------- converting */

static void
emit(struct perfstate *ps, struct wthread *t, uint64_t end)
{
	struct pme_error err;

	/* Records of two CPUs' rings in two drains come out of order: a
	 * wake-up made on one CPU while the thread was still switching out
	 * on the other (runnable again before it had left: a wait for a
	 * CPU) can be read after the switch-out it came before.  Such an
	 * interval is not refused by the writer, which would end the run:
	 * the wake is its start; a switch-in read before the switch-out
	 * ends it where it began. */
	if (end < t->o.start)
		end = t->o.start;
	if (t->o.wake != 0 && t->o.wake < t->o.start)
		t->o.wake = t->o.start;
	t->o.end = end;
	t->out = 0;
	if (t->o.wake > end)
		t->o.wake = 0;
	ps->wall->intervals++;
	if (pme_samplewriter_offcpu(ps->w, &t->o, &err) < 0)
		perf_werr(ps, &err);
}

/* The kind of wait the kernel's chain ips[0..n) says. */
static int
classify(const struct wall *wl, const uint64_t *ips, uint64_t n)
{
	int cls = PME_WC_UNKNOWN, c;
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (ips[i] >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		if (ips[i] < 0xffff800000000000ull)
			break;
		c = kclass_of(wl, ips[i]);
		if (c == PME_WC_FAULT)
			return c;
		if (cls == PME_WC_UNKNOWN)
			cls = c;
	}
	if (cls == PME_WC_UNKNOWN && n > 0)
		cls = PME_WC_OTHER;
	return cls;
}

/* The user frames of a frame-pointer chain (after PERF_CONTEXT_USER). */
static void
user_chain(struct wthread *t, const uint8_t *ips, uint64_t nr)
{
	uint64_t i, ip;
	int user = 0;

	for (i = 0; i < nr; i++) {
		ip = get64(ips + 8 * i);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			user = ip == (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		if (!user)
			continue;
		if (t->s.pc == 0)
			t->s.pc = ip;
		else if (t->s.nframes < FRAMES)
			t->fr[t->s.nframes++] = ip;
	}
}

/* The user registers and stack after the chain and raw data: the futex's
 * address and operation, and with the CFI the user chain. */
static void
user_state(struct perfstate *ps, struct wthread *t, const uint8_t *p,
    const uint8_t *end)
{
	uint64_t regs[64], size, dyn, abi, mask = ps->wall->regsmask;
	uint32_t nregs = (uint32_t)__builtin_popcountll(mask), i, n = 0;
	int si = __builtin_popcountll(mask & 0xf), di = si + 1;

	if (end - p < 8 || (abi = get64(p)) == PERF_SAMPLE_REGS_ABI_NONE ||
	    (uint64_t)(end - p - 8) < 8 * (uint64_t)nregs)
		return;
	for (p += 8, i = 0; i < nregs; i++, p += 8)
		regs[i] = get64(p);
	if (t->s.kclass == PME_WC_FUTEX) {
		t->s.object = regs[di];
		t->s.futex_op = (uint32_t)regs[si];
	}
	if (ps->uw == NULL || end - p < 8)
		return;
	size = get64(p);
	p += 8;
	if (size > (uint64_t)(end - p) || (size > 0 &&
	    (uint64_t)(end - p) - size < 8))
		return;
	dyn = size > 0 ? get64(p + size) : 0;
	if (!unwind_sample(ps->uw, t->pid, t->tid, regs, p, dyn < size ?
	    dyn : size, t->fr, FRAMES, &n))
		t->s.flags |= PME_OFF_TRUNCATED;
	if (n > 0) {
		t->s.pc = t->fr[0];
		memmove(t->fr, t->fr + 1, --n * sizeof(*t->fr));
	}
	t->s.nframes = n;
}

/* A sched_switch sample, taken as the thread leaves its CPU. */
static void
on_sched(struct perfstate *ps, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	const uint8_t *end = (const uint8_t *)h + h->size, *ips;
	struct wall *wl = ps->wall;
	struct wthread *t;
	uint64_t nr, state;
	uint32_t raw;

	if (end - p < 40)
		return;
	if ((t = thread(wl, get32(p + 8), get32(p + 12), 1)) == NULL)
		return;
	memset(&t->s, 0, sizeof(t->s));
	t->said = 1;
	t->saidtime = get64(p + 16);
	p += 32;
	nr = get64(p);
	if (nr > (uint64_t)(end - p - 8) / 8)
		return;
	ips = p + 8;
	p += 8 + 8 * nr;
	if (end - p < 4 || (raw = get32(p)) > (uint64_t)(end - p - 4) ||
	    wl->off_state + 8 > raw)
		return;
	state = get64(p + 4 + wl->off_state);
	t->s.kstate = (uint32_t)state;
	if ((state & 0xff) == 0)
		t->s.kclass = PME_WC_CPU;
	else {
		uint64_t k[FRAMES], i, n = 0;

		/* Read at the first wait, not before the command starts
		 * (0.1-0.3 s of the run's wall time). */
		if (!wl->krloaded) {
			krules_load(wl);
			wl->krloaded = 1;
		}
		for (i = 0; i < nr && n < FRAMES; i++)
			k[n++] = get64(ips + 8 * i);
		t->s.kclass = classify(wl, k, n);
	}
	if (ps->uw == NULL)
		user_chain(t, ips, nr);
	p += (4 + raw + 7) & ~(size_t)7;
	user_state(ps, t, p, end);
}

/* A sched_wakeup: the woken thread is runnable from now on. */
static void
on_wake(struct perfstate *ps, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	const uint8_t *end = (const uint8_t *)h + h->size;
	struct wall *wl = ps->wall;
	struct wthread *t;
	uint32_t raw, wpid, wtid;

	if (end - p < 36)
		return;
	p += 8;		/* the ip */
	if ((raw = get32(p + 24)) > (uint64_t)(end - p - 28) ||
	    wl->off_wpid + 4 > raw)
		return;
	wpid = get32(p);
	wtid = get32(p + 4);
	t = thread(wl, 0, get32(p + 28 + wl->off_wpid), 0);
	if (t == NULL || !t->out || t->o.wake != 0)
		return;
	t->o.wake = get64(p + 8);
	if (wpid == t->pid && wtid != t->tid) {
		t->o.waker = wtid;
		t->o.flags |= PME_OFF_WAKER;
	}
}

/* A switch of one of the run's threads: out opens an interval with what
 * the sched_switch sample just before said, in closes it. */
static void
on_switch(struct perfstate *ps, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	struct wall *wl = ps->wall;
	struct wthread *t;
	uint64_t time;

	if (h->size < sizeof(*h) + 24)
		return;
	time = get64(p + 8);
	if ((t = thread(wl, get32(p), get32(p + 4), 1)) == NULL)
		return;
	if (!(h->misc & PERF_RECORD_MISC_SWITCH_OUT)) {
		if (t->out)
			emit(ps, t, time);
		return;
	}
	if (t->out)
		emit(ps, t, time);
	memset(&t->o, 0, sizeof(t->o));
	t->o.start = time;
	/* The sample's time is the scheduler's: it has stopped counting
	 * the thread's CPU time, and its copy of the stack is not yet
	 * made, which the record's time would book to the CPU. */
	if (t->said && t->saidtime <= time) {
		t->o = t->s;
		t->o.start = t->saidtime;
		t->said = 0;
	} else if (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
		t->o.kclass = PME_WC_CPU;
	else if (wl->tp)
		wl->unmatched++;	/* its sched_switch lost, or late */
	t->o.pid = t->pid;
	t->o.tid = t->tid;
	t->o.frames = t->fr;
	t->out = 1;
}

/* A new thread is runnable from its creation to its first switch-in:
 * waiting for a CPU. */
static void
on_fork(struct perfstate *ps, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	struct wthread *t;

	if (h->size < sizeof(*h) + 24 || (t = thread(ps->wall, get32(p), get32(p + 8), 1)) == NULL ||
	    t->out)
		return;
	memset(&t->o, 0, sizeof(t->o));
	t->o.pid = t->pid;
	t->o.tid = t->tid;
	t->o.start = get64(p + 16);
	t->o.kclass = PME_WC_CPU;
	t->o.frames = t->fr;
	t->out = 1;
}

void
wall_record(struct perfstate *ps, int ev, const struct perf_event_header *h)
{
	if (ps->wall == NULL)
		return;
	if (ev >= 0 && h->type == PERF_RECORD_FORK)
		on_fork(ps, h);
	else if (ev < 0 && h->type == PERF_RECORD_LOST &&
	    h->size >= sizeof(*h) + 16) {
		if (ev == WALL_EV_SCHED)
			ps->wall->tplost += get64((const uint8_t *)(h + 1) + 8);
		else
			ps->wall->lost += get64((const uint8_t *)(h + 1) + 8);
	} else if (h->type == PERF_RECORD_SWITCH)
		on_switch(ps, h);
	else if (ev == WALL_EV_SCHED && h->type == PERF_RECORD_SAMPLE) {
		ps->wall->tpseen++;
		on_sched(ps, h);
	} else if (ev == WALL_EV_WAKE && h->type == PERF_RECORD_SAMPLE)
		on_wake(ps, h);
}

/* (sched_wakeup's count is not its samples', so not perf_lost()'s:
 * twice them on a pipe ping-pong here, 47,488 against 23,751, none
 * lost; why is not known.) */
void
wall_end(struct perfstate *ps)
{
	struct wall *wl = ps->wall;
	size_t i;

	if (wl == NULL)
		return;
	wl->lost += perf_lost(ps, WALL_EV_SCHED, WALL_EV_SCHED, wl->tpseen,
	    wl->tplost);
	for (i = 0; i < wl->capth; i++) {
		if (wl->th[i] != NULL && wl->th[i]->out)
			wl->unended++;
		free(wl->th[i]);
	}
	if (ps->o->verbose)
		fprintf(stderr, "%s: -w: %" PRIu64 " off-CPU intervals of %zu "
		    "threads, %" PRIu64 " not ended when their thread was "
		    "last seen, %" PRIu64 " scheduler records lost\n", prog,
		    wl->intervals, wl->nth, wl->unended, wl->lost);
	else if (wl->lost > 0 && !ps->o->quiet)
		fprintf(stderr, "%s: -w: %" PRIu64 " scheduler records lost "
		    "(the kernel's buffer was full): some intervals have no "
		    "kind or stack, or hold two\n", prog, wl->lost);
	if (wl->unmatched > 0 && !ps->o->quiet)
		fprintf(stderr, "%s: -w: %" PRIu64 " of %" PRIu64 " off-CPU "
		    "intervals without the scheduler's sample of their "
		    "switch-out (not written, or read too late): their kind "
		    "and stack unknown, booked to other\n", prog,
		    wl->unmatched, wl->intervals);
	for (i = 0; i < (size_t)wl->ncs; i++)
		close(wl->csfd[i]);
	free(wl->th);
	free(wl->kr);
	free(wl);
	ps->wall = NULL;
}
