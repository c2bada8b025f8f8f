/*
 * t_lod.c - stats' level-of-detail index (stats/lod.c) against
 * grid_draw() on random event files: a state graph with a map and an
 * array graph of ADDed values without one.  Windows drawn from the rows'
 * events (columns narrower than LOD_MIN buckets) must give grid_draw()'s
 * cells, row times and legend exactly; windows of whole buckets drawn
 * from the summary, the same cells too; any other window, the same
 * legend and event counts.
 */
#define TEST_NAME "t_lod"
#include "pme.h"
#include "check.h"

#include <math.h>

#include "stats.h"

static const char graphs[] =
    "StateGraph s (x, 0, NO_OF_PROCESSORS - 1) {\n"
    "\taction { EV_A: VALUE(x) }\n"
    "\tmap { 0: black \"Idle\", 1: gray \"Busy\", 2..3: red \"Lock\" }\n"
    "}\n"
    "ArrayGraph a (x, 0, NO_OF_PROCESSORS - 1) {\n"
    "\tbins <- 5, action { EV_A: ADD(x), EV_B: VALUE(x) }\n"
    "}\n";

static uint64_t rng = 88172645463325252ull;

static uint64_t
rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? rng % n : 0;
}

/* An event file of n events on nproc rows over about span time units,
 * a few out of order. */
static void
make_file(const char *path, uint32_t nproc, size_t n, uint64_t span)
{
	struct pme_error err;
	uint64_t *t = calloc(nproc, sizeof(*t));
	uint32_t a, b;

	if (t == NULL)
		die("out of memory");
	if (pme_event_open(path, 0, &err) == -1)
		die_pme(path, &err);
	a = pme_event_type("EV_A");
	b = pme_event_type("EV_B");
	pme_event_processors(nproc);
	for (size_t i = 0; i < n; i++) {
		uint32_t p = (uint32_t)rnd(nproc);
		uint64_t step = rnd(4) == 0 ? rnd(span / 8 + 1) :
		    rnd(span / (n + 1) * 2 + 1);

		t[p] += step;
		pme_event_post(rnd(5) ? a : b, p, rnd(20) == 0 && t[p] > 50 ?
		    t[p] - 50 : t[p], (int64_t)rnd(6) - 1);
	}
	if (pme_event_close(&err) == -1)
		die_pme("close", &err);
	free(t);
}

static void
compare(const char *what, struct grid *a, struct grid *b, int cells,
    int exact)
{
	size_t nc = (size_t)a->nrows * a->w.ncols;

	if (a->nrows != b->nrows || a->w.ncols != b->w.ncols) {
		fail("%s: grids of %ux%u and %ux%u", what, a->nrows,
		    a->w.ncols, b->nrows, b->w.ncols);
		return;
	}
	for (size_t c = 0; cells && c < nc; c++)
		if (a->cell[c] != b->cell[c]) {
			fail("%s: cell %zu (row %zu, column %zu): %d, "
			    "grid_draw %d", what, c, c / a->w.ncols,
			    c % a->w.ncols, a->cell[c], b->cell[c]);
			break;
		}
	for (size_t i = 0; i < a->nleg; i++)
		if (a->leg[i].occ != b->leg[i].occ)
			fail("%s: legend %zu: %.17g, grid_draw %.17g", what, i,
			    a->leg[i].occ, b->leg[i].occ);
	for (size_t i = 0; i < (size_t)a->nrows * a->nleg; i++)
		if (exact ? a->rowocc[i] != b->rowocc[i] :
		    fabs(a->rowocc[i] - b->rowocc[i]) > 1e-6) {
			fail("%s: row time %zu: %.17g, grid_draw %.17g", what,
			    i, a->rowocc[i], b->rowocc[i]);
			break;
		}
	if (a->nev != b->nev)
		fail("%s: %llu events, grid_draw %llu", what,
		    (unsigned long long)a->nev, (unsigned long long)b->nev);
	if (a->has_avg && fabs(a->avg - b->avg) > 1e-9 * (1 + fabs(b->avg)))
		fail("%s: average %.17g, grid_draw %.17g", what, a->avg,
		    b->avg);
}

/* Draws w both ways; want: 1 summary, 0 events, -1 either. */
static void
both(struct lod *l, struct grid *g1, struct grid *g2, struct window *w,
    int want, int cells, const char *kind, int round)
{
	struct pme_error err = { 0 };
	char what[256];

	snprintf(what, sizeof(what), "round %d, graph %s, %s window "
	    "[%llu, %llu) rows %ld-%ld in %u columns", round, g1->g->id, kind,
	    (unsigned long long)w->t0, (unsigned long long)w->t1, w->r0, w->r1,
	    w->ncols);
	if (lod_draw(l, g1, w, &err) == -1)
		die("%s: lod_draw: %s", what, err.msg);
	if (grid_draw(g2, w, &err) == -1)
		die("%s: grid_draw: %s", what, err.msg);
	if (want >= 0 && l->summary != want)
		fail("%s: drawn from the %s", what, l->summary ? "summary" :
		    "events");
	compare(what, g1, g2, cells, !l->summary);
}

static void
rows(const struct grid *gr, struct window *w)
{
	w->r0 = gr->rlo + (long)rnd((uint64_t)(gr->rhi - gr->rlo + 1));
	w->r1 = w->r0 + (long)rnd((uint64_t)(gr->rhi - w->r0 + 1));
}

static void
windows(struct lod *l, struct grid *g1, struct grid *g2, int round)
{
	for (int k = 0; k < 30; k++) {
		struct window w;
		uint64_t m, b0;

		/* Whole buckets, a whole number of them a column. */
		w.ncols = 1 + (uint32_t)rnd(40);
		m = LOD_MIN + rnd(l->nb / w.ncols / 2 + 2);
		b0 = rnd(l->nb / 2);
		w.t0 = l->tlo + b0 * l->bw;
		w.t1 = w.t0 + w.ncols * m * l->bw;
		rows(g1, &w);
		both(l, g1, g2, &w, 1, 1, "whole-bucket", round);
		/* Columns narrower than LOD_MIN buckets. */
		w.ncols = 1 + (uint32_t)rnd(60);
		w.t0 = g1->tlo + rnd(g1->thi - g1->tlo);
		w.t1 = w.t0 + 1 + rnd(w.ncols * LOD_MIN * l->bw - 1);
		rows(g1, &w);
		both(l, g1, g2, &w, 0, 1, "narrow", round);
		/* Anything. */
		w.ncols = 1 + (uint32_t)rnd(100);
		w.t0 = g1->tlo + rnd(g1->thi - g1->tlo);
		w.t1 = w.t0 + 1 + rnd(g1->thi - w.t0 + 10);
		rows(g1, &w);
		both(l, g1, g2, &w, -1, 0, "any", round);
	}
	/* The whole graph. */
	{
		struct window w;

		grid_whole(g1, 1 + (uint32_t)rnd(200), &w);
		both(l, g1, g2, &w, -1, 0, "whole", round);
	}
}

int
main(void)
{
	struct gfile gf;
	struct pme_error err = { 0 };

	if (gfile_parse(graphs, strlen(graphs), "t_lod", &gf, &err) == -1)
		die("graphs: %s", err.msg);
	for (int round = 0; round < 24; round++) {
		const char *path = tmppath("events.sim");
		uint32_t nproc = 1 + (uint32_t)rnd(6);
		size_t n = 1 + rnd(round < 20 ? 3000 : 200000);
		struct src s;

		make_file(path, nproc, n, 1000 + rnd(10000000));
		if (src_open_events(&s, path, &err) == -1)
			die("%s", err.msg);
		for (size_t i = 0; i < gf.n; i++) {
			struct grid g1, g2;
			struct lod l;

			if (grid_prepare(&g1, &gf.g[i], &s, &err) == -1 ||
			    grid_prepare(&g2, &gf.g[i], &s, &err) == -1)
				die("round %d: %s", round, err.msg);
			if (lod_build(&l, &g1, &err) == -1)
				die("round %d: lod_build: %s", round, err.msg);
			CHECK(l.nb == LOD_BUCKETS);
			CHECK(l.bw * l.nb >= g1.thi - g1.tlo);
			windows(&l, &g1, &g2, round);
			lod_free(&l);
			grid_free(&g1);
			grid_free(&g2);
		}
		src_close(&s);
	}
	gfile_free(&gf);
	return failures ? 1 : 0;
}
