/*
 * pmevg.c - the pmevg engine: runs the command under valgrind with pme's
 * own tool (trace/vgtool/pmevg.c, pmevg-amd64-linux), which counts every
 * instruction per address, then reads its counts files and tallies.
 *
 * The tool is found in the folder "vgtool" beside pmetrace's executable
 * (the build tree) or else in PMEVG_LIBDIR (where make install puts it);
 * that folder is valgrind's VALGRIND_LIB for the run, so it holds links
 * to the system's vgpreload_core-amd64-linux.so too.
 *
 * Addresses.  The tool gives each instruction's run-time address with
 * the file mapping that held it (start, end, file offset, path); the
 * link-time address is the file offset's through the object's program
 * headers (pme_elf_addr), for the main executable, shared objects and
 * the code outside their .text (PLT stubs, .init, .fini) alike.  Code in
 * no file (the vdso) is unmapped.
 *
 * Processes.  --trace-children=yes: every process writes its own files
 * (pv.PID.SEQ), one when it ends, one before each execve and one at each
 * libpmetrace region's end; a forked child starts from zero.  When a
 * region dump exists, only region dumps are read.  Each file ends with
 * the sum of its counts, checked as it is read: a file cut short or that
 * does not add up is an error naming it.  A process killed by SIGKILL
 * writes nothing at its end: what it counted since its last dump is
 * lost.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "pme_sample.h"
#include "trace.h"
#include "prog.h"
#include "util.h"

#ifndef PMEVG_LIBDIR
#define PMEVG_LIBDIR	"/usr/local/lib/pme"
#endif
#define PMEVG_TOOL	"pmevg-amd64-linux"

/* A mapping of a counts file, ready for the tally. */
struct pvmap {
	uint64_t	 start, end, offset;
	uint32_t	 module;
	struct pme_elf	 elf;
};

/* One counts file being read. */
struct pvfile {
	const char	*name;
	struct pvmap	*maps;
	size_t		 nmaps;
	char		 exe[PATH_MAX];	/* its executable, real path */
	uint64_t	 sum;
	int		 ended;		/* its "end" line read */
};

/* The folder holding the tool, or NULL (the caller frees it). */
static char *
tool_dir(void)
{
	char self[PATH_MAX], *dir, *slash;
	ssize_t n;

	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			if (asprintf(&dir, "%s/vgtool", self) != -1) {
				if (pme_path_find(PMEVG_TOOL, dir, X_OK, self,
				    sizeof(self)) != NULL)
					return dir;
				free(dir);
			}
		}
	}
	if (pme_path_find(PMEVG_TOOL, PMEVG_LIBDIR, X_OK, self,
	    sizeof(self)) != NULL)
		return strdup(PMEVG_LIBDIR);
	return NULL;
}

/* A "map INDEX START END OFFSET PATH" line's mapping. */
static int
add_map(struct tr_tally *t, struct pvfile *f, char *s)
{
	char real[PATH_MAX], *path;
	struct pvmap *m;
	size_t i;

	i = strtoul(s, &s, 16);
	if (i != f->nmaps)
		return -1;
	if ((m = realloc(f->maps, (i + 1) * sizeof(*m))) == NULL)
		return -2;
	f->maps = m;
	m += f->nmaps++;
	m->start = strtoull(s, &s, 16);
	m->end = strtoull(s, &s, 16);
	m->offset = strtoull(s, &s, 16);
	if (*s++ != ' ')
		return -1;
	path = s;
	pme_elf_read(path, &m->elf, NULL);	/* zeroed if unreadable */
	m->module = tr_tally_module(t, path, m->elf.buildid, m->elf.idlen,
	    f->exe[0] != '\0' && realpath(path, real) != NULL &&
	    strcmp(real, f->exe) == 0);
	return 0;
}

/*
 * The "ADDRESS INDEX|- COUNT" of a line: its mapping in *m (NULL for
 * "-", code in no file); -1 when it is not one.
 */
static int
entry(const struct pvfile *f, char *s, uint64_t *a, const struct pvmap **m,
    uint64_t *n)
{
	size_t i;

	*a = strtoull(s, &s, 16);
	if (*s++ != ' ')
		return -1;
	*m = NULL;
	if (*s == '-')
		s++;
	else if ((i = strtoul(s, &s, 16)) < f->nmaps)
		*m = &f->maps[i];
	else
		return -1;
	if (*s != ' ')
		return -1;
	*n = strtoull(s, &s, 16);
	if (*s != '\0' || (*m != NULL && (*a < (*m)->start ||
	    *a >= (*m)->end)))
		return -1;
	return 0;
}

/* An "ADDRESS INDEX|- COUNT" line: instructions. */
static int
add_count(struct tr_tally *t, struct pvfile *f, char *s)
{
	const struct pvmap *m;
	uint64_t a, n;

	if (entry(f, s, &a, &m, &n) == -1)
		return -1;
	f->sum += n;
	if (m == NULL)
		tr_tally_add(t, PME_NONE, a, a, 1, n);
	else
		tr_tally_add(t, m->module, pme_elf_addr(&m->elf, a -
		    m->start + m->offset), a, 1, n);
	return 0;
}

/* A "c ADDRESS INDEX|- COUNT" line: calls; to no file, not kept. */
static int
add_calls(struct tr_tally *t, struct pvfile *f, char *s)
{
	const struct pvmap *m;
	uint64_t a, n;

	if (entry(f, s, &a, &m, &n) == -1)
		return -1;
	if (m != NULL)
		tr_tally_calls(t, m->module, pme_elf_addr(&m->elf, a -
		    m->start + m->offset), n);
	return 0;
}

/*
 * A "j ADDRESS INDEX|- COUNT FROM-INDEX|-" line, the qemu engine's:
 * jumps and branches taken from code of the mapping FROM-INDEX, which are
 * calls when pmevg would take them for calls (tr_tally_jumps); "J", the
 * same after a move into the stack pointer (switched).
 */
static int
add_jumps(struct tr_tally *t, struct pvfile *f, char *s, int switched)
{
	const struct pvmap *m, *from = NULL;
	char *sp, *end;
	uint64_t a, n;
	size_t i;

	if ((sp = strrchr(s, ' ')) == NULL)
		return -1;
	*sp++ = '\0';
	if (strcmp(sp, "-") != 0) {
		i = strtoul(sp, &end, 16);
		if (*end != '\0' || end == sp || i >= f->nmaps)
			return -1;
		from = &f->maps[i];
	}
	if (entry(f, s, &a, &m, &n) == -1)
		return -1;
	if (m != NULL)
		tr_tally_jumps(t, m->module, pme_elf_addr(&m->elf, a -
		    m->start + m->offset), from != NULL ? from->module :
		    PME_NONE, switched, n);
	return 0;
}

/* Reads the counts file name into t; 1 when it was skipped (not a
 * region dump while region is set). */
static int
read_file(struct tr_tally *t, const char *name, int region,
    struct pme_error *err)
{
	struct pvfile f;
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	FILE *fp;
	int rc = 0;

	memset(&f, 0, sizeof(f));
	f.name = name;
	if ((fp = fopen(name, "re")) == NULL)
		return pme_setsys(err, name, "cannot read");
	while (rc == 0 && (len = getline(&line, &cap, fp)) > 0) {
		lineno++;
		if (line[len - 1] != '\n') {
			rc = -3;
			break;
		}
		line[len - 1] = '\0';
		if (f.ended)
			rc = -1;
		else if (strncmp(line, "exe ", 4) == 0)
			tr_real_command(line + 4, f.exe);
		else if (strncmp(line, "trigger ", 8) == 0) {
			if (region && strcmp(line + 8, "region") != 0)
				rc = 1;
		} else if (strncmp(line, "map ", 4) == 0)
			rc = add_map(t, &f, line + 4);
		else if (strncmp(line, "c ", 2) == 0)
			rc = add_calls(t, &f, line + 2);
		else if (strncmp(line, "j ", 2) == 0 ||
		    strncmp(line, "J ", 2) == 0)
			rc = add_jumps(t, &f, line + 2, line[0] == 'J');
		else if (strncmp(line, "end ", 4) == 0) {
			if (strtoull(line + 4, NULL, 16) != f.sum)
				rc = -4;
			f.ended = 1;
		} else if (strncmp(line, "pmevg ", 6) != 0 &&
		    strncmp(line, "pid ", 4) != 0)
			rc = add_count(t, &f, line);
	}
	if (rc == -1)
		pme_seterr(err, PME_EFORMAT, "'%s': line %zu: not a pmevg "
		    "counts line", name, lineno);
	else if (rc == -3)
		pme_seterr(err, PME_EFORMAT, "'%s': line %zu: cut short: the "
		    "file ends inside a line", name, lineno);
	else if (rc == -4)
		pme_seterr(err, PME_EFORMAT, "'%s': line %zu: the end line "
		    "does not give the sum of the counts (%llu)", name, lineno,
		    (unsigned long long)f.sum);
	else if (rc == -2)
		pme_setnomem(err);
	else if (rc == 0 && ferror(fp))
		rc = pme_setsys(err, name, "cannot read");
	else if (rc == 0 && !f.ended)
		rc = pme_seterr(err, PME_EFORMAT, "'%s': cut short: the file "
		    "ends before its end line", name);
	free(line);
	free(f.maps);
	fclose(fp);
	return rc < 0 ? -1 : rc;
}

int
tr_pmevg_read(struct tr_tally *t, const char *name, int region,
    struct pme_error *err)
{
	return read_file(t, name, region, err);
}

/* Whether the counts file name is a region dump. */
static int
is_region(const char *name)
{
	char line[256];
	FILE *fp;
	int n, found = 0;

	if ((fp = fopen(name, "re")) == NULL)
		return 0;
	for (n = 0; n < 4 && fgets(line, sizeof(line), fp) != NULL; n++)
		if (strcmp(line, "trigger region\n") == 0)
			found = 1;
	fclose(fp);
	return found;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files named prefix* in dir, sorted; the caller frees them. */
static int
list_files(const char *dir, const char *prefix, char ***names, size_t *n,
    struct pme_error *err)
{
	struct dirent *de;
	char **v;
	DIR *d;

	*names = NULL;
	*n = 0;
	if ((d = opendir(dir)) == NULL)
		return pme_setsys(err, dir, "cannot read");
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		if ((v = realloc(*names, (*n + 1) * sizeof(*v))) == NULL ||
		    asprintf(&v[*n], "%s/%s", dir, de->d_name) == -1) {
			if (v != NULL)
				*names = v;
			closedir(d);
			return pme_setnomem(err);
		}
		*names = v;
		(*n)++;
	}
	closedir(d);
	if (*n > 0)
		qsort(*names, *n, sizeof(**names), name_cmp);
	return 0;
}

/* Reads every counts file of dir into t, written by engine's tool. */
int
tr_pvdir_read(struct tr_tally *t, const struct tr_opts *o, const char *dir,
    const char *engine, struct pme_error *err)
{
	char **names;
	size_t n, i, nread = 0;
	int region = 0, rc;

	if ((rc = list_files(dir, "pv.", &names, &n, err)) == -1)
		return -1;
	for (i = 0; i < n && !region; i++)
		region = is_region(names[i]);
	for (i = 0; i < n && rc == 0; i++)
		if ((rc = read_file(t, names[i], region, err)) == 0)
			nread++;
		else if (rc == 1)
			rc = 0;
	if (rc == 0 && nread == 0)
		rc = pme_seterr(err, PME_EIO, "%s wrote no counts: every "
		    "process ended before writing them", engine);
	if (rc == 0 && o->verbose)
		fprintf(stderr, "pmetrace: %s: %zu counts files, %zu read"
		    "%s\n", engine, n, nread, region ? "; the libpmetrace region only" :
		    "");
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/*
 * The first line of valgrind's logs in dir (log.PID) that says what went
 * wrong, its own ("valgrind: ...") or the tool's ("==PID== Error: ..."),
 * in out; "" when none does.
 */
static void
log_reason(const char *dir, char *out, size_t len)
{
	char **names = NULL, *line = NULL, *m;
	size_t n = 0, i, cap = 0;
	struct pme_error err;
	ssize_t got;
	FILE *fp;

	out[0] = '\0';
	if (list_files(dir, "log.", &names, &n, &err) == -1)
		return;
	for (i = 0; i < n; i++) {
		if (out[0] == '\0' && (fp = fopen(names[i], "re")) != NULL) {
			while (out[0] == '\0' &&
			    (got = getline(&line, &cap, fp)) > 0) {
				line[strcspn(line, "\n")] = '\0';
				m = strstr(line, "== ");
				if (strncmp(line, "valgrind:", 9) == 0 ||
				    (m != NULL && strncmp(m + 3, "Error",
				    5) == 0))
					snprintf(out, len, "%s", line);
			}
			fclose(fp);
		}
		free(names[i]);
	}
	free(names);
	free(line);
}

/*
 * Runs valgrind with the tool in lib and reads its counts into t.  As
 * with callgrind, pmetrace waits with the signals that would end it
 * blocked (passing on those sent to it), and reads and removes the
 * temporary directory before they take effect.
 */
static int
run(struct tr_tally *t, const char *vg, const char *lib,
    const struct tr_opts *o, int *status, struct pme_error *err)
{
	char dirarg[PATH_MAX + 32], logarg[PATH_MAX + 32], reason[256], *dir;
	char startarg[PATH_MAX + 64], stoparg[PATH_MAX + 64];
	/* valgrind's messages (a fatal signal's) go to its logs, as with
	 * callgrind: the program's standard error is the program's. */
	char *args[9] = { (char *)"valgrind", (char *)"--tool=pmevg",
	    (char *)"--trace-children=yes", (char *)"--vgdb=no", dirarg,
	    logarg };
	size_t nargs = 6;
	struct tr_sigsave ss;
	pid_t pid;
	int st, rc = -1;

	if (o->startspec != NULL) {
		snprintf(startarg, sizeof(startarg), "--pmevg-start=%s",
		    o->startspec);
		args[nargs++] = startarg;
	}
	if (o->stopspec != NULL) {
		snprintf(stoparg, sizeof(stoparg), "--pmevg-stop=%s",
		    o->stopspec);
		args[nargs++] = stoparg;
	}
	args[nargs++] = (char *)"--";

	tr_block_signals(&ss);
	if ((dir = tr_tmpdir(err)) == NULL) {
		tr_restore_signals(&ss);
		return -1;
	}
	snprintf(dirarg, sizeof(dirarg), "--pmevg-dir=%s", dir);
	snprintf(logarg, sizeof(logarg), "--log-file=%s/log.%%p", dir);
	if ((pid = tr_spawn(vg, args, nargs, "pmevg", lib, o, &ss,
	    err)) != -1) {
		if (tr_wait_child(pid, &ss, &st) == -1)
			pme_setsys(err, vg, "cannot wait for");
		else {
			*status = pme_exit_status(st);
			if ((rc = tr_pvdir_read(t, o, dir, "pmevg", err)) == -1) {
				size_t n = strlen(err->msg);

				log_reason(dir, reason, sizeof(reason));
				snprintf(err->msg + n, sizeof(err->msg) - n,
				    " (valgrind exit status %d%s%s)", *status,
				    reason[0] ? ": " : "", reason);
			}
		}
	}
	if (getenv("PMETRACE_KEEP") != NULL)
		fprintf(stderr, "pmetrace: pmevg output kept in '%s'\n", dir);
	else
		pme_remove_dir(dir);
	pme_guard_forget();
	free(dir);
	tr_restore_signals(&ss);
	return rc;
}

int
engine_pmevg(struct tr_tally *t, const struct tr_opts *o, int *status,
    struct pme_error *err)
{
	char *vg, *lib;
	int rc;

	*status = -1;
	if ((lib = tool_dir()) == NULL) {
		pme_seterr(err, PME_EIO, "pme's valgrind tool (%s) is not "
		    "built here", PMEVG_TOOL);
		return ENGINE_MISSING;
	}
	if ((vg = callgrind_find()) == NULL) {
		free(lib);
		pme_seterr(err, PME_EIO, "valgrind is not installed (not "
		    "found in PATH)");
		return ENGINE_MISSING;
	}
	rc = run(t, vg, lib, o, status, err);
	free(vg);
	free(lib);
	return rc;
}
