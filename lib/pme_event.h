/*
 * pme_event.h - libpme's event files (events.sim) and the event API of
 * MIT Proteus that writes them: state events, histometrics, metrics,
 * parameters and graph specifications, read back by stats(1).  The bytes
 * are specified in pme(5), the API in pme_event(3).
 *
 * Writing.  A process has one event file at a time.  pme_event_open()
 * starts it; a program that never calls it gets "events.sim" in the
 * current directory on its first call of any writing function, closed at
 * exit, as a Proteus program did.  The file is written live and
 * incrementally: each thread posts into a buffer of its own (no lock on
 * the way), which becomes a chunk when it fills (written by a thread of
 * the library's, while the poster fills a second buffer), when the
 * thread ends, at pme_event_flush() and at the close, so a program that
 * dies leaves a file stats reads up to its last whole chunk.  Event types, states, graph specifications,
 * metrics and parameters are written as they are given; histometrics at
 * the close (pme_event_close() or exit).
 *
 * Errors.  The writing functions that can fail return -1 (or PME_NONE)
 * and keep the message for pme_event_error(); the seed's names (below),
 * which return nothing, only count the failure, which the file records
 * with the first message so that stats(1) reports it.  Nothing here
 * prints or exits.  Posting is safe from any number of threads; a post
 * that races with the close, or comes after it, is dropped.
 *
 * Reading.  pme_eventfile_open() reads everything but the events, which
 * pme_eventfile_events() then streams a chunk at a time: memory is bounded
 * by the largest chunk, not the file.
 */
#ifndef PME_EVENT_H
#define PME_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "pme.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- writing */

#define PME_EVENT_FILE	"events.sim"

/* pme_event_open() flags. */
#define PME_EVENT_CLOCKTIME 0x1	/* times are pme_event_clock()'s
				   nanoseconds, not the caller's cycles */

/*
 * Starts the event file at path (NULL: "events.sim"; "-" is standard
 * output), closing one that is open.  Returns 0, or -1 with err filled.
 */
int		 pme_event_open(const char *path, unsigned flags,
		    struct pme_error *err);
/* Writes what is buffered, the histometrics and the run information, and
 * closes the file.  Returns 0 (also when none is open), or -1 with err
 * filled and the previous file at path put back. */
int		 pme_event_close(struct pme_error *err);
/* Writes the calling thread's buffered events and waits until every
 * buffer handed to the writer thread so far is written: what a program
 * about to die, or a server between requests, calls.  0, or -1. */
int		 pme_event_flush(void);
/* The message of the last failure of a writing function, "" if none.
 * Per process; valid until the next writing call. */
const char	*pme_event_error(void);

/* Nanoseconds since the file was opened (CLOCK_MONOTONIC), for times
 * when the program has no clock of its own. */
uint64_t	 pme_event_clock(void);
/* A small number per thread, 0, 1, 2, ... in the order threads first
 * ask: a processor number for programs whose processors are threads. */
uint32_t	 pme_event_thread(void);

/*
 * Registers an event type by name (1 to 255 bytes) and returns its
 * number, the same for the same name, or PME_NONE on failure.  Number 1
 * is "EV_STATE", the state events stateEvent() posts.
 */
#define PME_EV_STATE	1u
uint32_t	 pme_event_type(const char *name);

/*
 * Posts an event: of type, on processor proc, at time (the caller's
 * cycles, or pme_event_clock()'s nanoseconds), with value.  Events of a
 * processor should come in time order; stats sorts them when they do
 * not.  Cheap (a few nanoseconds, no lock); an event of an unknown type
 * is dropped and counted.
 */
void		 pme_event_post(uint32_t type, uint32_t proc, uint64_t time,
		    int64_t value);

/* Names processor proc (a thread's name) for stats' rows. */
int		 pme_event_proc_name(uint32_t proc, const char *name);
/* The number of processors (rows) the run had; without it, one more than
 * the highest processor posted. */
int		 pme_event_processors(uint32_t n);
/* The time unit, "cycles" by default, "ns" with PME_EVENT_CLOCKTIME. */
int		 pme_event_unit(const char *unit);

/* Graph specification text (graphfile(5)), stored in the file. */
int		 pme_graph_spec(const char *spec);

/* Scalar and array metrics and parameters, as Mstats read them: the last
 * value given for a name is the one kept. */
int		 pme_metric(const char *name, double value);
int		 pme_metric_array(const char *name, const double *v, size_t n);
int		 pme_param(const char *name, const char *value);

/* --------------------------------------------------------- state events */

/* The default sub-states and their colour values (pme_event(3)). */
#define PME_STATE_IDLE		1u	/* layer -1, colour 0 (black) */
#define PME_STATE_BUSY		2u	/* layer 1, colour 1 (gray) */
#define PME_STATE_LOCK		3u	/* layer 100, colour 2 (red) */
#define PME_STATE_BARRIER	4u	/* layer 100, colours 3 (navy, when
					   busy is off) and 4 (brown) */
#define PME_COLOR_USER		5	/* the first automatic colour */

enum pme_state_change {
	PME_STATE_OFF,
	PME_STATE_ON,
	PME_STATE_ENTER,
	PME_STATE_EXIT
};

/*
 * Defines a sub-state: colours primary and secondary (rounded to
 * integers; 0 chooses one), co-state costate (0: opaque), layer.  Returns
 * its number, or PME_NONE.  name (NULL: "state N") labels it in stats.
 */
uint32_t	 pme_state_register(double primary, double secondary,
		    uint32_t costate, double layer, const char *name);
/* Changes sub-state state on processor proc at time as change says, and
 * posts the processor's new colour when it changed.  Returns 0 or -1. */
int		 pme_state_event(uint32_t state, uint32_t proc, uint64_t time,
		    enum pme_state_change change);
/* A state of state lasting strictly less than threshold is not written.
 * Returns 0 or -1. */
int		 pme_state_resolution(uint32_t state, int64_t threshold);
/* The threshold of states that have none of their own (0). */
extern int	 pme_sev_default_resolution;

/* --------------------------------------------------------- histometrics */

/*
 * Defines a histometric (see pme_event(3) and the Proteus manual): name,
 * startAt (samples before that time are ignored unless it is turned on),
 * numSets sets, and either autoSamples 0 with bins equal bins from minBin
 * to maxBin, or autoSamples > 0 samples buffered and the bins set between
 * their minBin'th and maxBin'th percentiles (0 to 1).  Two end bins hold
 * the samples below and above.  Returns its number (from 0), or -1.
 */
int		 pme_histo_new(const char *name, double startAt, int numSets,
		    int autoSamples, double minBin, double maxBin, int bins);
/* Samples value into set of metric when it is on.  An unknown metric or
 * set is an error (-1), never a crash. */
int		 pme_histo_sample(int metric, int set, double value);
int		 pme_histo_on(int metric);
int		 pme_histo_off(int metric);
/* On from time on (at once when the calling thread's time is past it). */
int		 pme_histo_on_at(int metric, uint64_t time);
/* The mean of every sample of every set; 0 when there are none. */
double		 pme_histo_average(int metric);

/*
 * The seed's names (Proteus' event.h).  Define PME_EVENT_NO_SEED_NAMES
 * before including this header to leave them out.
 */
#ifndef PME_EVENT_NO_SEED_NAMES
typedef uint32_t S_EV_Type;
typedef enum pme_state_change S_EVS_Type;
typedef uint64_t Time;
#define S_EVS_off	PME_STATE_OFF
#define S_EVS_on	PME_STATE_ON
#define S_EVS_enter	PME_STATE_ENTER
#define S_EVS_exit	PME_STATE_EXIT
#define stateRegister(p, s, c)	pme_state_register((p), (s), (c), 50, NULL)
#define stateRegisterP(p, s, c, l) pme_state_register((p), (s), (c), (l), NULL)
#define stateEvent(st, p, t, v)	((void)pme_state_event((st), (p), (t), (v)))
#define stateSetResolution(e, t) pme_state_resolution((e), (t))
#define sev_default_resolution	pme_sev_default_resolution
#define GraphSpec(s)		((void)pme_graph_spec(s))
#define newHistoMetric		pme_histo_new
#define histoMetricSample(m, s, v) ((void)pme_histo_sample((m), (s), (v)))
#define histoMetricOn(m)	((void)pme_histo_on(m))
#define histoMetricOff(m)	((void)pme_histo_off(m))
#define histoMetricOnAt(m, t)	((void)pme_histo_on_at((m), (t)))
#define histoMetricAverage	pme_histo_average
#endif

/* ------------------------------------------------------------- reading */

/* Run information flags. */
#define PME_RUN_CLOCKTIME 0x1	/* times are nanoseconds */
#define PME_RUN_COMPLETE  0x2	/* the writer closed the file */

struct pme_run {
	uint64_t	 start;		/* CLOCK_REALTIME at the open, ns */
	int32_t		 utc_offset;	/* of local time then, seconds */
	uint32_t	 flags;		/* PME_RUN_* */
	uint64_t	 host_ns;	/* wall time from open to close; 0 if
					   the file was not closed */
	uint64_t	 first, last;	/* earliest and latest event times */
	uint32_t	 nproc;		/* processors (rows) */
	uint64_t	 events;	/* events read */
	uint64_t	 failed;	/* writing calls that failed */
	const char	*failure;	/* the first one's message, or NULL */
	const char	*unit;		/* "cycles", "ns", ... */
	const char	*command;	/* the program, or "" */
	int64_t		 lost;		/* bytes lost (pme_reader_lost()) */
};

struct pme_evtype {
	uint32_t	 id;
	const char	*name;
};

struct pme_state {
	uint32_t	 id;
	int32_t		 primary, secondary;	/* colour values */
	uint32_t	 costate;		/* 0: opaque */
	double		 layer;
	const char	*name;
};

struct pme_histo {
	const char	*name;
	double		 start_at;
	uint32_t	 nsets;
	uint32_t	 nbins;		/* normal bins */
	uint32_t	 auto_samples;
	double		 min, max;	/* the bins' range, [min, max) */
	/* Per set s, from s * (nbins + 2): below, bins..., above. */
	uint64_t	*counts;
	/* Per set: n, sum, sum of squares, and the end bins' sums. */
	uint64_t	*n;
	double		*sum, *sumsq, *below_sum, *above_sum;
};

enum pme_metric_kind { PME_METRIC_SCALAR, PME_METRIC_ARRAY, PME_METRIC_PARAM };
struct pme_metric {
	enum pme_metric_kind kind;
	const char	*name;
	double		 value;		/* scalar */
	const double	*v;		/* array */
	size_t		 n;
	const char	*text;		/* parameter */
};

/* An event as read. */
struct pme_ev {
	uint64_t	 time;
	int64_t		 value;
	uint32_t	 type;
	uint32_t	 proc;
};

struct pme_eventfile;

/*
 * Reads an event file's run information, types, states, graph
 * specifications, histometrics, metrics, parameters and processor names,
 * passing over the events (whose times and processors it notes).  A file
 * cut short is read up to its last whole chunk (run.lost says how much
 * was lost).  "-" is standard input, read into memory.  Returns a handle
 * the caller closes, or NULL with err filled.
 */
struct pme_eventfile *pme_eventfile_open(const char *path,
		    struct pme_error *err);
/* The same over len bytes at buf, copied; name is used in messages. */
struct pme_eventfile *pme_eventfile_mem(const void *buf, size_t len,
		    const char *name, struct pme_error *err);
void		 pme_eventfile_close(struct pme_eventfile *ef);	/* NULL ok */

/* Each points into ef, valid until it is closed. */
const struct pme_run *pme_eventfile_run(const struct pme_eventfile *ef);
size_t		 pme_eventfile_types(const struct pme_eventfile *ef,
		    const struct pme_evtype **out);
size_t		 pme_eventfile_states(const struct pme_eventfile *ef,
		    const struct pme_state **out);
size_t		 pme_eventfile_histos(const struct pme_eventfile *ef,
		    const struct pme_histo **out);
size_t		 pme_eventfile_metrics(const struct pme_eventfile *ef,
		    const struct pme_metric **out);
/* The graph specifications, in the order given, NUL-terminated. */
size_t		 pme_eventfile_specs(const struct pme_eventfile *ef,
		    const char *const **out);
/* The name of processor proc, or NULL. */
const char	*pme_eventfile_proc_name(const struct pme_eventfile *ef,
		    uint32_t proc);
/* The type of the name, or PME_NONE. */
uint32_t	 pme_eventfile_type(const struct pme_eventfile *ef,
		    const char *name);

/*
 * Streams the events, a chunk at a time in file order, to fn, which
 * returns 0 to go on or non-zero to stop (returned as is).  Events of one
 * processor arrive in the order they were posted.  The array is valid
 * during the call only.  Returns 0, fn's non-zero, or -1 with err filled
 * (a corrupt chunk).  May be called any number of times.
 */
typedef int	(*pme_ev_fn)(const struct pme_ev *ev, size_t n, void *arg);
int		 pme_eventfile_events(struct pme_eventfile *ef, pme_ev_fn fn,
		    void *arg, struct pme_error *err);

#ifdef __cplusplus
}
#endif

#endif /* PME_EVENT_H */
