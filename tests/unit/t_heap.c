/*
 * t_heap.c - HEA2 chunks (pme(5)) round trip through the sample file
 * writer and readers: stack nodes, threads, allocations and frees come
 * back as written (pme_samplefile_heap), each allocation as two samples
 * of the run's allocations and bytes events at its call site with its
 * stack; a release of no block and of a parent's block pass as such;
 * a run without those events has no such samples; forged
 * records (a stack not yet defined, a parent after its child, a record
 * before its thread, an unknown tag, a function out of range) are an
 * error naming the chunk and its offset, and a stop is honoured.
 * REPEATs replay the events before them, within and across chunks, and
 * forged ones (no dist, too far, empty, too long, a block no longer
 * live) are refused; a release names its block by age (the last's
 * taken from it, zigzagged) in HEA2 and by
 * number in the HEAP chunks of files written before it, which are read
 * as they were (a HEA2 chunk's type forged into HEAP).
 */
#define TEST_NAME "t_heap"
#include "pme.h"
#include "check.h"

#include <stdio.h>
#include <zlib.h>

#include "pme_sample.h"
#include "varint.h"

struct got {
	uint32_t	 nodes, events, samples;
	uint64_t	 ip[8];
	uint32_t	 parent[8];
	struct pme_heap_event ev[8];
	struct pme_sample s[8];
	uint64_t	 frames[8][4];
	int		 stop;
};

static int
on_stack(void *arg, uint32_t pid, uint32_t id, uint32_t parent, uint64_t ip)
{
	struct got *g = arg;

	CHECK(pid == 77);
	CHECK(id == g->nodes + 1);
	if (g->nodes < 8) {
		g->ip[g->nodes] = ip;
		g->parent[g->nodes] = parent;
	}
	g->nodes++;
	return 0;
}

static int
on_event(void *arg, const struct pme_heap_event *e)
{
	struct got *g = arg;

	if (g->events < 8)
		g->ev[g->events] = *e;
	g->events++;
	return g->stop;
}

static int
on_samples(void *arg, const struct pme_sample *s, size_t n)
{
	struct got *g = arg;
	size_t i;
	uint32_t k;

	for (i = 0; i < n; i++, g->samples++) {
		if (g->samples >= 8)
			continue;
		g->s[g->samples] = s[i];
		for (k = 0; k < s[i].nframes && k < 4; k++)
			g->frames[g->samples][k] = s[i].frames[k];
	}
	return 0;
}

/* A file of one run whose header lists events ev (n of them) and a
 * heap chunk of each payload p[k][0..len[k]), k < np; its path. */
static const char *
write_chunks(const char *name, const char *const *ev, uint32_t n,
    const uint8_t *const *p, const size_t *len, int np)
{
	struct pme_sample_event e[4];
	struct pme_sample_header h;
	struct pme_samplewriter *w;
	struct pme_error err;
	const char *path = tmppath(name);
	uint32_t i;

	memset(&h, 0, sizeof(h));
	memset(e, 0, sizeof(e));
	for (i = 0; i < n; i++) {
		e[i].name = ev[i];
		e[i].unit = ev[i];
		e[i].kind = 9;
		e[i].period = 1;
	}
	h.method = PME_METHOD_TEST;
	h.pid = 77;
	h.nevents = n;
	h.events = e;
	if ((w = pme_samplewriter_open(path, &h, 0, &err)) == NULL)
		die_pme("open", &err);
	for (i = 0; i < (uint32_t)np; i++)
		if (pme_samplewriter_heap(w, p[i], len[i], &err) == -1)
			die_pme("heap", &err);
	if (pme_samplewriter_close(w, NULL, &err) == -1)
		die_pme("close", &err);
	return path;
}

/* A file of one heap chunk of payload p[0..len). */
static const char *
write_file(const char *name, const char *const *ev, uint32_t n,
    const uint8_t *p, size_t len)
{
	return write_chunks(name, ev, n, &p, &len, 1);
}

static const char *const heap_ev[] = { "cpu-clock", "allocations",
    "bytes" };

static uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

/* The file at path with its HEA2 chunks made HEAP chunks, as a writer
 * of before HEA2 made them: the type and the chunk's CRC (pme(5)). */
static void
as_heap(const char *path)
{
	static uint8_t buf[1 << 16];
	FILE *f = fopen(path, "r+b");
	size_t n, off = 16, len;
	uLong c;

	if (f == NULL || (n = fread(buf, 1, sizeof(buf), f)) == sizeof(buf))
		die("%s: cannot read", path);
	for (; off + 20 <= n; off += 20 + len) {
		len = le32(buf + off + 8);
		if (memcmp(buf + off, "HEA2", 4) != 0)
			continue;
		buf[off + 3] = 'P';
		c = crc32(crc32(0, buf + off, 16), buf + off + 20,
		    (uInt)len);
		buf[off + 16] = (uint8_t)c;
		buf[off + 17] = (uint8_t)(c >> 8);
		buf[off + 18] = (uint8_t)(c >> 16);
		buf[off + 19] = (uint8_t)(c >> 24);
	}
	if (fseek(f, 0, SEEK_SET) != 0 || fwrite(buf, 1, n, f) != n ||
	    fclose(f) != 0)
		die("%s: cannot write", path);
}

/* Two nodes (main's call site 0x1000, then f's 0x2010 called from it),
 * thread 78, a malloc of 48 bytes from f (block 1), 12 ns later a free
 * of it. */
static size_t
good(uint8_t *buf)
{
	uint8_t *p = buf;

	p = pme_uv_put(p, 77);			/* pid */
	p = pme_uv_put(p, 1000);		/* time */
	p = pme_uv_put(p, PME_HEAPREC_STACK);
	p = pme_uv_put(p, 0);
	p = pme_uv_put(p, pme_zig(0x1000));
	p = pme_uv_put(p, PME_HEAPREC_STACK);
	p = pme_uv_put(p, 1);
	p = pme_uv_put(p, pme_zig(0x1010));	/* 0x2010 - 0x1000 */
	p = pme_uv_put(p, PME_HEAPREC_THREAD);
	p = pme_uv_put(p, 78);
	p = pme_uv_put(p, PME_HEAPREC_ALLOC);
	p = pme_uv_put(p, PME_HEAP_MALLOC);
	p = pme_uv_put(p, 48);
	p = pme_uv_put(p, 2);			/* stack */
	p = pme_uv_put(p, PME_HEAPREC_TIME);
	p = pme_uv_put(p, 12);
	p = pme_uv_put(p, PME_HEAPREC_FREE);
	p = pme_uv_put(p, PME_HEAP_FREE);
	p = pme_uv_put(p, 3);			/* age 1: block 1 */
	return (size_t)(p - buf);
}

static int
readback(const char *path, struct got *g, struct pme_error *err)
{
	static const struct pme_sample_visitor v = {
		NULL, NULL, NULL, on_samples, NULL
	};
	static const struct pme_heap_visitor hv = { on_stack, on_event };

	memset(g, 0, sizeof(*g));
	return pme_samplefile_heap(path, &v, &hv, g, NULL, err);
}

static void
round_trip(void)
{
	struct pme_error err;
	struct got g;
	uint8_t buf[256];
	size_t len = good(buf);

	if (readback(write_file("good.pms", heap_ev, 3, buf, len), &g,
	    &err) == -1)
		die_pme("read", &err);
	CHECK(g.nodes == 2);
	CHECK(g.ip[0] == 0x1000 && g.parent[0] == 0);
	CHECK(g.ip[1] == 0x2010 && g.parent[1] == 1);
	CHECK(g.events == 2);
	CHECK(g.ev[0].kind == PME_HEAPREC_ALLOC && g.ev[0].fn ==
	    PME_HEAP_MALLOC && g.ev[0].pid == 77 && g.ev[0].tid == 78 &&
	    g.ev[0].time == 1000 && g.ev[0].block == 1 &&
	    g.ev[0].size == 48 && g.ev[0].stack == 2);
	CHECK(g.ev[1].kind == PME_HEAPREC_FREE && g.ev[1].fn ==
	    PME_HEAP_FREE && g.ev[1].tid == 78 && g.ev[1].time == 1012 &&
	    g.ev[1].block == 1);
	/* The allocation as two samples: events 1 and 2, at f's call
	 * site less one, main's call site its caller. */
	CHECK(g.samples == 2);
	CHECK(g.s[0].event == 1 && g.s[0].weight == 1);
	CHECK(g.s[1].event == 2 && g.s[1].weight == 48);
	CHECK(g.s[0].pc == 0x200f && g.s[1].pc == 0x200f);
	CHECK(g.s[0].nframes == 1 && g.frames[0][0] == 0x1000);
	CHECK(g.s[0].pid == 77 && g.s[0].tid == 78 && g.s[0].time == 1000);

	/* Without the events: the records, no samples. */
	if (readback(write_file("noev.pms", heap_ev, 1, buf, len), &g,
	    &err) == -1)
		die_pme("read", &err);
	CHECK(g.events == 2 && g.samples == 0);

	/* A stop from the visitor. */
	memset(&g, 0, sizeof(g));
	g.stop = 1;
	{
		static const struct pme_heap_visitor hv = { NULL, on_event };

		CHECK(pme_samplefile_heap(tmppath("good.pms"), NULL, &hv, &g,
		    NULL, &err) == -1);
		CHECK(g.events == 1);
	}
}

/* A file of payload buf[0..len): refused, saying what, its chunk and
 * offset. */
static void
refused(const char *name, const uint8_t *buf, size_t len, const char *what)
{
	struct pme_error err;
	struct got g;

	if (readback(write_file(name, heap_ev, 3, buf, len), &g, &err) != -1)
		fail("%s: read", name);
	else if (strstr(err.msg, what) == NULL ||
	    strstr(err.msg, "'HEA2' chunk") == NULL ||
	    strstr(err.msg, "offset") == NULL)
		fail("%s: '%s', not '%s'", name, err.msg, what);
}

/* The good payload with byte at off set to v: refused, saying what. */
static void
forged(const char *name, size_t off, uint8_t v, const char *what)
{
	uint8_t buf[256];
	size_t len = good(buf);

	buf[off] = v;
	refused(name, buf, len, what);
}

/* The allocation before any thread record: refused. */
static void
no_thread(void)
{
	struct pme_error err;
	struct got g;
	uint8_t buf[256];
	size_t len = good(buf);

	memmove(buf + 11, buf + 13, len - 13);
	if (readback(write_file("nothread.pms", heap_ev, 3, buf, len - 2),
	    &g, &err) != -1)
		fail("nothread: read");
	else if (strstr(err.msg, "bad heap record") == NULL)
		fail("nothread: '%s'", err.msg);
}

/* A release of a pointer that is no block (0) and, in a fork child, of
 * the parent's block 5: passed on as such, no number taken; a new block
 * after them is number 1. */
static void
foreign(void)
{
	struct pme_error err;
	struct got g;
	uint8_t buf[64], *p = buf;

	p = pme_uv_put(p, 77);
	p = pme_uv_put(p, 0);
	p = pme_uv_put(p, PME_HEAPREC_THREAD);
	p = pme_uv_put(p, 77);
	p = pme_uv_put(p, PME_HEAPREC_FREE);
	p = pme_uv_put(p, PME_HEAP_FREE);
	p = pme_uv_put(p, 0);
	p = pme_uv_put(p, PME_HEAPREC_FREE_PARENT);
	p = pme_uv_put(p, PME_HEAP_DELETE);
	p = pme_uv_put(p, 5);
	p = pme_uv_put(p, PME_HEAPREC_ALLOC);
	p = pme_uv_put(p, PME_HEAP_NEW);
	p = pme_uv_put(p, 24);
	p = pme_uv_put(p, 0);
	if (readback(write_file("foreign.pms", heap_ev, 3, buf,
	    (size_t)(p - buf)), &g, &err) == -1)
		die_pme("read", &err);
	CHECK(g.events == 3);
	CHECK(g.ev[0].kind == PME_HEAPREC_FREE && g.ev[0].block == 0);
	CHECK(g.ev[1].kind == PME_HEAPREC_FREE && g.ev[1].fn ==
	    PME_HEAP_DELETE && g.ev[1].block == (PME_HEAP_PARENT | 5));
	CHECK(g.ev[2].kind == PME_HEAPREC_ALLOC && g.ev[2].block == 1 &&
	    g.ev[2].stack == 0 && g.ev[2].size == 24);
	/* No stack: a sample at pc 0, no chain. */
	CHECK(g.samples == 2 && g.s[0].pc == 0 && g.s[0].nframes == 0);
}

/* A payload's start: pid 77, time 0, thread 77. */
static uint8_t *
begin(uint8_t *p)
{
	p = pme_uv_put(p, 77);
	p = pme_uv_put(p, 0);
	p = pme_uv_put(p, PME_HEAPREC_THREAD);
	return pme_uv_put(p, 77);
}

static uint8_t *
put_alloc(uint8_t *p, uint64_t size)
{
	p = pme_uv_put(p, PME_HEAPREC_ALLOC);
	p = pme_uv_put(p, PME_HEAP_MALLOC);
	p = pme_uv_put(p, size);
	return pme_uv_put(p, 0);
}

/* A FREE of block v: in HEA2 its age less the last FREE's (0 at
 * first), zigzagged, plus 1 (FREE_AGE), in HEAP its number; or a REPEAT
 * (tag) of dist and len v. */
#define FREE_AGE(d)	(pme_zig((uint64_t)(d)) + 1)
static uint8_t *
put_rec(uint8_t *p, int tag, uint64_t a, uint64_t v)
{
	p = pme_uv_put(p, (uint64_t)tag);
	p = pme_uv_put(p, a);
	return pme_uv_put(p, v);
}

/* Five blocks, 1 to 5, then a release of 5 (HEA2: age 2, block 4;
 * HEAP: number 5). */
static void
versions(void)
{
	struct pme_error err;
	struct got g;
	uint8_t buf[64], *p = begin(buf);
	const char *path;

	int i;

	for (i = 0; i < 5; i++)
		p = put_alloc(p, 8);
	p = put_rec(p, PME_HEAPREC_FREE, PME_HEAP_FREE, FREE_AGE(2));
	path = write_file("age.pms", heap_ev, 3, buf, (size_t)(p - buf));
	if (readback(path, &g, &err) == -1)
		die_pme("read", &err);
	CHECK(g.events == 6 && g.ev[5].kind == PME_HEAPREC_FREE &&
	    g.ev[5].block == 4);
	as_heap(path);
	if (readback(path, &g, &err) == -1)
		die_pme("read", &err);
	CHECK(g.events == 6 && g.ev[5].kind == PME_HEAPREC_FREE &&
	    g.ev[5].block == 5);
	/* HEAP has no REPEAT. */
	p = put_rec(p, PME_HEAPREC_REPEAT, 1, 1);
	path = write_file("oldrep.pms", heap_ev, 3, buf, (size_t)(p - buf));
	as_heap(path);
	if (readback(path, &g, &err) != -1)
		fail("oldrep: read");
	else if (strstr(err.msg, "'HEAP' chunk: bad heap record") == NULL)
		fail("oldrep: '%s'", err.msg);
}

/* An allocation and its release (age 1, then the same age), then a
 * REPEAT of the second pair twice over and one more with the last dist:
 * 5 blocks of 16 bytes, each number 1; and a window: two blocks, the
 * first released (age 2), twice, the second time replayed: blocks 1 and
 * 4, block 1 released. */
static void
repeats(void)
{
	struct pme_error err;
	struct got g;
	uint8_t buf[64], *p = begin(buf);
	uint32_t i;

	p = put_alloc(p, 16);
	p = put_rec(p, PME_HEAPREC_FREE, PME_HEAP_FREE, FREE_AGE(1));
	p = put_alloc(p, 16);
	p = put_rec(p, PME_HEAPREC_FREE, PME_HEAP_FREE, FREE_AGE(0));
	p = put_rec(p, PME_HEAPREC_REPEAT, 2, 4);
	p = put_rec(p, PME_HEAPREC_REPEAT, 0, 2);
	if (readback(write_file("rep.pms", heap_ev, 3, buf,
	    (size_t)(p - buf)), &g, &err) == -1)
		die_pme("read", &err);
	CHECK(g.events == 10 && g.samples == 10);
	for (i = 0; i < 8; i++)
		CHECK(g.ev[i].kind == (i % 2 ? PME_HEAPREC_FREE :
		    PME_HEAPREC_ALLOC) && g.ev[i].block == 1 &&
		    g.ev[i].tid == 77);
	CHECK(g.ev[6].size == 16 && g.s[7].weight == 16);

	p = begin(buf);
	p = put_alloc(p, 1);
	p = put_alloc(p, 2);
	p = put_rec(p, PME_HEAPREC_FREE, PME_HEAP_FREE, FREE_AGE(2));
	p = put_alloc(p, 1);
	p = put_alloc(p, 2);
	p = put_rec(p, PME_HEAPREC_FREE, PME_HEAP_FREE, FREE_AGE(0));
	p = put_rec(p, PME_HEAPREC_REPEAT, 3, 3);
	if (readback(write_file("win.pms", heap_ev, 3, buf,
	    (size_t)(p - buf)), &g, &err) == -1)
		die_pme("read", &err);
	CHECK(g.events == 9);
	CHECK(g.ev[2].block == 1 && g.ev[3].block == 1 &&
	    g.ev[3].size == 1 && g.ev[4].block == 3 && g.ev[4].size == 2 &&
	    g.ev[5].kind == PME_HEAPREC_FREE && g.ev[5].block == 1 &&
	    g.ev[6].block == 1 && g.ev[6].size == 1 && g.ev[7].block == 4);
}

/* A second chunk replays the first's events; its dist is its own. */
static void
across(void)
{
	struct pme_error err;
	struct got g;
	uint8_t a[64], b[64], *p = begin(a), *q = begin(b);
	const uint8_t *pp[2] = { a, b };
	size_t len[2];

	p = put_alloc(p, 5);
	p = put_rec(p, PME_HEAPREC_FREE, PME_HEAP_FREE, FREE_AGE(1));
	p = put_alloc(p, 5);
	p = put_rec(p, PME_HEAPREC_FREE, PME_HEAP_FREE, FREE_AGE(0));
	q = put_rec(q, PME_HEAPREC_REPEAT, 2, 2);
	len[0] = (size_t)(p - a);
	len[1] = (size_t)(q - b);
	if (readback(write_chunks("across.pms", heap_ev, 3, pp, len, 2),
	    &g, &err) == -1)
		die_pme("read", &err);
	CHECK(g.events == 6 && g.ev[4].size == 5 && g.ev[5].block == 1);
	q = begin(b);
	q = put_rec(q, PME_HEAPREC_REPEAT, 0, 2);
	len[1] = (size_t)(q - b);
	if (readback(write_chunks("across0.pms", heap_ev, 3, pp, len, 2),
	    &g, &err) != -1)
		fail("across0: read");
	else if (strstr(err.msg, "bad repeat") == NULL)
		fail("across0: '%s'", err.msg);
}

/* An allocation, its release and a REPEAT of dist and len: refused,
 * saying what. */
static void
bad_repeat(const char *name, uint64_t dist, uint64_t len,
    const char *what)
{
	uint8_t buf[64], *p = begin(buf);

	p = put_alloc(p, 16);
	p = put_rec(p, PME_HEAPREC_FREE, PME_HEAP_FREE, FREE_AGE(1));
	p = put_rec(p, PME_HEAPREC_REPEAT, dist, len);
	refused(name, buf, (size_t)(p - buf), what);
}

int
main(void)
{
	round_trip();
	foreign();
	versions();
	repeats();
	across();
	bad_repeat("dist0.pms", 0, 2, "bad repeat");	/* no dist before */
	bad_repeat("far.pms", 3, 1, "bad repeat");	/* before the first */
	bad_repeat("window.pms", PME_HEAP_WINDOW, 1, "bad repeat");
	bad_repeat("len0.pms", 2, 0, "bad repeat");
	bad_repeat("long.pms", 2, PME_HEAP_CHUNK_EVENTS - 1, "bad repeat");
	/* The release again, of age 2 now: no block of it. */
	bad_repeat("dead.pms", 1, 1, "no such block");
	/* Byte offsets in good()'s payload: pid 0, time 1-2, first node
	 * 3-6, second 7-10, thread 11-12, alloc 13-16 (its stack 16),
	 * time 17-18, free 19-21 (its block 21). */
	forged("stack.pms", 16, 3, "bad heap record");	/* undefined */
	forged("block.pms", 21, 2, "no such block");	/* never given */
	forged("parent.pms", 8, 5, "bad stack node");	/* after child */
	forged("tag.pms", 13, 9, "bad heap record");	/* no such tag */
	forged("fn.pms", 14, 40, "bad heap record");	/* no such fn */
	no_thread();
	testdir_done();
	return failures != 0;
}
