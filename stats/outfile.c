/*
 * outfile.c - stats' outputs (-o, GraphfileTemp, the view's stats.ps):
 * written whole under a temporary name beside their own and renamed into
 * place (pme_tmp_create), so that a failed write leaves the previous
 * file as it was; standard output for NULL or "-".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stats.h"
#include "util.h"

int
outfile_open(struct outfile *o, const char *path, struct pme_error *err)
{
	int fd;

	o->fp = stdout;
	o->tmp = NULL;
	o->path = path != NULL && strcmp(path, "-") != 0 ? path : NULL;
	if (o->path == NULL)
		return 0;
	if ((fd = pme_tmp_create(path, &o->tmp, err)) == -1)
		return -1;
	if ((o->fp = fdopen(fd, "w")) == NULL) {
		stats_syserr(err, errno, "'%s': %s", path, strerror(errno));
		close(fd);
		pme_tmp_abort(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	return 0;
}

int
outfile_commit(struct outfile *o, struct pme_error *err)
{
	const char *name = o->path != NULL ? o->path : "standard output";
	int bad;

	bad = fflush(o->fp) == EOF || ferror(o->fp);
	if (o->fp != stdout && fclose(o->fp) == EOF)
		bad = 1;
	o->fp = NULL;
	if (bad) {
		stats_syserr(err, errno, "'%s': write failed: %s", name,
		    strerror(errno));
		pme_tmp_abort(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	if (o->path != NULL && pme_tmp_commit(o->tmp, o->path, err) == -1) {
		o->tmp = NULL;
		return -1;
	}
	o->tmp = NULL;
	return 0;
}

void
outfile_why(const struct outfile *o, struct pme_error *err)
{
	int e = errno;

	if (o->fp == NULL || !ferror(o->fp))
		return;
	stats_syserr(err, e, "'%s': write failed%s%s",
	    o->path != NULL ? o->path : "standard output", e != 0 ? ": " : "",
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

int
stats_syserr(struct pme_error *err, int e, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->code = PME_EIO;
	err->sys_errno = e;
	err->offset = 0;
	return -1;
}
