/*
 * io.c - pmeclock -e io: the I/O system calls of the command, each with
 * its descriptor, its return value (the bytes moved), its time and the
 * user call stack that made it, as the Oracle Analyzer's I/O tracing
 * records them and as strace -c and perf trace -s count them.
 *
 * Two tracepoints, raw_syscalls:sys_enter and sys_exit, per CPU on the
 * command, inherited by its threads and children, filtered in the kernel
 * to the calls traced (PERF_EVENT_IOC_SET_FILTER on the syscall number).
 * The entry carries the arguments and the user registers and stack (or
 * the frame-pointer chain with -G fp); the exit the return value.  A
 * thread is in one system call at a time: its entry waits for its exit,
 * and the two make one record, of duration exit minus entry.
 *
 * Paths: a descriptor is named when an open returns it, by the name the
 * call was given (read from the process's memory when the record is
 * converted, a fraction of a second later; a relative name is made
 * absolute by the process's working directory or the directory
 * descriptor), and /proc/PID/fd/N when that link ends in the same name.
 * A descriptor the run did not see opened (inherited, a pipe, a socket,
 * a dup) is named by /proc/PID/fd/N when first used ("pipe:[1234]",
 * "socket:[5678]", as the kernel names them).  A fork gives the child its
 * parent's names.  See pmeclock(1), I/O.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "clock.h"
#include "measure.h"
#include "perf.h"
#include "unwind.h"
#include "util.h"

#ifdef __x86_64__
#include <asm/perf_regs.h>
#define REG_SP	PERF_REG_X86_SP
#endif

#define IO_FRAMES	256	/* frames of a call kept */

/* The system calls traced, by number. */
static const struct {
	long		 nr;
	uint32_t	 call;
} calls[] = {
	{ SYS_read, PME_IO_READ }, { SYS_write, PME_IO_WRITE },
	{ SYS_pread64, PME_IO_PREAD }, { SYS_pwrite64, PME_IO_PWRITE },
	{ SYS_readv, PME_IO_READV }, { SYS_writev, PME_IO_WRITEV },
	{ SYS_preadv, PME_IO_PREADV }, { SYS_pwritev, PME_IO_PWRITEV },
#ifdef SYS_preadv2
	{ SYS_preadv2, PME_IO_PREADV }, { SYS_pwritev2, PME_IO_PWRITEV },
#endif
#ifdef SYS_open
	{ SYS_open, PME_IO_OPEN },
#endif
	{ SYS_openat, PME_IO_OPENAT },
#ifdef SYS_openat2
	{ SYS_openat2, PME_IO_OPENAT },
#endif
	{ SYS_close, PME_IO_CLOSE }, { SYS_fsync, PME_IO_FSYNC },
	{ SYS_fdatasync, PME_IO_FDATASYNC }, { SYS_sendfile, PME_IO_SENDFILE },
	{ SYS_sendto, PME_IO_SENDTO }, { SYS_recvfrom, PME_IO_RECVFROM },
	{ SYS_sendmsg, PME_IO_SENDMSG }, { SYS_recvmsg, PME_IO_RECVMSG },
};
#define NCALLS	(sizeof(calls) / sizeof(calls[0]))

/*
 * A call's entry waiting for its exit.  The two are on the rings of
 * different events (and of the CPUs the thread was on), which a drain
 * reads one after the other while the program runs on: a drain may read
 * many entries whose exits come only in the next, and (across CPUs) an
 * exit before its entry.  So a thread keeps its entries still without
 * their exit and its exits without their entry, each in time order, up
 * to IO_PENDING_MAX (the oldest dropped: a thread that ended in a call,
 * a record lost); an exit is the call of the thread's latest entry
 * before it (a thread makes one system call at a time).
 */
#define IO_PENDING_MAX	65536

struct iopend {
	uint32_t	 pid, tid;
	long		 nr;
	uint64_t	 args[6];
	uint64_t	 time;
	uint64_t	 pc;
	uint32_t	 flags;
	uint32_t	 nframes;
	uint64_t	*frames;	/* nframes, or NULL */
	char		*name;		/* an open's name from the stack copy,
					   or NULL */
};

struct ioexit {
	long		 nr;
	uint64_t	 ret, time;
};

/*
 * An open's name as the program gave it, at the call: a uprobe of
 * tracefs on the C library's open64 and openat64 (which also open and
 * openat are, and what fopen and the others call), and on glibc's
 * __open_nocancel (opendir's, and the library's own reads of its
 * files: without it a slow reading named a directory python3 listed
 * after a file it opened later) takes the string the name argument
 * points to (breaks.c), for the thread's next open.  The
 * library is pmeclock's own, which the command's dynamic linker finds
 * too; where no probe can be made (not root) or a call comes another
 * way (the dynamic linker's own, a static program, a system call made
 * directly), the name is the stack copy's, else read from the
 * process's memory after the call (stack_name(), open_name()).
 */
#define NNAMES	3

static const struct {
	const char	*fn;
	const char	*reg;		/* the name's argument */
	int		 optional;	/* glibc's alone: none elsewhere */
} nameprobe[NNAMES] = {
	{ "open64", "%di", 0 }, { "openat64", "%si", 0 },
	{ "__open_nocancel", "%di", 1 },
};

struct iothr {
	uint32_t	 pid, tid;
	struct iopend	**ent;		/* by time */
	struct ioexit	*ex;		/* by time */
	size_t		 nent, capent, nex, capex;
	char		*pname;		/* a name probe's, for the next open */
	uint64_t	 ptime;		/* its time */
	uint64_t	 lastent;	/* the time of the latest entry */
};

/* A descriptor's name. */
struct iofd {
	uint32_t	 pid;
	int		 fd;
	char		*path;		/* NULL: looked for, not found */
};

struct iostate {
	uint32_t	 tp[2];		/* the tracepoints' ids */
	struct iothr	**thr;
	size_t		 nthr, capthr;
	struct iofd	*fds;
	size_t		 nfds, capfds;
	uint64_t	 records, unpaired, lost;
	uint64_t	 seen;		/* entries and exits read */
	uint32_t	 nameid[NNAMES];	/* the name probes' ids, or 0 */
	uint32_t	 nameoff[NNAMES];	/* their __data_loc in raw */
	int		 namefd[NNAMES * MAX_CPUS];
	int		 namecpu[NNAMES * MAX_CPUS];
	int		 nnamefd;
	uint64_t	 named;		/* opens named by a probe */
};

static uint32_t
call_of(long nr)
{
	size_t i;

	for (i = 0; i < NCALLS; i++)
		if (calls[i].nr == nr)
			return calls[i].call;
	return 0;
}

int
io_new(struct perfstate *ps)
{
	const char *names[2] = { "raw_syscalls:sys_enter",
	    "raw_syscalls:sys_exit" };
	struct pme_evspec spec;
	struct pme_error err;
	int i;

	if ((ps->io = calloc(1, sizeof(*ps->io))) == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	for (i = 0; i < 2; i++) {
		if (pme_ev_parse(names[i], &spec, NULL, &err) == -1) {
			fprintf(stderr, "%s: -e io: %s\n", prog, err.msg);
			return -1;
		}
		ps->io->tp[i] = (uint32_t)spec.config;
	}
	return 0;
}

void
io_attr(struct perf_event_attr *a, const struct clockopts *o, int k)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_TRACEPOINT;
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	    PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
	if (k == IO_EV_ENTER) {
		if (o->callgraph == CALLGRAPH_DWARF)
			perf_stack_attr(a, o);
		else
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	}
	a->disabled = 1;
	a->inherit = 1;
	a->enable_on_exec = 1;
	a->sample_id_all = 1;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = 4096;
}

uint64_t
io_config(const struct perfstate *ps, int k)
{
	return ps->io->tp[k == IO_EV_ENTER ? 0 : 1];
}

/* The kernel keeps only the calls traced. */
int
io_filter(int fd)
{
	char buf[2048], *p = buf;
	size_t i;

	for (i = 0; i < NCALLS; i++)
		p += snprintf(p, sizeof(buf) - (size_t)(p - buf), "%sid == %ld",
		    i > 0 ? " || " : "", calls[i].nr);
	return ioctl(fd, PERF_EVENT_IOC_SET_FILTER, buf);
}

static struct iothr *
thread_of(struct iostate *io, uint32_t pid, uint32_t tid)
{
	struct iothr *t;
	size_t i;
	void *p;

	for (i = 0; i < io->nthr; i++)
		if (io->thr[i]->tid == tid && io->thr[i]->pid == pid)
			return io->thr[i];
	if ((p = perf_grow(io->thr, &io->capthr, io->nthr + 1,
	    sizeof(*io->thr))) == NULL)
		return NULL;
	io->thr = p;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->pid = pid;
	t->tid = tid;
	return io->thr[io->nthr++] = t;
}

/* How many of t's entries (exits: x) are at or before time. */
static size_t
upto(const struct iothr *t, int x, uint64_t time)
{
	size_t lo = 0, hi = x ? t->nex : t->nent, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if ((x ? t->ex[mid].time : t->ent[mid]->time) <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
entry_drop(struct iothr *t, size_t i)
{
	free(t->ent[i]->frames);
	free(t->ent[i]->name);
	free(t->ent[i]);
	memmove(&t->ent[i], &t->ent[i + 1], (t->nent - i - 1) *
	    sizeof(*t->ent));
	t->nent--;
}

/* A new entry at time in t's queue, the oldest dropped when it is full;
 * its index in *at, or NULL (no memory). */
static struct iopend *
entry_new(struct iostate *io, struct iothr *t, uint64_t time, size_t *at)
{
	struct iopend *e;
	size_t i;
	void *p;

	if (t->nent == IO_PENDING_MAX) {
		io->unpaired++;
		entry_drop(t, 0);
	}
	if ((p = perf_grow(t->ent, &t->capent, t->nent + 1, sizeof(*t->ent))) ==
	    NULL || (e = calloc(1, sizeof(*e))) == NULL)
		return NULL;
	t->ent = p;
	i = upto(t, 0, time);
	memmove(&t->ent[i + 1], &t->ent[i], (t->nent - i) * sizeof(*t->ent));
	t->ent[i] = e;
	t->nent++;
	e->pid = t->pid;
	e->tid = t->tid;
	e->time = time;
	*at = i;
	return e;
}

/* An exit without its entry yet, kept in time order. */
static void
exit_keep(struct iostate *io, struct iothr *t, long nr, uint64_t ret,
    uint64_t time)
{
	size_t i;
	void *p;

	if (t->nex == IO_PENDING_MAX) {
		io->unpaired++;
		memmove(&t->ex[0], &t->ex[1], --t->nex * sizeof(*t->ex));
	}
	if ((p = perf_grow(t->ex, &t->capex, t->nex + 1, sizeof(*t->ex))) == NULL)
		return;
	t->ex = p;
	i = upto(t, 1, time);
	memmove(&t->ex[i + 1], &t->ex[i], (t->nex - i) * sizeof(*t->ex));
	t->ex[i].nr = nr;
	t->ex[i].ret = ret;
	t->ex[i].time = time;
	t->nex++;
}

/* Copies n frames into e. */
static void
set_frames(struct iopend *e, const uint64_t *f, uint32_t n)
{
	if (n > IO_FRAMES) {
		n = IO_FRAMES;
		e->flags |= PME_IO_TRUNCATED;
	}
	if (n == 0 || (e->frames = malloc(n * sizeof(*f))) == NULL)
		return;
	memcpy(e->frames, f, n * sizeof(*f));
	e->nframes = n;
}

/* ------------------------------------------------------------- names */

static struct iofd *
fd_find(struct iostate *io, uint32_t pid, int fd)
{
	size_t i;

	for (i = io->nfds; i-- > 0; )
		if (io->fds[i].fd == fd && io->fds[i].pid == pid)
			return &io->fds[i];
	return NULL;
}

/* Names descriptor fd of pid path (NULL: unknown), replacing its name. */
static struct iofd *
fd_name_set(struct iostate *io, uint32_t pid, int fd, const char *path)
{
	struct iofd *f;
	void *p;

	if ((f = fd_find(io, pid, fd)) == NULL) {
		if ((p = perf_grow(io->fds, &io->capfds, io->nfds + 1,
		    sizeof(*io->fds))) == NULL)
			return NULL;
		io->fds = p;
		f = &io->fds[io->nfds++];
		f->pid = pid;
		f->fd = fd;
	} else
		free(f->path);
	f->path = path != NULL ? strdup(path) : NULL;
	return f;
}

static void
fd_drop(struct iostate *io, struct iofd *f)
{
	free(f->path);
	*f = io->fds[--io->nfds];
}

/* The target of /proc/pid/what into buf: its length, or -1. */
static ssize_t
proc_link(uint32_t pid, const char *what, char *buf, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%u/%s", pid, what);
	if ((n = readlink(link, buf, len - 1)) < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* The string at addr in process pid into buf: 0, or -1. */
static int
peek_str(uint32_t pid, uint64_t addr, char *buf, size_t len)
{
	struct iovec local, remote;
	size_t got = 0, chunk;
	ssize_t n;

	while (got < len - 1) {
		/* Never across a page: the next one may not be mapped. */
		chunk = 4096 - (size_t)((addr + got) & 4095);
		if (chunk > len - 1 - got)
			chunk = len - 1 - got;
		local.iov_base = buf + got;
		local.iov_len = chunk;
		remote.iov_base = (void *)(uintptr_t)(addr + got);
		remote.iov_len = chunk;
		if ((n = process_vm_readv((pid_t)pid, &local, 1, &remote, 1,
		    0)) <= 0)
			return -1;
		if (memchr(buf + got, '\0', (size_t)n) != NULL)
			return 0;
		got += (size_t)n;
	}
	return -1;
}

static const char *
base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

/*
 * The string at addr when it lies in the copy of the user stack taken at
 * the entry (p: the user registers, then the copy): exact, where the
 * process's memory read later may have changed.  Into e->name, or NULL.
 */
static void
stack_name(struct iopend *e, uint64_t addr, const uint8_t *p,
    const uint8_t *end)
{
#ifdef REG_SP
	uint64_t mask = unwind_regs_mask(), size, dyn, sp;
	size_t nregs = (size_t)__builtin_popcountll(mask), n;
	const uint8_t *q = p + 8 + 8 * nregs;

	if (!(mask & 1ull << REG_SP) || end - p < 8 || get64(p) ==
	    PERF_SAMPLE_REGS_ABI_NONE || end - q < 8)
		return;
	sp = get64(p + 8 + 8 * (size_t)__builtin_popcountll(mask &
	    ((1ull << REG_SP) - 1)));
	size = get64(q);
	q += 8;
	if (size == 0 || size > (uint64_t)(end - q) - 8 + 8 ||
	    (uint64_t)(end - q) < size + 8)
		return;
	dyn = get64(q + size);
	if (dyn > size)
		dyn = size;
	if (addr < sp || addr - sp >= dyn)
		return;
	n = strnlen((const char *)q + (addr - sp), (size_t)(dyn - (addr - sp)));
	if (n == dyn - (addr - sp) || n >= PATH_MAX)
		return;
	e->name = strndup((const char *)q + (addr - sp), n);
#else
	(void)e, (void)addr, (void)p, (void)end;
#endif
}

/*
 * Whether name, read from the process's memory after the call, can be
 * the one it gave: printable, valid UTF-8 (pme_escape() leaves it as it
 * is, but for its backslashes).  The memory may have been freed and used
 * again by then: python3's open() of a file named in a bytes object
 * freed as the call returned was read as "\xe4tmp/pro", "\x09", "\x02".
 */
static int
plausible(const char *name)
{
	size_t n = 0;
	const char *s;

	for (s = name; *s != '\0'; s++)
		n += 1 + (*s == '\\');
	return name[0] != '\0' && pme_escape(NULL, 0, name) == n;
}

/* The working directory of pid into dir (or ""): the kernel's, kept
 * (as descriptor AT_FDCWD's name) for when the process has ended: the
 * records of its last calls are converted after (a run's last ones at
 * its end), when a relative name was left as it was. */
static void
cwd_of(struct iostate *io, uint32_t pid, char *dir, size_t len)
{
	struct iofd *d;

	if (proc_link(pid, "cwd", dir, len) > 0)
		(void)fd_name_set(io, pid, AT_FDCWD, dir);
	else if ((d = fd_find(io, pid, AT_FDCWD)) != NULL && d->path != NULL)
		snprintf(dir, len, "%s", d->path);
	else
		dir[0] = '\0';
}

/* The name an open of pid gave (known, or read at addr), dfd its
 * directory, fd what it returned, into out. */
static void
open_name(struct iostate *io, uint32_t pid, long dfd, const char *known,
    uint64_t addr, int fd, char *out, size_t len)
{
	char name[PATH_MAX], dir[PATH_MAX], link[PATH_MAX];
	struct iofd *d;
	ssize_t nl;
	char what[32];

	snprintf(what, sizeof(what), "fd/%d", fd);
	nl = proc_link(pid, what, link, sizeof(link));
	if (known[0] != '\0')
		snprintf(name, sizeof(name), "%s", known);
	else if (peek_str(pid, addr, name, sizeof(name)) == -1 ||
	    !plausible(name))
		name[0] = '\0';
	if (name[0] == '\0') {
		snprintf(out, len, "%s", nl > 0 ? link : "");
		return;
	}
	if (nl > 0 && strcmp(base_of(link), base_of(name)) == 0) {
		snprintf(out, len, "%s", link);
		return;
	}
	dir[0] = '\0';
	if (name[0] != '/') {
		if (dfd == AT_FDCWD)
			cwd_of(io, pid, dir, sizeof(dir));
		else if ((d = fd_find(io, pid, (int)dfd)) != NULL &&
		    d->path != NULL)
			snprintf(dir, sizeof(dir), "%s", d->path);
	}
	if (snprintf(out, len, "%s%s%s", dir, dir[0] ? "/" : "", name) >=
	    (int)len)
		out[0] = '\0';		/* too long to be a path */
}

/* The name of descriptor fd of pid: known, or looked for once. */
static const char *
fd_name(struct iostate *io, uint32_t pid, int fd)
{
	struct iofd *f;
	char what[32], link[PATH_MAX];

	if (fd < 0)
		return NULL;
	if ((f = fd_find(io, pid, fd)) != NULL)
		return f->path;
	snprintf(what, sizeof(what), "fd/%d", fd);
	f = fd_name_set(io, pid, fd, proc_link(pid, what, link, sizeof(link)) > 0 ?
	    link : NULL);
	return f != NULL ? f->path : NULL;
}

void
io_task(struct perfstate *ps, const struct pme_thread *t)
{
	struct iostate *io = ps->io;
	size_t i, n;

	if (t->kind == PME_THREAD_FORK && t->pid != t->ppid) {
		for (i = 0, n = io->nfds; i < n; i++)
			if (io->fds[i].pid == t->ppid && io->fds[i].path != NULL)
				fd_name_set(io, t->pid, io->fds[i].fd,
				    io->fds[i].path);
	} else if (t->kind == PME_THREAD_EXIT && t->pid == t->tid) {
		for (i = io->nfds; i-- > 0; )
			if (io->fds[i].pid == t->pid)
				fd_drop(io, &io->fds[i]);
	}
}

/* ------------------------------------------------------- the records */

static void	emit(struct perfstate *ps, const struct iopend *e,
		    uint64_t ret, uint64_t time);

/* The entry's user stack: from the frame-pointer chain (p: PERF_SAMPLE_
 * CALLCHAIN) unless the unwinder takes it from the registers and stack
 * copy (after the raw data).  Returns p past the chain. */
static const uint8_t *
entry_chain(struct iopend *e, const uint8_t *p, const uint8_t *end)
{
	uint64_t nr, i, ip, f[IO_FRAMES + 1];
	uint32_t n = 0;

	if (end - p < 8)
		return end;
	nr = get64(p);
	p += 8;
	if (nr > (uint64_t)(end - p) / 8)
		return end;
	for (i = 0; i < nr; i++) {
		ip = get64(p + 8 * i);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		if (e->pc == 0)
			e->pc = ip;
		else if (n < IO_FRAMES + 1)
			f[n++] = ip;
	}
	set_frames(e, f, n);
	return p + 8 * nr;
}

static void
entry_unwind(struct perfstate *ps, struct iopend *e, struct pme_sample *s,
    const uint8_t *p, const uint8_t *end)
{
	s->flags = PME_SAMPLE_KERNEL;
	s->nframes = 0;
	conv_stack(ps, s, p, end);
	if (s->nframes > 0) {
		e->pc = s->frames[0];
		set_frames(e, s->frames + 1, s->nframes - 1);
	}
	if (s->flags & PME_SAMPLE_TRUNCATED)
		e->flags |= PME_IO_TRUNCATED;
}

/* The index of the exit kept for t's entry i (the first at or after it,
 * with no entry between them), or SIZE_MAX. */
static size_t
exit_for(const struct iothr *t, size_t i)
{
	const struct iopend *e = t->ent[i];
	size_t x = upto(t, 1, e->time);

	/* upto() counts the exits at e's time too: an exit is later. */
	while (x > 0 && t->ex[x - 1].time >= e->time)
		x--;
	if (x == t->nex || t->ex[x].nr != e->nr || (i + 1 < t->nent &&
	    t->ent[i + 1]->time < t->ex[x].time))
		return SIZE_MAX;
	return x;
}

/* An entry: its arguments and stack kept until its exit. */
static void
enter(struct perfstate *ps, struct pme_sample *s, const uint8_t *p,
    const uint8_t *end)
{
	const uint8_t *chain = p;
	struct iopend *e;
	struct iothr *t;
	size_t at, x;
	uint32_t rsize;
	uint64_t i;

	if ((t = thread_of(ps->io, s->pid, s->tid)) == NULL)
		return;
	/* With -G fp the chain comes before the raw data. */
	if (ps->uw == NULL) {
		if (end - p < 8 || get64(p) > (uint64_t)(end - p - 8) / 8)
			return;
		p += 8 + 8 * get64(p);
	}
	if (end - p < 4 || (rsize = get32(p)) < 64 ||
	    (size_t)rsize > (size_t)(end - p) - 4 ||
	    call_of((long)get64(p + 4 + 8)) == 0)
		return;
	if ((e = entry_new(ps->io, t, s->time, &at)) == NULL)
		return;
	e->nr = (long)get64(p + 4 + 8);
	for (i = 0; i < 6; i++)
		e->args[i] = get64(p + 4 + 16 + 8 * i);
	if (ps->uw == NULL)
		entry_chain(e, chain, end);
	p += (4 + rsize + 7) & ~(size_t)7;
	if ((call_of(e->nr) == PME_IO_OPEN || call_of(e->nr) ==
	    PME_IO_OPENAT) && t->pname != NULL && t->ptime <= e->time &&
	    t->ptime >= t->lastent) {
		e->name = t->pname;	/* the probe's, made at the call */
		t->pname = NULL;
		ps->io->named++;
	} else if (ps->uw != NULL && call_of(e->nr) == PME_IO_OPEN)
		stack_name(e, e->args[0], p, end);
	else if (ps->uw != NULL && call_of(e->nr) == PME_IO_OPENAT)
		stack_name(e, e->args[1], p, end);
	if (t->lastent == 0) {	/* the thread's first: cwd_of() */
		char dir[PATH_MAX];

		cwd_of(ps->io, e->pid, dir, sizeof(dir));
	}
	if (e->time > t->lastent)
		t->lastent = e->time;
	if (ps->uw != NULL)
		entry_unwind(ps, e, s, p, end);
	if ((x = exit_for(t, at)) != SIZE_MAX) {
		emit(ps, e, t->ex[x].ret, t->ex[x].time);
		entry_drop(t, at);
		memmove(&t->ex[x], &t->ex[x + 1], (t->nex - x - 1) *
		    sizeof(*t->ex));
		t->nex--;
	}
}

/* The descriptor a call's arguments name, and for an open the name. */
static void
describe(struct perfstate *ps, const struct iopend *e, int64_t ret,
    struct pme_io *r, char *path, size_t len)
{
	struct iostate *io = ps->io;
	const char *name;
	struct iofd *f;

	path[0] = '\0';
	if (r->call == PME_IO_OPEN || r->call == PME_IO_OPENAT) {
		r->fd = ret >= 0 ? (int32_t)ret : -1;
		if (ret < 0)
			return;
		if (r->call == PME_IO_OPEN)
			open_name(io, e->pid, AT_FDCWD, e->name != NULL ?
			    e->name : "", e->args[0], r->fd, path, len);
		else
			open_name(io, e->pid, (long)(int)e->args[0],
			    e->name != NULL ? e->name : "", e->args[1], r->fd,
			    path, len);
		fd_name_set(io, e->pid, r->fd, path[0] ? path : NULL);
		return;
	}
	/* sendfile(out, in, ...): the file read, in. */
	r->fd = (int32_t)(r->call == PME_IO_SENDFILE ? e->args[1] :
	    e->args[0]);
	if ((name = fd_name(io, e->pid, r->fd)) != NULL)
		snprintf(path, len, "%s", name);
	if (r->call == PME_IO_CLOSE && ret == 0 &&
	    (f = fd_find(io, e->pid, r->fd)) != NULL)
		fd_drop(io, f);
}

/* The record of entry e's call, which returned ret at time. */
static void
emit(struct perfstate *ps, const struct iopend *e, uint64_t ret,
    uint64_t time)
{
	struct pme_error err;
	struct pme_io r;
	char path[PATH_MAX];

	memset(&r, 0, sizeof(r));
	r.pid = e->pid;
	r.tid = e->tid;
	r.call = call_of(e->nr);
	r.flags = e->flags;
	r.ret = (int64_t)ret;
	r.start = e->time;
	r.duration = time >= e->time ? time - e->time : 0;
	r.pc = e->pc;
	r.nframes = e->nframes;
	r.frames = e->frames;
	describe(ps, e, r.ret, &r, path, sizeof(path));
	r.path = path[0] ? path : NULL;
	ps->io->records++;
	if (pme_samplewriter_io(ps->w, &r, &err) < 0)
		perf_werr(ps, &err);
}

/* An exit: the record of its entry's call, or kept for it. */
static void
leave(struct perfstate *ps, const struct pme_sample *s, const uint8_t *p,
    const uint8_t *end)
{
	struct iothr *t;
	uint32_t rsize;
	size_t i;
	long nr;

	if (end - p < 4 || (rsize = get32(p)) < 24 ||
	    (size_t)rsize > (size_t)(end - p) - 4 ||
	    call_of(nr = (long)get64(p + 4 + 8)) == 0 ||
	    (t = thread_of(ps->io, s->pid, s->tid)) == NULL)
		return;
	/* The thread's latest entry at or before the exit. */
	if ((i = upto(t, 0, s->time)) > 0 && t->ent[i - 1]->nr == nr) {
		emit(ps, t->ent[i - 1], get64(p + 4 + 16), s->time);
		entry_drop(t, i - 1);
		return;
	}
	exit_keep(ps->io, t, nr, get64(p + 4 + 16), s->time);
}

/* A name probe's record (in an exit's ring): 1 when r is one, the name
 * kept for its thread's next open; 0 when it is an exit's. */
static int
name_record(struct iostate *io, const uint8_t *p, const uint8_t *end)
{
	const uint8_t *raw = p + 36;
	uint32_t rsize, loc, off, len;
	uint16_t type;
	struct iothr *t;
	char *name;
	int k;

	if (io->nameid[0] == 0 || end - p < 38)
		return 0;
	memcpy(&type, raw, 2);
	for (k = 0; k < NNAMES && io->nameid[k] != type; k++)
		;
	if (k == NNAMES)
		return 0;
	rsize = get32(p + 32);
	if (rsize > (uint64_t)(end - raw) || io->nameoff[k] + 4 > rsize)
		return 1;
	loc = get32(raw + io->nameoff[k]);
	off = loc & 0xffff;
	len = loc >> 16;
	if (len == 0 || off > rsize || len > rsize - off ||
	    raw[off + len - 1] != '\0' ||
	    (t = thread_of(io, get32(p + 8), get32(p + 12))) == NULL ||
	    (name = strdup((const char *)raw + off)) == NULL)
		return 1;
	free(t->pname);
	t->pname = name;
	t->ptime = get64(p + 16);
	return 1;
}

void
io_sample(struct perfstate *ps, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	const uint8_t *end = (const uint8_t *)h + h->size;
	struct pme_sample s;

	if (ps->curev == IO_EV_EXIT && name_record(ps->io, p, end))
		return;
	ps->io->seen++;
	if (end - p < 32)
		return;
	memset(&s, 0, sizeof(s));
	s.pid = get32(p + 8);
	s.tid = get32(p + 12);
	s.time = get64(p + 16);
	add_tid(ps, s.tid);
	if (ps->curev == IO_EV_ENTER)
		enter(ps, &s, p + 32, end);
	else
		leave(ps, &s, p + 32, end);
}

void
io_lost(struct perfstate *ps, uint64_t n)
{
	ps->io->lost += n;
}

/* The C library pmeclock runs on (dl_iterate_phdr()). */
static int
libc_of(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (strstr(info->dlpi_name, "/libc.so.") == NULL)
		return 0;
	snprintf(data, PATH_MAX, "%s", info->dlpi_name);
	return 1;
}

void
io_names_open(struct perfstate *ps, int pid)
{
	struct iostate *io = ps->io;
	char libc[PATH_MAX] = "", cwd[PATH_MAX];
	struct perf_event_attr a;
	struct pme_evspec spec;
	struct pme_error err;
	int cpus[MAX_CPUS], n, k, i;
	long fd;

	/* The command starts in pmeclock's directory: known if it has
	 * ended before any of its records is converted. */
	if (getcwd(cwd, sizeof(cwd)) != NULL)
		(void)fd_name_set(io, (uint32_t)pid, AT_FDCWD, cwd);
	if (dl_iterate_phdr(libc_of, libc) == 0 || (n = online_cpus(cpus,
	    MAX_CPUS)) < 0) {
		if (ps->o->verbose)
			fprintf(stderr, "%s: -e io: no C library to probe: "
			    "opens' names read after the call\n", prog);
		return;
	}
	for (k = 0; k < NNAMES; k++) {
		memset(&spec, 0, sizeof(spec));
		snprintf(spec.name, sizeof(spec.name), "-e io: %s",
		    nameprobe[k].fn);
		snprintf(spec.routine, sizeof(spec.routine), "%s",
		    nameprobe[k].fn);
		if (pme_ev_break(&spec, libc, &err) == -1) {
			if (nameprobe[k].optional)
				continue;
			break;
		}
		if ((io->nameid[k] = (uint32_t)breaks_string(libc, spec.offset,
		    nameprobe[k].reg, &io->nameoff[k])) == 0)
			break;
		io_attr(&a, ps->o, IO_EV_EXIT);
		a.config = io->nameid[k];
		for (i = 0; i < n; i++) {
			if ((fd = perf_open(&a, pid, cpus[i])) < 0)
				break;
			io->namecpu[io->nnamefd] = cpus[i];
			io->namefd[io->nnamefd++] = (int)fd;
		}
		if (i < n)
			break;
	}
	if (k < NNAMES)
		io_names_off(ps, "the C library's open functions not probed");
}

void
io_names_off(struct perfstate *ps, const char *why)
{
	struct iostate *io = ps->io;
	int k;

	if (ps->o->verbose)
		fprintf(stderr, "%s: -e io: %s (%s): opens' names read after "
		    "the call\n", prog, why, strerror(errno));
	for (k = 0; k < io->nnamefd; k++)
		close(io->namefd[k]);
	io->nnamefd = 0;
	memset(io->nameid, 0, sizeof(io->nameid));
}

void
io_names_attach(struct perfstate *ps)
{
	struct iostate *io = ps->io;
	int k, r;

	for (k = 0; io != NULL && k < io->nnamefd; k++) {
		r = perf_ring_of(ps, IO_EV_EXIT, io->namecpu[k]);
		if (r < 0 || ioctl(io->namefd[k], PERF_EVENT_IOC_SET_OUTPUT,
		    ps->rings[r].fd) < 0) {
			io_names_off(ps, "the name probes' records not "
			    "redirected");
			return;
		}
	}
}

void
io_free(struct perfstate *ps)
{
	struct iostate *io = ps->io;
	size_t i;
	int k;

	if (io == NULL)
		return;
	/* The counts are period 1 of the calls that pass the filter. */
	io->lost = perf_lost(ps, IO_EV_ENTER, IO_EV_EXIT, io->seen, io->lost);
	for (k = 0; k < io->nnamefd; k++)
		close(io->namefd[k]);
	for (i = 0; i < io->nthr; i++) {
		free(io->thr[i]->pname);
		io->unpaired += (uint64_t)(io->thr[i]->nent +
		    io->thr[i]->nex);
		while (io->thr[i]->nent > 0)
			entry_drop(io->thr[i], 0);
		free(io->thr[i]->ent);
		free(io->thr[i]->ex);
		free(io->thr[i]);
	}
	free(io->thr);
	if (io->lost > 0 && !ps->o->quiet)
		fprintf(stderr, "%s: %llu I/O records lost, pmeclock not "
		    "keeping up with the calls: the I/O report is short of "
		    "them (-G fp costs less: pmeclock(1), I/O)\n", prog,
		    (unsigned long long)io->lost);
	if (ps->o->verbose || (io->unpaired > 0 && !ps->o->quiet))
		fprintf(stderr, "%s: %llu I/O calls recorded, %llu entries or "
		    "exits without the other\n", prog,
		    (unsigned long long)io->records,
		    (unsigned long long)io->unpaired);
	if (ps->o->verbose && io->nnamefd > 0)
		fprintf(stderr, "%s: %llu opens named at the call\n", prog,
		    (unsigned long long)io->named);
	for (i = 0; i < io->nfds; i++)
		free(io->fds[i].path);
	free(io->fds);
	free(io);
	ps->io = NULL;
}
