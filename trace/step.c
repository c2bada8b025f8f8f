/*
 * step.c - the step engine: runs the command under ptrace and steps every
 * thread of every process one instruction at a time (PTRACE_SINGLESTEP),
 * tallying each instruction's address.  Self-contained and exact, and
 * slow: three system calls and two context switches per instruction.
 *
 * An instruction is tallied once it is known to have executed: at each
 * step stop the instruction at the previous stop's address (prev) is
 * counted, and prev becomes the new address.  The cases where a stop does
 * not follow the execution of prev:
 *   - a PTRACE_EVENT stop (fork, clone, exec) comes inside the system
 *     call; the step stop at its end counts it;
 *   - after exec, the first stop is at the new program's entry, before
 *     any of its instructions (the system call is counted at the exec
 *     event, in the old program's mappings);
 *   - a signal delivered to a handler stops at the handler's entry, before
 *     prev executes (it executes after the handler returns);
 *   - a thread that exits stops at PTRACE_EVENT_EXIT: prev executed when it
 *     was the exit system call (the address moved past it), not when the
 *     thread was killed there (exit_group of another thread, a signal).
 *
 * String instructions with a rep prefix are counted as valgrind executes
 * them, by rep.h's rule (shared with libpmetrace's own stepping): the
 * engine notes the count register when a task arrives at such an
 * instruction and, when it leaves it, adds the last pass valgrind makes
 * if the count ran out.  The instruction at an address is decoded once
 * per process (two PTRACE_PEEKTEXT) and remembered.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <sys/user.h>
#endif

#include "maps.h"
#include "rep.h"
#include "pme_sample.h"
#include "trace.h"
#include "prog.h"
#include "util.h"

#if defined(__x86_64__)

/* An executable mapping: vaddr = pc + delta (modulo 2^64). */
struct smap {
	uint64_t	 start, end, delta;
	uint32_t	 module;
};

/* Instructions decoded, by address: REP_* or REP_NONE.  Forgotten when
 * the mappings are read again (exec, new code); code rewritten in place,
 * as a JIT compiler's, is not decoded again. */
struct insns {
	uint64_t	*addr;		/* 0: empty slot */
	uint8_t		*kind;
	size_t		 n, cap;	/* cap a power of two, or 0 */
};

struct proc {
	pid_t		 pid;
	struct smap	*maps;
	size_t		 nmaps, last;
	uint64_t	 missed;	/* page re-read for last, or 1 */
	int		 tasks;		/* live tasks using it */
	int		 traps;		/* SIGTRAP's action: TRAPS_* */
	struct insns	 insns;
};

struct task {
	pid_t		 tid;
	struct proc	*p;
	uint64_t	 prev;
	int		 haveprev;
	int		 fresh;		/* its first stop is still to come */
	int		 rep;		/* prev is a rep string instruction:
					 * its REP_* */
	int		 repran;	/* its count was not zero on arrival */
};

/* ELF files already read, by path. */
struct elfcache {
	char		*path;
	struct pme_elf	 elf;
	int		 ok;
};

enum { TRAPS_DEFAULT, TRAPS_IGNORED, TRAPS_CAUGHT };

struct stepper {
	struct tr_tally	*t;
	const struct tr_opts *o;
	struct task	**tasks;
	size_t		 ntasks, cap, last;
	struct elfcache	*elves;
	size_t		 nelves;
	pid_t		 mainpid;
	pid_t		 refused;	/* a process that handles SIGTRAP
					 * raised it: see stepped() */
	int		 status;
	uint64_t	 steps;
};

#define RIP_OFFSET	offsetof(struct user_regs_struct, rip)
#define RCX_OFFSET	offsetof(struct user_regs_struct, rcx)
#define EFLAGS_OFFSET	offsetof(struct user_regs_struct, eflags)

/* A user register of tid (at off in struct user_regs_struct), or -1 with
 * errno set; clear errno first to tell -1 from a failure. */
static long
peek_reg(pid_t tid, size_t off)
{
	return ptrace(PTRACE_PEEKUSER, tid, (void *)off, NULL);
}

static void
insns_free(struct insns *in)
{
	free(in->addr);
	free(in->kind);
	memset(in, 0, sizeof(*in));
}

static const struct pme_elf *
elf_of(struct stepper *s, const char *path)
{
	struct elfcache *e;
	size_t i;

	for (i = 0; i < s->nelves; i++)
		if (strcmp(s->elves[i].path, path) == 0)
			return s->elves[i].ok ? &s->elves[i].elf : NULL;
	if ((e = realloc(s->elves, (s->nelves + 1) * sizeof(*e))) == NULL)
		return NULL;
	s->elves = e;
	e = &s->elves[s->nelves];
	if ((e->path = strdup(path)) == NULL)
		return NULL;
	e->ok = pme_elf_read(path, &e->elf, NULL) == 0;
	s->nelves++;
	return e->ok ? &e->elf : NULL;
}

/* One line of /proc/PID/maps, if it maps code. */
static int
map_line(struct stepper *s, const struct pme_maps_line *ml, const char *exe,
    struct smap *m)
{
	const struct pme_elf *elf;
	const char *path = ml->path;

	if (strchr(ml->perms, 'x') == NULL)
		return 0;
	m->start = ml->start;
	m->end = ml->end;
	m->delta = 0;
	m->module = PME_NONE;
	if (path[0] != '/')
		return 1;
	if ((elf = elf_of(s, path)) != NULL) {
		m->delta = pme_elf_addr(elf, ml->offset) - ml->start;
		m->module = tr_tally_module(s->t, path, elf->buildid,
		    elf->idlen, strcmp(path, exe) == 0);
	} else
		m->module = tr_tally_module(s->t, path, NULL, 0,
		    strcmp(path, exe) == 0);
	return 1;
}

/* The code mappings of the maps text fp (named name) into p. */
static void
maps_from(struct stepper *s, struct proc *p, FILE *fp, const char *name,
    const char *exe)
{
	struct pme_maps_line ml;
	struct pme_maps r;
	struct smap m, *v;
	int rc;

	pme_maps_init(&r, fp, name);
	while ((rc = pme_maps_next(&r, &ml, NULL)) != 0) {
		if (rc < 0 || !map_line(s, &ml, exe, &m))
			continue;
		if ((v = realloc(p->maps, (p->nmaps + 1) * sizeof(*v))) ==
		    NULL)
			break;
		p->maps = v;
		p->maps[p->nmaps++] = m;
	}
	pme_maps_end(&r);
}

static void
read_maps(struct stepper *s, struct proc *p)
{
	char path[64], exe[PATH_MAX];
	ssize_t n;
	FILE *fp;

	p->nmaps = 0;
	p->last = 0;
	insns_free(&p->insns);
	snprintf(path, sizeof(path), "/proc/%ld/exe", (long)p->pid);
	if ((n = readlink(path, exe, sizeof(exe) - 1)) < 0)
		n = 0;
	exe[n] = '\0';
	if (n > 10 && strcmp(exe + n - 10, " (deleted)") == 0)
		exe[n - 10] = '\0';
	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)p->pid);
	if ((fp = fopen(path, "re")) == NULL)
		return;
	maps_from(s, p, fp, path, exe);
	fclose(fp);
}

/*
 * For the fuzz target: the code mappings of maps text fp, of a process
 * whose executable is exe, as read_maps() takes them, in *out (the
 * caller frees it); how many, or 0 with *out NULL.
 */
size_t
tr_step_maps(struct tr_tally *t, FILE *fp, const char *exe,
    struct tr_map **out)
{
	struct stepper s;
	struct proc p;
	size_t i, n = 0;

	memset(&s, 0, sizeof(s));
	memset(&p, 0, sizeof(p));
	s.t = t;
	maps_from(&s, &p, fp, "maps", exe);
	*out = p.nmaps > 0 ? calloc(p.nmaps, sizeof(**out)) : NULL;
	for (i = 0; *out != NULL && i < p.nmaps; i++, n++) {
		(*out)[i].start = p.maps[i].start;
		(*out)[i].end = p.maps[i].end;
		(*out)[i].delta = p.maps[i].delta;
		(*out)[i].module = p.maps[i].module;
	}
	free(p.maps);
	for (i = 0; i < s.nelves; i++)
		free(s.elves[i].path);
	free(s.elves);
	return n;
}

static const struct smap *
find_map(struct proc *p, uint64_t pc)
{
	size_t lo = 0, hi = p->nmaps, mid;

	if (p->last < p->nmaps && pc >= p->maps[p->last].start &&
	    pc < p->maps[p->last].end)
		return &p->maps[p->last];
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pc < p->maps[mid].start)
			hi = mid;
		else if (pc >= p->maps[mid].end)
			lo = mid + 1;
		else {
			p->last = mid;
			return &p->maps[mid];
		}
	}
	return NULL;
}

static void
count(struct stepper *s, struct task *k, uint64_t pc)
{
	const struct smap *m;

	s->steps++;
	if ((m = find_map(k->p, pc)) == NULL &&
	    k->p->missed != (pc >> 12)) {
		/* New code (dlopen): read the mappings again, once per page
		 * that no mapping holds. */
		k->p->missed = pc >> 12;
		read_maps(s, k->p);
		m = find_map(k->p, pc);
	}
	if (m == NULL)
		tr_tally_add(s->t, PME_NONE, pc, pc, 1, 1);
	else
		tr_tally_add(s->t, m->module, pc + m->delta, pc, 1, 1);
}

/* ---------------------------------------------------------------- rep */

static size_t
insn_slot(const struct insns *in, uint64_t pc)
{
	size_t i = (size_t)((pc * 0x9e3779b97f4a7c15ULL) >> 32) &
	    (in->cap - 1);

	while (in->addr[i] != 0 && in->addr[i] != pc)
		i = (i + 1) & (in->cap - 1);
	return i;
}

/* Remembers kind at pc; nothing when memory is short. */
static void
insn_put(struct insns *in, uint64_t pc, int kind)
{
	struct insns big;
	size_t i, k;

	if (2 * (in->n + 1) > in->cap) {
		big.cap = in->cap ? 2 * in->cap : 1024;
		big.n = in->n;
		big.addr = calloc(big.cap, sizeof(*big.addr));
		big.kind = malloc(big.cap);
		if (big.addr == NULL || big.kind == NULL) {
			free(big.addr);
			free(big.kind);
			return;
		}
		for (i = 0; i < in->cap; i++)
			if (in->addr[i] != 0) {
				k = insn_slot(&big, in->addr[i]);
				big.addr[k] = in->addr[i];
				big.kind[k] = in->kind[i];
			}
		insns_free(in);
		*in = big;
	}
	k = insn_slot(in, pc);
	in->addr[k] = pc;
	in->kind[k] = (uint8_t)kind;
	in->n++;
}

/* The REP_* of the instruction at pc in k's process, decoded once. */
static int
rep_kind(struct task *k, uint64_t pc)
{
	struct insns *in = &k->p->insns;
	uint8_t b[16];
	size_t i, n;
	long w;
	int kind;

	if (in->cap > 0 && in->addr[i = insn_slot(in, pc)] == pc)
		return in->kind[i];
	for (n = 0; n < sizeof(b); n += sizeof(w)) {
		errno = 0;
		w = ptrace(PTRACE_PEEKTEXT, k->tid, (void *)(pc + n), NULL);
		if (w == -1 && errno != 0)
			break;
		memcpy(b + n, &w, sizeof(w));
	}
	kind = tr_rep_decode(b, n);
	insn_put(in, pc, kind);
	return kind;
}

/* The count register of k, as the instruction of kind uses it. */
static uint64_t
rep_count(const struct task *k, int kind, int *ok)
{
	long v;

	errno = 0;
	v = peek_reg(k->tid, RCX_OFFSET);
	*ok = !(v == -1 && errno != 0);
	return tr_rep_count(kind, (uint64_t)v);
}

/* k arrives at pc: note whether a rep string instruction with a count
 * is there. */
static void
rep_arrive(struct task *k, uint64_t pc)
{
	int kind = rep_kind(k, pc), ok;

	k->rep = kind == REP_NONE ? 0 : kind;
	k->repran = k->rep != 0 && rep_count(k, kind, &ok) != 0 && ok;
}

/* k left the rep string instruction at prev: whether valgrind made a
 * last pass, finding the count zero, after at least one iteration. */
static int
rep_ran_out(const struct task *k)
{
	uint64_t rcx;
	long fl = 0;
	int ok;

	/* The count first: the flags are read only when the rule needs
	 * them (a second ptrace call per pass otherwise). */
	if (!k->repran || (rcx = rep_count(k, k->rep, &ok)) != 0 || !ok)
		return 0;
	if ((k->rep & REP_KIND) != REP_ALWAYS) {
		errno = 0;
		fl = peek_reg(k->tid, EFLAGS_OFFSET);
		if (fl == -1 && errno != 0)
			return 0;
	}
	return tr_rep_ran_out(k->rep, k->repran, rcx, (uint64_t)fl);
}

/* ------------------------------------------------------------ tasks */

static struct proc *
new_proc(pid_t pid, const struct proc *copy)
{
	struct proc *p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->pid = pid;
	p->missed = 1;
	if (copy != NULL)
		p->traps = copy->traps;	/* a fork keeps the handlers */
	if (copy != NULL && copy->nmaps > 0) {
		if ((p->maps = malloc(copy->nmaps * sizeof(*p->maps))) ==
		    NULL) {
			free(p);
			return NULL;
		}
		memcpy(p->maps, copy->maps, copy->nmaps * sizeof(*p->maps));
		p->nmaps = copy->nmaps;
	}
	return p;
}

static struct task *
find_task(struct stepper *s, pid_t tid)
{
	size_t i;

	if (s->last < s->ntasks && s->tasks[s->last]->tid == tid)
		return s->tasks[s->last];
	for (i = 0; i < s->ntasks; i++)
		if (s->tasks[i]->tid == tid) {
			s->last = i;
			return s->tasks[i];
		}
	return NULL;
}

static struct task *
add_task(struct stepper *s, pid_t tid, struct proc *p)
{
	struct task *k, **v;

	if (s->ntasks == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		if ((v = realloc(s->tasks, s->cap * sizeof(*v))) == NULL)
			return NULL;
		s->tasks = v;
	}
	if ((k = calloc(1, sizeof(*k))) == NULL)
		return NULL;
	k->tid = tid;
	k->p = p;
	k->fresh = 1;
	p->tasks++;
	s->tasks[s->ntasks++] = k;
	return k;
}

static void
drop_task(struct stepper *s, struct task *k)
{
	size_t i;

	for (i = 0; i < s->ntasks && s->tasks[i] != k; i++)
		continue;
	if (i == s->ntasks)
		return;
	s->tasks[i] = s->tasks[--s->ntasks];
	if (--k->p->tasks == 0) {
		free(k->p->maps);
		insns_free(&k->p->insns);
		free(k->p);
	}
	free(k);
}

/* The thread group of tid, from /proc. */
static pid_t
tgid_of(pid_t tid)
{
	char path[64], line[256];
	long tgid = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)tid);
	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	fclose(fp);
	return (pid_t)tgid;
}

/* Whether sig is in tid's process's mask field ("SigCgt: ", the signals
 * it handles, "SigIgn: ", those it ignores) in /proc. */
static int
sigmask_has(pid_t tid, const char *field, int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	size_t n = strlen(field);
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)tid);
	if ((fp = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strncmp(line, field, n) == 0) {
			mask = strtoull(line + n, NULL, 16);
			break;
		}
	fclose(fp);
	return sig >= 1 && sig <= 64 && (mask >> (sig - 1) & 1);
}

/* A task seen for the first time: a new thread or process. */
static struct task *
adopt(struct stepper *s, pid_t tid, struct task *parent)
{
	struct proc *p = NULL;
	pid_t tgid = tgid_of(tid);
	size_t i;

	for (i = 0; i < s->ntasks && tgid != -1; i++)
		if (s->tasks[i]->p->pid == tgid) {
			p = s->tasks[i]->p;
			break;
		}
	if (p == NULL && (p = new_proc(tgid != -1 ? tgid : tid,
	    parent ? parent->p : NULL)) == NULL)
		return NULL;
	return add_task(s, tid, p);
}

static uint64_t
rip(pid_t tid, int *ok)
{
	long v;

	errno = 0;
	v = peek_reg(tid, RIP_OFFSET);
	*ok = !(v == -1 && errno != 0);
	return (uint64_t)v;
}

/* ------------------------------------------------------------ stops */

static void
event_stop(struct stepper *s, struct task *k, int ev)
{
	unsigned long msg = 0;
	uint64_t pc;
	int ok;

	switch (ev) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		if (ptrace(PTRACE_GETEVENTMSG, k->tid, NULL, &msg) == 0 &&
		    find_task(s, (pid_t)msg) == NULL)
			adopt(s, (pid_t)msg, k);
		break;
	case PTRACE_EVENT_EXEC:
		if (k->haveprev)
			count(s, k, k->prev);
		k->haveprev = 0;
		if (k->p->traps == TRAPS_CAUGHT)
			k->p->traps = TRAPS_DEFAULT;	/* exec resets it */
		if (ptrace(PTRACE_GETEVENTMSG, k->tid, NULL, &msg) == 0 &&
		    (pid_t)msg != k->tid) {
			/* A thread exec'ed: it is now the leader. */
			k->tid = k->p->pid;
		}
		read_maps(s, k->p);
		break;
	case PTRACE_EVENT_EXIT:
		pc = rip(k->tid, &ok);
		if (ok && k->haveprev && pc != k->prev)
			count(s, k, k->prev);
		k->haveprev = 0;
		break;
	}
}

/*
 * After a system call k stepped over: if it was a successful
 * rt_sigaction() that set SIGTRAP's action, what the action now is, read
 * from the program's struct sigaction (its handler comes first).  Not
 * from /proc: the step's own trap has reset an ignored SIGTRAP already.
 */
static void
watch_sigaction(struct task *k)
{
	long act, h;

	errno = 0;
	if (peek_reg(k->tid, offsetof(struct user_regs_struct, orig_rax)) !=
	    SYS_rt_sigaction || errno != 0 ||
	    peek_reg(k->tid, offsetof(struct user_regs_struct, rdi)) !=
	    SIGTRAP ||
	    peek_reg(k->tid, offsetof(struct user_regs_struct, rax)) != 0 ||
	    (act = peek_reg(k->tid, offsetof(struct user_regs_struct, rsi)))
	    == 0 || errno != 0)
		return;
	h = ptrace(PTRACE_PEEKDATA, k->tid, (void *)act, NULL);
	if (errno != 0)
		return;
	k->p->traps = h == (long)SIG_DFL ? TRAPS_DEFAULT :
	    h == (long)SIG_IGN ? TRAPS_IGNORED : TRAPS_CAUGHT;
}

/*
 * Whether a SIGTRAP stop is the report of a step (si_code TRAP_TRACE;
 * TRAP_BRKPT after a system call; SIGTRAP on entering a signal handler)
 * rather than the program's own SIGTRAP: an int3 (SI_KERNEL), raise(3)
 * or kill(2) (SI_TKILL, SI_USER).  An int3 has run when it stops: it is
 * counted here.  *deliver is what the program gets.
 *
 * The kernel sends a step's trap as it sends any synchronous signal: if
 * SIGTRAP is ignored or blocked, it first restores the default action.
 * So a program that ignores SIGTRAP has it ignored by pmetrace (the
 * action set is watched for: watch_sigaction()): a raise(3) is dropped,
 * an int3 kills it, as when it runs alone.  A program that handles
 * SIGTRAP cannot be stepped faithfully (its handler blocks SIGTRAP, and
 * a step in it resets the handler): its first SIGTRAP is refused
 * (s->refused); until then its counts are exact.
 */
static int
stepped(struct stepper *s, struct task *k, int *deliver)
{
	siginfo_t si;
	uint64_t pc;
	int ok;

	*deliver = 0;
	if (ptrace(PTRACE_GETSIGINFO, k->tid, NULL, &si) == -1)
		return 1;
	if (si.si_code == TRAP_BRKPT)
		watch_sigaction(k);
	if (si.si_code > 0 && si.si_code != SI_KERNEL)
		return 1;
	pc = rip(k->tid, &ok);
	if (ok && k->haveprev && pc != k->prev) {
		count(s, k, k->prev);
		k->prev = pc;
	}
	if (k->p->traps == TRAPS_CAUGHT)
		s->refused = k->p->pid;
	else if (k->p->traps == TRAPS_DEFAULT || si.si_code == SI_KERNEL)
		*deliver = SIGTRAP;
	return 0;
}

/* A stop for signal sig: returns the signal to deliver. */
static int
signal_stop(struct stepper *s, struct task *k, int sig)
{
	siginfo_t si;
	int ok;

	(void)s;
	if (k->fresh && sig == SIGSTOP) {
		k->fresh = 0;
		k->prev = rip(k->tid, &ok);
		k->haveprev = ok;
		if (ok)
			rep_arrive(k, k->prev);
		return 0;
	}
	if (ptrace(PTRACE_GETSIGINFO, k->tid, NULL, &si) == -1)
		return 0;	/* a group-stop: carry on */
	if (sigmask_has(k->tid, "SigCgt:", sig))
		k->haveprev = 0;	/* the handler runs first */
	return sig;
}

static void
step_stop(struct stepper *s, struct task *k)
{
	uint64_t pc;
	int ok;

	pc = rip(k->tid, &ok);
	if (!ok)
		return;
	if (k->haveprev) {
		count(s, k, k->prev);
		if (k->rep != 0 && pc != k->prev && rep_ran_out(k))
			count(s, k, k->prev);
	}
	if (!k->haveprev || pc != k->prev)
		rep_arrive(k, pc);
	k->prev = pc;
	k->haveprev = 1;
	k->fresh = 0;
}

/* The program's first process, for pass_on(); 0 once it has ended. */
static volatile sig_atomic_t passpid;

/*
 * A signal another process sent pmetrace goes on to the program, as
 * under the callgrind engine; the terminal's (SI_KERNEL) reached it
 * already.  kill(2) is async-signal-safe.
 */
static void
pass_on(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (si->si_code != SI_KERNEL && passpid > 0)
		kill((pid_t)passpid, sig);
}

static void
ended(struct stepper *s, pid_t tid, int st)
{
	struct task *k;

	if (tid == s->mainpid) {
		passpid = 0;
		s->status = pme_exit_status(st);
	}
	if ((k = find_task(s, tid)) != NULL)
		drop_task(s, k);
}

static int
loop(struct stepper *s)
{
	struct task *k;
	int st, sig, ev, deliver;
	pid_t tid;

	while (s->ntasks > 0) {
		if ((tid = waitpid(-1, &st, __WALL)) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			ended(s, tid, st);
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		if ((k = find_task(s, tid)) == NULL &&
		    (k = adopt(s, tid, NULL)) == NULL)
			return -1;
		sig = WSTOPSIG(st);
		ev = st >> 16;
		deliver = 0;
		if (sig == SIGTRAP && ev != 0)
			event_stop(s, k, ev);
		else if (sig == SIGTRAP && !k->fresh) {
			if (stepped(s, k, &deliver))
				step_stop(s, k);
			else if (s->refused != 0)
				return -2;
		} else
			deliver = signal_stop(s, k, sig);
		ptrace(PTRACE_SINGLESTEP, tid, NULL, (void *)(long)deliver);
	}
	return 0;
}

/* ------------------------------------------------------------ start */

struct failure {
	int		 stage;		/* 1 ptrace, 2 exec */
	int		 err;
};

static void
child(const struct tr_opts *o, int fd)
{
	struct failure f;

	setenv("PMETRACE_ENGINE", "step", 1);
	f.stage = 1;
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0) {
		f.stage = 2;
		execv(o->exe, o->argv);
	}
	f.err = errno;
	if (write(fd, &f, sizeof(f)) != (ssize_t)sizeof(f))
		_exit(126);
	_exit(127);
}

/*
 * Keeps pmetrace, and so the program it forks, on the CPU it runs on: a
 * step then costs a switch between two tasks of one CPU instead of a
 * wake-up across CPUs, three times as fast here (about 20 against 68 us).
 * The program then sees one CPU in its affinity mask (-P: not pinned).
 */
static void
pin(const struct tr_opts *o)
{
	cpu_set_t set;
	int cpu;

	if (o->nopin || (cpu = sched_getcpu()) < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) == -1 && o->verbose)
		fprintf(stderr, "pmetrace: cannot keep the step engine on "
		    "one CPU: %s\n", strerror(errno));
}

/* Starts the command stopped at its first instruction. */
static pid_t
start(const struct tr_opts *o, struct pme_error *err, int *missing)
{
	struct failure f;
	int fds[2], st;
	ssize_t n;
	pid_t pid;

	*missing = 0;
	if (pipe2(fds, O_CLOEXEC) == -1) {
		pme_setsys(err, "pipe", "cannot make a");
		return -1;
	}
	pin(o);
	if ((pid = fork()) == -1) {
		pme_setsys(err, o->exe, "cannot fork to run");
		return -1;
	}
	if (pid == 0)
		child(o, fds[1]);
	close(fds[1]);
	while ((n = read(fds[0], &f, sizeof(f))) == -1 && errno == EINTR)
		continue;
	close(fds[0]);
	if (n == (ssize_t)sizeof(f)) {
		waitpid(pid, &st, 0);
		errno = f.err;
		if (f.stage == 1) {
			*missing = 1;
			pme_seterr(err, PME_EIO, "ptrace refused: %s",
			    strerror(f.err));
		} else
			pme_setsys(err, o->exe, "cannot run");
		return -1;
	}
	if (waitpid(pid, &st, 0) == -1 || !WIFSTOPPED(st)) {
		pme_seterr(err, PME_EIO, "'%s': did not stop after exec",
		    o->exe);
		return -1;
	}
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)(
	    PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
	    PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)) ==
	    -1) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		*missing = 1;
		pme_seterr(err, PME_EIO, "ptrace options refused: %s",
		    strerror(errno));
		return -1;
	}
	return pid;
}

int
engine_step(struct tr_tally *t, const struct tr_opts *o, int *status,
    struct pme_error *err)
{
	static const int passed[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };
	struct sigaction sa, old[4];
	struct stepper s;
	struct task *k;
	struct proc *p;
	size_t i;
	int missing, ok, rc = 0;
	pid_t pid;

	*status = -1;
	memset(&s, 0, sizeof(s));
	s.t = t;
	s.o = o;
	s.status = -1;
	if ((pid = start(o, err, &missing)) == -1)
		return missing ? ENGINE_MISSING : -1;
	s.mainpid = pid;
	if ((p = new_proc(pid, NULL)) == NULL ||
	    (k = add_task(&s, pid, p)) == NULL) {
		kill(pid, SIGKILL);
		return pme_setnomem(err);
	}
	read_maps(&s, p);
	if (sigmask_has(pid, "SigIgn:", SIGTRAP))
		p->traps = TRAPS_IGNORED;	/* from pmetrace's parent */
	k->fresh = 0;
	k->prev = rip(pid, &ok);
	k->haveprev = ok;
	if (ok)
		rep_arrive(k, k->prev);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = pass_on;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	passpid = pid;
	for (i = 0; i < 4; i++)
		sigaction(passed[i], &sa, &old[i]);
	ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL);
	if ((rc = loop(&s)) == -2) {
		/* The tasks stopped; pmetrace's exit kills them
		 * (PTRACE_O_EXITKILL): nothing is written. */
		for (i = 0; i < s.ntasks; i++)
			kill(s.tasks[i]->tid, SIGKILL);
		pme_seterr(err, PME_EINVAL, "'%s': process %ld handles "
		    "SIGTRAP and raised it: the step engine cannot run its "
		    "handler (a step in it, SIGTRAP blocked, would reset "
		    "the handler to the default action); use -e pmevg or "
		    "-e callgrind", o->exe, (long)s.refused);
		rc = -1;
	} else if (rc == -1)
		rc = pme_setnomem(err);
	passpid = 0;
	for (i = 0; i < 4; i++)
		sigaction(passed[i], &old[i], NULL);
	while (s.ntasks > 0)
		drop_task(&s, s.tasks[0]);
	free(s.tasks);
	for (i = 0; i < s.nelves; i++)
		free(s.elves[i].path);
	free(s.elves);
	*status = s.status;
	if (o->verbose)
		fprintf(stderr, "pmetrace: step: %llu instructions\n",
		    (unsigned long long)s.steps);
	return rc;
}

#else /* !__x86_64__ */

int
engine_step(struct tr_tally *t, const struct tr_opts *o, int *status,
    struct pme_error *err)
{
	(void)t;
	(void)o;
	*status = -1;
	pme_seterr(err, PME_EINVAL, "the step engine runs on x86-64 only");
	return ENGINE_MISSING;
}

#endif
