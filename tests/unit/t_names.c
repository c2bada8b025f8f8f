/*
 * t_names.c - the seed's rule for file names (lib/util.h): pme_with_ext()
 * for the programs and pme_name_trimmed() for the runtimes' entries
 * (pme_sname, pme_iname, pme_oname), which must agree: the extension
 * added only when the last component has none (a leading dot is not
 * one), "-" and special files kept, and for the runtimes trailing blanks
 * and tabs trimmed first, nothing left or too long refused.
 */
#define TEST_NAME "t_names"
#include "check.h"

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
	return failures != 0;
}
