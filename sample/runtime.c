/*
 * runtime.c - libpmeclock: samples the program counter of the process it
 * runs in on CPU-time timers, and writes the samples either to a sample
 * file of its own (pme_init()/pme_exit(), the seed's PMECLOCK
 * subroutines) or, preloaded by pmeclock(1), as messages to the launcher
 * (proto.h).  See libpmeclock(3) and pmeclock(1).
 *
 * The SIGPROF handler only copies the pc (and with call chains a
 * frame-pointer walk bounded by the thread's stack) into a preallocated
 * ring of slots: a slot is claimed with a compare-and-swap on the head
 * and published by storing its sequence number, so the handler takes no
 * lock, allocates nothing and calls nothing but clock_gettime, gettid and
 * sched_getcpu.  A full ring counts the sample as lost.  A writer thread,
 * which blocks every signal, empties the ring every 100 ms into the sink
 * and flushes the file every second; pme_exit() and the destructor empty
 * it a last time.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>

#include "pme_sample.h"
#include "pmeclock.h"
#include "proto.h"
#include "runtime.h"

#define DEFAULT_PMS	"PMEFILE.PMS"
#define DRAIN_NS	100000000ull
#define FLUSH_NS	1000000000ull
#define SLOTS		16384		/* without call chains */
#define SLOTS_CHAIN	2048		/* with them */

/* CPUCLOCK_SCHED | CPUCLOCK_PERTHREAD_MASK, as pthread_getcpuclockid. */
#define THREAD_CPUCLOCK(tid)	((clockid_t)((~(unsigned)(tid)) << 3) | 6)

enum { SINK_NONE, SINK_FILE, SINK_SOCK };

struct slot {
	_Atomic uint64_t seq;		/* index + 1 once written */
	uint64_t	 pc, time, weight;
	uint32_t	 tid, cpu, nframes, pad;
	uint64_t	 frames[];
};

struct rthread {
	uint32_t	 tid;
	int		 ended;		/* by the trampoline; forgotten when
					   /proc no longer lists it */
	int		 armed;
	int		 seen;
	timer_t		 timer;
};

struct known {
	uint64_t	 start, end;
};

static struct {
	pthread_mutex_t	 lock;		/* all below but the atomics */
	pthread_cond_t	 cond;
	int		 sink;
	int		 method;	/* PME_METHOD_TIMER or _ITIMER */
	int		 callchain;
	int		 inherited;	/* a fork child of a file recording */
	int		 stop;
	int		 writer_on;
	int		 atfork;
	uint64_t	 period;
	uint32_t	 pid;
	uint32_t	 writer_tid;
	pthread_t	 writer;
	int		 fd;		/* SINK_SOCK */
	struct pme_samplewriter *w;	/* SINK_FILE */
	char		 sname[PATH_MAX];
	char		 note[256];
	struct rthread	*threads;
	size_t		 nthreads, capthreads;
	struct known	*known;
	size_t		 nknown, capknown;
	unsigned long long dlgen;
	uint64_t	 lastscan, lastflush;
	uint64_t	 samples;
	uint32_t	 nseen;		/* threads seen */
	uint8_t		*msg;		/* PMECLOCK_MSG_MAX bytes */
	size_t		 nmsg;
	uint64_t	*frames;
} rt = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.fd = -1,
};

/* What the signal handler touches. */
static _Atomic int	 sampling;
static uint8_t		*ring;
static size_t		 ring_n, slot_size, ring_depth;
static _Atomic uint64_t	 ring_head, ring_tail, ring_lost;
static uint64_t		 ring_weight;

static __thread uintptr_t stack_lo __attribute__((tls_model("initial-exec")));
static __thread uintptr_t stack_hi __attribute__((tls_model("initial-exec")));
/* Set while this thread creates the writer, which is not sampled. */
static __thread int making_writer __attribute__((tls_model("initial-exec")));

static void	writer_start(void);
static void	writer_stop(void);

uint64_t
rt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t
rt_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static uint64_t
now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
warn(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "libpmeclock: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
}

/* --------------------------------------------------- the signal handler */

static void
get_regs(void *ucv, uintptr_t *pc, uintptr_t *fp, uintptr_t *sp)
{
	ucontext_t *uc = ucv;

#if defined(__x86_64__)
	*pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	*fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
	*sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
	*pc = (uintptr_t)uc->uc_mcontext.pc;
	*fp = (uintptr_t)uc->uc_mcontext.regs[29];
	*sp = (uintptr_t)uc->uc_mcontext.sp;
#else
#error "libpmeclock: no program counter for this machine"
#endif
}

/*
 * The frame-pointer walk: each frame record is {caller's frame, return
 * address}, frames grow towards the stack's top, and every record read
 * lies inside [sp, top of this thread's stack), which is mapped.  A
 * thread whose stack is unknown gives no frames; code without frame
 * pointers gives short or wrong chains, never a fault.
 */
#if defined(__x86_64__)
#define USER_TOP	(1ull << 47)
#else
#define USER_TOP	(1ull << 48)
#endif

static uint32_t
walk(uintptr_t fp, uintptr_t sp, uint64_t *frames)
{
	uintptr_t hi = stack_hi, next;
	uint32_t n = 0;

	if (hi == 0 || sp < stack_lo)
		return 0;
	while (n < ring_depth && fp >= sp && fp <= hi - 2 * sizeof(void *) &&
	    (fp & (sizeof(void *) - 1)) == 0) {
		frames[n] = ((const uintptr_t *)fp)[1];
		/* The outermost record holds no return address. */
		if (frames[n] < 4096 || frames[n] >= USER_TOP)
			break;
		n++;
		next = ((const uintptr_t *)fp)[0];
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

static void
on_prof(int sig, siginfo_t *si, void *ucv)
{
	uintptr_t pc, fp, sp;
	struct timespec ts;
	struct slot *s;
	uint64_t h, w;
	int e = errno, cpu;

	(void)sig;
	if (!atomic_load_explicit(&sampling, memory_order_acquire))
		goto out;
	h = atomic_load_explicit(&ring_head, memory_order_relaxed);
	do {
		if (h - atomic_load_explicit(&ring_tail,
		    memory_order_acquire) >= ring_n) {
			atomic_fetch_add(&ring_lost, 1);
			goto out;
		}
	} while (!atomic_compare_exchange_weak(&ring_head, &h, h + 1));
	s = (struct slot *)(ring + (h & (ring_n - 1)) * slot_size);
	get_regs(ucv, &pc, &fp, &sp);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	w = ring_weight;
	/* A timer that expired more than once before the signal: the
	 * sample stands for all its periods. */
	if (si != NULL && si->si_code == SI_TIMER && si->si_overrun > 0)
		w *= 1 + (uint64_t)si->si_overrun;
	s->pc = pc;
	s->time = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	s->weight = w;
	s->tid = (uint32_t)syscall(SYS_gettid);
	cpu = sched_getcpu();
	s->cpu = cpu < 0 ? UINT32_MAX : (uint32_t)cpu;
	s->nframes = ring_depth ? walk(fp, sp, s->frames) : 0;
	atomic_store_explicit(&s->seq, h + 1, memory_order_release);
out:
	errno = e;
}

static void
stack_bounds(void)
{
	pthread_attr_t a;
	size_t size;
	void *lo;

	stack_lo = stack_hi = 0;
	if (pthread_getattr_np(pthread_self(), &a) != 0)
		return;
	if (pthread_attr_getstack(&a, &lo, &size) == 0) {
		stack_lo = (uintptr_t)lo;
		stack_hi = (uintptr_t)lo + size;
	}
	pthread_attr_destroy(&a);
}

/* --------------------------------------------------------------- sinks */

static void
sock_send(const void *m, size_t len)
{
	if (rt.fd < 0)
		return;
	while (send(rt.fd, m, len, MSG_NOSIGNAL) < 0) {
		if (errno == EINTR)
			continue;
		/* pmeclock has gone: record no more. */
		close(rt.fd);
		rt.fd = -1;
		atomic_store(&sampling, 0);
		return;
	}
}

static void
msg_hdr(struct pmeclock_msg *h, uint32_t type, size_t size)
{
	h->size = (uint32_t)size;
	h->type = type;
	h->pid = rt.pid;
	h->pad = 0;
}

static void
sink_fail(const struct pme_error *err)
{
	fprintf(stderr, "libpmeclock: %s: sampling stopped\n",
	    pme_strerror(err));
	atomic_store(&sampling, 0);
	pme_samplewriter_abort(rt.w);
	rt.w = NULL;
	rt.sink = SINK_NONE;
}

static void
sink_mapping(const struct pme_mapping *m)
{
	uint8_t buf[PMECLOCK_MSG_MAX];
	struct pmeclock_map *mm = (void *)buf;
	struct pme_error err;
	size_t len;

	if (rt.sink == SINK_FILE) {
		if (pme_samplewriter_mapping(rt.w, m, &err) < 0)
			sink_fail(&err);
		return;
	}
	if (rt.sink != SINK_SOCK)
		return;
	memset(mm, 0, sizeof(*mm));
	mm->flags = m->flags;
	mm->time = m->time;
	mm->start = m->start;
	mm->end = m->end;
	mm->offset = m->offset;
	mm->vaddr = m->vaddr;
	if (m->buildid != NULL && m->buildid_len <= sizeof(mm->buildid)) {
		mm->idlen = m->buildid_len;
		memcpy(mm->buildid, m->buildid, m->buildid_len);
	}
	len = strnlen(m->path, PMECLOCK_PATH_MAX - 1);
	memcpy(buf + sizeof(*mm), m->path, len);
	buf[sizeof(*mm) + len] = '\0';
	msg_hdr(&mm->hdr, PMECLOCK_MSG_MAP, sizeof(*mm) + len + 1);
	sock_send(buf, sizeof(*mm) + len + 1);
}

static void
sink_thread(uint32_t kind, uint32_t tid, uint32_t ppid, uint32_t ptid,
    const char *name)
{
	uint8_t buf[sizeof(struct pmeclock_thread) + 64];
	struct pmeclock_thread *mt = (void *)buf;
	struct pme_thread t;
	struct pme_error err;
	size_t len;

	memset(&t, 0, sizeof(t));
	t.kind = kind;
	t.pid = rt.pid;
	t.tid = tid;
	t.ppid = ppid;
	t.ptid = ptid;
	t.time = rt_now();
	t.name = name;
	if (rt.sink == SINK_FILE) {
		if (pme_samplewriter_thread(rt.w, &t, &err) < 0)
			sink_fail(&err);
		return;
	}
	if (rt.sink != SINK_SOCK)
		return;
	memset(mt, 0, sizeof(*mt));
	mt->kind = kind;
	mt->tid = tid;
	mt->ppid = ppid;
	mt->ptid = ptid;
	mt->time = t.time;
	len = name ? strnlen(name, 63) : 0;
	memcpy(buf + sizeof(*mt), name ? name : "", len);
	buf[sizeof(*mt) + len] = '\0';
	msg_hdr(&mt->hdr, PMECLOCK_MSG_THREAD, sizeof(*mt) + len + 1);
	sock_send(buf, sizeof(*mt) + len + 1);
}

static void
msg_flush(void)
{
	struct pmeclock_samples *ms = (void *)rt.msg;

	if (rt.nmsg <= sizeof(*ms))
		return;
	msg_hdr(&ms->hdr, PMECLOCK_MSG_SAMPLES, rt.nmsg);
	sock_send(rt.msg, rt.nmsg);
	ms->n = 0;
	rt.nmsg = sizeof(*ms);
}

static void
sink_sample(const struct slot *s)
{
	struct pmeclock_samples *ms = (void *)rt.msg;
	struct pmeclock_rec r;
	struct pme_sample ps;
	struct pme_error err;
	size_t len;

	rt.samples++;
	if (rt.sink == SINK_FILE) {
		memset(&ps, 0, sizeof(ps));
		ps.pc = s->pc;
		ps.time = s->time;
		ps.weight = s->weight;
		ps.pid = rt.pid;
		ps.tid = s->tid;
		ps.cpu = s->cpu;
		ps.nframes = s->nframes;
		ps.frames = s->frames;
		if (pme_samplewriter_sample(rt.w, &ps, &err) < 0)
			sink_fail(&err);
		return;
	}
	if (rt.sink != SINK_SOCK)
		return;
	len = sizeof(r) + s->nframes * sizeof(uint64_t);
	if (rt.nmsg + len > PMECLOCK_MSG_MAX)
		msg_flush();
	memset(&r, 0, sizeof(r));
	r.pc = s->pc;
	r.time = s->time;
	r.weight = s->weight;
	r.tid = s->tid;
	r.cpu = s->cpu;
	r.nframes = s->nframes;
	memcpy(rt.msg + rt.nmsg, &r, sizeof(r));
	memcpy(rt.msg + rt.nmsg + sizeof(r), s->frames,
	    s->nframes * sizeof(uint64_t));
	rt.nmsg += len;
	ms->n++;
}

/* Moves the committed slots of the ring to the sink (lock held). */
static void
drain(void)
{
	uint64_t t = atomic_load(&ring_tail);
	struct slot *s;

	if (ring == NULL)
		return;
	for (;;) {
		s = (struct slot *)(ring + (t & (ring_n - 1)) * slot_size);
		if (atomic_load_explicit(&s->seq, memory_order_acquire) !=
		    t + 1)
			break;
		sink_sample(s);
		atomic_store_explicit(&ring_tail, ++t, memory_order_release);
	}
	if (rt.sink == SINK_SOCK)
		msg_flush();
}

/* ------------------------------------------------------------ mappings */

struct scan {
	uint64_t	 time;
	int		 first;
};

static int
known(uint64_t start, uint64_t end)
{
	struct known *k;
	size_t i;
	void *p;

	for (i = 0; i < rt.nknown; i++)
		if (rt.known[i].start == start && rt.known[i].end == end)
			return 1;
	if (rt.nknown == rt.capknown) {
		if ((p = realloc(rt.known, (rt.capknown * 2 + 16) *
		    sizeof(*k))) == NULL)
			return 1;
		rt.known = p;
		rt.capknown = rt.capknown * 2 + 16;
	}
	rt.known[rt.nknown].start = start;
	rt.known[rt.nknown++].end = end;
	return 0;
}

/* The GNU build-id note of a loaded object, from its PT_NOTE segments. */
static uint32_t
buildid(const struct dl_phdr_info *info, const uint8_t **id)
{
	const ElfW(Phdr) *ph;
	const uint8_t *p, *end;
	const ElfW(Nhdr) *nh;
	size_t nsz, dsz;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while ((size_t)(end - p) >= sizeof(*nh)) {
			nh = (const void *)p;
			nsz = (nh->n_namesz + 3) & ~(size_t)3;
			dsz = (nh->n_descsz + 3) & ~(size_t)3;
			p += sizeof(*nh);
			if ((size_t)(end - p) < nsz + dsz)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID &&
			    nh->n_namesz == 4 && memcmp(p, "GNU", 4) == 0 &&
			    nh->n_descsz <= 64) {
				*id = p + nsz;
				return nh->n_descsz;
			}
			p += nsz + dsz;
		}
	}
	return 0;
}

static int
scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *sc = arg;
	struct pme_mapping m;
	const ElfW(Phdr) *ph;
	char path[PATH_MAX], real[PATH_MAX];
	const char *del = " (deleted)";
	struct stat st;
	ssize_t n;
	size_t dl = strlen(del);
	int i, main = sc->first;

	(void)size;
	sc->first = 0;
	memset(&m, 0, sizeof(m));
	m.flags = PME_MAP_EXEC;
	if (main && info->dlpi_name[0] == '\0') {
		if ((n = readlink("/proc/self/exe", path, sizeof(path) - 1)) <
		    0)
			return 0;
		path[n] = '\0';
		m.flags |= PME_MAP_MAIN;
		if ((size_t)n > dl && strcmp(path + n - dl, del) == 0) {
			path[n - dl] = '\0';
			m.flags |= PME_MAP_DELETED;
		}
	} else if (strchr(info->dlpi_name, '/') != NULL) {
		if (realpath(info->dlpi_name, real) != NULL)
			snprintf(path, sizeof(path), "%s", real);
		else
			snprintf(path, sizeof(path), "%s", info->dlpi_name);
		if (stat(path, &st) < 0)
			m.flags |= PME_MAP_DELETED;
	} else
		return 0;	/* the vdso */
	m.path = path;
	m.pid = rt.pid;
	m.time = sc->time;
	m.buildid_len = buildid(info, &m.buildid);
	if (m.buildid_len == 0)
		m.buildid = NULL;
	for (i = 0; i < info->dlpi_phnum; i++) {
		ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		m.start = info->dlpi_addr + ph->p_vaddr;
		m.end = m.start + ph->p_memsz;
		m.offset = ph->p_offset;
		m.vaddr = ph->p_vaddr;
		if (!known(m.start, m.end))
			sink_mapping(&m);
	}
	return 0;
}

static int
count_gen(struct dl_phdr_info *info, size_t size, void *arg)
{
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) +
	    sizeof(info->dlpi_subs))
		*(unsigned long long *)arg = info->dlpi_adds + info->dlpi_subs;
	return 1;
}

/* Records the executable mappings not recorded yet (lock held); t: no
 * later than when they appeared. */
static void
scan_maps(uint64_t t)
{
	struct scan sc = { t, 1 };

	dl_iterate_phdr(count_gen, &rt.dlgen);
	dl_iterate_phdr(scan_one, &sc);
	rt.lastscan = rt_now();
}

static void
maybe_rescan(void)
{
	unsigned long long g = rt.dlgen;

	dl_iterate_phdr(count_gen, &g);
	if (g != rt.dlgen)
		scan_maps(rt.lastscan);
	else
		rt.lastscan = rt_now();
}

void
rt_dlopened(uint64_t t)
{
	if (!atomic_load(&sampling))
		return;
	pthread_mutex_lock(&rt.lock);
	scan_maps(t);
	pthread_mutex_unlock(&rt.lock);
}

/* ------------------------------------------------------------- threads */

static struct rthread *
thread_find(uint32_t tid, int add)
{
	size_t i;
	void *p;

	for (i = 0; i < rt.nthreads; i++)
		if (rt.threads[i].tid == tid)
			return &rt.threads[i];
	if (!add)
		return NULL;
	if (rt.nthreads == rt.capthreads) {
		if ((p = realloc(rt.threads, (rt.capthreads * 2 + 16) *
		    sizeof(*rt.threads))) == NULL)
			return NULL;
		rt.threads = p;
		rt.capthreads = rt.capthreads * 2 + 16;
	}
	memset(&rt.threads[rt.nthreads], 0, sizeof(*rt.threads));
	rt.threads[rt.nthreads].tid = tid;
	rt.nseen++;
	return &rt.threads[rt.nthreads++];
}

/* Arms a CPU-time timer on thread tid of this process; 0 or -1. */
static int
arm(struct rthread *th)
{
	struct itimerspec its;
	struct sigevent sev;

	if (th->armed || rt.method != PME_METHOD_TIMER)
		return 0;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGPROF;
	sev._sigev_un._tid = (pid_t)th->tid;
	if (timer_create(THREAD_CPUCLOCK(th->tid), &sev, &th->timer) < 0)
		return -1;
	its.it_interval.tv_sec = (time_t)(rt.period / 1000000000u);
	its.it_interval.tv_nsec = (long)(rt.period % 1000000000u);
	its.it_value = its.it_interval;
	if (timer_settime(th->timer, 0, &its, NULL) < 0) {
		timer_delete(th->timer);
		return -1;
	}
	th->armed = 1;
	return 0;
}

static void
disarm(struct rthread *th)
{
	if (th->armed)
		timer_delete(th->timer);
	th->armed = 0;
}

static void
comm_of(uint32_t tid, char *name, size_t n)
{
	char path[64];
	ssize_t len;
	int fd;

	name[0] = '\0';
	snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	len = read(fd, name, n - 1);
	close(fd);
	if (len < 0)
		len = 0;
	while (len > 0 && name[len - 1] == '\n')
		len--;
	name[len] = '\0';
}

/*
 * Finds the threads /proc lists (lock held): those not known yet get a
 * timer and a COMM record, those gone an EXIT record.  This catches the
 * threads that were not created through the interposed pthread_create:
 * those before pme_init(), all of them in the static library.
 */
static void
scan_tasks(void)
{
	struct dirent *de;
	struct rthread *th;
	char name[64];
	uint32_t tid;
	size_t i;
	DIR *d;

	if ((d = opendir("/proc/self/task")) == NULL)
		return;
	for (i = 0; i < rt.nthreads; i++)
		rt.threads[i].seen = 0;
	while ((de = readdir(d)) != NULL) {
		if ((tid = (uint32_t)strtoul(de->d_name, NULL, 10)) == 0 ||
		    tid == rt.writer_tid)
			continue;
		if ((th = thread_find(tid, 0)) != NULL) {
			th->seen = 1;
			continue;
		}
		if ((th = thread_find(tid, 1)) == NULL)
			continue;
		th->seen = 1;
		comm_of(tid, name, sizeof(name));
		sink_thread(PME_THREAD_COMM, tid, 0, 0, name);
		arm(th);
	}
	closedir(d);
	for (i = 0; i < rt.nthreads; ) {
		th = &rt.threads[i];
		if (th->seen) {
			i++;
			continue;
		}
		if (!th->ended)
			sink_thread(PME_THREAD_EXIT, th->tid, 0, 0, NULL);
		disarm(th);
		*th = rt.threads[--rt.nthreads];
	}
}

int
rt_wants_threads(void)
{
	return !making_writer;
}

void
rt_thread_begin(uint32_t ptid)
{
	struct rthread *th;
	uint32_t tid;

	stack_bounds();
	if (!atomic_load(&sampling))
		return;
	tid = rt_gettid();
	pthread_mutex_lock(&rt.lock);
	if ((th = thread_find(tid, 0)) == NULL &&
	    (th = thread_find(tid, 1)) != NULL)
		arm(th);
	sink_thread(PME_THREAD_FORK, tid, rt.pid, ptid, NULL);
	pthread_mutex_unlock(&rt.lock);
}

void
rt_thread_end(void *unused)
{
	struct rthread *th;
	char name[17];
	uint32_t tid;

	(void)unused;
	if (!atomic_load(&sampling))
		return;
	tid = rt_gettid();
	memset(name, 0, sizeof(name));
	prctl(PR_GET_NAME, name);
	pthread_mutex_lock(&rt.lock);
	if ((th = thread_find(tid, 0)) != NULL) {
		disarm(th);
		th->ended = 1;
	}
	sink_thread(PME_THREAD_COMM, tid, 0, 0, name);
	sink_thread(PME_THREAD_EXIT, tid, 0, 0, NULL);
	pthread_mutex_unlock(&rt.lock);
}

/* -------------------------------------------------------- the writer */

static void *
writer_main(void *arg)
{
	struct timespec ts;

	(void)arg;
	pthread_mutex_lock(&rt.lock);
	rt.writer_tid = rt_gettid();
	while (!rt.stop) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += (long)DRAIN_NS;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&rt.cond, &rt.lock, &ts);
		if (rt.stop)
			break;
		drain();
		maybe_rescan();
		if (rt.method == PME_METHOD_TIMER)
			scan_tasks();
		if (rt.sink == SINK_FILE && rt_now() - rt.lastflush >=
		    FLUSH_NS) {
			struct pme_error err;

			if (pme_samplewriter_flush(rt.w, &err) < 0)
				sink_fail(&err);
			rt.lastflush = rt_now();
		}
	}
	pthread_mutex_unlock(&rt.lock);
	return NULL;
}

static void
writer_start(void)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rt.stop = 0;
	rt.writer_tid = 0;
	making_writer = 1;
	rt.writer_on = pthread_create(&rt.writer, NULL, writer_main,
	    NULL) == 0;
	making_writer = 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!rt.writer_on)
		fprintf(stderr, "libpmeclock: cannot start the writer "
		    "thread: samples are written at the end\n");
}

static void
writer_stop(void)
{
	if (!rt.writer_on)
		return;
	pthread_mutex_lock(&rt.lock);
	rt.stop = 1;
	pthread_cond_signal(&rt.cond);
	pthread_mutex_unlock(&rt.lock);
	pthread_join(rt.writer, NULL);
	rt.writer_on = 0;
}

/* -------------------------------------------------------- start, stop */

static void	on_fork_prepare(void);
static void	on_fork_parent(void);
static void	on_fork_child(void);

static int
ring_init(void)
{
	size_t depth = rt.callchain ? PMECLOCK_MAXFRAMES : 0;
	size_t n = rt.callchain ? SLOTS_CHAIN : SLOTS;
	size_t ss = sizeof(struct slot) + depth * sizeof(uint64_t);
	void *p;

	if (ring != NULL && ring_depth == depth)
		goto reset;
	/* A ring once made is kept: a late signal may still write it. */
	if (ring != NULL)
		return -1;
	p = mmap(NULL, n * ss, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	ring = p;
	ring_n = n;
	slot_size = ss;
	ring_depth = depth;
reset:
	atomic_store(&ring_tail, atomic_load(&ring_head));
	atomic_store(&ring_lost, 0);
	ring_weight = rt.period;
	return 0;
}

static void
env_settings(void)
{
	const char *s;
	unsigned long long v;

	rt.period = 10000000;
	rt.method = PME_METHOD_TIMER;
	rt.callchain = 0;
	if ((s = getenv("PMECLOCK_PERIOD")) != NULL &&
	    (v = strtoull(s, NULL, 10)) >= 10000)
		rt.period = v;
	if ((s = getenv("PMECLOCK_METHOD")) != NULL &&
	    strcmp(s, "itimer") == 0)
		rt.method = PME_METHOD_ITIMER;
	if ((s = getenv("PMECLOCK_CALLCHAIN")) != NULL && strcmp(s, "1") == 0)
		rt.callchain = 1;
}

/*
 * Decides the method on the calling thread: its timer, or ITIMER_PROF
 * when timer_create is refused.  Lock held.
 */
static void
arm_first(void)
{
	struct rthread *th;
	struct itimerval it;

	if (rt.method == PME_METHOD_TIMER) {
		if ((th = thread_find(rt_gettid(), 1)) != NULL &&
		    arm(th) == 0)
			return;
		snprintf(rt.note, sizeof(rt.note), "timer_create refused "
		    "(%s): ITIMER_PROF", strerror(errno));
		rt.method = PME_METHOD_ITIMER;
	}
	it.it_interval.tv_sec = (time_t)(rt.period / 1000000000u);
	it.it_interval.tv_usec = (suseconds_t)(rt.period % 1000000000u /
	    1000);
	it.it_value = it.it_interval;
	setitimer(ITIMER_PROF, &it, NULL);
}

static int
handler_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGPROF, &sa, NULL);
}

static void
hello(void)
{
	uint8_t buf[sizeof(struct pmeclock_hello) + 256];
	struct pmeclock_hello *h = (void *)buf;
	size_t len = strlen(rt.note);

	memset(h, 0, sizeof(*h));
	h->method = (uint32_t)rt.method;
	h->ppid = (uint32_t)getppid();
	h->time = rt_now();
	h->period = rt.period;
	prctl(PR_GET_NAME, h->comm);
	memcpy(buf + sizeof(*h), rt.note, len + 1);
	msg_hdr(&h->hdr, PMECLOCK_MSG_HELLO, sizeof(*h) + len + 1);
	sock_send(buf, sizeof(*h) + len + 1);
}

/* Starts sampling into the sink set up by the caller (lock held). */
static int
start_sampling(void)
{
	rt.pid = (uint32_t)getpid();
	if (rt.msg == NULL && (rt.msg = malloc(PMECLOCK_MSG_MAX)) == NULL)
		return -1;
	rt.nmsg = sizeof(struct pmeclock_samples);
	((struct pmeclock_samples *)rt.msg)->n = 0;
	if (ring_init() < 0 || handler_install() < 0)
		return -1;
	stack_bounds();
	if (!rt.atfork) {
		pthread_atfork(on_fork_prepare, on_fork_parent,
		    on_fork_child);
		rt.atfork = 1;
	}
	return 0;
}

/* After the sink's header: the records of the start, then the timers. */
static void
start_records(void)
{
	char name[17];

	memset(name, 0, sizeof(name));
	prctl(PR_GET_NAME, name);
	sink_thread(PME_THREAD_COMM, rt_gettid(), 0, 0, name);
	scan_maps(rt_now());
	atomic_store(&sampling, 1);
	if (rt.method == PME_METHOD_TIMER)
		scan_tasks();
	rt.lastflush = rt_now();
}

void
rt_preload_start(void)
{
	const char *s;
	char *end;
	long fd;

	if ((s = getenv("PMECLOCK_FD")) == NULL)
		return;
	fd = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || fd < 0 || fcntl((int)fd,
	    F_GETFD) < 0)
		return;		/* closed by the program's parent */
	env_settings();
	pthread_mutex_lock(&rt.lock);
	rt.fd = (int)fd;
	fcntl(rt.fd, F_SETFD, 0);
	if (start_sampling() < 0) {
		pthread_mutex_unlock(&rt.lock);
		return;
	}
	rt.sink = SINK_SOCK;
	arm_first();
	hello();
	start_records();
	pthread_mutex_unlock(&rt.lock);
	writer_start();
}

/* Stops the timers and the writer, drains; the sink stays open. */
static void
stop_sampling(void)
{
	struct itimerval off;
	size_t i;

	atomic_store(&sampling, 0);
	memset(&off, 0, sizeof(off));
	if (rt.method == PME_METHOD_ITIMER)
		setitimer(ITIMER_PROF, &off, NULL);
	writer_stop();
	pthread_mutex_lock(&rt.lock);
	for (i = 0; i < rt.nthreads; i++)
		disarm(&rt.threads[i]);
	rt.nthreads = 0;
	drain();
}

static void
bye(void)
{
	struct pmeclock_bye b;

	memset(&b, 0, sizeof(b));
	b.samples = rt.samples;
	b.lost = atomic_load(&ring_lost);
	b.time = rt_now();
	msg_hdr(&b.hdr, PMECLOCK_MSG_BYE, sizeof(b));
	sock_send(&b, sizeof(b));
}

__attribute__((destructor)) static void
rt_fini(void)
{
	if (rt.sink == SINK_NONE || rt.inherited)
		return;
	if (rt.sink == SINK_FILE) {
		pme_exit();
		return;
	}
	stop_sampling();
	bye();
	rt.sink = SINK_NONE;
	pthread_mutex_unlock(&rt.lock);
}

/*
 * Before an exec: what the ring holds is sent, and ITIMER_PROF, which an
 * exec keeps, is stopped, lest its SIGPROF kill the new image before its
 * runtime has a handler.  rt_after_exec() re-arms it if the exec failed.
 */
void
rt_before_exec(void)
{
	struct itimerval off;

	if (rt.sink != SINK_SOCK || !atomic_load(&sampling))
		return;
	memset(&off, 0, sizeof(off));
	if (rt.method == PME_METHOD_ITIMER)
		setitimer(ITIMER_PROF, &off, NULL);
	pthread_mutex_lock(&rt.lock);
	drain();
	pthread_mutex_unlock(&rt.lock);
}

void
rt_after_exec(void)
{
	if (rt.sink != SINK_SOCK || !atomic_load(&sampling) ||
	    rt.method != PME_METHOD_ITIMER)
		return;
	pthread_mutex_lock(&rt.lock);
	arm_first();
	pthread_mutex_unlock(&rt.lock);
}

/* -------------------------------------------------------------- fork */

static uint32_t fork_ptid;

static void
on_fork_prepare(void)
{
	fork_ptid = rt_gettid();
	pthread_mutex_lock(&rt.lock);
}

static void
on_fork_parent(void)
{
	pthread_mutex_unlock(&rt.lock);
}

/*
 * The child has only the forking thread, no timers and no writer.  Under
 * pmeclock it records on, as a new process of the run; the file of a
 * pme_init() belongs to the parent, so the child of one stops sampling.
 */
static void
on_fork_child(void)
{
	uint32_t ppid = rt.pid;

	pthread_mutex_init(&rt.lock, NULL);
	pthread_cond_init(&rt.cond, NULL);
	rt.writer_on = 0;
	rt.nthreads = 0;
	rt.pid = (uint32_t)getpid();
	if (rt.sink == SINK_FILE || !atomic_load(&sampling)) {
		atomic_store(&sampling, 0);
		rt.inherited = rt.sink == SINK_FILE;
		rt.w = NULL;
		rt.sink = SINK_NONE;
		return;
	}
	/* The parent writes what its ring held. */
	atomic_store(&ring_tail, atomic_load(&ring_head));
	rt.nmsg = sizeof(struct pmeclock_samples);
	((struct pmeclock_samples *)rt.msg)->n = 0;
	rt.samples = 0;
	atomic_store(&ring_lost, 0);
	sink_thread(PME_THREAD_FORK, rt.pid, ppid, fork_ptid, NULL);
	arm_first();
	writer_start();
}

/* ------------------------------------------------ the seed's entries */

RT_EXPORT void
pme_sname(const char *name)
{
	const char *base;
	size_t n;

	if (name == NULL || atomic_load(&sampling))
		return;
	n = strlen(name);
	while (n > 0 && name[n - 1] == ' ')
		n--;
	if (n == 0 || n >= sizeof(rt.sname) - 5)
		return;
	memcpy(rt.sname, name, n);
	rt.sname[n] = '\0';
	base = strrchr(rt.sname, '/');
	base = base ? base + 1 : rt.sname;
	if (strchr(base + (base[0] == '.'), '.') == NULL)
		strcat(rt.sname, ".PMS");
}

static int
cmdline(char *buf, size_t n, const char **argv, int max)
{
	ssize_t len;
	int fd, argc = 0;
	char *p;

	if ((fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	len = read(fd, buf, n - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	for (p = buf; p < buf + len && argc < max; p += strlen(p) + 1)
		argv[argc++] = p;
	return argc;
}

RT_EXPORT void
pme_init(void)
{
	struct pme_sample_header h;
	struct pme_error err;
	const char *argv[64];
	char cmd[4096];
	const char *path = rt.sname[0] ? rt.sname : DEFAULT_PMS;

	/* pmeclock records the whole run already. */
	if (getenv("PMECLOCK_ACTIVE") != NULL || rt.sink != SINK_NONE)
		return;
	env_settings();
	pthread_mutex_lock(&rt.lock);
	if (start_sampling() < 0) {
		pthread_mutex_unlock(&rt.lock);
		warn("cannot start sampling: %s%s", strerror(errno), "");
		return;
	}
	rt.inherited = 0;
	rt.samples = 0;
	rt.nseen = 0;
	rt.note[0] = '\0';
	arm_first();
	memset(&h, 0, sizeof(h));
	h.method = (uint32_t)rt.method;
	h.event = rt.method == PME_METHOD_ITIMER ? PME_EVENT_PROF :
	    PME_EVENT_CPU_CLOCK;
	h.period = rt.period;
	h.start = now_real();
	h.start_mono = rt_now();
	h.pid = rt.pid;
	h.flags = rt.callchain ? PME_SHDR_CALLCHAIN : 0;
	h.argc = (uint32_t)cmdline(cmd, sizeof(cmd), argv, 64);
	h.argv = argv;
	h.note = rt.note[0] ? rt.note : NULL;
	if ((rt.w = pme_samplewriter_open(path, &h, 0, &err)) == NULL) {
		pthread_mutex_unlock(&rt.lock);
		stop_sampling();
		pthread_mutex_unlock(&rt.lock);
		warn("%s%s", pme_strerror(&err), "");
		return;
	}
	rt.sink = SINK_FILE;
	start_records();
	pthread_mutex_unlock(&rt.lock);
	writer_start();
}

RT_EXPORT void
pme_exit(void)
{
	struct pme_sample_close c;
	struct pme_error err;

	if (rt.sink != SINK_FILE || rt.inherited)
		return;
	stop_sampling();
	memset(&c, 0, sizeof(c));
	c.end = now_real();
	c.samples = rt.samples;
	c.lost = atomic_load(&ring_lost);
	c.threads = rt.nseen;
	if (rt.w != NULL && pme_samplewriter_close(rt.w, &c, &err) < 0)
		warn("%s%s", pme_strerror(&err), "");
	rt.w = NULL;
	rt.sink = SINK_NONE;
	pthread_mutex_unlock(&rt.lock);
}

RT_EXPORT void
pme_iname(const char *name)
{
	(void)name;
}

RT_EXPORT void
pme_oname(const char *name)
{
	(void)name;
}
