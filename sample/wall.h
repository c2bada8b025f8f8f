/*
 * wall.h - pmeclock -w (wall.c): the off-CPU intervals of the perf
 * method's run, from the scheduler's switches, beside its samples.
 */
#ifndef PMECLOCK_WALL_H
#define PMECLOCK_WALL_H

#include <stdint.h>
#include <linux/perf_event.h>

struct perfstate;
struct clockopts;

/* The rings' event indices of wall mode (perf.c's ring.ev): below 0,
 * apart from the events of -e and from -e io's (IO_EV_*, perf.h). */
#define WALL_EV_SCHED	(-4)	/* sched:sched_switch: state and stack */
#define WALL_EV_WAKE	(-5)	/* sched:sched_wakeup: wake time, waker */
/* The rings of sched_switch: a program switching 200,000 times a second
 * fills 16 MiB of 4 KiB stacks in 20 ms on one CPU, and a loaded machine
 * leaves the reader thread off its CPU for longer (100 to 200 ms seen);
 * 64 MiB a CPU, 128 MiB in all at most (perf.c's map_rings()). */
#define WALL_RING_PAGES	16384
/* With stacks the reader is woken every 1 MiB of them: 256 switch-outs,
 * not 30. */
#define WALL_WAKEUP	(1024 * 1024)

/*
 * wall_open() opens wall mode's events on pid: the tracepoints with a
 * ring per online CPU each, appended to ps->rings, and the context
 * switches, which wall_attach() sends to the ring of the first event on
 * the same CPU once the rings are mapped; 0, or -1 (said).  The tracepoints are left
 * out when the kernel refuses them (said with -v, and in o->note): the
 * intervals are then exact, their states R (preempted) or unknown.
 * wall_record() takes every record drain() reads, in time order (ev: its
 * ring's event; of the others, it wants the FORK and SWITCH records);
 * wall_end() writes what remains and frees ps's wall.
 */
int	wall_open(struct perfstate *ps, int pid);
int	wall_attach(struct perfstate *ps);
void	wall_record(struct perfstate *ps, int ev,
	    const struct perf_event_header *h);
void	wall_end(struct perfstate *ps);

#endif /* PMECLOCK_WALL_H */
