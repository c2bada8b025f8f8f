/*
 * fill.c - adding a run's counts to a bucket file (pme.h: pme_fill_*).
 *
 * A run's counts are tallied apart, into a copy of the file whose counts
 * were cleared; only then is the file locked, read again, added to and
 * replaced, so that the lock is held for the read-add-write alone and
 * runs that overlap each add their counts (pme(5)).
 *
 * The lock is flock(2) LOCK_EX on the file itself.  A writer replaces the
 * file by renaming a new one over its name, so a lock taken on the old
 * inode guards nothing once the name has moved on: after the lock is
 * granted, the name must still refer to the locked inode (fstat against
 * stat), else the lock is dropped and taken on what the name is now.
 * The file is read by its name, which is checked again after reading.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

struct pme_fill {
	int		 fd;		/* open on the file, locked */
	char		*path;
	struct pme_bucketfile *sum;
};

/* 1 when path names the file open at fd, 0 when not (or no longer). */
static int
same_file(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The file at path, open and locked; -1 with err filled. */
static int
lock_file(const char *path, struct pme_error *err)
{
	int fd;

	for (;;) {
		if ((fd = pme_open_read(path, err)) == -1)
			return -1;
		while (flock(fd, LOCK_EX) == -1)
			if (errno != EINTR) {
				pme_setsys(err, path, "cannot lock");
				close(fd);
				return -1;
			}
		if (same_file(fd, path))
			return fd;
		close(fd);	/* replaced while we waited: lock the new */
	}
}

static const char *
measure_name(uint32_t m)
{
	static const char *const names[] = {
		"none", "clock samples", "instructions", "page faults",
		"bytes allocated", "samples of an event"
	};

	return m < sizeof(names) / sizeof(names[0]) ? names[m] :
	    "of an unknown measure";
}

int
pme_fill_check(struct pme_bucketfile *bf, uint32_t measure,
    const char *path, struct pme_error *err)
{
	const struct pme_info *i = pme_bucketfile_info(bf);

	if (!(i->options & PME_OPT_ACCUM) || i->measure == PME_MEASURE_NONE ||
	    i->measure == measure)
		return 0;
	return pme_seterr(err, PME_EINVAL, "'%s': its counts are %s, not %s: "
	    "they cannot be added up (ACCUMCOUNTS)", path,
	    measure_name(i->measure), measure_name(measure));
}

/*
 * Readies sum, the file as read, for run's counts: cleared unless the
 * file accumulates (ACCUMCOUNTS), its measure checked, its second counts
 * made those of the run (run gets the file's, zero, when it has none and
 * the file accumulates: their counts are kept).
 */
static int
prepare(struct pme_bucketfile *sum, struct pme_bucketfile *run,
    const char *path, struct pme_error *err)
{
	struct pme_info *s = pme_bucketfile_info(sum);
	const char *c2s = pme_bucketfile_counts2(sum, NULL);
	const char *c2r = pme_bucketfile_counts2(run, NULL);
	const char *es = pme_bucketfile_event(sum, NULL);
	const char *er = pme_bucketfile_event(run, NULL);

	if (!(s->options & PME_OPT_ACCUM)) {
		pme_bucketfile_clear(sum);
		s->measure = PME_MEASURE_NONE;
		s->period = 0;
		return pme_bucketfile_set_counts2(sum, c2r, err);
	}
	if (pme_fill_check(sum, pme_bucketfile_info(run)->measure, path,
	    err) == -1)
		return -1;
	if (es != NULL && er != NULL && strcmp(es, er) != 0)
		return pme_seterr(err, PME_EINVAL, "'%s': its counts are "
		    "samples of %s, not of %s: they cannot be added up "
		    "(ACCUMCOUNTS)", path, es, er);
	if (c2r != NULL && (c2s == NULL || strcmp(c2s, c2r) != 0))
		return pme_bucketfile_set_counts2(sum, c2r, err);
	if (c2r == NULL && c2s != NULL)
		return pme_bucketfile_set_counts2(run, c2s, err);
	return 0;
}

/* Reads the locked file, checks that it is still the one at path. */
static struct pme_bucketfile *
read_locked(struct pme_fill *f, struct pme_error *err)
{
	struct pme_bucketfile *bf;

	for (;;) {
		if ((bf = pme_bucketfile_open(f->path, err)) == NULL)
			return NULL;
		if (same_file(f->fd, f->path))
			return bf;
		/* A writer that takes no lock replaced it: again. */
		pme_bucketfile_close(bf);
		close(f->fd);
		if ((f->fd = lock_file(f->path, err)) == -1)
			return NULL;
	}
}

struct pme_fill *
pme_fill_begin(const char *path, struct pme_bucketfile *run,
    struct pme_error *err)
{
	struct pme_fill *f;
	struct pme_error e;

	if (path == NULL || run == NULL || strcmp(path, "-") == 0) {
		pme_seterr(err, PME_EINVAL, "pme_fill_begin: %s",
		    path == NULL || run == NULL ? "bad argument" :
		    "standard input cannot be locked and read again");
		return NULL;
	}
	if ((f = calloc(1, sizeof(*f))) == NULL ||
	    (f->path = strdup(path)) == NULL) {
		free(f);
		pme_setnomem(err);
		return NULL;
	}
	if ((f->fd = lock_file(path, err)) == -1) {
		free(f->path);
		free(f);
		return NULL;
	}
	if ((f->sum = read_locked(f, err)) == NULL ||
	    prepare(f->sum, run, path, err) == -1)
		goto fail;
	if (pme_bucketfile_accumulate(f->sum, run, &e) == -1) {
		pme_seterr(err, e.code, "'%s': changed since the run began: %s",
		    path, pme_strerror(&e));
		goto fail;
	}
	return f;
fail:
	pme_fill_abort(f);
	return NULL;
}

struct pme_bucketfile *
pme_fill_sum(struct pme_fill *f)
{
	return f->sum;
}

int
pme_fill_commit(struct pme_fill *f, const char *out, struct pme_error *err)
{
	int rc;

	if (f == NULL)
		return pme_seterr(err, PME_EINVAL, "pme_fill_commit: no fill");
	rc = pme_bucketfile_write(f->sum, out != NULL ? out : f->path, err);
	pme_fill_abort(f);	/* the lock goes only once the file is in */
	return rc;
}

void
pme_fill_abort(struct pme_fill *f)
{
	if (f == NULL)
		return;
	if (f->fd != -1)
		close(f->fd);
	pme_bucketfile_close(f->sum);
	free(f->path);
	free(f);
}

int
pme_fill_add(const char *path, const char *out, struct pme_bucketfile *run,
    struct pme_error *err)
{
	struct pme_fill *f;

	if ((f = pme_fill_begin(path, run, err)) == NULL)
		return -1;
	return pme_fill_commit(f, out, err);
}

/* ------------------------------------------------------------ matching */

static int
same_id(const struct pme_module *m, const uint8_t *id, uint32_t idlen)
{
	return m->buildid_len == idlen && idlen > 0 &&
	    memcmp(m->buildid, id, idlen) == 0;
}

/* Whether module m is the object by the test of pass: 0 exact path, 1
 * real path, 2 main executable, 3 base name. */
static int
by_pass(int pass, const struct pme_module *m, const char *path,
    const char *real, int ismain)
{
	switch (pass) {
	case 0:
		return path != NULL && m->path[0] != '\0' &&
		    strcmp(m->path, path) == 0;
	case 1:
		return real[0] != '\0' && m->path[0] != '\0' &&
		    strcmp(m->path, real) == 0;
	case 2:
		return ismain && (m->flags & PME_MODULE_MAIN);
	default:
		return path != NULL && m->path[0] != '\0' &&
		    strcmp(pme_base_name(m->path), pme_base_name(path)) == 0;
	}
}

uint32_t
pme_fill_match(const struct pme_bucketfile *bf, uint32_t n, const char *path,
    const uint8_t *id, uint32_t idlen, int ismain, unsigned flags,
    unsigned *why)
{
	const struct pme_module *m;
	char real[PATH_MAX];
	uint32_t i, nm;
	int pass;

	if (why != NULL)
		*why = 0;
	nm = (uint32_t)pme_bucketfile_modules(bf, &m);
	if (n > nm)
		n = nm;
	if (id == NULL)
		idlen = 0;
	for (i = 0; i < n; i++)
		if (same_id(&m[i], id, idlen))
			return i;
	if (path == NULL || realpath(path, real) == NULL)
		real[0] = '\0';
	for (pass = 0; pass < 4; pass++)
		for (i = 0; i < n; i++) {
			if (!by_pass(pass, &m[i], path, real, ismain))
				continue;
			/* Two build-ids that differ are two files. */
			if (idlen == 0 || m[i].buildid_len == 0 ||
			    (flags & PME_MATCH_FORCE))
				return i;
			if (why != NULL)
				*why |= pass == 2 ? PME_MATCH_OTHERMAIN :
				    PME_MATCH_OTHERBUILD;
		}
	return PME_NONE;
}
