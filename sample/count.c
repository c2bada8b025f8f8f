/*
 * count.c - pmeclock --count, as `perf stat -- cmd`: the events are
 * counted, not sampled.  Each is opened on the forked command before
 * its exec (no sample period, inherited by its threads and children,
 * enabled at the exec), read once the command has ended, and printed on
 * standard error with the run's wall and CPU time.  No ring, so nothing
 * is lost: a break's count is its routine's exact number of calls.  See
 * pmeclock(1), COUNTING.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "clock.h"
#include "prog.h"
#include "util.h"

/* Opens o's events on pid, counting; 0, or -1 with errno (fds closed). */
static int
open_counters(const struct clockopts *o, pid_t pid, int ek, int *fds)
{
	struct perf_event_attr a;
	int k, e;

	for (k = 0; k < o->nev; k++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		events_attr(o, k, &a);
		a.freq = 0;
		a.sample_period = 0;	/* counting */
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
		    PERF_FORMAT_TOTAL_TIME_RUNNING;
		a.disabled = 1;
		a.inherit = 1;
		a.enable_on_exec = 1;
		a.exclude_kernel = (unsigned)ek;
		a.exclude_hv = 1;
		fds[k] = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1,
		    PERF_FLAG_FD_CLOEXEC);
		if (fds[k] < 0) {
			e = errno;
			while (k-- > 0)
				close(fds[k]);
			errno = e;
			return -1;
		}
	}
	return 0;
}

static double
seconds(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* Event k's line: its count, scaled when the kernel multiplexed it. */
static void
print_count(const struct clockopts *o, int k, int fd)
{
	const struct clockevent *e = &o->ev[k];
	uint64_t v[3];
	double share;

	if (read(fd, v, sizeof(v)) != (ssize_t)sizeof(v)) {
		fprintf(stderr, "%20s  %s  (read: %s)\n", "<not read>",
		    e->spec.name, strerror(errno));
		return;
	}
	if (v[2] == 0 && v[1] > 0) {
		fprintf(stderr, "%20s  %s  (never on a counter)\n",
		    "<not counted>", e->spec.name);
		return;
	}
	share = v[1] > 0 ? (double)v[2] / (double)v[1] : 1;
	if (v[2] < v[1])
		v[0] = (uint64_t)((double)v[0] / share + 0.5);
	fprintf(stderr, "%20llu  %-26s %s", (unsigned long long)v[0],
	    e->spec.name, pme_ev_unit(e->spec.kind, e->spec.name));
	if (v[2] < v[1])
		fprintf(stderr, "  (scaled: counted %.1f%% of the time)",
		    100 * share);
	fputc('\n', stderr);
}

int
count_run(struct clockopts *o)
{
	int fds[PME_EVENTS_MAX], k, ek, rc, st;
	struct rusage ru;
	struct child c;
	uint64_t t0, t1;
	char name[256];
	pid_t p;

	setenv("PMECLOCK_ACTIVE", "1", 1);
	if (child_fork(o, &c) < 0)
		return 1;
	/* Kernel counts too where the kernel allows them, as perf stat. */
	for (ek = 0; ek < 2; ek++) {
		if (open_counters(o, c.pid, ek, fds) == 0)
			break;
		if (ek == 1 || (errno != EACCES && errno != EPERM)) {
			fprintf(stderr, "%s: perf_event_open: %s\n", prog,
			    strerror(errno));
			child_abandon(&c);
			return 1;
		}
	}
	t0 = now_mono();
	if ((rc = child_go(&c)) != 0) {
		while (waitpid(c.pid, NULL, 0) < 0 && errno == EINTR)
			;
		for (k = 0; k < o->nev; k++)
			close(fds[k]);
		return rc;
	}
	while ((p = wait4(c.pid, &st, 0, &ru)) < 0 && errno == EINTR)
		;
	t1 = now_mono();
	if (p != c.pid) {
		fprintf(stderr, "%s: wait4: %s\n", prog, strerror(errno));
		return 1;
	}
	c.status = pme_exit_status(st);
	pme_escape(name, sizeof(name), o->argv[0]);
	fprintf(stderr, "\n%s: counts of '%s' (exit status %d):\n\n", prog,
	    name, c.status);
	for (k = 0; k < o->nev; k++) {
		print_count(o, k, fds[k]);
		close(fds[k]);
	}
	fprintf(stderr, "\n%20.6f  seconds wall time\n%20.6f  seconds user\n"
	    "%20.6f  seconds sys\n\n", (double)(t1 - t0) / 1e9,
	    seconds(&ru.ru_utime), seconds(&ru.ru_stime));
	return c.status;
}
