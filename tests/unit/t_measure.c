/*
 * t_measure.c - the registry of events (lib/measure.h): names and perf's
 * other spellings, generic cache events, rNNNN, and, under a root of the
 * test's own that stands for / (this machine has no PMU of its own), the
 * PMU form pmu/term=value,.../ with its terms placed at the bits sysfs's
 * format files name, and tracepoints with their ids read from tracefs,
 * its two places; every refusal, with its message.
 */
#define TEST_NAME "t_measure"
#include "check.h"

#include <linux/perf_event.h>

#include "measure.h"

/* Writes text to root/path, the directories made. */
static void
put(const char *root, const char *path, const char *text)
{
	char full[4400], *s;
	FILE *fp;

	snprintf(full, sizeof(full), "%s%s", root, path);
	for (s = full + strlen(root) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(full, 0755) == -1 && errno != EEXIST)
			die("%s: %s", full, strerror(errno));
		*s = '/';
	}
	if ((fp = fopen(full, "w")) == NULL)
		die("%s: %s", full, strerror(errno));
	fputs(text, fp);
	fclose(fp);
}

static void
ok(const char *name, const char *root, int kind, uint32_t type,
    uint64_t config, uint64_t period)
{
	struct pme_evspec ev;
	struct pme_error err;

	if (pme_ev_parse(name, &ev, root, &err) != 0) {
		fail("'%s': %s", name, err.msg);
		return;
	}
	if (ev.kind != kind || ev.type != type || ev.config != config ||
	    ev.period != period)
		fail("'%s': kind %d type %u config 0x%llx period %llu, not %d "
		    "%u 0x%llx %llu", name, ev.kind, ev.type,
		    (unsigned long long)ev.config,
		    (unsigned long long)ev.period, kind, type,
		    (unsigned long long)config, (unsigned long long)period);
}

static void
refused(const char *name, const char *root, enum pme_errcode code,
    const char *msg)
{
	struct pme_evspec ev;
	struct pme_error err;

	if (pme_ev_parse(name, &ev, root, &err) == 0)
		fail("'%s' resolved", name);
	else if (err.code != code || strstr(err.msg, msg) == NULL)
		fail("'%s': code %d '%s', not %d '...%s...'", name, err.code,
		    err.msg, code, msg);
}

static void
test_registry(void)
{
	const struct pme_evdef *rows;
	size_t n, i;

	rows = pme_ev_rows(&n);
	CHECK(n > 30);
	for (i = 0; i < n; i++) {
		CHECK(pme_ev_find(rows[i].name) == &rows[i]);
		CHECK(rows[i].unit != NULL && rows[i].what != NULL);
		/* what needs a PMU says what to use instead */
		CHECK((rows[i].kind == PME_EV_HARDWARE ||
		    rows[i].kind == PME_EV_CACHE) == (rows[i].instead != NULL));
	}
	ok("page-faults", "", PME_EV_SOFTWARE, PERF_TYPE_SOFTWARE,
	    PERF_COUNT_SW_PAGE_FAULTS, 0);
	ok("faults", "", PME_EV_SOFTWARE, PERF_TYPE_SOFTWARE,
	    PERF_COUNT_SW_PAGE_FAULTS, 0);
	ok("cs", "", PME_EV_SOFTWARE, PERF_TYPE_SOFTWARE,
	    PERF_COUNT_SW_CONTEXT_SWITCHES, 0);
	ok("cpu-clock", "", PME_EV_CLOCK, PERF_TYPE_SOFTWARE,
	    PERF_COUNT_SW_CPU_CLOCK, 0);
	ok("cpu-cycles", "", PME_EV_HARDWARE, PERF_TYPE_HARDWARE,
	    PERF_COUNT_HW_CPU_CYCLES, 0);
	ok("LLC-load-misses", "", PME_EV_CACHE, PERF_TYPE_HW_CACHE,
	    PERF_COUNT_HW_CACHE_LL | PERF_COUNT_HW_CACHE_OP_READ << 8 |
	    PERF_COUNT_HW_CACHE_RESULT_MISS << 16, 0);
	ok("r1a2", "", PME_EV_RAW, PERF_TYPE_RAW, 0x1a2, 0);
	CHECK(strcmp(pme_ev_unit(PME_EV_SOFTWARE, "faults"),
	    "page faults") == 0);
	CHECK(strcmp(pme_ev_unit(PME_EV_TRACEPOINT, "sched:x"), "hits") == 0);
	refused("bogus", "", PME_EINVAL, "'bogus' is not an event");
	refused("r", "", PME_EINVAL, "is not an event");
	refused("rxyz", "", PME_EINVAL, "is not an event");
}

static void
test_pmu(void)
{
	const char *root = testdir();

	put(root, "/sys/bus/event_source/devices/cpu/type", "4\n");
	put(root, "/sys/bus/event_source/devices/cpu/format/event",
	    "config:0-7\n");
	put(root, "/sys/bus/event_source/devices/cpu/format/umask",
	    "config:8-15\n");
	put(root, "/sys/bus/event_source/devices/cpu/format/edge",
	    "config:18\n");
	put(root, "/sys/bus/event_source/devices/cpu/format/split",
	    "config:0-1,32-33\n");
	put(root, "/sys/bus/event_source/devices/cpu/format/ldlat",
	    "config1:0-15\n");
	ok("cpu/event=0x3c,umask=0x01/", root, PME_EV_PMU, 4, 0x013c, 0);
	ok("cpu/event=0xc0,edge/", root, PME_EV_PMU, 4, 0x400c0, 0);
	ok("cpu/split=0xf/", root, PME_EV_PMU, 4, 0x300000003ull, 0);
	ok("cpu/event=0x3c,period=1000/", root, PME_EV_PMU, 4, 0x3c, 1000);
	refused("cpu/event=0x100/", root, PME_EINVAL,
	    "term 'event' (config:0-7) does not hold 0x100");
	refused("cpu/ldlat=3/", root, PME_EINVAL, "or is not of config");
	refused("cpu/nosuch=1/", root, PME_EINVAL, "PMU 'cpu' has no term "
	    "'nosuch'");
	refused("cpu/event=x/", root, PME_EINVAL, "bad term 'event'");
	refused("cpu/event=1,period=0/", root, PME_EINVAL, "period 0");
	refused("uncore/event=1/", root, PME_EIO, "this machine has no PMU "
	    "'uncore'");
	refused("../cpu/event=1/", root, PME_EINVAL, "is not an event");
}

/* An empty directory under the test's, as a root of sysfs and tracefs:
 * its path (tmppath()'s). */
static const char *
new_root(const char *name)
{
	const char *root = tmppath(name);

	if (mkdir(root, 0755) == -1)
		die("%s: %s", root, strerror(errno));
	return root;
}

static void
test_tracepoints(void)
{
	const char *root = new_root("tracefs");

	refused("sched:sched_switch", root, PME_EIO, "tracefs is not mounted");
	put(root, "/sys/kernel/debug/tracing/events/sched/sched_switch/id",
	    "316\n");
	ok("sched:sched_switch", root, PME_EV_TRACEPOINT,
	    PERF_TYPE_TRACEPOINT, 316, 0);
	put(root, "/sys/kernel/tracing/events/sched/sched_switch/id", "317\n");
	ok("sched:sched_switch", root, PME_EV_TRACEPOINT,
	    PERF_TYPE_TRACEPOINT, 317, 0);
	refused("sched:nope", root, PME_EINVAL, "no such tracepoint");
	refused("sched:../../x", root, PME_EINVAL, "is not an event");
	refused(":x", root, PME_EINVAL, "is not an event");
}

/* break:[MODULE:]ROUTINE and u:...: named break:..., module and routine
 * split at the first ':' that is not half of a C++ "::". */
static void
is_break(const char *name, const char *root, const char *want,
    const char *module, const char *routine)
{
	struct pme_evspec ev;
	struct pme_error err;

	ok(name, root, PME_EV_BREAK, 9, 0, 0);
	if (pme_ev_parse(name, &ev, root, &err) != 0)
		return;
	if (strcmp(ev.name, want) != 0 || strcmp(ev.module, module) != 0 ||
	    strcmp(ev.routine, routine) != 0)
		fail("'%s': '%s' module '%s' routine '%s', not '%s' '%s' '%s'",
		    name, ev.name, ev.module, ev.routine, want, module, routine);
}

static void
test_breaks(void)
{
	const char *root = new_root("uprobe");

	refused("break:f", root, PME_EIO, "this kernel has no uprobe PMU");
	put(root, "/sys/bus/event_source/devices/uprobe/type", "9\n");
	is_break("break:f", root, "break:f", "", "f");
	is_break("u:f", root, "break:f", "", "f");
	is_break("u:libg.so:g", root, "break:libg.so:g", "libg.so", "g");
	is_break("break:/x/libg.so.1:g", root, "break:/x/libg.so.1:g",
	    "/x/libg.so.1", "g");
	is_break("break:ns::f", root, "break:ns::f", "", "ns::f");
	is_break("u:libq.so:ns::f", root, "break:libq.so:ns::f", "libq.so",
	    "ns::f");
	refused("break:", root, PME_EINVAL, "is not a break");
	refused("u::f", root, PME_EINVAL, "is not a break");
	refused("u:lib.so:", root, PME_EINVAL, "is not a break");
}

int
main(void)
{
	test_registry();
	test_pmu();
	test_tracepoints();
	test_breaks();
	testdir_done();
	return failures != 0;
}
