/*
 * t_offcpu.c - the off-CPU intervals of sample files (OFF2 chunks, and
 * OFFC before them, pmeclock -w, pme(5)): written and read back field
 * for field, across chunks; chains that repeat written once a chunk;
 * passed over by a reader that does not ask for them; refused by the
 * writer when they make no sense; OFFC chunks, which files written
 * before OFF2 hold, still read; and forged chunks refused by the reader,
 * naming the file, offset and chunk.
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

/* A sample file of a -w run at path, its buffer the smallest: the
 * intervals take several chunks. */
static struct pme_samplewriter *
open_wall(const char *path)
{
	static const char *const argv[] = { "./waits" };
	struct pme_sample_header h;
	struct pme_samplewriter *w;
	struct pme_error err;

	memset(&h, 0, sizeof(h));
	h.method = PME_METHOD_TEST;
	h.event = PME_EVENT_CPU_CLOCK;
	h.period = 1000000;
	h.pid = 100;
	h.flags = PME_SHDR_WALL;
	h.argc = 1;
	h.argv = argv;
	if ((w = pme_samplewriter_open(path, &h, 16384, &err)) == NULL)
		die_pme("open", &err);
	return w;
}

static void
test_roundtrip(void)
{
	struct pme_sample_visitor v = { NULL, NULL, NULL, on_samples, NULL };
	struct pme_samplewriter *w;
	struct pme_offcpu o;
	struct pme_sample s;
	struct pme_error err;
	struct got g;
	uint64_t fr[64];
	const char *path = tmppath("w.pms");
	int i;

	w = open_wall(path);
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

/* Interval i of test_repeats(): i's fields, one of 5 chains. */
static void
make_rep(struct pme_offcpu *o, uint64_t *fr, int i)
{
	int k, j = i % 5;

	make(o, fr, i);
	o->pc = j ? 0x7f0000001000ull + (uint64_t)j : 0;
	o->nframes = j ? 30 : 0;
	for (k = 0; k < (int)o->nframes; k++)
		fr[k] = 0x555500000000ull + (uint64_t)(j * 4096 + k * 64);
}

static int
on_rep(void *arg, const struct pme_offcpu *o)
{
	struct got *g = arg;
	struct pme_offcpu w;
	uint64_t fr[64];

	make_rep(&w, fr, g->n);
	if (o->start != w.start || o->end != w.end || o->pc != w.pc ||
	    o->nframes != w.nframes || (w.nframes > 0 && memcmp(o->frames,
	    w.frames, w.nframes * sizeof(*fr)) != 0)) {
		if (g->bad++ == 0)
			fail("repeated chain: interval %d read back differs",
			    g->n);
	}
	g->n++;
	return 0;
}

/*
 * Intervals whose chains repeat, across chunks and flushes: read back
 * the same, in OFF2 chunks only, each chain written out once a chunk
 * (the 30 frames take more than 30 bytes; the other fields some 20).
 */
static void
test_repeats(void)
{
	struct pme_samplewriter *w;
	struct pme_offcpu o;
	struct pme_error err;
	struct pme_reader *r;
	struct pme_chunk c;
	struct got g;
	uint64_t fr[64], raw = 0;
	const char *path = tmppath("r.pms");
	int i, n2 = 0, n1 = 0, rc;

	w = open_wall(path);
	for (i = 0; i < 20 * N; i++) {
		make_rep(&o, fr, i);
		if (pme_samplewriter_offcpu(w, &o, &err) == -1)
			die_pme("offcpu", &err);
		if (i % 333 == 0 && pme_samplewriter_flush(w, &err) == -1)
			die_pme("flush", &err);
	}
	if (pme_samplewriter_close(w, NULL, &err) == -1)
		die_pme("close", &err);
	memset(&g, 0, sizeof(g));
	if (pme_samplefile_read_offcpu(path, NULL, on_rep, &g, NULL, &err) ==
	    -1)
		fail("read_offcpu: %s", pme_strerror(&err));
	CHECK(g.n == 20 * N && g.bad == 0);
	if ((r = pme_reader_open(path, PME_KIND_SAMPLE, &err)) == NULL)
		die_pme("reader", &err);
	while ((rc = pme_reader_next(r, &c, &err)) == 1) {
		n1 += c.type == PME_FOURCC('O', 'F', 'F', 'C');
		if (c.type == PME_FOURCC('O', 'F', 'F', '2')) {
			n2++;
			raw += c.len;
		}
	}
	CHECK(rc == 0);
	pme_reader_close(r);
	if (n1 != 0 || n2 < 2 || raw >= (uint64_t)20 * N * 30)
		fail("%d OFFC and %d OFF2 chunks of %llu bytes for %d "
		    "intervals of 5 chains", n1, n2, (unsigned long long)raw,
		    20 * N);
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

/* The intervals of a forged chunk: their chains. */
struct seen {
	int		 n;
	uint64_t	 pc[4], nframes[4], last[4];
	struct pme_offcpu o;	/* the last */
};

static int
on_seen(void *arg, const struct pme_offcpu *o)
{
	struct seen *sn = arg;

	if (sn->n < 4) {
		sn->pc[sn->n] = o->pc;
		sn->nframes[sn->n] = o->nframes;
		sn->last[sn->n] = o->nframes ? o->frames[o->nframes - 1] : 0;
	}
	sn->o = *o;
	sn->o.frames = NULL;
	sn->n++;
	return 0;
}

/* A file of a header and the forged chunk of type tag ("OFFC", "OFF2");
 * NULL expect: read, its intervals into sn (when not NULL). */
static void
forged_as(const struct forge *f, const char *tag, const char *expect,
    struct seen *sn)
{
	static const uint8_t shdr[45] = { 4, 0, 0, 0, 1 };	/* argc 0 */
	const char *path = tmppath("f.pms");
	struct pme_error err;
	struct pme_writer *w;
	struct seen none;
	char want[16];
	int rc;

	if ((w = pme_writer_open(path, PME_KIND_SAMPLE, 0, &err)) == NULL)
		die_pme("open", &err);
	CHECK(pme_writer_chunk(w, PME_FOURCC('S', 'H', 'D', 'R'), shdr, 42, 0,
	    &err) == 0);
	CHECK(pme_writer_chunk(w, PME_FOURCC(tag[0], tag[1], tag[2], tag[3]),
	    f->b, f->n, 0, &err) == 0);
	CHECK(pme_writer_commit(w, &err) == 0);
	memset(&none, 0, sizeof(none));
	if (sn == NULL)
		sn = &none;
	memset(sn, 0, sizeof(*sn));
	rc = pme_samplefile_read_offcpu(path, NULL, on_seen, sn, NULL, &err);
	snprintf(want, sizeof(want), "'%s' chunk", tag);
	if (expect == NULL && rc != 0)
		fail("forged %s: %s", tag, pme_strerror(&err));
	if (expect != NULL && (rc != -1 || err.code != PME_EFORMAT ||
	    strstr(err.msg, expect) == NULL ||
	    strstr(err.msg, "offset 0x") == NULL ||
	    strstr(err.msg, want) == NULL))
		fail("forged %s: '%s', not '%s'", tag, rc == 0 ? "read" :
		    err.msg, expect);
}

static void
forged(const struct forge *f, const char *expect)
{
	forged_as(f, "OFFC", expect, NULL);
}

/* An OFF2 interval: pid 100 (the chunk's first: first), start 20 after
 * the one before, length 50, what has says it has (kclass 1 and
 * OFF2's bits: each field there val), its chain chain (0: written out,
 * pc and nframes frames of 8 bytes from it). */
static void
f_rec2(struct forge *f, int first, uint64_t has, uint64_t val,
    uint64_t chain, uint64_t pc, uint64_t nframes)
{
	uint64_t i;

	f_uv(f, first ? 200 : 0);
	f_uv(f, 0);
	f_uv(f, 40);
	f_uv(f, 50);
	f_uv(f, has | 1);
	for (i = 0x08; i <= 0x100; i <<= 1)
		if (has & i)
			f_uv(f, val);
	f_uv(f, chain);
	if (chain != 0)
		return;
	f_uv(f, pc);
	f_uv(f, nframes);
	for (i = 0; i < nframes; i++)
		f_uv(f, 16);		/* zigzag 8 */
}

/* A forged OFF2 chunk of one interval (f_rec2()'s, less cut bytes):
 * refused as why, or read (NULL). */
static void
forged_one(const char *why, uint64_t has, uint64_t val, uint64_t chain,
    uint64_t nframes, size_t cut)
{
	struct forge f;

	f.n = 0;
	f_uv(&f, 1);
	f_rec2(&f, 1, has, val, chain, 0x2000, nframes);
	f.n -= cut;
	forged_as(&f, "OFF2", why, NULL);
}

/* OFFC chunks as files before OFF2 have them, and OFF2's references. */
static void
test_chains(void)
{
	struct forge f;
	struct seen sn;

	/* OFFC: each chain written out, no 0 before it */
	f.n = 0;
	f_uv(&f, 2);
	f_rec(&f, 50, 0, 1, 3);
	f_rec(&f, 60, 0, 1, 2);
	forged_as(&f, "OFFC", NULL, &sn);
	CHECK(sn.n == 2 && sn.pc[0] == 0x1000 && sn.nframes[0] == 3 &&
	    sn.last[0] == 0x1000 && sn.nframes[1] == 2);
	/* OFF2: two chains written out, then each again by its number */
	f.n = 0;
	f_uv(&f, 4);
	f_rec2(&f, 1, 0, 0, 0, 0x2000, 3);
	f_rec2(&f, 0, 0, 0, 0, 0x3000, 1);
	f_rec2(&f, 0, 0, 0, 1, 0, 0);
	f_rec2(&f, 0, 0x1f8, 7, 2, 0, 0);	/* every field: 7 */
	forged_as(&f, "OFF2", NULL, &sn);
	CHECK(sn.n == 4 && sn.pc[0] == 0x2000 && sn.nframes[0] == 3 &&
	    sn.last[0] == 0x2018 && sn.pc[1] == 0x3000 &&
	    sn.nframes[1] == 1 && sn.last[1] == 0x3008 &&
	    sn.pc[2] == 0x2000 && sn.nframes[2] == 3 &&
	    sn.last[2] == 0x2018 && sn.pc[3] == 0x3000 &&
	    sn.last[3] == 0x3008);
	CHECK(sn.o.pid == 100 && sn.o.tid == 100 && sn.o.start == 80 &&
	    sn.o.end == 130 && sn.o.wake == 87 && sn.o.kclass == 1 &&
	    sn.o.kstate == 7 && sn.o.waker == 7 && sn.o.flags == 7 &&
	    sn.o.futex_op == 7 && sn.o.object == 7);
	/* a chain not yet written out */
	f.n = 0;
	f_uv(&f, 2);
	f_rec2(&f, 1, 0, 0, 0, 0x2000, 3);
	f_rec2(&f, 0, 0, 0, 2, 0, 0);
	forged_as(&f, "OFF2", "bad off-CPU record", NULL);
	forged_one("bad off-CPU record", 0, 0, 1, 0, 0);
	/* a chain cut short, one of more than 1024 frames, a field that
	 * OFF2 has not; woken at its end, and after it */
	forged_one("bad off-CPU record", 0, 0, 0, 3, 1);
	forged_one("bad off-CPU record", 0, 0, 0, 1025, 0);
	forged_one("bad off-CPU record", 0x200, 0, 0, 0, 0);
	forged_one(NULL, 0x08, 50, 0, 0, 0);
	forged_one("bad off-CPU record", 0x08, 51, 0, 0, 0);
	f.n = 0;
	f_uv(&f, (uint64_t)1 << 40);
	forged_as(&f, "OFF2", "bad record count", NULL);
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
	test_repeats();
	test_forged();
	test_chains();
	testdir_done();
	return failures != 0;
}
