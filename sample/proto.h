/*
 * proto.h - the messages the preloaded runtime (runtime.c) sends to the
 * pmeclock launcher (collect.c) through the pipe named by PMECLOCK_FD.
 *
 * Both ends are built from the same tree for the same machine, so the
 * messages are native structs.  Every message is at most PMECLOCK_MSG_MAX
 * bytes (PIPE_BUF), so that one write(2) is atomic and the messages of
 * the processes of a run sharing the pipe never interleave.
 */
#ifndef PMECLOCK_PROTO_H
#define PMECLOCK_PROTO_H

#include <stdint.h>

#define PMECLOCK_MSG_MAX	4096
#define PMECLOCK_MAXFRAMES	64
#define PMECLOCK_PATH_MAX	3072

enum pmeclock_msgtype {
	PMECLOCK_MSG_HELLO = 1,	/* a process image starts recording */
	PMECLOCK_MSG_MAP,	/* an executable mapping */
	PMECLOCK_MSG_THREAD,	/* a pme_thread record */
	PMECLOCK_MSG_SAMPLES,	/* a batch of samples */
	PMECLOCK_MSG_BYE,	/* the process image ends its recording */
	PMECLOCK_MSG_CPU,	/* the CPU time a thread or image used */
	PMECLOCK_MSG_EXEC,	/* a process execs a program */
	PMECLOCK_MSG_HEAP	/* heap records (heap.c): a HEAP chunk's
				   payload (pme(5)) after the header */
};

/* The longest HEAP message: a packet of the socket, not of a pipe. */
#define PMECLOCK_HEAP_MAX	65536

struct pmeclock_msg {
	uint32_t	size;		/* of the whole message */
	uint32_t	type;		/* enum pmeclock_msgtype */
	uint32_t	pid;
	uint32_t	pad;
};

/* HELLO: followed by the note (NUL-terminated, may be empty). */
struct pmeclock_hello {
	struct pmeclock_msg hdr;
	uint32_t	method;		/* enum pme_method that runs */
	uint32_t	ppid;
	uint64_t	time;
	uint64_t	period;		/* ns */
	char		comm[16];
};

/* MAP: followed by the path, NUL-terminated. */
struct pmeclock_map {
	struct pmeclock_msg hdr;
	uint32_t	flags;
	uint32_t	idlen;
	uint64_t	time, start, end, offset, vaddr;
	uint8_t		buildid[64];
};

/* THREAD: followed by the name, NUL-terminated (empty: none). */
struct pmeclock_thread {
	struct pmeclock_msg hdr;
	uint32_t	kind, tid, ppid, ptid;
	uint64_t	time;
};

/* SAMPLES: n samples, each a pmeclock_rec and nframes u64 frames. */
struct pmeclock_samples {
	struct pmeclock_msg hdr;
	uint32_t	n;
	uint32_t	pad;
};

struct pmeclock_rec {
	uint64_t	pc, time, weight;
	uint32_t	tid, cpu;
	uint32_t	nframes, flags;		/* PME_SAMPLE_* */
};

/*
 * CPU: the CPU time a thread (or with tid 0 the whole process image)
 * used while it was sampled, sent when it ends (its exit, the image's
 * exec or end), so that pmeclock can compare it with the samples it got.
 */
struct pmeclock_cpu {
	struct pmeclock_msg hdr;
	uint32_t	tid;		/* 0: the process image */
	uint32_t	flags;		/* PMECLOCK_CPU_* */
	uint64_t	cpu;		/* ns while sampled */
	uint64_t	taken;		/* ns of it before the program took the
					   signal (HANDLER, ITIMER) */
};

#define PMECLOCK_CPU_BLOCKED	0x01	/* the thread (with tid 0: a thread)
					   ended with the signal blocked by
					   means not interposed */
#define PMECLOCK_CPU_HANDLER	0x02	/* the program installed its own
					   SIGPROF handler (itimer) */
#define PMECLOCK_CPU_ITIMER	0x04	/* the program set ITIMER_PROF */
#define PMECLOCK_CPU_REPLACED	0x08	/* the handler was replaced by means
					   not interposed */
#define PMECLOCK_CPU_ITIMER_M	0x10	/* sampled by ITIMER_PROF */

/* EXEC: followed by the path, NUL-terminated; flags say why the new
 * image will not be entered, if it will not. */
struct pmeclock_exec {
	struct pmeclock_msg hdr;
	uint32_t	flags;		/* PMECLOCK_EXEC_* */
	uint32_t	id;		/* the owner (SETID_UID) or group */
};

/* flags: what setid_exec() (setid.h) returned. */

/* BYE: what the image took and lost. */
struct pmeclock_bye {
	struct pmeclock_msg hdr;
	uint64_t	samples, lost;
	uint64_t	time;
};

#endif /* PMECLOCK_PROTO_H */
