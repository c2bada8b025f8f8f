/*
 * symbols.c - ELF images as modules, routines and lines (pme_symbols.h).
 *
 * libelf reads the file (mapped, shared with libdwarf through
 * dwarf_elf_init_b()), the section headers, the symbol tables and the
 * build-id; libdwarf reads compilation units and subprograms, in a child
 * process (see "containment" below for why); the line tables are decoded
 * here, from .debug_line (see "lines" below for why).
 * Without DWARF the symbol table alone gives modules (STT_FILE groups) and
 * routines (STT_FUNC symbols).
 *
 * Choices the header leaves open, made here:
 *  - Compilation units without code in the section (data only, or code only
 *    in .init) are kept as modules with no ranges and no routines, so that
 *    a .PMD naming such a file finds it; pmebuild gives them no buckets.
 *    Without DWARF, STT_FILE groups without a function are dropped: there
 *    the groups are only known through their functions.
 *  - Symbols of size 0 (assembler labels such as frame_dummy) have no
 *    range and are not routines.
 *  - Routines of a module that start at one address are one routine, its
 *    names ranked as pme_symbols.h says (perf's rule), since buckets of
 *    one group may not overlap; only those of one module are merged, so
 *    identical code folded across units (ICF) stays two routines.
 *  - Routines of a module are sorted by entry address.  A subprogram is
 *    read at the top level of its unit and inside namespaces; functions
 *    nested in other functions (a GNU C extension) are not visited, which
 *    saves a walk over every local variable.  All their code is still the
 *    module's and their lines are attributed to the enclosing routine.
 *  - Line entries take every row of the line table, is_stmt or not: a row
 *    is the source line of the addresses up to the next row, which is what
 *    addr2line and readelf's decoded dump say.  Line 0 (code the compiler
 *    could attribute to no line) is kept as line 0.  Adjacent runs of the
 *    same file and line, once zero-length rows are gone, are one entry.
 *    Rows outside the section (e.g. at address 0 for code the linker
 *    discarded) are dropped; where sequences overlap, the first one wins.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>
#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#ifdef PME_HAVE_DEMANGLE
#include <libiberty/demangle.h>
#endif

#include "debugfile.h"
#include "plt.h"
#include "pme_symbols.h"
#include "util.h"

/* An STT_FUNC symbol inside the section. */
struct fsym {
	uint64_t	 addr;
	uint64_t	 size;
	const char	*name;
	uint32_t	 group;		/* STT_FILE group, PME_NONE: global */
	uint32_t	 index;		/* in its symbol table */
	unsigned char	 bind;		/* STB_* */
};

/* A routine range with its routine, for address lookups. */
struct rrange {
	uint64_t	 start, end;
	uint32_t	 routine;
};

/* A section's bytes, as libelf gives them. */
struct sect {
	const uint8_t	*p;
	size_t		 n;
};

/* Where a module's line table is. */
struct modinfo {
	uint64_t	 stmt;		/* DW_AT_stmt_list: .debug_line offset */
	int		 has_stmt;
	const char	*compdir;	/* interned, or NULL */
};

struct pme_image {
	char		*path;
	const char	*base;		/* basename of path */
	unsigned	 flags;
	const char	*note;
	int		 fd;
	Elf		*elf;		/* the image, or its debug file */
	Elf		*main_elf;	/* the image when elf is its debug */
	int		 main_fd;	/*   file, else NULL and -1 */
	char		*debugfile;	/* the debug file's name, or NULL */
	Dwarf_Debug	 dbg;
	struct pme_range sec;
	uint8_t		*buildid;
	uint32_t	 buildid_len;
	struct pme_arena arena;
	struct pme_intern names;
	struct pme_vec	 mods;		/* struct pme_symmod */
	struct pme_vec	 info;		/* struct modinfo, one per module */
	struct pme_vec	 routines;	/* struct pme_symroutine */
	struct pme_vec	 lines;		/* struct pme_symline */
	struct pme_vec	 syms;		/* struct fsym, sorted by addr */
	struct pme_vec	 scratch;	/* struct pme_range, reused */
	struct sect	 dline, dlinestr, dstr;
	int		 be;		/* big-endian image */
	struct pme_error *err;
	struct watch	*watch;		/* in the DWARF reader's process */
};

/*
 * What the DWARF reader is doing, in memory it shares with the process
 * that started it, so that a reader that dies can be told about: the
 * section libdwarf was reading and the compilation unit.
 */
enum phase { PH_NONE, PH_RNGLISTS, PH_LOCLISTS, PH_INFO, PH_RANGES };

struct watch {
	volatile int	 phase;		/* enum phase */
	volatile int	 inunit;	/* unit is set */
	volatile uint64_t unit;		/* .debug_info offset of the unit */
};

/* Per compilation unit state while reading its DIEs or lines. */
struct cu {
	struct pme_image *img;
	Dwarf_Die	 die;
	Dwarf_Half	 version;
	uint64_t	 base;		/* base address for DWARF 4 ranges */
	const char	*compdir;
	size_t		 compdir_len;
	const char	*name;		/* module name (interned) */
	struct modinfo	 info;
	struct lthdr	*lt;		/* its line table header, for decl_file */
	int		 lt_tried;
};

static const char *decl_file(struct cu *, uint64_t);
static void	 cu_free(struct cu *);

/* ------------------------------------------------------------ errors */

static const char *const phase_sect[] = { NULL, ".debug_rnglists",
    ".debug_loclists", ".debug_info", ".debug_ranges" };

static void
set_phase(struct pme_image *img, enum phase ph)
{
	if (img->watch != NULL)
		img->watch->phase = ph;
}

/* " (.debug_info)" for the section being read, or "". */
static const char *
phase_tag(const struct watch *w, char *buf, size_t len)
{
	const char *s = w != NULL && w->phase > PH_NONE &&
	    w->phase <= PH_RANGES ? phase_sect[w->phase] : NULL;

	if (s != NULL)
		snprintf(buf, len, " (%s)", s);
	else
		buf[0] = '\0';
	return buf;
}

/* " in the unit at offset 0x1a0" when one is being read, or "". */
static const char *
unit_tag(const struct watch *w, char *buf, size_t len)
{
	if (w != NULL && w->inunit)
		snprintf(buf, len, " in the unit at offset 0x%llx",
		    (unsigned long long)w->unit);
	else
		buf[0] = '\0';
	return buf;
}

static int
dwerr(struct pme_image *img, Dwarf_Error e, const char *what)
{
	char sect[64], unit[64];

	pme_seterr(img->err, PME_EFORMAT, "'%s': corrupt DWARF%s: %s%s: %s",
	    img->path, phase_tag(img->watch, sect, sizeof(sect)), what,
	    unit_tag(img->watch, unit, sizeof(unit)),
	    e != NULL ? dwarf_errmsg(e) : "no entry");
	if (e != NULL)
		dwarf_dealloc_error(img->dbg, e);
	return -1;
}

static int
elferr(struct pme_image *img, const char *what)
{
	return pme_seterr(img->err, PME_EFORMAT, "'%s': %s: %s", img->path,
	    what, elf_errmsg(-1));
}

static int
nomem(struct pme_image *img)
{
	return pme_setnomem(img->err);
}

/* ------------------------------------------------------------ ranges */

/* Clips r to the section; 0 when nothing is left. */
static int
clip(const struct pme_image *img, struct pme_range *r)
{
	if (r->start < img->sec.start)
		r->start = img->sec.start;
	if (r->end > img->sec.end)
		r->end = img->sec.end;
	return r->start < r->end;
}

/* Adds [lo, hi) to the scratch ranges, clipped; empty ones vanish. */
static int
scratch_add(struct pme_image *img, uint64_t lo, uint64_t hi)
{
	struct pme_range r = { lo, hi }, *p;

	if (hi <= lo || !clip(img, &r))
		return 0;
	if ((p = pme_vec_push(&img->scratch)) == NULL)
		return nomem(img);
	*p = r;
	return 0;
}

/*
 * Copies the scratch ranges into the arena, sorted and merged when merge
 * is set (modules), else in the order found (a routine's ranges keep its
 * entry part first as DWARF and the symbols give it, which pme_symbols.h
 * does not promise but costs nothing).
 */
static int
scratch_take(struct pme_image *img, int merge, const struct pme_range **out,
    uint32_t *n)
{
	struct pme_range *v = img->scratch.v, *p;
	size_t k = img->scratch.n;

	*out = NULL;
	*n = 0;
	if (k == 0)
		return 0;
	if (merge)
		k = pme_ranges_merge(v, k);
	if ((p = pme_arena_alloc(&img->arena, k * sizeof(*p))) == NULL)
		return nomem(img);
	memcpy(p, v, k * sizeof(*p));
	*out = p;
	*n = (uint32_t)k;
	img->scratch.n = 0;
	return 0;
}

/* ------------------------------------------------------------ ELF */

static int
find_section(struct pme_image *img, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	const char *s;

	if (elf_getshdrstrndx(img->elf, &shstrndx) != 0)
		return elferr(img, "section headers");
	while ((scn = elf_nextscn(img->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			return elferr(img, "section header");
		if ((s = elf_strptr(img->elf, shstrndx, sh.sh_name)) == NULL)
			return elferr(img, "section name");
		if (strcmp(s, ".debug_info") == 0 && sh.sh_type != SHT_NOBITS &&
		    sh.sh_size > 0)
			img->flags |= PME_IMAGE_DWARF;
		if (sh.sh_type == SHT_SYMTAB)
			img->flags |= PME_IMAGE_SYMTAB;
		if (strcmp(s, name) != 0 || (sh.sh_flags & SHF_ALLOC) == 0)
			continue;
		img->sec.start = sh.sh_addr;
		img->sec.end = sh.sh_addr + sh.sh_size;
	}
	if (img->sec.end <= img->sec.start)
		return pme_seterr(img->err, PME_EINVAL,
		    "'%s': no section '%s'", img->path, name);
	return 0;
}

static int
read_buildid(struct pme_image *img, Elf_Data *d)
{
	GElf_Nhdr nh;
	size_t off = 0, noff, doff;

	while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((char *)d->d_buf + noff, "GNU", 4) != 0 ||
		    nh.n_descsz == 0)
			continue;
		img->buildid = pme_arena_alloc(&img->arena, nh.n_descsz);
		if (img->buildid == NULL)
			return nomem(img);
		memcpy(img->buildid, (char *)d->d_buf + doff, nh.n_descsz);
		img->buildid_len = nh.n_descsz;
		return 1;
	}
	return 0;
}

/* DF_1_PIE in the dynamic section marks a PIE even without PT_INTERP. */
static int
dyn_is_pie(Elf_Data *d, const GElf_Shdr *sh)
{
	GElf_Dyn dyn;
	size_t i, n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (i = 0; i < n && gelf_getdyn(d, (int)i, &dyn) != NULL; i++)
		if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE))
			return 1;
	return 0;
}

static int
read_kind(struct pme_image *img)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	size_t i, nph;
	int pie = 0, found = 0;

	if (gelf_getehdr(img->elf, &eh) == NULL)
		return elferr(img, "ELF header");
	if (eh.e_type == ET_EXEC)
		img->flags |= PME_IMAGE_EXEC;
	else if (eh.e_type != ET_DYN)
		return pme_seterr(img->err, PME_EFORMAT,
		    "'%s': not an executable or shared object", img->path);
	if (elf_getphdrnum(img->elf, &nph) != 0)
		return elferr(img, "program headers");
	for (i = 0; i < nph; i++)
		if (gelf_getphdr(img->elf, (int)i, &ph) != NULL &&
		    ph.p_type == PT_INTERP)
			pie = 1;
	while ((scn = elf_nextscn(img->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			return elferr(img, "section header");
		if (sh.sh_type != SHT_NOTE && sh.sh_type != SHT_DYNAMIC)
			continue;
		if ((d = elf_getdata(scn, NULL)) == NULL)
			return elferr(img, "section data");
		if (sh.sh_type == SHT_DYNAMIC)
			pie |= dyn_is_pie(d, &sh);
		else if (!found && (found = read_buildid(img, d)) == -1)
			return -1;
	}
	if (eh.e_type == ET_DYN)
		img->flags |= pie ? PME_IMAGE_PIE : PME_IMAGE_SHARED;
	return 0;
}

/* Leading underscores of a name. */
static size_t
underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* The names' part of perf's rule below: fewer leading underscores, then
 * the longer name; 0 when it does not tell. */
static int
cmp_names(const char *a, const char *b)
{
	size_t ua = underscores(a), ub = underscores(b), la, lb;

	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(a);
	lb = strlen(b);
	return (la < lb) - (la > lb);
}

/*
 * Symbols by address and, at one address, the preferred name first, as
 * perf chooses among aliases (symbols__fixup_duplicate): a non-weak
 * symbol before a weak one, a global before a local, fewer leading
 * underscores, the longer name, then the earlier in the symbol table.
 * So __finitel (global) names the code it shares with finitel (weak).
 */
static int
cmp_fsym(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;
	int c;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if ((x->bind == STB_WEAK) != (y->bind == STB_WEAK))
		return x->bind == STB_WEAK ? 1 : -1;
	if ((x->bind == STB_GLOBAL) != (y->bind == STB_GLOBAL))
		return x->bind == STB_GLOBAL ? -1 : 1;
	if ((c = cmp_names(x->name, y->name)) != 0)
		return c;
	return (x->index > y->index) - (x->index < y->index);
}

static void
fsym_key(const void *e, uint64_t *k)
{
	k[0] = ((const struct fsym *)e)->addr;
}

/*
 * The symbols in cmp_fsym()'s order: by address in a radix sort (a
 * library's thousands cost n log n calls of cmp_fsym() in qsort()), then
 * each run at one address, a few aliases, by cmp_fsym().  -1 when memory
 * ran out.
 */
static int
sort_syms(struct pme_image *img)
{
	struct fsym *v = img->syms.v, *tmp, *s, t;
	size_t n = img->syms.n, i, j;

	if ((tmp = malloc(n * sizeof(*tmp))) == NULL)
		return -1;
	if ((s = pme_radix_sort(v, tmp, n, sizeof(*v), 1, fsym_key)) == NULL) {
		free(tmp);
		return -1;
	}
	if (s != v)
		memcpy(v, s, n * sizeof(*v));
	free(tmp);
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1].addr == v[j].addr &&
		    cmp_fsym(&v[j - 1], &v[j]) > 0; j--) {
			t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return 0;
}

/*
 * Reads the STT_FUNC symbols inside the section from the table of type
 * (SHT_SYMTAB or SHT_DYNSYM), noting for each local one the STT_FILE
 * group it follows.  Groups are numbered by their STT_FILE symbols.
 */
static int
read_syms(struct pme_image *img, Elf64_Word type, struct pme_vec *groups)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;
	struct fsym *f;
	const char **g;
	const char *name;
	size_t i, n;
	uint32_t group = PME_NONE;
	int t, b;

	while ((scn = elf_nextscn(img->elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == type)
			break;
	if (scn == NULL)
		return 0;
	if ((d = elf_getdata(scn, NULL)) == NULL)
		return elferr(img, "symbol table");
	n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
	for (i = 1; i < n; i++) {
		if (gelf_getsym(d, (int)i, &s) == NULL)
			return elferr(img, "symbol");
		t = GELF_ST_TYPE(s.st_info);
		b = GELF_ST_BIND(s.st_info);
		if ((name = elf_strptr(img->elf, sh.sh_link, s.st_name)) == NULL)
			return elferr(img, "symbol name");
		if (t == STT_FILE) {
			if ((g = pme_vec_push(groups)) == NULL)
				return nomem(img);
			*g = name;
			group = (uint32_t)(groups->n - 1);
			continue;
		}
		if ((t != STT_FUNC && t != STT_GNU_IFUNC) || s.st_size == 0 ||
		    s.st_shndx == SHN_UNDEF || s.st_value < img->sec.start ||
		    s.st_value >= img->sec.end || *name == '\0')
			continue;
		if ((f = pme_vec_push(&img->syms)) == NULL)
			return nomem(img);
		f->addr = s.st_value;
		f->size = s.st_size;
		f->name = name;
		f->group = b == STB_LOCAL ? group : PME_NONE;
		f->index = (uint32_t)i;
		f->bind = (unsigned char)b;
	}
	if (img->syms.n > 1 && sort_syms(img) == -1)
		return nomem(img);
	return 1;
}

/* The symbols at addr, the preferred one first; *n of them. */
static const struct fsym *
syms_at(const struct pme_image *img, uint64_t addr, size_t *n)
{
	const struct fsym *v = img->syms.v;
	size_t lo = 0, hi = img->syms.n, mid, k;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < img->syms.n && v[k].addr == addr; k++)
		continue;
	*n = k - lo;
	return *n > 0 ? &v[lo] : NULL;
}

/* ------------------------------------------------------------ modules */

static struct pme_symmod *
add_module(struct pme_image *img, const char *name,
    const struct modinfo *info)
{
	static const struct modinfo none;
	struct pme_symmod *m;
	struct modinfo *o;

	if ((name = pme_intern(&img->names, name)) == NULL ||
	    (m = pme_vec_push(&img->mods)) == NULL ||
	    (o = pme_vec_push(&img->info)) == NULL) {
		nomem(img);
		return NULL;
	}
	*o = info != NULL ? *info : none;
	m->name = name;
	m->first_routine = (uint32_t)img->routines.n;
	return m;
}

/* By entry; at one entry the preferred name first (cmp_fsym's rule for
 * names), then by name, so that equal inputs give equal results. */
static int
cmp_routine(const void *a, const void *b)
{
	const struct pme_symroutine *x = a, *y = b;
	int c;

	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	if (x->name == y->name)
		return 0;
	if ((c = cmp_names(x->name, y->name)) != 0)
		return c;
	return strcmp(x->name, y->name);
}

/* Whether r and s have the same ranges. */
static int
same_ranges(const struct pme_symroutine *r, const struct pme_symroutine *s)
{
	return r->nranges == s->nranges && (r->nranges == 0 ||
	    memcmp(r->ranges, s->ranges, r->nranges * sizeof(*r->ranges)) ==
	    0);
}

/* Gives r[0] the union of the ranges of r[0..n). */
static int
join_ranges(struct pme_image *img, struct pme_symroutine *r, uint32_t n)
{
	uint32_t i, j;

	for (i = 1; i < n && same_ranges(&r[0], &r[i]); i++)
		continue;
	if (i == n)
		return 0;
	img->scratch.n = 0;
	for (i = 0; i < n; i++)
		for (j = 0; j < r[i].nranges; j++)
			if (scratch_add(img, r[i].ranges[j].start,
			    r[i].ranges[j].end) == -1)
				return -1;
	return scratch_take(img, 1, &r[0].ranges, &r[0].nranges);
}

/* Whether name is r's own or one of the k aliases in v. */
static int
has_name(const struct pme_symroutine *r, const char **v, uint32_t k,
    const char *name)
{
	uint32_t i;

	if (strcmp(r->name, name) == 0)
		return 1;
	for (i = 0; i < k; i++)
		if (strcmp(v[i], name) == 0)
			return 1;
	return 0;
}

/*
 * The aliases of r: the other ELF function symbols at its entry (nm -S
 * lists them all), then the names of the n routines in other, merged into
 * r; each name once, at most PME_MAXALIASES of them.
 */
static int
set_aliases(struct pme_image *img, struct pme_symroutine *r,
    const struct pme_symroutine *other, uint32_t n)
{
	const struct fsym *f;
	const char **v;
	size_t nf, i, max;
	uint32_t k = 0;

	r->aliases = NULL;
	r->naliases = 0;
	f = syms_at(img, r->entry, &nf);
	if ((max = nf + n) > PME_MAXALIASES)
		max = PME_MAXALIASES;
	if (max == 0 || (nf <= 1 && n == 0))
		return 0;
	if ((v = pme_arena_alloc(&img->arena, max * sizeof(*v))) == NULL)
		return nomem(img);
	for (i = 0; i < nf && k < max; i++)
		if (!has_name(r, v, k, f[i].name))
			v[k++] = f[i].name;
	for (i = 0; i < n && k < max; i++)
		if (!has_name(r, v, k, other[i].name))
			v[k++] = other[i].name;
	r->aliases = k > 0 ? v : NULL;
	r->naliases = k;
	return 0;
}

/*
 * Routines of module m that start at one address are one routine, as
 * perf and nm show them: a DWARF subprogram per name (GNU as writes
 * __finitel, finitel and __GI___finitel so) would otherwise make buckets
 * that overlap.  The first by cmp_routine keeps its name and takes the
 * others' ranges; their names become its aliases.  m's routines are the
 * last ones.
 */
static int
merge_routines(struct pme_image *img, struct pme_symmod *m)
{
	struct pme_symroutine *r;
	uint32_t i, j, out = 0;

	if (m->nroutines == 0)
		return 0;
	r = &PME_VEC_AT(&img->routines, struct pme_symroutine,
	    m->first_routine);
	for (i = 0; i < m->nroutines; i = j) {
		for (j = i + 1; j < m->nroutines && r[j].entry == r[i].entry;
		    j++)
			continue;
		if (join_ranges(img, &r[i], j - i) == -1 ||
		    set_aliases(img, &r[i], &r[i + 1], j - i - 1) == -1)
			return -1;
		r[out++] = r[i];
	}
	m->nroutines = out;
	img->routines.n = (size_t)m->first_routine + out;
	return 0;
}

/*
 * Ends the module last added: sorts its routines by entry, merges those
 * of one entry, and, when it has no ranges of its own, gives it the union
 * of its routines' ranges.
 */
static int
end_module(struct pme_image *img)
{
	struct pme_symmod *m;
	struct pme_symroutine *r;
	uint32_t i, j;

	m = &PME_VEC_AT(&img->mods, struct pme_symmod, img->mods.n - 1);
	m->nroutines = (uint32_t)img->routines.n - m->first_routine;
	if (m->nroutines > 1)
		qsort(&PME_VEC_AT(&img->routines, struct pme_symroutine,
		    m->first_routine), m->nroutines,
		    sizeof(struct pme_symroutine), cmp_routine);
	if (merge_routines(img, m) == -1)
		return -1;
	if (m->nranges > 0)
		return 0;
	r = m->nroutines == 0 ? NULL : &PME_VEC_AT(&img->routines,
	    struct pme_symroutine, m->first_routine);
	img->scratch.n = 0;
	for (i = 0; i < m->nroutines; i++)
		for (j = 0; j < r[i].nranges; j++)
			if (scratch_add(img, r[i].ranges[j].start,
			    r[i].ranges[j].end) == -1)
				return -1;
	return scratch_take(img, 1, &m->ranges, &m->nranges);
}

/* ------------------------------------------------------------ no DWARF */

/* Length of the "f" in "f.cold" and "f.cold.3", else 0. */
static size_t
cold_base(const char *name)
{
	const char *p = strchr(name, '.');
	size_t k;

	/* Most names have no dot: strchr() is the cheaper search. */
	if (p != NULL)
		p = strstr(p, ".cold");
	if (p == NULL || p == name)
		return 0;
	if (p[5] == '.') {
		for (k = 6; p[k] >= '0' && p[k] <= '9'; k++)
			continue;
		if (k == 6 || p[k] != '\0')
			return 0;
	} else if (p[5] != '\0')
		return 0;
	return (size_t)(p - name);
}

/* Symbol indexes sorted by name, to find the owner of a cold part. */
static const struct fsym *byname_syms;

static int
cmp_byname(const void *a, const void *b)
{
	const struct fsym *x = &byname_syms[*(const uint32_t *)a];
	const struct fsym *y = &byname_syms[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	return (*(const uint32_t *)a > *(const uint32_t *)b) -
	    (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* Compares the first len bytes of name, as a whole name, with s. */
static int
cmp_prefix(const char *name, size_t len, const char *s)
{
	int c = strncmp(name, s, len);

	if (c != 0)
		return c;
	return s[len] == '\0' ? 0 : -1;
}

/*
 * The symbol a cold part belongs to: "f" of the cold part's own file
 * group (a static f), else a global "f", else any "f"; PME_NONE if none.
 */
static uint32_t
cold_owner(const struct fsym *v, const uint32_t *byname, size_t n,
    uint32_t ci)
{
	size_t len = cold_base(v[ci].name), lo = 0, hi = n, mid;
	uint32_t any = PME_NONE, j;

	if (len == 0)
		return PME_NONE;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cmp_prefix(v[ci].name, len, v[byname[mid]].name) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && cmp_prefix(v[ci].name, len,
	    v[byname[lo]].name) == 0; lo++) {
		j = byname[lo];
		if (v[j].group == v[ci].group)
			return j;
		if (v[j].group == PME_NONE || any == PME_NONE)
			any = j;
	}
	return any;
}

/*
 * For each symbol: PME_NONE when it starts a routine, else the symbol
 * whose routine it joins (its cold part's owner; the preferred name of an
 * alias at the same address).  Cold parts of a symbol are chained from
 * cold[owner] through cold[part], ending in PME_NONE.
 */
/*
 * The symbols that may own a cold part, sorted by name (cmp_byname), in
 * *byname (malloc'd), *nb of them: those whose name hashes as a cold
 * part's base does.  Sorting them all cost more than the rest of reading
 * libc's symbols; a cold part's owner is one of these or none.
 */
static int
cold_candidates(struct pme_image *img, uint32_t **byname, uint32_t *nb)
{
	const struct fsym *v = img->syms.v;
	uint32_t i, n = (uint32_t)img->syms.n, ncold = 0, k = 0;
	uint64_t *set, h;
	size_t cap = 16, len, j;

	*nb = 0;
	for (i = 0; i < n; i++)
		ncold += cold_base(v[i].name) > 0;
	if ((*byname = malloc((n + 1) * sizeof(**byname))) == NULL)
		return nomem(img);
	if (ncold == 0)
		return 0;
	while (cap < (size_t)ncold * 4)
		cap *= 2;
	if ((set = calloc(cap, sizeof(*set))) == NULL)
		return nomem(img);
	for (i = 0; i < n; i++)
		if ((len = cold_base(v[i].name)) > 0) {
			h = pme_hash(v[i].name, len) | 1;
			for (j = h & (cap - 1); set[j] != 0 && set[j] != h;
			    j = (j + 1) & (cap - 1))
				continue;
			set[j] = h;
		}
	for (i = 0; i < n; i++) {
		h = pme_hash(v[i].name, strlen(v[i].name)) | 1;
		for (j = h & (cap - 1); set[j] != 0 && set[j] != h;
		    j = (j + 1) & (cap - 1))
			continue;
		if (set[j] == h)
			(*byname)[k++] = i;
	}
	free(set);
	byname_syms = v;
	if (k > 1)
		qsort(*byname, k, sizeof(**byname), cmp_byname);
	*nb = k;
	return 0;
}

static int
link_symbols(struct pme_image *img, uint32_t *join, uint32_t *cold)
{
	const struct fsym *v = img->syms.v;
	uint32_t *byname, i, n = (uint32_t)img->syms.n, o, nb;

	if (cold_candidates(img, &byname, &nb) == -1) {
		free(byname);
		return -1;
	}
	for (i = 0; i < n; i++)
		join[i] = cold[i] = PME_NONE;
	for (i = 0; i < n; i++) {
		if (i > 0 && v[i - 1].addr == v[i].addr) {
			join[i] = join[i - 1] != PME_NONE ? join[i - 1] : i - 1;
			continue;
		}
		o = nb == 0 ? PME_NONE : cold_owner(v, byname, nb, i);
		if (o == PME_NONE || o == i)
			continue;
		while (join[o] != PME_NONE && join[o] != o)
			o = join[o];
		join[i] = o;
		cold[i] = cold[o];
		cold[o] = i;
	}
	free(byname);
	return 0;
}

/* A routine for symbol i, with its cold parts. */
static int
sym_routine(struct pme_image *img, uint32_t i, const uint32_t *cold,
    uint32_t mod)
{
	const struct fsym *v = img->syms.v;
	struct pme_symroutine *r;
	uint32_t j;

	if ((r = pme_vec_push(&img->routines)) == NULL)
		return nomem(img);
	r->name = v[i].name;
	r->module = mod;
	r->entry = v[i].addr;
	img->scratch.n = 0;
	for (j = i; j != PME_NONE; j = cold[j])
		if (scratch_add(img, v[j].addr, v[j].addr + v[j].size) == -1)
			return -1;
	return scratch_take(img, 0, &r->ranges, &r->nranges);
}

/* Module of a group (or the globals), the symbols of which are
 * in[0..n), in address order, if it has routines. */
static int
sym_module(struct pme_image *img, const uint32_t *in, uint32_t n,
    const char *name, const uint32_t *join, const uint32_t *cold)
{
	uint32_t i, mod = (uint32_t)img->mods.n;
	size_t before = img->routines.n;

	if (add_module(img, name, NULL) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (join[in[i]] == PME_NONE &&
		    sym_routine(img, in[i], cold, mod) == -1)
			return -1;
	if (img->routines.n > before)
		return end_module(img);
	img->mods.n--;
	img->info.n--;
	return 0;
}

static int
cmp_range(const void *a, const void *b)
{
	const struct pme_range *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/*
 * The routine "[image]" of a stripped image: the code of section-wide
 * module m in none of its routines, or none when they cover it all.
 */
static int
rest_routine(struct pme_image *img, const struct pme_symmod *m, uint32_t mod)
{
	struct pme_symroutine *r, *rt;
	struct pme_range *v;
	uint64_t at = img->sec.start;
	size_t n = 0, i;
	uint32_t j, k;
	char *name;

	/* routines.v may be NULL (none): no offset to it. */
	rt = img->routines.n > 0 ? &PME_VEC_AT(&img->routines,
	    struct pme_symroutine, 0) : NULL;
	for (k = m->first_routine; k < img->routines.n; k++)
		n += rt[k].nranges;
	if ((v = malloc((n + 1) * sizeof(*v))) == NULL)
		return nomem(img);
	for (k = m->first_routine, n = 0; k < img->routines.n; k++)
		for (j = 0; j < rt[k].nranges; j++)
			v[n++] = rt[k].ranges[j];
	qsort(v, n, sizeof(*v), cmp_range);
	img->scratch.n = 0;
	for (i = 0; i <= n; i++) {
		uint64_t next = i < n ? v[i].start : img->sec.end;

		if (next > at && scratch_add(img, at, next) == -1) {
			free(v);
			return -1;
		}
		if (i < n && v[i].end > at)
			at = v[i].end;
	}
	free(v);
	if (img->scratch.n == 0)
		return 0;
	if ((r = pme_vec_push(&img->routines)) == NULL ||
	    (name = pme_arena_alloc(&img->arena, strlen(img->base) + 3)) ==
	    NULL)
		return nomem(img);
	sprintf(name, "[%s]", img->base);
	r->name = name;
	r->module = mod;
	if (scratch_take(img, 0, &r->ranges, &r->nranges) == -1)
		return -1;
	r->entry = r->ranges[0].start;
	return 0;
}

/*
 * A stripped image (no .symtab): one module named after it that holds the
 * whole section, with the exported functions of .dynsym as routines, and
 * one routine named "[image]" for the code in none of them (its static
 * functions, unnamed), so that all its code has a bucket.
 */
static int
stripped_module(struct pme_image *img, const uint32_t *join,
    const uint32_t *cold)
{
	struct pme_symmod *m;
	uint32_t i, mod = (uint32_t)img->mods.n;

	if ((m = add_module(img, img->base, NULL)) == NULL)
		return -1;
	img->scratch.n = 0;
	if (scratch_add(img, img->sec.start, img->sec.end) == -1 ||
	    scratch_take(img, 1, &m->ranges, &m->nranges) == -1)
		return -1;
	for (i = 0; i < img->syms.n; i++)
		if (join[i] == PME_NONE &&
		    sym_routine(img, i, cold, mod) == -1)
			return -1;
	if (rest_routine(img, m, mod) == -1)
		return -1;
	return end_module(img);
}

/*
 * Modules from symbols: each STT_FILE group with functions, then one
 * module named after the image for the global functions, which the symbol
 * table does not tie to a file; a stripped image's as stripped_module()
 * says.  A cold part joins its owner even when
 * the owner is global and the part a local of the owner's file group.
 */
static int
read_symbol_modules(struct pme_image *img, const struct pme_vec *groups)
{
	const struct fsym *v = img->syms.v;
	uint32_t *join, *cold, *first = NULL, *in = NULL, g, i, k;
	uint32_t ng = (uint32_t)groups->n, n = (uint32_t)img->syms.n;
	int rc = -1;

	join = malloc((n + 1) * sizeof(*join));
	cold = malloc((n + 1) * sizeof(*cold));
	/* Each group's symbols in address order, the globals' last (group
	 * ng): one pass, not one per group over all of them (libc's debug
	 * file has thousands of groups). */
	first = calloc((size_t)ng + 2, sizeof(*first));
	in = malloc((n + 1) * sizeof(*in));
	if (join == NULL || cold == NULL || first == NULL || in == NULL) {
		nomem(img);
		goto out;
	}
	for (i = 0; i < n; i++)
		first[(v[i].group == PME_NONE ? ng : v[i].group) + 1]++;
	for (g = 0; g <= ng; g++)
		first[g + 1] += first[g];
	for (i = 0; i < n; i++) {
		k = v[i].group == PME_NONE ? ng : v[i].group;
		in[first[k]++] = i;
	}
	/* first[g] is now the end of group g, the start of g + 1. */
	if (link_symbols(img, join, cold) == -1)
		goto out;
	for (g = 0; g < ng; g++)
		if (sym_module(img, in + (g ? first[g - 1] : 0), first[g] -
		    (g ? first[g - 1] : 0), PME_VEC_AT(groups, const char *, g),
		    join, cold) == -1)
			goto out;
	rc = img->flags & PME_IMAGE_SYMTAB ? sym_module(img, in + (ng ?
	    first[ng - 1] : 0), first[ng] - (ng ? first[ng - 1] : 0),
	    img->base, join, cold) : stripped_module(img, join, cold);
out:
	free(join);
	free(cold);
	free(first);
	free(in);
	return rc;
}

/* ------------------------------------------------------------ DWARF DIEs */

/* Module name: the CU name relative to comp_dir when it lies under it. */
static const char *
relname(const char *compdir, const char *name)
{
	size_t k = compdir != NULL ? strlen(compdir) : 0;

	while (k > 1 && compdir[k - 1] == '/')
		k--;
	if (k > 1 && strncmp(name, compdir, k) == 0 && name[k] == '/' &&
	    name[k + 1] != '\0')
		name += k + 1;
	else if (k == 1 && *compdir == '/' && *name == '/' && name[1] != '\0')
		name++;
	while (name[0] == '.' && name[1] == '/' && name[2] != '\0')
		name += 2;
	return name;
}

/* Adds the ranges of DW_AT_ranges in .debug_ranges (DWARF 2 to 4). */
static int
ranges_v4(struct cu *cu, Dwarf_Die die, Dwarf_Attribute a)
{
	struct pme_image *img = cu->img;
	Dwarf_Ranges *rb;
	Dwarf_Signed n, i;
	Dwarf_Unsigned bytes;
	Dwarf_Off off, real;
	Dwarf_Error e = NULL;
	uint64_t base = cu->base;
	int rc = 0;

	if (dwarf_global_formref(a, &off, &e) != DW_DLV_OK)
		return dwerr(img, e, "DW_AT_ranges");
	set_phase(img, PH_RANGES);
	if (dwarf_get_ranges_b(img->dbg, off, die, &real, &rb, &n, &bytes,
	    &e) != DW_DLV_OK)
		return dwerr(img, e, "DW_AT_ranges");
	for (i = 0; i < n && rc == 0; i++) {
		if (rb[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
			base = rb[i].dwr_addr2;
		else if (rb[i].dwr_type == DW_RANGES_ENTRY)
			rc = scratch_add(img, base + rb[i].dwr_addr1,
			    base + rb[i].dwr_addr2);
	}
	dwarf_ranges_dealloc(img->dbg, rb, n);
	set_phase(img, PH_INFO);
	return rc;
}

/* Adds the ranges of DW_AT_ranges in .debug_rnglists (DWARF 5). */
static int
ranges_v5(struct cu *cu, Dwarf_Attribute a, Dwarf_Half form)
{
	struct pme_image *img = cu->img;
	Dwarf_Rnglists_Head h;
	Dwarf_Unsigned val, n, i, off, raw1, raw2, lo, hi;
	Dwarf_Error e = NULL;
	Dwarf_Bool unavail;
	unsigned len, code;
	int rc = 0, res;

	if (form == DW_FORM_rnglistx)
		res = dwarf_formudata(a, &val, &e);
	else
		res = dwarf_global_formref(a, &val, &e);
	if (res != DW_DLV_OK)
		return dwerr(img, e, "DW_AT_ranges");
	set_phase(img, PH_RNGLISTS);
	if (dwarf_rnglists_get_rle_head(a, form, val, &h, &n, &off, &e) !=
	    DW_DLV_OK)
		return dwerr(img, e, "DW_AT_ranges");
	for (i = 0; i < n && rc == 0; i++) {
		unavail = 0;
		if (dwarf_get_rnglists_entry_fields_a(h, i, &len, &code, &raw1,
		    &raw2, &unavail, &lo, &hi, &e) != DW_DLV_OK) {
			rc = dwerr(img, e, "range list");
			break;
		}
		if (unavail || code == DW_RLE_base_address ||
		    code == DW_RLE_base_addressx || code == DW_RLE_end_of_list)
			continue;
		rc = scratch_add(img, lo, hi);
	}
	dwarf_dealloc_rnglists_head(h);
	set_phase(img, PH_INFO);
	return rc;
}

/*
 * Puts die's code ranges in the scratch ranges and its entry in *entry:
 * DW_AT_low_pc with DW_AT_high_pc (an address, or since DWARF 4 an offset
 * from low_pc) or DW_AT_ranges, whose first entry is the entry point as
 * gcc and clang write it.  Returns 1 when die has code, 0 when not.
 */
static int
die_ranges(struct cu *cu, Dwarf_Die die, uint64_t *entry)
{
	struct pme_image *img = cu->img;
	Dwarf_Attribute a;
	Dwarf_Addr lo, hi;
	Dwarf_Half form;
	enum Dwarf_Form_Class cls;
	Dwarf_Error e = NULL;
	int res, rc;

	img->scratch.n = 0;
	res = dwarf_attr(die, DW_AT_ranges, &a, &e);
	if (res == DW_DLV_ERROR)
		return dwerr(img, e, "DW_AT_ranges");
	if (res == DW_DLV_OK) {
		if (dwarf_whatform(a, &form, &e) != DW_DLV_OK) {
			dwarf_dealloc_attribute(a);
			return dwerr(img, e, "DW_AT_ranges");
		}
		if (form == DW_FORM_rnglistx || cu->version >= 5)
			rc = ranges_v5(cu, a, form);
		else
			rc = ranges_v4(cu, die, a);
		dwarf_dealloc_attribute(a);
		if (rc == -1)
			return -1;
		if (dwarf_lowpc(die, &lo, &e) == DW_DLV_OK)
			*entry = lo;
		else {
			if (e != NULL)
				dwarf_dealloc_error(img->dbg, e);
			*entry = img->scratch.n > 0 ?
			    PME_VEC_AT(&img->scratch, struct pme_range, 0).start
			    : 0;
		}
		return 1;
	}
	res = dwarf_lowpc(die, &lo, &e);
	if (res == DW_DLV_ERROR)
		return dwerr(img, e, "DW_AT_low_pc");
	if (res == DW_DLV_NO_ENTRY)
		return 0;
	res = dwarf_highpc_b(die, &hi, &form, &cls, &e);
	if (res == DW_DLV_ERROR)
		return dwerr(img, e, "DW_AT_high_pc");
	if (res == DW_DLV_NO_ENTRY)
		return 0;
	if (cls == DW_FORM_CLASS_CONSTANT)
		hi += lo;
	*entry = lo;
	if (scratch_add(img, lo, hi) == -1)
		return -1;
	return 1;
}

/* What a subprogram says of itself, or through its origin. */
struct subinfo {
	const char	*name;
	Dwarf_Unsigned	 file, line;
	int		 declaration;
	Dwarf_Off	 origin;	/* DIE offset, 0 if none */
	int		 origin_local;	/* origin in the same unit */
};

static void
sub_attrs(struct pme_image *img, Dwarf_Die die, struct subinfo *si)
{
	Dwarf_Attribute *al;
	Dwarf_Signed n, i;
	Dwarf_Half at, form;
	Dwarf_Error e = NULL;
	Dwarf_Unsigned u;
	Dwarf_Bool flag;
	Dwarf_Off off;
	char *s;

	if (dwarf_attrlist(die, &al, &n, &e) != DW_DLV_OK) {
		if (e != NULL)
			dwarf_dealloc_error(img->dbg, e);
		return;
	}
	for (i = 0; i < n; i++) {
		if (dwarf_whatattr(al[i], &at, &e) != DW_DLV_OK ||
		    dwarf_whatform(al[i], &form, &e) != DW_DLV_OK)
			break;
		if (at == DW_AT_name && si->name == NULL &&
		    dwarf_formstring(al[i], &s, &e) == DW_DLV_OK)
			si->name = s;
		else if (at == DW_AT_decl_file && si->file == 0 &&
		    dwarf_formudata(al[i], &u, &e) == DW_DLV_OK)
			si->file = u;
		else if (at == DW_AT_decl_line && si->line == 0 &&
		    dwarf_formudata(al[i], &u, &e) == DW_DLV_OK)
			si->line = u;
		else if (at == DW_AT_declaration &&
		    dwarf_formflag(al[i], &flag, &e) == DW_DLV_OK)
			si->declaration = flag != 0;
		else if ((at == DW_AT_abstract_origin ||
		    at == DW_AT_specification) && si->origin == 0 &&
		    dwarf_global_formref(al[i], &off, &e) == DW_DLV_OK) {
			si->origin = off;
			si->origin_local = form != DW_FORM_ref_addr;
		}
		if (e != NULL) {
			dwarf_dealloc_error(img->dbg, e);
			e = NULL;
		}
	}
	if (e != NULL)
		dwarf_dealloc_error(img->dbg, e);
	for (i = 0; i < n; i++)
		dwarf_dealloc_attribute(al[i]);
	dwarf_dealloc(img->dbg, al, DW_DLA_LIST);
}

/*
 * Fills si from die and, for what die lacks, from its abstract origin or
 * specification (an out-of-line copy of an inline function, a C++ member
 * defined outside its class), following at most a few links.
 */
static void
sub_info(struct pme_image *img, Dwarf_Die die, struct subinfo *si)
{
	Dwarf_Die o;
	Dwarf_Off off;
	Dwarf_Error e = NULL;
	int depth, local = 1, decl;

	sub_attrs(img, die, si);
	decl = si->declaration;
	for (depth = 0; depth < 4 && si->origin != 0; depth++) {
		if (si->name != NULL && (si->file != 0 || !local))
			break;
		off = si->origin;
		local = local && si->origin_local;
		si->origin = 0;
		if (dwarf_offdie_b(img->dbg, off, 1, &o, &e) != DW_DLV_OK) {
			if (e != NULL)
				dwarf_dealloc_error(img->dbg, e);
			break;
		}
		if (!local)
			si->file = si->line = 0;
		sub_attrs(img, o, si);
		dwarf_dealloc_die(o);
	}
	if (!local)
		si->file = 0;
	si->declaration = decl;
}

static int
add_subprogram(struct cu *cu, Dwarf_Die die, uint32_t mod)
{
	struct pme_image *img = cu->img;
	struct subinfo si = { 0 };
	struct pme_symroutine *r;
	const struct fsym *f;
	uint64_t entry = 0;
	Dwarf_Error e = NULL;
	Dwarf_Bool decl = 1;
	size_t nf;
	int has;

	/* A declaration is passed over.  dwarf_hasattr() reads the DIE
	 * where sub_attrs() has libdwarf make and free every attribute of
	 * it (dwarf_attrlist(), a third of the reader's time on the SQLite
	 * amalgamation): that is done only when one is there, to read its
	 * value, and for the routines kept (sub_info() below). */
	if (dwarf_hasattr(die, DW_AT_declaration, &decl, &e) != DW_DLV_OK) {
		if (e != NULL)
			dwarf_dealloc_error(img->dbg, e);
		decl = 1;
	}
	if (decl) {
		sub_attrs(img, die, &si);
		if (si.declaration)
			return 0;
	}
	if ((has = die_ranges(cu, die, &entry)) <= 0 || img->scratch.n == 0)
		return has;
	/* The origin is read only for routines that are kept. */
	memset(&si, 0, sizeof(si));
	sub_info(img, die, &si);
	if ((r = pme_vec_push(&img->routines)) == NULL)
		return nomem(img);
	r->module = mod;
	r->entry = entry;
	f = syms_at(img, entry, &nf);
	if (f != NULL)
		r->name = f->name;
	else if (si.name != NULL)
		r->name = pme_intern(&img->names, si.name);
	else
		r->name = pme_intern(&img->names, "?");
	if (r->name == NULL)
		return nomem(img);
	r->line = (uint32_t)si.line;
	if ((si.file != 0 || cu->version >= 5) && si.line != 0)
		r->file = decl_file(cu, si.file);
	return scratch_take(img, 0, &r->ranges, &r->nranges);
}

static int walk_children(struct cu *, Dwarf_Die, uint32_t, int);

/* Subprograms at the top of a unit and in namespaces become routines. */
static int
visit_die(struct cu *cu, Dwarf_Die die, uint32_t mod, int depth)
{
	Dwarf_Half tag;
	Dwarf_Error e = NULL;

	if (dwarf_tag(die, &tag, &e) != DW_DLV_OK)
		return dwerr(cu->img, e, "DIE tag");
	if (tag == DW_TAG_subprogram)
		return add_subprogram(cu, die, mod);
	if ((tag == DW_TAG_namespace || tag == DW_TAG_module) && depth < 64)
		return walk_children(cu, die, mod, depth + 1);
	return 0;
}

static int
walk_children(struct cu *cu, Dwarf_Die parent, uint32_t mod, int depth)
{
	struct pme_image *img = cu->img;
	Dwarf_Die die, next;
	Dwarf_Error e = NULL;
	int res;

	res = dwarf_child(parent, &die, &e);
	if (res == DW_DLV_ERROR)
		return dwerr(img, e, "DIE child");
	while (res == DW_DLV_OK) {
		if (visit_die(cu, die, mod, depth) == -1) {
			dwarf_dealloc_die(die);
			return -1;
		}
		res = dwarf_siblingof_b(img->dbg, die, 1, &next, &e);
		dwarf_dealloc_die(die);
		if (res == DW_DLV_ERROR)
			return dwerr(img, e, "DIE sibling");
		die = next;
	}
	return 0;
}

/* The unit's name, comp_dir, version and base address. */
static int
cu_setup(struct cu *cu, Dwarf_Die die)
{
	struct pme_image *img = cu->img;
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	Dwarf_Half off_size;
	Dwarf_Addr lo;
	Dwarf_Off stmt;
	char *s = NULL;

	cu->die = die;
	if (dwarf_get_version_of_die(die, &cu->version, &off_size) !=
	    DW_DLV_OK)
		cu->version = 4;
	if (cu->version >= 5)
		img->flags |= PME_IMAGE_DWARF5;
	cu->compdir = NULL;
	if (dwarf_attr(die, DW_AT_comp_dir, &a, &e) == DW_DLV_OK) {
		if (dwarf_formstring(a, &s, &e) == DW_DLV_OK &&
		    (cu->compdir = pme_intern(&img->names, s)) == NULL)
			return nomem(img);
		dwarf_dealloc_attribute(a);
	}
	if (e != NULL)
		dwarf_dealloc_error(img->dbg, e), e = NULL;
	cu->info.compdir = cu->compdir;
	if (dwarf_attr(die, DW_AT_stmt_list, &a, &e) == DW_DLV_OK) {
		if (dwarf_global_formref(a, &stmt, &e) == DW_DLV_OK) {
			cu->info.stmt = stmt;
			cu->info.has_stmt = 1;
		}
		dwarf_dealloc_attribute(a);
	}
	if (e != NULL)
		dwarf_dealloc_error(img->dbg, e), e = NULL;
	s = NULL;
	if (dwarf_diename(die, &s, &e) != DW_DLV_OK) {
		if (e != NULL)
			dwarf_dealloc_error(img->dbg, e);
		s = "?";
	}
	if ((cu->name = pme_intern(&img->names, relname(cu->compdir, s))) == NULL)
		return nomem(img);
	cu->base = 0;
	if (dwarf_lowpc(die, &lo, &e) == DW_DLV_OK)
		cu->base = lo;
	else if (e != NULL)
		dwarf_dealloc_error(img->dbg, e);
	return 0;
}

static int
read_cu(struct pme_image *img, Dwarf_Die die)
{
	struct cu cu = { 0 };
	struct pme_symmod *m;
	uint64_t entry;
	int rc;

	cu.img = img;
	if (cu_setup(&cu, die) == -1)
		return -1;
	if ((m = add_module(img, cu.name, &cu.info)) == NULL)
		return -1;
	if ((rc = die_ranges(&cu, die, &entry)) == -1)
		return -1;
	if (rc == 1 && scratch_take(img, 1, &m->ranges, &m->nranges) == -1)
		return -1;
	rc = walk_children(&cu, die, (uint32_t)img->mods.n - 1, 0);
	cu_free(&cu);
	if (rc == -1)
		return -1;
	return end_module(img);
}

static int
read_dwarf(struct pme_image *img)
{
	Dwarf_Unsigned hlen, abbrev, typeoff, next = 0;
	Dwarf_Half ver, asz, lsz, esz, utype, tag;
	Dwarf_Sig8 sig;
	Dwarf_Die die;
	Dwarf_Error e = NULL;
	int res, rc;

	set_phase(img, PH_INFO);
	for (;;) {
		if (img->watch != NULL) {
			img->watch->unit = next;
			img->watch->inunit = 1;
		}
		res = dwarf_next_cu_header_d(img->dbg, 1, &hlen, &ver, &abbrev,
		    &asz, &lsz, &esz, &sig, &typeoff, &next, &utype, &e);
		/* .debug_info has bytes (PME_IMAGE_DWARF): no unit in it at
		 * all is a unit header libdwarf did not take. */
		if (res == DW_DLV_NO_ENTRY && img->mods.n == 0 && next == 0)
			return pme_seterr(img->err, PME_EFORMAT, "'%s': corrupt "
			    "DWARF (.debug_info): no compilation unit at offset "
			    "0", img->path);
		if (res == DW_DLV_NO_ENTRY)
			return 0;
		if (res == DW_DLV_ERROR)
			return dwerr(img, e, "compilation unit header");
		if (dwarf_siblingof_b(img->dbg, NULL, 1, &die, &e) != DW_DLV_OK)
			return dwerr(img, e, "compilation unit");
		if (dwarf_tag(die, &tag, &e) != DW_DLV_OK) {
			dwarf_dealloc_die(die);
			return dwerr(img, e, "DIE tag");
		}
		rc = tag == DW_TAG_compile_unit ? read_cu(img, die) : 0;
		dwarf_dealloc_die(die);
		if (rc == -1)
			return -1;
	}
}

/* ------------------------------------------------------------ lines */

/*
 * Line tables are decoded here rather than through libdwarf's
 * dwarf_srclines_b(): libdwarf 20210528 starts the DWARF 5 file register
 * at 0 instead of 1, so rows gcc leaves in the initial file (an inline
 * function of a header emitted first) come out in the wrong file; and it
 * allocates an object per row, which made it slower than readelf.  Below
 * is the line number state machine of DWARF 2 to 5 (section 6.2), reading
 * only what a row needs.
 */

/* A bounded reader in the image's byte order; a short read sets bad. */
struct rd {
	const uint8_t	*p, *end;
	int		 bad, be;
};

static uint64_t
rd_un(struct rd *r, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		r->p = r->end;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)r->p[r->be ? n - 1 - i : i] << (8 * i);
	r->p += n;
	return v;
}

static uint64_t
rd_leb(struct rd *r, int sign)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (r->p >= r->end) {
			r->bad = 1;
			return 0;
		}
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

static const char *
rd_str(struct rd *r)
{
	const char *s = (const char *)r->p;
	const uint8_t *z;

	if (r->bad || (z = memchr(r->p, 0, r->end - r->p)) == NULL) {
		r->bad = 1;
		r->p = r->end;
		return "";
	}
	r->p = z + 1;
	return s;
}

/* The string at off of a string section, or NULL. */
static const char *
sect_str(const struct sect *s, uint64_t off)
{
	if (off >= s->n || memchr(s->p + off, 0, s->n - off) == NULL)
		return NULL;
	return (const char *)s->p + off;
}

/* A line table header: where its program is and its files' names. */
struct lthdr {
	unsigned	 version, offsize, minlen, range, opbase;
	int		 linebase, default_stmt;
	const uint8_t	*oplens;
	struct rd	 prog;
	struct pme_vec	 dirs;		/* const char *, raw */
	struct pme_vec	 files;		/* const char *, resolved, interned */
};

/* dir/name made absolute against compdir, then relative to it if under. */
static const char *
resolve(struct pme_image *img, const char *compdir, const char *dir,
    const char *name)
{
	char buf[4096];
	int n;

	if (*name == '/' || (dir == NULL && compdir == NULL))
		n = snprintf(buf, sizeof(buf), "%s", name);
	else if (dir == NULL || *dir == '\0')
		n = snprintf(buf, sizeof(buf), "%s/%s", compdir, name);
	else if (*dir == '/' || compdir == NULL)
		n = snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	else
		n = snprintf(buf, sizeof(buf), "%s/%s/%s", compdir, dir, name);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return pme_intern(&img->names, name);
	return pme_intern(&img->names, relname(compdir, buf));
}

static int
add_file(struct pme_image *img, struct lthdr *h, const char *compdir,
    const char *name, uint64_t dir)
{
	const char **f, *d = NULL;

	if (dir < h->dirs.n)
		d = PME_VEC_AT(&h->dirs, const char *, dir);
	if ((f = pme_vec_push(&h->files)) == NULL ||
	    (*f = resolve(img, compdir, d, name)) == NULL)
		return nomem(img);
	return 0;
}

/* Reads one value of form; strings into *s, numbers into *u. */
static int
lt_form(struct pme_image *img, struct lthdr *h, struct rd *r, uint64_t form,
    const char **s, uint64_t *u)
{
	switch (form) {
	case DW_FORM_string:
		*s = rd_str(r);
		return 0;
	case DW_FORM_line_strp:
		*s = sect_str(&img->dlinestr, rd_un(r, h->offsize));
		return *s == NULL ? -1 : 0;
	case DW_FORM_strp:
		*s = sect_str(&img->dstr, rd_un(r, h->offsize));
		return *s == NULL ? -1 : 0;
	case DW_FORM_udata:
		*u = rd_leb(r, 0);
		return 0;
	case DW_FORM_data1:
		*u = rd_un(r, 1);
		return 0;
	case DW_FORM_data2:
		*u = rd_un(r, 2);
		return 0;
	case DW_FORM_data4:
		*u = rd_un(r, 4);
		return 0;
	case DW_FORM_data8:
		*u = rd_un(r, 8);
		return 0;
	case DW_FORM_data16:
		rd_un(r, 8), rd_un(r, 8);
		return 0;
	case DW_FORM_block:
		*u = rd_leb(r, 0);
		if (*u > (uint64_t)(r->end - r->p))
			return -1;
		r->p += *u;
		return 0;
	}
	return -1;
}

/* DWARF 5 directory or file entries, described by their format. */
static int
lt_entries(struct pme_image *img, struct lthdr *h, struct rd *r,
    const char *compdir, int files)
{
	uint64_t fmt[16][2], count, i, u, dir;
	unsigned nfmt = (unsigned)rd_un(r, 1), k;
	const char *s, *name, **d;

	if (nfmt > 16)
		return -1;
	for (k = 0; k < nfmt; k++) {
		fmt[k][0] = rd_leb(r, 0);
		fmt[k][1] = rd_leb(r, 0);
	}
	count = rd_leb(r, 0);
	for (i = 0; i < count && !r->bad; i++) {
		name = "?";
		dir = 0;
		for (k = 0; k < nfmt; k++) {
			s = NULL;
			u = 0;
			if (lt_form(img, h, r, fmt[k][1], &s, &u) == -1)
				return -1;
			if (fmt[k][0] == DW_LNCT_path && s != NULL)
				name = s;
			else if (fmt[k][0] == DW_LNCT_directory_index)
				dir = u;
		}
		if (files && add_file(img, h, compdir, name, dir) == -1)
			return -2;
		if (!files && ((d = pme_vec_push(&h->dirs)) == NULL ||
		    (*d = name) == NULL))
			return -2;
	}
	return r->bad ? -1 : 0;
}

/* DWARF 2 to 4: include_directories and file_names. */
static int
lt_entries_v4(struct pme_image *img, struct lthdr *h, struct rd *r,
    const char *compdir)
{
	const char *s, **d;
	uint64_t dir;

	if ((d = pme_vec_push(&h->dirs)) == NULL)
		return -2;
	*d = NULL;			/* directory 0 is comp_dir */
	while (!r->bad && *(s = rd_str(r)) != '\0') {
		if ((d = pme_vec_push(&h->dirs)) == NULL)
			return -2;
		*d = s;
	}
	if (pme_vec_push(&h->files) == NULL)	/* file 0 is not used */
		return -2;
	while (!r->bad && *(s = rd_str(r)) != '\0') {
		dir = rd_leb(r, 0);
		rd_leb(r, 0), rd_leb(r, 0);
		if (add_file(img, h, compdir, s, dir) == -1)
			return -2;
	}
	return r->bad ? -1 : 0;
}

static int
lt_error(struct pme_image *img, uint64_t off, const char *what)
{
	return pme_setfmt(img->err, PME_EFORMAT, img->path, off,
	    ".debug_line: %s", what);
}

/* Parses the header of the line table at off. */
static int
lt_header(struct pme_image *img, uint64_t off, const char *compdir,
    struct lthdr *h)
{
	struct rd r = { NULL, NULL, 0, img->be };
	uint64_t len, hlen;
	const uint8_t *hend;
	int rc;

	/* First: with no .debug_line, p is NULL and takes no offset. */
	if (off >= img->dline.n)
		return lt_error(img, off, "offset out of the section");
	r.p = img->dline.p + off;
	r.end = img->dline.p + img->dline.n;
	h->offsize = 4;
	if ((len = rd_un(&r, 4)) == 0xffffffff) {
		h->offsize = 8;
		len = rd_un(&r, 8);
	}
	if (r.bad || len > (uint64_t)(r.end - r.p))
		return lt_error(img, off, "unit longer than the section");
	r.end = r.p + len;
	h->version = (unsigned)rd_un(&r, 2);
	if (h->version < 2 || h->version > 5)
		return lt_error(img, off, "unknown version");
	if (h->version >= 5)
		rd_un(&r, 2);		/* address and segment selector size */
	hlen = rd_un(&r, h->offsize);
	if (r.bad || hlen > (uint64_t)(r.end - r.p))
		return lt_error(img, off, "header longer than the unit");
	hend = r.p + hlen;
	h->minlen = (unsigned)rd_un(&r, 1);
	if (h->version >= 4)
		rd_un(&r, 1);		/* maximum operations per instruction */
	h->default_stmt = rd_un(&r, 1) != 0;
	h->linebase = (int8_t)rd_un(&r, 1);
	h->range = (unsigned)rd_un(&r, 1);
	h->opbase = (unsigned)rd_un(&r, 1);
	h->oplens = r.p;
	if (r.bad || h->range == 0 || h->opbase == 0 ||
	    h->opbase - 1 > (size_t)(hend - r.p))
		return lt_error(img, off, "bad header");
	r.p += h->opbase - 1;
	if (h->version >= 5) {
		rc = lt_entries(img, h, &r, compdir, 0);
		if (rc == 0)
			rc = lt_entries(img, h, &r, compdir, 1);
	} else
		rc = lt_entries_v4(img, h, &r, compdir);
	if (rc == -2)
		return nomem(img);
	if (rc == -1 || r.p > hend)
		return lt_error(img, off, "bad directory or file table");
	h->prog.p = hend;
	h->prog.end = r.end;
	h->prog.be = img->be;
	h->prog.bad = 0;
	return 0;
}

static void
lt_free(struct lthdr *h)
{
	pme_vec_free(&h->dirs);
	pme_vec_free(&h->files);
}

/*
 * The declaring file of a subprogram: decl_file numbers the files of the
 * unit's line table, whose header is read once per unit when first needed.
 */
static const char *
decl_file(struct cu *cu, uint64_t idx)
{
	struct pme_image *img = cu->img;
	struct pme_error *saved = img->err, quiet;

	if (!cu->lt_tried && cu->info.has_stmt) {
		cu->lt_tried = 1;
		if ((cu->lt = calloc(1, sizeof(*cu->lt))) == NULL)
			return NULL;
		pme_vec_init(&cu->lt->dirs, sizeof(const char *));
		pme_vec_init(&cu->lt->files, sizeof(const char *));
		/* A bad line table is reported when lines are loaded. */
		img->err = &quiet;
		if (lt_header(img, cu->info.stmt, cu->compdir, cu->lt) == -1)
			cu->lt->files.n = 0;
		img->err = saved;
	}
	if (cu->lt == NULL || idx >= cu->lt->files.n)
		return NULL;
	return PME_VEC_AT(&cu->lt->files, const char *, idx);
}

static void
cu_free(struct cu *cu)
{
	if (cu->lt != NULL)
		lt_free(cu->lt);
	free(cu->lt);
	cu->lt = NULL;
	cu->lt_tried = 0;
}

/* Where rows go: runs of one file and line become entries. */
struct sink {
	struct pme_image *img;
	size_t		 first;		/* the module's first entry */
	int		 sorted;
	const char	*primary;	/* the module's own file */
	int		 open;		/* a run is going on */
	uint64_t	 start;
	const char	*file;
	uint32_t	 line;
};

/* Appends [s, e), clipped, joined to the previous entry if it can be. */
static int
emit_line(struct sink *k, uint64_t s, uint64_t e)
{
	struct pme_image *img = k->img;
	struct pme_symline *p;
	struct pme_range r = { s, e };

	if (!clip(img, &r))
		return 0;
	if (img->lines.n > k->first) {
		p = (struct pme_symline *)img->lines.v + img->lines.n - 1;
		if (p->end == r.start && p->line == k->line &&
		    p->file == k->file) {
			p->end = r.end;
			return 0;
		}
		if (r.start < p->start)
			k->sorted = 0;
	}
	if ((p = pme_vec_push(&img->lines)) == NULL)
		return nomem(img);
	p->start = r.start;
	p->end = r.end;
	p->line = k->line;
	p->routine = PME_NONE;
	p->file = k->file;
	p->file_is_primary = k->file == k->primary;
	return 0;
}

/*
 * A row holds from its address to the next row's; consecutive rows of
 * one file and line are one run; an end_sequence row only ends the run
 * before it.  Addresses going backwards inside a sequence end the run
 * without an entry.
 */
static int
row(struct sink *k, uint64_t addr, const char *file, uint64_t line,
    int endseq)
{
	if (!endseq && k->open && file == k->file && line == k->line)
		return 0;
	if (k->open && addr > k->start && emit_line(k, k->start, addr) == -1)
		return -1;
	k->open = !endseq;
	k->start = addr;
	k->file = file;
	k->line = (uint32_t)line;
	return 0;
}

/* The name of file register value f. */
static const char *
lt_file(struct pme_image *img, const struct lthdr *h, uint64_t f)
{
	const char *s;

	if (f < h->files.n && (s = PME_VEC_AT(&h->files, const char *, f)))
		return s;
	return pme_intern(&img->names, "?");
}

/* State of the line number machine. */
struct lstate {
	uint64_t	 addr, file, line;
};

static void
lstate_reset(struct lstate *s)
{
	s->addr = 0;
	s->file = 1;
	s->line = 1;
}

static int
lt_emit(struct sink *k, const struct lthdr *h, const struct lstate *s,
    int endseq)
{
	const char *f = lt_file(k->img, h, s->file);

	if (f == NULL)
		return nomem(k->img);
	return row(k, s->addr, f, s->line, endseq);
}

/* An extended opcode (after the 0): end_sequence, set_address, ... */
static int
lt_extended(struct sink *k, struct lthdr *h, struct rd *r, struct lstate *s)
{
	uint64_t len = rd_leb(r, 0);
	const uint8_t *next;
	unsigned op;

	if (r->bad || len == 0 || len > (uint64_t)(r->end - r->p))
		return 1;
	next = r->p + len;
	op = *r->p++;
	if (op == DW_LNE_end_sequence) {
		if (lt_emit(k, h, s, 1) == -1)
			return -1;
		lstate_reset(s);
	} else if (op == DW_LNE_set_address && len - 1 <= 8)
		s->addr = rd_un(r, (unsigned)(len - 1));
	else if (op == DW_LNE_define_file && h->version <= 4) {
		const char *name = rd_str(r);
		uint64_t dir = rd_leb(r, 0);

		if (!r->bad && add_file(k->img, h, NULL, name, dir) == -1)
			return -1;
	}
	r->p = next;
	return 0;
}

/* A standard opcode other than the special ones; 1 if unknown bytes. */
static int
lt_standard(struct sink *k, struct lthdr *h, struct rd *r, struct lstate *s,
    unsigned op)
{
	unsigned i;

	switch (op) {
	case DW_LNS_copy:
		return lt_emit(k, h, s, 0);
	case DW_LNS_advance_pc:
		s->addr += rd_leb(r, 0) * h->minlen;
		return 0;
	case DW_LNS_advance_line:
		s->line += rd_leb(r, 1);
		return 0;
	case DW_LNS_set_file:
		s->file = rd_leb(r, 0);
		return 0;
	case DW_LNS_const_add_pc:
		s->addr += (255 - h->opbase) / h->range * h->minlen;
		return 0;
	case DW_LNS_fixed_advance_pc:
		s->addr += rd_un(r, 2);
		return 0;
	}
	for (i = 0; i < h->oplens[op - 1]; i++)	/* operands skipped */
		rd_leb(r, 0);
	return 0;
}

/* Runs the line program of h into k. */
static int
lt_run(struct sink *k, struct lthdr *h, uint64_t off)
{
	struct rd *r = &h->prog;
	struct lstate s;
	uint64_t daddr[256], dline[256];
	unsigned op, adj;
	int rc = 0;

	/* Each special opcode's advances, worked out once: a division per
	 * row was the loop's dearest instruction. */
	for (op = h->opbase; op < 256; op++) {
		adj = op - h->opbase;
		daddr[op] = adj / h->range * h->minlen;
		dline[op] = (uint64_t)(int64_t)(h->linebase +
		    (int)(adj % h->range));
	}
	lstate_reset(&s);
	while (r->p < r->end && rc == 0 && !r->bad) {
		op = *r->p++;
		if (op >= h->opbase) {
			s.addr += daddr[op];
			s.line += dline[op];
			rc = lt_emit(k, h, &s, 0);
		} else if (op == 0)
			rc = lt_extended(k, h, r, &s);
		else
			rc = lt_standard(k, h, r, &s, op);
	}
	if (rc == 1 || r->bad)
		return lt_error(k->img, off + (uint64_t)(r->p - k->img->dline.p -
		    off), "line program runs past its unit");
	return rc;
}

static int
cmp_line(const void *a, const void *b)
{
	const struct pme_symline *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static int
cmp_rrange(const void *a, const void *b)
{
	const struct rrange *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static void
line_key(const void *e, uint64_t *k)
{
	k[0] = ((const struct pme_symline *)e)->start;
}

/* Runs of ascending starts that merge_runs() takes: more, and the
 * radix sort is cheaper. */
#define MAX_RUNS	32

/*
 * The runs of ascending starts of v[0..n): run[0..nr) their firsts,
 * run[nr] n; 0, or -1 when there are more than MAX_RUNS.  *longest is the
 * length of the longest.
 */
static int
find_runs(const struct pme_symline *v, size_t n, size_t *run, size_t *nr,
    size_t *longest)
{
	size_t i;

	*nr = 0;
	run[(*nr)++] = 0;
	*longest = 0;
	for (i = 1; i < n; i++)
		if (v[i].start < v[i - 1].start) {
			if (*nr == MAX_RUNS)
				return -1;
			if (i - run[*nr - 1] > *longest)
				*longest = i - run[*nr - 1];
			run[(*nr)++] = i;
		}
	if (n - run[*nr - 1] > *longest)
		*longest = n - run[*nr - 1];
	run[*nr] = n;
	return 0;
}

/*
 * Merges the adjacent sorted runs v[lo..mid) and v[mid..hi) in place,
 * stably, through tmp, which has room for the shorter: copied out, it is
 * merged back from the end of v when it is the second, from the start
 * when it is the first.
 */
static void
merge_two(struct pme_symline *v, size_t lo, size_t mid, size_t hi,
    struct pme_symline *tmp)
{
	size_t i, j, o, nt;

	if (hi - mid <= mid - lo) {
		nt = hi - mid;
		memcpy(tmp, v + mid, nt * sizeof(*v));
		for (i = mid, j = nt, o = hi; j > 0; )
			v[--o] = i > lo && v[i - 1].start > tmp[j - 1].start ?
			    v[--i] : tmp[--j];
	} else {
		nt = mid - lo;
		memcpy(tmp, v + lo, nt * sizeof(*v));
		for (i = 0, j = mid, o = lo; i < nt; )
			v[o++] = j < hi && v[j].start < tmp[i].start ? v[j++] :
			    tmp[i++];
	}
}

/*
 * Sorts the module's new lines and trims overlaps: the first one wins.
 * The sort is stable.  A few runs of ascending starts (a line table's
 * sequences: the SQLite amalgamation's 82,611 lines are two, .text and
 * .text.startup) are merged pairwise in place, through room for all but
 * the longest run; more take a radix sort on the start (a few passes,
 * where qsort made n log n calls: a big unit has hundreds of thousands of
 * rows); without memory for either, glibc's merge sort.
 */
static size_t
sort_lines(struct pme_symline *v, size_t n, int sorted)
{
	struct pme_symline *tmp = NULL, *s = NULL;
	size_t run[MAX_RUNS + 1], nr, longest, r, i, k;

	if (!sorted && n > 1 && find_runs(v, n, run, &nr, &longest) == 0) {
		/* The shorter of two merged runs never holds the longest. */
		if ((tmp = malloc((n - longest + 1) * sizeof(*v))) != NULL) {
			for (; nr > 1; nr = (nr + 1) / 2, run[nr] = n)
				for (r = 0; r < nr; r += 2) {
					if (r + 1 < nr)
						merge_two(v, run[r], run[r + 1],
						    run[r + 2], tmp);
					run[r / 2] = run[r];
				}
			s = v;
		}
	} else if (!sorted && n > 1 && (tmp = malloc(n * sizeof(*v))) != NULL &&
	    (s = pme_radix_sort(v, tmp, n, sizeof(*v), 1, line_key)) != NULL &&
	    s != v)
		memcpy(v, s, n * sizeof(*v));
	if (!sorted && n > 1 && s == NULL)
		qsort(v, n, sizeof(*v), cmp_line);
	free(tmp);
	for (i = 1, k = n ? 1 : 0; i < n; i++) {
		if (v[i].end <= v[k - 1].end)
			continue;
		if (v[i].start < v[k - 1].end)
			v[i].start = v[k - 1].end;
		v[k++] = v[i];
	}
	return k;
}

/* Gives each line the routine whose range holds its start. */
static int
line_routines(struct pme_image *img, const struct pme_symmod *m,
    struct pme_symline *v, size_t n)
{
	const struct pme_symroutine *r;
	struct rrange *rr;
	size_t i, j, nr = 0;

	if (m->nroutines == 0 || n == 0)
		return 0;	/* and routines.v may be NULL: no offset to it */
	r = (const struct pme_symroutine *)img->routines.v + m->first_routine;
	for (i = 0; i < m->nroutines; i++)
		nr += r[i].nranges;
	if (nr == 0)
		return 0;
	if ((rr = malloc(nr * sizeof(*rr))) == NULL)
		return nomem(img);
	for (i = 0, nr = 0; i < m->nroutines; i++)
		for (j = 0; j < r[i].nranges; j++, nr++) {
			rr[nr].start = r[i].ranges[j].start;
			rr[nr].end = r[i].ranges[j].end;
			rr[nr].routine = m->first_routine + (uint32_t)i;
		}
	qsort(rr, nr, sizeof(*rr), cmp_rrange);
	for (i = 0, j = 0; i < n; i++) {
		while (j + 1 < nr && rr[j + 1].start <= v[i].start)
			j++;
		if (rr[j].start <= v[i].start && v[i].start < rr[j].end)
			v[i].routine = rr[j].routine;
	}
	free(rr);
	return 0;
}

static int
module_lines(struct pme_image *img, uint32_t mi)
{
	struct pme_symmod *m = &PME_VEC_AT(&img->mods, struct pme_symmod, mi);
	const struct modinfo *info = &PME_VEC_AT(&img->info, struct modinfo,
	    mi);
	struct lthdr h;
	struct sink k = { 0 };
	struct pme_symline *v;
	size_t first = img->lines.n, n;
	int rc;

	if (m->lines_loaded)
		return 0;
	m->first_line = (uint32_t)first;
	m->nlines = 0;
	if (!info->has_stmt) {
		m->lines_loaded = 1;
		return 0;
	}
	memset(&h, 0, sizeof(h));
	pme_vec_init(&h.dirs, sizeof(const char *));
	pme_vec_init(&h.files, sizeof(const char *));
	k.img = img;
	k.first = first;
	k.sorted = 1;
	k.primary = m->name;
	rc = lt_header(img, info->stmt, info->compdir, &h);
	if (rc == 0)
		rc = lt_run(&k, &h, info->stmt);
	lt_free(&h);
	v = img->lines.n > first ? (struct pme_symline *)img->lines.v + first :
	    NULL;
	n = v != NULL ? sort_lines(v, img->lines.n - first, k.sorted) : 0;
	img->lines.n = first + n;
	if (rc == 0 && n > UINT32_MAX - first)
		rc = pme_seterr(img->err, PME_ELIMIT, "'%s': too many lines",
		    img->path);
	if (rc == 0)
		rc = line_routines(img, m, v, n);
	if (rc == -1) {
		img->lines.n = first;
		return -1;
	}
	m->nlines = (uint32_t)n;
	m->lines_loaded = 1;
	return 0;
}

int
pme_image_load_lines(struct pme_image *img, uint32_t module,
    struct pme_error *err)
{
	size_t i;
	int rc = 0;

	img->err = err;
	if (module != PME_NONE && module >= img->mods.n)
		rc = pme_seterr(err, PME_EINVAL, "'%s': no module %u",
		    img->path, module);
	else if (module != PME_NONE)
		rc = module_lines(img, module);
	for (i = 0; module == PME_NONE && i < img->mods.n && rc == 0; i++)
		rc = module_lines(img, (uint32_t)i);
	img->err = NULL;
	return rc;
}

/* ----------------------------------------------------------- demangling */

/*
 * The name nm -C and perf give a mangled C++ or Rust symbol
 * ("ns::f(int)", "core::fmt::write"), interned; name itself when it is
 * not mangled or pme was built without libiberty.  libiberty's
 * cplus_demangle() is the demangler of binutils and gdb: it reads the
 * Itanium C++ ABI and both Rust manglings (legacy and v0) in C, where
 * libstdc++'s __cxa_demangle() reads C++ only and needs the C++ runtime.
 */
static const char *
demangled(struct pme_image *img, const char *name)
{
#ifdef PME_HAVE_DEMANGLE
	const char *in;
	char *d;

	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return name;
	if ((d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI)) == NULL)
		return name;
	in = pme_intern(&img->names, d);
	free(d);
	return in;
#else
	(void)img;
	return name;
#endif
}

/*
 * Names routine r by its demangled name: the raw symbol becomes its
 * first alias, then its other aliases, raw and demangled, each once.
 */
static int
demangle_routine(struct pme_image *img, struct pme_symroutine *r)
{
	const char *name = demangled(img, r->name), *d, **v;
	uint32_t i, k = 0, max;

	if (name == NULL)
		return nomem(img);
	r->raw = r->name;
	if (name == r->name)
		return 0;
	max = 1 + 2 * r->naliases;
	if (max > PME_MAXALIASES)
		max = PME_MAXALIASES;
	if ((v = pme_arena_alloc(&img->arena, max * sizeof(*v))) == NULL)
		return nomem(img);
	v[k++] = r->name;
	for (i = 0; i < r->naliases && k < max; i++) {
		if ((d = demangled(img, r->aliases[i])) == NULL)
			return nomem(img);
		if (!has_name(r, v, k, r->aliases[i]))
			v[k++] = r->aliases[i];
		if (k < max && strcmp(d, name) != 0 && !has_name(r, v, k, d))
			v[k++] = d;
	}
	r->name = name;
	r->aliases = v;
	r->naliases = k;
	return 0;
}

static int
demangle_routines(struct pme_image *img)
{
	size_t i;

	for (i = 0; i < img->routines.n; i++)
		if (demangle_routine(img, &PME_VEC_AT(&img->routines,
		    struct pme_symroutine, i)) == -1)
			return -1;
	return 0;
}

/* ------------------------------------------------------------ accessors */

const char *
pme_image_debugfile(const struct pme_image *img)
{
	return img->debugfile;
}

unsigned
pme_image_flags(const struct pme_image *img)
{
	return img->flags;
}

const char *
pme_image_path(const struct pme_image *img)
{
	return img->path;
}

const uint8_t *
pme_image_buildid(const struct pme_image *img, uint32_t *len)
{
	if (len != NULL)
		*len = img->buildid_len;
	return img->buildid;
}

const char *
pme_image_note(const struct pme_image *img)
{
	return img->note;
}

struct pme_range
pme_image_section(const struct pme_image *img)
{
	return img->sec;
}

size_t
pme_image_modules(const struct pme_image *img, const struct pme_symmod **out)
{
	*out = img->mods.v;
	return img->mods.n;
}

size_t
pme_image_routines(const struct pme_image *img,
    const struct pme_symroutine **out)
{
	*out = img->routines.v;
	return img->routines.n;
}

size_t
pme_image_lines(const struct pme_image *img, const struct pme_symline **out)
{
	*out = img->lines.v;
	return img->lines.n;
}

/* ------------------------------------------------------------ open/close */

/*
 * A file cut short: libelf maps what is there and simply finds fewer
 * sections, so the headers and every section's bytes are checked against
 * the file's size, for a message that says what happened.
 */
static int
check_size(struct pme_image *img)
{
	struct stat st;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	size_t shnum;

	if (fstat(img->fd, &st) == -1)
		return pme_setsys(img->err, img->path, "stat");
	if (gelf_getehdr(img->elf, &eh) == NULL)
		return pme_seterr(img->err, PME_ETRUNC,
		    "'%s': truncated or corrupt ELF header", img->path);
	/* libelf gives no count for headers it cannot read: use the
	 * header's own (at least one: extended numbering keeps it there). */
	shnum = eh.e_shnum;
	if (shnum == 0 && eh.e_shoff != 0)
		shnum = 1;
	if (eh.e_shoff > (uint64_t)st.st_size || shnum * eh.e_shentsize >
	    (uint64_t)st.st_size - eh.e_shoff)
		return pme_seterr(img->err, PME_ETRUNC, "'%s': truncated: "
		    "section headers beyond the end of the file", img->path);
	while ((scn = elf_nextscn(img->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			return elferr(img, "section header");
		if (sh.sh_type != SHT_NOBITS && (sh.sh_offset >
		    (uint64_t)st.st_size || sh.sh_size >
		    (uint64_t)st.st_size - sh.sh_offset))
			return pme_seterr(img->err, PME_ETRUNC, "'%s': "
			    "truncated: section %zu ends beyond the end of the "
			    "file", img->path, elf_ndxscn(scn));
	}
	return 0;
}

/*
 * Why img is not read: a script (a pyenv shim, a wrapper) says which
 * interpreter it runs, so that the user can name the program instead.
 */
static int
not_elf(struct pme_image *img)
{
	char line[128], esc[4 * sizeof(line)];
	ssize_t n = pread(img->fd, line, sizeof(line) - 1, 0);

	if (n > 2 && line[0] == '#' && line[1] == '!') {
		line[n] = '\0';
		line[2 + strcspn(line + 2, "\n")] = '\0';
		pme_escape(esc, sizeof(esc), line + 2);
		return pme_seterr(img->err, PME_EFORMAT, "'%s': a script "
		    "(#!%s), not an ELF file: give the program it runs",
		    img->path, esc);
	}
	return pme_seterr(img->err, PME_EFORMAT, "'%s': not an ELF file",
	    img->path);
}

static int
open_elf(struct pme_image *img, const char *section)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return elferr(img, "libelf");
	/* A FIFO is refused; the message of a failed open is kept. */
	if ((img->fd = pme_open_read(img->path, img->err)) == -1 &&
	    img->err != NULL && (errno = img->err->sys_errno) != 0)
		pme_setsys(img->err, img->path, "open");
	if (img->fd == -1)
		return -1;
	if ((img->elf = elf_begin(img->fd, ELF_C_READ_MMAP, NULL)) == NULL)
		return elferr(img, "cannot read");
	if (elf_kind(img->elf) != ELF_K_ELF)
		return not_elf(img);
	if (check_size(img) == -1 || read_kind(img) == -1 ||
	    find_section(img, section) == -1)
		return -1;
	return 0;
}

/*
 * The bytes of a debug section the line decoder reads itself; compressed
 * sections (SHF_COMPRESSED) are inflated in libelf's copy first, which
 * libdwarf then reads as well.
 */
static int
debug_sect(struct pme_image *img, Elf_Scn *scn, const GElf_Shdr *sh,
    struct sect *out)
{
	Elf_Data *d;

	if (sh->sh_type == SHT_NOBITS)
		return 0;
	if ((sh->sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return elferr(img, "compressed debug section");
	if ((d = elf_getdata(scn, NULL)) == NULL)
		return elferr(img, "debug section");
	out->p = d->d_buf;
	out->n = d->d_buf != NULL ? d->d_size : 0;
	return 0;
}

static int
debug_sects(struct pme_image *img)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	size_t shstrndx;
	const char *s;
	struct sect *out;

	if (gelf_getehdr(img->elf, &eh) == NULL ||
	    elf_getshdrstrndx(img->elf, &shstrndx) != 0)
		return elferr(img, "ELF header");
	img->be = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	while ((scn = elf_nextscn(img->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL ||
		    (s = elf_strptr(img->elf, shstrndx, sh.sh_name)) == NULL)
			return elferr(img, "section header");
		if (strcmp(s, ".debug_line") == 0)
			out = &img->dline;
		else if (strcmp(s, ".debug_line_str") == 0)
			out = &img->dlinestr;
		else if (strcmp(s, ".debug_str") == 0)
			out = &img->dstr;
		else
			continue;
		if (debug_sect(img, scn, &sh, out) == -1)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ debug file */

/* The file name and CRC-32 that .gnu_debuglink records, or NULL. */
static const char *
debuglink(struct pme_image *img, uint32_t *crc)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	Elf_Data *d;
	size_t shstrndx, len;
	const char *s, *p;
	const uint8_t *c;

	if (gelf_getehdr(img->elf, &eh) == NULL ||
	    elf_getshdrstrndx(img->elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(img->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_PROGBITS ||
		    (s = elf_strptr(img->elf, shstrndx, sh.sh_name)) == NULL ||
		    strcmp(s, ".gnu_debuglink") != 0 ||
		    (d = elf_getdata(scn, NULL)) == NULL || d->d_buf == NULL)
			continue;
		p = d->d_buf;
		len = strnlen(p, d->d_size);
		if (len == 0 || ((len + 4) & ~(size_t)3) + 4 > d->d_size)
			return NULL;
		c = (const uint8_t *)p + ((len + 4) & ~(size_t)3);
		*crc = eh.e_ident[EI_DATA] == ELFDATA2MSB ?
		    (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 |
		    (uint32_t)c[2] << 8 | c[3] :
		    (uint32_t)c[3] << 24 | (uint32_t)c[2] << 16 |
		    (uint32_t)c[1] << 8 | c[0];
		return p;
	}
	return NULL;
}

/* Back to reading the image itself, the debug file closed. */
static void
drop_debugfile(struct pme_image *img, unsigned flags, struct pme_range sec)
{
	elf_end(img->elf);
	close(img->fd);
	img->elf = img->main_elf;
	img->fd = img->main_fd;
	img->main_elf = NULL;
	img->main_fd = -1;
	img->flags = flags;
	img->sec = sec;
}

/*
 * An image without DWARF is read from its debug file (debugfile.h) when
 * that has DWARF, or a symbol table the image lacks: its sections have
 * the image's addresses (the code's own are SHT_NOBITS there).  The
 * image's kind and build-id stay the image's.  A debug file that is cut
 * short or lacks the section is an error naming it.
 */
static int
use_debugfile(struct pme_image *img, const char *section)
{
	unsigned flags = img->flags, kind;
	struct pme_range sec = img->sec;
	const char *link;
	char *found, *path;
	uint32_t crc = 0;
	int fd, rc;

	link = debuglink(img, &crc);
	if ((fd = pme_debugfile_open(img->path, img->buildid,
	    img->buildid_len, link, crc, &found)) == -1)
		return 0;
	img->main_elf = img->elf;
	img->main_fd = img->fd;
	img->fd = fd;
	if ((img->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL) {
		img->elf = img->main_elf;
		img->fd = img->main_fd;
		img->main_elf = NULL;
		img->main_fd = -1;
		close(fd);
		free(found);
		return 0;
	}
	kind = flags & ~(unsigned)(PME_IMAGE_DWARF | PME_IMAGE_SYMTAB);
	img->flags = kind;
	path = img->path;
	img->path = found;
	rc = check_size(img) == -1 || find_section(img, section) == -1 ? -1 : 0;
	img->path = path;
	if (rc == -1) {
		drop_debugfile(img, flags, sec);
		free(found);
		return -1;
	}
	if (!(img->flags & PME_IMAGE_DWARF) && (!(img->flags &
	    PME_IMAGE_SYMTAB) || (flags & PME_IMAGE_SYMTAB))) {
		drop_debugfile(img, flags, sec);
		free(found);
		return 0;
	}
	img->flags |= PME_IMAGE_DEBUGFILE;
	img->debugfile = found;
	return 0;
}

/* ------------------------------------------------------------ containment */

/*
 * Debian's libdwarf 20210528 has many memory faults on corrupt input
 * (fuzzers found hundreds; a double free on a bad .debug_rnglists header
 * is one): checking what it will trust could only catch the faults known
 * today.  So every call into libdwarf, the walk over the DIEs, is made in
 * a child process, which hands the modules and routines it found back
 * through a pipe.  A child that dies, or ends without its results, is
 * corrupt DWARF, reported with the section and unit it was reading (in a
 * shared page); the caller's process is never hurt.  The line tables are
 * decoded by our own bounded reader, in the caller's process.
 *
 * The results are records of little-endian fields (pme_buf); strings are
 * a u32 length, then the bytes and a NUL:
 *	'M' name, compdir ("" for none), has_stmt u8, stmt u64,
 *	    nranges u32, ranges (start u64, end u64)..., nroutines u32
 *	'R' name, entry u64, file ("" for none), line u32, nranges u32,
 *	    ranges..., naliases u32, aliases...		(nroutines of them)
 *	'E' flags u32: the end
 *	'X' code u32, message: an error, the end
 */

static void
put_str(struct pme_buf *b, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	pme_buf_u32(b, (uint32_t)n + 1);
	pme_buf_bytes(b, n > 0 ? s : "", n + 1);
}

static void
put_ranges(struct pme_buf *b, const struct pme_range *r, uint32_t n)
{
	uint32_t i;

	pme_buf_u32(b, n);
	for (i = 0; i < n; i++) {
		pme_buf_u64(b, r[i].start);
		pme_buf_u64(b, r[i].end);
	}
}

static void
put_routine(struct pme_buf *b, const struct pme_symroutine *r)
{
	uint32_t i;

	pme_buf_u8(b, 'R');
	put_str(b, r->name);
	pme_buf_u64(b, r->entry);
	put_str(b, r->file);
	pme_buf_u32(b, r->line);
	put_ranges(b, r->ranges, r->nranges);
	pme_buf_u32(b, r->naliases);
	for (i = 0; i < r->naliases; i++)
		put_str(b, r->aliases[i]);
}

/* The child's results, or its error, into b. */
static void
put_results(struct pme_image *img, int rc, const struct pme_error *err,
    struct pme_buf *b)
{
	const struct pme_symmod *m = img->mods.v;
	const struct modinfo *info = img->info.v;
	const struct pme_symroutine *r = img->routines.v;
	size_t i;
	uint32_t j;

	if (rc == -1) {
		pme_buf_u8(b, 'X');
		pme_buf_u32(b, (uint32_t)err->code);
		put_str(b, err->msg);
		return;
	}
	for (i = 0; i < img->mods.n; i++) {
		pme_buf_u8(b, 'M');
		put_str(b, m[i].name);
		put_str(b, info[i].compdir);
		pme_buf_u8(b, (uint8_t)info[i].has_stmt);
		pme_buf_u64(b, info[i].stmt);
		put_ranges(b, m[i].ranges, m[i].nranges);
		pme_buf_u32(b, m[i].nroutines);
		for (j = 0; j < m[i].nroutines; j++)
			put_routine(b, &r[m[i].first_routine + j]);
	}
	pme_buf_u8(b, 'E');
	pme_buf_u32(b, img->flags);
}

/*
 * libdwarf loads .debug_rnglists and .debug_loclists whole when it first
 * reads .debug_info, where a fault in them could not be told from one in
 * .debug_info.  Loading each first through a Dwarf_Debug of its own (a
 * second load through one leaks the first) names the section.
 */
static int
probe_list(struct pme_image *img, enum phase ph)
{
	Dwarf_Debug d;
	Dwarf_Error e = NULL;
	Dwarf_Unsigned n;
	int res;

	if (dwarf_elf_init_b(img->elf, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL,
	    NULL, &d, &e) != DW_DLV_OK)
		return 0;		/* the reader's own init says why */
	set_phase(img, ph);
	if (ph == PH_RNGLISTS)
		res = dwarf_load_rnglists(d, &n, &e);
	else
		res = dwarf_load_loclists(d, &n, &e);
	if (res == DW_DLV_ERROR) {
		pme_seterr(img->err, PME_EFORMAT, "'%s': corrupt DWARF (%s): "
		    "%s", img->path, phase_sect[ph], dwarf_errmsg(e));
		dwarf_dealloc_error(d, e);
	}
	dwarf_finish(d, &e);
	set_phase(img, PH_NONE);
	return res == DW_DLV_ERROR ? -1 : 0;
}

/* The DWARF reader proper, in the child. */
static int
read_dwarf_child(struct pme_image *img)
{
	Dwarf_Error e = NULL;
	int res;

	res = dwarf_elf_init_b(img->elf, DW_DLC_READ, DW_GROUPNUMBER_ANY,
	    NULL, NULL, &img->dbg, &e);
	if (res == DW_DLV_NO_ENTRY) {
		img->dbg = NULL;
		img->flags &= ~PME_IMAGE_DWARF;
		return 0;
	}
	if (res != DW_DLV_OK) {
		img->dbg = NULL;
		return dwerr(img, e, "DWARF");
	}
	if (probe_list(img, PH_RNGLISTS) == -1 ||
	    probe_list(img, PH_LOCLISTS) == -1)
		return -1;
	return read_dwarf(img);
}

static int
write_all(int fd, const uint8_t *p, size_t n)
{
	ssize_t k;

	while (n > 0) {
		if ((k = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/*
 * The child: no core file, no messages (libdwarf's or the C library's
 * on a fault), default actions for the faults whatever the caller set;
 * it ends with _exit(), so that nothing of the caller's (stdio buffers,
 * atexit handlers) runs twice.
 */
static void
child(struct pme_image *img, int fd, struct watch *w)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE,
	    SIGABRT };
	struct rlimit nocore = { 0, 0 };
	struct pme_error err;
	Dwarf_Error e = NULL;
	struct pme_buf b = { 0 };
	size_t i;
	int null, rc;

	setrlimit(RLIMIT_CORE, &nocore);
	for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		signal(faults[i], SIG_DFL);
	if ((null = open("/dev/null", O_RDWR)) != -1) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	memset(&err, 0, sizeof(err));
	img->err = &err;
	img->watch = w;
	rc = read_dwarf_child(img);
	set_phase(img, PH_NONE);
	w->inunit = 0;
	put_results(img, rc, &err, &b);
	rc = b.failed || write_all(fd, b.p, b.n) == -1;
	/* The results are on their way: libdwarf is freed while the caller
	 * reads them, so that memory checkers see no leak here. */
	close(fd);
	if (img->dbg != NULL)
		dwarf_finish(img->dbg, &e);
	_exit(rc);
}

/* Everything the child wrote, until it closes the pipe. */
static int
read_all(struct pme_image *img, int fd, struct pme_buf *b)
{
	uint8_t chunk[65536];
	ssize_t k;

	for (;;) {
		if ((k = read(fd, chunk, sizeof(chunk))) == 0)
			return 0;
		if (k == -1 && errno == EINTR)
			continue;
		if (k == -1)
			return pme_setsys(img->err, img->path,
			    "reading the DWARF reader's results");
		pme_buf_bytes(b, chunk, (size_t)k);
		if (b->failed)
			return nomem(img);
	}
}

/* A cursor over the results; oom when memory ran out reading them. */
struct rescur {
	struct pme_cur	 c;
	int		 oom;
};

/* A string of the results, interned; NULL (and bad) when malformed. */
static const char *
get_str(struct pme_image *img, struct rescur *rc)
{
	uint32_t n = pme_cur_u32(&rc->c);
	const uint8_t *p = pme_cur_bytes(&rc->c, n);
	const char *s;

	if (p == NULL || n == 0 || memchr(p, '\0', n) != p + n - 1) {
		rc->c.bad = 1;
		return NULL;
	}
	if ((s = pme_intern(&img->names, (const char *)p)) == NULL)
		rc->oom = rc->c.bad = 1;
	return s;
}

static void
get_ranges(struct pme_image *img, struct rescur *rc,
    const struct pme_range **out, uint32_t *n)
{
	struct pme_range *r;
	uint32_t i, k = pme_cur_u32(&rc->c);

	img->scratch.n = 0;
	if (!pme_cur_fits(&rc->c, k, 16)) {
		rc->c.bad = 1;
		return;
	}
	for (i = 0; i < k; i++) {
		if ((r = pme_vec_push(&img->scratch)) == NULL) {
			rc->oom = rc->c.bad = 1;
			return;
		}
		r->start = pme_cur_u64(&rc->c);
		r->end = pme_cur_u64(&rc->c);
	}
	if (scratch_take(img, 0, out, n) == -1)
		rc->oom = rc->c.bad = 1;
}

static void
get_routine(struct pme_image *img, struct rescur *rc, uint32_t mod)
{
	struct pme_symroutine *r;
	const char **v = NULL;
	const char *file;
	uint32_t i, n;

	if (pme_cur_u8(&rc->c) != 'R') {
		rc->c.bad = 1;
		return;
	}
	if ((r = pme_vec_push(&img->routines)) == NULL) {
		rc->oom = rc->c.bad = 1;
		return;
	}
	r->module = mod;
	r->name = get_str(img, rc);
	r->entry = pme_cur_u64(&rc->c);
	file = get_str(img, rc);
	r->file = file != NULL && *file != '\0' ? file : NULL;
	r->line = pme_cur_u32(&rc->c);
	get_ranges(img, rc, &r->ranges, &r->nranges);
	n = pme_cur_u32(&rc->c);
	if (rc->c.bad || n > PME_MAXALIASES) {
		rc->c.bad = 1;
		return;
	}
	if (n > 0 && (v = pme_arena_alloc(&img->arena, n * sizeof(*v))) ==
	    NULL) {
		rc->oom = rc->c.bad = 1;
		return;
	}
	for (i = 0; i < n; i++)
		v[i] = get_str(img, rc);
	r->aliases = v;
	r->naliases = n;
}

static void
get_module(struct pme_image *img, struct rescur *rc)
{
	struct modinfo info;
	struct pme_symmod *m;
	const char *name;
	uint32_t i, n, mi = (uint32_t)img->mods.n;

	memset(&info, 0, sizeof(info));
	name = get_str(img, rc);
	info.compdir = get_str(img, rc);
	if (info.compdir != NULL && *info.compdir == '\0')
		info.compdir = NULL;
	info.has_stmt = pme_cur_u8(&rc->c);
	info.stmt = pme_cur_u64(&rc->c);
	if (rc->c.bad)
		return;
	if ((m = add_module(img, name, &info)) == NULL) {
		rc->oom = rc->c.bad = 1;
		return;
	}
	get_ranges(img, rc, &m->ranges, &m->nranges);
	n = pme_cur_u32(&rc->c);
	if (!pme_cur_fits(&rc->c, n, 30)) {
		rc->c.bad = 1;
		return;
	}
	for (i = 0; i < n && !rc->c.bad; i++)
		get_routine(img, rc, mi);
	PME_VEC_AT(&img->mods, struct pme_symmod, mi).nroutines = n;
}

/* The child's results into img: 1 when they are whole, 0 when not, -1
 * for the child's error or no memory. */
static int
get_results(struct pme_image *img, const struct pme_buf *b)
{
	struct rescur rc = { { b->p, b->n, 0 }, 0 };
	const char *msg;
	uint32_t code;

	while (!rc.c.bad && rc.c.n > 0) {
		switch (pme_cur_u8(&rc.c)) {
		case 'M':
			get_module(img, &rc);
			break;
		case 'E':
			img->flags = pme_cur_u32(&rc.c);
			return rc.c.bad || rc.c.n > 0 ? 0 : 1;
		case 'X':
			code = pme_cur_u32(&rc.c);
			if ((msg = get_str(img, &rc)) == NULL)
				break;
			pme_seterr(img->err, (enum pme_errcode)code, "%s", msg);
			return -1;
		default:
			rc.c.bad = 1;
			break;
		}
	}
	return rc.oom ? nomem(img) : 0;
}

static const char *
signame(int sig, char *buf, size_t len)
{
	static const struct { int sig; const char *name; } names[] = {
		{ SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" },
		{ SIGILL, "SIGILL" }, { SIGFPE, "SIGFPE" },
		{ SIGABRT, "SIGABRT" }, { SIGKILL, "SIGKILL" },
		{ SIGPIPE, "SIGPIPE" }, { SIGTERM, "SIGTERM" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].sig == sig)
			return names[i].name;
	snprintf(buf, len, "signal %d", sig);
	return buf;
}

/* The error for a child that did not hand back whole results. */
static int
died(struct pme_image *img, const struct watch *w, int status, int waited)
{
	char sect[64], unit[64], how[64], sig[32];

	if (waited && WIFSIGNALED(status))
		snprintf(how, sizeof(how), "died of %s",
		    signame(WTERMSIG(status), sig, sizeof(sig)));
	else if (waited && WIFEXITED(status) && WEXITSTATUS(status) != 0)
		snprintf(how, sizeof(how), "exited with status %d",
		    WEXITSTATUS(status));
	else
		snprintf(how, sizeof(how), "ended without its results");
	return pme_seterr(img->err, PME_EFORMAT, "'%s': corrupt DWARF%s: "
	    "the DWARF reader %s%s", img->path, phase_tag(w, sect,
	    sizeof(sect)), how, unit_tag(w, unit, sizeof(unit)));
}

/*
 * Runs the DWARF reader in a child and takes its results.  Its exit
 * status is only known when the caller leaves SIGCHLD alone; whole
 * results are then trusted only with status 0 (valgrind or a sanitizer
 * in the child exits non-zero after a memory error it survived).
 */
static int
open_dwarf(struct pme_image *img)
{
	struct watch *w;
	struct pme_buf b = { 0 };
	pid_t pid;
	int fds[2], status = 0, waited, rc;

	if (debug_sects(img) == -1)
		return -1;
	w = mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (w == MAP_FAILED)
		return pme_setsys(img->err, img->path, "mmap");
	if (pipe2(fds, O_CLOEXEC) == -1) {
		munmap(w, sizeof(*w));
		return pme_setsys(img->err, img->path, "pipe");
	}
	if ((pid = fork()) == -1) {
		rc = pme_setsys(img->err, img->path, "fork");
		close(fds[0]);
		close(fds[1]);
		munmap(w, sizeof(*w));
		return rc;
	}
	if (pid == 0) {
		close(fds[0]);
		child(img, fds[1], w);
	}
	close(fds[1]);
	rc = read_all(img, fds[0], &b);
	close(fds[0]);
	if (rc == -1)
		kill(pid, SIGKILL);
	while ((waited = waitpid(pid, &status, 0)) == -1 && errno == EINTR)
		continue;
	waited = waited == pid;
	if (rc == 0 && (rc = get_results(img, &b)) == 1 && waited &&
	    !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		rc = 0;
	if (rc == 0)
		rc = died(img, w, status, waited);
	else if (rc == 1)
		rc = 0;
	pme_buf_free(&b);
	munmap(w, sizeof(*w));
	return rc;
}

/*
 * Symbols, then modules: from DWARF when it is there and libdwarf takes
 * it, else from the symbol table (.symtab, or .dynsym when stripped).
 */
static int
read_image(struct pme_image *img, const char *section, int symbols_only)
{
	struct pme_vec groups;
	int rc;

	pme_vec_init(&groups, sizeof(const char *));
	rc = open_elf(img, section);
	if (rc == 0 && !(img->flags & PME_IMAGE_DWARF))
		rc = use_debugfile(img, section);
	if (rc == 0 && (rc = read_syms(img, SHT_SYMTAB, &groups)) == 0 &&
	    (rc = read_syms(img, SHT_DYNSYM, &groups)) == 1)
		img->flags |= PME_IMAGE_DYNSYM;
	/* Symbols only: the DWARF is passed over when a .symtab names the
	 * routines (pme_image_open_symbols()). */
	if (symbols_only && (img->flags & PME_IMAGE_SYMTAB))
		img->flags &= ~(unsigned)PME_IMAGE_DWARF;
	if (rc != -1 && (img->flags & PME_IMAGE_DWARF))
		rc = open_dwarf(img);
	if (rc != -1 && !(img->flags & PME_IMAGE_DWARF))
		rc = read_symbol_modules(img, &groups);
	pme_vec_free(&groups);
	return rc == -1 ? -1 : 0;
}

static void
set_note(struct pme_image *img)
{
	if (img->flags & PME_IMAGE_DWARF)
		img->note = NULL;
	else if (img->flags & PME_IMAGE_SYMTAB)
		img->note = "no DWARF: modules are the STT_FILE symbols' "
		    "groups of static functions, global functions are in one "
		    "module named after the image, there are no lines";
	else if (img->flags & PME_IMAGE_DYNSYM)
		img->note = "stripped: no debug file found: only the exported "
		    "functions of .dynsym are named, the rest of its code is "
		    "one routine named after it in brackets; static "
		    "functions, modules and lines are missing";
	else
		img->note = "no symbols and no DWARF: its code is one "
		    "routine named after it in brackets";
}

static struct pme_image *
image_open(const char *path, const char *section, int symbols_only,
    struct pme_error *err)
{
	struct pme_image *img;
	const char *slash;

	if (path == NULL) {
		pme_seterr(err, PME_EINVAL, "no image path");
		return NULL;
	}
	if ((img = calloc(1, sizeof(*img))) == NULL) {
		pme_setnomem(err);
		return NULL;
	}
	if ((img->path = strdup(path)) == NULL) {
		free(img);
		pme_setnomem(err);
		return NULL;
	}
	img->err = err;
	img->fd = -1;
	img->main_fd = -1;
	slash = strrchr(img->path, '/');
	img->base = slash != NULL && slash[1] != '\0' ? slash + 1 : img->path;
	pme_intern_init(&img->names, &img->arena);
	pme_vec_init(&img->mods, sizeof(struct pme_symmod));
	pme_vec_init(&img->info, sizeof(struct modinfo));
	pme_vec_init(&img->routines, sizeof(struct pme_symroutine));
	pme_vec_init(&img->lines, sizeof(struct pme_symline));
	pme_vec_init(&img->syms, sizeof(struct fsym));
	pme_vec_init(&img->scratch, sizeof(struct pme_range));
	if (read_image(img, section != NULL ? section : ".text",
	    symbols_only) == -1 ||
	    demangle_routines(img) == -1) {
		pme_image_close(img);
		return NULL;
	}
	set_note(img);
	img->err = NULL;
	return img;
}

struct pme_image *
pme_image_open(const char *path, const char *section, struct pme_error *err)
{
	return image_open(path, section, 0, err);
}

struct pme_image *
pme_image_open_symbols(const char *path, const char *section,
    struct pme_error *err)
{
	return image_open(path, section, 1, err);
}

int
pme_image_plt(const struct pme_image *img, struct pme_plt *plt,
    struct pme_error *err)
{
	return pme_plt_read(img->main_elf != NULL ? img->main_elf : img->elf,
	    plt, err);
}

void
pme_image_close(struct pme_image *img)
{
	if (img == NULL)
		return;
	if (img->elf != NULL)
		elf_end(img->elf);
	if (img->fd != -1)
		close(img->fd);
	if (img->main_elf != NULL)
		elf_end(img->main_elf);
	if (img->main_fd != -1)
		close(img->main_fd);
	free(img->debugfile);
	pme_vec_free(&img->mods);
	pme_vec_free(&img->info);
	pme_vec_free(&img->routines);
	pme_vec_free(&img->lines);
	pme_vec_free(&img->syms);
	pme_vec_free(&img->scratch);
	pme_intern_free(&img->names);
	pme_arena_free(&img->arena);
	free(img->path);
	free(img);
}
