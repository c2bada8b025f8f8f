/*
 * pmeclock - runs a command and samples its program counter into a sample
 * file (.PMS).  See pmeclock(1).  Two methods: perf_event_open software
 * clocks (perf.c) and, where the kernel refuses them, the libpmeclock
 * runtime preloaded into the command (collect.c, runtime.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <zlib.h>

#include "clock.h"
#include "prog.h"
#include "setid.h"
#include "unwind.h"
#include "util.h"

#ifndef PMECLOCK_RUNTIME
#define PMECLOCK_RUNTIME "/usr/local/lib/pme/libpmeclock.so"
#endif

#define MIN_PERIOD	10000ull		/* 10 us: 100 kHz */
#define MAX_PERIOD	10000000000ull		/* 10 s */

const char *prog = "pmeclock";

static void
usage(FILE *fp)
{
	fprintf(fp, "usage: pmeclock [-gqvw] [-e event[/period][,...]] "
	    "[-F hz | -i interval]\n"
	    "                [-G fp | dwarf[,size]] [-j percent] [-m method] "
	    "[-o output]\n"
	    "                [--start routine --stop routine] [--] command "
	    "[argument ...]\n"
	    "       pmeclock --count [--per-thread] [-e event[,...]] [--] "
	    "command\n"
	    "                [argument ...]\n"
	    "       pmeclock -l\n"
	    "       pmeclock [-gqv] [-e event[/period][,...]] "
	    "[-F hz | -i interval]\n"
	    "                [-G fp | dwarf[,size]] [-j percent] "
	    "[-d duration] [-m perf]\n"
	    "                [-o output] [--start routine --stop routine] "
	    "-p pid\n"
	    "       pmeclock -a [-gqv] [-e event[/period][,...]] "
	    "[-F hz | -i interval]\n"
	    "                [-G fp | dwarf[,size]] [-d duration] [-m perf] "
	    "[-o output]\n"
	    "                [--start routine --stop routine] "
	    "[[--] command [argument ...]]\n");
}

static void
help(void)
{
	usage(stdout);
	printf("\n"
	    "Runs command and samples its program counter into a sample "
	    "file.\n\n"
	    "  -o output     sample file, default %s ('-': standard "
	    "output)\n"
	    "  -e events     what to watch, each its own measure: "
	    "cpu-clock (default),\n"
	    "                page-faults, context-switches, "
	    "sched:sched_switch, ...;\n"
	    "                /period: a sample every period events "
	    "(default 1);\n"
	    "                alloc: every malloc, free, new, ... with its "
	    "stack (the heap);\n"
	    "                io: the I/O system calls, each with its "
	    "time and stack\n"
	    "  -l            list the events and whether this machine "
	    "can count them\n"
	    "  --count       count the events (default task-clock, "
	    "context-switches,\n"
	    "                cpu-migrations, page-faults) on standard "
	    "error, no samples\n"
	    "  --per-thread  with --count: the counts of each thread too\n"
	    "  -i interval   CPU time between samples: 10ms (default), "
	    "250us, 1ms, ...\n"
	    "  -F hz         samples per second of CPU time instead "
	    "(up to 100000);\n"
	    "                of events without /period: per second, "
	    "the kernel varying it\n"
	    "  -g            record call chains\n"
	    "  -w            wall mode: off-CPU intervals, their kinds and "
	    "stacks\n"
	    "  -G how        -g, unwound from the CFI (dwarf, default; "
	    "dwarf,size: bytes\n"
	    "                of stack per sample, default 8192) or by "
	    "frame pointers (fp)\n"
	    "  -j percent    vary the intervals at random by up to this "
	    "(timer default 30, perf 0)\n"
	    "  -m method     perf, timer or itimer (default: perf where "
	    "the kernel allows)\n"
	    "  --start routine, --stop routine\n"
	    "                sample a thread only while its calls of the "
	    "first exceed\n"
	    "                those of the second ([module:]routine; the "
	    "same: its returns)\n"
	    "  -p pid        attach to running process pid (all its "
	    "threads; perf method)\n"
	    "  -a            every process on every CPU, while command "
	    "runs (perf method)\n"
	    "  -d duration   with -p, stop after duration: 10s (default "
	    "unit), 500ms, 2m, ...\n"
	    "  -q            no messages but errors;  -v  more messages\n"
	    "  -h, --help    this text;  -V, --version  the version\n",
	    PME_DEFAULT_PMS);
}

struct unit {
	const char	*u;
	double		 mul;
};

/* A number and one of n units into *ns, from lo to hi ns; -1 if not. */
static int
parse_scaled(const char *s, const struct unit *units, size_t n, double lo,
    double hi, uint64_t *ns)
{
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !(v > 0))
		return -1;
	for (i = 0; i < n; i++)
		if (strcmp(end, units[i].u) == 0) {
			v *= units[i].mul;
			if (v < lo || v > hi)
				return -1;
			*ns = (uint64_t)(v + 0.5);
			return 0;
		}
	return -1;
}

/* "10ms", "250us", "1s", "5000ns"; a bare number is milliseconds. */
int
parse_interval(const char *s, uint64_t *ns)
{
	static const struct unit units[] = {
		{ "", 1e6 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 },
		{ "s", 1e9 }
	};

	return parse_scaled(s, units, sizeof(units) / sizeof(units[0]),
	    MIN_PERIOD, MAX_PERIOD, ns);
}

static int
parse_hz(const char *s, uint64_t *ns)
{
	char *end;
	unsigned long hz;

	errno = 0;
	hz = strtoul(s, &end, 10);
	if (end == s || *end != '\0' || errno || hz == 0 ||
	    1000000000ull / hz < MIN_PERIOD)
		return -1;
	*ns = 1000000000ull / hz;
	return 0;
}

/* "10s", "500ms", "2m", "1h"; a bare number is seconds, as timeout(1). */
static int
parse_duration(const char *s, uint64_t *ns)
{
	static const struct unit units[] = {
		{ "", 1e9 }, { "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 },
		{ "h", 3600e9 }
	};

	return parse_scaled(s, units, sizeof(units) / sizeof(units[0]), 1e6,
	    1e9 * 86400 * 365, ns);
}

static int
parse_jitter(const char *s, int *pct)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno || v < 0 || v > 30)
		return -1;
	*pct = (int)v;
	return 0;
}

static int
parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno || v <= 0 || v > INT_MAX)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

/* ------------------------------------------------------------ the guard */

/*
 * The sample file is written live (PME_WRITE_LIVE, libpme(3)):
 * at its name from the start, the previous file kept under a hidden
 * temporary name until the close removes it or a failed write swaps it
 * back.  A pmeclock killed by SIGKILL can do neither; the guard (prog.h)
 * finishes for it: told the temporary name, it removes the previous
 * file, or, where the file system cannot swap names and the new file
 * waits under the temporary name, renames that over the name.  Told
 * "done", it does nothing.
 */
static int
guard_start(void)
{
	struct pme_error err;

	if (pme_guard_start(prog, "pmeclock-guard", &err) == -1) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		return -1;
	}
	return 0;
}

/* Tells the guard what w leaves if pmeclock dies. */
static void
guard_tell(struct pme_samplewriter *w, const char *path)
{
	const char *tmp;
	int isnew;

	if ((tmp = pme_samplewriter_tmpname(w, &isnew)) != NULL)
		pme_guard_file(tmp, path, isnew);
}

/* ------------------------------------------------------- the methods */

/* CONFIG_HZ of the running kernel, 0 if unknown. */
static unsigned
kernel_hz(void)
{
	char path[PATH_MAX], line[256];
	struct utsname u;
	unsigned hz = 0;
	gzFile gz;

	if (uname(&u) < 0)
		return 0;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	if ((gz = gzopen(path, "r")) == NULL &&
	    (gz = gzopen("/proc/config.gz", "r")) == NULL)
		return 0;
	while (gzgets(gz, line, sizeof(line)) != NULL)
		if (sscanf(line, "CONFIG_HZ=%u", &hz) == 1)
			break;
	gzclose(gz);
	return hz;
}

/* 0 if this kernel gives per-thread CPU-time timers, else -1 and why. */
static int
timer_probe(char *why, size_t n)
{
	struct sigevent sev;
	timer_t t;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGPROF;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t) == 0) {
		timer_delete(t);
		return 0;
	}
	snprintf(why, n, "timer_create refused (%s)", strerror(errno));
	return -1;
}

/* The preload library: next to this program (the build tree), else
 * where make install puts it; PMECLOCK_RUNTIME in the environment wins. */
static const char *
find_runtime(char *buf, size_t n)
{
	const char *env = getenv("PMECLOCK_RUNTIME");
	char self[PATH_MAX];
	ssize_t len;
	char *slash;

	if (env != NULL && *env != '\0')
		return env;
	if ((len = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[len] = '\0';
		if ((slash = strrchr(self, '/')) != NULL &&
		    (size_t)(slash - self) + 17 <= n) {
			memcpy(buf, self, (size_t)(slash - self));
			strcpy(buf + (slash - self), "/libpmeclock.so");
			if (access(buf, R_OK) == 0)
				return buf;
		}
	}
	return PMECLOCK_RUNTIME;
}

static const char *
method_name(int m)
{
	switch (m) {
	case PME_METHOD_PERF:
		return "perf";
	case PME_METHOD_TIMER:
		return "timer";
	case PME_METHOD_ITIMER:
		return "itimer";
	default:
		return "none";
	}
}

/* Decides the method; 0, or -1 when the one asked for cannot run. */
static int
choose_method(struct clockopts *o)
{
	char why[256];
	unsigned hz;
	int asked = o->method;

	if (asked == PME_METHOD_NONE || asked == PME_METHOD_PERF) {
		if (perf_probe(o) == 0) {
			o->method = PME_METHOD_PERF;
			return 0;
		}
		if (asked == PME_METHOD_PERF) {
			fprintf(stderr, "%s: %s\n", prog, o->note);
			return -1;
		}
		o->method = PME_METHOD_TIMER;
	}
	if (o->method == PME_METHOD_TIMER && timer_probe(why, sizeof(why))) {
		if (asked == PME_METHOD_TIMER) {
			fprintf(stderr, "%s: %s\n", prog, why);
			return -1;
		}
		if (o->note[0] != '\0')
			strncat(o->note, "; ",
			    sizeof(o->note) - strlen(o->note) - 1);
		strncat(o->note, why, sizeof(o->note) - strlen(o->note) - 1);
		o->method = PME_METHOD_ITIMER;
	}
	if (asked == PME_METHOD_NONE && o->note[0] != '\0' && !o->quiet)
		fprintf(stderr, "%s: %s: sampling with the %s method\n",
		    prog, o->note, method_name(o->method));
	hz = kernel_hz();
	if (hz > 0 && o->period < 1000000000u / hz) {
		if (!o->quiet)
			fprintf(stderr, "%s: the %s method is limited by the "
			    "kernel tick (%u Hz): sampling every %uus, not "
			    "%lluus\n", prog, method_name(o->method), hz,
			    1000000u / hz,
			    (unsigned long long)(o->period / 1000));
		o->period = 1000000000u / hz;
	}
	return 0;
}

/*
 * A command that no method can see: its exec changes the credentials of
 * the process (setid.h), or, for the perf method, it cannot be read,
 * which makes it not dumpable.  The kernel then ends perf sampling at the
 * exec; the dynamic linker ignores LD_PRELOAD.  Said before the run and
 * kept in the sample file's note.
 */
static void
setid_check(struct clockopts *o)
{
	char buf[PATH_MAX], who[128], msg[512];
	const char *path, *what;

	if ((path = setid_which(o->argv[0], buf, sizeof(buf))) == NULL)
		return;
	if (pme_setid_words(path, who, sizeof(who)) == SETID_NONE) {
		if (o->method != PME_METHOD_PERF || access(path, R_OK) == 0 ||
		    errno != EACCES)
			return;
		snprintf(who, sizeof(who), "not readable by this user");
	}
	what = o->method == PME_METHOD_PERF ? "the kernel ends perf "
	    "sampling at its exec" : "the dynamic linker ignores LD_PRELOAD "
	    "for it";
	snprintf(msg, sizeof(msg), "'%s' is %s: %s: no samples", o->argv[0],
	    who, what);
	o->setid = 1;
	if (!o->quiet)
		fprintf(stderr, "%s: %s\n", prog, msg);
	if (o->note[0] != '\0')
		strncat(o->note, "; ", sizeof(o->note) - strlen(o->note) - 1);
	strncat(o->note, msg, sizeof(o->note) - strlen(o->note) - 1);
}

/* ----------------------------------------------------------------- main */

static int
run(struct clockopts *o)
{
	struct pme_sample_header h;
	struct pme_sample_close cl;
	struct pme_samplewriter *w;
	struct pme_error err;
	struct child c;
	char rtbuf[PATH_MAX], boot[PME_BOOT_MAX + 1];
	struct pme_sample_event ev[PME_EVENTS_MAX];
	int rc;

	if (strcmp(o->out, "-") != 0 && guard_start() < 0)
		return 1;
	if (o->method != PME_METHOD_PERF &&
	    collect_prepare(o, find_runtime(rtbuf, sizeof(rtbuf)), &err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		return 1;
	}
	setenv("PMECLOCK_ACTIVE", "1", 1);
	if (child_fork(o, &c) < 0)
		return 1;
	memset(&h, 0, sizeof(h));
	h.method = (uint32_t)o->method;
	h.event = o->method == PME_METHOD_ITIMER ? PME_EVENT_PROF :
	    PME_EVENT_CPU_CLOCK;
	h.period = o->period;
	h.start = now_real();
	h.start_mono = now_mono();
	h.pid = (uint32_t)c.pid;
	h.flags = PME_SHDR_INHERIT | (o->callchain ? PME_SHDR_CALLCHAIN : 0) |
	    (o->wall ? PME_SHDR_WALL : 0);
	h.argc = (uint32_t)o->argc;
	h.argv = (const char *const *)o->argv;
	h.note = o->note[0] ? o->note : NULL;
	h.boot = pme_boot_id(boot, sizeof(boot)) == 0 ? boot : NULL;
	events_header(o, ev);
	h.nevents = (uint32_t)o->nev;
	h.events = ev;
	if ((w = pme_samplewriter_open(o->out, &h, 0, &err)) == NULL) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		child_abandon(&c);
		return 1;
	}
	guard_tell(w, o->out);
	if (o->verbose && o->evgiven)
		events_say(o, (int)c.pid);
	else if (o->verbose)
		fprintf(stderr, "%s: sampling '%s' (pid %d) every %lluus with "
		    "the %s method into '%s'\n", prog, o->argv[0], (int)c.pid,
		    (unsigned long long)(o->period / 1000),
		    method_name(o->method), o->out);
	memset(&cl, 0, sizeof(cl));
	if (o->method == PME_METHOD_PERF)
		rc = perf_run(o, &c, w, &cl);
	else
		rc = collect_run(o, &c, w, &cl);
	if (rc < 0 && c.go >= 0) {
		/* Set-up failed before the exec: nothing ran. */
		pme_samplewriter_discard(w);
		child_abandon(&c);
		return 1;
	}
	if (rc > 0) {
		/* The command could not be executed: no measurement. */
		while (!child_poll(&c))
			usleep(1000);
		pme_samplewriter_discard(w);
		return c.status;
	}
	cl.end = now_real();
	cl.status = c.status;
	if (pme_samplewriter_close(w, &cl, &err) < 0) {
		/* A failed write was said when it failed. */
		if (rc == 0)
			fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		return 1;
	}
	if (o->verbose)
		fprintf(stderr, "%s: %llu samples, %llu lost, %u threads, "
		    "exit status %d\n", prog, (unsigned long long)cl.samples,
		    (unsigned long long)cl.lost, cl.threads, c.status);
	else if (cl.lost > 0 && !o->quiet)
		fprintf(stderr, "%s: %llu samples lost\n", prog,
		    (unsigned long long)cl.lost);
	return rc < 0 ? 1 : c.status;
}

/* ------------------------------------------------------------ attaching */

static int stop_w = -1;

static void
on_stop(int sig)
{
	int e = errno;
	char c = (char)sig;

	(void)!write(stop_w, &c, 1);
	errno = e;
}

/* The first up to cap bytes of /proc file path into buf; their count. */
static size_t
proc_read(const char *path, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while (n < cap && ((r = read(fd, buf + n, cap - n)) > 0 ||
	    (r < 0 && errno == EINTR)))
		n += r > 0 ? (size_t)r : 0;
	close(fd);
	return n;
}

/*
 * The command line of process pid, from /proc (its first 64 KiB), as an
 * argv in *buf (the caller frees both); its name when it has none (a
 * kernel thread, a zombie).
 */
static char **
attach_argv(pid_t pid, int *argc, char **buf)
{
	enum { CAP = 65536 };
	char path[64], **argv, *p;
	size_t n;
	int k = 0;

	if ((*buf = malloc(CAP + 2)) == NULL)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((n = proc_read(path, *buf, CAP)) == 0) {
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		n = proc_read(path, *buf, 64);
		n = strcspn(*buf, "\n") < n ? strcspn(*buf, "\n") : n;
		if (n == 0)
			n = (size_t)snprintf(*buf, 64, "%d", (int)pid);
	}
	(*buf)[n] = '\0';
	for (p = *buf; p < *buf + n; p += strlen(p) + 1)
		k++;
	if ((argv = calloc((size_t)k + 1, sizeof(*argv))) == NULL)
		return NULL;
	for (p = *buf, k = 0; p < *buf + n; p += strlen(p) + 1)
		argv[k++] = p;
	*argc = k;
	return argv;
}

/* pmeclock -p: the perf method only; 0, 1 or 2 (said). */
static int
attach_method(struct clockopts *o)
{
	if (o->system && o->method != PME_METHOD_NONE &&
	    o->method != PME_METHOD_PERF) {
		fprintf(stderr, "%s: -a: the %s method samples only the "
		    "program its runtime is preloaded into: watch every "
		    "process with -m perf\n", prog, method_name(o->method));
		return 2;
	}
	if (o->system && perf_probe(o) < 0) {
		fprintf(stderr, "%s: -a: %s\n", prog, o->note);
		return 1;
	}
	if (o->method == PME_METHOD_TIMER || o->method == PME_METHOD_ITIMER) {
		fprintf(stderr, "%s: -p: the %s method cannot attach to a "
		    "running process: its runtime is preloaded into a "
		    "program as it starts; attach with -m perf, or run the "
		    "command under pmeclock\n", prog,
		    method_name(o->method));
		return 2;
	}
	if (perf_probe(o) < 0) {
		fprintf(stderr, "%s: -p: cannot attach: %s; the timer and "
		    "itimer methods cannot attach (their runtime is preloaded "
		    "into a program as it starts): run the command under "
		    "pmeclock instead\n", prog, o->note);
		return 1;
	}
	o->method = PME_METHOD_PERF;
	o->note[0] = '\0';
	return 0;
}

static int
attach_signals(void)
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	int p[2];
	size_t i;

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) {
		fprintf(stderr, "%s: pipe: %s\n", prog, strerror(errno));
		return -1;
	}
	stop_w = p[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		sigaction(stops[i], &sa, NULL);
	return p[0];
}

/* The run's ending: -p's process's, unknown to pmeclock, or -a's
 * command's (c), reaped, ended (SIGTERM) if the run ended first (-d, a
 * signal); -a with no command: 0. */
static int
attach_status(const struct clockopts *o, struct child *c)
{
	int st;

	if (c != NULL) {
		if (waitpid(c->pid, &st, WNOHANG) == 0)
			kill(c->pid, SIGTERM);
		while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
			;
		return c->status = pme_exit_status(st);
	}
	if (o->system)
		return 0;
	return pme_pid_alive((uint32_t)o->attach) ? PME_STATUS_RUNNING :
	    PME_STATUS_UNKNOWN;
}

/* -p, or -a (with c the command, held before its exec, or NULL). */
static int
attach_record(struct clockopts *o, struct perfattach *a, int stopfd,
    struct child *c)
{
	static char every[] = "(every process)";
	static char *sysargv[] = { every, NULL };
	struct pme_sample_header h;
	struct pme_sample_close cl;
	struct pme_samplewriter *w;
	struct pme_sample_event ev[PME_EVENTS_MAX];
	struct pme_error err;
	char *buf = NULL, boot[PME_BOOT_MAX + 1];
	int rc;

	if (o->system && c == NULL) {
		o->argv = sysargv;
		o->argc = 1;
	} else if (!o->system &&
	    (o->argv = attach_argv(o->attach, &o->argc, &buf)) == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	memset(&h, 0, sizeof(h));
	h.method = PME_METHOD_PERF;
	h.event = PME_EVENT_CPU_CLOCK;
	h.period = o->period;
	h.start = now_real();
	h.start_mono = now_mono();
	h.pid = (uint32_t)(o->system ? (c != NULL ? c->pid : 0) : o->attach);
	h.flags = PME_SHDR_INHERIT | (o->callchain ? PME_SHDR_CALLCHAIN : 0);
	h.argc = (uint32_t)o->argc;
	h.argv = (const char *const *)o->argv;
	h.boot = pme_boot_id(boot, sizeof(boot)) == 0 ? boot : NULL;
	events_header(o, ev);
	h.nevents = (uint32_t)o->nev;
	h.events = ev;
	rc = 1;
	if ((w = pme_samplewriter_open(o->out, &h, 0, &err)) == NULL) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		goto out;
	}
	guard_tell(w, o->out);
	if (c != NULL && (perf_attach_prepare(a, w) < 0 ||
	    (rc = child_go(c)) != 0)) {
		pme_samplewriter_discard(w);
		goto out;
	}
	if (o->verbose && o->system)
		fprintf(stderr, "%s: watching every process on %s into '%s'\n",
		    prog, "every CPU", o->out);
	else if (o->verbose && o->evgiven) {
		fprintf(stderr, "%s: attached to '%s' (pid %d, %zu threads)\n",
		    prog, o->argv[0], (int)o->attach, perf_attach_threads(a));
		events_say(o, (int)o->attach);
	} else if (o->verbose)
		fprintf(stderr, "%s: attached to '%s' (pid %d, %zu threads): "
		    "sampling every %lluus with the perf method into '%s'\n",
		    prog, o->argv[0], (int)o->attach, perf_attach_threads(a),
		    (unsigned long long)(o->period / 1000), o->out);
	memset(&cl, 0, sizeof(cl));
	rc = perf_attach_run(a, w, stopfd, o->duration ? now_mono() +
	    o->duration : 0, &cl);
	if (rc < 0) {
		/* Said; a failed attach leaves the previous file. */
		pme_samplewriter_discard(w);
		rc = 1;
		goto out;
	}
	cl.end = now_real();
	cl.status = attach_status(o, c);
	if (pme_samplewriter_close(w, &cl, &err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		rc = -1;
	}
	if (o->verbose)
		fprintf(stderr, "%s: %llu samples, %llu lost, %u threads%s\n",
		    prog, (unsigned long long)cl.samples,
		    (unsigned long long)cl.lost, cl.threads,
		    cl.status == PME_STATUS_RUNNING ? "; the process runs on" :
		    "");
	else if (cl.lost > 0 && !o->quiet)
		fprintf(stderr, "%s: %llu samples lost\n", prog,
		    (unsigned long long)cl.lost);
	rc = rc < 0 ? 1 : c != NULL ? c->status : 0;
out:
	if (!o->system) {
		free(o->argv);
		o->argv = NULL;
	}
	free(buf);
	return rc;
}

static int
attach(struct clockopts *o)
{
	struct perfattach *a = NULL;
	struct child c, *cp = NULL;
	int rc, stopfd;

	if ((rc = attach_method(o)) != 0)
		return rc;
	if (events_check(o) != 0)
		return 1;
	if (o->system && o->argc > 0) {
		setenv("PMECLOCK_ACTIVE", "1", 1);
		if (child_fork(o, &c) < 0)
			return 1;
		cp = &c;
	}
	if ((stopfd = attach_signals()) < 0 || (a = o->system ?
	    perf_system_open(o, cp != NULL ? cp->pid : 0) :
	    perf_attach_open(o, o->attach)) == NULL ||
	    (strcmp(o->out, "-") != 0 && guard_start() < 0)) {
		if (cp != NULL)
			child_abandon(cp);
		perf_attach_free(a);
		return 1;
	}
	rc = attach_record(o, a, stopfd, cp);
	if (rc == 1 && cp != NULL && cp->go >= 0)
		child_abandon(cp);
	perf_attach_free(a);
	return rc;
}

/*
 * -e alloc: the heap is recorded by the runtime preloaded into the
 * command, so the run is the timer method's (its clock too, when one is
 * asked beside); 0, or the exit status (said).
 */
static int
heap_method(struct clockopts *o)
{
	if (o->method == PME_METHOD_PERF) {
		fprintf(stderr, "%s: -e alloc: the heap is recorded by the "
		    "runtime preloaded into the command: not with -m perf "
		    "(-m timer or itimer)\n", prog);
		return 2;
	}
	if (o->method == PME_METHOD_NONE)
		o->method = PME_METHOD_TIMER;
	return 0;
}

/* --count: perf_event_open's, the events checked before the command
 * starts, as a run's. */
static int
count(struct clockopts *o)
{
	if (events_heap(o)) {
		fprintf(stderr, "%s: --count: alloc is recorded by the "
		    "runtime, not counted by the kernel\n", prog);
		return 2;
	}
	o->method = PME_METHOD_PERF;
	if (perf_probe(o) < 0) {
		fprintf(stderr, "%s: --count: %s\n", prog, o->note);
		return 1;
	}
	if (events_check(o) != 0)
		return 1;
	return count_run(o);
}

enum { COUNT_OPT = 256, PER_THREAD_OPT, START_OPT, STOP_OPT };

/* One option c (with optarg) into o: -1 to go on, else the exit status
 * (0 after --help or --version, 2 for a usage error, said). */
static int
option(struct clockopts *o, int c, const char **oname)
{
	struct pme_error err;
	int rc;

	switch (c) {
	case 'a':
		o->system = 1;
		return -1;
	case 'd':
		if (parse_duration(optarg, &o->duration) >= 0)
			return -1;
		fprintf(stderr, "%s: -d: '%s' is not a duration (10s, 500ms, "
		    "2m, 1h; at least 1ms)\n", prog, optarg);
		return 2;
	case 'p':
		if (parse_pid(optarg, &o->attach) >= 0)
			return -1;
		fprintf(stderr, "%s: -p: '%s' is not a process ID\n", prog,
		    optarg);
		return 2;
	case 'j':
		if (parse_jitter(optarg, &o->jitter) >= 0)
			return -1;
		fprintf(stderr, "%s: -j: '%s' is not a percentage from 0 to "
		    "30\n", prog, optarg);
		return 2;
	case 'e':
		/* The event "wall" is wall mode, as the Analyzer's. */
		if (strcmp(optarg, "wall") == 0)
			return option(o, 'w', oname);
		return (c = events_parse(o, optarg)) == 0 ? -1 : c;
	case 'F':
		if (parse_hz(optarg, &o->period) >= 0) {
			o->hz = (unsigned)strtoul(optarg, NULL, 10);
			return -1;
		}
		fprintf(stderr, "%s: -F: '%s' is not a rate from 1 to 100000 "
		    "Hz\n", prog, optarg);
		return 2;
	case 'g':
		o->callchain = 1;
		return -1;
	case 'w':
		o->wall = 1;
		o->callchain = 1;
		return -1;
	case 'G':
		o->callchain = 1;
		if ((rc = callgraph_option(o, optarg, &err)) != -1)
			fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		return rc;
	case 'h':
		help();
		return 0;
	case 'l':
		o->list = 1;
		return -1;
	case COUNT_OPT:
		o->count = 1;
		return -1;
	case PER_THREAD_OPT:
		o->per_thread = 1;
		return -1;
	case START_OPT:
	case STOP_OPT:
		return (c = events_gate(o, c == STOP_OPT, optarg)) == 0 ? -1 : c;
	case 'i':
		if (parse_interval(optarg, &o->period) >= 0)
			return -1;
		fprintf(stderr, "%s: -i: '%s' is not an interval from 10us to "
		    "10s\n", prog, optarg);
		return 2;
	case 'm':
		if (strcmp(optarg, "perf") == 0)
			o->method = PME_METHOD_PERF;
		else if (strcmp(optarg, "timer") == 0)
			o->method = PME_METHOD_TIMER;
		else if (strcmp(optarg, "itimer") == 0)
			o->method = PME_METHOD_ITIMER;
		else {
			fprintf(stderr, "%s: -m: '%s' is not perf, timer or "
			    "itimer\n", prog, optarg);
			return 2;
		}
		return -1;
	case 'o':
		*oname = optarg;
		return -1;
	case 'q':
		o->quiet = 1;
		o->verbose = 0;
		return -1;
	case 'V':
		printf("pmeclock (pme) %s\n", PME_VERSION_STRING);
		return 0;
	case 'v':
		o->verbose = 1;
		o->quiet = 0;
		return -1;
	default:
		usage(stderr);
		return 2;
	}
}

#define COUNT_DEFAULT	"task-clock,context-switches,cpu-migrations,page-faults"

/* --count with the options given (seen): -1 to go on, else the exit
 * status, said.  Counting takes no samples and writes no file. */
static int
count_options(struct clockopts *o, const char *seen)
{
	static const char sampling[] = "adFGgijlop";
	char bad[64] = "";
	const char *s;
	int n = 0;

	for (s = seen; *s != '\0'; s++)
		if (strchr(sampling, *s) != NULL)
			n += snprintf(bad + n, sizeof(bad) - (size_t)n, "%s-%c",
			    n > 0 ? ", " : "", *s);
	if (o->method != PME_METHOD_NONE && o->method != PME_METHOD_PERF)
		snprintf(bad + n, sizeof(bad) - (size_t)n, "%s-m %s",
		    n > 0 ? ", " : "", o->method == PME_METHOD_TIMER ?
		    "timer" : "itimer");
	if (bad[0] != '\0') {
		fprintf(stderr, "%s: --count counts the events of a command, "
		    "writing no sample file: not with %s\n", prog, bad);
		return 2;
	}
	if (!o->evgiven && events_parse(o, COUNT_DEFAULT) != 0)
		return 1;
	for (n = 0; n < o->nev; n++)
		if (o->ev[n].given) {
			fprintf(stderr, "%s: --count: -e %s/%llu: a count has "
			    "no period\n", prog, o->ev[n].spec.name,
			    (unsigned long long)o->ev[n].period);
			return 2;
		}
	return -1;
}

/* The command line into o (o->out allocated, NULL with --count): -1 to
 * go on, else the exit status, said. */
static int
parse(int argc, char *argv[], struct clockopts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "count", no_argument, NULL, COUNT_OPT },
		{ "per-thread", no_argument, NULL, PER_THREAD_OPT },
		{ "start", required_argument, NULL, START_OPT },
		{ "stop", required_argument, NULL, STOP_OPT },
		{ NULL, 0, NULL, 0 }
	};
	char seen[32] = "";
	const char *oname = PME_DEFAULT_PMS;
	struct pme_error err;
	int c, rc, heap;

	o->period = 10000000;
	o->callgraph = unwind_available() ? CALLGRAPH_DWARF : CALLGRAPH_FP;
	o->stacksize = STACKSIZE_DEFAULT;
	o->jitter = -1;	/* not given: 30 for timer, 0 for perf (man page) */
	/* '+': the command's own options are not ours. */
	while ((c = getopt_long(argc, argv, "+ad:e:F:G:ghi:j:lm:o:p:qVvw", longopts,
	    NULL)) != -1) {
		if (c > 0 && c < 128 && strchr(seen, c) == NULL &&
		    strlen(seen) < sizeof(seen) - 1)
			seen[strlen(seen)] = (char)c;
		if ((rc = option(o, c, &oname)) != -1)
			return rc;
	}
	if (o->per_thread && !o->count) {
		fprintf(stderr, "%s: --per-thread: only with --count\n", prog);
		return 2;
	}
	if ((rc = events_gate_finish(o)) != 0)
		return rc;
	if (o->count && (rc = count_options(o, seen)) != -1)
		return rc;
	if (o->list && (optind < argc || o->attach != 0 || o->evgiven ||
	    o->ngate != 0)) {
		fprintf(stderr, "%s: -l lists the events: no command, -p, -e "
		    "or --start with it\n", prog);
		return 2;
	}
	if (o->list)
		return events_list(o);
	if ((rc = events_finish(o)) != 0)
		return rc;
	if (o->system && (o->attach != 0 || o->jitter > 0)) {
		fprintf(stderr, "%s: -a watches every process: not with %s\n",
		    prog, o->attach != 0 ? "-p" : "-j");
		return 2;
	}
	if (o->attach != 0 && optind < argc) {
		fprintf(stderr, "%s: -p attaches to a running process: no "
		    "command with it\n", prog);
		return 2;
	}
	/* System-wide, the I/O calls were silently not recorded. */
	if (o->io && o->system) {
		fprintf(stderr, "%s: -e io traces a command's or a process's "
		    "calls: not with -a\n", prog);
		return 2;
	}
	/* (-p's message was perf_event_open's "No such file or
	 * directory" for the heap's pseudo-event) */
	heap = events_heap(o);
	if (heap && (o->attach != 0 || o->system)) {
		fprintf(stderr, "%s: -e alloc: the heap is recorded by the "
		    "runtime preloaded into a command as it starts: not with "
		    "%s\n", prog, o->attach ? "-p" : "-a");
		return 2;
	}
	/* (they said "needs the perf method" or "needs perf_event_open",
	 * exit 1, where the run's method was the heap's) */
	if (heap && (o->wall || o->io)) {
		fprintf(stderr, "%s: -e alloc: its runtime samples with the "
		    "timer method; %s reads the perf method's records: not "
		    "both\n", prog, o->wall ? "-w" : "-e io");
		return 2;
	}
	if (o->wall && (o->attach != 0 || o->jitter > 0 || o->system)) {
		fprintf(stderr, "%s: -w: not with %s\n", prog, o->attach ?
		    "-p" : o->system ? "-a" : "-j");
		return 2;
	}
	if (o->wall && (o->method == PME_METHOD_TIMER ||
	    o->method == PME_METHOD_ITIMER)) {
		fprintf(stderr, "%s: -w: not with -m %s: it reads the perf "
		    "method's scheduler records\n", prog,
		    method_name(o->method));
		return 2;
	}
	if (o->attach == 0 && !o->system && o->duration != 0) {
		fprintf(stderr, "%s: -d: only with -p (a command runs to its "
		    "end)\n", prog);
		return 2;
	}
	if (optind >= argc && o->attach == 0 && !o->system) {
		usage(stderr);
		return 2;
	}
	o->argv = argv + optind;
	o->argc = argc - optind;
	if (o->count)
		return -1;
	if ((o->out = pme_with_ext(oname, ".PMS")) == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	/* Not the program, nor a pme file of another kind. */
	if (pme_out_check(o->out, PME_KIND_SAMPLE, NULL,
	    (const char *const *)o->argv, 1, &err) == -1) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		return 1;
	}
	return -1;
}

/* -w needs the perf method, whose scheduler records it reads: when
 * perf_event_open refuses it (-m timer is a usage error, parse()). */
static int
wall_check(const struct clockopts *o)
{
	if (!o->wall || o->method == PME_METHOD_PERF)
		return 0;
	fprintf(stderr, "%s: -w: needs the perf method (%s)\n", prog,
	    o->note[0] != '\0' ? o->note : "-m perf");
	return 1;
}

int
main(int argc, char *argv[])
{
	struct clockopts o;
	struct pme_error err;
	int rc;

	memset(&o, 0, sizeof(o));
	if ((rc = parse(argc, argv, &o)) != -1)
		return rc;
	signal(SIGPIPE, SIG_IGN);
	/*
	 * Past a file size limit a write fails with EFBIG, a write error
	 * that puts the previous file back, where SIGXFSZ would kill
	 * pmeclock with the file cut and the command left running.
	 */
	child_keep_xfsz();
	signal(SIGXFSZ, SIG_IGN);
	if (o.count)
		rc = count(&o);
	else if (o.attach != 0 || o.system)
		rc = attach(&o);
	else if (events_heap(&o) && (rc = heap_method(&o)) != 0)
		;
	else if (choose_method(&o) < 0 || wall_check(&o) != 0 ||
	    events_check(&o) != 0)
		rc = 1;
	else {
		setid_check(&o);
		if (callgraph_check(&o, &err) && !o.quiet)
			fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		rc = run(&o);
	}
	pme_guard_end();
	free((char *)o.out);
	return rc;
}
