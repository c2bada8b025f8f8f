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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "clock.h"
#include "proto.h"

struct collector {
	struct clockopts *o;
	struct pme_samplewriter *w;
	uint32_t	 mainpid;
	uint32_t	*pids;		/* processes that said hello */
	size_t		 npids;
	uint32_t	*tids;
	size_t		 ntids, captids;
	uint64_t	 samples, lost;
	int		 hello_main;
	int		 failed;
};

static int sock = -1, child_end = -1;

int
collect_prepare(struct clockopts *o, const char *runtime)
{
	const char *old = getenv("LD_PRELOAD");
	char buf[64], *pre;
	int sv[2], sz = 4 << 20;

	if (access(runtime, R_OK) < 0) {
		fprintf(stderr, "%s: '%s': the runtime for the %s method: "
		    "%s\n", prog, runtime, o->method == PME_METHOD_ITIMER ?
		    "itimer" : "timer", strerror(errno));
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		fprintf(stderr, "%s: socketpair: %s\n", prog, strerror(errno));
		return -1;
	}
	sock = sv[0];
	child_end = sv[1];
	fcntl(child_end, F_SETFD, 0);
	setsockopt(child_end, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	snprintf(buf, sizeof(buf), "%d", child_end);
	setenv("PMECLOCK_FD", buf, 1);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)o->period);
	setenv("PMECLOCK_PERIOD", buf, 1);
	setenv("PMECLOCK_METHOD", o->method == PME_METHOD_ITIMER ? "itimer" :
	    "timer", 1);
	if (o->callchain)
		setenv("PMECLOCK_CALLCHAIN", "1", 1);
	else
		unsetenv("PMECLOCK_CALLCHAIN");
	if ((pre = malloc(strlen(runtime) + (old ? strlen(old) : 0) + 2)) ==
	    NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
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

static void
cerr(struct collector *co, const struct pme_error *err)
{
	if (!co->failed)
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(err));
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
	if (pme_samplewriter_mapping(co->w, &m, &err) < 0)
		cerr(co, &err);
}

static void
on_thread(struct collector *co, const struct pmeclock_thread *mt,
    size_t len)
{
	struct pme_thread t;
	struct pme_error err;
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
	if (t.kind == PME_THREAD_FORK && t.tid == t.pid)
		seen_pid(co, t.pid);
	add_tid(co, t.tid);
	if (pme_samplewriter_thread(co->w, &t, &err) < 0)
		cerr(co, &err);
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
		add_tid(co, r.tid);
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

	co->lost += b->lost;
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

/* Reads the packets waiting; 0, or -1 at the end of the stream. */
static int
receive(struct collector *co)
{
	static uint64_t buf[PMECLOCK_MSG_MAX / 8 + 1];
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
		default:
			break;
		}
	}
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
	while (!child_poll(c))
		poll(&pfd[1], 1, -1);
	close(sock);
	if (!co.hello_main && !o->quiet)
		fprintf(stderr, "%s: the runtime did not start in '%s' "
		    "(a static or set-user-ID program?): no samples\n", prog,
		    o->argv[0]);
	cl->samples = co.samples;
	cl->lost = co.lost;
	cl->threads = (uint32_t)co.ntids;
	free(co.pids);
	free(co.tids);
	return co.failed ? -1 : 0;
}
