/*
 * measure.h - libpme internals: the registry of the events pmeclock can
 * watch and of the measures their samples make (DESIGN.md 6, "Measures").
 * One row per event: its name, how it is collected (perf_event_open's
 * type and config), the unit of one event, what it measures, and what to
 * use where the machine cannot count it.  The option parser, pmeclock -l,
 * the man page's table and the reports read it; a new event is a row.
 * Not installed.
 */
#ifndef PME_MEASURE_H
#define PME_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "pme.h"

/* How an event is collected (enum pme_evkind, pme_sample_event.kind). */
enum pme_evkind {
	PME_EV_CLOCK = 1,	/* a software clock: a sample per period of
				   CPU time, the period in ns */
	PME_EV_SOFTWARE,	/* a software event the kernel counts */
	PME_EV_HARDWARE,	/* a generic hardware event (a PMU) */
	PME_EV_CACHE,		/* a generic cache event (a PMU) */
	PME_EV_RAW,		/* rNNNN: a raw PMU event */
	PME_EV_PMU,		/* pmu/term=value,.../ from sysfs */
	PME_EV_TRACEPOINT,	/* SUBSYS:NAME from tracefs */
	PME_EV_BREAK,		/* break:[MODULE:]ROUTINE (u:...): a uprobe
				   on a routine's entry */
	PME_EV_HEAP,		/* alloc: every call of the allocator, by
				   the preloaded runtime (no perf event) */
	PME_EV_WALL		/* wall time, a state, or I/O calls: made
				   by pmehisto of pmeclock -w's and -e io's
				   records (never in a file) */
};

/* A row of the registry. */
struct pme_evdef {
	const char	*name;
	int		 kind;		/* enum pme_evkind */
	uint32_t	 type;		/* perf_event_attr.type */
	uint64_t	 config;	/* perf_event_attr.config */
	const char	*unit;		/* what one event is ("page faults") */
	const char	*what;		/* what the event measures */
	const char	*instead;	/* what to watch where it cannot be
					   counted, or NULL */
};

/* An event as named on a command line, resolved. */
#define PME_EVNAME_MAX	256
struct pme_evspec {
	char		 name[PME_EVNAME_MAX];
	int		 kind;		/* enum pme_evkind */
	uint32_t	 type;
	uint64_t	 config;
	uint64_t	 period;	/* given in the name (pmu/...,period=N/),
					   else 0 */
	const struct pme_evdef *def;	/* its row, NULL for tracepoints, raw
					   and PMU events */
	/* A break: the module and routine named (module "" for the
	 * program), and once pme_ev_break() resolved them, the file and
	 * the file offset of the routine's entry (perf_event_attr's
	 * uprobe_path, a pointer to path, and probe_offset). */
	char		 module[PME_EVNAME_MAX];
	char		 routine[PME_EVNAME_MAX];
	char		 path[4096];
	uint64_t	 offset;
};

/* The registry's rows, in the order pmeclock -l lists them; *n rows. */
const struct pme_evdef *pme_ev_rows(size_t *n);
/* The row named name (or an alias perf uses), or NULL. */
const struct pme_evdef *pme_ev_find(const char *name);
/* The unit of one event of kind with name ("page faults", "ns"). */
const char	*pme_ev_unit(int kind, const char *name);
/* The row of the clock of an older sample file's header (enum
 * pme_event), or NULL. */
const struct pme_evdef *pme_ev_legacy(uint32_t event);

/*
 * Resolves an event name (no /PERIOD) into *ev: a registry row, a generic
 * cache event (L1-dcache-load-misses), rNNNN, pmu/term=value,.../ (terms
 * from /sys/bus/event_source/devices/pmu/format) or SUBSYS:NAME (the id
 * from tracefs).  0, or -1 with err saying why (unknown name, no such
 * tracepoint, no such PMU).  root is the file system root the sysfs and
 * tracefs paths are read under ("" or NULL: /), for tests.
 */
int		 pme_ev_parse(const char *name, struct pme_evspec *ev,
		    const char *root, struct pme_error *err);
/*
 * Resolves break ev (pme_ev_parse() made it) in the ELF file path (the
 * program, or the shared library ev->module names, found by the caller):
 * the routine named ev->routine, as pme_image_open_symbols() reads the
 * routines (the symbol table, else .dynsym for a stripped file), by its
 * name, its raw name or an alias; its entry's link-time address made a
 * file offset through the PT_LOAD segment holding it (vaddr - p_vaddr +
 * p_offset) into ev->offset, path into ev->path.  0, or -1 with err
 * saying why (no such routine, with the nearest name; not ELF; an entry
 * in no segment).
 */
int		 pme_ev_break(struct pme_evspec *ev, const char *path,
		    struct pme_error *err);
/* The tracefs events directory found under root into buf: 0, or -1 when
 * tracefs is not mounted (neither /sys/kernel/tracing nor
 * /sys/kernel/debug/tracing has events/). */
int		 pme_ev_tracefs(const char *root, char *buf, size_t len);

#endif /* PME_MEASURE_H */
