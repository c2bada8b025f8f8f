/*
 * prog.c - program support (prog.h): the seed's questions, a child's end
 * as an exit status.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "prog.h"
#include "setid.h"
#include "util.h"

/* Room for n + 1 more bytes in *buf, grown by doubling: 0, or -1. */
static int
line_room(char **buf, size_t *cap, size_t n)
{
	size_t c = *cap ? *cap : 128;
	char *b;

	if (*buf != NULL && n + 1 < *cap)
		return 0;
	while (c <= n + 1)
		c *= 2;
	if ((b = realloc(*buf, c)) == NULL)
		return -1;
	*buf = b;
	*cap = c;
	return 0;
}

ssize_t
pme_read_line(FILE *fp, char **buf, size_t *cap)
{
	size_t n = 0;
	int c;

	for (;;) {
		if (line_room(buf, cap, n) == -1)
			return -1;
		if ((c = getc_unlocked(fp)) == EOF || c == '\n')
			break;
		if (n == PME_LINE_MAX) {
			(*buf)[n] = '\0';
			return -2;
		}
		(*buf)[n++] = (char)c;
	}
	if (c == EOF && n == 0)
		return -1;
	while (n > 0 && (*buf)[n - 1] == '\r')
		n--;
	(*buf)[n] = '\0';
	return (ssize_t)n;
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

/* ------------------------------------------------------------ the guard */

/*
 * What the guard is told: records of an operation letter and strings,
 * each ended by a NUL: "K" pid, "X" dir, "R" tmp path (rename), "U" tmp
 * (remove), "F" (forget the records before), "D" (done).
 */
static pid_t guard_pid = -1;
static int guard_fd = -1;

/* The length of the record at p (of the n bytes left) with its strings,
 * 0 when it is cut short. */
static size_t
guard_record(const char *p, size_t n)
{
	const char *e = memchr(p, '\0', n);
	size_t len;

	if (e == NULL)
		return 0;
	len = (size_t)(e - p) + 1;
	if (p[0] != 'R')
		return len;
	if ((e = memchr(p + len, '\0', n - len)) == NULL)
		return 0;
	return (size_t)(e - p) + 1;
}

/* Does what the records of buf[0..n) say, kills first. */
static void
guard_act(const char *prog, const char *buf, size_t n)
{
	size_t at, len, from = 0;
	const char *r;
	int pass;

	for (at = 0; at < n && (len = guard_record(buf + at, n - at)) > 0;
	    at += len) {
		if (buf[at] == 'D')
			return;
		if (buf[at] == 'F')
			from = at + len;
	}
	n = at;
	for (pass = 0; pass < 2; pass++)
		for (at = from; at < n; at += guard_record(buf + at,
		    n - at)) {
			r = buf + at + 1;
			if (pass == 0 && buf[at] == 'K')
				kill((pid_t)atol(r), SIGKILL);
			if (pass == 1 && buf[at] == 'X')
				pme_remove_dir(r);
			if (pass == 1 && buf[at] == 'R' &&
			    rename(r, r + strlen(r) + 1) < 0)
				fprintf(stderr, "%s: '%s': rename: %s\n", prog,
				    r + strlen(r) + 1, strerror(errno));
			if (pass == 1 && buf[at] == 'U' && unlink(r) < 0 &&
			    errno != ENOENT)
				fprintf(stderr, "%s: '%s': cannot remove: "
				    "%s\n", prog, r, strerror(errno));
		}
}

static void __attribute__((noreturn))
guard_main(int fd, const char *prog, const char *name)
{
	static char buf[8 * PATH_MAX];
	size_t n = 0;
	ssize_t r;

	setpgid(0, 0);
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	prctl(PR_SET_NAME, name);
	if (fd != 3 && dup2(fd, 3) == 3)
		fd = 3;
	closefrom(fd + 1);
	close(STDIN_FILENO);
	close(STDOUT_FILENO);
	while (n < sizeof(buf) &&
	    ((r = read(fd, buf + n, sizeof(buf) - n)) > 0 ||
	    (r < 0 && errno == EINTR)))
		n += r > 0 ? (size_t)r : 0;
	guard_act(prog, buf, n);
	_exit(0);
}

int
pme_guard_start(const char *prog, const char *name, struct pme_error *err)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return pme_setsys(err, "pipe", "cannot make");
	fflush(NULL);
	if ((guard_pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return pme_setsys(err, "guard", "cannot fork");
	}
	if (guard_pid == 0) {
		close(p[1]);
		guard_main(p[0], prog, name);
	}
	close(p[0]);
	guard_fd = p[1];
	return 0;
}

/* Sends the record of op and the strings a and b (NULL: none). */
static void
guard_tell(int op, const char *a, const char *b)
{
	char msg[2 * PATH_MAX + 4];
	int n;

	if (guard_fd < 0)
		return;
	n = snprintf(msg, sizeof(msg), "%c%s%c%s", op, a != NULL ? a : "",
	    '\0', b != NULL ? b : "");
	if (n > 0 && (size_t)n < sizeof(msg))
		(void)!write(guard_fd, msg, (size_t)n + (b != NULL));
}

void
pme_guard_kill(pid_t pid)
{
	char s[24];

	snprintf(s, sizeof(s), "%ld", (long)pid);
	guard_tell('K', s, NULL);
}

void
pme_guard_rmdir(const char *dir)
{
	guard_tell('X', dir, NULL);
}

void
pme_guard_file(const char *tmp, const char *path, int isnew)
{
	if (isnew)
		guard_tell('R', tmp, path);
	else
		guard_tell('U', tmp, NULL);
}

void
pme_guard_forget(void)
{
	guard_tell('F', NULL, NULL);
}

void
pme_guard_end(void)
{
	if (guard_pid <= 0)
		return;
	guard_tell('D', NULL, NULL);
	close(guard_fd);
	guard_fd = -1;
	while (waitpid(guard_pid, NULL, 0) < 0 && errno == EINTR)
		;
	guard_pid = -1;
}

void
pme_remove_dir(const char *dir)
{
	struct dirent *de;
	char path[PATH_MAX];
	DIR *d;

	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
			    (de->d_name[1] == '.' && de->d_name[2] == '\0')))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(dir);
}

int
pme_pid_alive(long pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* "pid (comm) state ...": the comm may hold anything. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return 0;
	return p[2] != 'Z' && p[2] != 'X';
}

void
pme_prog_writes(void)
{
	signal(SIGXFSZ, SIG_IGN);
}
