/*
 * symint.h - what the rooms of libpme's ELF/DWARF reader (pme_symbols.h)
 * share: struct pme_image and the state of a compilation unit, and the
 * functions each room gives the others.  lib/symbols.c opens and closes
 * an image and says which room does what; nothing outside the reader
 * includes this.
 */
#ifndef PME_SYMINT_H
#define PME_SYMINT_H

#include <stddef.h>
#include <stdint.h>

#include <gelf.h>
#include <libelf.h>
#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>

#include "image.h"
#include "pme_symbols.h"
#include "util.h"

struct lthdr;

/* An STT_FUNC symbol inside the section. */
struct fsym {
	uint64_t	 addr;
	uint64_t	 size;
	const char	*name;
	uint32_t	 group;		/* STT_FILE group, PME_NONE: global */
	uint32_t	 index;		/* in its symbol table */
	unsigned char	 bind;		/* STB_* */
	unsigned char	 old;		/* an old version's ("f@V1") */
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
	int		 want_inlines;	/* pme_image_open_inlines() */
	struct pme_vec	 inlines;	/* struct pme_syminline, by depth
					   then start (dwinline.c) */
	size_t		*inl_off;	/* depth d's: inlines[inl_off[d - 1]
					   .. inl_off[d]) */
	uint32_t	 inl_depths;
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

/* The section of each phase, for messages (lib/symbols.c). */
extern const char *const phase_sect[];

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

/* The functions the rooms give each other, by the file that has them. */
/* symbols.c */
void	set_phase(struct pme_image *img, enum phase ph);
const char	*phase_tag(const struct watch *w, char *buf, size_t len);
const char	*unit_tag(const struct watch *w, char *buf, size_t len);
int	dwerr(struct pme_image *img, Dwarf_Error e, const char *what);
int	elferr(struct pme_image *img, const char *what);
int	sym_nomem(struct pme_image *img);
int	sym_clip(const struct pme_image *img, struct pme_range *r);
int	scratch_add(struct pme_image *img, uint64_t lo, uint64_t hi);
int	scratch_take(struct pme_image *img, int merge,
	    const struct pme_range **out, uint32_t *n);
int	check_size(struct pme_image *img);
int	debug_sects(struct pme_image *img);
/* demangle.c */
int	demangle_routines(struct pme_image *img);
/* symdebug.c */
int	use_debugfile(struct pme_image *img, const char *section);
/* contain.c */
int	open_dwarf(struct pme_image *img);
/* dwline.c */
const char	*decl_file(struct cu *cu, uint64_t idx);
void	cu_free(struct cu *cu);
/* dwarfdie.c */
const char	*relname(const char *compdir, const char *name);
int	read_dwarf(struct pme_image *img);
/* dwinline.c */
int	sort_inlines(struct pme_image *img);
/* nodwarf.c */
int	read_symbol_modules(struct pme_image *img,
	    const struct pme_vec *groups);
/* symmods.c */
struct pme_symmod	*add_module(struct pme_image *img, const char *name,
	    const struct modinfo *info);
int	has_name(const struct pme_symroutine *r, const char **v, uint32_t k,
	    const char *name);
int	end_module(struct pme_image *img);
/* elfsyms.c */
int	find_section(struct pme_image *img, const char *name);
int	read_kind(struct pme_image *img);
int	cmp_names(const char *a, const char *b);
int	sym_read_syms(struct pme_image *img, Elf64_Word type,
	    struct pme_vec *groups);
const struct fsym	*syms_at(const struct pme_image *img, uint64_t addr,
	    size_t *n);

#endif /* PME_SYMINT_H */
