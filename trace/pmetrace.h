/*
 * pmetrace.h - libpmetrace: counts every instruction a region of a
 * program executes into the buckets of a bucket file, the seed's PMETRACE
 * subroutines.  See libpmetrace(3).  Link with -lpmetrace (shared) or
 * libpmetrace.a -lz (static).  The entry points are those of libpmeclock
 * (pmeclock.h), so that relinking switches a program between clock and
 * trace.
 */
#ifndef PMETRACE_H
#define PMETRACE_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Names the empty bucket file pme_init() reads (default PMEFILE.PME).  A
 * name whose last component has no extension gets .PME; trailing blanks
 * are trimmed.  Only before pme_init(); the name is copied.
 */
void	pme_iname(const char *name);
/*
 * Reads the bucket file and starts counting: every instruction the
 * calling thread (and the threads it creates) executes from here on is
 * tallied into its buckets.  Under pmetrace(1)'s callgrind engine the
 * region is marked for callgrind instead; under its step engine the whole
 * program is counted by pmetrace and this does nothing.  Problems are
 * reported on standard error; the program goes on unmeasured.
 */
void	pme_init(void);
/* Names the filled bucket file pme_exit() writes (default PMEFILE.PME);
 * the same rules as pme_iname().  Only before pme_exit(). */
void	pme_oname(const char *name);
/* Stops counting and writes the filled bucket file.  Does nothing when
 * counting is off. */
void	pme_exit(void);
/* A dummy for libpmeclock compatibility: it returns at once. */
void	pme_sname(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* PMETRACE_H */
