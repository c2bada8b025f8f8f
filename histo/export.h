/*
 * export.h - what the exports of call stacks (export.c, svg.c, pprof.c)
 * share: the stacks of -T folded (folded.c) with each frame id replaced
 * by its name's index, names in byte order, so that frames of one name
 * are one frame, as on -T folded's lines.
 */
#ifndef EXPORT_H
#define EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "histo.h"

/* A frame name; its path and file escaped (pme_escape) as names are:
 * the formats are text lines, XML and UTF-8 strings. */
struct xname {
	char		*name;		/* stacks_frame_name() */
	uint64_t	 id;		/* the least frame id of that name */
	char		*path;		/* its load module or mapping, or NULL */
	char		*file;		/* its unit's source file, or NULL */
	const struct pme_module *mod;	/* its module in the bucket file, or
					   NULL */
	uint64_t	 addr;		/* its unit's first link-time address;
					   0 when it is no unit's */
	uint32_t	 line;		/* its unit's source line, or 0 */
	int		 kernel;	/* stacks_frame_kernel() */
};

/* A frame name at an address (t->addrs): the sampled pc, or a call's
 * return address less one, link-time; its line from the DWARF line
 * table of its module in the bucket file (that build of it), file NULL
 * and line 0 where none says.  With --inline the functions inlined at
 * an address are frames at that address too, each of a level: 0 the
 * innermost, whose line is the line table's, each out from it one more
 * and its line the call site of the one inside it (addr2line -i). */
struct xloc {
	uint32_t	 name;
	uint64_t	 addr;
	uint32_t	 level;
	uint32_t	 mod;		/* its module in the bucket file (an
					   inlined function's: its routine's),
					   or PME_NONE */
	const char	*file;		/* escaped; the model owns it */
	uint32_t	 line;
};

struct xstack {
	size_t		 off;		/* first name index in the pool */
	uint32_t	 n;		/* outermost first */
	uint64_t	 count;
};

struct xmodel {
	const struct tally *t;
	struct xname	*names;		/* in byte order */
	size_t		 nnames;
	struct xstack	*st;		/* distinct, in the order of their
					   name indices (so of their names) */
	size_t		 nst;
	uint32_t	*pool;
	uint64_t	*addr;		/* with t->addrs: beside the pool, each
					   frame's address; else NULL */
	uint32_t	*locof;		/* with addr: beside the pool, each
					   frame's index in locs */
	uint32_t	*level;		/* with addr: beside the pool, each
					   frame's level (xloc); a frame whose
					   outer neighbour is of level 0 is
					   the outermost at its address */
	struct xloc	*locs;		/* distinct, by name and address */
	size_t		 nlocs;
	char		**files;	/* what locs' files point to */
	size_t		 nfiles;
	char		*command;	/* t->command escaped (pme_escape), or
					   NULL */
	uint64_t	 total;		/* samples: all stacks' counts */
	size_t		 depth;		/* the longest stack */
	const struct xmodel *base;	/* what -D compares with, or NULL */
};

/* The frame names' module paths and files, each once: an index per
 * distinct string, for the formats that number them.  Zeroed when
 * empty; the strings are the caller's. */
struct strset {
	const char	**s;		/* by index */
	size_t		 n;
	size_t		*slot;		/* hash table: index + 1, 0 empty */
	size_t		 cap;
};

/* The index of str in set, added if new; (size_t)-1 when out of
 * memory. */
size_t	 strset_add(struct strset *set, const char *str);
void	 strset_free(struct strset *set);

/* The callgrind file (export.c) and the SVG flame graph (svg.c) of m,
 * written to fp; 0, or -1 when out of memory or a write failed. */
int	 callgrind_write(const struct xmodel *m, FILE *fp);
/* The callgrind file of a filled bucket file's counts (trace input:
 * pmetrace's instructions, and its calls as an event), to fp; 0, or -1
 * when out of memory or a write failed. */
int	 callgrind_counts(struct pme_bucketfile *bf, FILE *fp);
int	 svg_write(const struct xmodel *m, FILE *fp);
/* The gzipped profile.proto of m (pprof.c); 0, or -1 with err filled. */
int	 pprof_make(const struct xmodel *m, struct export_out *out,
	    struct pme_error *err);

#endif /* EXPORT_H */
