/*
 * runtime.c - libpmetrace, the seed's PMETRACE subroutines: pme_init()
 * reads a bucket file and starts counting every instruction of the
 * region, pme_exit() stops and writes the filled file.  See
 * libpmetrace(3).
 *
 * Three ways to count, chosen at pme_init():
 *   - under pmetrace's pmevg or callgrind engine (valgrind, and
 *     PMETRACE_ENGINE=pmevg or callgrind in the environment), the region
 *     is marked with callgrind's client requests (pme's valgrind tool
 *     answers them too) and pmetrace does the tallying;
 *   - under pmetrace's qemu engine (PMETRACE_ENGINE=qemu), the region
 *     is marked with the system call pme's QEMU plugin watches for
 *     (qemu/qmark.h), when the plugin says it saw it;
 *   - under pmetrace's step engine the whole program is being counted:
 *     nothing to do;
 *   - otherwise the calling thread steps itself: the x86-64 trap flag
 *     makes the processor raise SIGTRAP after every instruction, and the
 *     handler tallies the interrupted address.  The handler allocates
 *     nothing, takes no lock and does no stdio: everything it needs is
 *     built at pme_init(), and it counts with atomic additions because
 *     the threads created in the region inherit the trap flag.
 */
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif

#include "pmetrace.h"
#include "prog.h"
#include "qemu/qmark.h"
#include "rep.h"
#include "trace.h"
#include "util.h"

#define PUBLIC		__attribute__((visibility("default")))
#define MAXOBJS		256
#define EFLAGS_TF	0x100

enum { OFF, STEPPING, CALLGRIND, QEMU, INERT };

/* Executable segments of the objects loaded at pme_init(). */
struct robj {
	uint64_t	 start, end, bias;
	uint32_t	 module;
	uint64_t	*outside;
};

static struct {
	char		 iname[PATH_MAX], oname[PATH_MAX];
	char		 in[PATH_MAX];	/* the bucket file read: added to */
	volatile int	 on;
	struct pme_bucketfile *bf;
	struct tr_tally	*t;
	struct pme_bucket *bk;
	struct robj	 objs[MAXOBJS];
	size_t		 nobjs, last;
	uint64_t	 total, unmapped;
	struct sigaction old;
	int		 atfork;
} rt;

static const struct tr_opts rt_opts;

static void
say(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "libpmetrace: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
}

/* name by the seed's rule (trailing blanks trimmed, .PME added), into
 * buf; "" (the default name) when nothing is left or it does not fit. */
static void
set_name(char *buf, size_t len, const char *name)
{
	if (pme_name_trimmed(buf, len, name, ".PME") == -1)
		buf[0] = '\0';
}

PUBLIC void
pme_iname(const char *name)
{
	set_name(rt.iname, sizeof(rt.iname), name);
}

PUBLIC void
pme_oname(const char *name)
{
	set_name(rt.oname, sizeof(rt.oname), name);
}

PUBLIC void
pme_sname(const char *name)
{
	(void)name;
}

#if defined(__x86_64__)

static inline void
set_tf(int on)
{
	if (on)
		__asm__ volatile("pushfq; orq $0x100, (%%rsp); popfq" :::
		    "memory", "cc");
	else
		__asm__ volatile("pushfq; andq $~0x100, (%%rsp); popfq" :::
		    "memory", "cc");
}

/* A SIGTRAP that is not a step: the program's own, as it would have had
 * it without us. */
static void
forward(int sig, siginfo_t *si, void *uc)
{
	if (rt.old.sa_flags & SA_SIGINFO) {
		if (rt.old.sa_sigaction != NULL)
			rt.old.sa_sigaction(sig, si, uc);
	} else if (rt.old.sa_handler == SIG_DFL) {
		signal(sig, SIG_DFL);
		raise(sig);
	} else if (rt.old.sa_handler != SIG_IGN)
		rt.old.sa_handler(sig);
}

/*
 * A SIGTRAP the trap flag raises while SIGTRAP is blocked kills the
 * process (the kernel forces it with the default action), and glibc
 * blocks every signal around clone (pthread_create) and elsewhere.  So
 * when the next instruction is a rt_sigprocmask system call that would
 * block SIGTRAP, its set is replaced by the same set without SIGTRAP: a
 * copy in a table whose entries never change once written (the set may
 * be read-only, and the syscall reads it after the handler returns).
 */
#define NMASKS		32
#define TRAPBIT		((uint64_t)1 << (SIGTRAP - 1))

static uint64_t masks[NMASKS];
static const uint64_t nomask;

static const uint64_t *
mask_without_trap(uint64_t v)
{
	uint64_t m;
	size_t i;

	if (v == 0)
		return &nomask;
	for (i = 0; i < NMASKS; i++) {
		m = __atomic_load_n(&masks[i], __ATOMIC_ACQUIRE);
		if (m == 0 && __atomic_compare_exchange_n(&masks[i], &m, v, 0,
		    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return &masks[i];
		if (m == v)
			return &masks[i];
	}
	return NULL;
}

static void
keep_trap_unblocked(ucontext_t *uc, const uint8_t *ip)
{
	greg_t *r = uc->uc_mcontext.gregs;
	const uint64_t *set, *clean;

	if (ip[0] != 0x0f || ip[1] != 0x05 || r[REG_RAX] != SYS_rt_sigprocmask ||
	    r[REG_RDI] == SIG_UNBLOCK || r[REG_RSI] == 0)
		return;
	set = (const uint64_t *)r[REG_RSI];
	if ((*set & TRAPBIT) && (clean = mask_without_trap(*set & ~TRAPBIT)) !=
	    NULL)
		r[REG_RSI] = (greg_t)clean;
}

/*
 * The rep string instruction (rep.h) the thread is at: its address, its
 * REP_* (0: not at one) and whether its count was not zero on arrival.
 * Initial-exec: the handler must not be the first to touch its thread's
 * copy through __tls_get_addr.
 */
static __thread struct {
	uint64_t	 pc;
	int		 kind, ran;
} rep_at __attribute__((tls_model("initial-exec")));

/* One instruction executed at pc. */
static void
count_at(uint64_t pc)
{
	const struct robj *o;
	uint32_t b;
	size_t i;

	__atomic_fetch_add(&rt.total, 1, __ATOMIC_RELAXED);
	i = __atomic_load_n(&rt.last, __ATOMIC_RELAXED);
	if (i >= rt.nobjs || pc < rt.objs[i].start || pc >= rt.objs[i].end)
		for (i = 0; i < rt.nobjs; i++)
			if (pc >= rt.objs[i].start && pc < rt.objs[i].end)
				break;
	if (i < rt.nobjs) {
		__atomic_store_n(&rt.last, i, __ATOMIC_RELAXED);
		o = &rt.objs[i];
		b = pme_bucketfile_find(rt.bf, o->module, pc - o->bias, NULL);
		if (b != PME_NONE)
			__atomic_fetch_add(&rt.bk[b].count, 1,
			    __ATOMIC_RELAXED);
		else if (o->outside != NULL)
			__atomic_fetch_add(o->outside, 1, __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&rt.unmapped, 1, __ATOMIC_RELAXED);
		return;
	}
	if ((b = pme_bucketfile_find(rt.bf, PME_NONE, pc, NULL)) != PME_NONE)
		__atomic_fetch_add(&rt.bk[b].count, 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&rt.unmapped, 1, __ATOMIC_RELAXED);
}

/*
 * Each step: the instruction at the interrupted address is counted as it
 * is arrived at; a rep string instruction once per iteration, and once
 * more, the pass valgrind makes, when the thread leaves it because its
 * count ran out (rep.h).
 */
static void
on_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *r = uc->uc_mcontext.gregs;
	uint64_t pc;
	int kind;

	if (si->si_code != TRAP_TRACE) {
		forward(sig, si, ucv);
		return;
	}
	if (rt.on != STEPPING) {
		r[REG_EFL] &= ~(greg_t)EFLAGS_TF;
		return;
	}
	pc = (uint64_t)r[REG_RIP];
	keep_trap_unblocked(uc, (const uint8_t *)pc);
	if (rep_at.kind != 0 && pc == rep_at.pc) {
		count_at(pc);		/* another iteration */
		return;
	}
	if (rep_at.kind != 0 && tr_rep_ran_out(rep_at.kind, rep_at.ran,
	    (uint64_t)r[REG_RCX], (uint64_t)r[REG_EFL]))
		count_at(rep_at.pc);
	kind = tr_rep_decode((const uint8_t *)pc, 15);
	rep_at.pc = pc;
	rep_at.kind = kind == REP_NONE ? 0 : kind;
	rep_at.ran = rep_at.kind != 0 &&
	    tr_rep_count(kind, (uint64_t)r[REG_RCX]) != 0;
	count_at(pc);
}

static int
add_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	char exe[PATH_MAX];
	const char *path = info->dlpi_name;
	const uint8_t *id = NULL;
	uint32_t idlen = 0, mod;
	int *first = arg, ismain = *first;
	ssize_t n;
	int i;

	(void)size;
	*first = 0;
	if (ismain && (path == NULL || path[0] == '\0')) {
		if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) < 0)
			n = 0;
		exe[n] = '\0';
		path = exe;
	}
	for (i = 0; i < info->dlpi_phnum && idlen == 0; i++)
		if (info->dlpi_phdr[i].p_type == PT_NOTE)
			idlen = pme_note_buildid((const void *)(info->dlpi_addr +
			    info->dlpi_phdr[i].p_vaddr),
			    info->dlpi_phdr[i].p_memsz, 64, &id);
	mod = tr_tally_module(rt.t, path ? path : "", id, idlen, ismain);
	for (i = 0; i < info->dlpi_phnum && rt.nobjs < MAXOBJS; i++) {
		if (info->dlpi_phdr[i].p_type != PT_LOAD ||
		    !(info->dlpi_phdr[i].p_flags & PF_X))
			continue;
		rt.objs[rt.nobjs].start = info->dlpi_addr +
		    info->dlpi_phdr[i].p_vaddr;
		rt.objs[rt.nobjs].end = rt.objs[rt.nobjs].start +
		    info->dlpi_phdr[i].p_memsz;
		rt.objs[rt.nobjs].bias = info->dlpi_addr;
		rt.objs[rt.nobjs].module = mod;
		rt.nobjs++;
	}
	return 0;
}

static void
child_after_fork(void)
{
	/* The child's counts are a copy nobody writes: stop stepping. */
	if (rt.on == STEPPING) {
		rt.on = OFF;
		set_tf(0);
	}
}

static int
load(const char *in)
{
	struct pme_error err;
	struct pme_info *info;
	int first = 1;
	size_t i;

	if ((rt.bf = pme_bucketfile_open(in, &err)) == NULL) {
		say("%s%s", pme_strerror(&err), "");
		return -1;
	}
	/* The region's counts alone: stop_stepping adds them to the
	 * file's (ACCUMCOUNTS) under its lock. */
	info = pme_bucketfile_info(rt.bf);
	if (pme_fill_check(rt.bf, PME_MEASURE_INSTR, in, &err) == -1) {
		say("%s%s", pme_strerror(&err), "");
		return -1;
	}
	snprintf(rt.in, sizeof(rt.in), "%s", in);
	pme_bucketfile_clear(rt.bf);
	if (!(info->options & PME_OPT_ACCUM))
		pme_bucketfile_set_counts2(rt.bf, NULL, NULL);
	if ((rt.t = tr_tally_new(rt.bf, &rt_opts, &err)) == NULL) {
		say("%s%s", pme_strerror(&err), "");
		return -1;
	}
	rt.nobjs = 0;
	dl_iterate_phdr(add_object, &first);
	if (tr_tally_check(rt.t, in, &err) == -1) {
		say("%s%s", pme_strerror(&err), "");
		return -1;
	}
	for (i = 0; i < rt.nobjs; i++)
		rt.objs[i].outside = rt.objs[i].module == PME_NONE ? NULL :
		    pme_bucketfile_outside(rt.bf, rt.objs[i].module);
	pme_bucketfile_buckets(rt.bf, &rt.bk);
	rt.total = rt.unmapped = 0;
	return 0;
}

static void
unload(void)
{
	tr_tally_free(rt.t);
	pme_bucketfile_close(rt.bf);
	rt.t = NULL;
	rt.bf = NULL;
}

static void
start_stepping(void)
{
	struct sigaction sa;
	sigset_t set;

	if (load(rt.iname[0] ? rt.iname : PME_DEFAULT_PME) == -1) {
		unload();
		say("%s%s", "nothing measured", "");
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &rt.old) == -1) {
		unload();
		say("cannot catch SIGTRAP: %s%s", strerror(errno), "");
		return;
	}
	if (!rt.atfork && pthread_atfork(NULL, NULL, child_after_fork) == 0)
		rt.atfork = 1;
	sigemptyset(&set);
	sigaddset(&set, SIGTRAP);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	rt.on = STEPPING;
	set_tf(1);
}

static void
stop_stepping(void)
{
	struct pme_error err;
	struct pme_info *info;
	const char *out = rt.oname[0] ? rt.oname : PME_DEFAULT_PME;

	set_tf(0);
	rt.on = OFF;
	/* The handler stays: threads still stepping clear their flag at
	 * their next trap. */
	info = pme_bucketfile_info(rt.bf);
	info->measure = PME_MEASURE_INSTR;
	info->runs++;
	info->total += __atomic_load_n(&rt.total, __ATOMIC_RELAXED);
	info->unmapped += __atomic_load_n(&rt.unmapped, __ATOMIC_RELAXED);
	if (pme_fill_add(rt.in, out, rt.bf, &err) == -1)
		say("%s%s", pme_strerror(&err), "");
	unload();
}

#else /* !__x86_64__ */

static void
start_stepping(void)
{
	say("%s%s", "stepping needs x86-64 here: nothing measured (run the "
	    "program under pmetrace, whose callgrind engine counts it)", "");
	errno = ENOTSUP;
}

static void
stop_stepping(void)
{
}

#endif

/* Whether pme's QEMU plugin saw the mark req (qemu/qmark.h). */
static int
qemu_mark(long req)
{
	volatile uint32_t seen = 0;

	syscall(PMEQEMU_MARK, req, &seen);
	return seen != 0;
}

PUBLIC void
pme_init(void)
{
	const char *engine = secure_getenv("PMETRACE_ENGINE");

	if (rt.on != OFF)
		return;
#if defined(HAVE_CALLGRIND)
	if (RUNNING_ON_VALGRIND) {
		/* pmevg answers callgrind's client requests. */
		if (engine == NULL || (strcmp(engine, "callgrind") != 0 &&
		    strcmp(engine, "pmevg") != 0)) {
			say("%s%s", "under valgrind but not under pmetrace's "
			    "pmevg or callgrind engine: nothing measured", "");
			return;
		}
		CALLGRIND_ZERO_STATS;
		rt.on = CALLGRIND;
		return;
	}
#endif
	if (engine != NULL && strcmp(engine, "qemu") == 0 &&
	    qemu_mark(PMEQEMU_ZERO)) {
		rt.on = QEMU;
		return;
	}
	if (engine != NULL && strcmp(engine, "step") == 0) {
		rt.on = INERT;
		return;
	}
	start_stepping();
}

PUBLIC void
pme_exit(void)
{
	switch (rt.on) {
	case CALLGRIND:
#if defined(HAVE_CALLGRIND)
		CALLGRIND_DUMP_STATS_AT("pmetrace region");
#endif
		rt.on = OFF;
		break;
	case QEMU:
		qemu_mark(PMEQEMU_REGION);
		rt.on = OFF;
		break;
	case INERT:
		rt.on = OFF;
		break;
	case STEPPING:
		stop_stepping();
		break;
	}
}
