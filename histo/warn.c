/*
 * warn.c - the messages of pmehisto and pmemerge (histo.h: histo_warn).
 */
#include <stdarg.h>
#include <stdio.h>

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
