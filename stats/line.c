/*
 * line.c - LineGraph: a value over time, a plot per row with the value
 * on y (a process's heap in bytes, pmeclock -e alloc).  Each event of
 * the graph's action types sets its row's value from its time on (ADD
 * adds to it).  Text: a chart of LINE_H lines a row, a column the
 * largest value the row held in its span of time, so that the peak
 * shows whatever the width; CSV: every event, "row,time,value", exact;
 * PostScript: the same columns as bars (ps.c).  Drawn whole: -x and -r
 * are not read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

struct lpass {
	const struct graph *g;
	const struct src *src;
	uint32_t	*types;
	struct line	*l;
	int		 nomem;
};

static int
rule_of(const struct lpass *p, uint32_t type)
{
	for (size_t k = 0; k < p->g->nrules; k++)
		if (p->types[k] == type)
			return (int)k;
	return -1;
}

static struct lrow *
lrow_of(struct line *l, uint32_t proc)
{
	struct lrow *v;
	size_t n;

	if (proc >= l->nrows) {
		if (proc >= (1u << 24))
			return NULL;
		n = (size_t)proc + 1;
		if ((v = realloc(l->row, n * sizeof(*v))) == NULL)
			return NULL;
		memset(v + l->nrows, 0, (n - l->nrows) * sizeof(*v));
		for (size_t i = l->nrows; i < n; i++)
			pme_vec_init(&v[i].pt, sizeof(struct lpoint));
		l->row = v;
		l->nrows = n;
	}
	return &l->row[proc];
}

static int
line_fn(const struct pme_ev *ev, size_t n, void *arg)
{
	struct lpass *p = arg;
	struct lpoint *pt;
	struct lrow *r;
	int k;

	for (size_t i = 0; i < n; i++) {
		if ((k = rule_of(p, ev[i].type)) < 0)
			continue;
		if ((r = lrow_of(p->l, ev[i].proc)) == NULL ||
		    (pt = pme_vec_push(&r->pt)) == NULL) {
			p->nomem = 1;
			return 1;
		}
		pt->time = ev[i].time;
		pt->value = p->g->rules[k].op == GA_ADD ? r->cur + ev[i].value :
		    ev[i].value;
		r->cur = pt->value;
		if (r->pt.n == 1 || pt->value > r->max) {
			r->max = pt->value;
			r->tmax = pt->time;
		}
	}
	return 0;
}

void
line_free(struct line *l)
{
	for (size_t i = 0; i < l->nrows; i++)
		pme_vec_free(&l->row[i].pt);
	free(l->row);
	memset(l, 0, sizeof(*l));
}

int
line_read(struct line *l, const struct graph *g, const struct src *s,
    struct pme_error *err)
{
	struct lpass p = { g, s, NULL, l, 0 };
	int rc = -1;

	memset(l, 0, sizeof(*l));
	l->g = g;
	l->src = s;
	l->t1 = s->run.last;
	if ((p.types = calloc(g->nrules + 1, sizeof(*p.types))) == NULL)
		return pme_setnomem(err);
	for (size_t k = 0; k < g->nrules; k++)
		if ((p.types[k] = src_type(s, g->rules[k].event)) == PME_NONE) {
			pme_seterr(err, PME_EINVAL, "%s:%u: no event '%s' in "
			    "'%s'", g->file, g->rules[k].line,
			    g->rules[k].event, s->path);
			goto out;
		}
	if (src_events((struct src *)s, line_fn, &p, err) != 0) {
		if (p.nomem)
			pme_setnomem(err);
		goto out;
	}
	rc = 0;
out:
	free(p.types);
	if (rc == -1)
		line_free(l);
	return rc;
}

/* The largest value row r held in each of ncols columns of [0, t1]
 * into col (-1: none yet). */
void
line_columns(const struct line *l, size_t r, double *col, uint32_t ncols)
{
	const struct lrow *row = &l->row[r];
	const struct lpoint *pt = row->pt.v;
	uint64_t span = l->t1 + 1;
	uint32_t c, c1;

	for (c = 0; c < ncols; c++)
		col[c] = -1;
	for (size_t i = 0; i < row->pt.n; i++) {
		uint64_t end = i + 1 < row->pt.n ? pt[i + 1].time : span;

		c = (uint32_t)((unsigned __int128)pt[i].time * ncols / span);
		c1 = (uint32_t)((unsigned __int128)(end > pt[i].time ? end - 1 :
		    end) * ncols / span);
		for (; c <= c1 && c < ncols; c++)
			if ((double)pt[i].value > col[c])
				col[c] = (double)pt[i].value;
	}
}

static void
row_name(const struct line *l, size_t r, char *buf, size_t len)
{
	char raw[256];

	src_rowname(l->src, (long)r, raw, sizeof(raw));
	pme_escape(buf, len, raw);
}

static int
line_csv(FILE *fp, const struct line *l)
{
	char name[256];

	fputs("row,time,value\n", fp);
	for (size_t r = 0; r < l->nrows; r++) {
		const struct lpoint *pt = l->row[r].pt.v;

		row_name(l, r, name, sizeof(name));
		for (size_t i = 0; i < l->row[r].pt.n; i++)
			fprintf(fp, "%s,%" PRIu64 ",%" PRId64 "\n", name,
			    pt[i].time, pt[i].value);
	}
	return 0;
}

#define LINE_H	10	/* text lines of a row's chart */

/* Row r as a text chart: a column is '#' up to its value's line. */
static void
text_row(FILE *fp, const struct line *l, size_t r, double *col,
    uint32_t ncols)
{
	const struct lrow *row = &l->row[r];
	char name[256], top[64], last[64];

	row_name(l, r, name, sizeof(name));
	fmt_value(top, sizeof(top), l->g, (double)row->max);
	fmt_value(last, sizeof(last), l->g, (double)row->cur);
	fprintf(fp, "%s: largest %s at %" PRIu64 ", last %s\n", name, top,
	    row->tmax, last);
	line_columns(l, r, col, ncols);
	for (int y = LINE_H; y >= 1; y--) {
		fprintf(fp, "%12s |", y == LINE_H ? top : y == 1 ? "0" : "");
		for (uint32_t c = 0; c < ncols; c++)
			putc(col[c] >= 0 && row->max > 0 && col[c] * LINE_H >=
			    (double)row->max * (y - 0.5) ? '#' : ' ', fp);
		fputs("|\n", fp);
	}
}

static int
line_text(FILE *fp, const struct line *l, const struct outopt *o)
{
	uint32_t ncols = o->width > 24 ? (uint32_t)o->width - 15 : 10;
	char unit[64], end[64];
	double *col;
	struct graph plain = *l->g;

	if ((col = calloc(ncols, sizeof(*col))) == NULL)
		return -1;
	plain.scale = 1;
	plain.format = "";
	fmt_value(end, sizeof(end), &plain, (double)l->t1);
	fprintf(fp, "%s\n%s: %s 0 to %s, rows 0 to %zu\n\n", o->title != NULL ?
	    o->title : l->g->name != NULL ? l->g->name : l->g->id,
	    l->src->path, src_unit(l->src, unit, sizeof(unit)), end,
	    l->nrows > 0 ? l->nrows - 1 : 0);
	for (size_t r = 0; r < l->nrows; r++) {
		if (l->row[r].pt.n == 0)
			continue;
		text_row(fp, l, r, col, ncols);
		fprintf(fp, "%12s +%*s+\n%13s0%*s\n\n", "", (int)ncols, "",
		    "", (int)ncols, end);
	}
	fprintf(fp, "%s / %s, %s\n", l->g->x_axis != NULL ? l->g->x_axis :
	    "Time", unit, l->g->y_axis != NULL ? l->g->y_axis : "value");
	free(col);
	return 0;
}

int
line_draw(FILE *fp, const struct graph *g, const struct src *s,
    enum otype type, const struct outopt *o, struct pme_error *err)
{
	struct line l;
	int rc;

	if (line_read(&l, g, s, err) == -1)
		return -1;
	rc = type == O_CSV ? line_csv(fp, &l) : type == O_PS ?
	    out_line_ps(fp, &l, o) : line_text(fp, &l, o);
	line_free(&l);
	if (rc == -1)
		pme_setnomem(err);
	return rc;
}
