/*
 * reader.c - the perf method's reader thread: it empties the rings into
 * batches as the kernel fills them, and the collector's main thread
 * converts the batches (unwinding -g's stacks) at its own pace.
 *
 * With stacks from the CFI a sample costs the collector some 25 us to
 * unwind, and the kernel nothing to take: 16 busy threads at 10 kHz on
 * two CPUs make 20,000 a second.  One thread that both read and unwound
 * held the CPU for long stretches, got its fair share of it and no more
 * (two seventeenths beside 16 busy threads), and the kernel dropped the
 * samples that no longer fit the rings.  The reader mostly sleeps, so
 * the scheduler runs it as soon as a ring reaches its watermark, and
 * copying a ring out is cheap: the samples wait in memory instead, for
 * as long as the unwinding lags, and the last of them are converted once
 * the command has ended.
 *
 * The backlog is bounded (READER_MAX bytes): beyond it the reader waits
 * for the main thread, the rings fill, and the kernel counts what it
 * drops, as before (pmeclock says "N samples lost").
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "perf.h"

#define READER_MAX	((size_t)1 << 30)	/* bytes waiting */
#define READER_POLL_MS	50

struct reader {
	struct perfstate *ps;
	pthread_t	 thread;
	pthread_mutex_t	 lock;
	pthread_cond_t	 room;		/* the backlog went down */
	int		 ready;		/* eventfd: batches wait */
	int		 stopfd;	/* eventfd: a last reading, then end */
	int		 running;
	int		 failed;	/* out of memory */
	struct batch	*head, *tail;	/* waiting, oldest first */
	struct batch	*spare;		/* converted, for reuse */
	size_t		 bytes;		/* of the batches waiting */
};

/* A batch to fill: a spare one, else a new one; NULL. */
static struct batch *
take_spare(struct reader *rd)
{
	struct batch *b;

	pthread_mutex_lock(&rd->lock);
	if ((b = rd->spare) != NULL)
		rd->spare = b->next;
	pthread_mutex_unlock(&rd->lock);
	if (b == NULL)
		b = calloc(1, sizeof(*b));
	else
		b->nrecs = b->narena = 0;
	if (b != NULL)
		b->next = NULL;
	return b;
}

/* Queues b, or keeps it as a spare when it holds nothing. */
static void
queue(struct reader *rd, struct batch *b)
{
	uint64_t one = 1;

	pthread_mutex_lock(&rd->lock);
	if (b->nrecs == 0) {
		b->next = rd->spare;
		rd->spare = b;
		pthread_mutex_unlock(&rd->lock);
		return;
	}
	if (rd->tail != NULL)
		rd->tail->next = b;
	else
		rd->head = b;
	rd->tail = b;
	rd->bytes += b->caparena;
	pthread_mutex_unlock(&rd->lock);
	(void)write(rd->ready, &one, sizeof(one));
}

/* Waits while the backlog is full, unless told to stop: what the
 * rings hold at the end is read whatever the backlog. */
static void
wait_room(struct reader *rd, struct pollfd *stop)
{
	pthread_mutex_lock(&rd->lock);
	while (rd->bytes >= READER_MAX && poll(stop, 1, 0) == 0)
		pthread_cond_wait(&rd->room, &rd->lock);
	pthread_mutex_unlock(&rd->lock);
}

/* Reads the rings once into a batch and queues it; -1 out of memory. */
static int
read_once(struct reader *rd)
{
	struct batch *b;

	if ((b = take_spare(rd)) == NULL)
		return -1;
	if (perf_read(rd->ps, b) < 0) {
		batch_free(b);
		free(b);
		return -1;
	}
	queue(rd, b);
	return 0;
}

static void *
reader_main(void *arg)
{
	struct reader *rd = arg;
	struct perfstate *ps = rd->ps;
	struct pollfd *pfd;
	int n = ps->nrings, r, stop = 0;

	if ((pfd = calloc((size_t)n + 1, sizeof(*pfd))) == NULL) {
		rd->failed = 1;
		return NULL;
	}
	for (r = 0; r < n; r++) {
		pfd[r].fd = ps->rings[r].fd;
		pfd[r].events = POLLIN;
	}
	pfd[n].fd = rd->stopfd;
	pfd[n].events = POLLIN;
	while (!stop) {
		wait_room(rd, &pfd[n]);
		if (poll(pfd, (nfds_t)n + 1, READER_POLL_MS) < 0 &&
		    errno != EINTR)
			break;
		/* An event whose task has gone reports POLLHUP for good;
		 * its ring is still read. */
		for (r = 0; r < n; r++)
			if (pfd[r].revents & (POLLHUP | POLLERR))
				pfd[r].fd = -1;
		stop = (pfd[n].revents & POLLIN) != 0;
		if (read_once(rd) < 0) {
			rd->failed = 1;
			break;
		}
	}
	free(pfd);
	return NULL;
}

int
reader_start(struct perfstate *ps)
{
	struct reader *rd;
	int e = 0;

	if ((rd = calloc(1, sizeof(*rd))) == NULL)
		return -1;
	rd->ps = ps;
	rd->ready = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rd->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	pthread_mutex_init(&rd->lock, NULL);
	pthread_cond_init(&rd->room, NULL);
	if (rd->ready < 0 || rd->stopfd < 0)
		e = errno;
	else
		e = pthread_create(&rd->thread, NULL, reader_main, rd);
	if (e != 0) {
		reader_free(rd);
		errno = e;
		return -1;
	}
	rd->running = 1;
	ps->rd = rd;
	return 0;
}

void
reader_begin(struct perfstate *ps)
{
	/* Stacks cost enough to convert to need a reader, and wall mode's
	 * switches come fast enough (-w -G fp lost records without it at
	 * 100,000 switches a second). */
	if ((ps->uw != NULL || ps->wall != NULL) && reader_start(ps) < 0 &&
	    ps->o->verbose)
		fprintf(stderr, "%s: no reader thread (%s): the rings are "
		    "read between conversions\n", prog, strerror(errno));
}

int
reader_fd(const struct reader *rd)
{
	return rd->ready;
}

struct batch *
reader_take(struct reader *rd)
{
	struct batch *b;
	uint64_t v;

	(void)read(rd->ready, &v, sizeof(v));
	pthread_mutex_lock(&rd->lock);
	b = rd->head;
	rd->head = rd->tail = NULL;
	pthread_mutex_unlock(&rd->lock);
	return b;
}

void
reader_give(struct reader *rd, struct batch *b)
{
	pthread_mutex_lock(&rd->lock);
	rd->bytes -= rd->bytes < b->caparena ? rd->bytes : b->caparena;
	b->next = rd->spare;
	rd->spare = b;
	pthread_cond_signal(&rd->room);
	pthread_mutex_unlock(&rd->lock);
}

int
reader_stop(struct reader *rd)
{
	uint64_t one = 1;

	if (rd == NULL || !rd->running)
		return 0;
	(void)write(rd->stopfd, &one, sizeof(one));
	pthread_mutex_lock(&rd->lock);
	pthread_cond_signal(&rd->room);
	pthread_mutex_unlock(&rd->lock);
	pthread_join(rd->thread, NULL);
	rd->running = 0;
	return rd->failed ? -1 : 0;
}

static void
free_list(struct batch *b)
{
	struct batch *next;

	for (; b != NULL; b = next) {
		next = b->next;
		batch_free(b);
		free(b);
	}
}

void
reader_free(struct reader *rd)
{
	if (rd == NULL)
		return;
	reader_stop(rd);
	free_list(rd->head);
	free_list(rd->spare);
	if (rd->ready >= 0)
		close(rd->ready);
	if (rd->stopfd >= 0)
		close(rd->stopfd);
	pthread_mutex_destroy(&rd->lock);
	pthread_cond_destroy(&rd->room);
	free(rd);
}
