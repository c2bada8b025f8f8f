/*
 * unwind.c - call chains from the CFI, unwound in the collector as the
 * perf method's samples arrive (see unwind.h).
 *
 * The unwinder is elfutils' libdwfl, as perf's own libdw unwinder uses
 * it: each process of the run is a Dwfl whose modules are the files of
 * its executable mappings at their load bias, attached through
 * callbacks that give the sample's registers as the initial state and
 * read memory from the sample's copy of the stack.  libdwfl finds the
 * CFI itself (.eh_frame, else .debug_frame of the file or of its
 * separate debug file by build-id or debuglink) and keeps it per module,
 * so a module's files are opened and its CFI read once per process, not
 * per sample.  Memory outside the copied stack is not read: a chain that
 * needs it ends there, counted as truncated.
 *
 * libdwfl unwinds some 70,000 to 240,000 chains a second here, and a
 * program that switches 100,000 times a second under -w brings as many
 * stacks, mostly the same ones: a thread waits in the same call again
 * and again.  The chain libdwfl computes is a function of what it is
 * given and reads, and nothing else: the registers it reads, the words
 * of the copied stack it reads (and which of its reads fall outside the
 * copy), and the process's modules.  So each process keeps its recent
 * chains, each with the registers it depends on and every word read,
 * the failed reads included; a sample whose registers are the same and
 * whose copy holds the same words at those addresses (and has none
 * where those failed) has that chain, without libdwfl.  A new mapping
 * of the process, its exec or its end empties its table.
 *
 * Which registers a chain depends on: all of them, as a chain is first
 * kept.  A loop's counter in a callee-saved register differs at every
 * wait, though, and the CFI of x86-64 code computes the frames from the
 * stack pointer (and rbp where the CFI is missing, by frame pointers):
 * when a sample misses only on its other registers (same pc and stack
 * pointer as a kept chain), it is unwound a second time with the pc,
 * sp and rbp alone given to libdwfl.  A register libdwfl is not given
 * is unset for it, and so is everything computed from it: a frame whose
 * pc needed one ends the chain there, a saved register's address that
 * needed one is not read.  When the second chain, its end and its reads
 * are those of the first, nothing that made the chain came from the
 * other registers, and the chain is kept as depending on pc, sp and rbp
 * alone.  The words read are the same case: a callee-saved register's
 * saved value (the caller's loop counter again) is read to restore it,
 * and a chain that does not need it should not miss on it.  So the
 * second unwinding is first tried with every word read that is not a
 * return address of the chain made unknown as well (the read fails
 * without counting as one beyond the copy), on complete chains only
 * (one cut short may have stopped where an unknown value made libdwfl
 * give up): with the same frames, end and reads, those words need only
 * be inside the copy, whatever their values.  (One thing in DWARF
 * could still depend on a value without reading memory or changing a
 * frame: an expression that fails for a value, DW_OP_div or DW_OP_mod
 * by zero, in a register rule whose result is used only where that
 * expression succeeds; compilers do not emit such CFI.)  With
 * PME_UNWIND_CHECK set in the environment, every
 * chain the table gives is unwound again by libdwfl with all registers
 * and compared (unwind_cache_counts(); sh/pmeclock_wall_cache).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "unwind.h"
#include "util.h"

int
callgraph_option(struct clockopts *o, const char *arg, struct pme_error *err)
{
	unsigned long size = STACKSIZE_DEFAULT;
	char *end;

	if (strcmp(arg, "fp") == 0) {
		o->callgraph = CALLGRAPH_FP;
		return -1;
	}
	if (strncmp(arg, "dwarf", 5) != 0 || (arg[5] != '\0' &&
	    arg[5] != ','))
		goto bad;
	if (arg[5] == ',') {
		errno = 0;
		size = strtoul(arg + 6, &end, 10);
		if (end == arg + 6 || *end != '\0' || errno || size < 64 ||
		    size > STACKSIZE_MAX)
			goto bad;
	}
	if (!unwind_available()) {
		pme_seterr(err, PME_EINVAL, "-G %s: this pmeclock unwinds by "
		    "frame pointers only (built without elfutils' libdw, or "
		    "not for x86-64): use -G fp", arg);
		return 1;
	}
	o->callgraph = CALLGRAPH_DWARF;
	/* The kernel copies whole words. */
	o->stacksize = (uint32_t)(size + 7) / 8 * 8;
	o->stackgiven = arg[5] == ',';
	return -1;
bad:
	pme_seterr(err, PME_EINVAL, "-G: '%s' is not fp, dwarf or dwarf,size "
	    "(size in bytes from 64 to %u)", arg, STACKSIZE_MAX);
	return 2;
}

int
callgraph_check(struct clockopts *o, struct pme_error *err)
{
	const char *msg = "the in-process methods unwind by frame pointers: "
	    "code built without them loses callers";

	if (!o->callchain || o->callgraph != CALLGRAPH_DWARF ||
	    o->method == PME_METHOD_PERF)
		return 0;
#if defined(HAVE_LIBUNWIND) && defined(__x86_64__)
	/* The runtime walks the CFI with libunwind (it says so itself
	 * when libunwind.so.8 cannot be loaded). */
	return 0;
#endif
	o->callgraph = CALLGRAPH_FP;
	pme_seterr(err, PME_EINVAL, "-g with the %s method: %s",
	    o->method == PME_METHOD_ITIMER ? "itimer" : "timer", msg);
	if (o->note[0] != '\0')
		strncat(o->note, "; ", sizeof(o->note) - strlen(o->note) - 1);
	strncat(o->note, msg, sizeof(o->note) - strlen(o->note) - 1);
	return 1;
}

#if defined(HAVE_LIBDW) && defined(__x86_64__)
#include <elfutils/libdwfl.h>
#include <dwarf.h>

/* The perf_event registers of x86-64 (asm/perf_regs.h) wanted, in the
 * kernel's order: AX BX CX DX SI DI BP SP IP, then R8 to R15. */
#define NREGS		17
#define REGS_MASK	(0x1ffull | (0xffull << 16))

/* Their DWARF numbers (the x86-64 psABI): rax 0, rdx 1, rcx 2, rbx 3,
 * rsi 4, rdi 5, rbp 6, rsp 7, r8-r15 8-15, the return address (rip) 16. */
static const int dwarf_of[NREGS] = {
	0, 3, 2, 1, 4, 5, 6, 7, 16, 8, 9, 10, 11, 12, 13, 14, 15
};
#define PERF_BP		6
#define PERF_SP		7
#define PERF_IP		8

/* The table of recent chains of a process: sets by pc and sp (a power
 * of two), of a few chains each, the oldest replaced. */
#define CACHE_SETS	256
#define CACHE_WAYS	4
#define MASK_ALL	((1u << NREGS) - 1)
#define MASK_PLACE	((1u << PERF_IP) | (1u << PERF_SP) | (1u << PERF_BP))

/* A word the unwinder read at addr: val (READ_VAL), or only inside the
 * copy of the stack, its value not used by the chain (READ_ANY), or
 * outside the copy (READ_OUT). */
struct uread {
	uint64_t	 addr, val;
	uint64_t	 ok;
};
#define READ_OUT	0
#define READ_VAL	1
#define READ_ANY	2

/* A chain of the table, with what it was unwound from: the registers of
 * mask, frames[n], then reads[nreads], in the same allocation. */
struct uentry {
	uint64_t	 regs[NREGS];
	uint32_t	 mask, max, n, nreads;
	int		 complete;
	uint64_t	*frames;
	struct uread	*reads;
};

struct ucache {
	struct uentry	*e[CACHE_SETS][CACHE_WAYS];
	uint8_t		 next[CACHE_SETS];	/* the way to replace */
};

/* The chains of all processes together: a system-wide run's hundreds of
 * processes would each keep up to a thousand chains of deep stacks. */
#define CACHE_BYTES	(64u << 20)

struct umap {
	uint64_t	 start, end, bias;
	char		*file;
	int		 reported;
};

struct uproc {
	uint32_t	 pid;
	Dwfl		*dwfl;
	int		 attached;
	int		 rebuild;	/* a reported module was forgotten */
	struct umap	*maps;
	size_t		 nmaps, capmaps;
	struct ucache	*cache;		/* or NULL */
};

/* What the callbacks see of the sample being unwound. */
struct cursample {
	const uint64_t	*regs;
	const uint8_t	*stack;
	uint64_t	 sp, len;
	uint64_t	*frames;
	uint32_t	 max, n;
	int		 short_read;	/* memory beyond the copy was wanted */
	uint32_t	 mask;		/* the registers libdwfl is given */
	struct uread	*reads;		/* what it read, for the table */
	size_t		 nreads, capreads;
	const struct uread *ref;	/* reads READ_ANY here fail */
	size_t		 nref;
	int		 nomem;		/* reads not all kept */
};

struct unwinder {
	struct uproc	*procs;
	size_t		 nprocs, capprocs;
	struct cursample cur;
	uint64_t	 chains, truncated, ns;
	int		 timed;		/* ns kept (-v): two clock reads a chain */
	uint64_t	 hits;		/* chains from the table */
	size_t		 cachebytes;	/* of the chains kept */
	struct uread	*alt;		/* the reads of a second unwinding */
	size_t		 capalt;
	int		 check;		/* PME_UNWIND_CHECK: unwind hits again */
	uint64_t	 checked, differ;
};

/*
 * libdwfl looks for a module's .debug_frame when its .eh_frame did not
 * unwind a frame, which is mostly where the copy of the stack ran out;
 * a separate debug file found then (libc6-dbg's, compressed) costs tens
 * of milliseconds per process to read, for nothing.  So separate debug
 * files are looked for only for modules without .eh_frame.
 */
static int
find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
    Dwarf_Addr base, const char *file_name, const char *debuglink_file,
    GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	GElf_Shdr shdr;
	Dwarf_Addr bias;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *name;
	Elf *elf;

	if ((elf = dwfl_module_getelf(mod, &bias)) != NULL &&
	    elf_getshdrstrndx(elf, &shstrndx) == 0)
		while ((scn = elf_nextscn(elf, scn)) != NULL)
			if (gelf_getshdr(scn, &shdr) != NULL &&
			    (name = elf_strptr(elf, shstrndx,
			    shdr.sh_name)) != NULL &&
			    strcmp(name, ".eh_frame") == 0)
				return -1;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base,
	    file_name, debuglink_file, debuglink_crc, debuginfo_file_name);
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = find_debuginfo,
};

int
unwind_available(void)
{
	return 1;
}

uint64_t
unwind_regs_mask(void)
{
	return REGS_MASK;
}

struct unwinder *
unwind_new(int timed)
{
	struct unwinder *u;
	const char *e = getenv("PME_UNWIND_CHECK");

	if ((u = calloc(1, sizeof(*u))) != NULL) {
		u->check = e != NULL && *e != '\0';
		u->timed = timed;
	}
	return u;
}

static size_t
entry_bytes(const struct uentry *e)
{
	return e == NULL ? 0 : sizeof(*e) + e->n * sizeof(*e->frames) +
	    e->nreads * sizeof(*e->reads);
}

/* Forgets the chains of p: its modules changed. */
static void
cache_clear(struct unwinder *u, struct uproc *p)
{
	size_t i, j;

	if (p->cache == NULL)
		return;
	for (i = 0; i < CACHE_SETS; i++)
		for (j = 0; j < CACHE_WAYS; j++) {
			u->cachebytes -= entry_bytes(p->cache->e[i][j]);
			free(p->cache->e[i][j]);
		}
	free(p->cache);
	p->cache = NULL;
}

static void
proc_clear(struct unwinder *u, struct uproc *p)
{
	size_t i;

	cache_clear(u, p);
	if (p->dwfl != NULL)
		dwfl_end(p->dwfl);
	for (i = 0; i < p->nmaps; i++)
		free(p->maps[i].file);
	free(p->maps);
	memset(p, 0, sizeof(*p));
}

void
unwind_free(struct unwinder *u)
{
	size_t i;

	if (u == NULL)
		return;
	for (i = 0; i < u->nprocs; i++)
		proc_clear(u, &u->procs[i]);
	free(u->procs);
	free(u->cur.reads);
	free(u->alt);
	free(u);
}

static struct uproc *
find_proc(struct unwinder *u, uint32_t pid, int add)
{
	size_t i;
	void *q;

	for (i = 0; i < u->nprocs; i++)
		if (u->procs[i].pid == pid)
			return &u->procs[i];
	if (!add)
		return NULL;
	if (u->nprocs == u->capprocs) {
		if ((q = realloc(u->procs, (u->capprocs ? u->capprocs * 2 :
		    16) * sizeof(*u->procs))) == NULL)
			return NULL;
		u->procs = q;
		u->capprocs = u->capprocs ? u->capprocs * 2 : 16;
	}
	memset(&u->procs[u->nprocs], 0, sizeof(*u->procs));
	u->procs[u->nprocs].pid = pid;
	return &u->procs[u->nprocs++];
}

static int
add_map(struct uproc *p, uint64_t start, uint64_t end, uint64_t bias,
    const char *file)
{
	size_t i, j;
	void *q;

	/* A mapping over the addresses of earlier ones hides them. */
	for (i = j = 0; i < p->nmaps; i++) {
		if (p->maps[i].start < end && start < p->maps[i].end) {
			p->rebuild |= p->maps[i].reported;
			free(p->maps[i].file);
			continue;
		}
		p->maps[j++] = p->maps[i];
	}
	p->nmaps = j;
	if (p->nmaps == p->capmaps) {
		if ((q = realloc(p->maps, (p->capmaps ? p->capmaps * 2 : 16) *
		    sizeof(*p->maps))) == NULL)
			return -1;
		p->maps = q;
		p->capmaps = p->capmaps ? p->capmaps * 2 : 16;
	}
	if ((p->maps[p->nmaps].file = strdup(file)) == NULL)
		return -1;
	p->maps[p->nmaps].start = start;
	p->maps[p->nmaps].end = end;
	p->maps[p->nmaps].bias = bias;
	p->maps[p->nmaps].reported = 0;
	p->nmaps++;
	return 0;
}

int
unwind_mapping(struct unwinder *u, const struct pme_mapping *m,
    const char *file)
{
	struct uproc *p;

	if ((p = find_proc(u, m->pid, 1)) == NULL)
		return -1;
	cache_clear(u, p);
	return add_map(p, m->start, m->end, m->start - m->vaddr, file);
}

int
unwind_fork(struct unwinder *u, uint32_t ppid, uint32_t pid)
{
	struct uproc *parent, *child;
	size_t i;

	unwind_forget(u, pid);
	if ((parent = find_proc(u, ppid, 0)) == NULL || parent->nmaps == 0)
		return 0;
	if ((child = find_proc(u, pid, 1)) == NULL)
		return -1;
	/* find_proc may have moved the array. */
	parent = find_proc(u, ppid, 0);
	for (i = 0; i < parent->nmaps; i++)
		if (add_map(child, parent->maps[i].start, parent->maps[i].end,
		    parent->maps[i].bias, parent->maps[i].file) < 0)
			return -1;
	return 0;
}

void
unwind_forget(struct unwinder *u, uint32_t pid)
{
	struct uproc *p;

	if ((p = find_proc(u, pid, 0)) == NULL)
		return;
	proc_clear(u, p);
	*p = u->procs[--u->nprocs];
}

/* ---------------------------------------------------- libdwfl's callbacks */

static pid_t
next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	(void)dwfl;
	(void)arg;
	(void)thread_arg;
	return 0;
}

/* Every thread asked for is the sample's. */
static bool
get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	(void)dwfl;
	(void)tid;
	*thread_arg = arg;
	return true;
}

/* The word at addr of the copy of len bytes from sp; 0 when outside. */
static int
stack_word(uint64_t sp, const uint8_t *stack, uint64_t len, uint64_t addr,
    uint64_t *val)
{
	if (addr < sp || addr - sp > len || len - (addr - sp) < sizeof(*val))
		return 0;
	memcpy(val, stack + (addr - sp), sizeof(*val));
	return 1;
}

static bool
memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwinder *u = arg;
	struct cursample *c = &u->cur;
	uint64_t v = 0, ok = READ_VAL;

	(void)dwfl;
	if (!stack_word(c->sp, c->stack, c->len, addr, &v)) {
		c->short_read = 1;
		ok = READ_OUT;
	} else if (c->nreads < c->nref && c->ref[c->nreads].addr == addr &&
	    c->ref[c->nreads].ok == READ_ANY) {
		/* As if unknown: what is computed from it is unset. */
		ok = READ_ANY;
		v = 0;
	}
	*result = v;
	if (c->nreads == c->capreads && !c->nomem) {
		void *q = realloc(c->reads, (c->capreads ? c->capreads * 2 :
		    64) * sizeof(*c->reads));

		if (q == NULL)
			c->nomem = 1;
		else {
			c->reads = q;
			c->capreads = c->capreads ? c->capreads * 2 : 64;
		}
	}
	if (!c->nomem) {
		c->reads[c->nreads].addr = addr;
		c->reads[c->nreads].val = v;
		c->reads[c->nreads++].ok = ok;
	}
	return ok == READ_VAL;
}

static bool
set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Word dw[NREGS];
	int i;

	if (u->cur.mask == MASK_ALL) {
		for (i = 0; i < NREGS; i++)
			dw[dwarf_of[i]] = u->cur.regs[i];
		return dwfl_thread_state_registers(thread, 0, NREGS, dw);
	}
	for (i = 0; i < NREGS; i++)
		if ((u->cur.mask >> i & 1) && !dwfl_thread_state_registers(
		    thread, dwarf_of[i], 1, &u->cur.regs[i]))
			return false;
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* Reports the modules not yet reported; a Dwfl made anew when one that
 * was reported has gone (libdwfl cannot remove one alone). */
static int
report(struct unwinder *u, struct uproc *p)
{
	size_t i, n = 0;

	if (p->rebuild && p->dwfl != NULL) {
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
		p->attached = 0;
		for (i = 0; i < p->nmaps; i++)
			p->maps[i].reported = 0;
	}
	p->rebuild = 0;
	if (p->dwfl == NULL && (p->dwfl = dwfl_begin(&dwfl_callbacks)) ==
	    NULL)
		return -1;
	for (i = 0; i < p->nmaps; i++)
		n += !p->maps[i].reported;
	if (n > 0) {
		dwfl_report_begin_add(p->dwfl);
		/* A file that is not ELF or cannot be read is left out:
		 * its pcs end their chains. */
		for (i = 0; i < p->nmaps; i++)
			if (!p->maps[i].reported) {
				p->maps[i].reported = 1;
				dwfl_report_elf(p->dwfl, p->maps[i].file,
				    p->maps[i].file, -1, p->maps[i].bias,
				    true);
			}
		if (dwfl_report_end(p->dwfl, NULL, NULL) != 0)
			return -1;
	}
	if (!p->attached)
		p->attached = dwfl_attach_state(p->dwfl, NULL,
		    (pid_t)p->pid, &thread_callbacks, u);
	return p->attached ? 0 : -1;
}

static int
frame(Dwfl_Frame *state, void *arg)
{
	struct cursample *c = arg;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	if (c->n == c->max)
		return DWARF_CB_ABORT;
	c->frames[c->n++] = pc;
	return DWARF_CB_OK;
}

/* The chain of the sample by libdwfl into frames[0..n), given the
 * registers of mask, its reads in u->cur.reads; 0 when it reached the
 * outermost frame. */
static int
unwind_dwfl(struct unwinder *u, struct uproc *p, uint32_t tid,
    const uint64_t *regs, const uint8_t *stack, uint64_t len,
    uint64_t *frames, uint32_t max, uint32_t *n, uint32_t mask)
{
	int rc = -1;

	u->cur.regs = regs;
	u->cur.mask = mask;
	u->cur.stack = stack;
	u->cur.sp = regs[PERF_SP];
	u->cur.len = len;
	u->cur.frames = frames;
	u->cur.max = max;
	u->cur.n = 0;
	u->cur.short_read = 0;
	u->cur.nreads = 0;
	u->cur.nomem = 0;
	if (p != NULL && report(u, p) == 0)
		rc = dwfl_getthread_frames(p->dwfl, (pid_t)tid, frame,
		    &u->cur);
	if (u->cur.n == 0 && max > 0)
		frames[u->cur.n++] = regs[PERF_IP];
	*n = u->cur.n;
	/* libdwfl ends a chain without an error where a register it
	 * needed could not be read: that is a chain cut short too. */
	return u->cur.short_read ? -1 : rc;
}

static size_t
cache_set(const uint64_t *regs)
{
	uint64_t h;

	h = (regs[PERF_IP] * 0x9e3779b97f4a7c15ull) ^ regs[PERF_SP];
	h *= 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 40) & (CACHE_SETS - 1);
}

static int
regs_equal(const uint64_t *a, const uint64_t *b, uint32_t mask)
{
	int i;

	for (i = 0; i < NREGS; i++)
		if ((mask >> i & 1) && a[i] != b[i])
			return 0;
	return 1;
}

/* The chain of the table that this sample has too, or NULL; *near when
 * one of them has its registers of MASK_PLACE. */
static const struct uentry *
cache_find(const struct uproc *p, const uint64_t *regs,
    const uint8_t *stack, uint64_t len, uint32_t max, int *near)
{
	const struct uentry *e;
	uint64_t v = 0;
	uint32_t i;
	size_t w;

	*near = 0;
	if (p->cache == NULL)
		return NULL;
	for (w = 0; w < CACHE_WAYS; w++) {
		e = p->cache->e[cache_set(regs)][w];
		if (e == NULL || e->max != max ||
		    !regs_equal(e->regs, regs, MASK_PLACE))
			continue;
		*near = 1;
		if (!regs_equal(e->regs, regs, e->mask))
			continue;
		for (i = 0; i < e->nreads; i++)
			if (stack_word(regs[PERF_SP], stack, len,
			    e->reads[i].addr, &v) != (e->reads[i].ok !=
			    READ_OUT) || (e->reads[i].ok == READ_VAL &&
			    v != e->reads[i].val))
				break;
		if (i == e->nreads)
			return e;
	}
	return NULL;
}

/* Keeps the chain just unwound by libdwfl (its reads in u->cur) in p's
 * table, depending on the registers of mask, in place of the oldest of
 * its set; not when all the tables would hold more than CACHE_BYTES. */
static void
cache_put(struct unwinder *u, struct uproc *p, const uint64_t *regs,
    uint32_t mask, const uint64_t *frames, uint32_t n, uint32_t max,
    int complete)
{
	struct uentry *e, **slot;
	size_t k = cache_set(regs), nr = u->cur.nreads;
	size_t size = sizeof(*e) + n * sizeof(*frames) +
	    nr * sizeof(*u->cur.reads);

	if (u->cur.nomem || (p->cache == NULL && (p->cache =
	    calloc(1, sizeof(*p->cache))) == NULL))
		return;
	slot = &p->cache->e[k][p->cache->next[k]];
	if (u->cachebytes - entry_bytes(*slot) + size > CACHE_BYTES ||
	    (e = malloc(size)) == NULL)
		return;
	memcpy(e->regs, regs, sizeof(e->regs));
	e->mask = mask;
	e->max = max;
	e->n = n;
	e->nreads = (uint32_t)nr;
	e->complete = complete;
	e->frames = (uint64_t *)(e + 1);
	e->reads = (struct uread *)(e->frames + n);
	memcpy(e->frames, frames, n * sizeof(*frames));
	if (nr > 0)	/* u->cur.reads may be NULL */
		memcpy(e->reads, u->cur.reads, nr * sizeof(*u->cur.reads));
	p->cache->next[k] = (uint8_t)((p->cache->next[k] + 1) % CACHE_WAYS);
	u->cachebytes += size - entry_bytes(*slot);
	free(*slot);
	*slot = e;
}

/*
 * Whether the chain frames[0..n) just unwound with all registers, its
 * reads in u->cur, is what libdwfl gives with pc, sp and rbp alone, and
 * without the values of the reads of u->cur marked READ_ANY (the comment
 * at the top): the same frames, end and reads.  u->cur's reads are left
 * those of the first unwinding.
 */
static int
same_without(struct unwinder *u, struct uproc *p, uint32_t tid,
    const uint64_t *regs, const uint8_t *stack, uint64_t len,
    const uint64_t *frames, uint32_t n, uint32_t max, int rc)
{
	struct uread *r = u->cur.reads;
	size_t nr = u->cur.nreads, capr = u->cur.capreads, i;
	uint64_t f[512];
	uint32_t n2;
	int rc2, same;

	u->cur.reads = u->alt;
	u->cur.capreads = u->capalt;
	u->cur.ref = r;
	u->cur.nref = nr;
	rc2 = unwind_dwfl(u, p, tid, regs, stack, len, f, max, &n2,
	    MASK_PLACE);
	same = !u->cur.nomem && (rc == 0) == (rc2 == 0) && n == n2 &&
	    memcmp(frames, f, n * sizeof(*f)) == 0 && u->cur.nreads == nr;
	for (i = 0; same && i < nr; i++)
		same = r[i].addr == u->cur.reads[i].addr &&
		    r[i].ok == u->cur.reads[i].ok &&
		    (r[i].ok != READ_VAL || r[i].val == u->cur.reads[i].val);
	u->cur.ref = NULL;
	u->cur.nref = 0;
	u->alt = u->cur.reads;
	u->capalt = u->cur.capreads;
	u->cur.reads = r;
	u->cur.nreads = nr;
	u->cur.capreads = capr;
	u->cur.nomem = 0;
	return same;
}

/*
 * The registers the chain frames[0..n) just unwound depends on (the
 * comment at the top): MASK_PLACE when pc, sp and rbp alone give it,
 * and then the words read that are not return addresses (a callee-saved
 * register's saved value, a loop's counter) marked READ_ANY in u->cur
 * when it does not need them either; else MASK_ALL.
 */
static uint32_t
narrow(struct unwinder *u, struct uproc *p, uint32_t tid,
    const uint64_t *regs, const uint8_t *stack, uint64_t len,
    const uint64_t *frames, uint32_t n, uint32_t max, int rc)
{
	size_t i, any = 0;
	uint32_t k;

	if (u->cur.nomem || max > 512)
		return MASK_ALL;
	/* Only a complete chain: one cut short may have ended where an
	 * unknown value made libdwfl give up, not where a known one did. */
	for (i = 0; rc == 0 && i < u->cur.nreads; i++) {
		for (k = 0; k < n && frames[k] != u->cur.reads[i].val; k++)
			;
		if (u->cur.reads[i].ok == READ_VAL && k == n) {
			u->cur.reads[i].ok = READ_ANY;
			any++;
		}
	}
	if (any > 0 && same_without(u, p, tid, regs, stack, len, frames, n,
	    max, rc))
		return MASK_PLACE;
	for (i = 0; i < u->cur.nreads; i++)
		if (u->cur.reads[i].ok == READ_ANY)
			u->cur.reads[i].ok = READ_VAL;
	return same_without(u, p, tid, regs, stack, len, frames, n, max,
	    rc) ? MASK_PLACE : MASK_ALL;
}

/* PME_UNWIND_CHECK: the chain e gave, unwound again by libdwfl. */
static void
cache_check(struct unwinder *u, struct uproc *p, uint32_t tid,
    const uint64_t *regs, const uint8_t *stack, uint64_t len,
    const struct uentry *e)
{
	uint64_t f[512];
	uint32_t n, max = e->max < 512 ? e->max : 512;
	int rc;

	rc = unwind_dwfl(u, p, tid, regs, stack, len, f, max, &n, MASK_ALL);
	u->checked++;
	if (max != e->max || n != e->n || (rc == 0) != e->complete ||
	    memcmp(f, e->frames, n * sizeof(*f)) != 0)
		u->differ++;
}

int
unwind_sample(struct unwinder *u, uint32_t pid, uint32_t tid,
    const uint64_t *regs, const uint8_t *stack, uint64_t len,
    uint64_t *frames, uint32_t max, uint32_t *n)
{
	struct timespec t0, t1;
	const struct uentry *e = NULL;
	struct uproc *p;
	int rc, near = 0;

	if (u->timed)
		clock_gettime(CLOCK_MONOTONIC, &t0);
	p = find_proc(u, pid, 0);
	if (p != NULL && (e = cache_find(p, regs, stack, len, max, &near)) !=
	    NULL) {
		memcpy(frames, e->frames, e->n * sizeof(*frames));
		*n = e->n;
		rc = e->complete ? 0 : -1;
		u->hits++;
		if (u->check)
			cache_check(u, p, tid, regs, stack, len, e);
	} else {
		rc = unwind_dwfl(u, p, tid, regs, stack, len, frames, max, n,
		    MASK_ALL);
		/* A process whose modules could not be reported is not
		 * kept: its next sample tries again. */
		if (p != NULL && p->attached)
			cache_put(u, p, regs, near ? narrow(u, p, tid, regs,
			    stack, len, frames, *n, max, rc) : MASK_ALL,
			    frames, *n, max, rc == 0);
	}
	u->chains++;
	u->truncated += rc != 0;
	if (u->timed) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		u->ns += (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u +
		    (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
	}
	return rc == 0;
}

void
unwind_cache_counts(const struct unwinder *u, uint64_t *hits,
    uint64_t *checked, uint64_t *differ)
{
	*hits = u->hits;
	*checked = u->check ? u->checked : UINT64_MAX;
	*differ = u->differ;
}

void
unwind_counts(const struct unwinder *u, uint64_t *chains,
    uint64_t *truncated, uint64_t *ns)
{
	*chains = u->chains;
	*truncated = u->truncated;
	*ns = u->ns;
}

#else /* no libdw, or not x86-64 */

int
unwind_available(void)
{
	return 0;
}

uint64_t
unwind_regs_mask(void)
{
	return 0;
}

struct unwinder *
unwind_new(int timed)
{
	(void)timed;
	return NULL;
}

void
unwind_free(struct unwinder *u)
{
	(void)u;
}

int
unwind_mapping(struct unwinder *u, const struct pme_mapping *m,
    const char *file)
{
	(void)u;
	(void)m;
	(void)file;
	return 0;
}

int
unwind_fork(struct unwinder *u, uint32_t ppid, uint32_t pid)
{
	(void)u;
	(void)ppid;
	(void)pid;
	return 0;
}

void
unwind_forget(struct unwinder *u, uint32_t pid)
{
	(void)u;
	(void)pid;
}

int
unwind_sample(struct unwinder *u, uint32_t pid, uint32_t tid,
    const uint64_t *regs, const uint8_t *stack, uint64_t len,
    uint64_t *frames, uint32_t max, uint32_t *n)
{
	(void)u;
	(void)pid;
	(void)tid;
	(void)regs;
	(void)stack;
	(void)len;
	(void)frames;
	(void)max;
	*n = 0;
	return 0;
}

void
unwind_counts(const struct unwinder *u, uint64_t *chains,
    uint64_t *truncated, uint64_t *ns)
{
	(void)u;
	*chains = *truncated = *ns = 0;
}

void
unwind_cache_counts(const struct unwinder *u, uint64_t *hits,
    uint64_t *checked, uint64_t *differ)
{
	(void)u;
	*hits = *differ = 0;
	*checked = UINT64_MAX;
}

#endif
