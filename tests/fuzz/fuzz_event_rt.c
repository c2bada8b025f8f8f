/*
 * fuzz_event_rt.c - libFuzzer round trip of the event file (events.sim):
 * whatever the reader takes (as it comes, or with its CRCs made good) is
 * written again through the writer, the event API of pme_event(3), and
 * read back.  What that API can say must come back as it was read:
 *   - every event, in order, with its time, value, processor and the name
 *     of its type (the writer numbers types itself, and keeps those of
 *     earlier files registered), and the run's event count, first and
 *     last times from the events themselves, and its processor count;
 *   - the metrics, arrays and parameters, in order, bit for bit;
 *   - the graph specifications, in order;
 *   - the processor names (of processors below 65536);
 *   - the time unit and the clock-time flag;
 *   - the sub-states past the four defaults, each with its name, layer,
 *     colours (a colour of 0 is the writer's choice; an opaque state's
 *     second colour is its first) and co-state;
 * and a name or value the API refuses (a type name of more than 255
 * bytes, an empty name, a metric array of more than a million values)
 * must be refused, each refusal counted in the run's failures.  The
 * histometrics are not in the round trip: the writer computes them from
 * samples at the close, and has no call that takes counts.  `make fuzz`
 * builds and runs it.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pme_event.h"
#include "crcfix.h"

#define MAXNAMED	65536u	/* processors whose names are compared */

static char dir[] = "/tmp/pme-fuzz-ert.XXXXXX", *made;

struct evs {
	struct pme_ev	*v;
	size_t		 n, cap;
};

static int
collect(const struct pme_ev *ev, size_t n, void *arg)
{
	struct evs *e = arg;
	struct pme_ev *v;

	if (e->n + n > e->cap) {
		e->cap = (e->n + n) * 2;
		if ((v = realloc(e->v, e->cap * sizeof(*v))) == NULL)
			abort();
		e->v = v;
	}
	memcpy(e->v + e->n, ev, n * sizeof(*ev));
	e->n += n;
	return 0;
}

static const char *
type_name(const struct pme_evtype *t, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].id == id)
			return t[i].name;
	return NULL;
}

static int
valid_name(const char *s, size_t max)
{
	return s != NULL && *s != '\0' && strlen(s) <= max;
}

static int
same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

/* The sub-states a wrote past the defaults, registered again; *fails
 * counts the refusals.  map[i]: the new id of a's state i, or 0. */
static void
states_out(const struct pme_state *st, size_t n, uint32_t *map,
    uint64_t *fails)
{
	uint32_t costate, nreg0 = 0, *nreg = &nreg0;
	int takes;

	for (size_t i = 0; i < n; i++) {
		map[i] = 0;
		if (st[i].id <= PME_STATE_BARRIER)
			continue;
		costate = st[i].costate;
		if (costate > PME_STATE_BARRIER) {
			costate = 0;
			for (size_t k = 0; k < i; k++)
				if (st[k].id == st[i].costate)
					costate = map[k];
			if (costate == 0)
				costate = UINT32_MAX;	/* refused */
		}
		takes = costate != UINT32_MAX && !isnan(st[i].layer) &&
		    fabs((double)st[i].primary) <= 1e9 &&
		    fabs((double)st[i].secondary) <= 1e9;
		map[i] = pme_state_register(st[i].primary, st[i].secondary,
		    costate, st[i].layer, st[i].name);
		if (map[i] == PME_NONE) {
			(*fails)++;
			map[i] = 0;
			/* Refused what it takes: only past its 4096 states. */
			if (takes && ++*nreg < 4096 - PME_STATE_BARRIER)
				abort();
		} else if (!takes)
			abort();
		else
			++*nreg;
	}
}

static void
states_check(const struct pme_state *a, size_t na, const uint32_t *map,
    const struct pme_state *b, size_t nb)
{
	for (size_t i = 0; i < na; i++) {
		const struct pme_state *s = NULL;

		if (map[i] == 0)
			continue;
		for (size_t k = 0; k < nb; k++)
			if (b[k].id == map[i])
				s = &b[k];
		if (s == NULL || strcmp(s->name, a[i].name) != 0 ||
		    !same_bits(s->layer, a[i].layer) ||
		    (a[i].primary != 0 && s->primary != a[i].primary) ||
		    (a[i].costate == 0 && s->secondary != s->primary) ||
		    (a[i].costate != 0 && a[i].secondary != 0 &&
		    s->secondary != a[i].secondary) ||
		    (a[i].costate <= PME_STATE_BARRIER &&
		    s->costate != a[i].costate))
			abort();
	}
}

static void
metrics_check(const struct pme_metric *a, size_t na,
    const struct pme_metric *b, size_t nb)
{
	size_t k = 0;

	for (size_t i = 0; i < na; i++) {
		if (!valid_name(a[i].name, 4096) ||
		    (a[i].kind == PME_METRIC_ARRAY && a[i].n > 1000000))
			continue;
		if (k >= nb || b[k].kind != a[i].kind ||
		    strcmp(b[k].name, a[i].name) != 0)
			abort();
		switch (a[i].kind) {
		case PME_METRIC_SCALAR:
			if (!same_bits(b[k].value, a[i].value))
				abort();
			break;
		case PME_METRIC_ARRAY:
			if (b[k].n != a[i].n || (a[i].n > 0 &&
			    memcmp(b[k].v, a[i].v, a[i].n * 8) != 0))
				abort();
			break;
		default:
			if (strcmp(b[k].text, a[i].text) != 0)
				abort();
		}
		k++;
	}
	if (k != nb)
		abort();
}

static void
one(const uint8_t *data, size_t size)
{
	struct pme_eventfile *a, *b;
	const struct pme_run *ra, *rb;
	const struct pme_evtype *ta, *tb;
	const struct pme_state *sa, *sb;
	const struct pme_metric *ma, *mb;
	const char *const *pa, *const *pb;
	struct evs ea = { 0 }, eb = { 0 };
	struct pme_error err;
	uint64_t fails = 0, first = 0, last = 0;
	uint32_t *newid, *smap, maxp = 0, id;
	size_t nta, ntb, nsa, nsb, nma, nmb, npa, npb, i, k;
	const char *name, *nb;
	char path[64];

	memset(&err, 0, sizeof(err));
	if ((a = pme_eventfile_mem(data, size, "fuzz", &err)) == NULL)
		return;
	if (pme_eventfile_events(a, collect, &ea, &err) != 0) {
		free(ea.v);
		pme_eventfile_close(a);
		return;
	}
	ra = pme_eventfile_run(a);
	nta = pme_eventfile_types(a, &ta);
	nsa = pme_eventfile_states(a, &sa);
	nma = pme_eventfile_metrics(a, &ma);
	npa = pme_eventfile_specs(a, &pa);
	snprintf(path, sizeof(path), "%s/a.sim", made);
	if (pme_event_open(path, ra->flags & PME_RUN_CLOCKTIME ?
	    PME_EVENT_CLOCKTIME : 0, &err) == -1)
		abort();
	/* Types, then events of the types that have a name it takes. */
	if ((newid = calloc(nta + 1, sizeof(*newid))) == NULL ||
	    (smap = calloc(nsa + 1, sizeof(*smap))) == NULL)
		abort();
	for (i = 0; i < nta; i++) {
		newid[i] = pme_event_type(ta[i].name);
		if ((newid[i] == PME_NONE) != !valid_name(ta[i].name, 255))
			abort();
		fails += newid[i] == PME_NONE;
	}
	k = 0;
	for (i = 0; i < ea.n; i++) {
		const struct pme_ev *e = &ea.v[i];

		id = PME_NONE;
		for (size_t t = 0; t < nta; t++)
			if (ta[t].id == e->type)
				id = newid[t];
		if (id == PME_NONE)
			continue;
		pme_event_post(id, e->proc, e->time, e->value);
		ea.v[k] = *e;
		ea.v[k++].type = id;	/* the new id, for the check */
		if (k == 1 || e->time < first)
			first = e->time;
		if (k == 1 || e->time > last)
			last = e->time;
		if (e->proc != UINT32_MAX && e->proc + 1 > maxp)
			maxp = e->proc + 1;
	}
	ea.n = k;
	for (i = 0; i < nma; i++) {
		int rc;

		if (ma[i].kind == PME_METRIC_SCALAR)
			rc = pme_metric(ma[i].name, ma[i].value);
		else if (ma[i].kind == PME_METRIC_ARRAY)
			rc = pme_metric_array(ma[i].name, ma[i].v, ma[i].n);
		else
			rc = pme_param(ma[i].name, ma[i].text);
		fails += rc == -1;
	}
	for (i = 0; i < npa; i++)
		if (pme_graph_spec(pa[i]) == -1)
			abort();
	for (uint32_t p = 0; p < MAXNAMED; p++)
		if ((name = pme_eventfile_proc_name(a, p)) != NULL)
			fails += pme_event_proc_name(p, name) == -1;
	if (strcmp(ra->unit, ra->flags & PME_RUN_CLOCKTIME ? "ns" :
	    "cycles") != 0)
		fails += pme_event_unit(ra->unit) == -1;
	if (ra->nproc != 0 && pme_event_processors(ra->nproc) == -1)
		abort();
	states_out(sa, nsa, smap, &fails);
	if (pme_event_close(&err) == -1)
		abort();

	if ((b = pme_eventfile_open(path, &err)) == NULL ||
	    pme_eventfile_events(b, collect, &eb, &err) != 0)
		abort();
	rb = pme_eventfile_run(b);
	ntb = pme_eventfile_types(b, &tb);
	nsb = pme_eventfile_states(b, &sb);
	nmb = pme_eventfile_metrics(b, &mb);
	npb = pme_eventfile_specs(b, &pb);
	/* The events, by their types' names. */
	if (eb.n != ea.n || rb->events != ea.n)
		abort();
	for (i = 0; i < ea.n; i++) {
		const struct pme_ev *x = &ea.v[i], *y = &eb.v[i];

		if (x->time != y->time || x->value != y->value ||
		    x->proc != y->proc || x->type != y->type ||
		    (nb = type_name(tb, ntb, y->type)) == NULL)
			abort();
	}
	for (i = 0; i < nta; i++)
		if (newid[i] != PME_NONE && ((nb = type_name(tb, ntb,
		    newid[i])) == NULL || strcmp(nb, ta[i].name) != 0))
			abort();
	if (ea.n > 0 && (rb->first != first || rb->last != last))
		abort();
	if (rb->nproc != (ra->nproc > maxp ? ra->nproc : maxp))
		abort();
	if ((rb->flags & PME_RUN_CLOCKTIME) != (ra->flags & PME_RUN_CLOCKTIME)
	    || !(rb->flags & PME_RUN_COMPLETE))
		abort();
	if (valid_name(ra->unit, 4096) ? strcmp(rb->unit, ra->unit) != 0 :
	    strcmp(rb->unit, ra->flags & PME_RUN_CLOCKTIME ? "ns" :
	    "cycles") != 0)
		abort();
	if (rb->failed != fails || (fails > 0) != (rb->failure != NULL))
		abort();
	metrics_check(ma, nma, mb, nmb);
	if (npb != npa)
		abort();
	for (i = 0; i < npa; i++)
		if (strcmp(pa[i], pb[i]) != 0)
			abort();
	for (uint32_t p = 0; p < MAXNAMED; p++) {
		name = pme_eventfile_proc_name(a, p);
		nb = pme_eventfile_proc_name(b, p);
		if (valid_name(name, 4096) ? nb == NULL || strcmp(name, nb) :
		    nb != NULL)
			abort();
	}
	states_check(sa, nsa, smap, sb, nsb);
	pme_eventfile_close(b);
	pme_eventfile_close(a);
	unlink(path);
	free(newid);
	free(smap);
	free(ea.v);
	free(eb.v);
}

static void
cleanup(void)
{
	rmdir(made);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (made == NULL) {
		if ((made = mkdtemp(dir)) == NULL)
			abort();
		atexit(cleanup);
	}
	with_crcs_fixed(data, size, one);
	return 0;
}
