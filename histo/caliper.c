/*
 * caliper.c - HP Caliper's views of a profile (pmehisto -V caliper): the
 * counts of each program object as a share of the total, a running sum
 * of those shares and the counts themselves, per thread, process, load
 * module, function, source statement (with the statement's text when the
 * source file is found) and instruction (disassembled by capstone), and
 * the hierarchy load module > function > statement > instruction that
 * Caliper's function details print.
 *
 * Clock input: the sample files are read here (not by reduce.c: no
 * bucket file is filled) into cells, one per (run, process, thread, load
 * module, link-time address), each with its count of sampling intervals; every
 * level is a grouping of the cells, so that each level's rows sum to the
 * same total.  Functions are the routines the quick path makes buckets
 * of (pme_quick_pick()), and its PLT stubs, _init and _fini (lib/plt.c),
 * and in the kernel the routines of kallsyms the quick path names, so
 * that a function's count is its -x bucket's.
 * Trace input: a filled bucket file holds counts per bucket only, so the
 * levels are its load modules, its ROUTINE units and its LINE units.
 *
 * Disassembly: capstone, chosen over libopcodes (GPL-3, whose
 * disassemble_info changed shape in binutils 2.39, and which pme's ISC
 * terms could not link) and over running objdump (a process and a text
 * to parse per module, and nothing when binutils is absent): capstone is
 * maintained, BSD-licensed, has had the same cs_open()/cs_disasm() API
 * since 3.0, and speaks x86-64 and AArch64 alike.  Its AT&T syntax is
 * objdump's but for spacing, number bases and size suffixes.  Without it
 * (configure found no capstone) the instruction rows show addresses.
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_CAPSTONE
#include <capstone/capstone.h>
#endif

#include "histo.h"
#include "image.h"
#include "plt.h"
#include "quick.h"
#include "stmtmark.h"
#include "util.h"

#define RULE_WIDTH	80

static const char *const level_names[CAL_NLEVELS] = {
	"thread", "process", "module", "function", "line", "instruction",
	"cpu"
};

static const char *const level_titles[CAL_NLEVELS] = {
	"Thread Summary", "Process Summary", "Load Module Summary",
	"Function Summary", "Statement Summary", "Instruction Summary",
	"CPU Summary"
};

/* The order the summaries are printed and written in: the CPUs after
 * the threads and processes that ran on them. */
static const int level_order[CAL_NLEVELS] = {
	CAL_THREAD, CAL_PROCESS, CAL_CPU, CAL_MODULE, CAL_FUNCTION, CAL_LINE,
	CAL_INSN
};

int
caliper_parse(const char *spec, int *level)
{
	size_t i;

	if (strncmp(spec, "caliper", 7) != 0 ||
	    (spec[7] != '\0' && spec[7] != ':'))
		return 1;
	if (spec[7] == '\0') {
		*level = CAL_ALL;
		return 0;
	}
	for (i = 0; i < CAL_NLEVELS; i++)
		if (strcmp(spec + 8, level_names[i]) == 0) {
			*level = (int)i;
			return 0;
		}
	return -1;
}

/* ---------------------------------------------------------------- model */

struct piece {			/* a range of a routine */
	uint64_t	 start, end;
	uint32_t	 routine;
};

/* A load module as the samples name it: a file, or a pseudo-module
 * ("[kernel]", "[vdso]", "[unknown]") with no symbols. */
struct cmod {
	char		*path;
	uint8_t		*buildid;
	uint32_t	 idlen;
	int		 special;
	int		 opened;	/* its image was tried */
	struct pme_image *img;
	char		*why;		/* why it has no symbols, or NULL */
	struct piece	*pieces;	/* kept routines' ranges, sorted */
	size_t		 npieces;
	size_t		 nrt;		/* image routines: fn < nrt */
	struct pme_plt	 plt;		/* the others: fn - nrt */
	const char	**inames;	/* functions inlined (--inline):
					   fn - nrt - plt.n, owned by img */
	size_t		 ninames, capinames;
	int		 kernel;	/* [kernel]: fn is a symbol of
					   the caliper's kr.k */
	uint32_t	*lix;		/* line entries by start */
	size_t		 nlix;
	int		 lines_tried;
	char		**dirs;		/* its units' DW_AT_comp_dir */
	size_t		 ndirs;
	int		 dirs_tried;
};

/* The samples of one (run, process, thread, CPU, module, address). */
struct cell {
	uint32_t	 run, pid, tid, cpu, mod;
	uint64_t	 addr, count;
};

struct thname {
	uint32_t	 run, pid, tid;
	char		*name;
};

/* A source file read for its lines' text; text NULL when not found or
 * not shown. */
struct source {
	char		*name;		/* the line table's */
	uint32_t	 mod;
	int		 hidden;	/* found outside the directories
					   source is shown from */
	char		*text;
	size_t		*off;		/* start of each line */
	size_t		 nlines;
};

/* A row of a level: the fields its level groups by, and the count.
 * cpu is UINT32_MAX where the samples did not say; ifn, a statement's
 * function inlined at its addresses (--inline), PME_NONE if none. */
struct crow {
	uint32_t	 run, pid, tid, cpu, mod, fn, line, ifn;
	const char	*file;
	uint64_t	 addr, count;
};

struct level {
	struct crow	*rows;
	size_t		 n;
	int		 absent;	/* the input has no such level */
};

struct caliper {
	const struct caliper_input *in;
	struct measure	 measure;	/* the event counted */
	struct pme_error *err;
	struct filter_run fr;		/* in->filter's state in the run */
	struct pme_sample *sel;		/* a batch's samples it keeps */
	size_t		 capsel;
	int		 trace;
	size_t		 file;		/* the sample file being read */
	uint64_t	 total;
	struct cmod	*mods;
	size_t		 nmods, capmods;
	struct cell	*cells;		/* hash table, cap a power of 2 */
	size_t		 ncells, cap;
	struct thname	*names;
	size_t		 nnames, capnames;
	struct source	*srcs;
	size_t		 nsrcs, capsrcs;
	struct level	 lv[CAL_NLEVELS];
	struct level	 bythread;	/* (thread, function) rows */
	struct level	 bycpu;		/* (CPU, function) rows */
	struct level	 thcpu;		/* (thread, CPU) rows, by identity */
	int		 width;		/* of the text's rows; 0: any */
	char		*command;	/* of the first run */
	uint64_t	 samples;
#ifdef HAVE_CAPSTONE
	csh		 cs;
	int		 cs_open;	/* 1 open, -1 failed, 0 not tried */
	uint16_t	 cs_machine;	/* the ELF machine cs is for */
#endif

	/* reading a sample file */
	uint32_t	 run;
	uint64_t	 period;
	int		 boot;		/* QUICK_BOOT_* of the runs so far */
	uint64_t	 start;		/* the first run's */
	struct pme_kroutines kr;	/* the kernel's functions */
	struct pme_addrmap *am;
	uint32_t	*res;		/* per mapping: module, or PME_NONE */
	size_t		 nres;
};

static int
nomem(struct caliper *c)
{
	return histo_err(c->err, PME_ENOMEM, "out of memory");
}

static void *
grow(void *p, size_t *cap, size_t n, size_t size)
{
	size_t k;
	void *q;

	if (n < *cap)
		return p;
	k = *cap ? *cap * 2 : 16;
	if ((q = realloc(p, k * size)) == NULL)
		return NULL;
	*cap = k;
	return q;
}

/* ------------------------------------------------------- load modules */

/* The index of module path (with build-id), added if new; PME_NONE when
 * out of memory. */
static uint32_t
mod_index(struct caliper *c, const char *path, const uint8_t *id,
    uint32_t idlen, int special)
{
	struct cmod *m;
	size_t i;

	for (i = 0; i < c->nmods; i++)
		if (strcmp(c->mods[i].path, path) == 0 &&
		    c->mods[i].idlen == idlen &&
		    (idlen == 0 || memcmp(c->mods[i].buildid, id, idlen) == 0))
			return (uint32_t)i;
	if ((m = grow(c->mods, &c->capmods, c->nmods, sizeof(*m))) == NULL)
		return PME_NONE;
	c->mods = m;
	m += c->nmods;
	memset(m, 0, sizeof(*m));
	m->special = special;
	if ((m->path = strdup(path)) == NULL ||
	    (idlen > 0 && (m->buildid = malloc(idlen)) == NULL)) {
		free(m->path);
		return PME_NONE;
	}
	if (idlen > 0)
		memcpy(m->buildid, id, idlen);
	m->idlen = idlen;
	return (uint32_t)c->nmods++;
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL && s[1] != '\0' ? s + 1 : path;
}

static int
cmp_piece(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The routines of m's image that the quick path makes buckets of: the
 * kept ones, then the PLT stubs, _init and _fini. */
static int
mod_pieces(struct cmod *m)
{
	const struct pme_symroutine *rt;
	size_t nr = pme_image_routines(m->img, &rt), nk, i, n = 0;
	struct pme_error err;
	uint8_t *keep;
	uint32_t j;

	m->nrt = nr;
	if (pme_image_plt(m->img, &m->plt, &err) == -1)
		return -1;
	if ((keep = pme_quick_pick(m->img, &nk)) == NULL)
		return -1;
	for (i = 0; i < nr; i++)
		if (keep[i] == 1)
			n += rt[i].nranges;
	n += m->plt.n;
	if ((m->pieces = calloc(n ? n : 1, sizeof(*m->pieces))) == NULL) {
		free(keep);
		return -1;
	}
	for (i = 0; i < nr; i++)
		for (j = 0; keep[i] == 1 && j < rt[i].nranges; j++) {
			m->pieces[m->npieces].start = rt[i].ranges[j].start;
			m->pieces[m->npieces].end = rt[i].ranges[j].end;
			m->pieces[m->npieces++].routine = (uint32_t)i;
		}
	for (i = 0; i < m->plt.n; i++) {
		m->pieces[m->npieces].start = m->plt.ranges[i].start;
		m->pieces[m->npieces].end = m->plt.ranges[i].end;
		m->pieces[m->npieces++].routine = (uint32_t)(nr + i);
	}
	free(keep);
	qsort(m->pieces, m->npieces, sizeof(*m->pieces), cmp_piece);
	return 0;
}

/* Reads m's symbols once; 1 when it has them, 0 when not (m->why says),
 * -1 with c->err set: out of memory, or an image that is corrupt (its
 * DWARF, say), which is an error as pmebuild and pmehisto -x make it; an
 * image that cannot be opened (gone since the run) only a warning. */
static int
mod_open(struct caliper *c, struct cmod *m)
{
	struct pme_error err;
	const uint8_t *id;
	uint32_t idlen;

	if (m->opened)
		return m->img != NULL;
	m->opened = 1;
	if (m->special)
		return 0;
	if ((m->img = c->in->inl ? pme_image_open_inlines(m->path, NULL,
	    &err) : pme_image_open(m->path, NULL, &err)) == NULL) {
		if (err.code == PME_EFORMAT || err.code == PME_ETRUNC ||
		    err.code == PME_ENOMEM) {
			*c->err = err;
			return -1;
		}
		m->why = strdup(pme_strerror(&err));
		if (!c->in->quiet)
			histo_warn(c->in->prog, "%s: no functions, lines or "
			    "instructions of it", pme_strerror(&err));
		return m->why == NULL ? nomem(c) : 0;
	}
	id = pme_image_buildid(m->img, &idlen);
	if (m->idlen > 0 && idlen > 0 && (idlen != m->idlen ||
	    memcmp(id, m->buildid, idlen) != 0)) {
		pme_image_close(m->img);
		m->img = NULL;
		if (!c->in->quiet)
			histo_warn(c->in->prog, "'%s': build-id differs from "
			    "the one that ran: no functions, lines or "
			    "instructions of it", m->path);
		return (m->why = strdup("another build")) == NULL ?
		    nomem(c) : 0;
	}
	return mod_pieces(m) == -1 ? nomem(c) : 1;
}

/* The routine of m holding addr, or PME_NONE. */
static uint32_t
routine_of(const struct cmod *m, uint64_t addr)
{
	size_t lo = 0, hi = m->npieces, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->pieces[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && addr < m->pieces[lo - 1].end ?
	    m->pieces[lo - 1].routine : PME_NONE;
}

/*
 * --inline: the function of m whose source the code at addr is, when it
 * was inlined there: the innermost instance holding addr, as addr2line
 * -i -f names it first (lib/image.h).  Its fn (after the routines and
 * the PLT stubs), PME_NONE when no instance holds addr, PME_NONE - 1 when
 * out of memory.
 */
static uint32_t
inline_fn(struct cmod *m, uint64_t addr)
{
	const struct pme_syminline *ch[64], *in;
	const char **v;
	size_t i;

	/* The chain is found from the outermost in: all of it, for its
	 * innermost. */
	if (m->img == NULL || pme_image_inline_chain(m->img, addr, ch,
	    sizeof(ch) / sizeof(ch[0])) == 0)
		return PME_NONE;
	in = ch[0];
	for (i = 0; i < m->ninames; i++)
		if (strcmp(m->inames[i], in->name) == 0)
			break;
	if (i == m->ninames) {
		if ((v = grow(m->inames, &m->capinames, m->ninames,
		    sizeof(*v))) == NULL)
			return PME_NONE - 1;
		m->inames = v;
		v[m->ninames++] = in->name;
	}
	return (uint32_t)(m->nrt + m->plt.n + i);
}

static const struct pme_symline *lines_of;	/* for cmp_line */

static int
cmp_line(const void *a, const void *b)
{
	const struct pme_symline *x = &lines_of[*(const uint32_t *)a],
	    *y = &lines_of[*(const uint32_t *)b];

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* m's line table, indexed by start address. */
static int
mod_lines(struct caliper *c, struct cmod *m)
{
	const struct pme_symline *ln;
	struct pme_error err;
	size_t n, i;

	if (m->lines_tried)
		return 0;
	m->lines_tried = 1;
	if (pme_image_load_lines(m->img, PME_NONE, &err) == -1) {
		if (!c->in->quiet)
			histo_warn(c->in->prog, "%s: no source lines of it",
			    pme_strerror(&err));
		return 0;
	}
	n = pme_image_lines(m->img, &ln);
	if ((m->lix = calloc(n ? n : 1, sizeof(*m->lix))) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		m->lix[i] = (uint32_t)i;
	lines_of = ln;
	qsort(m->lix, n, sizeof(*m->lix), cmp_line);
	m->nlix = n;
	return 0;
}

/* The line-table entry of m holding addr, or NULL. */
static const struct pme_symline *
line_of(const struct cmod *m, uint64_t addr)
{
	const struct pme_symline *ln;
	size_t lo = 0, hi = m->nlix, mid;

	if (m->img == NULL || m->nlix == 0)
		return NULL;
	pme_image_lines(m->img, &ln);
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ln[m->lix[mid]].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && addr < ln[m->lix[lo - 1]].end ?
	    &ln[m->lix[lo - 1]] : NULL;
}

/* Adds directory s to m's, once; -1 when out of memory. */
static int
add_dir(struct cmod *m, size_t *cap, const char *s)
{
	size_t i;
	char **v;

	for (i = 0; i < m->ndirs; i++)
		if (strcmp(m->dirs[i], s) == 0)
			return 0;
	if ((v = grow(m->dirs, cap, m->ndirs, sizeof(*v))) == NULL)
		return -1;
	m->dirs = v;
	if ((v[m->ndirs] = strdup(s)) == NULL)
		return -1;
	m->ndirs++;
	return 0;
}

/* The DW_AT_comp_dir of m's compilation units (lib/ reads them), which
 * relative source names are relative to (pme_symline's file is relative
 * to it when the file lies under it), each once in the units' order. */
static int
mod_dirs(struct cmod *m)
{
	const struct pme_symmod *mods;
	const char *s;
	size_t cap = 0, n, i;

	if (m->dirs_tried || m->img == NULL)
		return 0;
	m->dirs_tried = 1;
	n = pme_image_modules(m->img, &mods);
	for (i = 0; i < n; i++)
		if ((s = pme_image_compdir(m->img, (uint32_t)i)) != NULL &&
		    add_dir(m, &cap, s) == -1)
			return -1;
	return 0;
}

static void
mod_free(struct cmod *m)
{
	size_t i;

	free(m->path);
	free(m->buildid);
	free(m->why);
	free(m->pieces);
	free(m->inames);
	pme_plt_free(&m->plt);
	free(m->lix);
	for (i = 0; i < m->ndirs; i++)
		free(m->dirs[i]);
	free(m->dirs);
	pme_image_close(m->img);
}

/* ---------------------------------------------------------- clock input */

static size_t
cell_hash(uint32_t run, uint32_t pid, uint32_t tid, uint32_t cpu,
    uint32_t mod, uint64_t addr)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15u;

	h ^= ((uint64_t)mod << 32 | tid) * 0xc2b2ae3d27d4eb4fu;
	h ^= ((uint64_t)run << 32 | pid) * 0x165667b19e3779f9u;
	h ^= cpu * 0x27d4eb2f165667c5u;
	return (size_t)(h ^ h >> 29);
}

static struct cell *
cell_slot(struct cell *v, size_t cap, const struct cell *k)
{
	size_t i = cell_hash(k->run, k->pid, k->tid, k->cpu, k->mod,
	    k->addr) & (cap - 1);

	for (; v[i].count != 0; i = (i + 1) & (cap - 1))
		if (v[i].addr == k->addr && v[i].mod == k->mod &&
		    v[i].tid == k->tid && v[i].pid == k->pid &&
		    v[i].run == k->run && v[i].cpu == k->cpu)
			break;
	return &v[i];
}

static int
cell_add(struct caliper *c, const struct cell *k)
{
	struct cell *v, *s;
	size_t i, cap;

	if (c->ncells * 2 >= c->cap) {
		cap = c->cap ? c->cap * 2 : 1024;
		if ((v = calloc(cap, sizeof(*v))) == NULL)
			return -1;
		for (i = 0; i < c->cap; i++)
			if (c->cells[i].count != 0)
				*cell_slot(v, cap, &c->cells[i]) = c->cells[i];
		free(c->cells);
		c->cells = v;
		c->cap = cap;
	}
	s = cell_slot(c->cells, c->cap, k);
	if (s->count == 0) {
		*s = *k;
		c->ncells++;
	} else
		s->count += k->count;
	return 0;
}

static int
on_header(void *arg, const struct pme_sample_header *h)
{
	struct caliper *c = arg;

	c->run++;
	c->measure.want = c->in->measure;
	if (measure_run(&c->measure, h, c->in->samples[c->file], c->err) ==
	    -1)
		return -1;
	c->period = measure_clock(&c->measure) ? h->period :
	    c->measure.period;
	filter_run_header(&c->fr, h);
	c->boot = quick_boot(c->boot, c->run == 1, h->boot);
	if (c->start == 0)
		c->start = h->start;
	pme_addrmap_free(c->am);
	c->nres = 0;
	if ((c->am = pme_addrmap_new(c->err)) == NULL)
		return -1;
	if (c->command == NULL && h->argc > 0 && h->argv[0] != NULL &&
	    (c->command = strdup(h->argv[0])) == NULL)
		return nomem(c);
	return 0;
}

static int
on_mapping(void *arg, const struct pme_mapping *m)
{
	struct caliper *c = arg;

	filter_run_record(&c->fr, m->time);
	return pme_addrmap_mapping(c->am, m, c->err);
}

static int
on_thread(void *arg, const struct pme_thread *t)
{
	struct caliper *c = arg;
	struct thname *v;
	size_t i;

	if (pme_addrmap_thread(c->am, t, c->err) == -1)
		return -1;
	if (c->in->filter != NULL &&
	    filter_run_thread(c->in->filter, &c->fr, t) == -1)
		return nomem(c);
	if (t->name == NULL)
		return 0;
	for (i = 0; i < c->nnames; i++)
		if (c->names[i].run == c->run && c->names[i].pid == t->pid &&
		    c->names[i].tid == t->tid)
			break;
	if (i == c->nnames) {
		if ((v = grow(c->names, &c->capnames, c->nnames,
		    sizeof(*v))) == NULL)
			return nomem(c);
		c->names = v;
		v[i].run = c->run;
		v[i].pid = t->pid;
		v[i].tid = t->tid;
		v[i].name = NULL;
		c->nnames++;
	}
	free(c->names[i].name);
	if ((c->names[i].name = strdup(t->name)) == NULL)
		return nomem(c);
	return 0;
}

/* The module of mapping mi of this run's address map. */
static uint32_t
mapping_mod(struct caliper *c, uint32_t mi)
{
	const struct pme_mapping *maps, *m;
	size_t n = pme_addrmap_mappings(c->am, &maps), i;
	uint32_t *v;

	if (mi >= c->nres) {
		if ((v = realloc(c->res, n * sizeof(*v))) == NULL)
			return PME_NONE;
		for (i = c->nres; i < n; i++)
			v[i] = PME_NONE;
		c->res = v;
		c->nres = n;
	}
	if (c->res[mi] != PME_NONE)
		return c->res[mi];
	m = &maps[mi];
	if (m->flags & PME_MAP_KERNEL)
		c->res[mi] = mod_index(c, "[kernel]", NULL, 0, 1);
	else if (m->path == NULL || m->path[0] == '\0')
		c->res[mi] = mod_index(c, "[anonymous]", NULL, 0, 1);
	else
		c->res[mi] = mod_index(c, m->path, m->buildid,
		    m->buildid_len, m->path[0] == '[');
	return c->res[mi];
}

/* The samples of s[0..n) the filters keep, at *s; SIZE_MAX out of
 * memory. */
static size_t
keep(struct caliper *c, const struct pme_sample **s, size_t n)
{
	struct pme_sample *v;
	size_t k;

	if (n > c->capsel) {
		if ((v = realloc(c->sel, n * sizeof(*v))) == NULL)
			return SIZE_MAX;
		c->sel = v;
		c->capsel = n;
	}
	if (filter_batch(c->in->filter, &c->fr, c->am, *s, n, c->sel, &k) ==
	    -1)
		return SIZE_MAX;
	*s = c->sel;
	return k;
}

static int
on_samples(void *arg, const struct pme_sample *s, size_t n)
{
	struct caliper *c = arg;
	struct cell k;
	uint32_t mi;
	size_t i;

	if ((n = measure_pick(&c->measure, s, n, &s)) == SIZE_MAX)
		return nomem(c);
	if (c->in->filter != NULL && (n = keep(c, &s, n)) == SIZE_MAX)
		return nomem(c);
	for (i = 0; i < n; i++, s++) {
		k.run = c->run;
		k.pid = s->pid;
		k.tid = s->tid;
		k.cpu = s->cpu;
		k.count = histo_intervals(c->period, s);
		mi = pme_addrmap_lookup(c->am, s->pid, s->time, s->pc, &k.addr);
		if (mi != PME_NONE)
			k.mod = mapping_mod(c, mi);
		else {
			k.addr = s->pc;
			k.mod = mod_index(c, s->flags & PME_SAMPLE_KERNEL ?
			    "[kernel]" : "[unknown]", NULL, 0, 1);
		}
		if (k.mod == PME_NONE || cell_add(c, &k) == -1)
			return nomem(c);
		c->total += k.count;
	}
	c->samples += n;
	return 0;
}

static int
read_samples(struct caliper *c)
{
	static const struct pme_sample_visitor v = {
		on_header, on_mapping, on_thread, on_samples, NULL
	};
	struct pme_sample_summary sum;
	char shows[64];
	size_t i;

	uint64_t before;

	for (i = 0; i < c->in->nsamples; i++) {
		c->file = i;
		before = c->samples;
		memset(&sum, 0, sizeof(sum));
		if (filter_file(c->in->filter, &c->fr, c->in->samples[i],
		    c->err) == -1 ||
		    wall_read(c->in->samples[i], c->in->measure, &v, c, &sum,
		    c->err) == -1)
			return -1;
		if (c->in->quiet)
			continue;
		if (sum.lost_bytes >= 0 || !sum.closed) {
			snprintf(shows, sizeof(shows), "the view shows the "
			    "%llu samples read",
			    (unsigned long long)(c->samples - before));
			histo_warn_cut(c->in->prog, c->in->samples[i], &sum,
			    shows);
		} else if (c->samples == before)
			histo_warn(c->in->prog, "'%s': no samples",
			    c->in->samples[i]);
	}
	return 0;
}

/* ------------------------------------------------------------- levels */

static int
cmp_ident(const struct crow *x, const struct crow *y)
{
#define CMP(f)	if (x->f != y->f) return x->f < y->f ? -1 : 1
	CMP(run);
	CMP(pid);
	CMP(tid);
	CMP(cpu);
	CMP(mod);
	CMP(fn);
	if (x->file != y->file) {
		if (x->file == NULL || y->file == NULL)
			return x->file == NULL ? 1 : -1;
		if (strcmp(x->file, y->file) != 0)
			return strcmp(x->file, y->file);
	}
	CMP(line);
	CMP(ifn);
	CMP(addr);
#undef CMP
	return 0;
}

static int
cmp_ident_q(const void *a, const void *b)
{
	return cmp_ident(a, b);
}

/* Largest first; equal counts in the order of their identities. */
static int
cmp_count(const void *a, const void *b)
{
	const struct crow *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return cmp_ident(x, y);
}

/* The rows of l merged by identity, in its order. */
static void
level_merge(struct level *l)
{
	size_t i, n = 0;

	qsort(l->rows, l->n, sizeof(*l->rows), cmp_ident_q);
	for (i = 0; i < l->n; i++)
		if (n > 0 && cmp_ident(&l->rows[n - 1], &l->rows[i]) == 0)
			l->rows[n - 1].count += l->rows[i].count;
		else
			l->rows[n++] = l->rows[i];
	l->n = n;
}

/* The rows of l merged by identity, then by count. */
static void
level_sort(struct level *l)
{
	level_merge(l);
	qsort(l->rows, l->n, sizeof(*l->rows), cmp_count);
}

static int
wanted(const struct caliper *c, int level)
{
	return c->in->level == CAL_ALL || c->in->level == level;
}

/*
 * The kernel's functions (clock input): the routines that hold its
 * samples' pcs, as the quick path names them (quick_kernel()), so that a
 * function counts what its -x bucket counts.  0, or -1 when out of
 * memory.
 */
static int
kernel_pieces(struct caliper *c)
{
	struct cmod *m = NULL;
	uint64_t *pcs;
	size_t n = 0, i;
	uint32_t mi = 0;
	int rc;

	for (i = 0; i < c->nmods && m == NULL; i++)
		if (c->mods[i].special &&
		    strcmp(c->mods[i].path, "[kernel]") == 0)
			m = &c->mods[mi = (uint32_t)i];
	if (m == NULL)
		return 0;
	for (i = 0; i < c->cap; i++)
		n += c->cells[i].count > 0 && c->cells[i].mod == mi;
	if ((pcs = calloc(n + 1, sizeof(*pcs))) == NULL)
		return nomem(c);
	for (n = 0, i = 0; i < c->cap; i++)
		if (c->cells[i].count > 0 && c->cells[i].mod == mi)
			pcs[n++] = c->cells[i].addr;
	rc = quick_kernel(&c->kr, pcs, n, c->boot, c->start);
	free(pcs);
	if (rc == -1 || (m->pieces = calloc(c->kr.nr ? c->kr.nr : 1,
	    sizeof(*m->pieces))) == NULL)
		return nomem(c);
	for (i = 0; i < c->kr.nr; i++) {
		m->pieces[i].start = c->kr.r[i].start;
		m->pieces[i].end = c->kr.r[i].end;
		m->pieces[i].routine = (uint32_t)c->kr.owner[i];
	}
	m->npieces = c->kr.nr;
	m->kernel = 1;
	return 0;
}

/* A cell's row at each level (clock input). */
static int
clock_levels(struct caliper *c)
{
	const struct pme_symline *ln;
	struct cmod *m;
	struct crow r;
	size_t i, j, n = 0;
	int deep = wanted(c, CAL_FUNCTION) || wanted(c, CAL_LINE) ||
	    wanted(c, CAL_INSN) || wanted(c, CAL_CPU), k;

	if (deep && kernel_pieces(c) == -1)
		return -1;
	for (j = 0; j < CAL_NLEVELS; j++)
		if ((c->lv[j].rows = calloc(c->ncells ? c->ncells : 1,
		    sizeof(struct crow))) == NULL)
			return nomem(c);
	if ((c->bythread.rows = calloc(c->ncells ? c->ncells : 1,
	    sizeof(struct crow))) == NULL || (c->bycpu.rows =
	    calloc(c->ncells ? c->ncells : 1, sizeof(struct crow))) ==
	    NULL || (c->thcpu.rows = calloc(c->ncells ? c->ncells : 1,
	    sizeof(struct crow))) == NULL)
		return nomem(c);
	for (i = 0; i < c->cap; i++) {
		if (c->cells[i].count == 0)
			continue;
		memset(&r, 0, sizeof(r));
		r.count = c->cells[i].count;
		r.fn = r.ifn = PME_NONE;
		r.mod = c->cells[i].mod;
		m = &c->mods[r.mod];
		if (deep && (k = mod_open(c, m)) == -1)
			return -1;
		if (m->img != NULL || m->kernel)
			r.fn = routine_of(m, c->cells[i].addr);
		if (wanted(c, CAL_LINE) && m->img != NULL) {
			if (mod_lines(c, m) == -1)
				return nomem(c);
			if ((ln = line_of(m, c->cells[i].addr)) != NULL) {
				r.file = ln->file;
				r.line = ln->line;
			}
			if (c->in->inl && (r.ifn = inline_fn(m,
			    c->cells[i].addr)) == PME_NONE - 1)
				return nomem(c);
		}
		r.run = c->cells[i].run;
		r.pid = c->cells[i].pid;
		r.tid = c->cells[i].tid;
		r.addr = c->cells[i].addr;
		/* Each level keeps the fields it groups by. */
		c->lv[CAL_CPU].rows[n].cpu = c->cells[i].cpu;
		c->lv[CAL_CPU].rows[n].count = r.count;
		c->bycpu.rows[n] = c->lv[CAL_CPU].rows[n];
		c->bycpu.rows[n].mod = r.mod;
		c->bycpu.rows[n].fn = r.fn;
		c->bycpu.rows[n].ifn = PME_NONE;
		r.cpu = 0;
		c->lv[CAL_THREAD].rows[n] = r;
		c->lv[CAL_THREAD].rows[n].mod = c->lv[CAL_THREAD].rows[n].fn =
		    0;
		c->lv[CAL_THREAD].rows[n].file = NULL;
		c->lv[CAL_THREAD].rows[n].line = 0;
		c->lv[CAL_THREAD].rows[n].addr = 0;
		c->lv[CAL_THREAD].rows[n].ifn = PME_NONE;
		c->thcpu.rows[n] = c->lv[CAL_THREAD].rows[n];
		c->thcpu.rows[n].cpu = c->cells[i].cpu;
		c->lv[CAL_PROCESS].rows[n] = c->lv[CAL_THREAD].rows[n];
		c->lv[CAL_PROCESS].rows[n].tid = 0;
		c->bythread.rows[n] = r;
		c->bythread.rows[n].file = NULL;
		c->bythread.rows[n].line = 0;
		c->bythread.rows[n].addr = 0;
		c->bythread.rows[n].ifn = PME_NONE;
		r.run = r.pid = r.tid = 0;
		c->lv[CAL_INSN].rows[n] = r;
		c->lv[CAL_INSN].rows[n].file = NULL;
		c->lv[CAL_INSN].rows[n].line = 0;
		c->lv[CAL_INSN].rows[n].ifn = PME_NONE;
		r.addr = 0;
		c->lv[CAL_LINE].rows[n] = r;
		r.file = NULL;
		r.line = 0;
		r.ifn = PME_NONE;
		c->lv[CAL_FUNCTION].rows[n] = r;
		r.fn = 0;
		c->lv[CAL_MODULE].rows[n] = r;
		n++;
	}
	for (j = 0; j < CAL_NLEVELS; j++) {
		c->lv[j].n = n;
		level_sort(&c->lv[j]);
	}
	c->bythread.n = c->bycpu.n = c->thcpu.n = n;
	level_sort(&c->bythread);
	level_sort(&c->bycpu);
	level_merge(&c->thcpu);
	return 0;
}

/* Whether kind k of bf is named name, case ignored. */
static int
kind_is(const char *const *kinds, size_t nk, uint32_t k, const char *name)
{
	return k < nk && strcasecmp(kinds[k], name) == 0;
}

/* Trace input: the images of the modules whose statements name files,
 * for their units' directories, which lib/ reads (mod_dirs()) and source
 * is shown from, opened before any text is written, so that a corrupt
 * one is an error and not a text cut short. */
static int
trace_images(struct caliper *c)
{
	const struct level *l = &c->lv[CAL_LINE];
	size_t i;

	for (i = 0; wanted(c, CAL_LINE) && i < l->n; i++)
		if (l->rows[i].file != NULL && l->rows[i].mod < c->nmods &&
		    mod_open(c, &c->mods[l->rows[i].mod]) == -1)
			return -1;
	return 0;
}

/* The rows of trace input: its modules, ROUTINE and LINE units. */
static int
trace_levels(struct caliper *c)
{
	struct pme_bucketfile *bf = c->in->bf;
	const struct pme_module *pm;
	const struct pme_unit *u;
	const char *const *kinds;
	struct pme_bucket *bk;
	size_t nm = pme_bucketfile_modules(bf, &pm), nb, nk, i;
	struct crow *r;
	uint32_t mod;
	int derive;

	pme_bucketfile_units(bf, &u);
	nb = pme_bucketfile_buckets(bf, &bk);
	nk = pme_bucketfile_kinds(bf, &kinds);
	c->total = report_total(bf);
	c->lv[CAL_THREAD].absent = c->lv[CAL_PROCESS].absent =
	    c->lv[CAL_INSN].absent = c->lv[CAL_CPU].absent = 1;
	for (i = 0; i < nm; i++)
		if (mod_index(c, pm[i].path[0] != '\0' ? pm[i].path :
		    "(unknown)", pm[i].buildid, pm[i].buildid_len, 0) ==
		    PME_NONE)
			return nomem(c);
	for (i = CAL_MODULE; i <= CAL_LINE; i++)
		if ((c->lv[i].rows = calloc(nb + nm + 2,
		    sizeof(struct crow))) == NULL)
			return nomem(c);
	for (i = 0; i < nb; i++) {
		if (bk[i].count == 0)
			continue;
		mod = u[bk[i].unit].module;
		r = &c->lv[CAL_MODULE].rows[c->lv[CAL_MODULE].n++];
		r->mod = mod == PME_NONE ? PME_NONE - 1 : mod;
		r->fn = PME_NONE;
		r->count = bk[i].count;
		if (kind_is(kinds, nk, u[bk[i].unit].kind, "ROUTINE"))
			r = &c->lv[CAL_FUNCTION].rows[c->lv[CAL_FUNCTION].n++];
		else if (kind_is(kinds, nk, u[bk[i].unit].kind, "LINE"))
			r = &c->lv[CAL_LINE].rows[c->lv[CAL_LINE].n++];
		else
			continue;
		r->mod = mod == PME_NONE ? PME_NONE - 1 : mod;
		r->fn = bk[i].unit;
		r->ifn = PME_NONE;
		r->file = u[bk[i].unit].file;
		r->line = u[bk[i].unit].line;
		r->count = bk[i].count;
		/* A statement's function: the ROUTINE unit it is in. */
		if (r == &c->lv[CAL_LINE].rows[c->lv[CAL_LINE].n - 1])
			r->fn = u[r->fn].parent != PME_NONE &&
			    kind_is(kinds, nk, u[u[r->fn].parent].kind,
			    "ROUTINE") ? u[r->fn].parent : PME_NONE;
	}
	/* Buckets of lines and none of routines (pmebuild -x -b line):
	 * the routines' counts are their lines'. */
	for (i = 0, derive = c->lv[CAL_FUNCTION].n == 0; derive &&
	    i < c->lv[CAL_LINE].n; i++)
		if (c->lv[CAL_LINE].rows[i].fn != PME_NONE) {
			r = &c->lv[CAL_FUNCTION].rows[c->lv[CAL_FUNCTION].n++];
			*r = c->lv[CAL_LINE].rows[i];
			r->file = u[r->fn].file;
			r->line = 0;
		}
	for (i = 0; i < nm; i++)
		if (pm[i].outside > 0) {
			r = &c->lv[CAL_MODULE].rows[c->lv[CAL_MODULE].n++];
			r->mod = (uint32_t)i;
			r->fn = PME_NONE;
			r->count = pm[i].outside;
		}
	for (i = CAL_MODULE; i <= CAL_LINE; i++)
		level_sort(&c->lv[i]);
	return trace_images(c);
}

/* ------------------------------------------------------------- naming */

/* The pseudo-module of absolute addresses: in trace input a .PMD's
 * absolute ranges; in clock input the kernel's rows of the quick path
 * (its [kernel] unit, or the routines of /proc/kallsyms). */
#define MOD_ABS		(PME_NONE - 1)

static const char *
mod_name(const struct caliper *c, uint32_t mod)
{
	if (mod == MOD_ABS)
		return c->trace ? "(absolute addresses)" : "[kernel]";
	return c->mods[mod].path;
}

static const char *
fn_name(const struct caliper *c, uint32_t mod, uint32_t fn)
{
	const struct pme_symroutine *rt;
	const struct pme_unit *u;

	if (fn == PME_NONE)
		return "(no function)";
	if (c->trace) {
		pme_bucketfile_units(c->in->bf, &u);
		return u[fn].name;
	}
	if (c->mods[mod].kernel)
		return c->kr.k.str + c->kr.k.name[fn];
	if (fn >= c->mods[mod].nrt + c->mods[mod].plt.n)
		return c->mods[mod].inames[fn - c->mods[mod].nrt -
		    c->mods[mod].plt.n];
	if (fn >= c->mods[mod].nrt)
		return c->mods[mod].plt.names[fn - c->mods[mod].nrt];
	pme_image_routines(c->mods[mod].img, &rt);
	return rt[fn].name;
}

/* The routine's entry, or 0. */
static uint64_t
fn_entry(const struct caliper *c, uint32_t mod, uint32_t fn)
{
	const struct pme_symroutine *rt;

	if (fn == PME_NONE || c->trace)
		return 0;
	if (c->mods[mod].kernel)
		return c->kr.k.addr[fn];
	if (fn >= c->mods[mod].nrt + c->mods[mod].plt.n)
		return 0;
	if (fn >= c->mods[mod].nrt)
		return c->mods[mod].plt.ranges[fn - c->mods[mod].nrt].start;
	pme_image_routines(c->mods[mod].img, &rt);
	return rt[fn].entry;
}

static const char *
fn_file(const struct caliper *c, uint32_t mod, uint32_t fn)
{
	const struct pme_symroutine *rt;
	const struct pme_unit *u;

	if (fn == PME_NONE)
		return NULL;
	if (c->trace) {
		pme_bucketfile_units(c->in->bf, &u);
		return u[fn].file;
	}
	if (c->mods[mod].kernel || fn >= c->mods[mod].nrt)
		return NULL;
	pme_image_routines(c->mods[mod].img, &rt);
	return rt[fn].file;
}

static const char *
thread_name(const struct caliper *c, uint32_t run, uint32_t pid,
    uint32_t tid)
{
	size_t i;

	size_t k;

	/* A thread is called as it was last named, else as its process
	 * (whose name it was born with), else as the command. */
	for (k = 0; k < 2; k++, tid = pid)
		for (i = 0; i < c->nnames; i++)
			if (c->names[i].run == run && c->names[i].pid == pid &&
			    c->names[i].tid == tid)
				return c->names[i].name;
	return c->command != NULL ? base_name(c->command) : "";
}

/* -------------------------------------------------------------- sources */

static int
source_read(struct source *s, const char *path)
{
	FILE *fp;
	size_t cap = 0, len = 0, n, i;
	size_t *off, capoff = 0;
	char *b;

	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	for (;;) {
		if ((b = grow(s->text, &cap, len + 4096, 1)) == NULL)
			break;
		s->text = b;
		if (cap < len + 4096)
			continue;
		if ((n = fread(s->text + len, 1, cap - len - 1, fp)) == 0)
			break;
		len += n;
	}
	fclose(fp);
	if (s->text == NULL)
		return -1;
	s->text[len] = '\0';
	for (i = 0; i <= len; i++)
		if (i == 0 || s->text[i - 1] == '\n') {
			if (i == len && i > 0)
				break;
			if ((off = grow(s->off, &capoff, s->nlines,
			    sizeof(*off))) == NULL)
				return -1;
			s->off = off;
			s->off[s->nlines++] = i;
		}
	return 0;
}

/* 1 when real (a resolved path) lies under directory dir, resolved. */
static int
under_dir(const char *real, const char *dir)
{
	char rd[PATH_MAX];
	size_t n;

	if (realpath(dir, rd) == NULL)
		return 0;
	n = strlen(rd);
	while (n > 0 && rd[n - 1] == '/')
		n--;
	return strncmp(real, rd, n) == 0 && (real[n] == '/' ||
	    real[n] == '\0');
}

/*
 * Reads the source s at path when it is a regular file under one of m's
 * compilation directories or a -I directory (the line table of a hostile
 * image may name any file: #line "/etc/passwd"); one elsewhere is not
 * read and s->hidden says so.  0 (s->text NULL when not read), or -1
 * when out of memory.
 */
static int
source_try(struct caliper *c, const struct cmod *m, struct source *s,
    const char *path)
{
	char real[PATH_MAX];
	struct stat st;
	size_t i;

	if (realpath(path, real) == NULL || stat(real, &st) == -1 ||
	    !S_ISREG(st.st_mode))
		return 0;
	for (i = 0; m != NULL && i < m->ndirs; i++)
		if (under_dir(real, m->dirs[i]))
			return source_read(s, real);
	for (i = 0; i < c->in->nsrcdirs; i++)
		if (under_dir(real, c->in->srcdirs[i]))
			return source_read(s, real);
	s->hidden = 1;
	return 0;
}

/* The source file of module mod named name by its line table, read once
 * when found and shown (source_try()): a relative name under each of the
 * module's compilation directories, then each -I directory.  NULL when
 * out of memory. */
static struct source *
source_of(struct caliper *c, uint32_t mod, const char *name)
{
	struct cmod *m = mod < c->nmods ? &c->mods[mod] : NULL;
	struct source *s;
	char path[4096];
	size_t i, nd;
	const char *d;

	for (i = 0; i < c->nsrcs; i++)
		if (c->srcs[i].mod == mod && strcmp(c->srcs[i].name, name) == 0)
			return &c->srcs[i];
	if ((s = grow(c->srcs, &c->capsrcs, c->nsrcs, sizeof(*s))) == NULL)
		return NULL;
	c->srcs = s;
	s += c->nsrcs;
	memset(s, 0, sizeof(*s));
	s->mod = mod;
	if ((s->name = strdup(name)) == NULL)
		return NULL;
	c->nsrcs++;
	if (m != NULL && mod_dirs(m) == -1)
		return NULL;
	if (name[0] == '/' && source_try(c, m, s, name) == -1)
		return NULL;
	nd = (m != NULL ? m->ndirs : 0) + c->in->nsrcdirs;
	for (i = 0; name[0] != '/' && i < nd && s->text == NULL; i++) {
		d = m != NULL && i < m->ndirs ? m->dirs[i] :
		    c->in->srcdirs[i - (m != NULL ? m->ndirs : 0)];
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", d, name) <
		    sizeof(path) && source_try(c, m, s, path) == -1)
			return NULL;
	}
	if (s->text == NULL && s->hidden && !c->in->quiet)
		histo_warn(c->in->prog, "'%s': source not shown: not under "
		    "the compilation directory%s of '%s' (-I DIR shows the "
		    "files under DIR)", name, m != NULL && m->ndirs == 1 ? "" :
		    "s", m != NULL ? m->path : "?");
	return s;
}

/* Line line of s without its newline and leading blanks, tabs as
 * blanks; NULL when s has no such line. */
static char *
source_line(const struct source *s, uint32_t line)
{
	const char *p, *e;
	char *t;
	size_t n = 0;

	if (s->text == NULL || line == 0 || line > s->nlines)
		return NULL;
	p = s->text + s->off[line - 1];
	p += strspn(p, " \t");
	e = strchr(p, '\n');
	if (e == NULL)
		e = p + strlen(p);
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	if ((t = malloc((size_t)(e - p) + 1)) == NULL)
		return NULL;
	for (; p < e; p++)
		t[n++] = *p == '\t' ? ' ' : *p;
	t[n] = '\0';
	return t;
}

/* The text shown for statement (mod, file, line), which the caller
 * frees; NULL when out of memory. */
static char *
statement_text(struct caliper *c, uint32_t mod, const char *file,
    uint32_t line)
{
	struct source *s;
	char *t;

	if (file == NULL)
		return strdup("(no line information)");
	if ((s = source_of(c, mod, file)) == NULL)
		return NULL;
	if (s->text == NULL) {
		if (asprintf(&t, "(source %s: %s)", s->hidden ? "not shown" :
		    "not found", file) == -1)
			return NULL;
		return t;
	}
	if ((t = source_line(s, line)) != NULL)
		return t;
	if (asprintf(&t, "(%s has no line %" PRIu32 ")", file, line) == -1)
		return NULL;
	return t;
}

/* ---------------------------------------------------------- disassembly */

#ifdef HAVE_CAPSTONE
/* c->cs readied for m's machine (the disassembler of each that capstone
 * knows, AT&T syntax on x86 as objdump prints it); NULL, or why not. */
static const char *
cs_for(struct caliper *c, struct cmod *m)
{
	unsigned machine = pme_image_machine(m->img);
	cs_arch arch;
	cs_mode mode;

	if (machine == EM_NONE)
		return "(not an ELF file)";
	if (c->cs_open != 0 && c->cs_machine == machine)
		return c->cs_open == 1 ? NULL : "(capstone did not start)";
	if (c->cs_open == 1)
		cs_close(&c->cs);
	c->cs_machine = (uint16_t)machine;
	c->cs_open = -1;
	switch (machine) {
	case EM_X86_64:
		arch = CS_ARCH_X86;
		mode = CS_MODE_64;
		break;
	case EM_386:
		arch = CS_ARCH_X86;
		mode = CS_MODE_32;
		break;
	case EM_AARCH64:
		arch = CS_ARCH_ARM64;
		mode = CS_MODE_ARM;
		break;
	default:
		return "(no disassembler for this machine)";
	}
	if (cs_open(arch, mode, &c->cs) != CS_ERR_OK)
		return "(capstone did not start)";
	c->cs_open = 1;
	if (arch == CS_ARCH_X86)
		cs_option(c->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	return NULL;
}

/* What capstone could not decode (capstone 4 knows no AVX-512, say):
 * its first bytes, as objdump shows an instruction's. */
static char *
undecoded(const uint8_t *code, size_t len)
{
	char buf[128];
	size_t i, n;

	n = (size_t)snprintf(buf, sizeof(buf), "(not decoded:");
	for (i = 0; i < len && i < 8; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " %02x",
		    code[i]);
	snprintf(buf + n, sizeof(buf) - n, "%s)", len > 8 ? " ..." : "");
	return strdup(buf);
}
#endif

/* The instruction of module mod at addr, which the caller frees; NULL
 * when out of memory. */
static char *
disassemble(struct caliper *c, uint32_t mod, uint64_t addr)
{
	char *t;
#ifdef HAVE_CAPSTONE
	const uint8_t *code;
	const char *why;
	cs_insn *in;
	size_t len = 0;

	if (c->mods[mod].special)
		return strdup("(no file to read)");
	if (c->mods[mod].img == NULL)
		return strdup("(file not read)");
	if ((why = cs_for(c, &c->mods[mod])) != NULL)
		return strdup(why);
	if ((code = pme_image_code(c->mods[mod].img, addr, &len)) == NULL)
		return strdup("(not in the file's code)");
	if (cs_disasm(c->cs, code, len > 16 ? 16 : len, addr, 1, &in) != 1)
		return undecoded(code, len);
	if (asprintf(&t, "%s%s%s", in->mnemonic, in->op_str[0] != '\0' ?
	    " " : "", in->op_str) == -1)
		t = NULL;
	cs_free(in, 1);
	return t;
#else
	(void)c;
	(void)mod;
	(void)addr;
	t = strdup("");
	return t;
#endif
}

/* ------------------------------------------------------------ the text */

/* Text cells of a row, each escaped, that the caller frees. */
#define NCELLS	4

struct cells {
	char	*s[NCELLS];
};

static void
cells_free(struct cells *k)
{
	size_t i;

	for (i = 0; i < NCELLS; i++)
		free(k->s[i]);
}

static const char *const headers[CAL_NLEVELS][NCELLS] = {
	{ "Thread", "Process", "CPUs", "Name" },
	{ "Process", "Command", NULL, NULL },
	{ "Load Module", NULL, NULL, NULL },
	{ "Function", "Load Module", "File", NULL },
	{ "Line", "Function", ">Statement", NULL },
	{ "Address", "Function", "Instruction", NULL },
	{ "CPU", "Top Function", "Load Module", NULL },
};

/* Sets cell i of k to the escaped fmt; -1 when out of memory. */
static int
cell_set(struct cells *k, int i, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
cell_set(struct cells *k, int i, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n == -1)
		return -1;
	k->s[i] = pme_escape_dup(s);
	free(s);
	return k->s[i] == NULL ? -1 : 0;
}

/* function+0xoff, or the module's name outside functions. */
static int
cell_where(struct caliper *c, struct cells *k, int i, const struct crow *r)
{
	uint64_t e = fn_entry(c, r->mod, r->fn);

	if (r->fn == PME_NONE)
		return cell_set(k, i, "%s", base_name(mod_name(c, r->mod)));
	if (r->addr == e)
		return cell_set(k, i, "%s", fn_name(c, r->mod, r->fn));
	return cell_set(k, i, "%s+0x%" PRIx64, fn_name(c, r->mod, r->fn),
	    r->addr - e);
}

/* " (run N)" when the sample files hold several runs, whose ids may
 * be the same, else "". */
static const char *
run_of(const struct caliper *c, uint32_t run, char *buf, size_t len)
{
	if (c->run < 2)
		return "";
	snprintf(buf, len, " (run %" PRIu32 ")", run);
	return buf;
}

/* A statement's function: the one inlined at its addresses (--inline),
 * else the routine holding them. */
static uint32_t
stmt_fn(const struct crow *r)
{
	return r->ifn != PME_NONE ? r->ifn : r->fn;
}

/* A CPU's number, or "?" when the samples did not say. */
static const char *
cpu_name(uint32_t cpu, char *buf, size_t len)
{
	if (cpu == UINT32_MAX)
		return "?";
	snprintf(buf, len, "%" PRIu32, cpu);
	return buf;
}

/*
 * The CPUs thread r's samples were taken on, as --cpu and taskset(1)
 * read a list: ascending, runs of three or more as ranges ("0-3,6"),
 * those unknown left out; "?" when none is known.  The caller frees it;
 * NULL when out of memory.
 */
/* Writes the run lo..hi of CPUs to fp, after a comma unless first. */
static void
cpu_run(FILE *fp, int first, uint32_t lo, uint32_t hi)
{
	if (hi - lo >= 2)
		fprintf(fp, "%s%" PRIu32 "-%" PRIu32, first ? "" : ",", lo, hi);
	else if (hi > lo)
		fprintf(fp, "%s%" PRIu32 ",%" PRIu32, first ? "" : ",", lo,
		    hi);
	else
		fprintf(fp, "%s%" PRIu32, first ? "" : ",", lo);
}

static char *
thread_cpus(const struct caliper *c, const struct crow *r)
{
	const struct level *l = &c->thcpu;
	const struct crow *x;
	char *s = NULL;
	size_t len = 0, i;
	uint32_t lo = 0, hi = 0;
	int n = 0;
	FILE *fp;

	if ((fp = open_memstream(&s, &len)) == NULL)
		return NULL;
	for (i = 0; i < l->n; i++) {
		x = &l->rows[i];
		if (x->run != r->run || x->pid != r->pid || x->tid != r->tid ||
		    x->cpu == UINT32_MAX)
			continue;
		if (n > 0 && x->cpu == hi + 1) {
			hi = x->cpu;
			continue;
		}
		if (n++ > 0)
			cpu_run(fp, n == 2, lo, hi);
		lo = hi = x->cpu;
	}
	if (n > 0)
		cpu_run(fp, n == 1, lo, hi);
	else
		fputs("?", fp);
	if (fclose(fp) == EOF) {
		free(s);
		return NULL;
	}
	return s;
}

/* The function with the most samples on CPU r->cpu (the first of
 * c->bycpu's rows, by count, of that CPU). */
static const struct crow *
cpu_top(const struct caliper *c, const struct crow *r)
{
	size_t i;

	for (i = 0; i < c->bycpu.n; i++)
		if (c->bycpu.rows[i].cpu == r->cpu)
			return &c->bycpu.rows[i];
	return r;
}

/* The cells of row r of level lv; 0 or -1 (no memory). */
static int
row_cells(struct caliper *c, int lv, const struct crow *r, struct cells *k)
{
	const struct crow *top;
	const char *f;
	char *t, run[32];
	int rc;

	memset(k, 0, sizeof(*k));
	switch (lv) {
	case CAL_THREAD:
		if ((t = thread_cpus(c, r)) == NULL)
			return -1;
		rc = cell_set(k, 0, "%" PRIu32, r->tid) |
		    cell_set(k, 1, "%" PRIu32, r->pid) |
		    cell_set(k, 2, "%s", t) |
		    cell_set(k, 3, "%s%s", thread_name(c, r->run, r->pid,
		    r->tid), run_of(c, r->run, run, sizeof(run)));
		free(t);
		return rc;
	case CAL_CPU:
		top = cpu_top(c, r);
		return cell_set(k, 0, "%s", cpu_name(r->cpu, run,
		    sizeof(run))) |
		    cell_set(k, 1, "%s", fn_name(c, top->mod, top->fn)) |
		    cell_set(k, 2, "%s", base_name(mod_name(c, top->mod)));
	case CAL_PROCESS:
		return cell_set(k, 0, "%" PRIu32, r->pid) |
		    cell_set(k, 1, "%s%s", thread_name(c, r->run, r->pid,
		    r->pid), run_of(c, r->run, run, sizeof(run)));
	case CAL_MODULE:
		return cell_set(k, 0, "%s", mod_name(c, r->mod));
	case CAL_FUNCTION:
		f = fn_file(c, r->mod, r->fn);
		return cell_set(k, 0, "%s", fn_name(c, r->mod, r->fn)) |
		    cell_set(k, 1, "%s", base_name(mod_name(c, r->mod))) |
		    cell_set(k, 2, "%s", f != NULL ? f : "");
	case CAL_LINE:
		if ((t = statement_text(c, r->mod, r->file, r->line)) == NULL)
			return -1;
		rc = (r->file != NULL ? cell_set(k, 0, "%s:%" PRIu32,
		    base_name(r->file), r->line) : cell_set(k, 0, "?")) |
		    cell_set(k, 1, "%s", stmt_fn(r) != PME_NONE ? fn_name(c,
		    r->mod, stmt_fn(r)) : base_name(mod_name(c, r->mod))) |
		    cell_set(k, 2, ">%s", t);
		free(t);
		return rc;
	default:
		if ((t = disassemble(c, r->mod, r->addr)) == NULL)
			return -1;
		rc = cell_set(k, 0, "0x%" PRIx64, r->addr) |
		    cell_where(c, k, 1, r) | cell_set(k, 2, "%s", t);
		free(t);
		return rc;
	}
}

/* Columns of the escaped UTF-8 s: its characters. */
static int
text_width(const char *s)
{
	int n = 0;

	for (; *s != '\0'; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static double
pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

static int
digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* A name from a file, escaped as the reports' names are (pme_escape). */
static const char *
esc(char *buf, size_t len, const char *s)
{
	pme_escape(buf, len, s != NULL ? s : "");
	return buf;
}

static void
rule(FILE *fp)
{
	int i;

	for (i = 0; i < RULE_WIDTH; i++)
		fputc('-', fp);
	fputc('\n', fp);
}

/* The escaped s in w columns: padded with blanks (pad), or cut to w - 1
 * characters and a '~'. */
static void
put_cell(FILE *fp, const char *s, int w, int pad)
{
	const char *p = s;
	int n = text_width(s), k = 0;

	if (n <= w) {
		fputs(s, fp);
		while (pad && n++ < w)
			fputc(' ', fp);
		return;
	}
	while (*p != '\0' && k++ < w - 1)
		for (p++; ((unsigned char)*p & 0xc0) == 0x80; p++)
			;
	fwrite(s, 1, (size_t)(p - s), fp);
	fputc('~', fp);
}

/* A row's text cells, in the widths w; the last runs on. */
static void
print_cells(FILE *fp, const struct cells *k, const int *w)
{
	int i, last = NCELLS - 1;

	while (last > 0 && (k->s[last] == NULL || k->s[last][0] == '\0'))
		last--;
	for (i = 0; i <= last; i++) {
		fputs("  ", fp);
		put_cell(fp, k->s[i] != NULL ? k->s[i] : "", i < last ? w[i] :
		    INT_MAX, i < last);
	}
	fputc('\n', fp);
}

#define NUM_WIDTH	26	/* the numbers' columns, samples 7 wide */
#define MIN_CELL	12	/* a column is not narrowed below */

/* The room the last column is given: a file name may wrap, a statement
 * or an instruction is what the row is for. */
static const int min_last[CAL_NLEVELS] = { 10, 10, 10, 10, 24, 24, 10 };

/*
 * Narrows the columns w of level lv but the last, the rightmost first
 * (the first names the row), until a row fits c->width (0: any width)
 * with room for the last column, none below MIN_CELL (or its header);
 * numbers (ids, addresses) are not cut.
 */
static void
fit_widths(const struct caliper *c, int lv, int sw, int *w)
{
	int last = NCELLS - 1, used, j;

	while (last > 0 && headers[lv][last] == NULL)
		last--;
	for (;;) {
		used = NUM_WIDTH + sw - 7 + 2 + (w[last] < min_last[lv] ?
		    w[last] : min_last[lv]);
		for (j = 0; j < last; j++)
			used += 2 + w[j];
		if (c->width <= 0 || used <= c->width)
			return;
		for (j = last - 1; j >= 0 && (w[j] <= MIN_CELL ||
		    w[j] <= (int)strlen(headers[lv][j]) || lv == CAL_THREAD ||
		    lv == CAL_PROCESS || ((lv == CAL_INSN || lv == CAL_CPU) &&
		    j == 0)); j--)
			;
		if (j < 0)
			return;
		w[j]--;
	}
}

/* How many rows of l are at or above the cutoff (rows are by count). */
static size_t
shown(const struct caliper *c, const struct level *l)
{
	size_t n = 0;

	while (n < l->n && pct(l->rows[n].count, c->total) >= c->in->cutoff)
		n++;
	return c->in->cutoff > 0 ? n : l->n;
}

/* A summary table of level lv. */
static int
print_level(struct caliper *c, int lv, FILE *fp)
{
	const struct level *l = &c->lv[lv];
	struct cells *k, h;
	size_t n = shown(c, l), i;
	uint64_t sum = 0, left = 0;
	int w[NCELLS] = { 0 }, sw = digits(c->total), j;

	if (sw < 7)
		sw = 7;
	fprintf(fp, "%s\n", level_titles[lv]);
	rule(fp);
	if ((k = calloc(n ? n : 1, sizeof(*k))) == NULL)
		return -1;
	memset(&h, 0, sizeof(h));
	for (j = 0; j < NCELLS; j++) {
		h.s[j] = (char *)headers[lv][j];
		w[j] = h.s[j] != NULL ? (int)strlen(h.s[j]) : 0;
	}
	for (i = 0; i < n; i++) {
		if (row_cells(c, lv, &l->rows[i], &k[i]) == -1) {
			n = i + 1;
			for (i = 0; i < n; i++)
				cells_free(&k[i]);
			free(k);
			return -1;
		}
		for (j = 0; j < NCELLS; j++)
			if (k[i].s[j] != NULL && text_width(k[i].s[j]) > w[j])
				w[j] = text_width(k[i].s[j]);
	}
	fit_widths(c, lv, sw, w);
	fprintf(fp, " %% Total  Cumulat  %*s", sw, "Samples");
	print_cells(fp, &h, w);
	fprintf(fp, " Samples  %% Total\n");
	rule(fp);
	for (i = 0; i < n; i++) {
		sum += l->rows[i].count;
		fprintf(fp, "%8.2f %8.2f  %*" PRIu64, pct(l->rows[i].count,
		    c->total), pct(sum, c->total), sw, l->rows[i].count);
		print_cells(fp, &k[i], w);
		cells_free(&k[i]);
	}
	free(k);
	for (i = n; i < l->n; i++)
		left += l->rows[i].count;
	if (n < l->n)
		fprintf(fp, "%8.2f %8.2f  %*" PRIu64 "  (%zu more below "
		    "%g%%)\n", pct(left, c->total), pct(sum + left, c->total),
		    sw, left, l->n - n, c->in->cutoff);
	sum += left;
	if (sum < c->total)
		fprintf(fp, "%8.2f %8.2f  %*" PRIu64 "  (not in a %s)\n",
		    pct(c->total - sum, c->total), 100.0, sw, c->total - sum,
		    lv == CAL_FUNCTION ? "ROUTINE unit" : lv == CAL_LINE ?
		    "LINE unit" : "load module");
	rule(fp);
	fprintf(fp, "%8.2f %8s  %*" PRIu64 "  Total\n", c->total ? 100.0 :
	    0.0, "", sw, c->total);
	rule(fp);
	fputc('\n', fp);
	return 0;
}

static void
print_absent(const struct caliper *c, int lv, FILE *fp)
{
	char b[1024];

	fprintf(fp, "%s\n", level_titles[lv]);
	rule(fp);
	fprintf(fp, "None: trace input ('%s') holds counts per bucket, not "
	    "per %s;\nsample files (clock input) have them.\n\n",
	    esc(b, sizeof(b), c->in->bfname), lv == CAL_INSN ? "instruction" :
	    lv == CAL_CPU ? "CPU" : level_names[lv]);
}

/* ------------------------------------------------------------ details */

/* The rows of level lv that belong to function row f, in place order
 * (statements by file and line, instructions by address): *n of them,
 * an array the caller frees. */
static struct crow *
members(const struct caliper *c, int lv, const struct crow *f, size_t *n)
{
	const struct level *l = &c->lv[lv];
	struct crow *v;
	size_t i;

	*n = 0;
	if ((v = calloc(l->n ? l->n : 1, sizeof(*v))) == NULL)
		return NULL;
	for (i = 0; i < l->n; i++)
		if (l->rows[i].mod == f->mod && l->rows[i].fn == f->fn)
			v[(*n)++] = l->rows[i];
	qsort(v, *n, sizeof(*v), cmp_ident_q);
	return v;
}

/* Function f's line-table entries into *v (*n of them), in address
 * order; 0, or -1 when out of memory. */
static int
fn_entries(const struct cmod *m, uint32_t fn, struct stmt_at **v, size_t *n)
{
	const struct pme_symline *ln;
	size_t i, j, lo, hi, mid, cap = 0;
	struct stmt_at *a;

	pme_image_lines(m->img, &ln);
	for (i = 0; i < m->npieces; i++) {
		if (m->pieces[i].routine != fn)
			continue;
		for (lo = 0, hi = m->nlix; lo < hi; ) {
			mid = lo + (hi - lo) / 2;
			if (ln[m->lix[mid]].start < m->pieces[i].start)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (j = lo; j < m->nlix && ln[m->lix[j]].start <
		    m->pieces[i].end; j++) {
			if ((a = grow(*v, &cap, *n, sizeof(*a))) == NULL)
				return -1;
			*v = a;
			a[*n].start = ln[m->lix[j]].start;
			a[*n].file = ln[m->lix[j]].file;
			a[(*n)++].line = ln[m->lix[j]].line;
		}
	}
	return 0;
}

/* The statement marks (stmtmark.h) of f's statements st[0..ns) into
 * marks; 0, or -1 when out of memory. */
static int
fn_marks(const struct caliper *c, const struct crow *f,
    const struct crow *st, size_t ns, int *marks)
{
	const struct cmod *m = &c->mods[f->mod];
	struct stmt_at *v = NULL;
	int *em = NULL, rc = -1;
	size_t n = 0, i, j;

	memset(marks, 0, (ns + 1) * sizeof(*marks));
	if (c->trace || f->fn == PME_NONE || f->fn >= m->nrt ||
	    m->img == NULL || m->nlix == 0)
		return 0;
	if (fn_entries(m, f->fn, &v, &n) == -1 ||
	    (em = calloc(n + 1, sizeof(*em))) == NULL ||
	    stmt_marks(v, n, em) == -1)
		goto done;
	for (i = 0; i < ns; i++)
		for (j = 0; j < n; j++)
			if (v[j].file == st[i].file && v[j].line ==
			    st[i].line) {
				marks[i] = em[j];
				break;
			}
	rc = 0;
done:
	free(v);
	free(em);
	return rc;
}

static int
print_function(struct caliper *c, const struct crow *f, uint64_t cumul,
    int sw, FILE *fp)
{
	struct crow *st, *ins;
	size_t ns, ni, i, j;
	const char *file = fn_file(c, f->mod, f->fn);
	char *t, *e, b1[1024], b2[1024], num[16];
	int rc = -1, *marks = NULL;

	if ((e = pme_escape_dup(fn_name(c, f->mod, f->fn))) == NULL)
		return -1;
	fprintf(fp, "%8.2f %8.2f  %*" PRIu64 "  [%s::%s", pct(f->count,
	    c->total), pct(cumul, c->total), sw, f->count,
	    esc(b1, sizeof(b1), base_name(mod_name(c, f->mod))), e);
	if (f->fn != PME_NONE && !c->trace)
		fprintf(fp, ", 0x%" PRIx64, fn_entry(c, f->mod, f->fn));
	fprintf(fp, "%s%s]\n", file != NULL ? ", " : "", esc(b2, sizeof(b2),
	    file));
	free(e);
	st = members(c, CAL_LINE, f, &ns);
	ins = members(c, CAL_INSN, f, &ni);
	if (st == NULL || ins == NULL || (marks = calloc(ns + 1,
	    sizeof(*marks))) == NULL || fn_marks(c, f, st, ns, marks) == -1)
		goto done;
	for (i = 0; i < ns; i++) {
		if ((t = statement_text(c, f->mod, st[i].file,
		    st[i].line)) == NULL || (e = pme_escape_dup(t)) == NULL) {
			free(t);
			goto done;
		}
		free(t);
		/* HP Caliper's marks: "~18", "*>x = y;". */
		snprintf(num, sizeof(num), "%s%" PRIu32, marks[i] &
		    STMT_APPROX ? "~" : "", st[i].line);
		/* --inline: a statement of a function inlined here says
		 * whose it is, "[inner] x = x * 3;". */
		b1[0] = '\0';
		if (st[i].ifn != PME_NONE)
			snprintf(b1, sizeof(b1), "[%.1000s] ", esc(b2,
			    sizeof(b2), fn_name(c, f->mod, st[i].ifn)));
		if (st[i].file != NULL)
			fprintf(fp, "%8.2f %8s  %*" PRIu64 "  %8s  %s%s%s\n",
			    pct(st[i].count, c->total), "", sw, st[i].count,
			    num, marks[i] & STMT_ORDER ? "*>" : ">", b1, e);
		else
			fprintf(fp, "%8.2f %8s  %*" PRIu64 "  %8s  >%s\n",
			    pct(st[i].count, c->total), "", sw, st[i].count,
			    "?", e);
		free(e);
		for (j = 0; j < ni; j++) {
			const struct pme_symline *ln =
			    line_of(&c->mods[f->mod], ins[j].addr);

			if (ln == NULL ? st[i].file != NULL :
			    ln->file != st[i].file || ln->line != st[i].line)
				continue;
			if ((t = disassemble(c, f->mod, ins[j].addr)) == NULL ||
			    (e = pme_escape_dup(t)) == NULL) {
				free(t);
				goto done;
			}
			free(t);
			fprintf(fp, "%8.2f %8s  %*" PRIu64 "  %8s    0x%" PRIx64
			    ":  %s\n", pct(ins[j].count, c->total), "", sw,
			    ins[j].count, "", ins[j].addr, e);
			free(e);
		}
	}
	rc = 0;
done:
	free(st);
	free(ins);
	free(marks);
	return rc;
}

/*
 * Each thread (largest first) with its functions: the thread's row, then
 * its functions' shares of the total and counts, those below the cutoff
 * summed into one line, so that they sum to the thread's row.
 */
static int
print_threads(struct caliper *c, FILE *fp)
{
	const struct level *t = &c->lv[CAL_THREAD], *b = &c->bythread;
	char n1[1024], n2[1024], run[32];
	size_t i, j, more;
	uint64_t sum = 0, left;
	int sw = digits(c->total), fw = 8;

	if (sw < 7)
		sw = 7;
	/* The function column as wide as its widest name, in the page. */
	for (j = 0; j < b->n; j++)
		if (text_width(esc(n1, sizeof(n1), fn_name(c, b->rows[j].mod,
		    b->rows[j].fn))) > fw)
			fw = text_width(n1);
	if (c->width > 0 && NUM_WIDTH + sw - 7 + 4 + fw + 2 + MIN_CELL >
	    c->width)
		fw = c->width - (NUM_WIDTH + sw - 7 + 4 + 2 + MIN_CELL);
	if (fw < MIN_CELL)
		fw = MIN_CELL;
	fprintf(fp, "Functions per Thread\n");
	rule(fp);
	fprintf(fp, " %% Total  Cumulat  %*s  [Thread, Process, Name]\n", sw,
	    "Samples");
	fprintf(fp, " Samples  %% Total  %*s    %-*s  Load Module\n", sw,
	    "", fw, "Function");
	rule(fp);
	for (i = 0; i < t->n; i++) {
		sum += t->rows[i].count;
		fprintf(fp, "%s%8.2f %8.2f  %*" PRIu64 "  [%" PRIu32
		    ", %" PRIu32 ", %s%s]\n", i > 0 ? "\n" : "",
		    pct(t->rows[i].count, c->total), pct(sum, c->total), sw,
		    t->rows[i].count, t->rows[i].tid, t->rows[i].pid,
		    esc(n1, sizeof(n1), thread_name(c, t->rows[i].run,
		    t->rows[i].pid, t->rows[i].tid)), run_of(c,
		    t->rows[i].run, run, sizeof(run)));
		for (j = 0, left = 0, more = 0; j < b->n; j++) {
			if (b->rows[j].run != t->rows[i].run ||
			    b->rows[j].pid != t->rows[i].pid ||
			    b->rows[j].tid != t->rows[i].tid)
				continue;
			if (c->in->cutoff > 0 && pct(b->rows[j].count,
			    c->total) < c->in->cutoff) {
				left += b->rows[j].count;
				more++;
				continue;
			}
			fprintf(fp, "%8.2f %8s  %*" PRIu64 "    ",
			    pct(b->rows[j].count, c->total), "", sw,
			    b->rows[j].count);
			put_cell(fp, esc(n1, sizeof(n1), fn_name(c,
			    b->rows[j].mod, b->rows[j].fn)), fw, 1);
			fprintf(fp, "  %s\n", esc(n2, sizeof(n2),
			    base_name(mod_name(c, b->rows[j].mod))));
		}
		if (more > 0)
			fprintf(fp, "%8.2f %8s  %*" PRIu64 "    (%zu more "
			    "below %g%%)\n", pct(left, c->total), "", sw,
			    left, more, c->in->cutoff);
	}
	rule(fp);
	fputc('\n', fp);
	return 0;
}

/* Caliper's function details: each function above the cutoff, its
 * statements in source order, each with its instructions. */
static int
print_details(struct caliper *c, FILE *fp)
{
	const struct level *l = &c->lv[CAL_FUNCTION];
	size_t n = shown(c, l), i;
	uint64_t sum = 0;
	int sw = digits(c->total);

	if (sw < 7)
		sw = 7;
	fprintf(fp, "Function Details\n");
	rule(fp);
	fprintf(fp, " %% Total  Cumulat  %*s      Line  >Statement\n", sw,
	    "Samples");
	fprintf(fp, " Samples  %% Total  %*s            Address:  "
	    "Instruction\n", sw, "");
	rule(fp);
	for (i = 0; i < n; i++) {
		sum += l->rows[i].count;
		if (i > 0)
			fputc('\n', fp);
		if (print_function(c, &l->rows[i], sum, sw, fp) == -1)
			return -1;
	}
	if (n < l->n)
		fprintf(fp, "\n(%zu more functions below %g%%)\n", l->n - n,
		    c->in->cutoff);
	rule(fp);
	return 0;
}

static int
print_text(struct caliper *c, FILE *fp)
{
	char b[4096];
	int lv, i;

	fprintf(fp, "Caliper views: %s%s%" PRIu64 " %s%s\n", c->trace ?
	    esc(b, sizeof(b), c->in->bfname) : "", c->trace ? ": " : "",
	    c->total, c->trace ?
	    report_measure(pme_bucketfile_info(c->in->bf)->measure) :
	    measure_clock(&c->measure) ? "clock samples" : "samples of ",
	    c->trace || measure_clock(&c->measure) ? "" :
	    esc(b, sizeof(b), c->measure.name));
	if (c->command != NULL)
		fprintf(fp, "Command: %s\n", esc(b, sizeof(b), c->command));
#ifndef HAVE_CAPSTONE
	if (wanted(c, CAL_INSN))
		fprintf(fp, "Instructions: addresses only (built without "
		    "capstone, the disassembler)\n");
#endif
	fputc('\n', fp);
	for (i = 0; i < CAL_NLEVELS; i++) {
		lv = level_order[i];
		if (!wanted(c, lv) || (c->in->level == CAL_ALL &&
		    (lv == CAL_LINE || lv == CAL_INSN)))
			continue;
		if (c->lv[lv].absent)
			print_absent(c, lv, fp);
		else if (print_level(c, lv, fp) == -1)
			return -1;
	}
	if (c->in->level == CAL_ALL && !c->trace && c->lv[CAL_THREAD].n > 1 &&
	    print_threads(c, fp) == -1)
		return -1;
	if (c->in->level == CAL_ALL && !c->trace &&
	    print_details(c, fp) == -1)
		return -1;
	if (c->in->level == CAL_ALL && c->trace) {
		if (print_level(c, CAL_LINE, fp) == -1)
			return -1;
		print_absent(c, CAL_INSN, fp);
	}
	return 0;
}

/* ------------------------------------------------------------------ CSV */

/* s (NULL: empty) as a CSV field, then a comma or, last, the newline. */
static void
csv_field(FILE *fp, const char *s, int last)
{
	pme_csv_field(fp, s != NULL ? s : "");
	fputc(last ? '\n' : ',', fp);
}

/* A row of level lv as CSV: level,samples,percent,cumulative,pid,tid,
 * module,function,file,line,address,cpu,text (a CPU's top function in
 * module and function; a thread's CPUs as its CPUs column). */
static int
csv_row(struct caliper *c, int lv, const struct crow *r, uint64_t cumul,
    FILE *fp)
{
	char num[64], *t = NULL;
	const struct crow *top;
	const char *file = lv == CAL_FUNCTION ? fn_file(c, r->mod, r->fn) :
	    r->file;

	fprintf(fp, "%s,%" PRIu64 ",%.4f,%.4f,", level_names[lv], r->count,
	    pct(r->count, c->total), pct(cumul, c->total));
	if (lv <= CAL_PROCESS) {
		fprintf(fp, "%" PRIu32 ",", r->pid);
		if (lv == CAL_THREAD)
			fprintf(fp, "%" PRIu32, r->tid);
		fputs(",,,,,,", fp);
		if (lv == CAL_THREAD && (t = thread_cpus(c, r)) == NULL)
			return -1;
		csv_field(fp, t, 0);
		free(t);
		if (asprintf(&t, "%s%s", thread_name(c, r->run, r->pid, lv ==
		    CAL_THREAD ? r->tid : r->pid), run_of(c, r->run, num,
		    sizeof(num))) == -1)
			return -1;
		csv_field(fp, t, 1);
		free(t);
		return 0;
	}
	if (lv == CAL_CPU) {
		top = cpu_top(c, r);
		fputs(",,", fp);
		csv_field(fp, mod_name(c, top->mod), 0);
		csv_field(fp, fn_name(c, top->mod, top->fn), 0);
		fputs(",,,", fp);
		csv_field(fp, cpu_name(r->cpu, num, sizeof(num)), 0);
		csv_field(fp, NULL, 1);
		return 0;
	}
	fputs(",,", fp);
	csv_field(fp, mod_name(c, r->mod), 0);
	csv_field(fp, lv == CAL_MODULE ? NULL : fn_name(c, r->mod, lv ==
	    CAL_LINE ? stmt_fn(r) : r->fn), 0);
	csv_field(fp, lv >= CAL_FUNCTION ? file : NULL, 0);
	snprintf(num, sizeof(num), "%" PRIu32, r->line);
	csv_field(fp, lv == CAL_LINE && r->file != NULL ? num : NULL, 0);
	snprintf(num, sizeof(num), "0x%" PRIx64, r->addr);
	csv_field(fp, lv == CAL_INSN ? num : NULL, 0);
	csv_field(fp, NULL, 0);
	if (lv == CAL_LINE && (t = statement_text(c, r->mod, r->file,
	    r->line)) == NULL)
		return -1;
	if (lv == CAL_INSN && (t = disassemble(c, r->mod, r->addr)) == NULL)
		return -1;
	csv_field(fp, t, 1);
	free(t);
	return 0;
}

static int
print_csv(struct caliper *c, FILE *fp)
{
	uint64_t sum;
	size_t i;
	int lv, j;

	fputs("level,samples,percent,cumulative,pid,tid,module,function,"
	    "file,line,address,cpu,text\n", fp);
	for (j = 0; j < CAL_NLEVELS; j++) {
		lv = level_order[j];
		if (!wanted(c, lv) || c->lv[lv].absent)
			continue;
		for (i = 0, sum = 0; i < c->lv[lv].n; i++) {
			sum += c->lv[lv].rows[i].count;
			if (csv_row(c, lv, &c->lv[lv].rows[i], sum, fp) == -1)
				return -1;
		}
	}
	return 0;
}

/* ----------------------------------------------------------- the whole */

void
caliper_free(struct caliper *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nmods; i++)
		mod_free(&c->mods[i]);
	measure_free(&c->measure);
	free(c->mods);
	filter_run_free(&c->fr);
	free(c->sel);
	free(c->cells);
	for (i = 0; i < c->nnames; i++)
		free(c->names[i].name);
	free(c->names);
	for (i = 0; i < c->nsrcs; i++) {
		free(c->srcs[i].name);
		free(c->srcs[i].text);
		free(c->srcs[i].off);
	}
	free(c->srcs);
	for (i = 0; i < CAL_NLEVELS; i++)
		free(c->lv[i].rows);
	free(c->bythread.rows);
	free(c->bycpu.rows);
	free(c->thcpu.rows);
	free(c->command);
	free(c->res);
	pme_quick_kernel_free(&c->kr);
	pme_addrmap_free(c->am);
#ifdef HAVE_CAPSTONE
	if (c->cs_open == 1)
		cs_close(&c->cs);
#endif
	free(c);
}

struct caliper *
caliper_new(const struct caliper_input *in, struct pme_error *err)
{
	struct caliper *c;

	if ((c = calloc(1, sizeof(*c))) == NULL) {
		histo_err(err, PME_ENOMEM, "out of memory");
		return NULL;
	}
	c->in = in;
	c->err = err;
	c->trace = in->bf != NULL;
	if (c->trace && (in->level == CAL_THREAD ||
	    in->level == CAL_PROCESS || in->level == CAL_INSN ||
	    in->level == CAL_CPU)) {
		histo_err(err, PME_EINVAL, "-V caliper:%s: trace input ('%s') "
		    "holds counts per bucket, not per %s: sample files (clock "
		    "input) have them", level_names[in->level], in->bfname,
		    in->level == CAL_CPU ? "CPU" : level_names[in->level]);
		free(c);
		return NULL;
	}
	if (c->trace ? trace_levels(c) == -1 :
	    read_samples(c) == -1 || clock_levels(c) == -1) {
		caliper_free(c);
		return NULL;
	}
	return c;
}

int
caliper_write(struct caliper *c, int csv, int width, FILE *fp,
    struct pme_error *err)
{
	c->err = err;
	c->width = width;
	if ((csv ? print_csv(c, fp) : print_text(c, fp)) == -1)
		return nomem(c);
	if (fflush(fp) == EOF || ferror(fp))
		return histo_err(err, PME_EIO, "write failed: %s",
		    strerror(errno));
	return 0;
}

/* ------------------------------------------- rows for -V measures:LEVEL */

size_t
caliper_rows(const struct caliper *c, int lv)
{
	return lv >= 0 && lv < CAL_NLEVELS ? c->lv[lv].n : 0;
}

char *
caliper_row_key(const struct caliper *c, int lv, size_t i, uint64_t *count)
{
	const struct crow *r = &c->lv[lv].rows[i];
	char *s = NULL, run[32];
	int n;

	*count = r->count;
	run_of(c, r->run, run, sizeof(run));
	switch (lv) {
	case CAL_THREAD:
		n = asprintf(&s, "%s tid %" PRIu32 " pid %" PRIu32 "%s",
		    thread_name(c, r->run, r->pid, r->tid), r->tid, r->pid,
		    c->run < 2 ? "" : run);
		break;
	case CAL_PROCESS:
		n = asprintf(&s, "%s pid %" PRIu32 "%s", thread_name(c,
		    r->run, r->pid, r->pid), r->pid, c->run < 2 ? "" : run);
		break;
	case CAL_MODULE:
		n = asprintf(&s, "%s", mod_name(c, r->mod));
		break;
	case CAL_FUNCTION:
		n = asprintf(&s, "%s %s", fn_name(c, r->mod, r->fn),
		    base_name(mod_name(c, r->mod)));
		break;
	case CAL_LINE:
		n = r->file != NULL ? asprintf(&s, "%s:%" PRIu32 " %s",
		    base_name(r->file), r->line, fn_name(c, r->mod,
		    stmt_fn(r))) : asprintf(&s, "? %s", stmt_fn(r) !=
		    PME_NONE ? fn_name(c, r->mod, stmt_fn(r)) :
		    base_name(mod_name(c, r->mod)));
		break;
	case CAL_CPU:
		n = asprintf(&s, "cpu %s", cpu_name(r->cpu, run, sizeof(run)));
		break;
	default:
		n = asprintf(&s, "0x%" PRIx64 " %s", r->addr,
		    base_name(mod_name(c, r->mod)));
		break;
	}
	return n == -1 ? NULL : s;
}
