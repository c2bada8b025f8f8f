/*
 * fuzz_sample_rt.c - libFuzzer round trip of the sample file: the first
 * run of whatever the reader takes (as it comes, or with its CRCs made
 * good) is written again through the writer (pme_samplewriter_*), and
 * read back.  The header, mappings, thread records and samples (frames
 * and all) must come back as they were read, each kind in its order (the
 * writer puts a flush's mappings and threads before its samples, so the
 * kinds' interleaving may change), and the closing record with the
 * writer's own count of samples.  `make fuzz` builds and runs it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pme_sample.h"
#include "crcfix.h"
#include "digest.h"

static char dir[] = "/tmp/pme-fuzz-srt.XXXXXX", *made;

/* Digests per kind of record: header, mappings, threads, samples, close. */
enum { D_HDR, D_MAP, D_THR, D_SMP, D_CLOSE, ND };

struct side {
	uint64_t	 d[ND];
	uint64_t	 nsamples;
	int		 runs;		/* headers seen */
	int		 closed;
	struct pme_samplewriter *w;	/* first read: the copy being written */
	const char	*path;
	struct pme_error err;
	int		 wfail;
};

static int
v_header(void *arg, const struct pme_sample_header *h)
{
	struct side *sd = arg;
	uint32_t i;

	if (++sd->runs > 1)
		return 1;	/* the first run only */
	sd->d[D_HDR] = mix(mix(mix(mix(mix(mix(mix(mix(sd->d[D_HDR],
	    h->method), h->event), h->period), h->start), h->start_mono),
	    h->pid), h->flags), h->argc);
	for (i = 0; i < h->argc; i++)
		sd->d[D_HDR] = mixs(sd->d[D_HDR], h->argv[i]);
	sd->d[D_HDR] = mixs(sd->d[D_HDR], h->note);
	if (sd->path != NULL && (sd->w = pme_samplewriter_open(sd->path, h,
	    0, &sd->err)) == NULL)
		sd->wfail = 1;
	return 0;
}

static int
v_mapping(void *arg, const struct pme_mapping *m)
{
	struct side *sd = arg;
	uint64_t h = sd->d[D_MAP];
	uint32_t i;

	h = mix(mix(mix(mix(mix(mix(mix(h, m->pid), m->flags), m->time),
	    m->start), m->end), m->offset), m->vaddr);
	h = mix(mixs(h, m->path), m->buildid_len);
	for (i = 0; i < m->buildid_len; i++)
		h = mix(h, m->buildid[i]);
	sd->d[D_MAP] = h;
	if (sd->w != NULL && pme_samplewriter_mapping(sd->w, m, &sd->err))
		sd->wfail = 1;
	return 0;
}

static int
v_thread(void *arg, const struct pme_thread *t)
{
	struct side *sd = arg;

	sd->d[D_THR] = mixs(mix(mix(mix(mix(mix(mix(sd->d[D_THR], t->kind),
	    t->pid), t->tid), t->ppid), t->ptid), t->time), t->name);
	if (sd->w != NULL && pme_samplewriter_thread(sd->w, t, &sd->err))
		sd->wfail = 1;
	return 0;
}

static int
v_samples(void *arg, const struct pme_sample *s, size_t n)
{
	struct side *sd = arg;
	uint64_t h = sd->d[D_SMP];
	size_t i;
	uint32_t k;

	for (i = 0; i < n; i++) {
		h = mix(mix(mix(mix(mix(mix(mix(mix(h, s[i].pc), s[i].time),
		    s[i].weight), s[i].pid), s[i].tid), s[i].cpu),
		    s[i].flags), s[i].nframes);
		for (k = 0; k < s[i].nframes; k++)
			h = mix(h, s[i].frames[k]);
		if (sd->w != NULL &&
		    pme_samplewriter_sample(sd->w, &s[i], &sd->err))
			sd->wfail = 1;
	}
	sd->d[D_SMP] = h;
	sd->nsamples += n;
	return 0;
}

static int
v_close(void *arg, const struct pme_sample_close *c)
{
	struct side *sd = arg;

	sd->closed = 1;
	sd->d[D_CLOSE] = mix(mix(mix(mix(sd->d[D_CLOSE], c->end), c->lost),
	    (uint32_t)c->status), c->threads);
	if (sd->path == NULL && c->samples != sd->nsamples)
		abort();	/* the copy's count is the writer's own */
	if (sd->w != NULL) {
		if (pme_samplewriter_close(sd->w, c, &sd->err) == -1)
			sd->wfail = 1;
		sd->w = NULL;
	}
	return 0;
}

static const struct pme_sample_visitor visit = {
	v_header, v_mapping, v_thread, v_samples, v_close
};

static void
one(const uint8_t *data, size_t size)
{
	struct pme_sample_summary sum;
	struct side a, b;
	char path[64];

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	snprintf(path, sizeof(path), "%s/a.pms", made);
	a.path = path;
	(void)pme_samplefile_mem(data, size, "fuzz", &visit, &a, &sum,
	    &a.err);
	if (a.w != NULL) {
		/* A run without its closing record: close the copy, which
		 * then has one the original lacks. */
		if (pme_samplewriter_close(a.w, NULL, &a.err) == -1)
			a.wfail = 1;
		a.w = NULL;
		a.closed = -1;
	}
	if (a.runs == 0) {
		unlink(path);
		return;
	}
	if (a.wfail) {
		fprintf(stderr, "the writer refused what was read: %s\n",
		    pme_strerror(&a.err));
		abort();
	}
	if (pme_samplefile_read(path, &visit, &b, &sum, &b.err) == -1) {
		fprintf(stderr, "read back: %s\n", pme_strerror(&b.err));
		abort();
	}
	if (b.runs != 1 || !b.closed || b.nsamples != a.nsamples ||
	    b.d[D_HDR] != a.d[D_HDR] || b.d[D_MAP] != a.d[D_MAP] ||
	    b.d[D_THR] != a.d[D_THR] || b.d[D_SMP] != a.d[D_SMP] ||
	    (a.closed == 1 && b.d[D_CLOSE] != a.d[D_CLOSE]))
		abort();
	unlink(path);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (made == NULL && (made = mkdtemp(dir)) == NULL)
		abort();
	with_crcs_fixed(data, size, one);
	return 0;
}
