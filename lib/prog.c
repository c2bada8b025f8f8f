/*
 * prog.c - program support (prog.h): the seed's questions, a child's end
 * as an exit status.
 */
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "prog.h"
#include "setid.h"
#include "util.h"

ssize_t
pme_read_line(FILE *fp, char **buf, size_t *cap)
{
	ssize_t n = getline(buf, cap, fp);

	if (n < 0)
		return -1;
	while (n > 0 && ((*buf)[n - 1] == '\n' || (*buf)[n - 1] == '\r'))
		(*buf)[--n] = '\0';
	return n;
}

char *
pme_ask(const char *question, const char *def)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;

	fputs(question, stderr);
	fflush(stderr);
	if ((n = pme_read_line(stdin, &buf, &cap)) < 0)
		fputc('\n', stderr);	/* end the prompt's line */
	if (n < 0 || strspn(buf, " \t") == (size_t)n) {
		free(buf);
		return def != NULL ? strdup(def) : NULL;
	}
	return buf;
}

int
pme_exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* The output out (lstat) is the file in, or the same link. */
static int
same_file(const struct stat *out, const char *in)
{
	struct stat st;

	return (stat(in, &st) == 0 && st.st_dev == out->st_dev &&
	    st.st_ino == out->st_ino) || (lstat(in, &st) == 0 &&
	    st.st_dev == out->st_dev && st.st_ino == out->st_ino);
}

int
pme_out_check(const char *out, uint32_t kind, const char *what,
    const char *const *in, size_t nin, struct pme_error *err)
{
	char s1[32], s2[32];
	struct stat st;
	uint32_t has;
	size_t i;

	if (what == NULL)
		what = pme_kind_words(kind, s1);
	if (strcmp(out, "-") == 0 || lstat(out, &st) == -1 ||
	    !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
		return 0;
	for (i = 0; i < nin; i++)
		if (in[i] != NULL && strcmp(in[i], "-") != 0 &&
		    same_file(&st, in[i]))
			return pme_seterr(err, PME_EINVAL, "'%s' is the input "
			    "'%s': not replaced by %s; name another output",
			    out, in[i], what);
	if (!S_ISREG(st.st_mode) || (has = pme_file_kind(out)) == 0 ||
	    has == kind)
		return 0;
	return pme_seterr(err, PME_EINVAL, "'%s' is %s: not replaced by %s; "
	    "remove it or name another output", out, pme_kind_words(has, s2),
	    what);
}

int
pme_setid_words(const char *file, char *who, size_t n)
{
	char buf[PATH_MAX];
	const char *path;
	struct passwd *pw;
	struct group *gr;
	unsigned id = 0;
	int kind;

	if ((path = setid_which(file, buf, sizeof(buf))) == NULL)
		return SETID_NONE;
	kind = setid_exec(path, &id);
	if (kind == SETID_UID) {
		pw = getpwuid((uid_t)id);
		snprintf(who, n, "a set-user-ID program of %s%s%suid %u%s",
		    pw ? "'" : "", pw ? pw->pw_name : "", pw ? "' (" : "", id,
		    pw ? ")" : "");
	} else if (kind == SETID_GID) {
		gr = getgrgid((gid_t)id);
		snprintf(who, n, "a set-group-ID program of %s%s%sgid %u%s",
		    gr ? "'" : "", gr ? gr->gr_name : "", gr ? "' (" : "", id,
		    gr ? ")" : "");
	} else if (kind == SETID_CAPS)
		snprintf(who, n, "a program with file capabilities");
	return kind;
}

void
pme_prog_writes(void)
{
	signal(SIGXFSZ, SIG_IGN);
}
