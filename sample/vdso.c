/*
 * vdso.c - the vDSO as a file, for the mappings of the perf method: the
 * kernel's [vdso] is code a program runs (clock_gettime, gettimeofday,
 * getcpu) with no file behind it, so its samples were "unmapped" (93%
 * of a program that reads the clock in a loop).  Every 64-bit process
 * of one kernel maps the same image, pmeclock's own among them: it is
 * written once, named by its build-id, to
 *
 *	$XDG_CACHE_HOME/pme/vdso/BUILD-ID/[vdso]   ($HOME/.cache without it)
 *
 * where the symbols and CFI are read as any library's (perf keeps its
 * copy in ~/.debug/[vdso]/BUILD-ID/ likewise).  A mapping whose length
 * (perf's records, /proc/PID/maps) or build-id (the preload runtime's,
 * which finds the vDSO among the objects dl_iterate_phdr lists) is not
 * that of pmeclock's own vDSO (a 32-bit process's) is not given the
 * file, nor is any without a cache directory to write.
 */
#include <elf.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include "clock.h"
#include "maps.h"
#include "util.h"

static int	 tried;
static char	 path[PATH_MAX];	/* "" when there is none */
static size_t	 maplen;		/* of the vDSO's mapping */
static uint8_t	 rawid[64];		/* its build-id */
static size_t	 rawlen;

/* The bytes of the image at e: its program headers' and sections' end. */
static size_t
image_size(const Elf64_Ehdr *e)
{
	const Elf64_Phdr *ph = (const Elf64_Phdr *)((const char *)e +
	    e->e_phoff);
	size_t n = e->e_shoff + (size_t)e->e_shnum * e->e_shentsize;
	int i;

	for (i = 0; i < e->e_phnum; i++)
		if (ph[i].p_offset + ph[i].p_filesz > n)
			n = ph[i].p_offset + ph[i].p_filesz;
	return n;
}

/* The length of this process's [vdso] mapping; 0 when not found. */
static size_t
own_maplen(void)
{
	struct pme_maps_line ml;
	struct pme_maps r;
	size_t n = 0;
	FILE *fp;

	if ((fp = fopen("/proc/self/maps", "re")) == NULL)
		return 0;
	pme_maps_init(&r, fp, "/proc/self/maps");
	while (n == 0 && pme_maps_next(&r, &ml, NULL) > 0)
		if (strcmp(ml.path, "[vdso]") == 0 && ml.end > ml.start)
			n = (size_t)(ml.end - ml.start);
	pme_maps_end(&r);
	fclose(fp);
	return n;
}

/* The build-id of the image at e in hex, into id; 0 when it has none. */
static int
build_id(const Elf64_Ehdr *e, char *id, size_t idsize)
{
	const Elf64_Phdr *ph = (const Elf64_Phdr *)((const char *)e +
	    e->e_phoff);
	const uint8_t *d = NULL;
	uint32_t k;
	int i;

	for (i = 0; i < e->e_phnum && rawlen == 0; i++)
		if (ph[i].p_type == PT_NOTE)
			rawlen = pme_note_buildid((const char *)e +
			    ph[i].p_offset, ph[i].p_filesz, (idsize - 1) / 2 <
			    sizeof(rawid) ? (idsize - 1) / 2 : sizeof(rawid), &d);
	for (k = 0; k < rawlen; k++)
		snprintf(id + 2 * k, 3, "%02x", d[k]);
	if (rawlen > 0)
		memcpy(rawid, d, rawlen);
	return rawlen > 0;
}

/* mkdir -p of dir's every part; 0, or -1. */
static int
mkdirs(char *dir)
{
	char *s;

	for (s = dir + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			*s = '/';
			return -1;
		}
		*s = '/';
	}
	return mkdir(dir, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

/* Writes n bytes of image to path through a file of its own renamed. */
static int
write_image(const void *image, size_t n)
{
	char tmp[PATH_MAX + 32];
	ssize_t w;
	size_t done = 0;
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) < 0)
		return -1;
	while (done < n && ((w = write(fd, (const char *)image + done,
	    n - done)) > 0 || (w < 0 && errno == EINTR)))
		done += w > 0 ? (size_t)w : 0;
	if (close(fd) < 0 || done < n || rename(tmp, path) < 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* Makes the file once: path set, or "". */
static void
make(void)
{
	const Elf64_Ehdr *e = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	const char *base = getenv("XDG_CACHE_HOME"), *sub = "";
	char id[129], dir[PATH_MAX];
	struct stat st;
	size_t n;

	tried = 1;
	if (e == NULL || memcmp(e->e_ident, ELFMAG, SELFMAG) != 0 ||
	    e->e_ident[EI_CLASS] != ELFCLASS64 || !build_id(e, id, sizeof(id)))
		return;
	n = image_size(e);
	if ((maplen = own_maplen()) == 0 || n > maplen)
		return;
	if (base == NULL || base[0] != '/') {
		base = getenv("HOME");
		sub = "/.cache";
	}
	if (base == NULL || base[0] != '/' || (size_t)snprintf(dir,
	    sizeof(dir), "%s%s/pme/vdso/%s", base, sub, id) >= sizeof(dir) ||
	    (size_t)snprintf(path, sizeof(path), "%s/[vdso]", dir) >=
	    sizeof(path)) {
		path[0] = '\0';
		return;
	}
	if (stat(path, &st) == 0 && (size_t)st.st_size == n)
		return;
	if (mkdirs(dir) < 0 || write_image(e, n) < 0)
		path[0] = '\0';
}

const char *
vdso_file(uint64_t len)
{
	if (!tried)
		make();
	return path[0] != '\0' && len == maplen ? path : NULL;
}

const char *
vdso_file_id(const uint8_t *id, size_t len)
{
	if (!tried)
		make();
	return path[0] != '\0' && len == rawlen && len > 0 &&
	    memcmp(id, rawid, len) == 0 ? path : NULL;
}
