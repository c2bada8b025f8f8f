/*
 * calls.h - the call graph the views are printed from (calls.c), shared
 * by spy.c and callgraph.c only.  Counts are sampling intervals, as the
 * histogram's; a procedure is a frame id (histo.h FRAME_*): the unit of
 * a bucket, or a load module or mapping outside the buckets.
 */
#ifndef CALLS_H
#define CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "histo.h"

#define CALLS_NONE	UINT32_MAX
#define SITE_ANY	UINT64_MAX	/* an edge of all call sites */

struct proc {
	uint64_t	 id;		/* frame id */
	char		*name;		/* escaped, as the reports print */
	uint64_t	 self;		/* samples in it */
	uint64_t	 total;		/* samples with it in the stack, each
					   once however deep it recursed */
	uint32_t	 refs;		/* distinct call sites calling it */
	uint32_t	 idom;		/* its immediate dominator in the call
					   graph, CALLS_NONE: the root */
	int		 outer;		/* outermost frame of some stack */
	uint64_t	 stamp;		/* the last stack that counted it */
};

struct edge {			/* caller calls callee at site */
	uint32_t	 caller, callee;
	uint64_t	 site;		/* link-time address of the call (the
					   byte before the return address),
					   or SITE_ANY: all sites together */
	uint64_t	 count;		/* samples with the call in their
					   chain, each once */
	uint64_t	 self;		/* of those, the samples in callee
					   itself (however deep below) */
	uint64_t	 stamp;
};

struct pcount {			/* samples at one pc of a procedure */
	uint32_t	 proc;
	uint64_t	 addr;		/* link-time */
	uint64_t	 home;		/* the frame id of the routine or
					   module holding addr: proc's, or
					   with --inline the one it is
					   inlined into */
	uint64_t	 count;
};

struct thr {
	uint32_t	 pid, tid;
	uint64_t	 count;
};

struct tproc {			/* samples of a thread in a procedure */
	uint32_t	 thr, proc;
	uint64_t	 count;
};

struct imap {			/* keys of w words to indices */
	uint64_t	*k;
	uint32_t	*v;		/* CALLS_NONE: empty */
	size_t		 cap, n;
	unsigned	 w;
};

struct calls {
	const struct tally *t;
	struct proc	*p;
	struct edge	*e;
	struct pcount	*pc;
	struct thr	*th;
	struct tproc	*tp;
	size_t		 np, ne, npc, nth, ntp;
	size_t		 capp, cape, cappc, capth, captp;
	struct imap	 mp, me, mpc, mth, mtp;
	uint64_t	 total;		/* samples */
	uint64_t	 stacks;	/* distinct stacks */
	uint64_t	 chained;	/* samples with a call chain */
	uint32_t	 deepest;	/* frames of the deepest stack */
	uint64_t	 stamp;
	int		 failed;
};

/* The pairs (a[i], b[i]), i < n, a[i] < nn, grouped by a: the b of a
 * node k are (*adj)[(*off)[k] .. (*off)[k + 1]), in order; both arrays
 * the caller's to free (also after -1, no memory). */
int		 calls_csr(const uint32_t *a, const uint32_t *b, size_t n,
		    size_t nn, uint32_t **off, uint32_t **adj);
/* The percentage n is of c's samples. */
double		 calls_pct(const struct calls *c, uint64_t n);
/* Whether n is at or above cutoff percent of c's samples. */
int		 calls_shown(const struct calls *c, uint64_t n, double cutoff);
/* Sorts v[0..n) of procedure indices by total, largest first, then by
 * name and id. */
void		 calls_sort_total(const struct calls *c, uint32_t *v, size_t n);

#endif /* CALLS_H */
