/*
 * debugfile.c - finds the separate debug file of an ELF image
 * (debugfile.h), as gdb and perf find it: by build-id under the debug
 * directories, then by the .gnu_debuglink name and CRC.  DESIGN.md puts
 * debug-info lookup in lib/symbols; it is a file of its own so that the
 * readers of symbols and DWARF stay apart from where the files are.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>
#include <zlib.h>

#include "debugfile.h"
#include "util.h"

/* The CRC-32 of the file open at fd, as .gnu_debuglink records it (the
 * zlib polynomial); -1 when it cannot be read. */
static int
file_crc(int fd, uint32_t *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0L, Z_NULL, 0);
	ssize_t n;
	off_t off = 0;

	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		c = crc32(c, buf, (uInt)n);
		off += n;
	}
	if (n == -1)
		return -1;
	*crc = (uint32_t)c;
	return 0;
}

/* Whether the ELF file at fd has no build-id note, or id's. */
static int
same_buildid(int fd, const uint8_t *id, uint32_t idlen)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	size_t off, noff, doff;
	int same = 1;

	if (elf_version(EV_CURRENT) == EV_NONE ||
	    (e = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL)
		return 0;
	if (elf_kind(e) != ELF_K_ELF)
		same = 0;
	while (same && idlen > 0 && (scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE ||
		    (d = elf_getdata(scn, NULL)) == NULL)
			continue;
		for (off = 0; (off = gelf_getnote(d, off, &nh, &noff,
		    &doff)) > 0;)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + noff, "GNU", 4) == 0)
				same = nh.n_descsz == idlen &&
				    memcmp((char *)d->d_buf + doff, id,
				    idlen) == 0;
	}
	elf_end(e);
	return same;
}

/*
 * Opens name if it is the debug file: not the image (st), a regular file,
 * with the build-id, and the CRC when crc is not NULL.  -1 if not.
 */
static int
try_file(const char *name, const struct stat *img, const uint8_t *id,
    uint32_t idlen, const uint32_t *crc)
{
	struct stat st;
	uint32_t c;
	int fd;

	if ((fd = pme_open_read(name, NULL)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (st.st_dev == img->st_dev && st.st_ino == img->st_ino) ||
	    (crc != NULL && (file_crc(fd, &c) == -1 || c != *crc)) ||
	    !same_buildid(fd, id, idlen)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Tries each directory of the list dirs followed by tail. */
static int
try_dirs(const char *dirs, const char *tail, const struct stat *img,
    const uint8_t *id, uint32_t idlen, const uint32_t *crc, char **found)
{
	char name[PATH_MAX];
	const char *d, *e;
	size_t len;
	int fd;

	for (d = dirs; *d != '\0'; d = *e != '\0' ? e + 1 : e) {
		e = d + strcspn(d, ":");
		if ((len = (size_t)(e - d)) == 0)
			continue;
		if (snprintf(name, sizeof(name), "%.*s%s", (int)len, d, tail) >=
		    (int)sizeof(name))
			continue;
		if ((fd = try_file(name, img, id, idlen, crc)) != -1) {
			if ((*found = strdup(name)) == NULL) {
				close(fd);
				return -1;
			}
			return fd;
		}
	}
	return -1;
}

/* The build-id's file name below a debug directory: /.build-id/xx/rest.debug. */
static void
buildid_tail(const uint8_t *id, uint32_t idlen, char *out, size_t len)
{
	size_t n;
	uint32_t i;

	n = (size_t)snprintf(out, len, "/.build-id/%02x/", id[0]);
	for (i = 1; i < idlen && n + 3 < len; i++)
		n += (size_t)snprintf(out + n, len - n, "%02x", id[i]);
	snprintf(out + n, len - n, ".debug");
}

/* By .gnu_debuglink: beside the image, in .debug/, under each DIR. */
static int
by_link(const char *path, const char *dirs, const char *link, uint32_t crc,
    const struct stat *st, const uint8_t *id, uint32_t idlen, char **found)
{
	char real[PATH_MAX], tail[PATH_MAX + NAME_MAX + 16], *slash;
	int fd;

	if (strchr(link, '/') != NULL || realpath(path, real) == NULL ||
	    (slash = strrchr(real, '/')) == NULL)
		return -1;
	*slash = '\0';
	snprintf(tail, sizeof(tail), "/%s", link);
	if ((fd = try_dirs(real, tail, st, id, idlen, &crc, found)) != -1)
		return fd;
	snprintf(tail, sizeof(tail), "/.debug/%s", link);
	if ((fd = try_dirs(real, tail, st, id, idlen, &crc, found)) != -1)
		return fd;
	snprintf(tail, sizeof(tail), "%s/%s", real, link);
	return try_dirs(dirs, tail, st, id, idlen, &crc, found);
}

int
pme_debugfile_open(const char *path, const uint8_t *id, uint32_t idlen,
    const char *link, uint32_t crc, char **found)
{
	const char *dirs = getenv("PME_DEBUG_FILE_DIRECTORY");
	char tail[128];
	struct stat st;
	int fd = -1;

	*found = NULL;
	if (dirs == NULL || *dirs == '\0')
		dirs = PME_DEBUG_DIR;
	if (stat(path, &st) == -1)
		return -1;
	if (id != NULL && idlen > 0 && idlen <= 48) {
		buildid_tail(id, idlen, tail, sizeof(tail));
		if ((fd = try_dirs(dirs, tail, &st, id, idlen, NULL,
		    found)) != -1)
			return fd;
	}
	if (link != NULL && *link != '\0')
		fd = by_link(path, dirs, link, crc, &st, id, idlen, found);
	return fd;
}
