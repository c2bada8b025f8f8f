/*
 * perf.h - what perf.c, the perf_event_open method, shares with attach.c,
 * which attaches it to a running process (-p): the state of a run (its
 * rings, the records read from them, the randomized periods) and the
 * functions that open events and convert what the rings hold.
 */
#ifndef PMECLOCK_PERF_H
#define PMECLOCK_PERF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "clock.h"

#define RING_PAGES	128		/* data pages per CPU (512 KiB) */
#define IO_RING_PAGES	8192		/* -e io's entries (32 MiB), some
					   4,000 with their stacks; twice
					   that over all CPUs at most */
#define MAX_CPUS	1024
#define DELETED_SUFFIX	" (deleted)"

struct unwinder;
struct iostate;
struct gate;

struct ring {
	int		 fd;
	int		 cpu;
	int		 ev;		/* the event's index in o->ev */
	uint64_t	 ssize;		/* -w's and -e io's: sample_stack_user, */
	uint64_t	 rmask;		/* sample_regs_user (else 0) */
	struct perf_event_mmap_page *meta;
	uint8_t		*data;
	size_t		 size;		/* of data, a power of two */
};

/* A record copied out of a ring, to be sorted by time. */
struct rec {
	uint64_t	 time;
	uint64_t	 seq;
	int		 ev;
	struct perf_event_header *h;
};

/* The records of one reading of the rings: recs[i].h holds an offset
 * into arena until perf_convert() makes it a pointer. */
struct batch {
	struct rec	*recs;
	size_t		 nrecs, caprecs;
	uint8_t		*arena;
	size_t		 narena, caparena;
	uint64_t	 start;		/* CLOCK_MONOTONIC ns when its reading
					   of the rings began */
	uint64_t	 last;		/* its latest record's time */
	struct batch	*next;
};

struct reader;

/* The link-time address of a mapping's file offset, per file. */
struct vcache {
	char		*path;
	uint64_t	 dev, ino, pgoff;
	uint64_t	 vaddr;
	uint8_t		 buildid[64];
	uint32_t	 idlen;
	int		 ok;
};

/* A process that has just exec'd: its next executable file mapping is
 * its main program; comm: the program's name, from the exec. */
struct execwait {
	uint32_t	 pid;
	int		 waiting;
	char		 comm[64];
};

/* The run's randomized periods (-j): see jitter_due() in perf.c. */
struct jitinh {
	uint32_t	 tid;
	uint64_t	 period;
};

#define JITTER_HIST	64

/* An event writing into another's ring (attached: a thread's, into its
 * CPU's first), read by perf_count() too. */
struct perfout {
	int		 fd, ev;
};

struct jitter {
	uint64_t	 state, mark, cur;
	uint64_t	 when[JITTER_HIST];	/* the latest changes, */
	uint64_t	 per[JITTER_HIST];	/* the period from each */
	unsigned	 nch;		/* changes made (when[nch % ...]) */
	double		 u;
	int		 odd;
	const uint32_t	*owned;		/* threads whose events are ours */
	size_t		 nowned;
	struct jitinh	*inh;		/* threads with inherited events */
	size_t		 ninh, capinh;
};

struct perfstate {
	struct clockopts *o;
	struct pme_samplewriter *w;
	struct ring	*rings;
	int		 nrings;
	struct perfout	*outs;		/* not ours to close */
	size_t		 nouts, capouts;
	struct batch	*spare;		/* to read into, without reader */
	struct reader	*rd;		/* or by a thread (reader.c) */
	uint64_t	 seq;
	struct rec	*sorttmp;	/* room for a batch's sort */
	size_t		 capsort;
	struct batch	*held;		/* with records not yet converted */
	struct rec	*due, *duetmp;	/* those records, in time order */
	size_t		 ndue, capdue;
	uint64_t	 limit;		/* converted: the records before */
	struct vcache	*vc;
	size_t		 nvc;
	struct execwait	*ew;
	size_t		 new, capew;
	uint32_t	*tids;		/* open-addressed set, 0 empty */
	size_t		 ntids, captids;
	uint64_t	 samples, lost;
	uint64_t	 evseen[PME_EVENTS_MAX];	/* samples read, per -e */
	uint64_t	 evlost[PME_EVENTS_MAX];	/* lost, said by the kernel */
	uint64_t	*frames;
	struct unwinder	*uw;		/* CALLGRAPH_DWARF */
	uint32_t	 mainpid;
	int		 curev;		/* of the record being converted */
	int		 failed;
	struct pme_error err;		/* the first error, when failed */
	int		 said;		/* perf_say() printed it */
	struct jitter	 jit;
	struct wall	*wall;		/* -w (wall.c), or NULL */
	struct iostate	*io;		/* -e io (io.c), else NULL */
	struct gate	*gate;		/* --start/--stop (gate.c), or NULL */
};

/* A field of a ring's record, unaligned, in the machine's order. */
static inline uint64_t
get64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t
get32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* perf_event_open(2) of attr on pid for cpu, close-on-exec. */
long	perf_open(struct perf_event_attr *a, pid_t pid, int cpu);
/* The attributes of event k of o->ev (or GATE_EV_START, GATE_EV_STOP),
 * the kernel's part excluded when perf_probe() found it must be. */
void	perf_attr(struct perf_event_attr *a, const struct clockopts *o,
	    int k);
/* The online CPUs into cpus (at most max): how many, or -1. */
int	online_cpus(int *cpus, int max);
/* /proc/sys/kernel/perf_event_paranoid, -99 if unreadable. */
int	paranoid(void);
/* p (realloc'd) with room for need items of size, *cap updated; NULL. */
void	*perf_grow(void *p, size_t *cap, size_t need, size_t size);
/* Counts thread tid among the threads sampled. */
void	add_tid(struct perfstate *ps, uint32_t tid);
/* The run's error: perf_werr() records err, perf_fail() a message (as
 * printf), unless an error came first; either marks the run failed, and
 * perf_fail() returns -1.  perf_say() prints the error, once: the one
 * place that prints them. */
void	perf_werr(struct perfstate *ps, const struct pme_error *err);
int	perf_fail(struct perfstate *ps, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	perf_say(struct perfstate *ps);
/* Gives a [vdso] mapping m the file of the vDSO's image (vdso.c): its
 * path into path (PATH_MAX bytes), device and inode; 0 when none. */
int	vdso_map(const struct pme_mapping *m, char *path, uint64_t *dev,
	    uint64_t *ino);
/* Finds the link-time address of a mapping; 0, or -1 if unreadable. */
int	mapping_vaddr(struct perfstate *ps, struct pme_mapping *m,
	    uint64_t dev, uint64_t ino, uint8_t *buildid);
/* Tells the unwinder (ps->uw) of a mapping. */
void	perf_unwind_map(struct perfstate *ps, const struct pme_mapping *m);
/* How many chains were unwound and truncated (-v; else too many
 * truncated), when ps->uw unwound them. */
void	perf_unwind_report(struct perfstate *ps);
/* Maps ring i of ps (its fd open) as large as the run's rings are
 * (those of stacks shrink, for this ring and the next, where the
 * locked memory they need is refused); -1 with errno. */
int	perf_map_ring(struct perfstate *ps, int i);
/* Converts what was read of the rings, in time order: what the reader
 * thread queued when it runs, else what perf_drain() reads itself; the
 * records of the last HOLD_NS before a reading wait for the next.
 * perf_flush(): at the end, converts those that wait (and gate.c's). */
int	perf_drain(struct perfstate *ps);
void	perf_flush(struct perfstate *ps);
/* The counts of the events of the rings of events ev1 and ev2, and of
 * those writing into them (perf_keep_out()), summed into *count (their
 * inherited events' folded in once ended); -1 when one cannot be read. */
int	perf_count(const struct perfstate *ps, int ev1, int ev2,
	    uint64_t *count);
/* fd, of event ev, writes into a ring: perf_count() reads it too (the
 * caller closes it, after free_state()); -1 out of memory. */
int	perf_keep_out(struct perfstate *ps, int fd, int ev);
/* The records of the rings of events ev1 and ev2 the kernel could not
 * write, each event counting its every occurrence (period 1): their
 * counts less the seen read, or said (its LOST records) where that is
 * more or the counts cannot be read.  A LOST record comes only once a
 * later record fits, so those lost as the run ends go unsaid. */
uint64_t perf_lost(const struct perfstate *ps, int ev1, int ev2,
	    uint64_t seen, uint64_t said);
/* The index of the ring of event ev on cpu, or -1. */
int	perf_ring_of(const struct perfstate *ps, int ev, int cpu);
/* Copies the records of every ring into b (after what it holds); -1
 * when out of memory.  Alone of these functions, the reader thread's. */
int	perf_read(struct perfstate *ps, struct batch *b);
void	batch_free(struct batch *b);

/*
 * reader.c: a thread that empties the rings into batches as the kernel
 * fills them, while the caller converts (and unwinds) at its own pace.
 * reader_start(): -1 with errno.  reader_fd(): readable when batches
 * wait.  reader_take(): the batches read so far, oldest first, the
 * caller's until reader_give() takes them back; NULL when none.
 * reader_stop(): ends the thread after a last reading; 0, or -1 when it
 * ran out of memory.  reader_free(): NULL ok, stops it first.
 * reader_begin(): starts it when the run unwinds stacks (ps->uw), the
 * only records that cost enough to convert to need it; when it cannot
 * (said with -v), the rings are read between conversions.
 */
void	reader_begin(struct perfstate *ps);
int	reader_start(struct perfstate *ps);
int	reader_fd(const struct reader *rd);
struct batch	*reader_take(struct reader *rd);
void	reader_give(struct reader *rd, struct batch *b);
int	reader_stop(struct reader *rd);
void	reader_free(struct reader *rd);
void	free_state(struct perfstate *ps);
/* -j: whether a new period was due for threads threads, then given to
 * the events of the rings; jitter_fd() gives it to one more event. */
int	jitter_rings(struct perfstate *ps, uint64_t threads);
void	jitter_fd(const struct jitter *j, int fd);
void	jitter_end(struct jitter *j);

/* A sample's call chain from its user registers and stack copy. */
void	conv_stack(struct perfstate *ps, struct pme_sample *s,
	    const uint8_t *p, const uint8_t *end);
/* The user registers and stack with each sample, as -g takes them. */
void	perf_stack_attr(struct perf_event_attr *a, const struct clockopts *o);

/*
 * -e io (io.c): the rings of the I/O tracepoints have these event
 * indices.  io_new() finds the tracepoints (0, or -1 said); io_attr()
 * and io_config() are the attributes of event k; io_filter() keeps only
 * the calls traced on an opened event (ioctl's result); io_sample()
 * converts a record of an I/O ring, io_task() follows a process's
 * descriptors across fork and exit; io_free() ends (NULL ps->io ok),
 * before the rings close (it reads their events' counts).
 */
#define IO_EV_ENTER	(-2)	/* ring.ev of -e io's rings (-w's: wall.h) */
#define IO_EV_EXIT	(-3)
#define IO_EV(k)	((k) == IO_EV_ENTER || (k) == IO_EV_EXIT)
int	io_new(struct perfstate *ps);
void	io_attr(struct perf_event_attr *a, const struct clockopts *o, int k);
uint64_t io_config(const struct perfstate *ps, int k);
int	io_filter(int fd);
void	io_sample(struct perfstate *ps, const struct perf_event_header *h);
void	io_task(struct perfstate *ps, const struct pme_thread *t);
/* n records of an I/O ring lost (the ring overflowed). */
void	io_lost(struct perfstate *ps, uint64_t n);
void	io_free(struct perfstate *ps);
/* The name probes (io.c): opened on the command pid with the io events
 * (its working directory noted: pmeclock's), their records sent to the
 * exits' rings once mapped, or left out (io_names_off(), why said with
 * -v). */
void	io_names_open(struct perfstate *ps, int pid);
void	io_names_attach(struct perfstate *ps);
void	io_names_off(struct perfstate *ps, const char *why);

/*
 * --start/--stop (gate.c): the rings of the two breaks have these event
 * indices.  gate_new() makes ps->gate (0, or -1 said); gate_attr() is
 * the attributes of ring k's break.  gate_batch() takes the records of
 * a reading in place of their conversion and converts, through
 * perf_convert(), those no later reading can precede; gate_flush()
 * converts the rest, at the end.  gate_sample() says whether a sample
 * of thread tid is in its window (counting those that are not);
 * gate_record() takes the breaks' records, gate_task() a thread's
 * fork, exec and exit; gate_fix() puts back the return addresses a
 * return probe replaced in a sample's copy of the stack.  gate_end() says how many samples were left out
 * and frees ps->gate (NULL ok).
 */
#define GATE_EV_START	(-6)
#define GATE_EV_STOP	(-7)
#define GATE_EV(k)	((k) == GATE_EV_START || (k) == GATE_EV_STOP)
int	gate_new(struct perfstate *ps);
void	gate_attr(struct perf_event_attr *a, const struct clockopts *o, int k,
	    int ek);
void	gate_batch(struct perfstate *ps, struct batch *b);
void	gate_flush(struct perfstate *ps);
int	gate_sample(struct perfstate *ps, uint32_t tid);
void	gate_record(struct perfstate *ps, const struct perf_event_header *h);
void	gate_task(struct perfstate *ps, const struct pme_thread *t);
void	gate_fix(struct perfstate *ps, uint32_t tid, const uint64_t *regs,
	    uint8_t *stack, uint64_t len);
void	gate_end(struct perfstate *ps);
/* Records by time, then by the order they were read (qsort). */
int	perf_cmp_rec(const void *a, const void *b);
/* Converts one record read from the rings (its h a pointer). */
void	perf_convert(struct perfstate *ps, const struct rec *r);

#endif /* PMECLOCK_PERF_H */
