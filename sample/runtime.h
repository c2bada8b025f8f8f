/*
 * runtime.h - the libpmeclock runtime's parts: runtime.c (sampling,
 * buffers, the writer thread, the signals it shares with the program,
 * pme_init and friends) and interpose.c (the preload entry and the
 * interposed pthread_create, dlopen, exec, exit and signal functions,
 * only in the shared library).  Nothing here is exported.
 */
#ifndef PMECLOCK_RUNTIME_H
#define PMECLOCK_RUNTIME_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>

#define RT_HIDDEN __attribute__((visibility("hidden")))
#define RT_EXPORT __attribute__((visibility("default")))

/* Starts recording for pmeclock(1) from the environment (PMECLOCK_FD). */
RT_HIDDEN void	rt_preload_start(void);
/* Thread life, from the pthread_create trampoline; ptid: the creator,
 * want: whether it had asked for the sampling signal to be blocked
 * (rt_want_blocked() in the creator). */
RT_HIDDEN void	rt_thread_begin(uint32_t ptid, int want);
RT_HIDDEN void	rt_thread_end(void *unused);
RT_HIDDEN int	rt_want_blocked(void);
/* Whether pthread_create should wrap the new thread's start. */
RT_HIDDEN int	rt_wants_threads(void);
/* After a dlopen that started at time t (CLOCK_MONOTONIC ns). */
RT_HIDDEN void	rt_dlopened(uint64_t t);
/* Before an exec of path (flags and id: what setid_exec() said of it):
 * writes out what is buffered. */
RT_HIDDEN void	rt_before_exec(const char *path, uint32_t flags,
		    uint32_t id);
/* After an exec that failed. */
RT_HIDDEN void	rt_after_exec(void);
/* The image ends without its destructor (_exit, quick_exit, a fatal
 * signal): sends what is buffered and the closing messages. */
RT_HIDDEN void	rt_final(void);
RT_HIDDEN uint64_t rt_now(void);
RT_HIDDEN uint32_t rt_gettid(void);

/*
 * The program's calls for the signals the runtime shares with it.
 * rt_sigaction() and rt_setitimer() return 1 when they did the call (its
 * result in *rc), 0 when the caller should call libc's.  rt_sigmask()
 * calls fn, pthread_sigmask or sigprocmask, and returns its result.
 * rt_take() records that the program took ITIMER_PROF.
 */
RT_HIDDEN int	rt_sigaction(int sig, const struct sigaction *act,
		    struct sigaction *oact, int *rc);
RT_HIDDEN int	rt_sigmask(int how, const sigset_t *set, sigset_t *old,
		    int (*fn)(int, const sigset_t *, sigset_t *));
RT_HIDDEN int	rt_setitimer(int which, const struct itimerval *nv,
		    struct itimerval *ov, int *rc);
RT_HIDDEN void	rt_take(int flag);

/* Sends a message to pmeclock (runtime.c). */
RT_HIDDEN void	rt_send(const void *m, size_t len);
/*
 * The heap recording (heap.c, the shared library only; weak, absent
 * from the static one).  rt_heap_start() starts it as how says
 * (PMECLOCK_HEAP: "dwarf" or "fp"; NULL or else: not at all);
 * rt_heap_flush() sends what is buffered, rt_heap_stop() too and
 * records no more; rt_heap_final() is rt_heap_stop() from a signal
 * handler or _exit, which only tries the lock.  rt_heap_hold() and
 * rt_heap_release() bracket the runtime's own work on a thread of the
 * program, whose allocations are not the program's.
 */
RT_HIDDEN void	rt_heap_start(const char *how) __attribute__((weak));
RT_HIDDEN void	rt_heap_flush(void) __attribute__((weak));
RT_HIDDEN void	rt_heap_stop(void) __attribute__((weak));
RT_HIDDEN void	rt_heap_final(void) __attribute__((weak));
RT_HIDDEN void	rt_heap_hold(void) __attribute__((weak));
RT_HIDDEN void	rt_heap_release(void) __attribute__((weak));

#endif /* PMECLOCK_RUNTIME_H */
