/*
 * evstate.c - the Proteus state events and histometrics of pme_event(3):
 * sub-states with colours, co-states and layers turned into one colour
 * per processor, and histograms of sampled values, written to the event
 * file at its close.
 *
 * The state machine keeps, per processor, a counter per sub-state; a
 * change recomputes the colour from the active sub-state of the highest
 * layer (on a tie, the one registered last) by the seed's rule: opaque,
 * its primary colour; translucent, its secondary colour when its
 * co-state is on, else its primary.  One lock guards it: stateEvent()
 * is not the path pme_event_post() is.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pme_event.h"
#include "evfmt.h"
#include "util.h"

struct sub {
	int32_t		 primary, secondary;
	uint32_t	 costate;
	double		 layer;
	int64_t		 resolution;	/* -1: the default */
};

struct proc {
	int32_t		*count;		/* per sub-state */
	uint32_t	 ncount;
	int32_t		 written;	/* colour last written, -1: none */
	int32_t		 cur;		/* colour now (written or pending) */
	int		 pending;
	uint64_t	 ptime;		/* the pending colour's time */
	int32_t		 pcolour;
	uint32_t	 pstate;	/* its principal sub-state */
};

#define MAXPROC		(1u << 20)
#define MAXSTATES	4096u

static struct {
	pthread_mutex_t	 lock;
	struct sub	*sub;		/* [0] unused */
	uint32_t	 nsub;
	uint32_t	*order;		/* sub-states by layer, highest first */
	int32_t		 nextcolour;
	struct proc	*proc;
	uint32_t	 nproc;
} s = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* -------------------------------------------------------- sub-states */

static int
by_layer(const void *a, const void *b)
{
	const struct sub *x = &s.sub[*(const uint32_t *)a];
	const struct sub *y = &s.sub[*(const uint32_t *)b];

	if (x->layer != y->layer)
		return x->layer > y->layer ? -1 : 1;
	return *(const uint32_t *)a > *(const uint32_t *)b ? -1 : 1;
}

static int32_t
colour_of(double c)
{
	if (c == 0)
		return s.nextcolour++;
	return (int32_t)(c < 0 ? c - 0.5 : c + 0.5);	/* no libm */
}

/* Adds a sub-state; literal takes the colours as they are (0 too). */
static uint32_t
add_locked(double primary, double secondary, uint32_t costate, double layer,
    const char *name, int literal)
{
	struct sub *ns;
	uint32_t *no, id = s.nsub ? s.nsub : 1;
	struct pme_buf b = { 0 };
	char buf[32];

	if (id >= MAXSTATES)
		return PME_NONE;
	if ((ns = realloc(s.sub, (id + 1) * sizeof(*ns))) == NULL)
		return PME_NONE;
	s.sub = ns;
	if ((no = realloc(s.order, id * sizeof(*no))) == NULL)
		return PME_NONE;
	s.order = no;
	ns[id].primary = literal ? (int32_t)primary : colour_of(primary);
	ns[id].secondary = costate == 0 ? ns[id].primary : literal ?
	    (int32_t)secondary : colour_of(secondary);
	ns[id].costate = costate;
	ns[id].layer = layer;
	ns[id].resolution = -1;
	s.nsub = id + 1;
	for (uint32_t i = 1; i <= id; i++)
		no[i - 1] = i;
	qsort(no, id, sizeof(*no), by_layer);
	if (name == NULL) {
		snprintf(buf, sizeof(buf), "state %u", id);
		name = buf;
	}
	pme_buf_u32(&b, id);
	pme_buf_u32(&b, (uint32_t)ns[id].primary);
	pme_buf_u32(&b, (uint32_t)ns[id].secondary);
	pme_buf_u32(&b, costate);
	ev_put_f64(&b, layer);
	pme_buf_str(&b, name);
	ev_chunk(EV_CHUNK_STATE, &b);
	pme_buf_free(&b);
	return id;
}

void
ev_state_reset(void)
{
	pthread_mutex_lock(&s.lock);
	for (uint32_t i = 0; i < s.nproc; i++)
		free(s.proc[i].count);
	free(s.proc);
	free(s.sub);
	free(s.order);
	s.sub = NULL;
	s.order = NULL;
	s.proc = NULL;
	s.nsub = s.nproc = 0;
	s.nextcolour = PME_COLOR_USER;
	/* The seed's default sub-states: idle (always on, under all),
	 * busy, getting a lock, and the barrier, translucent over busy. */
	add_locked(0, 0, 0, -1, "Idle", 1);
	add_locked(1, 1, 0, 1, "Busy", 1);
	add_locked(2, 2, 0, 100, "Getting lock", 1);
	add_locked(3, 4, PME_STATE_BUSY, 100, "Barrier", 1);
	pthread_mutex_unlock(&s.lock);
}

uint32_t
pme_state_register(double primary, double secondary, uint32_t costate,
    double layer, const char *name)
{
	uint32_t id;

	if (ev_ensure() == -1)
		return PME_NONE;
	if (isnan(primary) || isnan(secondary) || isnan(layer) ||
	    fabs(primary) > 1e9 || fabs(secondary) > 1e9)
		return ev_fail("stateRegister: colours and layer must be "
		    "numbers of at most 1e9"), PME_NONE;
	pthread_mutex_lock(&s.lock);
	if (costate != 0 && costate >= s.nsub) {
		pthread_mutex_unlock(&s.lock);
		return ev_fail("stateRegister: no sub-state %u for the "
		    "co-state", costate), PME_NONE;
	}
	id = add_locked(primary, secondary, costate, layer, name, 0);
	pthread_mutex_unlock(&s.lock);
	if (id == PME_NONE)
		ev_fail("stateRegister: out of memory or more than %u "
		    "sub-states", MAXSTATES);
	return id;
}

int
pme_state_resolution(uint32_t state, int64_t threshold)
{
	pthread_mutex_lock(&s.lock);
	if (state == 0 || state >= s.nsub) {
		pthread_mutex_unlock(&s.lock);
		return ev_fail("stateSetResolution: no sub-state %u", state);
	}
	s.sub[state].resolution = threshold < 0 ? 0 : threshold;
	pthread_mutex_unlock(&s.lock);
	return 0;
}

/* ---------------------------------------------------- the state machine */

static struct proc *
proc_locked(uint32_t p)
{
	struct proc *np, *pr;

	if (p >= MAXPROC)
		return NULL;
	if (p >= s.nproc) {
		uint32_t n = p + 1 > s.nproc * 2 ? p + 1 : s.nproc * 2;

		if ((np = realloc(s.proc, n * sizeof(*np))) == NULL)
			return NULL;
		memset(np + s.nproc, 0, (n - s.nproc) * sizeof(*np));
		for (uint32_t i = s.nproc; i < n; i++)
			np[i].written = np[i].cur = -1;
		s.proc = np;
		s.nproc = n;
	}
	pr = &s.proc[p];
	if (pr->ncount < s.nsub) {
		int32_t *nc = realloc(pr->count, s.nsub * sizeof(*nc));

		if (nc == NULL)
			return NULL;
		memset(nc + pr->ncount, 0, (s.nsub - pr->ncount) * sizeof(*nc));
		if (pr->ncount == 0)
			nc[PME_STATE_IDLE] = 1;
		pr->count = nc;
		pr->ncount = s.nsub;
	}
	return pr;
}

/* The colour of pr's state and its principal sub-state (0: none on). */
static int32_t
colour_now(const struct proc *pr, uint32_t *principal)
{
	for (uint32_t i = 0; i + 1 < s.nsub; i++) {
		uint32_t id = s.order[i];
		const struct sub *sb = &s.sub[id];

		if (pr->count[id] <= 0)
			continue;
		*principal = id;
		if (sb->costate == 0)
			return sb->primary;
		return pr->count[sb->costate] > 0 ? sb->secondary :
		    sb->primary;
	}
	*principal = 0;
	return 0;
}

static int64_t
resolution(uint32_t id)
{
	int64_t r = id != 0 ? s.sub[id].resolution : -1;

	return r >= 0 ? r : pme_sev_default_resolution;
}

/* Posts colour c of sub-state id at time t on processor p, through the
 * pending state when resolutions filter short states. */
static void
change_locked(uint32_t p, struct proc *pr, int32_t c, uint32_t id,
    uint64_t t)
{
	if (c == pr->cur)
		return;
	if (pr->pending) {
		pr->pending = 0;
		if (t - pr->ptime >= (uint64_t)resolution(pr->pstate)) {
			ev_post_state(p, pr->ptime, pr->pcolour);
			pr->written = pr->pcolour;
		}
	}
	pr->cur = c;
	if (c == pr->written)
		return;
	if (resolution(id) > 0) {
		pr->pending = 1;
		pr->ptime = t;
		pr->pcolour = c;
		pr->pstate = id;
		return;
	}
	ev_post_state(p, t, c);
	pr->written = c;
}

int
pme_state_event(uint32_t state, uint32_t proc, uint64_t time,
    enum pme_state_change change)
{
	struct proc *pr;
	uint32_t id;
	int32_t c;

	if (ev_ensure() == -1)
		return -1;
	pthread_mutex_lock(&s.lock);
	if (state == 0 || state >= s.nsub) {
		pthread_mutex_unlock(&s.lock);
		return ev_fail("stateEvent: no sub-state %u", state);
	}
	if ((pr = proc_locked(proc)) == NULL) {
		pthread_mutex_unlock(&s.lock);
		return ev_fail("stateEvent: processor %u: out of memory or "
		    "above %u", proc, MAXPROC - 1);
	}
	switch (change) {
	case PME_STATE_OFF:
		pr->count[state] = 0;
		break;
	case PME_STATE_ON:
		pr->count[state] = 1;
		break;
	case PME_STATE_ENTER:
		pr->count[state]++;
		break;
	case PME_STATE_EXIT:
		if (pr->count[state] <= 0) {
			pthread_mutex_unlock(&s.lock);
			return ev_fail("stateEvent: processor %u: exit from "
			    "sub-state %u without an enter", proc, state);
		}
		pr->count[state]--;
		break;
	default:
		pthread_mutex_unlock(&s.lock);
		return ev_fail("stateEvent: bad change %d", (int)change);
	}
	c = colour_now(pr, &id);
	change_locked(proc, pr, c, id, time);
	pthread_mutex_unlock(&s.lock);
	return 0;
}

void
ev_state_flush(void)
{
	pthread_mutex_lock(&s.lock);
	for (uint32_t p = 0; p < s.nproc; p++) {
		struct proc *pr = &s.proc[p];

		if (pr->pending) {
			ev_post_state(p, pr->ptime, pr->pcolour);
			pr->written = pr->pcolour;
			pr->pending = 0;
		}
	}
	pthread_mutex_unlock(&s.lock);
}

/* ---------------------------------------------------------- histometrics */

enum hmode { H_AUTO, H_ON, H_OFF, H_AT };

struct hsample {
	uint32_t	 set;
	double		 v;
};

struct hm {
	pthread_mutex_t	 lock;
	char		*name;
	double		 start_at;
	uint32_t	 nsets, nbins;
	uint32_t	 autos;		/* samples to buffer; 0: bins fixed */
	double		 pmin, pmax;	/* percentiles while buffering */
	double		 min, max;
	enum hmode	 mode;
	uint64_t	 at;
	struct hsample	*buf;		/* autos samples, until resolved */
	uint32_t	 nbuf;
	int		 resolved;
	uint64_t	*counts;	/* nsets * (nbins + 2) */
	uint64_t	*n;
	double		*sum, *sumsq, *bsum, *asum;
};

static struct {
	pthread_mutex_t	 lock;
	struct hm	**m;
	int		 n, cap;
} h = { .lock = PTHREAD_MUTEX_INITIALIZER };

#define MAXSETS		(1u << 20)
#define MAXBINS		(1u << 20)
#define MAXAUTO		(1u << 24)

int
pme_histo_new(const char *name, double startAt, int numSets,
    int autoSamples, double minBin, double maxBin, int bins)
{
	struct hm *m;
	size_t cells;
	int id;

	if (ev_ensure() == -1)
		return -1;
	if (name == NULL || *name == '\0' || strlen(name) > 4096)
		return ev_fail("newHistoMetric: a name of 1 to 4096 bytes is "
		    "needed");
	if (numSets < 1 || (unsigned)numSets > MAXSETS || bins < 1 ||
	    (unsigned)bins > MAXBINS || autoSamples < 0 ||
	    (unsigned)autoSamples > MAXAUTO ||
	    (uint64_t)numSets * ((uint64_t)bins + 2) > (1u << 26))
		return ev_fail("newHistoMetric: '%s': %d sets of %d bins, %d "
		    "samples to buffer: out of range", name, numSets, bins,
		    autoSamples);
	if (isnan(minBin) || isnan(maxBin) || isnan(startAt) ||
	    (autoSamples == 0 && !(minBin < maxBin)) ||
	    (autoSamples > 0 && !(0 <= minBin && minBin <= maxBin &&
	    maxBin <= 1)))
		return ev_fail("newHistoMetric: '%s': bad bin range %g to %g",
		    name, minBin, maxBin);
	cells = (size_t)numSets * ((size_t)bins + 2);
	if ((m = calloc(1, sizeof(*m))) == NULL ||
	    (m->name = strdup(name)) == NULL ||
	    (m->counts = calloc(cells, sizeof(*m->counts))) == NULL ||
	    (m->n = calloc(numSets, sizeof(*m->n))) == NULL ||
	    (m->sum = calloc(numSets, sizeof(double))) == NULL ||
	    (m->sumsq = calloc(numSets, sizeof(double))) == NULL ||
	    (m->bsum = calloc(numSets, sizeof(double))) == NULL ||
	    (m->asum = calloc(numSets, sizeof(double))) == NULL ||
	    (autoSamples > 0 && (m->buf = malloc((size_t)autoSamples *
	    sizeof(*m->buf))) == NULL))
		goto nomem;
	pthread_mutex_init(&m->lock, NULL);
	m->start_at = startAt;
	m->nsets = numSets;
	m->nbins = bins;
	m->autos = autoSamples;
	if (autoSamples > 0) {
		m->pmin = minBin;
		m->pmax = maxBin;
	} else {
		m->min = minBin;
		m->max = maxBin;
		m->resolved = 1;
	}
	m->mode = H_AUTO;
	pthread_mutex_lock(&h.lock);
	if (h.n == h.cap) {
		int cap = h.cap ? h.cap * 2 : 8;
		struct hm **nm = realloc(h.m, cap * sizeof(*nm));

		if (nm == NULL) {
			pthread_mutex_unlock(&h.lock);
			goto nomem;
		}
		h.m = nm;
		h.cap = cap;
	}
	id = h.n;
	h.m[h.n++] = m;
	pthread_mutex_unlock(&h.lock);
	return id;
nomem:
	if (m != NULL) {
		free(m->name);
		free(m->counts);
		free(m->n);
		free(m->sum);
		free(m->sumsq);
		free(m->bsum);
		free(m->asum);
		free(m->buf);
		free(m);
	}
	return ev_fail("newHistoMetric: '%s': out of memory", name);
}

static struct hm *
metric(int id, const char *what)
{
	struct hm *m = NULL;

	pthread_mutex_lock(&h.lock);
	if (id >= 0 && id < h.n)
		m = h.m[id];
	pthread_mutex_unlock(&h.lock);
	if (m == NULL)
		ev_fail("%s: no histometric %d", what, id);
	return m;
}

static void
bin_locked(struct hm *m, uint32_t set, double v)
{
	uint64_t *c = m->counts + (size_t)set * (m->nbins + 2);
	double w = m->max - m->min;

	m->n[set]++;
	m->sum[set] += v;
	m->sumsq[set] += v * v;
	if (v < m->min) {
		c[0]++;
		m->bsum[set] += v;
	} else if (v >= m->max) {
		c[m->nbins + 1]++;
		m->asum[set] += v;
	} else {
		uint64_t i = (uint64_t)((v - m->min) / w * m->nbins);

		c[1 + (i < m->nbins ? i : m->nbins - 1)]++;
	}
}

static int
by_value(const void *a, const void *b)
{
	double x = ((const struct hsample *)a)->v;
	double y = ((const struct hsample *)b)->v;

	return x < y ? -1 : x > y;
}

/* Sets the bins from the buffered samples' percentiles, then bins them
 * in the order they came. */
static void
resolve_locked(struct hm *m)
{
	struct hsample *sorted;
	uint32_t n = m->nbuf, i;

	m->resolved = 1;
	if (n == 0) {
		m->min = 0;
		m->max = 1;
		goto done;
	}
	if ((sorted = malloc(n * sizeof(*sorted))) == NULL) {
		/* No room to sort: the whole range of the samples. */
		m->min = m->max = m->buf[0].v;
		for (i = 1; i < n; i++) {
			if (m->buf[i].v < m->min)
				m->min = m->buf[i].v;
			if (m->buf[i].v > m->max)
				m->max = m->buf[i].v;
		}
	} else {
		uint32_t lo, hi;

		memcpy(sorted, m->buf, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), by_value);
		lo = (uint32_t)(m->pmin * n);
		hi = (uint32_t)(m->pmax * n);
		m->min = sorted[lo < n ? lo : n - 1].v;
		m->max = sorted[hi < n ? hi : n - 1].v;
		free(sorted);
	}
	/* All alike: one unit wide, so that they fill the first bin. */
	if (!(m->max > m->min))
		m->max = m->min + 1;
	for (i = 0; i < n; i++)
		bin_locked(m, m->buf[i].set, m->buf[i].v);
done:
	free(m->buf);
	m->buf = NULL;
	m->nbuf = 0;
}

static int
on_locked(struct hm *m)
{
	switch (m->mode) {
	case H_ON:
		return 1;
	case H_OFF:
		return 0;
	case H_AT:
		return ev_now() >= m->at;
	default:
		return (double)ev_now() >= m->start_at;
	}
}

int
pme_histo_sample(int metric_id, int set, double value)
{
	struct hm *m;

	if ((m = metric(metric_id, "histoMetricSample")) == NULL)
		return -1;
	if (set < 0 || (unsigned)set >= m->nsets)
		return ev_fail("histoMetricSample: histometric '%s' has no "
		    "set %d (it has %u)", m->name, set, m->nsets);
	if (isnan(value))
		return ev_fail("histoMetricSample: histometric '%s': a sample "
		    "that is not a number", m->name);
	pthread_mutex_lock(&m->lock);
	if (on_locked(m)) {
		if (m->resolved)
			bin_locked(m, set, value);
		else {
			m->buf[m->nbuf].set = set;
			m->buf[m->nbuf++].v = value;
			if (m->nbuf == m->autos)
				resolve_locked(m);
		}
	}
	pthread_mutex_unlock(&m->lock);
	return 0;
}

static int
set_mode(int id, const char *what, enum hmode mode, uint64_t at)
{
	struct hm *m;

	if ((m = metric(id, what)) == NULL)
		return -1;
	pthread_mutex_lock(&m->lock);
	m->mode = mode;
	m->at = at;
	if (mode == H_AT && ev_now() >= at)
		m->mode = H_ON;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

int
pme_histo_on(int id)
{
	return set_mode(id, "histoMetricOn", H_ON, 0);
}

int
pme_histo_off(int id)
{
	return set_mode(id, "histoMetricOff", H_OFF, 0);
}

int
pme_histo_on_at(int id, uint64_t time)
{
	return set_mode(id, "histoMetricOnAt", H_AT, time);
}

double
pme_histo_average(int id)
{
	struct hm *m;
	double sum = 0;
	uint64_t n = 0;

	if ((m = metric(id, "histoMetricAverage")) == NULL)
		return 0;
	pthread_mutex_lock(&m->lock);
	for (uint32_t i = 0; i < m->nsets; i++) {
		n += m->n[i];
		sum += m->sum[i];
	}
	for (uint32_t i = 0; i < m->nbuf; i++) {
		n++;
		sum += m->buf[i].v;
	}
	pthread_mutex_unlock(&m->lock);
	return n != 0 ? sum / n : 0;
}

void
ev_histo_flush(void)
{
	pthread_mutex_lock(&h.lock);
	for (int id = 0; id < h.n; id++) {
		struct hm *m = h.m[id];
		struct pme_buf b = { 0 };
		size_t cells = (size_t)m->nbins + 2;

		pthread_mutex_lock(&m->lock);
		if (!m->resolved)
			resolve_locked(m);
		pme_buf_str(&b, m->name);
		ev_put_f64(&b, m->start_at);
		pme_buf_u32(&b, m->nsets);
		pme_buf_u32(&b, m->nbins);
		pme_buf_u32(&b, m->autos);
		ev_put_f64(&b, m->min);
		ev_put_f64(&b, m->max);
		for (uint32_t i = 0; i < m->nsets; i++) {
			pme_buf_u64(&b, m->n[i]);
			ev_put_f64(&b, m->sum[i]);
			ev_put_f64(&b, m->sumsq[i]);
			ev_put_f64(&b, m->bsum[i]);
			ev_put_f64(&b, m->asum[i]);
			for (size_t k = 0; k < cells; k++)
				pme_buf_u64(&b, m->counts[i * cells + k]);
		}
		pthread_mutex_unlock(&m->lock);
		ev_chunk(EV_CHUNK_HISTO, &b);
		pme_buf_free(&b);
	}
	pthread_mutex_unlock(&h.lock);
}
