/*
 * t_names.c - the seed's rule for file names (lib/util.h): pme_with_ext()
 * for the programs and pme_name_trimmed() for the runtimes' entries
 * (pme_sname, pme_iname, pme_oname), which must agree: the extension
 * added only when the last component has none (a leading dot is not
 * one), "-" and special files kept, and for the runtimes trailing blanks
 * and tabs trimmed first, nothing left or too long refused.  And the
 * search for a program or library (pme_path_find, pme_exec_dirs): the
 * first regular file of the access asked for, an empty entry the current
 * directory, a name that does not fit the buffer not found.
 */
#define TEST_NAME "t_names"
#include "check.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static void
both(const char *name, const char *want)
{
	char buf[64], *s;

	s = pme_with_ext(name, ".PME");
	if (s == NULL || strcmp(s, want) != 0)
		fail("pme_with_ext('%s'): '%s', not '%s'", name,
		    s ? s : "(null)", want);
	free(s);
	memset(buf, 'x', sizeof(buf));
	if (pme_name_trimmed(buf, sizeof(buf), name, ".PME") != 0 ||
	    strcmp(buf, want) != 0)
		fail("pme_name_trimmed('%s'): '%.64s', not '%s'", name, buf,
		    want);
}

static void
trimmed(const char *name, size_t len, int rc, const char *want)
{
	char buf[64];

	strcpy(buf, "old");
	if (pme_name_trimmed(buf, len, name, ".PMS") != rc ||
	    strcmp(buf, want) != 0)
		fail("pme_name_trimmed('%s', %zu): '%s', not %d '%s'",
		    name ? name : "(null)", len, buf, rc, want);
}

static void
touch(const char *path, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	if (fd == -1 || fchmod(fd, mode) == -1)
		fail("cannot make %s", path);
	if (fd != -1)
		close(fd);
}

static void
found(const char *dirs, int mode, size_t n, const char *want)
{
	char buf[PATH_MAX];
	const char *got = pme_path_find("prog", dirs, mode, buf, n);

	if ((got == NULL) != (want == NULL) || (got != NULL &&
	    strcmp(got, want) != 0))
		fail("pme_path_find(prog, '%s', %d, %zu): '%s', not '%s'",
		    dirs, mode, n, got ? got : "(null)",
		    want ? want : "(null)");
}

static void
path_find(void)
{
	char old[PATH_MAX], buf[256], *d[3], *dirs, *want[3];
	int i;

	for (i = 0; i < 3; i++) {
		d[i] = strdup(tmppath(i == 0 ? "a" : i == 1 ? "b" : "c"));
		if (d[i] == NULL || asprintf(&want[i], "%s/prog", d[i]) == -1)
			die("out of memory");
		mkdir(d[i], 0755);
	}
	/* a: prog a directory; b: prog not executable; c: the program. */
	mkdir(want[0], 0755);
	touch(want[1], 0644);
	touch(want[2], 0755);
	if (asprintf(&dirs, "%s:%s:%s", d[0], d[1], d[2]) == -1)
		die("out of memory");
	found(dirs, X_OK, PATH_MAX, want[2]);
	/* Readable is enough for a library: b's comes first. */
	found(dirs, R_OK, PATH_MAX, want[1]);
	/* Not fitting the buffer: not found, not cut. */
	found(dirs, X_OK, strlen(want[2]), NULL);
	found(d[0], X_OK, PATH_MAX, NULL);
	/* An empty entry is the current directory. */
	if (getcwd(old, sizeof(old)) != NULL && chdir(d[2]) == 0) {
		found(":/nonexistent", X_OK, PATH_MAX, "./prog");
		found("/nonexistent:", X_OK, PATH_MAX, "./prog");
		if (chdir(old) == -1)
			fail("chdir back: %s", strerror(errno));
	}
	setenv("PATH", "/x:/y", 1);
	if (strcmp(pme_exec_dirs(buf, sizeof(buf)), "/x:/y") != 0)
		fail("pme_exec_dirs with PATH: not PATH");
	unsetenv("PATH");
	if (strstr(pme_exec_dirs(buf, sizeof(buf)), "/bin") == NULL)
		fail("pme_exec_dirs without PATH: no /bin");
	for (i = 0; i < 3; i++) {
		free(d[i]);
		free(want[i]);
	}
	free(dirs);
}

int
main(void)
{
	both("PMEFILE", "PMEFILE.PME");
	both("run.pme", "run.pme");
	both("dir.d/run", "dir.d/run.PME");
	both("./run", "./run.PME");
	both(".hidden", ".hidden.PME");
	both(".hidden.x", ".hidden.x");
	both("a/b.c/", "a/b.c/.PME");
	both("-", "-");
	both("/dev/null", "/dev/null");
	both("/dev/stdout", "/dev/stdout");

	trimmed("RUN   ", 64, 0, "RUN.PMS");
	trimmed("RUN\t \t", 64, 0, "RUN.PMS");
	trimmed("R U N ", 64, 0, "R U N.PMS");
	trimmed("run.pms  ", 64, 0, "run.pms");
	trimmed("   ", 64, -1, "old");
	trimmed("", 64, -1, "old");
	trimmed(NULL, 64, -1, "old");
	trimmed("abcd", 9, 0, "abcd.PMS");
	trimmed("abcde", 9, -1, "old");
	trimmed("abcde.x", 8, 0, "abcde.x");
	trimmed("abcde.xy", 8, -1, "old");
	path_find();
	return failures != 0;
}
