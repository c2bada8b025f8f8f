/*
 * fuzz_pager.c - libFuzzer target for the terminal display's command
 * input (pme_report_term, lib/render.c: Return, R, S, K, Q, H, B, page
 * numbers, /search, n): any keystrokes, on any geometry, for a report
 * whose names come from the input too, must end without a fault and
 * without an error other than a write error.  Input: a byte of rows, a
 * byte of columns, a byte of row count, then names (NUL-separated) up to
 * a byte 0x01, then the commands.  `make fuzz` builds and runs it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pme.h"
#include "pme_render.h"

static FILE *sink;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pme_report	*r;
	struct pme_report_row	 row;
	struct pme_error	 err;
	char			 name[64];
	const uint8_t		*p, *end = data + size;
	unsigned		 rows, cols, nrows, i, k;
	FILE			*in;

	if (size < 3)
		return 0;
	if (sink == NULL && (sink = fopen("/dev/null", "w")) == NULL)
		abort();
	rows = data[0];
	cols = data[1];
	nrows = data[2];
	p = data + 3;
	if ((r = pme_report_new(NULL, 1000, &err)) == NULL)
		return 0;
	pme_report_options(r, data[2] & 1 ? PME_REPORT_NOADDR : 0, 0);
	if (pme_report_group(r, "PROGRAM FUZZ BY ROUTINE", &err) == -1)
		abort();
	memset(&row, 0, sizeof(row));
	for (i = 0; i < nrows; i++) {
		for (k = 0; p < end && *p != 0 && *p != 1 &&
		    k < sizeof(name) - 1; p++)
			name[k++] = (char)*p;
		name[k] = '\0';
		if (p < end && *p == 0)
			p++;
		if (k == 0)
			snprintf(name, sizeof(name), "r%u", i);
		row.unit = i;
		row.bucket = i;
		row.name = name;
		row.start = 0x100 * i;
		row.last = row.start + 0xff;
		row.abs_start = 0x1000 + row.start;
		row.abs_last = 0x1000 + row.last;
		row.count = i % 7 * 3;
		if (pme_report_row(r, &row, &err) == -1)
			abort();
	}
	while (p < end && *p != 1)
		p++;
	if (p < end)
		p++;
	if (pme_report_summary(r, "Total", "1000", &err) == -1)
		abort();
	/* fmemopen() wants a byte at least: no commands are a Return. */
	if (p == end)
		in = fmemopen((void *)"\n", 1, "r");
	else
		in = fmemopen((void *)p, (size_t)(end - p), "r");
	if (in != NULL) {
		(void)pme_report_term(r, in, sink, (int)rows, (int)cols, &err);
		fclose(in);
	}
	pme_report_free(r);
	return 0;
}
