/*
 * measure.c - pmehisto -M: which of a run's events a report counts.  A
 * sample file names its events (pme(5), EVTS) and each sample its event;
 * a file of format 1.0 has one, the clock its header names.  Every run
 * read must have the measure chosen, and runs are only added when they
 * measure the same thing: without -M, the clock (or the run's only
 * event, or its first), and the same in every file.
 */
#include <stdlib.h>
#include <string.h>

#include "histo.h"
#include "measure.h"

/* Event i of header h, into e (a 1.0 file's clock from method, event and
 * period). */
static void
event_of(const struct pme_sample_header *h, uint32_t i,
    struct pme_sample_event *e)
{
	const struct pme_evdef *d;

	if (h->nevents > 0) {
		*e = h->events[i];
		return;
	}
	memset(e, 0, sizeof(*e));
	d = pme_ev_legacy(h->event);
	e->name = d != NULL ? d->name : "cpu-clock";
	e->unit = "ns";
	e->kind = PME_EV_CLOCK;
	e->period = h->period;
}

/* The index of the event named name in h (an alias of perf's too), or
 * UINT32_MAX. */
static uint32_t
find(const struct pme_sample_header *h, const char *name)
{
	const struct pme_evdef *d = pme_ev_find(name);
	struct pme_sample_event e;
	uint32_t i, n = h->nevents > 0 ? h->nevents : 1;

	if (d != NULL)
		name = d->name;
	for (i = 0; i < n; i++) {
		event_of(h, i, &e);
		if (strcmp(e.name, name) == 0)
			return i;
	}
	return UINT32_MAX;
}

/* The default: the clock, else the first event. */
static uint32_t
default_index(const struct pme_sample_header *h)
{
	struct pme_sample_event e;
	uint32_t i;

	for (i = 0; i < h->nevents; i++) {
		event_of(h, i, &e);
		if (e.kind == PME_EV_CLOCK)
			return i;
	}
	return 0;
}

/* The run's events, "cpu-clock, page-faults", into buf. */
static void
names(const struct pme_sample_header *h, char *buf, size_t len)
{
	struct pme_sample_event e;
	uint32_t i, n = h->nevents > 0 ? h->nevents : 1;
	size_t at = 0;

	buf[0] = '\0';
	for (i = 0; i < n && at < len; i++) {
		event_of(h, i, &e);
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
		    i > 0 ? ", " : "", e.name);
	}
}

int
measure_run(struct measure *m, const struct pme_sample_header *h,
    const char *path, struct pme_error *err)
{
	struct pme_sample_event e;
	char list[1024];
	uint32_t i;

	i = m->want != NULL ? find(h, m->want) : default_index(h);
	if (i == UINT32_MAX) {
		names(h, list, sizeof(list));
		return histo_err(err, PME_EINVAL, "'%s': -M %s: no such "
		    "measure in this run (it measures %s)", path, m->want,
		    list);
	}
	event_of(h, i, &e);
	if (m->name[0] != '\0' && strcmp(m->name, e.name) != 0)
		return histo_err(err, PME_EINVAL, "'%s': measures %s, an "
		    "earlier file %s: counts of different measures are not "
		    "added (choose one with -M)", path, e.name, m->name);
	if (m->name[0] == '\0') {
		snprintf(m->name, sizeof(m->name), "%s", e.name);
		snprintf(m->unit, sizeof(m->unit), "%s", e.unit);
		m->kind = e.kind;
		m->period = e.period;
		m->freq = (e.flags & PME_SEV_FREQ) != 0;
	} else if (m->period != e.period)
		m->period = 0;	/* the runs' periods differ */
	m->index = i;
	m->all = h->nevents <= 1;
	return 0;
}

size_t
measure_pick(struct measure *m, const struct pme_sample *s, size_t n,
    const struct pme_sample **out)
{
	size_t i, k;

	*out = s;
	if (m->all) {
		for (i = 0; i < n; i++)
			m->events += s[i].weight;
		return n;
	}
	if (n > m->cap) {
		free(m->buf);
		m->cap = 0;
		if ((m->buf = malloc(n * sizeof(*m->buf))) == NULL)
			return SIZE_MAX;
		m->cap = n;
	}
	for (i = k = 0; i < n; i++)
		if (s[i].event == m->index) {
			m->buf[k++] = s[i];
			m->events += s[i].weight;
		}
	*out = m->buf;
	return k;
}

int
measure_clock(const struct measure *m)
{
	return m->name[0] == '\0' || m->kind == PME_EV_CLOCK;
}

const char *
measure_says(const char *name)
{
	const struct pme_evdef *d;

	if (name == NULL)
		return NULL;
	if (wall_measure(name) != NULL)
		return wall_measure(name);
	d = pme_ev_find(name);
	return d != NULL && d->kind == PME_EV_HEAP ? d->what : NULL;
}

const char *
measure_amount(const char *name, const char *unit)
{
	const struct pme_evdef *d;

	if (name == NULL || unit == NULL || (wall_measure(name) == NULL &&
	    ((d = pme_ev_find(name)) == NULL || d->kind != PME_EV_HEAP)))
		return NULL;
	return strcmp(unit, "ns") == 0 || strcmp(unit, "bytes") == 0 ? unit :
	    NULL;
}

void
measure_free(struct measure *m)
{
	free(m->buf);
	m->buf = NULL;
	m->cap = 0;
}
