/*
 * interpose.c - the shared libpmeclock's preload side: the constructor
 * that starts recording for pmeclock(1), and the functions it interposes
 * so that new threads get their timer and dlopen'ed libraries their
 * mapping at once.  Not in libpmeclock.a: a static library does not
 * replace pthread_create behind its user's back.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime.h"

RT_HIDDEN const int rt_interposed = 1;

struct start {
	void	*(*fn)(void *);
	void	*arg;
	uint32_t ptid;
};

__attribute__((constructor)) static void
preload_init(void)
{
	rt_preload_start();
}

static void *
trampoline(void *p)
{
	struct start st = *(struct start *)p;
	void *ret;

	free(p);
	rt_thread_begin(st.ptid);
	pthread_cleanup_push(rt_thread_end, NULL);
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
		*(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
	if (!rt_wants_threads() || (st = malloc(sizeof(*st))) == NULL)
		return real(t, attr, fn, arg);
	st->fn = fn;
	st->arg = arg;
	st->ptid = rt_gettid();
	if ((rc = real(t, attr, trampoline, st)) != 0)
		free(st);
	return rc;
}

RT_EXPORT void *
dlopen(const char *file, int flags)
{
	static void *(*real)(const char *, int);
	uint64_t t = rt_now();
	void *h;

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "dlopen");
	if ((h = real(file, flags)) != NULL)
		rt_dlopened(t);
	return h;
}

RT_EXPORT int
execve(const char *path, char *const argv[], char *const envp[])
{
	static int (*real)(const char *, char *const *, char *const *);
	int rc;

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "execve");
	rt_before_exec();
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
		*(void **)&real = dlsym(RTLD_NEXT, "execv");
	rt_before_exec();
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
		*(void **)&real = dlsym(RTLD_NEXT, "execvp");
	rt_before_exec();
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
		*(void **)&real = dlsym(RTLD_NEXT, "execvpe");
	rt_before_exec();
	rc = real(file, argv, envp);
	rt_after_exec();
	return rc;
}
