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
#define PERF_SP		7
#define PERF_IP		8

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
};

/* What the callbacks see of the sample being unwound. */
struct cursample {
	const uint64_t	*regs;
	const uint8_t	*stack;
	uint64_t	 sp, len;
	uint64_t	*frames;
	uint32_t	 max, n;
	int		 short_read;	/* memory beyond the copy was wanted */
};

struct unwinder {
	struct uproc	*procs;
	size_t		 nprocs, capprocs;
	struct cursample cur;
	uint64_t	 chains, truncated, ns;
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
unwind_new(void)
{
	return calloc(1, sizeof(struct unwinder));
}

static void
proc_clear(struct uproc *p)
{
	size_t i;

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
		proc_clear(&u->procs[i]);
	free(u->procs);
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
	proc_clear(p);
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

static bool
memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwinder *u = arg;

	(void)dwfl;
	if (addr < u->cur.sp || addr - u->cur.sp > u->cur.len ||
	    u->cur.len - (addr - u->cur.sp) < sizeof(*result)) {
		u->cur.short_read = 1;
		return false;
	}
	memcpy(result, u->cur.stack + (addr - u->cur.sp), sizeof(*result));
	return true;
}

static bool
set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Word dw[NREGS];
	int i;

	for (i = 0; i < NREGS; i++)
		dw[dwarf_of[i]] = u->cur.regs[i];
	return dwfl_thread_state_registers(thread, 0, NREGS, dw);
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

int
unwind_sample(struct unwinder *u, uint32_t pid, uint32_t tid,
    const uint64_t *regs, const uint8_t *stack, uint64_t len,
    uint64_t *frames, uint32_t max, uint32_t *n)
{
	struct timespec t0, t1;
	struct uproc *p;
	int rc = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	u->cur.regs = regs;
	u->cur.stack = stack;
	u->cur.sp = regs[PERF_SP];
	u->cur.len = len;
	u->cur.frames = frames;
	u->cur.max = max;
	u->cur.n = 0;
	u->cur.short_read = 0;
	if ((p = find_proc(u, pid, 0)) != NULL && report(u, p) == 0)
		rc = dwfl_getthread_frames(p->dwfl, (pid_t)tid, frame,
		    &u->cur);
	if (u->cur.n == 0 && max > 0)
		frames[u->cur.n++] = regs[PERF_IP];
	*n = u->cur.n;
	/* libdwfl ends a chain without an error where a register it
	 * needed could not be read: that is a chain cut short too. */
	if (u->cur.short_read)
		rc = -1;
	u->chains++;
	u->truncated += rc != 0;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	u->ns += (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u +
	    (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
	return rc == 0;
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
unwind_new(void)
{
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

#endif
