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
 * of one load module).  An image other than v[0] that cannot be read, or
 * is not the file that ran, is left out: its samples stay outside
 * buckets, under its name.  No routine in any image is PME_EFORMAT.
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
 * Adds the kernel to bf, a quick path's bucket file (its last group):
 * under its PROGRAM unit a MODULE unit "[kernel]" of absolute addresses
 * (no load module: kernel samples are in no mapping) and ROUTINE units
 * with their buckets: from kallsyms (the path of /proc/kallsyms, or NULL
 * when it is not this boot's), when it can be read and gives addresses,
 * the kernel routine that holds each of pcs[0..n) (its end the next
 * symbol's address), and "[kernel]" for the rest of the kernel's half of
 * the address space; else "[kernel]" alone over it.  cachedir, when not
 * NULL, is the directory of the cache of the kernel's own symbols
 * (kallsyms.h): read instead of kallsyms when it is this boot's and
 * answers for every pc, written when it was not there, stale or damaged
 * and kallsyms was read.  Returns 0, or -1 with err filled.
 */
/*
 * What pme_quick_add_kernel() reads: the routines of pcs[0..n) (sorted),
 * from the cache in cachedir when it is this boot's and answers for them
 * all, else from kallsyms, whose kernel's own symbols are then cached.
 * Each routine once, by address, into r[0..*nr) (n + 1 of room), the
 * index of its symbol in k into owner; the rest of the kernel's half into
 * rest[0..*nrest) (n + 2 of room).  k (kallsyms.h) holds the names, empty
 * when there are none; free it with pme_ksyms_free().  0, or -1 when
 * memory ran out.
 */
struct pme_ksyms;
int		 pme_quick_kernel_symbols(struct pme_ksyms *k,
		    const char *kallsyms, const char *cachedir,
		    const uint64_t *pcs, size_t n, struct pme_range *r,
		    size_t *owner, size_t *nr, struct pme_range *rest,
		    size_t *nrest);
int		 pme_quick_add_kernel(struct pme_bucketfile *bf,
		    const uint64_t *pcs, size_t n, const char *kallsyms,
		    const char *cachedir, struct pme_error *err);

#endif /* PME_QUICK_H */
