/*
 * measure.c - the registry of events and measures (measure.h): the rows,
 * and the resolution of an event's name into what perf_event_open takes.
 * Names follow perf list's, so that a perf user's -e works unchanged.
 * Reads sysfs and tracefs for PMU formats and tracepoint ids; prints
 * nothing.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "measure.h"
#include "pme_sample.h"
#include "util.h"

#define SW(c)	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c
#define HW(c)	PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c
#define CACHE(id, op, res) PERF_TYPE_HW_CACHE, \
	(PERF_COUNT_HW_CACHE_##id | PERF_COUNT_HW_CACHE_OP_##op << 8 | \
	(uint64_t)PERF_COUNT_HW_CACHE_RESULT_##res << 16)

/* What to watch where there is no PMU: time, or pmetrace's exact counts
 * of instructions. */
#define NO_PMU_TIME	"cpu-clock (CPU time)"
#define NO_PMU_INSN	"pmetrace (every instruction counted)"
#define NO_PMU_MEM	"cpu-clock (CPU time) or page-faults"

static const struct pme_evdef rows[] = {
	{ "cpu-clock", PME_EV_CLOCK, SW(CPU_CLOCK), "ns", "CPU time of the "
	    "thread, from a timer (the default)", NULL },
	{ "task-clock", PME_EV_CLOCK, SW(TASK_CLOCK), "ns", "CPU time of "
	    "the task, from its clock at switches and ticks", NULL },
	{ "page-faults", PME_EV_SOFTWARE, SW(PAGE_FAULTS), "page faults",
	    "page faults, minor and major", NULL },
	{ "minor-faults", PME_EV_SOFTWARE, SW(PAGE_FAULTS_MIN),
	    "page faults", "page faults served without I/O", NULL },
	{ "major-faults", PME_EV_SOFTWARE, SW(PAGE_FAULTS_MAJ),
	    "page faults", "page faults that waited for I/O", NULL },
	{ "context-switches", PME_EV_SOFTWARE, SW(CONTEXT_SWITCHES),
	    "switches", "times a thread left the CPU", NULL },
	{ "cpu-migrations", PME_EV_SOFTWARE, SW(CPU_MIGRATIONS),
	    "migrations", "times a thread moved to another CPU", NULL },
	{ "alignment-faults", PME_EV_SOFTWARE, SW(ALIGNMENT_FAULTS),
	    "faults", "unaligned accesses the kernel fixed up", NULL },
	{ "emulation-faults", PME_EV_SOFTWARE, SW(EMULATION_FAULTS),
	    "faults", "instructions the kernel emulated", NULL },
	{ "cycles", PME_EV_HARDWARE, HW(CPU_CYCLES), "cycles",
	    "CPU cycles", NO_PMU_TIME },
	{ "instructions", PME_EV_HARDWARE, HW(INSTRUCTIONS), "instructions",
	    "instructions retired", NO_PMU_INSN },
	{ "cache-references", PME_EV_HARDWARE, HW(CACHE_REFERENCES),
	    "references", "last-level cache references", NO_PMU_MEM },
	{ "cache-misses", PME_EV_HARDWARE, HW(CACHE_MISSES), "misses",
	    "last-level cache misses", NO_PMU_MEM },
	{ "branch-instructions", PME_EV_HARDWARE, HW(BRANCH_INSTRUCTIONS),
	    "branches", "branch instructions retired", NO_PMU_INSN },
	{ "branch-misses", PME_EV_HARDWARE, HW(BRANCH_MISSES), "misses",
	    "mispredicted branches", NO_PMU_TIME },
	{ "bus-cycles", PME_EV_HARDWARE, HW(BUS_CYCLES), "cycles",
	    "bus cycles", NO_PMU_TIME },
	{ "stalled-cycles-frontend", PME_EV_HARDWARE,
	    HW(STALLED_CYCLES_FRONTEND), "cycles", "cycles the front end "
	    "issued nothing", NO_PMU_TIME },
	{ "stalled-cycles-backend", PME_EV_HARDWARE,
	    HW(STALLED_CYCLES_BACKEND), "cycles", "cycles the back end "
	    "retired nothing", NO_PMU_TIME },
	{ "ref-cycles", PME_EV_HARDWARE, HW(REF_CPU_CYCLES), "cycles",
	    "cycles at the reference clock", NO_PMU_TIME },
	{ "L1-dcache-loads", PME_EV_CACHE, CACHE(L1D, READ, ACCESS),
	    "loads", "level 1 data cache loads", NO_PMU_MEM },
	{ "L1-dcache-load-misses", PME_EV_CACHE, CACHE(L1D, READ, MISS),
	    "misses", "level 1 data cache load misses", NO_PMU_MEM },
	{ "L1-dcache-stores", PME_EV_CACHE, CACHE(L1D, WRITE, ACCESS),
	    "stores", "level 1 data cache stores", NO_PMU_MEM },
	{ "L1-icache-load-misses", PME_EV_CACHE, CACHE(L1I, READ, MISS),
	    "misses", "level 1 instruction cache misses", NO_PMU_MEM },
	{ "LLC-loads", PME_EV_CACHE, CACHE(LL, READ, ACCESS), "loads",
	    "last-level cache loads", NO_PMU_MEM },
	{ "LLC-load-misses", PME_EV_CACHE, CACHE(LL, READ, MISS), "misses",
	    "last-level cache load misses", NO_PMU_MEM },
	{ "LLC-stores", PME_EV_CACHE, CACHE(LL, WRITE, ACCESS), "stores",
	    "last-level cache stores", NO_PMU_MEM },
	{ "LLC-store-misses", PME_EV_CACHE, CACHE(LL, WRITE, MISS),
	    "misses", "last-level cache store misses", NO_PMU_MEM },
	{ "dTLB-loads", PME_EV_CACHE, CACHE(DTLB, READ, ACCESS), "loads",
	    "data TLB loads", NO_PMU_MEM },
	{ "dTLB-load-misses", PME_EV_CACHE, CACHE(DTLB, READ, MISS),
	    "misses", "data TLB load misses", NO_PMU_MEM },
	{ "dTLB-store-misses", PME_EV_CACHE, CACHE(DTLB, WRITE, MISS),
	    "misses", "data TLB store misses", NO_PMU_MEM },
	{ "iTLB-load-misses", PME_EV_CACHE, CACHE(ITLB, READ, MISS),
	    "misses", "instruction TLB misses", NO_PMU_MEM },
	{ "branch-loads", PME_EV_CACHE, CACHE(BPU, READ, ACCESS),
	    "branches", "branch predictor lookups", NO_PMU_TIME },
	{ "branch-load-misses", PME_EV_CACHE, CACHE(BPU, READ, MISS),
	    "misses", "branch predictor misses", NO_PMU_TIME },
	{ "node-loads", PME_EV_CACHE, CACHE(NODE, READ, ACCESS), "loads",
	    "loads from local memory (NUMA)", NO_PMU_MEM },
	{ "node-load-misses", PME_EV_CACHE, CACHE(NODE, READ, MISS),
	    "misses", "loads from remote memory (NUMA)", NO_PMU_MEM },
	/* -e alloc records both, every call of the allocator. */
	{ "allocations", PME_EV_HEAP, 0, 0, "allocations", "calls that "
	    "allocate (malloc, new, ...): -e alloc", NULL },
	{ "bytes", PME_EV_HEAP, 0, 1, "bytes", "bytes the allocations asked "
	    "for: -e alloc", NULL },
};
#define NROWS	(sizeof(rows) / sizeof(rows[0]))

/* perf's other spellings. */
static const struct alias {
	const char	*alias, *name;
} aliases[] = {
	{ "faults", "page-faults" }, { "cs", "context-switches" },
	{ "alloc", "allocations" },
	{ "migrations", "cpu-migrations" }, { "cpu-cycles", "cycles" },
	{ "branches", "branch-instructions" },
	{ "idle-cycles-frontend", "stalled-cycles-frontend" },
	{ "idle-cycles-backend", "stalled-cycles-backend" },
};

const struct pme_evdef *
pme_ev_rows(size_t *n)
{
	*n = NROWS;
	return rows;
}

const struct pme_evdef *
pme_ev_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(name, aliases[i].alias) == 0)
			name = aliases[i].name;
	for (i = 0; i < NROWS; i++)
		if (strcmp(name, rows[i].name) == 0)
			return &rows[i];
	return NULL;
}

const char *
pme_ev_unit(int kind, const char *name)
{
	const struct pme_evdef *d = pme_ev_find(name);

	if (d != NULL)
		return d->unit;
	if (kind == PME_EV_BREAK)
		return "calls";
	return kind == PME_EV_TRACEPOINT ? "hits" : "events";
}

const struct pme_evdef *
pme_ev_legacy(uint32_t event)
{
	switch (event) {
	case PME_EVENT_CPU_CLOCK:
	case PME_EVENT_PROF:
		return pme_ev_find("cpu-clock");
	case PME_EVENT_TASK_CLOCK:
		return pme_ev_find("task-clock");
	default:
		return NULL;
	}
}

/* ------------------------------------------------------ sysfs, tracefs */

/* The first line of file path, under root, into buf: 0 or -1. */
static int
read_line(const char *root, const char *path, char *buf, size_t len)
{
	char full[4096];

	snprintf(full, sizeof(full), "%s%s", root, path);
	return pme_first_line(full, buf, len);
}

int
pme_ev_tracefs(const char *root, char *buf, size_t len)
{
	static const char *const dirs[] = { "/sys/kernel/tracing",
	    "/sys/kernel/debug/tracing" };
	char path[4096];
	size_t i;

	if (root == NULL)
		root = "";
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s%s/events", root, dirs[i]);
		if (access(path, X_OK) == 0) {
			snprintf(buf, len, "%s", dirs[i]);
			return 0;
		}
	}
	return -1;
}

/* A name of sysfs or tracefs: no '/', no "..", not empty. */
static int
name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || (n <= 2 && s[0] == '.'))
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '-' && s[i] != '.')
			return 0;
	return 1;
}

static int
parse_u64(const char *s, int base, uint64_t *v)
{
	char *end;

	if (*s == '\0' || *s == '-' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno != 0 || *end != '\0' ? -1 : 0;
}

static int
tracepoint(const char *name, const char *colon, struct pme_evspec *ev,
    const char *root, struct pme_error *err)
{
	char dir[256], path[4096], line[64];
	uint64_t id;

	if (!name_ok(name, (size_t)(colon - name)) ||
	    !name_ok(colon + 1, strlen(colon + 1)))
		return pme_seterr(err, PME_EINVAL, "'%s' is not an event "
		    "(pmeclock -l lists them)", name);
	if (pme_ev_tracefs(root, dir, sizeof(dir)) == -1)
		return pme_seterr(err, PME_EIO, "'%s': tracefs is not "
		    "mounted (mount -t tracefs nodev /sys/kernel/tracing)",
		    name);
	snprintf(path, sizeof(path), "%s/events/%.*s/%s/id", dir,
	    (int)(colon - name), name, colon + 1);
	if (read_line(root, path, line, sizeof(line)) == -1 ||
	    parse_u64(line, 10, &id) == -1)
		return pme_seterr(err, PME_EINVAL, "'%s': no such tracepoint "
		    "(no %s%s)", name, root, path);
	ev->kind = PME_EV_TRACEPOINT;
	ev->type = PERF_TYPE_TRACEPOINT;
	ev->config = id;
	return 0;
}

/* Puts value into *config at the bits format ("config:0-7,21") names. */
static int
place_bits(const char *format, uint64_t value, uint64_t *config)
{
	const char *p;
	char *end;
	unsigned long a, b;

	if (strncmp(format, "config:", 7) != 0)
		return -1;
	for (p = format + 7; *p != '\0'; p = *end == ',' ? end + 1 : end) {
		a = b = strtoul(p, &end, 10);
		if (end == p)
			return -1;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		if (b < a || b > 63 || (*end != ',' && *end != '\0'))
			return -1;
		for (; a <= b; a++, value >>= 1)
			*config |= (value & 1) << a;
	}
	return value == 0 ? 0 : -1;
}

/* One term "name=value" (or "name", value 1) of pmu/.../. */
static int
pmu_term(const char *pmu, char *term, struct pme_evspec *ev,
    const char *root, struct pme_error *err)
{
	char path[4096], format[256], *eq = strchr(term, '=');
	uint64_t v = 1;

	if (eq != NULL)
		*eq++ = '\0';
	if (!name_ok(term, strlen(term)) ||
	    (eq != NULL && parse_u64(eq, 0, &v) == -1))
		return pme_seterr(err, PME_EINVAL, "'%s': bad term '%s'",
		    ev->name, term);
	if (strcmp(term, "period") == 0) {
		ev->period = v;
		return v == 0 ? pme_seterr(err, PME_EINVAL, "'%s': period 0",
		    ev->name) : 0;
	}
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/"
	    "format/%s", pmu, term);
	if (read_line(root, path, format, sizeof(format)) == -1)
		return pme_seterr(err, PME_EINVAL, "'%s': PMU '%s' has no term "
		    "'%s' (no %s%s)", ev->name, pmu, term, root, path);
	if (place_bits(format, v, &ev->config) == -1)
		return pme_seterr(err, PME_EINVAL, "'%s': term '%s' (%s) does "
		    "not hold 0x%llx, or is not of config", ev->name, term,
		    format, (unsigned long long)v);
	return 0;
}

/* pmu/term=value,.../ */
static int
pmu_event(const char *name, struct pme_evspec *ev, const char *root,
    struct pme_error *err)
{
	char buf[PME_EVNAME_MAX], path[4096], line[64], *slash, *t, *save;
	uint64_t type;

	snprintf(buf, sizeof(buf), "%s", name);
	slash = strchr(buf, '/');
	*slash = '\0';
	if (!name_ok(buf, strlen(buf)) || slash[1] == '\0' ||
	    buf[strlen(name) - 1] != '/')
		return pme_seterr(err, PME_EINVAL, "'%s' is not an event "
		    "(pmu/term=value,.../)", name);
	buf[strlen(name) - 1] = '\0';
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
	    buf);
	if (read_line(root, path, line, sizeof(line)) == -1 ||
	    parse_u64(line, 10, &type) == -1 || type > UINT32_MAX)
		return pme_seterr(err, PME_EIO, "'%s': this machine has no "
		    "PMU '%s' (no %s%s): use %s instead", name, buf, root, path,
		    NO_PMU_TIME);
	ev->kind = PME_EV_PMU;
	ev->type = (uint32_t)type;
	ev->config = 0;
	for (t = strtok_r(slash + 1, ",", &save); t != NULL;
	    t = strtok_r(NULL, ",", &save))
		if (pmu_term(buf, t, ev, root, err) == -1)
			return -1;
	return 0;
}

/* The first ':' of s that is not half of a "::" (C++), or NULL. */
static const char *
single_colon(const char *s)
{
	const char *p;

	for (p = s; (p = strchr(p, ':')) != NULL; p += 2)
		if (p[1] != ':')
			return p;
	return NULL;
}

/* break:[MODULE:]ROUTINE or u:[MODULE:]ROUTINE, named break:... */
static int
break_event(const char *name, struct pme_evspec *ev, const char *root,
    struct pme_error *err)
{
	static const char typefile[] = "/sys/bus/event_source/devices/uprobe/"
	    "type";
	const char *rest = strchr(name, ':') + 1, *colon = single_colon(rest);
	char line[64];
	uint64_t type;

	if (colon != NULL) {
		snprintf(ev->module, sizeof(ev->module), "%.*s",
		    (int)(colon - rest), rest);
		rest = colon + 1;
	}
	snprintf(ev->routine, sizeof(ev->routine), "%s", rest);
	if (ev->routine[0] == '\0' || (colon != NULL && ev->module[0] == '\0'))
		return pme_seterr(err, PME_EINVAL, "'%s' is not a break "
		    "(break:[MODULE:]ROUTINE)", name);
	if (read_line(root, typefile, line, sizeof(line)) == -1 ||
	    parse_u64(line, 10, &type) == -1 || type > UINT32_MAX)
		return pme_seterr(err, PME_EIO, "'%s': this kernel has no "
		    "uprobe PMU (no %s%s): breaks need CONFIG_UPROBE_EVENTS",
		    name, root, typefile);
	ev->kind = PME_EV_BREAK;
	ev->type = (uint32_t)type;
	/* u:f is break:f; no longer than name plus "reak". */
	if (snprintf(ev->name, sizeof(ev->name), "break:%s",
	    strchr(name, ':') + 1) >= (int)sizeof(ev->name))
		return pme_seterr(err, PME_EINVAL, "'%.40s...': event name too "
		    "long", name);
	return 0;
}

int
pme_ev_parse(const char *name, struct pme_evspec *ev, const char *root,
    struct pme_error *err)
{
	const struct pme_evdef *d;
	const char *colon;

	if (root == NULL)
		root = "";
	memset(ev, 0, sizeof(*ev));
	if (strlen(name) >= sizeof(ev->name))
		return pme_seterr(err, PME_EINVAL, "'%.40s...': event name too "
		    "long", name);
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	if ((d = pme_ev_find(name)) != NULL) {
		ev->kind = d->kind;
		ev->type = d->type;
		ev->config = d->config;
		ev->def = d;
		snprintf(ev->name, sizeof(ev->name), "%s", d->name);
		return 0;
	}
	if (name[0] == 'r' && name[1] != '\0' &&
	    parse_u64(name + 1, 16, &ev->config) == 0) {
		ev->kind = PME_EV_RAW;
		ev->type = PERF_TYPE_RAW;
		return 0;
	}
	if (strncmp(name, "break:", 6) == 0 || strncmp(name, "u:", 2) == 0)
		return break_event(name, ev, root, err);
	if (strchr(name, '/') != NULL)
		return pmu_event(name, ev, root, err);
	if ((colon = strchr(name, ':')) != NULL)
		return tracepoint(name, colon, ev, root, err);
	return pme_seterr(err, PME_EINVAL, "'%s' is not an event (pmeclock -l "
	    "lists them)", name);
}
