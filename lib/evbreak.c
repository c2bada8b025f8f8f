/*
 * evbreak.c - a break's routine (pmeclock -e break:ROUTINE) found in an
 * ELF file through pme's own symbol reader, and its entry made the file
 * offset the uprobe PMU takes (measure.h).  Uses libelf: not part of the
 * runtime.  Prints nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "pme_sample.h"
#include "pme_symbols.h"
#include "util.h"

/* Whether routine r is named name: its name, raw name or an alias. */
static int
named(const struct pme_symroutine *r, const char *name)
{
	uint32_t i;

	if (strcmp(r->name, name) == 0 || strcmp(r->raw, name) == 0)
		return 1;
	for (i = 0; i < r->naliases; i++)
		if (strcmp(r->aliases[i], name) == 0)
			return 1;
	return 0;
}

/* The error of a routine path has not, with the nearest name. */
static int
no_routine(const struct pme_evspec *ev, const char *path,
    const struct pme_symroutine *r, size_t n, struct pme_error *err)
{
	struct pme_near nr;
	char *want = pme_escape_dup(ev->routine), *file = pme_escape_dup(path);
	char *near = NULL;
	size_t i, d;

	pme_near_init(&nr, ev->routine);
	for (i = 0; i < n; i++)
		if (r[i].name[0] != '[' &&
		    (d = pme_near_dist(&nr, r[i].name)) != SIZE_MAX)
			nr.name = r[i].name, nr.best = d;
	if (nr.name != NULL)
		near = pme_escape_dup(nr.name);
	pme_seterr(err, PME_EINVAL, "'%s': no routine '%s' in '%s'%s%s%s",
	    ev->name, want ? want : "?", file ? file : "?",
	    near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
	free(want);
	free(file);
	free(near);
	return -1;
}

int
pme_ev_break(struct pme_evspec *ev, const char *path,
    struct pme_error *err)
{
	const struct pme_symroutine *r;
	struct pme_image *img;
	struct pme_elf elf;
	uint64_t entry = 0;
	size_t n, i;
	int found = 0;

	if (snprintf(ev->path, sizeof(ev->path), "%s", path) >=
	    (int)sizeof(ev->path))
		return pme_seterr(err, PME_EINVAL, "'%s': path too long",
		    ev->name);
	if ((img = pme_image_open_symbols(path, NULL, err)) == NULL)
		return -1;
	n = pme_image_routines(img, &r);
	for (i = 0; i < n && !found; i++)
		if (r[i].name[0] != '[' && named(&r[i], ev->routine)) {
			entry = r[i].entry;
			found = 1;
		}
	if (!found) {
		no_routine(ev, path, r, n, err);
		pme_image_close(img);
		return -1;
	}
	pme_image_close(img);
	if (pme_elf_read(path, &elf, err) == -1)
		return -1;
	for (i = 0; i < elf.nload; i++)
		if (entry >= elf.load[i].vaddr &&
		    entry - elf.load[i].vaddr < elf.load[i].filesz) {
			ev->offset = entry - elf.load[i].vaddr +
			    elf.load[i].offset;
			return 0;
		}
	return pme_seterr(err, PME_EFORMAT, "'%s': the entry 0x%llx of '%s' "
	    "is in no loadable segment", ev->name, (unsigned long long)entry,
	    ev->routine);
}
