/*
 * events.c - pmeclock -e and -l: the events a run watches, named as perf
 * names them and resolved through libpme's registry (lib/measure.h), each
 * tried on pmeclock itself before the command starts, so that an event
 * this machine cannot count (a hardware event where there is no PMU) is
 * refused before anything runs or is written.  See pmeclock(1), EVENTS.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <limits.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <gelf.h>
#include <libelf.h>

#include "clock.h"
#include "setid.h"
#include "util.h"

#define DEFAULT_CLOCK	"cpu-clock"

static const char *const kinds[] = { "", "clock", "software", "hardware",
    "cache", "raw", "pmu", "tracepoint", "break", "heap" };

int
events_clock(const struct clockopts *o, int k)
{
	return o->ev[k].spec.kind == PME_EV_CLOCK;
}

/* The end of the event that starts at s: the next comma outside a
 * pmu/.../ name. */
static const char *
item_end(const char *s)
{
	const char *p = s + strcspn(s, "/,:");

	if (*p == '/' && strchr(p + 1, '/') != NULL &&
	    strcspn(p + 1, "/") > 0 && strchr(p + 1, '=') != NULL &&
	    strchr(p + 1, '=') < strchr(p + 1, '/'))
		p = strchr(p + 1, '/') + 1;
	return p + strcspn(p, ",");
}

/* The name's /PERIOD, cut from buf: the text after it, or NULL. */
static char *
cut_period(char *buf)
{
	char *slash;

	if ((slash = strrchr(buf, '/')) == NULL)
		return NULL;
	/* pmu/terms/ ends with its slash: no period. */
	if (slash[1] == '\0' && strchr(buf, '/') != slash)
		return NULL;
	*slash = '\0';
	return slash + 1;
}

static int
set_period(struct clockevent *e, const char *text)
{
	char *end;

	e->given = 1;
	if (e->spec.kind == PME_EV_CLOCK) {
		if (parse_interval(text, &e->period) == 0)
			return 0;
		fprintf(stderr, "%s: -e: %s/%s: not an interval from 10us "
		    "to 10s\n", prog, e->spec.name, text);
		return 2;
	}
	errno = 0;
	e->period = strtoull(text, &end, 10);
	if (end != text && *end == '\0' && errno == 0 && e->period > 0 &&
	    text[0] != '-')
		return 0;
	fprintf(stderr, "%s: -e: %s/%s: the period is not a whole number "
	    "of events from 1\n", prog, e->spec.name, text);
	return 2;
}

/* alloc (or allocations, bytes): both heap events, once, as the runtime
 * records both; e is o->ev[o->nev], parsed. */
static int
add_heap(struct clockopts *o, struct clockevent *e)
{
	struct pme_error err;
	int k;

	if (e->given) {
		fprintf(stderr, "%s: -e: %s: every call of the allocator is "
		    "recorded: no period\n", prog, e->spec.name);
		return 2;
	}
	for (k = 0; k < o->nev; k++)
		if (o->ev[k].spec.kind == PME_EV_HEAP)
			return 0;
	if (o->nev + 2 > PME_EVENTS_MAX) {
		fprintf(stderr, "%s: -e: more than %d events\n", prog,
		    PME_EVENTS_MAX);
		return 2;
	}
	memset(&o->ev[o->nev], 0, 2 * sizeof(*o->ev));
	if (pme_ev_parse("allocations", &o->ev[o->nev].spec, NULL, &err) ==
	    -1 || pme_ev_parse("bytes", &o->ev[o->nev + 1].spec, NULL,
	    &err) == -1) {
		fprintf(stderr, "%s: -e: %s\n", prog, err.msg);
		return 1;
	}
	o->nev += 2;
	return 0;
}

int
events_heap(struct clockopts *o)
{
	int k;

	o->heap = o->clock = 0;
	for (k = 0; k < o->nev; k++) {
		o->heap |= o->ev[k].spec.kind == PME_EV_HEAP;
		o->clock |= o->ev[k].spec.kind == PME_EV_CLOCK;
	}
	return o->heap;
}

/* One NAME[/PERIOD] into o->ev. */
static int
add_event(struct clockopts *o, const char *s, size_t len)
{
	struct clockevent *e = &o->ev[o->nev];
	char buf[PME_EVNAME_MAX + 32], *period;
	struct pme_error err;
	int k;

	if (len == 0 || len >= sizeof(buf)) {
		fprintf(stderr, "%s: -e: '%.*s' is not an event (pmeclock -l "
		    "lists them)\n", prog, (int)(len > 60 ? 60 : len), s);
		return 2;
	}
	if (o->nev == PME_EVENTS_MAX) {
		fprintf(stderr, "%s: -e: more than %d events\n", prog,
		    PME_EVENTS_MAX);
		return 2;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	/* io: the I/O calls, traced beside the events (io.c). */
	if (strcmp(buf, "io") == 0) {
		o->io = 1;
		return 0;
	}
	period = cut_period(buf);
	/* u:/lib/libx.so:f: the module's path, not a period. */
	if (period != NULL && strchr(period, ':') != NULL) {
		period[-1] = '/';
		period = NULL;
	}
	memset(e, 0, sizeof(*e));
	if (pme_ev_parse(buf, &e->spec, NULL, &err) == -1) {
		fprintf(stderr, "%s: -e: %s\n", prog, err.msg);
		return err.code == PME_EIO ? 1 : 2;
	}
	for (k = 0; k < o->nev; k++)
		if (strcmp(o->ev[k].spec.name, e->spec.name) == 0) {
			fprintf(stderr, "%s: -e: %s: named twice\n", prog,
			    e->spec.name);
			return 2;
		}
	if (e->spec.period != 0) {
		e->period = e->spec.period;
		e->given = 1;
	}
	if (period != NULL && (k = set_period(e, period)) != 0)
		return k;
	if (e->spec.kind == PME_EV_HEAP)
		return add_heap(o, e);
	o->nev++;
	return 0;
}

int
events_parse(struct clockopts *o, const char *list)
{
	const char *s, *end;
	int rc;

	o->evgiven = 1;
	for (s = list; ; s = end + 1) {
		end = item_end(s);
		if ((rc = add_event(o, s, (size_t)(end - s))) != 0)
			return rc;
		if (*end == '\0')
			return 0;
	}
}

int
events_finish(struct clockopts *o)
{
	struct clockevent *e;
	struct pme_error err;

	if (o->nev == 0 && pme_ev_parse(DEFAULT_CLOCK, &o->ev[o->nev++].spec,
	    NULL, &err) == -1) {
		fprintf(stderr, "%s: %s\n", prog, err.msg);
		return 1;
	}
	for (e = o->ev; e < o->ev + o->nev; e++) {
		/* cpu-clock/1ms is -i 1ms: the timer methods' too. */
		if (e->given && strcmp(e->spec.name, DEFAULT_CLOCK) == 0)
			o->period = e->period;
		if (e->given)
			continue;
		if (e->spec.kind == PME_EV_CLOCK)
			e->period = o->period;
		else if (o->hz != 0 && e->spec.kind != PME_EV_BREAK &&
		    e->spec.kind != PME_EV_HEAP) {
			e->period = o->hz;
			e->freq = 1;
		} else
			e->period = 1;
	}
	if (o->jitter > 0 && (o->nev > 1 || !events_clock(o, 0))) {
		fprintf(stderr, "%s: -j varies the period of one clock: not "
		    "with -e %s\n", prog, o->nev > 1 ? "and several events" :
		    o->ev[0].spec.name);
		return 2;
	}
	if (o->io && (o->count || (o->method != PME_METHOD_NONE &&
	    o->method != PME_METHOD_PERF))) {
		fprintf(stderr, "%s: -e io: traced by perf_event_open (-m "
		    "perf), not with --count\n", prog);
		return 2;
	}
	return 0;
}

void
events_attr(const struct clockopts *o, int k, struct perf_event_attr *a)
{
	const struct clockevent *e = &o->ev[k];

	a->type = e->spec.type;
	a->config = e->spec.config;
	breaks_attr(&e->spec, a);
	a->freq = (unsigned)e->freq;
	a->sample_period = e->period;	/* sample_freq, when freq */
}

/* Event e's period: the timer methods' cpu-clock is o->period, which
 * the kernel's tick may have lengthened (choose_method()). */
static uint64_t
period_of(const struct clockopts *o, const struct clockevent *e)
{
	if (o->method != PME_METHOD_PERF &&
	    strcmp(e->spec.name, DEFAULT_CLOCK) == 0)
		return o->period;
	return e->period;
}

void
events_header(const struct clockopts *o, struct pme_sample_event *out)
{
	const struct clockevent *e;

	for (e = o->ev; e < o->ev + o->nev; e++, out++) {
		out->name = e->spec.name;
		out->unit = pme_ev_unit(e->spec.kind, e->spec.name);
		out->kind = (uint32_t)e->spec.kind;
		out->type = e->spec.type;
		out->config = e->spec.config;
		out->period = e->freq ? 0 : period_of(o, e);
		out->flags = e->freq ? PME_SEV_FREQ : 0;
	}
}

void
events_say(const struct clockopts *o, int pid)
{
	const struct clockevent *e;

	fprintf(stderr, "%s: watching '%s' (pid %d) into '%s':", prog,
	    o->argv[0], pid, o->out);
	for (e = o->ev; e < o->ev + o->nev; e++) {
		fprintf(stderr, "%s %s ", e == o->ev ? "" : ",", e->spec.name);
		if (e->spec.kind == PME_EV_CLOCK)
			fprintf(stderr, "every %lluus", (unsigned long long)
			    (period_of(o, e) / 1000));
		else if (e->spec.kind == PME_EV_HEAP)
			fprintf(stderr, "every call");
		else if (e->freq)
			fprintf(stderr, "%llu times a second",
			    (unsigned long long)e->period);
		else if (e->period == 1)
			fprintf(stderr, "every event");
		else
			fprintf(stderr, "one event in %llu",
			    (unsigned long long)e->period);
	}
	if (o->ngate != 0 && o->gateret)
		fprintf(stderr, "; a thread's samples only in its calls of %s",
		    o->gatearg[0]);
	else if (o->ngate != 0)
		fprintf(stderr, "; a thread's samples only while its calls of "
		    "%s exceed those of %s", o->gatearg[0], o->gatearg[1]);
	fputc('\n', stderr);
}

/* Opens event spec, counting, on pmeclock itself: 0, or -1 with errno.
 * Kernel events too where the kernel allows them, as perf_probe(). */
static int
try_event(const struct pme_evspec *spec)
{
	struct perf_event_attr a;
	long fd;
	int ek;

	for (ek = 0; ek < 2; ek++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = spec->type;
		a.config = spec->config;
		breaks_attr(spec, &a);
		a.disabled = 1;
		a.exclude_kernel = (unsigned)ek;
		a.exclude_hv = 1;
		fd = syscall(SYS_perf_event_open, &a, 0, -1, -1,
		    PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0) {
			close((int)fd);
			return 0;
		}
		if (errno != EACCES && errno != EPERM)
			break;
	}
	return -1;
}

static int
needs_pmu(int kind)
{
	return kind == PME_EV_HARDWARE || kind == PME_EV_CACHE ||
	    kind == PME_EV_RAW || kind == PME_EV_PMU;
}

/* What to watch instead of event spec. */
static const char *
instead(const struct pme_evspec *spec)
{
	if (spec->def != NULL && spec->def->instead != NULL)
		return spec->def->instead;
	return "cpu-clock (CPU time)";
}

/* Why spec cannot be counted here, into buf, from errno e; brief: in a
 * word or two, for -l. */
static void
why_not(const struct pme_evspec *spec, int e, int brief, char *buf,
    size_t len)
{
	if (needs_pmu(spec->kind) && (e == ENOENT || e == EOPNOTSUPP ||
	    e == ENODEV))
		snprintf(buf, len, brief ? "no PMU here: use %s" : "this "
		    "machine has no PMU to count it (perf_event_open: %s): use "
		    "%s instead", brief ? instead(spec) : strerror(e),
		    instead(spec));
	else if (e == EACCES || e == EPERM)
		snprintf(buf, len, "perf_event_open refused (%s): see "
		    "/proc/sys/kernel/perf_event_paranoid", strerror(e));
	else
		snprintf(buf, len, "perf_event_open: %s", strerror(e));
}

static int	resolve_break(const struct clockopts *o, struct clockevent *e);

/* The bit of perf_event_attr.config that makes a uprobe a return probe
 * (the uprobe PMU's format/retprobe, "config:0"): 0, or -1. */
static int
retprobe_bit(unsigned *bit)
{
	FILE *fp;
	int n;

	if ((fp = fopen("/sys/bus/event_source/devices/uprobe/format/"
	    "retprobe", "re")) == NULL)
		return -1;
	n = fscanf(fp, "config:%u", bit);
	fclose(fp);
	return n == 1 && *bit < 64 ? 0 : -1;
}

/* --start and --stop resolved and tried, the stop on the return of the
 * start's routine when both name one: 0, or -1 said. */
static int
gate_check(struct clockopts *o)
{
	struct clockevent *e;
	char why[512];
	unsigned bit;

	if (o->method != PME_METHOD_PERF) {
		fprintf(stderr, "%s: --start/--stop: the %s method cannot break "
		    "on a routine%s%s; breaks need perf_event_open (-m perf)\n",
		    prog, o->method == PME_METHOD_TIMER ? "timer" : "itimer",
		    o->note[0] ? ": " : "", o->note);
		return -1;
	}
	for (e = o->gate; e < o->gate + 2; e++)
		if (resolve_break(o, e) == -1)
			return -1;
	o->gateret = strcmp(o->gate[0].spec.path, o->gate[1].spec.path) ==
	    0 && o->gate[0].spec.offset == o->gate[1].spec.offset;
	(void)breaks_tracefs(o, &o->gate[0].spec, 0);
	if (breaks_tracefs(o, &o->gate[1].spec, o->gateret) == -1 &&
	    o->gateret) {
		if (retprobe_bit(&bit) == -1) {
			fprintf(stderr, "%s: %s: this kernel's uprobe PMU has no "
			    "return probes (no /sys/bus/event_source/devices/"
			    "uprobe/format/retprobe)\n", prog,
			    o->gate[1].spec.name);
			return -1;
		}
		o->gate[1].spec.config |= (uint64_t)1 << bit;
	}
	for (e = o->gate; e < o->gate + 2; e++)
		if (try_event(&e->spec) == -1) {
			why_not(&e->spec, errno, 0, why, sizeof(why));
			fprintf(stderr, "%s: %s: %s\n", prog, e->spec.name, why);
			return -1;
		}
	return 0;
}

int
events_check(struct clockopts *o)
{
	struct clockevent *e;
	char why[512];

	if (o->ngate != 0 && gate_check(o) == -1)
		return 1;
	if (o->io && o->method != PME_METHOD_PERF) {
		fprintf(stderr, "%s: -e io needs perf_event_open (-m perf)%s%s\n",
		    prog, o->note[0] ? ": " : "", o->note);
		return 1;
	}
	for (e = o->ev; e < o->ev + o->nev; e++) {
		if (e->spec.kind == PME_EV_HEAP)
			continue;	/* the runtime's (pmeclock.c) */
		if (o->method != PME_METHOD_PERF) {
			if (strcmp(e->spec.name, DEFAULT_CLOCK) == 0)
				continue;
			fprintf(stderr, "%s: %s: the %s method watches only "
			    "cpu-clock%s%s; %s needs perf_event_open (-m "
			    "perf)\n", prog, e->spec.name, o->method ==
			    PME_METHOD_TIMER ? "timer" : "itimer",
			    o->note[0] ? ": " : "", o->note, e->spec.name);
			return 1;
		}
		if (e->spec.kind == PME_EV_BREAK) {
			if (resolve_break(o, e) == -1)
				return 1;
			(void)breaks_tracefs(o, &e->spec, 0);
		}
		if (try_event(&e->spec) == 0)
			continue;
		why_not(&e->spec, errno, 0, why, sizeof(why));
		fprintf(stderr, "%s: %s: %s\n", prog, e->spec.name, why);
		return 1;
	}
	return 0;
}

/* The interpreter (PT_INTERP) of the ELF file path into buf: 0, or -1
 * when it has none (a static program) or is not ELF. */
static int
interp(const char *path, char *buf, size_t len)
{
	GElf_Phdr ph;
	size_t nph = 0, i, n;
	const char *raw;
	Elf *elf;
	int fd, rc = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (elf_version(EV_CURRENT) != EV_NONE &&
	    (elf = elf_begin(fd, ELF_C_READ, NULL)) != NULL) {
		if (elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &nph) == 0)
			for (i = 0; i < nph && rc == -1; i++)
				if (gelf_getphdr(elf, (int)i, &ph) != NULL &&
				    ph.p_type == PT_INTERP &&
				    (raw = elf_rawfile(elf, &n)) != NULL &&
				    ph.p_offset < n && ph.p_filesz < len &&
				    ph.p_filesz <= n - ph.p_offset) {
					memcpy(buf, raw + ph.p_offset,
					    ph.p_filesz);
					buf[ph.p_filesz] = '\0';
					rc = buf[0] == '/' ? 0 : -1;
				}
		elf_end(elf);
	}
	close(fd);
	return rc;
}

/* Whether a line of ld.so --list ("\tlibg.so => /x/libg.so (0x...)")
 * is the library named module (its name, its file's name, or its name
 * less a version: libc.so for libc.so.6); its path into buf. */
static int
is_module(char *line, const char *module, char *buf, size_t len)
{
	char *name = line + strspn(line, " \t"), *arrow, *path, *end;
	const char *base;
	size_t m = strlen(module);

	if ((arrow = strstr(name, " => ")) == NULL)
		return 0;
	*arrow = '\0';
	path = arrow + 4;
	if ((end = strstr(path, " (0x")) == NULL || path[0] != '/')
		return 0;
	*end = '\0';
	base = strrchr(path, '/') + 1;
	if (strcmp(name, module) != 0 && strcmp(base, module) != 0 &&
	    (strncmp(name, module, m) != 0 || name[m] != '.'))
		return 0;
	snprintf(buf, len, "%s", path);
	return 1;
}

/* The shared library named module that the dynamic linker loads for
 * program prog, as ldd(1) asks it (ld.so --list, which runs nothing of
 * the program), into buf: 0, or -1 said. */
static int
find_module(const char *program, const char *module, char *buf, size_t len)
{
	char ld[PATH_MAX], line[PATH_MAX + 256];
	int fds[2], status, found = 0, dn;
	FILE *fp;
	pid_t pid;

	if (interp(program, ld, sizeof(ld)) == -1) {
		fprintf(stderr, "%s: break:%s:...: '%s' loads no shared "
		    "library (a static program, or not ELF)\n", prog,
		    module, program);
		return -1;
	}
	if (pipe2(fds, O_CLOEXEC) == -1) {
		fprintf(stderr, "%s: pipe: %s\n", prog, strerror(errno));
		return -1;
	}
	if ((pid = fork()) == -1) {
		fprintf(stderr, "%s: fork: %s\n", prog, strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		dn = open("/dev/null", O_WRONLY);
		dup2(fds[1], 1);
		if (dn >= 0)
			dup2(dn, 2);
		execl(ld, ld, "--list", program, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	if ((fp = fdopen(fds[0], "r")) == NULL)
		close(fds[0]);
	else {
		while (fgets(line, sizeof(line), fp) != NULL)
			if (!found && is_module(line, module, buf, len))
				found = 1;
		fclose(fp);
	}
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (found)
		return 0;
	fprintf(stderr, "%s: break:%s:...: '%s' loads no shared library "
	    "'%s' (ldd %s lists those it loads)\n", prog, module, program,
	    module, program);
	return -1;
}

/* Break e's routine resolved in the program or its module: 0, or -1
 * said. */
static int
resolve_break(const struct clockopts *o, struct clockevent *e)
{
	char buf[PATH_MAX], lib[PATH_MAX];
	const char *path;
	struct pme_error err;
	ssize_t n;

	/* -a with no command: the file is named. */
	if (o->system && o->argc == 0 && strchr(e->spec.module, '/') ==
	    NULL) {
		fprintf(stderr, "%s: '%s': -a with no command: no program "
		    "to break in; name its file (%s/path/to/program:%s)\n",
		    prog, e->spec.name, e == &o->gate[0] ? "--start " :
		    e == &o->gate[1] ? "--stop " : "break:", e->spec.routine);
		return -1;
	}
	/* Attached (-p): the process's program, as /proc has it. */
	if (o->attach != 0) {
		snprintf(lib, sizeof(lib), "/proc/%d/exe", (int)o->attach);
		if ((n = readlink(lib, buf, sizeof(buf) - 1)) > 0 &&
		    (buf[n] = '\0', access(buf, R_OK) == 0))
			path = buf;
		else if (access(lib, R_OK) == 0)
			path = strcpy(buf, lib);
		else {
			fprintf(stderr, "%s: %s: -p %d: cannot read the "
			    "process's program (%s): %s\n", prog,
			    e->spec.name, (int)o->attach, lib,
			    strerror(errno));
			return -1;
		}
	} else if ((path = setid_which(o->argv[0], buf, sizeof(buf))) ==
	    NULL) {
		fprintf(stderr, "%s: %s: no program '%s' to break in\n", prog,
		    e->spec.name, o->argv[0]);
		return -1;
	}
	if (e->spec.module[0] != '\0') {
		if (strchr(e->spec.module, '/') != NULL)
			path = e->spec.module;
		else if (find_module(path, e->spec.module, lib,
		    sizeof(lib)) == -1)
			return -1;
		else
			path = lib;
	}
	if (pme_ev_break(&e->spec, path, &err) == -1) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		return -1;
	}
	return 0;
}

int
events_gate(struct clockopts *o, int which, const char *routine)
{
	static const char *const opt[] = { "--start", "--stop" };
	struct clockevent *e = &o->gate[which];
	char buf[PME_EVNAME_MAX];
	struct pme_error err;

	if (o->gatearg[which] != NULL) {
		fprintf(stderr, "%s: %s: given twice\n", prog, opt[which]);
		return 2;
	}
	if (routine[0] == '\0' || strlen(routine) + 9 >= sizeof(buf)) {
		fprintf(stderr, "%s: %s: '%.60s' is not a routine "
		    "([MODULE:]ROUTINE)\n", prog, opt[which], routine);
		return 2;
	}
	snprintf(buf, sizeof(buf), "break:%s", routine);
	memset(e, 0, sizeof(*e));
	if (pme_ev_parse(buf, &e->spec, NULL, &err) == -1) {
		fprintf(stderr, "%s: %s: %s\n", prog, opt[which], err.msg);
		return err.code == PME_EIO ? 1 : 2;
	}
	/* Its errors say "'--start f': no routine 'f' in ...". */
	snprintf(e->spec.name, sizeof(e->spec.name), "%s %s", opt[which],
	    routine);
	e->period = 1;
	o->gatearg[which] = routine;
	return 0;
}

int
events_gate_finish(struct clockopts *o)
{
	const char *bad = NULL;
	int k, w;

	if (o->gatearg[0] == NULL && o->gatearg[1] == NULL)
		return 0;
	if (o->gatearg[0] == NULL || o->gatearg[1] == NULL) {
		w = o->gatearg[0] == NULL;
		bad = w ? o->gatearg[1] : o->gatearg[0];
		fprintf(stderr, "%s: %s %s: no %s (the window is from a call "
		    "of --start's routine to a call of --stop's; --start f "
		    "--stop f: to f's return)\n", prog, w ? "--stop" :
		    "--start", bad != NULL ? bad : "", w ? "--start" :
		    "--stop");
		return 2;
	}
	for (k = 0; k < o->nev; k++)
		if (o->ev[k].spec.kind == PME_EV_HEAP)
			bad = "-e alloc";
	if (o->count || o->wall || o->io || bad != NULL) {
		fprintf(stderr, "%s: --start/--stop: not with %s\n", prog,
		    o->count ? "--count" : o->wall ? "-w" : o->io ? "-e io" :
		    bad);
		return 2;
	}
	o->ngate = 2;
	return 0;
}

/* The tracepoints under tracefs: how many, or -1. */
static long
tracepoints(char *dir, size_t len)
{
	char path[4200];
	FILE *fp;
	long n = 0;
	int c;

	if (pme_ev_tracefs(NULL, dir, len) == -1)
		return -1;
	snprintf(path, sizeof(path), "%s/available_events", dir);
	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	while ((c = getc(fp)) != EOF)
		n += c == '\n';
	fclose(fp);
	return n;
}

int
events_list(const struct clockopts *o)
{
	const struct pme_evdef *rows;
	struct pme_evspec spec;
	struct pme_error err;
	char why[512], dir[256];
	size_t n, i;
	long tp;

	(void)o;
	rows = pme_ev_rows(&n);
	printf("%-24s %-4s %-10s %-12s %s\n", "EVENT", "HERE", "KIND", "UNIT",
	    "WHAT IT MEASURES");
	for (i = 0; i < n; i++) {
		if (pme_ev_parse(rows[i].name, &spec, NULL, &err) == -1)
			continue;
		why[0] = '\0';
		if (spec.kind != PME_EV_HEAP && try_event(&spec) == -1)
			why_not(&spec, errno, 1, why, sizeof(why));
		printf("%-24s %-4s %-10s %-12s %s%s%s%s\n", rows[i].name,
		    why[0] ? "no" : "yes", kinds[rows[i].kind], rows[i].unit,
		    rows[i].what, why[0] ? " [" : "", why, why[0] ? "]" : "");
	}
	if ((tp = tracepoints(dir, sizeof(dir))) >= 0)
		printf("%-24s %-4s %-10s %-12s %ld tracepoints, listed in "
		    "%s/available_events\n", "SUBSYS:NAME", "yes",
		    kinds[PME_EV_TRACEPOINT], "hits", tp, dir);
	else
		printf("%-24s %-4s %-10s %-12s tracefs is not mounted (mount "
		    "-t tracefs nodev /sys/kernel/tracing)\n", "SUBSYS:NAME",
		    "no", kinds[PME_EV_TRACEPOINT], "hits");
	why[0] = '\0';
	if (pme_ev_parse("break:main", &spec, NULL, &err) == -1)
		snprintf(why, sizeof(why), "%s", err.msg);
	printf("%-24s %-4s %-10s %-12s calls of a routine, a uprobe on its "
	    "entry (u:[MODULE:]ROUTINE)%s%s%s\n", "break:[MODULE:]ROUTINE",
	    why[0] ? "no" : "yes", kinds[PME_EV_BREAK], "calls",
	    why[0] ? " [" : "", why, why[0] ? "]" : "");
	why[0] = '\0';
	if (pme_ev_parse("raw_syscalls:sys_enter", &spec, NULL, &err) == -1)
		snprintf(why, sizeof(why), "%s", err.msg);
	else if (try_event(&spec) == -1)
		why_not(&spec, errno, 1, why, sizeof(why));
	printf("%-24s %-4s %-10s %-12s the I/O system calls, each with its "
	    "bytes, time, stack and path (I/O)%s%s%s\n", "io",
	    why[0] ? "no" : "yes", kinds[PME_EV_TRACEPOINT], "calls",
	    why[0] ? " [" : "", why, why[0] ? "]" : "");
	why[0] = '\0';
	if (pme_ev_parse("r0", &spec, NULL, &err) == 0 &&
	    try_event(&spec) == -1)
		why_not(&spec, errno, 1, why, sizeof(why));
	printf("%-24s %-4s %-10s %-12s raw PMU events, pmu/term=value,.../ "
	    "(sysfs)%s%s%s\n", "rNNNN, pmu/.../", why[0] ? "no" : "yes",
	    kinds[PME_EV_RAW], "events", why[0] ? " [" : "", why,
	    why[0] ? "]" : "");
	return 0;
}
