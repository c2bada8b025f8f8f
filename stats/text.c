/*
 * text.c - stats' character charts (for pipes and files) and CSV: the
 * state and array graphs as rows of characters, one per legend entry,
 * the utilization bars, the histometric histograms and tables.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats.h"
#include "util.h"

/* The character of legend entry i; ' ' is "no data". */
static const char marks[] = "#=+*o%@x:-~^&$!?ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    "abcdefghijklmnopqrstuvwxyz0123456789";

static char
mark(int i)
{
	return i < 0 ? ' ' : marks[i % (int)(sizeof(marks) - 1)];
}

/* A name from a file escaped for a terminal (pme_escape), cut or padded
 * to width characters when width > 0. */
static void
put_name(FILE *fp, const char *s, int width)
{
	char *e = pme_escape_dup(s);
	const char *p;
	int n = 0;

	for (p = e != NULL ? e : "?"; *p != '\0'; p++) {
		if (((unsigned char)*p & 0xc0) != 0x80 && width > 0 &&
		    n++ == width)
			break;
		putc(*p, fp);
	}
	for (; n < width; n++)
		putc(' ', fp);
	free(e);
}

void
occ_text(char *buf, size_t len, const struct grid *gr, double occ,
    int percent)
{
	if (percent || gr->occ_total == 0)
		snprintf(buf, len, "%6.1f%%", gr->occ_total > 0 ?
		    100 * occ / gr->occ_total : 0);
	else {
		struct graph plain = *gr->g;

		plain.scale = 1;
		plain.format = "";
		fmt_value(buf, len, &plain, occ);
	}
}

static void
legend_text(FILE *fp, const struct grid *gr, const struct outopt *o)
{
	char occ[64];

	fprintf(fp, "Legend (%s in view)\n", gr->occ_time ?
	    (o->percent ? "time, %" : "time") :
	    (o->percent ? "events, %" : "events"));
	for (size_t i = 0; i < gr->nleg; i++) {
		/* The catch-all of a map shows only when it caught any. */
		if (gr->leg[i].occ == 0 && i + 1 == gr->nleg &&
		    isinf(gr->leg[i].lo))
			continue;
		occ_text(occ, sizeof(occ), gr, gr->leg[i].occ, o->percent);
		fprintf(fp, "  %c  ", mark((int)i));
		put_name(fp, gr->leg[i].label, 32);
		fprintf(fp, " %s\n", occ);
	}
	if (gr->has_avg) {
		char a[64];

		snprintf(a, sizeof(a), "%g", gr->avg);
		fprintf(fp, "  Average value: %s (%llu events)\n", a,
		    (unsigned long long)gr->nev);
	}
}

static int
label_width(const struct grid *gr)
{
	char buf[64];
	int w = 3;

	for (uint32_t r = 0; r < gr->nrows; r++) {
		int n = (int)strlen(src_rowname(gr->src, gr->row[r], buf,
		    sizeof(buf)));

		if (n > w)
			w = n;
	}
	return w > 16 ? 16 : w;
}

/* The columns of the chart at width columns of text. */
uint32_t
text_columns(const struct grid *gr, int width)
{
	int c = width - label_width(gr) - 4;

	return c < 10 ? 10 : (uint32_t)c;
}

static void
axis(FILE *fp, const struct grid *gr, int lw)
{
	char a[64], b[64];
	struct graph plain = *gr->g;
	int gap;

	plain.scale = 1;
	plain.format = "";
	fprintf(fp, "%*s +", lw, "");
	for (uint32_t c = 0; c < gr->w.ncols; c++)
		putc('-', fp);
	fprintf(fp, "+\n");
	fmt_value(a, sizeof(a), &plain, (double)gr->w.t0);
	fmt_value(b, sizeof(b), &plain, (double)gr->w.t1);
	gap = (int)gr->w.ncols + 2 - (int)strlen(a) - (int)strlen(b);
	fprintf(fp, "%*s %s%*s%s\n", lw, "", a, gap > 1 ? gap : 1, "", b);
	fprintf(fp, "%*s %s%s%s\n", lw, "", gr->xlabel != NULL ? gr->xlabel :
	    "Time / ", gr->xlabel != NULL ? "" : src_unit(gr->src, a,
	    sizeof(a)), "");
}

static int
chart_text(FILE *fp, const struct grid *gr, const struct outopt *o)
{
	int lw = label_width(gr);
	char buf[64];

	fprintf(fp, "%*s +", lw, "");
	for (uint32_t c = 0; c < gr->w.ncols; c++)
		putc('-', fp);
	fprintf(fp, "+\n");
	for (uint32_t r = 0; r < gr->nrows; r++) {
		put_name(fp, src_rowname(gr->src, gr->row[r], buf,
		    sizeof(buf)), 0);
		fprintf(fp, "%*s |", lw - (int)strlen(buf) > 0 ?
		    lw - (int)strlen(buf) : 0, "");
		for (uint32_t c = 0; c < gr->w.ncols; c++)
			putc(mark(gr->cell[(size_t)r * gr->w.ncols + c]), fp);
		fprintf(fp, "|\n");
	}
	axis(fp, gr, lw);
	putc('\n', fp);
	legend_text(fp, gr, o);
	return 0;
}

int
legend_idle(const struct grid *gr, size_t i)
{
	/* A sample file's entries are routines: none is idle time. */
	return gr->src->names == NULL && gr->leg[i].lo <= 0 &&
	    gr->leg[i].hi >= 0 && !isinf(gr->leg[i].lo);
}

/* One bar of a UtilGraph: the row's entries in proportion. */
static void
bar(FILE *fp, const struct grid *gr, const double *occ, double full,
    int width)
{
	double total = 0, done = 0;
	int put = 0;

	for (size_t i = 0; i < gr->nleg; i++)
		if (!(gr->g->normalize && legend_idle(gr, i)))
			total += occ[i];
	if (total <= 0 || full <= 0)
		return;
	/* The work first, idle time (when shown) at the end, as Mstats
	 * drew it. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < gr->nleg; i++) {
			int upto;

			if (legend_idle(gr, i) != pass ||
			    (gr->g->normalize && legend_idle(gr, i)))
				continue;
			done += occ[i];
			upto = (int)lround(done / full * width);
			for (; put < upto && put < width; put++)
				putc(mark((int)i), fp);
		}
}

static int
util_text(FILE *fp, const struct grid *gr, const struct outopt *o)
{
	int lw = label_width(gr), width = (int)gr->w.ncols;
	double *avg, full = 0;
	size_t nr = gr->g->nplotset ? gr->g->nplotset : gr->nrows;
	char buf[64];

	if (lw < 7)
		lw = 7;
	if ((avg = calloc(gr->nleg + 1, sizeof(*avg))) == NULL)
		return -1;
	/* Without Normalize the longest bar spans the width. */
	for (uint32_t r = 0; r < gr->nrows; r++) {
		double t = 0;

		for (size_t i = 0; i < gr->nleg; i++) {
			if (gr->g->normalize && legend_idle(gr, i))
				continue;
			t += gr->rowocc[(size_t)r * gr->nleg + i];
		}
		if (t > full)
			full = t;
	}
	for (size_t k = 0; k < nr; k++) {
		long row = gr->g->nplotset ? gr->g->plotset[k] : gr->row[k];
		const double *occ;
		double t = 0;

		if (row < gr->w.r0 || row > gr->w.r1)
			continue;
		occ = gr->rowocc + (size_t)(row - gr->w.r0) * gr->nleg;
		for (size_t i = 0; i < gr->nleg; i++) {
			avg[i] += occ[i] / nr;
			if (!(gr->g->normalize && legend_idle(gr, i)))
				t += occ[i];
		}
		put_name(fp, src_rowname(gr->src, row, buf, sizeof(buf)), lw);
		fprintf(fp, " |");
		bar(fp, gr, occ, gr->g->normalize ? t : full, width);
		putc('\n', fp);
	}
	{
		double t = 0;

		for (size_t i = 0; i < gr->nleg; i++)
			if (!(gr->g->normalize && legend_idle(gr, i)))
				t += avg[i];
		put_name(fp, "average", lw);
		fprintf(fp, " |");
		bar(fp, gr, avg, gr->g->normalize ? t : full, width);
		putc('\n', fp);
	}
	free(avg);
	putc('\n', fp);
	legend_text(fp, gr, o);
	return 0;
}

int
out_text(FILE *fp, const struct grid *gr, const struct outopt *o)
{
	const char *title = o->title != NULL ? o->title : gr->title;
	char a[64], b[64], u[64];
	struct graph plain = *gr->g;

	plain.scale = 1;
	plain.format = "";
	fmt_value(a, sizeof(a), &plain, (double)gr->w.t0);
	fmt_value(b, sizeof(b), &plain, (double)gr->w.t1);
	put_name(fp, title, 0);
	putc('\n', fp);
	if (o->subtitle != NULL)
		put_name(fp, o->subtitle, 0);
	else {
		put_name(fp, gr->src->path, 0);
		fprintf(fp, ": %s %s to %s, rows %ld to %ld",
		    src_unit(gr->src, u, sizeof(u)), a, b, gr->w.r0, gr->w.r1);
	}
	fprintf(fp, "\n\n");
	if (gkinds[gr->g->kind].flags & GK_BARS)
		util_text(fp, gr, o);
	else
		chart_text(fp, gr, o);
	return ferror(fp) ? -1 : 0;
}

/* -------------------------------------------------------------- CSV */

static void
csv_field(FILE *fp, const char *s0)
{
	char *e = pme_escape_dup(s0);
	const char *s = e != NULL ? e : "?";

	putc('"', fp);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			putc('"', fp);
		putc(*s, fp);
	}
	putc('"', fp);
	free(e);
}

struct csvpass {
	struct grid	*gr;
	FILE		*fp;
	int		*seen;
	uint64_t	*since;
	double		*value;
};

static void
csv_row(struct csvpass *p, long r, uint64_t end)
{
	char buf[64], v[64], esc[256];
	int leg = -1;

	if (end <= p->since[r])
		return;		/* a state that lasted no time */
	if (p->gr->src->names != NULL && p->value[r] < 0)
		return;		/* a sample file's time not sampled */

	for (size_t i = 0; i < p->gr->nleg; i++)
		if (p->value[r] >= p->gr->leg[i].lo &&
		    p->value[r] <= p->gr->leg[i].hi) {
			leg = (int)i;
			break;
		}
	fmt_value(v, sizeof(v), &(struct graph){ .scale = p->gr->g->scale,
	    .format = "%.17g" }, p->value[r]);
	pme_escape(esc, sizeof(esc), src_rowname(p->gr->src, r + p->gr->rlo,
	    buf, sizeof(buf)));
	pme_csv_field(p->fp, esc);
	putc(',', p->fp);
	fprintf(p->fp, "%llu,%llu,%s,", (unsigned long long)p->since[r],
	    (unsigned long long)end, v);
	csv_field(p->fp, leg >= 0 ? p->gr->leg[leg].label : "");
	putc('\n', p->fp);
}

static int
csv_fn(const struct pme_ev *ev, size_t n, void *arg)
{
	struct csvpass *p = arg;

	for (size_t i = 0; i < n; i++) {
		long r = (long)ev[i].proc - p->gr->rlo;
		uint64_t t = ev[i].time;
		int k;

		if ((long)ev[i].proc < p->gr->rlo ||
		    (long)ev[i].proc > p->gr->rhi ||
		    (k = grid_rule(p->gr, ev[i].type)) < 0)
			continue;
		if (p->seen[r] && t < p->since[r])
			t = p->since[r];
		if (p->seen[r] && t > p->since[r])
			csv_row(p, r, t);
		p->value[r] = p->gr->add[k] && p->seen[r] ? p->value[r] +
		    ev[i].value : (double)ev[i].value;
		if (!p->seen[r] || t > p->since[r])
			p->since[r] = t;
		p->seen[r] = 1;
	}
	return 0;
}

int
out_csv(FILE *fp, struct grid *gr, struct pme_error *err)
{
	struct csvpass p = { .gr = gr, .fp = fp };
	size_t nr = (size_t)(gr->rhi - gr->rlo + 1);
	int rc = -1;

	p.seen = calloc(nr, sizeof(*p.seen));
	p.since = calloc(nr, sizeof(*p.since));
	p.value = calloc(nr, sizeof(*p.value));
	if (p.seen == NULL || p.since == NULL || p.value == NULL) {
		pme_setnomem(err);
		goto out;
	}
	fprintf(fp, "row,start,end,value,label\n");
	if (src_events((struct src *)gr->src, csv_fn, &p, err) == -1)
		goto out;
	for (size_t r = 0; r < nr; r++)
		if (p.seen[r])
			csv_row(&p, (long)r, gr->thi > p.since[r] ? gr->thi :
			    p.since[r]);
	rc = ferror(fp) ? -1 : 0;
out:
	free(p.seen);
	free(p.since);
	free(p.value);
	return rc;
}

/* ------------------------------------------------------ histometrics */

static void
set_stats(const struct pme_histo *h, uint32_t s, double *mean, double *sd)
{
	double n = (double)h->n[s];

	*mean = n > 0 ? h->sum[s] / n : 0;
	*sd = n > 1 ? sqrt(fmax(0, (h->sumsq[s] - n * *mean * *mean) /
	    (n - 1))) : 0;
}

int
out_hsummary(FILE *fp, const struct src *s, int csv)
{
	const struct pme_histo *h;
	size_t n = s->ef != NULL ? pme_eventfile_histos(s->ef, &h) : 0;

	if (csv)
		fprintf(fp, "metric,set,n,sum,sum_of_squares,mean,stddev,"
		    "min_bin,max_bin,bins,below_n,below_sum,above_n,"
		    "above_sum\n");
	else
		fprintf(fp, "%-24s %4s %10s %12s %12s %10s %10s %8s %8s\n",
		    "Histometric", "set", "n", "mean", "stddev", "min bin",
		    "max bin", "below", "above");
	for (size_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < h[i].nsets; k++) {
			const uint64_t *c = h[i].counts + (size_t)k *
			    (h[i].nbins + 2);
			double mean, sd;

			set_stats(&h[i], k, &mean, &sd);
			if (csv) {
				csv_field(fp, h[i].name);
				fprintf(fp, ",%u,%llu,%.17g,%.17g,%.17g,%.17g,"
				    "%.17g,%.17g,%u,%llu,%.17g,%llu,%.17g\n",
				    k, (unsigned long long)h[i].n[k],
				    h[i].sum[k], h[i].sumsq[k], mean, sd,
				    h[i].min, h[i].max, h[i].nbins,
				    (unsigned long long)c[0],
				    h[i].below_sum[k],
				    (unsigned long long)c[h[i].nbins + 1],
				    h[i].above_sum[k]);
				continue;
			}
			put_name(fp, h[i].name, 24);
			fprintf(fp, " %4u %10llu %12.6g %12.6g %10.4g %10.4g "
			    "%8llu %8llu\n", k, (unsigned long long)h[i].n[k],
			    mean, sd, h[i].min, h[i].max,
			    (unsigned long long)c[0],
			    (unsigned long long)c[h[i].nbins + 1]);
		}
	return ferror(fp) ? -1 : 0;
}

int
out_histo(FILE *fp, const struct pme_histo *h, const struct graph *g,
    int csv, const struct outopt *o)
{
	size_t cells = (size_t)h->nbins + 2;
	uint64_t *comp, max = 0, total = 0;
	double w = (h->max - h->min) / h->nbins;
	int width = (o->width > 40 ? o->width : 80) - 40;

	if ((comp = calloc(cells, sizeof(*comp))) == NULL)
		return -1;
	for (uint32_t s = 0; s < h->nsets; s++)
		for (size_t k = 0; k < cells; k++)
			comp[k] += h->counts[s * cells + k];
	for (size_t k = 0; k < cells; k++) {
		if (comp[k] > max)
			max = comp[k];
		total += comp[k];
	}
	if (csv) {
		fprintf(fp, "bin,low,high,count\n");
		for (size_t k = 0; k < cells; k++)
			fprintf(fp, "%zu,%.17g,%.17g,%llu\n", k,
			    k == 0 ? -INFINITY : h->min + (k - 1) * w,
			    k + 1 == cells ? INFINITY : h->min + k * w,
			    (unsigned long long)comp[k]);
		free(comp);
		return ferror(fp) ? -1 : 0;
	}
	put_name(fp, o->title != NULL ? o->title : g != NULL && g->name !=
	    NULL ? g->name : h->name, 0);
	fprintf(fp, "\nhistometric '");
	put_name(fp, h->name, 0);
	fprintf(fp, "': %u sets, %u bins from %g to %g, %llu samples\n\n",
	    h->nsets, h->nbins, h->min, h->max, (unsigned long long)total);
	for (size_t k = 0; k < cells; k++) {
		char lo[32], hi[32];
		int stars = max ? (int)lround((double)comp[k] / max * width) : 0;

		if (k == 0)
			snprintf(lo, sizeof(lo), "below"), snprintf(hi,
			    sizeof(hi), "%.6g", h->min);
		else if (k + 1 == cells)
			snprintf(lo, sizeof(lo), "%.6g", h->max),
			    snprintf(hi, sizeof(hi), "above");
		else
			snprintf(lo, sizeof(lo), "%.6g", h->min + (k - 1) * w),
			    snprintf(hi, sizeof(hi), "%.6g", h->min + k * w);
		fprintf(fp, "%10s - %-10s |", lo, hi);
		for (int i = 0; i < stars; i++)
			putc('*', fp);
		fprintf(fp, "%*s %llu\n", width - stars, "",
		    (unsigned long long)comp[k]);
	}
	fprintf(fp, "\n%4s %10s %12s %12s\n", "set", "n", "mean", "stddev");
	for (uint32_t s = 0; s < h->nsets; s++) {
		double mean, sd;

		set_stats(h, s, &mean, &sd);
		fprintf(fp, "%4u %10llu %12.6g %12.6g\n", s,
		    (unsigned long long)h->n[s], mean, sd);
	}
	free(comp);
	return ferror(fp) ? -1 : 0;
}

/* ---------------------------------------------------- run and metrics */

static void
summary_csv(FILE *fp, const struct src *s)
{
	const struct pme_metric *m;
	size_t n = s->ef != NULL ? pme_eventfile_metrics(s->ef, &m) : 0;

	fprintf(fp, "kind,name,index,value\n");
	fprintf(fp, "run,events,0,%llu\nrun,processors,0,%u\n"
	    "run,first,0,%llu\nrun,last,0,%llu\nrun,host_ns,0,%llu\n"
	    "run,start_ns,0,%llu\n", (unsigned long long)s->run.events,
	    s->run.nproc, (unsigned long long)s->run.first,
	    (unsigned long long)s->run.last,
	    (unsigned long long)s->run.host_ns,
	    (unsigned long long)s->run.start);
	for (size_t i = 0; i < n; i++) {
		static const char *kinds[] = { "metric", "array", "parameter" };

		if (m[i].kind == PME_METRIC_ARRAY) {
			for (size_t k = 0; k < m[i].n; k++) {
				fprintf(fp, "array,");
				csv_field(fp, m[i].name);
				fprintf(fp, ",%zu,%.17g\n", k, m[i].v[k]);
			}
			continue;
		}
		fprintf(fp, "%s,", kinds[m[i].kind]);
		csv_field(fp, m[i].name);
		if (m[i].kind == PME_METRIC_SCALAR)
			fprintf(fp, ",0,%.17g\n", m[i].value);
		else {
			fprintf(fp, ",0,");
			csv_field(fp, m[i].text);
			putc('\n', fp);
		}
	}
}

int
out_summary(FILE *fp, const struct src *s, int csv)
{
	const struct pme_metric *m;
	size_t n = s->ef != NULL ? pme_eventfile_metrics(s->ef, &m) : 0;
	struct graph plain = { .scale = 1, .format = "" };
	char date[64], span[64], unit[64];
	time_t t = (time_t)(s->run.start / 1000000000u);
	struct tm tm;

	if (csv) {
		summary_csv(fp, s);
		return ferror(fp) ? -1 : 0;
	}
	t += s->run.utc_offset;
	if (s->run.start != 0 && gmtime_r(&t, &tm) != NULL)
		strftime(date, sizeof(date), "%d %b %Y %H:%M:%S", &tm);
	else
		snprintf(date, sizeof(date), "(unknown date)");
	fmt_value(span, sizeof(span), &plain, (double)(s->run.last -
	    s->run.first));
	fprintf(fp, "Run of '");
	put_name(fp, s->run.command, 0);
	fprintf(fp, "' %s (UTC%+d)\n", date, s->run.utc_offset / 3600);
	fprintf(fp, "    Simulated-system execution time %s %s\n", span,
	    src_unit(s, unit, sizeof(unit)));
	if (s->run.host_ns != 0)
		fprintf(fp, "    Host execution time %.2f s\n",
		    s->run.host_ns / 1e9);
	else
		fprintf(fp, "    Host execution time unknown (the file was "
		    "not closed)\n");
	fprintf(fp, "    %llu events on %u processors\n",
	    (unsigned long long)s->run.events, s->run.nproc);
	for (size_t i = 0; i < n; i++) {
		fprintf(fp, "%-10s ", m[i].kind == PME_METRIC_PARAM ?
		    "parameter" : "metric");
		put_name(fp, m[i].name, 24);
		if (m[i].kind == PME_METRIC_SCALAR)
			fprintf(fp, " %g\n", m[i].value);
		else if (m[i].kind == PME_METRIC_PARAM) {
			putc(' ', fp);
			put_name(fp, m[i].text, 0);
			putc('\n', fp);
		} else {
			fprintf(fp, " {");
			for (size_t k = 0; k < m[i].n; k++)
				fprintf(fp, "%s%g", k ? ", " : "", m[i].v[k]);
			fprintf(fp, "}\n");
		}
	}
	return ferror(fp) ? -1 : 0;
}
