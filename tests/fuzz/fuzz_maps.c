/*
 * fuzz_maps.c - libFuzzer target for the step engine's reader of
 * /proc/PID/maps (trace/step.c, map_line()): any text must give code
 * mappings whose modules are the tally's (tally.h) or none, at most one
 * a line, never a crash.  The process's executable is /usr/bin/cat, as
 * in the seeds (cat's own maps).  `make fuzz` builds and runs it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tally.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct pme_module *mods;
	struct pme_bucketfile *bf;
	struct tr_map *v;
	struct tr_tally *t;
	size_t n, i, lines = 1, nmods;
	FILE *fp;

	if (size == 0 || (fp = fmemopen((void *)data, size, "r")) == NULL)
		return 0;
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	t = fuzz_tally(&bf);
	n = tr_step_maps(t, fp, "/usr/bin/cat", &v);
	fclose(fp);
	nmods = pme_bucketfile_modules(bf, &mods);
	if (n > lines || (n > 0) != (v != NULL))
		abort();
	for (i = 0; i < n; i++)
		if (v[i].module != PME_NONE && v[i].module >= nmods)
			abort();
	fuzz_tally_check(bf);
	free(v);
	tr_tally_free(t);
	pme_bucketfile_close(bf);
	return 0;
}
