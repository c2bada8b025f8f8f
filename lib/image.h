/*
 * image.h - what pme's own programs read of an image (pme_symbols.h)
 * beyond the installed API: the compilation directory of each module,
 * the code bytes at an address and the machine, so that lib/ stays the
 * only reader of ELF files and their DWARF (pmehisto -V caliper shows
 * source text and disassembly through these).
 */
#ifndef PME_IMAGE_INTERNAL_H
#define PME_IMAGE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "pme_symbols.h"

/*
 * The DW_AT_comp_dir of module index's compilation unit, as the DWARF
 * reader's child sent it (owned by img); NULL when the unit names none,
 * when there is no such module, or without DWARF.
 */
const char	*pme_image_compdir(const struct pme_image *img,
		    uint32_t module);
/*
 * The image's code bytes at link-time address addr: those of the
 * executable section (SHT_PROGBITS, SHF_EXECINSTR) of the image itself
 * (never its debug file, whose code sections are SHT_NOBITS) that holds
 * addr, from addr to the section's end, *len of them; NULL when no such
 * section holds it.  Owned by img.
 */
const uint8_t	*pme_image_code(const struct pme_image *img, uint64_t addr,
		    size_t *len);
/* The image's ELF machine (EM_X86_64, EM_AARCH64, ...); EM_NONE when its
 * header cannot be read. */
unsigned	 pme_image_machine(const struct pme_image *img);

/*
 * Inlined subroutines (DW_TAG_inlined_subroutine): one range of one
 * inlined instance of a function.  depth 1 is inlined into a routine,
 * depth d + 1 into an instance of depth d whose ranges hold its own.
 * call_file and call_line say where the instance was inlined: the line
 * of the function it is inlined into (addr2line -i's lines of the outer
 * frames).
 */
struct pme_syminline {
	uint64_t	 start, end;
	uint32_t	 depth;
	uint32_t	 call_line;	/* 0: unknown */
	const char	*name;		/* the inlined function's (through its
					   abstract origin), "?" without one */
	const char	*call_file;	/* NULL: unknown */
};

/*
 * pme_image_open(), and the image's inlined subroutines besides: they
 * cost a walk of every routine's DIEs, so only readers that show them
 * ask for them (pmehisto --inline).
 */
struct pme_image *pme_image_open_inlines(const char *path,
		    const char *section, struct pme_error *err);
/*
 * The inlined instances that hold link-time address addr, innermost
 * first (as addr2line -i prints the functions: the innermost, then the
 * one it is inlined into...; the routine that holds addr comes after
 * them and is not among them), at most max into out (pointers owned by
 * img); how many.  None for an image not opened with
 * pme_image_open_inlines().
 */
size_t		 pme_image_inline_chain(const struct pme_image *img,
		    uint64_t addr, const struct pme_syminline **out,
		    size_t max);

#endif /* PME_IMAGE_INTERNAL_H */
