/*
 * fuzz_pvout.c - libFuzzer target for the pmevg engine's reader of the
 * counts files pme's valgrind tool writes (trace/pmevg.c, written by
 * trace/vgtool/pmevg.c): any text must be read into the tally or refused
 * with an error naming the file, never crash; what it tallied must be in
 * bounds (tally.h).  Read as a whole run reads it and as a region-only
 * run does.  `make fuzz` builds and runs it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tally.h"
#include "memfile.h"

static void
one(const char *path, int region)
{
	struct pme_bucketfile *bf;
	struct pme_error err;
	struct tr_tally *t;
	int rc;

	memset(&err, 0, sizeof(err));
	t = fuzz_tally(&bf);
	rc = tr_pmevg_read(t, path, region, &err);
	if (rc == -1 && (err.code == PME_OK ||
	    strstr(pme_strerror(&err), path) == NULL))
		abort();
	if (rc == 0 || rc == 1)
		fuzz_tally_check(bf);
	else if (rc != -1)
		abort();
	tr_tally_free(t);
	pme_bucketfile_close(bf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd;

	if (memfile(data, size, &fd, path, sizeof(path)) == -1)
		return 0;
	one(path, 0);
	one(path, 1);
	close(fd);
	return 0;
}
