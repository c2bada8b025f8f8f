/*
 * fuzz_gfile.c - libFuzzer target for stats' graph file parser: any text
 * must be parsed or refused with an error, never crash; what parses must
 * be written back as text that parses again to as many graphs.  `make
 * fuzz` builds and runs it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph.h"
#include "pme.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gfile f, g;
	struct pme_error err = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	if (gfile_parse((const char *)data, size, "fuzz", &f, &err) == -1)
		return 0;
	if ((fp = open_memstream(&text, &len)) == NULL)
		abort();
	if (gfile_write(&f, fp) == -1 || fclose(fp) == EOF)
		abort();
	/* What gfile_write() wrote must read back, as the same graphs. */
	if (gfile_parse(text, len, "written", &g, &err) == -1 ||
	    g.n != f.n) {
		fprintf(stderr, "%s\n%s", err.msg, text);
		abort();
	}
	gfile_free(&g);
	gfile_free(&f);
	free(text);
	return 0;
}
