/*
 * ps.c - stats' PostScript: a DSC-conforming document, one graph a page,
 * on paper named by its size.  The prologue holds the title, subtitle
 * and plot background, each defined only when not defined already, so
 * that editing the file or a definition made before it is read (dvips'
 * \special{!...}) changes them; the pages call its procedures with
 * their data.  Cells are written as runs of one colour per row, so a
 * page costs what its grid does, never what its events do.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "stats.h"
#include "util.h"

#define MARGIN		36.0	/* points around the page */
#define HEAD		44.0	/* title and subtitle */
#define LEGROW		11.0	/* a legend line */
#define LEGCOL		180.0	/* a legend column */
#define NODATA		255	/* the run byte of cells without data */

/* The page being written: its number in the document (stats writes one
 * document a run) and its size. */
static int	 pageno;

struct page {
	FILE	*fp;
	double	 w, h;		/* points */
};

static const struct {
	const char	*name;
	int		 w, h;
} papers[] = {
	{ "a3", 842, 1191 }, { "a4", 595, 842 }, { "a5", 420, 595 },
	{ "letter", 612, 792 }, { "legal", 612, 1008 },
	{ "tabloid", 792, 1224 },
};

/* "WxH" in inches or "WxHcm", from 2 inches to 200 inches a side. */
static int
paper_dims(const char *s, double *w, double *h)
{
	double unit = 72, a, b;
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	a = strtod(s, &end);
	if ((*end != 'x' && *end != 'X') ||
	    !isdigit((unsigned char)end[1]))
		return -1;
	b = strtod(end + 1, &end);
	if (strcmp(end, "cm") == 0)
		unit = 72 / 2.54;
	else if (*end != '\0' && strcmp(end, "in") != 0)
		return -1;
	a = round(a * unit);
	b = round(b * unit);
	if (!(a >= 144 && b >= 144 && a <= 14400 && b <= 14400))
		return -1;
	*w = a;
	*h = b;
	return 0;
}

static int
paper_size(const char *name, double *w, double *h)
{
	if (name == NULL)
		name = "a4";
	for (size_t i = 0; i < sizeof(papers) / sizeof(papers[0]); i++)
		if (strcasecmp(papers[i].name, name) == 0) {
			*w = papers[i].w;
			*h = papers[i].h;
			return 0;
		}
	return paper_dims(name, w, h);
}

/* s as a PostScript string: ( ) \ escaped, other bytes than printable
 * ASCII in octal, the line broken (a backslash-newline, which the string
 * leaves out) before it grows past what DSC allows. */
static void
ps_str(FILE *fp, const char *s)
{
	int col = 1;

	putc('(', fp);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (col > 200) {
			fputs("\\\n", fp);
			col = 0;
		}
		if (c == '(' || c == ')' || c == '\\')
			col += fprintf(fp, "\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			col += fprintf(fp, "\\%03o", c);
		else {
			putc(c, fp);
			col++;
		}
	}
	putc(')', fp);
}

/* DSC comments hold printable ASCII only and one line. */
static void
dsc_text(FILE *fp, const char *s)
{
	for (int n = 0; *s != '\0' && n < 200; s++, n++)
		putc(*s >= 0x20 && *s < 0x7f ? *s : '?', fp);
}

static const char prologue[] =
"% stats' procedures.  The pages call them with their data: to change\n"
"% the look of every page, edit them here.  Sizes are in points.\n"
"%\n"
"% The colour behind the plots (red green blue, each from 0 to 1).\n"
"/stats-background where { pop } { /stats-background [0.94 0.94 0.94] def }"
" ifelse\n"
"/stats-dict 64 dict def stats-dict begin\n"
"% size /font F: the font\n"
"/F { findfont exch scalefont setfont } bind def\n"
"% r g b C: the colour, each from 0 to 255\n"
"/C { 3 { 255 div 3 1 roll } repeat setrgbcolor } bind def\n"
"% x y (text) L, RS, CS: text from x, ending at x, centred on x\n"
"/L { 3 1 roll moveto show } bind def\n"
"/RS { dup stringwidth pop 4 -1 roll exch sub 3 -1 roll moveto show }"
" bind def\n"
"/CS { dup stringwidth pop 2 div 4 -1 roll exch sub 3 -1 roll moveto show }"
" bind def\n"
"% x y (text) VS: text up the page, centred on y\n"
"/VS { 3 1 roll gsave translate 90 rotate 0 0 3 -1 roll CS grestore }"
" bind def\n"
"% (title) (subtitle) H: the page's heading, stats-title and\n"
"% stats-subtitle when they are not empty\n"
"/H { stats-subtitle length 0 gt { pop stats-subtitle } if\n"
"     stats-title length 0 gt { exch pop stats-title exch } if\n"
"     0 0 0 C 9 /Helvetica F mg ph mg sub 28 sub 3 -1 roll L\n"
"     14 /Helvetica-Bold F mg ph mg sub 12 sub 3 -1 roll L } bind def\n"
"% x y w h BG: the plot's background\n"
"/BG { gsave stats-background aload pop setrgbcolor rectfill grestore }"
" bind def\n"
"% x y w h FR: a thin black frame\n"
"/FR { gsave 0.5 setlinewidth 0 0 0 C rectstroke grestore } bind def\n"
"% x0 y0 x1 y1 LN: a thin line\n"
"/LN { gsave 0.5 setlinewidth 0 0 0 C 4 2 roll moveto lineto stroke"
" grestore } bind def\n"
"% k K: the colour of legend entry k (CL, a page's [r g b]s)\n"
"/K { CL exch get aload pop C } bind def\n"
"% y <runs> R: a row of cells, in units of a cell, from column 0: byte\n"
"% pairs of a legend entry (255: no data) and the columns it holds\n"
"/R { /rs exch def /ry exch def /rx 0 def\n"
"     0 2 rs length 2 sub { /ri exch def rs ri 1 add get /rn exch def\n"
"       rs ri get dup 255 ne { K rx ry rn 1 rectfill } { pop } ifelse\n"
"       /rx rx rn add def } for } bind def\n"
"% x y k (label) (occupancy) LG: a legend entry, a framed swatch\n"
"/LG { /lo exch def /ll exch def /lk exch def /ly exch def /lx exch def\n"
"      gsave lk K lx ly 1 sub 12 7 rectfill grestore\n"
"      lx ly 1 sub 12 7 FR 0 0 0 C lx 16 add ly ll L\n"
"      lx 170 add ly lo RS } bind def\n"
"% x w k U: a segment of a bar (by, bh: its bottom and height)\n"
"/U { K by exch bh rectfill } bind def\n"
"% y <shades> HB: a set's bar, in units of a bin: a byte a bin, 0 white\n"
"% to 255 the darkest shade (a bin as full as the set's fullest)\n"
"/HB { /rs exch def /ry exch def 0 1 rs length 1 sub { /ri exch def\n"
"       rs ri get 255 div dup 224 mul 255 exch sub exch dup 213 mul\n"
"       255 exch sub exch 127 mul 255 exch sub C ri ry 1 0.8 rectfill\n"
"     } for } bind def\n"
"end\n"
"%%EndProlog\n";

int
ps_begin(FILE *fp, size_t npages, const struct outopt *o, struct pme_error *err)
{
	double w, h;

	if (paper_size(o->paper, &w, &h) == -1) {
		pme_seterr(err, PME_EINVAL,
		    "-s: unknown paper size '%s' (a3, a4, "
		    "a5, letter, legal, tabloid, WxH in inches, WxHcm)",
		    o->paper);
		return -1;
	}
	pageno = 0;
	fputs("%!PS-Adobe-3.0\n%%Creator: stats (pme)\n%%Title: ", fp);
	dsc_text(fp, o->title != NULL ? o->title : "stats graphs");
	fprintf(fp, "\n%%%%Pages: %zu\n%%%%PageOrder: Ascend\n"
	    "%%%%BoundingBox: 0 0 %.0f %.0f\n"
	    "%%%%DocumentMedia: stats %.0f %.0f 0 () ()\n"
	    "%%%%DocumentNeededResources: font Helvetica Helvetica-Bold "
	    "Courier\n%%%%LanguageLevel: 2\n%%%%EndComments\n", npages,
	    w, h, w, h);
	/* The title and subtitle first: they are the lines to edit. */
	fputs("%%BeginProlog\n"
	    "% The title and subtitle of every page; empty, each page's\n"
	    "% own (the graph's name, and what it shows).  Edit them here,\n"
	    "% or define them before this file is read, which wins: in TeX\n"
	    "% with dvips, \\special{!/stats-title (Experiment 1) def}.\n"
	    "/stats-title where { pop } { /stats-title ", fp);
	ps_str(fp, o->title != NULL ? o->title : "");
	fputs(" def } ifelse\n/stats-subtitle where { pop } "
	    "{ /stats-subtitle ", fp);
	ps_str(fp, o->subtitle != NULL ? o->subtitle : "");
	fputs(" def } ifelse\n", fp);
	fputs(prologue, fp);
	fprintf(fp, "%%%%BeginSetup\nstats-dict begin /pw %.0f def "
	    "/ph %.0f def /mg %.0f def end\n"
	    "[{\n%%%%BeginFeature: *PageSize stats\n"
	    "<< /PageSize [%.0f %.0f] >> setpagedevice\n"
	    "%%%%EndFeature\n} stopped cleartomark\n%%%%EndSetup\n",
	    w, h, MARGIN, w, h);
	if (ferror(fp)) {
		stats_syserr(err, 0, "write failed");
		return -1;
	}
	return 0;
}

int
ps_end(FILE *fp)
{
	fputs("%%Trailer\n%%EOF\n", fp);
	return ferror(fp) ? -1 : 0;
}

/*
 * Starts a page: its DSC comment, a save, and the heading.  A paper
 * smaller than need_w x need_h points (the page's furniture with room
 * for a plot) is drawn on a page that large, of the paper's proportions,
 * scaled down to the paper: a small paper (P on a short terminal, -s
 * 2x2) shrinks the drawing rather than turning the plot inside out.
 */
static int
page_begin(struct page *pg, FILE *fp, const struct outopt *o,
    const char *title, const char *subtitle, double need_w, double need_h)
{
	double s = 1;

	pg->fp = fp;
	if (paper_size(o->paper, &pg->w, &pg->h) == -1)
		return -1;
	if (pg->w < need_w)
		s = pg->w / need_w;
	if (pg->h < need_h && pg->h / need_h < s)
		s = pg->h / need_h;
	pageno++;
	fprintf(fp, "%%%%Page: %d %d\nstats-dict begin /pgsave save def\n",
	    pageno, pageno);
	if (s < 1) {
		pg->w /= s;
		pg->h /= s;
		fprintf(fp, "%.6f dup scale /pw %.2f def /ph %.2f def\n", s,
		    pg->w, pg->h);
	}
	ps_str(fp, title);
	putc(' ', fp);
	ps_str(fp, subtitle);
	fputs(" H\n", fp);
	return 0;
}

static int
page_end(struct page *pg)
{
	fputs("pgsave restore end showpage\n", pg->fp);
	return ferror(pg->fp) ? -1 : 0;
}

/* x y (s) op, with the font size first when size > 0. */
static void
text(struct page *pg, double size, const char *font, double x, double y,
    const char *s, const char *op)
{
	if (size > 0)
		fprintf(pg->fp, "%.1f /%s F ", size, font);
	fprintf(pg->fp, "0 0 0 C %.2f %.2f ", x, y);
	ps_str(pg->fp, s);
	fprintf(pg->fp, " %s\n", op);
}

static void
colours(struct page *pg, const struct grid *gr)
{
	fputs("/CL [", pg->fp);
	for (size_t i = 0; i < gr->nleg; i++)
		fprintf(pg->fp, "%s[%u %u %u]", i % 8 ? " " : "\n",
		    (unsigned)(gr->leg[i].rgb >> 16 & 0xff),
		    (unsigned)(gr->leg[i].rgb >> 8 & 0xff),
		    (unsigned)(gr->leg[i].rgb & 0xff));
	fputs("\n] def\n", pg->fp);
}

/* ----------------------------------------------------------- legends */

/* s in at most chars characters (UTF-8) into buf (len bytes): when longer,
 * its first chars - 1 and a '~' that marks the cut. */
static const char *
cut_label(char *buf, size_t len, const char *s, size_t chars)
{
	size_t n = 0, k = 0, i;

	for (i = 0; s[i] != '\0'; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	for (i = 0; s[i] != '\0' && i + 2 < len; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 &&
		    ++k > (n > chars ? chars - 1 : chars))
			break;
		buf[i] = s[i];
	}
	if (n > chars)
		buf[i++] = '~';
	buf[i] = '\0';
	return buf;
}

/* The plot's box, between the row labels and the right margin, the
 * heading and the axis above the legend. */
struct box {
	double	 x0, y0, x1, y1;
};

/* Whether legend entry i shows: the catch-all of a map only when it
 * caught anything, as in the text charts. */
static int
shown(const struct grid *gr, size_t i)
{
	return !(gr->leg[i].occ == 0 && i + 1 == gr->nleg &&
	    isinf(gr->leg[i].lo));
}

static size_t
legend_columns(const struct page *pg)
{
	size_t n = (size_t)((pg->w - 2 * MARGIN) / LEGCOL);

	return n < 1 ? 1 : n > 4 ? 4 : n;
}

/* The height the legend takes at the bottom of the page. */
static double
legend_height(const struct page *pg, const struct grid *gr)
{
	size_t n = 0, cols = legend_columns(pg);

	for (size_t i = 0; i < gr->nleg; i++)
		n += shown(gr, i);
	return LEGROW * (double)((n + cols - 1) / cols + 1 + gr->has_avg) +
	    4;
}

/* The legend under the plot's box b, in the room plot_box() left. */
static void
legend(struct page *pg, const struct grid *gr, const struct outopt *o,
    const struct box *b)
{
	size_t cols = legend_columns(pg), k = 0, rows, n = 0;
	double top = b->y0 - 34 - LEGROW;
	char occ[64], label[4 * 28 + 2];

	for (size_t i = 0; i < gr->nleg; i++)
		n += shown(gr, i);
	rows = (n + cols - 1) / cols;
	snprintf(label, sizeof(label), "Legend (%s in view)", gr->occ_time ?
	    (o->percent ? "time, %" : "time") :
	    (o->percent ? "events, %" : "events"));
	text(pg, 9, "Helvetica-Bold", MARGIN, top, label, "L");
	fputs("7 /Helvetica F\n", pg->fp);
	for (size_t i = 0; i < gr->nleg; i++) {
		if (!shown(gr, i))
			continue;
		occ_text(occ, sizeof(occ), gr, gr->leg[i].occ, o->percent);
		/* What does not fit its column is cut, not overlapped,
		 * and the cut marked. */
		cut_label(label, sizeof(label), gr->leg[i].label, 28);
		fprintf(pg->fp, "%.2f %.2f %zu ", MARGIN + LEGCOL *
		    (double)(k / rows), top - LEGROW * (double)(k % rows + 1),
		    i);
		ps_str(pg->fp, label);
		putc(' ', pg->fp);
		ps_str(pg->fp, occ);
		fputs(" LG\n", pg->fp);
		k++;
	}
	if (gr->has_avg) {
		char a[128];

		snprintf(a, sizeof(a), "Average value: %g (%llu events)",
		    gr->avg, (unsigned long long)gr->nev);
		text(pg, 0, NULL, MARGIN, top - LEGROW * (double)(rows + 1),
		    a, "L");
	}
}

/* ------------------------------------------------------------ charts */

static double
label_room(const struct grid *gr, const long *rows, size_t n)
{
	char buf[64];
	size_t w = 3;

	for (size_t r = 0; r < n; r++) {
		size_t k = strlen(src_rowname(gr->src, rows[r], buf,
		    sizeof(buf)));

		if (k > w)
			w = k;
	}
	return (double)(w > 16 ? 16 : w) * 4.2 + 6;
}

/* At most maxh high (0: all there is). */
static void
plot_box(const struct page *pg, const struct grid *gr, double labels,
    double maxh, struct box *b)
{
	b->x0 = MARGIN + 14 + labels;
	b->x1 = pg->w - MARGIN;
	b->y0 = MARGIN + legend_height(pg, gr) + 34;
	b->y1 = pg->h - MARGIN - HEAD;
	if (maxh > 0 && b->y1 - b->y0 > maxh)
		b->y0 = b->y1 - maxh;
	/* The test suite (and a curious reader) finds the plot here. */
	fprintf(pg->fp, "%% plot %.2f %.2f %.2f %.2f\n", b->x0, b->y0, b->x1,
	    b->y1);
	fprintf(pg->fp, "%.2f %.2f %.2f %.2f BG\n", b->x0, b->y0,
	    b->x1 - b->x0, b->y1 - b->y0);
}

/* Row names down the left of the box, every step'th when they are
 * thinner than a readable font. */
static void
row_labels(struct page *pg, const struct grid *gr, const long *rows,
    size_t n, const struct box *b, double pitch, double first)
{
	double fs = pitch * 0.85 < 4 ? 4 : pitch * 0.85 > 8 ? 8 : pitch * 0.85;
	/* A pitch of no height (rows past the box): every row. */
	size_t step = pitch > 0 ? (size_t)ceil(fs * 1.1 / pitch) : 1;
	char buf[64];

	fprintf(pg->fp, "%.1f /Helvetica F\n", fs);
	for (size_t r = 0; r < n; r += step ? step : 1)
		text(pg, 0, NULL, b->x0 - 3, first - pitch * ((double)r + 0.5) -
		    fs * 0.35, src_rowname(gr->src, rows[r], buf, sizeof(buf)),
		    "RS");
	text(pg, 8, "Helvetica", MARGIN + 6, (b->y0 + b->y1) / 2,
	    gr->ylabel != NULL ? gr->ylabel : "", "VS");
}

/* The x axis under the box: ticks at tenths, the ends labelled. */
static void
x_axis(struct page *pg, const struct box *b, const char *lo,
    const char *hi, const char *label)
{
	for (int i = 0; i <= 10; i++) {
		double x = b->x0 + (b->x1 - b->x0) * i / 10;

		fprintf(pg->fp, "%.2f %.2f %.2f %.2f LN\n", x, b->y0, x,
		    b->y0 - (i % 5 ? 2 : 4));
	}
	text(pg, 7, "Helvetica", b->x0, b->y0 - 12, lo, "L");
	text(pg, 0, NULL, b->x1, b->y0 - 12, hi, "RS");
	text(pg, 8, "Helvetica", (b->x0 + b->x1) / 2, b->y0 - 24, label,
	    "CS");
}

/*
 * The time axis's unit into unit (len bytes), and what a time is divided
 * by in it: a run in nanoseconds (a sample file, a clock-time event file)
 * in the largest of s, ms and us of which the window's end is one or
 * more; another unit as the run names it.
 */
static double
time_unit(const struct grid *gr, char *unit, size_t len)
{
	static const struct {
		double		 div;
		const char	*name;
	} u[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" } };

	src_unit(gr->src, unit, len);
	if (strcmp(gr->src->run.unit, "ns") == 0)
		for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
			if ((double)gr->w.t1 >= u[i].div) {
				snprintf(unit, len, "%s", u[i].name);
				return u[i].div;
			}
	return 1;
}

/* Time t in the axis's unit: as the run counts it, or scaled by div
 * with four significant digits at the window's end. */
static void
time_text(char *buf, size_t len, const struct grid *gr, uint64_t t)
{
	struct graph plain = *gr->g;
	char unit[64];
	double div = time_unit(gr, unit, sizeof(unit)), end;
	int digits;

	if (div == 1) {
		plain.scale = 1;
		plain.format = "";
		fmt_value(buf, len, &plain, (double)t);
		return;
	}
	end = (double)gr->w.t1 / div;
	digits = end >= 1000 ? 0 : end >= 100 ? 1 : end >= 10 ? 2 : 3;
	snprintf(buf, len, "%.*f", digits, (double)t / div);
}

/* A row's cells as runs of one legend entry, two bytes a run in hex. */
static void
cell_runs(FILE *fp, const struct grid *gr, uint32_t r)
{
	const int16_t *c = gr->cell + (size_t)r * gr->w.ncols;
	uint32_t i = 0;
	int col = 0;

	fprintf(fp, "%u <", r);
	while (i < gr->w.ncols) {
		uint32_t n = 1;

		while (i + n < gr->w.ncols && c[i + n] == c[i] && n < 255)
			n++;
		if (col >= 64) {
			putc('\n', fp);
			col = 0;
		}
		fprintf(fp, "%02x%02x", c[i] < 0 ? NODATA : (unsigned)c[i], n);
		col += 4;
		i += n;
	}
	fputs("> R\n", fp);
}

static void
chart(struct page *pg, const struct grid *gr, const struct outopt *o)
{
	struct box b;
	double pitch;
	char lo[64], hi[64], xl[128], unit[64];

	plot_box(pg, gr, label_room(gr, gr->row, gr->nrows), 0, &b);
	pitch = (b.y1 - b.y0) / gr->nrows;
	colours(pg, gr);
	/* A cell is a unit; rows go down from the top. */
	fprintf(pg->fp, "gsave %.2f %.2f translate %.6f %.6f scale\n", b.x0,
	    b.y1, (b.x1 - b.x0) / gr->w.ncols, -pitch);
	for (uint32_t r = 0; r < gr->nrows; r++)
		cell_runs(pg->fp, gr, r);
	fputs("grestore\n", pg->fp);
	fprintf(pg->fp, "%.2f %.2f %.2f %.2f FR\n", b.x0, b.y0, b.x1 - b.x0,
	    b.y1 - b.y0);
	row_labels(pg, gr, gr->row, gr->nrows, &b, pitch, b.y1);
	time_text(lo, sizeof(lo), gr, gr->w.t0);
	time_text(hi, sizeof(hi), gr, gr->w.t1);
	time_unit(gr, unit, sizeof(unit));
	snprintf(xl, sizeof(xl), "%s%s", gr->xlabel != NULL ? gr->xlabel :
	    "Time / ", gr->xlabel != NULL ? "" : unit);
	x_axis(pg, &b, lo, hi, xl);
	legend(pg, gr, o, &b);
}

/* --------------------------------------------------------- UtilGraph */

struct util {
	long	*rows;		/* the rows drawn, in order */
	size_t	 n;
	double	*avg;		/* the average row's occupancy */
	double	 full;		/* the length of a full bar */
};

static double
util_total(const struct grid *gr, const double *occ)
{
	double t = 0;

	for (size_t i = 0; i < gr->nleg; i++)
		if (!(gr->g->normalize && legend_idle(gr, i)))
			t += occ[i];
	return t;
}

static const double *
util_occ(const struct grid *gr, long row)
{
	return gr->rowocc + (size_t)(row - gr->w.r0) * gr->nleg;
}

/* The rows PlotSet names that the window holds (all of them without
 * one), their average and the longest bar. */
static int
util_rows(const struct grid *gr, struct util *u)
{
	size_t n = gr->g->nplotset ? gr->g->nplotset : gr->nrows;

	u->rows = calloc(n + 1, sizeof(*u->rows));
	u->avg = calloc(gr->nleg + 1, sizeof(*u->avg));
	u->n = 0;
	u->full = 0;
	if (u->rows == NULL || u->avg == NULL)
		return -1;
	for (size_t k = 0; k < n; k++) {
		long row = gr->g->nplotset ? gr->g->plotset[k] : gr->row[k];

		if (row >= gr->w.r0 && row <= gr->w.r1)
			u->rows[u->n++] = row;
	}
	for (size_t k = 0; k < u->n; k++) {
		const double *occ = util_occ(gr, u->rows[k]);

		for (size_t i = 0; i < gr->nleg; i++)
			u->avg[i] += occ[i] / (double)u->n;
		if (util_total(gr, occ) > u->full)
			u->full = util_total(gr, occ);
	}
	return 0;
}

static void
util_bar(struct page *pg, const struct grid *gr, const double *occ,
    double full, const struct box *b)
{
	double x = b->x0, scale;

	if (full <= 0)
		return;
	scale = (b->x1 - b->x0) / full;
	/* The work first, idle time (when shown) last, as Mstats did and
	 * the text bars do. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < gr->nleg; i++) {
			if (legend_idle(gr, i) != pass || (gr->g->normalize &&
			    legend_idle(gr, i)) || occ[i] <= 0)
				continue;
			fprintf(pg->fp, "%.3f %.3f %zu U\n", x, occ[i] * scale,
			    i);
			x += occ[i] * scale;
		}
}

static int
util(struct page *pg, const struct grid *gr, const struct outopt *o)
{
	struct util u;
	struct box b;
	double pitch, y;
	char hi[64], xl[160], unit[64];

	if (util_rows(gr, &u) == -1) {
		free(u.rows);
		free(u.avg);
		return -1;
	}
	u.rows[u.n] = -1;	/* the average bar */
	/* Bars at most 24 points apart: a few rows make a short plot. */
	plot_box(pg, gr, label_room(gr, u.rows, u.n) + 20,
	    24 * ((double)u.n + 1.5), &b);
	pitch = (b.y1 - b.y0) / ((double)u.n + 1.5);
	colours(pg, gr);
	for (size_t k = 0; k <= u.n; k++) {
		const double *occ = k < u.n ? util_occ(gr, u.rows[k]) : u.avg;

		/* The average stands apart, half a bar below the rest. */
		y = b.y1 - pitch * ((double)k + 1 + (k == u.n ? 0.5 : 0));
		fprintf(pg->fp, "/by %.3f def /bh %.3f def\n", y + pitch * 0.15,
		    pitch * 0.7);
		util_bar(pg, gr, occ, gr->g->normalize ? util_total(gr, occ) :
		    u.full, &b);
	}
	fprintf(pg->fp, "%.2f %.2f %.2f %.2f FR\n", b.x0, b.y0, b.x1 - b.x0,
	    b.y1 - b.y0);
	row_labels(pg, gr, u.rows, u.n, &b, pitch, b.y1);
	y = b.y1 - pitch * ((double)u.n + 1.5);
	text(pg, 0, NULL, b.x0 - 3, y + pitch * 0.5 - 2.5, "average", "RS");
	if (gr->g->normalize) {
		x_axis(pg, &b, "0%", "100%", "Share of the time not idle");
	} else {
		time_text(hi, sizeof(hi), gr, (uint64_t)llround(u.full));
		time_unit(gr, unit, sizeof(unit));
		snprintf(xl, sizeof(xl), "%s%s", gr->xlabel != NULL ?
		    gr->xlabel : "Time / ", gr->xlabel != NULL ? "" : unit);
		x_axis(pg, &b, "0", hi, xl);
	}
	legend(pg, gr, o, &b);
	free(u.rows);
	free(u.avg);
	return 0;
}

int
out_ps(FILE *fp, const struct grid *gr, const struct outopt *o)
{
	struct page pg;
	char sub[512], a[64], b[64], unit[64];
	int rc = 0;

	time_text(a, sizeof(a), gr, gr->w.t0);
	time_text(b, sizeof(b), gr, gr->w.t1);
	time_unit(gr, unit, sizeof(unit));
	snprintf(sub, sizeof(sub), "%s: %s %s to %s, rows %ld to %ld",
	    gr->src->path, unit, a, b, gr->w.r0, gr->w.r1);
	/* A legend column; the widest row labels (label_room(), 20
	 * points more for util's bars) and an inch of plot; the legend
	 * and an inch of plot. */
	if (paper_size(o->paper, &pg.w, &pg.h) == -1 ||
	    page_begin(&pg, fp, o, gr->title, sub, 2 * MARGIN +
	    fmax(LEGCOL, 14 + 16 * 4.2 + 6 + 20 + 72), 2 * MARGIN + HEAD +
	    legend_height(&pg, gr) + 34 + 72) == -1)
		return -1;
	if (gkinds[gr->g->kind].flags & GK_BARS)
		rc = util(&pg, gr, o);
	else
		chart(&pg, gr, o);
	if (page_end(&pg) == -1)
		return -1;
	return rc;
}

/* ------------------------------------------------------ histometrics */

/* The sets drawn: PlotSet's that the histometric has, else all. */
static size_t
histo_sets(const struct pme_histo *h, const struct graph *g, long *sets)
{
	size_t n = 0;

	if (g == NULL || g->nplotset == 0) {
		for (uint32_t s = 0; s < h->nsets; s++)
			sets[n++] = s;
		return n;
	}
	for (size_t k = 0; k < g->nplotset; k++)
		if (g->plotset[k] >= 0 && g->plotset[k] < (long)h->nsets)
			sets[n++] = g->plotset[k];
	return n;
}

/* Where value v falls, in bins from the left edge of the below bin:
 * the end bins, which have no width, at their middle. */
static double
histo_x(const struct pme_histo *h, double v)
{
	double w = (h->max - h->min) / h->nbins;

	if (!(w > 0) || v < h->min)
		return 0.5;
	if (v >= h->max)
		return h->nbins + 1.5;
	return 1 + (v - h->min) / w;
}

/* The composite histogram: a bar a bin, the end bins paler. */
static void
composite(struct page *pg, const struct pme_histo *h, const long *sets,
    size_t n, const struct box *b)
{
	size_t cells = (size_t)h->nbins + 2;
	uint64_t *comp = calloc(cells, sizeof(*comp)), max = 0;
	double cw = (b->x1 - b->x0) / cells;
	char buf[64];

	if (comp == NULL)
		return;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < cells; i++)
			comp[i] += h->counts[(size_t)sets[k] * cells + i];
	for (size_t i = 0; i < cells; i++)
		if (comp[i] > max)
			max = comp[i];
	fprintf(pg->fp, "%.2f %.2f %.2f %.2f BG\n", b->x0, b->y0,
	    b->x1 - b->x0, b->y1 - b->y0);
	for (size_t i = 0; max > 0 && i < cells; i++) {
		if (comp[i] == 0)
			continue;
		fprintf(pg->fp, "%s %.3f %.2f %.3f %.3f rectfill\n",
		    i == 0 || i + 1 == cells ? "142 164 214 C" :
		    "47 111 224 C", b->x0 + cw * (double)i + cw * 0.1, b->y0,
		    cw * 0.8, (b->y1 - b->y0) * (double)comp[i] / (double)max);
	}
	fprintf(pg->fp, "%.2f %.2f %.2f %.2f FR\n", b->x0, b->y0,
	    b->x1 - b->x0, b->y1 - b->y0);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)max);
	text(pg, 7, "Helvetica", b->x0 - 3, b->y1 - 5, buf, "RS");
	text(pg, 0, NULL, b->x0 - 3, b->y0, "0", "RS");
	text(pg, 8, "Helvetica", MARGIN + 6, (b->y0 + b->y1) / 2,
	    "Samples", "VS");
	free(comp);
}

/* A bar a set, its bins shaded by their share of its fullest, with a
 * red marker at its mean that is wider the more samples it has. */
static void
set_bars(struct page *pg, const struct pme_histo *h, const long *sets,
    size_t n, const struct box *b, double pitch)
{
	size_t cells = (size_t)h->nbins + 2;
	double cw = (b->x1 - b->x0) / cells, width = b->x1 - b->x0;
	uint64_t nmax = 0;
	char buf[32];

	for (size_t k = 0; k < n; k++)
		if (h->n[sets[k]] > nmax)
			nmax = h->n[sets[k]];
	fprintf(pg->fp, "gsave %.2f %.2f translate %.6f %.6f scale\n", b->x0,
	    b->y1, cw, -pitch);
	for (size_t k = 0; k < n; k++) {
		const uint64_t *c = h->counts + (size_t)sets[k] * cells;
		uint64_t top = 0;

		for (size_t i = 0; i < cells; i++)
			if (c[i] > top)
				top = c[i];
		fprintf(pg->fp, "%.2f <", (double)k + 0.1);
		for (size_t i = 0; i < cells; i++)
			fprintf(pg->fp, "%s%02x", i % 32 || i == 0 ? "" : "\n",
			    top ? (unsigned)llround(255.0 * (double)c[i] /
			    (double)top) : 0);
		fputs("> HB\n", pg->fp);
	}
	fputs("grestore\n1 0 0 setrgbcolor\n", pg->fp);
	for (size_t k = 0; k < n; k++) {
		uint64_t ns = h->n[sets[k]];
		double mw, x;

		if (ns == 0)
			continue;
		/* Mstats' AvgBarRange {0.005, 0.04} of the plot's width. */
		mw = width * (0.005 + 0.035 * (double)ns / (double)nmax);
		x = b->x0 + cw * histo_x(h, h->sum[sets[k]] / (double)ns);
		fprintf(pg->fp, "%.3f %.3f %.3f %.3f rectfill\n", x - mw / 2,
		    b->y1 - pitch * ((double)k + 0.95), mw, pitch * 0.9);
	}
	fprintf(pg->fp, "%.2f %.2f %.2f %.2f FR\n", b->x0, b->y0,
	    b->x1 - b->x0, b->y1 - b->y0);
	fputs("0 0 0 C\n", pg->fp);
	for (size_t k = 0; k < n; k++) {
		snprintf(buf, sizeof(buf), "%ld", sets[k]);
		fprintf(pg->fp, "%s", k ? "" : "7 /Helvetica F\n");
		text(pg, 0, NULL, b->x0 - 3, b->y1 - pitch * ((double)k + 0.5) -
		    2.5, buf, "RS");
	}
	text(pg, 8, "Helvetica", MARGIN + 6, (b->y0 + b->y1) / 2, "Set",
	    "VS");
}

/* The bins' edges under the sets: the range's ends, some edges
 * between, and the end bins named. */
static void
bin_axis(struct page *pg, const struct pme_histo *h, const struct box *b,
    const char *label)
{
	size_t cells = (size_t)h->nbins + 2, step;
	double cw = (b->x1 - b->x0) / cells, w = (h->max - h->min) / h->nbins;
	char buf[32];

	step = (size_t)ceil((double)h->nbins * 40 / (b->x1 - b->x0 - 2 * cw));
	if (step < 1)
		step = 1;
	fputs("7 /Helvetica F\n", pg->fp);
	for (size_t e = 0; e <= h->nbins; e++) {
		double x = b->x0 + cw * (double)(e + 1);

		fprintf(pg->fp, "%.2f %.2f %.2f %.2f LN\n", x, b->y0, x,
		    b->y0 - 3);
		if (e % step != 0 && e != h->nbins)
			continue;
		if (e != h->nbins && h->nbins - e < step)
			continue;	/* the last edge is always written */
		snprintf(buf, sizeof(buf), "%.4g", h->min + w * (double)e);
		text(pg, 0, NULL, x, b->y0 - 11, buf, "CS");
	}
	text(pg, 0, NULL, b->x0 + cw / 2, b->y0 - 20, "below", "CS");
	text(pg, 0, NULL, b->x1 - cw / 2, b->y0 - 20, "above", "CS");
	text(pg, 8, "Helvetica", (b->x0 + b->x1) / 2, b->y0 - 32, label,
	    "CS");
}

int
out_histo_ps(FILE *fp, const struct pme_histo *h, const struct graph *g,
    const struct outopt *o)
{
	struct page pg;
	struct box b, sb;
	long *sets;
	size_t n;
	uint64_t total = 0;
	double avail, pitch, ch;
	char sub[512];

	if ((sets = calloc(h->nsets + (g != NULL ? g->nplotset : 0) + 1,
	    sizeof(*sets))) == NULL)
		return -1;
	n = histo_sets(h, g, sets);
	for (size_t k = 0; k < n; k++)
		total += h->n[sets[k]];
	snprintf(sub, sizeof(sub), "histometric '%.200s': %zu of %u sets, "
	    "%u bins from %g to %g and two end bins, %llu samples", h->name,
	    n, h->nsets, h->nbins, h->min, h->max,
	    (unsigned long long)total);
	/* Two inches of the sets' sum, half an inch of bars. */
	if (page_begin(&pg, fp, o, g != NULL && g->name != NULL ? g->name :
	    h->name, sub, 2 * MARGIN + 40 + 144, 2 * MARGIN + HEAD + 50 + 20 +
	    144 + 36) == -1) {
		free(sets);
		return -1;
	}
	b.x0 = MARGIN + 40;
	b.x1 = pg.w - MARGIN;
	b.y1 = pg.h - MARGIN - HEAD;
	avail = b.y1 - (MARGIN + 50);
	/* Mstats' BarPartSize: the composite half the sets' height. */
	pitch = n ? (avail - 20) / 1.5 / (double)n : 0;
	if (pitch > 24)
		pitch = 24;
	ch = n ? pitch * (double)n * 0.5 : avail - 20;
	if (ch < 144)
		ch = 144;
	if (ch > avail / 2)
		ch = avail / 2;
	if (n && pitch * (double)n > avail - 20 - ch)
		pitch = (avail - 20 - ch) / (double)n;
	b.y0 = b.y1 - ch;
	composite(&pg, h, sets, n, &b);
	sb = b;
	sb.y1 = b.y0 - 20;
	sb.y0 = sb.y1 - pitch * (double)n;
	if (n > 0) {
		fprintf(pg.fp, "%.2f %.2f %.2f %.2f BG\n", sb.x0, sb.y0,
		    sb.x1 - sb.x0, sb.y1 - sb.y0);
		set_bars(&pg, h, sets, n, &sb, pitch);
	}
	bin_axis(&pg, h, &sb, g != NULL && g->x_axis != NULL ? g->x_axis :
	    "Value");
	text(&pg, 7, "Helvetica", MARGIN, MARGIN, "Above: the sets' sum. "
	    "Below: a bar a set, a bin darker the fuller it is (to the "
	    "set's fullest); red: the set's mean, wider the more samples.",
	    "L");
	free(sets);
	return page_end(&pg);
}

/* HistoSummary: a line per set of each histometric. */
int
out_hsummary_ps(FILE *fp, const struct src *s, const struct graph *g,
    const struct outopt *o)
{
	const struct pme_histo *h;
	size_t n = s->ef != NULL ? pme_eventfile_histos(s->ef, &h) : 0;
	struct page pg;
	double y;
	char buf[256];

	/* A line of 75 characters of 7-point Courier, and a row. */
	if (page_begin(&pg, fp, o, g->name != NULL ? g->name : "Histometrics",
	    s->path, 2 * MARGIN + 75 * 4.2, 2 * MARGIN + HEAD + 30) == -1)
		return -1;
	y = pg.h - MARGIN - HEAD - 10;
	snprintf(buf, sizeof(buf), "%-24s %4s %10s %12s %10s %10s",
	    "Histometric", "set", "n", "mean", "min bin", "max bin");
	text(&pg, 7, "Courier-Bold", MARGIN, y, buf, "L");
	fputs("7 /Courier F\n", pg.fp);
	for (size_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < h[i].nsets && y > MARGIN + 9; k++) {
			y -= 8.5;
			snprintf(buf, sizeof(buf), "%-24.24s %4u %10llu %12.6g "
			    "%10.4g %10.4g", h[i].name, k,
			    (unsigned long long)h[i].n[k], h[i].n[k] ?
			    h[i].sum[k] / (double)h[i].n[k] : 0, h[i].min,
			    h[i].max);
			text(&pg, 0, NULL, MARGIN, y, buf, "L");
		}
	return page_end(&pg);
}

/* --------------------------------------------------------- LineGraph */

/* Row r's plot in box b: a bar a column, the largest value the row held
 * in it, the box's height the row's largest. */
static void
line_plot(struct page *pg, const struct line *l, size_t r,
    const struct box *b, double *col, uint32_t ncols)
{
	const struct lrow *row = &l->row[r];
	char name[256], raw[256], top[64];
	double h = b->y1 - b->y0, w = (b->x1 - b->x0) / ncols, x;
	/* A bar is a point wide at least, so that a column's peak shows. */
	double bw = w < 1 ? 1 : w;

	line_columns(l, r, col, ncols);
	fprintf(pg->fp, "%.2f %.2f %.2f %.2f BG\n0 0 128 C\n", b->x0, b->y0,
	    b->x1 - b->x0, h);
	for (uint32_t c = 0; c < ncols; c++)
		if (col[c] > 0 && row->max > 0) {
			x = b->x0 + c * w;
			fprintf(pg->fp, "%.2f %.2f %.2f %.2f rectfill\n",
			    x + bw > b->x1 ? b->x1 - bw : x, b->y0, bw, h *
			    col[c] / (double)row->max);
		}
	fprintf(pg->fp, "%.2f %.2f %.2f %.2f FR\n", b->x0, b->y0, b->x1 -
	    b->x0, h);
	src_rowname(l->src, (long)r, raw, sizeof(raw));
	pme_escape(name, sizeof(name), raw);
	fmt_value(top, sizeof(top), l->g, (double)row->max);
	text(pg, 7, "Helvetica", b->x0 - 3, b->y1 - 7, top, "RS");
	text(pg, 0, NULL, b->x0 - 3, b->y0, "0", "RS");
	text(pg, 0, NULL, b->x0 - 3, (b->y0 + b->y1) / 2, name, "RS");
}

int
out_line_ps(FILE *fp, const struct line *l, const struct outopt *o)
{
	struct grid axis;
	struct page pg;
	struct box b;
	char sub[512], hi[64], unit[64], xl[128];
	double *col, top, pitch;
	uint32_t ncols = 600;
	size_t n = 0, k = 0;

	memset(&axis, 0, sizeof(axis));
	axis.g = l->g;
	axis.src = l->src;
	axis.w.t1 = l->t1;
	time_text(hi, sizeof(hi), &axis, l->t1);
	time_unit(&axis, unit, sizeof(unit));
	snprintf(sub, sizeof(sub), "%s: %s 0 to %s", l->src->path, unit, hi);
	for (size_t r = 0; r < l->nrows; r++)
		n += l->row[r].pt.n > 0;
	if ((col = calloc(ncols, sizeof(*col))) == NULL)
		return -1;
	if (page_begin(&pg, fp, o, o->title != NULL ? o->title :
	    l->g->name != NULL ? l->g->name : l->g->id, sub, 2 * MARGIN + 200,
	    2 * MARGIN + HEAD + 40 + 30 * (double)(n > 0 ? n : 1)) == -1) {
		free(col);
		return -1;
	}
	top = pg.h - MARGIN - HEAD;
	pitch = (top - MARGIN - 40) / (double)(n > 0 ? n : 1);
	b.x0 = MARGIN + 90;
	b.x1 = pg.w - MARGIN;
	for (size_t r = 0; r < l->nrows; r++) {
		if (l->row[r].pt.n == 0)
			continue;
		b.y1 = top - pitch * (double)k++;
		b.y0 = b.y1 - pitch + 8;
		line_plot(&pg, l, r, &b, col, ncols);
	}
	free(col);
	snprintf(xl, sizeof(xl), "%s%s", l->g->x_axis != NULL ? l->g->x_axis :
	    "Time / ", l->g->x_axis != NULL ? "" : unit);
	if (n > 0)
		x_axis(&pg, &b, "0", hi, xl);
	if (l->g->y_axis != NULL)
		text(&pg, 8, "Helvetica", MARGIN + 6, (top + MARGIN + 40) / 2,
		    l->g->y_axis, "VS");
	return page_end(&pg);
}
