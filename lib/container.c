/*
 * container.c - the chunked container every pme file uses (pme(5)):
 * a 16-byte header, then CRC-checked chunks, optionally zlib-compressed,
 * closed by an END chunk.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <zlib.h>

#include "util.h"

#define HEADER_LEN	16
#define CHUNK_HLEN	20
/* Smaller payloads are never compressed: zlib's overhead eats the gain. */
#define COMPRESS_MIN	256

static const uint8_t magic[4] = { 0x7f, 'P', 'M', 'E' };

/* zlib's crc32 takes a uInt length; payloads are at most PME_CHUNK_MAX. */
static uint32_t
crc(uint32_t c, const uint8_t *p, size_t n)
{
	return (uint32_t)crc32(c, p, (uInt)n);
}

/* ---------------------------------------------------------------- writer */

struct pme_writer {
	int		 fd;
	char		*path;		/* as the caller named it */
	char		*tmp;		/* the hidden name beside path, or NULL */
	int		 tmpnew;	/* tmp holds this file, renamed over path
					   at commit; else it holds the previous
					   file, set aside (live) */
	int		 live;		/* PME_WRITE_LIVE */
	int		 placed;	/* this file is at path (live) */
	int		 isstdout;
	int		 failed;	/* a write failed: the file is bad */
	dev_t		 dev;		/* this file's, when it has a name */
	ino_t		 ino;
	int		 zinit;
	z_stream	 z;
	uint8_t		*zbuf;
	size_t		 zcap;
};

static int	 write_all(struct pme_writer *, const void *, size_t,
		    const void *, size_t, struct pme_error *);

static void
writer_free(struct pme_writer *w)
{
	if (w->zinit)
		deflateEnd(&w->z);
	free(w->zbuf);
	free(w->tmp);
	free(w->path);
	free(w);
}

/* The file at a temporary name beside path (util.h), or a device or
 * FIFO at path itself, written directly. */
static int
open_temp(struct pme_writer *w, struct pme_error *err)
{
	struct stat st;

	w->fd = w->live ? pme_tmp_named(w->path, &w->tmp, err) :
	    pme_tmp_create(w->path, &w->tmp, err);
	if (w->fd == -1)
		return -1;
	if (w->tmp == NULL)
		return 0;
	w->tmpnew = 1;
	if (fstat(w->fd, &st) == 0) {
		w->dev = st.st_dev;
		w->ino = st.st_ino;
	}
	return 0;
}

/*
 * A live file is locked (flock(2)) by its writer while it grows, so that
 * a second writer of the same name finds it busy and refuses, rather
 * than set the first one's file aside as "the previous file" and remove
 * it when it ends.  The lock goes with the writer's descriptor, a killed
 * writer's too.  -1 when another writer holds the file at path.
 */
static int
live_lock(struct pme_writer *w, struct pme_error *err)
{
	int fd, busy;

	if (flock(w->fd, LOCK_EX | LOCK_NB) == -1)
		return 0;	/* a file system without locks: as before */
	if ((fd = open(w->path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return 0;
	busy = flock(fd, LOCK_SH | LOCK_NB) == -1 && errno == EWOULDBLOCK;
	close(fd);
	if (busy)
		return pme_seterr(err, PME_EINVAL, "'%s': another run is "
		    "writing it now: give this run a name of its own",
		    w->path);
	return 0;
}

/*
 * Puts a live file at path at once: renameat2(2) with RENAME_EXCHANGE
 * swaps it with what was there (a symbolic link is swapped, not
 * followed), which then waits under the temporary name until commit
 * removes it or a failure swaps it back.  With nothing there, a plain
 * rename.  A file system that cannot exchange two names (NFS, SMB, FAT:
 * EINVAL) keeps the file under its temporary name until commit.
 */
static int
publish(struct pme_writer *w, struct pme_error *err)
{
	if (renameat2(AT_FDCWD, w->tmp, AT_FDCWD, w->path,
	    RENAME_EXCHANGE) == 0) {
		w->tmpnew = 0;
		w->placed = 1;
		return 0;
	}
	if (errno == ENOENT && rename(w->tmp, w->path) == 0) {
		free(w->tmp);
		w->tmp = NULL;
		w->placed = 1;
		return 0;
	}
	if (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)
		return 0;
	return pme_setsys(err, w->path, "cannot replace");
}

/*
 * Puts path back as it was before the writer opened it: the previous
 * file swapped back, this one removed.  Done as soon as a write fails, so
 * that a kill that follows finds the previous file in place.
 */
static void
withdraw(struct pme_writer *w)
{
	struct stat st;

	if (w->tmp != NULL && !w->tmpnew) {
		if (renameat2(AT_FDCWD, w->tmp, AT_FDCWD, w->path,
		    RENAME_EXCHANGE) == 0)
			unlink(w->tmp);
		else if (errno == ENOENT)
			rename(w->tmp, w->path);
	} else if (w->tmp != NULL) {
		pme_tmp_abort(w->tmp);	/* named or anonymous; frees it */
		w->tmp = NULL;
	} else if (w->placed && lstat(w->path, &st) == 0 &&
	    st.st_dev == w->dev && st.st_ino == w->ino)
		unlink(w->path);
	free(w->tmp);
	w->tmp = NULL;
	w->placed = 0;
}

/* Leaves a live file as a killed writer's is left, and nothing else. */
static void
leave(struct pme_writer *w)
{
	if (w->tmp != NULL && !w->tmpnew)
		unlink(w->tmp);
	else if (w->tmp != NULL && rename(w->tmp, w->path) == -1)
		unlink(w->tmp);
	free(w->tmp);
	w->tmp = NULL;
}

struct pme_writer *
pme_writer_open(const char *path, uint32_t kind, unsigned flags,
    struct pme_error *err)
{
	struct pme_writer *w;
	uint8_t h[HEADER_LEN];
	int rc = 0;

	if (path == NULL || flags & ~(unsigned)PME_WRITE_LIVE) {
		pme_seterr(err, PME_EINVAL, "pme_writer_open: bad argument");
		return NULL;
	}
	if ((w = calloc(1, sizeof(*w))) == NULL ||
	    (w->path = strdup(path)) == NULL) {
		free(w);
		pme_setnomem(err);
		return NULL;
	}
	w->fd = -1;
	w->live = (flags & PME_WRITE_LIVE) != 0;
	if (strcmp(path, "-") == 0) {
		w->fd = STDOUT_FILENO;
		w->isstdout = 1;
	} else
		rc = open_temp(w, err);
	if (rc == -1) {
		writer_free(w);
		return NULL;
	}
	memcpy(h, magic, 4);
	pme_le32(h + 4, kind);
	h[8] = PME_FORMAT_MAJOR & 0xff;
	h[9] = PME_FORMAT_MAJOR >> 8;
	h[10] = PME_FORMAT_MINOR & 0xff;
	h[11] = PME_FORMAT_MINOR >> 8;
	pme_le32(h + 12, crc(0, h, 12));
	if (write_all(w, h, sizeof(h), NULL, 0, err) == -1 ||
	    (w->live && w->tmp != NULL && (live_lock(w, err) == -1 ||
	    publish(w, err) == -1))) {
		pme_writer_discard(w);
		return NULL;
	}
	return w;
}

/*
 * Writes two pieces with one writev loop, so that a chunk goes out whole
 * in a single system call in the usual case: a sample file read while it
 * grows then seldom shows half a chunk.
 */
static int
write_all(struct pme_writer *w, const void *a, size_t alen,
    const void *b, size_t blen, struct pme_error *err)
{
	struct iovec iov[2];
	int niov = 0, i;
	ssize_t n;

	iov[niov].iov_base = (void *)a;
	iov[niov++].iov_len = alen;
	if (blen > 0) {
		iov[niov].iov_base = (void *)b;
		iov[niov++].iov_len = blen;
	}
	for (i = 0; i < niov;) {
		n = writev(w->fd, iov + i, niov - i);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			pme_setsys(err, w->path, "write");
			w->failed = 1;
			withdraw(w);
			return -1;
		}
		while (i < niov && (size_t)n >= iov[i].iov_len)
			n -= (ssize_t)iov[i++].iov_len;
		if (i < niov) {
			iov[i].iov_base = (char *)iov[i].iov_base + n;
			iov[i].iov_len -= (size_t)n;
		}
	}
	return 0;
}

/*
 * Compresses data into w->zbuf at zlib's fastest level: pme files are
 * written at the end of every measured run and must not make it slow;
 * level 1 gets most of the gain on these tables.  Returns the compressed
 * length, or 0 when compressing does not pay or fails (the chunk is then
 * stored plain, which is always correct).
 */
static size_t
deflate_chunk(struct pme_writer *w, const void *data, size_t len)
{
	size_t bound;
	uint8_t *p;

	if (!w->zinit) {
		if (deflateInit(&w->z, Z_BEST_SPEED) != Z_OK)
			return 0;
		w->zinit = 1;
	} else if (deflateReset(&w->z) != Z_OK)
		return 0;
	bound = deflateBound(&w->z, (uLong)len);
	if (bound > w->zcap) {
		if ((p = realloc(w->zbuf, bound)) == NULL)
			return 0;
		w->zbuf = p;
		w->zcap = bound;
	}
	w->z.next_in = (Bytef *)data;
	w->z.avail_in = (uInt)len;
	w->z.next_out = w->zbuf;
	w->z.avail_out = (uInt)bound;
	if (deflate(&w->z, Z_FINISH) != Z_STREAM_END)
		return 0;
	if (w->z.total_out >= len)
		return 0;
	return w->z.total_out;
}

int
pme_writer_chunk(struct pme_writer *w, uint32_t type, const void *data,
    size_t len, int compress, struct pme_error *err)
{
	uint8_t h[CHUNK_HLEN];
	const uint8_t *p = data;
	size_t stored = 0;
	uint32_t c;

	if (w == NULL || (data == NULL && len > 0) || type == PME_CHUNK_END)
		return pme_seterr(err, PME_EINVAL,
		    "pme_writer_chunk: bad argument");
	if (w->failed)
		return pme_seterr(err, PME_EIO, "'%s': an earlier write failed",
		    w->path);
	if (len > PME_CHUNK_MAX)
		return pme_seterr(err, PME_ELIMIT,
		    "'%s': chunk of %zu bytes exceeds the %u byte limit",
		    w->path, len, PME_CHUNK_MAX);
	if (compress && len >= COMPRESS_MIN)
		stored = deflate_chunk(w, data, len);
	if (stored > 0)
		p = w->zbuf;
	else
		stored = len;
	pme_le32(h, type);
	pme_le32(h + 4, stored < len ? PME_CHUNK_ZLIB : 0);
	pme_le32(h + 8, (uint32_t)stored);
	pme_le32(h + 12, (uint32_t)len);
	c = crc(0, h, 16);
	if (stored > 0)
		c = crc(c, p, stored);
	pme_le32(h + 16, c);
	return write_all(w, h, sizeof(h), p, stored, err);
}

int
pme_writer_stored(struct pme_writer *w, const struct pme_chunk *c,
    const uint8_t *stored, struct pme_error *err)
{
	uint8_t h[CHUNK_HLEN];
	uint32_t k;

	if (w == NULL || c == NULL || (stored == NULL && c->stored > 0) ||
	    c->type == PME_CHUNK_END || c->flags & ~(uint32_t)PME_CHUNK_ZLIB ||
	    c->stored > PME_CHUNK_MAX || c->len > PME_CHUNK_MAX ||
	    (!(c->flags & PME_CHUNK_ZLIB) && c->stored != c->len))
		return pme_seterr(err, PME_EINVAL,
		    "pme_writer_stored: bad argument");
	if (w->failed)
		return pme_seterr(err, PME_EIO, "'%s': an earlier write failed",
		    w->path);
	pme_le32(h, c->type);
	pme_le32(h + 4, c->flags);
	pme_le32(h + 8, (uint32_t)c->stored);
	pme_le32(h + 12, (uint32_t)c->len);
	k = crc(0, h, 16);
	if (c->stored > 0)
		k = crc(k, stored, c->stored);
	pme_le32(h + 16, k);
	return write_all(w, h, sizeof(h), stored, c->stored, err);
}

/*
 * Closes the file.  It is not synced: the rename that follows makes the
 * whole file visible at once, which is what readers need, and a sync
 * would cost more than the rest of a small write (1 to 6 ms here) to guard
 * profiles against a power loss, as git and perf do not either.
 */
static int
writer_close(struct pme_writer *w, struct pme_error *err)
{
	int fd = w->fd;

	w->fd = -1;
	if (w->isstdout)
		return 0;
	if (close(fd) == -1)
		return pme_setsys(err, w->path, "close");
	return 0;
}

int
pme_writer_commit(struct pme_writer *w, struct pme_error *err)
{
	uint8_t h[CHUNK_HLEN];
	int rc;

	if (w == NULL)
		return pme_seterr(err, PME_EINVAL,
		    "pme_writer_commit: no writer");
	if (w->failed) {
		pme_seterr(err, PME_EIO, "'%s': an earlier write failed",
		    w->path);
		pme_writer_discard(w);
		return -1;
	}
	memset(h, 0, sizeof(h));
	pme_le32(h, PME_CHUNK_END);
	pme_le32(h + 16, crc(0, h, 16));
	if (write_all(w, h, sizeof(h), NULL, 0, err) == -1 ||
	    writer_close(w, err) == -1) {
		pme_writer_discard(w);
		return -1;
	}
	if (w->tmp != NULL && w->tmpnew) {
		rc = pme_tmp_commit(w->tmp, w->path, err);
		w->tmp = NULL;		/* committed or removed, and freed */
		if (rc == -1) {
			pme_writer_discard(w);
			return -1;
		}
	}
	if (w->tmp != NULL && !w->tmpnew)
		unlink(w->tmp);
	writer_free(w);
	return 0;
}

void
pme_writer_discard(struct pme_writer *w)
{
	if (w == NULL)
		return;
	withdraw(w);
	if (w->fd != -1 && !w->isstdout)
		close(w->fd);
	writer_free(w);
}

void
pme_writer_abort(struct pme_writer *w)
{
	if (w == NULL)
		return;
	if (!w->live)
		withdraw(w);
	else
		leave(w);
	if (w->fd != -1 && !w->isstdout)
		close(w->fd);
	writer_free(w);
}

const char *
pme_writer_tmpname(const struct pme_writer *w, int *isnew)
{
	if (isnew != NULL)
		*isnew = w != NULL && w->tmp != NULL && w->tmpnew;
	return w == NULL ? NULL : w->tmp;
}

/* ---------------------------------------------------------------- reader */

/*
 * A reader streams its file: it holds a read buffer, the stored bytes of
 * the chunk whose payload was asked for, and that payload decompressed,
 * never the whole file.  Files are read, not mapped: a sample file may be
 * cut short under a mapping while it is being written (SIGBUS), and pipes
 * cannot be mapped at all.  Bytes in memory (pme_reader_mem) are read in
 * place, as one buffer that has reached its end.
 */
#define IBUF_LEN	(64u << 10)

enum chunkstate {
	CH_NONE,	/* no chunk, or the last one is behind us */
	CH_HEAD,	/* header returned, stored bytes not yet read */
	CH_LOADED	/* stored bytes read and their crc checked */
};

struct pme_reader {
	int		 fd;		/* -1: bytes in memory */
	int		 closefd;
	const uint8_t	*buf;		/* the caller's bytes, or ibuf */
	uint8_t		*ibuf;
	size_t		 ioff, ilen;	/* unread: buf[ioff .. ilen) */
	int		 eof;		/* nothing after buf[ilen] */
	char		*name;
	uint16_t	 minor;
	uint64_t	 next;		/* offset of the next chunk header */
	int		 done;
	int64_t		 lost;
	/* The chunk last returned by pme_reader_next(). */
	enum chunkstate	 state;
	uint32_t	 type, flags, storedlen, rawlen;
	uint64_t	 coff;		/* offset of its header */
	uint32_t	 hcrc;		/* crc of its header's first 16 bytes */
	uint32_t	 want;		/* the crc its header gives */
	const uint8_t	*sp;		/* its stored bytes, once loaded */
	uint8_t		*sbuf;		/* where they are, for a file */
	size_t		 scap;
	size_t		 out;		/* raw bytes pme_reader_read gave */
	int		 zinit;
	z_stream	 z;
	uint8_t		*rawbuf;	/* a compressed payload, inflated */
	size_t		 rawcap;
};

/* A kind or chunk type for messages; other than printable ASCII as '?'. */
static const char *
fourcc(uint32_t v, char s[5])
{
	int i;

	for (i = 0; i < 4; i++, v >>= 8)
		s[i] = (v & 0xff) >= 0x20 && (v & 0xff) < 0x7f ?
		    (char)(v & 0xff) : '?';
	s[4] = '\0';
	return s;
}

/*
 * Makes at least want bytes (at most IBUF_LEN) readable at buf + ioff,
 * unless the file ends first; *have is then how many are.
 */
static int
fill(struct pme_reader *r, size_t want, size_t *have, struct pme_error *err)
{
	ssize_t n;

	while (r->ilen - r->ioff < want && !r->eof) {
		if (r->ioff > 0) {
			memmove(r->ibuf, r->ibuf + r->ioff, r->ilen - r->ioff);
			r->ilen -= r->ioff;
			r->ioff = 0;
		}
		n = read(r->fd, r->ibuf + r->ilen, IBUF_LEN - r->ilen);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return pme_setsys(err, r->name, "read");
		if (n == 0)
			r->eof = 1;
		r->ilen += (size_t)n;
	}
	*have = r->ilen - r->ioff;
	return 0;
}

static void
consume(struct pme_reader *r, size_t n)
{
	r->ioff += n;
}

/*
 * Reads n bytes into dst: what the buffer holds, then straight from the
 * file.  *got is less than n when the file ends first.
 */
static int
take(struct pme_reader *r, uint8_t *dst, size_t n, size_t *got,
    struct pme_error *err)
{
	size_t k = r->ilen - r->ioff < n ? r->ilen - r->ioff : n;
	ssize_t m;

	memcpy(dst, r->buf + r->ioff, k);
	consume(r, k);
	while (k < n && !r->eof) {
		m = read(r->fd, dst + k, n - k);
		if (m == -1 && errno == EINTR)
			continue;
		if (m == -1)
			return pme_setsys(err, r->name, "read");
		if (m == 0)
			r->eof = 1;
		k += (size_t)m;
	}
	*got = k;
	return 0;
}

/* Passes over n bytes, adding them to the crc *c; *got as in take(). */
static int
skip(struct pme_reader *r, size_t n, uint32_t *c, size_t *got,
    struct pme_error *err)
{
	size_t have, k;

	for (*got = 0; *got < n; *got += k) {
		if (fill(r, 1, &have, err) == -1)
			return -1;
		if (have == 0)
			break;
		k = have < n - *got ? have : n - *got;
		*c = crc(*c, r->buf + r->ioff, k);
		consume(r, k);
	}
	return 0;
}

const char *
pme_kind_words(uint32_t kind, char s[32])
{
	char cc[5];

	switch (kind) {
	case PME_KIND_BUCKET:
		return "a bucket file (.PME)";
	case PME_KIND_SAMPLE:
		return "a sample file (.PMS)";
	case PME_KIND_EVENT:
		return "an event file";
	}
	snprintf(s, 32, "a pme file of kind '%s'", fourcc(kind, cc));
	return s;
}

uint32_t
pme_file_kind(const char *path)
{
	uint8_t h[8];
	int fd;
	ssize_t n;

	if (strcmp(path, "-") == 0 || (fd = pme_open_read(path, NULL)) == -1)
		return 0;
	n = read(fd, h, sizeof(h));
	close(fd);
	return n == (ssize_t)sizeof(h) && memcmp(h, magic, 4) == 0 ?
	    pme_get32(h + 4) : 0;
}

static int
check_header(struct pme_reader *r, uint32_t kind, struct pme_error *err)
{
	const uint8_t *h;
	size_t have;
	char s1[32], s2[32];
	uint16_t major;

	if (fill(r, HEADER_LEN, &have, err) == -1)
		return -1;
	h = r->buf + r->ioff;
	if (memcmp(h, magic, have < 4 ? have : 4) != 0)
		return pme_setfmt(err, PME_EFORMAT, r->name, 0,
		    "not a pme file");
	if (have < HEADER_LEN)
		return pme_setfmt(err, PME_ETRUNC, r->name, have,
		    "file ends inside the %d-byte header", HEADER_LEN);
	if (crc(0, h, 12) != pme_get32(h + 12))
		return pme_setfmt(err, PME_EFORMAT, r->name, 12,
		    "header crc mismatch");
	major = (uint16_t)(h[8] | h[9] << 8);
	r->minor = (uint16_t)(h[10] | h[11] << 8);
	if (major != PME_FORMAT_MAJOR)
		return pme_setfmt(err, PME_EVERSION, r->name, 8,
		    "format version %u.%u, %s than this pme reads (%u.x)%s",
		    major, r->minor, major > PME_FORMAT_MAJOR ? "newer" :
		    "older", PME_FORMAT_MAJOR, major > PME_FORMAT_MAJOR ?
		    ": read it with the pme that wrote it, or a newer one" :
		    "");
	if (pme_get32(h + 4) != kind) {
		pme_seterr(err, PME_EKIND, "'%s' is %s, not %s", r->name,
		    pme_kind_words(pme_get32(h + 4), s1),
		    pme_kind_words(kind, s2));
		if (err != NULL)
			err->offset = 4;
		return -1;
	}
	consume(r, HEADER_LEN);
	r->next = HEADER_LEN;
	return 0;
}

static struct pme_reader *
reader_new(const char *name, struct pme_error *err)
{
	struct pme_reader *r;

	if ((r = calloc(1, sizeof(*r))) == NULL ||
	    (r->name = strdup(name)) == NULL) {
		free(r);
		pme_setnomem(err);
		return NULL;
	}
	r->fd = -1;
	return r;
}

static struct pme_reader *
reader_start(struct pme_reader *r, uint32_t kind, struct pme_error *err)
{
	if (check_header(r, kind, err) == -1) {
		pme_reader_close(r);
		return NULL;
	}
	return r;
}

struct pme_reader *
pme_reader_mem(const void *buf, size_t len, const char *name, uint32_t kind,
    struct pme_error *err)
{
	struct pme_reader *r;

	if ((buf == NULL && len > 0) || name == NULL) {
		pme_seterr(err, PME_EINVAL, "pme_reader_mem: bad argument");
		return NULL;
	}
	if ((r = reader_new(name, err)) == NULL)
		return NULL;
	r->buf = len > 0 ? buf : magic;
	r->ilen = len;
	r->eof = 1;
	return reader_start(r, kind, err);
}

struct pme_reader *
pme_reader_open(const char *path, uint32_t kind, struct pme_error *err)
{
	struct pme_reader *r;
	int isstdin;

	if (path == NULL) {
		pme_seterr(err, PME_EINVAL, "pme_reader_open: no path");
		return NULL;
	}
	if ((r = reader_new(path, err)) == NULL)
		return NULL;
	if ((r->ibuf = malloc(IBUF_LEN)) == NULL) {
		pme_reader_close(r);
		pme_setnomem(err);
		return NULL;
	}
	r->buf = r->ibuf;
	isstdin = strcmp(path, "-") == 0;
	r->fd = isstdin ? STDIN_FILENO : pme_open_read(path, err);
	if (r->fd == -1) {
		pme_reader_close(r);
		return NULL;
	}
	r->closefd = !isstdin;
	return reader_start(r, kind, err);
}

/*
 * The file ends have bytes after offset r->next, inside a chunk or before
 * END (have: a count, not a verb): they are lost, and the reading is over.
 */
static int
cut_short(struct pme_reader *r, uint64_t have)
{
	r->lost = (int64_t)have;
	r->done = 1;
	r->state = CH_NONE;
	return 0;
}

/* Checks the header fields that need no payload. */
static int
check_chunk(struct pme_reader *r, uint32_t type, uint32_t flags,
    uint32_t stored, uint32_t raw, struct pme_error *err)
{
	if (flags & ~(uint32_t)PME_CHUNK_ZLIB)
		return pme_setfmt(err, PME_EFORMAT, r->name, r->next,
		    "bad chunk flags 0x%x", flags);
	if (stored > PME_CHUNK_MAX || raw > PME_CHUNK_MAX)
		return pme_setfmt(err, PME_EFORMAT, r->name, r->next,
		    "bad chunk length");
	if (!(flags & PME_CHUNK_ZLIB) && stored != raw)
		return pme_setfmt(err, PME_EFORMAT, r->name, r->next,
		    "bad chunk length");
	if (type == PME_CHUNK_END && (stored != 0 || flags != 0))
		return pme_setfmt(err, PME_EFORMAT, r->name, r->next,
		    "END chunk with a payload");
	return 0;
}

static int
crc_mismatch(struct pme_reader *r, struct pme_error *err)
{
	return pme_setfmt(err, PME_EFORMAT, r->name, r->coff,
	    "chunk crc mismatch");
}

/*
 * Leaves the chunk last returned: a payload not asked for is passed over,
 * its crc checked but nothing inflated.  1 done, 0 cut short, -1 error.
 */
static int
leave_chunk(struct pme_reader *r, struct pme_error *err)
{
	uint32_t c = r->hcrc;
	size_t got;

	if (r->state != CH_HEAD) {
		r->state = CH_NONE;
		return 1;
	}
	r->state = CH_NONE;
	if (skip(r, r->storedlen, &c, &got, err) == -1)
		return -1;
	if (got < r->storedlen) {
		r->next = r->coff;
		return cut_short(r, CHUNK_HLEN + (uint64_t)got);
	}
	if (c != r->want)
		return crc_mismatch(r, err);
	return 1;
}

/* The END chunk must be the last bytes of the file. */
static int
at_end(struct pme_reader *r, struct pme_error *err)
{
	uint64_t after = r->next + CHUNK_HLEN, extra = 0;
	uint32_t c = 0;
	size_t got;

	r->done = 1;
	consume(r, CHUNK_HLEN);
	do {
		if (skip(r, IBUF_LEN, &c, &got, err) == -1)
			return -1;
		extra += got;
	} while (got == IBUF_LEN);
	if (extra > 0)
		return pme_setfmt(err, PME_EFORMAT, r->name, after,
		    "%llu bytes after the END chunk",
		    (unsigned long long)extra);
	r->lost = -1;
	return 0;
}

int
pme_reader_next(struct pme_reader *r, struct pme_chunk *c,
    struct pme_error *err)
{
	const uint8_t *h;
	uint32_t type, flags, stored, raw;
	size_t have;
	int rc;

	if (r == NULL || c == NULL)
		return pme_seterr(err, PME_EINVAL,
		    "pme_reader_next: bad argument");
	if (r->done)
		return 0;
	if ((rc = leave_chunk(r, err)) != 1)
		return rc;
	if (fill(r, CHUNK_HLEN, &have, err) == -1)
		return -1;
	if (have < CHUNK_HLEN)
		return cut_short(r, have);
	h = r->buf + r->ioff;
	type = pme_get32(h);
	flags = pme_get32(h + 4);
	stored = pme_get32(h + 8);
	raw = pme_get32(h + 12);
	if (check_chunk(r, type, flags, stored, raw, err) == -1)
		return -1;
	if (type == PME_CHUNK_END) {
		if (crc(0, h, 16) != pme_get32(h + 16))
			return pme_setfmt(err, PME_EFORMAT, r->name, r->next,
			    "chunk crc mismatch");
		return at_end(r, err);
	}
	r->state = CH_HEAD;
	r->type = type;
	r->flags = flags;
	r->storedlen = stored;
	r->rawlen = raw;
	r->coff = r->next;
	r->hcrc = crc(0, h, 16);
	r->want = pme_get32(h + 16);
	consume(r, CHUNK_HLEN);
	r->next = r->coff + CHUNK_HLEN + stored;
	c->type = type;
	c->flags = flags;
	c->offset = r->coff;
	c->data = NULL;
	c->len = raw;
	c->stored = stored;
	return 1;
}

/* Makes room for n bytes in *buf of *cap; 0 or -1. */
static int
reserve(uint8_t **buf, size_t *cap, size_t n)
{
	uint8_t *p;

	if (n <= *cap)
		return 0;
	if ((p = realloc(*buf, n)) == NULL)
		return -1;
	*buf = p;
	*cap = n;
	return 0;
}

/*
 * Reads the stored bytes of a file's chunk into sbuf, which grows as they
 * arrive: a chunk that claims more than the file holds costs what the
 * file holds.
 */
static int
load_file(struct pme_reader *r, size_t *got, struct pme_error *err)
{
	size_t want, k = 0, n = 0;

	while (n < r->storedlen) {
		want = r->scap > n ? r->scap : n * 2 + IBUF_LEN;
		if (want > r->storedlen)
			want = r->storedlen;
		if (reserve(&r->sbuf, &r->scap, want) == -1)
			return pme_setnomem(err);
		if (take(r, r->sbuf + n, want - n, &k, err) == -1)
			return -1;
		n += k;
		if (n < want)
			break;
	}
	*got = n;
	r->sp = r->sbuf;
	return 0;
}

static int
bad_zlib(struct pme_reader *r, struct pme_error *err)
{
	return pme_setfmt(err, PME_EFORMAT, r->name, r->coff,
	    "bad compressed payload");
}

/*
 * Inflates the next n raw bytes into dst.  With the last of them the
 * stream must end, having used every stored byte.
 */
static int
inflate_some(struct pme_reader *r, uint8_t *dst, size_t n,
    struct pme_error *err)
{
	uint8_t extra;
	int rc;

	r->z.next_out = dst;
	r->z.avail_out = (uInt)n;
	rc = inflate(&r->z, Z_SYNC_FLUSH);
	if (rc == Z_MEM_ERROR)
		return pme_setnomem(err);
	if ((rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) ||
	    r->z.avail_out != 0)
		return bad_zlib(r, err);
	r->out += n;
	if (r->out < r->rawlen)
		return 0;
	r->z.next_out = &extra;
	r->z.avail_out = 1;
	if (inflate(&r->z, Z_FINISH) != Z_STREAM_END ||
	    r->z.avail_out != 1 || r->z.avail_in != 0)
		return bad_zlib(r, err);
	return 0;
}

/* The stored bytes of the chunk, crc checked: 1, 0 cut short, -1. */
static int
load(struct pme_reader *r, struct pme_error *err)
{
	static uint8_t dummy;
	size_t got = 0;

	if (r->fd == -1) {
		got = r->ilen - r->ioff < r->storedlen ? r->ilen - r->ioff :
		    r->storedlen;
		r->sp = r->buf + r->ioff;
		consume(r, got);
	} else if (load_file(r, &got, err) == -1)
		return -1;
	r->state = CH_NONE;
	if (r->sp == NULL)
		r->sp = magic;		/* no bytes, but a pointer */
	if (got < r->storedlen) {
		r->next = r->coff;
		return cut_short(r, CHUNK_HLEN + (uint64_t)got);
	}
	if (crc(r->hcrc, r->sp, r->storedlen) != r->want)
		return crc_mismatch(r, err);
	r->state = CH_LOADED;
	r->out = 0;
	if (!(r->flags & PME_CHUNK_ZLIB))
		return 1;
	if (!r->zinit) {
		if (inflateInit(&r->z) != Z_OK)
			return pme_setnomem(err);
		r->zinit = 1;
	} else if (inflateReset(&r->z) != Z_OK)
		return pme_setnomem(err);
	r->z.next_in = (Bytef *)r->sp;
	r->z.avail_in = r->storedlen;
	if (r->rawlen == 0 && inflate_some(r, &dummy, 0, err) == -1)
		return -1;
	return 1;
}

/* zlib's bound on the stream of n bytes, of any level. */
static size_t
zbound(size_t n)
{
	return (size_t)compressBound((uLong)n);
}

int
pme_reader_payload(struct pme_reader *r, struct pme_chunk *c, size_t max,
    struct pme_error *err)
{
	char s[5];
	int rc;

	if (r == NULL || c == NULL || r->state != CH_HEAD ||
	    c->offset != r->coff)
		return pme_seterr(err, PME_EINVAL,
		    "pme_reader_payload: no chunk to read");
	if (r->rawlen > max || (r->flags & PME_CHUNK_ZLIB &&
	    r->storedlen > zbound(max))) {
		/* The crc first: a damaged length is damage. */
		if ((rc = leave_chunk(r, err)) != 1)
			return rc;
		if (r->rawlen > max)
			return pme_setfmt(err, PME_EFORMAT, r->name, r->coff,
			    "'%s' chunk of %u bytes, more than the %zu it may "
			    "hold", fourcc(r->type, s), r->rawlen, max);
		return pme_setfmt(err, PME_EFORMAT, r->name, r->coff,
		    "'%s' chunk of %u compressed bytes, more than zlib makes "
		    "of %zu", fourcc(r->type, s), r->storedlen, max);
	}
	if ((rc = load(r, err)) != 1)
		return rc;
	if (!(r->flags & PME_CHUNK_ZLIB)) {
		c->data = r->sp;
		return 1;
	}
	if (r->rawlen > 0) {
		if (reserve(&r->rawbuf, &r->rawcap, r->rawlen) == -1)
			return pme_setnomem(err);
		if (inflate_some(r, r->rawbuf, r->rawlen, err) == -1)
			return -1;
	}
	c->data = r->rawlen > 0 ? r->rawbuf : r->sp;
	return 1;
}

int
pme_reader_read(struct pme_reader *r, void *buf, size_t n, size_t *got,
    struct pme_error *err)
{
	size_t k;
	int rc;

	if (r == NULL || (buf == NULL && n > 0) || got == NULL)
		return pme_seterr(err, PME_EINVAL,
		    "pme_reader_read: bad argument");
	*got = 0;
	if (r->state == CH_HEAD) {
		if ((rc = load(r, err)) == -1)
			return -1;
		if (rc == 0)
			return pme_setfmt(err, PME_ETRUNC, r->name, r->next,
			    "file cut short inside a chunk: %lld bytes lost",
			    (long long)r->lost);
	}
	if (r->state != CH_LOADED)
		return pme_seterr(err, PME_EINVAL,
		    "pme_reader_read: no chunk to read");
	k = r->rawlen - r->out < n ? r->rawlen - r->out : n;
	if (k == 0)
		return 0;
	if (r->flags & PME_CHUNK_ZLIB) {
		if (inflate_some(r, buf, k, err) == -1)
			return -1;
	} else {
		memcpy(buf, r->sp + r->out, k);
		r->out += k;
	}
	*got = k;
	return 0;
}

int
pme_reader_stored(struct pme_reader *r, struct pme_chunk *c,
    const uint8_t **stored, struct pme_error *err)
{
	int rc;

	if (r == NULL || c == NULL || stored == NULL || r->state != CH_HEAD ||
	    c->offset != r->coff)
		return pme_seterr(err, PME_EINVAL,
		    "pme_reader_stored: no chunk to read");
	if ((rc = load(r, err)) != 1)
		return rc;
	*stored = r->sp;
	return 1;
}

int64_t
pme_reader_lost(const struct pme_reader *r)
{
	return r->lost;
}

uint64_t
pme_reader_offset(const struct pme_reader *r)
{
	return r->next;
}

uint16_t
pme_reader_minor(const struct pme_reader *r)
{
	return r->minor;
}

const char *
pme_reader_name(const struct pme_reader *r)
{
	return r->name;
}

void
pme_reader_close(struct pme_reader *r)
{
	if (r == NULL)
		return;
	if (r->closefd)
		close(r->fd);
	if (r->zinit)
		inflateEnd(&r->z);
	free(r->rawbuf);
	free(r->sbuf);
	free(r->ibuf);
	free(r->name);
	free(r);
}
