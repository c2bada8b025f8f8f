/*
 * symdebug.c - an image read from its separate debug file (found as gdb
 * finds it, lib/debugfile.h: by build-id, then .gnu_debuglink) when that
 * has the DWARF or the symbol table the image lacks.  One room of the
 * ELF/DWARF reader, whose rooms share lib/symint.h (lib/symbols.c says
 * which does what).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debugfile.h"
#include "symint.h"

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
int
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
