/*
 * pme_symbols.h - libpme's readers of program structure: ELF images with
 * their DWARF (modules = compilation units, routines = functions, lines =
 * line-table rows) and GNU ld -Map files (modules = input objects).
 *
 * Addresses are link-time virtual addresses, what nm(1) and readelf(1)
 * print, whatever the image is (PIE, non-PIE, shared object).  Ranges are
 * half-open.  Errors as in pme.h: returned, never printed.
 */
#ifndef PME_SYMBOLS_H
#define PME_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "pme.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One module: a compilation unit, an STT_FILE group, or a map input object. */
struct pme_symmod {
	const char	*name;		/* CU name relative to its comp_dir when
					   it lies under it (else as in DWARF);
					   STT_FILE name; map: input object as
					   printed ("main.o", "/usr/lib/x.a(y.o)") */
	const struct pme_range *ranges;	/* sorted, merged, clipped to the
					   section; may be empty */
	uint32_t	 nranges;
	uint32_t	 first_routine;	/* routines of this module are */
	uint32_t	 nroutines;	/*   routines[first .. first+n) */
	uint32_t	 first_line;	/* lines, when loaded, likewise */
	uint32_t	 nlines;
	int		 lines_loaded;	/* 1 if its line table was read */
};

/*
 * A routine.  Code that has several names (aliases: __finitel and finitel,
 * a function and its __attribute__((alias)) names) is one routine, named
 * as perf names it: of the ELF function symbols at its entry, a non-weak
 * one before a weak one, a global before a local, fewer leading
 * underscores, the longer name, the earlier in the symbol table.  Without
 * a symbol there, the DWARF names of the subprograms that start there are
 * ranked by underscores and length.  The other names are its aliases.
 * The default symbol version a debug file's .symtab spells in a name is
 * dropped ("__libc_start_main@@GLIBC_2.34" is "__libc_start_main", as
 * .dynsym spells it); an old version's name ("memcpy@GLIBC_2.2.5", so
 * named from .dynsym too) comes after all the others.
 */
#define PME_MAXALIASES	256	/* aliases kept per routine, at most */

struct pme_symroutine {
	const char	*name;		/* the preferred ELF symbol at its entry
					   when one exists (so clones are
					   "f.constprop.0", as nm prints), else
					   the preferred DWARF name; demangled
					   as nm -C prints it ("ns::f(int)")
					   when it is a C++ or Rust symbol */
	uint32_t	 module;
	const struct pme_range *ranges;	/* sorted; entry range first is NOT
					   promised; a .cold part is a second
					   range */
	uint32_t	 nranges;
	uint64_t	 entry;		/* address of its entry point */
	const char	*file;		/* declaring source file or NULL */
	uint32_t	 line;		/* declaring line or 0 */
	const char *const *aliases;	/* its other names, each once: the
					   other symbols at its entry in the
					   order above, then DWARF names; NULL
					   when naliases is 0.  A demangled
					   routine's first alias is raw, then
					   come the others raw and demangled */
	uint32_t	 naliases;
	const char	*raw;		/* the name as the image spells it
					   (mangled); name when not mangled */
};

/*
 * One run of consecutive line-table rows with the same file and line, an
 * address range [start, end).  The same (file, line) usually occurs in
 * several entries (loops, inlining, scheduling).  Entries of one module are
 * sorted by start and do not overlap; zero-length rows are dropped.
 */
struct pme_symline {
	uint64_t	 start;
	uint64_t	 end;
	uint32_t	 line;
	uint32_t	 routine;	/* index of the routine whose ranges
					   contain start, or PME_NONE */
	const char	*file;		/* source file name as the line table
					   gives it (interned: equal names are
					   equal pointers) */
	uint32_t	 file_is_primary; /* 1 if file is the CU's own file */
};

/* What the reader found, for messages. */
#define PME_IMAGE_DWARF	  0x01	/* DWARF .debug_info present */
#define PME_IMAGE_SYMTAB  0x02	/* .symtab present */
#define PME_IMAGE_DYNSYM  0x04	/* only .dynsym (stripped) */
#define PME_IMAGE_PIE	  0x08	/* ET_DYN with PT_INTERP or DF_1_PIE */
#define PME_IMAGE_SHARED  0x10	/* ET_DYN shared object */
#define PME_IMAGE_EXEC	  0x20	/* ET_EXEC */
#define PME_IMAGE_DWARF5  0x40	/* some CU is DWARF 5 */
#define PME_IMAGE_DEBUGFILE 0x80 /* read from its separate debug file */

struct pme_image;

/*
 * Reads path's modules and routines inside section (NULL: ".text").  With
 * DWARF: modules are compilation units, routines DW_TAG_subprogram with code
 * (inlined instances are not routines).  Without DWARF: modules are STT_FILE
 * groups of local functions, plus one module named after the image holding
 * the global functions; routines are STT_FUNC symbols, "f.cold" parts joined
 * to "f".  Stripped (no .symtab), with no debug file (see
 * pme_image_debugfile()): one module named after the image, holding the
 * whole section, whose routines are the exported functions of .dynsym and
 * one routine named "[image]" (the image's last path component in
 * brackets) that holds the rest of the section (static functions,
 * unnamed), when there is a rest.  pme_image_note() says what is
 * missing.
 *
 * The DWARF is read by libdwarf in a child process (fork(2)), which hands
 * its results back through a pipe: a fault of libdwarf's on corrupt DWARF
 * is a PME_EFORMAT error ("'prog': corrupt DWARF (.debug_rnglists): the
 * DWARF reader died of SIGABRT"), not the caller's.  The caller must not
 * reap that child (waitpid(-1, ...)) meanwhile; with SIGCHLD ignored only
 * whole results tell success.
 */
struct pme_image *pme_image_open(const char *path, const char *section,
		    struct pme_error *err);
/*
 * The same, but the routines from the symbol table alone when there is a
 * .symtab (the file's or its debug file's): the DWARF is not read, so
 * modules are the STT_FILE groups and there are no lines, as without
 * DWARF.  For readers that want routine names only, from large debug
 * files (libc6-dbg's: reading its DWARF costs ten times what its symbols
 * do).  Without a .symtab, as pme_image_open().
 */
struct pme_image *pme_image_open_symbols(const char *path,
		    const char *section, struct pme_error *err);
void		 pme_image_close(struct pme_image *img);	/* NULL ok */

/*
 * Reads the line table of one module (index), or of all modules when
 * module is PME_NONE.  Lines already loaded are not read again.  A module
 * without a line table loads zero lines and is not an error.
 */
int		 pme_image_load_lines(struct pme_image *img, uint32_t module,
		    struct pme_error *err);

unsigned	 pme_image_flags(const struct pme_image *img);
const char	*pme_image_path(const struct pme_image *img);
/* GNU build-id note, NULL (and *len 0) when there is none. */
const uint8_t	*pme_image_buildid(const struct pme_image *img, uint32_t *len);
/*
 * The separate debug file the symbols and DWARF were read from, or NULL
 * when they are the image's own.  An image without DWARF is read from its
 * debug file when one is found that has DWARF, or a symbol table the image
 * lacks; it is looked for as gdb looks (lib/debugfile.h): by build-id in
 * DIR/.build-id/xx/rest.debug, then by .gnu_debuglink beside the image,
 * in its .debug/ directory and in DIR followed by the image's directory
 * (the CRC checked), where DIR is each directory of the environment
 * variable PME_DEBUG_FILE_DIRECTORY (':' between them), by default
 * /usr/lib/debug.  Owned by img.
 */
const char	*pme_image_debugfile(const struct pme_image *img);
/* A sentence on what is missing ("no DWARF: ..."), or NULL. */
const char	*pme_image_note(const struct pme_image *img);
/* The section's own range. */
struct pme_range pme_image_section(const struct pme_image *img);

size_t		 pme_image_modules(const struct pme_image *img,
		    const struct pme_symmod **out);
size_t		 pme_image_routines(const struct pme_image *img,
		    const struct pme_symroutine **out);
/*
 * The arrays and their strings are owned by img and valid until its close;
 * the lines array until the next pme_image_load_lines(), which may move it
 * (take the pointer again after loading).
 */
/* All loaded lines, grouped by module as first_line/nlines say. */
size_t		 pme_image_lines(const struct pme_image *img,
		    const struct pme_symline **out);

/*
 * GNU ld -Map files.  Modules are the input objects that contribute to
 * output section psect (NULL: ".text"), in map order, each with the ranges
 * of its input sections there (sorted, merged; zero-sized ones dropped).
 * Routines and lines are not in a map: nroutines and nlines are 0.
 * The modules array is owned by map, valid until its close.
 */
struct pme_map;
struct pme_map	*pme_map_open(const char *path, const char *psect,
		    struct pme_error *err);
void		 pme_map_close(struct pme_map *map);		/* NULL ok */
size_t		 pme_map_modules(const struct pme_map *map,
		    const struct pme_symmod **out);

#ifdef __cplusplus
}
#endif

#endif /* PME_SYMBOLS_H */
