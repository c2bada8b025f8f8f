/*
 * check.h - what the unit tests share: failures counted and told with
 * the test's name, CHECK(cond), and reading a whole file.  A test defines
 * TEST_NAME ("t_bucket") before including it, and exits 1 when failures
 * is not 0 at its end.
 */
#ifndef PME_CHECK_H
#define PME_CHECK_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static inline void fail(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static inline void
fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", TEST_NAME);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	failures++;
}

#define CHECK(cond) do { \
	if (!(cond)) \
		fail("%s:%d: %s", __FILE__, __LINE__, #cond); \
} while (0)

/* The whole of path, NUL-terminated, in memory the caller frees; a file
 * that cannot be read ends the test. */
static inline uint8_t *
readfile(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n = 0;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0) {
		fprintf(stderr, "%s: '%s': %s\n", TEST_NAME, path,
		    strerror(errno));
		exit(1);
	}
	rewind(f);
	if ((buf = malloc((size_t)n + 1)) == NULL ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "%s: '%s': cannot read\n", TEST_NAME, path);
		exit(1);
	}
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

#endif /* PME_CHECK_H */
