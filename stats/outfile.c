/*
 * outfile.c - stats' outputs (-o, GraphfileTemp, the view's stats.ps):
 * written whole under a temporary name beside their own and renamed into
 * place (pme_tmp_create), so that a failed write leaves the previous
 * file as it was; standard output for NULL or "-".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stats.h"
#include "util.h"

int
outfile_open(struct outfile *o, const char *path, char *err, size_t errlen)
{
	struct pme_error e;
	int fd;

	o->fp = stdout;
	o->tmp = NULL;
	o->path = path != NULL && strcmp(path, "-") != 0 ? path : NULL;
	if (o->path == NULL)
		return 0;
	if ((fd = pme_tmp_create(path, &o->tmp, &e)) == -1) {
		snprintf(err, errlen, "%s", pme_strerror(&e));
		return -1;
	}
	if ((o->fp = fdopen(fd, "w")) == NULL) {
		snprintf(err, errlen, "'%s': %s", path, strerror(errno));
		close(fd);
		pme_tmp_abort(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	return 0;
}

int
outfile_commit(struct outfile *o, char *err, size_t errlen)
{
	struct pme_error e;
	const char *name = o->path != NULL ? o->path : "standard output";
	int bad;

	bad = fflush(o->fp) == EOF || ferror(o->fp);
	if (o->fp != stdout && fclose(o->fp) == EOF)
		bad = 1;
	o->fp = NULL;
	if (bad) {
		snprintf(err, errlen, "'%s': write failed: %s", name,
		    strerror(errno));
		pme_tmp_abort(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	if (o->path != NULL && pme_tmp_commit(o->tmp, o->path, &e) == -1) {
		o->tmp = NULL;
		snprintf(err, errlen, "%s", pme_strerror(&e));
		return -1;
	}
	o->tmp = NULL;
	return 0;
}

void
outfile_why(const struct outfile *o, char *err, size_t errlen)
{
	int e = errno;

	if (o->fp == NULL || !ferror(o->fp))
		return;
	snprintf(err, errlen, "'%s': write failed%s%s", o->path != NULL ?
	    o->path : "standard output", e != 0 ? ": " : "",
	    e != 0 ? strerror(e) : "");
}

void
outfile_abort(struct outfile *o)
{
	if (o->fp != NULL && o->fp != stdout)
		fclose(o->fp);
	o->fp = NULL;
	pme_tmp_abort(o->tmp);
	o->tmp = NULL;
}
