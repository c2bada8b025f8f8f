/*
 * json.c - an event source as Chrome's trace event format (JSON object
 * form), which Perfetto and chrome://tracing open: a thread per
 * processor (ph M names it), a complete event (ph X) per state a
 * processor was in, named by the state graph's legend, and a counter
 * (ph C) per event of any other type.  Timestamps are microseconds: a
 * file of nanoseconds is divided by 1000, a file of cycles shows a cycle
 * as a microsecond.  Streamed: memory is per processor that has events,
 * not per event nor per processor the file declares (a file of 7 KB
 * declaring 16,777,220 processors once made 1.37 GB of thread names):
 * a thread is named when its first event comes.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

/* A processor that has had events: its state since when, and its last
 * slice, held until the next shows whether it goes on: its start, end
 * (as long as start: none) and value. */
struct jrow {
	uint32_t	 proc;
	uint64_t	 since;
	int64_t		 value;
	uint64_t	 pstart, pend;
	int64_t		 pvalue;
};

struct jpass {
	FILE		*fp;
	struct src	*src;
	const struct grid *states;	/* labels of EV_STATE values */
	int		 ns;		/* times are nanoseconds */
	int		 first;		/* no event written yet */
	uint32_t	 maxproc;	/* processors past it are left out */
	struct pme_vec	 rows;		/* struct jrow, in order of arrival */
	uint32_t	*slot;		/* open addressing by proc: row + 1 */
	size_t		 capslot;
	int		 nomem;
	char		**tname;	/* type names by number */
	uint32_t	 ntname;
};

/* A string from a file as a JSON string: escaped for a terminal first
 * (pme_escape: invalid UTF-8 and controls as \xHH), then for JSON. */
static void
jstr(FILE *fp, const char *s)
{
	char buf[1024];

	pme_escape(buf, sizeof(buf), s);
	putc('"', fp);
	for (const char *p = buf; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			putc('\\', fp);
		putc(*p, fp);
	}
	putc('"', fp);
}

static void
ts(FILE *fp, const struct jpass *p, uint64_t t)
{
	if (p->ns)
		fprintf(fp, "%" PRIu64 ".%03u", t / 1000,
		    (unsigned)(t % 1000));
	else
		fprintf(fp, "%" PRIu64, t);
}

static void
sep(struct jpass *p)
{
	fputs(p->first ? "\n" : ",\n", p->fp);
	p->first = 0;
}

static const char *
state_label(const struct jpass *p, int64_t v, char *buf, size_t len)
{
	const struct grid *gr = p->states;

	if (gr != NULL)
		for (size_t i = 0; i < gr->nleg; i++)
			if ((double)v >= gr->leg[i].lo &&
			    (double)v <= gr->leg[i].hi && !isinf(gr->leg[i].lo))
				return gr->leg[i].label;
	snprintf(buf, len, "state %" PRId64, v);
	return buf;
}

/* Whether values a and b are one state: the same, or shown alike by the
 * legend (a sample file's routine, whatever its samples). */
static int
same_state(const struct jpass *p, int64_t a, int64_t b)
{
	char x[64], y[64];

	if (a == b)
		return 1;
	if (p->src->names != NULL && (a < 0) != (b < 0))
		return 0;
	return strcmp(state_label(p, a, x, sizeof(x)), state_label(p, b, y,
	    sizeof(y))) == 0;
}

/* Row r's held slice, written. */
static void
flush_x(struct jpass *p, struct jrow *r)
{
	char buf[64];

	if (r->pend <= r->pstart)
		return;
	sep(p);
	fputs("{\"ph\":\"X\",\"pid\":1,\"tid\":", p->fp);
	fprintf(p->fp, "%" PRIu32 ",\"ts\":", r->proc);
	ts(p->fp, p, r->pstart);
	fputs(",\"dur\":", p->fp);
	ts(p->fp, p, r->pend - r->pstart);
	fputs(",\"name\":", p->fp);
	jstr(p->fp, state_label(p, r->pvalue, buf, sizeof(buf)));
	fputs(",\"cat\":\"state\"}", p->fp);
	r->pend = r->pstart;
}

/*
 * Row r's state, from since to end, as a slice; adjacent slices of one
 * state are one.  A sample file's slice is a sample's weight before it:
 * a gap shorter than that weight before the next holds no sample missed
 * (the timer's jitter), so consecutive samples in one routine are one
 * slice.
 */
static void
state_x(struct jpass *p, struct jrow *r, uint64_t end)
{
	uint64_t gap = p->src->names != NULL ? end - r->since : 1;

	if (end <= r->since || (p->src->names != NULL && r->value < 0))
		return;
	if (r->pend > r->pstart && r->since >= r->pend &&
	    r->since - r->pend < gap && same_state(p, r->pvalue, r->value)) {
		r->pend = end;
		return;
	}
	flush_x(p, r);
	r->pstart = r->since;
	r->pend = end;
	r->pvalue = r->value;
}

static void
thread_name(struct jpass *p, uint32_t proc)
{
	char buf[128];

	sep(p);
	fprintf(p->fp, "{\"ph\":\"M\",\"pid\":1,\"tid\":%" PRIu32 ","
	    "\"name\":\"thread_name\",\"args\":{\"name\":", proc);
	jstr(p->fp, src_rowname(p->src, (long)proc, buf, sizeof(buf)));
	fputs("}}", p->fp);
}

static size_t
proc_slot(uint32_t proc, size_t cap)
{
	return (size_t)(pme_hash(&proc, sizeof(proc)) & (cap - 1));
}

/* The slot table at twice the rows' number, rebuilt when it grows. */
static int
grow_slots(struct jpass *p)
{
	size_t cap = p->capslot ? 2 * p->capslot : 64, h;
	uint32_t *t;

	if ((t = calloc(cap, sizeof(*t))) == NULL)
		return -1;
	for (size_t i = 0; i < p->rows.n; i++) {
		uint32_t proc = PME_VEC_AT(&p->rows, struct jrow, i).proc;

		for (h = proc_slot(proc, cap); t[h] != 0; h = (h + 1) &
		    (cap - 1))
			;
		t[h] = (uint32_t)i + 1;
	}
	free(p->slot);
	p->slot = t;
	p->capslot = cap;
	return 0;
}

/* The row of proc, made (and its thread named) at its first event;
 * NULL when out of memory. */
static struct jrow *
row_of(struct jpass *p, uint32_t proc)
{
	struct jrow *r;
	size_t h = 0;

	if (p->capslot > 0)
		for (h = proc_slot(proc, p->capslot); p->slot[h] != 0;
		    h = (h + 1) & (p->capslot - 1)) {
			r = &PME_VEC_AT(&p->rows, struct jrow,
			    p->slot[h] - 1);
			if (r->proc == proc)
				return r;
		}
	if (2 * (p->rows.n + 1) > p->capslot) {
		if (grow_slots(p) == -1)
			return NULL;
		for (h = proc_slot(proc, p->capslot); p->slot[h] != 0;
		    h = (h + 1) & (p->capslot - 1))
			;
	}
	if ((r = pme_vec_push(&p->rows)) == NULL)
		return NULL;
	p->slot[h] = (uint32_t)p->rows.n;
	r->proc = proc;
	thread_name(p, proc);
	return r;
}

/*
 * An event of another type than EV_STATE as a counter (ph C) named by
 * its type, its processor a series of it: "p3" of an event file's; a
 * heap source's "heap" counter, a series per process ("prog pid 42"), its
 * live bytes.
 */
static void
counter(struct jpass *p, const struct pme_ev *e)
{
	char buf[128];

	sep(p);
	fputs("{\"ph\":\"C\",\"pid\":1,\"name\":", p->fp);
	jstr(p->fp, p->src->heap ? "heap" : e->type < p->ntname &&
	    p->tname[e->type] != NULL ? p->tname[e->type] : "event");
	fprintf(p->fp, ",\"ts\":");
	ts(p->fp, p, e->time);
	fputs(",\"args\":{", p->fp);
	if (p->src->heap)
		jstr(p->fp, src_rowname(p->src, (long)e->proc, buf,
		    sizeof(buf)));
	else
		fprintf(p->fp, "\"p%" PRIu32 "\"", e->proc);
	fprintf(p->fp, ":%" PRId64 "}}", e->value);
}

static int
json_fn(const struct pme_ev *ev, size_t n, void *arg)
{
	struct jpass *p = arg;

	for (size_t i = 0; i < n; i++) {
		const struct pme_ev *e = &ev[i];
		uint64_t t = e->time;
		size_t had = p->rows.n;
		struct jrow *r;

		if (e->proc >= p->maxproc)
			continue;
		if (e->type != PME_EV_STATE) {
			counter(p, e);
			continue;
		}
		if ((r = row_of(p, e->proc)) == NULL) {
			p->nomem = 1;
			return 1;
		}
		if (p->rows.n == had) {		/* seen before */
			if (t < r->since)
				t = r->since;
			if (same_state(p, r->value, e->value))
				continue;	/* the state goes on */
			state_x(p, r, t);
		}
		r->since = t;
		r->value = e->value;
	}
	return ferror(p->fp) ? 1 : 0;
}

/* The grid of the first state graph, for its legend's labels. */
static int
find_states(struct grid *gr, const struct gfile *gf, struct src *s)
{
	struct pme_error err;

	for (size_t i = 0; i < gf->n; i++) {
		const struct graph *g = &gf->g[i];

		if (!(gkinds[g->kind].flags & GK_STATES) || g->nrules != 1 ||
		    strcmp(g->rules[0].event, "EV_STATE") != 0)
			continue;
		if (grid_prepare(gr, g, s, &err) == 0)
			return 0;
	}
	return -1;
}

int
out_json(FILE *fp, struct src *s, const struct gfile *gf, struct pme_error *err)
{
	struct jpass p = { .fp = fp, .src = s, .first = 1 };
	const struct pme_evtype *types;
	size_t nt = s->ef != NULL ? pme_eventfile_types(s->ef, &types) : 0;
	struct grid gr;
	int rc = -1, have = find_states(&gr, gf, s) == 0;

	p.states = have ? &gr : NULL;
	p.ns = (s->run.flags & PME_RUN_CLOCKTIME) != 0;
	p.maxproc = s->run.nproc < (1u << 24) ? s->run.nproc : 1u << 24;
	pme_vec_init(&p.rows, sizeof(struct jrow));
	for (size_t i = 0; i < nt; i++)
		if (types[i].id + 1 > p.ntname && types[i].id < (1u << 20))
			p.ntname = types[i].id + 1;
	if ((p.tname = calloc(p.ntname + 1, sizeof(*p.tname))) == NULL) {
		pme_setnomem(err);
		goto out;
	}
	for (size_t i = 0; i < nt; i++)
		if (types[i].id < p.ntname)
			p.tname[types[i].id] = (char *)types[i].name;
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":", fp);
	jstr(fp, s->path);
	fputs(",\"unit\":", fp);
	jstr(fp, s->run.unit);
	fputs("},\"traceEvents\":[", fp);
	sep(&p);
	fputs("{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\","
	    "\"args\":{\"name\":", fp);
	jstr(fp, s->path);
	fputs("}}", fp);
	if (src_events(s, json_fn, &p, err) == -1)
		goto out;
	if (p.nomem) {
		pme_setnomem(err);
		goto out;
	}
	for (size_t i = 0; i < p.rows.n; i++) {
		struct jrow *r = &PME_VEC_AT(&p.rows, struct jrow, i);

		state_x(&p, r, s->run.last > r->since ? s->run.last :
		    r->since);
		flush_x(&p, r);
	}
	fputs("\n]}\n", fp);
	rc = ferror(fp) ? -1 : 0;
	if (rc == -1)
		stats_syserr(err, 0, "write failed");
out:
	if (have)
		grid_free(&gr);
	pme_vec_free(&p.rows);
	free(p.slot);
	free(p.tname);
	return rc;
}
