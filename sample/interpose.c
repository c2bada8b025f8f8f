/*
 * interpose.c - the shared libpmeclock's preload side: the constructor
 * that starts recording for pmeclock(1), and the functions it interposes:
 * pthread_create, so that new threads get their timer at once, with the
 * sampling signal open; dlopen, so that libraries get their mapping at
 * once; the exec family, every entry of libc's, to send what is buffered
 * and stop ITIMER_PROF, which an exec keeps; _exit and _Exit, to
 * send it before the process ends; and sigaction, signal, sigprocmask,
 * pthread_sigmask and setitimer, through which the program would take
 * the sampling signal away (runtime.c keeps it working, or records that
 * the program took ITIMER_PROF).  Not in libpmeclock.a: a static library
 * does not replace libc's functions behind its user's back.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/time.h>

#include "runtime.h"
#include "setid.h"

struct start {
	void	*(*fn)(void *);
	void	*arg;
	uint32_t ptid;
	int	 want;
};

typedef int (*sigaction_fn)(int, const struct sigaction *,
    struct sigaction *);
typedef int (*sigmask_fn)(int, const sigset_t *, sigset_t *);
typedef int (*setitimer_fn)(__itimer_which_t, const struct itimerval *,
    struct itimerval *);
typedef void (*(*signal_fn)(int, void (*)(int)))(int);

/* libc's, found at load: a signal handler may call them, and must not
 * be the first to look them up. */
static sigaction_fn	 libc_sigaction;
static sigmask_fn	 libc_sigprocmask, libc_pthread_sigmask;
static setitimer_fn	 libc_setitimer;
static signal_fn	 libc_signal;

static void *
next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static void
find_libc(void)
{
	if (libc_sigaction != NULL)
		return;
	*(void **)&libc_sigprocmask = next("sigprocmask");
	*(void **)&libc_pthread_sigmask = next("pthread_sigmask");
	*(void **)&libc_setitimer = next("setitimer");
	*(void **)&libc_signal = next("signal");
	*(void **)&libc_sigaction = next("sigaction");
}

__attribute__((constructor)) static void
preload_init(void)
{
	find_libc();
	rt_preload_start();
}

/* ------------------------------------------- for the runtime's own use */

int
rt_libc_sigaction(int sig, const struct sigaction *a, struct sigaction *o)
{
	find_libc();
	return libc_sigaction(sig, a, o);
}

int
rt_libc_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	find_libc();
	return libc_pthread_sigmask(how, set, old);
}

int
rt_libc_setitimer(int which, const struct itimerval *nv,
    struct itimerval *ov)
{
	find_libc();
	return libc_setitimer(which, nv, ov);
}

/* -------------------------------------------------------------- threads */

/* The runtime's own work on a thread of the program: its allocations are
 * not the program's (heap.c). */
static void
hold(void)
{
	if (rt_heap_hold != NULL)
		rt_heap_hold();
}

static void
release(void)
{
	if (rt_heap_release != NULL)
		rt_heap_release();
}

static void
thread_end(void *unused)
{
	hold();
	rt_thread_end(unused);
	release();
}

static void *
trampoline(void *p)
{
	struct start st = *(struct start *)p;
	void *ret;

	hold();
	free(p);
	rt_thread_begin(st.ptid, st.want);
	release();
	pthread_cleanup_push(thread_end, NULL);
	ret = st.fn(st.arg);
	pthread_cleanup_pop(1);
	return ret;
}

RT_EXPORT int
pthread_create(pthread_t *t, const pthread_attr_t *attr,
    void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *,
	    void *(*)(void *), void *);
	struct start *st;
	int rc;

	if (real == NULL)
		*(void **)&real = next("pthread_create");
	if (!rt_wants_threads())
		return real(t, attr, fn, arg);
	hold();
	st = malloc(sizeof(*st));
	release();
	if (st == NULL)
		return real(t, attr, fn, arg);
	st->fn = fn;
	st->arg = arg;
	st->ptid = rt_gettid();
	st->want = rt_want_blocked();
	if ((rc = real(t, attr, trampoline, st)) != 0) {
		hold();
		free(st);
		release();
	}
	return rc;
}

RT_EXPORT void *
dlopen(const char *file, int flags)
{
	static void *(*real)(const char *, int);
	uint64_t t = rt_now();
	void *h;

	if (real == NULL)
		*(void **)&real = next("dlopen");
	if ((h = real(file, flags)) != NULL) {
		hold();
		rt_dlopened(t);
		release();
	}
	return h;
}

/* ---------------------------------------------------------------- exec */

/* Tells the runtime what is about to run: file as execvp(3) finds it
 * when search is set. */
static void
before_exec(const char *file, int search)
{
	char buf[PATH_MAX];
	const char *path = search ? setid_which(file, buf, sizeof(buf)) :
	    file;
	unsigned id = 0;
	int kind = path != NULL ? setid_exec(path, &id) : SETID_NONE;

	rt_before_exec(path != NULL ? path : file, (uint32_t)kind, id);
}

RT_EXPORT int
execve(const char *path, char *const argv[], char *const envp[])
{
	static int (*real)(const char *, char *const *, char *const *);
	int rc;

	if (real == NULL)
		*(void **)&real = next("execve");
	before_exec(path, 0);
	rc = real(path, argv, envp);
	rt_after_exec();
	return rc;
}

RT_EXPORT int
execv(const char *path, char *const argv[])
{
	static int (*real)(const char *, char *const *);
	int rc;

	if (real == NULL)
		*(void **)&real = next("execv");
	before_exec(path, 0);
	rc = real(path, argv);
	rt_after_exec();
	return rc;
}

RT_EXPORT int
execvp(const char *file, char *const argv[])
{
	static int (*real)(const char *, char *const *);
	int rc;

	if (real == NULL)
		*(void **)&real = next("execvp");
	before_exec(file, 1);
	rc = real(file, argv);
	rt_after_exec();
	return rc;
}

RT_EXPORT int
execvpe(const char *file, char *const argv[], char *const envp[])
{
	static int (*real)(const char *, char *const *, char *const *);
	int rc;

	if (real == NULL)
		*(void **)&real = next("execvpe");
	before_exec(file, 1);
	rc = real(file, argv, envp);
	rt_after_exec();
	return rc;
}

RT_EXPORT int
fexecve(int fd, char *const argv[], char *const envp[])
{
	static int (*real)(int, char *const *, char *const *);
	char path[64];
	int rc;

	if (real == NULL)
		*(void **)&real = next("fexecve");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	before_exec(path, 0);
	rc = real(fd, argv, envp);
	rt_after_exec();
	return rc;
}

/* The file execveat(2) runs, as a path the setid check can open. */
static const char *
at_path(int dirfd, const char *path, int flags, char *buf, size_t n)
{
	if (path[0] == '/' || (dirfd == AT_FDCWD && path[0] != '\0'))
		return path;
	if ((flags & AT_EMPTY_PATH) && path[0] == '\0')
		snprintf(buf, n, "/proc/self/fd/%d", dirfd);
	else
		snprintf(buf, n, "/proc/self/fd/%d/%s", dirfd, path);
	return buf;
}

RT_EXPORT int
execveat(int dirfd, const char *path, char *const argv[],
    char *const envp[], int flags)
{
	static int (*real)(int, const char *, char *const *, char *const *,
	    int);
	char buf[PATH_MAX];
	int rc;

	if (real == NULL)
		*(void **)&real = next("execveat");
	before_exec(at_path(dirfd, path, flags, buf, sizeof(buf)), 0);
	rc = real != NULL ? real(dirfd, path, argv, envp, flags) :
	    (int)syscall(SYS_execveat, dirfd, path, argv, envp, flags);
	rt_after_exec();
	return rc;
}

/*
 * The list forms make their vector on the stack, as libc's do (an exec
 * after a fork must not allocate), and call the vector forms above:
 * libc's own execl, execle and execlp call its execve directly, past any
 * preload, so that a program that exec'd by them kept ITIMER_PROF across
 * the exec, and its new image died of SIGPROF when the timer expired
 * before the image's runtime had its handler.  LIST_ARGV declares argv:
 * arg and the arguments after it up to the NULL, which it takes too.
 */
static size_t
list_len(const char *arg, va_list *ap)
{
	va_list aq;
	size_t n = 0;

	va_copy(aq, *ap);
	if (arg != NULL)
		for (n = 1; va_arg(aq, char *) != NULL; n++)
			;
	va_end(aq);
	return n;
}

static void
list_fill(char **argv, size_t n, const char *arg, va_list *ap)
{
	size_t i;

	argv[0] = (char *)arg;
	for (i = 1; i <= n; i++)
		argv[i] = va_arg(*ap, char *);
}

#define LIST_ARGV(argv, arg, ap)					\
	size_t argv##_n = list_len(arg, &ap);				\
	char *argv[argv##_n + 1];					\
	list_fill(argv, argv##_n, arg, &ap)

RT_EXPORT int
execl(const char *path, const char *arg, ...)
{
	va_list ap;

	va_start(ap, arg);
	LIST_ARGV(argv, arg, ap);
	va_end(ap);
	return execv(path, argv);
}

RT_EXPORT int
execlp(const char *file, const char *arg, ...)
{
	va_list ap;

	va_start(ap, arg);
	LIST_ARGV(argv, arg, ap);
	va_end(ap);
	return execvp(file, argv);
}

RT_EXPORT int
execle(const char *path, const char *arg, ...)
{
	char *const *envp;
	va_list ap;

	va_start(ap, arg);
	LIST_ARGV(argv, arg, ap);
	envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}

/* ---------------------------------------------------------------- exit */

/* As libc's: the exit_group system call, after the last records. */
RT_EXPORT void
_exit(int status)
{
	rt_final();
	for (;;)
		syscall(SYS_exit_group, status);
}

RT_EXPORT void
_Exit(int status)
{
	rt_final();
	for (;;)
		syscall(SYS_exit_group, status);
}

/* ------------------------------------------------------------- signals */

RT_EXPORT int
sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	int rc;

	if (rt_sigaction(sig, act, oact, &rc))
		return rc;
	find_libc();
	return libc_sigaction(sig, act, oact);
}

/* glibc's signal(3): BSD semantics. */
RT_EXPORT void
(*signal(int sig, void (*fn)(int)))(int)
{
	struct sigaction a, o;
	int rc;

	memset(&a, 0, sizeof(a));
	a.sa_handler = fn;
	a.sa_flags = SA_RESTART;
	sigemptyset(&a.sa_mask);
	if (rt_sigaction(sig, &a, &o, &rc))
		return rc < 0 ? SIG_ERR : o.sa_handler;
	find_libc();
	return libc_signal(sig, fn);
}

RT_EXPORT int
sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	find_libc();
	return rt_sigmask(how, set, old, libc_sigprocmask);
}

RT_EXPORT int
pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	find_libc();
	return rt_sigmask(how, set, old, libc_pthread_sigmask);
}

/* (glibc declares which as its enum __itimer_which with _GNU_SOURCE.) */
RT_EXPORT int
setitimer(__itimer_which_t which, const struct itimerval *nv,
    struct itimerval *ov)
{
	int rc;

	if (rt_setitimer(which, nv, ov, &rc))
		return rc;
	find_libc();
	return libc_setitimer(which, nv, ov);
}
