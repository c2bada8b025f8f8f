/*
 * json.c - an event source as Chrome's trace event format (JSON object
 * form), which Perfetto and chrome://tracing open: a thread per
 * processor (ph M names it), a complete event (ph X) per state a
 * processor was in, named by the state graph's legend, and a counter
 * (ph C) per event of any other type.  Timestamps are microseconds: a
 * file of nanoseconds is divided by 1000, a file of cycles shows a cycle
 * as a microsecond.  Streamed: memory is per processor, not per event.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

struct jpass {
	FILE		*fp;
	struct src	*src;
	const struct grid *states;	/* labels of EV_STATE values */
	int		 ns;		/* times are nanoseconds */
	int		 first;		/* no event written yet */
	size_t		 nrow;
	uint8_t		*seen;
	uint64_t	*since;
	int64_t		*value;
	/* Each row's last slice, held until the next shows whether it goes
	 * on: its start, end (as long as start: none) and value. */
	uint64_t	*pstart, *pend;
	int64_t		*pvalue;
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
flush_x(struct jpass *p, size_t r)
{
	char buf[64];

	if (p->pend[r] <= p->pstart[r])
		return;
	sep(p);
	fputs("{\"ph\":\"X\",\"pid\":1,\"tid\":", p->fp);
	fprintf(p->fp, "%zu,\"ts\":", r);
	ts(p->fp, p, p->pstart[r]);
	fputs(",\"dur\":", p->fp);
	ts(p->fp, p, p->pend[r] - p->pstart[r]);
	fputs(",\"name\":", p->fp);
	jstr(p->fp, state_label(p, p->pvalue[r], buf, sizeof(buf)));
	fputs(",\"cat\":\"state\"}", p->fp);
	p->pend[r] = p->pstart[r];
}

/*
 * Row r's state, from since to end, as a slice; adjacent slices of one
 * state are one.  A sample file's slice is a sample's weight before it:
 * a gap shorter than that weight before the next holds no sample missed
 * (the timer's jitter), so consecutive samples in one routine are one
 * slice.
 */
static void
state_x(struct jpass *p, size_t r, uint64_t end)
{
	uint64_t gap = p->src->names != NULL ? end - p->since[r] : 1;

	if (end <= p->since[r] || (p->src->names != NULL && p->value[r] < 0))
		return;
	if (p->pend[r] > p->pstart[r] && p->since[r] >= p->pend[r] &&
	    p->since[r] - p->pend[r] < gap &&
	    same_state(p, p->pvalue[r], p->value[r])) {
		p->pend[r] = end;
		return;
	}
	flush_x(p, r);
	p->pstart[r] = p->since[r];
	p->pend[r] = end;
	p->pvalue[r] = p->value[r];
}

static int
json_fn(const struct pme_ev *ev, size_t n, void *arg)
{
	struct jpass *p = arg;

	for (size_t i = 0; i < n; i++) {
		const struct pme_ev *e = &ev[i];
		size_t r = e->proc;
		uint64_t t = e->time;

		if (r >= p->nrow)
			continue;
		if (e->type != PME_EV_STATE) {
			sep(p);
			fputs("{\"ph\":\"C\",\"pid\":1,\"name\":", p->fp);
			jstr(p->fp, e->type < p->ntname &&
			    p->tname[e->type] != NULL ? p->tname[e->type] :
			    "event");
			fprintf(p->fp, ",\"ts\":");
			ts(p->fp, p, t);
			fprintf(p->fp, ",\"args\":{\"p%zu\":%" PRId64 "}}", r,
			    e->value);
			continue;
		}
		if (p->seen[r] && t < p->since[r])
			t = p->since[r];
		if (p->seen[r] && same_state(p, p->value[r], e->value))
			continue;	/* the state goes on */
		if (p->seen[r])
			state_x(p, r, t);
		p->seen[r] = 1;
		p->since[r] = t;
		p->value[r] = e->value;
	}
	return ferror(p->fp) ? 1 : 0;
}

/* The grid of the first state graph, for its legend's labels. */
static int
find_states(struct grid *gr, const struct gfile *gf, struct src *s)
{
	char err[256];

	for (size_t i = 0; i < gf->n; i++) {
		const struct graph *g = &gf->g[i];

		if (g->kind != G_STATE || g->nrules != 1 ||
		    strcmp(g->rules[0].event, "EV_STATE") != 0)
			continue;
		if (grid_prepare(gr, g, s, err, sizeof(err)) == 0)
			return 0;
	}
	return -1;
}

int
out_json(FILE *fp, struct src *s, const struct gfile *gf, char *err,
    size_t errlen)
{
	struct jpass p = { .fp = fp, .src = s, .first = 1 };
	const struct pme_evtype *types;
	size_t nt = s->ef != NULL ? pme_eventfile_types(s->ef, &types) : 0;
	struct grid gr;
	char buf[128];
	int rc = -1, have = find_states(&gr, gf, s) == 0;

	p.states = have ? &gr : NULL;
	p.ns = (s->run.flags & PME_RUN_CLOCKTIME) != 0;
	p.nrow = s->run.nproc < (1u << 24) ? s->run.nproc : 1u << 24;
	p.seen = calloc(p.nrow + 1, 1);
	p.since = calloc(p.nrow + 1, sizeof(*p.since));
	p.value = calloc(p.nrow + 1, sizeof(*p.value));
	p.pstart = calloc(p.nrow + 1, sizeof(*p.pstart));
	p.pend = calloc(p.nrow + 1, sizeof(*p.pend));
	p.pvalue = calloc(p.nrow + 1, sizeof(*p.pvalue));
	for (size_t i = 0; i < nt; i++)
		if (types[i].id + 1 > p.ntname && types[i].id < (1u << 20))
			p.ntname = types[i].id + 1;
	p.tname = calloc(p.ntname + 1, sizeof(*p.tname));
	if (p.seen == NULL || p.since == NULL || p.value == NULL ||
	    p.pstart == NULL || p.pend == NULL || p.pvalue == NULL ||
	    p.tname == NULL) {
		snprintf(err, errlen, "out of memory");
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
	for (size_t r = 0; r < p.nrow; r++) {
		sep(&p);
		fprintf(fp, "{\"ph\":\"M\",\"pid\":1,\"tid\":%zu,"
		    "\"name\":\"thread_name\",\"args\":{\"name\":", r);
		jstr(fp, src_rowname(s, (long)r, buf, sizeof(buf)));
		fputs("}}", fp);
	}
	if (src_events(s, json_fn, &p, err, errlen) == -1)
		goto out;
	for (size_t r = 0; r < p.nrow; r++)
		if (p.seen[r]) {
			state_x(&p, r, s->run.last > p.since[r] ?
			    s->run.last : p.since[r]);
			flush_x(&p, r);
		}
	fputs("\n]}\n", fp);
	rc = ferror(fp) ? -1 : 0;
	if (rc == -1)
		snprintf(err, errlen, "write failed");
out:
	if (have)
		grid_free(&gr);
	free(p.seen);
	free(p.since);
	free(p.value);
	free(p.pstart);
	free(p.pend);
	free(p.pvalue);
	free(p.tname);
	return rc;
}
