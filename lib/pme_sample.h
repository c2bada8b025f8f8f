/*
 * pme_sample.h - libpme's sample files (.PMS): what pmeclock and the
 * libpmeclock runtime record, and what pmehisto reduces.  The bytes are
 * specified in pme(5).  Errors as in pme.h: returned, never printed.
 *
 * A sample file is a pme container of kind PME_KIND_SAMPLE, written live
 * (PME_WRITE_LIVE: at its name while it grows, the previous file kept
 * aside until the close) and incrementally: a header chunk first, then
 * chunks of mapping, thread and sample records as buffers fill or a
 * second passes, then a closing record and END.  A file cut short (a
 * killed program) is read up to its last whole chunk; a failed write
 * puts the previous file back.  A file may hold several runs, each from
 * its header to its closing record (pmemerge(1) joins files so): each
 * run's records are its own, its process IDs and mappings included.
 */
#ifndef PME_SAMPLE_H
#define PME_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "pme.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the samples were taken. */
enum pme_method {
	PME_METHOD_NONE = 0,
	PME_METHOD_PERF,	/* perf_event_open, a software clock */
	PME_METHOD_TIMER,	/* in-process timer_create per thread */
	PME_METHOD_ITIMER,	/* in-process setitimer(ITIMER_PROF) */
	PME_METHOD_TEST		/* written by a test, deterministic */
};

/* What a sample's event was. */
enum pme_event {
	PME_EVENT_NONE = 0,
	PME_EVENT_CPU_CLOCK,	/* CPU time of the thread (PERF_COUNT_SW_
				   CPU_CLOCK, CLOCK_THREAD_CPUTIME_ID) */
	PME_EVENT_TASK_CLOCK,	/* PERF_COUNT_SW_TASK_CLOCK */
	PME_EVENT_PROF		/* ITIMER_PROF: process CPU time */
};

/*
 * An event of a run (format 1.1): what its samples count, each sample
 * naming its event by its index in the header's list.  kind, type and
 * config say how it was collected (pmeclock's registry, lib/measure.h:
 * kind 1 a clock, 2 a software event, 3-6 hardware, 7 a tracepoint;
 * type and config as perf_event_attr has them); unit is what one event
 * is ("ns" for a clock, "page faults"); period is the events a sample
 * stands for (ns for a clock), 0 when it varies (PME_SEV_FREQ: each
 * sample's weight holds its own).
 */
#define PME_SEV_FREQ	0x01	/* the kernel varied the period for a rate */
#define PME_EVENTS_MAX	64	/* events of one run */

struct pme_sample_event {
	const char	*name;		/* "page-faults", "sched:sched_switch" */
	const char	*unit;
	uint32_t	 kind;
	uint32_t	 type;
	uint64_t	 config;
	uint64_t	 period;
	uint32_t	 flags;		/* PME_SEV_* */
};

/* Header flags. */
#define PME_SHDR_CALLCHAIN 0x01	/* samples may carry call chains */
#define PME_SHDR_INHERIT   0x02	/* children across fork/exec followed */
#define PME_SHDR_WALL      0x04	/* off-CPU intervals recorded (-w) */

struct pme_sample_header {
	uint32_t	 method;	/* enum pme_method */
	uint32_t	 event;		/* enum pme_event */
	uint64_t	 period;	/* sampling period in ns */
	uint64_t	 start;		/* CLOCK_REALTIME at start, ns */
	uint64_t	 start_mono;	/* the clock sample times use, at start */
	uint32_t	 pid;		/* the measured process */
	uint32_t	 flags;		/* PME_SHDR_* */
	uint32_t	 argc;
	const char *const *argv;	/* the command line */
	const char	*note;		/* why this method ran ("perf_event_open
					   refused: ..."), or NULL */
	const char	*boot;		/* the recording machine's boot id
					   (pme_boot_id), or NULL: unknown */
	uint32_t	 nevents;	/* 0: one event, the clock that method,
					   event and period say (every file
					   before format 1.1); else events[]
					   lists them, at most PME_EVENTS_MAX */
	const struct pme_sample_event *events;
};

/* Mapping flags. */
#define PME_MAP_EXEC	0x01	/* executable code */
#define PME_MAP_DELETED	0x02	/* the file was deleted ("(deleted)") */
#define PME_MAP_MAIN	0x04	/* the process's main executable */
#define PME_MAP_KERNEL	0x08	/* kernel code */

/*
 * An executable mapping of process pid: [start, end) maps the file from
 * offset on; vaddr is the link-time virtual address (what nm prints) of
 * start, found from the file's PT_LOAD headers when it was recorded, so
 * that pc - start + vaddr rebases a program counter without the file.
 */
struct pme_mapping {
	uint32_t	 pid;
	uint32_t	 flags;		/* PME_MAP_* */
	uint64_t	 time;		/* when it appeared (sample clock) */
	uint64_t	 start, end;
	uint64_t	 offset;
	uint64_t	 vaddr;
	const char	*path;
	const uint8_t	*buildid;	/* NULL if unknown */
	uint32_t	 buildid_len;
};

/* Thread and process records. */
enum pme_thread_kind {
	PME_THREAD_COMM = 1,	/* tid is (now) called name */
	PME_THREAD_FORK,	/* tid of pid was created by ptid of ppid */
	PME_THREAD_EXIT,	/* tid of pid ended */
	PME_THREAD_EXEC		/* pid exec'ed name: its mappings start over */
};

struct pme_thread {
	uint32_t	 kind;		/* enum pme_thread_kind */
	uint32_t	 pid, tid;
	uint32_t	 ppid, ptid;	/* FORK only */
	uint64_t	 time;
	const char	*name;		/* COMM and EXEC; else NULL */
};

/* Sample flags. */
#define PME_SAMPLE_KERNEL 0x01	/* pc is in the kernel */
#define PME_SAMPLE_TRUNCATED 0x02 /* the call chain stops short of the
				   outermost frame (unwound from the CFI) */

/* Whether a frame's address is the kernel's: in the top half of the
 * address space, where x86-64's and AArch64's kernels are and user code
 * never is.  A sample in the kernel recorded with -g has the kernel's
 * frames first in its chain, then the user's. */
#define PME_KERNEL_ADDR(a)	(((uint64_t)(a) >> 63) != 0)

struct pme_sample {
	uint64_t	 pc;
	uint64_t	 time;		/* sample clock, ns */
	uint64_t	 weight;	/* ns of the event the sample stands for */
	uint32_t	 pid, tid;
	uint32_t	 cpu;		/* UINT32_MAX if unknown */
	uint32_t	 flags;		/* PME_SAMPLE_* */
	uint32_t	 event;		/* index in the header's events (0 when
					   it has none) */
	uint32_t	 nframes;	/* call chain, innermost first; the first */
	const uint64_t	*frames;	/*   frame is the caller of pc */
};

struct pme_sample_close {
	uint64_t	 end;		/* CLOCK_REALTIME at the end, ns */
	uint64_t	 samples;	/* samples written */
	uint64_t	 lost;		/* samples the collector lost */
	int32_t		 status;	/* exit status as a shell gives it:
					   code, or 128 + signal; or one of
					   PME_STATUS_* */
	uint32_t	 threads;	/* threads seen */
};

/*
 * A closing record's status that is no exit status: the process ended
 * and how is not known (the recorder, attached to it, is not its
 * parent); the process was still running when the recording ended (an
 * attach that ended first).
 */
#define PME_STATUS_UNKNOWN	(-1)
#define PME_STATUS_RUNNING	(-2)

/*
 * An off-CPU interval of a thread (pmeclock -w; format 1.1, OFFC chunks,
 * which a reader that does not know them passes over): the thread left
 * the CPU at start (the scheduler's switch-out) and came back at end
 * (its switch-in), both on the sample clock.  wake is when it was woken,
 * 0 when not seen: [wake, end) it was runnable, waiting for a CPU.  What
 * it waited for is kclass, as the recorder decided from the kernel's call
 * chain and the scheduler's state (kstate: sched_switch's prev_state);
 * a reader refines PME_WC_FUTEX into lock and condition by the user
 * frames.  pc is the user code that entered the kernel, frames its
 * callers, innermost first.  For a futex wait, object is the futex's
 * address (the lock word) and futex_op the operation.
 */
enum pme_wclass {
	PME_WC_UNKNOWN = 0,	/* no kernel chain: state alone */
	PME_WC_CPU,		/* preempted or yielded: runnable */
	PME_WC_FUTEX,		/* futex(2) wait: a lock or a condition */
	PME_WC_IO,		/* block I/O, fsync, a file's pages */
	PME_WC_FAULT,		/* a page fault that had to wait */
	PME_WC_SLEEP,		/* sleep, poll, pipe, socket, wait */
	PME_WC_OTHER,		/* any other wait in the kernel */
	PME_WC_MAX
};

#define PME_OFF_TRUNCATED 0x01	/* the chain stops short */
#define PME_OFF_WAKER	0x02	/* waker is the tid that woke it */

struct pme_offcpu {
	uint32_t	 pid, tid;
	uint64_t	 start, end;	/* switch-out, switch-in */
	uint64_t	 wake;		/* 0: not seen */
	uint32_t	 kclass;	/* enum pme_wclass */
	uint32_t	 kstate;	/* prev_state */
	uint32_t	 waker;		/* with PME_OFF_WAKER */
	uint32_t	 flags;		/* PME_OFF_* */
	uint32_t	 futex_op;
	uint64_t	 object;	/* futex address, or 0 */
	uint64_t	 pc;		/* 0: no user state */
	uint32_t	 nframes;
	const uint64_t	*frames;
};

/* ------------------------------------------------------------ writing */

struct pme_samplewriter;

/*
 * Creates path ("-": standard output) as pme_writer_open() does with
 * PME_WRITE_LIVE, and writes the header chunk at once.  Records are
 * buffered; a buffer becomes one chunk when it fills (at most bufsize
 * bytes of records; 0: 64 KiB) or at pme_samplewriter_flush().  Mapping
 * and thread records of a flush are written before its samples.  After a
 * failed write (a full disk) path is as it was before the open, and
 * every later call fails.
 */
struct pme_samplewriter *pme_samplewriter_open(const char *path,
		    const struct pme_sample_header *h, size_t bufsize,
		    struct pme_error *err);
int		 pme_samplewriter_mapping(struct pme_samplewriter *w,
		    const struct pme_mapping *m, struct pme_error *err);
int		 pme_samplewriter_thread(struct pme_samplewriter *w,
		    const struct pme_thread *t, struct pme_error *err);
int		 pme_samplewriter_sample(struct pme_samplewriter *w,
		    const struct pme_sample *s, struct pme_error *err);
int		 pme_samplewriter_flush(struct pme_samplewriter *w,
		    struct pme_error *err);
/*
 * Writes a HEA2 chunk (pme(5)) whose payload, len bytes at p, a recorder
 * made (pmeclock's runtime): its pid, and records that refer to the
 * mappings and threads written before it, so those pending are written
 * first.  0, or -1 with err filled.
 */
int		 pme_samplewriter_heap(struct pme_samplewriter *w,
		    const void *p, size_t len, struct pme_error *err);
/* An off-CPU interval (pmeclock -w), buffered as samples are; a chain of
 * more than 1024 frames is cut there. */
int		 pme_samplewriter_offcpu(struct pme_samplewriter *w,
		    const struct pme_offcpu *o, struct pme_error *err);
/* Flushes, writes the closing record and END, closes and frees w.  The
 * closing record's sample count is the writer's own; c->samples is not
 * used, and c may be NULL. */
int		 pme_samplewriter_close(struct pme_samplewriter *w,
		    const struct pme_sample_close *c, struct pme_error *err);
/* Closes and frees w without a closing record: the file is left at path
 * cut short, the previous one removed (pme_writer_abort()); records not
 * yet flushed are lost. */
void		 pme_samplewriter_abort(struct pme_samplewriter *w);
/* Closes and frees w and puts path back as it was before the open (a
 * run that did not happen); NULL ok. */
void		 pme_samplewriter_discard(struct pme_samplewriter *w);
/* The temporary name beside path and what it holds, as
 * pme_writer_tmpname() tells; NULL for a NULL w. */
const char	*pme_samplewriter_tmpname(const struct pme_samplewriter *w,
		    int *isnew);

/* ------------------------------------------------------------ reading */

/*
 * A reader calls back in file order: header once per run, first in it,
 * and close once per run, last (not for a run cut short before the next
 * header).  Pointers passed are valid only during the call.  A
 * callback returning non-zero stops the reading, which then returns -1
 * with err's code PME_EINVAL unless the callback filled err itself.  Any
 * callback may be NULL.
 */
/*
 * This boot's id, /proc/sys/kernel/random/boot_id's line, into buf (len
 * bytes, PME_BOOT_MAX + 1 at least): 0, or -1 when it cannot be read.
 * A recorder puts it in its header, so that a reader can tell whether the
 * run was recorded in the boot it runs in (whose /proc/kallsyms names the
 * kernel's samples).
 */
#define PME_BOOT_MAX	64
int		 pme_boot_id(char *buf, size_t len);

struct pme_sample_visitor {
	int	(*header)(void *arg, const struct pme_sample_header *h);
	int	(*mapping)(void *arg, const struct pme_mapping *m);
	int	(*thread)(void *arg, const struct pme_thread *t);
	/* samples come in batches, s[0..n) */
	int	(*samples)(void *arg, const struct pme_sample *s, size_t n);
	int	(*close)(void *arg, const struct pme_sample_close *c);
};

struct pme_sample_summary {
	int64_t		 lost_bytes;	/* -1 if complete, else bytes after
					   the last whole chunk */
	int		 closed;	/* the closing record was read (of
					   the last run) */
	uint64_t	 samples;	/* samples read */
};

/* Reads path ("-": standard input).  Returns 0 (*sum filled) or -1.
 * err->code is set to PME_OK first, so that a stop can tell whether the
 * callback filled err.  With neither v->samples nor sum (a reader of the
 * runs' headers, mappings, threads and closing records), the chunks of
 * samples are passed over unread, their checksums unchecked. */
int		 pme_samplefile_read(const char *path,
		    const struct pme_sample_visitor *v, void *arg,
		    struct pme_sample_summary *sum, struct pme_error *err);
/* The same, and each off-CPU interval (OFFC chunks, pmeclock -w) to
 * offcpu (NULL: passed over), in file order, with the pointers valid
 * only during the call; a non-zero return stops the reading as v's. */
int		 pme_samplefile_read_offcpu(const char *path,
		    const struct pme_sample_visitor *v,
		    int (*offcpu)(void *arg, const struct pme_offcpu *o),
		    void *arg, struct pme_sample_summary *sum,
		    struct pme_error *err);
/* The same over buf, which is read during the call and not kept; name is
 * used in messages. */
int		 pme_samplefile_mem(const void *buf, size_t len,
		    const char *name, const struct pme_sample_visitor *v,
		    void *arg, struct pme_sample_summary *sum,
		    struct pme_error *err);

/*
 * Heap records (pme(5), HEAP and HEA2 chunks; pmeclock -e alloc): every
 * call of the allocator a process made, in the order its heap changed.
 * What was called (enum pme_heap_fn), then, by the reader, an allocation
 * or a release of a block.  A stack is the id of its innermost node in the
 * process's tree of call sites (pme_heap_visitor.stack): 0 for none.
 */
enum pme_heap_fn {
	PME_HEAP_MALLOC = 1, PME_HEAP_CALLOC, PME_HEAP_REALLOC,
	PME_HEAP_REALLOCARRAY, PME_HEAP_MEMALIGN, PME_HEAP_POSIX_MEMALIGN,
	PME_HEAP_ALIGNED_ALLOC, PME_HEAP_VALLOC, PME_HEAP_PVALLOC,
	PME_HEAP_NEW, PME_HEAP_NEW_ARRAY, PME_HEAP_FREE, PME_HEAP_DELETE,
	PME_HEAP_DELETE_ARRAY,
	PME_HEAP_UNSEEN		/* released where the recorder did not see:
				   a block allocated again at its address */
};
#define PME_HEAP_FNMAX	PME_HEAP_UNSEEN

/* The records' tags in a HEAP or HEA2 chunk (pme(5)); REPEAT is HEA2's
 * only. */
enum { PME_HEAPREC_STACK = 1, PME_HEAPREC_THREAD, PME_HEAPREC_ALLOC,
    PME_HEAPREC_FREE, PME_HEAPREC_TIME, PME_HEAPREC_FREE_PARENT,
    PME_HEAPREC_REPEAT };
/* HEA2: a REPEAT's distance is less than PME_HEAP_WINDOW; a chunk holds
 * at most PME_HEAP_CHUNK_EVENTS allocations and releases, those its
 * REPEATs give counted. */
#define PME_HEAP_WINDOW		(1u << 18)
#define PME_HEAP_CHUNK_EVENTS	(1u << 22)
/* A block of the parent process at the fork, in pme_heap_event.block. */
#define PME_HEAP_PARENT	(1ull << 63)

struct pme_heap_event {
	uint32_t	 kind;		/* PME_HEAPREC_ALLOC or _FREE */
	uint32_t	 fn;		/* enum pme_heap_fn */
	uint32_t	 pid, tid;
	uint64_t	 time;		/* sample clock, ns (to the
					   recorder's step, pme(5)) */
	uint64_t	 block;		/* the block's number among the
					   process's live ones, from 1; 0 a
					   FREE of a block not recorded;
					   PME_HEAP_PARENT | n the parent's
					   block n at the fork */
	uint64_t	 size;		/* ALLOC: bytes asked for */
	uint32_t	 stack;		/* ALLOC: its stack's id in pid */
};

/*
 * What a heap reader is told besides a sample visitor's records: a new
 * stack node (id, its caller's node parent, 0 for none, and the return
 * address ip; ids count from 1 in each process image, parent < id), and
 * each event.  Either may be NULL; non-zero stops the reading.
 */
struct pme_heap_visitor {
	int	(*stack)(void *arg, uint32_t pid, uint32_t id,
		    uint32_t parent, uint64_t ip);
	int	(*event)(void *arg, const struct pme_heap_event *e);
};

/*
 * Reads path as pme_samplefile_read() does, the heap records passed to
 * hv too.  Both readers pass each allocation to v->samples as two
 * samples when the run's header lists the events "allocations" and
 * "bytes" (pmeclock -e alloc): one of weight 1, one weighing its size,
 * at the allocation's call site (its stack's innermost return address
 * less one) with the rest of its stack as the call chain.
 */
int		 pme_samplefile_heap(const char *path,
		    const struct pme_sample_visitor *v,
		    const struct pme_heap_visitor *hv, void *arg,
		    struct pme_sample_summary *sum, struct pme_error *err);

/* ------------------------------------------------- rebasing addresses */

/*
 * The mappings of every process of a run, for turning (pid, time, pc)
 * into (mapping, link-time address).  Feed it the mapping and thread
 * records in file order: FORK copies the parent's mappings to the child,
 * EXEC drops the process's mappings.  A later mapping over the same
 * addresses hides an earlier one from samples taken after it.
 */
struct pme_addrmap;

struct pme_addrmap *pme_addrmap_new(struct pme_error *err);
void		 pme_addrmap_free(struct pme_addrmap *am);	/* NULL ok */
int		 pme_addrmap_mapping(struct pme_addrmap *am,
		    const struct pme_mapping *m, struct pme_error *err);
int		 pme_addrmap_thread(struct pme_addrmap *am,
		    const struct pme_thread *t, struct pme_error *err);
/*
 * The mapping holding pc in process pid at time, as an index into
 * pme_addrmap_mappings(), with *vaddr its link-time address; PME_NONE
 * when no mapping holds it.  Of the mappings holding pc, the latest that
 * appeared at or before time; for a sample older than all of them, the
 * earliest.  The kernel's mappings are searched when none of the
 * process's holds pc.  O(log n) once the process's index is built; the
 * first lookup after a change of its mappings rebuilds it (quadratic in
 * mappings that overlap one another, which real processes rarely have).
 */
uint32_t	 pme_addrmap_lookup(struct pme_addrmap *am, uint32_t pid,
		    uint64_t time, uint64_t pc, uint64_t *vaddr);
/* Every mapping recorded, in order of arrival (strings owned by am). */
size_t		 pme_addrmap_mappings(const struct pme_addrmap *am,
		    const struct pme_mapping **out);

/*
 * What a recorder needs of an ELF file, read once: its type (ET_EXEC,
 * ET_DYN, ...), its GNU build-id and its first PME_ELF_MAXLOAD PT_LOAD
 * segments.  pme_elf_read() fills *e (all of it, the caller's memory) and
 * returns 0; a file that is not ELF is of type 0 with no build-id and no
 * segments, which is not an error.  -1 with err filled, and *e zeroed,
 * when path cannot be opened.
 *
 * pme_elf_addr() is the link-time address of file offset off: by the
 * segment whose file bytes hold off, an executable one first; else by the
 * executable one nearest off (a mapping starts at a page boundary, which
 * may be below its segment's first byte); off itself when there is none.
 */
#define PME_ELF_MAXLOAD	16

struct pme_elf {
	int		 type;		/* e_type, 0 if not ELF */
	uint8_t		 buildid[64];
	uint32_t	 idlen;		/* 0: no build-id */
	uint32_t	 nload;
	struct pme_elfload {
		uint64_t offset, vaddr;	/* p_offset, p_vaddr */
		uint64_t filesz, memsz;
		uint32_t flags;		/* p_flags: PF_X, PF_W, PF_R */
	}		 load[PME_ELF_MAXLOAD];
};

int		 pme_elf_read(const char *path, struct pme_elf *e,
		    struct pme_error *err);
uint64_t	 pme_elf_addr(const struct pme_elf *e, uint64_t off);

/*
 * pme_elf_read() and pme_elf_addr() at once: the link-time address of
 * file offset off in the ELF file path (what a recorder stores as
 * pme_mapping.vaddr for a mapping's start, with off its offset), and its
 * GNU build-id.  For a file that is not ELF, *vaddr = off and no
 * build-id.  buildid has room for 64 bytes; *idlen is 0 when there is
 * none.
 */
int		 pme_elf_vaddr(const char *path, uint64_t off,
		    uint64_t *vaddr, uint8_t *buildid, uint32_t *idlen,
		    struct pme_error *err);


/* ---------------------------------------------------------- I/O calls */

/*
 * An I/O system call (pmeclock -e io, pme(5) the IOCL chunk): who made
 * it, on which descriptor, what it returned, when and for how long, from
 * which call stack, and the descriptor's path.  call is one of PME_IO_*;
 * pme_io_name() names it as strace does ("read", "sendto").
 */
enum pme_io_call {
	PME_IO_READ = 1, PME_IO_WRITE, PME_IO_PREAD, PME_IO_PWRITE,
	PME_IO_READV, PME_IO_WRITEV, PME_IO_PREADV, PME_IO_PWRITEV,
	PME_IO_OPEN, PME_IO_OPENAT, PME_IO_CLOSE, PME_IO_FSYNC,
	PME_IO_FDATASYNC, PME_IO_SENDFILE, PME_IO_SENDTO, PME_IO_RECVFROM,
	PME_IO_SENDMSG, PME_IO_RECVMSG,
	PME_IO_NCALLS
};

/* I/O flags. */
#define PME_IO_TRUNCATED 0x01	/* the stack stops short of its outermost
				   frame */

struct pme_io {
	uint32_t	 pid, tid;
	uint32_t	 call;		/* enum pme_io_call */
	uint32_t	 flags;		/* PME_IO_* */
	int32_t		 fd;		/* the descriptor; for an open the one
					   it returned (-1: it failed) */
	int64_t		 ret;		/* the return value: bytes moved, or
					   -errno */
	uint64_t	 start;		/* entry, sample clock (ns) */
	uint64_t	 duration;	/* exit minus entry, ns */
	uint64_t	 pc;		/* the user code that entered the
					   kernel */
	uint32_t	 nframes;	/* its callers, innermost first */
	const uint64_t	*frames;
	const char	*path;		/* the descriptor's path ("pipe:[12]"
					   for a pipe), NULL when unknown */
};

/* "read" for PME_IO_READ, ...; NULL for a call that is none. */
const char	*pme_io_name(uint32_t call);
/* Appends an I/O record (buffered as mapping and thread records are,
 * in their order). */
int		 pme_samplewriter_io(struct pme_samplewriter *w,
		    const struct pme_io *io, struct pme_error *err);
/* pme_samplefile_read() that calls io (NULL: none) for each I/O record,
 * in file order among the mapping and thread records; io's pointers are
 * valid only during the call, and its non-zero return stops the
 * reading as the visitor's do. */
int		 pme_samplefile_read_io(const char *path,
		    const struct pme_sample_visitor *v,
		    int (*io)(void *arg, const struct pme_io *io), void *arg,
		    struct pme_sample_summary *sum, struct pme_error *err);

#ifdef __cplusplus
}
#endif

#endif /* PME_SAMPLE_H */
