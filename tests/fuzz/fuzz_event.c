/*
 * fuzz_event.c - libFuzzer target for the event file reader: any bytes
 * must either be refused with an error or be read with every field in
 * bounds (strings terminated, histometric arrays of their sets and bins,
 * events of a chunk no more than its count).  Each input is tried as it
 * comes, then with its CRCs made good so that mutations reach the
 * payload decoders.  `make fuzz` builds and runs it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pme_event.h"
#include "crcfix.h"

static uint64_t sum;

static size_t
touch(const char *s)
{
	return s == NULL ? 0 : strlen(s);
}

/* A double's bits, for the sum: any value, NaN too. */
static uint64_t
bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static int
events(const struct pme_ev *ev, size_t n, void *arg)
{
	(void)arg;
	if (n == 0 || n > 4096)
		abort();
	for (size_t i = 0; i < n; i++)
		sum += ev[i].time + (uint64_t)ev[i].value + ev[i].type +
		    ev[i].proc;
	return 0;
}

static void
inspect(struct pme_eventfile *ef)
{
	const struct pme_run *run = pme_eventfile_run(ef);
	const struct pme_evtype *t;
	const struct pme_state *st;
	const struct pme_histo *h;
	const struct pme_metric *m;
	const char *const *specs;
	size_t n;

	sum += bits(0) + touch(run->unit) + touch(run->command) + touch(run->failure) +
	    run->nproc + run->events + run->first + run->last;
	n = pme_eventfile_types(ef, &t);
	for (size_t i = 0; i < n; i++)
		sum += t[i].id + touch(t[i].name) +
		    pme_eventfile_type(ef, t[i].name);
	n = pme_eventfile_states(ef, &st);
	for (size_t i = 0; i < n; i++)
		sum += (uint64_t)st[i].primary + touch(st[i].name);
	n = pme_eventfile_histos(ef, &h);
	for (size_t i = 0; i < n; i++) {
		size_t cells = (size_t)h[i].nbins + 2;

		sum += touch(h[i].name);
		for (uint32_t s = 0; s < h[i].nsets; s++) {
			sum += h[i].n[s] + bits(h[i].sum[s]) + bits(h[i].sumsq[s]);
			for (size_t k = 0; k < cells; k++)
				sum += h[i].counts[s * cells + k];
		}
	}
	n = pme_eventfile_metrics(ef, &m);
	for (size_t i = 0; i < n; i++) {
		sum += touch(m[i].name) + touch(m[i].text);
		for (size_t k = 0; k < m[i].n; k++)
			sum += bits(m[i].v[k]);
	}
	n = pme_eventfile_specs(ef, &specs);
	for (size_t i = 0; i < n; i++)
		sum += touch(specs[i]);
	for (uint32_t p = 0; p < 64; p++)
		sum += touch(pme_eventfile_proc_name(ef, p));
}

static void
one(const uint8_t *data, size_t size)
{
	struct pme_eventfile *ef;
	struct pme_error err;

	memset(&err, 0, sizeof(err));
	if ((ef = pme_eventfile_mem(data, size, "fuzz", &err)) == NULL) {
		if (err.code == PME_OK || touch(pme_strerror(&err)) == 0)
			abort();
		return;
	}
	inspect(ef);
	memset(&err, 0, sizeof(err));
	if (pme_eventfile_events(ef, events, NULL, &err) == -1 &&
	    (err.code == PME_OK || touch(pme_strerror(&err)) == 0))
		abort();
	pme_eventfile_close(ef);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	one(data, size);
	if (size > (1u << 20) || (copy = malloc(size + 1)) == NULL)
		return 0;
	memcpy(copy, data, size);
	fix_crcs(copy, size);
	one(copy, size);
	free(copy);
	return 0;
}
