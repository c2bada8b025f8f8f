/*
 * evfmt.h - libpme internals: the chunk types of event files (pme(5))
 * and the parts of the event writer its modules share.  Not installed.
 */
#ifndef PME_EVFMT_H
#define PME_EVFMT_H

#include <stddef.h>
#include <stdint.h>

#include "pme.h"
#include "util.h"

#define EV_CHUNK_INFO	PME_FOURCC('E', 'I', 'N', 'F')	/* run information */
#define EV_CHUNK_TYPE	PME_FOURCC('E', 'T', 'Y', 'P')	/* an event type */
#define EV_CHUNK_STATE	PME_FOURCC('S', 'D', 'E', 'F')	/* a sub-state */
#define EV_CHUNK_SPEC	PME_FOURCC('G', 'S', 'P', 'C')	/* graph spec text */
#define EV_CHUNK_PROC	PME_FOURCC('P', 'N', 'A', 'M')	/* a processor's name */
#define EV_CHUNK_METRIC	PME_FOURCC('M', 'E', 'T', 'R')	/* metric, parameter */
#define EV_CHUNK_HISTO	PME_FOURCC('H', 'M', 'E', 'T')	/* a histometric */
#define EV_CHUNK_EVENTS	PME_FOURCC('E', 'V', 'T', 'S')	/* a buffer of events */

/* The EVTS header: thread, count, first and last time, highest proc. */
#define EV_EVTS_HEAD	28
/* The most events an EVTS chunk holds, and its largest payload. */
#define EV_EVTS_MAX	4096u
#define EV_EVTS_BYTES	(EV_EVTS_HEAD + EV_EVTS_MAX * 4 * 10)

static inline void
ev_put_f64(struct pme_buf *b, double d)
{
	uint64_t u;

	__builtin_memcpy(&u, &d, sizeof(u));
	pme_buf_u64(b, u);
}

/* Writes a chunk of the open file under the writer's lock; -1 (and the
 * failure counted) when none is open or the write fails. */
int	 ev_chunk(uint32_t type, const struct pme_buf *b);
/* Records a failure of a writing call: its message for
 * pme_event_error(), counted in the file.  Returns -1. */
int	 ev_fail(const char *fmt, ...) PME_PRINTF(1, 2);
/* Opens events.sim when no file was ever opened; 0 when one is open. */
int	 ev_ensure(void);
/* The calling thread's time: its latest event's, or the clock's. */
uint64_t ev_now(void);
/* Posting a state colour (the state machine's output). */
void	 ev_post_state(uint32_t proc, uint64_t time, int32_t colour);

/* The state machine and histometrics (evstate.c), at the close:
 * writes pending states, then the histometrics' chunks. */
void	 ev_state_flush(void);
void	 ev_histo_flush(void);
/* Forgets every state and histometric (a new file). */
void	 ev_state_reset(void);

#endif /* PME_EVFMT_H */
