/*
 * t_writer - how libpme's writer treats the name it writes (pme(5),
 * Writing; libpme(3)): the live mode of sample files against the
 * default, what is already at the name (a previous file, a symbolic
 * link, a hard link, a directory, a FIFO), a full disk, abort and
 * discard, and the temporary names left for a guardian.  Runs in a
 * directory of its own under $TMPDIR, with names relative to it.
 */
#define TEST_NAME "t_writer"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "check.h"
#include "pme.h"

#define TEXT	PME_FOURCC('T', 'E', 'X', 'T')

/* The names in the current directory that begin with '.', but . and ..,
 * in one string (empty when there are none); with del, every entry is
 * removed instead. */
static const char *
hidden(int del)
{
	static char names[4096];
	struct dirent *e;
	DIR *d = opendir(".");

	names[0] = '\0';
	while (d != NULL && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (del)
			unlink(e->d_name);
		else if (e->d_name[0] == '.' &&
		    strlen(names) + strlen(e->d_name) + 2 < sizeof(names)) {
			strcat(names, " ");
			strcat(names, e->d_name);
		}
	}
	if (d != NULL)
		closedir(d);
	return names;
}

#define NO_HIDDEN() do { \
	const char *h_ = hidden(0); \
	if (*h_ != '\0') \
		fail("%s:%d: left behind:%s", __FILE__, __LINE__, h_); \
} while (0)

static void
put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* Whether path holds exactly text. */
static int
holds(const char *path, const char *text)
{
	uint8_t *buf;
	size_t len;
	int ok;

	if (access(path, F_OK) != 0)
		return 0;
	buf = readfile(path, &len);
	ok = len == strlen(text) && memcmp(buf, text, len) == 0;
	free(buf);
	return ok;
}

/* Whether path is a pme file whose chunks are the TEXT payloads given,
 * complete (with END) or cut short after them. */
static int
chunks(const char *path, int complete, const char *p1, const char *p2)
{
	const char *want[2] = { p1, p2 };
	struct pme_error err;
	struct pme_reader *r;
	struct pme_chunk c;
	int i, ok = 1;

	if ((r = pme_reader_open(path, PME_KIND_SAMPLE, &err)) == NULL)
		return 0;
	for (i = 0; i < 2 && want[i] != NULL; i++)
		ok = ok && pme_reader_next(r, &c, &err) == 1 &&
		    c.type == TEXT &&
		    pme_reader_payload(r, &c, 4096, &err) == 1 &&
		    c.len == strlen(want[i]) &&
		    memcmp(c.data, want[i], c.len) == 0;
	ok = ok && pme_reader_next(r, &c, &err) == 0 &&
	    pme_reader_lost(r) == (complete ? -1 : 0);
	pme_reader_close(r);
	return ok;
}

static struct pme_writer *
open_with(const char *path, unsigned flags, const char *text)
{
	struct pme_error err;
	struct pme_writer *w;

	w = pme_writer_open(path, PME_KIND_SAMPLE, flags, &err);
	if (w == NULL) {
		fail("%s", pme_strerror(&err));
		return NULL;
	}
	if (text != NULL)
		CHECK(pme_writer_chunk(w, TEXT, text, strlen(text), 0,
		    &err) == 0);
	return w;
}

static int
commit(struct pme_writer *w)
{
	struct pme_error err;

	return pme_writer_commit(w, &err);
}

/*
 * Live: the new file is at the name from the open on, the previous one
 * under the temporary name until commit removes it; the default mode
 * leaves the name alone until commit.
 */
static void
test_live(void)
{
	struct pme_writer *w;
	const char *tmp;
	int isnew = -1;
	mode_t old;
	struct stat st;

	put("a.pms", "previous");
	old = umask(027);
	w = open_with("a.pms", PME_WRITE_LIVE, "one");
	umask(old);
	if (w == NULL)
		return;
	CHECK(chunks("a.pms", 0, "one", NULL));
	tmp = pme_writer_tmpname(w, &isnew);
	CHECK(tmp != NULL && strncmp(tmp, ".a.pms.", 7) == 0 && isnew == 0);
	CHECK(tmp != NULL && holds(tmp, "previous"));
	CHECK(commit(w) == 0);
	CHECK(chunks("a.pms", 1, "one", NULL));
	CHECK(stat("a.pms", &st) == 0 && (st.st_mode & 0777) == 0640);
	NO_HIDDEN();

	/* Nothing there before: nothing set aside. */
	w = open_with("b.pms", PME_WRITE_LIVE, "two");
	if (w == NULL)
		return;
	CHECK(pme_writer_tmpname(w, &isnew) == NULL && isnew == 0);
	CHECK(chunks("b.pms", 0, "two", NULL));
	CHECK(commit(w) == 0);
	CHECK(chunks("b.pms", 1, "two", NULL));
	NO_HIDDEN();

	/* The default: the file waits, with no name where O_TMPFILE works
	 * (a kill then leaves nothing), else under the temporary name. */
	w = open_with("b.pms", 0, "three");
	if (w == NULL)
		return;
	tmp = pme_writer_tmpname(w, &isnew);
	CHECK(tmp != NULL && isnew == 1);
	if (anon_tmpfiles()) {
		CHECK(tmp != NULL && access(tmp, F_OK) == -1);
		NO_HIDDEN();
	} else
		CHECK(tmp != NULL && chunks(tmp, 0, "three", NULL));
	CHECK(chunks("b.pms", 1, "two", NULL));
	CHECK(commit(w) == 0);
	CHECK(chunks("b.pms", 1, "three", NULL));
	NO_HIDDEN();
	hidden(1);
}

/*
 * abort leaves a live file cut short at the name and removes the previous
 * one; discard puts the previous one back, or no file where there was
 * none.  In the default mode both leave the name as it was.
 */
static void
test_abort(void)
{
	struct pme_writer *w;

	put("c.pms", "previous");
	if ((w = open_with("c.pms", PME_WRITE_LIVE, "kept")) == NULL)
		return;
	pme_writer_abort(w);
	CHECK(chunks("c.pms", 0, "kept", NULL));
	NO_HIDDEN();

	put("c.pms", "previous");
	if ((w = open_with("c.pms", PME_WRITE_LIVE, "dropped")) == NULL)
		return;
	pme_writer_discard(w);
	CHECK(holds("c.pms", "previous"));
	NO_HIDDEN();

	if ((w = open_with("d.pms", PME_WRITE_LIVE, "dropped")) == NULL)
		return;
	pme_writer_discard(w);
	CHECK(access("d.pms", F_OK) != 0);

	if ((w = open_with("c.pms", 0, "dropped")) == NULL)
		return;
	pme_writer_abort(w);
	CHECK(holds("c.pms", "previous"));
	if ((w = open_with("c.pms", 0, "dropped")) == NULL)
		return;
	pme_writer_discard(w);
	CHECK(holds("c.pms", "previous"));
	NO_HIDDEN();
	pme_writer_discard(NULL);
	CHECK(pme_writer_tmpname(NULL, NULL) == NULL);
	hidden(1);
}

/*
 * A full disk, played by a file size limit with SIGXFSZ ignored: the
 * write fails with EFBIG, and at once (before commit) the name is as it
 * was, in both modes.  In a child, which the limit would hamper.
 */
static int
full_child(unsigned flags, const char *path, int previous)
{
	static char big[100000];
	struct rlimit rl = { 8192, RLIM_INFINITY };
	struct pme_error err;
	struct pme_writer *w;

	signal(SIGXFSZ, SIG_IGN);
	memset(big, 'x', sizeof(big) - 1);
	if (setrlimit(RLIMIT_FSIZE, &rl) == -1 ||
	    (w = open_with(path, flags, "small")) == NULL)
		return 2;
	if (pme_writer_chunk(w, TEXT, big, sizeof(big), 0, &err) != -1 ||
	    err.code != PME_EIO || err.sys_errno != EFBIG ||
	    strstr(err.msg, path) == NULL)
		return 3;
	if (previous ? !holds(path, "previous") : access(path, F_OK) == 0)
		return 4;
	if (*hidden(0) != '\0' || pme_writer_tmpname(w, NULL) != NULL)
		return 5;
	if (pme_writer_chunk(w, TEXT, "x", 1, 0, &err) != -1 ||
	    pme_writer_commit(w, &err) != -1 || err.code != PME_EIO)
		return 6;
	return 0;
}

static void
test_full(void)
{
	static const unsigned modes[] = { PME_WRITE_LIVE, 0 };
	int i, status;
	pid_t pid;

	for (i = 0; i < 4; i++) {
		put("e.pms", "previous");
		if (i >= 2)
			unlink("e.pms");
		fflush(NULL);
		if ((pid = fork()) == 0)
			_exit(full_child(modes[i % 2], "e.pms", i < 2));
		CHECK(waitpid(pid, &status, 0) == pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fail("full disk, case %d: child status 0x%x", i,
			    status);
		CHECK(i < 2 ? holds("e.pms", "previous") :
		    access("e.pms", F_OK) != 0);
		NO_HIDDEN();
	}
	hidden(1);
}

/*
 * A symbolic link at the name is replaced, never followed, whether it
 * points to a file (another user's "victim") or nowhere; a hard link's
 * other name keeps its bytes.  Nothing is truncated.
 */
static void
test_links(void)
{
	static const unsigned modes[] = { PME_WRITE_LIVE, 0 };
	struct pme_writer *w;
	struct stat st;
	int i;

	for (i = 0; i < 2; i++) {
		put("victim", "not a sample file");
		CHECK(symlink("victim", "f.pms") == 0);
		CHECK(symlink("created", "g.pms") == 0);
		CHECK(link("victim", "h.pms") == 0);
		if ((w = open_with("f.pms", modes[i], "one")) != NULL)
			CHECK(commit(w) == 0);
		if ((w = open_with("g.pms", modes[i], "two")) != NULL)
			CHECK(commit(w) == 0);
		if ((w = open_with("h.pms", modes[i], "three")) != NULL)
			CHECK(commit(w) == 0);
		CHECK(holds("victim", "not a sample file"));
		CHECK(access("created", F_OK) != 0);
		CHECK(lstat("f.pms", &st) == 0 && S_ISREG(st.st_mode));
		CHECK(chunks("f.pms", 1, "one", NULL));
		CHECK(lstat("g.pms", &st) == 0 && S_ISREG(st.st_mode));
		CHECK(chunks("h.pms", 1, "three", NULL));
		NO_HIDDEN();

		/* A failed live write puts the link back. */
		unlink("f.pms");
		CHECK(symlink("victim", "f.pms") == 0);
		if ((w = open_with("f.pms", modes[i], "dropped")) != NULL)
			pme_writer_discard(w);
		CHECK(lstat("f.pms", &st) == 0 && S_ISLNK(st.st_mode));
		CHECK(holds("victim", "not a sample file"));
		hidden(1);
	}
}

/*
 * What is not a file to replace: a directory is refused; a FIFO of the
 * caller's is written directly and stays a FIFO; one of another user is
 * refused (checked where the test may give it away: as root).
 */
static void
test_special(void)
{
	struct pme_error err;
	struct pme_writer *w;
	struct stat st;
	uint8_t buf[256];
	ssize_t n;
	int fd, i;

	CHECK(mkdir("dir.pms", 0777) == 0);
	for (i = 0; i < 2; i++) {
		w = pme_writer_open("dir.pms", PME_KIND_SAMPLE,
		    i ? PME_WRITE_LIVE : 0, &err);
		CHECK(w == NULL && err.code == PME_EIO &&
		    err.sys_errno == EISDIR);
		CHECK(strcmp(err.msg, "'dir.pms': cannot create: "
		    "Is a directory") == 0);
		CHECK(stat("dir.pms", &st) == 0 && S_ISDIR(st.st_mode));
	}
	CHECK(rmdir("dir.pms") == 0);
	NO_HIDDEN();

	CHECK(mkfifo("fifo.pms", 0666) == 0);
	fd = open("fifo.pms", O_RDONLY | O_NONBLOCK);
	CHECK(fd != -1);
	if ((w = open_with("fifo.pms", PME_WRITE_LIVE, "piped")) != NULL) {
		CHECK(pme_writer_tmpname(w, NULL) == NULL);
		CHECK(commit(w) == 0);
	}
	n = read(fd, buf, sizeof(buf));
	CHECK(n == 16 + 20 + 5 + 20 && memcmp(buf + 36, "piped", 5) == 0);
	close(fd);
	CHECK(lstat("fifo.pms", &st) == 0 && S_ISFIFO(st.st_mode));
	NO_HIDDEN();
	if (geteuid() == 0 && chown("fifo.pms", 4242, 4242) == 0) {
		w = pme_writer_open("fifo.pms", PME_KIND_SAMPLE,
		    PME_WRITE_LIVE, &err);
		CHECK(w == NULL && err.sys_errno == EPERM);
		CHECK(strcmp(err.msg, "'fifo.pms': not written, a special "
		    "file of another user: Operation not permitted") == 0);
		CHECK(lstat("fifo.pms", &st) == 0 && S_ISFIFO(st.st_mode));
	}
	NO_HIDDEN();
	hidden(1);
}

int
main(void)
{
	if (chdir(testdir()) == -1)
		die("%s: %s", testdir(), strerror(errno));
	test_live();
	test_abort();
	test_full();
	test_links();
	test_special();
	testdir_done();
	return failures ? 1 : 0;
}
