/*
 * quick.h - the quick path's routine buckets: a bucket per routine of an
 * executable with no .PMD, as pmehisto makes them when it has no bucket
 * file and as pmebuild -x compiles them.  One builder, so that the two
 * make the same units and buckets.  Internal: in libpme.a for the
 * programs, hidden from libpme.so's exports (lib/libpme.map).
 */
#ifndef PME_QUICK_H
#define PME_QUICK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pme.h"
#include "kallsyms.h"
#include "pme_symbols.h"

/*
 * Which routines of img get a routine bucket: an array indexed as
 * pme_image_routines() is, 1 for a bucket, that the caller frees; NULL
 * when memory ran out.  *nkept says how many got one.  None of a module
 * without ranges (pmebuild makes no unit of it), and none of a routine a
 * range of which overlaps a routine before it in address order (a symbol
 * inside another, code folded across compilation units): buckets of a
 * group may not overlap.  Aliases are not among the left out: the symbol
 * reader makes code with several names one routine.
 */
uint8_t		*pme_quick_pick(const struct pme_image *img, size_t *nkept);

/* Writes name to fp quoted as a .PMD name: in double quotes, doubled. */
void		 pme_quick_quote(FILE *fp, const char *name);

/*
 * The bucket file that "pmebuild -x path" compiles: kinds PROGRAM, MODULE
 * and ROUTINE; unit PROGRAM named after path's last component, its ranges
 * its modules'; a MODULE unit per module with ranges, in the image's
 * order; under each the ROUTINE units pme_quick_pick() keeps, in its
 * order; one group PROGRAM "name" BY ROUTINE with their buckets, in unit
 * order.  The load module is path made absolute, with flags and the
 * image's build-id (buildid when it has none).  When both have one and
 * they differ, the file is not the one that ran: PME_EINVAL.  No routine
 * to make a bucket of is PME_EFORMAT.  A new handle the caller closes, or
 * NULL with err filled.
 */
struct pme_bucketfile *pme_quick_build(const char *path, uint32_t flags,
		    const uint8_t *buildid, uint32_t idlen,
		    struct pme_error *err);

/* One image of pme_quick_build_images(). */
struct pme_quick_image {
	const char	*path;		/* the file to read */
	const uint8_t	*buildid;	/* the build-id recorded, or NULL */
	uint32_t	 idlen;
	uint32_t	 flags;		/* its load module's PME_MODULE_* */
};

/*
 * The quick path's bucket file of several images (the main program, its
 * shared libraries): as pme_quick_build() makes it of v[0] and program,
 * with a load module per image that has routines, in v's order, and its
 * MODULE and ROUTINE units; all their buckets in the one group.  When
 * there are several, the PROGRAM unit has no ranges (a unit's ranges are
 * of one load module).  An image other than v[0] (or, of several main
 * programs, any; or one no path opens, a program run from a memfd) that
 * cannot be read, or is not the file that ran, is left out while
 * another's buckets are made: its samples stay outside buckets, under its
 * name; when no image's are, the first such error is the call's.  No
 * routine in any image is PME_EFORMAT.
 */
struct pme_bucketfile *pme_quick_build_images(const struct pme_quick_image *v,
		    size_t n, const char *program, struct pme_error *err);

/*
 * As pme_quick_build_images(), but for a report that shows no bucket
 * without counts (no filled bucket file written): only the routines (and
 * PLT stubs) with one of addrs[0..naddrs) (sorted link-time addresses,
 * those samples fell at, in any image) in their ranges get a unit and a
 * bucket; *unmade says how many of the rest pme_quick_build_images()
 * would have made.  The units of the load modules, the program and the
 * modules are made as there, so that samples fall where they would.
 */
struct pme_bucketfile *pme_quick_build_sampled(const struct pme_quick_image *v,
		    size_t n, const char *program, const uint64_t *addrs,
		    size_t naddrs, size_t *unmade, struct pme_error *err);

/*
 * The kernel routines that hold pcs[0..n) (in any order), for the quick
 * path's rows: from the cache in cachedir (when not NULL) when it is
 * this boot's and answers for them all, else from kallsyms (the path of
 * /proc/kallsyms, or NULL when it is not this boot's), whose kernel's own
 * symbols are then cached.  Each routine once, by address, in r[0..nr),
 * ended by the next symbol; the rest of the kernel's half of the address
 * space in rest[0..nrest); the names in k (kallsyms.h), none when
 * kallsyms cannot be read or gives no addresses.  Returns 0, or -1 when
 * memory ran out; free kr with pme_quick_kernel_free() either way.
 */
struct pme_kroutines {
	struct pme_ksyms  k;
	struct pme_range *r;
	size_t		 *owner;	/* r[i]'s symbol: k's owner[i]'th */
	size_t		  nr;
	struct pme_range *rest;
	size_t		  nrest;
};
int		 pme_quick_kernel_routines(struct pme_kroutines *kr,
		    const uint64_t *pcs, size_t n, const char *kallsyms,
		    const char *cachedir);
void		 pme_quick_kernel_free(struct pme_kroutines *kr);

/*
 * Adds the kernel to bf, a quick path's bucket file (its last group):
 * under its PROGRAM unit a MODULE unit "[kernel]" of absolute addresses
 * (no load module: kernel samples are in no mapping) and ROUTINE units
 * with their buckets: kr's routines, and "[kernel]" for the rest;
 * "[kernel]" alone over the kernel's half when kr has none.  Returns 0,
 * or -1 with err filled.
 */
int		 pme_quick_add_kernel(struct pme_bucketfile *bf,
		    const struct pme_kroutines *kr, struct pme_error *err);

#endif /* PME_QUICK_H */
