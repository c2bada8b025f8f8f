/*
 * sample.c - sample files (.PMS; pme(5), SAMPLE FILES): the incremental
 * writer the recorders use, the tolerant reader pmehisto uses, and the
 * address map that rebases program counters through the recorded mappings.
 *
 * This file is also compiled into the libpmeclock runtime, preloaded into
 * measured programs: so no libelf, no global mutable state, and a writer
 * allocates every buffer it needs at open (zlib aside, see flush_meta).
 * A writer is not locked: its caller serialises the calls on it.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pme_sample.h"
#include "util.h"
#include "varint.h"

#define T_SHDR	PME_FOURCC('S', 'H', 'D', 'R')
#define T_MAPS	PME_FOURCC('M', 'A', 'P', 'S')
#define T_THRD	PME_FOURCC('T', 'H', 'R', 'D')
#define T_SMPL	PME_FOURCC('S', 'M', 'P', 'L')
#define T_CLOS	PME_FOURCC('C', 'L', 'O', 'S')
/* The recording boot's id, just before the header it belongs to: a reader
 * of an earlier minor version passes over it. */
#define T_BOOT	PME_FOURCC('B', 'O', 'O', 'T')
/* Format 1.1: the run's events, just before its header, and the chunks of
 * samples that name an event other than the first (an SMPL chunk with an
 * event column), which a 1.0 reader passes over. */
#define T_EVTS	PME_FOURCC('E', 'V', 'T', 'S')
#define T_SMPX	PME_FOURCC('S', 'M', 'P', 'X')
/* Format 1.1: heap records (pmeclock -e alloc), one process's each. */
#define T_HEAP	PME_FOURCC('H', 'E', 'A', 'P')
#define HEAP_MAX	(1u << 20)
/* HEAP's successor, which a reader that knows it not passes over: its
 * releases name blocks by age, and REPEATs replay earlier records. */
#define T_HEA2	PME_FOURCC('H', 'E', 'A', '2')
/* The names of the events a run's heap records make samples of. */
#define EV_ALLOCS	"allocations"
#define EV_BYTES	"bytes"
/* Off-CPU intervals (pmeclock -w), which a reader that does not know
 * them passes over: no version change. */
#define T_OFFC	PME_FOURCC('O', 'F', 'F', 'C')
/* The longest OFFC record: its fixed fields and FRAMES_MAX frames. */
#define OFFC_BOUND	(14 * VARINT_MAX + FRAMES_MAX * VARINT_MAX)
/* OFFC's successor, which a reader that knows it not passes over: an
 * interval's chain may be a chain of an earlier interval of the chunk,
 * by its number (pmeclock -w's waits repeat a few chains: the chains
 * were two thirds of OFFC's bytes, and compressing them a sixth of the
 * collector's CPU at 100,000 switches a second). */
#define T_OFF2	PME_FOURCC('O', 'F', 'F', '2')
/* An OFF2 record's fields that it has (after kclass, in bits 0-2). */
#define OFF2_WAKE	0x08u
#define OFF2_KSTATE	0x10u
#define OFF2_WAKER	0x20u
#define OFF2_FLAGS	0x40u
#define OFF2_FUTEX_OP	0x80u
#define OFF2_OBJECT	0x100u
#define OFF2_HAS	0x1f8u
/* The chains of a chunk the writer looks up (a slot each in a table of
 * twice as many); later ones are written out each time. */
#define CHAINS_MAX	2048
/* Format 1.1 too: I/O calls (pmeclock -e io), passed over by a reader
 * that knows them not. */
#define T_IOCL	PME_FOURCC('I', 'O', 'C', 'L')

#define BUF_DEFAULT	(64u << 10)
#define BUF_MIN		(16u << 10)
#define BUF_MAX		(16u << 20)
#define STR_MAX		4096	/* longest path or thread name */
#define ID_MAX		1024	/* longest build-id */
#define TID_MAX		1024	/* threads in one SMPL chunk */
#define FRAMES_MAX	1024	/* frames of one sample */
#define SHDR_FIXED	40
/* The most a header holds: a command line, which the kernel limits to
 * 6 MiB, of at most ARGC_MAX words.  Writer and reader both keep to it. */
#define SHDR_MAX	(8u << 20)
#define ARGC_MAX	(1u << 20)
#define CLOS_LEN	32
#define VARINT_MAX	10

/* The columns of an SMPL chunk; the first NLAZY may be constant, and
 * their bit in the chunk's column flags says which are stored.  The
 * event's is in SMPX chunks only: an SMPL chunk's samples are all of
 * event 0, and it has neither the column nor its constant. */
enum { C_TIDX, C_WEIGHT, C_CPU, C_FLAGS, C_NFR, C_EVENT, C_PC, C_TIME,
    C_FRAMES, NCOL };
#define NLAZY	6
#define NLAZY_SMPL 5
/* The order they are stored in: pc and time first, so that a reader
 * fills whole records in the time column's pass. */
static const uint8_t col_order[NCOL] = { C_TIDX, C_PC, C_TIME, C_WEIGHT,
    C_CPU, C_FLAGS, C_NFR, C_EVENT, C_FRAMES };
/* Bytes of a sample but its frames, every column at its longest, and of
 * a new entry in the thread table. */
#define SAMPLE_BOUND	(5 + 10 + 5 + 5 + 5 + 5 + 10 + 10)
#define EVTS_MAX	(PME_EVENTS_MAX * (2 * (VARINT_MAX + STR_MAX) + \
			    5 * VARINT_MAX) + VARINT_MAX)
#define TID_BOUND	(5 + 10)

/* ------------------------------------------------------------ varints */

static inline uint8_t *
put_u32le(uint8_t *p, uint32_t v)
{
	pme_le32(p, v);
	return p + 4;
}

static inline uint8_t *
put_u64le(uint8_t *p, uint64_t v)
{
	pme_le32(p, (uint32_t)v);
	pme_le32(p + 4, (uint32_t)(v >> 32));
	return p + 8;
}

static inline uint8_t *
put_bytes(uint8_t *p, const void *s, size_t n)
{
	p = pme_uv_put(p, n);
	if (n > 0)
		memcpy(p, s, n);
	return p + n;
}

/* ------------------------------------------------------------- writer */

struct tidw {
	uint32_t	 pid, tid;
	uint64_t	 pc, time;	/* of its last sample in the chunk */
};

/* A mapping or thread record waiting in the meta buffer: tag, length. */
#define META_HLEN	3

/* A chain written out in the pending OFF2 records: its bytes, at
 * off[at .. at + len), are the chain's number-th. */
struct chainw {
	uint64_t	 hash;
	size_t		 at;
	uint32_t	 len, number;
	uint32_t	 gen;		/* not the writer's: an empty slot */
};

struct pme_samplewriter {
	struct pme_writer *w;
	char		*path;
	size_t		 bufsize;
	size_t		 used;		/* bytes pending, all chunks */
	uint8_t		*mem;		/* every buffer below, one block */
	uint8_t		*col[NCOL];
	size_t		 coln[NCOL];
	uint64_t	 lazy0[NLAZY];	/* a constant column's value */
	int		 lazyvar[NLAZY];	/* the column is stored */
	uint8_t		*meta;
	size_t		 metan;
	uint8_t		*out;		/* a chunk's payload as written */
	size_t		 n;		/* samples pending */
	uint64_t	 step;
	uint64_t	 pcbase, timebase;
	struct tidw	 tids[TID_MAX];
	uint16_t	 slot[2 * TID_MAX];	/* index + 1, 0 empty */
	uint32_t	 ntids, lastk;
	uint64_t	 total;		/* samples written */
	uint32_t	 nevents;	/* of the header, at least 1 */
	int		 failed;
	uint8_t		*off;		/* OFF2 records pending */
	size_t		 offn, offcap, noff;
	uint64_t	 offtime;	/* the last record's start */
	uint32_t	 offpid;	/* and its pid */
	size_t		 chainn;	/* bytes of chains written out */
	struct chainw	*chains;	/* 2 * CHAINS_MAX slots, or NULL */
	uint32_t	 chaingen;	/* the chunk's slots have it */
	uint32_t	 nchains;	/* chains written out in the chunk */
	uint32_t	 nlooked;	/* of them in chains[] */
};

static uint64_t
sh_u32(uint32_t v)
{
	return (uint64_t)v * 0x9e3779b97f4a7c15ull >> 32;
}

static size_t
slot_of(uint32_t pid, uint32_t tid)
{
	return (size_t)(sh_u32(tid ^ pid * 0x85ebca6bu) % (2 * TID_MAX));
}

static void
reset_chunk(struct pme_samplewriter *sw)
{
	memset(sw->coln, 0, sizeof(sw->coln));
	memset(sw->slot, 0, sizeof(sw->slot));
	sw->ntids = 0;
	sw->lastk = 0;
	sw->n = 0;
	sw->used = 0;
	sw->metan = 0;
}

static int
wfail(struct pme_samplewriter *sw)
{
	sw->failed = 1;
	return -1;
}

/* Writes the payload built in out[0..len). */
static int
put_chunk(struct pme_samplewriter *sw, uint32_t type, const uint8_t *p,
    size_t len, int compress, struct pme_error *err)
{
	if (pme_writer_chunk(sw->w, type, p, len, compress, err) == -1)
		return wfail(sw);
	return 0;
}

/*
 * The meta buffer holds mapping and thread records in arrival order; each
 * run of one kind becomes one MAPS or THRD chunk, so a reader sees them in
 * the order they happened.  They are few and mostly paths: compressed when
 * that pays (zlib's state is then allocated, once, by the container).
 */
static size_t
meta_len(const uint8_t *rec)
{
	return (size_t)rec[1] | (size_t)rec[2] << 8;
}

static int
flush_meta(struct pme_samplewriter *sw, struct pme_error *err)
{
	size_t i = 0, j, count;
	uint8_t tag, *p;

	while (i < sw->metan) {
		tag = sw->meta[i];
		count = 0;
		for (j = i; j < sw->metan && sw->meta[j] == tag;
		    j += META_HLEN + meta_len(sw->meta + j))
			count++;
		p = pme_uv_put(sw->out, count);
		for (; i < j; i += META_HLEN + meta_len(sw->meta + i)) {
			memcpy(p, sw->meta + i + META_HLEN,
			    meta_len(sw->meta + i));
			p += meta_len(sw->meta + i);
		}
		if (put_chunk(sw, tag == 'M' ? T_MAPS : tag == 'I' ? T_IOCL :
		    T_THRD, sw->out,
		    (size_t)(p - sw->out), 1, err) == -1)
			return -1;
	}
	return 0;
}

static int
flush_samples(struct pme_samplewriter *sw, struct pme_error *err)
{
	uint8_t *p = sw->out;
	unsigned cols = 0;
	uint32_t k;
	int c, i, x = sw->lazyvar[C_EVENT] || sw->lazy0[C_EVENT] != 0;

	p = pme_uv_put(p, sw->n);
	p = pme_uv_put(p, sw->ntids);
	for (k = 0; k < sw->ntids; k++) {
		p = pme_uv_put(p, sw->tids[k].pid);
		p = pme_uv_put(p, pme_zig((uint64_t)sw->tids[k].tid -
		    sw->tids[k].pid));
	}
	p = pme_uv_put(p, sw->step);
	p = pme_uv_put(p, sw->pcbase);
	p = pme_uv_put(p, sw->timebase);
	for (c = 0; c < NLAZY; c++)
		if (sw->lazyvar[c])
			cols |= 1u << c;
	p = pme_uv_put(p, cols);
	for (c = 0; c < (x ? NLAZY : NLAZY_SMPL); c++)
		if (!sw->lazyvar[c])
			p = pme_uv_put(p, sw->lazy0[c]);
	for (i = 0; i < NCOL; i++) {
		c = col_order[i];
		if (c < NLAZY && !sw->lazyvar[c])
			continue;
		memcpy(p, sw->col[c], sw->coln[c]);
		p += sw->coln[c];
	}
	/* Columns of varints gain little from zlib and inflating would
	 * cost the reader more than decoding: stored plain (pme(5)). */
	return put_chunk(sw, x ? T_SMPX : T_SMPL, sw->out,
	    (size_t)(p - sw->out), 0, err);
}

static int	flush_offcpu(struct pme_samplewriter *, struct pme_error *);

int
pme_samplewriter_flush(struct pme_samplewriter *sw, struct pme_error *err)
{
	if (sw == NULL)
		return pme_seterr(err, PME_EINVAL,
		    "pme_samplewriter_flush: no writer");
	if (sw->failed)
		return pme_seterr(err, PME_EIO, "'%s': an earlier write failed",
		    sw->path);
	if (flush_meta(sw, err) == -1)
		return -1;
	if (sw->n > 0 && flush_samples(sw, err) == -1)
		return -1;
	if (sw->noff > 0 && flush_offcpu(sw, err) == -1)
		return -1;
	sw->total += sw->n;
	reset_chunk(sw);
	return 0;
}

static size_t
strlen_or0(const char *s)
{
	return s == NULL ? 0 : strlen(s);
}

static uint8_t *
put_str(uint8_t *p, const char *s)
{
	return put_bytes(p, s, strlen_or0(s));
}

/* Whether p[0..len) is a boot id: 1 to PME_BOOT_MAX printable bytes. */
static int
boot_ok(const char *p, size_t len)
{
	size_t i;

	if (len == 0 || len > PME_BOOT_MAX)
		return 0;
	for (i = 0; i < len; i++)
		if (p[i] <= ' ' || p[i] > '~')
			return 0;
	return 1;
}

int
pme_boot_id(char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if (len < PME_BOOT_MAX + 1 ||
	    (fd = open("/proc/sys/kernel/random/boot_id",
	    O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, PME_BOOT_MAX + 1);
	close(fd);
	if (n <= 0)
		return -1;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	if (!boot_ok(buf, (size_t)n))
		return -1;
	buf[n] = '\0';
	return 0;
}

/* The EVTS payload: the run's events, each name and unit a string. */
static int
write_events(struct pme_samplewriter *sw, const struct pme_sample_header *h,
    struct pme_error *err)
{
	const struct pme_sample_event *e;
	uint8_t *buf, *p;
	uint32_t i;
	int rc;

	if (h->nevents > PME_EVENTS_MAX || h->events == NULL)
		return pme_seterr(err, PME_EINVAL, "pme_samplewriter_open: "
		    "%u events", h->nevents);
	for (i = 0; i < h->nevents; i++)
		if (h->events[i].name == NULL || h->events[i].unit == NULL ||
		    strlen(h->events[i].name) > STR_MAX ||
		    strlen(h->events[i].unit) > STR_MAX)
			return pme_seterr(err, PME_EINVAL, "pme_samplewriter_"
			    "open: event %u: bad name or unit", i);
	if ((p = buf = malloc(EVTS_MAX)) == NULL)
		return pme_setnomem(err);
	p = pme_uv_put(p, h->nevents);
	for (e = h->events; e < h->events + h->nevents; e++) {
		p = put_str(p, e->name);
		p = put_str(p, e->unit);
		p = pme_uv_put(p, e->kind);
		p = pme_uv_put(p, e->type);
		p = pme_uv_put(p, e->config);
		p = pme_uv_put(p, e->period);
		p = pme_uv_put(p, e->flags);
	}
	rc = put_chunk(sw, T_EVTS, buf, (size_t)(p - buf), 1, err);
	free(buf);
	return rc;
}

/* The SHDR payload, in a buffer of its own: the command line may be long.
 * The BOOT and EVTS chunks, when there are a boot id and events, go just
 * before it. */
static int
write_header(struct pme_samplewriter *sw, const struct pme_sample_header *h,
    struct pme_error *err)
{
	size_t len = SHDR_FIXED + 2 * VARINT_MAX, i;
	uint8_t *buf, *p;
	int rc;

	for (i = 0; i < h->argc; i++) {
		if (h->argv == NULL || h->argv[i] == NULL)
			return pme_seterr(err, PME_EINVAL,
			    "pme_samplewriter_open: argv[%zu] is NULL", i);
		len += pme_uv_len(strlen(h->argv[i])) + strlen(h->argv[i]);
		if (len > SHDR_MAX)
			break;
	}
	len += VARINT_MAX + strlen_or0(h->note);
	if (len > SHDR_MAX || h->argc > ARGC_MAX)
		return pme_seterr(err, PME_ELIMIT, "'%s': the command line is "
		    "too long for a header", sw->path);
	if (h->boot != NULL && !boot_ok(h->boot, strlen(h->boot)))
		return pme_seterr(err, PME_EINVAL, "pme_samplewriter_open: "
		    "bad boot id");
	if (h->boot != NULL && put_chunk(sw, T_BOOT, (const uint8_t *)h->boot,
	    strlen(h->boot), 0, err) == -1)
		return -1;
	if (h->nevents > 0 && write_events(sw, h, err) == -1)
		return -1;
	if ((p = buf = malloc(len)) == NULL)
		return pme_setnomem(err);
	p = put_u32le(p, h->method);
	p = put_u32le(p, h->event);
	p = put_u64le(p, h->period);
	p = put_u64le(p, h->start);
	p = put_u64le(p, h->start_mono);
	p = put_u32le(p, h->pid);
	p = put_u32le(p, h->flags);
	p = pme_uv_put(p, h->argc);
	for (i = 0; i < h->argc; i++)
		p = put_str(p, h->argv[i]);
	p = h->note == NULL ? pme_uv_put(p, 0) :
	    put_bytes(pme_uv_put(p, 1), h->note, strlen(h->note));
	rc = put_chunk(sw, T_SHDR, buf, (size_t)(p - buf), 1, err);
	free(buf);
	return rc;
}

struct pme_samplewriter *
pme_samplewriter_open(const char *path, const struct pme_sample_header *h,
    size_t bufsize, struct pme_error *err)
{
	struct pme_samplewriter *sw;
	uint8_t *m;
	int c;

	if (path == NULL || h == NULL) {
		pme_seterr(err, PME_EINVAL, "pme_samplewriter_open: bad "
		    "argument");
		return NULL;
	}
	if (bufsize == 0)
		bufsize = BUF_DEFAULT;
	bufsize = bufsize < BUF_MIN ? BUF_MIN : bufsize > BUF_MAX ? BUF_MAX :
	    bufsize;
	if ((sw = calloc(1, sizeof(*sw))) == NULL ||
	    (sw->path = strdup(path)) == NULL ||
	    (sw->mem = malloc((NCOL + 2) * bufsize + 256)) == NULL) {
		if (sw != NULL)
			free(sw->path);
		free(sw);
		pme_setnomem(err);
		return NULL;
	}
	sw->bufsize = bufsize;
	sw->step = h->period;
	sw->nevents = h->nevents > 0 ? h->nevents : 1;
	for (m = sw->mem, c = 0; c < NCOL; c++, m += bufsize)
		sw->col[c] = m;
	sw->meta = m;
	sw->out = m + bufsize;
	reset_chunk(sw);
	if ((sw->w = pme_writer_open(path, PME_KIND_SAMPLE, PME_WRITE_LIVE,
	    err)) == NULL || write_header(sw, h, err) == -1) {
		pme_samplewriter_discard(sw);
		return NULL;
	}
	return sw;
}

static int
writable(struct pme_samplewriter *sw, const void *rec, const char *fn,
    struct pme_error *err)
{
	if (sw == NULL || rec == NULL)
		return pme_seterr(err, PME_EINVAL, "%s: bad argument", fn);
	if (sw->failed)
		return pme_seterr(err, PME_EIO, "'%s': an earlier write failed",
		    sw->path);
	return 0;
}

/* Makes room for a record of at most len bytes, flushing if need be. */
static int
room(struct pme_samplewriter *sw, size_t len, struct pme_error *err)
{
	if (sw->used + len > sw->bufsize)
		return pme_samplewriter_flush(sw, err);
	return 0;
}

/* Appends a meta record of len bytes from rec (built in out's tail). */
static void
meta_add(struct pme_samplewriter *sw, uint8_t tag, const uint8_t *rec,
    size_t len)
{
	uint8_t *p = sw->meta + sw->metan;

	p[0] = tag;
	p[1] = (uint8_t)len;
	p[2] = (uint8_t)(len >> 8);
	memcpy(p + META_HLEN, rec, len);
	sw->metan += META_HLEN + len;
	sw->used += META_HLEN + len;
}

int
pme_samplewriter_mapping(struct pme_samplewriter *sw,
    const struct pme_mapping *m, struct pme_error *err)
{
	uint8_t rec[9 * VARINT_MAX + STR_MAX + ID_MAX], *p;
	size_t plen;

	if (writable(sw, m, "pme_samplewriter_mapping", err) == -1)
		return -1;
	if (m->end <= m->start || (m->buildid == NULL && m->buildid_len > 0))
		return pme_seterr(err, PME_EINVAL, "'%s': mapping [0x%llx, "
		    "0x%llx) is empty or its build-id missing", sw->path,
		    (unsigned long long)m->start, (unsigned long long)m->end);
	if ((plen = strlen_or0(m->path)) > STR_MAX || m->buildid_len > ID_MAX)
		return pme_seterr(err, PME_ELIMIT, "'%s': mapping path or "
		    "build-id too long", sw->path);
	p = pme_uv_put(rec, m->pid);
	p = pme_uv_put(p, m->flags);
	p = pme_uv_put(p, m->time);
	p = pme_uv_put(p, m->start);
	p = pme_uv_put(p, m->end - m->start);
	p = pme_uv_put(p, m->offset);
	p = pme_uv_put(p, pme_zig(m->vaddr - m->offset));
	p = put_bytes(p, m->path, plen);
	p = put_bytes(p, m->buildid, m->buildid_len);
	if (room(sw, META_HLEN + (size_t)(p - rec), err) == -1)
		return -1;
	meta_add(sw, 'M', rec, (size_t)(p - rec));
	return 0;
}

int
pme_samplewriter_thread(struct pme_samplewriter *sw,
    const struct pme_thread *t, struct pme_error *err)
{
	uint8_t rec[6 * VARINT_MAX + STR_MAX], *p;
	size_t nlen;

	if (writable(sw, t, "pme_samplewriter_thread", err) == -1)
		return -1;
	if (t->kind < PME_THREAD_COMM || t->kind > PME_THREAD_EXEC)
		return pme_seterr(err, PME_EINVAL, "'%s': thread record of "
		    "kind %u", sw->path, t->kind);
	if ((nlen = strlen_or0(t->name)) > STR_MAX)
		return pme_seterr(err, PME_ELIMIT, "'%s': thread name too "
		    "long", sw->path);
	/* An exec drops the process's mappings: the samples taken before
	 * it go out first, to be rebased through the old ones. */
	if (t->kind == PME_THREAD_EXEC && sw->n > 0 &&
	    pme_samplewriter_flush(sw, err) == -1)
		return -1;
	p = pme_uv_put(rec, t->kind);
	p = pme_uv_put(p, t->pid);
	p = pme_uv_put(p, t->tid);
	p = pme_uv_put(p, t->time);
	if (t->kind == PME_THREAD_FORK) {
		p = pme_uv_put(p, t->ppid);
		p = pme_uv_put(p, t->ptid);
	} else if (t->kind == PME_THREAD_COMM || t->kind == PME_THREAD_EXEC)
		p = put_bytes(p, t->name, nlen);
	if (room(sw, META_HLEN + (size_t)(p - rec), err) == -1)
		return -1;
	meta_add(sw, 'T', rec, (size_t)(p - rec));
	return 0;
}

static const char *const io_names[PME_IO_NCALLS] = {
	NULL, "read", "write", "pread64", "pwrite64", "readv", "writev",
	"preadv", "pwritev", "open", "openat", "close", "fsync", "fdatasync",
	"sendfile", "sendto", "recvfrom", "sendmsg", "recvmsg"
};

const char *
pme_io_name(uint32_t call)
{
	return call < PME_IO_NCALLS ? io_names[call] : NULL;
}

/* An I/O record: a meta record, so that its stack is rebased through the
 * mappings of its time; its frames as differences, which zlib then
 * packs. */
int
pme_samplewriter_io(struct pme_samplewriter *sw, const struct pme_io *io,
    struct pme_error *err)
{
	uint8_t rec[(12 + FRAMES_MAX) * VARINT_MAX + STR_MAX], *p;
	uint64_t prev;
	size_t plen;
	uint32_t i;

	if (writable(sw, io, "pme_samplewriter_io", err) == -1)
		return -1;
	if (pme_io_name(io->call) == NULL || io->nframes > FRAMES_MAX ||
	    (io->frames == NULL && io->nframes > 0))
		return pme_seterr(err, PME_EINVAL, "'%s': I/O record of call "
		    "%u with %u frames", sw->path, io->call, io->nframes);
	if ((plen = strlen_or0(io->path)) > STR_MAX)
		plen = STR_MAX;
	p = pme_uv_put(rec, io->pid);
	p = pme_uv_put(p, pme_zig((uint64_t)io->tid - io->pid));
	p = pme_uv_put(p, io->call);
	p = pme_uv_put(p, io->flags);
	p = pme_uv_put(p, pme_zig((uint64_t)(int64_t)io->fd));
	p = pme_uv_put(p, pme_zig((uint64_t)io->ret));
	p = pme_uv_put(p, io->start);
	p = pme_uv_put(p, io->duration);
	p = pme_uv_put(p, prev = io->pc);
	p = pme_uv_put(p, io->nframes);
	for (i = 0; i < io->nframes; prev = io->frames[i++])
		p = pme_uv_put(p, pme_zig(io->frames[i] - prev));
	p = put_bytes(p, io->path, plen);
	if (room(sw, META_HLEN + (size_t)(p - rec), err) == -1)
		return -1;
	meta_add(sw, 'I', rec, (size_t)(p - rec));
	return 0;
}

/* The index of (pid, tid) in the chunk's thread table, or -1 if full. */
static int
tid_find(struct pme_samplewriter *sw, uint32_t pid, uint32_t tid, int *isnew)
{
	size_t h = slot_of(pid, tid);
	struct tidw *t;
	uint32_t k;

	*isnew = 0;
	if (sw->ntids > 0 && sw->tids[sw->lastk].tid == tid &&
	    sw->tids[sw->lastk].pid == pid)
		return (int)sw->lastk;
	for (; sw->slot[h] != 0; h = (h + 1) % (2 * TID_MAX)) {
		t = &sw->tids[sw->slot[h] - 1];
		if (t->tid == tid && t->pid == pid)
			return sw->lastk = sw->slot[h] - 1u, (int)sw->lastk;
	}
	if (sw->ntids == TID_MAX)
		return -1;
	*isnew = 1;
	k = sw->ntids++;
	sw->slot[h] = (uint16_t)(k + 1);
	sw->tids[k].pid = pid;
	sw->tids[k].tid = tid;
	sw->tids[k].pc = sw->pcbase;
	sw->tids[k].time = sw->timebase;
	sw->lastk = k;
	return (int)k;
}

/* Removes the entry tid_find() made last. */
static void
tid_forget(struct pme_samplewriter *sw, uint32_t k)
{
	size_t h = slot_of(sw->tids[k].pid, sw->tids[k].tid);

	while (sw->slot[h] != k + 1)
		h = (h + 1) % (2 * TID_MAX);
	sw->slot[h] = 0;
	sw->ntids--;
	sw->lastk = 0;
}

static inline size_t
col_put(struct pme_samplewriter *sw, int c, uint64_t v)
{
	uint8_t *p = sw->col[c] + sw->coln[c];
	size_t n = (size_t)(pme_uv_put(p, v) - p);

	sw->coln[c] += n;
	return n;
}

/*
 * Bytes the sample would add: its columns, its thread's table entry, and
 * the constant columns it would make stored (their value written for
 * every sample pending).  An upper bound for its own varints.
 */
static size_t
sample_need(const struct pme_samplewriter *sw, const uint64_t lz[NLAZY],
    int newtid)
{
	size_t need = SAMPLE_BOUND + (size_t)lz[C_NFR] * VARINT_MAX;
	int c;

	if (newtid)
		need += TID_BOUND;
	if (sw->n == 0)
		return need;
	for (c = 0; c < NLAZY; c++)
		if (!sw->lazyvar[c] && lz[c] != sw->lazy0[c])
			need += sw->n * pme_uv_len(sw->lazy0[c]);
	return need;
}

static int
sample_add(struct pme_samplewriter *sw, const struct pme_sample *s,
    uint64_t lz[NLAZY], struct pme_error *err)
{
	size_t added = 0, i;
	uint64_t prev, pred;
	struct tidw *t;
	int c, k, isnew;

	if ((k = tid_find(sw, s->pid, s->tid, &isnew)) == -1) {
		if (pme_samplewriter_flush(sw, err) == -1)
			return -1;
		k = tid_find(sw, s->pid, s->tid, &isnew);
	}
	lz[C_TIDX] = (uint64_t)k;
	if (sample_need(sw, lz, isnew) + sw->used > sw->bufsize) {
		if (isnew)
			tid_forget(sw, (uint32_t)k);
		return 1;	/* the caller flushes and tries again */
	}
	if (isnew)
		sw->used += pme_uv_len(s->pid) +
		    pme_uv_len(pme_zig((uint64_t)s->tid - s->pid));
	if (sw->n == 0) {
		sw->pcbase = s->pc;
		sw->timebase = s->time - sw->step;
		sw->tids[k].pc = sw->pcbase;
		sw->tids[k].time = sw->timebase;
		for (c = 0; c < NLAZY; c++) {
			sw->lazy0[c] = lz[c];
			sw->lazyvar[c] = 0;
		}
	}
	for (c = 0; c < NLAZY; c++) {
		if (!sw->lazyvar[c] && lz[c] != sw->lazy0[c]) {
			for (i = 0; i < sw->n; i++)
				added += col_put(sw, c, sw->lazy0[c]);
			sw->lazyvar[c] = 1;
		}
		if (sw->lazyvar[c])
			added += col_put(sw, c, lz[c]);
	}
	t = &sw->tids[k];
	added += col_put(sw, C_PC, pme_zig(s->pc - t->pc));
	added += col_put(sw, C_TIME, pme_zig(s->time - (t->time + sw->step)));
	t->pc = s->pc;
	t->time = s->time;
	for (prev = s->pc, i = 0; i < s->nframes; i++) {
		pred = prev;
		prev = s->frames[i];
		added += col_put(sw, C_FRAMES, pme_zig(prev - pred));
	}
	sw->used += added;
	sw->n++;
	return 0;
}

int
pme_samplewriter_sample(struct pme_samplewriter *sw,
    const struct pme_sample *s, struct pme_error *err)
{
	uint64_t lz[NLAZY];
	int rc;

	if (writable(sw, s, "pme_samplewriter_sample", err) == -1)
		return -1;
	if (s->nframes > 0 && s->frames == NULL)
		return pme_seterr(err, PME_EINVAL, "'%s': sample with %u "
		    "frames and no array", sw->path, s->nframes);
	if (s->nframes > FRAMES_MAX)
		return pme_seterr(err, PME_ELIMIT, "'%s': sample with %u "
		    "frames, more than %u", sw->path, s->nframes, FRAMES_MAX);
	if (s->event >= sw->nevents)
		return pme_seterr(err, PME_EINVAL, "'%s': sample of event %u, "
		    "the header lists %u", sw->path, s->event, sw->nevents);
	lz[C_WEIGHT] = s->weight;
	lz[C_CPU] = (uint32_t)(s->cpu + 1);
	lz[C_FLAGS] = s->flags;
	lz[C_NFR] = s->nframes;
	lz[C_EVENT] = s->event;
	if ((rc = sample_add(sw, s, lz, err)) == 1) {
		if (pme_samplewriter_flush(sw, err) == -1)
			return -1;
		if ((rc = sample_add(sw, s, lz, err)) == 1)
			return pme_seterr(err, PME_ELIMIT, "'%s': sample too "
			    "large for the buffer", sw->path);
	}
	return rc;
}

/*
 * OFF2: a count, then each interval: pid less the previous record's
 * (zigzag; the first's less 0), tid - pid (zigzag), start - the previous
 * record's start (zigzag; the first's from 0), end - start, then what
 * it has: kclass in bits 0-2, and a bit for each field not 0 that
 * follows, in this order: 0x08 wake (wake - start), 0x10 kstate, 0x20
 * waker, 0x40 flags, 0x80 futex_op, 0x100 object; then its chain: 0 and
 * the chain written out (pc, nframes, and each frame as the difference
 * from the address before it, pc for the first, zigzag), which is the
 * chunk's next chain (the first is 1), or the number of an earlier one,
 * the same.  Some 9 bytes an interval whose chain repeats, stored as
 * they are (zlib level 1 on them took a sixth of pmeclock -w's CPU at
 * 100,000 switches a second), unless the chains written out are most of
 * the chunk: compressed then.  OFFC, before it, wrote every field and
 * every chain out, compressed.
 */
static int
flush_offcpu(struct pme_samplewriter *sw, struct pme_error *err)
{
	uint8_t head[VARINT_MAX], *p;
	size_t hl;
	int rc;

	hl = (size_t)(pme_uv_put(head, sw->noff) - head);
	if ((p = malloc(hl + sw->offn)) == NULL)
		return pme_setnomem(err);
	memcpy(p, head, hl);
	memcpy(p + hl, sw->off, sw->offn);
	rc = put_chunk(sw, T_OFF2, p, hl + sw->offn, sw->chainn * 2 >
	    sw->offn, err);
	free(p);
	sw->offn = sw->noff = 0;
	sw->offtime = 0;
	sw->offpid = 0;
	sw->chainn = 0;
	sw->nchains = sw->nlooked = 0;
	if (++sw->chaingen == 0 && sw->chains != NULL) {	/* wrapped */
		memset(sw->chains, 0, 2 * CHAINS_MAX * sizeof(*sw->chains));
		sw->chaingen = 1;
	}
	return rc;
}

static uint64_t
chain_hash(const uint8_t *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (len-- > 0)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

/*
 * The chain written out at p + 1 .. q as an OFF2 record has it: the
 * number of the same chain earlier in the chunk in its place, or 0
 * before it, and it is the chunk's next (looked up later while there is
 * room).  Returns the record's end.
 */
static uint8_t *
put_chain(struct pme_samplewriter *sw, uint8_t *p, uint8_t *q)
{
	size_t len = (size_t)(q - p - 1), k, mask = 2 * CHAINS_MAX - 1;
	uint64_t h = chain_hash(p + 1, len);
	struct chainw *c;

	k = (size_t)h & mask;
	if (sw->chains == NULL && (sw->chains = calloc(2 * CHAINS_MAX,
	    sizeof(*sw->chains))) != NULL)
		sw->chaingen = 1;
	for (; sw->chains != NULL && (c = &sw->chains[k])->gen ==
	    sw->chaingen; k = (k + 1) & mask)
		if (c->hash == h && c->len == len &&
		    memcmp(sw->off + c->at, p + 1, len) == 0)
			return pme_uv_put(p, c->number);
	*p = 0;
	sw->nchains++;
	sw->chainn += len;
	if (sw->chains != NULL && sw->nlooked < CHAINS_MAX) {
		c = &sw->chains[k];	/* the empty slot the search ended at */
		c->hash = h;
		c->at = (size_t)(p + 1 - sw->off);
		c->len = (uint32_t)len;
		c->number = sw->nchains;
		c->gen = sw->chaingen;
		sw->nlooked++;
	}
	return q;
}

int
pme_samplewriter_offcpu(struct pme_samplewriter *sw,
    const struct pme_offcpu *o, struct pme_error *err)
{
	uint32_t i, n;
	uint64_t prev;
	uint8_t *p, *q;
	void *v;

	if (writable(sw, o, "pme_samplewriter_offcpu", err) == -1)
		return -1;
	if (o->end < o->start || (o->wake != 0 && (o->wake < o->start ||
	    o->wake > o->end)) || o->kclass >= PME_WC_MAX)
		return pme_seterr(err, PME_EINVAL, "pme_samplewriter_offcpu: "
		    "bad interval");
	if (sw->offn + OFFC_BOUND > sw->bufsize &&
	    pme_samplewriter_flush(sw, err) == -1)
		return -1;
	if (sw->offcap < sw->offn + OFFC_BOUND) {
		if ((v = realloc(sw->off, sw->offn + OFFC_BOUND)) == NULL)
			return pme_setnomem(err);
		sw->off = v;
		sw->offcap = sw->offn + OFFC_BOUND;
	}
	n = o->nframes < FRAMES_MAX ? o->nframes : FRAMES_MAX;
	p = sw->off + sw->offn;
	p = pme_uv_put(p, pme_zig((uint64_t)o->pid - sw->offpid));
	p = pme_uv_put(p, pme_zig((uint64_t)o->tid - o->pid));
	p = pme_uv_put(p, pme_zig(o->start - sw->offtime));
	p = pme_uv_put(p, o->end - o->start);
	p = pme_uv_put(p, o->kclass | (o->wake ? OFF2_WAKE : 0) |
	    (o->kstate ? OFF2_KSTATE : 0) | (o->waker ? OFF2_WAKER : 0) |
	    (o->flags ? OFF2_FLAGS : 0) | (o->futex_op ? OFF2_FUTEX_OP : 0) |
	    (o->object ? OFF2_OBJECT : 0));
	if (o->wake)
		p = pme_uv_put(p, o->wake - o->start);
	if (o->kstate)
		p = pme_uv_put(p, o->kstate);
	if (o->waker)
		p = pme_uv_put(p, o->waker);
	if (o->flags)
		p = pme_uv_put(p, o->flags);
	if (o->futex_op)
		p = pme_uv_put(p, o->futex_op);
	if (o->object)
		p = pme_uv_put(p, o->object);
	q = pme_uv_put(p + 1, o->pc);
	q = pme_uv_put(q, n);
	for (prev = o->pc, i = 0; i < n; prev = o->frames[i++])
		q = pme_uv_put(q, pme_zig(o->frames[i] - prev));
	p = put_chain(sw, p, q);
	sw->offn = (size_t)(p - sw->off);
	sw->offtime = o->start;
	sw->offpid = o->pid;
	sw->noff++;
	return 0;
}

int
pme_samplewriter_heap(struct pme_samplewriter *sw, const void *p,
    size_t len, struct pme_error *err)
{
	if (writable(sw, p, "pme_samplewriter_heap", err) == -1)
		return -1;
	if (len == 0 || len > HEAP_MAX)
		return pme_seterr(err, PME_ELIMIT, "'%s': heap records of %zu "
		    "bytes, not 1 to %u", sw->path, len, HEAP_MAX);
	if (flush_meta(sw, err) == -1)
		return -1;
	sw->used -= sw->metan;
	sw->metan = 0;
	return put_chunk(sw, T_HEA2, p, len, 1, err);
}

int
pme_samplewriter_close(struct pme_samplewriter *sw,
    const struct pme_sample_close *c, struct pme_error *err)
{
	static const struct pme_sample_close none;
	uint8_t buf[CLOS_LEN], *p;
	int rc = -1;

	if (sw == NULL)
		return pme_seterr(err, PME_EINVAL,
		    "pme_samplewriter_close: no writer");
	if (c == NULL)
		c = &none;
	if (pme_samplewriter_flush(sw, err) == -1)
		goto out;
	p = put_u64le(buf, c->end);
	p = put_u64le(p, sw->total);
	p = put_u64le(p, c->lost);
	p = put_u32le(p, (uint32_t)c->status);
	put_u32le(p, c->threads);
	if (put_chunk(sw, T_CLOS, buf, sizeof(buf), 0, err) == -1)
		goto out;
	rc = pme_writer_commit(sw->w, err);
	sw->w = NULL;
out:
	pme_samplewriter_abort(sw);
	return rc;
}

static void
sw_free(struct pme_samplewriter *sw)
{
	free(sw->off);
	free(sw->chains);
	free(sw->mem);
	free(sw->path);
	free(sw);
}

void
pme_samplewriter_abort(struct pme_samplewriter *sw)
{
	if (sw == NULL)
		return;
	pme_writer_abort(sw->w);
	sw_free(sw);
}

void
pme_samplewriter_discard(struct pme_samplewriter *sw)
{
	if (sw == NULL)
		return;
	pme_writer_discard(sw->w);
	sw_free(sw);
}

const char *
pme_samplewriter_tmpname(const struct pme_samplewriter *sw, int *isnew)
{
	return pme_writer_tmpname(sw == NULL ? NULL : sw->w, isnew);
}

/* ------------------------------------------------------------- reader */

/* The most arguments a header's command line has: each costs the kernel's
 * 6 MiB limit on a command line 9 bytes at least, so fewer than 700000. */

struct tidr {
	uint32_t	 pid, tid;
	uint64_t	 pc, time;
};

/* A process's stack nodes, from its HEAP chunks: [1..n]; and its live
 * blocks' numbers as the recorder gives them (pme(5)): live[1..next],
 * those given back in freed[0..nfreed), the last the next given.  From
 * HEA2 chunks, its last events for REPEATs to replay, tok[k % WINDOW]
 * for k < ntok, and the numbers of its live blocks by their
 * allocations' serials, serial the last's. */
struct hproc {
	uint32_t	 pid;
	struct hnode {
		uint32_t parent;
		uint64_t ip;
	}		*node;
	size_t		 n, cap;
	uint8_t		*live;
	size_t		 next, caplive;
	uint32_t	*freed;
	size_t		 nfreed, capfreed;
	struct htok {
		uint8_t	 tag, fn;
		uint32_t stack;
		uint64_t v;	/* ALLOC: size; FREE: age as coded */
	}		*tok;
	uint64_t	 ntok, serial;
	uint64_t	 lastage;	/* of the last release of a block */
	struct hserial {
		uint64_t serial;	/* 0: an empty slot */
		uint32_t block;
	}		*bys;		/* open addressing */
	size_t		 nbys, capbys;
};

struct rd {
	const char	*name;
	const struct pme_sample_visitor *v;
	int		 nosamples;	/* SMPL and SMPX chunks passed over */
	const struct pme_heap_visitor *hv;
	struct hproc	*hp;		/* the run's processes with stacks */
	size_t		 nhp, caphp;
	uint32_t	 ev_allocs, ev_bytes;	/* the run's heap events, or
					   UINT32_MAX */
	uint64_t	 hframes[FRAMES_MAX];
	void		*arg;
	struct pme_error *err;
	uint64_t	 off;		/* of the chunk being decoded */
	const char	*tag;
	struct pme_sample *s;
	size_t		 scap;
	uint64_t	*fr;
	size_t		 fcap;
	struct tidr	*t;
	size_t		 tcap;
	char		*argbuf;	/* the header's argv and strings */
	int		 header, closed;
	int		 hasboot;	/* a BOOT chunk for the next header */
	char		 boot[PME_BOOT_MAX + 1];
	struct pme_sample_event *ev;	/* an EVTS chunk's, for the next
					   header (its strings after it) */
	uint32_t	 nev;		/* in ev, 0 when none */
	uint32_t	 runev;		/* the run's events, at least 1 */
	uint64_t	 samples;
	char		 str[STR_MAX + 1];
	int		(*offcpu)(void *, const struct pme_offcpu *);
	int		(*io)(void *, const struct pme_io *);
	const uint8_t	**chain;	/* an OFF2 chunk's chains */
	size_t		 chcap;
};

/* A cursor over a payload: the first failed get sets bad, and every get
 * after it returns zero, so a decoder checks bad once per record. */
struct dc {
	const uint8_t	*p, *end;
	int		 bad;
};

static uint64_t
dc_uv(struct dc *d)
{
	uint64_t v;

	if ((d->p = pme_uv_get(d->p, d->end, &v)) == NULL) {
		d->p = d->end;
		d->bad = 1;
		return 0;
	}
	return v;
}

static uint32_t
dc_u32v(struct dc *d)
{
	uint64_t v = dc_uv(d);

	if (v > UINT32_MAX)
		d->bad = 1;
	return (uint32_t)v;
}

static uint64_t
dc_fixed(struct dc *d, int bytes)
{
	uint64_t v = 0;
	int i;

	if (d->end - d->p < bytes) {
		d->p = d->end;
		d->bad = 1;
		return 0;
	}
	for (i = 0; i < bytes; i++)
		v |= (uint64_t)d->p[i] << 8 * i;
	d->p += bytes;
	return v;
}

/* A string of at most max bytes, without NUL; its bytes, or NULL. */
static const uint8_t *
dc_bytes(struct dc *d, size_t max, size_t *len, int text)
{
	uint64_t n = dc_uv(d);
	const uint8_t *s = d->p;

	if (d->bad || n > max || n > (uint64_t)(d->end - d->p) ||
	    (text && n > 0 && memchr(s, '\0', (size_t)n) != NULL)) {
		d->bad = 1;
		d->p = d->end;
		*len = 0;
		return NULL;
	}
	d->p += n;
	*len = (size_t)n;
	return s;
}

/* A string copied into rd->str, NUL-terminated. */
static const char *
dc_str(struct dc *d, struct rd *rd)
{
	const uint8_t *s;
	size_t len;

	if ((s = dc_bytes(d, STR_MAX, &len, 1)) == NULL)
		return NULL;
	memcpy(rd->str, s, len);
	rd->str[len] = '\0';
	return rd->str;
}

static int
derr(struct rd *rd, const char *what)
{
	return pme_setfmt(rd->err, PME_EFORMAT, rd->name, rd->off,
	    "'%s' chunk: %s", rd->tag, what);
}

/* A visitor asked to stop. */
static int
stopped(struct rd *rd)
{
	if (rd->err != NULL && rd->err->code == PME_OK)
		pme_seterr(rd->err, PME_EINVAL, "'%s': reading stopped at "
		    "offset 0x%llx", rd->name, (unsigned long long)rd->off);
	return -1;
}

/* 1 if count records of at least min bytes each fit in the rest of d. */
static int
fits(const struct dc *d, uint64_t count, size_t min)
{
	return !d->bad && count <= (uint64_t)(d->end - d->p) / min;
}

static int
grow(void *pp, size_t *cap, uint64_t n, size_t size, struct rd *rd)
{
	void *p;
	size_t want;

	if (n <= *cap)
		return 0;
	want = *cap * 2 > n ? *cap * 2 : (size_t)n;
	if (want > SIZE_MAX / size ||
	    (p = realloc(*(void **)pp, want * size)) == NULL)
		return pme_setnomem(rd->err);
	*(void **)pp = p;
	*cap = want;
	return 0;
}

static void	heap_events(struct rd *);

static int
rd_header(struct rd *rd, struct dc *d)
{
	struct pme_sample_header h;
	const char **argv;
	const uint8_t *s;
	char *q;
	size_t len, i;
	uint64_t flag;

	memset(&h, 0, sizeof(h));
	h.method = (uint32_t)dc_fixed(d, 4);
	h.event = (uint32_t)dc_fixed(d, 4);
	h.period = dc_fixed(d, 8);
	h.start = dc_fixed(d, 8);
	h.start_mono = dc_fixed(d, 8);
	h.pid = (uint32_t)dc_fixed(d, 4);
	h.flags = (uint32_t)dc_fixed(d, 4);
	h.argc = dc_u32v(d);
	if (!fits(d, h.argc, 1) || h.argc > ARGC_MAX)
		return derr(rd, "bad argument count");
	/* argv, then each string and its NUL: within the payload's size. */
	len = (h.argc + 1) * sizeof(char *) + (size_t)(d->end - d->p) +
	    h.argc + 1;
	if ((rd->argbuf = malloc(len)) == NULL)
		return pme_setnomem(rd->err);
	argv = (const char **)(void *)rd->argbuf;
	q = rd->argbuf + (h.argc + 1) * sizeof(char *);
	for (i = 0; i < h.argc; i++) {
		if ((s = dc_bytes(d, PME_CHUNK_MAX, &len, 1)) == NULL)
			return derr(rd, "bad argument string");
		memcpy(q, s, len);
		q[len] = '\0';
		argv[i] = q;
		q += len + 1;
	}
	argv[i] = NULL;
	h.argv = argv;
	if ((flag = dc_uv(d)) > 1)
		return derr(rd, "bad note");
	if (flag) {
		if ((s = dc_bytes(d, PME_CHUNK_MAX, &len, 1)) == NULL)
			return derr(rd, "bad note");
		memcpy(q, s, len);
		q[len] = '\0';
		h.note = q;
	}
	if (d->bad || d->p != d->end)
		return derr(rd, "bad length");
	h.boot = rd->hasboot ? rd->boot : NULL;
	rd->hasboot = 0;
	h.nevents = rd->nev;
	h.events = rd->nev > 0 ? rd->ev : NULL;
	rd->runev = rd->nev > 0 ? rd->nev : 1;
	heap_events(rd);
	rd->nev = 0;
	if (rd->v->header != NULL && rd->v->header(rd->arg, &h) != 0)
		return stopped(rd);
	return 0;
}

/* The run's heap events; its processes' stacks forgotten. */
static void
heap_events(struct rd *rd)
{
	uint32_t i;

	rd->ev_allocs = rd->ev_bytes = UINT32_MAX;
	for (i = 0; i < rd->nev; i++)
		if (strcmp(rd->ev[i].name, EV_ALLOCS) == 0)
			rd->ev_allocs = i;
		else if (strcmp(rd->ev[i].name, EV_BYTES) == 0)
			rd->ev_bytes = i;
	while (rd->nhp > 0) {
		rd->nhp--;
		free(rd->hp[rd->nhp].node);
		free(rd->hp[rd->nhp].live);
		free(rd->hp[rd->nhp].freed);
		free(rd->hp[rd->nhp].tok);
		free(rd->hp[rd->nhp].bys);
	}
}

/* A boot id, kept for the header that follows. */
static int
rd_boot(struct rd *rd, struct dc *d)
{
	size_t len = (size_t)(d->end - d->p);

	if (!boot_ok((const char *)d->p, len))
		return derr(rd, "bad boot id");
	memcpy(rd->boot, d->p, len);
	rd->boot[len] = '\0';
	rd->hasboot = 1;
	return 0;
}

/* A string of the EVTS chunk into q, NUL-terminated; q past it. */
static char *
dc_strto(struct dc *d, char *q, const char **out)
{
	const uint8_t *s;
	size_t len;

	if ((s = dc_bytes(d, STR_MAX, &len, 1)) == NULL)
		return q;
	memcpy(q, s, len);
	q[len] = '\0';
	*out = q;
	return q + len + 1;
}

/* The run's events, kept for the header that follows. */
static int
rd_evts(struct rd *rd, struct dc *d)
{
	struct pme_sample_event *e;
	uint64_t n = dc_uv(d), i;
	char *q;

	if (!fits(d, n, 7) || n == 0 || n > PME_EVENTS_MAX)
		return derr(rd, "bad event count");
	free(rd->ev);
	rd->nev = 0;
	if ((rd->ev = malloc((size_t)n * sizeof(*e) + (size_t)(d->end -
	    d->p))) == NULL)
		return pme_setnomem(rd->err);
	q = (char *)(rd->ev + n);
	for (i = 0, e = rd->ev; i < n; i++, e++) {
		q = dc_strto(d, q, &e->name);
		q = dc_strto(d, q, &e->unit);
		e->kind = dc_u32v(d);
		e->type = dc_u32v(d);
		e->config = dc_uv(d);
		e->period = dc_uv(d);
		e->flags = dc_u32v(d);
		if (d->bad)
			return derr(rd, "bad event");
	}
	if (d->p != d->end)
		return derr(rd, "bytes after the last event");
	rd->nev = (uint32_t)n;
	return 0;
}

static int
rd_maps(struct rd *rd, struct dc *d)
{
	struct pme_mapping m;
	uint64_t n = dc_uv(d), i, len;
	size_t idlen, prevlen = 0;
	const uint8_t *rec, *prev = NULL;

	if (!fits(d, n, 9))
		return derr(rd, "bad record count");
	for (i = 0; i < n; i++) {
		rec = d->p;
		memset(&m, 0, sizeof(m));
		m.pid = dc_u32v(d);
		m.flags = dc_u32v(d);
		m.time = dc_uv(d);
		m.start = dc_uv(d);
		len = dc_uv(d);
		m.end = m.start + len;
		m.offset = dc_uv(d);
		m.vaddr = m.offset + pme_unzig(dc_uv(d));
		if (d->bad || len == 0 || m.end < m.start)
			return derr(rd, "bad mapping");
		m.path = dc_str(d, rd);
		m.buildid = dc_bytes(d, ID_MAX, &idlen, 0);
		m.buildid_len = (uint32_t)idlen;
		if (d->bad)
			return derr(rd, "bad mapping path or build-id");
		if (idlen == 0)
			m.buildid = NULL;
		/* A record the same, byte for byte, as the one before it is
		 * that mapping again: passed on once, so that what a reader
		 * does per mapping is bounded by the mappings the chunk
		 * holds, not by its records (a crafted chunk of 184,364
		 * copies of one cost pmehisto tens of seconds). */
		if (prev != NULL && (size_t)(d->p - rec) == prevlen &&
		    memcmp(rec, prev, prevlen) == 0)
			continue;
		prev = rec;
		prevlen = (size_t)(d->p - rec);
		if (rd->v->mapping != NULL && rd->v->mapping(rd->arg, &m) != 0)
			return stopped(rd);
	}
	if (d->p != d->end)
		return derr(rd, "bytes after the last record");
	return 0;
}

/* Process pid's stacks, made if new; NULL when out of memory. */
static struct hproc *
hproc_of(struct rd *rd, uint32_t pid)
{
	size_t i;

	for (i = 0; i < rd->nhp; i++)
		if (rd->hp[i].pid == pid)
			return &rd->hp[i];
	if (grow(&rd->hp, &rd->caphp, rd->nhp + 1, sizeof(*rd->hp), rd) == -1)
		return NULL;
	memset(&rd->hp[rd->nhp], 0, sizeof(*rd->hp));
	rd->hp[rd->nhp].pid = pid;
	return &rd->hp[rd->nhp++];
}

/* An exec: the new image's stacks are its own. */
static void
heap_forget(struct rd *rd, uint32_t pid)
{
	size_t i;

	for (i = 0; i < rd->nhp; i++)
		if (rd->hp[i].pid == pid) {
			rd->hp[i].n = 0;
			rd->hp[i].next = rd->hp[i].nfreed = 0;
			rd->hp[i].ntok = rd->hp[i].serial = 0;
			rd->hp[i].lastage = 0;
			rd->hp[i].nbys = 0;
			if (rd->hp[i].bys != NULL)
				memset(rd->hp[i].bys, 0, rd->hp[i].capbys *
				    sizeof(*rd->hp[i].bys));
		}
}

static int
rd_thrd(struct rd *rd, struct dc *d)
{
	struct pme_thread t;
	uint64_t n = dc_uv(d), i;

	if (!fits(d, n, 4))
		return derr(rd, "bad record count");
	for (i = 0; i < n; i++) {
		memset(&t, 0, sizeof(t));
		t.kind = dc_u32v(d);
		t.pid = dc_u32v(d);
		t.tid = dc_u32v(d);
		t.time = dc_uv(d);
		if (t.kind == PME_THREAD_FORK) {
			t.ppid = dc_u32v(d);
			t.ptid = dc_u32v(d);
		} else if (t.kind == PME_THREAD_COMM ||
		    t.kind == PME_THREAD_EXEC)
			t.name = dc_str(d, rd);
		else if (t.kind != PME_THREAD_EXIT)
			return derr(rd, "bad thread record kind");
		if (d->bad)
			return derr(rd, "bad thread record");
		if (t.kind == PME_THREAD_EXEC)
			heap_forget(rd, t.pid);
		if (rd->v->thread != NULL && rd->v->thread(rd->arg, &t) != 0)
			return stopped(rd);
	}
	if (d->p != d->end)
		return derr(rd, "bytes after the last record");
	return 0;
}

/*
 * A varint with ten bytes or more left, so no bounds check per byte: the
 * decoder's fast path.  NULL if it does not fit in 64 bits.
 */
static inline const uint8_t *
get_uv10(const uint8_t *p, uint64_t *v)
{
	uint64_t b, x;
	unsigned sh;

	if ((b = *p++) < 0x80) {
		*v = b;
		return p;
	}
	x = b & 0x7f;
	if ((b = *p++) < 0x80) {
		*v = x | b << 7;
		return p;
	}
	x |= (b & 0x7f) << 7;
	for (sh = 14; sh < 63; sh += 7) {
		b = *p++;
		x |= (b & 0x7f) << sh;
		if (b < 0x80) {
			*v = x;
			return p;
		}
	}
	if ((b = *p++) > 1)
		return NULL;
	*v = x | b << 63;
	return p;
}

#define GET(v) do { \
	if (end - p >= VARINT_MAX) { \
		if ((p = get_uv10(p, &(v))) == NULL) \
			goto bad; \
	} else if ((p = pme_uv_get(p, end, &(v))) == NULL) \
		goto bad; \
} while (0)

/*
 * An SMPL chunk is decoded in batches of at most BATCH samples, passed to
 * the visitor in runs of at most BATCH_FRAMES frames: what a chunk costs
 * the reader is bounded whatever it holds.  A chunk of the default 64 KiB
 * buffer is one batch, its columns decoded one after the other; a bigger
 * one has the start of each column found first.
 */
#define BATCH		32768
#define BATCH_FRAMES	65536

/* The columns of an SMPL chunk being decoded. */
struct smpl {
	const uint8_t	*col[NCOL];	/* each one's next value, once found */
	const uint8_t	*next;		/* else: where the next one starts */
	int		 found;
	unsigned	 cols;		/* of the first NLAZY, those stored */
	const uint8_t	*end;
	uint32_t	 ntids;
	uint64_t	 step;
	uint64_t	 lz[NLAZY];
};

/* Past n varints from p: where the next column starts, or NULL. */
static const uint8_t *
skip_uv(const uint8_t *p, const uint8_t *end, uint64_t n)
{
	for (; n > 0; p++) {
		if (p == end)
			return NULL;
		if (*p < 0x80)
			n--;
	}
	return p;
}

/* Finds where each stored column starts; the frames come last. */
static int
smpl_find(struct smpl *m, const uint8_t *p, uint64_t n)
{
	int i, c;

	for (i = 0; i < NCOL; i++) {
		c = col_order[i];
		if (c < NLAZY && !(m->cols & 1u << c))
			continue;
		m->col[c] = p;
		if (c != C_FRAMES && (p = skip_uv(p, m->end, n)) == NULL)
			return -1;
	}
	m->found = 1;
	return 0;
}

/* The cursor of column c, and where it is left. */
#define COL_START(c)	(p = m->found ? m->col[c] : m->next)
#define COL_END(c)	(m->col[c] = m->next = p)

/* A column of n u32 varints into a field of each sample. */
#define COL_U32(c, field, lim, adj) do { \
	for (COL_START(c), i = 0; i < n; i++) { \
		GET(v); \
		if (v > (lim)) \
			goto bad; \
		s[i].field = (uint32_t)v adj; \
	} \
	COL_END(c); \
} while (0)

/*
 * The next n samples into rd->s, each column in one tight loop: the
 * thread indexes (kept in tid for a while), the pcs, then the times,
 * which pass fills every field from the constants; then the columns
 * stored in place of those constants.  *nfr gets their frames.
 */
static int
rd_batch(struct rd *rd, struct smpl *m, size_t n, uint64_t *nfr)
{
	struct pme_sample *s = rd->s;
	struct tidr *t = rd->t;
	const uint8_t *p, *end = m->end;
	uint64_t v, pc, time, step = m->step, weight = m->lz[C_WEIGHT];
	uint32_t cpu = (uint32_t)m->lz[C_CPU] - 1, flags = (uint32_t)
	    m->lz[C_FLAGS], nf = (uint32_t)m->lz[C_NFR], k, ev = (uint32_t)
	    m->lz[C_EVENT];
	size_t i;

	if (m->cols & 1u << C_TIDX)
		COL_U32(C_TIDX, tid, m->ntids - 1, + 0);
	else if (m->ntids > 1)
		for (i = 0; i < n; i++)
			s[i].tid = (uint32_t)m->lz[C_TIDX];
	if (m->ntids == 1) {	/* one thread: its state in registers */
		for (COL_START(C_PC), pc = t[0].pc, i = 0; i < n; i++) {
			GET(v);
			s[i].pc = pc += pme_unzig(v);
		}
		COL_END(C_PC);
		t[0].pc = pc;
		for (COL_START(C_TIME), time = t[0].time, i = 0; i < n; i++) {
			GET(v);
			s[i].time = time += step + pme_unzig(v);
			s[i].weight = weight;
			s[i].pid = t[0].pid;
			s[i].tid = t[0].tid;
			s[i].cpu = cpu;
			s[i].flags = flags;
			s[i].event = ev;
			s[i].nframes = nf;
			s[i].frames = NULL;
		}
		COL_END(C_TIME);
		t[0].time = time;
	} else {
		for (COL_START(C_PC), i = 0; i < n; i++) {
			GET(v);
			k = s[i].tid;
			s[i].pc = t[k].pc += pme_unzig(v);
		}
		COL_END(C_PC);
		for (COL_START(C_TIME), i = 0; i < n; i++) {
			GET(v);
			k = s[i].tid;
			s[i].time = t[k].time += step + pme_unzig(v);
			s[i].weight = weight;
			s[i].pid = t[k].pid;
			s[i].tid = t[k].tid;
			s[i].cpu = cpu;
			s[i].flags = flags;
			s[i].event = ev;
			s[i].nframes = nf;
			s[i].frames = NULL;
		}
		COL_END(C_TIME);
	}
	if (m->cols & 1u << C_WEIGHT) {
		for (COL_START(C_WEIGHT), i = 0; i < n; i++) {
			GET(v);
			s[i].weight = v;
		}
		COL_END(C_WEIGHT);
	}
	if (m->cols & 1u << C_CPU)
		COL_U32(C_CPU, cpu, UINT32_MAX, - 1);
	if (m->cols & 1u << C_FLAGS)
		COL_U32(C_FLAGS, flags, UINT32_MAX, + 0);
	/* In col_order's order: a chunk of BATCH samples or fewer is read
	 * column after column, unlocated (smpl_find()). */
	if (m->cols & 1u << C_NFR) {
		COL_U32(C_NFR, nframes, FRAMES_MAX, + 0);
		for (*nfr = 0, i = 0; i < n; i++)
			*nfr += s[i].nframes;
	} else
		*nfr = (uint64_t)nf * n;
	if (m->cols & 1u << C_EVENT)
		COL_U32(C_EVENT, event, rd->runev - 1, + 0);
	if (!m->found)
		m->col[C_FRAMES] = p;
	return 0;
bad:
	return derr(rd, "bad sample columns");
}

/*
 * The frames of samples s[0..n), nfr of them, from the frames column:
 * each frame takes a byte at least, so nfr is checked before it sizes
 * the array.
 */
static int
rd_frames(struct rd *rd, struct smpl *m, struct pme_sample *s, size_t n,
    uint64_t nfr)
{
	const uint8_t *p = m->col[C_FRAMES], *end = m->end;
	uint64_t v, pc, j;
	size_t i;
	uint32_t k;

	if (nfr > (uint64_t)(end - p))
		goto bad;
	if (grow(&rd->fr, &rd->fcap, nfr, sizeof(uint64_t), rd) == -1)
		return -1;
	for (j = 0, i = 0; i < n; i++) {
		s[i].frames = s[i].nframes > 0 ? rd->fr + j : NULL;
		for (pc = s[i].pc, k = 0; k < s[i].nframes; k++) {
			GET(v);
			rd->fr[j++] = pc += pme_unzig(v);
		}
	}
	m->col[C_FRAMES] = p;
	return 0;
bad:
	return derr(rd, "bad sample columns");
}

/* Passes s[0..n) to the visitor, in runs of at most BATCH_FRAMES frames
 * (a sample has fewer than that). */
static int
rd_pass(struct rd *rd, struct smpl *m, size_t n, uint64_t nfr)
{
	struct pme_sample *s = rd->s;
	size_t i, j;
	uint64_t f;

	for (i = 0; i < n; i = j) {
		f = nfr;
		j = n;
		if (nfr > BATCH_FRAMES)
			for (f = 0, j = i; j < n &&
			    f + s[j].nframes <= BATCH_FRAMES; j++)
				f += s[j].nframes;
		if (f > 0 && rd_frames(rd, m, s + i, j - i, f) == -1)
			return -1;
		nfr -= f;
		rd->samples += j - i;
		if (rd->v->samples != NULL &&
		    rd->v->samples(rd->arg, s + i, j - i) != 0)
			return stopped(rd);
	}
	return 0;
}

/* The samples of an SMPL chunk, n of them, batch by batch. */
static int
rd_columns(struct rd *rd, struct smpl *m, const uint8_t *p, size_t n)
{
	size_t done, k;
	uint64_t nfr = 0;

	m->found = 0;
	m->next = p;
	if (n > BATCH && smpl_find(m, p, n) == -1)
		return derr(rd, "bad sample columns");
	if (grow(&rd->s, &rd->scap, n < BATCH ? n : BATCH, sizeof(*rd->s),
	    rd) == -1)
		return -1;
	for (done = 0; done < n; done += k) {
		k = n - done < BATCH ? n - done : BATCH;
		if (rd_batch(rd, m, k, &nfr) == -1 ||
		    rd_pass(rd, m, k, nfr) == -1)
			return -1;
	}
	if (m->col[C_FRAMES] != m->end)
		return derr(rd, "bad sample columns");
	return 0;
}

static int
rd_samples(struct rd *rd, struct dc *d, int nlazy)
{
	uint64_t n = dc_uv(d), ntids = dc_uv(d), pcb, tb, tid;
	struct smpl m;
	unsigned cols;
	uint32_t k;
	int c;

	if (!fits(d, n, 2) || !fits(d, ntids, 2) || ntids > TID_MAX ||
	    (n == 0 ? ntids != 0 : ntids == 0 || ntids > n))
		return derr(rd, "bad sample or thread count");
	if (grow(&rd->t, &rd->tcap, ntids, sizeof(*rd->t), rd) == -1)
		return -1;
	for (k = 0; k < ntids; k++) {
		rd->t[k].pid = dc_u32v(d);
		tid = rd->t[k].pid + pme_unzig(dc_uv(d));
		if (tid > UINT32_MAX)
			d->bad = 1;
		rd->t[k].tid = (uint32_t)tid;
	}
	m.step = dc_uv(d);
	pcb = dc_uv(d);
	tb = dc_uv(d);
	if ((cols = (unsigned)dc_uv(d)) >= 1u << nlazy)
		return derr(rd, "bad column flags");
	m.lz[C_EVENT] = 0;
	for (c = 0; c < nlazy; c++)
		m.lz[c] = cols & 1u << c ? 0 : dc_uv(d);
	if (d->bad || (n > 0 && m.lz[C_TIDX] >= ntids) ||
	    m.lz[C_EVENT] >= rd->runev ||
	    m.lz[C_CPU] > UINT32_MAX || m.lz[C_FLAGS] > UINT32_MAX ||
	    m.lz[C_NFR] > FRAMES_MAX)
		return derr(rd, "bad sample chunk header");
	if (n == 0)
		return d->p == d->end ? 0 : derr(rd, "bad length");
	for (k = 0; k < ntids; k++) {
		rd->t[k].pc = pcb;
		rd->t[k].time = tb;
	}
	m.ntids = (uint32_t)ntids;
	m.cols = cols;
	m.end = d->end;
	return rd_columns(rd, &m, d->p, (size_t)n);
}

static int
rd_smpl(struct rd *rd, struct dc *d)
{
	return rd_samples(rd, d, NLAZY_SMPL);
}

static int
rd_smpx(struct rd *rd, struct dc *d)
{
	return rd_samples(rd, d, NLAZY);
}

/* A stack node of process hp. */
static int
heap_node(struct rd *rd, struct hproc *hp, uint32_t parent, uint64_t ip)
{
	if (parent > hp->n || hp->n >= UINT32_MAX - 1)
		return derr(rd, "bad stack node");
	if (grow(&hp->node, &hp->cap, hp->n + 2, sizeof(*hp->node), rd) == -1)
		return -1;
	hp->n++;
	hp->node[hp->n].parent = parent;
	hp->node[hp->n].ip = ip;
	if (rd->hv != NULL && rd->hv->stack != NULL &&
	    rd->hv->stack(rd->arg, hp->pid, (uint32_t)hp->n, parent, ip) != 0)
		return stopped(rd);
	return 0;
}

/* An allocation as samples of the run's heap events: one counting it,
 * one its bytes, at its call site, its stack their call chain. */
static int
heap_samples(struct rd *rd, const struct hproc *hp,
    const struct pme_heap_event *e)
{
	struct pme_sample s[2];
	uint32_t n = 0, id = e->stack;
	int k = 0;

	if (rd->v->samples == NULL ||
	    (rd->ev_allocs == UINT32_MAX && rd->ev_bytes == UINT32_MAX))
		return 0;
	for (; id != 0 && n < FRAMES_MAX; id = hp->node[id].parent)
		rd->hframes[n++] = hp->node[id].ip;
	memset(s, 0, sizeof(s));
	s[0].pc = n > 0 ? rd->hframes[0] - 1 : 0;
	s[0].time = e->time;
	s[0].pid = e->pid;
	s[0].tid = e->tid;
	s[0].cpu = UINT32_MAX;
	s[0].nframes = n > 0 ? n - 1 : 0;
	s[0].frames = n > 1 ? rd->hframes + 1 : NULL;
	s[1] = s[0];
	if (rd->ev_allocs != UINT32_MAX) {
		s[k].weight = 1;
		s[k++].event = rd->ev_allocs;
	}
	if (rd->ev_bytes != UINT32_MAX) {
		s[k].weight = e->size;
		s[k++].event = rd->ev_bytes;
	}
	rd->samples += (uint64_t)k;
	if (rd->v->samples(rd->arg, s, (size_t)k) != 0)
		return stopped(rd);
	return 0;
}

/* The number of the block e allocates, as the recorder gave it: the
 * last given back, else a new one; or the release of its number. */
static int
heap_number(struct rd *rd, struct hproc *hp, struct pme_heap_event *e)
{
	size_t b = (size_t)e->block;

	if (e->kind == PME_HEAPREC_FREE) {
		if (b == 0)
			return 0;	/* not a block of the record's */
		if (b > hp->next || !hp->live[b])
			return derr(rd, "bad heap record: no such block");
		if (grow(&hp->freed, &hp->capfreed, hp->nfreed + 1,
		    sizeof(*hp->freed), rd) == -1)
			return -1;
		hp->live[b] = 0;
		hp->freed[hp->nfreed++] = (uint32_t)b;
		return 0;
	}
	if (hp->nfreed > 0)
		b = hp->freed[--hp->nfreed];
	else {
		if (hp->next >= UINT32_MAX / 2 || grow(&hp->live,
		    &hp->caplive, hp->next + 2, 1, rd) == -1)
			return hp->next >= UINT32_MAX / 2 ? derr(rd,
			    "too many blocks") : -1;
		b = ++hp->next;
	}
	hp->live[b] = 1;
	e->block = b;
	return 0;
}

/* Event e, its block as HEAP numbers it, checked and passed on. */
static int
heap_pass(struct rd *rd, struct hproc *hp, struct pme_heap_event *e)
{
	if (e->fn == 0 || e->fn > PME_HEAP_FNMAX || e->stack > hp->n ||
	    e->tid == 0)
		return derr(rd, "bad heap record");
	if (e->kind == PME_HEAPREC_FREE_PARENT) {
		e->kind = PME_HEAPREC_FREE;
		e->block |= PME_HEAP_PARENT;
	} else if (heap_number(rd, hp, e) == -1)
		return -1;
	if (rd->hv != NULL && rd->hv->event != NULL &&
	    rd->hv->event(rd->arg, e) != 0)
		return stopped(rd);
	return e->kind == PME_HEAPREC_ALLOC ? heap_samples(rd, hp, e) : 0;
}

/* An allocation or a release of the chunk, its fields after the tag. */
static int
heap_event(struct rd *rd, struct dc *d, struct hproc *hp,
    struct pme_heap_event *e)
{
	e->fn = dc_u32v(d);
	e->size = 0;
	e->stack = 0;
	e->block = 0;
	if (e->kind == PME_HEAPREC_ALLOC) {
		e->size = dc_uv(d);
		e->stack = dc_u32v(d);
	} else
		e->block = dc_u32v(d);
	if (d->bad)
		return derr(rd, "bad heap record");
	return heap_pass(rd, hp, e);
}

/* ------------------------------------------------------------- HEA2 */

static size_t
bys_slot(uint64_t serial, size_t cap)
{
	return (size_t)(serial * 0x9e3779b97f4a7c15ull >> 32) & (cap - 1);
}

/* Block number b of the allocation of serial s, among the live. */
static int
bys_put(struct rd *rd, struct hproc *hp, uint64_t s, uint32_t b)
{
	struct hserial *t = hp->bys;
	size_t cap = hp->capbys, i, k;

	if ((hp->nbys + 1) * 2 > cap) {
		cap = cap ? cap * 2 : 1024;
		if ((t = calloc(cap, sizeof(*t))) == NULL)
			return pme_setnomem(rd->err);
		for (i = 0; i < hp->capbys; i++) {
			if (hp->bys[i].serial == 0)
				continue;
			for (k = bys_slot(hp->bys[i].serial, cap);
			    t[k].serial != 0; k = (k + 1) & (cap - 1))
				continue;
			t[k] = hp->bys[i];
		}
		free(hp->bys);
		hp->bys = t;
		hp->capbys = cap;
	}
	for (k = bys_slot(s, cap); t[k].serial != 0; k = (k + 1) & (cap - 1))
		continue;
	t[k].serial = s;
	t[k].block = b;
	hp->nbys++;
	return 0;
}

/* The number of the live block of serial s, taken out; 0: none. */
static uint32_t
bys_take(struct hproc *hp, uint64_t s)
{
	size_t i, cap = hp->capbys;
	uint32_t b;

	if (cap == 0)
		return 0;
	for (i = bys_slot(s, cap); hp->bys[i].serial != s; i = (i + 1) &
	    (cap - 1))
		if (hp->bys[i].serial == 0)
			return 0;
	b = hp->bys[i].block;
	hp->nbys--;
	pme_probe_remove(hp->bys, sizeof(*hp->bys), offsetof(struct hserial,
	    serial), cap, i, bys_slot);
	return b;
}

/* HEA2's event t, at e's pid, thread and time: kept for REPEATs, its
 * block named, passed on. */
static int
heap_tok(struct rd *rd, struct hproc *hp, struct pme_heap_event *e,
    struct htok t)
{
	uint64_t s, age;

	if (hp->tok == NULL && (hp->tok = calloc(PME_HEAP_WINDOW,
	    sizeof(*hp->tok))) == NULL)
		return pme_setnomem(rd->err);
	hp->tok[hp->ntok++ & (PME_HEAP_WINDOW - 1)] = t;
	e->kind = t.tag;
	e->fn = t.fn;
	e->size = e->block = 0;
	e->stack = 0;
	if (t.tag == PME_HEAPREC_ALLOC) {
		e->size = t.v;
		e->stack = t.stack;
	} else if (t.v != 0) {
		/* The age less the last's, zigzagged, plus 1. */
		age = hp->lastage + pme_unzig(t.v - 1);
		s = hp->serial - age + 1;
		if (age == 0 || age > hp->serial ||
		    (e->block = bys_take(hp, s)) == 0)
			return derr(rd, "bad heap record: no such block");
		hp->lastage = age;
	}
	if (heap_pass(rd, hp, e) == -1)
		return -1;
	if (t.tag != PME_HEAPREC_ALLOC)
		return 0;
	return bys_put(rd, hp, ++hp->serial, (uint32_t)e->block);
}

/* A REPEAT of HEA2: its events replayed; *last the chunk's last dist,
 * *events the events the chunk has had. */
static int
heap_repeat(struct rd *rd, struct dc *d, struct hproc *hp,
    struct pme_heap_event *e, uint64_t *last, uint64_t *events)
{
	uint64_t dist = dc_uv(d), len = dc_uv(d), i;

	if (dist == 0)
		dist = *last;
	if (d->bad || dist == 0 || dist >= PME_HEAP_WINDOW ||
	    dist > hp->ntok || len == 0 ||
	    len > PME_HEAP_CHUNK_EVENTS - *events)
		return derr(rd, "bad heap record: bad repeat");
	*last = dist;
	*events += len;
	for (i = 0; i < len; i++)
		if (heap_tok(rd, hp, e, hp->tok[(hp->ntok - dist) &
		    (PME_HEAP_WINDOW - 1)]) == -1)
			return -1;
	return 0;
}

/* A whole ALLOC or FREE of HEA2, its fields after the tag. */
static int
heap_lit(struct rd *rd, struct dc *d, struct hproc *hp,
    struct pme_heap_event *e, uint32_t tag, uint64_t *events)
{
	struct htok t;
	uint32_t fn = dc_u32v(d);

	memset(&t, 0, sizeof(t));
	t.tag = (uint8_t)tag;
	t.fn = (uint8_t)fn;
	t.v = dc_uv(d);
	if (tag == PME_HEAPREC_ALLOC)
		t.stack = dc_u32v(d);
	if (d->bad || fn == 0 || fn > PME_HEAP_FNMAX ||
	    *events >= PME_HEAP_CHUNK_EVENTS)
		return derr(rd, "bad heap record");
	++*events;
	return heap_tok(rd, hp, e, t);
}

/*
 * A HEAP or HEA2 chunk (version 1 or 2): its records in turn; the
 * REPEATs and ages of HEA2 and the events that REPEATs replay are its
 * process image's, from chunk to chunk.
 */
static int
rd_heapv(struct rd *rd, struct dc *d, int version)
{
	struct pme_heap_event e;
	struct hproc *hp;
	uint64_t ip = 0, tag, last = 0, events = 0;
	uint32_t parent;

	memset(&e, 0, sizeof(e));
	e.pid = dc_u32v(d);
	e.time = dc_uv(d);
	if (d->bad)
		return derr(rd, "bad heap chunk header");
	if ((hp = hproc_of(rd, e.pid)) == NULL)
		return -1;
	while (d->p < d->end) {
		switch (tag = dc_uv(d)) {
		case PME_HEAPREC_STACK:
			parent = dc_u32v(d);
			ip += pme_unzig(dc_uv(d));
			if (d->bad)
				return derr(rd, "bad stack node");
			if (heap_node(rd, hp, parent, ip) == -1)
				return -1;
			break;
		case PME_HEAPREC_THREAD:
			if ((e.tid = dc_u32v(d)) == 0 || d->bad)
				return derr(rd, "bad heap thread");
			break;
		case PME_HEAPREC_TIME:
			e.time += dc_uv(d);
			break;
		case PME_HEAPREC_ALLOC:
		case PME_HEAPREC_FREE:
			if (version == 2) {
				if (heap_lit(rd, d, hp, &e, (uint32_t)tag,
				    &events) == -1)
					return -1;
				break;
			}
			/* FALLTHROUGH */
		case PME_HEAPREC_FREE_PARENT:
			e.kind = (uint32_t)tag;
			if (heap_event(rd, d, hp, &e) == -1)
				return -1;
			break;
		case PME_HEAPREC_REPEAT:
			if (version == 2) {
				if (heap_repeat(rd, d, hp, &e, &last,
				    &events) == -1)
					return -1;
				break;
			}
			/* FALLTHROUGH */
		default:
			return derr(rd, "bad heap record");
		}
	}
	return 0;
}

static int
rd_heap(struct rd *rd, struct dc *d)
{
	return rd_heapv(rd, d, 1);
}

static int
rd_hea2(struct rd *rd, struct dc *d)
{
	return rd_heapv(rd, d, 2);
}

/* An IOCL chunk: its I/O records (pme(5)). */
static int
rd_iocl(struct rd *rd, struct dc *d)
{
	struct pme_io io;
	uint64_t n = dc_uv(d), i, j, prev;
	const char *path;

	if (!fits(d, n, 10))
		return derr(rd, "bad record count");
	for (i = 0; i < n; i++) {
		memset(&io, 0, sizeof(io));
		io.pid = dc_u32v(d);
		io.tid = (uint32_t)(io.pid + pme_unzig(dc_uv(d)));
		io.call = dc_u32v(d);
		io.flags = dc_u32v(d);
		io.fd = (int32_t)pme_unzig(dc_uv(d));
		io.ret = (int64_t)pme_unzig(dc_uv(d));
		io.start = dc_uv(d);
		io.duration = dc_uv(d);
		io.pc = prev = dc_uv(d);
		io.nframes = dc_u32v(d);
		if (d->bad || io.nframes > FRAMES_MAX || !fits(d, io.nframes, 1))
			return derr(rd, "bad I/O record");
		if (grow(&rd->fr, &rd->fcap, io.nframes, sizeof(*rd->fr),
		    rd) == -1)
			return -1;
		for (j = 0; j < io.nframes; j++)
			rd->fr[j] = prev += pme_unzig(dc_uv(d));
		io.frames = rd->fr;
		path = dc_str(d, rd);
		io.path = path != NULL && path[0] != '\0' ? path : NULL;
		if (d->bad || pme_io_name(io.call) == NULL)
			return derr(rd, "bad I/O record");
		if (rd->io != NULL && rd->io(rd->arg, &io) != 0)
			return stopped(rd);
	}
	if (d->p != d->end)
		return derr(rd, "bytes after the last record");
	return 0;
}

static int
rd_close(struct rd *rd, struct dc *d)
{
	struct pme_sample_close c;

	if (d->end - d->p != CLOS_LEN)
		return derr(rd, "bad length");
	c.end = dc_fixed(d, 8);
	c.samples = dc_fixed(d, 8);
	c.lost = dc_fixed(d, 8);
	c.status = (int32_t)(uint32_t)dc_fixed(d, 4);
	c.threads = (uint32_t)dc_fixed(d, 4);
	rd->closed = 1;
	if (rd->v->close != NULL && rd->v->close(rd->arg, &c) != 0)
		return stopped(rd);
	return 0;
}

/* An interval's chain (pc, nframes, frames) at d into o and rd->fr. */
static int
rd_chain(struct rd *rd, struct dc *d, struct pme_offcpu *o)
{
	uint64_t k, prev;

	o->pc = dc_uv(d);
	o->nframes = dc_u32v(d);
	if (d->bad || o->nframes > FRAMES_MAX)
		return derr(rd, "bad off-CPU record");
	if (grow(&rd->fr, &rd->fcap, o->nframes + 1, sizeof(*rd->fr),
	    rd) == -1)
		return -1;
	for (prev = o->pc, k = 0; k < o->nframes; k++)
		prev = rd->fr[k] = prev + pme_unzig(dc_uv(d));
	if (d->bad)
		return derr(rd, "bad off-CPU record");
	o->frames = rd->fr;
	return 0;
}

/* An OFFC or OFF2 chunk's intervals, each passed to the visitor at
 * once.  An OFF2 chain that refers to an earlier one is decoded again
 * where that one was written out. */
static int
rd_offcpu(struct rd *rd, struct dc *d, int two)
{
	struct pme_offcpu o;
	uint64_t n = dc_uv(d), i, w, c = 0, nch = 0, t = 0, pid = 0, has;
	struct dc at;

	if (!fits(d, n, two ? 6 : 13))
		return derr(rd, "bad record count");
	for (i = 0; i < n; i++) {
		memset(&o, 0, sizeof(o));
		pid = two ? pid + pme_unzig(dc_uv(d)) : dc_uv(d);
		o.pid = (uint32_t)pid;
		o.tid = (uint32_t)(o.pid + pme_unzig(dc_uv(d)));
		o.start = t += pme_unzig(dc_uv(d));
		o.end = o.start + dc_uv(d);
		if (two) {
			has = dc_uv(d);
			o.kclass = (uint32_t)(has & 7);
			/* wake - start, or none: as OFFC's, 0 for none */
			w = has & OFF2_WAKE ? dc_uv(d) + 1 : 0;
			o.kstate = has & OFF2_KSTATE ? dc_u32v(d) : 0;
			o.waker = has & OFF2_WAKER ? dc_u32v(d) : 0;
			o.flags = has & OFF2_FLAGS ? dc_u32v(d) : 0;
			o.futex_op = has & OFF2_FUTEX_OP ? dc_u32v(d) : 0;
			o.object = has & OFF2_OBJECT ? dc_uv(d) : 0;
			c = dc_uv(d);
			if ((has & ~(uint64_t)(OFF2_HAS | 7)) != 0 ||
			    ((has & OFF2_WAKE) && w == 0))	/* 2^64 */
				d->bad = 1;
		} else {
			w = dc_uv(d);
			o.kclass = dc_u32v(d);
			o.kstate = dc_u32v(d);
			o.waker = dc_u32v(d);
			o.flags = dc_u32v(d);
			o.futex_op = dc_u32v(d);
			o.object = dc_uv(d);
		}
		if (d->bad || pid > UINT32_MAX || o.end < o.start ||
		    w > o.end - o.start + 1 || o.kclass >= PME_WC_MAX ||
		    c > nch)
			return derr(rd, "bad off-CPU record");
		o.wake = w == 0 ? 0 : o.start + w - 1;
		if (c == 0 && two) {
			/* the chunk's next chain: its records are fewer */
			if (grow(&rd->chain, &rd->chcap, nch + 1,
			    sizeof(*rd->chain), rd) == -1)
				return -1;
			rd->chain[nch++] = d->p;
		}
		at.p = c == 0 ? d->p : rd->chain[c - 1];
		at.end = d->end;
		at.bad = 0;
		if (rd_chain(rd, &at, &o) == -1)
			return -1;
		if (c == 0)
			d->p = at.p;
		if (rd->offcpu != NULL && rd->offcpu(rd->arg, &o) != 0)
			return stopped(rd);
	}
	if (d->p != d->end)
		return derr(rd, "bytes after the last record");
	return 0;
}

static int
rd_offc(struct rd *rd, struct dc *d)
{
	return rd_offcpu(rd, d, 0);
}

static int
rd_off2(struct rd *rd, struct dc *d)
{
	return rd_offcpu(rd, d, 1);
}

/* Whether a chunk of type belongs to the header after it: it may come
 * before the first and after a closing record. */
static int
before_header(uint32_t type)
{
	return type == T_BOOT || type == T_EVTS;
}

/* The most a chunk of each type holds: what the writer's buffers can. */
#define RECS_MAX	(BUF_MAX + 256)

static const struct rdkind {
	uint32_t	 type;
	const char	*tag;
	size_t		 max;
	int		(*fn)(struct rd *, struct dc *);
} rdkinds[] = {
	{ T_SHDR, "SHDR", SHDR_MAX, rd_header },
	{ T_MAPS, "MAPS", RECS_MAX, rd_maps },
	{ T_THRD, "THRD", RECS_MAX, rd_thrd },
	{ T_SMPL, "SMPL", RECS_MAX, rd_smpl },
	{ T_CLOS, "CLOS", CLOS_LEN, rd_close },
	{ T_BOOT, "BOOT", PME_BOOT_MAX, rd_boot },
	{ T_EVTS, "EVTS", EVTS_MAX, rd_evts },
	{ T_SMPX, "SMPX", RECS_MAX, rd_smpx },
	{ T_HEAP, "HEAP", HEAP_MAX, rd_heap },
	{ T_HEA2, "HEA2", HEAP_MAX, rd_hea2 },
	{ T_OFFC, "OFFC", RECS_MAX, rd_offc },
	{ T_OFF2, "OFF2", RECS_MAX, rd_off2 },
	{ T_IOCL, "IOCL", RECS_MAX, rd_iocl },
};
#define NRDKINDS (sizeof(rdkinds) / sizeof(rdkinds[0]))

/*
 * A chunk's place is checked before its payload is read, and the payload
 * is refused beyond what its type holds; a chunk of a type not known here
 * is passed over unread.  1 when read, 0 when the file ends, -1.
 */
static int
rd_chunk(struct rd *rd, struct pme_reader *r, struct pme_chunk *c)
{
	const struct rdkind *k;
	struct dc d;
	int rc;

	for (k = rdkinds; k < rdkinds + NRDKINDS; k++)
		if (k->type == c->type)
			break;
	if (k == rdkinds + NRDKINDS)
		return 1;	/* a later minor version's: skipped */
	if ((c->type == T_SMPL || c->type == T_SMPX) && rd->nosamples)
		return 1;	/* nobody to read them for: passed over */
	rd->off = c->offset;
	rd->tag = k->tag;
	if (c->type != T_SHDR && !before_header(c->type) && !rd->header)
		return derr(rd, "before the header");
	if (c->type != T_SHDR && !before_header(c->type) && rd->closed)
		return derr(rd, "after the closing record");
	if ((rc = pme_reader_payload(r, c, k->max, rd->err)) != 1)
		return rc;
	if (c->type == T_SHDR) {
		/* Another run: the one before ends here, closed or not. */
		rd->closed = 0;
		free(rd->argbuf);
		rd->argbuf = NULL;
	}
	if (!before_header(c->type))
		rd->header = 1;
	d.p = c->data;
	d.end = c->data + c->len;
	d.bad = 0;
	return k->fn(rd, &d) == -1 ? -1 : 1;
}

/*
 * A file without the header chunk holds no samples, whether it is
 * complete or was cut short before the header was written: an error, so
 * that no caller takes it for an empty run.
 */
static int
no_header(struct rd *rd, struct pme_reader *r)
{
	if (pme_reader_lost(r) == -1)
		return pme_setfmt(rd->err, PME_EFORMAT, rd->name,
		    pme_reader_offset(r), "no header chunk");
	return pme_setfmt(rd->err, PME_ETRUNC, rd->name, pme_reader_offset(r),
	    "cut short before its header chunk: it holds no samples");
}

static int
read_all(struct pme_reader *r, const struct pme_sample_visitor *v,
    const struct pme_heap_visitor *hv,
    int (*offcpu)(void *, const struct pme_offcpu *),
    int (*io)(void *, const struct pme_io *), void *arg,
    struct pme_sample_summary *sum, struct pme_error *err)
{
	static const struct pme_sample_visitor none;
	struct pme_chunk c;
	struct rd *rd;
	int rc;

	if ((rd = calloc(1, sizeof(*rd))) == NULL) {
		pme_reader_close(r);
		return pme_setnomem(err);
	}
	rd->name = pme_reader_name(r);
	rd->v = v != NULL ? v : &none;
	rd->hv = hv;
	rd->ev_allocs = rd->ev_bytes = UINT32_MAX;
	rd->arg = arg;
	rd->io = io;
	rd->err = err;
	rd->offcpu = offcpu;
	/* A visitor of the runs alone (no samples, heap, off-CPU or I/O
	 * records, no summary) has the sample chunks passed over unread:
	 * their samples counted nowhere, their checksums not checked. */
	rd->nosamples = rd->v->samples == NULL && hv == NULL &&
	    offcpu == NULL && io == NULL && sum == NULL;
	while ((rc = pme_reader_next(r, &c, err)) == 1)
		if ((rc = rd_chunk(rd, r, &c)) != 1)
			break;
	if (rc == 0 && !rd->header)
		rc = no_header(rd, r);
	if (rc == 0 && sum != NULL) {
		sum->lost_bytes = pme_reader_lost(r);
		sum->closed = rd->closed;
		sum->samples = rd->samples;
	}
	free(rd->s);
	free(rd->fr);
	free(rd->chain);
	free(rd->t);
	free(rd->argbuf);
	free(rd->ev);
	rd->nev = 0;
	heap_events(rd);
	free(rd->hp);
	free(rd);
	pme_reader_close(r);
	return rc;
}

/* The sample file at path through read_all(): its samples to v, its
 * heap, off-CPU and I/O records to hv, offcpu and io (each may be NULL). */
static int
read_path(const char *path, const struct pme_sample_visitor *v,
    const struct pme_heap_visitor *hv,
    int (*offcpu)(void *, const struct pme_offcpu *),
    int (*io)(void *, const struct pme_io *), void *arg,
    struct pme_sample_summary *sum, struct pme_error *err)
{
	struct pme_reader *r;

	if (err != NULL)
		err->code = PME_OK;
	if ((r = pme_reader_open(path, PME_KIND_SAMPLE, err)) == NULL)
		return -1;
	return read_all(r, v, hv, offcpu, io, arg, sum, err);
}

int
pme_samplefile_read(const char *path, const struct pme_sample_visitor *v,
    void *arg, struct pme_sample_summary *sum, struct pme_error *err)
{
	return read_path(path, v, NULL, NULL, NULL, arg, sum, err);
}

int
pme_samplefile_read_offcpu(const char *path,
    const struct pme_sample_visitor *v,
    int (*offcpu)(void *, const struct pme_offcpu *), void *arg,
    struct pme_sample_summary *sum, struct pme_error *err)
{
	return read_path(path, v, NULL, offcpu, NULL, arg, sum, err);
}

int
pme_samplefile_heap(const char *path, const struct pme_sample_visitor *v,
    const struct pme_heap_visitor *hv, void *arg,
    struct pme_sample_summary *sum, struct pme_error *err)
{
	return read_path(path, v, hv, NULL, NULL, arg, sum, err);
}

int
pme_samplefile_read_io(const char *path, const struct pme_sample_visitor *v,
    int (*io)(void *, const struct pme_io *), void *arg,
    struct pme_sample_summary *sum, struct pme_error *err)
{
	return read_path(path, v, NULL, NULL, io, arg, sum, err);
}

int
pme_samplefile_mem(const void *buf, size_t len, const char *name,
    const struct pme_sample_visitor *v, void *arg,
    struct pme_sample_summary *sum, struct pme_error *err)
{
	struct pme_reader *r;

	if (err != NULL)
		err->code = PME_OK;
	if ((r = pme_reader_mem(buf, len, name, PME_KIND_SAMPLE, err)) == NULL)
		return -1;
	return read_all(r, v, NULL, NULL, NULL, arg, sum, err);
}

/* -------------------------------------------------------- copying runs */

int
pme_samplefile_copy(struct pme_writer *w, const char *path,
    struct pme_samplecopy *info, struct pme_error *err)
{
	const struct rdkind *k;
	const uint8_t *stored;
	struct pme_reader *r;
	struct pme_chunk c;
	const char *name;
	int rc, closed = 0;

	memset(info, 0, sizeof(*info));
	if ((r = pme_reader_open(path, PME_KIND_SAMPLE, err)) == NULL)
		return -1;
	name = pme_reader_name(r);
	while ((rc = pme_reader_next(r, &c, err)) == 1) {
		for (k = rdkinds; k < rdkinds + NRDKINDS; k++)
			if (k->type == c.type)
				break;
		rc = -1;
		if (k < rdkinds + NRDKINDS && c.type != T_SHDR &&
		    !before_header(c.type) && (info->runs == 0 || closed)) {
			pme_setfmt(err, PME_EFORMAT, name, c.offset,
			    "'%s' chunk: %s", k->tag, info->runs == 0 ?
			    "before the header" : "after the closing record");
			break;
		}
		if ((rc = pme_reader_stored(r, &c, &stored, err)) != 1)
			break;
		rc = -1;
		if (k < rdkinds + NRDKINDS && c.len > k->max) {
			pme_setfmt(err, PME_EFORMAT, name, c.offset, "'%s' "
			    "chunk of %zu bytes, more than the %zu it may hold",
			    k->tag, c.len, k->max);
			break;
		}
		if (c.type == T_SHDR) {
			info->cut += info->runs > 0 && !closed;
			info->runs++;
			closed = 0;
		} else if (c.type == T_CLOS)
			closed = 1;
		if (pme_writer_stored(w, &c, stored, err) == -1)
			break;
		rc = 1;
	}
	if (rc == 0 && pme_reader_lost(r) > 0)
		rc = pme_setfmt(err, PME_ETRUNC, name, pme_reader_offset(r),
		    "cut short inside a chunk: %lld bytes lost",
		    (long long)pme_reader_lost(r));
	if (rc == 0 && info->runs == 0)
		rc = pme_setfmt(err, pme_reader_lost(r) == -1 ? PME_EFORMAT :
		    PME_ETRUNC, name, pme_reader_offset(r), "%s",
		    pme_reader_lost(r) == -1 ? "no header chunk" :
		    "cut short before its header chunk: it holds no samples");
	info->closed = closed;
	info->complete = pme_reader_lost(r) == -1;
	pme_reader_close(r);
	return rc == 0 ? 0 : -1;
}

/* ------------------------------------------------------- address map */

/*
 * Per process, the mappings it holds (indexes into am->maps) and, built
 * when first needed after a change, an index of disjoint segments: each
 * segment lists the mappings covering it in order of time (then arrival),
 * so a lookup is a binary search for the segment and one in its list.
 * A one-entry cache remembers the last answer with the addresses and
 * times it holds for: consecutive samples mostly hit it.
 */
struct amseg {
	uint64_t	 start, end;
	size_t		 first;		/* into ent */
	uint32_t	 n;
};

struct amproc {
	uint32_t	 pid;
	uint32_t	*idx;		/* mappings held */
	size_t		 nidx, capidx;
	int		 dirty;
	struct amseg	*seg;
	size_t		 nseg;
	uint32_t	*ent;
	size_t		 nent;
	int		 cvalid;
	uint64_t	 cstart, cend, ctlo, cthi;
	uint32_t	 cmap;
};

struct pme_addrmap {
	struct pme_arena arena;		/* paths and build-ids */
	struct pme_vec	 maps;		/* struct pme_mapping */
	struct amproc	**tab;		/* open addressing by pid */
	size_t		 ntab, captab;
	struct amproc	 kernel;
	struct amproc	*last;
};

struct pme_addrmap *
pme_addrmap_new(struct pme_error *err)
{
	struct pme_addrmap *am;

	if ((am = calloc(1, sizeof(*am))) == NULL) {
		pme_setnomem(err);
		return NULL;
	}
	pme_vec_init(&am->maps, sizeof(struct pme_mapping));
	am->kernel.pid = PME_NONE;
	return am;
}

static void
proc_free(struct amproc *p)
{
	free(p->idx);
	free(p->seg);
	free(p->ent);
}

void
pme_addrmap_free(struct pme_addrmap *am)
{
	size_t i;

	if (am == NULL)
		return;
	for (i = 0; i < am->captab; i++)
		if (am->tab[i] != NULL) {
			proc_free(am->tab[i]);
			free(am->tab[i]);
		}
	free(am->tab);
	proc_free(&am->kernel);
	pme_vec_free(&am->maps);
	pme_arena_free(&am->arena);
	free(am);
}

static size_t
pid_slot(uint32_t pid, size_t cap)
{
	return (size_t)(sh_u32(pid) & (cap - 1));
}

static struct amproc *
proc_find(struct pme_addrmap *am, uint32_t pid)
{
	size_t h;

	if (am->last != NULL && am->last->pid == pid)
		return am->last;
	if (am->captab == 0)
		return NULL;
	for (h = pid_slot(pid, am->captab); am->tab[h] != NULL;
	    h = (h + 1) & (am->captab - 1))
		if (am->tab[h]->pid == pid)
			return am->last = am->tab[h];
	return NULL;
}

static struct amproc *
proc_get(struct pme_addrmap *am, uint32_t pid, struct pme_error *err)
{
	struct amproc *p, **t;
	size_t i, h, cap;

	if ((p = proc_find(am, pid)) != NULL)
		return p;
	if (2 * (am->ntab + 1) > am->captab) {
		cap = am->captab ? 2 * am->captab : 64;
		if ((t = calloc(cap, sizeof(*t))) == NULL) {
			pme_setnomem(err);
			return NULL;
		}
		for (i = 0; i < am->captab; i++) {
			if (am->tab[i] == NULL)
				continue;
			for (h = pid_slot(am->tab[i]->pid, cap); t[h] != NULL;
			    h = (h + 1) & (cap - 1))
				;
			t[h] = am->tab[i];
		}
		free(am->tab);
		am->tab = t;
		am->captab = cap;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		pme_setnomem(err);
		return NULL;
	}
	p->pid = pid;
	for (h = pid_slot(pid, am->captab); am->tab[h] != NULL;
	    h = (h + 1) & (am->captab - 1))
		;
	am->tab[h] = p;
	am->ntab++;
	return am->last = p;
}

static int
proc_add(struct amproc *p, const uint32_t *idx, size_t n,
    struct pme_error *err)
{
	uint32_t *q;
	size_t cap;

	if (p->nidx + n > p->capidx) {
		cap = p->capidx * 2 > p->nidx + n ? p->capidx * 2 :
		    p->nidx + n + 16;
		if ((q = realloc(p->idx, cap * sizeof(*q))) == NULL)
			return pme_setnomem(err);
		p->idx = q;
		p->capidx = cap;
	}
	memcpy(p->idx + p->nidx, idx, n * sizeof(*idx));
	p->nidx += n;
	p->dirty = 1;
	p->cvalid = 0;
	return 0;
}

int
pme_addrmap_mapping(struct pme_addrmap *am, const struct pme_mapping *m,
    struct pme_error *err)
{
	struct pme_mapping *c;
	struct amproc *p;
	uint8_t *id = NULL;
	uint32_t i;

	if (am == NULL || m == NULL || m->end <= m->start)
		return pme_seterr(err, PME_EINVAL,
		    "pme_addrmap_mapping: bad argument");
	if (am->maps.n >= PME_NONE - 1)
		return pme_seterr(err, PME_ELIMIT, "too many mappings");
	p = m->flags & PME_MAP_KERNEL ? &am->kernel :
	    proc_get(am, m->pid, err);
	if (p == NULL)
		return -1;
	if (m->buildid_len > 0 && m->buildid != NULL &&
	    (id = pme_arena_alloc(&am->arena, m->buildid_len)) == NULL)
		return pme_setnomem(err);
	if ((c = pme_vec_push(&am->maps)) == NULL)
		return pme_setnomem(err);
	*c = *m;
	if ((c->path = pme_arena_strdup(&am->arena,
	    m->path ? m->path : "")) == NULL) {
		am->maps.n--;
		return pme_setnomem(err);
	}
	if (id != NULL)
		memcpy(id, m->buildid, m->buildid_len);
	c->buildid = id;
	c->buildid_len = id != NULL ? m->buildid_len : 0;
	i = (uint32_t)(am->maps.n - 1);
	if (proc_add(p, &i, 1, err) == -1) {
		am->maps.n--;
		return -1;
	}
	return 0;
}

int
pme_addrmap_thread(struct pme_addrmap *am, const struct pme_thread *t,
    struct pme_error *err)
{
	struct amproc *p, *parent;

	if (am == NULL || t == NULL)
		return pme_seterr(err, PME_EINVAL,
		    "pme_addrmap_thread: bad argument");
	switch (t->kind) {
	case PME_THREAD_FORK:
		/* A new thread shares its process's mappings already. */
		if (t->pid == t->ppid ||
		    (parent = proc_find(am, t->ppid)) == NULL ||
		    parent->nidx == 0)
			return 0;
		if ((p = proc_get(am, t->pid, err)) == NULL)
			return -1;
		/* proc_get may have moved the table, not the processes */
		return proc_add(p, parent->idx, parent->nidx, err);
	case PME_THREAD_EXEC:
		if ((p = proc_find(am, t->pid)) != NULL) {
			p->nidx = 0;
			p->dirty = 1;
			p->cvalid = 0;
		}
		return 0;
	default:
		return 0;
	}
}

static int
by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts mapping indexes by time, then arrival; the lists are short. */
static void
isort_time(uint32_t *v, size_t n, const struct pme_mapping *m)
{
	size_t i, j;
	uint32_t x;

	for (i = 1; i < n; i++) {
		x = v[i];
		for (j = i; j > 0 && (m[v[j - 1]].time > m[x].time ||
		    (m[v[j - 1]].time == m[x].time && v[j - 1] > x)); j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/*
 * Builds p's segments: the boundaries of all its mappings sorted, and for
 * each stretch between two boundaries the mappings covering it.
 */
static int
proc_build(struct pme_addrmap *am, struct amproc *p)
{
	const struct pme_mapping *m = am->maps.v;
	uint64_t *b = NULL;
	uint32_t *act = NULL;
	size_t nb = 0, i, j, k, nact, capseg = 0, capent = 0;
	void *q;

	free(p->seg);
	free(p->ent);
	p->seg = NULL;
	p->ent = NULL;
	p->nseg = p->nent = 0;
	if (p->nidx == 0)
		goto done;
	if ((b = malloc(2 * p->nidx * sizeof(*b))) == NULL ||
	    (act = malloc(p->nidx * sizeof(*act))) == NULL)
		goto nomem;
	for (i = 0; i < p->nidx; i++) {
		b[nb++] = m[p->idx[i]].start;
		b[nb++] = m[p->idx[i]].end;
	}
	qsort(b, nb, sizeof(*b), by_u64);
	for (i = j = 0; i < nb; i++)
		if (j == 0 || b[j - 1] != b[i])
			b[j++] = b[i];
	nb = j;
	for (i = 0; i + 1 < nb; i++) {
		for (nact = 0, k = 0; k < p->nidx; k++)
			if (m[p->idx[k]].start <= b[i] &&
			    b[i] < m[p->idx[k]].end)
				act[nact++] = p->idx[k];
		if (nact == 0)
			continue;
		isort_time(act, nact, m);
		if (p->nseg == capseg) {
			capseg = capseg ? 2 * capseg : 16;
			if ((q = realloc(p->seg, capseg * sizeof(*p->seg))) ==
			    NULL)
				goto nomem;
			p->seg = q;
		}
		if (p->nent + nact > capent) {
			capent = 2 * capent > p->nent + nact ? 2 * capent :
			    p->nent + nact + 16;
			if ((q = realloc(p->ent, capent * sizeof(*p->ent))) ==
			    NULL)
				goto nomem;
			p->ent = q;
		}
		p->seg[p->nseg].start = b[i];
		p->seg[p->nseg].end = b[i + 1];
		p->seg[p->nseg].first = p->nent;
		p->seg[p->nseg++].n = (uint32_t)nact;
		memcpy(p->ent + p->nent, act, nact * sizeof(*act));
		p->nent += nact;
	}
done:
	free(b);
	free(act);
	p->dirty = 0;
	return 0;
nomem:
	free(b);
	free(act);
	return -1;
}

/* Without an index (out of memory): every mapping in turn, same answer. */
static uint32_t
proc_scan(struct pme_addrmap *am, struct amproc *p, uint64_t time,
    uint64_t pc)
{
	const struct pme_mapping *m = am->maps.v;
	uint32_t best = PME_NONE, first = PME_NONE, x;
	size_t i;

	for (i = 0; i < p->nidx; i++) {
		x = p->idx[i];
		if (pc < m[x].start || pc >= m[x].end)
			continue;
		if (first == PME_NONE || m[x].time < m[first].time ||
		    (m[x].time == m[first].time && x < first))
			first = x;
		if (m[x].time <= time && (best == PME_NONE ||
		    m[x].time > m[best].time ||
		    (m[x].time == m[best].time && x > best)))
			best = x;
	}
	return best != PME_NONE ? best : first;
}

static uint32_t
proc_lookup(struct pme_addrmap *am, struct amproc *p, uint64_t time,
    uint64_t pc)
{
	const struct pme_mapping *m = am->maps.v;
	const struct amseg *s;
	const uint32_t *e;
	size_t lo, hi, mid;
	uint32_t j;

	if (p->cvalid && pc - p->cstart < p->cend - p->cstart &&
	    time >= p->ctlo && time <= p->cthi)
		return p->cmap;
	if (p->dirty && proc_build(am, p) == -1)
		return proc_scan(am, p, time, pc);
	for (lo = 0, hi = p->nseg; lo < hi;) {	/* first with start > pc */
		mid = lo + (hi - lo) / 2;
		if (p->seg[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc >= p->seg[lo - 1].end)
		return PME_NONE;
	s = &p->seg[lo - 1];
	e = p->ent + s->first;
	for (lo = 0, hi = s->n; lo < hi;) {	/* first with time > time */
		mid = lo + (hi - lo) / 2;
		if (m[e[mid]].time <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	j = lo == 0 ? 0 : (uint32_t)lo - 1;
	p->cvalid = 1;
	p->cstart = s->start;
	p->cend = s->end;
	p->ctlo = j == 0 ? 0 : m[e[j]].time;
	p->cthi = j + 1 < s->n ? m[e[j + 1]].time - 1 : UINT64_MAX;
	p->cmap = e[j];
	return e[j];
}

uint32_t
pme_addrmap_lookup(struct pme_addrmap *am, uint32_t pid, uint64_t time,
    uint64_t pc, uint64_t *vaddr)
{
	const struct pme_mapping *m;
	struct amproc *p = proc_find(am, pid);
	uint32_t i = PME_NONE;

	if (p != NULL)
		i = proc_lookup(am, p, time, pc);
	if (i == PME_NONE && am->kernel.nidx > 0)
		i = proc_lookup(am, &am->kernel, time, pc);
	if (i != PME_NONE && vaddr != NULL) {
		m = (const struct pme_mapping *)am->maps.v + i;
		*vaddr = pc - m->start + m->vaddr;
	}
	return i;
}

size_t
pme_addrmap_mappings(const struct pme_addrmap *am,
    const struct pme_mapping **out)
{
	*out = am->maps.v;
	return am->maps.n;
}
