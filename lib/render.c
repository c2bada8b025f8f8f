/*
 * render.c - the report model and its backends (pme_render.h).
 *
 * The text and terminal backends share one layout: the report is cut into
 * pages of lines once, then written with form feeds (text) or shown a
 * page at a time (terminal).  PostScript lays out the same rows on its own
 * pages in points; CSV writes the rows.
 *
 * Every string the model is given is kept escaped (util.h: control
 * characters and bytes that are not UTF-8 as "\x1b"), so that no backend
 * passes a unit name from a file raw to a terminal or a text file; widths
 * are counted in characters of the escaped form, and a name is cut only
 * between characters or escapes.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "pme_render.h"
#include "prog.h"
#include "util.h"

#define DEFAULT_TITLE	"Performance Measurement and Evaluation Histogram"
#define NAME_MAX_TEXT	32	/* widest name column when the bar has
				   no more room than the seed's 40 */
#define NAME_MIN_TEXT	8
#define NAME_WIDEST	400	/* widest name column of all */
#define BAR_KEPT	40	/* a wider name column keeps this much bar */

struct rgroup {
	const char	*title;
	size_t		 first, n;	/* rows[first .. first + n) */
	size_t		 zeros;		/* rows of no count not listed
					   (pme_report_zeros) */
};

struct rsum {
	const char	*label;		/* "" continues the line before */
	const char	*value;
};

/* What a row of a differential report has beside its count. */
struct dext {
	uint64_t	 base;
	unsigned	 flags;		/* PME_DIFF_* */
};

/* A string of the rows before, raw and escaped (pme_report_row). */
struct lastdup {
	const char	*raw, *esc;
};

struct pme_report {
	struct pme_arena arena;
	const char	*title;
	const char	*subtitle;
	uint64_t	 total;
	unsigned	 flags;
	double		 cutoff;
	const char	*count2;	/* the second measure's name, or NULL */
	const char	*unit;		/* the counts' unit ("ns"), or NULL:
					   counts */
	struct lastdup	 lastfile, lastmod;	/* of the rows' files, modules */
	int		 diff;		/* a differential report */
	struct pme_vec	 rows;		/* struct pme_report_row */
	struct pme_vec	 dext;		/* struct dext per row, when diff */
	struct pme_vec	 groups;	/* struct rgroup */
	struct pme_vec	 sum;		/* struct rsum */
};

/* ---------------------------------------------------------------- model */

/* s escaped (util.h), in the arena. */
static const char *
esc_dup(struct pme_arena *a, const char *s)
{
	size_t n = pme_escape(NULL, 0, s);
	char *p;

	if ((p = pme_arena_alloc(a, n + 1)) != NULL)
		pme_escape(p, n + 1, s);
	return p;
}

struct pme_report *
pme_report_new(const char *title, uint64_t total, struct pme_error *err)
{
	struct pme_report *r = calloc(1, sizeof(*r));

	if (r == NULL) {
		pme_setnomem(err);
		return NULL;
	}
	pme_vec_init(&r->rows, sizeof(struct pme_report_row));
	pme_vec_init(&r->dext, sizeof(struct dext));
	pme_vec_init(&r->groups, sizeof(struct rgroup));
	pme_vec_init(&r->sum, sizeof(struct rsum));
	r->total = total;
	r->title = esc_dup(&r->arena, title ? title : DEFAULT_TITLE);
	r->subtitle = esc_dup(&r->arena, "");
	if (r->title == NULL || r->subtitle == NULL) {
		pme_report_free(r);
		pme_setnomem(err);
		return NULL;
	}
	return r;
}

void
pme_report_free(struct pme_report *r)
{
	if (r == NULL)
		return;
	pme_vec_free(&r->rows);
	pme_vec_free(&r->dext);
	pme_vec_free(&r->groups);
	pme_vec_free(&r->sum);
	pme_arena_free(&r->arena);
	free(r);
}

int
pme_report_subtitle(struct pme_report *r, const char *s,
    struct pme_error *err)
{
	const char *c = esc_dup(&r->arena, s ? s : "");

	if (c == NULL)
		return pme_setnomem(err);
	r->subtitle = c;
	return 0;
}

void
pme_report_options(struct pme_report *r, unsigned flags, double cutoff)
{
	r->flags = flags;
	r->cutoff = cutoff > 0 ? cutoff : 0;
}

/* *field = s escaped, or NULL. */
static int
set_name(struct pme_report *r, const char **field, const char *s,
    struct pme_error *err)
{
	if (s == NULL) {
		*field = NULL;
		return 0;
	}
	if ((*field = esc_dup(&r->arena, s)) == NULL)
		return pme_setnomem(err);
	return 0;
}

int
pme_report_count2(struct pme_report *r, const char *name,
    struct pme_error *err)
{
	return set_name(r, &r->count2, name, err);
}

int
pme_report_unit(struct pme_report *r, const char *unit,
    struct pme_error *err)
{
	return set_name(r, &r->unit, unit, err);
}

/* What the counts are: "counts", or their unit. */
static const char *
counts_word(const struct pme_report *r)
{
	return r->unit != NULL ? r->unit : "counts";
}

int
pme_report_group(struct pme_report *r, const char *title,
    struct pme_error *err)
{
	struct rgroup *g = pme_vec_push(&r->groups);

	if (g == NULL)
		return pme_setnomem(err);
	if ((g->title = esc_dup(&r->arena, title ? title : "")) == NULL) {
		r->groups.n--;
		return pme_setnomem(err);
	}
	g->first = r->rows.n;
	return 0;
}

int
pme_report_zeros(struct pme_report *r, size_t n, struct pme_error *err)
{
	if (r->groups.n == 0 && pme_report_group(r, "", err) == -1)
		return -1;
	PME_VEC_AT(&r->groups, struct rgroup, r->groups.n - 1).zeros += n;
	return 0;
}

int
pme_report_diff(struct pme_report *r, struct pme_error *err)
{
	if (r->rows.n > 0)
		return pme_seterr(err, PME_EINVAL, "a differential report "
		    "made after its first row");
	r->diff = 1;
	return 0;
}

int
pme_report_diff_row(struct pme_report *r, const struct pme_report_row *row,
    uint64_t base, unsigned flags, struct pme_error *err)
{
	struct dext *d;

	if (!r->diff)
		return pme_seterr(err, PME_EINVAL, "a differential row in a "
		    "report that is not one");
	if (pme_report_row(r, row, err) == -1)
		return -1;
	d = &PME_VEC_AT(&r->dext, struct dext, r->dext.n - 1);
	d->base = base;
	d->flags = flags;
	return 0;
}

/*
 * s escaped, or NULL for NULL; rows come in runs of one file and one
 * module, so the last one's copy serves again (*last: its raw and its
 * escaped copy).
 */
static const char *
row_str(struct pme_report *r, struct lastdup *last, const char *s)
{
	if (s == NULL)
		return NULL;
	if (last->raw != NULL && strcmp(last->raw, s) == 0)
		return last->esc;
	if ((last->raw = pme_arena_strndup(&r->arena, s, strlen(s))) == NULL ||
	    (last->esc = esc_dup(&r->arena, s)) == NULL) {
		last->raw = NULL;
		return NULL;
	}
	return last->esc;
}

int
pme_report_row(struct pme_report *r, const struct pme_report_row *row,
    struct pme_error *err)
{
	struct pme_report_row *w;
	struct rgroup *g;
	struct dext *d;

	if (r->groups.n == 0 && pme_report_group(r, "", err) == -1)
		return -1;
	if (r->diff) {
		if ((d = pme_vec_push(&r->dext)) == NULL)
			return pme_setnomem(err);
		memset(d, 0, sizeof(*d));
	}
	if ((w = pme_vec_push(&r->rows)) == NULL) {
		r->dext.n -= r->diff ? 1 : 0;
		return pme_setnomem(err);
	}
	*w = *row;
	w->name = esc_dup(&r->arena, row->name ? row->name : "");
	w->kind = esc_dup(&r->arena, row->kind ? row->kind : "");
	w->file = row_str(r, &r->lastfile, row->file);
	w->module = row_str(r, &r->lastmod, row->module);
	if (w->name == NULL || w->kind == NULL ||
	    (row->file != NULL && w->file == NULL) ||
	    (row->module != NULL && w->module == NULL)) {
		r->rows.n--;
		r->dext.n -= r->diff ? 1 : 0;
		return pme_setnomem(err);
	}
	g = &PME_VEC_AT(&r->groups, struct rgroup, r->groups.n - 1);
	g->n++;
	return 0;
}

int
pme_report_summary(struct pme_report *r, const char *label,
    const char *value, struct pme_error *err)
{
	struct rsum *s = pme_vec_push(&r->sum);

	if (s == NULL)
		return pme_setnomem(err);
	s->label = esc_dup(&r->arena, label ? label : "");
	s->value = esc_dup(&r->arena, value ? value : "");
	if (s->label == NULL || s->value == NULL) {
		r->sum.n--;
		return pme_setnomem(err);
	}
	return 0;
}

/* ---------------------------------------------------------------- widths */

/* Columns of an escaped string: one per character. */
static int
width(const char *s)
{
	int n = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

#define FIT_PAD		0x1	/* blanks up to cols */
#define FIT_TILDE	0x2	/* a '~' where s is cut */

/*
 * The escaped string s in at most cols columns, into buf (len bytes;
 * 4 * cols + 2 is always enough): cut when wider, between characters or
 * escapes ("\x1b" stays whole), with flags FIT_TILDE a '~' in the last
 * column, with FIT_PAD blanks up to cols.
 */
static const char *
fit(char *buf, size_t len, const char *s, int cols, unsigned flags)
{
	int cut = width(s) > cols, room, used = 0, c;
	size_t n = 0, k;

	room = cut && (flags & FIT_TILDE) ? cols - 1 : cols;
	while (*s != '\0') {
		if (*s == '\\')
			k = s[1] == 'x' ? 4 : 2;
		else
			for (k = 1; ((unsigned char)s[k] & 0xc0) == 0x80; k++)
				;
		c = (unsigned char)*s < 0x80 ? (int)k : 1;
		if (used + c > room || n + k + 2 > len)
			break;
		memcpy(buf + n, s, k);
		n += k;
		used += c;
		s += k;
	}
	if (cut && (flags & FIT_TILDE) && n + 2 <= len) {
		buf[n++] = '~';
		used++;
	}
	while ((flags & FIT_PAD) && used < cols && n + 1 < len) {
		buf[n++] = ' ';
		used++;
	}
	buf[n] = '\0';
	return buf;
}

/* ----------------------------------------------------------------- views */

/* A group as shown: its rows after the cutoff, in display order. */
struct vgroup {
	const char	*title;
	const struct pme_report_row **rows;
	size_t		 n;
	size_t		 omitted;	/* rows below the cutoff */
	uint64_t	 omitted_count;
};

struct view {
	struct vgroup	*g;
	size_t		 ng;
	const struct pme_report_row **all;
	uint64_t	 max;		/* largest count shown */
	uint64_t	 total;		/* what percentages are of */
};

static double
pct(const struct view *v, uint64_t n)
{
	return v->total ? 100.0 * (double)n / (double)v->total : 0.0;
}

/* A row's baseline and flags in a differential report, else NULL. */
static const struct dext *
dext_of(const struct pme_report *r, const struct pme_report_row *w)
{
	const struct pme_report_row *rows = r->rows.v;

	return r->diff ? &PME_VEC_AT(&r->dext, struct dext,
	    (size_t)(w - rows)) : NULL;
}

/* How far a differential row's count is from its baseline; *neg says
 * it is below. */
static uint64_t
diff_of(const struct pme_report_row *w, const struct dext *d, int *neg)
{
	*neg = w->count < d->base;
	return *neg ? d->base - w->count : w->count - d->base;
}

/* A differential row's columns as printed. */
struct dcols {
	char		 base[24], cur[24], dif[24], chg[24];
	const char	*mark;
};

static void
diff_cols(const struct pme_report_row *w, const struct dext *d,
    struct dcols *c)
{
	int neg;
	uint64_t m = diff_of(w, d, &neg);

	snprintf(c->base, sizeof(c->base), "%" PRIu64, d->base);
	snprintf(c->cur, sizeof(c->cur), "%" PRIu64, w->count);
	snprintf(c->dif, sizeof(c->dif), "%s%" PRIu64, m == 0 ? "" :
	    neg ? "-" : "+", m);
	if (d->flags & PME_DIFF_APPEARED)
		snprintf(c->base, sizeof(c->base), "-");
	if (d->flags & PME_DIFF_VANISHED)
		snprintf(c->cur, sizeof(c->cur), "-");
	if (d->flags & PME_DIFF_APPEARED)
		snprintf(c->chg, sizeof(c->chg), "new");
	else if (d->flags & PME_DIFF_VANISHED)
		snprintf(c->chg, sizeof(c->chg), "gone");
	else if (m == 0)
		snprintf(c->chg, sizeof(c->chg), "0.0%%");
	else if (d->base == 0)
		snprintf(c->chg, sizeof(c->chg), "from 0");
	else
		snprintf(c->chg, sizeof(c->chg), "%c%.1f%%", neg ? '-' : '+',
		    100.0 * (double)m / (double)d->base);
	c->mark = d->flags & PME_DIFF_FAILED ? "FAIL" :
	    d->flags & PME_DIFF_NOISE ? "noise" : "";
}

static int
cmp_count(const void *a, const void *b)
{
	const struct pme_report_row *x = *(const struct pme_report_row *
	    const *)a, *y = *(const struct pme_report_row * const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	/* Rows are in one array: their addresses keep the order added. */
	return x < y ? -1 : x > y;
}

static void
view_free(struct view *v)
{
	free(v->g);
	free(v->all);
	memset(v, 0, sizeof(*v));
}

static int
view_make(const struct pme_report *r, struct view *v, int all_rows,
    struct pme_error *err)
{
	const struct pme_report_row *rows = r->rows.v;
	size_t i, j, k = 0;

	memset(v, 0, sizeof(*v));
	v->total = r->total;
	v->ng = r->groups.n;
	v->g = calloc(v->ng ? v->ng : 1, sizeof(*v->g));
	v->all = calloc(r->rows.n ? r->rows.n : 1, sizeof(*v->all));
	if (v->g == NULL || v->all == NULL) {
		view_free(v);
		return pme_setnomem(err);
	}
	for (i = 0; i < v->ng; i++) {
		const struct rgroup *rg = &PME_VEC_AT(&r->groups,
		    struct rgroup, i);
		struct vgroup *g = &v->g[i];

		g->title = rg->title;
		g->rows = v->all + k;
		if (!all_rows && r->cutoff > 0)
			g->omitted += rg->zeros;
		for (j = rg->first; j < rg->first + rg->n; j++) {
			const struct dext *d = dext_of(r, &rows[j]);
			uint64_t c = rows[j].count;
			int neg;

			/* A differential row: either run's count. */
			if (d != NULL && d->base > c)
				c = d->base;
			if (!all_rows && r->cutoff > 0 &&
			    pct(v, c) < r->cutoff) {
				g->omitted++;
				g->omitted_count += rows[j].count;
				continue;
			}
			g->rows[g->n++] = &rows[j];
			/* Its bar is the difference; a total has none. */
			if (d != NULL)
				c = d->flags & PME_DIFF_TOTAL ? 0 :
				    diff_of(&rows[j], d, &neg);
			if (c > v->max)
				v->max = c;
		}
		k += g->n;
		if (r->flags & PME_REPORT_SORT)
			qsort(g->rows, g->n, sizeof(*g->rows), cmp_count);
	}
	return 0;
}

/* ---------------------------------------------------------------- layout */

/* Lines cut into pages; each line is a string of the arena. */
struct doc {
	struct pme_arena arena;
	struct pme_vec	 lines;		/* char * */
	struct pme_vec	 rowof;		/* const struct pme_report_row *:
					   each line's row, or NULL */
	struct pme_vec	 pages;		/* size_t: first line of each page */
	size_t		 summary;	/* first page of the summary */
	int		 failed;
	int		 text;		/* lines of text (pme_text_term()):
					   searches look in the lines */
};

struct geom {
	int		 width, lines;
	int		 nw, sw, ew, cw;	/* name, start, end, count widths */
	int		 c2w;			/* second measure width */
	int		 bw, dw, chw, mw;	/* differential: baseline,
						   difference, change, mark */
	int		 barw;
	int		 indent;		/* column of the bar's '|' */
	double		 cpa;			/* counts per asterisk */
};

static void
doc_add(struct doc *d, const char *fmt, ...) PME_PRINTF(2, 3);

/* A line of any length: never cut inside a character or an escape. */
static void
doc_add(struct doc *d, const char *fmt, ...)
{
	const struct pme_report_row **row;
	char **slot, *p;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (d->failed)
		return;
	if (n < 0 || (p = pme_arena_alloc(&d->arena, (size_t)n + 1)) ==
	    NULL || (row = pme_vec_push(&d->rowof)) == NULL) {
		d->failed = 1;
		return;
	}
	*row = NULL;
	if ((slot = pme_vec_push(&d->lines)) == NULL) {
		d->rowof.n--;
		d->failed = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*slot = p;
}

static int
hexlen(uint64_t v)
{
	int n = 1;

	while (v >>= 4)
		n++;
	return n;
}

static int
declen(uint64_t v)
{
	int n = 1;

	while (v /= 10)
		n++;
	return n;
}

static int
maxw(int w, const char *s)
{
	return (int)strlen(s) > w ? (int)strlen(s) : w;
}

/* A differential report's column widths, each at least its heading's;
 * returns the columns they take after the bar. */
static int
diff_widths(const struct pme_report *r, const struct view *v,
    struct geom *g)
{
	struct dcols c;
	size_t i, j;

	g->bw = 8;
	g->cw = 3;
	g->dw = 10;
	g->chw = 6;
	g->mw = 0;
	for (i = 0; i < v->ng; i++)
		for (j = 0; j < v->g[i].n; j++) {
			diff_cols(v->g[i].rows[j], dext_of(r,
			    v->g[i].rows[j]), &c);
			g->bw = maxw(g->bw, c.base);
			g->cw = maxw(g->cw, c.cur);
			g->dw = maxw(g->dw, c.dif);
			g->chw = maxw(g->chw, c.chg);
			if (c.mark[0] != '\0')
				g->mw = 7;
		}
	return 2 + g->bw + 2 + g->cw + 2 + g->dw + 2 + g->chw + g->mw;
}

static void
geometry(const struct pme_report *r, const struct view *v,
    const struct pme_page *pg, struct geom *g)
{
	size_t i, j;
	int fixed, extra = 0, room;

	memset(g, 0, sizeof(*g));
	g->width = pg->width < 40 ? 40 : pg->width;
	g->lines = pg->lines < 10 ? 10 : pg->lines;
	g->cw = 5;
	g->c2w = 1;
	for (i = 0; i < v->ng; i++)
		for (j = 0; j < v->g[i].n; j++) {
			const struct pme_report_row *w = v->g[i].rows[j];
			int nl = width(w->name);

			if (nl > g->nw)
				g->nw = nl;
			if (hexlen(w->start) > g->sw)
				g->sw = hexlen(w->start);
			if (hexlen(w->last) > g->ew)
				g->ew = hexlen(w->last);
			if (declen(w->count) > g->cw)
				g->cw = declen(w->count);
			if (declen(w->count2) > g->c2w)
				g->c2w = declen(w->count2);
		}
	if (g->nw < NAME_MIN_TEXT)
		g->nw = NAME_MIN_TEXT;
	if (r->unit != NULL && g->cw < width(r->unit))
		g->cw = width(r->unit);
	if (r->diff)
		extra = diff_widths(r, v, g) - 7;
	else if (r->flags & PME_REPORT_COUNTS)
		extra += 2 + g->cw;
	if (r->flags & PME_REPORT_CUMUL && !r->diff)
		extra += 8;
	if (r->count2 != NULL) {
		if (g->c2w < width(r->count2))
			g->c2w = width(r->count2);
		extra += 2 + g->c2w;
	}
	/* Long names (C++, file:line) are cut only where the line has no
	 * room: up to 32 columns always, more while the bar keeps 40. */
	fixed = r->flags & PME_REPORT_NOADDR ? 3 : 4 + g->sw + 3 + g->ew + 3;
	room = g->width - fixed - 7 - extra - BAR_KEPT;
	if (room < NAME_MAX_TEXT)
		room = NAME_MAX_TEXT;
	if (room > NAME_WIDEST)
		room = NAME_WIDEST;
	if (g->nw > room)
		g->nw = room;
	/* name "  | " start " - " end "  |" bar "nnn.n%" extras, or
	 * without addresses name "  |" bar ... */
	for (;;) {
		fixed = r->flags & PME_REPORT_NOADDR ? g->nw + 3 :
		    g->nw + 4 + g->sw + 3 + g->ew + 3;
		g->barw = (g->width - fixed - 7 - extra) / 5 * 5;
		if (g->barw >= 10 || g->nw <= NAME_MIN_TEXT)
			break;
		g->nw--;
	}
	if (g->barw < 10)
		g->barw = 10;
	g->indent = fixed - 1;
	g->cpa = v->max ? (double)v->max / g->barw : 1.0;
}

static const char *
scaling_text(double cpa, char *buf, size_t len)
{
	if (cpa >= 100)
		snprintf(buf, len, "%.0f", cpa);
	else if (cpa >= 0.1)
		snprintf(buf, len, "%.1f", cpa);
	else
		snprintf(buf, len, "%.2g", cpa);
	return buf;
}

/* The scale line "+----+----+", labelled on top when columns follow. */
static void
scale_line(const struct pme_report *r, const struct geom *g, struct doc *d,
    int top)
{
	char bar[600], lab[64] = "";
	int i, n = 0, c2 = 0;

	n += snprintf(bar + n, sizeof(bar) - n, "%*s+", g->indent, "");
	for (i = 0; i < g->barw / 5 && n < (int)sizeof(bar) - 6; i++)
		n += snprintf(bar + n, sizeof(bar) - n, "----+");
	if (top && r->diff)
		snprintf(lab, sizeof(lab), "  %*s  %*s  %*s  %*s", g->bw,
		    "baseline", g->cw, "new", g->dw, "difference", g->chw,
		    "change");
	else if (top && ((r->flags & (PME_REPORT_COUNTS | PME_REPORT_CUMUL)) ||
	    r->count2 != NULL)) {
		int m = snprintf(lab, sizeof(lab), "%6s", "%");

		if (r->flags & PME_REPORT_COUNTS)
			m += snprintf(lab + m, sizeof(lab) - m, "  %*s",
			    g->cw, r->unit != NULL ? r->unit : "count");
		if (r->flags & PME_REPORT_CUMUL)
			m += snprintf(lab + m, sizeof(lab) - m, "  %6s",
			    "cum %");
		c2 = r->count2 != NULL;
	}
	/* The second measure's name comes from a file: of any length. */
	doc_add(d, "%s%s%*s%s", bar, lab, c2 ? 2 + g->c2w -
	    width(r->count2) : 0, "", c2 ? r->count2 : "");
}

/* A differential row: its bar of the difference, then the columns. */
static void
diff_line(const struct geom *g, const struct pme_report_row *w,
    const struct dext *d, const char *name, const char *addr,
    const char *bar, struct doc *doc)
{
	struct dcols c;

	diff_cols(w, d, &c);
	doc_add(doc, "%s  %s|%s  %*s  %*s  %*s  %*s%s%s", name, addr, bar,
	    g->bw, c.base, g->cw, c.cur, g->dw, c.dif, g->chw, c.chg,
	    c.mark[0] != '\0' ? "  " : "", c.mark);
}

static void
row_line(const struct pme_report *r, const struct view *v,
    const struct geom *g, const struct pme_report_row *w, int showname,
    double cum, struct doc *doc)
{
	char name[4 * NAME_WIDEST + 2], bar[600], tail[64] = "";
	char addr[48] = "";
	const struct dext *d = dext_of(r, w);
	uint64_t len = w->count;
	int k, n = 0, neg = 0;

	fit(name, sizeof(name), showname ? w->name : "", g->nw,
	    FIT_PAD | FIT_TILDE);
	if (d != NULL)
		len = d->flags & PME_DIFF_TOTAL ? 0 : diff_of(w, d, &neg);
	k = len == 0 ? 0 : (int)((double)len / g->cpa + 0.5);
	if (len > 0 && k == 0)
		k = 1;
	if (k > g->barw)
		k = g->barw;
	memset(bar, d == NULL ? '*' : neg ? '-' : '+', (size_t)k);
	memset(bar + k, ' ', (size_t)(g->barw - k));
	bar[g->barw] = '\0';
	if (r->flags & PME_REPORT_COUNTS)
		n += snprintf(tail + n, sizeof(tail) - n, "  %*" PRIu64,
		    g->cw, w->count);
	if (r->flags & PME_REPORT_CUMUL)
		n += snprintf(tail + n, sizeof(tail) - n, "  %5.1f%%", cum);
	if (r->count2 != NULL)
		snprintf(tail + n, sizeof(tail) - n, "  %*" PRIu64, g->c2w,
		    w->count2);
	if (!(r->flags & PME_REPORT_NOADDR))
		snprintf(addr, sizeof(addr), "| %*" PRIX64 " - %-*" PRIX64
		    "  ", g->sw, w->start, g->ew, w->last);
	if (d != NULL && d->flags & PME_DIFF_TOTAL)
		snprintf(addr, sizeof(addr), "%*s", (int)strlen(addr), "");
	if (d != NULL)
		diff_line(g, w, d, name, addr, bar, doc);
	else
		doc_add(doc, "%s  %s|%s%6.1f%%%s", name, addr, bar,
		    pct(v, w->count), tail);
	if (!doc->failed)
		PME_VEC_AT(&doc->rowof, const struct pme_report_row *,
		    doc->rowof.n - 1) = w;
}

static void
page_new(const struct pme_report *r, const struct geom *g, struct doc *d,
    int *avail)
{
	size_t *p = pme_vec_push(&d->pages);
	char num[32];
	int pad;

	if (p == NULL) {
		d->failed = 1;
		return;
	}
	*p = d->lines.n;
	snprintf(num, sizeof(num), "Page %zu", d->pages.n);
	pad = g->width - width(r->title) - (int)strlen(num);
	doc_add(d, "%s%*s%s", r->title, pad < 2 ? 2 : pad, "", num);
	doc_add(d, "%s", "");
	*avail = g->lines - 2;
}

static void
group_close(const struct pme_report *r, const struct geom *g,
    struct doc *d, int *avail)
{
	char s[64];

	scale_line(r, g, d, 0);
	doc_add(d, "Scaling: %s %s/%s",
	    scaling_text(g->cpa, s, sizeof(s)), counts_word(r), r->diff ?
	    "character" : "asterisk");
	*avail -= 2;
}

static void
layout_group(const struct pme_report *r, const struct view *v,
    const struct vgroup *vg, const struct geom *g, struct doc *d,
    int *avail)
{
	int tailn = vg->omitted ? 1 : 0;
	int need = 2 + (int)vg->n + 2 + tailn;
	uint64_t cum = 0;
	size_t j;
	int showname;

	if ((need > *avail && need <= g->lines - 2) || *avail < 5 + tailn)
		page_new(r, g, d, avail);
	doc_add(d, "%s", vg->title);
	scale_line(r, g, d, 1);
	*avail -= 2;
	for (j = 0; j < vg->n; j++) {
		const struct pme_report_row *w = vg->rows[j];
		int last = j + 1 == vg->n;

		showname = j == 0 || vg->rows[j - 1]->unit != w->unit;
		if (*avail < 1 + 2 + (last ? tailn : 0)) {
			group_close(r, g, d, avail);
			page_new(r, g, d, avail);
			doc_add(d, "%s (continued)", vg->title);
			scale_line(r, g, d, 1);
			*avail -= 2;
			showname = 1;
		}
		cum += w->count;
		row_line(r, v, g, w, showname, pct(v, cum), d);
		(*avail)--;
	}
	group_close(r, g, d, avail);
	if (vg->omitted) {
		doc_add(d, "(%zu bucket%s below %.1f%% not shown: %.1f%%)",
		    vg->omitted, vg->omitted == 1 ? "" : "s", r->cutoff,
		    pct(v, vg->omitted_count));
		(*avail)--;
	}
	if (*avail > 0) {
		doc_add(d, "%s", "");
		(*avail)--;
	}
}

static void
layout_summary(const struct pme_report *r, const struct geom *g,
    struct doc *d)
{
	const struct rsum *s = r->sum.v;
	int lw = 0, avail;
	char *val;
	size_t i, len = 4 * (size_t)g->width + 2;

	for (i = 0; i < r->sum.n; i++)
		if (width(s[i].label) > lw)
			lw = width(s[i].label);
	if ((val = malloc(len)) == NULL) {
		d->failed = 1;
		return;
	}
	page_new(r, g, d, &avail);
	d->summary = d->pages.n - 1;
	doc_add(d, "%s", "Summary statistics");
	doc_add(d, "%s", "");
	avail -= 2;
	for (i = 0; i < r->sum.n; i++) {
		if (avail < 1) {
			page_new(r, g, d, &avail);
			doc_add(d, "%s", "Summary statistics (continued)");
			doc_add(d, "%s", "");
			avail -= 2;
		}
		fit(val, len, s[i].value, g->width - lw - 3, 0);
		if (s[i].label[0] != '\0')
			doc_add(d, "%s:%*s%s", s[i].label,
			    lw + 2 - width(s[i].label), "", val);
		else
			doc_add(d, "%*s%s", lw + 3, "", val);
		avail--;
	}
	free(val);
}

static void
doc_free(struct doc *d)
{
	pme_vec_free(&d->lines);
	pme_vec_free(&d->rowof);
	pme_vec_free(&d->pages);
	pme_arena_free(&d->arena);
}

static int
layout(const struct pme_report *r, const struct pme_page *pg,
    struct doc *d, struct pme_error *err)
{
	struct view v;
	struct geom g;
	size_t i;
	int avail;

	memset(d, 0, sizeof(*d));
	pme_vec_init(&d->lines, sizeof(char *));
	pme_vec_init(&d->rowof, sizeof(const struct pme_report_row *));
	pme_vec_init(&d->pages, sizeof(size_t));
	if (view_make(r, &v, 0, err) == -1)
		return -1;
	geometry(r, &v, pg, &g);
	page_new(r, &g, d, &avail);
	for (i = 0; i < v.ng; i++)
		layout_group(r, &v, &v.g[i], &g, d, &avail);
	layout_summary(r, &g, d);
	view_free(&v);
	if (d->failed) {
		doc_free(d);
		return pme_setnomem(err);
	}
	return 0;
}

static const struct pme_page default_page = { 132, 60, 1 };

int
pme_report_pages(const struct pme_report *r, const struct pme_page *pg)
{
	struct doc d;
	int n;

	if (layout(r, pg ? pg : &default_page, &d, NULL) == -1)
		return -1;
	n = (int)d.pages.n;
	doc_free(&d);
	return n;
}

static int
write_failed(FILE *fp, struct pme_error *err)
{
	if (fflush(fp) == EOF || ferror(fp))
		return pme_setsys(err, "output", "write failed");
	return 0;
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Whether the name s (escaped) contains text, ASCII letters of either
 * case alike. */
static int
name_has(const char *s, const char *text)
{
	size_t i;

	do {
		for (i = 0; text[i] != '\0' && lower((unsigned char)s[i]) ==
		    lower((unsigned char)text[i]); i++)
			;
		if (text[i] == '\0')
			return 1;
	} while (*s++ != '\0');
	return 0;
}

/* Whether line i is a row whose name contains text (not empty). */
static int
line_has(const struct doc *d, size_t i, const char *text)
{
	const struct pme_report_row *w = PME_VEC_AT(&d->rowof,
	    const struct pme_report_row *, i);

	if (d->text)
		return text[0] != '\0' && name_has(PME_VEC_AT(&d->lines,
		    char *, i), text);
	return text[0] != '\0' && w != NULL && name_has(w->name, text);
}

/* Page p of d, each line with a newline; with mark (not NULL) the rows
 * whose name contains mark in reverse video. */
static void
put_page(const struct doc *d, size_t p, const char *mark, FILE *fp)
{
	size_t i, end = p + 1 < d->pages.n ?
	    PME_VEC_AT(&d->pages, size_t, p + 1) : d->lines.n;

	for (i = PME_VEC_AT(&d->pages, size_t, p); i < end; i++) {
		int hl = mark != NULL && line_has(d, i, mark);

		fputs(hl ? "\033[7m" : "", fp);
		fputs(PME_VEC_AT(&d->lines, char *, i), fp);
		fputs(hl ? "\033[m\n" : "\n", fp);
	}
}

int
pme_report_text(const struct pme_report *r, FILE *fp,
    const struct pme_page *pg, struct pme_error *err)
{
	struct doc d;
	size_t p;

	if (pg == NULL)
		pg = &default_page;
	if (layout(r, pg, &d, err) == -1)
		return -1;
	for (p = 0; p < d.pages.n; p++) {
		if (p > 0 && pg->formfeed)
			fputc('\f', fp);
		put_page(&d, p, NULL, fp);
	}
	doc_free(&d);
	return write_failed(fp, err);
}

/* -------------------------------------------------------------- terminal */

/* The seed's commands first, then the additions. */
static const char term_help[] =
    "Commands (on a terminal a letter acts at once, without Return):\n"
    "  Return  display the next histogram page (or space)\n"
    "  R       restart the display from the beginning\n"
    "  S       skip to the summary statistics\n"
    "  K       kill the display and exit\n"
    "  H       help: print this command list\n"
    "  Q       quit: the same as K\n"
    "  B       back: display the page before\n"
    "  number  display the page of that number\n"
    "  /text   display this page or the next with a name containing text\n"
    "          (case ignored), its rows in reverse video\n"
    "  / or n  search for the same text again\n";

#define CMD_MAX		256	/* a command line's bytes kept */

/*
 * The next line of in into buf (CMD_MAX bytes; the rest of a longer line
 * is read and dropped), without the blanks at either end; -1 at the end
 * of in.
 */
static int
read_line(FILE *in, char *buf)
{
	size_t n = 0, i = 0;
	int c, any = 0;

	while ((c = getc(in)) != EOF && c != '\n') {
		any = 1;
		if (n + 1 < CMD_MAX)
			buf[n++] = (char)c;
	}
	while (n > 0 && strchr(" \t\r", buf[n - 1]) != NULL)
		n--;
	buf[n] = '\0';
	if (c == EOF && !any)
		return -1;
	while (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r')
		i++;
	memmove(buf, buf + i, n + 1 - i);
	return 0;
}

/*
 * The terminal's keys: when the commands come from a terminal, it is put
 * out of canonical mode and echo for the display's time, so that a
 * letter acts at once (q quits without Return); a signal that ends the
 * program first puts the terminal back.  Async-signal-safe: tcsetattr
 * and raise only.
 */
static struct termios keys_saved;
static volatile sig_atomic_t keys_fd = -1;
static const int keys_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static struct sigaction keys_old[4];

static void
keys_signal(int sig)
{
	if (keys_fd >= 0)
		tcsetattr(keys_fd, TCSANOW, &keys_saved);
	keys_fd = -1;
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
keys_off(void)
{
	size_t i;

	if (keys_fd >= 0)
		tcsetattr(keys_fd, TCSANOW, &keys_saved);
	keys_fd = -1;
	for (i = 0; i < sizeof(keys_sigs) / sizeof(keys_sigs[0]); i++)
		sigaction(keys_sigs[i], &keys_old[i], NULL);
}

/* Keys mode on in's terminal; 0 when in is no terminal (lines then). */
static int
keys_on(FILE *in)
{
	struct sigaction sa;
	struct termios t;
	int fd = fileno(in);
	size_t i;

	if (fd < 0 || !isatty(fd) || tcgetattr(fd, &keys_saved) == -1)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = keys_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(keys_sigs) / sizeof(keys_sigs[0]); i++)
		sigaction(keys_sigs[i], &sa, &keys_old[i]);
	t = keys_saved;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	keys_fd = fd;
	if (tcsetattr(fd, TCSANOW, &t) == -1) {
		keys_off();
		return 0;
	}
	return 1;
}

/*
 * The next command from a terminal in keys mode, into buf as read_line()
 * gives it: a letter at once; Return, space (the next page) as ""; '/'
 * and a digit begin a line, echoed on out and ended by Return, where
 * erase takes back a character and erasing the first leaves the line
 * (1: nothing to do).  -1 at the end of in; ^D quits.
 */
static int
read_key(FILE *in, FILE *out, char *buf)
{
	size_t n = 0;
	int c;

	if ((c = getc(in)) == EOF)
		return -1;
	buf[1] = '\0';
	if (c == '\r' || c == '\n' || c == ' ')
		buf[0] = '\0';
	else if (c == 4)
		buf[0] = 'q';
	else if (c != '/' && (c < '0' || c > '9'))
		buf[0] = (char)c;
	else {
		buf[n++] = (char)c;
		fputc(c, out);
		for (fflush(out); (c = getc(in)) != EOF && c != '\n' &&
		    c != '\r'; fflush(out)) {
			if (c == 0x7f || c == '\b') {
				while (n > 0 && ((unsigned char)buf[--n] &
				    0xc0) == 0x80)
					;
				fputs("\b \b", out);
				if (n == 0)
					return 1;
			} else if ((unsigned char)c >= 0x20 && n + 1 < CMD_MAX) {
				buf[n++] = (char)c;
				fputc(c, out);
			}
		}
		buf[n] = '\0';
		fputc('\n', out);
	}
	return 0;
}

/* The first page from p (a new search) or after p (again: from), wrapping
 * round, with a row whose name contains text; -1 when none has. */
static long
search(const struct doc *d, size_t p, size_t from, const char *text)
{
	size_t k, q, i, end;

	for (k = from; k < from + d->pages.n; k++) {
		q = (p + k) % d->pages.n;
		end = q + 1 < d->pages.n ? PME_VEC_AT(&d->pages, size_t,
		    q + 1) : d->lines.n;
		for (i = PME_VEC_AT(&d->pages, size_t, q); i < end; i++)
			if (line_has(d, i, text))
				return (long)q;
	}
	return -1;
}

/*
 * The command /text, or / or n alone (text empty: last again), from page
 * *p: *p the page found, else a message on out; last keeps the text.
 * Returns whether the page is to be shown.
 */
static int
find(const struct doc *d, size_t *p, const char *text, char *last,
    FILE *out)
{
	char shown[4 * CMD_MAX];
	long q;

	if (text[0] != '\0')
		memcpy(last, text, strlen(text) + 1);
	else if (last[0] == '\0') {
		fputs("no search yet: /text searches for text\n", out);
		return 0;
	}
	if ((q = search(d, *p, text[0] != '\0' ? 0 : 1, last)) < 0) {
		pme_escape(shown, sizeof(shown), last);
		fprintf(out, "'%s': not found\n", shown);
		return 0;
	}
	*p = (size_t)q;
	return 1;
}

/* Page number cmd (digits only), from 1; 0 when it is not one of d's. */
static size_t
page_number(const struct doc *d, const char *cmd)
{
	size_t n = 0;

	for (; *cmd >= '0' && *cmd <= '9'; cmd++)
		if ((n = n * 10 + (size_t)(*cmd - '0')) > d->pages.n)
			return 0;
	return *cmd == '\0' ? n : 0;
}

/* The pages of d on out, the commands read from in; d is freed. */
static int
term_show(struct doc *d0, FILE *in, FILE *out, struct pme_error *err)
{
	struct doc d = *d0;
	char cmd[CMD_MAX], last[CMD_MAX] = "";
	size_t p = 0, n;
	int show = 1, keys = keys_on(in), got;

	for (;;) {
		if (show) {
			fputs("\033[H\033[2J", out);
			put_page(&d, p, last, out);
		}
		fputs("Enter command (H for help): ", out);
		fflush(out);
		show = 1;
		if ((got = keys ? read_key(in, out, cmd) : read_line(in,
		    cmd)) == -1) {
			fputc('\n', out);
			goto done;
		}
		if (got == 1)
			continue;
		switch (cmd[0]) {
		case '\0':
			p = (p + 1) % d.pages.n;
			break;
		case 'r':
		case 'R':
			p = 0;
			break;
		case 's':
		case 'S':
			p = d.summary;
			break;
		case 'k':
		case 'K':
		case 'q':
		case 'Q':
			if (keys)	/* the shell's prompt on a line of its own */
				fputc('\n', out);
			goto done;
		case 'h':
		case 'H':
		case '?':
			fputs(term_help, out);
			show = 0;
			break;
		case 'b':
		case 'B':
			p = (p + d.pages.n - 1) % d.pages.n;
			break;
		case '/':
		case 'n':
		case 'N':
			show = find(&d, &p, cmd[0] == '/' ? cmd + 1 : "", last,
			    out);
			break;
		default:
			if (cmd[0] >= '0' && cmd[0] <= '9') {
				if ((n = page_number(&d, cmd)) > 0) {
					p = n - 1;
					break;
				}
				fprintf(out, "no page %.20s: the pages are 1 "
				    "to %zu\n", cmd, d.pages.n);
			} else
				fprintf(out, "unknown command '%c'; H lists "
				    "the commands\n", cmd[0]);
			show = 0;
			break;
		}
	}
done:
	if (keys)
		keys_off();
	doc_free(&d);
	return write_failed(out, err);
}

int
pme_report_term(const struct pme_report *r, FILE *in, FILE *out, int rows,
    int cols, struct pme_error *err)
{
	struct pme_page pg;
	struct doc d;

	pg.width = cols > 132 ? 132 : cols;
	pg.lines = rows - 1;
	pg.formfeed = 0;
	if (layout(r, &pg, &d, err) == -1)
		return -1;
	return term_show(&d, in, out, err);
}

/*
 * The lines of text (escaped by the caller) as a doc of pages of rows - 1
 * terminal rows, a line wider than cols taking the rows it wraps to; the
 * summary is the last page.
 */
static int
text_layout(const char *text, int rows, int cols, struct doc *d,
    struct pme_error *err)
{
	const char *e;
	size_t *pg;
	int used = 0, h;
	char *line;

	memset(d, 0, sizeof(*d));
	pme_vec_init(&d->lines, sizeof(char *));
	pme_vec_init(&d->rowof, sizeof(const struct pme_report_row *));
	pme_vec_init(&d->pages, sizeof(size_t));
	d->text = 1;
	for (; *text != '\0' && !d->failed; text = *e ? e + 1 : e) {
		e = strchr(text, '\n');
		if (e == NULL)
			e = text + strlen(text);
		if ((line = pme_arena_strndup(&d->arena, text,
		    (size_t)(e - text))) == NULL) {
			d->failed = 1;
			break;
		}
		h = cols > 0 && width(line) > cols ? (width(line) + cols - 1) /
		    cols : 1;
		if (d->pages.n == 0 || used + h > rows - 1) {
			if ((pg = pme_vec_push(&d->pages)) == NULL) {
				d->failed = 1;
				break;
			}
			*pg = d->lines.n;
			used = 0;
		}
		used += h;
		doc_add(d, "%s", line);
	}
	if (!d->failed && d->pages.n == 0 &&
	    (pg = pme_vec_push(&d->pages)) != NULL) {
		*pg = 0;
		doc_add(d, "%s", "");
	}
	if (d->failed || d->pages.n == 0) {
		doc_free(d);
		return pme_setnomem(err);
	}
	d->summary = d->pages.n - 1;
	return 0;
}

int
pme_text_term(const char *text, FILE *in, FILE *out, int rows, int cols,
    struct pme_error *err)
{
	struct doc d;

	if (text_layout(text, rows < 2 ? 2 : rows, cols, &d, err) == -1)
		return -1;
	return term_show(&d, in, out, err);
}

/* ------------------------------------------------------------ PostScript */

#define PS_W		612
#define PS_H		792
#define PS_MARGIN	54
#define PS_ROW		11
#define PS_TOP		(PS_H - PS_MARGIN - 40)	/* below title, subtitle */
#define PS_CHAR		4.8			/* Courier 8: 0.6 em */

static void
ps_string(FILE *fp, const char *s)
{
	fputc('(', fp);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '(' || c == ')' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 32 || c > 126)
			fprintf(fp, "\\%03o", c);
		else
			fputc(c, fp);
	}
	fputc(')', fp);
}

/* The prolog after the title and subtitle; printf arguments: the page
 * heading's positions. */
static const char ps_prolog[] =
    "%% The bars' colour (red green blue, 0 to 1).\n"
    "/pme-barcolor where { pop } { /pme-barcolor [0.25 0.45 0.75] def }"
    " ifelse\n"
    "/pme-dict 20 dict def pme-dict begin\n"
    "/F { findfont exch scalefont setfont } bind def\n"
    "%% x y string: shown with its right end at x\n"
    "/RS { dup stringwidth pop 4 -1 roll exch sub 3 -1 roll moveto show }"
    " bind def\n"
    "%% x y w h: a bar\n"
    "/B { gsave pme-barcolor aload pop setrgbcolor rectfill grestore }"
    " bind def\n"
    "%% page-number-string: the page's heading\n"
    "/H { 14 /Helvetica-Bold F %d %d moveto pme-title show\n"
    "     10 /Helvetica F %d %d 3 -1 roll RS\n"
    "     9 /Helvetica F %d %d moveto pme-subtitle show\n"
    "     0.5 setlinewidth %d %d moveto %d 0 rlineto stroke } bind def\n"
    "%% x y w: the scale, a line with a tick every tenth of w\n"
    "/S { /sw exch def /sy exch def /sx exch def 0.3 setlinewidth\n"
    "     sx sy moveto sw 0 rlineto stroke\n"
    "     0 1 10 { sw 10 div mul sx add sy moveto 0 2 rlineto stroke }"
    " for } bind def\n"
    "end\n"
    "%%%%EndProlog\n";

struct psgeom {
	double	 xname, xaddr, xbar, barw, xpct, xcount, xcum, xcount2;
	double	 xdcol[5];	/* differential: the right ends of baseline,
				   new, difference, change; the mark's left */
	int	 nw;
	struct geom g;
};

static void
ps_geometry(const struct pme_report *r, const struct view *v,
    struct psgeom *p)
{
	struct pme_page pg = { 200, 60, 0 };
	double right = PS_W - PS_MARGIN;

	geometry(r, v, &pg, &p->g);
	p->nw = p->g.nw > 28 ? 28 : p->g.nw;
	p->xname = PS_MARGIN;
	p->xaddr = p->xname + (p->nw + 1) * PS_CHAR;
	p->xbar = p->xaddr + (r->flags & PME_REPORT_NOADDR ? 0 :
	    (p->g.sw + 3 + p->g.ew + 1) * PS_CHAR);
	if (r->diff) {
		p->xdcol[4] = right - p->g.mw * PS_CHAR + 2 * PS_CHAR;
		right -= p->g.mw * PS_CHAR;
		p->xdcol[3] = right;
		p->xdcol[2] = p->xdcol[3] - (p->g.chw + 2) * PS_CHAR;
		p->xdcol[1] = p->xdcol[2] - (p->g.dw + 2) * PS_CHAR;
		p->xdcol[0] = p->xdcol[1] - (p->g.cw + 2) * PS_CHAR;
		p->xpct = p->xdcol[0] - p->g.bw * PS_CHAR;
		p->barw = p->xpct - 2 * PS_CHAR - p->xbar;
		return;
	}
	p->xcount2 = right;
	if (r->count2 != NULL)
		right -= (p->g.c2w + 2) * PS_CHAR;
	p->xcum = right;
	p->xcount = (r->flags & PME_REPORT_CUMUL) ? right - 8 * PS_CHAR :
	    right;
	p->xpct = (r->flags & PME_REPORT_COUNTS) ?
	    p->xcount - (p->g.cw + 2) * PS_CHAR : p->xcount;
	p->barw = p->xpct - 7 * PS_CHAR - p->xbar;
}

struct psout {
	FILE	*fp;
	int	 page;
	double	 y;
};

static void
ps_page(struct psout *o)
{
	if (o->page > 0)
		fputs("pme-dict end showpage\n", o->fp);
	o->page++;
	fprintf(o->fp, "%%%%Page: %d %d\npme-dict begin\n(Page %d) H\n",
	    o->page, o->page, o->page);
	o->y = PS_TOP;
}

static void
ps_need(struct psout *o, double h)
{
	if (o->page == 0 || o->y - h < PS_MARGIN)
		ps_page(o);
}

/* s with its right end at x on the current line. */
static void
ps_right(struct psout *o, double x, const char *s)
{
	fprintf(o->fp, "%.1f %.1f ", x, o->y);
	ps_string(o->fp, s);
	fputs(" RS\n", o->fp);
}

static void
ps_scale(struct psout *o, const struct pme_report *r, const struct psgeom *p)
{
	static const char *const head[] = { "baseline", "new",
	    "difference", "change" };
	int i;

	fprintf(o->fp, "%.1f %.1f %.1f S\n", p->xbar, o->y + PS_ROW - 3,
	    p->barw);
	if (!r->diff)
		return;
	fputs("8 /Helvetica F\n", o->fp);
	for (i = 0; i < 4; i++) {
		o->y += PS_ROW - 3;
		ps_right(o, p->xdcol[i], head[i]);
		o->y -= PS_ROW - 3;
	}
}

/* A differential row's bar (growth in the bar colour, shrinkage grey)
 * and columns. */
static void
ps_diff(struct psout *o, const struct view *v, const struct psgeom *p,
    const struct pme_report_row *w, const struct dext *d)
{
	struct dcols c;
	int neg = 0;
	uint64_t m = d->flags & PME_DIFF_TOTAL ? 0 : diff_of(w, d, &neg);
	double len = v->max ? p->barw * (double)m / (double)v->max : 0;

	if (m > 0 && len < 0.5)
		len = 0.5;
	if (len > 0)
		fprintf(o->fp, "%.1f %.1f %.2f 7 %s\n", p->xbar, o->y - 1, len,
		    neg ? "gsave 0.6 setgray rectfill grestore" : "B");
	diff_cols(w, d, &c);
	ps_right(o, p->xdcol[0], c.base);
	ps_right(o, p->xdcol[1], c.cur);
	ps_right(o, p->xdcol[2], c.dif);
	ps_right(o, p->xdcol[3], c.chg);
	if (c.mark[0] != '\0') {
		fprintf(o->fp, "%.1f %.1f moveto ", p->xdcol[4], o->y);
		ps_string(o->fp, c.mark);
		fputs(" show\n", o->fp);
	}
}

static void
ps_row(struct psout *o, const struct pme_report *r, const struct view *v,
    const struct psgeom *p, const struct pme_report_row *w, int showname,
    uint64_t cum)
{
	char buf[128];
	const struct dext *d = dext_of(r, w);
	double len = v->max ? p->barw * (double)w->count / (double)v->max : 0;

	fputs("8 /Courier F\n", o->fp);
	if (showname) {
		char name[4 * 28 + 2];

		fit(name, sizeof(name), w->name, p->nw, FIT_TILDE);
		fprintf(o->fp, "%.1f %.1f moveto ", p->xname, o->y);
		ps_string(o->fp, name);
		fputs(" show\n", o->fp);
	}
	if (!(r->flags & PME_REPORT_NOADDR) &&
	    !(d != NULL && d->flags & PME_DIFF_TOTAL)) {
		snprintf(buf, sizeof(buf), "%*" PRIX64 " - %-*" PRIX64,
		    p->g.sw, w->start, p->g.ew, w->last);
		fprintf(o->fp, "%.1f %.1f moveto ", p->xaddr, o->y);
		ps_string(o->fp, buf);
		fputs(" show\n", o->fp);
	}
	if (d != NULL) {
		ps_diff(o, v, p, w, d);
		o->y -= PS_ROW;
		return;
	}
	if (w->count > 0 && len < 0.5)
		len = 0.5;
	if (len > 0)
		fprintf(o->fp, "%.1f %.1f %.2f 7 B\n", p->xbar, o->y - 1, len);
	snprintf(buf, sizeof(buf), "%.1f%%", pct(v, w->count));
	fprintf(o->fp, "%.1f %.1f ", p->xpct, o->y);
	ps_string(o->fp, buf);
	fputs(" RS\n", o->fp);
	if (r->flags & PME_REPORT_COUNTS) {
		snprintf(buf, sizeof(buf), "%" PRIu64, w->count);
		fprintf(o->fp, "%.1f %.1f ", p->xcount, o->y);
		ps_string(o->fp, buf);
		fputs(" RS\n", o->fp);
	}
	if (r->flags & PME_REPORT_CUMUL) {
		snprintf(buf, sizeof(buf), "%.1f%%", pct(v, cum));
		fprintf(o->fp, "%.1f %.1f ", p->xcum, o->y);
		ps_string(o->fp, buf);
		fputs(" RS\n", o->fp);
	}
	if (r->count2 != NULL) {
		snprintf(buf, sizeof(buf), "%" PRIu64, w->count2);
		fprintf(o->fp, "%.1f %.1f ", p->xcount2, o->y);
		ps_string(o->fp, buf);
		fputs(" RS\n", o->fp);
	}
	o->y -= PS_ROW;
}

static void
ps_text(struct psout *o, const char *font, int size, double x,
    const char *s)
{
	fprintf(o->fp, "%d /%s F %.1f %.1f moveto ", size, font, x, o->y);
	ps_string(o->fp, s);
	fputs(" show\n", o->fp);
}

static void
ps_group(struct psout *o, const struct pme_report *r, const struct view *v,
    const struct psgeom *p, const struct vgroup *g)
{
	char buf[320];
	uint64_t cum = 0;
	size_t j;

	ps_need(o, PS_ROW * 4);
	o->y -= 4;
	ps_text(o, "Helvetica-Bold", 10, PS_MARGIN, g->title);
	o->y -= PS_ROW + 2;
	ps_scale(o, r, p);
	for (j = 0; j < g->n; j++) {
		int show = j == 0 || g->rows[j - 1]->unit != g->rows[j]->unit;

		if (o->y - PS_ROW < PS_MARGIN) {
			ps_page(o);
			snprintf(buf, sizeof(buf), "%s (continued)", g->title);
			ps_text(o, "Helvetica-Bold", 10, PS_MARGIN, buf);
			o->y -= PS_ROW + 2;
			ps_scale(o, r, p);
			show = 1;
		}
		cum += g->rows[j]->count;
		ps_row(o, r, v, p, g->rows[j], show, cum);
	}
	ps_need(o, PS_ROW * 2);
	if (r->diff)
		snprintf(buf, sizeof(buf), "Scaling: the longest bar is a "
		    "difference of %" PRIu64 " %s", v->max, counts_word(r));
	else
		snprintf(buf, sizeof(buf), "Scaling: the longest bar is %"
		    PRIu64 " %s (%.1f%%)", v->max, counts_word(r),
		    pct(v, v->max));
	if (g->omitted)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
		    "; %zu bucket%s below %.1f%% not shown (%.1f%%)",
		    g->omitted, g->omitted == 1 ? "" : "s", r->cutoff,
		    pct(v, g->omitted_count));
	ps_text(o, "Helvetica", 8, PS_MARGIN, buf);
	o->y -= PS_ROW + 4;
}

static void
ps_summary(struct psout *o, const struct pme_report *r)
{
	const struct rsum *s = r->sum.v;
	char buf[1024], val[4 * 90 + 2];
	size_t i;
	int lw = 0;

	for (i = 0; i < r->sum.n; i++)
		if (width(s[i].label) > lw)
			lw = width(s[i].label);
	ps_need(o, PS_ROW * 4);
	o->y -= 4;
	ps_text(o, "Helvetica-Bold", 10, PS_MARGIN, "Summary statistics");
	o->y -= PS_ROW + 4;
	for (i = 0; i < r->sum.n; i++) {
		ps_need(o, PS_ROW);
		snprintf(buf, sizeof(buf), "%s%s%*s%s", s[i].label,
		    s[i].label[0] ? ":" : " ", lw + 1 - width(s[i].label), "",
		    fit(val, sizeof(val), s[i].value, 90, 0));
		ps_text(o, "Courier", 8, PS_MARGIN, buf);
		o->y -= PS_ROW;
	}
}

int
pme_report_ps(const struct pme_report *r, FILE *fp, struct pme_error *err)
{
	struct psout o = { NULL, 0, 0 };
	struct psgeom p;
	struct view v;
	char *body = NULL;
	size_t blen = 0, i;
	FILE *b;

	if (view_make(r, &v, 0, err) == -1)
		return -1;
	if ((b = open_memstream(&body, &blen)) == NULL) {
		view_free(&v);
		return pme_setnomem(err);
	}
	o.fp = b;
	ps_geometry(r, &v, &p);
	for (i = 0; i < v.ng; i++)
		ps_group(&o, r, &v, &p, &v.g[i]);
	ps_summary(&o, r);
	fputs("pme-dict end showpage\n", b);
	view_free(&v);
	if (fclose(b) == EOF) {
		free(body);
		return pme_setnomem(err);
	}
	fputs("%!PS-Adobe-3.0\n%%Creator: pme\n%%Title: ", fp);
	for (i = 0; r->title[i] != '\0' && i < 200; i++)
		fputc(r->title[i] >= 32 && r->title[i] < 127 ?
		    r->title[i] : '?', fp);
	fprintf(fp, "\n%%%%Pages: %d\n%%%%PageOrder: Ascend\n"
	    "%%%%BoundingBox: 0 0 %d %d\n"
	    "%%%%DocumentNeededResources: font Helvetica Helvetica-Bold "
	    "Courier\n%%%%LanguageLevel: 2\n%%%%EndComments\n", o.page,
	    PS_W, PS_H);
	fputs("%%BeginProlog\n"
	    "% The title and subtitle of every page: edit them here, or\n"
	    "% define pme-title and pme-subtitle before this file is read.\n"
	    "/pme-title where { pop } { /pme-title ", fp);
	ps_string(fp, r->title);
	fputs(" def } ifelse\n/pme-subtitle where { pop } { /pme-subtitle ",
	    fp);
	ps_string(fp, r->subtitle);
	fputs(" def } ifelse\n", fp);
	fprintf(fp, ps_prolog, PS_MARGIN, PS_H - PS_MARGIN - 10,
	    PS_W - PS_MARGIN, PS_H - PS_MARGIN - 10,
	    PS_MARGIN, PS_H - PS_MARGIN - 24,
	    PS_MARGIN, PS_H - PS_MARGIN - 30, PS_W - 2 * PS_MARGIN);
	fwrite(body, 1, blen, fp);
	free(body);
	fputs("%%Trailer\n%%EOF\n", fp);
	return write_failed(fp, err);
}

/* ------------------------------------------------------------------- CSV */

/* A differential row: its counts, the difference, the change in percent
 * (empty when there is no baseline count), what it is and the gate's
 * verdict; a total has no bucket index or addresses. */
static void
csv_diff(FILE *fp, const struct vgroup *g, const struct pme_report_row *w,
    const struct dext *d)
{
	int neg, total = (d->flags & PME_DIFF_TOTAL) != 0;
	uint64_t m = diff_of(w, d, &neg);

	if (!total)
		fprintf(fp, "%" PRIu32, w->bucket);
	fputc(',', fp);
	pme_csv_field(fp, w->name);
	fputc(',', fp);
	pme_csv_field(fp, w->kind);
	fputc(',', fp);
	pme_csv_field(fp, g->title);
	if (total)
		fputs(",,", fp);
	else
		fprintf(fp, ",0x%" PRIx64 ",0x%" PRIx64, w->abs_start,
		    w->abs_last);
	if (d->flags & PME_DIFF_APPEARED)
		fputs(",", fp);
	else
		fprintf(fp, ",%" PRIu64, d->base);
	if (d->flags & PME_DIFF_VANISHED)
		fputs(",", fp);
	else
		fprintf(fp, ",%" PRIu64, w->count);
	fprintf(fp, ",%s%" PRIu64 ",", neg ? "-" : "", m);
	if (d->base > 0 && !(d->flags & PME_DIFF_APPEARED))
		fprintf(fp, "%.4f", (neg ? -100.0 : 100.0) * (double)m /
		    (double)d->base);
	fprintf(fp, ",%s,%s\n", total ? "total" : d->flags &
	    PME_DIFF_APPEARED ? "appeared" : d->flags & PME_DIFF_VANISHED ?
	    "vanished" : "matched", d->flags & PME_DIFF_FAILED ? "failed" :
	    d->flags & PME_DIFF_NOISE ? "noise" : "");
}

int
pme_report_csv(const struct pme_report *r, FILE *fp, struct pme_error *err)
{
	struct view v;
	size_t i, j;

	if (view_make(r, &v, 1, err) == -1)
		return -1;
	if (r->diff) {
		fputs("bucket,unit,kind,group,start,end,baseline,new,"
		    "difference,change,row,gate\n", fp);
		for (i = 0; i < v.ng; i++)
			for (j = 0; j < v.g[i].n; j++)
				csv_diff(fp, &v.g[i], v.g[i].rows[j],
				    dext_of(r, v.g[i].rows[j]));
		view_free(&v);
		return write_failed(fp, err);
	}
	fputs("bucket,unit,kind,group,start,end,", fp);
	pme_csv_field(fp, r->unit != NULL ? r->unit : "count");
	fputs(",percent,file,line,module", fp);
	if (r->count2 != NULL) {
		fputc(',', fp);
		pme_csv_field(fp, r->count2);
	}
	fputc('\n', fp);
	for (i = 0; i < v.ng; i++)
		for (j = 0; j < v.g[i].n; j++) {
			const struct pme_report_row *w = v.g[i].rows[j];

			fprintf(fp, "%" PRIu32 ",", w->bucket);
			pme_csv_field(fp, w->name);
			fputc(',', fp);
			pme_csv_field(fp, w->kind);
			fputc(',', fp);
			pme_csv_field(fp, v.g[i].title);
			fprintf(fp, ",0x%" PRIx64 ",0x%" PRIx64 ",%" PRIu64
			    ",%.4f", w->abs_start, w->abs_last, w->count,
			    pct(&v, w->count));
			fputc(',', fp);
			pme_csv_field(fp, w->file ? w->file : "");
			fputc(',', fp);
			if (w->line > 0)
				fprintf(fp, "%" PRIu32, w->line);
			fputc(',', fp);
			pme_csv_field(fp, w->module ? w->module : "");
			if (r->count2 != NULL)
				fprintf(fp, ",%" PRIu64, w->count2);
			fputc('\n', fp);
		}
	view_free(&v);
	return write_failed(fp, err);
}
