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
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
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

/*
 * A temporary name beside path: "dir/.base.XXXXXX".  Hidden, so that a
 * glob in the directory does not pick it up while it is being written.
 */
static char *
tmp_template(const char *path, struct pme_error *err)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t dirlen = (size_t)(base - path);
	char *t;

	if (*base == '\0') {
		pme_seterr(err, PME_EINVAL, "'%s': not a file name", path);
		return NULL;
	}
	if ((t = malloc(dirlen + strlen(base) + 9)) == NULL) {
		pme_setnomem(err);
		return NULL;
	}
	memcpy(t, path, dirlen);
	t[dirlen] = '.';
	strcpy(t + dirlen + 1, base);
	strcat(t + dirlen, ".XXXXXX");
	return t;
}

/*
 * mkstemp(3) creates files with mode 0600; pme files are ordinary data the
 * user's umask should govern, and reading the umask back is racy in a
 * threaded program.  So the name is filled here and the file created with
 * O_EXCL and mode 0666, which the kernel masks with the umask.
 */
static int
tmp_create(char *t)
{
	static const char digits[] =
	    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	static unsigned long counter;
	char *x = t + strlen(t) - 6;
	struct timespec ts;
	unsigned long long v;
	int fd, i, try;

	for (try = 0; try < 100; try++) {
		clock_gettime(CLOCK_REALTIME, &ts);
		v = (unsigned long long)ts.tv_nsec * 2654435761u ^
		    (unsigned long long)getpid() << 20 ^ counter++ * 7919;
		for (i = 0; i < 6; i++, v /= 62)
			x[i] = digits[v % 62];
		fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd != -1 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/*
 * A name that holds a device, a FIFO or a socket is written directly, as
 * standard output is: replacing it would turn /dev/null into a file.  It
 * must be the caller's or root's (a FIFO another user planted gets
 * nothing), and the file opened must be the one looked at.  Returns 1
 * with w->fd open, 0 when path is to be replaced through a temporary file
 * (nothing there, a regular file or a symbolic link, which is never
 * followed), -1 on error (a directory, among others).
 */
static int
open_special(struct pme_writer *w, struct pme_error *err)
{
	struct stat st, fst;

	if (lstat(w->path, &st) == -1 || S_ISREG(st.st_mode) ||
	    S_ISLNK(st.st_mode))
		return 0;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return pme_setsys(err, w->path, "cannot create");
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		errno = EPERM;
		return pme_setsys(err, w->path, "not written, a special "
		    "file of another user");
	}
	w->fd = open(w->path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (w->fd == -1)
		return pme_setsys(err, w->path, "cannot open");
	if (fstat(w->fd, &fst) == -1 || fst.st_dev != st.st_dev ||
	    fst.st_ino != st.st_ino) {
		close(w->fd);
		w->fd = -1;
		errno = EAGAIN;
		return pme_setsys(err, w->path, "replaced while opened");
	}
	return 1;
}

static int
open_temp(struct pme_writer *w, struct pme_error *err)
{
	struct stat st;
	int e;

	if ((w->fd = tmp_create(w->tmp)) == -1) {
		e = errno;
		free(w->tmp);
		w->tmp = NULL;
		errno = e;
		return pme_setsys(err, w->path, "cannot create");
	}
	w->tmpnew = 1;
	if (fstat(w->fd, &st) == 0) {
		w->dev = st.st_dev;
		w->ino = st.st_ino;
	}
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
	} else if (w->tmp != NULL)
		unlink(w->tmp);
	else if (w->placed && lstat(w->path, &st) == 0 &&
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
	int rc = 1;

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
	} else if ((w->tmp = tmp_template(path, err)) == NULL)
		rc = -1;
	else if ((rc = open_special(w, err)) == 0)
		rc = open_temp(w, err);
	else {
		free(w->tmp);
		w->tmp = NULL;
	}
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
	    (w->live && w->tmp != NULL && publish(w, err) == -1)) {
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
	if (w->tmp != NULL && w->tmpnew && rename(w->tmp, w->path) == -1) {
		pme_setsys(err, w->path, "rename");
		pme_writer_discard(w);
		return -1;
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

struct pme_reader {
	const uint8_t	*buf;
	size_t		 len;
	uint8_t		*own;		/* buf when read from a file */
	char		*name;
	uint16_t	 minor;
	size_t		 pos;		/* next chunk header */
	int		 done;
	int64_t		 lost;
	int		 zinit;
	z_stream	 z;
	uint8_t		*raw;		/* decompressed payload */
	size_t		 rawcap;
};

/*
 * Reads fd to its end.  Files are read rather than mapped: a sample file
 * may be cut short under a mapping while it is being written (SIGBUS), and
 * pipes cannot be mapped at all.
 */
static uint8_t *
slurp(int fd, const char *name, size_t *lenp, struct pme_error *err)
{
	struct stat st;
	size_t cap = 65536, len = 0;
	uint8_t *buf = NULL, *p;
	ssize_t n;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < SIZE_MAX - 1)
		cap = (size_t)st.st_size + 1;	/* + 1 sees EOF in one read */
	for (;;) {
		if (buf == NULL || len == cap) {
			if (buf != NULL && cap > SIZE_MAX / 2)
				goto nomem;
			if (buf != NULL)
				cap *= 2;
			if ((p = realloc(buf, cap)) == NULL)
				goto nomem;
			buf = p;
		}
		n = read(fd, buf + len, cap - len);
		if (n == 0)
			break;
		if (n == -1) {
			if (errno == EINTR)
				continue;
			pme_setsys(err, name, "read");
			free(buf);
			return NULL;
		}
		len += (size_t)n;
	}
	*lenp = len;
	return buf;
nomem:
	free(buf);
	pme_setnomem(err);
	return NULL;
}

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

static int
check_header(struct pme_reader *r, uint32_t kind, struct pme_error *err)
{
	const uint8_t *h = r->buf;
	size_t have = r->len < 4 ? r->len : 4;
	char s1[5], s2[5];
	uint16_t major;

	if (memcmp(h, magic, have) != 0)
		return pme_setfmt(err, PME_EFORMAT, r->name, 0,
		    "not a pme file");
	if (r->len < HEADER_LEN)
		return pme_setfmt(err, PME_ETRUNC, r->name, r->len,
		    "file ends inside the %d-byte header", HEADER_LEN);
	if (crc(0, h, 12) != pme_get32(h + 12))
		return pme_setfmt(err, PME_EFORMAT, r->name, 12,
		    "header crc mismatch");
	major = (uint16_t)(h[8] | h[9] << 8);
	r->minor = (uint16_t)(h[10] | h[11] << 8);
	if (major != PME_FORMAT_MAJOR)
		return pme_setfmt(err, PME_EVERSION, r->name, 8,
		    "format version %u.%u, this library reads %u.x",
		    major, r->minor, PME_FORMAT_MAJOR);
	if (pme_get32(h + 4) != kind)
		return pme_setfmt(err, PME_EKIND, r->name, 4,
		    "a '%s' file, not '%s'", fourcc(pme_get32(h + 4), s1),
		    fourcc(kind, s2));
	r->pos = HEADER_LEN;
	return 0;
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
	if ((r = calloc(1, sizeof(*r))) == NULL ||
	    (r->name = strdup(name)) == NULL) {
		free(r);
		pme_setnomem(err);
		return NULL;
	}
	r->buf = buf;
	r->len = len;
	if (check_header(r, kind, err) == -1) {
		pme_reader_close(r);
		return NULL;
	}
	return r;
}

struct pme_reader *
pme_reader_open(const char *path, uint32_t kind, struct pme_error *err)
{
	struct pme_reader *r;
	uint8_t *buf;
	size_t len;
	int fd, isstdin;

	if (path == NULL) {
		pme_seterr(err, PME_EINVAL, "pme_reader_open: no path");
		return NULL;
	}
	isstdin = strcmp(path, "-") == 0;
	fd = isstdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1) {
		pme_setsys(err, path, "cannot open");
		return NULL;
	}
	buf = slurp(fd, path, &len, err);
	if (!isstdin)
		close(fd);
	if (buf == NULL)
		return NULL;
	if ((r = pme_reader_mem(buf, len, path, kind, err)) == NULL) {
		free(buf);
		return NULL;
	}
	r->own = buf;
	return r;
}

/*
 * Inflates a payload into a buffer of exactly raw bytes; the stream must
 * fill it, end there, and use all its stored bytes.
 */
static int
inflate_chunk(struct pme_reader *r, const uint8_t *in, size_t stored,
    size_t raw)
{
	static uint8_t dummy;
	uint8_t *p;
	int rc;

	if (raw > r->rawcap) {
		if ((p = realloc(r->raw, raw)) == NULL)
			return -2;
		r->raw = p;
		r->rawcap = raw;
	}
	if (!r->zinit) {
		if (inflateInit(&r->z) != Z_OK)
			return -2;
		r->zinit = 1;
	} else if (inflateReset(&r->z) != Z_OK)
		return -2;
	r->z.next_in = (Bytef *)in;
	r->z.avail_in = (uInt)stored;
	r->z.next_out = raw > 0 ? r->raw : &dummy;
	r->z.avail_out = (uInt)raw;
	rc = inflate(&r->z, Z_FINISH);
	if (rc == Z_MEM_ERROR)
		return -2;
	if (rc != Z_STREAM_END || r->z.avail_out != 0 || r->z.avail_in != 0)
		return -1;
	return 0;
}

/* The file ends at pos, inside a chunk or before END. */
static int
cut_short(struct pme_reader *r)
{
	r->lost = (int64_t)(r->len - r->pos);
	r->done = 1;
	return 0;
}

/* Checks the header fields that need no payload. */
static int
check_chunk(struct pme_reader *r, uint32_t type, uint32_t flags,
    uint32_t stored, uint32_t raw, struct pme_error *err)
{
	if (flags & ~(uint32_t)PME_CHUNK_ZLIB)
		return pme_setfmt(err, PME_EFORMAT, r->name, r->pos,
		    "bad chunk flags 0x%x", flags);
	if (stored > PME_CHUNK_MAX || raw > PME_CHUNK_MAX)
		return pme_setfmt(err, PME_EFORMAT, r->name, r->pos,
		    "bad chunk length");
	if (!(flags & PME_CHUNK_ZLIB) && stored != raw)
		return pme_setfmt(err, PME_EFORMAT, r->name, r->pos,
		    "bad chunk length");
	if (type == PME_CHUNK_END && (stored != 0 || flags != 0))
		return pme_setfmt(err, PME_EFORMAT, r->name, r->pos,
		    "END chunk with a payload");
	return 0;
}

/* The END chunk must be the last bytes of the file. */
static int
at_end(struct pme_reader *r, struct pme_error *err)
{
	size_t after = r->pos + CHUNK_HLEN;

	r->done = 1;
	if (after != r->len)
		return pme_setfmt(err, PME_EFORMAT, r->name, after,
		    "%zu bytes after the END chunk", r->len - after);
	r->lost = -1;
	return 0;
}

int
pme_reader_next(struct pme_reader *r, struct pme_chunk *c,
    struct pme_error *err)
{
	const uint8_t *h, *payload;
	uint32_t type, flags, stored, raw;
	int rc;

	if (r == NULL || c == NULL)
		return pme_seterr(err, PME_EINVAL,
		    "pme_reader_next: bad argument");
	if (r->done)
		return 0;
	if (r->len - r->pos < CHUNK_HLEN)
		return cut_short(r);
	h = r->buf + r->pos;
	type = pme_get32(h);
	flags = pme_get32(h + 4);
	stored = pme_get32(h + 8);
	raw = pme_get32(h + 12);
	if (check_chunk(r, type, flags, stored, raw, err) == -1)
		return -1;
	if (r->len - r->pos - CHUNK_HLEN < stored)
		return cut_short(r);
	payload = h + CHUNK_HLEN;
	if (crc(crc(0, h, 16), payload, stored) != pme_get32(h + 16))
		return pme_setfmt(err, PME_EFORMAT, r->name, r->pos,
		    "chunk crc mismatch");
	if (type == PME_CHUNK_END)
		return at_end(r, err);
	c->type = type;
	c->flags = flags;
	c->offset = r->pos;
	c->data = payload;
	c->len = raw;
	if (flags & PME_CHUNK_ZLIB) {
		if ((rc = inflate_chunk(r, payload, stored, raw)) == -2)
			return pme_setnomem(err);
		if (rc == -1)
			return pme_setfmt(err, PME_EFORMAT, r->name, r->pos,
			    "bad compressed payload");
		c->data = r->raw;
	}
	r->pos += CHUNK_HLEN + (size_t)stored;
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
	return r->pos;
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
	if (r->zinit)
		inflateEnd(&r->z);
	free(r->raw);
	free(r->own);
	free(r->name);
	free(r);
}
