/*
 * qemu.c - the qemu engine: runs the command under QEMU's user-mode
 * emulator (qemu-x86_64, Debian's qemu-user) with pme's TCG plugin
 * (trace/qemu/pmeqemu.c, pmeqemu.so), which counts every instruction
 * per address and writes pmevg's counts format; read as pmevg's
 * (tr_pvdir_read).  The plugin is found in the folder "qemu" beside
 * pmetrace's executable (the build tree), else in PMEVG_LIBDIR.
 *
 * QEMU runs the guest as the CPU model "max" (every feature it
 * emulates), so that the C library's ifuncs choose as they would on a
 * recent CPU; the counts of code whose path depends on the CPU (the C
 * library's string routines, the loader's start-up) still differ from
 * those of a run on the host (pmetrace(1)).  qemu-x86_64's and the
 * plugin's paths are in the environment (PMEQEMU_QEMU, PMEQEMU_PLUGIN)
 * for the plugin to run an exec'ed program under them too.
 * Programs QEMU cannot run (an instruction it does not emulate ends the
 * program with SIGILL) are said, naming the engine, with another to use.
 * A program that dies of a signal keeps its counts: the plugin's guard
 * writes them (pmeqemu.c), and holds the pipe PMEQEMU_WAIT names until
 * it has; run() reads the counts once that pipe is closed, and the
 * guards of forked children that have ended have written (wait_guards).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/file.h>

#include "trace.h"
#include "pme_sample.h"
#include "prog.h"
#include "util.h"

#ifndef PMEVG_LIBDIR
#define PMEVG_LIBDIR	"/usr/local/lib/pme"
#endif
#define QEMU_PLUGIN	"pmeqemu.so"
#define QEMU_CMD	"qemu-x86_64"

/* The file offset of link-time address a in the segments of elf, into
 * *off; -1 when no segment's file bytes hold it. */
static int
elf_offset(const struct pme_elf *elf, uint64_t a, uint64_t *off)
{
	uint32_t i;

	for (i = 0; i < elf->nload; i++)
		if (a >= elf->load[i].vaddr && a - elf->load[i].vaddr <
		    elf->load[i].filesz) {
			*off = a - elf->load[i].vaddr + elf->load[i].offset;
			return 0;
		}
	return -1;
}

/* The plugin's path, or NULL (the caller frees it). */
static char *
plugin_path(void)
{
	char self[PATH_MAX], found[PATH_MAX], *slash;
	ssize_t n;

	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			strcpy(slash, "/qemu");
			if (pme_path_find(QEMU_PLUGIN, self, R_OK, found,
			    sizeof(found)) != NULL)
				return strdup(found);
		}
	}
	if (pme_path_find(QEMU_PLUGIN, PMEVG_LIBDIR, R_OK, found,
	    sizeof(found)) != NULL)
		return strdup(found);
	return NULL;
}

/* A range of link-time addresses. */
struct span {
	uint64_t	 start, end;
};

static int
span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sorts v[0..n) and merges those that overlap or touch; their count. */
static size_t
span_merge(struct span *v, size_t n)
{
	size_t i, o = 0;

	qsort(v, n, sizeof(*v), span_cmp);
	for (i = 0; i < n; i++)
		if (o > 0 && v[i].start <= v[o - 1].end) {
			if (v[i].end > v[o - 1].end)
				v[o - 1].end = v[i].end;
		} else
			v[o++] = v[i];
	return o;
}

/* Writes "r START END PATH" for [a, b), as file offsets in elf. */
static void
put_dense(FILE *fp, const struct pme_elf *elf, uint64_t a, uint64_t b,
    const char *real)
{
	if (b > a && elf_offset(elf, a, &a) == 0 &&
	    elf_offset(elf, b - 1, &b) == 0)
		fprintf(fp, "r %llx %llx %s\n", (unsigned long long)a,
		    (unsigned long long)b + 1, real);
}

/*
 * The entries of module i's routines (a line's are its routine's) as
 * "OFFSET PATH" lines (the file offset in the object at its real path),
 * and the code of its other buckets that no such routine covers (a
 * stripped object's rest, pmebuild's "[name]" routine, a .PMD's ranges),
 * where a call may go to any address, as "r START END PATH" lines:
 * without them, a call through a pointer into a stripped object's rest
 * would not be seen.  rs and ds: room for every range of the file.
 */
static void
module_entries(FILE *fp, const struct pme_bucketfile *bf, uint32_t i,
    const char *real, const struct pme_elf *elf, struct span *rs,
    struct span *ds)
{
	const struct pme_unit *u;
	const struct pme_range *r;
	const char *const *kinds;
	size_t nu, nk, nr = 0, nd = 0, j, k, s, x;
	uint64_t a, b;

	nu = pme_bucketfile_units(bf, &u);
	nk = pme_bucketfile_kinds(bf, &kinds);
	pme_bucketfile_ranges(bf, &r);
	for (j = 0; j < nu; j++) {
		k = j;
		if (u[k].module != i)
			continue;
		if (u[k].kind < nk && strcasecmp(kinds[u[k].kind], "LINE") ==
		    0 && u[k].parent < nu)
			k = u[k].parent;
		if (k != j)
			continue;	/* its routine's are its own */
		for (s = 0; s < u[k].nranges; s++) {
			if (u[k].kind < nk && strcasecmp(kinds[u[k].kind],
			    "ROUTINE") == 0 && u[k].name[0] != '[')
				rs[nr++] = (struct span){ r[u[k].range + s].start,
				    r[u[k].range + s].end };
			else
				ds[nd++] = (struct span){ r[u[k].range + s].start,
				    r[u[k].range + s].end };
		}
	}
	for (s = 0; s < nr; s++)
		if (elf_offset(elf, rs[s].start, &a) == 0)
			fprintf(fp, "%llx %s\n", (unsigned long long)a, real);
	nr = span_merge(rs, nr);
	nd = span_merge(ds, nd);
	for (s = 0, x = 0; s < nd; s++) {
		a = ds[s].start;
		while (x < nr && rs[x].end <= a)
			x++;
		for (k = x; k < nr && rs[k].start < ds[s].end; k++) {
			put_dense(fp, elf, a, rs[k].start, real);
			if (rs[k].end > a)
				a = rs[k].end;
		}
		b = ds[s].end;
		put_dense(fp, elf, a, b, real);
	}
}

/*
 * The plugin's entries (module_entries()) of every module of the bucket
 * file, in path: only the blocks that start at an entry or in such a
 * range, or end in an indirect branch or a conditional one to an entry,
 * call it back (pmeqemu.c).  -1 when it cannot be written, said in err.
 */
static int
write_entries(const struct pme_bucketfile *bf, const char *path,
    struct pme_error *err)
{
	const struct pme_module *m;
	const struct pme_unit *u;
	char real[PATH_MAX];
	struct pme_elf elf;
	struct pme_error e;
	struct span *rs, *ds;
	size_t nm, nu, n = 0, i;
	FILE *fp;
	int rc = 0;

	nm = pme_bucketfile_modules(bf, &m);
	nu = pme_bucketfile_units(bf, &u);
	for (i = 0; i < nu; i++)
		n += u[i].nranges;
	rs = calloc(n + 1, sizeof(*rs));
	ds = calloc(n + 1, sizeof(*ds));
	if (rs == NULL || ds == NULL) {
		free(rs);
		free(ds);
		return pme_setnomem(err);
	}
	if ((fp = fopen(path, "we")) == NULL) {
		free(rs);
		free(ds);
		return pme_setsys(err, path, "cannot write");
	}
	for (i = 0; i < nm; i++)
		if (m[i].path[0] != '\0' && realpath(m[i].path, real) != NULL &&
		    pme_elf_read(real, &elf, &e) == 0)
			module_entries(fp, bf, (uint32_t)i, real, &elf, rs, ds);
	free(rs);
	free(ds);
	if (ferror(fp) | (fclose(fp) != 0))
		rc = pme_setsys(err, path, "cannot write");
	return rc;
}

/*
 * The guards of the program's forked children (pmeqemu.c), each holding
 * the lock of its file dir/guard.PID.N until it has written the counts
 * of a child that died of a signal: for each child that has ended,
 * wait for that lock.  A child still running when the program has
 * ended is not waited for (its counts are those it wrote).
 */
static void
wait_guards(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *e;
	unsigned n;
	long pid;
	DIR *d;
	int fd;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (sscanf(e->d_name, "guard.%ld.%u", &pid, &n) != 2 ||
		    pme_pid_alive(pid))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;	/* its guard is done */
		while (flock(fd, LOCK_EX) == -1 && errno == EINTR)
			continue;
		close(fd);
	}
	closedir(d);
}

static int
run(struct tr_tally *t, const char *qemu, const char *plugin,
    const struct tr_opts *o, int *status, struct pme_error *err)
{
	/* QEMU does not look for the program in PATH: it gets the path
	 * found, and the program its argv[0] through -0. */
	char *args[] = { (char *)QEMU_CMD, (char *)"-cpu", (char *)"max",
	    (char *)"-plugin", (char *)plugin, (char *)"-0", o->argv[0],
	    (char *)"--" };
	struct tr_opts qo = *o;
	struct tr_sigsave ss;
	char **argv, *dir, fd[16], entries[PATH_MAX];
	int wp[2] = { -1, -1 };
	size_t argc;
	pid_t pid;
	int st, rc = -1;

	for (argc = 0; o->argv[argc] != NULL; argc++)
		continue;
	if ((argv = calloc(argc + 1, sizeof(*argv))) == NULL)
		return pme_setnomem(err);
	memcpy(argv, o->argv, argc * sizeof(*argv));
	argv[0] = (char *)o->exe;
	qo.argv = argv;
	tr_block_signals(&ss);
	if ((dir = tr_tmpdir(err)) == NULL) {
		tr_restore_signals(&ss);
		free(argv);
		return -1;
	}
	if (o->bf != NULL) {
		snprintf(entries, sizeof(entries), "%s/entries", dir);
		if (write_entries(o->bf, entries, err) == -1)
			goto out;
		setenv("PMEQEMU_ENTRIES", entries, 1);
	}
	/* The plugin's guard holds wp[1] until it has written what QEMU
	 * could not (the program died of a signal). */
	if (pipe2(wp, O_CLOEXEC) == -1 || fcntl(wp[1], F_SETFD, 0) == -1) {
		pme_setsys(err, "pipe", "cannot make");
		if (wp[0] != -1) {
			close(wp[0]);
			close(wp[1]);
		}
		goto out;
	}
	snprintf(fd, sizeof(fd), "%d", wp[1]);
	setenv("PMEQEMU_WAIT", fd, 1);
	setenv("PMEQEMU_DIR", dir, 1);
	setenv("PMEQEMU_EXE", o->exe, 1);
	setenv("PMEQEMU_QEMU", qemu, 1);	/* for the execs it follows */
	setenv("PMEQEMU_PLUGIN", plugin, 1);
	if (o->startspec != NULL)
		setenv("PMEQEMU_START", o->startspec, 1);
	if (o->stopspec != NULL)
		setenv("PMEQEMU_STOP", o->stopspec, 1);
	pid = tr_spawn(qemu, args, sizeof(args) / sizeof(args[0]), "qemu",
	    NULL, &qo, &ss, err);
	close(wp[1]);
	unsetenv("PMEQEMU_WAIT");
	unsetenv("PMEQEMU_DIR");
	unsetenv("PMEQEMU_EXE");
	unsetenv("PMEQEMU_START");
	unsetenv("PMEQEMU_STOP");
	unsetenv("PMEQEMU_QEMU");
	unsetenv("PMEQEMU_PLUGIN");
	unsetenv("PMEQEMU_ENTRIES");
	if (pid != -1) {
		if (tr_wait_child(pid, &ss, &st) == -1)
			pme_setsys(err, qemu, "cannot wait for");
		else {
			*status = pme_exit_status(st);
			while (read(wp[0], fd, 1) == -1 && errno == EINTR)
				continue;
			wait_guards(dir);
			rc = tr_pvdir_read(t, o, dir, "qemu", err);
			if (rc == 0 && *status == 128 + SIGILL && !o->quiet)
				fprintf(stderr, "pmetrace: the program died "
				    "of SIGILL under the qemu engine: QEMU may "
				    "not emulate one of its instructions "
				    "(try -e pmevg)\n");
			if (rc == -1 && *status > 128)
				pme_seterr(err, PME_EIO, "the program died of "
				    "signal %d%s under the qemu engine, which "
				    "wrote no counts: use -e pmevg", *status - 128, *status == 128 +
				    SIGILL ? " (an instruction QEMU does not "
				    "emulate?)" : "");
			else if (rc == -1) {
				size_t n = strlen(err->msg);

				snprintf(err->msg + n, sizeof(err->msg) - n,
				    " (%s exit status %d: QEMU cannot run "
				    "this program? try -e pmevg)", QEMU_CMD,
				    *status);
			}
		}
	}
	close(wp[0]);
out:
	unsetenv("PMEQEMU_ENTRIES");
	if (getenv("PMETRACE_KEEP") != NULL)
		fprintf(stderr, "pmetrace: qemu output kept in '%s'\n", dir);
	else
		pme_remove_dir(dir);
	pme_guard_forget();
	free(dir);
	free(argv);
	tr_restore_signals(&ss);
	return rc;
}

int
engine_qemu(struct tr_tally *t, const struct tr_opts *o, int *status,
    struct pme_error *err)
{
	char *qemu, *plugin;
	int rc;

	*status = -1;
	if ((plugin = plugin_path()) == NULL) {
		pme_seterr(err, PME_EIO, "pme's QEMU plugin (%s) is not "
		    "built here", QEMU_PLUGIN);
		return ENGINE_MISSING;
	}
	if ((qemu = tr_find_in_path(QEMU_CMD)) == NULL) {
		free(plugin);
		pme_seterr(err, PME_EIO, "%s is not installed (Debian's "
		    "qemu-user)", QEMU_CMD);
		return ENGINE_MISSING;
	}
	rc = run(t, qemu, plugin, o, status, err);
	free(qemu);
	free(plugin);
	return rc;
}
