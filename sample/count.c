/*
 * count.c - pmeclock --count, as `perf stat -- cmd`: the events are
 * counted, not sampled.  Each is opened on the forked command before
 * its exec (no sample period, inherited by its threads and children,
 * enabled at the exec), read once the command has ended, and printed on
 * standard error with the run's wall and CPU time.  No samples, so
 * nothing is lost: a break's count is its routine's exact number of
 * calls.  See pmeclock(1), COUNTING.
 *
 * Per thread (--per-thread): the counters are opened with inherit_stat,
 * so that the kernel writes each inherited counter's own count, as its
 * thread ends, in a PERF_RECORD_READ into a ring.  One thread's
 * counter is the one opened, not an inherited one, and gives none: the
 * command's first, or the thread it was swapped to (the kernel swaps
 * the counters of two threads of equal counters at a context switch
 * rather than reprogram them, and swaps their counts with them, so a
 * count stays its thread's): the one thread known, by its FORK, COMM
 * or EXIT records, that gave no READ record, and it gets the total less
 * the others'.  The kernel maps no ring of an inherited
 * counter of a task on every CPU, so these are opened once per CPU
 * (as perf record does), each CPU's events writing into the ring of its
 * first.  perf stat counts per thread only when attached (-p, -t);
 * this way a command is counted from its exec.  The names are the
 * ring's COMM records' (a thread unnamed is called as its process).
 * The ring is read while the command runs; should it overflow all the
 * same, the kernel's LOST records are counted and said.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "clock.h"
#include "prog.h"
#include "util.h"

#define RING_PAGES	128	/* 512 KiB: some 10,000 threads' records
				   between two reads */

/* A thread's own counts, from its READ records, and its name. */
struct thr {
	uint32_t	 pid, tid;
	char		 name[16];
	int		 ended;		/* its counts were read */
	uint64_t	 v[PME_EVENTS_MAX];
};

/* The counters: fd[cpu * nev + k] is event k's on that CPU (one "CPU",
 * any, but per thread). */
struct counters {
	int		*fd;
	int		 ncpu, nev;
	int		 percpu;	/* opened per CPU: see scaled() */
};

struct perthread {
	void		**ring;		/* per CPU */
	size_t		 len;		/* of each, mapped */
	uint64_t	*ids;		/* as fd */
	int		 ncpu, nev;
	struct thr	*t;
	size_t		 n, cap;
	uint64_t	 lost;		/* records the ring had no room for */
	int		 nomem;
};

/* Opens o's events on pid, counting, into ct; 0, or -1 with errno
 * (none left open). */
static int
open_counters(const struct clockopts *o, pid_t pid, int ek,
    struct counters *ct)
{
	struct perf_event_attr a;
	int k, e, n = ct->ncpu * ct->nev;

	for (k = 0; k < n; k++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		events_attr(o, k % ct->nev, &a);
		a.freq = 0;
		a.sample_period = 0;	/* counting */
		a.sample_type = 0;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
		    PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
		a.disabled = 1;
		a.inherit = 1;
		a.inherit_stat = (unsigned)o->per_thread;
		a.comm = o->per_thread && k % ct->nev == 0;
		a.task = a.comm;
		a.watermark = 1;
		a.wakeup_watermark = RING_PAGES * 4096 / 4;
		a.enable_on_exec = 1;
		a.exclude_kernel = (unsigned)ek;
		a.exclude_hv = 1;
		ct->fd[k] = (int)syscall(SYS_perf_event_open, &a, pid,
		    o->per_thread ? k / ct->nev : -1, -1,
		    PERF_FLAG_FD_CLOEXEC);
		if (ct->fd[k] < 0) {
			e = errno;
			while (k-- > 0)
				close(ct->fd[k]);
			errno = e;
			return -1;
		}
	}
	return 0;
}

static double
seconds(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* v (value, enabled, running) scaled when the kernel multiplexed it.
 * Not a counter of a task on one CPU (percpu, --per-thread): it is
 * enabled while its task runs, running while the task runs on its CPU,
 * so that the times tell nothing of multiplexing. */
static uint64_t
scaled(const uint64_t *v, int percpu)
{
	if (percpu || v[2] == 0 || v[2] >= v[1])
		return v[0];
	return (uint64_t)((double)v[0] * (double)v[1] / (double)v[2] + 0.5);
}

/* Event k's line: its count (over the CPUs), scaled when the kernel
 * multiplexed it, into *total too (0 when not read). */
static void
print_count(const struct clockopts *o, int k, const struct counters *ct,
    uint64_t *total)
{
	const struct clockevent *e = &o->ev[k];
	uint64_t v[4] = { 0, 0, 0, 0 }, r[4];
	int c;

	*total = 0;
	for (c = 0; c < ct->ncpu; c++) {
		if (read(ct->fd[c * ct->nev + k], r, sizeof(r)) !=
		    (ssize_t)sizeof(r)) {
			fprintf(stderr, "%20s  %s  (read: %s)\n", "<not read>",
			    e->spec.name, strerror(errno));
			return;
		}
		v[0] += r[0];
		v[1] += r[1];
		v[2] += r[2];
	}
	if (v[2] == 0 && v[1] > 0 && !ct->percpu) {
		fprintf(stderr, "%20s  %s  (never on a counter)\n",
		    "<not counted>", e->spec.name);
		return;
	}
	*total = scaled(v, ct->percpu);
	fprintf(stderr, "%20llu  %-26s %s", (unsigned long long)*total,
	    e->spec.name, pme_ev_unit(e->spec.kind, e->spec.name));
	if (v[2] < v[1] && !ct->percpu)
		fprintf(stderr, "  (scaled: counted %.1f%% of the time)",
		    100 * (double)v[2] / (double)v[1]);
	fputc('\n', stderr);
}

/* ---------------------------------------------------------- per thread */

static struct thr *
thr_of(struct perthread *pt, uint32_t pid, uint32_t tid)
{
	struct thr *t;
	size_t i;

	for (i = 0; i < pt->n; i++)
		if (pt->t[i].tid == tid)
			return &pt->t[i];
	if (pt->n == pt->cap) {
		if ((t = realloc(pt->t, (pt->cap * 2 + 8) * sizeof(*t))) ==
		    NULL) {
			pt->nomem = 1;
			return NULL;
		}
		pt->t = t;
		pt->cap = pt->cap * 2 + 8;
	}
	t = &pt->t[pt->n++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	return t;
}

/* A ring per CPU, into which the CPU's events write; 0 or -1 (said). */
static int
pt_open(struct perthread *pt, const struct counters *ct)
{
	int c, k, *fd;

	pt->ncpu = ct->ncpu;
	pt->nev = ct->nev;
	pt->len = (RING_PAGES + 1) * (size_t)sysconf(_SC_PAGESIZE);
	if ((pt->ring = calloc((size_t)ct->ncpu, sizeof(*pt->ring))) ==
	    NULL || (pt->ids = calloc((size_t)(ct->ncpu * ct->nev),
	    sizeof(*pt->ids))) == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	for (c = 0; c < ct->ncpu; c++) {
		fd = ct->fd + c * ct->nev;
		pt->ring[c] = mmap(NULL, pt->len, PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd[0], 0);
		if (pt->ring[c] == MAP_FAILED) {
			pt->ring[c] = NULL;
			fprintf(stderr, "%s: --per-thread: mmap of the "
			    "counters' ring: %s\n", prog, strerror(errno));
			return -1;
		}
		for (k = 0; k < ct->nev; k++)
			if ((k > 0 && ioctl(fd[k], PERF_EVENT_IOC_SET_OUTPUT,
			    fd[0]) == -1) || ioctl(fd[k], PERF_EVENT_IOC_ID,
			    &pt->ids[c * ct->nev + k]) == -1) {
				fprintf(stderr, "%s: --per-thread: the "
				    "counters' ring: %s\n", prog,
				    strerror(errno));
				return -1;
			}
	}
	return 0;
}

/* A READ record's counts (pid, tid, value, enabled, running, id), or a
 * COMM record's name (pid, tid, comm), into the threads. */
static void
pt_record(struct perthread *pt, const struct perf_event_header *h,
    const unsigned char *p)
{
	uint32_t pt2[2];
	uint64_t v[4];
	struct thr *t;
	int k;

	if (h->type == PERF_RECORD_LOST && h->size >= 8 + 16) {
		memcpy(v, p, 16);
		pt->lost += v[1];
		return;
	}
	if ((h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT) &&
	    h->size >= 8 + 16) {
		memcpy(pt2, p, 4);
		memcpy(pt2 + 1, p + 8, 4);	/* pid, ppid, tid, ptid */
		thr_of(pt, pt2[0], pt2[1]);
		return;
	}
	if (h->size < 8 + 8 || (h->type != PERF_RECORD_READ &&
	    h->type != PERF_RECORD_COMM))
		return;
	memcpy(pt2, p, 8);
	if ((t = thr_of(pt, pt2[0], pt2[1])) == NULL)
		return;
	if (h->type == PERF_RECORD_COMM) {
		snprintf(t->name, sizeof(t->name), "%.*s",
		    (int)(h->size - 16), (const char *)p + 8);
		return;
	}
	if (h->size < 8 + 8 + sizeof(v))
		return;
	memcpy(v, p + 8, sizeof(v));
	for (k = 0; k < pt->ncpu * pt->nev; k++)
		if (pt->ids[k] == v[3]) {
			t->v[k % pt->nev] += v[0];	/* per CPU: unscaled */
			t->ended = 1;
		}
}

/* Reads what ring r holds. */
static void
pt_drain_ring(struct perthread *pt, void *r)
{
	struct perf_event_mmap_page *mp = r;
	const unsigned char *data = (const unsigned char *)r +
	    mp->data_offset;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail, size = mp->data_size, i;
	unsigned char rec[65536];
	struct perf_event_header h;

	while (tail + sizeof(h) <= head) {
		for (i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(tail + i) % size];
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		for (i = 0; i < h.size; i++)
			rec[i] = data[(tail + i) % size];
		pt_record(pt, &h, rec + sizeof(h));
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

static void
pt_drain(struct perthread *pt)
{
	int c;

	for (c = 0; c < pt->ncpu; c++)
		pt_drain_ring(pt, pt->ring[c]);
}

static int
cmp_thr(const void *a, const void *b)
{
	const struct thr *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* A thread unnamed by COMM is called as its process, else as the
 * command. */
static const char *
pt_name(const struct perthread *pt, const struct thr *t, const char *cmd)
{
	const char *s = strrchr(cmd, '/');
	size_t i;

	if (t->name[0] != '\0')
		return t->name;
	for (i = 0; i < pt->n; i++)
		if (pt->t[i].tid == t->pid && pt->t[i].name[0] != '\0')
			return pt->t[i].name;
	return s != NULL ? s + 1 : cmd;
}

/* The thread of the counter opened gets the totals less the others'
 * counts: the one thread known without a READ record.  Its index, or
 * SIZE_MAX when there is not one such thread (the others' records
 * lost: said). */
static size_t
pt_remainder(struct perthread *pt, int nev, const uint64_t *total)
{
	size_t i, first = SIZE_MAX, none = 0;
	int k;

	for (i = 0; i < pt->n; i++)
		if (!pt->t[i].ended) {
			first = i;
			none++;
		}
	if (none != 1) {
		fprintf(stderr, "%s: --per-thread: %zu threads without their "
		    "counts (records lost%s): the rows do not add up to the "
		    "totals\n", prog, none, pt->nomem ? ", out of memory" :
		    "");
		return SIZE_MAX;
	}
	pt->t[first].ended = 1;
	for (k = 0; k < nev; k++) {
		pt->t[first].v[k] = total[k];
		for (i = 0; i < pt->n; i++)
			if (i != first)
				pt->t[first].v[k] -= pt->t[i].v[k];
	}
	return first;
}

/* The rows per thread. */
static void
pt_print(struct perthread *pt, const struct clockopts *o, pid_t pid,
    const uint64_t *total)
{
	char name[64];
	size_t i;
	int k;

	if (thr_of(pt, (uint32_t)pid, (uint32_t)pid) == NULL) {
		fprintf(stderr, "%s: --per-thread: out of memory\n", prog);
		return;
	}
	pt_remainder(pt, o->nev, total);
	qsort(pt->t, pt->n, sizeof(*pt->t), cmp_thr);
	fprintf(stderr, "%8s %8s  %-16s %20s  %s\n", "pid", "tid", "name",
	    "count", "event");
	for (i = 0; i < pt->n; i++) {
		if (!pt->t[i].ended)
			continue;
		pme_escape(name, sizeof(name), pt_name(pt, &pt->t[i],
		    o->argv[0]));
		for (k = 0; k < o->nev; k++)
			fprintf(stderr, "%8u %8u  %-16s %20llu  %s\n",
			    pt->t[i].pid, pt->t[i].tid, name,
			    (unsigned long long)pt->t[i].v[k],
			    o->ev[k].spec.name);
	}
	if (pt->lost > 0)
		fprintf(stderr, "%s: --per-thread: %llu records lost (a ring "
		    "was full)\n", prog, (unsigned long long)pt->lost);
}

static void
pt_close(struct perthread *pt)
{
	int c;

	for (c = 0; pt->ring != NULL && c < pt->ncpu; c++)
		if (pt->ring[c] != NULL)
			munmap(pt->ring[c], pt->len);
	free(pt->ring);
	free(pt->ids);
	free(pt->t);
}

/* Waits for the command, reading the ring while it runs when there is
 * one; the pid reaped, or -1. */
static pid_t
wait_command(struct child *c, struct perthread *pt, int *st,
    struct rusage *ru)
{
	struct pollfd pfd;
	char buf[64];
	pid_t p;

	if (pt->ring == NULL) {
		while ((p = wait4(c->pid, st, 0, ru)) < 0 && errno == EINTR)
			;
		return p;
	}
	/* The rings are read every 10 ms: a thread's records are 48 bytes
	 * an event, so some 10,000 threads may end between two reads. */
	pfd.fd = c->sigfd;
	pfd.events = POLLIN;
	for (;;) {
		pt_drain(pt);
		while ((p = wait4(c->pid, st, WNOHANG, ru)) < 0 &&
		    errno == EINTR)
			;
		if (p != 0)
			break;
		if (poll(&pfd, 1, 10) < 0 && errno != EINTR)
			return -1;
		while (read(c->sigfd, buf, sizeof(buf)) > 0)
			;
	}
	pt_drain(pt);
	return p;
}

int
count_run(struct clockopts *o)
{
	struct counters ct;
	int k, ek, rc, st;
	uint64_t t0, t1, total[PME_EVENTS_MAX];
	struct perthread pt;
	struct rusage ru;
	struct child c;
	char name[256];
	pid_t p;

	memset(&pt, 0, sizeof(pt));
	ct.nev = o->nev;
	ct.ncpu = o->per_thread ? (int)sysconf(_SC_NPROCESSORS_CONF) : 1;
	ct.percpu = o->per_thread;
	if (ct.ncpu < 1 || (ct.fd = calloc((size_t)(ct.ncpu * ct.nev),
	    sizeof(*ct.fd))) == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	setenv("PMECLOCK_ACTIVE", "1", 1);
	if (child_fork(o, &c) < 0) {
		free(ct.fd);
		return 1;
	}
	/* Kernel counts too where the kernel allows them, as perf stat. */
	for (ek = 0; ek < 2; ek++) {
		if (open_counters(o, c.pid, ek, &ct) == 0)
			break;
		if (ek == 1 || (errno != EACCES && errno != EPERM)) {
			fprintf(stderr, "%s: perf_event_open: %s\n", prog,
			    strerror(errno));
			child_abandon(&c);
			free(ct.fd);
			return 1;
		}
	}
	if (o->per_thread && pt_open(&pt, &ct) == -1) {
		child_abandon(&c);
		rc = 1;
		goto out;
	}
	t0 = now_mono();
	if ((rc = child_go(&c)) != 0) {
		while (waitpid(c.pid, NULL, 0) < 0 && errno == EINTR)
			;
		goto out;
	}
	p = wait_command(&c, &pt, &st, &ru);
	t1 = now_mono();
	if (p != c.pid) {
		fprintf(stderr, "%s: wait4: %s\n", prog, strerror(errno));
		rc = 1;
		goto out;
	}
	c.status = pme_exit_status(st);
	pme_escape(name, sizeof(name), o->argv[0]);
	fprintf(stderr, "\n%s: counts of '%s' (exit status %d):\n\n", prog,
	    name, c.status);
	for (k = 0; k < o->nev; k++)
		print_count(o, k, &ct, &total[k]);
	if (o->per_thread) {
		fputc('\n', stderr);
		pt_print(&pt, o, c.pid, total);
	}
	fprintf(stderr, "\n%20.6f  seconds wall time\n%20.6f  seconds user\n"
	    "%20.6f  seconds sys\n\n", (double)(t1 - t0) / 1e9,
	    seconds(&ru.ru_utime), seconds(&ru.ru_stime));
	rc = c.status;
out:
	for (k = 0; k < ct.ncpu * ct.nev; k++)
		close(ct.fd[k]);
	free(ct.fd);
	pt_close(&pt);
	return rc;
}
