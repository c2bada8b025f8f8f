/*
 * startstop.c - pmetrace --start ROUTINE --stop ROUTINE: where the
 * routines are.  A routine is looked for by name (as nm prints it, raw
 * or demangled, or one of its aliases: pme_ev_break(), which resolves
 * pmeclock's breaks) in the symbols of the bucket file's load modules,
 * the program's first; its entry is given to the engine as its file
 * offset in its object, "OFFSET:PATH" (hexadecimal, the object's real
 * path), which the engines' tools compare with the file mapping that
 * holds the code they translate.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "trace.h"
#include "util.h"

int
tr_routine_spec(struct pme_bucketfile *bf, const char *name, char *out,
    size_t len, struct pme_error *err)
{
	const struct pme_module *m;
	struct pme_evspec ev;
	struct pme_error e;
	char real[PATH_MAX];
	size_t n, i;

	memset(&ev, 0, sizeof(ev));
	if (snprintf(ev.routine, sizeof(ev.routine), "%s", name) >=
	    (int)sizeof(ev.routine))
		return pme_seterr(err, PME_EINVAL, "'%s': name too long",
		    name);
	n = pme_bucketfile_modules(bf, &m);
	for (i = 0; i < n; i++)
		if (m[i].path[0] != '\0' && realpath(m[i].path, real) !=
		    NULL && pme_ev_break(&ev, real, &e) == 0) {
			snprintf(out, len, "%llx:%s",
			    (unsigned long long)ev.offset, real);
			return 0;
		}
	return pme_seterr(err, PME_EINVAL, "'%s': no routine of that name "
	    "in the bucket file's objects", name);
}
