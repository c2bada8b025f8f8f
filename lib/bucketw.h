/*
 * bucketw.h - what a writer that builds a bucket file from strings of its
 * own may tell lib/bucket.c (pmebuild's fill(), build/sampling.c).
 */
#ifndef PME_BUCKETW_INTERNAL_H
#define PME_BUCKETW_INTERNAL_H

#include "pme.h"

/*
 * From now on bf keeps the strings given to it (names, files, paths,
 * statements) as they are, not copies: the caller keeps each alive and
 * unchanged until bf is closed.  A writer that holds its strings anyway
 * (pmebuild: a name for each of a big program's line units) then does
 * not have them twice, nor the time to copy them.
 */
void	pme_bucketfile_borrow_strings(struct pme_bucketfile *bf);

#endif /* PME_BUCKETW_INTERNAL_H */
