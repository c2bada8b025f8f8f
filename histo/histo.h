/*
 * histo.h - pmehisto's modules: reducing sample files into a bucket file
 * (reduce.c), routine buckets made from an executable when there is no
 * bucket file (quick.c), and the report built from a bucket file
 * (report.c).
 */
#ifndef HISTO_H
#define HISTO_H

#include <stddef.h>
#include <stdint.h>

#include "pme.h"
#include "pme_render.h"
#include "pme_sample.h"

/* Counts that fell in a mapping of no module of the bucket file (libc,
 * ld.so, the vdso, the kernel), by mapping path. */
struct foreign {
	char		*path;
	uint64_t	 count;
};

/* What reducing the sample files found, beyond the bucket file's counts. */
struct tally {
	struct pme_bucketfile *bf;	/* NULL until the quick path makes it */
	int		 quick;		/* make routine buckets for the
					   executable (pmehisto -x) */
	int		 quiet;
	const char	*prog;		/* for warnings */
	const char	*bfname;	/* the input bucket file, for warnings */
	size_t		 nmods;		/* the bucket file's modules as read */

	/* this run, all sample files together */
	size_t		 files;
	uint64_t	 samples;	/* samples read */
	uint64_t	 lost;		/* from the closing records */
	uint64_t	 unmapped;	/* in no mapping and no absolute bucket */
	uint64_t	 period;	/* of the first file */
	int		 periods_differ;
	uint64_t	 duration;	/* ns, summed over the files */
	uint64_t	 threads, processes;
	uint32_t	 method, event;
	char		*note;		/* of the first file, or NULL */
	char		*command;	/* of the first file, or NULL */
	int		 status;	/* exit status, -1 if unknown */
	struct foreign	*foreign;
	size_t		 nforeign;
	char		*quick_path;	/* the executable -x read */
};

void	 tally_init(struct tally *t, struct pme_bucketfile *bf);
void	 tally_free(struct tally *t);
/*
 * Reads the sample file path and adds its samples to t->bf's counts.
 * Warns (on stderr) when the file was cut short or matched no module.
 * Returns 0, or -1 with err filled.
 */
int	 tally_file(struct tally *t, const char *path, struct pme_error *err);

/* Fills err (when not NULL) with code and a message; returns -1. */
int	 histo_err(struct pme_error *err, enum pme_errcode code,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * One bucket per routine of the executable or shared object path, in a
 * group "PROGRAM name BY ROUTINE"; its load module has the build-id the
 * image holds and flags (PME_MODULE_MAIN for the executable).
 */
struct pme_bucketfile *quick_build(const char *path, uint32_t flags,
	    const uint8_t *buildid, uint32_t idlen, struct pme_error *err);

/* A bucket lookup faster than pme_bucketfile_lookup() (index.c). */
struct bindex;
struct bindex	*bindex_build(struct pme_bucketfile *bf);	/* NULL: no
								   memory */
void		 bindex_free(struct bindex *x);		/* NULL ok */
/* The bucket of addr in module (PME_NONE: absolute addresses) or
 * PME_NONE; [*lo, *hi) is then the bucket range holding addr, or empty
 * when that is unknown. */
uint32_t	 bindex_lookup(const struct bindex *x, uint32_t module,
		    uint64_t addr, uint64_t *lo, uint64_t *hi);

/* What the report needs besides the bucket file. */
struct report_input {
	const char	*bucket_in;	/* names for the summary */
	const char	*bucket_out;	/* NULL for trace input */
	const char *const *samples;
	size_t		 nsamples;
	const struct tally *tally;	/* NULL for trace input */
	unsigned	 flags;		/* PME_REPORT_* */
	double		 cutoff;
};

struct pme_report *report_build(struct pme_bucketfile *bf,
	    const struct report_input *in, struct pme_error *err);

#endif /* HISTO_H */
