/*
 * heapsrc.c - a pmeclock -e alloc run (HEAP records) as a source of
 * EV_HEAP events: a row per process, an event each time its heap
 * changed whose value is its live bytes then, as pmehisto -V heap
 * counts them (histo/heap.c's heap_curve(): the largest value of a row
 * is the process's peak, its last what it ended with).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"
#include "../histo/histo.h"	/* heap_curve() */

/* A row: a process, named as it was last. */
struct hrow {
	uint32_t	 pid;
	char		 comm[64];
};

struct hpass {
	struct pme_vec	 ev;		/* struct pme_ev */
	struct pme_vec	 rows;		/* struct hrow */
	struct pme_error *err;
};

static int
on_bytes(void *arg, uint32_t pid, const char *comm, uint64_t time,
    uint64_t bytes)
{
	struct hpass *h = arg;
	struct pme_ev *e;
	struct hrow *p;
	size_t r;

	for (r = h->rows.n; r-- > 0;)
		if (PME_VEC_AT(&h->rows, struct hrow, r).pid == pid)
			break;
	if (r == (size_t)-1) {
		if ((p = pme_vec_push(&h->rows)) == NULL)
			return pme_setnomem(h->err), 1;
		p->pid = pid;
		p->comm[0] = '\0';
		r = h->rows.n - 1;
	}
	p = &PME_VEC_AT(&h->rows, struct hrow, r);
	if (comm[0] != '\0')
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
	if ((e = pme_vec_push(&h->ev)) == NULL)
		return pme_setnomem(h->err), 1;
	*e = (struct pme_ev){ time, (int64_t)bytes, SRC_EV_HEAP,
	    (uint32_t)r };
	return 0;
}

/*
 * The events by row, each row's in the order its heap changed (a
 * stable bucketing of the file's order), a time earlier than the row's
 * previous one (threads' clocks read out of order) held at it: the
 * row's values are the heap's in turn, its last the heap's last.
 */
static int
by_row(struct src *s, struct hpass *h)
{
	size_t nr = h->rows.n, *at;
	struct pme_ev *v = h->ev.v;

	if ((at = calloc(nr + 1, sizeof(*at))) == NULL ||
	    (s->ev = calloc(h->ev.n + 1, sizeof(*s->ev))) == NULL) {
		free(at);
		return -1;
	}
	for (size_t i = 0; i < h->ev.n; i++)
		at[v[i].proc + 1]++;
	for (size_t r = 1; r <= nr; r++)
		at[r] += at[r - 1];
	/* Zeroed: a slot of another row not yet filled is row 0's at time
	 * 0, which no row after 0 takes for its own. */
	for (size_t i = 0; i < h->ev.n; i++) {
		struct pme_ev *e = &s->ev[at[v[i].proc]++];

		*e = v[i];
		if (e > s->ev && e[-1].proc == e->proc && e->time < e[-1].time)
			e->time = e[-1].time;
	}
	s->nev = h->ev.n;
	free(at);
	return 0;
}

/* Rows named "NAME pid N" as pmehisto's processes (the name the
 * process had last; "pid N" when the record names none), the events by
 * row. */
static int
finish(struct src *s, struct hpass *h)
{
	char buf[128];

	s->nrowname = h->rows.n;
	if ((s->rowname = calloc(h->rows.n + 1, sizeof(*s->rowname))) == NULL)
		return -1;
	for (size_t i = 0; i < h->rows.n; i++) {
		const struct hrow *w = &PME_VEC_AT(&h->rows, struct hrow, i);

		snprintf(buf, sizeof(buf), "%s%spid %u", w->comm,
		    w->comm[0] != '\0' ? " " : "", w->pid);
		if ((s->rowname[i] = strdup(buf)) == NULL)
			return -1;
	}
	return by_row(s, h);
}

int
src_open_heap(struct src *s, const char *path, struct pme_error *err)
{
	struct hpass h = { .err = err };
	int rc = -1;

	memset(s, 0, sizeof(*s));
	s->path = path;
	s->heap = 1;
	pme_vec_init(&h.ev, sizeof(struct pme_ev));
	pme_vec_init(&h.rows, sizeof(struct hrow));
	if (heap_curve(path, on_bytes, &h, err) == -1)
		goto out;
	if (finish(s, &h) == -1) {
		pme_setnomem(err);
		goto out;
	}
	src_whole_run(s);
	rc = 0;
out:
	pme_vec_free(&h.ev);
	pme_vec_free(&h.rows);
	if (rc == -1)
		src_close(s);
	return rc;
}
