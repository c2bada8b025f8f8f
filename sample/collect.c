/*
 * collect.c - pmeclock's side of the preload method: the command runs
 * with libpmeclock preloaded (LD_PRELOAD) and told by the environment
 * where to send its records: one end of a SOCK_SEQPACKET socket pair,
 * which every process of the run inherits across fork and exec.  Each
 * message is one packet, so the processes' messages never interleave;
 * pmeclock writes them all into one sample file, as the perf method does.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "clock.h"
#include "prog.h"
#include "proto.h"
#include "setid.h"
#include "util.h"

/* What a thread (or with tid 0 a process) gave and used. */
struct tally {
	uint32_t	 pid, tid;
	uint64_t	 n, weight;	/* samples */
	uint64_t	 cpu, taken;	/* PMECLOCK_MSG_CPU */
	uint32_t	 flags;
	int		 has_cpu;
};

/* A process of the run. */
struct proc {
	uint32_t	 pid;
	uint32_t	 method;
	char		 comm[17];
	char		*exec;		/* exec'd, not heard of since */
	uint32_t	 exec_kind, exec_id;
	int		 started;	/* its runtime said hello or fork */
	int		 ended;		/* and bye */
};

struct collector {
	struct clockopts *o;
	struct pme_samplewriter *w;
	uint32_t	 mainpid;
	uint32_t	*pids;		/* processes that said hello */
	size_t		 npids;
	uint32_t	*tids;
	size_t		 ntids, captids;
	struct tally	*tallies;
	size_t		 ntallies, captallies, lasttally;
	struct proc	*procs;
	size_t		 nprocs, capprocs;
	uint64_t	 samples, lost;
	int		 hello_main;
	int		 failed;
	struct pme_error err;		/* the first error, when failed */
	uint32_t	 clockev;	/* the runtime's samples' event: the
					   clock's index in the header */
};

static int sock = -1, child_end = -1;

int
collect_prepare(struct clockopts *o, const char *runtime,
    struct pme_error *err)
{
	const char *old = getenv("LD_PRELOAD");
	char buf[64], *pre;
	int sv[2], sz = 4 << 20;

	if (access(runtime, R_OK) < 0)
		return pme_seterr(err, PME_EIO, "'%s': the runtime for the %s "
		    "method: %s", runtime, o->method == PME_METHOD_ITIMER ?
		    "itimer" : "timer", strerror(errno));
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return pme_seterr(err, PME_EIO, "socketpair: %s",
		    strerror(errno));
	sock = sv[0];
	child_end = sv[1];
	fcntl(child_end, F_SETFD, 0);
	setsockopt(child_end, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	snprintf(buf, sizeof(buf), "%d", child_end);
	setenv("PMECLOCK_FD", buf, 1);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)o->period);
	setenv("PMECLOCK_PERIOD", buf, 1);
	snprintf(buf, sizeof(buf), "%d", o->jitter < 0 ? 30 : o->jitter);
	setenv("PMECLOCK_JITTER", buf, 1);
	setenv("PMECLOCK_METHOD", o->method == PME_METHOD_ITIMER ? "itimer" :
	    "timer", 1);
	/* -e alloc: the heap recorded, its stacks as -G says; no clock
	 * unless one is asked too. */
	if (o->heap)
		setenv("PMECLOCK_HEAP", o->callgraph == CALLGRAPH_FP ? "fp" :
		    "dwarf", 1);
	else
		unsetenv("PMECLOCK_HEAP");
	if (o->heap && !o->clock)
		setenv("PMECLOCK_NOCLOCK", "1", 1);
	else
		unsetenv("PMECLOCK_NOCLOCK");
	if (o->callchain)
		setenv("PMECLOCK_CALLCHAIN", o->callgraph == CALLGRAPH_DWARF ?
		    "dwarf" : "1", 1);
	else
		unsetenv("PMECLOCK_CALLCHAIN");
	if ((pre = malloc(strlen(runtime) + (old ? strlen(old) : 0) + 2)) ==
	    NULL)
		return pme_setnomem(err);
	strcpy(pre, runtime);
	if (old != NULL && *old != '\0') {
		strcat(pre, ":");
		strcat(pre, old);
	}
	setenv("LD_PRELOAD", pre, 1);
	free(pre);
	return 0;
}

static void
add_tid(struct collector *co, uint32_t tid)
{
	size_t i;
	void *p;

	for (i = co->ntids; i-- > 0; )
		if (co->tids[i] == tid)
			return;
	if (co->ntids == co->captids) {
		if ((p = realloc(co->tids, (co->captids * 2 + 64) *
		    sizeof(*co->tids))) == NULL)
			return;
		co->tids = p;
		co->captids = co->captids * 2 + 64;
	}
	co->tids[co->ntids++] = tid;
}

/* The record of (pid, tid), made if new and add is set; NULL when there
 * is none or no memory. */
static struct tally *
tally(struct collector *co, uint32_t pid, uint32_t tid, int add)
{
	struct tally *a;
	size_t i;
	void *p;

	if (co->lasttally < co->ntallies) {
		a = &co->tallies[co->lasttally];
		if (a->pid == pid && a->tid == tid)
			return a;
	}
	for (i = co->ntallies; i-- > 0; )
		if (co->tallies[i].pid == pid && co->tallies[i].tid == tid) {
			co->lasttally = i;
			return &co->tallies[i];
		}
	if (!add)
		return NULL;
	if (co->ntallies == co->captallies) {
		if ((p = realloc(co->tallies, (co->captallies * 2 + 64) *
		    sizeof(*co->tallies))) == NULL)
			return NULL;
		co->tallies = p;
		co->captallies = co->captallies * 2 + 64;
	}
	a = &co->tallies[co->ntallies];
	memset(a, 0, sizeof(*a));
	a->pid = pid;
	a->tid = tid;
	co->lasttally = co->ntallies;
	return &co->tallies[co->ntallies++];
}

static struct proc *
proc(struct collector *co, uint32_t pid, int add)
{
	struct proc *pr;
	size_t i;
	void *p;

	for (i = co->nprocs; i-- > 0; )
		if (co->procs[i].pid == pid)
			return &co->procs[i];
	if (!add)
		return NULL;
	if (co->nprocs == co->capprocs) {
		if ((p = realloc(co->procs, (co->capprocs * 2 + 16) *
		    sizeof(*co->procs))) == NULL)
			return NULL;
		co->procs = p;
		co->capprocs = co->capprocs * 2 + 16;
	}
	pr = &co->procs[co->nprocs++];
	memset(pr, 0, sizeof(*pr));
	pr->pid = pid;
	pr->method = (uint32_t)co->o->method;
	return pr;
}

/* The run's first error is kept, and said by collect_run() once the
 * run stops recording: the one place that prints it. */
static void
cerr(struct collector *co, const struct pme_error *err)
{
	if (!co->failed)
		co->err = *err;
	co->failed = 1;
}

/* Whether pid was seen before; it is from now on. */
static int
seen_pid(struct collector *co, uint32_t pid)
{
	size_t i;
	void *p;

	for (i = 0; i < co->npids; i++)
		if (co->pids[i] == pid)
			return 1;
	if ((p = realloc(co->pids, (co->npids + 1) * sizeof(*co->pids))) !=
	    NULL) {
		co->pids = p;
		co->pids[co->npids++] = pid;
	}
	return 0;
}

static void
on_hello(struct collector *co, const struct pmeclock_hello *h, size_t len)
{
	struct pme_thread t;
	struct pme_error err;
	struct proc *pr;
	char comm[17];
	const char *note = (const char *)(h + 1);

	memcpy(comm, h->comm, 16);
	comm[16] = '\0';
	memset(&t, 0, sizeof(t));
	t.pid = t.tid = h->hdr.pid;
	t.time = h->time;
	if (!seen_pid(co, h->hdr.pid)) {
		/* A process started without fork(3) (posix_spawn,
		 * vfork): its birth is told here. */
		if (h->hdr.pid != co->mainpid && h->ppid != 0) {
			t.kind = PME_THREAD_FORK;
			t.ppid = t.ptid = h->ppid;
			if (pme_samplewriter_thread(co->w, &t, &err) < 0)
				cerr(co, &err);
		}
	}
	if (h->hdr.pid == co->mainpid)
		co->hello_main = 1;
	if ((pr = proc(co, h->hdr.pid, 1)) != NULL) {
		pr->started = 1;
		pr->method = h->method;
		memcpy(pr->comm, comm, sizeof(pr->comm));
		free(pr->exec);
		pr->exec = NULL;
	}
	t.kind = PME_THREAD_EXEC;
	t.ppid = t.ptid = 0;
	t.name = comm;
	add_tid(co, t.tid);
	if (pme_samplewriter_thread(co->w, &t, &err) < 0)
		cerr(co, &err);
	if (len > sizeof(*h) && note[0] != '\0' && !co->o->quiet &&
	    memchr(note, '\0', len - sizeof(*h)) != NULL)
		fprintf(stderr, "%s: process %u: %s\n", prog, h->hdr.pid,
		    note);
}

static void
on_map(struct collector *co, const struct pmeclock_map *mm, size_t len)
{
	struct pme_mapping m;
	struct pme_error err;
	const char *path = (const char *)(mm + 1);

	if (len <= sizeof(*mm) || memchr(path, '\0', len - sizeof(*mm)) ==
	    NULL || mm->idlen > sizeof(mm->buildid))
		return;
	memset(&m, 0, sizeof(m));
	m.pid = mm->hdr.pid;
	m.flags = mm->flags;
	m.time = mm->time;
	m.start = mm->start;
	m.end = mm->end;
	m.offset = mm->offset;
	m.vaddr = mm->vaddr;
	m.path = path;
	m.buildid = mm->idlen ? mm->buildid : NULL;
	m.buildid_len = mm->idlen;
	/* The runtime names the vDSO "[vdso]": its image's file (vdso.c). */
	if (strcmp(path, "[vdso]") == 0 &&
	    (m.path = vdso_file_id(mm->buildid, mm->idlen)) == NULL)
		return;
	if (pme_samplewriter_mapping(co->w, &m, &err) < 0)
		cerr(co, &err);
}

static void
on_thread(struct collector *co, const struct pmeclock_thread *mt,
    size_t len)
{
	struct pme_thread t;
	struct pme_error err;
	struct proc *parent, *child;
	const char *name = (const char *)(mt + 1);

	if (len <= sizeof(*mt) || memchr(name, '\0', len - sizeof(*mt)) ==
	    NULL)
		return;
	memset(&t, 0, sizeof(t));
	t.kind = mt->kind;
	t.pid = mt->hdr.pid;
	t.tid = mt->tid;
	t.ppid = mt->ppid;
	t.ptid = mt->ptid;
	t.time = mt->time;
	t.name = name[0] ? name : NULL;
	if (t.kind == PME_THREAD_COMM && t.name == NULL)
		t.name = "";
	if (t.kind == PME_THREAD_FORK && t.tid == t.pid) {
		seen_pid(co, t.pid);
		/* Both made first: making one may move the other. */
		if (proc(co, t.pid, 1) != NULL &&
		    proc(co, t.ppid, 1) != NULL) {
			child = proc(co, t.pid, 0);
			parent = proc(co, t.ppid, 0);
			child->method = parent->method;
			child->started = 1;
			memcpy(child->comm, parent->comm, sizeof(child->comm));
		}
	}
	add_tid(co, t.tid);
	if (pme_samplewriter_thread(co->w, &t, &err) < 0)
		cerr(co, &err);
}

static void
count(struct collector *co, uint32_t pid, uint32_t tid, uint64_t weight)
{
	struct tally *a;

	if ((a = tally(co, pid, tid, 1)) != NULL) {
		a->n++;
		a->weight += weight;
	}
	if ((a = tally(co, pid, 0, 1)) != NULL) {
		a->n++;
		a->weight += weight;
	}
}

static void
on_samples(struct collector *co, const uint8_t *buf, size_t len)
{
	const struct pmeclock_samples *ms = (const void *)buf;
	struct pmeclock_rec r;
	struct pme_sample s;
	struct pme_error err;
	uint64_t frames[PMECLOCK_MAXFRAMES];
	size_t off = sizeof(*ms), fl;
	uint32_t i;

	for (i = 0; i < ms->n && off + sizeof(r) <= len; i++) {
		memcpy(&r, buf + off, sizeof(r));
		off += sizeof(r);
		if (r.nframes > PMECLOCK_MAXFRAMES)
			return;
		fl = r.nframes * sizeof(uint64_t);
		if (off + fl > len)
			return;
		memcpy(frames, buf + off, fl);
		off += fl;
		memset(&s, 0, sizeof(s));
		s.pc = r.pc;
		s.time = r.time;
		s.weight = r.weight;
		s.pid = ms->hdr.pid;
		s.tid = r.tid;
		s.cpu = r.cpu;
		s.nframes = r.nframes;
		s.frames = frames;
		s.flags = r.flags & PME_SAMPLE_TRUNCATED;
		s.event = co->clockev;
		add_tid(co, r.tid);
		count(co, s.pid, r.tid, r.weight);
		co->samples++;
		if (pme_samplewriter_sample(co->w, &s, &err) < 0)
			cerr(co, &err);
	}
}

/* A process image ends: its main thread's exit. */
static void
on_bye(struct collector *co, const struct pmeclock_bye *b)
{
	struct pme_thread t;
	struct pme_error err;

	struct proc *pr;

	co->lost += b->lost;
	if ((pr = proc(co, b->hdr.pid, 0)) != NULL) {
		pr->ended = 1;
		free(pr->exec);
		pr->exec = NULL;
	}
	if (co->o->verbose)
		fprintf(stderr, "%s: process %u: %llu samples, %llu lost\n",
		    prog, b->hdr.pid, (unsigned long long)b->samples,
		    (unsigned long long)b->lost);
	memset(&t, 0, sizeof(t));
	t.kind = PME_THREAD_EXIT;
	t.pid = t.tid = b->hdr.pid;
	t.time = b->time;
	if (pme_samplewriter_thread(co->w, &t, &err) < 0)
		cerr(co, &err);
}

static void
on_cpu(struct collector *co, const struct pmeclock_cpu *m)
{
	struct tally *a;

	if ((a = tally(co, m->hdr.pid, m->tid, 1)) == NULL)
		return;
	a->cpu += m->cpu;
	a->taken = m->taken;
	a->flags |= m->flags;
	a->has_cpu = 1;
}

static void
on_exec(struct collector *co, const struct pmeclock_exec *m, size_t len)
{
	const char *path = (const char *)(m + 1);
	struct proc *pr;

	if (len <= sizeof(*m) || memchr(path, '\0', len - sizeof(*m)) ==
	    NULL || (pr = proc(co, m->hdr.pid, 1)) == NULL)
		return;
	free(pr->exec);
	pr->exec = strdup(path);
	pr->exec_kind = m->flags;
	pr->exec_id = m->id;
}

/* Heap records (-e alloc): a chunk of the file as the runtime made it. */
static void
on_heap(struct collector *co, const uint8_t *buf, size_t len)
{
	struct pme_error err;

	if (len > sizeof(struct pmeclock_msg) &&
	    pme_samplewriter_heap(co->w, buf + sizeof(struct pmeclock_msg),
	    len - sizeof(struct pmeclock_msg), &err) < 0)
		cerr(co, &err);
}

/* Reads the packets waiting; 0, or -1 at the end of the stream. */
static int
receive(struct collector *co)
{
	static uint64_t buf[PMECLOCK_HEAP_MAX / 8 + 1];
	const struct pmeclock_msg *h = (const void *)buf;
	ssize_t n;

	for (;;) {
		n = recv(sock, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		if (n == 0)
			return -1;
		if ((size_t)n < sizeof(*h) || h->size != (size_t)n)
			continue;
		switch (h->type) {
		case PMECLOCK_MSG_HELLO:
			if ((size_t)n >= sizeof(struct pmeclock_hello))
				on_hello(co, (const void *)buf, (size_t)n);
			break;
		case PMECLOCK_MSG_MAP:
			on_map(co, (const void *)buf, (size_t)n);
			break;
		case PMECLOCK_MSG_THREAD:
			on_thread(co, (const void *)buf, (size_t)n);
			break;
		case PMECLOCK_MSG_SAMPLES:
			if ((size_t)n >= sizeof(struct pmeclock_samples))
				on_samples(co, (const uint8_t *)buf,
				    (size_t)n);
			break;
		case PMECLOCK_MSG_BYE:
			if ((size_t)n >= sizeof(struct pmeclock_bye))
				on_bye(co, (const void *)buf);
			break;
		case PMECLOCK_MSG_CPU:
			if ((size_t)n >= sizeof(struct pmeclock_cpu))
				on_cpu(co, (const void *)buf);
			break;
		case PMECLOCK_MSG_HEAP:
			on_heap(co, (const uint8_t *)buf, (size_t)n);
			break;
		case PMECLOCK_MSG_EXEC:
			if ((size_t)n >= sizeof(struct pmeclock_exec))
				on_exec(co, (const void *)buf, (size_t)n);
			break;
		default:
			break;
		}
	}
}

#define REPORT_MAX	10	/* lines of threads and processes */

/*
 * Why a thread or process gave fewer samples than its CPU time, from
 * what its runtime saw; pr->method is the method that sampled it.
 */
static void
why(const struct proc *pr, const struct tally *a, const struct tally *pa,
    char *buf, size_t n)
{
	uint32_t pf = pa != NULL ? pa->flags : 0;

	if (pf & PMECLOCK_CPU_REPLACED)
		snprintf(buf, n, "the program replaced the runtime's signal "
		    "handler (by a call the runtime does not interpose)");
	else if (a->flags & PMECLOCK_CPU_BLOCKED)
		snprintf(buf, n, "its signals were blocked (by a call the "
		    "runtime does not interpose)");
	else if (pf & (PMECLOCK_CPU_HANDLER | PMECLOCK_CPU_ITIMER))
		snprintf(buf, n, "after %.2f s it %s, and ITIMER_PROF is the "
		    "program's: -m timer or -m perf sample it",
		    (double)pa->taken / 1e9, (pf & PMECLOCK_CPU_HANDLER) ?
		    "installed its own SIGPROF handler" :
		    "set ITIMER_PROF itself");
	else if (pr->method == PME_METHOD_ITIMER)
		snprintf(buf, n, "SIGPROF signals were lost (one pending "
		    "absorbs the next: a busy machine?)");
	else
		snprintf(buf, n, "cause not known");
}

/*
 * The threads (timer method) and processes (itimer) whose samples stand
 * for much less CPU time than they used: at least three intervals and
 * half of it unseen.  A thread's last interval is always partly unseen
 * (the timers fire at the kernel's tick), and ITIMER_PROF loses signals
 * on a busy machine, hence the margins.
 */
static void
report_cpu(struct collector *co)
{
	uint64_t period = co->o->period, unseen, more = 0;
	const struct tally *a, *pa;
	const struct proc *pr;
	char reason[256];
	size_t i, lines = 0, nmore = 0;

	for (i = 0; i < co->ntallies; i++) {
		a = &co->tallies[i];
		if (!a->has_cpu || a->cpu <= a->weight ||
		    (pr = proc(co, a->pid, 0)) == NULL)
			continue;
		/* Per thread for the timer method, per process for
		 * ITIMER_PROF, which samples the thread that runs. */
		if ((a->tid == 0) != (pr->method == PME_METHOD_ITIMER))
			continue;
		unseen = a->cpu - a->weight;
		if (unseen < 3 * period || unseen * 2 < a->cpu)
			continue;
		if (lines++ == REPORT_MAX) {
			nmore = 1;
			more = unseen;
			continue;
		} else if (lines > REPORT_MAX) {
			nmore++;
			more += unseen;
			continue;
		}
		pa = tally(co, a->pid, 0, 0);
		why(pr, a, pa, reason, sizeof(reason));
		if (a->tid == 0)
			fprintf(stderr, "%s: '%s' (pid %u) used %.2f s of CPU "
			    "and gave %llu samples (%.2f s unseen): %s\n",
			    prog, pr->comm, a->pid, (double)a->cpu / 1e9,
			    (unsigned long long)a->n, (double)unseen / 1e9,
			    reason);
		else
			fprintf(stderr, "%s: thread %u of '%s' (pid %u) used "
			    "%.2f s of CPU and gave %llu samples (%.2f s "
			    "unseen): %s\n", prog, a->tid, pr->comm, a->pid,
			    (double)a->cpu / 1e9, (unsigned long long)a->n,
			    (double)unseen / 1e9, reason);
	}
	if (nmore > 0)
		fprintf(stderr, "%s: and %zu more with %.2f s of CPU unseen\n",
		    prog, nmore, (double)more / 1e9);
}

/* The processes that exec'd and were not heard of since: not entered. */
static void
report_execs(struct collector *co)
{
	const struct proc *pr;
	size_t i;

	for (i = 0; i < co->nprocs; i++) {
		pr = &co->procs[i];
		/* Still running: recorded no further, as documented. */
		if (pr->exec == NULL || pme_pid_alive(pr->pid))
			continue;
		if (pr->exec_kind == SETID_UID || pr->exec_kind == SETID_GID)
			fprintf(stderr, "%s: process %u exec'd '%s', a "
			    "set-%s-ID program (%s %u): the dynamic linker "
			    "ignores LD_PRELOAD for it, so it was not "
			    "sampled\n", prog, pr->pid, pr->exec,
			    pr->exec_kind == SETID_UID ? "user" : "group",
			    pr->exec_kind == SETID_UID ? "owner uid" : "gid",
			    pr->exec_id);
		else if (pr->exec_kind == SETID_CAPS)
			fprintf(stderr, "%s: process %u exec'd '%s', a program "
			    "with file capabilities: the dynamic linker "
			    "ignores LD_PRELOAD for it, so it was not "
			    "sampled\n", prog, pr->pid, pr->exec);
		else
			fprintf(stderr, "%s: process %u exec'd '%s' and was "
			    "not sampled after (a statically linked program, "
			    "or its environment lost the runtime?)\n", prog,
			    pr->pid, pr->exec);
	}
}

/* The processes whose runtime never said bye: killed by SIGKILL, or
 * they closed its socket; what the runtime held was lost. */
static void
report_unended(struct collector *co)
{
	const struct proc *pr;
	size_t i;

	for (i = 0; i < co->nprocs; i++) {
		pr = &co->procs[i];
		if (!pr->started || pr->ended || pr->exec != NULL ||
		    pme_pid_alive(pr->pid))
			continue;
		fprintf(stderr, "%s: process %u ('%s') ended without its "
		    "runtime's last records: killed by SIGKILL (the samples "
		    "of its last 100 ms lost), or it closed the runtime's "
		    "socket (its samples from then on lost)\n", prog,
		    pr->pid, pr->comm);
	}
}

static void
free_collector(struct collector *co)
{
	size_t i;

	for (i = 0; i < co->nprocs; i++)
		free(co->procs[i].exec);
	free(co->procs);
	free(co->tallies);
	free(co->pids);
	free(co->tids);
}

int
collect_run(struct clockopts *o, struct child *c, struct pme_samplewriter *w,
    struct pme_sample_close *cl)
{
	struct collector co;
	struct pollfd pfd[2];
	struct pme_error err;
	uint64_t last;
	int rc, done = 0, eof = 0;

	close(child_end);
	child_end = -1;
	memset(&co, 0, sizeof(co));
	co.o = o;
	co.w = w;
	co.mainpid = (uint32_t)c->pid;
	/* -e alloc,cpu-clock: the clock is not the header's first event. */
	while ((int)co.clockev + 1 < o->nev && !events_clock(o, (int)co.clockev))
		co.clockev++;
	if ((rc = child_go(c)) != 0) {
		close(sock);
		return rc;
	}
	pfd[0].fd = sock;
	pfd[0].events = POLLIN;
	pfd[1].fd = c->sigfd;
	pfd[1].events = POLLIN;
	last = now_mono();
	while (!done && !co.failed) {
		if (poll(pfd, 2, 250) < 0 && errno != EINTR)
			break;
		done = child_poll(c);
		/* Once the command has ended, what its processes sent
		 * before is all in the socket; processes it left running
		 * are recorded no further. */
		if (!eof && receive(&co) < 0) {
			eof = 1;
			pfd[0].fd = -1;
		}
		if (now_mono() - last >= 1000000000u) {
			if (pme_samplewriter_flush(w, &err) < 0)
				cerr(&co, &err);
			last = now_mono();
		}
	}
	if (co.failed)
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&co.err));
	while (!child_poll(c))
		poll(&pfd[1], 1, -1);
	close(sock);
	if (!co.hello_main && !o->quiet && !o->setid)
		fprintf(stderr, "%s: the runtime did not start in '%s' "
		    "(a static or set-user-ID program?): no samples\n", prog,
		    o->argv[0]);
	if (!o->quiet) {
		if (o->clock)
			report_cpu(&co);
		report_execs(&co);
		report_unended(&co);
	}
	cl->samples = co.samples;
	cl->lost = co.lost;
	cl->threads = (uint32_t)co.ntids;
	free_collector(&co);
	return co.failed ? -1 : 0;
}
