/*
 * warn.c - the messages of pmehisto and pmemerge (histo.h): histo_warn()
 * says one on standard error, histo_err() puts one in a struct
 * pme_error for the caller to say.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "histo.h"
#include "util.h"

void
histo_warn(const char *prog, const char *fmt, ...)
{
	char msg[1024], out[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pme_escape(out, sizeof(out), msg);
	fprintf(stderr, "%s: %s\n", prog, out);
}

void
histo_warn_cut(const char *prog, const char *path,
    const struct pme_sample_summary *sum, const char *shows)
{
	if (prog != NULL && (sum->lost_bytes >= 0 || !sum->closed))
		histo_warn(prog, "'%s': cut short%s: %lld bytes after the "
		    "last whole chunk lost; %s", path, sum->closed ? "" :
		    " (no closing record)", (long long)(sum->lost_bytes > 0 ?
		    sum->lost_bytes : 0), shows);
}

int
histo_err(struct pme_error *err, enum pme_errcode code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	memset(err, 0, sizeof(*err));
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}
