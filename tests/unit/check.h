/*
 * check.h - what the unit tests share: failures counted and told with
 * the test's name, CHECK(cond), die() for what ends a test at once, a
 * directory of the test's own with names in it (tmppath), and reading a
 * whole file.  A test defines TEST_NAME ("t_bucket") before including it
 * (after pme.h, for die_pme), and exits 1 when failures is not 0 at its
 * end.
 */
#ifndef PME_CHECK_H
#define PME_CHECK_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;

static inline void fail(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static inline void
check_say(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", TEST_NAME);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static inline void
fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_say(fmt, ap);
	va_end(ap);
	failures++;
}

#define CHECK(cond) do { \
	if (!(cond)) \
		fail("%s:%d: %s", __FILE__, __LINE__, #cond); \
} while (0)

/* Tells what went wrong, with the test's name, and exits 1. */
static inline void die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static inline void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_say(fmt, ap);
	va_end(ap);
	exit(1);
}

#ifdef PME_H
/* die() for a libpme call that failed: "what: err's message". */
static inline void __attribute__((noreturn))
die_pme(const char *what, const struct pme_error *err)
{
	die("%s: %s", what, pme_strerror(err));
}
#endif

/* The test's own directory, $TMPDIR/TEST_NAME.XXXXXX, made by the first
 * testdir() (or tmppath()); "" before. */
static char check_dir[4096];

static inline const char *
testdir(void)
{
	const char *t = getenv("TMPDIR");

	if (check_dir[0] == '\0') {
		snprintf(check_dir, sizeof(check_dir), "%s/%s.XXXXXX",
		    t != NULL && *t != '\0' ? t : "/tmp", TEST_NAME);
		if (mkdtemp(check_dir) == NULL)
			die("%s: %s", check_dir, strerror(errno));
	}
	return check_dir;
}

/* name in the test's directory; eight results stay valid at once. */
static inline char *
tmppath(const char *name)
{
	static char buf[8][4200];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", testdir(), name);
	return buf[i];
}

static inline int
check_rm(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)f;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* Removes the test's directory and all in it when no check failed (what
 * a failed test leaves is kept to look at); leaves the directory first
 * when it is the current one. */
static inline void
testdir_done(void)
{
	char cwd[4096];

	if (check_dir[0] == '\0' || failures != 0)
		return;
	if (getcwd(cwd, sizeof(cwd)) != NULL &&
	    strncmp(cwd, check_dir, strlen(check_dir)) == 0 &&
	    chdir("/") == -1)
		return;
	nftw(check_dir, check_rm, 8, FTW_DEPTH | FTW_PHYS);
}

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

/* 1 when the test's directory takes anonymous files (O_TMPFILE), so that
 * pme's outputs are written with no temporary name (util.h). */
static __attribute__((unused)) int
anon_tmpfiles(void)
{
	int fd = open(testdir(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);

	if (fd == -1)
		return 0;
	close(fd);
	return 1;
}

#endif /* PME_CHECK_H */
