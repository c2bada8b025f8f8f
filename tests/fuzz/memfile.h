/*
 * memfile.h - for the fuzz targets whose parser opens a file by name:
 * the input is written to an anonymous memory file (memfd_create) and
 * named by its /proc/self/fd path, so that nothing is left on disk and
 * runs do not race over a temporary name.
 */
#ifndef PME_MEMFILE_H
#define PME_MEMFILE_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Writes data to a new memory file; *fd gets it, path its name.  -1 when
 * the file cannot be made (the input is then skipped). */
static int
memfile(const uint8_t *data, size_t size, int *fd, char *path, size_t len)
{
	size_t off = 0;
	ssize_t n;

	if ((*fd = memfd_create("fuzz", 0)) == -1)
		return -1;
	while (off < size) {
		if ((n = write(*fd, data + off, size - off)) <= 0) {
			close(*fd);
			return -1;
		}
		off += (size_t)n;
	}
	snprintf(path, len, "/proc/self/fd/%d", *fd);
	return 0;
}

#endif
