/*
 * svg.c - pmehisto -T svg: the flame graph of the call stacks, drawn as
 * one self-contained SVG file.  The root, "all", spans the width at the
 * bottom; above each frame the frames it called, as wide as their
 * samples, in byte order of their names.  Frames carry their first
 * sample (data-x), samples (data-n) and depth (data-d), from which the
 * inline script zooms, searches and redraws; without a script (an
 * image converter) the graph is drawn as it is.  With a baseline
 * (pmehisto -D) the frames are coloured by the change of their share,
 * and carry the baseline's samples on their path (data-b).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "util.h"

#define WIDTH		1200	/* the image */
#define PAD		10	/* left and right */
#define TOP		60	/* title, subtitle, buttons */
#define BOTTOM		34	/* the details line */
#define FRAME_H		16
#define CHAR_W		7.2	/* of 12px monospace */
#define MIN_W		0.1	/* narrower frames are left out */

struct frame {
	uint32_t	 name;		/* name index, or nnames for "all" */
	uint32_t	 depth;
	uint64_t	 x, n;		/* first sample, samples */
	size_t		 st;		/* a stack whose first depth names are
					   the frame's path */
	uint64_t	 base;		/* with a baseline: its samples on the
					   path */
};

/* A baseline's stacks (m->base) in the names of m: sorted, with the
 * running sums of their counts. */
struct bstacks {
	uint32_t	*pool;		/* UINT32_MAX: a name m has not */
	struct xstack	*st;
	size_t		 n;
	uint64_t	*sum;		/* sum[i]: st[0..i)'s counts */
	double		 maxd;		/* the largest change of share */
};

struct svg {
	const struct xmodel *m;
	FILE		*fp;
	struct frame	*f;
	size_t		 nf, capf;
	struct frame	*open;		/* the current stack's, by depth */
	struct bstacks	 b;
};

static int
frame_cmp(const void *a, const void *b)
{
	const struct frame *x = a, *y = b;

	if (x->x != y->x)
		return x->x < y->x ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static int
close_frame(struct svg *s, const struct frame *o, uint64_t end)
{
	if (s->nf == s->capf) {
		size_t cap = s->capf ? s->capf * 2 : 256;
		struct frame *v = realloc(s->f, cap * sizeof(*v));

		if (v == NULL)
			return -1;
		s->f = v;
		s->capf = cap;
	}
	s->f[s->nf] = *o;
	s->f[s->nf++].n = end - o->x;
	return 0;
}

/*
 * The frames of the sorted stacks: a stack shares with the one before
 * the frames of their common first names, which grow; the others close.
 */
static int
layout(struct svg *s)
{
	const struct xmodel *m = s->m;
	uint64_t x = 0;
	size_t i, depth = 0, k;

	if ((s->open = calloc(m->depth + 2, sizeof(*s->open))) == NULL)
		return -1;
	s->open[0].name = (uint32_t)m->nnames;
	depth = 1;
	for (i = 0; i < m->nst; i++) {
		const struct xstack *st = &m->st[i];
		const uint32_t *a = m->pool + st->off;

		for (k = 0; k < st->n && k + 1 < depth &&
		    s->open[k + 1].name == a[k]; k++)
			;
		while (depth > k + 1)
			if (close_frame(s, &s->open[--depth], x) == -1)
				return -1;
		for (; k < st->n; k++, depth++) {
			s->open[depth].name = a[k];
			s->open[depth].depth = (uint32_t)depth;
			s->open[depth].x = x;
			s->open[depth].st = i;
		}
		x += st->count;
	}
	while (depth > 0)
		if (close_frame(s, &s->open[--depth], x) == -1)
			return -1;
	qsort(s->f, s->nf, sizeof(*s->f), frame_cmp);
	return 0;
}

/* ------------------------------------------------------ the comparison */

/* The index of name in m's names (byte order), or UINT32_MAX. */
static uint32_t
name_index(const struct xmodel *m, const char *name)
{
	size_t lo = 0, hi = m->nnames, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strcmp(m->names[mid].name, name)) == 0)
			return (uint32_t)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return UINT32_MAX;
}

/* Stack x against the path a[0..d): lexicographic, a stack that holds
 * the path comparing equal. */
static int
path_cmp(const uint32_t *pool, const struct xstack *x, const uint32_t *a,
    size_t d)
{
	size_t i, n = x->n < d ? x->n : d;

	for (i = 0; i < n; i++)
		if (pool[x->off + i] != a[i])
			return pool[x->off + i] < a[i] ? -1 : 1;
	return x->n < d ? -1 : 0;
}

static int
bstack_cmp(const void *p, const void *q, void *arg)
{
	const struct xstack *x = p, *y = q;
	const uint32_t *pool = arg;
	int c = path_cmp(pool, x, pool + y->off, y->n);

	return c != 0 ? c : x->n < y->n ? -1 : x->n > y->n;
}

/* The baseline's samples of the stacks through path a[0..d). */
static uint64_t
base_count(const struct bstacks *b, const uint32_t *a, size_t d)
{
	size_t lo = 0, hi = b->n, mid, first;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (path_cmp(b->pool, &b->st[mid], a, d) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	for (hi = b->n; lo < hi; ) {
		mid = lo + (hi - lo) / 2;
		if (path_cmp(b->pool, &b->st[mid], a, d) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return b->sum[lo] - b->sum[first];
}

/* The baseline's stacks in m's names, sorted; 0 or -1. */
static int
base_stacks(struct svg *s)
{
	const struct xmodel *m = s->m, *bm = m->base;
	struct bstacks *b = &s->b;
	uint32_t *of;
	size_t i, j, top = 0;

	for (i = 0; i < bm->nst; i++)
		if (bm->st[i].off + bm->st[i].n > top)
			top = bm->st[i].off + bm->st[i].n;
	if ((of = calloc(bm->nnames + 1, sizeof(*of))) == NULL ||
	    (b->pool = calloc(top + 1, sizeof(*b->pool))) == NULL ||
	    (b->st = calloc(bm->nst + 1, sizeof(*b->st))) == NULL ||
	    (b->sum = calloc(bm->nst + 1, sizeof(*b->sum))) == NULL) {
		free(of);
		return -1;
	}
	for (i = 0; i < bm->nnames; i++)
		of[i] = name_index(m, bm->names[i].name);
	for (i = 0; i < top; i++)
		b->pool[i] = of[bm->pool[i]];
	free(of);
	memcpy(b->st, bm->st, bm->nst * sizeof(*b->st));
	b->n = bm->nst;
	qsort_r(b->st, b->n, sizeof(*b->st), bstack_cmp, b->pool);
	for (j = 0; j < b->n; j++)
		b->sum[j + 1] = b->sum[j] + b->st[j].count;
	return 0;
}

/* Frame f's share of the new total less its share of the baseline's. */
static double
change(const struct xmodel *m, const struct frame *f)
{
	double bt = (double)m->base->total;

	return (double)f->n / (double)m->total - (bt > 0 ?
	    (double)f->base / bt : 0);
}

/* Whether f grew (1) or shrank (-1) against the baseline, or neither
 * (0): its shares compared exactly, in integers. */
static int
grew(const struct xmodel *m, const struct frame *f)
{
	unsigned __int128 a = (unsigned __int128)f->n * m->base->total;
	unsigned __int128 b = (unsigned __int128)f->base * m->total;

	return a > b ? 1 : a < b ? -1 : 0;
}

/* Each frame's baseline samples, and the largest change. */
static int
compare(struct svg *s)
{
	const struct xmodel *m = s->m;
	size_t i;
	double d;

	if (m->base == NULL)
		return 0;
	if (base_stacks(s) == -1)
		return -1;
	for (i = 0; i < s->nf; i++) {
		struct frame *f = &s->f[i];

		f->base = f->depth == 0 ? m->base->total : base_count(&s->b,
		    m->pool + m->st[f->st].off, f->depth);
		if ((d = change(m, f)) < 0)
			d = -d;
		if (d > s->b.maxd)
			s->b.maxd = d;
	}
	return 0;
}

/* A compared frame's colour: red where its share grew, blue where it
 * shrank, the deeper the more (the largest change deepest), as Brendan
 * Gregg's differential flame graphs; grey where it kept its share. */
static void
diff_colour(const struct svg *s, const struct frame *f, unsigned rgb[3])
{
	double d = change(s->m, f), r = s->b.maxd > 0 ? (d < 0 ? -d : d) /
	    s->b.maxd : 0;
	unsigned c = (unsigned)(210 * (1 - r) + 0.5);
	int g = grew(s->m, f);

	rgb[0] = g == 0 ? 225 : g < 0 ? c : 255;
	rgb[1] = g == 0 ? 225 : c;
	rgb[2] = g == 0 ? 225 : g > 0 ? c : 255;
}

/* s as XML text, at most max characters (not bytes: names are UTF-8),
 * ending in ".." when cut. */
static int
put_xml(FILE *fp, const char *s, size_t max)
{
	size_t chars = 0, i;
	const char *p;
	int rc = 0;

	for (p = s; *p != '\0'; p++)
		chars += ((unsigned char)*p & 0xc0) != 0x80;
	if (chars > max)
		max = max >= 2 ? max - 2 : 0;
	for (p = s, i = 0; *p != '\0' && rc >= 0; p++) {
		if (((unsigned char)*p & 0xc0) != 0x80 && i++ == max)
			break;
		switch (*p) {
		case '&':
			rc = fputs("&amp;", fp);
			break;
		case '<':
			rc = fputs("&lt;", fp);
			break;
		case '>':
			rc = fputs("&gt;", fp);
			break;
		case '"':
			rc = fputs("&quot;", fp);
			break;
		default:
			rc = fputc(*p, fp);
			break;
		}
	}
	if (rc >= 0 && chars > max && max > 0)
		rc = fputs("..", fp);
	return rc < 0 ? -1 : 0;
}

/* A colour of its own for each name, the same in every graph: warm for
 * units, blue for what is in no bucket ("[libc.so.6]"), orange for the
 * kernel's ("_[k]" after the name, as FlameGraph colours it). */
static void
colour(const char *name, unsigned rgb[3])
{
	size_t n = strlen(name);
	uint64_t h = pme_hash(name, n);

	if (n >= 4 && strcmp(name + n - 4, "_[k]") == 0) {
		rgb[0] = 190 + h % 65;
		rgb[1] = 90 + (h >> 8) % 65;
		rgb[2] = 0;
	} else if (name[0] == '[') {
		rgb[0] = 80 + h % 60;
		rgb[1] = 140 + (h >> 8) % 60;
		rgb[2] = 200 + (h >> 16) % 50;
	} else {
		rgb[0] = 205 + h % 50;
		rgb[1] = (h >> 8) % 230;
		rgb[2] = (h >> 16) % 55;
	}
}

static int
put_frame(struct svg *s, const struct frame *f, int height)
{
	const struct xmodel *m = s->m;
	const char *name = f->name < m->nnames ? m->names[f->name].name :
	    "all";
	double scale = (double)(WIDTH - 2 * PAD) / (double)m->total;
	double x = PAD + (double)f->x * scale, w = (double)f->n * scale;
	double y = height - BOTTOM - (double)(f->depth + 1) * FRAME_H;
	unsigned rgb[3];
	int chars = (int)((w - 6) / CHAR_W), rc;
	char *label = NULL;

	if (w < MIN_W)
		return 0;
	/* A kernel frame is marked "_[k]", as FlameGraph marks it. */
	if (f->name < m->nnames && m->names[f->name].kernel) {
		if ((label = malloc(strlen(name) + 5)) == NULL)
			return -1;
		name = strcat(strcpy(label, name), "_[k]");
	}
	if (m->base != NULL)
		diff_colour(s, f, rgb);
	else if (f->name < m->nnames)
		colour(name, rgb);
	else
		rgb[0] = rgb[1] = rgb[2] = 200;
	rc = fprintf(s->fp, "<g class=\"f\" data-x=\"%llu\" data-n=\"%llu\" "
	    "data-d=\"%u\"", (unsigned long long)f->x,
	    (unsigned long long)f->n, f->depth) < 0 ||
	    (m->base != NULL && fprintf(s->fp, " data-b=\"%llu\"",
	    (unsigned long long)f->base) < 0) ||
	    fputs("><title>", s->fp) < 0 ||
	    put_xml(s->fp, name, (size_t)-1) == -1 ||
	    fprintf(s->fp, " (%llu sample%s, %.2f%%", (unsigned long long)f->n,
	    f->n == 1 ? "" : "s", 100.0 * (double)f->n / (double)m->total) < 0 ||
	    (m->base != NULL && fprintf(s->fp, "; baseline %llu, %.2f%%: "
	    "%+.2f%%", (unsigned long long)f->base, m->base->total > 0 ?
	    100.0 * (double)f->base / (double)m->base->total : 0.0,
	    100.0 * change(m, f)) < 0) ||
	    fprintf(s->fp, ")</title>"
	    "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
	    "rx=\"2\" fill=\"rgb(%u,%u,%u)\"/><text x=\"%.2f\" y=\"%.1f\">",
	    x, y, w, FRAME_H - 1,
	    rgb[0], rgb[1], rgb[2], x + 3, y + FRAME_H - 4.5) < 0 ||
	    (chars >= 3 && put_xml(s->fp, name, (size_t)chars) == -1) ||
	    fputs("</text></g>\n", s->fp) < 0 ? -1 : 0;
	free(label);
	return rc;
}

/*
 * The script: frames zoom on a click (the frame fills the width, the
 * frames below it fade, the others hide), Reset Zoom or Escape goes back;
 * Search (or Control-F, or /) asks for a regular expression, marks the
 * frames whose names match and says the share of the samples under them;
 * the details line says the frame under the pointer.
 */
static const char script[] =
"var fr = [], cur = null, term = null, W = 0, X0 = 0, total = 0;\n"
"function $(id) { return document.getElementById(id); }\n"
"function init() {\n"
"  var gs = document.querySelectorAll('g.f'), i;\n"
"  var svg = document.documentElement;\n"
"  W = +svg.getAttribute('data-w'); X0 = +svg.getAttribute('data-x0');\n"
"  total = +svg.getAttribute('data-total');\n"
"  for (i = 0; i < gs.length; i++) {\n"
"    var g = gs[i], t = g.querySelector('title').textContent;\n"
"    var f = { g: g, x: +g.getAttribute('data-x'),\n"
"      n: +g.getAttribute('data-n'), d: +g.getAttribute('data-d'),\n"
"      name: t.substring(0, t.lastIndexOf(' (')), tip: t,\n"
"      r: g.querySelector('rect'), t: g.querySelector('text') };\n"
"    f.fill = f.r.getAttribute('fill');\n"
"    g.onclick = (function (f) { return function () { zoom(f); }; })(f);\n"
"    g.onmouseover = (function (f) { return function () {\n"
"      $('details').textContent = f.tip; }; })(f);\n"
"    g.onmouseout = function () { $('details').textContent = ' '; };\n"
"    fr.push(f);\n"
"  }\n"
"  document.addEventListener('keydown', function (e) {\n"
"    if ((e.ctrlKey && e.key === 'f') || e.key === '/') {\n"
"      e.preventDefault(); search();\n"
"    } else if (e.key === 'Escape') zoom(null);\n"
"  });\n"
"}\n"
"function label(f, w) {\n"
"  var c = Math.floor((w - 6) / 7.2);\n"
"  if (c < 3) return '';\n"
"  return f.name.length <= c ? f.name : f.name.substring(0, c - 2) + '..';\n"
"}\n"
"function place(f, x, w, faded) {\n"
"  f.g.style.display = w < 0.1 ? 'none' : '';\n"
"  f.r.setAttribute('x', x.toFixed(2));\n"
"  f.r.setAttribute('width', w.toFixed(2));\n"
"  f.t.setAttribute('x', (x + 3).toFixed(2));\n"
"  f.t.textContent = label(f, w);\n"
"  f.g.setAttribute('class', faded ? 'f a' : 'f');\n"
"}\n"
"function zoom(z) {\n"
"  var i, f;\n"
"  if (z !== null && z.d === 0) z = null;\n"
"  cur = z;\n"
"  for (i = 0; i < fr.length; i++) {\n"
"    f = fr[i];\n"
"    if (z === null) place(f, X0 + f.x * W / total, f.n * W / total, 0);\n"
"    else if (f.d >= z.d && f.x >= z.x && f.x + f.n <= z.x + z.n)\n"
"      place(f, X0 + (f.x - z.x) * W / z.n, f.n * W / z.n, 0);\n"
"    else if (f.d < z.d && f.x <= z.x && f.x + f.n >= z.x + z.n)\n"
"      place(f, X0, W, 1);\n"
"    else f.g.style.display = 'none';\n"
"  }\n"
"  $('unzoom').style.display = z === null ? 'none' : '';\n"
"}\n"
"function search() {\n"
"  var s = prompt('Search for a regular expression', term || '');\n"
"  if (s !== null) mark(s);\n"
"}\n"
"function mark(s) {\n"
"  var re = null, i, f, m = [], sum = 0, end = -1;\n"
"  if (s !== '') {\n"
"    try { re = new RegExp(s); }\n"
"    catch (e) { alert('not a regular expression: ' + s); return; }\n"
"  }\n"
"  term = re === null ? null : s;\n"
"  for (i = 0; i < fr.length; i++) {\n"
"    f = fr[i];\n"
"    if (re !== null && f.d > 0 && re.test(f.name)) {\n"
"      f.r.setAttribute('fill', 'rgb(230,0,230)'); m.push(f);\n"
"    } else f.r.setAttribute('fill', f.fill);\n"
"  }\n"
"  m.sort(function (a, b) { return a.x - b.x || a.d - b.d; });\n"
"  for (i = 0; i < m.length; i++)\n"
"    if (m[i].x >= end) { sum += m[i].n; end = m[i].x + m[i].n; }\n"
"  $('matched').textContent = re === null ? ' ' :\n"
"    'Matched: ' + (100 * sum / total).toFixed(1) + '% (' + sum +\n"
"    ' of ' + total + ' samples)';\n"
"  $('unsearch').style.display = re === null ? 'none' : '';\n"
"}\n";

static int
put_head(struct svg *s, int height)
{
	const struct tally *t = s->m->t;
	const char *cmd = s->m->command != NULL ? s->m->command : "";
	char every[1200];

	if (fprintf(s->fp, "<?xml version=\"1.0\" encoding=\"UTF-8\" "
	    "standalone=\"no\"?>\n"
	    "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
	    "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	    "data-w=\"%d\" data-x0=\"%d\" data-total=\"%llu\" "
	    "onload=\"init()\">\n"
	    "<!-- a flame graph drawn by pmehisto -T svg (pme %s) -->\n"
	    "<style type=\"text/css\">\n"
	    "text { font-family: monospace; font-size: 12px; fill: #000; }\n"
	    "text.h { font-size: 17px; }\n"
	    "text.b { fill: #036; cursor: pointer; }\n"
	    "g.f { cursor: pointer; }\n"
	    "g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	    "g.a rect { opacity: 0.5; }\n"
	    "</style>\n<script type=\"text/ecmascript\"><![CDATA[\n%s]]>"
	    "</script>\n"
	    "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
	    "fill=\"#f8f8f0\"/>\n"
	    "<text class=\"h\" x=\"%d\" y=\"22\" text-anchor=\"middle\">"
	    "%sFlame Graph</text>\n"
	    "<text x=\"%d\" y=\"40\" text-anchor=\"middle\">",
	    WIDTH, height, WIDTH, height, WIDTH - 2 * PAD, PAD,
	    (unsigned long long)s->m->total, PME_VERSION_STRING, script,
	    WIDTH, height, WIDTH / 2, s->m->base != NULL ? "Differential " :
	    "", WIDTH / 2) < 0 ||
	    put_xml(s->fp, cmd, 150) == -1)
		return -1;
	if (fprintf(s->fp, "%s%llu sample%s", cmd[0] ? ": " : "",
	    (unsigned long long)s->m->total, s->m->total == 1 ? "" : "s") < 0 ||
	    ((t->period != 0 || !measure_clock(&t->measure)) &&
	    put_xml(s->fp, report_every(t, every, sizeof(every)), 1200) == -1))
		return -1;
	if (s->m->base != NULL && fprintf(s->fp, "; against a baseline of "
	    "%llu: red grew, blue shrank (shares)", (unsigned long long)
	    s->m->base->total) < 0)
		return -1;
	return fprintf(s->fp, "</text>\n"
	    "<text id=\"unzoom\" class=\"b\" x=\"%d\" y=\"22\" "
	    "style=\"display:none\" onclick=\"zoom(null)\">Reset Zoom</text>\n"
	    "<text id=\"search\" class=\"b\" x=\"%d\" y=\"22\" "
	    "text-anchor=\"end\" onclick=\"search()\">Search</text>\n"
	    "<text id=\"unsearch\" class=\"b\" x=\"%d\" y=\"40\" "
	    "text-anchor=\"end\" style=\"display:none\" onclick=\"mark('')\">"
	    "Reset Search</text>\n"
	    "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
	    "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> "
	    "</text>\n",
	    PAD, WIDTH - PAD, WIDTH - PAD, PAD, height - 12, WIDTH - PAD,
	    height - 12) < 0 ? -1 : 0;
}

int
svg_write(const struct xmodel *m, FILE *fp)
{
	struct svg s;
	int height = TOP + (int)(m->depth + 1) * FRAME_H + BOTTOM, rc = -1;
	size_t i;

	memset(&s, 0, sizeof(s));
	s.m = m;
	s.fp = fp;
	if (layout(&s) == -1 || compare(&s) == -1 ||
	    put_head(&s, height) == -1)
		goto done;
	for (i = 0; i < s.nf; i++)
		if (put_frame(&s, &s.f[i], height) == -1)
			goto done;
	if (fputs("</svg>\n", fp) < 0)
		goto done;
	rc = 0;
done:
	free(s.f);
	free(s.open);
	free(s.b.pool);
	free(s.b.st);
	free(s.b.sum);
	return rc;
}
