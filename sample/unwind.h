/*
 * unwind.h - call chains from the CFI (.eh_frame, .debug_frame) for the
 * perf method: each sample brings the user registers and a copy of the
 * top of the user stack (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER);
 * elfutils' libdwfl unwinds them in the collector, with the modules of
 * the sample's process as its mappings recorded them, and only the
 * frames are kept.
 */
#ifndef PMECLOCK_UNWIND_H
#define PMECLOCK_UNWIND_H

#include <stdint.h>

#include "pme_sample.h"

struct unwinder;
struct clockopts;

/*
 * -G's argument into o: -1 to go on, else the exit status (2 a bad
 * argument, 1 CFI unwinding not built in) with err, for the caller to
 * say.  callgraph_check(), once the method is chosen: the in-process
 * methods walk frame pointers, which -g with dwarf then falls back to,
 * noted in the sample file's header (o->note); 1 when it did, with err
 * what the caller says of it (unless -q), else 0.  Nothing here prints.
 */
int	 callgraph_option(struct clockopts *o, const char *arg,
	    struct pme_error *err);
int	 callgraph_check(struct clockopts *o, struct pme_error *err);

/* Whether CFI unwinding is built in and runs on this architecture. */
int	 unwind_available(void);
/* The perf_event_attr sample_regs_user mask unwind_sample() wants. */
uint64_t unwind_regs_mask(void);

/* A new unwinder (NULL when out of memory or not available), timing its
 * chains when timed is not 0 (unwind_counts()); free: NULL
 * ok.  Nothing it does prints. */
struct unwinder *unwind_new(int timed);
void	 unwind_free(struct unwinder *u);

/*
 * Process pid maps file (the file to open for m->path, which may be a
 * /proc/PID/map_files name when m->path is gone) at m->start with
 * m->vaddr its link-time address.  An earlier mapping of pid over the
 * same addresses is forgotten.  -1 when out of memory.
 */
int	 unwind_mapping(struct unwinder *u, const struct pme_mapping *m,
	    const char *file);
/* Process pid was forked by ppid (its mappings are a copy); pid exec'd
 * or ended (its mappings are gone). */
int	 unwind_fork(struct unwinder *u, uint32_t ppid, uint32_t pid);
void	 unwind_forget(struct unwinder *u, uint32_t pid);

/*
 * The call chain of a sample of thread tid of pid: regs are the
 * registers of unwind_regs_mask() in the kernel's order, stack the
 * len bytes copied from the stack pointer up.  Fills frames[0..*n) (at
 * most max), outermost last; the first is the innermost frame's pc.
 * Returns 1 when the chain reached the outermost frame, 0 when it is
 * truncated (no CFI or no module for a pc, the copy of the stack too
 * short, max frames).
 */
int	 unwind_sample(struct unwinder *u, uint32_t pid, uint32_t tid,
	    const uint64_t *regs, const uint8_t *stack, uint64_t len,
	    uint64_t *frames, uint32_t max, uint32_t *n);

/* Chains unwound, of which truncated, and the nanoseconds spent (0
 * unless unwind_new() was told to time them). */
void	 unwind_counts(const struct unwinder *u, uint64_t *chains,
	    uint64_t *truncated, uint64_t *ns);
/* Of the chains, those the table of recent chains gave (unwind.c); with
 * PME_UNWIND_CHECK in the environment, those of them unwound again by
 * libdwfl to compare, and how many of these differed (checked
 * UINT64_MAX without it). */
void	 unwind_cache_counts(const struct unwinder *u, uint64_t *hits,
	    uint64_t *checked, uint64_t *differ);

#endif /* PMECLOCK_UNWIND_H */
