/*
 * fuzz_cgout.c - libFuzzer target for the callgrind engine's reader
 * (trace/callgrind.c): the input is a callgrind output file, then, after
 * a NUL byte, the valgrind log of its process (-v -v: "Command:",
 * "Reading syms from", "svma ..., avma ...").  It must be read into the
 * tally or refused with an error naming the file, never crash; what it
 * tallied must be in bounds (tally.h).  `make fuzz` builds and runs it.
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
	const char *buf = (const char *)data, *nul;
	struct pme_bucketfile *bf;
	struct pme_error err;
	struct tr_tally *t;
	size_t len = size, loglen = 0;
	int rc;

	if ((nul = memchr(buf, '\0', size)) != NULL) {
		len = (size_t)(nul - buf);
		loglen = size - len - 1;
	}
	memset(&err, 0, sizeof(err));
	t = fuzz_tally(&bf);
	rc = tr_callgrind_read(t, &fuzz_opts, buf, len, nul ? nul + 1 : NULL,
	    loglen, &err);
	if (rc == -1 && (err.code == PME_OK ||
	    strlen(pme_strerror(&err)) == 0))
		abort();
	if (rc == 0)
		fuzz_tally_check(bf);
	else if (rc != -1)
		abort();
	tr_tally_free(t);
	pme_bucketfile_close(bf);
	return 0;
}
