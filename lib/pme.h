/*
 * pme.h - libpme: the file formats of the pme performance measurement tools.
 *
 * Nothing in libpme prints or exits.  A function that fails returns -1 or
 * NULL and fills the struct pme_error its caller passed (which may be NULL
 * when the caller does not care).  The message names the file and, for
 * format errors, the byte offset: "'run.pme': offset 0x1a0: bad chunk crc".
 * The byte layouts are specified in pme(5).
 *
 * Ownership and lifetimes, here and in pme_sample.h, pme_symbols.h and
 * pme_render.h: a handle (writer, reader, bucket file, fill, image, map,
 * address map, report) is the caller's to free with its own close, free,
 * commit or abort function, each of which frees it whether it succeeds
 * or fails, and accepts NULL where it says so.  Every other pointer
 * returned points into memory a handle owns, valid as long as the
 * declaration says (at most until the handle is freed); the caller frees
 * none of it.  What the caller passes in stays the caller's: what a
 * function keeps it copies, except the buffer of pme_reader_mem().
 * Failure is -1, NULL or PME_NONE as each says, with err filled; a
 * writer whose write failed stays failed (every later call fails, and
 * the file is put back as it was).  No handle may be used by two threads
 * at once.  libpme(3) says the same at length.
 */
#ifndef PME_H
#define PME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PME_VERSION_STRING "0.1"

/* "no such index": parents, modules, kinds that are absent. */
#define PME_NONE UINT32_MAX

/* ---------------------------------------------------------------- errors */

enum pme_errcode {
	PME_OK = 0,
	PME_EIO,	/* the operating system refused (errno in sys_errno) */
	PME_EFORMAT,	/* bytes that do not follow pme(5) */
	PME_ETRUNC,	/* the file ends inside a chunk or lacks its END chunk */
	PME_EKIND,	/* a pme file, but of another kind (sample for bucket) */
	PME_EVERSION,	/* a format version this library cannot read */
	PME_ENOMEM,	/* out of memory */
	PME_EINVAL,	/* an argument the caller should not have passed */
	PME_ELIMIT	/* a count above what the format or a table allows */
};

struct pme_error {
	enum pme_errcode code;
	int		 sys_errno;	/* errno for PME_EIO, else 0 */
	uint64_t	 offset;	/* byte offset for format errors */
	char		 msg[512];	/* complete message, no program name */
};

/* The message of err, or "success" when err is NULL or clear. */
const char	*pme_strerror(const struct pme_error *err);

/* ------------------------------------------------------------- container */

/*
 * A pme file: a 16-byte header naming its kind, then chunks.  Each chunk is
 * {type, flags, stored length, raw length, crc32} followed by its payload,
 * which may be zlib-compressed.  A file ends with an END chunk; a file
 * without one was cut short.
 */
#define PME_KIND_BUCKET	0x4b435542u	/* "BUCK" */
#define PME_KIND_SAMPLE	0x504d4153u	/* "SAMP" */
#define PME_KIND_EVENT	0x544e5645u	/* "EVNT" */

/* Four ASCII characters as a little-endian chunk or kind type. */
#define PME_FOURCC(a, b, c, d) \
	((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | \
	 (uint32_t)(d) << 24)
#define PME_CHUNK_END	PME_FOURCC('E', 'N', 'D', ' ')

#define PME_FORMAT_MAJOR 1
#define PME_FORMAT_MINOR 1

/* Largest payload, stored or raw, a reader accepts (256 MiB). */
#define PME_CHUNK_MAX	(256u << 20)

/* Writer flags. */
#define PME_WRITE_LIVE	0x1	/* the file is at path while it is written
				   (sample files); see pme_writer_open() */
/* Chunk flags. */
#define PME_CHUNK_ZLIB	0x1	/* payload is a zlib stream */

struct pme_writer;

/*
 * Starts a file of the given kind at path ("-" is standard output, written
 * directly, as is a device or FIFO of the caller's or root's; a directory
 * or another user's device or FIFO is refused).  Bytes go to a temporary
 * file ".name.XXXXXX" in the same directory, created with O_EXCL and mode
 * 0666 less the umask: a symbolic link at path is replaced, never
 * followed, and no existing file is truncated.  By default the temporary
 * file is renamed over path at commit.  With PME_WRITE_LIVE it is put at
 * path at once, the previous file (if any) swapped to the temporary name
 * (renameat2 RENAME_EXCHANGE), so that readers and a killed writer's
 * leftovers see the file as it grows; on a file system that cannot
 * exchange names it stays under the temporary name until commit.  Either
 * way a failed write puts path back as it was at once, and so do
 * pme_writer_discard() and a failed commit.  Returns NULL on failure.
 */
struct pme_writer *pme_writer_open(const char *path, uint32_t kind,
		    unsigned flags, struct pme_error *err);
/*
 * Appends a chunk.  With compress set, payloads of 256 bytes or more are
 * stored zlib-compressed when that is smaller.  The chunk reaches the
 * operating system before this returns (no buffering across chunks).
 * A failed write is sticky: path is put back as it was at once, and
 * every later call on w fails; w must still be freed (commit, discard or
 * abort).
 */
int		 pme_writer_chunk(struct pme_writer *w, uint32_t type,
		    const void *data, size_t len, int compress,
		    struct pme_error *err);
/* Writes END, closes, renames into place (or removes the previous file
 * set aside) and frees w.  On failure (this write, or an earlier one of
 * w's) w is freed too, and path is as it was before the open. */
int		 pme_writer_commit(struct pme_writer *w, struct pme_error *err);
/* Frees w and puts path back as it was before the open; NULL ok. */
void		 pme_writer_discard(struct pme_writer *w);
/*
 * Frees w without END.  By default as pme_writer_discard().  A
 * PME_WRITE_LIVE file is left at path as written, which readers take for
 * a file cut short, and the previous file is removed: what a killed
 * writer leaves once its leftovers are tidied.  NULL ok.
 */
void		 pme_writer_abort(struct pme_writer *w);
/*
 * The temporary name beside path that w has made, or NULL when there is
 * none (standard output, a device, a live file that replaced nothing, a
 * writer that failed).  *isnew (if isnew is not NULL) is 1 when it holds
 * w's file, not yet at path, and 0 when it holds the previous file set
 * aside.  If the process dies without commit, abort or discard, that
 * file is left behind: a guardian process (pmeclock(1)'s) then renames a
 * new one over path, or removes a previous one.  Owned by w, valid until
 * its next call.
 */
const char	*pme_writer_tmpname(const struct pme_writer *w, int *isnew);

struct pme_chunk {
	uint32_t	 type;
	uint32_t	 flags;		/* as stored */
	uint64_t	 offset;	/* file offset of the chunk header */
	const uint8_t	*data;		/* payload, decompressed: NULL until
					   pme_reader_payload() */
	size_t		 len;		/* raw length, as the header says */
	size_t		 stored;	/* stored length */
};

struct pme_reader;

/*
 * Opens path ("-" is standard input) and checks its header against kind.
 * The file is read as the chunks are asked for, not at once (nor mapped):
 * a reader holds a 64 KiB buffer, the stored bytes of the chunk whose
 * payload was last asked for and that payload decompressed, so its memory
 * is bounded by the largest payload read, not by the file.
 */
struct pme_reader *pme_reader_open(const char *path, uint32_t kind,
		    struct pme_error *err);
/* The same over bytes in memory; name is used in messages.  buf is not
 * copied and must stay unchanged until pme_reader_close(). */
struct pme_reader *pme_reader_mem(const void *buf, size_t len,
		    const char *name, uint32_t kind, struct pme_error *err);
/*
 * The header of the next chunk other than END.  Returns 1 with *c filled
 * but c->data NULL: the payload is read only when asked for, by
 * pme_reader_payload() or pme_reader_read(), before the next call.  One
 * not asked for is passed over here, its CRC checked but nothing
 * decompressed.  Returns 0 at the END chunk or when the file ends, -1 on a
 * corrupt chunk (a bad header, or the CRC of the chunk passed over).  A
 * file that ends without END, or inside a chunk, returns 0 and
 * pme_reader_lost() then tells the bytes lost.  After -1 the reader is
 * good only for pme_reader_close().
 */
int		 pme_reader_next(struct pme_reader *r, struct pme_chunk *c,
		    struct pme_error *err);
/*
 * The payload of chunk c, the one pme_reader_next() returned last, at
 * most max bytes once decompressed: the most the caller's type of chunk
 * holds.  Returns 1 with c->data pointing at c->len bytes owned by r (or
 * inside the caller's buf), valid until the next pme_reader_next() or
 * pme_reader_close(); 0 when the file ends inside the chunk (cut short,
 * as for pme_reader_next()); -1 on a CRC mismatch, a bad zlib stream, or
 * a chunk larger than max (PME_EFORMAT, "'x.pms': offset 0x1a0: 'SMPL'
 * chunk of 268435456 bytes, more than the 16777472 it may hold"), which
 * is refused before anything is decompressed.  Once per chunk.
 */
int		 pme_reader_payload(struct pme_reader *r, struct pme_chunk *c,
		    size_t max, struct pme_error *err);
/*
 * The payload of the chunk pme_reader_next() returned last, decompressed
 * piece by piece as it is read: up to n bytes into buf, *got of them (0
 * when the payload has all been read).  For a decoder that checks as it
 * goes, so that a chunk of many bytes that are wrong early costs little.
 * The first call reads the stored bytes and checks their CRC.  Returns 0,
 * or -1 on a CRC mismatch, a bad zlib stream, or a file cut short inside
 * the chunk (PME_ETRUNC; pme_reader_lost() then tells the bytes lost).
 * Not after pme_reader_payload() on the same chunk.
 */
int		 pme_reader_read(struct pme_reader *r, void *buf, size_t n,
		    size_t *got, struct pme_error *err);
/* -1 when END was seen; else the number of bytes after the last whole chunk. */
int64_t		 pme_reader_lost(const struct pme_reader *r);
/* The offset of the next chunk header: after the last chunk returned, at
 * the END chunk once reached, where the lost bytes begin in a file cut
 * short.  For messages ("'x.pms': offset 0x1a0: 12 bytes lost"). */
uint64_t	 pme_reader_offset(const struct pme_reader *r);
uint16_t	 pme_reader_minor(const struct pme_reader *r);
const char	*pme_reader_name(const struct pme_reader *r);
void		 pme_reader_close(struct pme_reader *r);	/* NULL ok */

/* ------------------------------------------------------------ bucket file */

/* Option flags of DEFINE OPTIONS kept in the bucket file. */
#define PME_OPT_ABSADDR	0x01	/* else RELADDR */
#define PME_OPT_ACCUM	0x02	/* ACCUMCOUNTS, else CLEARCOUNTS */
#define PME_OPT_LINES	0x04	/* LINES */
#define PME_OPT_NOLINES	0x08	/* NOLINES; neither: SOMELINES */
#define PME_OPT_LIST	0x10
#define PME_OPT_PRINT	0x20
#define PME_OPT_QUICK	0x40	/* the quick path's: made from an
				   executable's symbols (pmebuild -x,
				   pmehisto -x), not from statements */

/* What the counts measure. */
enum pme_measure {
	PME_MEASURE_NONE = 0,	/* empty bucket file */
	PME_MEASURE_CLOCK,	/* clock samples */
	PME_MEASURE_INSTR,	/* executed instructions */
	PME_MEASURE_PAGEFAULT,	/* page faults */
	PME_MEASURE_BYTES,	/* bytes allocated */
	PME_MEASURE_EVENT	/* samples of an event pmeclock -e watched,
				   which pme_bucketfile_event() names */
};

/* Unit flags. */
#define PME_UNIT_LINES	  0x01	/* declared with the LINES keyword */
#define PME_UNIT_NOLINES  0x02	/* declared with NOLINES */
#define PME_UNIT_EXPLICIT 0x04	/* ranges given in the .PMD, not found */
#define PME_UNIT_DERIVED  0x08	/* ranges are the union of its subunits' */

/* Load module flags. */
#define PME_MODULE_MAIN	  0x01	/* the main executable, whatever its path */
#define PME_MODULE_NODEBUG 0x02	/* the quick path's: routines read from
				   an image with no DWARF and no separate
				   debug file (one found later has more) */

struct pme_range {
	uint64_t	 start;		/* first address */
	uint64_t	 end;		/* one past the last */
};

struct pme_info {
	uint32_t	 options;	/* PME_OPT_* */
	uint32_t	 measure;	/* enum pme_measure */
	uint64_t	 period;	/* sampling period in ns, 0 if none */
	uint64_t	 runs;		/* runs tallied into the counts */
	uint64_t	 total;		/* all counts tallied, in and out */
	uint64_t	 lost;		/* samples lost by the collector */
	uint64_t	 unmapped;	/* counts at addresses in no module */
};

struct pme_module {
	const char	*path;		/* as given or found; "" if unknown */
	const uint8_t	*buildid;	/* GNU build-id, NULL if none */
	uint32_t	 buildid_len;
	uint32_t	 flags;		/* PME_MODULE_* */
	uint64_t	 outside;	/* counts in the module, in no bucket */
};

struct pme_unit {
	const char	*name;
	uint32_t	 kind;		/* index into the kinds */
	uint32_t	 parent;	/* unit index or PME_NONE */
	uint32_t	 module;	/* load module index or PME_NONE:
					   absolute run-time addresses */
	uint32_t	 flags;		/* PME_UNIT_* */
	uint64_t	 step;		/* bucket step in bytes, 0 if none */
	uint64_t	 range;		/* first range: index into ranges */
	uint32_t	 nranges;
	uint32_t	 line;		/* source line, 0 if none */
	const char	*file;		/* source file, NULL if none */
};

struct pme_group {
	const char	*statement;	/* the DEFINE SAMPLING line */
	uint32_t	 unit;		/* the unit it names */
	uint32_t	 bykind;	/* kind after BY, or PME_NONE */
	uint32_t	 first;		/* first bucket index */
	uint32_t	 count;		/* buckets in the group */
};

struct pme_bucket {
	uint32_t	 unit;
	uint32_t	 group;
	uint64_t	 range;		/* first range: index into ranges */
	uint32_t	 nranges;
	uint64_t	 count;
};

struct pme_bucketfile;

struct pme_bucketfile *pme_bucketfile_new(struct pme_error *err);
/* Reads a bucket file; "-" is standard input.  An empty one from
 * pme_bucketfile_new().  Each returns a new handle the caller closes, or
 * NULL with err filled.  pme_bucketfile_mem() reads buf during the call
 * and keeps nothing of it; name is used in messages. */
struct pme_bucketfile *pme_bucketfile_open(const char *path,
		    struct pme_error *err);
struct pme_bucketfile *pme_bucketfile_mem(const void *buf, size_t len,
		    const char *name, struct pme_error *err);
/* Writes atomically (temporary file and rename); "-" is standard output.
 * Returns 0, or -1 with path as it was. */
int		 pme_bucketfile_write(const struct pme_bucketfile *bf,
		    const char *path, struct pme_error *err);
void		 pme_bucketfile_close(struct pme_bucketfile *bf); /* NULL ok */

/* The header fields; the caller may change them. */
struct pme_info	*pme_bucketfile_info(struct pme_bucketfile *bf);

/*
 * Adding.  Each returns the new index, or PME_NONE on failure.  Strings and
 * arrays are copied.  Ranges are half-open and must have start < end.
 */
uint32_t	 pme_bucketfile_add_kind(struct pme_bucketfile *bf,
		    const char *name, struct pme_error *err);
uint32_t	 pme_bucketfile_add_module(struct pme_bucketfile *bf,
		    const char *path, const uint8_t *buildid, uint32_t idlen,
		    uint32_t flags, struct pme_error *err);
/* u supplies every field but range; ranges[0..n) become the unit's. */
uint32_t	 pme_bucketfile_add_unit(struct pme_bucketfile *bf,
		    const struct pme_unit *u, const struct pme_range *ranges,
		    uint32_t n, struct pme_error *err);
/* Starts a group; the buckets added next belong to it. */
uint32_t	 pme_bucketfile_add_group(struct pme_bucketfile *bf,
		    const char *statement, uint32_t unit, uint32_t bykind,
		    struct pme_error *err);
uint32_t	 pme_bucketfile_add_bucket(struct pme_bucketfile *bf,
		    uint32_t unit, const struct pme_range *ranges, uint32_t n,
		    struct pme_error *err);

/* Reading.  Each returns the count and points *out at the array, which
 * stays valid until bf is changed or closed. */
size_t		 pme_bucketfile_kinds(const struct pme_bucketfile *bf,
		    const char *const **out);
size_t		 pme_bucketfile_modules(const struct pme_bucketfile *bf,
		    const struct pme_module **out);
size_t		 pme_bucketfile_units(const struct pme_bucketfile *bf,
		    const struct pme_unit **out);
size_t		 pme_bucketfile_groups(const struct pme_bucketfile *bf,
		    const struct pme_group **out);
size_t		 pme_bucketfile_buckets(const struct pme_bucketfile *bf,
		    struct pme_bucket **out);	/* counts writable */
size_t		 pme_bucketfile_ranges(const struct pme_bucketfile *bf,
		    const struct pme_range **out);
uint64_t	*pme_bucketfile_outside(struct pme_bucketfile *bf,
		    uint32_t module);		/* writable, NULL if no such */

/*
 * A second count per bucket, named (e.g. "calls": the calls into a
 * routine beside the instructions it executed): NULL until set.
 * pme_bucketfile_set_counts2() gives every bucket a second count of 0
 * under name (1 to 255 bytes; a name already set is replaced and its
 * counts zeroed); NULL removes them.  Buckets added later get a 0.
 * pme_bucketfile_counts2() returns the name (owned by bf), or NULL when
 * there are none, and points *counts (if counts is not NULL) at the
 * array of one count per bucket, writable, valid until bf is changed or
 * closed.  Stored in the optional CNT2 chunk (pme(5)); cleared and
 * accumulated with the counts.
 */
int		 pme_bucketfile_set_counts2(struct pme_bucketfile *bf,
		    const char *name, struct pme_error *err);
const char	*pme_bucketfile_counts2(struct pme_bucketfile *bf,
		    uint64_t **counts);

/*
 * The event the counts of a PME_MEASURE_EVENT file are samples of
 * ("page-faults", "sched:sched_switch"; 1 to 255 bytes), with *unit (if
 * unit is not NULL) what one event is ("page faults"); owned by bf, NULL
 * for any other measure.  pme_bucketfile_set_event() makes the measure
 * PME_MEASURE_EVENT of event name.  Stored in the optional MEAS chunk
 * (pme(5)); files of two events are not added up
 * (pme_bucketfile_accumulate).
 */
const char	*pme_bucketfile_event(const struct pme_bucketfile *bf,
		    const char **unit);
int		 pme_bucketfile_set_event(struct pme_bucketfile *bf,
		    const char *name, const char *unit, struct pme_error *err);

/*
 * Other names of a unit.  Code with several names (finitel and __finitel,
 * a function and its __attribute__((alias)) names) is one unit under the
 * name perf gives it (pme_symbols.h); pmebuild keeps the others as its
 * aliases.  pme_bucketfile_add_alias() appends a copy of name (not empty)
 * to unit's aliases and returns its index among them, or PME_NONE.
 * pme_bucketfile_aliases() returns how many unit has, in the order they
 * were added, and points *out at their names (NULL when none), owned by
 * bf and valid until bf is changed or closed.  Stored in the optional
 * ALIA chunk (pme(5)); readers that do not know it see no aliases.
 */
uint32_t	 pme_bucketfile_add_alias(struct pme_bucketfile *bf,
		    uint32_t unit, const char *name, struct pme_error *err);
size_t		 pme_bucketfile_aliases(const struct pme_bucketfile *bf,
		    uint32_t unit, const char *const **out);

/*
 * Finding the bucket of an address.  pme_bucketfile_index() builds the
 * index in O(n log n): per load module, the buckets' ranges made disjoint
 * (where buckets overlap, the one starting first keeps the addresses, on
 * a tie the lower index) and a page table over them.  Returns 0 (also
 * when it is built already), or -1 with err filled: PME_ENOMEM, or
 * PME_ELIMIT for ranges shared by buckets wholesale (a forged file).
 * Adding a bucket drops it; load modules added later have no buckets in
 * it.
 *
 * pme_bucketfile_find() is then the bucket holding addr of load module
 * module (PME_NONE: absolute addresses), with *in (if in is not NULL) the
 * range of it that holds addr; PME_NONE when no bucket holds addr, or
 * when there is no index.  It changes nothing and cannot fail: lookups
 * may run in many threads (and in a signal handler) at once.
 *
 * pme_bucketfile_lookup() is the two at once: it builds the index when
 * there is none, and returns PME_NONE when that fails too; a caller that
 * must tell "no memory" from "no bucket" calls pme_bucketfile_index()
 * first.
 */
int		 pme_bucketfile_index(struct pme_bucketfile *bf,
		    struct pme_error *err);
uint32_t	 pme_bucketfile_find(const struct pme_bucketfile *bf,
		    uint32_t module, uint64_t addr, struct pme_range *in);
uint32_t	 pme_bucketfile_lookup(struct pme_bucketfile *bf,
		    uint32_t module, uint64_t addr);

/* Zeroes every count, the second counts, the outside counts and the
 * run totals. */
void		 pme_bucketfile_clear(struct pme_bucketfile *bf);

/*
 * Adds src's counts into dst.  Fails with PME_EINVAL unless both have the
 * same kinds, units and buckets, the same load modules up to the last
 * one a unit refers to, and both or neither have second counts, of the
 * same name.  src's other load modules (added by a run for its counts
 * outside the buckets) are matched by path and build-id: their outside
 * counts go to dst's module of the same path and build-id, added to dst
 * when it has none.  Fails too when the runs of both together are more
 * than a file can hold (2^53, pme(5)).  On failure dst's counts are
 * unchanged.
 */
int		 pme_bucketfile_accumulate(struct pme_bucketfile *dst,
		    const struct pme_bucketfile *src, struct pme_error *err);

/* -------------------------------------------------------------- filling */

/*
 * Adding a run's counts to a bucket file, safely when runs overlap
 * (pme(5)).  The run's counts are tallied first, apart: into run, a
 * bucket file read from path whose counts were then cleared
 * (pme_bucketfile_clear), with its measure (and period) set.  Then:
 *
 * pme_fill_begin() opens path, takes an exclusive flock(2) on it (waiting
 * for other fills), checks that path still names the locked file (else
 * locks the file that replaced it), reads it, and adds run's counts to
 * it, which must measure the same thing: with ACCUMCOUNTS to the counts
 * there, else to none (CLEARCOUNTS).  Second counts follow the run's
 * (with ACCUMCOUNTS, run is given the file's, zero, when it has none, so
 * that they are kept).  Returns NULL with err filled when path cannot be
 * read or locked, its counts are of another measure, or its layout is no
 * longer run's; path is then left as it was.  path may not be "-".
 *
 * pme_fill_sum() is the sum (owned by f; the caller may read it, e.g. to
 * report on it, and change its info), until pme_fill_commit() writes it
 * atomically to out (NULL: path) and releases the lock, or
 * pme_fill_abort() releases it writing nothing; both free f, and
 * pme_fill_abort() accepts NULL.  pme_fill_add() is pme_fill_begin() and
 * pme_fill_commit().
 *
 * pme_fill_check() is the check of the measure alone, for a program to
 * make before it counts: 0 when counts of measure (enum pme_measure) may
 * be added to those of bf, read from path (its counts are cleared, or
 * are none or of that measure); else -1 with err filled.
 */
struct pme_fill;

struct pme_fill	*pme_fill_begin(const char *path, struct pme_bucketfile *run,
		    struct pme_error *err);
struct pme_bucketfile *pme_fill_sum(struct pme_fill *f);
int		 pme_fill_commit(struct pme_fill *f, const char *out,
		    struct pme_error *err);
void		 pme_fill_abort(struct pme_fill *f);
int		 pme_fill_add(const char *path, const char *out,
		    struct pme_bucketfile *run, struct pme_error *err);
int		 pme_fill_check(struct pme_bucketfile *bf, uint32_t measure,
		    const char *path, struct pme_error *err);

/*
 * Which load module of bf a running object is, by the one rule every
 * program that fills a bucket file follows (pmehisto, pmetrace,
 * libpmetrace): the object's path as the process named it (NULL: none),
 * its GNU build-id (NULL or idlen 0: none), and whether it is the main
 * executable.  Among bf's first n modules: the one with the same
 * build-id; else the first with the same path, then with the same path
 * as the object's after realpath(3), then the main executable's (flagged
 * PME_MODULE_MAIN, when ismain), then with the same base name.  A module
 * found so whose build-id differs from the object's (both have one) is
 * another build of the file and is passed over, unless flags holds
 * PME_MATCH_FORCE (pmetrace -f); *why (if not NULL) then says so:
 * PME_MATCH_OTHERMAIN for the main executable's module, else
 * PME_MATCH_OTHERBUILD, for the caller to warn or refuse.  Returns the
 * module's index, or PME_NONE.  Looks at the file system (realpath), not
 * at the object's bytes.
 */
#define PME_MATCH_FORCE		0x1
#define PME_MATCH_OTHERBUILD	0x1	/* *why: a path matched another build */
#define PME_MATCH_OTHERMAIN	0x2	/* *why: the main executable did */
uint32_t	 pme_fill_match(const struct pme_bucketfile *bf, uint32_t n,
		    const char *path, const uint8_t *id, uint32_t idlen,
		    int ismain, unsigned flags, unsigned *why);

#ifdef __cplusplus
}
#endif

#endif /* PME_H */
