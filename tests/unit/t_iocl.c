/*
 * t_iocl.c - the I/O records of sample files (IOCL chunks, pme(5)):
 * written with pme_samplewriter_io() among mapping, thread and sample
 * records, read back field for field and in file order by
 * pme_samplefile_read_io(); passed over by pme_samplefile_read(), which
 * still reads the samples; refused by the writer when out of range, and
 * by the reader when forged (a call that is none, a frame count beyond
 * the payload), naming the file and the chunk's offset.
 *
 * Exit status: 0 pass, 1 fail.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pme.h"
#include "pme_sample.h"

#define TEST_NAME "t_iocl"
#include "check.h"

/* What the reader gave, in order: 'M', 'T', 'S', 'I'. */
struct seen {
	char		 order[64];
	int		 n;
	struct pme_io	 io[4];
	uint64_t	 frames[4][8];
	char		 path[4][64];
	int		 nio;
};

static void
mark(struct seen *s, char c)
{
	if (s->n < (int)sizeof(s->order) - 1)
		s->order[s->n++] = c;
}

static int
v_map(void *arg, const struct pme_mapping *m)
{
	(void)m;
	mark(arg, 'M');
	return 0;
}

static int
v_thread(void *arg, const struct pme_thread *t)
{
	(void)t;
	mark(arg, 'T');
	return 0;
}

static int
v_samples(void *arg, const struct pme_sample *s, size_t n)
{
	(void)s;
	while (n-- > 0)
		mark(arg, 'S');
	return 0;
}

static int
v_io(void *arg, const struct pme_io *io)
{
	struct seen *s = arg;
	uint32_t i;

	mark(s, 'I');
	if (s->nio == 4 || io->nframes > 8)
		return 1;
	s->io[s->nio] = *io;
	for (i = 0; i < io->nframes; i++)
		s->frames[s->nio][i] = io->frames[i];
	snprintf(s->path[s->nio], sizeof(s->path[0]), "%s",
	    io->path != NULL ? io->path : "(null)");
	s->nio++;
	return 0;
}

static const struct pme_sample_visitor visitor = {
	NULL, v_map, v_thread, v_samples, NULL
};

static void
write_file(const char *path)
{
	static const uint64_t fr[3] = { 0x555555555200, 0x555555555100,
	    0x7ffff7829d90 };
	struct pme_sample_header h;
	struct pme_mapping m;
	struct pme_thread t;
	struct pme_sample s;
	struct pme_io io;
	struct pme_error err;
	struct pme_samplewriter *w;

	memset(&h, 0, sizeof(h));
	h.method = PME_METHOD_TEST;
	h.event = PME_EVENT_CPU_CLOCK;
	h.period = 1000000;
	h.pid = 100;
	if ((w = pme_samplewriter_open(path, &h, 0, &err)) == NULL)
		die_pme("open", &err);
	memset(&m, 0, sizeof(m));
	m.pid = 100;
	m.flags = PME_MAP_EXEC | PME_MAP_MAIN;
	m.start = 0x555555554000;
	m.end = 0x555555556000;
	m.path = "/x/prog";
	CHECK(pme_samplewriter_mapping(w, &m, &err) == 0);
	memset(&io, 0, sizeof(io));
	io.pid = 100;
	io.tid = 101;
	io.call = PME_IO_WRITE;
	io.fd = 3;
	io.ret = 4096;
	io.start = 123456789;
	io.duration = 2500;
	io.pc = 0x7ffff7914887;
	io.nframes = 3;
	io.frames = fr;
	io.path = "/tmp/out file";
	CHECK(pme_samplewriter_io(w, &io, &err) == 0);
	memset(&t, 0, sizeof(t));
	t.kind = PME_THREAD_EXIT;
	t.pid = 100;
	t.tid = 101;
	CHECK(pme_samplewriter_thread(w, &t, &err) == 0);
	io.call = PME_IO_OPENAT;
	io.tid = 100;
	io.fd = -1;
	io.ret = -2;
	io.nframes = 0;
	io.frames = NULL;
	io.path = NULL;
	io.flags = PME_IO_TRUNCATED;
	CHECK(pme_samplewriter_io(w, &io, &err) == 0);
	memset(&s, 0, sizeof(s));
	s.pid = s.tid = 100;
	s.pc = 0x555555555010;
	s.weight = 1000000;
	CHECK(pme_samplewriter_sample(w, &s, &err) == 0);
	/* Out of range: refused, the writer still good. */
	io.call = PME_IO_NCALLS;
	CHECK(pme_samplewriter_io(w, &io, &err) == -1 &&
	    err.code == PME_EINVAL);
	io.call = PME_IO_READ;
	io.nframes = 2;
	CHECK(pme_samplewriter_io(w, &io, &err) == -1);
	if (pme_samplewriter_close(w, NULL, &err) == -1)
		die_pme("close", &err);
}

static void
test_roundtrip(void)
{
	const char *path = tmppath("io.pms");
	struct pme_error err;
	struct seen s;

	write_file(path);
	memset(&s, 0, sizeof(s));
	if (pme_samplefile_read_io(path, &visitor, v_io, &s, NULL, &err) == -1)
		die_pme("read_io", &err);
	if (strcmp(s.order, "MITIS") != 0)
		fail("order %s, not MITIS", s.order);
	CHECK(s.nio == 2);
	CHECK(s.io[0].pid == 100 && s.io[0].tid == 101);
	CHECK(s.io[0].call == PME_IO_WRITE && s.io[0].fd == 3);
	CHECK(s.io[0].ret == 4096 && s.io[0].start == 123456789);
	CHECK(s.io[0].duration == 2500 && s.io[0].pc == 0x7ffff7914887);
	CHECK(s.io[0].nframes == 3 && s.frames[0][0] == 0x555555555200 &&
	    s.frames[0][1] == 0x555555555100 &&
	    s.frames[0][2] == 0x7ffff7829d90);
	CHECK(strcmp(s.path[0], "/tmp/out file") == 0);
	CHECK(s.io[1].call == PME_IO_OPENAT && s.io[1].fd == -1 &&
	    s.io[1].ret == -2 && s.io[1].nframes == 0);
	CHECK(s.io[1].flags == PME_IO_TRUNCATED);
	CHECK(strcmp(s.path[1], "(null)") == 0);
	CHECK(strcmp(pme_io_name(PME_IO_OPENAT), "openat") == 0);
	CHECK(strcmp(pme_io_name(PME_IO_RECVMSG), "recvmsg") == 0);
	CHECK(pme_io_name(0) == NULL && pme_io_name(PME_IO_NCALLS) == NULL);

	/* A reader of samples passes over the records. */
	memset(&s, 0, sizeof(s));
	if (pme_samplefile_read(path, &visitor, &s, NULL, &err) == -1)
		die_pme("read", &err);
	if (strcmp(s.order, "MTS") != 0)
		fail("read without io: order %s, not MTS", s.order);
}

/* A file of a header and one forged IOCL chunk: the reader's error. */
static void
forged(const uint8_t *p, size_t n, const char *expect)
{
	static const uint8_t shdr[45] = { 4, 0, 0, 0, 1 };
	const char *path = tmppath("forged.pms");
	struct pme_error err;
	struct pme_writer *w;
	struct seen s;
	int rc;

	if ((w = pme_writer_open(path, PME_KIND_SAMPLE, 0, &err)) == NULL)
		die_pme("open", &err);
	CHECK(pme_writer_chunk(w, PME_FOURCC('S', 'H', 'D', 'R'), shdr, 42, 0,
	    &err) == 0);
	CHECK(pme_writer_chunk(w, PME_FOURCC('I', 'O', 'C', 'L'), p, n, 0,
	    &err) == 0);
	CHECK(pme_writer_commit(w, &err) == 0);
	memset(&s, 0, sizeof(s));
	rc = pme_samplefile_read_io(path, NULL, v_io, &s, NULL, &err);
	if (rc != -1 || err.code != PME_EFORMAT || strstr(err.msg,
	    expect) == NULL || strstr(err.msg, "forged.pms': offset 0x") ==
	    NULL)
		fail("forged IOCL: want '%s', got rc %d '%s'", expect, rc,
		    rc == -1 ? pme_strerror(&err) : "");
}

static void
test_forged(void)
{
	/* count 1: pid 1, tid +0, call 99, flags, fd, ret, start, duration,
	 * pc, 0 frames, empty path */
	static const uint8_t badcall[] = { 1, 1, 0, 99, 0, 0, 0, 0, 0, 0, 0,
	    0, 0 };
	/* call 1 (read) with 200 frames and nothing after */
	static const uint8_t frames[] = { 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0xc8,
	    0x01, 0, 0 };
	/* a good record, then a byte more */
	static const uint8_t after[] = { 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
	    7 };
	/* 1000 records in 12 bytes */
	static const uint8_t count[] = { 0xe8, 0x07, 1, 0, 1, 0, 0, 0, 0, 0,
	    0, 0 };

	forged(badcall, sizeof(badcall), "'IOCL' chunk: bad I/O record");
	forged(frames, sizeof(frames), "'IOCL' chunk: bad I/O record");
	forged(after, sizeof(after), "bytes after the last record");
	forged(count, sizeof(count), "bad record count");
}

int
main(void)
{
	test_roundtrip();
	test_forged();
	testdir_done();
	return failures != 0;
}
