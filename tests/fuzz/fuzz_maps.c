/*
 * fuzz_maps.c - libFuzzer target for the reader of /proc/PID/maps that
 * pmeclock -p and pmetrace's step engine share (lib/maps.h), and for the
 * step engine's use of it (trace/step.c).  Every line the reader accepts
 * must be one the kernel could have written: start below end, the
 * permissions of its alphabet, a path without newline or NUL; written
 * again in the kernel's form (show_map_vma()'s fields, the padding, the
 * path, " (deleted)") it must read back the same, field for field.  A
 * bad line must give a message naming its line and an offset inside it.
 * The step engine must give code mappings whose modules are the tally's
 * (tally.h) or none, at most one a line (x86-64 only: the engine's
 * platform).  The process's executable is /usr/bin/cat, as in the seeds
 * (cat's own maps).  `make fuzz` builds and runs it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"
#include "tally.h"

/* m written as the kernel writes it, read again: the same fields. */
static void
round_trip(const struct pme_maps_line *m)
{
	struct pme_maps_line again;
	const char *why;
	size_t col, n;
	char *text;
	int len;

	n = strlen(m->path) + 200;
	if ((text = malloc(n)) == NULL)
		return;
	len = snprintf(text, n, "%08llx-%08llx %s %08llx %02x:%02x %llu ",
	    (unsigned long long)m->start, (unsigned long long)m->end,
	    m->perms, (unsigned long long)m->offset, m->major, m->minor,
	    (unsigned long long)m->inode);
	if (m->path[0] != '\0')
		len += snprintf(text + len, n - (size_t)len, "%*s%s%s\n",
		    len < 73 ? 73 - len : 0, "", m->path,
		    m->deleted ? " (deleted)" : "");
	else
		len += snprintf(text + len, n - (size_t)len, "\n");
	if (pme_maps_parse(text, (size_t)len, &again, &col, &why) < 0 ||
	    again.start != m->start || again.end != m->end ||
	    strcmp(again.perms, m->perms) != 0 ||
	    again.offset != m->offset || again.major != m->major ||
	    again.minor != m->minor || again.inode != m->inode ||
	    strcmp(again.path, m->path) != 0 || again.deleted != m->deleted)
		abort();
	free(text);
}

/* The shared reader: every line either read or refused with a message
 * inside it. */
static void
lines(const uint8_t *data, size_t size)
{
	struct pme_maps_line m;
	struct pme_error err;
	struct pme_maps r;
	uint64_t last = 0;
	size_t i, n = 1;
	int rc;
	FILE *fp;

	for (i = 0; i + 1 < size; i++)
		n += data[i] == '\n';
	if ((fp = fmemopen((void *)data, size, "r")) == NULL)
		return;
	pme_maps_init(&r, fp, "maps");
	while ((rc = pme_maps_next(&r, &m, &err)) != 0) {
		if (r.line > n || r.offset > size)
			abort();
		if (rc < 0) {
			if (err.code == PME_ENOMEM)
				break;
			if (err.code != PME_EFORMAT || err.offset < last ||
			    err.offset > r.offset ||
			    strncmp(err.msg, "'maps': offset 0x", 17) != 0)
				abort();
			last = r.offset;
			continue;
		}
		last = r.offset;
		if (m.start >= m.end || strlen(m.perms) != 4 ||
		    strspn(m.perms, "rwxps-") != 4 ||
		    strchr(m.path, '\n') != NULL ||
		    (m.deleted && m.path[0] == '\0'))
			abort();
		round_trip(&m);
	}
	if (rc == 0 && r.line != n)
		abort();
	pme_maps_end(&r);
	fclose(fp);
}

#if defined(__x86_64__)
/* The step engine's code mappings. */
static void
step(const uint8_t *data, size_t size)
{
	const struct pme_module *mods;
	struct pme_bucketfile *bf;
	struct tr_map *v;
	struct tr_tally *t;
	size_t n, i, nlines = 1, nmods;
	FILE *fp;

	if ((fp = fmemopen((void *)data, size, "r")) == NULL)
		return;
	for (i = 0; i < size; i++)
		nlines += data[i] == '\n';
	t = fuzz_tally(&bf);
	n = tr_step_maps(t, fp, "/usr/bin/cat", &v);
	fclose(fp);
	nmods = pme_bucketfile_modules(bf, &mods);
	if (n > nlines || (n > 0) != (v != NULL))
		abort();
	for (i = 0; i < n; i++)
		if (v[i].start >= v[i].end ||
		    (v[i].module != PME_NONE && v[i].module >= nmods))
			abort();
	fuzz_tally_check(bf);
	free(v);
	tr_tally_free(t);
	pme_bucketfile_close(bf);
}
#endif

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	lines(data, size);
#if defined(__x86_64__)
	step(data, size);
#endif
	return 0;
}
