/*
 * pmd.h - pmebuild's program definition language (.PMD): the statements of
 * section 5 of the PME manual, the program unit tree they build, and the
 * bucket groups made from it.  See pmd(5).
 */
#ifndef PMD_H
#define PMD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pme.h"
#include "util.h"

#define PMD_MAXKINDS	10		/* the seed's limit */
#define PMD_MAXGROUPS	1000		/* the seed's ten, raised */
#define PMD_MAXBUCKETS	(1u << 24)	/* table size; overflow is an error */
/* Buckets one step of one unit may make: 'MODULE M, 0 - FFFFFF, 1' in
 * a .PMD of 90 bytes asked for 16,777,216 (40 s, 1.6 GB). */
#define PMD_MAXSTEP	(1u << 20)

enum pmd_mode {
	PMD_MODE_NONE,		/* before any DEFINE UNITS */
	PMD_MODE_UNITS,
	PMD_MODE_ADDRESSES,
	PMD_MODE_SAMPLING,
	PMD_MODE_DONE		/* END seen */
};

struct pmd_unit {
	const char	*name;		/* interned; line units': in the arena,
					   found by strcmp (pmd_lookup) */
	const char	*file;		/* line and routine units: source file */
	struct pme_range *r;		/* ranges, sorted and merged */
	uint32_t	*ch;		/* subunits, in list order */
	const char	**aliases;	/* routine units: other names of its
					   code (pme_symbols.h), interned */
	uint64_t	 step;
	uint32_t	 nr, rcap;
	uint32_t	 nch, chcap;
	uint32_t	 kind;
	uint32_t	 parent;	/* unit index or PME_NONE; always below
					   the unit's own index */
	uint32_t	 module;	/* load module index or PME_NONE */
	uint32_t	 flags;		/* PME_UNIT_* */
	uint32_t	 line;		/* line units: source line */
	uint32_t	 naliases;
	/* Flags of a byte each: a big program has a million units. */
	uint8_t		 ownfile;	/* line units: of the module's own
					   source file (named "34" too) */
	uint8_t		 mixed;		/* subunits lie in several load modules */
	uint8_t		 unhashed;	/* has subunits missing from the hash */
	uint8_t		 hashed;	/* is in the hash */
};

/* One range of one bucket, kept to check overlaps between groups. */
struct pmd_span {
	uint64_t	 start, end;
	uint32_t	 module;
	uint32_t	 bucket;
};

struct pmd_bucket {
	uint32_t	 unit;
	uint32_t	 group;
	size_t		 range;		/* into pmd.bucket_ranges */
	uint32_t	 nranges;
};

struct pmd_group {
	const char	*statement;
	uint32_t	 unit;
	uint32_t	 bykind;
	uint32_t	 first, count;
};

struct pmd_module {		/* a load module: an EXE, or the MAP's program */
	const char	*path;		/* absolute when known, "" if unknown */
	uint8_t		*buildid;
	uint32_t	 buildid_len;
	uint32_t	 flags;		/* PME_MODULE_* */
};

struct pmd {
	/* where messages go, and how */
	FILE		*out;		/* LIST and PRINT output */
	FILE		*msg;		/* errors and warnings */
	const char	*prog;		/* program name in messages */
	const char	*file;		/* current input name */
	unsigned	 line;		/* current input line */
	int		 interactive;	/* errors come from a terminal */
	unsigned	 errors;	/* errors outside interactive input */
	unsigned	 warnings;
	int		 quiet;
	int		 nofiles;	/* EXE and MAP refused (fuzzing) */
	int		 quick;		/* pmebuild -x: EXE makes units of the
					   routines pme_quick_pick() picks */
	int		 nodemangle;	/* EXE routines keep their raw names */
	size_t		 maxbuckets;	/* PMD_MAXBUCKETS, less for fuzzing */

	enum pmd_mode	 mode;
	uint32_t	 options;	/* PME_OPT_* */

	char		*kinds[PMD_MAXKINDS];
	uint32_t	 nkinds;

	struct pme_arena arena;
	struct pme_intern names;
	struct pme_vec	 units;		/* struct pmd_unit */
	struct pme_vec	 roots;		/* uint32_t: units without parent */
	uint32_t	 open[PMD_MAXKINDS]; /* latest unit of each kind */
	uint32_t	*hash;		/* (kind, parent, name) -> unit */
	size_t		 hashcap;
	size_t		 nhashed;	/* units in the hash */

	struct pme_vec	 modules;	/* struct pmd_module */

	struct pme_vec	 groups;	/* struct pmd_group */
	struct pme_vec	 buckets;	/* struct pmd_bucket */
	struct pme_vec	 bucket_ranges;	/* struct pme_range */
	struct pme_vec	 spans;		/* struct pmd_span, sorted */
};

/* A token of a statement. */
enum pmd_tok { PMD_T_END, PMD_T_WORD, PMD_T_STRING, PMD_T_COMMA,
    PMD_T_COLON, PMD_T_DASH, PMD_T_BAD };

struct pmd_token {
	enum pmd_tok	 type;
	const char	*text;		/* NUL-terminated copy */
	size_t		 col;		/* 1-based column */
};

/* lex.c */
int	 pmd_lex(const char *line, struct pmd_token **toks, size_t *ntoks,
	    char **store, const char **why);

/* pmd.c */
void	 pmd_init(struct pmd *p, FILE *out, FILE *msg, const char *prog);
void	 pmd_free(struct pmd *p);
/* Frees the unit list (units, their ranges and subunits, the hash). */
void	 pmd_free_units(struct pmd *p);
/* Executes one input line; returns 0, or -1 after reporting an error. */
int	 pmd_statement(struct pmd *p, const char *line);
void	 pmd_error(struct pmd *p, const char *fmt, ...) PME_PRINTF(2, 3);
void	 pmd_warn(struct pmd *p, const char *fmt, ...) PME_PRINTF(2, 3);
const char *pmd_prompt(const struct pmd *p);
/* Unit i; inline: the line units' passes call it a million times. */
static inline struct pmd_unit *
pmd_unit(struct pmd *p, uint32_t i)
{
	return &PME_VEC_AT(&p->units, struct pmd_unit, i);
}
uint32_t pmd_nunits(const struct pmd *p);
int	 pmd_kind_is(const struct pmd *p, uint32_t kind, const char *name);
uint32_t pmd_find_kind(const struct pmd *p, const char *name);

/* units.c: the unit tree and what EXE and MAP put in it */
uint32_t pmd_add_unit(struct pmd *p, const char *name, uint32_t kind,
	    uint32_t parent);
uint32_t pmd_lookup(struct pmd *p, uint32_t kind, const char *name,
	    uint32_t parent_hint);
int	 pmd_add_range(struct pmd *p, uint32_t u, uint64_t start, uint64_t end);
int	 pmd_exe(struct pmd *p, const char *path, const char *psect);
int	 pmd_map(struct pmd *p, const char *path, const char *psect);
uint32_t pmd_new_parent(struct pmd *p, uint32_t kind,
	    const struct pme_range *r, size_t n);
/* Fills derived ranges of units without their own (from their subunits). */
void	 pmd_derive(struct pmd *p);

/* sampling.c: bucket groups, PRINT, and the bucket file */
int	 pmd_sample_unit(struct pmd *p, const char *stmt, uint32_t u,
	    int haswin, uint64_t wstart, uint64_t wend, uint64_t step);
int	 pmd_sample_by(struct pmd *p, const char *stmt, uint32_t u,
	    uint32_t bykind);
void	 pmd_clear(struct pmd *p);
/* Writes the bucket file, spending the unit list and the strings as the
 * file takes its copies: only the groups' and buckets' counts are left,
 * for pmd_free(). */
int	 pmd_write(struct pmd *p, const char *path, struct pme_error *err);

/*
 * For the libFuzzer target: parses text in memory as a .PMD (EXE and MAP
 * refused: no file is read), writes nothing.  Returns the statements in
 * error, and the buckets made in *nbuckets; -1 when memory ran out.
 */
int	 pmd_fuzz_one(const unsigned char *data, size_t size,
	    size_t *nbuckets);

#endif /* PMD_H */
