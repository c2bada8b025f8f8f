/*
 * lod.c - the interactive view's level-of-detail index (stats.h): each
 * row's events in memory and a summary of each row in buckets of time,
 * so that a redraw costs the cells and the events in view.  The cells
 * come out as grid_draw()'s: both spread time over the cells with
 * grid_spread() and pick the entries with grid_end().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

#define SUMMARY_BYTES	(64u << 20)

static int
row_push(struct lodrow *lr, uint64_t t, int leg, double v, int keepv)
{
	if (lr->n == lr->cap) {
		size_t cap = lr->cap ? lr->cap * 2 : 64;
		uint64_t *nt = realloc(lr->t, cap * sizeof(*nt));
		int16_t *nl;
		double *nv;

		if (nt == NULL)
			return -1;
		lr->t = nt;
		if ((nl = realloc(lr->leg, cap * sizeof(*nl))) == NULL)
			return -1;
		lr->leg = nl;
		if (keepv) {
			if ((nv = realloc(lr->v, cap * sizeof(*nv))) == NULL)
				return -1;
			lr->v = nv;
		}
		lr->cap = cap;
	}
	lr->t[lr->n] = t;
	lr->leg[lr->n] = (int16_t)leg;
	if (keepv)
		lr->v[lr->n] = v;
	lr->n++;
	return 0;
}

/* Keeps each row's events as grid_draw()'s pass sees them: a time
 * before the row's last is taken as the last, ADD adds to the value. */
static int
build_fn(const struct pme_ev *ev, size_t n, void *arg)
{
	struct lod *l = arg;
	struct grid *gr = l->gr;

	for (size_t i = 0; i < n; i++) {
		long r = (long)ev[i].proc;
		struct lodrow *lr;
		uint64_t t = ev[i].time;
		int k;

		if (r < gr->rlo || r > gr->rhi ||
		    (k = grid_rule(gr, ev[i].type)) < 0)
			continue;
		lr = &l->row[r - gr->rlo];
		if (lr->n > 0 && t < lr->t[lr->n - 1])
			t = lr->t[lr->n - 1];
		lr->cur = gr->add[k] && lr->n > 0 ? lr->cur + ev[i].value :
		    (double)ev[i].value;
		if (row_push(lr, t, grid_legend(gr, lr->cur), lr->cur,
		    gr->has_avg) == -1)
			return 1;
	}
	return 0;
}

/* The end of event i's segment: the next event, or the run's end. */
static uint64_t
seg_end(const struct lod *l, const struct lodrow *lr, size_t i)
{
	if (i + 1 < lr->n)
		return lr->t[i + 1];
	return l->gr->thi > lr->t[i] ? l->gr->thi : lr->t[i] + 1;
}

static int
summarise(struct lod *l, struct lodrow *lr)
{
	size_t nleg = l->gr->nleg;

	lr->btime = calloc((size_t)l->nb * nleg + 1, sizeof(*lr->btime));
	lr->bcount = calloc((size_t)l->nb * nleg + 1, sizeof(*lr->bcount));
	lr->bnev = calloc(l->nb, sizeof(*lr->bnev));
	lr->bsum = calloc(l->nb, sizeof(*lr->bsum));
	if (lr->btime == NULL || lr->bcount == NULL || lr->bnev == NULL ||
	    lr->bsum == NULL)
		return -1;
	for (size_t i = 0; i < lr->n; i++) {
		uint64_t a = lr->t[i], b = seg_end(l, lr, i);
		uint64_t bk = (a - l->tlo) / l->bw;
		int leg = lr->leg[i];

		if (bk < l->nb) {
			lr->bnev[bk]++;
			lr->bsum[bk] += lr->v != NULL ? lr->v[i] : 0;
			if (leg >= 0)
				lr->bcount[bk * nleg + leg]++;
		}
		for (; leg >= 0 && a < b && bk < l->nb; bk++) {
			uint64_t be = l->tlo + (bk + 1) * l->bw;
			uint64_t e = b < be ? b : be;

			lr->btime[bk * nleg + leg] += (double)(e - a);
			a = e;
		}
	}
	return 0;
}

int
lod_build(struct lod *l, struct grid *gr, struct pme_error *err)
{
	uint64_t span = gr->thi > gr->tlo ? gr->thi - gr->tlo : 1;
	size_t per;
	int rc;

	memset(l, 0, sizeof(*l));
	l->gr = gr;
	l->nrows = (size_t)(gr->rhi - gr->rlo + 1);
	if ((l->row = calloc(l->nrows, sizeof(*l->row))) == NULL)
		goto oom;
	/* Buckets a row: as many as the budget allows, up to LOD_BUCKETS. */
	per = l->nrows * (gr->nleg * 12 + 12);
	l->nb = per * LOD_BUCKETS > SUMMARY_BYTES ?
	    (uint32_t)(SUMMARY_BYTES / per) : LOD_BUCKETS;
	if (l->nb < 16)
		l->nb = 16;
	l->tlo = gr->tlo;
	l->bw = (span + l->nb - 1) / l->nb;
	if (l->bw == 0)
		l->bw = 1;
	rc = src_events((struct src *)gr->src, build_fn, l, err);
	if (rc == -1) {
		lod_free(l);
		return -1;
	}
	if (rc != 0)
		goto oom;
	for (size_t r = 0; r < l->nrows; r++)
		if (l->row[r].n > 0 && summarise(l, &l->row[r]) == -1)
			goto oom;
	return 0;
oom:
	lod_free(l);
	pme_setnomem(err);
	return -1;
}

/* ------------------------------------------------------------ drawing */

struct drawst {
	struct grid	*gr;
	double		*acc;		/* the grid row's accumulator */
	long		 r;		/* the grid row */
	double		 sum;
};

/* Time [a, b) of entry leg in the row's cells and the legend. */
static void
add_time(struct drawst *d, uint64_t a, uint64_t b, int leg)
{
	struct grid *gr = d->gr;

	gr->rowocc[(size_t)d->r * gr->nleg + leg] += (double)(b - a);
	if (gr->occ_time)
		gr->leg[leg].occ += (double)(b - a);
	grid_spread(&gr->w, d->acc, gr->nleg, a, b, leg);
}

/* The row's events over [a, b), a part of the window. */
static void
draw_raw(struct drawst *d, const struct lod *l, const struct lodrow *lr,
    uint64_t a, uint64_t b)
{
	size_t lo = 0, hi = lr->n;

	if (a >= b)
		return;
	/* The first event at or after a; the one before holds at a. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lr->t[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo > 0 ? lo - 1 : 0; i < lr->n && lr->t[i] < b; i++) {
		uint64_t s = lr->t[i], e = seg_end(l, lr, i);
		int leg = lr->leg[i];

		if (s >= a) {
			d->gr->nev++;
			d->sum += lr->v != NULL ? lr->v[i] : 0;
			if (!d->gr->occ_time && leg >= 0)
				d->gr->leg[leg].occ++;
		}
		if (s < a)
			s = a;
		if (e > b)
			e = b;
		if (leg >= 0 && s < e)
			add_time(d, s, e, leg);
	}
}

/* Whole buckets b0 .. b1 - 1 of the row from its summary. */
static void
draw_buckets(struct drawst *d, const struct lod *l, const struct lodrow *lr,
    uint64_t b0, uint64_t b1)
{
	struct grid *gr = d->gr;
	const struct window *w = &gr->w;
	double span = (double)(w->t1 - w->t0) / w->ncols;
	size_t nleg = gr->nleg;

	for (uint64_t b = b0; b < b1; b++) {
		const double *bt = lr->btime + b * nleg;
		uint64_t bs = l->tlo + b * l->bw, be = bs + l->bw;
		uint64_t c0 = (uint64_t)((bs - w->t0) / span);
		uint64_t c1 = (uint64_t)((be - 1 - w->t0) / span);

		if (c1 >= w->ncols)
			c1 = w->ncols - 1;
		gr->nev += lr->bnev[b];
		d->sum += lr->bsum[b];
		for (size_t k = 0; k < nleg; k++) {
			if (!gr->occ_time)
				gr->leg[k].occ += lr->bcount[b * nleg + k];
			if (bt[k] == 0)
				continue;
			gr->rowocc[(size_t)d->r * nleg + k] += bt[k];
			if (gr->occ_time)
				gr->leg[k].occ += bt[k];
			for (uint64_t c = c0; c <= c1; c++) {
				double cs = w->t0 + c * span, ce = cs + span;
				double x0 = cs > (double)bs ? cs : (double)bs;
				double x1 = ce < (double)be ? ce : (double)be;

				if (c0 == c1)
					d->acc[c * nleg + k] += bt[k];
				else if (x1 > x0)
					d->acc[c * nleg + k] += bt[k] *
					    (x1 - x0) / (double)l->bw;
			}
		}
	}
}

int
lod_draw(struct lod *l, struct grid *gr, const struct window *w,
    struct pme_error *err)
{
	struct drawst d = { .gr = gr };
	double *acc;
	uint64_t t0, t1, b0 = 0, b1 = 0;

	if (grid_begin(gr, w, &acc, err) == -1)
		return -1;
	t0 = gr->w.t0;
	t1 = gr->w.t1;
	l->summary = (double)(t1 - t0) / gr->w.ncols >=
	    (double)LOD_MIN * l->bw;
	if (l->summary) {
		/* The buckets inside the window. */
		b0 = t0 <= l->tlo ? 0 : (t0 - l->tlo + l->bw - 1) / l->bw;
		b1 = t1 <= l->tlo ? 0 : (t1 - l->tlo) / l->bw;
		if (b1 > l->nb)
			b1 = l->nb;
		if (b0 >= b1)
			b0 = b1 = 0;
	}
	for (uint32_t r = 0; r < gr->nrows; r++) {
		const struct lodrow *lr;

		if (gr->row[r] < gr->rlo || gr->row[r] > gr->rhi)
			continue;
		lr = &l->row[gr->row[r] - gr->rlo];
		if (lr->n == 0)
			continue;
		d.r = r;
		d.acc = acc + (size_t)r * gr->w.ncols * gr->nleg;
		if (b0 == b1) {
			draw_raw(&d, l, lr, t0, t1);
			continue;
		}
		draw_raw(&d, l, lr, t0, l->tlo + b0 * l->bw);
		draw_buckets(&d, l, lr, b0, b1);
		draw_raw(&d, l, lr, l->tlo + b1 * l->bw, t1);
	}
	grid_end(gr, acc, d.sum);
	free(acc);
	return 0;
}

void
lod_free(struct lod *l)
{
	for (size_t r = 0; l->row != NULL && r < l->nrows; r++) {
		struct lodrow *lr = &l->row[r];

		free(lr->t);
		free(lr->leg);
		free(lr->v);
		free(lr->btime);
		free(lr->bcount);
		free(lr->bnev);
		free(lr->bsum);
	}
	free(l->row);
	memset(l, 0, sizeof(*l));
}
