/*
 * pmeclock.h - libpmeclock: clock-driven program counter sampling of a
 * region of a program, the seed's PMECLOCK subroutines.  See
 * libpmeclock(3).  Link with -lpmeclock (shared) or libpmeclock.a -lz
 * -lpthread (static).
 */
#ifndef PMECLOCK_H
#define PMECLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Names the sample file pme_init() creates (default PMEFILE.PMS).  A
 * name whose last component has no extension gets .PMS; trailing blanks
 * are trimmed.  Only before pme_init(); the name is copied.
 */
void	pme_sname(const char *name);
/*
 * Creates the sample file and starts sampling the calling process every
 * 10 ms of CPU time (all its threads).  Does nothing when sampling is
 * already on or when the process runs under pmeclock(1), which then
 * records it.  Problems are reported on standard error; the program goes
 * on unsampled.
 */
void	pme_init(void);
/* Stops sampling, writes the last buffer and the closing record, closes
 * the file.  Does nothing when sampling is off. */
void	pme_exit(void);
/* Dummies for libpmetrace compatibility: they return at once. */
void	pme_iname(const char *name);
void	pme_oname(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* PMECLOCK_H */
