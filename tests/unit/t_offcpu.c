/*
 * t_offcpu.c - the off-CPU intervals of sample files (OFFC chunks,
 * pmeclock -w, pme(5)): written and read back field for field, across
 * chunks; passed over by a reader that does not ask for them; refused by
 * the writer when they make no sense; and forged chunks refused by the
 * reader, naming the file, offset and chunk.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pme.h"
#include "pme_sample.h"

#define TEST_NAME "t_offcpu"
#include "check.h"

#define N	300

static void
make(struct pme_offcpu *o, uint64_t *fr, int i)
{
	int k;

	memset(o, 0, sizeof(*o));
	o->pid = 100;
	o->tid = i % 3 == 0 ? 100 : 99 - (uint32_t)i % 7;	/* below pid */
	o->start = 1000000 + (uint64_t)i * 5000 - (i % 4 == 1 ? 7000 : 0);
	o->end = o->start + (uint64_t)i * 131;
	o->wake = i % 2 ? o->start + (uint64_t)i * 100 : 0;
	o->kclass = (uint32_t)i % PME_WC_MAX;
	o->kstate = i % 5 ? 1 : 0x100;
	o->flags = i % 2 ? PME_OFF_WAKER : PME_OFF_TRUNCATED;
	o->waker = i % 2 ? 100 + (uint32_t)i : 0;
	o->futex_op = 137;
	o->object = i % 3 ? 0x7fff00001000ull + (uint64_t)i * 8 : 0;
	o->pc = i % 11 ? 0x7f0000001000ull + (uint64_t)i : 0;
	o->nframes = (uint32_t)i % 40;
	for (k = 0; k < (int)o->nframes; k++)	/* up and down */
		fr[k] = 0x555500000000ull + (k % 2 ? 0x10000000u : 0) +
		    (uint64_t)(i * 64 + k);
	o->frames = fr;
}

struct got {
	int	 n, bad, samples;
};

static int
on_off(void *arg, const struct pme_offcpu *o)
{
	struct got *g = arg;
	struct pme_offcpu w;
	uint64_t fr[64];

	make(&w, fr, g->n);
	if (o->pid != w.pid || o->tid != w.tid || o->start != w.start ||
	    o->end != w.end || o->wake != w.wake || o->kclass != w.kclass ||
	    o->kstate != w.kstate || o->flags != w.flags ||
	    o->waker != w.waker || o->futex_op != w.futex_op ||
	    o->object != w.object || o->pc != w.pc ||
	    o->nframes != w.nframes || (w.nframes > 0 && memcmp(o->frames,
	    w.frames, w.nframes * sizeof(*fr)) != 0)) {
		if (g->bad++ == 0)
			fail("interval %d read back differs", g->n);
	}
	g->n++;
	return 0;
}

static int
on_samples(void *arg, const struct pme_sample *s, size_t n)
{
	(void)s;
	((struct got *)arg)->samples += (int)n;
	return 0;
}

static void
test_roundtrip(void)
{
	static const char *const argv[] = { "./waits" };
	struct pme_sample_visitor v = { NULL, NULL, NULL, on_samples, NULL };
	struct pme_sample_header h;
	struct pme_samplewriter *w;
	struct pme_offcpu o;
	struct pme_sample s;
	struct pme_error err;
	struct got g;
	uint64_t fr[64];
	const char *path = tmppath("w.pms");
	int i;

	memset(&h, 0, sizeof(h));
	h.method = PME_METHOD_TEST;
	h.event = PME_EVENT_CPU_CLOCK;
	h.period = 1000000;
	h.pid = 100;
	h.flags = PME_SHDR_WALL;
	h.argc = 1;
	h.argv = argv;
	/* The smallest buffer: the intervals take several chunks. */
	if ((w = pme_samplewriter_open(path, &h, 16384, &err)) == NULL)
		die_pme("open", &err);
	memset(&s, 0, sizeof(s));
	s.pid = s.tid = 100;
	for (i = 0; i < N; i++) {
		make(&o, fr, i);
		if (pme_samplewriter_offcpu(w, &o, &err) == -1)
			die_pme("offcpu", &err);
		s.pc = 0x1000 + (uint64_t)i;
		s.time = (uint64_t)i;
		if (i % 10 == 0 && pme_samplewriter_sample(w, &s, &err) == -1)
			die_pme("sample", &err);
	}
	/* Intervals that make no sense are refused. */
	make(&o, fr, 5);
	o.end = o.start - 1;
	CHECK(pme_samplewriter_offcpu(w, &o, &err) == -1 &&
	    err.code == PME_EINVAL);
	make(&o, fr, 5);
	o.wake = o.end + 1;
	CHECK(pme_samplewriter_offcpu(w, &o, &err) == -1);
	make(&o, fr, 5);
	o.kclass = PME_WC_MAX;
	CHECK(pme_samplewriter_offcpu(w, &o, &err) == -1);
	if (pme_samplewriter_close(w, NULL, &err) == -1)
		die_pme("close", &err);

	memset(&g, 0, sizeof(g));
	if (pme_samplefile_read_offcpu(path, &v, on_off, &g, NULL, &err) ==
	    -1)
		fail("read_offcpu: %s", pme_strerror(&err));
	CHECK(g.n == N && g.bad == 0 && g.samples == N / 10);
	/* A reader that does not ask for them passes over them. */
	memset(&g, 0, sizeof(g));
	if (pme_samplefile_read(path, &v, &g, NULL, &err) == -1)
		fail("read: %s", pme_strerror(&err));
	CHECK(g.n == 0 && g.samples == N / 10);
}

struct forge {
	uint8_t		 b[4096];
	size_t		 n;
};

static void
f_uv(struct forge *f, uint64_t v)
{
	while (v >= 0x80) {
		f->b[f->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	f->b[f->n++] = (uint8_t)v;
}

/* One interval's fields: start 10, length len, wake, kclass, nframes
 * (each frame 0). */
static void
f_rec(struct forge *f, uint64_t len, uint64_t wake, uint64_t kclass,
    uint64_t nframes)
{
	uint64_t i;

	f_uv(f, 100);
	f_uv(f, 0);
	f_uv(f, 20);
	f_uv(f, len);
	f_uv(f, wake);
	f_uv(f, kclass);
	for (i = 0; i < 5; i++)		/* kstate to object */
		f_uv(f, 0);
	f_uv(f, 0x1000);
	f_uv(f, nframes);
	for (i = 0; i < nframes && i < 100; i++)
		f_uv(f, 0);
}

/* A file of a header and the forged OFFC chunk; NULL expect: read. */
static void
forged(const struct forge *f, const char *expect)
{
	static const uint8_t shdr[45] = { 4, 0, 0, 0, 1 };	/* argc 0 */
	const char *path = tmppath("f.pms");
	struct pme_error err;
	struct pme_writer *w;
	struct got g;
	int rc;

	if ((w = pme_writer_open(path, PME_KIND_SAMPLE, 0, &err)) == NULL)
		die_pme("open", &err);
	CHECK(pme_writer_chunk(w, PME_FOURCC('S', 'H', 'D', 'R'), shdr, 42, 0,
	    &err) == 0);
	CHECK(pme_writer_chunk(w, PME_FOURCC('O', 'F', 'F', 'C'), f->b, f->n,
	    0, &err) == 0);
	CHECK(pme_writer_commit(w, &err) == 0);
	memset(&g, 0, sizeof(g));
	g.n = 1000;	/* no interval to compare with */
	rc = pme_samplefile_read_offcpu(path, NULL, NULL, &g, NULL, &err);
	if (expect == NULL && rc != 0)
		fail("forged OFFC: %s", pme_strerror(&err));
	if (expect != NULL && (rc != -1 || err.code != PME_EFORMAT ||
	    strstr(err.msg, expect) == NULL ||
	    strstr(err.msg, "offset 0x") == NULL ||
	    strstr(err.msg, "'OFFC' chunk") == NULL))
		fail("forged OFFC: '%s', not '%s'", rc == 0 ? "read" :
		    err.msg, expect);
}

static void
test_forged(void)
{
	struct forge f;

	f.n = 0;
	f_uv(&f, 1);
	f_rec(&f, 50, 0, 1, 2);
	forged(&f, NULL);
	f.n = 0;
	f_uv(&f, (uint64_t)1 << 40);
	forged(&f, "bad record count");
	f.n = 0;
	f_uv(&f, 1);
	f_rec(&f, 50, 0, PME_WC_MAX, 0);
	forged(&f, "bad off-CPU record");
	f.n = 0;
	f_uv(&f, 1);
	f_rec(&f, 50, 52, 1, 0);		/* woken after its end */
	forged(&f, "bad off-CPU record");
	f.n = 0;
	f_uv(&f, 1);
	f_rec(&f, 50, 51, 1, 0);		/* woken at its end: good */
	forged(&f, NULL);
	f.n = 0;
	f_uv(&f, 1);
	f_rec(&f, 50, 0, 1, 1025);		/* a frame more than 1024 */
	forged(&f, "bad off-CPU record");
	f.n = 0;
	f_uv(&f, 1);
	f_rec(&f, 50, 0, 1, 3);
	f.n--;					/* a frame short */
	forged(&f, "bad off-CPU record");
	f.n = 0;
	f_uv(&f, 1);
	f_rec(&f, UINT64_MAX, 0, 1, 0);		/* past 2^64 */
	forged(&f, "bad off-CPU record");
	f.n = 0;
	f_uv(&f, 1);
	f_rec(&f, 50, 0, 1, 0);
	f_uv(&f, 0);				/* a byte left over */
	forged(&f, "bytes after the last record");
}

int
main(void)
{
	test_roundtrip();
	test_forged();
	testdir_done();
	return failures != 0;
}
