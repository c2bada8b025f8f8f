/*
 * t_container.c - the pme(5) container: round trips, the byte layout,
 * truncation at every offset, every byte flipped, forged headers and
 * chunks, atomic and direct writes, standard input and output.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>

#include "pme.h"

#define TEST_NAME "t_container"
#include "check.h"

static char self[PATH_MAX];

static void
writefile(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		fprintf(stderr, "t_container: '%s': %s\n", path,
		    strerror(errno));
		exit(1);
	}
}

static void
le32(uint8_t *p, uint32_t v)
{
	p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24;
}

static uint32_t
get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * An independent writer of the layout pme(5) gives, to check the library
 * against the page rather than against itself.
 */
static size_t
forge_header(uint8_t *p, uint32_t kind, uint16_t major, uint16_t minor)
{
	memcpy(p, "\x7fPME", 4);
	le32(p + 4, kind);
	p[8] = major; p[9] = major >> 8;
	p[10] = minor; p[11] = minor >> 8;
	le32(p + 12, crc32(0, p, 12));
	return 16;
}

static size_t
forge_chunk(uint8_t *p, uint32_t type, uint32_t flags, const void *data,
    uint32_t stored, uint32_t raw)
{
	uint32_t c;

	le32(p, type);
	le32(p + 4, flags);
	le32(p + 8, stored);
	le32(p + 12, raw);
	memcpy(p + 20, data, stored);
	c = crc32(0, p, 16);
	c = crc32(c, p + 20, stored);
	le32(p + 16, c);
	return 20 + stored;
}

static void
fill(uint8_t *p, size_t n, int random)
{
	uint32_t x = 12345;
	size_t i;

	for (i = 0; i < n; i++) {
		x = x * 1103515245 + 12345;
		p[i] = random ? (uint8_t)(x >> 16) :
		    (uint8_t)("pme pme pme\n"[i % 12] + (i % 7 == 0));
	}
}

static const size_t sizes[] = { 0, 1, 2, 19, 20, 255, 256, 257, 1000, 4096,
    65535, 65536, 1u << 20, 3u << 20 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/*
 * Reads the payload of the chunk just returned with pme_reader_read() in
 * pieces of at most piece bytes: 1 when it is the n bytes of want.
 */
static int
read_pieces(struct pme_reader *r, const uint8_t *want, size_t n,
    size_t piece)
{
	struct pme_error err;
	uint8_t buf[4096];
	size_t off = 0, got;

	if (piece > sizeof(buf))
		piece = sizeof(buf);
	do {
		if (pme_reader_read(r, buf, piece, &got, &err) == -1) {
			fail("read: %s", pme_strerror(&err));
			return 0;
		}
		if (got > n - off || memcmp(buf, want + off, got) != 0)
			return 0;
		off += got;
	} while (got > 0);
	return off == n;
}

/* Every size, compressible and not, compressed and not: same bytes back,
 * whole or in pieces. */
static void
test_roundtrip(void)
{
	struct pme_error err;
	struct pme_writer *w;
	struct pme_reader *r;
	struct pme_chunk c;
	uint8_t *data[NSIZES][2];
	const char *path = tmppath("rt.pme");
	size_t i, k, j;
	int comp;

	for (i = 0; i < NSIZES; i++)
		for (k = 0; k < 2; k++) {
			data[i][k] = malloc(sizes[i] + 1);
			fill(data[i][k], sizes[i], (int)k);
		}
	for (comp = 0; comp < 2; comp++) {
		w = pme_writer_open(path, PME_KIND_SAMPLE, 0, &err);
		CHECK(w != NULL);
		if (w == NULL)
			return;
		for (i = 0; i < NSIZES; i++)
			for (k = 0; k < 2; k++)
				CHECK(pme_writer_chunk(w,
				    PME_FOURCC('T', 'S', '0' + k, 'A' + i),
				    data[i][k], sizes[i], comp, &err) == 0);
		CHECK(pme_writer_commit(w, &err) == 0);
		r = pme_reader_open(path, PME_KIND_SAMPLE, &err);
		CHECK(r != NULL);
		if (r == NULL) {
			fail("%s", pme_strerror(&err));
			return;
		}
		CHECK(pme_reader_minor(r) == PME_FORMAT_MINOR);
		CHECK(strcmp(pme_reader_name(r), path) == 0);
		CHECK(pme_reader_lost(r) == 0);
		for (i = 0; i < NSIZES; i++)
			for (k = 0; k < 2; k++) {
				j = pme_reader_next(r, &c, &err);
				CHECK(j == 1);
				if (j != 1)
					break;
				CHECK(c.type == PME_FOURCC('T', 'S', '0' + k,
				    'A' + i));
				CHECK(c.len == sizes[i]);
				CHECK(c.data == NULL);
				if ((i + k) % 2 == 0) {
					CHECK(pme_reader_payload(r, &c,
					    sizes[i], &err) == 1);
					CHECK(c.len == 0 || memcmp(c.data,
					    data[i][k], c.len) == 0);
				} else
					CHECK(read_pieces(r, data[i][k],
					    sizes[i], 1000 + i));
				/* Compressible big payloads are compressed
				 * when asked, random ones never, nor any
				 * below 256 bytes. */
				CHECK(c.flags == (comp && k == 0 &&
				    sizes[i] >= 256 ? PME_CHUNK_ZLIB : 0u));
			}
		CHECK(pme_reader_next(r, &c, &err) == 0);
		CHECK(pme_reader_next(r, &c, &err) == 0);
		CHECK(pme_reader_lost(r) == -1);
		pme_reader_close(r);
	}
	for (i = 0; i < NSIZES; i++)
		for (k = 0; k < 2; k++)
			free(data[i][k]);
}

/* The bytes on disk are those pme(5) specifies. */
static void
test_layout(void)
{
	struct pme_error err;
	struct pme_writer *w;
	const char *path = tmppath("layout.pme");
	uint8_t *b, want[64];
	size_t len, n;

	w = pme_writer_open(path, PME_KIND_BUCKET, 0, &err);
	CHECK(w != NULL);
	if (w == NULL)
		return;
	CHECK(pme_writer_chunk(w, PME_FOURCC('A', 'B', 'C', 'D'), "xyz", 3,
	    1, &err) == 0);
	CHECK(pme_writer_commit(w, &err) == 0);
	b = readfile(path, &len);
	n = forge_header(want, PME_KIND_BUCKET, 1, PME_FORMAT_MINOR);
	n += forge_chunk(want + n, PME_FOURCC('A', 'B', 'C', 'D'), 0, "xyz",
	    3, 3);
	n += forge_chunk(want + n, PME_CHUNK_END, 0, "", 0, 0);
	CHECK(len == n && memcmp(b, want, n) == 0);
	CHECK(memcmp(b, "\x7fPMEBUCK\x01\x00\x01\x00", 12) == 0);
	CHECK(memcmp(b + 16, "ABCD\0\0\0\0\3\0\0\0\3\0\0\0", 16) == 0);
	CHECK(memcmp(b + 39, "END ", 4) == 0);
	free(b);
}

/* A small file with chunks of each sort; bounds[] gets chunk ends. */
static size_t
small_file(uint8_t *buf, size_t *bounds, size_t *nb)
{
	struct pme_error err;
	struct pme_writer *w;
	const char *path = tmppath("small.pme");
	uint8_t big[600];
	uint8_t *b;
	size_t len;

	fill(big, sizeof(big), 0);
	w = pme_writer_open(path, PME_KIND_EVENT, 0, &err);
	if (w == NULL ||
	    pme_writer_chunk(w, PME_FOURCC('O', 'N', 'E', ' '), "hello", 5,
	    0, &err) == -1 ||
	    pme_writer_chunk(w, PME_FOURCC('N', 'U', 'L', 'L'), NULL, 0, 0,
	    &err) == -1 ||
	    pme_writer_chunk(w, PME_FOURCC('Z', 'I', 'P', ' '), big,
	    sizeof(big), 1, &err) == -1 ||
	    pme_writer_commit(w, &err) == -1) {
		fail("small file: %s", pme_strerror(&err));
		exit(1);
	}
	b = readfile(path, &len);
	memcpy(buf, b, len);
	free(b);
	/* Chunk boundaries, from the header on. */
	*nb = 0;
	bounds[(*nb)++] = 16;
	bounds[(*nb)++] = 16 + 20 + 5;
	bounds[(*nb)++] = bounds[1] + 20;
	bounds[(*nb)++] = bounds[2] + 20 + get32(buf + bounds[2] + 8);
	bounds[(*nb)++] = bounds[3] + 20;
	if (bounds[4] != len)
		fail("small file: layout %zu != %zu", bounds[4], len);
	if (get32(buf + bounds[2] + 4) != PME_CHUNK_ZLIB)
		fail("small file: ZIP chunk not compressed");
	return len;
}

/* How read_all() takes the payloads, from memory or through a file. */
enum { SKIP, WHOLE, PIECES, HOW = 3, VIAFILE = 4, NMODES = 8 };

/*
 * Reads all chunks, their payloads as mode says: 1 complete, 0 cut short,
 * -1 error.  *nchunks counts the whole chunks.
 */
static int
read_all(const uint8_t *buf, size_t len, int mode, int64_t *lost,
    int *nchunks, struct pme_error *err)
{
	struct pme_reader *r;
	struct pme_chunk c;
	uint8_t piece[100];
	uint64_t last = 0;
	size_t got;
	int rc;

	*nchunks = 0;
	*lost = -2;
	if (mode & VIAFILE) {
		writefile("cut.pme", buf, len);
		r = pme_reader_open("cut.pme", PME_KIND_EVENT, err);
	} else
		r = pme_reader_mem(buf, len, "cut.pme", PME_KIND_EVENT, err);
	if (r == NULL)
		return -1;
	mode &= HOW;
	while ((rc = pme_reader_next(r, &c, err)) == 1) {
		last = c.offset;
		if (mode == WHOLE &&
		    (rc = pme_reader_payload(r, &c, PME_CHUNK_MAX, err)) != 1)
			break;
		if (mode == PIECES) {
			do
				rc = pme_reader_read(r, piece, sizeof(piece),
				    &got, err);
			while (rc == 0 && got > 0);
			if (rc == -1 && err->code == PME_ETRUNC &&
			    pme_reader_lost(r) >= 0) {
				rc = 0;
				break;
			}
			if (rc == -1)
				break;
		}
		(*nchunks)++;
	}
	*lost = pme_reader_lost(r);
	/* A chunk passed over is returned before it is found cut short;
	 * the lost bytes then begin at its header. */
	if (mode == SKIP && rc == 0 && *lost > 0 && *nchunks > 0 &&
	    pme_reader_offset(r) == last)
		(*nchunks)--;
	pme_reader_close(r);
	if (rc == -1)
		return -1;
	return *lost == -1 ? 1 : 0;
}

static void
test_truncate(void)
{
	struct pme_error err;
	uint8_t buf[2048];
	size_t bounds[8], nb, len, cut, last;
	int64_t lost;
	int rc, n, whole, mode;

	len = small_file(buf, bounds, &nb);
	for (mode = 0; mode < NMODES; mode++) {
	if ((mode & HOW) == HOW)
		continue;
	CHECK(read_all(buf, len, mode, &lost, &n, &err) == 1 && n == 3);
	for (cut = 0; cut < len; cut++) {
		rc = read_all(buf, cut, mode, &lost, &n, &err);
		if (cut < 16) {
			if (rc != -1 || err.code != PME_ETRUNC ||
			    strstr(err.msg, "'cut.pme': offset 0x") == NULL)
				fail("cut at %zu: header: %d %s", cut, rc,
				    err.msg);
			continue;
		}
		/* The bytes after the last whole chunk are lost. */
		last = 16;
		whole = 0;
		while (whole + 1 < (int)nb && bounds[whole + 1] <= cut)
			last = bounds[++whole];
		if (rc != 0 || lost != (int64_t)(cut - last) || n != whole)
			fail("mode %d: cut at %zu: rc %d lost %lld chunks %d "
			    "(want 0 %zu %d) %s", mode, cut, rc,
			    (long long)lost, n, cut - last, whole,
			    rc == -1 ? err.msg : "");
	}
	}
}

static int
payload_byte(const size_t *bounds, size_t nb, size_t off)
{
	size_t i;

	for (i = 0; i + 1 < nb; i++)
		if (off >= bounds[i] + 20 && off < bounds[i + 1])
			return 1;
	return 0;
}

static int
length_byte(const size_t *bounds, size_t nb, size_t off)
{
	size_t i;

	for (i = 0; i + 1 < nb; i++)
		if (off >= bounds[i] + 8 && off < bounds[i] + 16)
			return 1;
	return 0;
}

/*
 * Every byte flipped: never the whole file read as good.  A flip that
 * makes a length point past the end looks like truncation, which is
 * reported as lost bytes; anything else is an error naming the offset.
 */
static void
test_flip(void)
{
	struct pme_error err;
	uint8_t buf[2048];
	size_t bounds[8], nb, len, off;
	int64_t lost;
	int rc, n, x, mode;
	static const uint8_t masks[] = { 0xff, 0x01, 0x80 };

	len = small_file(buf, bounds, &nb);
	for (mode = 0; mode < NMODES; mode++)
	for (x = 0; x < 3 && (mode & HOW) != HOW; x++)
		for (off = 0; off < len; off++) {
			buf[off] ^= masks[x];
			memset(&err, 0, sizeof(err));
			rc = read_all(buf, len, mode, &lost, &n, &err);
			buf[off] ^= masks[x];
			if (rc == 1) {
				fail("flip 0x%02x at %zu: read as good",
				    masks[x], off);
				continue;
			}
			if (rc == 0 && !length_byte(bounds, nb, off))
				fail("flip 0x%02x at %zu: read as cut short",
				    masks[x], off);
			if (rc == -1 && strstr(err.msg,
			    "'cut.pme': offset 0x") == NULL)
				fail("flip at %zu: message '%s'", off,
				    err.msg);
			if (payload_byte(bounds, nb, off) && (rc != -1 ||
			    strstr(err.msg, "crc mismatch") == NULL))
				fail("flip at %zu: payload flip not caught "
				    "by the crc: %s", off, err.msg);
		}
}

static void
expect_err(const uint8_t *buf, size_t len, enum pme_errcode code,
    const char *what, const char *label)
{
	struct pme_error err;
	int64_t lost;
	int rc, n, mode;

	for (mode = 0; mode < NMODES; mode++) {
		if ((mode & HOW) == HOW)
			continue;
		memset(&err, 0, sizeof(err));
		rc = read_all(buf, len, mode, &lost, &n, &err);
		if ((mode & HOW) == SKIP && strstr(what, "compressed") != NULL) {
			/* Passed over, a chunk is not inflated. */
			if (rc == -1)
				fail("%s: passed over: %s", label, err.msg);
			continue;
		}
		if (rc != -1 || err.code != code ||
		    strstr(err.msg, what) == NULL)
			fail("%s: mode %d: rc %d code %d '%s', want '%s'",
			    label, mode, rc, err.code, err.msg, what);
	}
}

/* Headers and chunks with good crcs but bad contents. */
static void
test_forged(void)
{
	uint8_t buf[4096], z[256], raw[1000];
	uLongf zlen = sizeof(z);
	struct pme_error err;
	struct pme_reader *r;
	size_t n;

	n = forge_header(buf, PME_KIND_EVENT, 2, 0);
	n += forge_chunk(buf + n, PME_CHUNK_END, 0, "", 0, 0);
	expect_err(buf, n, PME_EVERSION, "version 2.0", "major 2");

	n = forge_header(buf, PME_KIND_EVENT, 1, 7);
	n += forge_chunk(buf + n, PME_FOURCC('N', 'E', 'W', '!'), 0, "ab", 2,
	    2);
	n += forge_chunk(buf + n, PME_CHUNK_END, 0, "", 0, 0);
	r = pme_reader_mem(buf, n, "minor.pme", PME_KIND_EVENT, &err);
	CHECK(r != NULL && pme_reader_minor(r) == 7);
	pme_reader_close(r);

	r = pme_reader_mem(buf, n, "kind.pme", PME_KIND_BUCKET, &err);
	CHECK(r == NULL && err.code == PME_EKIND &&
	    strcmp(err.msg, "'kind.pme' is an event file, not a bucket file "
	    "(.PME)") == 0);
	r = pme_reader_mem("GIF89a\0\0\0\0\0\0\0\0\0\0\0\0", 18, "gif",
	    PME_KIND_EVENT, &err);
	CHECK(r == NULL && err.code == PME_EFORMAT &&
	    strstr(err.msg, "not a pme file") != NULL);

	n = forge_header(buf, PME_KIND_EVENT, 1, 0);
	n += forge_chunk(buf + n, PME_FOURCC('F', 'L', 'A', 'G'), 2, "ab", 2,
	    2);
	expect_err(buf, n, PME_EFORMAT, "offset 0x10: bad chunk flags",
	    "flags");

	n = forge_header(buf, PME_KIND_EVENT, 1, 0);
	n += forge_chunk(buf + n, PME_FOURCC('L', 'E', 'N', ' '), 0, "ab", 2,
	    3);
	expect_err(buf, n, PME_EFORMAT, "bad chunk length", "raw != stored");

	n = forge_header(buf, PME_KIND_EVENT, 1, 0);
	n += forge_chunk(buf + n, PME_FOURCC('B', 'I', 'G', ' '), 0, "", 0, 0);
	le32(buf + 16 + 8, PME_CHUNK_MAX + 1);
	le32(buf + 16 + 12, PME_CHUNK_MAX + 1);
	expect_err(buf, n, PME_EFORMAT, "bad chunk length", "too long");

	n = forge_header(buf, PME_KIND_EVENT, 1, 0);
	n += forge_chunk(buf + n, PME_FOURCC('Z', 'R', 'A', 'W'), 1, "", 0,
	    UINT32_MAX);
	expect_err(buf, n, PME_EFORMAT, "bad chunk length", "raw too long");

	/* A zlib stream whose raw length is wrong either way. */
	fill(raw, sizeof(raw), 0);
	CHECK(compress(z, &zlen, raw, sizeof(raw)) == Z_OK);
	n = forge_header(buf, PME_KIND_EVENT, 1, 0);
	n += forge_chunk(buf + n, PME_FOURCC('Z', 'I', 'P', ' '), 1, z,
	    (uint32_t)zlen, sizeof(raw) + 1);
	expect_err(buf, n, PME_EFORMAT, "bad compressed payload", "raw + 1");
	n = forge_header(buf, PME_KIND_EVENT, 1, 0);
	n += forge_chunk(buf + n, PME_FOURCC('Z', 'I', 'P', ' '), 1, z,
	    (uint32_t)zlen, sizeof(raw) - 1);
	expect_err(buf, n, PME_EFORMAT, "bad compressed payload", "raw - 1");
	n = forge_header(buf, PME_KIND_EVENT, 1, 0);
	n += forge_chunk(buf + n, PME_FOURCC('Z', 'I', 'P', ' '), 1, "junk!",
	    5, 5);
	expect_err(buf, n, PME_EFORMAT, "bad compressed payload", "not zlib");
	/* Stored bytes after the end of the stream. */
	z[zlen] = 0;
	n = forge_header(buf, PME_KIND_EVENT, 1, 0);
	n += forge_chunk(buf + n, PME_FOURCC('Z', 'I', 'P', ' '), 1, z,
	    (uint32_t)zlen + 1, sizeof(raw));
	expect_err(buf, n, PME_EFORMAT, "bad compressed payload", "trailing");

	n = forge_header(buf, PME_KIND_EVENT, 1, 0);
	n += forge_chunk(buf + n, PME_CHUNK_END, 0, "x", 1, 1);
	expect_err(buf, n, PME_EFORMAT, "END chunk with a payload", "END");

	n = forge_header(buf, PME_KIND_EVENT, 1, 0);
	n += forge_chunk(buf + n, PME_CHUNK_END, 0, "", 0, 0);
	buf[n++] = 0;
	expect_err(buf, n, PME_EFORMAT, "1 bytes after the END chunk",
	    "after END");
}

/*
 * Payloads are read when asked for, as much as the caller allows: a chunk
 * passed over is CRC-checked but never inflated, and one larger than the
 * caller's limit is refused before it is.
 */
static void
test_lazy(void)
{
	struct pme_error err;
	struct pme_reader *r;
	struct pme_chunk c;
	uint8_t buf[4096], big[256], out[64];
	size_t n, k, got;

	/* JUNK: flagged zlib, raw 1000, stored bytes no zlib stream. */
	n = forge_header(buf, PME_KIND_EVENT, 1, 0);
	n += forge_chunk(buf + n, PME_FOURCC('J', 'U', 'N', 'K'), 1,
	    "not a zlib stream", 17, 1000);
	n += forge_chunk(buf + n, PME_FOURCC('G', 'O', 'O', 'D'), 0, "ok", 2,
	    2);
	n += forge_chunk(buf + n, PME_CHUNK_END, 0, "", 0, 0);
	r = pme_reader_mem(buf, n, "lazy.pme", PME_KIND_EVENT, &err);
	CHECK(r != NULL);
	CHECK(pme_reader_next(r, &c, &err) == 1 && c.data == NULL &&
	    c.len == 1000 && c.stored == 17 && c.offset == 16);
	CHECK(pme_reader_next(r, &c, &err) == 1 && c.len == 2);
	CHECK(pme_reader_payload(r, &c, 1, &err) == -1 &&
	    err.code == PME_EFORMAT && strcmp(err.msg, "'lazy.pme': offset "
	    "0x35: 'GOOD' chunk of 2 bytes, more than the 1 it may hold") == 0);
	CHECK(pme_reader_next(r, &c, &err) == 0 && pme_reader_lost(r) == -1);
	pme_reader_close(r);

	r = pme_reader_mem(buf, n, "lazy.pme", PME_KIND_EVENT, &err);
	CHECK(pme_reader_next(r, &c, &err) == 1);
	/* refused for its size, not inflated: not a "bad compressed" */
	CHECK(pme_reader_payload(r, &c, 999, &err) == -1 &&
	    strcmp(err.msg, "'lazy.pme': offset 0x10: 'JUNK' chunk of 1000 "
	    "bytes, more than the 999 it may hold") == 0);
	pme_reader_close(r);
	r = pme_reader_mem(buf, n, "lazy.pme", PME_KIND_EVENT, &err);
	CHECK(pme_reader_next(r, &c, &err) == 1);
	CHECK(pme_reader_payload(r, &c, 1000, &err) == -1 &&
	    strstr(err.msg, "offset 0x10: bad compressed payload") != NULL);
	pme_reader_close(r);
	/* raw within the most allowed, stored more than zlib makes of it */
	memset(out, 'z', sizeof(out));
	k = forge_header(big, PME_KIND_EVENT, 1, 0);
	k += forge_chunk(big + k, PME_FOURCC('J', 'U', 'N', 'K'), 1, out, 24,
	    10);
	r = pme_reader_mem(big, k, "lazy.pme", PME_KIND_EVENT, &err);
	CHECK(pme_reader_next(r, &c, &err) == 1);
	CHECK(pme_reader_payload(r, &c, 10, &err) == -1 &&
	    strcmp(err.msg, "'lazy.pme': offset 0x10: 'JUNK' chunk of 24 "
	    "compressed bytes, more than zlib makes of 10") == 0);
	pme_reader_close(r);
	r = pme_reader_mem(big, k, "lazy.pme", PME_KIND_EVENT, &err);
	CHECK(pme_reader_next(r, &c, &err) == 1);
	CHECK(pme_reader_payload(r, &c, 11, &err) == -1 &&
	    strstr(err.msg, "bad compressed payload") != NULL);
	pme_reader_close(r);

	/* Too big and damaged: the damage is told. */
	buf[16 + 20] ^= 1;
	r = pme_reader_mem(buf, n, "lazy.pme", PME_KIND_EVENT, &err);
	CHECK(pme_reader_next(r, &c, &err) == 1);
	CHECK(pme_reader_payload(r, &c, 10, &err) == -1 &&
	    strstr(err.msg, "offset 0x10: chunk crc mismatch") != NULL);
	pme_reader_close(r);
	buf[16 + 20] ^= 1;

	/* One way to a payload, once; and only the chunk just returned. */
	r = pme_reader_mem(buf, n, "lazy.pme", PME_KIND_EVENT, &err);
	CHECK(pme_reader_payload(r, &c, 10, &err) == -1 &&
	    err.code == PME_EINVAL);
	CHECK(pme_reader_next(r, &c, &err) == 1);
	CHECK(pme_reader_next(r, &c, &err) == 1);
	CHECK(pme_reader_read(r, out, 1, &got, &err) == 0 && got == 1 &&
	    out[0] == 'o');
	CHECK(pme_reader_payload(r, &c, 10, &err) == -1 &&
	    err.code == PME_EINVAL);
	CHECK(pme_reader_read(r, out, sizeof(out), &got, &err) == 0 &&
	    got == 1 && out[0] == 'k');
	CHECK(pme_reader_read(r, out, sizeof(out), &got, &err) == 0 &&
	    got == 0);
	CHECK(pme_reader_next(r, &c, &err) == 0);
	CHECK(pme_reader_read(r, out, 1, &got, &err) == -1 &&
	    err.code == PME_EINVAL);
	pme_reader_close(r);

	/* Cut inside a payload read in pieces: PME_ETRUNC, bytes lost. */
	r = pme_reader_mem(buf, n - 22, "lazy.pme", PME_KIND_EVENT, &err);
	CHECK(pme_reader_next(r, &c, &err) == 1);
	CHECK(pme_reader_next(r, &c, &err) == 1);
	CHECK(pme_reader_read(r, out, 1, &got, &err) == -1 &&
	    err.code == PME_ETRUNC && strcmp(err.msg, "'lazy.pme': offset "
	    "0x35: file cut short inside a chunk: 20 bytes lost") == 0);
	CHECK(pme_reader_lost(r) == 20 && pme_reader_offset(r) == 0x35);
	CHECK(pme_reader_next(r, &c, &err) == 0);
	pme_reader_close(r);
}

/*
 * "t_container memchild FILE|-": reads every chunk of FILE (standard
 * input for "-"), payloads too unless FILE is passed as "open:FILE"
 * (opened and closed only), and prints its peak RSS in KiB.
 */
static int
memchild(const char *path)
{
	struct pme_error err;
	struct pme_reader *r;
	struct pme_chunk c;
	struct rusage ru;
	int rc, open_only = strncmp(path, "open:", 5) == 0;

	if ((r = pme_reader_open(path + 5 * open_only, PME_KIND_EVENT,
	    &err)) == NULL) {
		fprintf(stderr, "t_container: %s\n", pme_strerror(&err));
		return 1;
	}
	while (!open_only && (rc = pme_reader_next(r, &c, &err)) == 1)
		if (pme_reader_payload(r, &c, c.len, &err) != 1)
			break;
	if (!open_only && (rc != 0 || pme_reader_lost(r) != -1)) {
		fprintf(stderr, "t_container: %s\n", pme_strerror(&err));
		return 1;
	}
	pme_reader_close(r);
	getrusage(RUSAGE_SELF, &ru);
	printf("%ld\n", ru.ru_maxrss);
	return 0;
}

/* Runs memchild on arg with standard input from in; its peak, or -1. */
static long
peak(const char *self, const char *arg, const char *in)
{
	char cmd[8192], out[64];
	FILE *p;
	long kib = -1;

	snprintf(cmd, sizeof(cmd), "'%s' memchild '%s' <'%s'", self, arg, in);
	if ((p = popen(cmd, "r")) == NULL)
		return -1;
	if (fgets(out, sizeof(out), p) != NULL)
		kib = strtol(out, NULL, 10);
	if (pclose(p) != 0)
		return -1;
	return kib;
}

/*
 * A reader's memory is bounded by the largest payload it reads, not by
 * the file: 24 chunks of 1 MiB, read from the file and from standard
 * input, cost a reader a few MiB above one that only opened the file.
 */
static void
test_memory(const char *self)
{
	struct pme_error err;
	struct pme_writer *w;
	uint8_t *data;
	long base, file, in;
	int i;

	if ((data = malloc(1u << 20)) == NULL)
		return;
	fill(data, 1u << 20, 1);
	w = pme_writer_open("mem.pme", PME_KIND_EVENT, 0, &err);
	CHECK(w != NULL);
	for (i = 0; w != NULL && i < 24; i++)
		CHECK(pme_writer_chunk(w, PME_FOURCC('M', 'E', 'M', ' '), data,
		    1u << 20, 1, &err) == 0);
	CHECK(w != NULL && pme_writer_commit(w, &err) == 0);
	free(data);
	base = peak(self, "open:mem.pme", "/dev/null");
	file = peak(self, "mem.pme", "/dev/null");
	in = peak(self, "-", "mem.pme");
	if (base <= 0 || file <= 0 || in <= 0)
		fail("memory: peaks %ld %ld %ld KiB", base, file, in);
	else if (file - base > 6 * 1024 || in - base > 6 * 1024)
		fail("memory: 24 MiB read with %ld (file) and %ld (stdin) KiB "
		    "more than opened only", file - base, in - base);
	unlink("mem.pme");
}

static int
count_entries(void)
{
	DIR *d = opendir(testdir());
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static int
file_is(const char *path, const char *payload)
{
	struct pme_error err;
	struct pme_reader *r;
	struct pme_chunk c;
	int ok;

	if ((r = pme_reader_open(path, PME_KIND_SAMPLE, &err)) == NULL)
		return 0;
	ok = pme_reader_next(r, &c, &err) == 1 && c.len == strlen(payload) &&
	    pme_reader_payload(r, &c, c.len, &err) == 1 &&
	    memcmp(c.data, payload, c.len) == 0 &&
	    pme_reader_next(r, &c, &err) == 0 && pme_reader_lost(r) == -1;
	pme_reader_close(r);
	return ok;
}

static int
write_one(const char *path, unsigned flags, const char *payload, int commit)
{
	struct pme_error err;
	struct pme_writer *w;

	if ((w = pme_writer_open(path, PME_KIND_SAMPLE, flags, &err)) == NULL)
		return -1;
	if (pme_writer_chunk(w, PME_FOURCC('T', 'E', 'X', 'T'), payload,
	    strlen(payload), 0, &err) == -1) {
		pme_writer_abort(w);
		return -1;
	}
	if (!commit) {
		pme_writer_abort(w);
		return 0;
	}
	return pme_writer_commit(w, &err);
}

static void
test_atomic(void)
{
	struct pme_error err;
	struct pme_writer *w;
	struct stat st;
	const char *path = tmppath("atomic.pme");
	char *missing = tmppath("no/such/dir/x.pme");
	int before;
	mode_t old;

	old = umask(027);
	CHECK(write_one(path, 0, "first", 1) == 0);
	umask(old);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640);
	before = count_entries();
	CHECK(file_is(path, "first"));
	/* Aborted: the old file stays, and no temporary file is left. */
	CHECK(write_one(path, 0, "second", 0) == 0);
	CHECK(file_is(path, "first"));
	CHECK(count_entries() == before);
	/* Freed without a chunk, too. */
	w = pme_writer_open(path, PME_KIND_SAMPLE, 0, &err);
	CHECK(w != NULL);
	/* Its temporary file has no name where O_TMPFILE works. */
	CHECK(count_entries() == before + !anon_tmpfiles());
	pme_writer_abort(w);
	CHECK(count_entries() == before);
	CHECK(file_is(path, "first"));
	CHECK(write_one(path, 0, "third", 1) == 0);
	CHECK(file_is(path, "third"));
	CHECK(count_entries() == before);

	w = pme_writer_open(missing, PME_KIND_SAMPLE, 0, &err);
	CHECK(w == NULL && err.code == PME_EIO && err.sys_errno == ENOENT &&
	    strstr(err.msg, missing) != NULL);
	w = pme_writer_open(missing, PME_KIND_SAMPLE, PME_WRITE_LIVE, &err);
	CHECK(w == NULL && err.code == PME_EIO &&
	    strstr(err.msg, missing) != NULL);
	w = pme_writer_open(tmppath(""), PME_KIND_SAMPLE, 0, &err);
	CHECK(w == NULL && err.code == PME_EINVAL);
	/* A file cannot replace a directory: the error comes at commit. */
	w = pme_writer_open(testdir(), PME_KIND_SAMPLE, 0, &err);
	if (w != NULL)
		CHECK(pme_writer_commit(w, &err) == -1 &&
		    err.code == PME_EIO);
	CHECK(count_entries() == before);
}

/*
 * A full disk, played by a file size limit: the failed chunk makes commit
 * fail, the old file stays and the temporary one goes.
 */
static int
full_disk_child(const char *path)
{
	static uint8_t big[100000];
	struct pme_error err;
	struct pme_writer *w;
	struct rlimit rl = { 8192, RLIM_INFINITY };

	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &rl) == -1)
		return 2;
	if ((w = pme_writer_open(path, PME_KIND_SAMPLE, 0, &err)) == NULL)
		return 3;
	if (pme_writer_chunk(w, 1, big, sizeof(big), 0, &err) != -1 ||
	    err.code != PME_EIO || err.sys_errno != EFBIG ||
	    strstr(err.msg, path) == NULL)
		return 4;
	if (pme_writer_chunk(w, 1, "x", 1, 0, &err) != -1)
		return 5;
	if (pme_writer_commit(w, &err) != -1 || err.code != PME_EIO)
		return 6;
	w = pme_writer_open("/dev/full", PME_KIND_SAMPLE, PME_WRITE_LIVE,
	    &err);
	if (w != NULL || err.code != PME_EIO || err.sys_errno != ENOSPC)
		return 7;
	return 0;
}

static void
test_full(void)
{
	const char *path = tmppath("full.pme");
	int before, status;
	pid_t pid;

	CHECK(write_one(path, 0, "old", 1) == 0);
	before = count_entries();
	fflush(stderr);
	if ((pid = fork()) == 0)
		_exit(full_disk_child(path));
	CHECK(waitpid(pid, &status, 0) == pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail("full disk: child status 0x%x", status);
	CHECK(file_is(path, "old"));
	CHECK(count_entries() == before);
}

/* Live files hold every chunk written before a crash. */
static void
test_direct(void)
{
	struct pme_error err;
	struct pme_reader *r;
	struct pme_chunk c;
	const char *path = tmppath("direct.pme");

	CHECK(write_one(path, PME_WRITE_LIVE, "kept", 0) == 0);
	r = pme_reader_open(path, PME_KIND_SAMPLE, &err);
	CHECK(r != NULL);
	if (r == NULL)
		return;
	CHECK(pme_reader_next(r, &c, &err) == 1 && c.len == 4);
	CHECK(pme_reader_next(r, &c, &err) == 0);
	CHECK(pme_reader_lost(r) == 0);
	pme_reader_close(r);
	CHECK(write_one(path, PME_WRITE_LIVE, "whole", 1) == 0);
	CHECK(file_is(path, "whole"));

	r = pme_reader_open(tmppath("absent.pme"), PME_KIND_SAMPLE, &err);
	CHECK(r == NULL && err.code == PME_EIO && err.sys_errno == ENOENT &&
	    strstr(err.msg, "absent.pme") != NULL);
}

/* "-": the writer to standard output, the reader from a pipe. */
static void
test_stdio(void)
{
	const char *path = tmppath("stdout.pme");
	struct pme_error err;
	struct pme_reader *r;
	struct pme_chunk c;
	uint8_t big[200000];
	int fd, saved, p[2], status;
	pid_t pid;
	size_t off;
	ssize_t n;

	fflush(stdout);
	saved = dup(1);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	CHECK(fd != -1 && saved != -1);
	dup2(fd, 1);
	close(fd);
	CHECK(write_one("-", 0, "to stdout", 1) == 0);
	dup2(saved, 1);
	close(saved);
	CHECK(file_is(path, "to stdout"));

	/* Bigger than a pipe buffer, so the reader must loop. */
	fill(big, sizeof(big), 1);
	big[0] = 0x7f; big[1] = 'P'; big[2] = 'M'; big[3] = 'E';
	CHECK(pipe(p) == 0);
	if ((pid = fork()) == 0) {
		close(p[0]);
		off = forge_header(big, PME_KIND_SAMPLE, 1, 0);
		le32(big + off, PME_FOURCC('T', 'E', 'X', 'T'));
		le32(big + off + 4, 0);
		le32(big + off + 8, sizeof(big) - off - 40);
		le32(big + off + 12, sizeof(big) - off - 40);
		le32(big + off + 16, crc32(crc32(0, big + off, 16),
		    big + off + 20, sizeof(big) - off - 40));
		forge_chunk(big + sizeof(big) - 20, PME_CHUNK_END, 0, "", 0,
		    0);
		for (off = 0; off < sizeof(big); off += (size_t)n)
			if ((n = write(p[1], big + off, sizeof(big) -
			    off)) <= 0)
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	saved = dup(0);
	dup2(p[0], 0);
	close(p[0]);
	/* Read as the chunks are asked for: standard input stays the pipe
	 * until the reader is closed. */
	r = pme_reader_open("-", PME_KIND_SAMPLE, &err);
	CHECK(r != NULL);
	if (r != NULL) {
		CHECK(strcmp(pme_reader_name(r), "-") == 0);
		CHECK(pme_reader_next(r, &c, &err) == 1 &&
		    c.len == sizeof(big) - 56);
		CHECK(pme_reader_payload(r, &c, c.len, &err) == 1 &&
		    memcmp(c.data, big + 36, c.len) == 0);
		CHECK(pme_reader_next(r, &c, &err) == 0 &&
		    pme_reader_lost(r) == -1);
		pme_reader_close(r);
	}
	dup2(saved, 0);
	close(saved);
	CHECK(waitpid(pid, &status, 0) == pid && status == 0);
}

static void
test_args(void)
{
	struct pme_error err;
	struct pme_writer *w;

	w = pme_writer_open(tmppath("args.pme"), PME_KIND_SAMPLE, 0, &err);
	CHECK(w != NULL);
	if (w == NULL)
		return;
	CHECK(pme_writer_chunk(w, PME_CHUNK_END, "", 0, 0, &err) == -1 &&
	    err.code == PME_EINVAL);
	CHECK(pme_writer_chunk(w, 1, NULL, 1, 0, &err) == -1 &&
	    err.code == PME_EINVAL);
	CHECK(pme_writer_chunk(w, 1, "", (size_t)PME_CHUNK_MAX + 1, 0,
	    &err) == -1 && err.code == PME_ELIMIT);
	pme_writer_abort(w);
	pme_writer_abort(NULL);
	pme_reader_close(NULL);
	CHECK(strcmp(pme_strerror(NULL), "success") == 0);
}

int
main(int argc, char **argv)
{

	if (argc == 3 && strcmp(argv[1], "memchild") == 0)
		return memchild(argv[2]);
	if (argc != 1 || realpath(argv[0], self) == NULL) {
		fprintf(stderr, "usage: t_container\n");
		return 2;
	}

	if (chdir(testdir()) == -1)
		die("%s: %s", testdir(), strerror(errno));
	test_roundtrip();
	test_layout();
	test_truncate();
	test_flip();
	test_forged();
	test_lazy();
	test_memory(self);
	test_atomic();
	test_full();
	test_direct();
	test_stdio();
	test_args();
	testdir_done();
	return failures ? 1 : 0;
}
