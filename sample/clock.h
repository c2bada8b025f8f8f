/*
 * clock.h - the pmeclock launcher's modules: the command line
 * (pmeclock.c), the child (child.c), the perf_event_open method (perf.c)
 * and the collector of the preloaded runtime's messages (collect.c).
 */
#ifndef PMECLOCK_CLOCK_H
#define PMECLOCK_CLOCK_H

#include <stdint.h>
#include <sys/types.h>

#include "measure.h"
#include "pme_sample.h"

extern const char *prog;

/* An event of -e (events.c), its period resolved. */
struct clockevent {
	struct pme_evspec spec;
	uint64_t	 period;	/* ns for a clock, events otherwise;
					   Hz when freq */
	int		 freq;		/* -F for an event other than a clock */
	int		 given;		/* /PERIOD was given */
};

struct clockopts {
	const char	*out;		/* sample file, "-": standard output */
	uint64_t	 period;	/* ns */
	int		 jitter;	/* -j: percent the period varies by */
	int		 method;	/* enum pme_method, NONE: automatic */
	int		 callchain;
	int		 callgraph;	/* CALLGRAPH_*: how -g unwinds */
	uint32_t	 stacksize;	/* bytes of user stack per sample for
					   CALLGRAPH_DWARF */
	int		 stackgiven;	/* -G dwarf,SIZE named it */
	int		 quiet, verbose;
	char		**argv;		/* the command */
	int		 argc;
	int		 setid;		/* the command's exec changes its
					   credentials: no samples (said) */
	char		 note[512];	/* why this method ran, or empty */
	pid_t		 attach;	/* -p: the process, else 0 */
	uint64_t	 duration;	/* -d: ns, 0 for no limit */
	unsigned	 hz;		/* -F, else 0 */
	struct clockevent ev[PME_EVENTS_MAX];	/* -e, or the clock */
	int		 nev;
	int		 evgiven;	/* -e was given */
	int		 list;		/* -l */
	int		 count;		/* --count */
	int		 per_thread;	/* --count --per-thread */
	int		 system;	/* -a: every process */
	int		 heap;		/* -e alloc: the heap recorded */
	int		 clock;		/* a clock is among the events */
	int		 wall;		/* -w: off-CPU intervals (wall.c) */
	int		 io;		/* -e io: I/O calls traced (io.c) */
	/* --start and --stop (gate.c): breaks, resolved by events_check();
	 * gate[1] on the return of gate[0]'s routine when both name it. */
	struct clockevent gate[2];
	int		 ngate;		/* 0, or 2 once both were given */
	int		 gateret;	/* the stop is the start's return */
	const char	*gatearg[2];	/* the routines as given, or NULL */
};

/*
 * The events (events.c).  events_parse() adds the events of one -e list
 * ("page-faults/1,cpu-clock"); 0, or the exit status (said): 2 for a
 * name that is no event, 1 for one this machine cannot have.
 * events_finish() resolves the periods after every option (the clock
 * alone without -e); events_check() opens each event on pmeclock itself,
 * before the command starts, and refuses (said, exit status 1) those the
 * machine or the method cannot watch.  events_list() is pmeclock -l.
 * events_header() fills the sample file header's list (out: o->nev
 * entries).
 */
int	events_parse(struct clockopts *o, const char *list);
int	events_finish(struct clockopts *o);
int	events_check(struct clockopts *o);
int	events_list(const struct clockopts *o);
void	events_header(const struct clockopts *o, struct pme_sample_event *out);
/* -v: what the run watches, in one line ("watching './prog' (pid 12):
 * page-faults every event, cpu-clock every 10000us"). */
void	events_say(const struct clockopts *o, int pid);
/* --start or --stop (which 0 or 1) ROUTINE into o: 0, or the exit
 * status (said).  events_gate_finish() after every option: both given,
 * or neither; not with the options whose records are not gated. */
int	events_gate(struct clockopts *o, int which, const char *routine);
int	events_gate_finish(struct clockopts *o);
/* A break's uprobe made a tracefs event (breaks.c), which new threads
 * inherit, where pmeclock may make one; ret: on the routine's return.
 * 0, or -1 (the uprobe PMU's then).  breaks_attr(): a's config1 and
 * config2 for a break of the uprobe PMU (1); 0 for another event. */
int	breaks_tracefs(const struct clockopts *o, struct pme_evspec *spec,
	    int ret);
struct perf_event_attr;
int	breaks_attr(const struct pme_evspec *spec, struct perf_event_attr *a);
/* A tracefs uprobe on path at offset that takes the string register reg
 * points to (as "%di") at the call: its tracepoint id, *off the offset
 * of the string's __data_loc in its raw data; 0 (errno) where none can
 * be made (not root, no tracefs). */
uint64_t breaks_string(const char *path, uint64_t offset, const char *reg,
	    uint32_t *off);
/* Whether the run records the heap (-e alloc, sets o->heap), and sets
 * o->clock, whether it has a clock. */
int	events_heap(struct clockopts *o);
/* Whether event k is a clock (its samples stand for ns of CPU time). */
int	events_clock(const struct clockopts *o, int k);
/* The perf_event_attr's type, config and period of event k. */
struct perf_event_attr;
void	events_attr(const struct clockopts *o, int k,
	    struct perf_event_attr *a);
/* "10ms", "250us": 0, or -1 (pmeclock.c). */
int	parse_interval(const char *s, uint64_t *ns);


/* How call chains are taken: from the CFI (the default where elfutils'
 * libdw is built in), or by frame pointers. */
enum { CALLGRAPH_DWARF, CALLGRAPH_FP };
#define STACKSIZE_DEFAULT	8192	/* as perf record --call-graph dwarf */
#define STACKSIZE_MAX		65528	/* the kernel's limit, less headroom */

/* The command, forked and stopped before its exec until child_go(). */
struct child {
	pid_t	 pid;
	int	 go;		/* write end: a byte lets the child exec */
	int	 err;		/* read end: the child's errno if exec failed */
	int	 sigfd;		/* read end of the SIGCHLD self-pipe */
	int	 status;	/* as a shell gives it, once reaped */
	int	 reaped;
	int	 tostderr;	/* the child's stdout goes to stderr */
	const char *cmd;
};

/* Forks o's command, held before its exec, and passes the signals sent
 * to pmeclock on to it; 0, or -1 (said). */
int	child_fork(struct clockopts *o, struct child *c);
/* Kills a child that has not exec'd yet and reaps it. */
void	child_abandon(struct child *c);
/* Keeps SIGXFSZ's disposition as pmeclock found it, for the command:
 * called before pmeclock ignores it. */
void	child_keep_xfsz(void);
/* Lets the child exec; returns 0, or after saying why it could not, the
 * shell's status for that (127 not found, 126). */
int	child_go(struct child *c);
/* Reaps the child if it has ended; returns 1 when it has. */
int	child_poll(struct child *c);
/* The file of the vDSO's image (vdso.c) for a [vdso] mapping of len
 * bytes, made once; NULL when there is none or len is not its own. */
const char *vdso_file(uint64_t len);
/* The same for a [vdso] of the build-id id (len bytes). */
const char *vdso_file_id(const uint8_t *id, size_t len);
/* Nanoseconds of CLOCK_MONOTONIC / CLOCK_REALTIME. */
uint64_t now_mono(void);
uint64_t now_real(void);

/*
 * perf method.  perf_probe() returns 0 when perf_event_open works here,
 * else -1 with o->note saying why.  perf_run() opens the events on the
 * child, lets it exec and records until it ends.  Returns 0; -1 (said)
 * when it failed, before the exec if c->go is still open; or child_go()'s
 * status when the command could not be executed.
 */
int	perf_probe(struct clockopts *o);
int	perf_run(struct clockopts *o, struct child *c,
	    struct pme_samplewriter *w, struct pme_sample_close *cl);

/*
 * Attaching to a running process (-p), perf method only (attach.c).
 * perf_attach_open() opens the events on every thread of process pid
 * (threads it creates later inherit them); NULL, said, with errno when it
 * cannot (ESRCH no such process, EACCES or EPERM not permitted).
 * perf_attach_run() records the process's threads and mappings, then
 * samples until the process ends, stopfd is readable or the deadline
 * (CLOCK_MONOTONIC ns, 0 for none) passes; 0, or -1 (said).
 */
struct perfattach;
struct perfattach *perf_attach_open(struct clockopts *o, pid_t pid);
size_t	perf_attach_threads(const struct perfattach *a);
int	perf_attach_run(struct perfattach *a, struct pme_samplewriter *w,
	    int stopfd, uint64_t deadline, struct pme_sample_close *cl);
void	perf_attach_free(struct perfattach *a);	/* NULL ok */
/* -a: the events on every CPU, of every process, the run ending when
 * process cmd (the command pmeclock started, or 0: none) ends; NULL,
 * said, when the kernel refuses (not permitted: what it takes is said).
 * The rest as an attach's. */
struct perfattach *perf_system_open(struct clockopts *o, pid_t cmd);
/* The processes' threads and mappings as /proc has them now, into w,
 * before the command is let go (perf_attach_run() does it otherwise);
 * 0, or -1 (said). */
int	perf_attach_prepare(struct perfattach *a, struct pme_samplewriter *w);

/*
 * --count (count.c): counts o's events on the command, prints the counts
 * and the run's times on standard error; the command's exit status, or 1
 * (said) when the events could not be opened.
 */
int	count_run(struct clockopts *o);

/*
 * Preload method.  collect_prepare() makes the pipe and sets the
 * environment the child inherits (before the fork); -1 with err.
 * collect_run() lets the child exec and writes what the runtime sends
 * until it ends.
 */
int	collect_prepare(struct clockopts *o, const char *runtime,
	    struct pme_error *err);
int	collect_run(struct clockopts *o, struct child *c,
	    struct pme_samplewriter *w, struct pme_sample_close *cl);

#endif /* PMECLOCK_CLOCK_H */
