/*
 * pmeqemu.c - pme's TCG plugin for QEMU's user-mode emulator
 * (qemu-x86_64 -plugin pmeqemu.so), for pmetrace(1)'s qemu engine
 * (trace/qemu.c): it counts every instruction the guest executes, per
 * address, and writes the counts in pmevg's counts format (see
 * trace/vgtool/pmevg.c), so that the engine reads them as pmevg's.
 *
 * Counting.  The instructions of a translated block are counted in
 * groups: a group begins at the block's first instruction and after
 * each instruction that may leave the block (one that may fault: a
 * memory operand, a division, anything stays() does not know), and its
 * counter, added to before its first instruction runs, is the count of
 * each of its instructions.  A block left early (a fault, a system call
 * or an exception mid-block) has counted exactly the instructions it
 * began, which a count per block could not say (measured on SQLite,
 * sqlwork 300000: adding each block's length as it starts counted
 * 3,816,102,222 where adding per instruction counted 3,815,794,996,
 * whose buckets equal callgrind's).  On SQLite (sqlwork 20000) the
 * groups make 142 M adds for 232 M instructions.
 * While the guest has one thread the add is QEMU's inline add (no call);
 * when a second vCPU (thread) starts, QEMU flushes its translations
 * (it then translates for parallel execution), and every block
 * translated from then on calls count() per group, an atomic add: no
 * lock per block or instruction.
 *
 * Calls, the second count, as pmevg counts them (callgrind's rule): a
 * call, or a jump that pmetrace takes for one (to a routine's entry, into
 * another object).  Each block's last instruction is decoded when it is
 * translated: QEMU ends a block at every branch.  A direct call's or
 * jump's count is its instruction's, at no cost.  A conditional branch's
 * and an indirect call's or jump's target is the block that runs next on
 * the same vCPU: block(), called as a block starts, books the arrival
 * to the block seen before when that one ended in such a branch, its
 * branch ran (its last instruction's counter moved) and, while sparse,
 * no block ran between (seq).  With one thread and pmetrace's list of
 * the routines' entries (PMEQEMU_ENTRIES), only the blocks sees() names
 * call block(): those at an entry and those ending in an indirect
 * branch or a conditional one to an entry (SQLite, sqlwork 20000: 6.3 M
 * callbacks for 48 M blocks, the switch of its interpreter's loop most
 * of them); else every block.
 * Written as "c ADDRESS INDEX|- COUNT" (calls) and "j ADDRESS INDEX|-
 * COUNT FROM-INDEX|-" (jumps and branches taken, with the mapping of
 * the block they leave) before the instruction counts.
 *
 * --start and --stop (PMEQEMU_START, PMEQEMU_STOP: "OFFSET:PATH", a
 * routine's entry in its object).  The block starting at either entry
 * calls toggle() before its instructions count: counting is on while
 * the starts exceed the stops.  The inline adds cannot be turned off, so
 * the counts run on: when counting starts they are zeroed, when it
 * stops they are added to those kept (acc) and zeroed, a pass over every
 * counter each time, as the libpmetrace region's marks make.
 *
 * Addresses.  The guest's code is at host address vaddr + guest_base
 * (qemu_plugin_insn_haddr); the file mapping that holds it is found in
 * QEMU's own /proc/self/maps (read again when an address is in none of
 * the mappings known) and written with guest addresses.
 *
 * The libpmetrace region.  pme_init() and pme_exit() make the system
 * call of qmark.h: the first zeroes the counts, the second writes them as
 * a "region" dump (pmevg's answers to callgrind's client requests), and
 * each sets the runtime's word to say it was seen.
 *
 * Processes.  A forked child starts from zero (its copy of the counters
 * is cleared); each process writes DIR/pv.PID.SEQ when it ends and
 * before each execve (then starts from zero again), DIR being PMEQEMU_DIR
 * of the environment.  QEMU 7.2 ends no plugin when the guest dies of a
 * signal: the counters and what dump() reads are kept in a shared
 * mapping (the arena), which the guard, a fork of QEMU, writes when QEMU
 * ended without writing them (start_guard()).  A forked child gets an
 * arena of its own and a guard of its own, which pmetrace does not wait
 * for as it waits for the first (a child may outlive the program): the
 * guard holds the lock of a file DIR/guard.PID.N, and pmetrace, once the
 * program has ended, waits for the lock of each whose process has ended
 * too.  QEMU
 * would run an execve's new program natively: the plugin execs QEMU
 * with itself on the new program instead (follow()), whose plugin
 * numbers its files on from the first free SEQ.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include "qmark.h"
#include "qplugin.h"
#include "../x86sp.h"

__attribute__((visibility("default"))) int qemu_plugin_version =
    QPLUGIN_VERSION;

/* A file mapping of guest code, guest addresses. */
struct qmap {
	uint64_t	 start, end, offset;
	char		*path;		/* NULL: in no file */
	int32_t		 epath;		/* its index in epaths, or -1 */
};

/* One instruction's counter: that of its group's first (lead). */
struct slot {
	uint64_t	 count;		/* lead's only: the group's */
	uint64_t	 acc;		/* --start: counted while on */
	uint64_t	 vaddr;
	struct slot	*lead;		/* itself, or the group's first */
	uint32_t	 map;		/* index in maps, or NOMAP */
};
#define NOMAP		UINT32_MAX
#define CHUNK		65536		/* slots per chunk; chunks never move */
#define MAXVCPU		4096		/* vCPUs whose last block is known */

/* How a block ends. */
enum { K_OTHER, K_CALL, K_JMP, K_JCC, K_ICALL, K_IJMP };

/* Where an indirect call or jump went, and how often. */
struct tgt {
	struct tgt	*next;
	uint64_t	 vaddr, n, acc;
	uint32_t	 map;
};

/* A translated block. */
struct tbi {
	struct tbi	*next;		/* every block, for dump() */
	uint64_t	 vaddr, target;	/* its start; a direct branch's target */
	uint32_t	 map, tmap;	/* their mappings */
	int		 kind;		/* K_* */
	int		 switched;	/* K_IJMP after a move into %rsp */
	int		 toggle;	/* 1: --start's entry, -1: --stop's */
	int		 sparse;	/* translated while blocks() held */
	struct slot	*last;		/* its last instruction's counter */
	uint64_t	 taken;		/* K_JCC: the branch taken */
	uint64_t	 takenacc;	/* --start: taken while on */
	struct tgt	*tgts;		/* K_ICALL, K_IJMP */
};

/* The block each vCPU ran last, and its last instruction's count as
 * the block began. */
static struct {
	struct tbi	*tb;
	uint64_t	 at;
	uint64_t	 seq;		/* blocks begun before it (sparse) */
} vlast[MAXVCPU];

/*
 * The routines' entries (PMEQEMU_ENTRIES: pmetrace's "OFFSET PATH"
 * lines): a hash set of (path index, file offset); the ranges of other
 * units ("r START END PATH"), dense.  While the guest has one thread and
 * they are known (sees()), only the blocks that must be
 * seen call block(); seq counts every block begun (an inline add), so
 * that block() knows whether the block it saw last ran just before.
 */
static char		**epaths;
static size_t		 nepaths;
static struct ent {
	uint64_t	 offset;
	int32_t		 path;		/* -1: free */
}			*ents;
static size_t		 entmask;
static struct dense {
	uint64_t	 start, end;	/* file offsets */
	int32_t		 path;
}			*dense;		/* ranges whose every block is one */
static size_t		 ndense;
static uint64_t		 seq;
static int		 have_entries;

/* --start and --stop: their routines' entries (file offset, object), the
 * starts less the stops so far. */
static struct {
	uint64_t	 offset;
	const char	*path;
} marks[2];
static int		 gated;

/*
 * What dump() reads, in the arena: a MAP_SHARED mapping that the guard
 * (start_guard()), a fork of QEMU made before the guest runs, shares at
 * the same address, so that its pointers hold there too.
 */
#define ARENA		((size_t)64 << 30)	/* reserved, not committed */
#define MAXCHUNKS	65536
struct shared {
	size_t		 used;			/* bytes of the arena */
	size_t		 nchunks, nslots;	/* slots used */
	size_t		 nmaps;
	struct slot	*chunks[MAXCHUNKS];
	struct qmap	*maps;
	struct tbi	*tbis;
	int64_t		 depth;
	long		 pid;
	unsigned	 seq;
	int		 failed;
	int		 done;		/* 1: nothing for the guard to write */
};
static struct shared	*S;
static int64_t		 guest_base;
static int		 have_base, parallel;
static int		 guard_fd = -1;	/* the guard's pipe, QEMU's end */
static char		 guard_lock[PATH_MAX];	/* a child's guard's file */
static unsigned		 nvcpus;
static pthread_mutex_t	 lock = PTHREAD_MUTEX_INITIALIZER;

static void
say(const char *what)
{
	char msg[PATH_MAX + 128];

	snprintf(msg, sizeof(msg), "pmeqemu: %.*s\n", PATH_MAX + 100, what);
	qemu_plugin_outs(msg);
	S->failed = 1;
}

/* n bytes of the arena, zeroed, or NULL when it is full. */
static void *
salloc(size_t n)
{
	size_t at;

	n = (n + 15) & ~(size_t)15;
	at = __atomic_fetch_add(&S->used, n, __ATOMIC_RELAXED);
	if (at + n > ARENA)
		return NULL;
	return (char *)S + at;
}

/* A new slot, or NULL when out of memory. */
static struct slot *
new_slot(void)
{
	if (S->nslots == S->nchunks * CHUNK) {
		if (S->nchunks == MAXCHUNKS || (S->chunks[S->nchunks] = salloc(CHUNK *
		    sizeof(struct slot))) == NULL)
			return NULL;
		S->nchunks++;
	}
	S->nslots++;
	return &S->chunks[(S->nslots - 1) / CHUNK][(S->nslots - 1) % CHUNK];
}

/* The index of path in epaths, or -1. */
static int32_t
epath_of(const char *path)
{
	size_t i;

	for (i = 0; path != NULL && i < nepaths; i++)
		if (strcmp(epaths[i], path) == 0)
			return (int32_t)i;
	return -1;
}

static size_t
ent_hash(uint64_t offset, int32_t path)
{
	uint64_t h = (offset ^ (uint64_t)path << 40) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & entmask;
}

static int
dense_cmp(const void *a, const void *b)
{
	const struct dense *x = a, *y = b;

	if (x->path != y->path)
		return x->path < y->path ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Whether file offset off of epaths[path] is in a dense range (sorted
 * by dense_cmp, disjoint). */
static int
in_dense(int32_t path, uint64_t off)
{
	size_t lo = 0, hi = ndense, mid;

	while (lo < hi) {	/* the first range after (path, off) */
		mid = lo + (hi - lo) / 2;
		if (dense[mid].path < path || (dense[mid].path == path &&
		    dense[mid].start <= off))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && dense[lo - 1].path == path &&
	    off < dense[lo - 1].end;
}

/* Whether vaddr in mapping map is a routine's entry. */
static int
is_entry(uint64_t vaddr, uint32_t map)
{
	const struct qmap *m;
	uint64_t off;
	size_t h;

	if (map == NOMAP || S->maps[map].epath < 0)
		return 0;
	m = &S->maps[map];
	off = vaddr - m->start + m->offset;
	for (h = ent_hash(off, m->epath); ents[h].path != -1;
	    h = (h + 1) & entmask)
		if (ents[h].offset == off && ents[h].path == m->epath)
			return 1;
	return in_dense(m->epath, off);
}

/* The index in epaths of path, added when new; -1 when out of memory. */
static int32_t
epath_add(const char *path)
{
	int32_t pi;
	char **np;

	if ((pi = epath_of(path)) != -1)
		return pi;
	if ((np = realloc(epaths, (nepaths + 1) * sizeof(*np))) == NULL)
		return -1;
	epaths = np;
	if ((np[nepaths] = strdup(path)) == NULL)
		return -1;
	return (int32_t)nepaths++;
}

/* An "r START END PATH" line: a range whose every block is an entry. */
static int
add_dense(const char *s)
{
	unsigned long long a, b;
	struct dense *nd;
	char *p;

	a = strtoull(s, &p, 16);
	if (*p++ != ' ')
		return 0;
	b = strtoull(p, &p, 16);
	if (*p++ != ' ' || (nd = realloc(dense, (ndense + 1) *
	    sizeof(*nd))) == NULL)
		return 0;
	dense = nd;
	nd[ndense].start = a;
	nd[ndense].end = b;
	if ((nd[ndense].path = epath_add(p)) == -1)
		return 0;
	ndense++;
	return 1;
}

/* Reads PMEQEMU_ENTRIES; whether it was read (have_entries). */
static int
read_entries(void)
{
	const char *name = getenv("PMEQEMU_ENTRIES");
	unsigned long long off;
	char *line = NULL, *p;
	size_t cap = 0, n = 0, h, i;
	int32_t pi;
	FILE *fp;
	int ok = 1;

	if (name == NULL || (fp = fopen(name, "re")) == NULL)
		return 0;
	while (getline(&line, &cap, fp) > 0)
		n++;
	for (entmask = 1023; entmask < 2 * n; entmask = entmask * 2 + 1)
		continue;
	if ((ents = malloc((entmask + 1) * sizeof(*ents))) == NULL) {
		fclose(fp);
		free(line);
		return 0;
	}
	for (i = 0; i <= entmask; i++)
		ents[i].path = -1;
	rewind(fp);
	while (getline(&line, &cap, fp) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "r ", 2) == 0) {
			if (!(ok = add_dense(line + 2)))
				break;
			continue;
		}
		off = strtoull(line, &p, 16);
		if (*p++ != ' ' || (pi = epath_add(p)) == -1) {
			ok = 0;
			break;
		}
		for (h = ent_hash(off, pi); ents[h].path != -1;
		    h = (h + 1) & entmask)
			continue;
		ents[h].offset = off;
		ents[h].path = pi;
	}
	free(line);
	fclose(fp);
	if (ndense > 0) {	/* sorted and merged: in_dense() */
		qsort(dense, ndense, sizeof(*dense), dense_cmp);
		for (i = 1, n = 1; i < ndense; i++)
			if (dense[i].path == dense[n - 1].path &&
			    dense[i].start <= dense[n - 1].end) {
				if (dense[i].end > dense[n - 1].end)
					dense[n - 1].end = dense[i].end;
			} else
				dense[n++] = dense[i];
		ndense = n;
	}
	return ok;	/* else blocks() all the time: no entry missed */
}

/* The index of the known mapping holding host address h, or NOMAP. */
static uint32_t
known_map(uint64_t h)
{
	size_t i;

	for (i = S->nmaps; i-- > 0;)
		if (h - guest_base >= S->maps[i].start && h - guest_base <
		    S->maps[i].end)
			return (uint32_t)i;
	return NOMAP;
}

/* The mapping holding host address h, read from /proc/self/maps and
 * added to maps; NOMAP when none does. */
static uint32_t
find_map(uint64_t h)
{
	unsigned long long s, e, off;
	char *line = NULL, *p;
	size_t cap = 0;
	uint32_t i;
	FILE *fp;
	struct qmap *m;

	if ((i = known_map(h)) != NOMAP)
		return i;
	if ((fp = fopen("/proc/self/maps", "re")) == NULL)
		return NOMAP;
	while (i == NOMAP && getline(&line, &cap, fp) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%llx-%llx %*s %llx", &s, &e, &off) != 3 ||
		    h < s || h >= e)
			continue;
		if ((m = salloc((S->nmaps + 1) * sizeof(*m))) == NULL)
			break;
		if (S->nmaps > 0)
			memcpy(m, S->maps, S->nmaps * sizeof(*m));
		S->maps = m;
		m += S->nmaps;
		m->start = s - guest_base;
		m->end = e - guest_base;
		m->offset = off;
		p = strchr(line, '/');
		if (p != NULL && (m->path = salloc(strlen(p) + 1)) != NULL)
			strcpy(m->path, p);
		m->epath = epath_of(m->path);
		i = (uint32_t)S->nmaps++;
	}
	free(line);
	fclose(fp);
	return i;
}

/* After the first thread: one instruction, atomically. */
static void
count(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	__atomic_fetch_add(&((struct slot *)udata)->count, 1,
	    __ATOMIC_RELAXED);
}

static void
vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	(void)id;
	(void)vcpu;
	pthread_mutex_lock(&lock);
	if (++nvcpus > 1 && !parallel) {
		/* QEMU translates again: every block calls block(), which
		 * must not take the last block seen while sparse for the
		 * one before. */
		parallel = 1;
		memset(vlast, 0, sizeof(vlast));
	}
	pthread_mutex_unlock(&lock);
}

/* How the instruction p[0..n) at vaddr ends a block (K_*); a direct
 * branch's target in *target. */
static int
decode(const uint8_t *p, size_t n, uint64_t vaddr, uint64_t *target)
{
	size_t i = 0;
	int64_t rel = 0;
	int kind = K_OTHER;

	while (i < n && (p[i] == 0x66 || p[i] == 0x67 || p[i] == 0xf2 ||
	    p[i] == 0xf3 || p[i] == 0x2e || p[i] == 0x3e || p[i] == 0x26 ||
	    p[i] == 0x36 || p[i] == 0x64 || p[i] == 0x65 ||
	    (p[i] & 0xf0) == 0x40))
		i++;
	if (i >= n)
		return K_OTHER;
	if ((p[i] == 0xe8 || p[i] == 0xe9) && n - i >= 5) {
		rel = (int32_t)((uint32_t)p[i + 1] | (uint32_t)p[i + 2] << 8 |
		    (uint32_t)p[i + 3] << 16 | (uint32_t)p[i + 4] << 24);
		kind = p[i] == 0xe8 ? K_CALL : K_JMP;
	} else if ((p[i] == 0xeb || (p[i] >= 0x70 && p[i] <= 0x7f) ||
	    (p[i] >= 0xe0 && p[i] <= 0xe3)) && n - i >= 2) {
		rel = (int8_t)p[i + 1];
		kind = p[i] == 0xeb ? K_JMP : K_JCC;
	} else if (p[i] == 0x0f && n - i >= 6 && p[i + 1] >= 0x80 &&
	    p[i + 1] <= 0x8f) {
		rel = (int32_t)((uint32_t)p[i + 2] | (uint32_t)p[i + 3] << 8 |
		    (uint32_t)p[i + 4] << 16 | (uint32_t)p[i + 5] << 24);
		kind = K_JCC;
	} else if (p[i] == 0xff && n - i >= 2 && ((p[i + 1] >> 3) & 7) == 2)
		return K_ICALL;
	else if (p[i] == 0xff && n - i >= 2 && ((p[i + 1] >> 3) & 7) == 4)
		return K_IJMP;
	*target = vaddr + n + (uint64_t)rel;
	return kind;
}

/*
 * Whether the instruction p[0..n) always goes on to the next: integer
 * operations on registers and immediates only, which raise no exception
 * (no memory operand, no division, no prefix but the operand size and
 * REX), so that QEMU cannot leave its block there.  The instruction
 * after one that stays shares its counter; any other instruction, a
 * block's first and the one after an instruction that may fault begin
 * a group with a counter of its own.  What is not known here does not
 * stay: it only costs a counter.
 */
static int
stays(const uint8_t *p, size_t n)
{
	size_t i = 0;
	uint8_t op, m = 0, mod, reg;

	while (i < n && p[i] == 0x66)
		i++;
	if (i < n && (p[i] & 0xf0) == 0x40)
		i++;
	if (i >= n)
		return 0;
	op = p[i++];
	if (op == 0x0f) {
		if (i >= n)
			return 0;
		op = p[i++];
		if (op == 0x1f)				/* nop r/m */
			return 1;
		if (op >= 0xc8 && op <= 0xcf)		/* bswap */
			return i == n;
		if (i >= n)
			return 0;
		m = p[i];
		mod = m >> 6;
		reg = (m >> 3) & 7;
		if (mod != 3)
			return 0;
		return (op >= 0x40 && op <= 0x4f) ||	/* cmovcc */
		    (op >= 0x90 && op <= 0x9f) ||	/* setcc */
		    op == 0xaf ||			/* imul */
		    op == 0xb6 || op == 0xb7 || op == 0xbe || op == 0xbf ||
		    op == 0xa3 || op == 0xab || op == 0xb3 || op == 0xbb ||
		    (op == 0xba && reg >= 4) ||		/* bt* */
		    op == 0xa4 || op == 0xa5 || op == 0xac || op == 0xad ||
		    op == 0xbc || op == 0xbd;		/* bsf, bsr */
	}
	if ((op < 0x40 && (op & 7) >= 4 && (op & 7) <= 5) ||	/* al, imm */
	    (op >= 0x90 && op <= 0x99) ||	/* xchg eax, nop, cbw, cwd */
	    (op >= 0xb0 && op <= 0xbf) ||	/* mov r, imm */
	    op == 0xa8 || op == 0xa9)		/* test eax, imm */
		return 1;
	if (i >= n)
		return 0;
	m = p[i];
	mod = m >> 6;
	reg = (m >> 3) & 7;
	if (op == 0x8d)				/* lea: no access */
		return mod != 3;
	if (mod != 3)
		return 0;
	return (op < 0x40 && (op & 7) <= 3) ||	/* add ... cmp */
	    op == 0x63 || op == 0x69 || op == 0x6b ||
	    (op >= 0x84 && op <= 0x8b) ||	/* test, xchg, mov */
	    op == 0x80 || op == 0x81 || op == 0x83 ||
	    ((op == 0xc0 || op == 0xc1 || (op >= 0xd0 && op <= 0xd3)) &&
	    reg != 6) ||			/* shifts, not the alias */
	    ((op == 0xc6 || op == 0xc7) && reg == 0) ||
	    ((op == 0xf6 || op == 0xf7) && reg != 6 && reg != 7) ||
	    ((op == 0xfe || op == 0xff) && reg <= 1);
}

static void	dump(const char *);
static void	zero(void);

/* --start: with keep, the count added to those kept (acc) and zeroed;
 * without, the counts kept made the count again, for dump(). */
static void
shift(uint64_t *count, uint64_t *acc, int keep)
{
	if (keep)
		*acc += __atomic_exchange_n(count, 0, __ATOMIC_RELAXED);
	else {
		*count = *acc;
		*acc = 0;
	}
}

/* shift() of every count: when counting stops (keep: the counts run
 * on, and are dropped at the next start), and before a dump. */
static void
shift_all(int keep)
{
	struct slot *sl;
	struct tbi *t;
	struct tgt *g;
	size_t i;

	for (i = 0; i < S->nslots; i++) {
		sl = &S->chunks[i / CHUNK][i % CHUNK];
		shift(&sl->count, &sl->acc, keep);
	}
	for (t = S->tbis; t != NULL; t = t->next) {
		shift(&t->taken, &t->takenacc, keep);
		for (g = t->tgts; g != NULL; g = g->next)
			shift(&g->n, &g->acc, keep);
	}
}

/* An entry of --start's routine (d 1) or --stop's (-1): counting goes
 * on while the starts exceed the stops. */
static void
toggle(int d)
{
	int64_t old;

	pthread_mutex_lock(&lock);
	old = S->depth;
	S->depth += d;
	if (old <= 0 && S->depth > 0)
		zero();
	else if (old > 0 && S->depth <= 0)
		shift_all(1);
	pthread_mutex_unlock(&lock);
}

/* Whether block t starts at --start's routine's entry (1), --stop's
 * (-1) or neither (0). */
static int
mark_of(const struct tbi *t)
{
	const struct qmap *m;
	uint64_t off;
	int i;

	if (t->map == NOMAP || S->maps[t->map].path == NULL)
		return 0;
	m = &S->maps[t->map];
	off = t->vaddr - m->start + m->offset;
	for (i = 0; i < 2; i++)
		if (marks[i].path != NULL && off == marks[i].offset &&
		    strcmp(m->path, marks[i].path) == 0)
			return i == 0 ? 1 : -1;
	return 0;
}

/* Block t reached: where the branch ending the block before went. */
static void
arrive(struct tbi *p, const struct tbi *t)
{
	struct tgt *g, *head;

	if (p->kind == K_JCC) {
		if (t->vaddr == p->target)
			__atomic_fetch_add(&p->taken, 1, __ATOMIC_RELAXED);
		return;
	}
	head = __atomic_load_n(&p->tgts, __ATOMIC_ACQUIRE);
	for (g = head; g != NULL; g = g->next)
		if (g->vaddr == t->vaddr) {
			__atomic_fetch_add(&g->n, 1, __ATOMIC_RELAXED);
			return;
		}
	if ((g = salloc(sizeof(*g))) == NULL) {
		say("out of memory: counts incomplete");
		return;
	}
	g->vaddr = t->vaddr;
	g->map = t->map;
	g->n = 1;
	do
		g->next = head;
	while (!__atomic_compare_exchange_n(&p->tgts, &head, g, 0,
	    __ATOMIC_RELEASE, __ATOMIC_ACQUIRE));
}

/*
 * The blocks that call block() as they start: every block while the
 * guest has more than one thread (seq would race) or the entries are not
 * known; else only those that start at a routine's entry (or --start's
 * or --stop's), and those that end in an indirect call or jump, or in a
 * conditional branch to an entry or into another mapping, whose
 * destination block() books when it is an entry (a routine's, or any
 * block in the ranges of a unit that is not a routine: a stripped
 * object's rest).  Not seen then: an indirect call or jump into a
 * routine's middle, and a conditional branch into another object that
 * starts no routine there, which compiled code does not have.
 */
static int
sees(const struct tbi *t)
{
	if (!t->sparse)
		return 1;
	return t->toggle != 0 || is_entry(t->vaddr, t->map) ||
	    t->kind == K_ICALL || t->kind == K_IJMP || (t->kind == K_JCC &&
	    (t->tmap != t->map || is_entry(t->target, t->tmap)));
}

/* Every block that sees() as it starts. */
static void
block(unsigned int vcpu, void *udata)
{
	struct tbi *t = udata, *p;

	if (vcpu >= MAXVCPU)
		return;
	p = vlast[vcpu].tb;
	if (p != NULL && p->kind >= K_JCC &&
	    (!t->sparse || seq == vlast[vcpu].seq + 1) &&
	    __atomic_load_n(&p->last->lead->count, __ATOMIC_RELAXED) !=
	    vlast[vcpu].at)
		arrive(p, t);
	if (t->toggle != 0)
		toggle(t->toggle);
	vlast[vcpu].tb = t;
	vlast[vcpu].seq = seq;
	vlast[vcpu].at = __atomic_load_n(&t->last->lead->count,
	    __ATOMIC_RELAXED);
}

/* A block's end: how it leaves. */
static struct tbi *
new_tbi(struct qemu_plugin_insn *first, struct qemu_plugin_insn *last,
    struct slot *lastsl, int switched)
{
	struct tbi *t;
	uint64_t h;

	if ((t = salloc(sizeof(*t))) == NULL)
		return NULL;
	t->vaddr = qemu_plugin_insn_vaddr(first);
	h = (uint64_t)(uintptr_t)qemu_plugin_insn_haddr(first);
	t->map = h != 0 ? find_map(h) : NOMAP;
	t->last = lastsl;
	t->kind = decode(qemu_plugin_insn_data(last),
	    qemu_plugin_insn_size(last), qemu_plugin_insn_vaddr(last),
	    &t->target);
	t->switched = t->kind == K_IJMP && switched;
	t->tmap = NOMAP;
	if ((t->kind == K_CALL || t->kind == K_JMP || t->kind == K_JCC) &&
	    have_base)
		t->tmap = find_map(t->target + guest_base);
	t->toggle = gated ? mark_of(t) : 0;
	t->sparse = have_entries && !parallel;
	t->next = S->tbis;
	S->tbis = t;
	return t;
}

static void
tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct qemu_plugin_insn *insn;
	struct slot *sl = NULL, *lead = NULL;
	struct tbi *t;
	uint64_t h;
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	int switched = 0;

	(void)id;
	pthread_mutex_lock(&lock);
	for (i = 0; i < n && !S->failed; i++) {
		insn = qemu_plugin_tb_get_insn(tb, i);
		if ((sl = new_slot()) == NULL) {
			say("out of memory: counts incomplete");
			break;
		}
		sl->vaddr = qemu_plugin_insn_vaddr(insn);
		h = (uint64_t)(uintptr_t)qemu_plugin_insn_haddr(insn);
		if (!have_base && h != 0) {
			guest_base = (int64_t)(h - sl->vaddr);
			have_base = 1;
		}
		sl->map = h != 0 ? find_map(h) : NOMAP;
		/*
		 * QEMU 7.2 drops from a block an instruction, after its
		 * first, that would end on another page (i386's advance_pc()),
		 * with its instrumentation, but still lists it, cut at the
		 * bytes it read: it runs as the next block's first.  A last
		 * instruction that may be one (it ends less than 15 bytes,
		 * an instruction's longest, before its page's end) gets a
		 * counter of its own, which then stays 0.
		 */
		if (i > 0 && i == n - 1 && ((sl->vaddr | 0xfff) + 1) -
		    (sl->vaddr + qemu_plugin_insn_size(insn)) < 15)
			lead = NULL;
		if (lead != NULL) {
			sl->lead = lead;	/* begun when lead began */
		} else if (parallel) {
			sl->lead = sl;
			qemu_plugin_register_vcpu_insn_exec_cb(insn, count,
			    QEMU_PLUGIN_CB_NO_REGS, sl);
		} else {
			sl->lead = sl;
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
			    QEMU_PLUGIN_INLINE_ADD_U64, &sl->count, 1);
		}
		lead = stays(qemu_plugin_insn_data(insn),
		    qemu_plugin_insn_size(insn)) ? sl->lead : NULL;
		switched |= x86_moves_sp(qemu_plugin_insn_data(insn),
		    qemu_plugin_insn_size(insn));
	}
	if (i == n && n > 0 && !S->failed) {
		if ((t = new_tbi(qemu_plugin_tb_get_insn(tb, 0),
		    qemu_plugin_tb_get_insn(tb, n - 1), sl, switched)) == NULL)
			say("out of memory: counts incomplete");
		else {
			if (sees(t))
				qemu_plugin_register_vcpu_tb_exec_cb(tb, block,
				    QEMU_PLUGIN_CB_NO_REGS, t);
			if (t->sparse)
				qemu_plugin_register_vcpu_insn_exec_inline(
				    qemu_plugin_tb_get_insn(tb, 0),
				    QEMU_PLUGIN_INLINE_ADD_U64, &seq, 1);
		}
	}
	pthread_mutex_unlock(&lock);
}

/* Every count from zero: a forked child's, the region's start. */
static void
zero(void)
{
	size_t i;

	struct tbi *t;
	struct tgt *g;

	for (i = 0; i < S->nslots; i++)
		__atomic_store_n(&S->chunks[i / CHUNK][i % CHUNK].count, 0,
		    __ATOMIC_RELAXED);
	for (t = S->tbis; t != NULL; t = t->next) {
		__atomic_store_n(&t->taken, 0, __ATOMIC_RELAXED);
		for (g = t->tgts; g != NULL; g = g->next)
			__atomic_store_n(&g->n, 0, __ATOMIC_RELAXED);
	}
	for (i = 0; i < MAXVCPU; i++)
		vlast[i].tb = NULL;
}

/* Whether pmetrace still waits for the counts (it holds PMEQEMU_WAIT's
 * other end): killed, its own guard removes the directory. */
static int
waited(void)
{
	const char *w = getenv("PMEQEMU_WAIT");
	struct pollfd pf;

	if (w == NULL)
		return 1;
	pf.fd = atoi(w);
	pf.events = 0;
	return poll(&pf, 1, 0) != 1 || !(pf.revents & (POLLERR | POLLNVAL));
}

/*
 * A forked child's guard's file, DIR/guard.PID.N, made and locked
 * (flock) by QEMU before its guard is forked, which shares the lock
 * (one open file description) and keeps it until it has written; -1
 * when there is no directory or the file cannot be made.
 */
static int
lock_guard(void)
{
	const char *dir = getenv("PMEQEMU_DIR");
	unsigned n;
	int fd = -1;

	for (n = 0; dir != NULL && fd == -1 && n < 1000; n++) {
		snprintf(guard_lock, sizeof(guard_lock), "%s/guard.%ld.%u",
		    dir, (long)getpid(), n);
		fd = open(guard_lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0600);
		if (fd == -1 && errno != EEXIST)
			break;
	}
	if (fd != -1 && flock(fd, LOCK_EX) == -1) {
		unlink(guard_lock);
		close(fd);
		fd = -1;
	}
	if (fd == -1)
		guard_lock[0] = '\0';
	return fd;
}

/*
 * The guard: a fork of QEMU that waits for QEMU's end (its pipe's end
 * closed) and, when QEMU wrote no counts (it died of a signal, which
 * QEMU 7.2 ends no plugin for), writes those the arena holds.  The
 * first process's keeps pmetrace's PMEQEMU_WAIT open until then; a
 * forked child's (no PMEQEMU_WAIT) its file's lock (lock_guard()), and
 * writes nothing once pmetrace has removed the directory.  Forked by
 * _Fork, which runs no pthread_atfork handler: a child's is started
 * from one (child(), the lock held).
 */
static int
start_guard(void)
{
	int p[2], lk = -1;
	char c;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	if (getenv("PMEQEMU_WAIT") == NULL && (lk = lock_guard()) == -1) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	switch (_Fork()) {
	case -1:
		close(p[0]);
		close(p[1]);
		if (lk != -1) {
			unlink(guard_lock);
			close(lk);
		}
		return -1;
	case 0:
		close(p[1]);
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		while ((n = read(p[0], &c, 1)) != 0 && (n > 0 ||
		    errno == EINTR))
			continue;
		if (!S->done && S->nslots > 0 && waited() &&
		    (lk == -1 || access(guard_lock, F_OK) == 0))
			dump("signal");
		if (lk != -1)
			unlink(guard_lock);
		_exit(0);
	}
	close(p[0]);
	if (lk != -1)
		close(lk);	/* the guard's copy holds the lock */
	guard_fd = p[1];
	return 0;
}

/*
 * A fork: the child gets an arena of its own at the same address, a
 * copy made by the parent before the fork (prepare(), QEMU's other
 * vCPUs stopped; a copy made in the child would race with the parent
 * running on), its counts zeroed, and no guard; the parent's guard pipe
 * and pmetrace's PMEQEMU_WAIT are closed in it, so that they end with
 * the parent.
 */
static void	*forkcopy = MAP_FAILED;
static int	 orphan;

static void
prepare(void)
{
	pthread_mutex_lock(&lock);
	if ((forkcopy = mmap(NULL, ARENA, PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)) != MAP_FAILED)
		memcpy(forkcopy, S, S->used);
}

static void
parent(void)
{
	if (forkcopy != MAP_FAILED)
		munmap(forkcopy, ARENA);
	forkcopy = MAP_FAILED;
	pthread_mutex_unlock(&lock);
}

static void
child(void)
{
	const char *w = getenv("PMEQEMU_WAIT");

	if (forkcopy == MAP_FAILED || mremap(forkcopy, ARENA, ARENA,
	    MREMAP_MAYMOVE | MREMAP_FIXED, S) == MAP_FAILED) {
		orphan = 1;	/* counts in the parent's arena: write none */
		forkcopy = MAP_FAILED;
		pthread_mutex_unlock(&lock);
		return;
	}
	forkcopy = MAP_FAILED;
	if (guard_fd != -1)
		close(guard_fd);
	guard_fd = -1;
	if (w != NULL)
		close(atoi(w));
	unsetenv("PMEQEMU_WAIT");
	shift_all(0);
	zero();
	nvcpus = 1;
	S->seq = 0;
	S->pid = (long)getpid();
	S->done = start_guard() == -1;	/* none: it writes at its end only */
	pthread_mutex_unlock(&lock);
}


/* "[TAG]ADDRESS INDEX|- COUNT", with the mapping of the block left
 * when from is not NULL ("j" lines, "J" after a move into %rsp:
 * x86sp.h), and the line's end. */
static void
put(FILE *fp, const char *tag, uint64_t a, uint32_t map, uint64_t n,
    const struct tbi *from)
{
	if (map == NOMAP || S->maps[map].path == NULL)
		fprintf(fp, "%s%llx - %llx", tag, (unsigned long long)a,
		    (unsigned long long)n);
	else
		fprintf(fp, "%s%llx %x %llx", tag, (unsigned long long)a, map,
		    (unsigned long long)n);
	if (from != NULL && (from->map == NOMAP || S->maps[from->map].path ==
	    NULL))
		fputs(" -", fp);
	else if (from != NULL)
		fprintf(fp, " %x", from->map);
	fputc('\n', fp);
}

/* The calls and jumps of every block: "c" and "j" lines. */
static void
put_calls(FILE *fp)
{
	const struct tbi *t;
	const struct tgt *g;
	uint64_t n;

	for (t = S->tbis; t != NULL; t = t->next) {
		n = t->kind == K_JCC ? t->taken : t->last->lead->count;
		if ((t->kind == K_CALL || t->kind == K_JMP ||
		    t->kind == K_JCC) && n > 0)
			put(fp, t->kind == K_CALL ? "c " : "j ", t->target,
			    t->tmap, n, t->kind == K_CALL ? NULL : t);
		for (g = t->tgts; g != NULL; g = g->next)
			if (g->n > 0)
				put(fp, t->kind == K_ICALL ? "c " :
				    t->switched ? "J " : "j ",
				    g->vaddr, g->map, g->n,
				    t->kind == K_ICALL ? NULL : t);
	}
}

/* Writes the counts and clears them: "pmevg 1", pid, exe, trigger, the
 * mappings, the calls and jumps, one "ADDRESS MAP COUNT" line per
 * instruction counted, their sum. */
static void
dump(const char *trigger)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], msg[PATH_MAX + 64];
	const char *dir = getenv("PMEQEMU_DIR"), *exe = getenv("PMEQEMU_EXE");
	unsigned long long sum = 0;
	struct slot *sl;
	size_t i;
	FILE *fp;

	if (dir == NULL || S->failed || orphan)
		return;
	if (gated && S->depth > 0)
		shift_all(1);
	if (gated)
		shift_all(0);
	/* An exec'ed program's plugin numbers on from the first free. */
	do
		snprintf(path, sizeof(path), "%s/pv.%ld.%u", dir, S->pid,
		    S->seq++);
	while (access(path, F_OK) == 0);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((fp = fopen(tmp, "we")) == NULL) {
		snprintf(msg, sizeof(msg), "'%s': %s", tmp, strerror(errno));
		say(msg);
		return;
	}
	fprintf(fp, "pmevg 1\npid %ld\nexe %s\ntrigger %s\n", S->pid,
	    exe != NULL ? exe : "", trigger);
	for (i = 0; i < S->nmaps; i++)
		fprintf(fp, "map %zx %llx %llx %llx %s\n", i,
		    (unsigned long long)S->maps[i].start,
		    (unsigned long long)S->maps[i].end,
		    (unsigned long long)S->maps[i].offset,
		    S->maps[i].path != NULL ? S->maps[i].path : "");
	put_calls(fp);
	for (i = 0; i < S->nslots; i++) {
		sl = &S->chunks[i / CHUNK][i % CHUNK];
		if (sl->lead->count == 0)
			continue;
		sum += sl->lead->count;
		put(fp, "", sl->vaddr, sl->map, sl->lead->count, NULL);
	}
	zero();
	fprintf(fp, "end %llx\n", sum);
	if (fclose(fp) != 0 || rename(tmp, path) != 0) {
		snprintf(msg, sizeof(msg), "'%s': %s", path, strerror(errno));
		say(msg);
	}
}

static void
at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	dump("end");
	S->done = 1;
}

/* The region's marks (qmark.h): req at pme_init or pme_exit, the
 * runtime's word at guest address word set to say it was seen. */
static void
mark(uint64_t req, uint64_t word)
{
	pthread_mutex_lock(&lock);
	if (req == PMEQEMU_ZERO)
		zero();
	else if (req == PMEQEMU_REGION)
		dump("region");
	pthread_mutex_unlock(&lock);
	if (have_base && word != 0 && (req == PMEQEMU_ZERO ||
	    req == PMEQEMU_REGION))
		__atomic_store_n((uint32_t *)(uintptr_t)(word + guest_base), 1,
		    __ATOMIC_RELAXED);
}

/* The guest's string at guest address a. */
static const char *
gstr(uint64_t a)
{
	return (const char *)(uintptr_t)(a + guest_base);
}

/* How many pointers the guest's NULL-ended array at a holds. */
static size_t
gcount(uint64_t a)
{
	const uint64_t *v = (const uint64_t *)(uintptr_t)(a + guest_base);
	size_t n = 0;

	while (a != 0 && v[n] != 0)
		n++;
	return n;
}

/* Whether path is an x86-64 ELF file (e_machine 62). */
static int
is_x86_64(const char *path)
{
	unsigned char h[20];
	size_t n = 0;
	FILE *fp;

	if ((fp = fopen(path, "re")) != NULL) {
		n = fread(h, 1, sizeof(h), fp);
		fclose(fp);
	}
	return n == sizeof(h) && memcmp(h, "\177ELF", 4) == 0 && h[4] == 2 &&
	    h[18] == 62 && h[19] == 0;
}

/* A script's ("#!") interpreter and optional argument ("" when none)
 * into interp and arg; 0 when path is not a script. */
static int
script(const char *path, char *interp, char *arg, size_t len)
{
	char line[PATH_MAX], *p, *q;
	FILE *fp;
	int ok;

	interp[0] = arg[0] = '\0';
	if ((fp = fopen(path, "re")) == NULL)
		return 0;
	ok = fgets(line, sizeof(line), fp) != NULL &&
	    strncmp(line, "#!", 2) == 0;
	fclose(fp);
	if (!ok)
		return 0;
	line[strcspn(line, "\n")] = '\0';
	p = line + 2 + strspn(line + 2, " \t");
	q = p + strcspn(p, " \t");
	if (*q != '\0') {
		*q++ = '\0';
		snprintf(arg, len, "%s", q + strspn(q, " \t"));
	}
	snprintf(interp, len, "%s", p);
	return interp[0] != '\0';
}

/* This run's variables, given to an exec'ed program's QEMU. */
static const char *const vars[] = { "PMEQEMU_DIR", "PMEQEMU_QEMU",
    "PMEQEMU_PLUGIN", "PMEQEMU_START", "PMEQEMU_STOP", "PMEQEMU_WAIT",
    "PMEQEMU_ENTRIES" };
#define NVARS	(sizeof(vars) / sizeof(vars[0]))

/*
 * The environment of an exec'ed program's QEMU into env: the guest's
 * genvp without PMEQEMU_ variables, this run's vars, PMEQEMU_EXE=exe;
 * how many strings it allocated (at env[*n - k], k <= that).
 */
static size_t
environment(char **env, size_t *n, uint64_t genvp, char *exe)
{
	const uint64_t *ev = (const uint64_t *)(uintptr_t)(genvp + guest_base);
	const char *v;
	size_t i, made = 0;

	for (i = 0; genvp != 0 && ev[i] != 0; i++)
		if (strncmp(gstr(ev[i]), "PMEQEMU_", 8) != 0)
			env[(*n)++] = (char *)gstr(ev[i]);
	for (i = 0; i < NVARS; i++)
		if ((v = getenv(vars[i])) != NULL &&
		    asprintf(&env[*n], "%s=%s", vars[i], v) != -1) {
			(*n)++;
			made++;
		}
	env[(*n)++] = exe;
	return made;
}

/*
 * An execve of the guest: its new program, an x86-64 ELF file or a
 * script whose interpreter is one, is run under QEMU with this plugin
 * too (QEMU would run it natively), by this process's own execve of
 * qemu-x86_64 (PMEQEMU_QEMU, pmetrace's) with the same options, in the
 * environment the guest gives with this run's variables.  Returns only
 * when that failed or the program is not one to follow: QEMU then does
 * the guest's execve.
 */
static void
follow(uint64_t gpath, uint64_t gargv, uint64_t genvp)
{
	const char *qemu = getenv("PMEQEMU_QEMU"), *path = gstr(gpath);
	const uint64_t *av = (const uint64_t *)(uintptr_t)(gargv + guest_base);
	char interp[PATH_MAX], arg[PATH_MAX], real[PATH_MAX];
	char exe[PATH_MAX + 16];
	size_t na = gcount(gargv), n = 0, i, made;
	char **args, **env;
	int isscript = script(path, interp, arg, sizeof(interp));

	if (qemu == NULL || getenv("PMEQEMU_PLUGIN") == NULL ||
	    !is_x86_64(isscript ? interp : path) ||
	    (args = calloc(na + 12, sizeof(*args))) == NULL)
		return;
	if ((env = calloc(gcount(genvp) + NVARS + 2, sizeof(*env))) == NULL) {
		free(args);
		return;
	}
	args[n++] = (char *)"qemu-x86_64";
	args[n++] = (char *)"-cpu";
	args[n++] = (char *)"max";
	args[n++] = (char *)"-plugin";
	args[n++] = getenv("PMEQEMU_PLUGIN");
	args[n++] = (char *)"-0";
	if (isscript) {
		args[n++] = interp;
		args[n++] = interp;
		if (arg[0] != '\0')
			args[n++] = arg;
	} else
		args[n++] = na > 0 ? (char *)gstr(av[0]) : (char *)path;
	args[n++] = (char *)path;
	for (i = 1; i < na; i++)
		args[n++] = (char *)gstr(av[i]);
	snprintf(exe, sizeof(exe), "PMEQEMU_EXE=%s", realpath(isscript ?
	    interp : path, real) != NULL ? real : path);
	n = 0;
	made = environment(env, &n, genvp, exe);
	execve(qemu, args, env);
	for (i = 0; i < made; i++)
		free(env[n - 2 - i]);
	free(args);
	free(env);
}

/* Before an execve (or execveat), and the region's marks. */
static void
on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1,
    uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
    uint64_t a7, uint64_t a8)
{
	(void)id, (void)vcpu, (void)a4;
	(void)a5, (void)a6, (void)a7, (void)a8;
	if (num == PMEQEMU_MARK)
		mark(a1, a2);
	else if (num == 59 || num == 322) {
		pthread_mutex_lock(&lock);
		dump("exec");
		S->done = 1;	/* QEMU or the new program ends the guard */
		if (num == 59 && have_base)
			follow(a1, a2, a3);
		pthread_mutex_unlock(&lock);
	}
}

/* An execve that returned (it failed): the guard writes again. */
static void
on_syscall_ret(qemu_plugin_id_t id, unsigned int vcpu, int64_t num,
    int64_t ret)
{
	(void)id, (void)vcpu, (void)ret;
	if (num == 59 || num == 322)
		S->done = 0;
}

/* --start's (i 0) or --stop's (1) "OFFSET:PATH" from the environment
 * variable name; whether it was there. */
static int
read_mark(int i, const char *name)
{
	const char *v = getenv(name);
	char *end;

	if (v == NULL)
		return 0;
	marks[i].offset = strtoull(v, &end, 16);
	if (*end != ':')
		return 0;
	marks[i].path = end + 1;
	return 1;
}

__attribute__((visibility("default"))) int
qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
    char **argv)
{
	(void)argc;
	(void)argv;
	if (info->system_emulation) {
		qemu_plugin_outs("pmeqemu: for the user-mode emulator only\n");
		return -1;
	}
	if ((S = mmap(NULL, ARENA, PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)) == MAP_FAILED) {
		qemu_plugin_outs("pmeqemu: cannot map its counters\n");
		return -1;
	}
	S->used = sizeof(*S);
	S->pid = (long)getpid();
	if (start_guard() == -1) {
		qemu_plugin_outs("pmeqemu: cannot start its guard\n");
		return -1;
	}
	if (pthread_atfork(prepare, parent, child) != 0)
		return -1;
	have_entries = read_entries();
	if ((gated = read_mark(0, "PMEQEMU_START")))
		read_mark(1, "PMEQEMU_STOP");
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
	qemu_plugin_register_vcpu_syscall_ret_cb(id, on_syscall_ret);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
