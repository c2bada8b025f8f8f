/*
 * evread.c - reading event files (pme(5), pme_event(3)): everything but
 * the events at the open, the events streamed a chunk at a time after.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pme_event.h"
#include "evfmt.h"
#include "util.h"
#include "varint.h"

struct pme_eventfile {
	char		*path;
	uint8_t		*mem;		/* standard input, read whole */
	size_t		 memlen;
	struct pme_arena arena;
	struct pme_run	 run;
	struct pme_vec	 types;		/* struct pme_evtype */
	struct pme_vec	 states;	/* struct pme_state */
	struct pme_vec	 histos;	/* struct pme_histo */
	struct pme_vec	 metrics;	/* struct pme_metric */
	struct pme_vec	 specs;		/* const char * */
	struct pme_vec	 procs;		/* const char *, by processor */
	struct pme_ev	*evbuf;		/* EV_EVTS_MAX, for the stream */
	uint32_t	 maxproc;	/* highest in the events + 1 */
	uint32_t	 infoproc;	/* the run information's count */
};

/* Largest payload of each chunk type. */
static size_t
chunk_max(uint32_t type)
{
	switch (type) {
	case EV_CHUNK_EVENTS:
		return EV_EVTS_BYTES;
	case EV_CHUNK_HISTO:
	case EV_CHUNK_METRIC:
	case EV_CHUNK_SPEC:
		return PME_CHUNK_MAX;
	default:
		return 1u << 20;
	}
}

static struct pme_reader *
reopen(struct pme_eventfile *ef, struct pme_error *err)
{
	if (ef->mem != NULL)
		return pme_reader_mem(ef->mem, ef->memlen, ef->path,
		    PME_KIND_EVENT, err);
	return pme_reader_open(ef->path, PME_KIND_EVENT, err);
}

static double
get_f64(struct pme_cur *c)
{
	uint64_t u = pme_cur_u64(c);
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

static int
bad(struct pme_eventfile *ef, const struct pme_chunk *ch, const char *what,
    struct pme_error *err)
{
	return pme_setfmt(err, PME_EFORMAT, ef->path, ch->offset,
	    "bad '%s' chunk: %s", what, "fields do not fit its length");
}

static int
read_info(struct pme_eventfile *ef, struct pme_cur *c)
{
	struct pme_run *r = &ef->run;

	r->flags = pme_cur_u32(c);
	r->utc_offset = (int32_t)pme_cur_u32(c);
	r->start = pme_cur_u64(c);
	r->host_ns = pme_cur_u64(c);
	ef->infoproc = pme_cur_u32(c);
	r->failed = pme_cur_u64(c);
	r->failure = pme_cur_str(c, &ef->arena);
	r->unit = pme_cur_str(c, &ef->arena);
	r->command = pme_cur_str(c, &ef->arena);
	if (r->failure != NULL && *r->failure == '\0')
		r->failure = NULL;
	return c->bad ? -1 : 0;
}

static int
read_type(struct pme_eventfile *ef, struct pme_cur *c)
{
	struct pme_evtype t, *p;

	t.id = pme_cur_u32(c);
	t.name = pme_cur_str(c, &ef->arena);
	if (c->bad || t.id == 0)
		return -1;
	for (size_t i = 0; i < ef->types.n; i++) {
		p = &PME_VEC_AT(&ef->types, struct pme_evtype, i);
		if (p->id == t.id) {
			p->name = t.name;	/* written again: a new open */
			return 0;
		}
	}
	if ((p = pme_vec_push(&ef->types)) == NULL)
		return -2;
	*p = t;
	return 0;
}

static int
read_state(struct pme_eventfile *ef, struct pme_cur *c)
{
	struct pme_state st, *p;

	st.id = pme_cur_u32(c);
	st.primary = (int32_t)pme_cur_u32(c);
	st.secondary = (int32_t)pme_cur_u32(c);
	st.costate = pme_cur_u32(c);
	st.layer = get_f64(c);
	st.name = pme_cur_str(c, &ef->arena);
	if (c->bad || st.id == 0)
		return -1;
	for (size_t i = 0; i < ef->states.n; i++) {
		p = &PME_VEC_AT(&ef->states, struct pme_state, i);
		if (p->id == st.id) {
			*p = st;
			return 0;
		}
	}
	if ((p = pme_vec_push(&ef->states)) == NULL)
		return -2;
	*p = st;
	return 0;
}

static int
read_proc(struct pme_eventfile *ef, struct pme_cur *c)
{
	uint32_t proc = pme_cur_u32(c);
	const char *name = pme_cur_str(c, &ef->arena);

	if (c->bad)
		return -1;
	if (proc >= (1u << 24))
		return 0;	/* a name no row will show */
	while (ef->procs.n <= proc)
		if (pme_vec_push(&ef->procs) == NULL)
			return -2;
	PME_VEC_AT(&ef->procs, const char *, proc) = name;
	return 0;
}

static int
read_metric(struct pme_eventfile *ef, struct pme_cur *c)
{
	struct pme_metric m = { 0 }, *p;
	double *v;

	m.kind = pme_cur_u32(c);
	m.name = pme_cur_str(c, &ef->arena);
	switch (m.kind) {
	case PME_METRIC_SCALAR:
		m.value = get_f64(c);
		break;
	case PME_METRIC_ARRAY:
		m.n = pme_cur_u32(c);
		if (!pme_cur_fits(c, m.n, 8))
			return -1;
		if ((v = pme_arena_alloc(&ef->arena, m.n * 8 + 8)) == NULL)
			return -2;
		for (size_t i = 0; i < m.n; i++)
			v[i] = get_f64(c);
		m.v = v;
		break;
	case PME_METRIC_PARAM:
		m.text = pme_cur_str(c, &ef->arena);
		break;
	default:
		return -1;
	}
	if (c->bad)
		return -1;
	for (size_t i = 0; i < ef->metrics.n; i++) {
		p = &PME_VEC_AT(&ef->metrics, struct pme_metric, i);
		if (p->kind == m.kind && strcmp(p->name, m.name) == 0) {
			*p = m;		/* the last value is kept */
			return 0;
		}
	}
	if ((p = pme_vec_push(&ef->metrics)) == NULL)
		return -2;
	*p = m;
	return 0;
}

static int
read_histo(struct pme_eventfile *ef, struct pme_cur *c)
{
	struct pme_histo hm = { 0 }, *p;
	size_t cells;

	hm.name = pme_cur_str(c, &ef->arena);
	hm.start_at = get_f64(c);
	hm.nsets = pme_cur_u32(c);
	hm.nbins = pme_cur_u32(c);
	hm.auto_samples = pme_cur_u32(c);
	hm.min = get_f64(c);
	hm.max = get_f64(c);
	if (c->bad || hm.nsets == 0 || hm.nbins == 0 || hm.nbins > (1u << 20))
		return -1;
	cells = (size_t)hm.nbins + 2;
	/* n, four sums and the cells per set. */
	if (!pme_cur_fits(c, hm.nsets, 40 + 8 * cells))
		return -1;
	if ((hm.counts = pme_arena_alloc(&ef->arena, hm.nsets * cells * 8))
	    == NULL || (hm.n = pme_arena_alloc(&ef->arena, hm.nsets * 8)) ==
	    NULL || (hm.sum = pme_arena_alloc(&ef->arena, hm.nsets * 8)) ==
	    NULL || (hm.sumsq = pme_arena_alloc(&ef->arena, hm.nsets * 8)) ==
	    NULL || (hm.below_sum = pme_arena_alloc(&ef->arena, hm.nsets * 8))
	    == NULL || (hm.above_sum = pme_arena_alloc(&ef->arena,
	    hm.nsets * 8)) == NULL)
		return -2;
	for (uint32_t s = 0; s < hm.nsets; s++) {
		hm.n[s] = pme_cur_u64(c);
		hm.sum[s] = get_f64(c);
		hm.sumsq[s] = get_f64(c);
		hm.below_sum[s] = get_f64(c);
		hm.above_sum[s] = get_f64(c);
		for (size_t k = 0; k < cells; k++)
			hm.counts[s * cells + k] = pme_cur_u64(c);
	}
	if (c->bad)
		return -1;
	if ((p = pme_vec_push(&ef->histos)) == NULL)
		return -2;
	*p = hm;
	return 0;
}

static int
read_spec(struct pme_eventfile *ef, const struct pme_chunk *ch)
{
	const char **p;
	char *s;

	if (memchr(ch->data, '\0', ch->len) != NULL)
		return -1;
	if ((s = pme_arena_strndup(&ef->arena, (const char *)ch->data,
	    ch->len)) == NULL || (p = pme_vec_push(&ef->specs)) == NULL)
		return -2;
	*p = s;
	return 0;
}

/* The EVTS header alone: times and processors, for the run. */
static int
note_events(struct pme_eventfile *ef, struct pme_reader *r,
    const struct pme_chunk *ch, struct pme_error *err)
{
	uint8_t h[EV_EVTS_HEAD];
	size_t got = 0, k;
	struct pme_cur c;
	uint32_t n, pmax;
	uint64_t tmin, tmax;

	while (got < sizeof(h)) {
		if (pme_reader_read(r, h + got, sizeof(h) - got, &k, err) == -1)
			return err != NULL && err->code == PME_ETRUNC ? 0 : -1;
		if (k == 0)
			return bad(ef, ch, "EVTS", err);
		got += k;
	}
	c = (struct pme_cur){ h, sizeof(h), 0 };
	(void)pme_cur_u32(&c);
	n = pme_cur_u32(&c);
	tmin = pme_cur_u64(&c);
	tmax = pme_cur_u64(&c);
	pmax = pme_cur_u32(&c);
	if (n == 0 || n > EV_EVTS_MAX || tmin > tmax)
		return bad(ef, ch, "EVTS", err);
	if (ef->run.events == 0 || tmin < ef->run.first)
		ef->run.first = tmin;
	if (tmax > ef->run.last)
		ef->run.last = tmax;
	if (pmax + 1 > ef->maxproc && pmax < UINT32_MAX)
		ef->maxproc = pmax + 1;
	ef->run.events += n;
	return 0;
}

static int
read_all(struct pme_eventfile *ef, struct pme_reader *r,
    struct pme_error *err)
{
	struct pme_chunk ch;
	struct pme_cur c;
	int rc;

	while ((rc = pme_reader_next(r, &ch, err)) == 1) {
		const char *what = NULL;

		if (ch.type == EV_CHUNK_EVENTS) {
			if (note_events(ef, r, &ch, err) == -1)
				return -1;
			continue;
		}
		if (ch.type != EV_CHUNK_INFO && ch.type != EV_CHUNK_TYPE &&
		    ch.type != EV_CHUNK_STATE && ch.type != EV_CHUNK_SPEC &&
		    ch.type != EV_CHUNK_PROC && ch.type != EV_CHUNK_METRIC &&
		    ch.type != EV_CHUNK_HISTO)
			continue;	/* unknown: skipped, as pme(5) says */
		if ((rc = pme_reader_payload(r, &ch, chunk_max(ch.type),
		    err)) == -1)
			return -1;
		if (rc == 0)
			break;		/* cut short */
		c = (struct pme_cur){ ch.data, ch.len, 0 };
		switch (ch.type) {
		case EV_CHUNK_INFO:
			rc = read_info(ef, &c), what = "EINF";
			break;
		case EV_CHUNK_TYPE:
			rc = read_type(ef, &c), what = "ETYP";
			break;
		case EV_CHUNK_STATE:
			rc = read_state(ef, &c), what = "SDEF";
			break;
		case EV_CHUNK_SPEC:
			rc = read_spec(ef, &ch), what = "GSPC";
			break;
		case EV_CHUNK_PROC:
			rc = read_proc(ef, &c), what = "PNAM";
			break;
		case EV_CHUNK_METRIC:
			rc = read_metric(ef, &c), what = "METR";
			break;
		default:
			rc = read_histo(ef, &c), what = "HMET";
			break;
		}
		if (rc == -2)
			return pme_setnomem(err);
		if (rc == -1)
			return bad(ef, &ch, what, err);
	}
	if (rc == -1)
		return -1;
	ef->run.lost = pme_reader_lost(r);
	return 0;
}

static int
slurp_stdin(struct pme_eventfile *ef, struct pme_error *err)
{
	size_t cap = 1 << 16;
	ssize_t k;
	uint8_t *p;

	if ((ef->mem = malloc(cap)) == NULL)
		return pme_setnomem(err);
	for (;;) {
		if (ef->memlen == cap) {
			if ((p = realloc(ef->mem, cap *= 2)) == NULL)
				return pme_setnomem(err);
			ef->mem = p;
		}
		k = read(0, ef->mem + ef->memlen, cap - ef->memlen);
		if (k == 0)
			return 0;
		if (k < 0 && errno != EINTR)
			return pme_setsys(err, "-", "read");
		if (k > 0)
			ef->memlen += k;
	}
}

static void
init(struct pme_eventfile *ef)
{
	pme_vec_init(&ef->types, sizeof(struct pme_evtype));
	pme_vec_init(&ef->states, sizeof(struct pme_state));
	pme_vec_init(&ef->histos, sizeof(struct pme_histo));
	pme_vec_init(&ef->metrics, sizeof(struct pme_metric));
	pme_vec_init(&ef->specs, sizeof(const char *));
	pme_vec_init(&ef->procs, sizeof(const char *));
	ef->run.unit = "cycles";
	ef->run.command = "";
}

static void
finish_open(struct pme_eventfile *ef)
{
	if (ef->run.unit == NULL)
		ef->run.unit = "cycles";
	if (ef->run.command == NULL)
		ef->run.command = "";
	ef->run.nproc = ef->infoproc > ef->maxproc ? ef->infoproc :
	    ef->maxproc;
}

struct pme_eventfile *
pme_eventfile_open(const char *path, struct pme_error *err)
{
	struct pme_eventfile *ef;
	struct pme_reader *r = NULL;

	if (path == NULL)
		path = PME_EVENT_FILE;
	if ((ef = calloc(1, sizeof(*ef))) == NULL ||
	    (ef->path = strdup(path)) == NULL) {
		free(ef);
		pme_setnomem(err);
		return NULL;
	}
	init(ef);
	if ((strcmp(path, "-") == 0 && slurp_stdin(ef, err) == -1) ||
	    (r = reopen(ef, err)) == NULL || read_all(ef, r, err) == -1) {
		pme_reader_close(r);
		pme_eventfile_close(ef);
		return NULL;
	}
	pme_reader_close(r);
	finish_open(ef);
	return ef;
}

struct pme_eventfile *
pme_eventfile_mem(const void *buf, size_t len, const char *name,
    struct pme_error *err)
{
	struct pme_eventfile *ef;
	struct pme_reader *r = NULL;

	if ((ef = calloc(1, sizeof(*ef))) == NULL ||
	    (ef->path = strdup(name != NULL ? name : "(memory)")) == NULL ||
	    (ef->mem = malloc(len + 1)) == NULL) {
		if (ef != NULL)
			free(ef->path);
		free(ef);
		pme_setnomem(err);
		return NULL;
	}
	memcpy(ef->mem, buf, len);
	ef->memlen = len;
	init(ef);
	if ((r = reopen(ef, err)) == NULL || read_all(ef, r, err) == -1) {
		pme_reader_close(r);
		pme_eventfile_close(ef);
		return NULL;
	}
	pme_reader_close(r);
	finish_open(ef);
	return ef;
}

void
pme_eventfile_close(struct pme_eventfile *ef)
{
	if (ef == NULL)
		return;
	pme_vec_free(&ef->types);
	pme_vec_free(&ef->states);
	pme_vec_free(&ef->histos);
	pme_vec_free(&ef->metrics);
	pme_vec_free(&ef->specs);
	pme_vec_free(&ef->procs);
	pme_arena_free(&ef->arena);
	free(ef->evbuf);
	free(ef->mem);
	free(ef->path);
	free(ef);
}

const struct pme_run *
pme_eventfile_run(const struct pme_eventfile *ef)
{
	return &ef->run;
}

size_t
pme_eventfile_types(const struct pme_eventfile *ef,
    const struct pme_evtype **out)
{
	*out = ef->types.v;
	return ef->types.n;
}

size_t
pme_eventfile_states(const struct pme_eventfile *ef,
    const struct pme_state **out)
{
	*out = ef->states.v;
	return ef->states.n;
}

size_t
pme_eventfile_histos(const struct pme_eventfile *ef,
    const struct pme_histo **out)
{
	*out = ef->histos.v;
	return ef->histos.n;
}

size_t
pme_eventfile_metrics(const struct pme_eventfile *ef,
    const struct pme_metric **out)
{
	*out = ef->metrics.v;
	return ef->metrics.n;
}

size_t
pme_eventfile_specs(const struct pme_eventfile *ef, const char *const **out)
{
	*out = ef->specs.v;
	return ef->specs.n;
}

const char *
pme_eventfile_proc_name(const struct pme_eventfile *ef, uint32_t proc)
{
	return proc < ef->procs.n ? PME_VEC_AT(&ef->procs, const char *,
	    proc) : NULL;
}

uint32_t
pme_eventfile_type(const struct pme_eventfile *ef, const char *name)
{
	for (size_t i = 0; i < ef->types.n; i++) {
		const struct pme_evtype *t = &PME_VEC_AT(&ef->types,
		    struct pme_evtype, i);

		if (strcmp(t->name, name) == 0)
			return t->id;
	}
	return PME_NONE;
}

/* Decodes an EVTS payload into ef->evbuf; the count, or -1. */
static long
decode(struct pme_eventfile *ef, const struct pme_chunk *ch)
{
	const uint8_t *p = ch->data + EV_EVTS_HEAD, *end = ch->data + ch->len;
	uint64_t prev = 0, type, proc, dt, val;
	uint32_t n;

	if (ch->len < EV_EVTS_HEAD)
		return -1;
	n = pme_get32(ch->data + 4);
	if (n == 0 || n > EV_EVTS_MAX)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		struct pme_ev *e = &ef->evbuf[i];

		if ((p = pme_uv_get(p, end, &type)) == NULL ||
		    (p = pme_uv_get(p, end, &proc)) == NULL ||
		    (p = pme_uv_get(p, end, &dt)) == NULL ||
		    (p = pme_uv_get(p, end, &val)) == NULL ||
		    type > UINT32_MAX || proc > UINT32_MAX)
			return -1;
		prev += pme_unzig(dt);
		e->time = prev;
		e->value = (int64_t)pme_unzig(val);
		e->type = (uint32_t)type;
		e->proc = (uint32_t)proc;
	}
	return p == end ? (long)n : -1;
}

int
pme_eventfile_events(struct pme_eventfile *ef, pme_ev_fn fn, void *arg,
    struct pme_error *err)
{
	struct pme_reader *r;
	struct pme_chunk ch;
	long n;
	int rc, stop = 0;

	if (ef->evbuf == NULL && (ef->evbuf = malloc(EV_EVTS_MAX *
	    sizeof(*ef->evbuf))) == NULL)
		return pme_setnomem(err);
	if ((r = reopen(ef, err)) == NULL)
		return -1;
	while ((rc = pme_reader_next(r, &ch, err)) == 1) {
		if (ch.type != EV_CHUNK_EVENTS)
			continue;
		if ((rc = pme_reader_payload(r, &ch, EV_EVTS_BYTES, err)) != 1)
			break;
		if ((n = decode(ef, &ch)) == -1) {
			rc = bad(ef, &ch, "EVTS", err);
			break;
		}
		if ((stop = fn(ef->evbuf, (size_t)n, arg)) != 0)
			break;
	}
	pme_reader_close(r);
	if (stop != 0)
		return stop;
	return rc == -1 ? -1 : 0;
}
