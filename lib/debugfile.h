/*
 * debugfile.h - the separate debug file of an ELF image (the file that
 * "objcopy --only-keep-debug" makes, or a distribution's -dbg/-dbgsym
 * package installs), found where gdb looks.  Internal to libpme.
 */
#ifndef PME_DEBUGFILE_H
#define PME_DEBUGFILE_H

#include <stddef.h>
#include <stdint.h>

/* The debug directories when PME_DEBUG_FILE_DIRECTORY is not set. */
#define PME_DEBUG_DIR	"/usr/lib/debug"

/*
 * The debug file of the image at path, looked for in gdb's order:
 *  1. by build-id (id[0..idlen), when idlen > 0): DIR/.build-id/xx/rest.debug
 *     for each debug directory DIR;
 *  2. by .gnu_debuglink (link non-NULL; crc the CRC-32 it records): link
 *     in the image's directory, in its .debug/ subdirectory, then in each
 *     DIR followed by the image's directory; a file whose CRC-32 differs
 *     is not it.
 * The image's directory is that of its real path (symbolic links
 * followed).  The debug directories are those of the environment variable
 * PME_DEBUG_FILE_DIRECTORY, separated by ':', else PME_DEBUG_DIR (gdb's
 * debug-file-directory).  A file is only taken when it is an ELF file
 * whose build-id note, if both have one, is id; the image itself is never
 * taken.
 *
 * Returns a descriptor open for reading (O_CLOEXEC) and the file's name in
 * *found (malloc'd, the caller frees), or -1 with *found NULL when there
 * is none (or memory ran out: the image is then read without one).
 */
int	pme_debugfile_open(const char *path, const uint8_t *id, uint32_t idlen,
	    const char *link, uint32_t crc, char **found);

#endif /* PME_DEBUGFILE_H */
