/*
 * histo.h - pmehisto's modules: reducing sample files into a bucket file
 * (reduce.c; with no bucket file, lib/quick.h makes routine buckets of
 * the executable), and the report built from a bucket file (report.c).
 */
#ifndef HISTO_H
#define HISTO_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pme.h"
#include "pme_render.h"
#include "pme_sample.h"
#include "quick.h"

/* Counts that fell in a mapping of no module of the bucket file (libc,
 * ld.so, the vdso, the kernel), by mapping path. */
struct foreign {
	char		*path;
	uint64_t	 count;
};

/* A thread's name, from the thread records (-V views). */
struct tname {
	uint32_t	 pid, tid;
	char		*name;
};

/*
 * The measure a report counts (measure.c, pmehisto -M): which event of
 * each run's, by name.  measure_run() chooses it in a run's header (want,
 * or the clock, or the first event) and refuses a run that lacks it or
 * whose default differs from the earlier runs'; measure_pick() keeps its
 * samples of s[0..n) (*out, valid until the next call; SIZE_MAX when out
 * of memory) and adds up the events they stand for.
 */
struct measure {
	const char	*want;		/* -M, or NULL */
	char		 name[256];	/* chosen, "" before the first run */
	char		 unit[64];	/* of one event: "ns", "page faults" */
	uint32_t	 kind;		/* enum pme_evkind */
	uint64_t	 period;	/* events a sample stands for (ns for
					   a clock); 0: varies */
	int		 freq;		/* the kernel varied the period */
	uint32_t	 index;		/* in the current run */
	int		 all;		/* the run has no other event */
	uint64_t	 events;	/* the samples' weights: events (ns) */
	struct pme_sample *buf;
	size_t		 cap;
};

int	 measure_run(struct measure *m, const struct pme_sample_header *h,
	    const char *path, struct pme_error *err);
size_t	 measure_pick(struct measure *m, const struct pme_sample *s,
	    size_t n, const struct pme_sample **out);
int	 measure_clock(const struct measure *m);	/* counts time */
void	 measure_free(struct measure *m);
/*
 * The unit of the counts of measure name (of unit unit) when they are
 * amounts, not numbers of samples or events: pmehisto's measures of
 * records in ns or bytes (wall, the states, io-time, io-bytes) and the
 * heap's bytes; NULL for the others (samples, calls, allocations).
 */
const char *measure_amount(const char *name, const char *unit);
/* What measure name is, of pmehisto's records or the heap's
 * ("lock waits: ...", "bytes the allocations asked for: -e alloc"), or
 * NULL. */
const char *measure_says(const char *name);

/*
 * pmehisto -V heap (heap.c): the heap records of the sample file paths[0]
 * (n must be 1): per process its totals, peak, leaks and temporary
 * allocations, by stack, as text to fp; a file cut short said (prog,
 * unless NULL).  0, or -1 with err filled (no
 * heap records, a bad file, out of memory).
 */
int	 heap_view(const char *prog, const char *const *paths, size_t n,
	    FILE *fp, struct pme_error *err);
/*
 * The heap's curve of the sample file path (heap.c), as -V heap counts
 * it: after each heap event, at a fork (the child's blocks of its
 * parent) and at an exec (none), fn is told the process's live bytes then (its peak is
 * the largest, its last what it ended with: its leaks and the parent's
 * blocks it still held), and its name then ("" before the record names
 * it; an exec's new one from the exec on).  fn's non-zero stops, with
 * err filled.  0, or -1 with err filled (no heap records, a bad file).
 */
typedef int (*heap_curve_fn)(void *arg, uint32_t pid, const char *comm,
	    uint64_t time, uint64_t bytes);
int	 heap_curve(const char *path, heap_curve_fn fn, void *arg,
	    struct pme_error *err);

/*
 * pmehisto -V measures (mtable.c): the sample files tallied once per event
 * of their first run, into the bucket file bin's buckets or, with quick,
 * the routines of the program; one row per unit with a count, a column
 * per measure, as text or CSV to fp.  0, or -1 with err filled.
 */
struct mtable_input {
	const char	*bin;
	int		 quick;
	const char *const *samples;
	size_t		 nsamples;
	struct filter	*filter;	/* samples kept, or NULL: all */
	int		 level;		/* CAL_NONE: per unit; else per
					   Caliper level (caliper.c) */
};
/* The view spec ("measures", "measures:LEVEL") into *level (CAL_NONE
 * for routine, the default): 0; 1 when spec is not this view; -1 when
 * LEVEL is not a level. */
int	 mtable_parse(const char *spec, int *level);
int	 mtable_write(const struct mtable_input *in, int csv, FILE *fp,
	    struct pme_error *err);

/*
 * pmehisto -V states and -V locks (wall.c): the off-CPU intervals of a
 * pmeclock -w run with its samples, as a table of states per thread and
 * per routine, or the lock and condition waits of lockmin ns or more;
 * text or CSV to fp; or every interval as Chrome trace JSON.  0, or -1
 * with err filled.
 */
struct wall_input {
	const char	*prog;		/* for a file cut short; NULL: quiet */
	const char *const *samples;
	size_t		 nsamples;
	int		 csv;
	int		 locks;		/* -V locks, else -V states */
	int		 timeline;	/* -V timeline: Chrome trace JSON */
	uint64_t	 lockmin;	/* -W, ns */
	struct pme_sample_summary *sum;	/* not NULL: the last file's */
};
int	 wall_write(const struct wall_input *in, FILE *fp,
	    struct pme_error *err);
/* -W's time, "500us", "1ms", "2s" or "0", into *ns; 0, or -1. */
int	 wall_parse_wait(const char *s, uint64_t *ns);
/*
 * The measures pmehisto makes of pmeclock -w's and -e io's records
 * (wall.c, pmehisto -M): wall, each state of -V states (user, system,
 * wait-cpu, lock, condition, io, fault, sleep, other), in ns, and the I/O
 * calls' io-time (ns), io-bytes and io-calls.  wall_measure(): what
 * the counts of the one named name are, for people, or NULL when name
 * is none of them.  wall_read() is pme_samplefile_read(), and when want names
 * one of them, each run's header lists it as an event after its own,
 * with samples of it: an off-CPU interval or an I/O call each, at its
 * stack, weighted by its ns (bytes, 1), and for wall, user and system
 * the clock's samples again, each its interval.  A run without the
 * records (-w's; any I/O call in a file) is an error.
 */
const char *wall_measure(const char *name);
/* The i-th measure of a run of pmeclock -w (wall, then the states), or
 * NULL past the last. */
const char *wall_run_measure(size_t i);
/* Whether measure name reads a sample file twice (wall, user, system:
 * the threads' times first; the I/O calls': whether there is one), so
 * that it cannot be read from standard input. */
int	 wall_reads_twice(const char *name);
int	 wall_read(const char *path, const char *want,
	    const struct pme_sample_visitor *v, void *arg,
	    struct pme_sample_summary *sum, struct pme_error *err);

/*
 * The timeline of a pmeclock -w run (wall.c), as -V timeline writes it
 * and stats(1) draws it: each thread, in order of first appearance, with
 * its states' totals as -V states gives them (st[WALL_NSTATE], in the
 * order of wall_state_names: user, system, wait-cpu, lock, condition,
 * io, fault, sleep, other), then its slices in time order: each off-CPU
 * interval (its state, the innermost routine of its stack, the call site
 * of a lock or condition, or NULL) and the on-CPU rest of its lifetime,
 * split into user and system so that each state's slices sum to the
 * thread's total exactly.  Pointers are valid during the call only.  A
 * callback returning non-zero (with err filled) stops: -1.  0, or -1
 * with err filled (a file without wall-time records is an error).
 */
#define WALL_NSTATE	9
extern const char *const *const wall_state_names;
struct wall_thread {
	uint32_t	 pid, tid;
	const char	*name;
	uint64_t	 start, end;	/* its lifetime, sample clock ns */
	const uint64_t	*st;		/* ns per state */
};
struct wall_slice {
	uint32_t	 pid, tid;
	uint64_t	 start, end;
	int		 state;		/* index of wall_state_names */
	const char	*where, *site;
};
struct wall_visitor {
	int	(*thread)(void *arg, const struct wall_thread *t);
	int	(*slice)(void *arg, const struct wall_slice *s);
};
int	 wall_timeline(const struct wall_input *in,
	    const struct wall_visitor *v, void *arg, struct pme_error *err);

/*
 * pmehisto -V io (io.c): the I/O calls of the sample files (pmeclock -e
 * io) per call, per file and per call site, and the slowest, as text or
 * (csv) one CSV table to fp.  0, or -1 with err filled (no I/O records
 * is an error).
 */
int	 io_write(const char *prog, const char *const *samples, size_t n,
	    int csv, FILE *fp, struct pme_error *err);
/* The bytes io moved: its return value, but an open's or a close's. */
uint64_t io_bytes(const struct pme_io *io);

/*
 * Sample filters (filter.c, pmehisto --time, --tid, --pid, --comm,
 * --cpu): a sample is kept when it passes every one given.  A joined
 * sample file is filtered run by run (struct filter_run, reset by each
 * header): --time from the run's own start.
 */
enum { FILTER_TIME, FILTER_TID, FILTER_PID, FILTER_COMM, FILTER_CPU,
	FILTER_DSO, FILTER_FOCUS, FILTER_IGNORE, FILTER_HIDE };
/* The filters' long options (getopt_long(3)), their codes base + FILTER_*,
 * for pmehisto and stats alike. */
#define FILTER_LONGOPTS(base)						\
	{ "time", required_argument, NULL, (base) + FILTER_TIME },	\
	{ "tid", required_argument, NULL, (base) + FILTER_TID },	\
	{ "pid", required_argument, NULL, (base) + FILTER_PID },	\
	{ "comm", required_argument, NULL, (base) + FILTER_COMM },	\
	{ "cpu", required_argument, NULL, (base) + FILTER_CPU },	\
	{ "dso", required_argument, NULL, (base) + FILTER_DSO },	\
	{ "focus", required_argument, NULL, (base) + FILTER_FOCUS },	\
	{ "ignore", required_argument, NULL, (base) + FILTER_IGNORE },	\
	{ "hide", required_argument, NULL, (base) + FILTER_HIDE }
/* The stack filters' regular expressions, in struct filter's re[]. */
enum { FRE_FOCUS, FRE_IGNORE, FRE_HIDE, FRE_N };

struct idrange {
	uint32_t	 lo, hi;
};

struct idlist {
	struct idrange	*v;
	size_t		 n;
};

/* A window of --time in percent of the run: [lo, hi) percent. */
struct pctrange {
	double		 lo, hi;
};

struct filter {
	int		 on;		/* any given */
	int		 time;		/* --time given: [t0, t1) ns, or */
	uint64_t	 t0, t1;
	struct pctrange	*pct;		/*   these windows of each run */
	size_t		 npct;
	struct idlist	 tids, pids, cpus;
	char		*comm;		/* --comm, or NULL */
	char		**dsos;		/* --dso: module names */
	size_t		 ndsos;
	regex_t		 re[FRE_N];	/* --focus, --ignore, --hide */
	char		*resrc[FRE_N];	/*   their text */
	int		 hasre[FRE_N];
	int		 stacks;	/* any of these four: frames named */
	char		*text;		/* the options as given, for the
					   summary, or NULL */
	uint64_t	 read, kept;	/* samples, all files */
};

struct filter_run {
	uint64_t	 start;		/* the run's start, sample clock */
	uint64_t	*lens;		/* with --time in percent: each run's
					   length, ns (filter_file) */
	size_t		 nlens, caplens;
	size_t		 run;		/* runs of the file begun */
	uint64_t	 len;		/* this run's */
	uint32_t	*comm;		/* threads now named --comm */
	size_t		 ncomm, capcomm;
	struct fstacks	*st;		/* the stack filters' state */
};

/* The options' names without "--", by FILTER_*. */
extern const char *const filter_names[FILTER_HIDE + 1];
/* Option which's text arg into f: 0, or -1 when it is not one. */
int	 filter_parse(struct filter *f, int which, const char *arg);
void	 filter_free(struct filter *f);
/* Before the file path is read: with --time in percent, its runs'
 * lengths read into fr (a pass over the file's headers and closing
 * records).  0, or -1 with err filled. */
int	 filter_file(const struct filter *f, struct filter_run *fr,
	    const char *path, struct pme_error *err);
void	 filter_run_header(struct filter_run *fr,
	    const struct pme_sample_header *h);
/* A mapping or thread record of the run at time: the frames' names
 * the stack filters remember may change. */
void	 filter_run_record(struct filter_run *fr, uint64_t time);
/* Thread record th into fr (--comm, and as filter_run_record()); 0, or
 * -1 out of memory. */
int	 filter_run_thread(const struct filter *f, struct filter_run *fr,
	    const struct pme_thread *th);
void	 filter_run_free(struct filter_run *fr);
/* Whether sample s of fr's run passes every filter of f. */
int	 filter_keep(const struct filter *f, const struct filter_run *fr,
	    const struct pme_sample *s);
/*
 * The samples s[0..n) of fr's run that pass every filter of f, into
 * out[0..*kept) (room for n), rewritten as --hide and --focus say: their
 * frames then live in fr until the next call.  Frames are named through
 * am, the run's mappings, and the symbol tables of their files.  0, or
 * -1 out of memory.
 */
int	 filter_batch(struct filter *f, struct filter_run *fr,
	    struct pme_addrmap *am, const struct pme_sample *s, size_t n,
	    struct pme_sample *out, size_t *kept);

/* What reducing the sample files found, beyond the bucket file's counts. */
struct tally {
	struct pme_bucketfile *bf;	/* NULL until the quick path makes it */
	int		 quick;		/* make routine buckets for the
					   executable (pmehisto -x) */
	int		 sparse;	/* with quick, one sample file and a
					   report that shows no bucket
					   without counts: the file read once,
					   buckets only for the routines
					   samples fell in (reduce.c) */
	size_t		 unmade;	/* sparse: the routine buckets not
					   made (pme_quick_build_sampled) */
	int		 check;		/* samples of another build of a file
					   of the bucket file stop the tally:
					   reduce.c's other_build() */
	int		 remake;	/* with check, the bucket file is the
					   quick path's, to be made again
					   when they do (stale says why) */
	int		 stale;		/* with remake: they did (the error
					   of tally_file() says which) */
	int		 quiet;
	const char	*prog;		/* for warnings */
	const char	*bfname;	/* the input bucket file, for warnings */
	size_t		 nmods;		/* the bucket file's modules as read */

	/* this run, all sample files together */
	size_t		 files;		/* the runs they hold (a file may
					   hold several, pmemerge(1)) */
	uint64_t	 samples;	/* samples read */
	uint64_t	 counted;	/* the sampling intervals they stand
					   for, counted into buckets */
	uint64_t	 lost;		/* from the closing records */
	uint64_t	 unmapped;	/* in no mapping and no absolute bucket */
	uint64_t	 period;	/* of the first file */
	int		 periods_differ;
	uint64_t	 duration;	/* ns, summed over the files */
	uint64_t	 threads, processes;
	uint32_t	 method, event;
	char		*note;		/* of the first file, or NULL */
	char		*command;	/* of the first run, or NULL; with
					   "(and N more runs of other
					   commands)" after command_len */
	size_t		 command_len;
	uint64_t	 other_commands;
	int		 status;	/* exit status, -1 if unknown */
	struct foreign	*foreign;
	size_t		 nforeign;
	char		*quick_path;	/* the executable -x read */
	struct stacks	*stacks;	/* -T folded: set by the caller to
					   collect call chains; else NULL */
	int		 sites;		/* -V views: stacks with their call
					   sites, pcs and threads (add_stacks) */
	struct stacks	*pcs, *tprocs;	/* with sites */
	int		 addrs;		/* the exports of lines: stacks with
					   their frames' addresses (add_chain) */
	uint64_t	 chained;	/* samples with a call chain */
	struct tname	*tnames;	/* with sites: the threads' names */
	size_t		 ntnames;
	struct measure	 measure;	/* the event counted (-M) */
	struct filter	*filter;	/* samples kept, or NULL: all */
	struct inlines	*inl;		/* --inline: the inlined functions
					   as frames (inline.c), or NULL */
	int		 hide_kernel;	/* --hide-kernel: the call chains
					   without the kernel's frames */
	struct symnames	*syms;		/* with stacks: frames in no bucket
					   named by symbols (inline.c) */
};

/*
 * pmehisto --inline (inline.c): the frame ids of the functions inlined
 * at link-time address va of frame id's load module (id a unit or a
 * module of t->bf), innermost first, in *out, and the link-time address
 * where each instance starts in *starts, the call site of the frame
 * after it (the table's, valid until the next call); how many (0: none,
 * or not a module's frame), -1 when memory ran out.  A module whose image cannot be read is said once on
 * standard error (unless quiet) and has none.
 */
struct inlines;
struct inlines	*inlines_new(const char *prog, int quiet); /* NULL: no memory */
void		 inlines_free(struct inlines *in);		/* NULL ok */
int		 inlines_at(struct inlines *in, struct tally *t, uint64_t id,
		    uint64_t va, const uint64_t **out, const uint64_t **starts);
/*
 * Where the frame level levels out from the innermost at link-time va of
 * module m of t->bf calls the level inside it (level 1 and up; 0 is the
 * innermost, whose line is the line table's): the DWARF call file and
 * line of the instance level - 1 in the chain, as addr2line -i prints
 * them; 1, or 0 with *file NULL and *line 0 where none says.  *file is
 * owned by in.
 */
int		 inlines_site(struct inlines *in, const struct tally *t,
		    uint32_t m, uint64_t va, uint32_t level, const char **file,
		    uint32_t *line);
/*
 * The function whose source bucket b of bf's code is when it was inlined
 * there: the innermost instance at the start of each of the bucket's
 * ranges (addr2line -i -f's first function), the one of the most bytes;
 * NULL when most of them are in no instance (the routine's own code), or
 * the module has none to give.  Owned by in.
 */
const char	*inlines_bucket(struct inlines *in, struct pme_bucketfile *bf,
		    uint32_t b);

/*
 * The frame id (FRAME_INLINE: a function's name) of the ELF function
 * symbol that holds link-time address va in mapping m's file (its path
 * absolute, its build-id the mapping's), from its symbol table, read
 * once; 0 when there is none, the file cannot be read or is another
 * build, or memory ran out.  For frames in no bucket.
 */
struct symnames;
struct symnames	*symnames_new(void);			/* NULL: no memory */
void		 symnames_free(struct symnames *sn);		/* NULL ok */
uint64_t	 symnames_at(struct symnames *sn, struct stacks *s,
		    const struct pme_mapping *m, uint64_t va);

void	 tally_init(struct tally *t, struct pme_bucketfile *bf);
void	 tally_free(struct tally *t);
/*
 * Reads the sample file path and adds its samples to t->bf's counts.
 * Warns (on stderr) when the file was cut short or matched no module.
 * Returns 0, or -1 with err filled.
 */
int	 tally_file(struct tally *t, const char *path, struct pme_error *err);

/*
 * The files the quick path makes buckets of (quickscan.c): those mapped
 * executable that samples of the sample file path fell in (the kernel
 * and files without a path aside), the program first (the main
 * executable whose processes took most samples, in any file: the program
 * a wrapper ran, even when its own image has few), then by samples.  Only the program has PME_MODULE_MAIN.  The pcs of kernel
 * samples are kept for the kernel's routines.  Returns 0, or -1 with err
 * filled; quick_files_free() frees q.
 */
struct quick_files {
	struct pme_quick_image *v;
	size_t		 n;
	void		*files;		/* what v points into */
	uint64_t	*kpcs;		/* the pcs of kernel samples */
	size_t		 nkpcs;
	uint64_t	 start;		/* the first run's, CLOCK_REALTIME ns */
	int		 boot;		/* QUICK_BOOT_*: were the runs recorded
					   in this boot, by their boot ids? */
	uint64_t	*addrs;		/* NULL, or the link-time addresses of
					   the samples in mappings, sorted,
					   each once (reduce.c's one pass) */
	size_t		 naddrs;
};
#define QUICK_BOOT_UNKNOWN	0	/* a run without one: its start tells */
#define QUICK_BOOT_THIS		1	/* every run's is this boot's */
#define QUICK_BOOT_OTHER	2	/* a run's is another boot's */
/* The state after a run of boot id boot (NULL: none) joins state was,
 * that of the runs before (first: there were none). */
int	 quick_boot(int was, int first, const char *boot);
/*
 * The kernel routines of pcs[0..n) (pme_quick_kernel_routines()), for
 * runs of boot state boot whose first started at start (CLOCK_REALTIME
 * ns): from this boot's kallsyms, through the cache unless
 * PME_KALLSYMS_CACHE is 0; none for runs of another boot.  0, or -1 when
 * memory ran out; free kr with pme_quick_kernel_free() either way.
 */
int	 quick_kernel(struct pme_kroutines *kr, const uint64_t *pcs,
	    size_t n, int boot, uint64_t start);
int	 quick_scan(const char *path, struct quick_files *q,
	    struct pme_error *err);
/*
 * The same beside another reader of the file (reduce.c, in one pass):
 * quick_scan_visitor's callbacks, given the scanner as their argument,
 * see each record; quick_scanner_end() then fills q and frees the
 * scanner (returns 0, or -1 with err filled), quick_scanner_free() frees
 * one not ended.
 */
struct scan;
extern const struct pme_sample_visitor quick_scan_visitor;
struct scan *quick_scanner_new(struct pme_error *err);
int	 quick_scanner_end(struct scan *s, struct quick_files *q);
void	 quick_scanner_free(struct scan *s);
void	 quick_files_free(struct quick_files *q);

/*
 * Call chains for -T folded (folded.c).  A frame is an id: a unit of
 * t->bf, a module of t->bf (in no bucket), an entry of t->foreign, a
 * mapping's path, or unknown (in no mapping), in the type bits above the
 * index.
 */
#define FRAME_TYPE	(UINT64_C(7) << 32)
#define FRAME_UNIT	(UINT64_C(1) << 32)
#define FRAME_MODULE	(UINT64_C(2) << 32)
#define FRAME_FOREIGN	(UINT64_C(3) << 32)
#define FRAME_UNKNOWN	(UINT64_C(4) << 32)
#define FRAME_NAME	(UINT64_C(5) << 32)	/* a mapping's path, for a
						   module without one */
#define FRAME_INLINE	(UINT64_C(6) << 32)	/* a function by name: inlined
						   (--inline), or from its
						   file's symbols */

struct stacks	*stacks_new(void);			/* NULL: no memory */
/* A table filled to 3/4 rather than 1/2 before it grows: for many short
 * keys (the views' pc table), where its size rather than its probes
 * costs. */
struct stacks	*stacks_new_dense(void);		/* NULL: no memory */
void		 stacks_free(struct stacks *s);		/* NULL ok */
/* The id of a frame named by the path name (copied); FRAME_UNKNOWN when
 * out of memory. */
uint64_t	 stacks_name(struct stacks *s, const char *name);
/* The id of the inlined function named name (copied), FRAME_INLINE;
 * FRAME_UNKNOWN when out of memory. */
uint64_t	 stacks_inline(struct stacks *s, const char *name);
/* The same of a function of the load module path (copied): its frames
 * keep their module (stacks_frame_path()). */
uint64_t	 stacks_inline_in(struct stacks *s, const char *name,
		    const char *path);
/* The hash of the key id[0..n) the tables use. */
uint64_t	 stacks_hash(const uint64_t *id, size_t n);
/* Counts count samples of the stack id[0..n), innermost first; 0 or -1
 * (no memory). */
int		 stacks_add(struct stacks *s, const uint64_t *id, size_t n,
		    uint64_t count);
/* Prints the folded stacks, names from t, lines in byte order; 0 or -1
 * (no memory, or a write failed). */
int		 stacks_print(const struct stacks *s, const struct tally *t,
		    FILE *fp);
/* The same of a baseline's stacks bs (names from bt) and s's, in the
 * form of FlameGraph's difffolded.pl: each stack of either once, its
 * baseline count, then its count (0 where it has none). */
int		 stacks_print_diff(const struct stacks *bs,
		    const struct tally *bt, const struct stacks *s,
		    const struct tally *t, FILE *fp);
/* Calls fn(arg, id, n, count) for each distinct stack (the ids as
 * added), in no order; -1 when fn returned non-zero, else 0. */
int		 stacks_walk(const struct stacks *s, int (*fn)(void *,
		    const uint64_t *, size_t, uint64_t), void *arg);
size_t		 stacks_count(const struct stacks *s);	/* distinct stacks */
/* Writes frame id's name (as -T folded names it, but ';' and ' ' kept)
 * to fp; 0 or -1 (no memory). */
int		 frame_put(FILE *fp, uint64_t id, const struct stacks *s,
		    const struct tally *t);

/*
 * The sampling intervals sample s stands for: one, or more when the
 * kernel delivered one timer signal for several expirations (its weight
 * then holds them all, pme_sample.h); period is its run's, in ns.
 */
static inline uint64_t
histo_intervals(uint64_t period, const struct pme_sample *s)
{
	if (period == 0 || s->weight <= period)
		return 1;
	return (s->weight + period / 2) / period;
}

/*
 * HP Caliper's views (caliper.c, pmehisto -V caliper[:LEVEL]): per
 * thread, process, load module, function, source statement and
 * instruction, each row's share of the total, the running sum of the
 * shares and its count.
 */
enum { CAL_THREAD, CAL_PROCESS, CAL_MODULE, CAL_FUNCTION, CAL_LINE,
	CAL_INSN, CAL_CPU, CAL_NLEVELS };
#define CAL_ALL		CAL_NLEVELS	/* every level, and the details */
#define CAL_NONE	(-1)		/* no Caliper view asked for */

/* The view spec ("caliper", "caliper:LEVEL") into *level: 0; 1 when spec
 * is not a Caliper view; -1 when LEVEL is not a level. */
int	 caliper_parse(const char *spec, int *level);

struct caliper_input {
	const char	*prog;		/* for warnings */
	int		 level;		/* CAL_* or CAL_ALL */
	int		 quiet;
	double		 cutoff;	/* percent: rows below are summed */
	struct pme_bucketfile *bf;	/* trace input, or NULL for clock */
	const char	*bfname;
	const char *const *samples;	/* clock input */
	size_t		 nsamples;
	const char *const *srcdirs;	/* -I: source text shown from files
					   under these too */
	size_t		 nsrcdirs;
	const char	*measure;	/* -M, or NULL */
	struct filter	*filter;	/* samples kept, or NULL: all */
	int		 inl;		/* --inline: a statement's function
					   is the innermost one inlined at
					   its address (addr2line -f) */
};

struct caliper;

/* Reads the input (in must outlive the result); NULL with err filled. */
struct caliper	*caliper_new(const struct caliper_input *in,
		    struct pme_error *err);
void		 caliper_free(struct caliper *c);		/* NULL ok */
/* The text report, its tables' rows fitted to width columns (0: any;
 * names cut with a '~' where too wide, but the last column's), or with
 * csv the CSV table, to fp; 0 or -1. */
int		 caliper_write(struct caliper *c, int csv, int width, FILE *fp,
		    struct pme_error *err);
/* The rows of level lv (clock input, the level read: in->level lv or
 * CAL_ALL), and row i's name as -V measures:LEVEL joins the rows of
 * several measures by ("t1 tid 12 pid 10", "x.c:12 main"), unescaped,
 * that the caller frees (NULL when out of memory), with its count. */
size_t		 caliper_rows(const struct caliper *c, int lv);
char		*caliper_row_key(const struct caliper *c, int lv, size_t i,
		    uint64_t *count);

/* Frame id's name as -T folded prints it, but semicolons and blanks
 * kept; the caller frees it; NULL when out of memory. */
char		*stacks_frame_name(const struct stacks *s,
		    const struct tally *t, uint64_t id);
/* Whether frame id is the kernel's: a unit of the "[kernel]" module (the
 * quick path's kernel functions), or a kernel mapping's frame; -T folded
 * and -T svg mark it "_[k]", as FlameGraph does. */
int		 stacks_frame_kernel(const struct tally *t, uint64_t id);
/* The path of frame id's load module or mapping, NULL when it has none
 * (the kernel, the vdso, unknown); s and t own it. */
const char	*stacks_frame_path(const struct stacks *s,
		    const struct tally *t, uint64_t id);

/*
 * The exports that take the histogram file's place, pmehisto -T svg,
 * callgrind, pprof: one registry (export.c's export_formats[]) that
 * pmehisto's option parser, its help and the dispatch read.  An export
 * is made whole in memory before any output is written.  Adding one is
 * a row there, its writer's file, pmehisto(1) and a test.
 */
struct export_out {
	char		*data;		/* the caller frees it */
	size_t		 len;
};

/* What an export is made from. */
enum export_family {
	EXPORT_STACKS		/* the call stacks (t->stacks): clock input
				   recorded with pmeclock -g */
};

struct xmodel;

struct export_format {
	const char	*name;		/* -T's word */
	const char	*gloss;		/* what the help says of it, or NULL */
	const char	*ext;		/* -o's default extension */
	int		 binary;	/* refused on a terminal */
	enum export_family family;
	int		 addrs;		/* wants t->addrs */
	int		 compares;	/* draws a comparison with -D's sample
					   files (export_compare) */
	int		(*make)(const struct xmodel *, struct export_out *,
			    struct pme_error *);
	/* The export of trace input (a filled bucket file's counts), or
	 * NULL: the format wants call stacks. */
	int		(*counts)(struct pme_bucketfile *, struct export_out *,
			    struct pme_error *);
};

extern const struct export_format export_formats[];
extern const size_t export_nformats;

/* The export -T name names, or NULL. */
const struct export_format *export_find(const char *name);

/* Makes export f from t (t->stacks set); what names the sample file for
 * messages (NULL: several).  0, or -1 with err filled: no call chains
 * (PME_EFORMAT), no memory. */
int		 export_make(const struct export_format *f,
		    const struct tally *t, const char *what,
		    struct export_out *out, struct pme_error *err);
/* The same compared with base's stacks (f->compares), or none (NULL). */
int		 export_compare(const struct export_format *f,
		    const struct tally *t, const struct tally *base,
		    const char *what, struct export_out *out,
		    struct pme_error *err);

/* Prints "prog: message" on standard error, the message escaped as the
 * reports' names are (pme_escape): names from files reach a terminal. */
void	 histo_warn(const char *prog, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* "'path': cut short ..." when sum says the file was (then what the
 * view shows: shows), as pmehisto's views say it; prog NULL: nothing. */
void	 histo_warn_cut(const char *prog, const char *path,
	    const struct pme_sample_summary *sum, const char *shows);

/* What to add to err's message when it says that the file name is of
 * another kind (PME_EKIND): where that kind is given, or "". */
const char	*histo_kind_hint(const struct pme_error *err, const char *name);

/* Fills err (when not NULL) with code and a message; returns -1. */
int	 histo_err(struct pme_error *err, enum pme_errcode code,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* What the report needs besides the bucket file. */
struct report_input {
	const char	*bucket_in;	/* names for the summary */
	const char	*bucket_out;	/* NULL for trace input */
	const char *const *samples;
	size_t		 nsamples;
	const struct tally *tally;	/* NULL for trace input */
	unsigned	 flags;		/* PME_REPORT_* */
	double		 cutoff;
	struct inlines	*inl;		/* --inline: a LINE unit's row names
					   its function, or NULL */
};

struct pme_report *report_build(struct pme_bucketfile *bf,
	    const struct report_input *in, struct pme_error *err);
/* The report's row of bucket i of bf: its unit's name and kind, its
 * addresses (unit-relative unless ABSADDR), its count. */
void	 report_row_of(struct pme_bucketfile *bf, uint32_t i,
	    struct pme_report_row *row);
/* A summary line "label: value" of rep, the value formatted; 0 or -1
 * (no memory). */
int	 report_line(struct pme_report *rep, const char *label,
	    struct pme_error *err, const char *fmt, ...)
	    __attribute__((format(printf, 4, 5)));
/* How samples were taken (enum pme_method): "perf_event_open"; and
 * their event (enum pme_event), after a comma: ", cpu-clock", or "". */
const char	*report_method(uint32_t method);
const char	*report_event(uint32_t event);
/* What the views' headers say the samples are: the event watched
 * (", cpu-clock", ", break:f": the measure counted), and how often a
 * sample was taken (", every 10 ms" for a clock, " of page-faults, one
 * every 4 events"), into buf. */
const char	*report_watched(const struct tally *t);
const char	*report_every(const struct tally *t, char *buf, size_t len);
/* What counts of measure m (enum pme_measure) are, for people. */
const char	*report_measure(uint32_t m);
/* Gives rep the unit of bf's counts when they are amounts
 * (measure_amount()): 0, or -1 (no memory). */
int	 report_unit(struct pme_report *rep, struct pme_bucketfile *bf,
	    struct pme_error *err);
/* What percentages are of: all counts of bf, in buckets or not. */
uint64_t report_total(struct pme_bucketfile *bf);

/*
 * Differential reports and gates (diff.c, pmehisto -D and -G).  A gate
 * is growth of the total or of any bucket beyond which the build fails:
 * "total:" or "bucket:", then limits "+N%" (of the baseline) and "+N"
 * (counts), either or both (comma-separated: both must be exceeded).
 */
struct gate {
	const char	*spec;		/* as given */
	int		 total;		/* total:, else bucket: */
	double		 pct;		/* -1: none */
	uint64_t	 abs;
	int		 has_abs;
};

/* Reads spec into g (keeping spec); 0, or -1 when it is not a gate. */
int	 gate_parse(const char *spec, struct gate *g);

struct diff_input {
	const char	*base_name;	/* the baseline (-D), for messages */
	const char	*new_name;	/* the new counts' file */
	const struct gate *gates;
	size_t		 ngates;
	unsigned	 flags;		/* PME_REPORT_* */
	double		 cutoff;
	int		 zeros;		/* rows with no counts in either file
					   too (-z), else left out */
};

struct diff;

/* Matches the buckets of base (the baseline) and cur (the new counts)
 * by their units' names, and applies the gates; NULL with err filled
 * when they measure different things, or out of memory.  base and cur
 * and in must outlive the result, which the caller frees. */
struct diff	*diff_new(struct pme_bucketfile *base,
		    struct pme_bucketfile *cur, const struct diff_input *in,
		    struct pme_error *err);
void		 diff_free(struct diff *d);			/* NULL ok */
/* The differential report; NULL with err filled (no memory). */
struct pme_report *diff_report(const struct diff *d, struct pme_error *err);
/* Says on standard error what did not match (unless quiet) and every
 * bucket, or the total, that failed a gate; returns whether one did. */
int		 diff_tell(const struct diff *d, const char *prog, int quiet);

/*
 * The reports -V chooses (view.c): "histogram", "spy", "callgraph",
 * "callers:ROUTINE".
 */
enum view_kind { VIEW_HISTOGRAM, VIEW_SPY, VIEW_CALLGRAPH, VIEW_CALLERS };

struct view {
	enum view_kind	 kind;
	const char	*name;		/* as in the table */
	const char	*arg;		/* after the colon (kept), or NULL */
	int		 chains;	/* made from the samples' call chains */
};

/* Reads s (kept) into v; 0, or -1 when it names no view or its argument
 * is missing or not wanted. */
int	 view_parse(const char *s, struct view *v);

/*
 * The views of the call chains (spy.c, callgraph.c), from t->stacks
 * collected with t->sites.  Written to fp; cutoff in percent of all
 * samples.  0, or -1 with err filled (no memory, a write failed, or no
 * routine of the name ROUTINE for callers).
 */
struct calls;

struct calls	*calls_new(const struct tally *t, struct pme_error *err);
void		 calls_free(struct calls *c);			/* NULL ok */
int		 spy_write(const struct calls *c, double cutoff, FILE *fp,
		    struct pme_error *err);
int		 callgraph_write(const struct calls *c, double cutoff,
		    FILE *fp, struct pme_error *err);
int		 callers_write(const struct calls *c, const char *routine,
		    double cutoff, FILE *fp, struct pme_error *err);

#endif /* HISTO_H */
