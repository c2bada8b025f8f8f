/*
 * attach.c - pmeclock -p: the perf_event_open method (perf.c) attached to
 * a running process instead of a child it starts.  Apart from perf.c
 * because what it adds (listing a live process's threads until no new
 * one appears, reading its names and mappings from /proc, watching for
 * its end) has nothing to do with a child's run; the rings, the records
 * and the randomized periods are perf.c's, through perf.h.
 *
 * The events are opened on every thread of the process, one per thread,
 * event (-e) and online CPU, each writing into the ring of its event and
 * CPU (PERF_EVENT_IOC_SET_OUTPUT), rings[k * ncpu + i] as perf.c has
 * them; threads the process creates later inherit them.  Inheritance covers only the threads created after an
 * event opened, so the threads are listed again until a listing finds
 * none new: a thread created in between was made by one whose events
 * were not open yet, and the next listing has it.  --start's and
 * --stop's breaks (gate.c) are events of their own, their rings first,
 * opened on each thread before its others.
 *
 * System-wide (-a, perf_system_open()): the events are opened once per
 * CPU for every task (pid -1, not inherited: the kernel refuses that for
 * a CPU's events), every process's threads and mappings read from /proc
 * as an attach reads one's, and the run ends when the command pmeclock
 * started ends (a->pid), at -d's deadline or at a signal.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include "clock.h"
#include "maps.h"
#include "perf.h"
#include "prog.h"
#include "unwind.h"

struct perfattach {
	struct perfstate ps;
	pid_t		 pid;
	uint64_t	 t0;		/* before the first event opened */
	int		 cpus[MAX_CPUS];
	int		 ncpu;
	int		*fds;		/* events writing into another's ring */
	size_t		 nfds, capfds;
	int		*gfds;		/* those of --start's and --stop's */
	size_t		 ngfds, capgfds;
	uint32_t	*seen;		/* threads listed */
	size_t		 nseen, capseen;
	int		 system;	/* -a: every process */
	int		 prepared;	/* perf_attach_prepare() done */
};

#define ATTACH_ROUNDS	1000	/* listings of a process's threads */

/* How many events each CPU has a ring of: --start's and --stop's breaks
 * too, or -e io's entries and exits. */
static int
attach_nev(const struct clockopts *o)
{
	return o->nev + (o->ngate != 0 || o->io ? 2 : 0);
}

/* The event of ring r: --start's and --stop's breaks first, then those
 * of -e; or those of -e, then -e io's exits and entries: as a command's
 * (perf.c, open_events()). */
static int
ring_ev(const struct perfattach *a, int r)
{
	int j = r / a->ncpu, nev = a->ps.o->nev;

	if (a->ps.o->io)
		return j < nev ? j : j == nev ? IO_EV_EXIT : IO_EV_ENTER;
	if (a->ps.o->ngate == 0)
		return j;
	return j == 0 ? GATE_EV_START : j == 1 ? GATE_EV_STOP : j - 2;
}

/*
 * Whether event k (ring_ev()) is a break of the uprobe PMU's: the kernel
 * reads its file's name again, in the process's memory, for each thread
 * the process creates, which fails the process's clone() (breaks.c).
 * Such an event is not inherited: the process's later threads are not
 * counted, but are made.
 */
static int
pmu_break(const struct clockopts *o, int k)
{
	const struct pme_evspec *spec = GATE_EV(k) ?
	    &o->gate[k == GATE_EV_STOP].spec : &o->ev[k].spec;

	return spec->kind == PME_EV_BREAK && spec->type !=
	    PERF_TYPE_TRACEPOINT;
}

/* Keeps fd, which writes into another's ring, in *fds (of n, cap). */
static int
keep_fd(int **fds, size_t *n, size_t *cap, int fd)
{
	void *p;

	if ((p = perf_grow(*fds, cap, *n + 1, sizeof(**fds))) == NULL)
		return -1;
	*fds = p;
	(*fds)[(*n)++] = fd;
	return 0;
}

/* Ring i, of cpu, is event fd's: its rings as a run's are (perf.c),
 * those of stacks as large. */
static int
attach_ring(struct perfattach *a, int i, int cpu, int fd)
{
	struct ring *r = &a->ps.rings[i];

	r->fd = fd;
	r->cpu = cpu;
	if (perf_map_ring(&a->ps, i) == 0)
		return 0;
	r->fd = -1;
	return -1;
}

/* Opens the events of thread tid: 0, 1 when it has gone, -1 with errno. */
static int
attach_thread(struct perfattach *a, pid_t tid)
{
	struct perf_event_attr attr;
	int i, e, k, r, gate;
	int **fds;
	size_t *n;
	long fd;

	for (r = 0; r < a->ps.nrings; r++) {
		k = ring_ev(a, r);
		i = r % a->ncpu;
		if (i == 0) {
			if (IO_EV(k)) {
				io_attr(&attr, a->ps.o, k);
				attr.config = io_config(&a->ps, k);
			} else
				perf_attr(&attr, a->ps.o, k);
			attr.disabled = 0;
			attr.enable_on_exec = 0;
			attr.inherit = IO_EV(k) || !pmu_break(a->ps.o, k);
		}
		if ((fd = perf_open(&attr, tid, a->cpus[i])) < 0)
			return errno == ESRCH ? 1 : -1;
		if (IO_EV(k) && io_filter((int)fd) < 0) {
			e = errno;
			close((int)fd);
			errno = e;
			return -1;
		}
		/* --start's and -e io's apart: -j changes the others'
		 * periods. */
		gate = GATE_EV(k) || IO_EV(k);
		fds = gate ? &a->gfds : &a->fds;
		n = gate ? &a->ngfds : &a->nfds;
		if (a->ps.rings[r].meta == NULL) {
			if (IO_EV(k)) {		/* copy_cut() */
				a->ps.rings[r].ssize = attr.sample_stack_user;
				a->ps.rings[r].rmask = attr.sample_regs_user;
			}
			if (attach_ring(a, r, a->cpus[i], (int)fd) == 0)
				continue;
		} else if (keep_fd(fds, n, gate ? &a->capgfds : &a->capfds,
		    (int)fd) == 0) {
			/* Its count read with its ring's (the losses as
			 * the run ends: perf_lost()). */
			if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT,
			    a->ps.rings[r].fd) == 0 &&
			    perf_keep_out(&a->ps, (int)fd, k) == 0)
				continue;
		}
		e = errno;
		close((int)fd);
		if (*n > 0 && (*fds)[*n - 1] == (int)fd)
			(*n)--;
		errno = e;
		return -1;
	}
	return 0;
}

static int
attach_seen(struct perfattach *a, uint32_t tid)
{
	size_t i;
	void *p;

	for (i = 0; i < a->nseen; i++)
		if (a->seen[i] == tid)
			return 1;
	if ((p = perf_grow(a->seen, &a->capseen, a->nseen + 1,
	    sizeof(*a->seen))) == NULL)
		return -1;
	a->seen = p;
	a->seen[a->nseen++] = tid;
	return 0;
}

/* One listing of the threads: how many were new, or -1 with errno. */
static int
attach_listing(struct perfattach *a)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	long tid;
	int n = 0, r = 0;
	char *end;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)a->pid);
	if ((d = opendir(path)) == NULL) {
		errno = ESRCH;
		return -1;
	}
	while (r >= 0 && (de = readdir(d)) != NULL) {
		tid = strtol(de->d_name, &end, 10);
		if (tid <= 0 || *end != '\0')
			continue;
		if ((r = attach_seen(a, (uint32_t)tid)) != 0)
			continue;
		n++;
		if ((r = attach_thread(a, (pid_t)tid)) == 0)
			add_tid(&a->ps, (uint32_t)tid);
		else if (r > 0)
			r = 0;
	}
	closedir(d);
	return r < 0 ? -1 : n;
}

void
perf_attach_free(struct perfattach *a)
{
	size_t i;

	if (a == NULL)
		return;
	free_state(&a->ps);	/* reads the counts of fds and gfds */
	for (i = 0; i < a->nfds; i++)
		close(a->fds[i]);
	free(a->fds);
	for (i = 0; i < a->ngfds; i++)
		close(a->gfds[i]);
	free(a->gfds);
	free(a->seen);
	jitter_end(&a->ps.jit);
	free(a);
}

/* Records why the events could not be opened on the process. */
static void
attach_refused(struct perfattach *a, int e)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)a->pid);
	if (e == ESRCH || stat(path, &st) < 0)
		perf_fail(&a->ps, "-p %d: no such process", (int)a->pid);
	else if ((e == EACCES || e == EPERM) && st.st_uid != geteuid())
		perf_fail(&a->ps, "-p %d: not permitted: the process is "
		    "another user's (uid %u), and perf_event_open refuses "
		    "(%s): attach as its owner, or as root (or with "
		    "CAP_PERFMON and CAP_SYS_PTRACE)", (int)a->pid,
		    (unsigned)st.st_uid, strerror(e));
	else if (e == EACCES || e == EPERM)
		perf_fail(&a->ps, "-p %d: not permitted: perf_event_open "
		    "refuses (%s): the process may not be inspected (a "
		    "set-user-ID program, or one that made itself not "
		    "dumpable), or a security module forbids it "
		    "(perf_event_paranoid is %d)", (int)a->pid, strerror(e),
		    paranoid());
	else
		perf_fail(&a->ps, "-p %d: perf_event_open: %s", (int)a->pid,
		    strerror(e));
}

/* An attach (pid, or with system every process) that cannot go on: its
 * error said, a freed, NULL with errno e. */
static struct perfattach *
attach_fail(struct perfattach *a, int e)
{
	perf_say(&a->ps);
	perf_attach_free(a);
	errno = e;
	return NULL;
}

/* A new attach of o's events to pid (the command's with -a), its rings
 * not open yet; NULL, said, with errno. */
static struct perfattach *
attach_new(struct clockopts *o, pid_t pid, int system)
{
	struct perfattach *a;
	int i, nev = attach_nev(o);

	if ((a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	a->ps.o = o;
	a->ps.mainpid = (uint32_t)pid;
	a->pid = pid;
	a->system = system;
	a->t0 = now_mono();
	if ((a->ncpu = online_cpus(a->cpus, MAX_CPUS)) >= 0 &&
	    a->ncpu * nev > MAX_CPUS && !system) {
		perf_fail(&a->ps, "%d events on %d CPUs: more than %d rings",
		    nev, a->ncpu, MAX_CPUS);
		return attach_fail(a, EINVAL);
	}
	if (a->ncpu < 0 || a->ncpu * nev > MAX_CPUS ||
	    (a->ps.rings = calloc((size_t)(a->ncpu * nev),
	    sizeof(*a->ps.rings))) == NULL ||
	    (a->ps.frames = malloc(512 * sizeof(*a->ps.frames))) == NULL ||
	    ((o->callchain || o->io) && o->callgraph == CALLGRAPH_DWARF &&
	    (a->ps.uw = unwind_new(o->verbose)) == NULL)) {
		if (system)
			perf_fail(&a->ps, "-a: out of memory, or more than "
			    "%d events' rings", MAX_CPUS);
		else
			perf_fail(&a->ps, "out of memory");
		return attach_fail(a, ENOMEM);
	}
	a->ps.nrings = a->ncpu * nev;
	for (i = 0; i < a->ps.nrings; i++) {
		a->ps.rings[i].fd = -1;
		a->ps.rings[i].ev = ring_ev(a, i);
	}
	if (o->ngate != 0 && gate_new(&a->ps) < 0)
		return attach_fail(a, ENOMEM);
	if (o->io && io_new(&a->ps) < 0)
		return attach_fail(a, EINVAL);
	return a;
}

struct perfattach *
perf_attach_open(struct clockopts *o, pid_t pid)
{
	struct perfattach *a;
	int i, n = 0, e;

	if ((a = attach_new(o, pid, 0)) == NULL)
		return NULL;
	for (i = 0; i < ATTACH_ROUNDS; i++)
		if ((n = attach_listing(a)) <= 0)
			break;
	e = errno;
	/* Not one thread opened on some CPU: all had gone. */
	for (i = 0; n >= 0 && i < a->ps.nrings; i++)
		if (a->ps.rings[i].meta == NULL) {
			n = -1;
			e = ESRCH;
		}
	if (n < 0) {
		attach_refused(a, e);
		return attach_fail(a, e);
	}
	return a;
}

size_t
perf_attach_threads(const struct perfattach *a)
{
	return a->ps.ntids;
}

/* The name of thread tid of the process, from /proc. */
static void
attach_comm(pid_t pid, uint32_t tid, char *buf, size_t n)
{
	char path[64];
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%u/comm", (int)pid,
	    tid);
	buf[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	len = read(fd, buf, n - 1);
	close(fd);
	if (len < 0)
		len = 0;
	buf[len] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* The process's name and its threads' as they were at the attach. */
static void
attach_names(struct perfattach *a)
{
	struct pme_thread t;
	struct pme_error err;
	char name[64];
	size_t i;

	memset(&t, 0, sizeof(t));
	t.kind = PME_THREAD_EXEC;
	t.pid = t.tid = (uint32_t)a->pid;
	t.time = a->t0;
	attach_comm(a->pid, t.tid, name, sizeof(name));
	t.name = name;
	if (pme_samplewriter_thread(a->ps.w, &t, &err) < 0)
		perf_werr(&a->ps, &err);
	t.kind = PME_THREAD_COMM;
	for (i = 0; i < a->nseen && !a->ps.failed; i++) {
		if ((t.tid = a->seen[i]) == t.pid)
			continue;
		attach_comm(a->pid, t.tid, name, sizeof(name));
		if (pme_samplewriter_thread(a->ps.w, &t, &err) < 0)
			perf_werr(&a->ps, &err);
	}
}

/*
 * One line of /proc/PID/maps, an executable file mapping, recorded: the
 * main program's if its path and exe (readlink's, " (deleted)" cut off
 * and told in exedel) are the same.
 */
static void
attach_map(struct perfattach *a, pid_t pid, const struct pme_maps_line *ml,
    const char *exe, int exedel)
{
	struct pme_mapping m;
	struct pme_error err;
	uint8_t buildid[64];
	char vdso[PATH_MAX];
	uint64_t dev = makedev(ml->major, ml->minor), ino = ml->inode;

	memset(&m, 0, sizeof(m));
	m.start = ml->start;
	m.end = ml->end;
	if (strchr(ml->perms, 'x') != NULL &&
	    strcmp(ml->path, "[vdso]") == 0 && vdso_map(&m, vdso, &dev, &ino))
		m.path = vdso;
	else if (strchr(ml->perms, 'x') == NULL || ml->path[0] != '/')
		return;
	else
		m.path = ml->path;
	m.pid = (uint32_t)pid;
	m.flags = PME_MAP_EXEC;
	if (exe != NULL && strcmp(ml->path, exe) == 0 &&
	    ml->deleted == exedel)
		m.flags |= PME_MAP_MAIN;
	if (ml->deleted)
		m.flags |= PME_MAP_DELETED;
	m.time = a->t0;
	m.offset = ml->offset;
	if (mapping_vaddr(&a->ps, &m, dev, ino, buildid) < 0) {
		perf_fail(&a->ps, "out of memory");
		return;
	}
	if (a->ps.uw != NULL)
		perf_unwind_map(&a->ps, &m);
	if (pme_samplewriter_mapping(a->ps.w, &m, &err) < 0)
		perf_werr(&a->ps, &err);
}

/*
 * The process's executable mappings when the events opened: read after,
 * so that none made in between is missed (one made after is recorded
 * twice, the same both times), and dated before the first sample.  A
 * line not in the kernel's form is passed over.
 */
static int
attach_maps(struct perfattach *a, pid_t pid)
{
	char path[64], exe[PATH_MAX];
	struct pme_maps_line ml;
	struct pme_maps r;
	size_t sl = strlen(DELETED_SUFFIX);
	ssize_t n;
	FILE *fp;
	int rc, exedel = 0;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if ((n = readlink(path, exe, sizeof(exe) - 1)) < 0)
		n = 0;
	exe[n] = '\0';
	if ((size_t)n > sl && strcmp(exe + n - sl, DELETED_SUFFIX) == 0) {
		exe[n - sl] = '\0';
		exedel = 1;
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((fp = fopen(path, "re")) == NULL) {
		/* System-wide, a process may end before it is read. */
		if (a->system)
			return 0;
		return perf_fail(&a->ps, "'%s': %s", path, strerror(errno));
	}
	pme_maps_init(&r, fp, path);
	while (!a->ps.failed && (rc = pme_maps_next(&r, &ml, NULL)) != 0)
		if (rc > 0)
			attach_map(a, pid, &ml, n > 0 ? exe : NULL, exedel);
	pme_maps_end(&r);
	fclose(fp);
	return a->ps.failed ? -1 : 0;
}

/* The numbers in directory path (/proc, /proc/PID/task), each to fn;
 * -1 when it cannot be read. */
static int
numbers(struct perfattach *a, const char *path, pid_t pid,
    void (*fn)(struct perfattach *, pid_t, uint32_t))
{
	struct dirent *de;
	DIR *d;
	long v;
	char *end;

	if ((d = opendir(path)) == NULL)
		return -1;
	while (!a->ps.failed && (de = readdir(d)) != NULL) {
		v = strtol(de->d_name, &end, 10);
		if (v > 0 && *end == '\0' && v <= INT_MAX)
			fn(a, pid, (uint32_t)v);
	}
	closedir(d);
	return 0;
}

/* Thread tid of process pid, named as /proc has it now (the process
 * itself as exec'd, at the start of the run). */
static void
system_thread(struct perfattach *a, pid_t pid, uint32_t tid)
{
	struct pme_thread t;
	struct pme_error err;
	char name[64];

	memset(&t, 0, sizeof(t));
	t.kind = tid == (uint32_t)pid ? PME_THREAD_EXEC : PME_THREAD_COMM;
	t.pid = (uint32_t)pid;
	t.tid = tid;
	t.time = a->t0;
	attach_comm(pid, tid, name, sizeof(name));
	if (name[0] == '\0')
		return;		/* gone while /proc was read */
	t.name = name;
	add_tid(&a->ps, tid);
	if (pme_samplewriter_thread(a->ps.w, &t, &err) < 0)
		perf_werr(&a->ps, &err);
}

/* Process pid: its threads, then its executable mappings. */
static void
system_proc(struct perfattach *a, pid_t unused, uint32_t pid)
{
	char path[64];

	(void)unused;
	system_thread(a, (pid_t)pid, pid);
	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	if (numbers(a, path, (pid_t)pid, system_thread) == 0)
		(void)attach_maps(a, (pid_t)pid);
}

/* Every process's threads and mappings when the events opened (those
 * made later come from the events' records). */
static int
system_procs(struct perfattach *a)
{
	if (numbers(a, "/proc", 0, system_proc) == -1)
		return perf_fail(&a->ps, "-a: '/proc': %s", strerror(errno));
	return a->ps.failed ? -1 : 0;
}

/* A descriptor readable when the process has ended, or -1. */
static int
attach_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

static void
attach_jitter(struct perfattach *a)
{
	size_t i;

	a->ps.jit.owned = a->seen;
	a->ps.jit.nowned = a->nseen;
	if (!jitter_rings(&a->ps, a->nseen))
		return;
	for (i = 0; i < a->nfds; i++)
		jitter_fd(&a->ps.jit, a->fds[i]);
}

int
perf_attach_prepare(struct perfattach *a, struct pme_samplewriter *w)
{
	a->ps.w = w;
	a->prepared = 1;
	if (a->system ? system_procs(a) < 0 : (attach_names(a),
	    a->ps.failed || attach_maps(a, a->pid) < 0)) {
		perf_say(&a->ps);
		return -1;
	}
	return 0;
}

/* What the loop of perf_attach_run() polls first into pfd: the reader's
 * descriptor, or without it the rings; how many. */
static int
attach_polls(const struct perfattach *a, struct pollfd *pfd)
{
	int r;

	if (a->ps.rd != NULL) {
		pfd[0].fd = reader_fd(a->ps.rd);
		pfd[0].events = POLLIN;
		return 1;
	}
	for (r = 0; r < a->ps.nrings; r++) {
		pfd[r].fd = a->ps.rings[r].meta != NULL ? a->ps.rings[r].fd :
		    -1;
		pfd[r].events = POLLIN;
	}
	return a->ps.nrings;
}

/* How long to poll (ms) before the deadline (0: none) passes; -1 when it
 * has. */
static int
attach_wait(uint64_t deadline)
{
	uint64_t now = now_mono();

	if (deadline == 0)
		return 250;
	if (deadline <= now)
		return -1;
	return (deadline - now) / 1000000 < 250 ?
	    (int)((deadline - now) / 1000000) + 1 : 250;
}

/*
 * Samples until the process ends, stopfd is readable or the deadline
 * passes.  With stacks the reader thread (reader.c) empties the rings
 * while this loop converts and unwinds, as perf_run()'s does: what it
 * read by the end is converted after.
 */
int
perf_attach_run(struct perfattach *a, struct pme_samplewriter *w,
    int stopfd, uint64_t deadline, struct pme_sample_close *cl)
{
	struct pollfd pfd[MAX_CPUS + 2];
	struct pme_error err;
	uint64_t last;
	int r, n, pidfd, wait, done = 0;

	if (!a->prepared && perf_attach_prepare(a, w) < 0)
		return -1;
	attach_jitter(a);
	reader_begin(&a->ps);
	/* A poll() that fails leaves revents as they were. */
	memset(pfd, 0, sizeof(pfd));
	n = attach_polls(a, pfd);
	pfd[n].fd = stopfd;
	pfd[n].events = POLLIN;
	pfd[n + 1].fd = pidfd = a->pid != 0 ? attach_pidfd(a->pid) : -1;
	pfd[n + 1].events = POLLIN;
	last = now_mono();
	while (!done && !a->ps.failed) {
		if ((wait = attach_wait(deadline)) < 0)
			done = 1;
		else if (poll(pfd, (nfds_t)n + 2, wait) < 0 &&
		    errno != EINTR) {
			perf_fail(&a->ps, "poll: %s", strerror(errno));
			done = 1;
		}
		/* An event whose task has gone reports POLLHUP for good. */
		for (r = 0; r < n; r++)
			if (pfd[r].revents & (POLLHUP | POLLERR))
				pfd[r].fd = -1;
		if ((pfd[n].revents & POLLIN) || (a->pid != 0 && (pidfd >= 0 ?
		    (pfd[n + 1].revents & POLLIN) != 0 :
		    !pme_pid_alive((uint32_t)a->pid))))
			done = 1;
		if (done && reader_stop(a->ps.rd) < 0)
			perf_fail(&a->ps, "out of memory");
		if (perf_drain(&a->ps) < 0)
			break;
		attach_jitter(a);
		if (now_mono() - last >= 1000000000u) {
			if (pme_samplewriter_flush(w, &err) < 0)
				perf_werr(&a->ps, &err);
			last = now_mono();
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	perf_flush(&a->ps);
	cl->samples = a->ps.samples;
	cl->lost = a->ps.lost;
	cl->threads = (uint32_t)a->ps.ntids;
	perf_say(&a->ps);
	perf_unwind_report(&a->ps);
	return a->ps.failed ? -1 : 0;
}

/* Records why the events could not be opened on every CPU. */
static void
system_refused(struct perfattach *a, int e)
{
	if (e == EACCES || e == EPERM)
		perf_fail(&a->ps, "-a: not permitted: watching every "
		    "process needs root, or CAP_PERFMON (CAP_SYS_ADMIN before "
		    "Linux 5.8), or perf_event_paranoid at 0 or below (it is "
		    "%d); perf_event_open: %s", paranoid(), strerror(e));
	else
		perf_fail(&a->ps, "-a: perf_event_open: %s", strerror(e));
}

struct perfattach *
perf_system_open(struct clockopts *o, pid_t cmd)
{
	struct perf_event_attr attr;
	struct perfattach *a;
	int r, i, e;
	long fd;

	if ((a = attach_new(o, cmd, 1)) == NULL)
		return NULL;
	for (r = 0; r < a->ps.nrings; r++) {
		i = r % a->ncpu;
		perf_attr(&attr, o, a->ps.rings[r].ev);
		attr.inherit = 0;
		attr.disabled = 0;
		attr.enable_on_exec = 0;
		if ((fd = perf_open(&attr, -1, a->cpus[i])) < 0 ||
		    attach_ring(a, r, a->cpus[i], (int)fd) < 0) {
			system_refused(a, e = errno);
			if (fd >= 0)
				close((int)fd);
			return attach_fail(a, e);
		}
	}
	return a;
}
