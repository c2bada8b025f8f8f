/*
 * runtime.c - libpmeclock: samples the program counter of the process it
 * runs in on CPU-time timers, and writes the samples either to a sample
 * file of its own (pme_init()/pme_exit(), the seed's PMECLOCK
 * subroutines) or, preloaded by pmeclock(1), as messages to the launcher
 * (proto.h).  See libpmeclock(3) and pmeclock(1).
 *
 * The signal handler only copies the pc (and with call chains a
 * frame-pointer walk bounded by the thread's stack) into a preallocated
 * ring of slots: a slot is claimed with a compare-and-swap on the head
 * and published by storing its sequence number, so the handler takes no
 * lock, allocates nothing and calls nothing but clock_gettime, gettid and
 * sched_getcpu.  A full ring counts the sample as lost.  A writer thread,
 * which blocks every signal, empties the ring every 100 ms into the sink
 * and flushes the file every second; pme_exit() and the destructor empty
 * it a last time, and when preloaded, _exit and the fatal signals too.
 *
 * The per-thread timers signal RT_SIGNAL, a real-time signal programs
 * rarely use; ITIMER_PROF can only signal SIGPROF.  The signal is shared
 * with the program: the handler takes the runtime's own signals (a timer
 * of its own, or the kernel's ITIMER_PROF) and passes any other to what
 * the program set for the signal, which the interposed sigaction keeps
 * (interpose.c); the interposed masks never block it, but remember that
 * the program asked, so that the program sees the masks it set.  Each
 * thread's and process image's CPU time is sent to pmeclock at its end,
 * which compares it with the samples it got.
 */
#include <dirent.h>
#include <dlfcn.h>
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
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>

#if defined(HAVE_LIBUNWIND) && defined(__x86_64__)
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif

#include "pme_sample.h"
#include "pmeclock.h"
#include "prog.h"
#include "proto.h"
#include "runtime.h"
#include "util.h"

#define DRAIN_NS	100000000ull
#define FLUSH_NS	1000000000ull
#define SLOTS		16384		/* without call chains */
#define SLOTS_CHAIN	2048		/* with them */

/* CPUCLOCK_SCHED | CPUCLOCK_PERTHREAD_MASK, as pthread_getcpuclockid. */
#define THREAD_CPUCLOCK(tid)	((clockid_t)((~(unsigned)(tid)) << 3) | 6)

/* The per-thread timers' signal (61 with glibc). */
#define RT_SIGNAL	(SIGRTMAX - 3)

enum { SINK_NONE, SINK_FILE, SINK_SOCK };

/* What the runtime does with a signal: nothing; samples with it; or
 * writes out its buffer before the program dies of it. */
enum { BORROW_NONE, BORROW_SAMPLE, BORROW_FATAL };

struct slot {
	_Atomic uint64_t seq;		/* index + 1 once written */
	uint64_t	 pc, time, weight;
	uint32_t	 tid, cpu, nframes, flags;	/* PME_SAMPLE_* */
	uint64_t	 frames[];
};

struct rthread {
	uint32_t	 tid;
	int		 ended;		/* by the trampoline; forgotten when
					   /proc no longer lists it */
	int		 armed;
	int		 seen;
	timer_t		 timer;
	uint64_t	 cpu0;		/* its CPU time when first seen */
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
	int		 cfi;		/* asked to unwind from the CFI */
	int		 inherited;	/* a fork child of a file recording */
	int		 stop;
	int		 noclock;	/* no clock asked: timers not armed
					   (pmeclock -e alloc alone) */
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
	uint64_t	 cpu0;		/* the process's CPU time at start */
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
/* pme_init()s made while sampling, each undone by a pme_exit() before
 * the one that stops: sampling goes on while the calls of pme_init()
 * exceed those of pme_exit() (the Cedar Spy's rule for its start and
 * stop breaks), so that regions nest and recursion is safe. */
static _Atomic int	 nested;
static uint8_t		*ring;
static size_t		 ring_n, slot_size, ring_depth;
static _Atomic uint64_t	 ring_head, ring_tail, ring_lost;
static uint64_t		 ring_weight;

static __thread uintptr_t stack_lo __attribute__((tls_model("initial-exec")));
static __thread uintptr_t stack_hi __attribute__((tls_model("initial-exec")));
/* Set while this thread creates the writer, which is not sampled. */
static __thread int making_writer __attribute__((tls_model("initial-exec")));
/* The program asked for the sampling signal to be blocked in this
 * thread: the interposed masks leave it open but say it is blocked. */
static __thread int want_blocked __attribute__((tls_model("initial-exec")));

/* The signals the runtime shares with the program (see above). */
static _Atomic int	 sample_sig;
static _Atomic int	 borrowed[_NSIG];
static struct sigaction	 prog_act[_NSIG];	/* as the program set it */
/* PMECLOCK_CPU_HANDLER or _ITIMER once the program has taken ITIMER_PROF,
 * which is the process's own; taken_cpu: the CPU time then. */
static _Atomic int	 taken;
static uint64_t		 taken_cpu;
static _Atomic int	 finishing;	/* the image's last records are out */
/* The sival_ptr of the runtime's timers, to tell their signals. */
static const int	 timer_cookie;

/*
 * The libc functions interpose.c replaces, for the runtime's own use:
 * defined there (the shared library), absent from the static one, where
 * libc's are called.
 */
extern int rt_libc_sigaction(int, const struct sigaction *,
    struct sigaction *) __attribute__((weak, visibility("hidden")));
extern int rt_libc_sigmask(int, const sigset_t *, sigset_t *)
    __attribute__((weak, visibility("hidden")));
extern int rt_libc_setitimer(int, const struct itimerval *,
    struct itimerval *) __attribute__((weak, visibility("hidden")));

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

#if defined(HAVE_LIBUNWIND) && defined(__x86_64__)
/*
 * The CFI walk (-G dwarf): libunwind's local unwinder, whose
 * unw_init_local2() and unw_step() are documented async-signal-safe.  It
 * is loaded with dlopen(3) when asked for, so that a program sampled
 * without it does not carry it, and run once outside any handler, which
 * makes its one-time set-up happen there.  Its cache is the global one,
 * whose lock libunwind takes with every signal blocked.
 */
static int (*unw_init2_p)(unw_cursor_t *, unw_context_t *, int);
static int (*unw_step_p)(unw_cursor_t *);
static int (*unw_get_reg_p)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
static int (*unw_getcontext_p)(unw_context_t *);
static volatile sig_atomic_t cfi_on;

/* Loads libunwind; 0, or -1 with why in rt.note. */
static int
cfi_load(void)
{
	unw_context_t uc;
	unw_cursor_t c;
	void *h;
	int i;

	if (cfi_on)
		return 0;
	if ((h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL)) == NULL ||
	    (unw_init2_p = dlsym(h, "_ULx86_64_init_local2")) == NULL ||
	    (unw_step_p = dlsym(h, "_ULx86_64_step")) == NULL ||
	    (unw_get_reg_p = dlsym(h, "_ULx86_64_get_reg")) == NULL ||
	    (unw_getcontext_p = dlsym(h, "_Ux86_64_getcontext")) == NULL) {
		snprintf(rt.note, sizeof(rt.note), "libunwind.so.8 cannot be "
		    "loaded (%s): call chains by frame pointers", dlerror());
		return -1;
	}
	if (unw_getcontext_p(&uc) == 0 && unw_init2_p(&c, &uc, 0) == 0)
		for (i = 0; i < 64 && unw_step_p(&c) > 0; i++)
			continue;
	cfi_on = 1;
	return 0;
}

static uint32_t
walk_cfi(void *ucv, uint64_t *frames, uint32_t *flags)
{
	unw_cursor_t c;
	unw_word_t ip;
	uint32_t n = 0;
	int r = -1;

	if (unw_init2_p(&c, ucv, UNW_INIT_SIGNAL_FRAME) == 0)
		while ((r = unw_step_p(&c)) > 0 && n < ring_depth) {
			if (unw_get_reg_p(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
				break;
			frames[n++] = ip;
		}
	if (r != 0)
		*flags |= PME_SAMPLE_TRUNCATED;
	return n;
}
#else
static const int cfi_on = 0;

static int
cfi_load(void)
{
	snprintf(rt.note, sizeof(rt.note), "this libpmeclock is built "
	    "without libunwind: call chains by frame pointers");
	return -1;
}

static uint32_t
walk_cfi(void *ucv, uint64_t *frames, uint32_t *flags)
{
	(void)ucv;
	(void)frames;
	(void)flags;
	return 0;
}
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

/*
 * Randomized intervals (PMECLOCK_JITTER, percent): after each sample of
 * a thread's timer, the handler arms it again for an interval drawn
 * uniformly from the period plus or minus that share of it, so that a
 * program whose work repeats with the period is not always seen at the
 * same point of its cycle.  The state is the thread's own (xorshift64*,
 * seeded from the clock and the thread ID), and timer_settime is called
 * as the system call on the kernel's timer ID the signal carries: both
 * safe in a signal handler.  jitter_cur is the interval under way, the
 * CPU time the thread's next sample stands for; jitter_due, the thread's
 * CPU time when it is due.
 */
static unsigned		 ring_jitter;
static __thread uint64_t jitter_state
    __attribute__((tls_model("initial-exec")));
static __thread uint64_t jitter_cur __attribute__((tls_model("initial-exec")));
static __thread uint64_t jitter_due __attribute__((tls_model("initial-exec")));

static uint64_t
jitter_weight(void)
{
	uint64_t c = jitter_cur;

	/* Drawn for another period (sampling restarted): not this one's. */
	if (c < ring_weight / 2 || c > ring_weight + ring_weight / 2)
		return ring_weight;
	return c;
}

static uint64_t
jitter_next(void)
{
	uint64_t x = jitter_state, span = ring_weight * ring_jitter / 100;

	if (x == 0)
		x = (rt_now() ^ ((uint64_t)syscall(SYS_gettid) << 32)) | 1;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	jitter_state = x;
	return span == 0 ? ring_weight : ring_weight - span +
	    (x * 0x2545f4914f6cdd1dull) % (2 * span);
}

static void
jitter_rearm(const siginfo_t *si)
{
	struct itimerspec its;
	struct timespec now;
	uint64_t next, t;

	if (ring_jitter == 0 || si->si_code != SI_TIMER ||
	    !atomic_load_explicit(&sampling, memory_order_acquire) ||
	    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) < 0)
		return;
	/* From the expiry that was due, not from now: the timers fire at
	 * the kernel's ticks, and the wait for one is not to add up. */
	t = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	if (si->si_overrun > 0)
		jitter_due += jitter_cur * (uint64_t)si->si_overrun;
	if (jitter_due == 0 || jitter_due > t ||
	    t - jitter_due > 2 * ring_weight)
		jitter_due = t;
	next = jitter_next();
	jitter_due += next;
	its.it_value.tv_sec = (time_t)(jitter_due / 1000000000u);
	its.it_value.tv_nsec = (long)(jitter_due % 1000000000u);
	its.it_interval.tv_sec = (time_t)(next / 1000000000u);
	its.it_interval.tv_nsec = (long)(next % 1000000000u);
	if (syscall(SYS_timer_settime, si->si_timerid, TIMER_ABSTIME, &its,
	    NULL) == 0)
		jitter_cur = next;
}

static void
take_sample(const siginfo_t *si, void *ucv)
{
	uintptr_t pc, fp, sp;
	struct timespec ts;
	struct slot *s;
	uint64_t h, w;
	int cpu;

	if (!atomic_load_explicit(&sampling, memory_order_acquire))
		return;
	h = atomic_load_explicit(&ring_head, memory_order_relaxed);
	do {
		if (h - atomic_load_explicit(&ring_tail,
		    memory_order_acquire) >= ring_n) {
			atomic_fetch_add(&ring_lost, 1);
			return;
		}
	} while (!atomic_compare_exchange_weak(&ring_head, &h, h + 1));
	s = (struct slot *)(ring + (h & (ring_n - 1)) * slot_size);
	get_regs(ucv, &pc, &fp, &sp);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	w = jitter_weight();
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
	s->flags = 0;
	if (ring_depth == 0)
		s->nframes = 0;
	else if (cfi_on)
		s->nframes = walk_cfi(ucv, s->frames, &s->flags);
	else
		s->nframes = walk(fp, sp, s->frames);
	atomic_store_explicit(&s->seq, h + 1, memory_order_release);
}

/* ------------------------------------- the signals shared with the program */

static int
real_sigaction(int sig, const struct sigaction *a, struct sigaction *o)
{
	return rt_libc_sigaction ? rt_libc_sigaction(sig, a, o) :
	    sigaction(sig, a, o);
}

static int
real_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return rt_libc_sigmask ? rt_libc_sigmask(how, set, old) :
	    pthread_sigmask(how, set, old);
}

static void
real_itimer(const struct itimerval *it)
{
	if (rt_libc_setitimer)
		rt_libc_setitimer(ITIMER_PROF, it, NULL);
	else
		setitimer(ITIMER_PROF, it, NULL);
}

static uint64_t
cpu_ns(clockid_t c)
{
	struct timespec ts;

	if (clock_gettime(c, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Raises sig again on this thread with the same siginfo. */
static void
reraise(int sig, const siginfo_t *si)
{
	syscall(SYS_rt_tgsigqueueinfo, getpid(), syscall(SYS_gettid), sig,
	    si);
}

/*
 * A vfork(2) child shares its parent's memory, and so the runtime's
 * state, but has its own signal actions and mask: its calls go to libc
 * untouched, lest they change what the parent's runtime holds.
 */
static int
in_vfork_child(void)
{
	return rt.pid != 0 && (uint32_t)getpid() != rt.pid;
}

/*
 * The program's action for sig is the default, which for every signal
 * the runtime borrows ends the process: its last records are sent, the
 * default restored and the signal raised again, which the kernel
 * delivers when the handler returns.  A fault the kernel raised (si_code
 * > 0) happens again by itself when the faulting instruction reruns.
 */
static void
die_of(int sig, const siginfo_t *si)
{
	struct sigaction dfl;

	rt_final();
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	if (!in_vfork_child())
		atomic_store(&borrowed[sig], BORROW_NONE);
	real_sigaction(sig, &dfl, NULL);
	if (si->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS ||
	    sig == SIGILL || sig == SIGFPE))
		return;
	reraise(sig, si);
}

/* Does with a signal that is not the runtime's what the program set. */
static void
pass_on(int sig, siginfo_t *si, void *ucv)
{
	struct sigaction a = prog_act[sig];
	sigset_t mask, old;

	if (a.sa_handler == SIG_IGN)
		return;
	if (a.sa_handler == SIG_DFL) {
		die_of(sig, si);
		return;
	}
	mask = a.sa_mask;
	if (!(a.sa_flags & SA_NODEFER))
		sigaddset(&mask, sig);
	real_sigmask(SIG_BLOCK, &mask, &old);
	if (a.sa_flags & SA_SIGINFO)
		a.sa_sigaction(sig, si, ucv);
	else
		a.sa_handler(sig);
	real_sigmask(SIG_SETMASK, &old, NULL);
	if (a.sa_flags & SA_RESETHAND)
		prog_act[sig].sa_handler = SIG_DFL;
}

static int
is_sample(int sig, const siginfo_t *si)
{
	if (sig != atomic_load_explicit(&sample_sig, memory_order_relaxed))
		return 0;
	if (sig == SIGPROF)
		return si->si_code == SI_KERNEL && !atomic_load(&taken);
	return si->si_code == SI_TIMER &&
	    si->si_value.sival_ptr == (void *)&timer_cookie;
}

/*
 * The sampling signal's handler: the runtime's own signals are samples,
 * even in a thread that asked for the signal to be blocked.  Another
 * signal of that number goes where the program wanted it: made pending
 * again, blocked when the handler returns, in such a thread; else to the
 * program's action.
 */
static void
on_sample_sig(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	int e = errno;

	if (is_sample(sig, si)) {
		take_sample(si, ucv);
		jitter_rearm(si);
	} else if (want_blocked) {
		sigaddset(&uc->uc_sigmask, sig);
		reraise(sig, si);
	} else
		pass_on(sig, si, ucv);
	errno = e;
}

/* A fatal signal whose action the program left the default. */
static void
on_fatal(int sig, siginfo_t *si, void *ucv)
{
	int e = errno;

	(void)ucv;
	if (prog_act[sig].sa_handler == SIG_DFL)
		die_of(sig, si);
	errno = e;
}

/*
 * Puts fn on sig, keeping what was there as the program's action.  A
 * fatal signal is borrowed only when its action is the default.
 */
static int
borrow(int sig, int kind, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa, old;

	if (real_sigaction(sig, NULL, &old) < 0)
		return -1;
	if (atomic_load(&borrowed[sig]) != BORROW_NONE)
		return 0;
	if (kind == BORROW_FATAL && ((old.sa_flags & SA_SIGINFO) ||
	    old.sa_handler != SIG_DFL))
		return 0;
	prog_act[sig] = old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (real_sigaction(sig, &sa, NULL) < 0)
		return -1;
	atomic_store(&borrowed[sig], kind);
	return 0;
}

static const int fatal_sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGILL,
    SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM,
    SIGTERM, SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,
    SIGPWR, SIGSYS };

/* Preloaded: the fatal signals left to their default, so that the last
 * buffer is sent before the process dies of one. */
static void
borrow_fatal(void)
{
	size_t i;

	for (i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++)
		if (fatal_sigs[i] != atomic_load(&sample_sig))
			borrow(fatal_sigs[i], BORROW_FATAL, on_fatal);
}

/* Blocks or unblocks sig in this thread. */
static void
mask_one(int how, int sig)
{
	sigset_t one;

	sigemptyset(&one);
	sigaddset(&one, sig);
	real_sigmask(how, &one, NULL);
}

/* Whether the sampling signal is blocked in this thread. */
static int
sig_blocked_here(void)
{
	int sig = atomic_load(&sample_sig);
	sigset_t cur;

	return sig != 0 && real_sigmask(SIG_BLOCK, NULL, &cur) == 0 &&
	    sigismember(&cur, sig);
}

/*
 * Opens the sampling signal in this thread when it is blocked there and
 * the masks are interposed (the program then sees it blocked).
 */
static void
sig_open(void)
{
	if (rt_libc_sigmask == NULL || !sig_blocked_here())
		return;
	mask_one(SIG_UNBLOCK, atomic_load(&sample_sig));
	want_blocked = 1;
}

/*
 * Makes sig the sampling signal, taking it over from the program, and
 * opens it in this thread if the program had it blocked (inherited
 * across an exec) and the masks are interposed.  Under ITIMER_PROF a
 * handler the program put on SIGPROF before means the program owns it.
 */
static int
sample_sig_take(int sig)
{
	atomic_store(&sample_sig, sig);
	if (borrow(sig, BORROW_SAMPLE, on_sample_sig) < 0)
		return -1;
	if (sig == SIGPROF && prog_act[sig].sa_handler != SIG_DFL &&
	    prog_act[sig].sa_handler != SIG_IGN)
		rt_take(PMECLOCK_CPU_HANDLER);
	sig_open();
	return 0;
}

/* Gives sig back to the program (the timer method could not start). */
static void
sig_give_back(int sig)
{
	atomic_store(&borrowed[sig], BORROW_NONE);
	real_sigaction(sig, &prog_act[sig], NULL);
	atomic_store(&sample_sig, 0);
}

/*
 * Before an exec (out set): the new image inherits the sampling signal
 * ignored or blocked if the program set it so (an exec resets a handler
 * itself).  After an exec that failed (out clear): the runtime's again.
 */
static void
sig_exec(int out)
{
	int sig = atomic_load(&sample_sig);
	struct sigaction sa;

	if (sig == 0)
		return;
	if (prog_act[sig].sa_handler == SIG_IGN) {
		memset(&sa, 0, sizeof(sa));
		if (out)
			sa.sa_handler = SIG_IGN;
		else {
			sa.sa_sigaction = on_sample_sig;
			sa.sa_flags = SA_SIGINFO | SA_RESTART;
		}
		sigemptyset(&sa.sa_mask);
		real_sigaction(sig, &sa, NULL);
	}
	if (want_blocked)
		mask_one(out ? SIG_BLOCK : SIG_UNBLOCK, sig);
}

/* The program takes ITIMER_PROF (see proto.h for the flags). */
void
rt_take(int flag)
{
	struct itimerval off;
	int none = 0;

	if (!atomic_compare_exchange_strong(&taken, &none, flag))
		return;
	taken_cpu = cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - rt.cpu0;
	/* Its own handler must not get the runtime's signals. */
	if (flag == PMECLOCK_CPU_HANDLER) {
		memset(&off, 0, sizeof(off));
		real_itimer(&off);
	}
}

/*
 * The program sets an action for the sampling signal: a handler of its
 * own on SIGPROF takes ITIMER_PROF; its signals are handled as it asks
 * (restarting system calls or not, on its alternate stack or not).
 */
static void
sample_flags(int sig, const struct sigaction *a)
{
	struct sigaction sa;
	int own = a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;

	if (own && sig == SIGPROF)
		rt_take(PMECLOCK_CPU_HANDLER);
	if (real_sigaction(sig, NULL, &sa) < 0 ||
	    sa.sa_sigaction != on_sample_sig)
		return;
	sa.sa_flags = SA_SIGINFO | (own ? a->sa_flags &
	    (SA_RESTART | SA_ONSTACK) : SA_RESTART);
	real_sigaction(sig, &sa, NULL);
}

int
rt_sigaction(int sig, const struct sigaction *act, struct sigaction *oact,
    int *rc)
{
	struct sigaction a, prev;
	int kind;

	if (sig <= 0 || sig >= _NSIG ||
	    (kind = atomic_load(&borrowed[sig])) == BORROW_NONE ||
	    in_vfork_child())
		return 0;
	prev = prog_act[sig];
	*rc = 0;
	if (act != NULL) {
		a = *act;
		if (kind == BORROW_FATAL && a.sa_handler != SIG_DFL) {
			/* The program's own: the runtime lets it go. */
			if ((*rc = real_sigaction(sig, &a, NULL)) < 0)
				return 1;
			atomic_store(&borrowed[sig], BORROW_NONE);
		}
		prog_act[sig] = a;
		if (kind == BORROW_SAMPLE)
			sample_flags(sig, &a);
	}
	if (oact != NULL)
		*oact = prev;
	return 1;
}

int
rt_sigmask(int how, const sigset_t *set, sigset_t *old,
    int (*fn)(int, const sigset_t *, sigset_t *))
{
	int sig = atomic_load(&sample_sig), want = want_blocked, rc;
	sigset_t s;

	if (sig == 0 || in_vfork_child())
		return fn(how, set, old);
	if (set == NULL || (how != SIG_BLOCK && how != SIG_UNBLOCK &&
	    how != SIG_SETMASK)) {
		rc = fn(how, set, old);
		if (rc == 0 && old != NULL && want_blocked)
			sigaddset(old, sig);
		return rc;
	}
	s = *set;
	if (sigismember(&s, sig)) {
		want = how != SIG_UNBLOCK;
		sigdelset(&s, sig);
	} else if (how == SIG_SETMASK)
		want = 0;
	if ((rc = fn(how, &s, old)) == 0) {
		if (old != NULL && want_blocked)
			sigaddset(old, sig);
		want_blocked = want;
	}
	return rc;
}

int
rt_setitimer(int which, const struct itimerval *nv, struct itimerval *ov,
    int *rc)
{
	if (which != ITIMER_PROF || nv == NULL ||
	    atomic_load(&sample_sig) != SIGPROF || atomic_load(&taken) ||
	    in_vfork_child())
		return 0;
	/* Stopping a timer it never set changes nothing for the program. */
	if (nv->it_value.tv_sec == 0 && nv->it_value.tv_usec == 0) {
		if (ov != NULL)
			memset(ov, 0, sizeof(*ov));
		*rc = 0;
		return 1;
	}
	rt_take(PMECLOCK_CPU_ITIMER);
	*rc = rt_libc_setitimer(which, nv, ov);
	if (*rc == 0 && ov != NULL)
		memset(ov, 0, sizeof(*ov));
	return 1;
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

void
rt_send(const void *m, size_t len)
{
	sock_send(m, len);
}

/* The heap recording's entries, where it is built in (heap.c). */
#define HEAP_CALL(fn)	do { if (fn != NULL) fn(); } while (0)

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
sink_cpu(uint32_t tid, uint32_t flags, uint64_t cpu)
{
	struct pmeclock_cpu m;

	if (rt.sink != SINK_SOCK)
		return;
	memset(&m, 0, sizeof(m));
	m.tid = tid;
	m.flags = flags;
	m.cpu = cpu;
	m.taken = tid == 0 ? taken_cpu : 0;
	msg_hdr(&m.hdr, PMECLOCK_MSG_CPU, sizeof(m));
	sock_send(&m, sizeof(m));
}

/* Said by the process that execs, which is not rt.pid after vfork. */
static void
sink_exec(const char *path, uint32_t flags, uint32_t id)
{
	uint8_t buf[sizeof(struct pmeclock_exec) + PMECLOCK_PATH_MAX];
	struct pmeclock_exec *me = (void *)buf;
	size_t len = strnlen(path, PMECLOCK_PATH_MAX - 1);

	memset(me, 0, sizeof(*me));
	me->flags = flags;
	me->id = id;
	memcpy(buf + sizeof(*me), path, len);
	buf[sizeof(*me) + len] = '\0';
	msg_hdr(&me->hdr, PMECLOCK_MSG_EXEC, sizeof(*me) + len + 1);
	me->hdr.pid = (uint32_t)getpid();
	sock_send(buf, sizeof(*me) + len + 1);
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
		ps.flags = s->flags;
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
	r.flags = s->flags;
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

/* Whether info is the vDSO's: its first load segment at the address
 * the kernel gave the process in its auxiliary vector. */
static int
is_vdso(const struct dl_phdr_info *info)
{
	unsigned long at = getauxval(AT_SYSINFO_EHDR);
	int i;

	for (i = 0; at != 0 && i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD)
			return info->dlpi_addr + info->dlpi_phdr[i].p_vaddr -
			    info->dlpi_phdr[i].p_offset == at;
	return 0;
}

/* The GNU build-id note of a loaded object, from its PT_NOTE segments. */
static uint32_t
buildid(const struct dl_phdr_info *info, const uint8_t **id)
{
	const ElfW(Phdr) *ph;
	uint32_t n = 0;
	int i;

	for (i = 0; i < info->dlpi_phnum && n == 0; i++) {
		ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_NOTE)
			n = pme_note_buildid((const void *)(info->dlpi_addr +
			    ph->p_vaddr), ph->p_memsz, 64, id);
	}
	return n;
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
	} else if (rt.sink == SINK_SOCK && info->dlpi_phnum > 0 &&
	    is_vdso(info))	/* pmeclock gives it its file: collect.c */
		snprintf(path, sizeof(path), "[vdso]");
	else
		return 0;
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

/*
 * Reads the file path, a small one of /proc, into buf, terminated;
 * returns its length or -1.  Only system calls: safe in a handler.
 */
static ssize_t
slurp(const char *path, char *buf, size_t n)
{
	ssize_t len;
	int fd;

	buf[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	len = read(fd, buf, n - 1);
	close(fd);
	if (len >= 0)
		buf[len] = '\0';
	return len;
}

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
	rt.threads[rt.nthreads].cpu0 = cpu_ns(THREAD_CPUCLOCK(tid));
	rt.nseen++;
	return &rt.threads[rt.nthreads++];
}

/*
 * The first expiry of a new timer, in [1, period] ns: at a random phase,
 * so that a thread or process that uses less than a period, or a period
 * and a bit, gets a sample with the probability of that fraction, and
 * short threads and children are sampled in proportion to their CPU
 * time instead of not at all.  (splitmix64 of the time and the tid.)
 */
static uint64_t
first_expiry(uint32_t tid)
{
	uint64_t x = rt_now() ^ ((uint64_t)tid << 32);

	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	x ^= x >> 31;
	return 1 + x % rt.period;
}

/* Arms a CPU-time timer on thread tid of this process; 0 or -1. */
static int
arm(struct rthread *th)
{
	struct itimerspec its;
	struct sigevent sev;
	uint64_t first;

	if (th->armed || rt.method != PME_METHOD_TIMER || rt.noclock)
		return 0;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = RT_SIGNAL;
	sev.sigev_value.sival_ptr = (void *)&timer_cookie;
	sev._sigev_un._tid = (pid_t)th->tid;
	if (timer_create(THREAD_CPUCLOCK(th->tid), &sev, &th->timer) < 0)
		return -1;
	its.it_interval.tv_sec = (time_t)(rt.period / 1000000000u);
	its.it_interval.tv_nsec = (long)(rt.period % 1000000000u);
	first = first_expiry(th->tid);
	its.it_value.tv_sec = (time_t)(first / 1000000000u);
	its.it_value.tv_nsec = (long)(first % 1000000000u);
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

	snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
	if ((len = slurp(path, name, n)) < 0)
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

int
rt_want_blocked(void)
{
	return want_blocked;
}

void
rt_thread_begin(uint32_t ptid, int want)
{
	struct rthread *th;
	uint32_t tid;

	stack_bounds();
	want_blocked = want;
	if (!atomic_load(&sampling))
		return;
	/* Blocked by the creator by means not interposed: opened. */
	sig_open();
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
		sink_cpu(tid, sig_blocked_here() ? PMECLOCK_CPU_BLOCKED : 0,
		    cpu_ns(CLOCK_THREAD_CPUTIME_ID) - th->cpu0);
	}
	sink_thread(PME_THREAD_COMM, tid, 0, 0, name);
	sink_thread(PME_THREAD_EXIT, tid, 0, 0, NULL);
	pthread_mutex_unlock(&rt.lock);
}

/* Writes v in decimal at p; returns the number of digits. */
static size_t
put_uint(char *p, uint32_t v)
{
	char d[10];
	size_t n = 0, i;

	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	for (i = 0; i < n; i++)
		p[i] = d[n - 1 - i];
	return n;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return -1;
}

/*
 * Whether thread tid has the sampling signal blocked, from the SigBlk
 * line of its /proc status: hexadecimal, signal 1 the lowest bit of the
 * last digit.  Only system calls and plain code: safe in a handler.
 */
static int
sig_blocked_in(uint32_t tid)
{
	static const char pre[] = "/proc/self/task/", key[] = "\nSigBlk:";
	char path[48], buf[2048], *p;
	int sig = atomic_load(&sample_sig), d;
	size_t len = sizeof(pre) - 1, i;

	memcpy(path, pre, len);
	len += put_uint(path + len, tid);
	memcpy(path + len, "/status", 8);
	if (sig == 0 || slurp(path, buf, sizeof(buf)) <= 0)
		return 0;
	if ((p = strstr(buf, key)) == NULL)
		return 0;
	p += sizeof(key) - 1;
	while (*p == ' ' || *p == '\t')
		p++;
	for (i = 0; hexval(p[i]) >= 0; i++)
		;
	if ((size_t)(sig - 1) / 4 >= i)
		return 0;
	d = hexval(p[i - 1 - (size_t)(sig - 1) / 4]);
	return (d >> ((sig - 1) % 4)) & 1;
}

/*
 * Sends the CPU time each live thread and the whole image used while
 * sampled, with what is known of why signals could be missing (lock
 * held).  Threads that ended through the trampoline have said theirs.
 */
static void
account(void)
{
	int sig = atomic_load(&sample_sig);
	struct sigaction cur;
	struct rthread *th;
	uint32_t flags = 0, f;
	uint64_t now;
	size_t i;

	if (rt.sink != SINK_SOCK)
		return;
	for (i = 0; i < rt.nthreads; i++) {
		th = &rt.threads[i];
		if (th->ended || (now = cpu_ns(THREAD_CPUCLOCK(th->tid))) == 0)
			continue;
		f = (th->tid == rt_gettid() ? sig_blocked_here() :
		    sig_blocked_in(th->tid)) ? PMECLOCK_CPU_BLOCKED : 0;
		flags |= f;
		sink_cpu(th->tid, f, now - th->cpu0);
	}
	flags |= (uint32_t)atomic_load(&taken);
	if (rt.method == PME_METHOD_ITIMER)
		flags |= PMECLOCK_CPU_ITIMER_M;
	if (sig != 0 && real_sigaction(sig, NULL, &cur) == 0 &&
	    cur.sa_sigaction != on_sample_sig)
		flags |= PMECLOCK_CPU_REPLACED;
	sink_cpu(0, flags, cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - rt.cpu0);
}

/* -------------------------------------------------------- the writer */

static void *
writer_main(void *arg)
{
	struct timespec ts;

	(void)arg;
	/* Its allocations are the runtime's, not the program's. */
	HEAP_CALL(rt_heap_hold);
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
		HEAP_CALL(rt_heap_flush);
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
	real_sigmask(SIG_SETMASK, &all, &old);
	rt.stop = 0;
	rt.writer_tid = 0;
	making_writer = 1;
	HEAP_CALL(rt_heap_hold);
	rt.writer_on = pthread_create(&rt.writer, NULL, writer_main,
	    NULL) == 0;
	HEAP_CALL(rt_heap_release);
	making_writer = 0;
	real_sigmask(SIG_SETMASK, &old, NULL);
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

/*
 * The settings pmeclock passes in the environment.  Read with
 * secure_getenv(3), as every PMECLOCK_ variable here: in a set-user-ID
 * or set-group-ID program (AT_SECURE) the environment is the invoking
 * user's, and a PMECLOCK_FD of theirs would have the runtime send them
 * the privileged process's addresses; there the runtime keeps its
 * defaults and is never the preload side.
 */
static void
env_settings(void)
{
	const char *s;
	unsigned long long v;

	rt.period = 10000000;
	rt.method = PME_METHOD_TIMER;
	rt.callchain = 0;
	if ((s = secure_getenv("PMECLOCK_PERIOD")) != NULL &&
	    (v = strtoull(s, NULL, 10)) >= 10000)
		rt.period = v;
	if ((s = secure_getenv("PMECLOCK_METHOD")) != NULL &&
	    strcmp(s, "itimer") == 0)
		rt.method = PME_METHOD_ITIMER;
	rt.cfi = 0;
	if ((s = secure_getenv("PMECLOCK_CALLCHAIN")) != NULL &&
	    strcmp(s, "1") == 0)
		rt.callchain = 1;
	if (s != NULL && strcmp(s, "dwarf") == 0)
		rt.callchain = rt.cfi = 1;
	rt.noclock = secure_getenv("PMECLOCK_NOCLOCK") != NULL;
	ring_jitter = 30;
	if ((s = secure_getenv("PMECLOCK_JITTER")) != NULL &&
	    (v = strtoull(s, NULL, 10)) <= 30)
		ring_jitter = (unsigned)v;
}

/*
 * Decides the method on the calling thread: its timer, or ITIMER_PROF
 * when timer_create is refused; puts the handler on the method's signal
 * first.  Lock held.
 */
static int
arm_first(void)
{
	struct rthread *th;
	struct itimerval it;
	uint64_t first;

	rt.cpu0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
	th = thread_find(rt_gettid(), 1);
	if (rt.noclock)
		return 0;
	if (rt.method == PME_METHOD_TIMER) {
		if (sample_sig_take(RT_SIGNAL) == 0 && th != NULL &&
		    arm(th) == 0)
			return 0;
		snprintf(rt.note, sizeof(rt.note), "timer_create refused "
		    "(%s): ITIMER_PROF", strerror(errno));
		sig_give_back(RT_SIGNAL);
		rt.method = PME_METHOD_ITIMER;
	}
	if (sample_sig_take(SIGPROF) < 0)
		return -1;
	if (atomic_load(&taken))
		return 0;	/* the program's already */
	it.it_interval.tv_sec = (time_t)(rt.period / 1000000000u);
	it.it_interval.tv_usec = (suseconds_t)(rt.period % 1000000000u /
	    1000);
	first = (first_expiry(0) + 999) / 1000;
	it.it_value.tv_sec = (time_t)(first / 1000000u);
	it.it_value.tv_usec = (suseconds_t)(first % 1000000u);
	real_itimer(&it);
	return 0;
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
	if (ring_init() < 0)
		return -1;
	if (rt.cfi)
		cfi_load();
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

	if ((s = secure_getenv("PMECLOCK_FD")) == NULL)
		return;
	fd = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || fd < 0 || fcntl((int)fd,
	    F_GETFD) < 0)
		return;		/* closed by the program's parent */
	env_settings();
	/* The runtime's allocations are not the program's. */
	HEAP_CALL(rt_heap_hold);
	pthread_mutex_lock(&rt.lock);
	rt.fd = (int)fd;
	fcntl(rt.fd, F_SETFD, 0);
	if (start_sampling() < 0) {
		pthread_mutex_unlock(&rt.lock);
		HEAP_CALL(rt_heap_release);
		return;
	}
	rt.sink = SINK_SOCK;
	arm_first();
	borrow_fatal();
	at_quick_exit(rt_final);
	hello();
	start_records();
	pthread_mutex_unlock(&rt.lock);
	HEAP_CALL(rt_heap_release);
	if (rt_heap_start != NULL)
		rt_heap_start(secure_getenv("PMECLOCK_HEAP"));
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
	if (rt.method == PME_METHOD_ITIMER && !atomic_load(&taken))
		real_itimer(&off);
	writer_stop();
	pthread_mutex_lock(&rt.lock);
	account();
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
	if (atomic_exchange(&finishing, 1))
		return;
	HEAP_CALL(rt_heap_stop);
	stop_sampling();
	bye();
	rt.sink = SINK_NONE;
	pthread_mutex_unlock(&rt.lock);
}

/*
 * The image ends without its destructor (_exit, a fatal signal,
 * quick_exit): what the ring holds and the closing messages are sent.
 * Safe in a signal handler but for the lock, which is only tried: the
 * writer holds it for moments, and a thread interrupted while holding it
 * would never give it back.  Nothing in a vfork(2) child, which shares
 * the parent's memory.
 */
void
rt_final(void)
{
	struct timespec ms = { 0, 1000000 };
	struct itimerval off;
	int i;

	if (rt.sink != SINK_SOCK || (uint32_t)getpid() != rt.pid ||
	    atomic_exchange(&finishing, 1))
		return;
	atomic_store(&sampling, 0);
	memset(&off, 0, sizeof(off));
	if (rt.method == PME_METHOD_ITIMER && !atomic_load(&taken))
		real_itimer(&off);
	HEAP_CALL(rt_heap_final);
	for (i = 0; pthread_mutex_trylock(&rt.lock) != 0; i++) {
		if (i == 200)
			return;
		nanosleep(&ms, NULL);
	}
	drain();
	account();
	bye();
	rt.sink = SINK_NONE;
	pthread_mutex_unlock(&rt.lock);
}

/*
 * Before an exec of path: pmeclock is told (it then expects the new
 * image to say hello), what the ring holds is sent with the CPU time of
 * the image, and ITIMER_PROF, which an exec keeps, is stopped, lest its
 * SIGPROF kill the new image before its runtime has a handler.  The new
 * image gets the sampling signal as the program set it: ignored or
 * blocked.  rt_after_exec() undoes this if the exec failed.  A vfork(2)
 * child, which shares its parent's memory, only tells pmeclock and hands
 * the signal over.
 */
void
rt_before_exec(const char *path, uint32_t flags, uint32_t id)
{
	struct itimerval off;

	if (rt.sink != SINK_SOCK || !atomic_load(&sampling))
		return;
	sink_exec(path, flags, id);
	if ((uint32_t)getpid() == rt.pid) {
		memset(&off, 0, sizeof(off));
		if (rt.method == PME_METHOD_ITIMER && !atomic_load(&taken))
			real_itimer(&off);
		HEAP_CALL(rt_heap_flush);
		pthread_mutex_lock(&rt.lock);
		drain();
		account();
		pthread_mutex_unlock(&rt.lock);
	}
	sig_exec(1);
}

void
rt_after_exec(void)
{
	size_t i;

	if (rt.sink != SINK_SOCK || !atomic_load(&sampling))
		return;
	sig_exec(0);
	if ((uint32_t)getpid() != rt.pid)
		return;
	pthread_mutex_lock(&rt.lock);
	for (i = 0; i < rt.nthreads; i++)
		rt.threads[i].cpu0 =
		    cpu_ns(THREAD_CPUCLOCK(rt.threads[i].tid));
	if (rt.method == PME_METHOD_ITIMER)
		arm_first();
	else
		rt.cpu0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
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
	atomic_store(&nested, 0);
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
	atomic_store(&finishing, 0);
	taken_cpu = 0;
	sink_thread(PME_THREAD_FORK, rt.pid, ppid, fork_ptid, NULL);
	arm_first();
	writer_start();
}

/* ------------------------------------------------ the seed's entries */

RT_EXPORT void
pme_sname(const char *name)
{
	if (name != NULL && !atomic_load(&sampling))
		(void)pme_name_trimmed(rt.sname, sizeof(rt.sname), name,
		    ".PMS");
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
	char cmd[4096], boot[PME_BOOT_MAX + 1];
	const char *path = rt.sname[0] ? rt.sname : PME_DEFAULT_PMS;

	/* pmeclock records the whole run already. */
	if (secure_getenv("PMECLOCK_ACTIVE") != NULL)
		return;
	if (rt.sink == SINK_FILE)
		atomic_fetch_add(&nested, 1);
	if (rt.sink != SINK_NONE)
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
	h.boot = pme_boot_id(boot, sizeof(boot)) == 0 ? boot : NULL;
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
	if (atomic_load(&nested) > 0) {
		atomic_fetch_sub(&nested, 1);
		return;
	}
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
