/*
 * runtime.h - the libpmeclock runtime's parts: runtime.c (sampling,
 * buffers, the writer thread, pme_init and friends) and interpose.c (the
 * preload entry and the interposed pthread_create, dlopen and exec
 * functions, only in the shared library).  Nothing here is exported.
 */
#ifndef PMECLOCK_RUNTIME_H
#define PMECLOCK_RUNTIME_H

#include <stdint.h>

#define RT_HIDDEN __attribute__((visibility("hidden")))
#define RT_EXPORT __attribute__((visibility("default")))

/* Starts recording for pmeclock(1) from the environment (PMECLOCK_FD). */
RT_HIDDEN void	rt_preload_start(void);
/* Thread life, from the pthread_create trampoline; ptid: the creator. */
RT_HIDDEN void	rt_thread_begin(uint32_t ptid);
RT_HIDDEN void	rt_thread_end(void *unused);
/* Whether pthread_create should wrap the new thread's start. */
RT_HIDDEN int	rt_wants_threads(void);
/* After a dlopen that started at time t (CLOCK_MONOTONIC ns). */
RT_HIDDEN void	rt_dlopened(uint64_t t);
/* Before an exec: writes out what is buffered. */
RT_HIDDEN void	rt_before_exec(void);
/* After an exec that failed. */
RT_HIDDEN void	rt_after_exec(void);
RT_HIDDEN uint64_t rt_now(void);
RT_HIDDEN uint32_t rt_gettid(void);

#endif /* PMECLOCK_RUNTIME_H */
