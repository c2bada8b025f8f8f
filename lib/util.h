/*
 * util.h - libpme internals: error filling, growable arrays, an arena for
 * strings, interning, little-endian byte buffers, atomic output files,
 * escaped names.  Not installed.
 */
#ifndef PME_UTIL_H
#define PME_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pme.h"

#if defined(__GNUC__)
#define PME_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PME_PRINTF(f, a)
#endif

/* Fills err (if not NULL) with code and a formatted message; returns -1. */
int	 pme_seterr(struct pme_error *err, enum pme_errcode code,
	    const char *fmt, ...) PME_PRINTF(3, 4);
/* The same for a format error at offset of file name:
 * "'name': offset 0x1a0: what". */
int	 pme_setfmt(struct pme_error *err, enum pme_errcode code,
	    const char *name, uint64_t offset, const char *fmt, ...)
	    PME_PRINTF(5, 6);
/* PME_EIO from errno: "'name': what: strerror(errno)". */
int	 pme_setsys(struct pme_error *err, const char *name, const char *what);
/* PME_ENOMEM. */
int	 pme_setnomem(struct pme_error *err);

/*
 * Growable array of fixed-size elements.  pme_vec_push() returns a pointer
 * to the new zeroed element, NULL when out of memory.
 */
struct pme_vec {
	void	*v;
	size_t	 n;		/* elements in use */
	size_t	 cap;		/* elements allocated */
	size_t	 size;		/* bytes per element */
};
void	 pme_vec_init(struct pme_vec *vec, size_t size);
void	*pme_vec_push(struct pme_vec *vec);
int	 pme_vec_reserve(struct pme_vec *vec, size_t n);	/* 0 or -1 */
void	 pme_vec_free(struct pme_vec *vec);
#define PME_VEC_AT(vec, type, i) (((type *)(vec)->v)[i])

/* Arena: many small allocations freed at once; pointers never move. */
struct pme_arena_block;
struct pme_arena {
	struct pme_arena_block *head;
};
void	*pme_arena_alloc(struct pme_arena *a, size_t len);	/* aligned 8 */
char	*pme_arena_strdup(struct pme_arena *a, const char *s);
char	*pme_arena_strndup(struct pme_arena *a, const char *s, size_t n);
void	 pme_arena_free(struct pme_arena *a);

/* String interning: equal strings give equal pointers, kept in an arena. */
struct pme_intern {
	struct pme_arena *arena;
	const char	**slot;
	size_t		  n, cap;
};
void		 pme_intern_init(struct pme_intern *in, struct pme_arena *a);
const char	*pme_intern(struct pme_intern *in, const char *s);
void		 pme_intern_free(struct pme_intern *in);

uint64_t	 pme_hash(const void *p, size_t n);	/* FNV-1a, 64-bit */

/*
 * Removal from an open-addressing table with linear probing: t holds cap
 * entries (a power of two) of size bytes, each keyed by the uint64_t at
 * offset off (0: an empty slot), its first probe home(key, cap).  Empties
 * slot i, moving back into it in turn each later entry of the run whose
 * home allows, so that every entry stays reachable from its home with no
 * tombstones.  The caller keeps its own count of entries.
 */
void		 pme_probe_remove(void *t, size_t size, size_t off,
		    size_t cap, size_t i, size_t (*home)(uint64_t, size_t));

/*
 * The seed's rule for file names: name as given, or name with ext (".PME")
 * added when its last path component has no extension; "-" stays "-", and
 * so does a name of a descriptor (/dev/stdout, /dev/fd/N: bash's <(...))
 * or that holds a device, a FIFO or a socket (/dev/null).
 * The caller frees the result; NULL when out of memory.
 */
char		*pme_with_ext(const char *name, const char *ext);
/* The first line of file path (a /proc or sysfs file), without its
 * newline, into buf of len bytes; 0, or -1 when it cannot be read or is
 * empty. */
int		 pme_first_line(const char *path, char *buf, size_t len);
/*
 * A chunk copied as it is stored, for a program that joins files without
 * decoding them (pmemerge(1)).  pme_reader_stored() gives the stored
 * bytes of c, the chunk pme_reader_next() returned last, CRC checked but
 * not decompressed, as pme_reader_payload() would read them: 1 with
 * *stored at c->stored bytes owned by r (valid until the next call on
 * r), 0 when the file ends inside the chunk (pme_reader_lost() tells the
 * bytes lost), -1 on a CRC mismatch.  Once per chunk, instead of
 * pme_reader_payload().  pme_writer_stored() appends a chunk of c's
 * type, flags and lengths with those stored bytes: byte for byte the
 * chunk that was read.
 */
int		 pme_reader_stored(struct pme_reader *r, struct pme_chunk *c,
		    const uint8_t **stored, struct pme_error *err);
int		 pme_writer_stored(struct pme_writer *w,
		    const struct pme_chunk *c, const uint8_t *stored,
		    struct pme_error *err);
/*
 * Appends the runs of the sample file path to w, a writer of kind
 * PME_KIND_SAMPLE, its chunks copied as stored (pme_reader_stored()),
 * nothing decoded: memory is the largest chunk's.  Each chunk's CRC, its
 * place (a record chunk before the first header or after a closing
 * record) and its raw length against its type's largest are checked as
 * pme_samplefile_read() checks them.  Returns 0 with *info filled, or -1
 * with err naming path and the chunk's offset: a corrupt chunk, a chunk
 * out of place, a file without a header chunk, or one cut short inside a
 * chunk (PME_ETRUNC; one cut between two chunks is copied, info->complete
 * 0).  The chunks copied before a failure are in w.
 */
struct pme_samplecopy {
	uint64_t	 runs;		/* header chunks copied */
	uint64_t	 cut;		/* runs without a closing record
					   before the next header */
	int		 closed;	/* the last run's closing record */
	int		 complete;	/* path ended with END */
};
struct pme_writer;
int		 pme_samplefile_copy(struct pme_writer *w, const char *path,
		    struct pme_samplecopy *info, struct pme_error *err);
/*
 * The kind (PME_KIND_*) of the pme file at path, for the advice a program
 * adds to a PME_EKIND error; 0 when it is no pme file, cannot be read or
 * is "-" (standard input is not read).
 */
uint32_t	 pme_file_kind(const char *path);
/* A kind in the words of messages: "a sample file (.PMS)", "an event
 * file", else "a pme file of kind 'XXXX'" written into s. */
const char	*pme_kind_words(uint32_t kind, char s[32]);
/*
 * The rule for an input file: pme_with_ext(name, ext), except that when
 * ext was added and no such file exists, name with ext in lower case if
 * that exists ("gravel" reads gravel.PMD, else gravel.pmd).  The caller
 * frees the result; NULL when out of memory.
 */
char		*pme_input_name(const char *name, const char *ext);

/*
 * A program or library found as execvp(3) and the dynamic loader find
 * one: pme_path_find() is the first regular file named name that the
 * caller may access with mode (access(2)'s) in the directories dirs,
 * separated by ':' (an empty one is the current directory), written into
 * buf of n bytes: buf, or NULL when there is none.  It allocates nothing,
 * for the runtimes' use before an exec.  pme_exec_dirs() is the
 * directories execvp(3) searches: PATH, or without it confstr(3)'s
 * default, written into buf of n bytes.
 */
const char	*pme_path_find(const char *name, const char *dirs, int mode,
		    char *buf, size_t n);
const char	*pme_exec_dirs(char *buf, size_t n);
/*
 * For "did you mean" hints.  pme_edit_distance() is the number of
 * insertions, deletions, substitutions and swaps of neighbours that make
 * b of a (optimal string alignment), or max + 1 when that is above max
 * (known early: a length difference above max costs nothing).
 * pme_near_cutoff() is the largest distance worth suggesting between
 * names of lengths la and lb (GCC's rule: a third of the longer, at least
 * 1, none for one-character names).  pme_near_file() is the name of the
 * file beside path (in its directory, path's directory part kept) that
 * ends in ext, case ignored, and is nearest path's last component, case
 * ignored, within the cutoff of their lengths less the extensions; NULL
 * when there is none.  The caller frees it.
 */
size_t		 pme_edit_distance(const char *a, const char *b, size_t max);
size_t		 pme_near_cutoff(size_t la, size_t lb);
/*
 * The nearest of names offered one at a time to want, for "did you
 * mean": pme_near_init() starts with none; pme_near_dist() is name's
 * distance from want when it is within the cutoff of their lengths and
 * nearer than the nearest so far, else SIZE_MAX (of names as near, the
 * first offered stays), computing only what can beat it.  The caller
 * takes a name it wants (it may check more first) by setting name and
 * best; name is the nearest at the end, or NULL.
 */
struct pme_near {
	const char	*want;
	size_t		 wantlen;
	size_t		 best;		/* name's distance; SIZE_MAX: none */
	const char	*name;		/* the nearest so far, or NULL */
};
void		 pme_near_init(struct pme_near *n, const char *want);
size_t		 pme_near_dist(const struct pme_near *n, const char *name);
char		*pme_near_file(const char *path, const char *ext);
/*
 * The same rule for the runtimes' entries (pme_sname, pme_iname,
 * pme_oname), whose names may come blank-padded from FORTRAN: name less
 * its trailing blanks and tabs, then ext added as above, into buf of len
 * bytes, with no allocation.  Returns 0, or -1 (buf unchanged) when
 * nothing is left of name or the result does not fit.
 */
int		 pme_name_trimmed(char *buf, size_t len, const char *name,
		    const char *ext);

/*
 * The last component of path p: what follows its last '/', or p itself
 * when there is none or nothing follows it ("dir/" stays "dir/").  Points
 * into p.
 */
const char	*pme_base_name(const char *p);

/*
 * Atomic output files.  A file is written whole under a temporary name
 * beside its own, "dir/.base.XXXXXX" (hidden from a glob in the
 * directory), then renamed over its name: a reader sees the old file or
 * the new one, never part of one, and a failed write leaves the old file
 * as it was.
 *
 * pme_tmp_create() creates the temporary file for path with mode 0666,
 * which the kernel masks with the umask: the mode any new file of the
 * caller gets.  It returns the descriptor (write only, close-on-exec) and
 * points *tmp at the temporary name; or -1, *tmp NULL and err filled.
 * The file is anonymous where the file system allows (O_TMPFILE): it gets
 * its name only in pme_tmp_commit(), so a program killed while writing,
 * even by SIGKILL, leaves no temporary file; elsewhere it is created at
 * the name with O_EXCL.  pme_tmp_named() always creates it at the name
 * (for a file that must be visible while written: pme_writer's live
 * files).  The caller writes and closes the descriptor, then passes the
 * name to pme_tmp_commit(), which names the file and renames it over path
 * (on failure removes it: -1 and err filled), or to pme_tmp_abort(), which
 * removes it (NULL ok).  Both free the name.  When path holds a device, a
 * FIFO or a socket of the caller's or root's (pme_out_special()), the
 * descriptor is on it, *tmp is NULL and commit and abort do nothing.
 */
int	 pme_tmp_create(const char *path, char **tmp, struct pme_error *err);
int	 pme_tmp_named(const char *path, char **tmp, struct pme_error *err);
int	 pme_tmp_commit(char *tmp, const char *path, struct pme_error *err);
void	 pme_tmp_abort(char *tmp);
/*
 * Outputs at a name that holds a device, a FIFO or a socket (/dev/null)
 * are written directly, not replaced; a name of a descriptor
 * (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N) is that
 * descriptor, whatever it is open on, as in a shell.  Returns 1 with *fd
 * open for writing (a duplicate of the named descriptor) when path is one
 * of those, a special file of the caller's or root's (reached, if through
 * symbolic links, through the caller's or root's); 0 (and *fd -1) when
 * path is to be
 * replaced through a temporary file (nothing there, a regular file, any
 * other symbolic link, which is then replaced and never followed); -1
 * with err filled otherwise (a directory, another user's special file).
 */
int	 pme_out_special(const char *path, int *fd, struct pme_error *err);

/*
 * Inputs where a file is meant.  pme_open_read() opens path for reading
 * (close-on-exec) when it is a regular file, the null device, or a name
 * of a descriptor (/dev/stdin, /dev/fd/N, /proc/self/fd/N: bash's
 * <(...)), which is read whatever it is open on, as in a shell; it
 * returns the descriptor, or -1 with err filled when path cannot be
 * opened or is a FIFO, a socket, a directory or another device ("'name':
 * a FIFO, not a regular file: not read").  The open never blocks, so a
 * FIFO planted at a default name or named in a file hangs nothing.
 * pme_fopen_read() is the same as a stream ("r"), NULL on failure.
 */
int	 pme_open_read(const char *path, struct pme_error *err);
FILE	*pme_fopen_read(const char *path, struct pme_error *err);

/*
 * Names from files made safe to show on a terminal or in a text file
 * (pmehisto(1)): each C0 control, DEL, C1 control (U+0080 to U+009F) and
 * each byte that is not part of valid UTF-8 becomes "\xHH" (two lower
 * case hexadecimal digits), a backslash becomes "\\", and the rest (valid
 * UTF-8) is kept.  pme_escape() writes the escaped s to out, as
 * snprintf(3) does: at most outlen bytes with the NUL, never part of an
 * escape or of a character; it returns the length of the whole escaped
 * form.  pme_escape_dup() returns it in memory the caller frees, NULL
 * when out of memory.
 */
size_t	 pme_escape(char *out, size_t outlen, const char *s);
char	*pme_escape_dup(const char *s);

/* Writes s to fp as a CSV field (RFC 4180): as it is, or in double
 * quotes, doubled, when it holds a comma, a quote or a line break. */
void	 pme_csv_field(FILE *fp, const char *s);

/* Sorts r[0..n) and merges overlapping or touching ranges in place;
 * returns how many are left. */
size_t		 pme_ranges_merge(struct pme_range *r, size_t n);

/*
 * Sorts the n elements of size bytes at v stably by a key of nwords
 * 64-bit words (at most PME_SORT_MAXWORDS), which key(e, k) writes for
 * element e, k[0] the least significant: a least-significant-digit radix
 * sort on bytes that skips the bytes every key shares, for large arrays
 * whose keys differ in few bytes.  tmp has room for n elements.  Returns
 * v or tmp, whichever holds the sorted elements; NULL when out of memory
 * or nwords is not 1 to PME_SORT_MAXWORDS (v is then unsorted).
 */
#define PME_SORT_MAXWORDS	4
void		*pme_radix_sort(void *v, void *tmp, size_t n, size_t size,
		    unsigned nwords, void (*key)(const void *, uint64_t *));
/*
 * Sorts the n elements of size bytes (at most PME_SORT_MAXSIZE) at v by
 * the one 64-bit word key(e, k) writes, in place: a most-significant-
 * digit radix sort (American flag sort) that needs no room for a copy,
 * for arrays large enough that a copy's memory, touched for the first
 * time, costs more than the sort (a page fault a page): it needs a byte
 * an element.  Not stable.  0, or -1 when out of memory or size is too
 * large (v is then unsorted).
 */
#define PME_SORT_MAXSIZE	64
int		 pme_radix_sort_inplace(void *v, size_t n, size_t size,
		    void (*key)(const void *, uint64_t *));

/* Byte buffer for building little-endian payloads. */
struct pme_buf {
	uint8_t	*p;
	size_t	 n, cap;
	int	 failed;	/* set once an append ran out of memory */
};
void	 pme_buf_u8(struct pme_buf *b, uint8_t v);
void	 pme_buf_u16(struct pme_buf *b, uint16_t v);
void	 pme_buf_u32(struct pme_buf *b, uint32_t v);
void	 pme_buf_u64(struct pme_buf *b, uint64_t v);
void	 pme_buf_bytes(struct pme_buf *b, const void *p, size_t n);
void	 pme_buf_str(struct pme_buf *b, const char *s);	/* u32 len + bytes */
void	 pme_buf_free(struct pme_buf *b);

/*
 * Cursor over a payload.  Every get checks the bytes left; the first short
 * read sets bad and later gets return zeroes, so a parser checks once at
 * the end (or before trusting a count) rather than after every field.
 */
struct pme_cur {
	const uint8_t	*p;
	size_t		 n;	/* bytes left */
	int		 bad;
};
uint8_t		 pme_cur_u8(struct pme_cur *c);
uint16_t	 pme_cur_u16(struct pme_cur *c);
uint32_t	 pme_cur_u32(struct pme_cur *c);
uint64_t	 pme_cur_u64(struct pme_cur *c);
const uint8_t	*pme_cur_bytes(struct pme_cur *c, size_t n);
/* A u32-length string; returns an arena copy, NUL-terminated, or NULL
 * (and bad) when short or when it holds a NUL byte. */
const char	*pme_cur_str(struct pme_cur *c, struct pme_arena *a);
/* 1 if count elements of at least minsize bytes each could still follow. */
int		 pme_cur_fits(const struct pme_cur *c, uint64_t count,
		    size_t minsize);

static inline void
pme_le32(uint8_t *p, uint32_t v)
{
	p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24;
}

static inline uint32_t
pme_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

/*
 * The GNU build-id of a note segment or section in memory, [p, p + len)
 * in the notes' 4-byte alignment: its length (*id set to its bytes), or
 * 0 when the notes have none of 1 to max bytes.  No libelf: the runtimes
 * read their loaded objects' notes and pmeclock its own vDSO's.
 */
uint32_t pme_note_buildid(const void *p, size_t len, size_t max,
	    const uint8_t **id);

#endif /* PME_UTIL_H */
