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

#endif /* PME_IMAGE_INTERNAL_H */
