/*
 * view.c - drawing a graph over a window of time: the legend of a graph
 * (its colour map, or equal ranges of its values), then one pass over
 * the events that turns each row's value, a step function of time, into
 * the time each legend entry holds in each cell.  Memory is the grid's
 * (rows x columns x entries), not the events'.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "stats.h"
#include "util.h"

#define MAXLEG		64
#define MAXCELLS	(64u << 20)	/* cells x entries of a grid */

/* Colours of legend entries no map names: distinct, then repeating. */
static const uint32_t palette[] = {
	0x2f6fe0, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd, 0x8c564b,
	0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf, 0x1f3a93, 0xf2d21b,
	0x006d2c, 0xfb6a4a, 0x54278f, 0x525252,
};

/* The parser checked the map's colours; gray for one it did not. */
uint32_t
colour_rgb(const char *name)
{
	unsigned long rgb;

	return gcolor_rgb(name, &rgb) == 0 ? (uint32_t)rgb : 0x7f7f7f;
}

/* A ramp from blue through green to red, for ranges of values. */
static uint32_t
ramp(size_t i, size_t n)
{
	double x = n > 1 ? (double)i / (n - 1) : 0;
	double r = x < 0.5 ? 0 : (x - 0.5) * 2;
	double g = x < 0.5 ? x * 2 : (1 - x) * 2;
	double b = x < 0.5 ? 1 - x * 2 : 0;

	return (uint32_t)(40 + r * 200) << 16 | (uint32_t)(60 + g * 160) << 8 |
	    (uint32_t)(60 + b * 190);
}

void
fmt_value(char *buf, size_t len, const struct graph *g, double v)
{
	char digits[64], *p;
	long long n;
	size_t k, d;

	v *= g->scale;
	if (g->format != NULL && g->format[0] != '\0') {
		/* gformat_check() allowed one floating conversion only. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(buf, len, g->format, v);
#pragma GCC diagnostic pop
		return;
	}
	/* The seed's default: an integer with commas between groups of
	 * three digits. */
	n = llround(v);
	snprintf(digits, sizeof(digits), "%lld", n < 0 ? -n : n);
	d = strlen(digits);
	p = buf;
	if (len < 2) {
		if (len)
			*buf = '\0';
		return;
	}
	if (n < 0)
		*p++ = '-';
	for (k = 0; k < d && (size_t)(p - buf) + 2 < len; k++) {
		if (k > 0 && (d - k) % 3 == 0)
			*p++ = ',';
		*p++ = digits[k];
	}
	*p = '\0';
}

/* ----------------------------------------------------------- preparing */

static int
sym(const char *name, void *arg, double *v)
{
	const struct src *s = arg;
	const struct pme_metric *m;
	size_t n;
	char *end;

	if (strcmp(name, "NO_OF_PROCESSORS") == 0) {
		*v = s->run.nproc;
		return 0;
	}
	if (s->ef == NULL)
		return -1;
	n = pme_eventfile_metrics(s->ef, &m);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(m[i].name, name) != 0)
			continue;
		if (m[i].kind == PME_METRIC_SCALAR) {
			*v = m[i].value;
			return 0;
		}
		if (m[i].kind == PME_METRIC_PARAM) {
			errno = 0;
			*v = strtod(m[i].text, &end);
			if (errno == 0 && end != m[i].text && *end == '\0')
				return 0;
		}
	}
	return -1;
}

/* Per-grid state of the events pass. */
struct rowst {
	int		 seen;
	uint64_t	 since;
	int		 leg;		/* entry now, -1 none */
	double		 value;
};

struct pass {
	struct grid	*gr;
	struct rowst	*rs;		/* per graph row in the window */
	double		*acc;		/* nrows * ncols * nleg */
	double		 sum;		/* of values in the window */
	/* The first pass of an ArrayGraph without a map. */
	int		 ranging;
	double		 vmin, vmax;
	int		 any, integral;
};

/* Resolves the graph's action against the source into gr's rules. */
static int
rules(struct grid *gr, struct pme_error *err)
{
	const struct graph *g = gr->g;

	gr->types = calloc(g->nrules + 1, sizeof(*gr->types));
	gr->add = calloc(g->nrules + 1, sizeof(*gr->add));
	if (gr->types == NULL || gr->add == NULL) {
		pme_setnomem(err);
		return -1;
	}
	for (size_t i = 0; i < g->nrules; i++) {
		uint32_t t = src_type(gr->src, g->rules[i].event);

		if (t == PME_NONE) {
			pme_seterr(err, PME_EINVAL,
			    "%s:%u: unknown event '%s': "
			    "'%s' has no events of that type", g->file,
			    g->rules[i].line, g->rules[i].event,
			    gr->src->path);
			return -1;
		}
		gr->types[gr->ntypes] = t;
		gr->add[gr->ntypes++] = g->rules[i].op == GA_ADD;
	}
	if (g->nrules == 0 && (gkinds[g->kind].flags & GK_EVENTS)) {
		pme_seterr(err, PME_EINVAL, "%s:%u: graph '%s' has no action",
		    g->file, g->line, g->id);
		return -1;
	}
	return 0;
}

int
grid_rule(const struct grid *gr, uint32_t type)
{
	for (size_t i = 0; i < gr->ntypes; i++)
		if (gr->types[i] == type)
			return (int)i;
	return -1;
}

static int
range_fn(const struct pme_ev *ev, size_t n, void *arg)
{
	struct pass *p = arg;

	for (size_t i = 0; i < n; i++) {
		double v = (double)ev[i].value;

		if (grid_rule(p->gr, ev[i].type) < 0 ||
		    (long)ev[i].proc < p->gr->rlo ||
		    (long)ev[i].proc > p->gr->rhi)
			continue;
		if (!p->any || v < p->vmin)
			p->vmin = v;
		if (!p->any || v > p->vmax)
			p->vmax = v;
		p->any = 1;
	}
	return 0;
}

static int
legend_map(struct grid *gr)
{
	const struct graph *g = gr->g;
	const struct src *s = gr->src;

	if (s->names != NULL) {
		/* A sample file: an entry per routine. */
		gr->nleg = s->nnames < MAXLEG ? s->nnames : MAXLEG;
		if ((gr->leg = calloc(gr->nleg + 1, sizeof(*gr->leg))) == NULL)
			return -1;
		for (size_t i = 0; i < gr->nleg; i++) {
			gr->leg[i].lo = gr->leg[i].hi = (double)i;
			gr->leg[i].rgb = s->rgb != NULL ? s->rgb[i] :
			    palette[i % 16];
			snprintf(gr->leg[i].label, sizeof(gr->leg[i].label),
			    "%s", s->names[i]);
		}
		if (s->nnames > MAXLEG) {
			gr->leg[MAXLEG - 1].hi = INFINITY;
			snprintf(gr->leg[MAXLEG - 1].label,
			    sizeof(gr->leg[0].label), "(others)");
		}
		return 0;
	}
	gr->nleg = g->nmap < MAXLEG - 1 ? g->nmap : MAXLEG - 1;
	if ((gr->leg = calloc(gr->nleg + 1, sizeof(*gr->leg))) == NULL)
		return -1;
	for (size_t i = 0; i < gr->nleg; i++) {
		struct legend *l = &gr->leg[i];
		char a[64], b[64];

		l->lo = g->map[i].lo;
		l->hi = g->map[i].hi;
		l->rgb = colour_rgb(g->map[i].color);
		if (g->map[i].label != NULL)
			snprintf(l->label, sizeof(l->label), "%s",
			    g->map[i].label);
		else {
			fmt_value(a, sizeof(a), g, l->lo);
			fmt_value(b, sizeof(b), g, l->hi);
			snprintf(l->label, sizeof(l->label), l->lo == l->hi ?
			    "%s" : "%s - %s", a, b);
		}
	}
	/* Values the map leaves out are shown, not lost. */
	gr->leg[gr->nleg].lo = -INFINITY;
	gr->leg[gr->nleg].hi = INFINITY;
	gr->leg[gr->nleg].rgb = 0xff00ff;
	snprintf(gr->leg[gr->nleg].label, sizeof(gr->leg[0].label),
	    "(not in the map)");
	gr->nleg++;
	return 0;
}

static int
legend_ranges(struct grid *gr, struct pass *p, struct pme_error *err)
{
	const struct graph *g = gr->g;
	size_t n = g->bins > 0 ? (size_t)g->bins : 8;
	double lo, hi, w;
	char a[64], b[64];

	p->ranging = 1;
	if (src_events((struct src *)gr->src, range_fn, p, err) == -1)
		return -1;
	lo = p->any ? p->vmin : 0;
	hi = p->any ? p->vmax : 0;
	if (hi - lo + 1 <= (double)n)
		n = (size_t)(hi - lo + 1);	/* a value per entry */
	w = (hi - lo + 1) / n;
	if ((gr->leg = calloc(n, sizeof(*gr->leg))) == NULL) {
		pme_setnomem(err);
		return -1;
	}
	gr->nleg = n;
	for (size_t i = 0; i < n; i++) {
		struct legend *l = &gr->leg[i];

		l->lo = floor(lo + i * w);
		l->hi = i + 1 == n ? hi : floor(lo + (i + 1) * w) - 1;
		if (l->hi < l->lo)
			l->hi = l->lo;
		l->rgb = ramp(i, n);
		fmt_value(a, sizeof(a), g, l->lo);
		fmt_value(b, sizeof(b), g, l->hi);
		snprintf(l->label, sizeof(l->label), l->lo == l->hi ? "%s" :
		    "%s - %s", a, b);
	}
	gr->has_avg = 1;
	return 0;
}

int
grid_legend(const struct grid *gr, double v)
{
	for (size_t i = 0; i < gr->nleg; i++)
		if (v >= gr->leg[i].lo && v <= gr->leg[i].hi)
			return (int)i;
	/* Between two integer entries of a range legend: the nearer. */
	if (gr->has_avg && gr->nleg > 0)
		return v < gr->leg[0].lo ? 0 : (int)gr->nleg - 1;
	return -1;
}

int
grid_prepare(struct grid *gr, const struct graph *g, const struct src *s,
    struct pme_error *err)
{
	struct pass p = { .gr = gr };
	const char *rows, *title;
	double lo, hi;
	struct pme_error why;
	int rc = -1;

	memset(gr, 0, sizeof(*gr));
	p.gr = gr;
	gr->g = g;
	gr->src = s;
	/* The run is [first, last): a state that begins with the last
	 * event lasts no time.  A run of one instant is one unit long. */
	gr->tlo = s->run.first;
	gr->thi = s->run.last > s->run.first ? s->run.last :
	    s->run.first + 1;
	gr->rlo = 0;
	gr->rhi = (long)s->run.nproc - 1;
	if (g->lo != NULL && g->hi != NULL) {
		if (gexpr_eval(g->lo, sym, (void *)s, &lo, &why) == -1 ||
		    gexpr_eval(g->hi, sym, (void *)s, &hi, &why) == -1) {
			/* %.255s: the reason cut at 255 bytes, as always. */
			pme_seterr(err, PME_EINVAL,
			    "%s:%u: graph '%s': %.255s (known: "
			    "NO_OF_PROCESSORS and the run's parameters)",
			    g->file, g->line, g->id, why.msg);
			return -1;
		}
		if (!(lo <= hi) || lo < 0 || hi >= 1 << 24) {
			pme_seterr(err, PME_EINVAL,
			    "%s:%u: graph '%s': rows %g to "
			    "%g: not a range of processors", g->file,
			    g->line, g->id, lo, hi);
			return -1;
		}
		gr->rlo = (long)lo;
		gr->rhi = (long)hi;
	}
	/* Rows are an event file's processors, a sample file's threads
	 * or a heap's processes: the shipped graph file's titles say
	 * "Processor" for event files, and the rows' word for the others. */
	rows = s->heap ? "Process" : s->rowname != NULL ? "Thread" :
	    "Processor";
	title = g->name != NULL ? g->name : g->menu != NULL ? g->menu : g->id;
	if (g->file != NULL && strcmp(g->file, GFILE_SHIPPED) == 0 &&
	    strncmp(title, "Processor ", 10) == 0)
		snprintf(gr->title, sizeof(gr->title), "%s %s", rows,
		    title + 10);
	else
		snprintf(gr->title, sizeof(gr->title), "%s", title);
	gr->xlabel = g->x_axis != NULL ? g->x_axis : NULL;
	gr->ylabel = g->y_axis != NULL ? g->y_axis : rows;
	gr->occ_time = !(gkinds[g->kind].flags & GK_COUNTS);
	if (rules(gr, err) == -1)
		goto out;
	if (g->nmap > 0 || s->names != NULL || gr->occ_time) {
		if (legend_map(gr) == -1) {
			pme_setnomem(err);
			goto out;
		}
	} else if (legend_ranges(gr, &p, err) == -1)
		goto out;
	rc = 0;
out:
	if (rc == -1)
		grid_free(gr);
	return rc;
}

void
grid_whole(const struct grid *gr, uint32_t ncols, struct window *w)
{
	w->t0 = gr->tlo;
	w->t1 = gr->thi > gr->tlo ? gr->thi : gr->tlo + 1;
	w->r0 = gr->rlo;
	w->r1 = gr->rhi;
	w->ncols = ncols > 0 ? ncols : 1;
}

/* ------------------------------------------------------------- drawing */

void
grid_spread(const struct window *w, double *acc, size_t nleg, uint64_t a,
    uint64_t b, int leg)
{
	double span = (double)(w->t1 - w->t0) / w->ncols;
	uint64_t c0, c1;

	c0 = (uint64_t)((a - w->t0) / span);
	c1 = (uint64_t)((b - 1 - w->t0) / span);
	if (c0 >= w->ncols)
		c0 = w->ncols - 1;
	if (c1 >= w->ncols)
		c1 = w->ncols - 1;
	if (c0 == c1) {
		acc[c0 * nleg + leg] += (double)(b - a);
		return;
	}
	acc[c0 * nleg + leg] += (c0 + 1) * span - (double)(a - w->t0);
	for (uint64_t c = c0 + 1; c < c1; c++)
		acc[c * nleg + leg] += span;
	acc[c1 * nleg + leg] += (double)(b - w->t0) - c1 * span;
}

/* Adds the time of [a, b) in entry leg of grid row r to its cells. */
static void
segment(struct pass *p, long r, uint64_t a, uint64_t b, int leg)
{
	struct grid *gr = p->gr;
	const struct window *w = &gr->w;

	if (leg < 0 || b <= w->t0 || a >= w->t1 || a >= b)
		return;
	if (a < w->t0)
		a = w->t0;
	if (b > w->t1)
		b = w->t1;
	gr->rowocc[(size_t)r * gr->nleg + leg] += (double)(b - a);
	if (gr->occ_time)
		gr->leg[leg].occ += (double)(b - a);
	grid_spread(w, p->acc + (size_t)r * w->ncols * gr->nleg, gr->nleg, a,
	    b, leg);
}

static int
draw_fn(const struct pme_ev *ev, size_t n, void *arg)
{
	struct pass *p = arg;
	struct grid *gr = p->gr;

	for (size_t i = 0; i < n; i++) {
		const struct pme_ev *e = &ev[i];
		struct rowst *rs;
		long r = (long)e->proc;
		uint64_t t = e->time;
		int k;

		if (r < gr->w.r0 || r > gr->w.r1 ||
		    (k = grid_rule(gr, e->type)) < 0)
			continue;
		r -= gr->w.r0;
		rs = &p->rs[r];
		if (rs->seen && t < rs->since)
			t = rs->since;	/* out of order: kept in place */
		if (rs->seen)
			segment(p, r, rs->since, t, rs->leg);
		rs->value = gr->add[k] && rs->seen ? rs->value + e->value :
		    (double)e->value;
		rs->leg = grid_legend(gr, rs->value);
		rs->since = t;
		rs->seen = 1;
		if (t >= gr->w.t0 && t < gr->w.t1) {
			gr->nev++;
			p->sum += rs->value;
			if (!gr->occ_time && rs->leg >= 0)
				gr->leg[rs->leg].occ++;
		}
	}
	return 0;
}

int
grid_begin(struct grid *gr, const struct window *w, double **acc,
    struct pme_error *err)
{
	size_t cells;

	*acc = NULL;
	gr->w = *w;
	if (gr->w.t1 <= gr->w.t0)
		gr->w.t1 = gr->w.t0 + 1;
	if (gr->w.ncols == 0)
		gr->w.ncols = 1;
	if (gr->w.ncols > gr->w.t1 - gr->w.t0)
		gr->w.ncols = (uint32_t)(gr->w.t1 - gr->w.t0);
	if (gr->w.r1 < gr->w.r0)
		gr->w.r1 = gr->w.r0;
	gr->nrows = (uint32_t)(gr->w.r1 - gr->w.r0 + 1);
	cells = (size_t)gr->nrows * gr->w.ncols;
	if (cells * (gr->nleg ? gr->nleg : 1) > MAXCELLS) {
		pme_seterr(err, PME_EINVAL,
		    "a grid of %u rows, %u columns and %zu "
		    "legend entries is too large", gr->nrows, gr->w.ncols,
		    gr->nleg);
		return -1;
	}
	free(gr->cell);
	free(gr->row);
	free(gr->rowocc);
	gr->cell = malloc(cells * sizeof(*gr->cell));
	gr->row = malloc(gr->nrows * sizeof(*gr->row));
	gr->rowocc = calloc((size_t)gr->nrows * gr->nleg + 1, sizeof(double));
	*acc = calloc(cells * gr->nleg + 1, sizeof(**acc));
	if (gr->cell == NULL || gr->row == NULL || gr->rowocc == NULL ||
	    *acc == NULL) {
		free(*acc);
		*acc = NULL;
		pme_setnomem(err);
		return -1;
	}
	for (uint32_t r = 0; r < gr->nrows; r++)
		gr->row[r] = gr->w.r0 + r;
	for (size_t i = 0; i < gr->nleg; i++)
		gr->leg[i].occ = 0;
	gr->nev = 0;
	return 0;
}

void
grid_end(struct grid *gr, const double *acc, double sum)
{
	size_t cells = (size_t)gr->nrows * gr->w.ncols;

	gr->occ_total = 0;
	for (size_t i = 0; i < gr->nleg; i++)
		gr->occ_total += gr->leg[i].occ;
	gr->avg = gr->nev ? sum / gr->nev * gr->g->scale : 0;
	for (size_t c = 0; c < cells; c++) {
		const double *a = acc + c * gr->nleg;
		int best = -1;

		for (size_t k = 0; k < gr->nleg; k++)
			if (a[k] > 0 && (best < 0 || a[k] > a[best]))
				best = (int)k;
		gr->cell[c] = (int16_t)best;
	}
	snprintf(gr->subtitle, sizeof(gr->subtitle), "%s", gr->src->path);
}

int
grid_draw(struct grid *gr, const struct window *w, struct pme_error *err)
{
	struct pass p = { 0 };
	int rc = -1;

	if (grid_begin(gr, w, &p.acc, err) == -1)
		return -1;
	p.gr = gr;
	if ((p.rs = calloc(gr->nrows, sizeof(*p.rs))) == NULL) {
		pme_setnomem(err);
		goto out;
	}
	if (src_events((struct src *)gr->src, draw_fn, &p, err) == -1)
		goto out;
	/* Each row's last value holds to the end of the run. */
	for (uint32_t r = 0; r < gr->nrows; r++)
		if (p.rs[r].seen)
			segment(&p, r, p.rs[r].since, gr->thi > p.rs[r].since ?
			    gr->thi : p.rs[r].since + 1, p.rs[r].leg);
	grid_end(gr, p.acc, p.sum);
	rc = 0;
out:
	free(p.acc);
	free(p.rs);
	return rc;
}

void
grid_free(struct grid *gr)
{
	free(gr->cell);
	free(gr->row);
	free(gr->rowocc);
	free(gr->leg);
	free(gr->types);
	free(gr->add);
	memset(gr, 0, sizeof(*gr));
}
