/*
 * symbols.c - ELF images as modules, routines and lines (pme_symbols.h):
 * opening and closing an image, its accessors, and the helpers the
 * reader's rooms share (errors, ranges).
 *
 * libelf reads the file (mapped, shared with libdwarf through
 * dwarf_elf_init_b()), the section headers, the symbol tables and the
 * build-id; libdwarf reads compilation units and subprograms, in a child
 * process; the line tables are decoded by pme, from .debug_line.
 * Without DWARF the symbol table alone gives modules (STT_FILE groups) and
 * routines (STT_FUNC symbols).  The rooms, which share lib/symint.h:
 *	elfsyms.c	the section, kind, build-id and function symbols
 *	symdebug.c	reading an image from its separate debug file
 *	symmods.c	modules, and merging routines of one entry
 *	nodwarf.c	modules and routines without DWARF
 *	dwarfdie.c	modules and routines from DWARF's entries
 *	contain.c	libdwarf in a child process, and why
 *	dwline.c	the .debug_line decoder, and why pme's own
 *	demangle.c	C++ and Rust names as nm -C prints them
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image.h"
#include "plt.h"
#include "pme_symbols.h"
#include "symint.h"
#include "util.h"


/* ------------------------------------------------------------ errors */

const char *const phase_sect[] = { NULL, ".debug_rnglists",
    ".debug_loclists", ".debug_info", ".debug_ranges" };

void
set_phase(struct pme_image *img, enum phase ph)
{
	if (img->watch != NULL)
		img->watch->phase = ph;
}

/* " (.debug_info)" for the section being read, or "". */
const char *
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
const char *
unit_tag(const struct watch *w, char *buf, size_t len)
{
	if (w != NULL && w->inunit)
		snprintf(buf, len, " in the unit at offset 0x%llx",
		    (unsigned long long)w->unit);
	else
		buf[0] = '\0';
	return buf;
}

int
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

int
elferr(struct pme_image *img, const char *what)
{
	return pme_seterr(img->err, PME_EFORMAT, "'%s': %s: %s", img->path,
	    what, elf_errmsg(-1));
}

int
sym_nomem(struct pme_image *img)
{
	return pme_setnomem(img->err);
}

/* ------------------------------------------------------------ ranges */

/* Clips r to the section; 0 when nothing is left. */
int
sym_clip(const struct pme_image *img, struct pme_range *r)
{
	if (r->start < img->sec.start)
		r->start = img->sec.start;
	if (r->end > img->sec.end)
		r->end = img->sec.end;
	return r->start < r->end;
}

/* Adds [lo, hi) to the scratch ranges, clipped; empty ones vanish. */
int
scratch_add(struct pme_image *img, uint64_t lo, uint64_t hi)
{
	struct pme_range r = { lo, hi }, *p;

	if (hi <= lo || !sym_clip(img, &r))
		return 0;
	if ((p = pme_vec_push(&img->scratch)) == NULL)
		return sym_nomem(img);
	*p = r;
	return 0;
}

/*
 * Copies the scratch ranges into the arena, sorted and merged when merge
 * is set (modules), else in the order found (a routine's ranges keep its
 * entry part first as DWARF and the symbols give it, which pme_symbols.h
 * does not promise but costs nothing).
 */
int
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
		return sym_nomem(img);
	memcpy(p, v, k * sizeof(*p));
	*out = p;
	*n = (uint32_t)k;
	img->scratch.n = 0;
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

const char *
pme_image_compdir(const struct pme_image *img, uint32_t module)
{
	return module < img->info.n ?
	    PME_VEC_AT(&img->info, struct modinfo, module).compdir : NULL;
}

/* The image's own ELF, not its debug file. */
static Elf *
main_elf(const struct pme_image *img)
{
	return img->main_elf != NULL ? img->main_elf : img->elf;
}

const uint8_t *
pme_image_code(const struct pme_image *img, uint64_t addr, size_t *len)
{
	Elf *elf = main_elf(img);
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL ||
		    sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || addr < sh.sh_addr ||
		    addr - sh.sh_addr >= sh.sh_size)
			continue;
		if ((d = elf_getdata(scn, NULL)) == NULL || d->d_buf == NULL ||
		    addr - sh.sh_addr >= d->d_size)
			return NULL;
		*len = d->d_size - (size_t)(addr - sh.sh_addr);
		return (const uint8_t *)d->d_buf + (addr - sh.sh_addr);
	}
	return NULL;
}

unsigned
pme_image_machine(const struct pme_image *img)
{
	GElf_Ehdr eh;

	return gelf_getehdr(main_elf(img), &eh) != NULL ? eh.e_machine :
	    EM_NONE;
}

/* ------------------------------------------------------------ open/close */

/*
 * A file cut short: libelf maps what is there and simply finds fewer
 * sections, so the headers and every section's bytes are checked against
 * the file's size, for a message that says what happened.
 */
int
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

int
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

/* ------------------------------------------------------------ the image */

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
	if (rc == 0 && (rc = sym_read_syms(img, SHT_SYMTAB, &groups)) == 0 &&
	    (rc = sym_read_syms(img, SHT_DYNSYM, &groups)) == 1)
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
    int inlines, struct pme_error *err)
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
	pme_vec_init(&img->inlines, sizeof(struct pme_syminline));
	img->want_inlines = inlines;
	if (read_image(img, section != NULL ? section : ".text",
	    symbols_only) == -1 ||
	    demangle_routines(img) == -1 || sort_inlines(img) == -1) {
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
	return image_open(path, section, 0, 0, err);
}

struct pme_image *
pme_image_open_inlines(const char *path, const char *section,
    struct pme_error *err)
{
	return image_open(path, section, 0, 1, err);
}

struct pme_image *
pme_image_open_symbols(const char *path, const char *section,
    struct pme_error *err)
{
	return image_open(path, section, 1, 0, err);
}

int
pme_image_plt(const struct pme_image *img, struct pme_plt *plt,
    struct pme_error *err)
{
	return pme_plt_read(main_elf(img), plt, err);
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
	pme_vec_free(&img->inlines);
	free(img->inl_off);
	pme_intern_free(&img->names);
	pme_arena_free(&img->arena);
	free(img->path);
	free(img);
}
