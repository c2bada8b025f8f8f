/*
 * gfile.c - the graph file language of graphfile(5): a lexer and a
 * recursive-descent parser into struct gfile, the merge of an event
 * file's specifications, and the canonical text written back.
 *
 * Every token, string and name is bounded (GF_MAXTOK), expressions nest
 * at most GEXPR_MAXDEPTH deep, and the first error ends the parse, so
 * that no input can make the parser use more than its size's worth of
 * memory or stack.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "stats.h"
#include "util.h"

#define GF_MAXTOK	4096	/* bytes in a name, number or string */
#define GF_MAXLINE	(1u << 20)	/* bytes in a line of a graph file */

enum ttype { T_EOF, T_IDENT, T_NUM, T_STR, T_PUNCT };

struct token {
	enum ttype	 type;
	char		 text[GF_MAXTOK + 1];	/* NUL-terminated */
	double		 num;			/* T_NUM */
	unsigned	 line;
};

struct parser {
	const char	*p, *end;
	const char	*name;
	unsigned	 line;
	struct token	 t;
	int		 nest;		/* open parentheses and minus signs */
	struct pme_error *err;
	/* The graphs' names so far, for "defined twice" at the cost of a
	 * lookup, not of a pass over the graphs (32,000 graphs took
	 * seconds): open addressing, a graph's index + 1. */
	size_t		*ids;
	size_t		 capids;
};


/* The colour names of graphfile(5), with the RGB the views draw. */
static const struct {
	const char	*name;
	unsigned long	 rgb;
} colors[] = {
	{ "black", 0x000000 }, { "gray", 0x808080 }, { "grey", 0x808080 },
	{ "red", 0xff0000 }, { "navy", 0x000080 }, { "brown", 0xa52a2a },
	{ "blue", 0x0000ff }, { "green", 0x008000 }, { "yellow", 0xffff00 },
	{ "white", 0xffffff }, { "cyan", 0x00ffff }, { "magenta", 0xff00ff },
	{ "orange", 0xffa500 }, { "purple", 0x800080 }, { "pink", 0xffc0cb },
	{ "olive", 0x808000 }, { "teal", 0x008080 }, { "maroon", 0x800000 },
	{ "lightgray", 0xd3d3d3 }, { "darkgray", 0xa9a9a9 }
};

enum dtype { D_STR, D_SCALE, D_FORMAT, D_BINS, D_BOOL, D_PLOTSET, D_ACTION,
	D_MAP };

/* The descriptors and where each goes; the kinds that take each are
 * in their rows of gkinds[] (kinds.c). */
static const struct desc {
	const char	*name;
	unsigned	 bit;
	enum dtype	 type;
	size_t		 off;		/* D_STR: the char * in struct graph */
} descs[] = {
	{ "menu", GD_MENU, D_STR, offsetof(struct graph, menu) },
	{ "name", GD_NAME, D_STR, offsetof(struct graph, name) },
	{ "x_axis", GD_XAXIS, D_STR, offsetof(struct graph, x_axis) },
	{ "y_axis", GD_YAXIS, D_STR, offsetof(struct graph, y_axis) },
	{ "metric", GD_METRIC, D_STR, offsetof(struct graph, metric) },
	{ "scale", GD_SCALE, D_SCALE, 0 },
	{ "format", GD_FORMAT, D_FORMAT, 0 },
	{ "bins", GD_BINS, D_BINS, 0 },
	{ "normalize", GD_NORMALIZE, D_BOOL, 0 },
	{ "plotset", GD_PLOTSET, D_PLOTSET, 0 },
	{ "action", GD_ACTION, D_ACTION, 0 },
	{ "map", GD_MAP, D_MAP, 0 }
};
#define NDESCS	(sizeof(descs) / sizeof(descs[0]))

static int parse_expr(struct parser *, struct gexpr **, int *);

/* --- errors -------------------------------------------------------------- */

static int
perr(struct parser *ps, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Sets the caller's error to "name:line: what"; returns -1. */
static int
perr(struct parser *ps, unsigned line, const char *fmt, ...)
{
	char what[sizeof(ps->err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return pme_seterr(ps->err, PME_EFORMAT, "%s:%u: %s", ps->name, line,
	    what);
}

static int
nomem(struct parser *ps)
{
	return perr(ps, ps->t.line, "out of memory");
}

/* The current token, as "expected X, found Y" says it. */
static const char *
found(const struct token *t, char *buf, size_t len)
{
	switch (t->type) {
	case T_EOF:
		return "end of file";
	case T_STR:
		return "a string";
	default:
		snprintf(buf, len, "'%s'", t->text);
		return buf;
	}
}

static int
unexpected(struct parser *ps, const char *wanted)
{
	char buf[GF_MAXTOK + 3];

	return perr(ps, ps->t.line, "expected %s, found %s", wanted,
	    found(&ps->t, buf, sizeof(buf)));
}

/* --- the lexer ----------------------------------------------------------- */

/* Skips white space and comments; -1 on a comment that does not end. */
static int
skip_space(struct parser *ps)
{
	const char *p = ps->p, *e = ps->end;
	unsigned start;

	while (p < e) {
		if (*p == '\n') {
			ps->line++;
			p++;
		} else if (*p == ' ' || *p == '\t' || *p == '\r' ||
		    *p == '\f' || *p == '\v') {
			p++;
		} else if (*p == '#' || (*p == '/' && p + 1 < e && p[1] == '/')) {
			while (p < e && *p != '\n')
				p++;
		} else if (*p == '/' && p + 1 < e && p[1] == '*') {
			start = ps->line;
			for (p += 2; p < e && !(*p == '*' && p + 1 < e &&
			    p[1] == '/'); p++)
				if (*p == '\n')
					ps->line++;
			if (p >= e)
				return perr(ps, start, "unterminated comment");
			p += 2;
		} else
			break;
	}
	ps->p = p;
	return 0;
}

/* The byte the escape "\c" stands for, or -1. */
static int
unescape(char c)
{
	switch (c) {
	case '"':
	case '\\':
		return c;
	case 'n':
		return '\n';
	case 't':
		return '\t';
	default:
		return -1;
	}
}

/* A string; a newline or the end of the text before its '"' is an
 * error, so is a control character (a tab excepted) in it. */
static int
lex_string(struct parser *ps)
{
	const char *p = ps->p + 1;
	size_t n = 0;
	int c, esc;

	for (;; p++) {
		if (p >= ps->end || *p == '\n' || (*p == '\\' &&
		    (p + 1 >= ps->end || p[1] == '\n')))
			return perr(ps, ps->t.line, "unterminated string");
		if (*p == '"')
			break;
		c = (unsigned char)*p;
		if ((esc = c == '\\') && (c = unescape(*++p)) == -1) {
			c = (unsigned char)*p;
			return perr(ps, ps->t.line, isprint(c) ?
			    "unknown escape '\\%c' in a string" :
			    "unknown escape '\\\\x%02x' in a string", c);
		}
		if (!esc && c < 0x20 && c != '\t')
			return perr(ps, ps->t.line, "control character "
			    "'\\x%02x' in a string", (unsigned)c);
		if (n == GF_MAXTOK)
			return perr(ps, ps->t.line, "string longer than %d "
			    "bytes", GF_MAXTOK);
		ps->t.text[n++] = (char)c;
	}
	ps->t.text[n] = '\0';
	ps->t.type = T_STR;
	ps->p = p + 1;
	return 0;
}

static int
isdig(const struct parser *ps, const char *p)
{
	return p < ps->end && isdigit((unsigned char)*p);
}

/* A number: digits, a fraction after a '.' and a digit, an exponent. */
static int
lex_number(struct parser *ps)
{
	const char *p = ps->p, *s = p;
	size_t n;

	while (isdig(ps, p))
		p++;
	if (p < ps->end && *p == '.' && isdig(ps, p + 1))
		for (p++; isdig(ps, p); p++)
			;
	if (p < ps->end && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1;

		if (q < ps->end && (*q == '+' || *q == '-'))
			q++;
		if (isdig(ps, q))
			for (p = q; isdig(ps, p); p++)
				;
	}
	if ((n = (size_t)(p - s)) > GF_MAXTOK)
		return perr(ps, ps->t.line, "number longer than %d bytes",
		    GF_MAXTOK);
	memcpy(ps->t.text, s, n);
	ps->t.text[n] = '\0';
	errno = 0;
	ps->t.num = strtod(ps->t.text, NULL);
	if (errno == ERANGE && isinf(ps->t.num))
		return perr(ps, ps->t.line, "number '%s' out of range",
		    ps->t.text);
	ps->t.type = T_NUM;
	ps->p = p;
	return 0;
}

static int
lex_ident(struct parser *ps)
{
	const char *p = ps->p;
	size_t n;

	while (p < ps->end && (isalnum((unsigned char)*p) || *p == '_'))
		p++;
	if ((n = (size_t)(p - ps->p)) > GF_MAXTOK)
		return perr(ps, ps->t.line, "name longer than %d bytes",
		    GF_MAXTOK);
	memcpy(ps->t.text, ps->p, n);
	ps->t.text[n] = '\0';
	ps->t.type = T_IDENT;
	ps->p = p;
	return 0;
}

/* Reads the next token into ps->t. */
static int
next(struct parser *ps)
{
	const char *p;
	int c;

	if (skip_space(ps) == -1)
		return -1;
	p = ps->p;
	ps->t.line = ps->line;
	if (p >= ps->end) {
		ps->t.type = T_EOF;
		strcpy(ps->t.text, "end of file");
		return 0;
	}
	c = (unsigned char)*p;
	if (c == '"')
		return lex_string(ps);
	if (isdigit(c) || (c == '.' && isdig(ps, p + 1)))
		return lex_number(ps);
	if (isalpha(c) || c == '_')
		return lex_ident(ps);
	ps->t.type = T_PUNCT;
	if (p + 1 < ps->end && ((c == '<' && p[1] == '-') ||
	    (c == '.' && p[1] == '.'))) {
		memcpy(ps->t.text, p, 2);
		ps->t.text[2] = '\0';
		ps->p += 2;
		return 0;
	}
	/* Other punctuation is a token too, so that the parser can say
	 * what it expected instead. */
	if (!isprint(c) || c == ' ')
		return perr(ps, ps->line, "unexpected character '\\x%02x'",
		    c);
	ps->t.text[0] = (char)c;
	ps->t.text[1] = '\0';
	ps->p++;
	return 0;
}

static int
is(const struct parser *ps, const char *punct)
{
	return ps->t.type == T_PUNCT && strcmp(ps->t.text, punct) == 0;
}

static int
is_ident(const struct parser *ps, const char *name)
{
	return ps->t.type == T_IDENT && strcmp(ps->t.text, name) == 0;
}

/* Takes the punctuation punct, or says it was expected after what. */
static int
want(struct parser *ps, const char *punct, const char *after)
{
	char buf[GF_MAXTOK + 64];

	if (!is(ps, punct)) {
		snprintf(buf, sizeof(buf), "'%s' after %s", punct, after);
		return unexpected(ps, buf);
	}
	return next(ps);
}

/* --- expressions --------------------------------------------------------- */

static struct gexpr *
mknode(struct parser *ps, enum gop op, struct gexpr *a, struct gexpr *b)
{
	struct gexpr *e;

	if ((e = calloc(1, sizeof(*e))) == NULL) {
		gexpr_free(a);
		gexpr_free(b);
		nomem(ps);
		return NULL;
	}
	e->op = op;
	e->a = a;
	e->b = b;
	return e;
}

static int
too_deep(struct parser *ps)
{
	return perr(ps, ps->t.line, "expression nested more than %d deep",
	    GEXPR_MAXDEPTH);
}

static int
parse_primary(struct parser *ps, struct gexpr **e, int *depth)
{
	*depth = 1;
	if (is(ps, "(")) {
		if (++ps->nest > GEXPR_MAXDEPTH)
			return too_deep(ps);
		if (next(ps) == -1 || parse_expr(ps, e, depth) == -1)
			return -1;
		ps->nest--;
		return want(ps, ")", "the expression");
	}
	if (ps->t.type != T_NUM && ps->t.type != T_IDENT)
		return unexpected(ps, "a number or a name");
	if ((*e = mknode(ps, ps->t.type == T_NUM ? GE_NUM : GE_SYM, NULL,
	    NULL)) == NULL)
		return -1;
	(*e)->num = ps->t.num;
	if (ps->t.type == T_IDENT && ((*e)->sym = strdup(ps->t.text)) == NULL)
		return nomem(ps);
	return next(ps);
}

/* A minus sign before a number makes a negative number, so that what
 * gexpr_write() writes of one reads back the same. */
static int
parse_unary(struct parser *ps, struct gexpr **e, int *depth)
{
	if (!is(ps, "-"))
		return parse_primary(ps, e, depth);
	if (++ps->nest > GEXPR_MAXDEPTH)
		return too_deep(ps);
	if (next(ps) == -1 || parse_unary(ps, e, depth) == -1)
		return -1;
	ps->nest--;
	if ((*e)->op == GE_NUM) {
		(*e)->num = -(*e)->num;
		return 0;
	}
	if (++*depth > GEXPR_MAXDEPTH)
		return too_deep(ps);
	return (*e = mknode(ps, GE_NEG, *e, NULL)) == NULL ? -1 : 0;
}

/* A left-associative chain of operands (next level down: sub) joined by
 * the operators of ops ("+-" or "*" "/"). */
static int
parse_chain(struct parser *ps, struct gexpr **e, int *depth,
    int (*sub)(struct parser *, struct gexpr **, int *), const char *ops,
    enum gop op0, enum gop op1)
{
	struct gexpr *b = NULL;
	enum gop op;
	int db;

	if (sub(ps, e, depth) == -1)
		return -1;
	while (ps->t.type == T_PUNCT && ps->t.text[1] == '\0' &&
	    strchr(ops, ps->t.text[0]) != NULL) {
		op = ps->t.text[0] == ops[0] ? op0 : op1;
		if (next(ps) == -1 || sub(ps, &b, &db) == -1) {
			gexpr_free(b);
			return -1;
		}
		*depth = 1 + (db > *depth ? db : *depth);
		if ((*e = mknode(ps, op, *e, b)) == NULL)
			return -1;
		b = NULL;
		if (*depth > GEXPR_MAXDEPTH)
			return too_deep(ps);
	}
	return 0;
}

static int
parse_term(struct parser *ps, struct gexpr **e, int *depth)
{
	return parse_chain(ps, e, depth, parse_unary, "*/", GE_MUL, GE_DIV);
}

/* Parses an expression into *e, which the caller frees (also on error). */
static int
parse_expr(struct parser *ps, struct gexpr **e, int *depth)
{
	return parse_chain(ps, e, depth, parse_term, "+-", GE_ADD, GE_SUB);
}

static int
parse_expr_top(struct parser *ps, struct gexpr **e)
{
	int depth;

	*e = NULL;
	ps->nest = 0;
	return parse_expr(ps, e, &depth);
}

/* --- descriptors --------------------------------------------------------- */

static int
take_string(struct parser *ps, char **dst, const char *what)
{
	char buf[64];

	if (ps->t.type != T_STR) {
		snprintf(buf, sizeof(buf), "a string for '%s'", what);
		return unexpected(ps, buf);
	}
	free(*dst);
	if ((*dst = strdup(ps->t.text)) == NULL)
		return nomem(ps);
	return next(ps);
}

static int
parse_scale(struct parser *ps, struct graph *g)
{
	struct gexpr *e;
	struct pme_error why;
	unsigned line = ps->t.line;
	double v;
	int rc;

	if (parse_expr_top(ps, &e) == -1) {
		gexpr_free(e);
		return -1;
	}
	rc = gexpr_eval(e, NULL, NULL, &v, &why);
	gexpr_free(e);
	if (rc == -1)
		/* %.255s: the reason as it always was, cut at 255 bytes. */
		return perr(ps, line, "bad scale: %.255s", why.msg);
	if (!isfinite(v) || v == 0)
		return perr(ps, line, "bad scale: %s", v == 0 ? "zero" :
		    "not a finite number");
	g->scale = v;
	return 0;
}

static int
parse_format(struct parser *ps, struct graph *g)
{
	struct pme_error why;
	unsigned line = ps->t.line;

	if (take_string(ps, &g->format, "format") == -1)
		return -1;
	if (g->format[0] != '\0' &&
	    gformat_check(g->format, &why) == -1)
		return perr(ps, line, "bad format '%s': %.255s", g->format,
		    why.msg);
	return 0;
}

/* A whole number from lo to hi, or an error that names what it is for. */
static int
take_int(struct parser *ps, long lo, long hi, const char *what, long *v)
{
	char buf[128];

	if (ps->t.type != T_NUM || ps->t.num < lo || ps->t.num > hi ||
	    ps->t.num != (double)(long)ps->t.num) {
		snprintf(buf, sizeof(buf), "%s (a whole number from %ld to "
		    "%ld)", what, lo, hi);
		return unexpected(ps, buf);
	}
	*v = (long)ps->t.num;
	return next(ps);
}

static int
parse_bins(struct parser *ps, struct graph *g)
{
	long v;

	if (take_int(ps, 1, 64, "the number of bins", &v) == -1)
		return -1;
	g->bins = (int)v;
	return 0;
}

static int
parse_bool(struct parser *ps, struct graph *g)
{
	if (is_ident(ps, "true") || (ps->t.type == T_NUM && ps->t.num == 1))
		g->normalize = 1;
	else if (is_ident(ps, "false") ||
	    (ps->t.type == T_NUM && ps->t.num == 0))
		g->normalize = 0;
	else
		return unexpected(ps, "true, false, 1 or 0 for 'normalize'");
	return next(ps);
}

/* The room an array of n elements grown by grow() has: the least power
 * of two at or above n (0 for none). */
static size_t
room(size_t n)
{
	size_t r = n > 0 ? 1 : 0;

	while (r < n)
		r *= 2;
	return r;
}

/*
 * Grows *arr of *n elements of size sz by one zeroed element.  The room
 * doubles when it is full (n a power of two), so that n graphs cost n
 * elements' copies, not n * n / 2: a realloc that cannot grow in place,
 * as under AddressSanitizer, copied the whole array for every graph.
 */
static void *
grow(void *arr, size_t *n, size_t sz)
{
	char *p = arr;

	if (*n >= ((size_t)-1 / 4) / sz)
		return NULL;
	if (room(*n) == *n && (p = realloc(arr, (*n > 0 ? 2 * *n : 1) *
	    sz)) == NULL)
		return NULL;
	memset(p + *n * sz, 0, sz);
	(*n)++;
	return p;
}

static int
parse_plotset(struct parser *ps, struct graph *g)
{
	long v, *p;

	if (want(ps, "{", "'plotset <-'") == -1)
		return -1;
	for (;;) {
		if (take_int(ps, 0, INT_MAX, "a row number", &v) == -1)
			return -1;
		if ((p = grow(g->plotset, &g->nplotset, sizeof(*p))) == NULL)
			return nomem(ps);
		g->plotset = p;
		p[g->nplotset - 1] = v;
		if (!is(ps, ","))
			break;
		if (next(ps) == -1)
			return -1;
	}
	return want(ps, "}", "the plotset's rows");
}

static int
parse_rule(struct parser *ps, struct graph *g)
{
	struct grule *r;
	char buf[GF_MAXTOK + 16];

	if (ps->t.type != T_IDENT)
		return unexpected(ps, "an event type");
	if ((r = grow(g->rules, &g->nrules, sizeof(*r))) == NULL)
		return nomem(ps);
	g->rules = r;
	r += g->nrules - 1;
	r->line = ps->t.line;
	if ((r->event = strdup(ps->t.text)) == NULL)
		return nomem(ps);
	snprintf(buf, sizeof(buf), "'%s'", r->event);
	if (next(ps) == -1 || want(ps, ":", buf) == -1)
		return -1;
	if (is_ident(ps, "VALUE"))
		r->op = GA_VALUE;
	else if (is_ident(ps, "ADD"))
		r->op = GA_ADD;
	else
		return unexpected(ps, "VALUE or ADD");
	snprintf(buf, sizeof(buf), "'%s'", ps->t.text);
	if (next(ps) == -1 || want(ps, "(", buf) == -1)
		return -1;
	if (ps->t.type != T_IDENT)
		return unexpected(ps, "the index variable");
	if (g->var == NULL)
		return perr(ps, ps->t.line, "'%s' is not an index variable: "
		    "graph '%s' has no (%s, lo, hi) header", ps->t.text, g->id,
		    ps->t.text);
	if (strcmp(ps->t.text, g->var) != 0)
		return perr(ps, ps->t.line, "'%s' is not the index variable "
		    "'%s'", ps->t.text, g->var);
	if (next(ps) == -1)
		return -1;
	return want(ps, ")", "the index variable");
}

static int
parse_action(struct parser *ps, struct graph *g)
{
	for (;;) {
		if (parse_rule(ps, g) == -1)
			return -1;
		if ((is(ps, ",") || is(ps, ";")) && next(ps) == -1)
			return -1;
		if (is(ps, "}"))
			return next(ps);
	}
}

/* A map value: a number, with a minus sign if it is negative. */
static int
take_value(struct parser *ps, double *v)
{
	int neg = 0;

	if (is(ps, "-")) {
		neg = 1;
		if (next(ps) == -1)
			return -1;
	}
	if (ps->t.type != T_NUM)
		return unexpected(ps, "a value");
	*v = neg ? -ps->t.num : ps->t.num;
	return next(ps);
}

static int
take_color(struct parser *ps, struct gmap *m)
{
	unsigned long rgb;

	if (ps->t.type != T_IDENT && ps->t.type != T_STR)
		return unexpected(ps, "a colour");
	if (gcolor_rgb(ps->t.text, &rgb) == -1)
		return perr(ps, ps->t.line, ps->t.type == T_IDENT ?
		    "unknown colour '%s'" : "bad colour '%s' (not #rrggbb)",
		    ps->t.text);
	if ((m->color = strdup(ps->t.text)) == NULL)
		return nomem(ps);
	return next(ps);
}

static int
parse_entry(struct parser *ps, struct graph *g)
{
	struct gmap *m;

	if ((m = grow(g->map, &g->nmap, sizeof(*m))) == NULL)
		return nomem(ps);
	g->map = m;
	m += g->nmap - 1;
	m->line = ps->t.line;
	if (take_value(ps, &m->lo) == -1)
		return -1;
	m->hi = m->lo;
	if (is(ps, "..") && (next(ps) == -1 || take_value(ps, &m->hi) == -1))
		return -1;
	if (m->lo > m->hi)
		return perr(ps, m->line, "map range %g..%g runs backwards",
		    m->lo, m->hi);
	if (want(ps, ":", "the map value") == -1 || take_color(ps, m) == -1)
		return -1;
	if (ps->t.type == T_STR)
		return take_string(ps, &m->label, "label");
	return 0;
}

static const struct gmap *sort_map;

static int
cmp_entry(const void *a, const void *b)
{
	const struct gmap *x = &sort_map[*(const size_t *)a];
	const struct gmap *y = &sort_map[*(const size_t *)b];

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void
range_text(char *buf, size_t len, const struct gmap *m)
{
	if (m->lo == m->hi)
		snprintf(buf, len, "%g", m->lo);
	else
		snprintf(buf, len, "%g..%g", m->lo, m->hi);
}

/* Refuses two entries whose ranges share a value, naming the later. */
static int
check_overlap(struct parser *ps, const struct graph *g)
{
	const struct gmap *a, *b, *t;
	char ra[64], rb[64];
	size_t *ix, i;

	if ((ix = calloc(g->nmap, sizeof(*ix))) == NULL)
		return nomem(ps);
	for (i = 0; i < g->nmap; i++)
		ix[i] = i;
	sort_map = g->map;
	qsort(ix, g->nmap, sizeof(*ix), cmp_entry);
	for (i = 1; i < g->nmap; i++) {
		a = &g->map[ix[i - 1]];
		b = &g->map[ix[i]];
		if (b->lo > a->hi)
			continue;
		if (a->line > b->line) {
			t = a;
			a = b;
			b = t;
		}
		free(ix);
		range_text(ra, sizeof(ra), a);
		range_text(rb, sizeof(rb), b);
		return perr(ps, b->line, "map entry %s overlaps %s of line %u",
		    rb, ra, a->line);
	}
	free(ix);
	return 0;
}

static int
parse_map(struct parser *ps, struct graph *g)
{
	for (;;) {
		if (parse_entry(ps, g) == -1)
			return -1;
		if (is(ps, ",")) {
			if (next(ps) == -1)
				return -1;
		} else if (!is(ps, "}"))
			return unexpected(ps, "',' or '}' after the map entry");
		if (is(ps, "}"))
			break;
	}
	if (check_overlap(ps, g) == -1)
		return -1;
	return next(ps);
}

static const struct desc *
find_desc(const char *name)
{
	size_t i;

	for (i = 0; i < NDESCS; i++)
		if (strcmp(descs[i].name, name) == 0)
			return &descs[i];
	return NULL;
}

static int
parse_value(struct parser *ps, struct graph *g, const struct desc *d)
{
	switch (d->type) {
	case D_STR:
		return take_string(ps, (char **)((char *)g + d->off), d->name);
	case D_SCALE:
		return parse_scale(ps, g);
	case D_FORMAT:
		return parse_format(ps, g);
	case D_BINS:
		return parse_bins(ps, g);
	case D_BOOL:
		return parse_bool(ps, g);
	default:
		return parse_plotset(ps, g);
	}
}

/* One descriptor, which *dp then points to. */
static int
parse_desc(struct parser *ps, struct graph *g, const struct desc **dp)
{
	const struct desc *d;
	char buf[64];

	if (ps->t.type != T_IDENT)
		return unexpected(ps, "a descriptor");
	if ((d = find_desc(ps->t.text)) == NULL)
		return perr(ps, ps->t.line, "unknown descriptor '%s'",
		    ps->t.text);
	if (g->given & d->bit)
		return perr(ps, ps->t.line, "descriptor '%s' given twice",
		    d->name);
	if (!(gkinds[g->kind].descs & d->bit))
		return perr(ps, ps->t.line, "descriptor '%s' does not apply to "
		    "%s '%s'", d->name, gkinds[g->kind].name, g->id);
	g->given |= d->bit;
	*dp = d;
	snprintf(buf, sizeof(buf), "'%s'", d->name);
	if (next(ps) == -1)
		return -1;
	if (d->type == D_ACTION || d->type == D_MAP) {
		if (want(ps, "{", buf) == -1)
			return -1;
		return d->type == D_ACTION ? parse_action(ps, g) :
		    parse_map(ps, g);
	}
	if (want(ps, "<-", buf) == -1)
		return -1;
	return parse_value(ps, g, d);
}

/* The descriptors between the braces, the '{' taken. */
static int
parse_body(struct parser *ps, struct graph *g)
{
	const struct desc *d = NULL;
	char buf[64];

	/* A block needs no comma after it, nor before it. */
	while (!is(ps, "}")) {
		if (parse_desc(ps, g, &d) == -1)
			return -1;
		if (is(ps, ",")) {
			if (next(ps) == -1)
				return -1;
		} else if (!is(ps, "}") && d->type != D_ACTION &&
		    d->type != D_MAP && !is_ident(ps, "action") &&
		    !is_ident(ps, "map")) {
			snprintf(buf, sizeof(buf), "',' or '}' after '%s'",
			    d->name);
			return unexpected(ps, buf);
		}
	}
	return next(ps);
}

/* The "(x, lo, hi)" after a graph's name, the '(' taken. */
static int
parse_header(struct parser *ps, struct graph *g)
{
	if (ps->t.type != T_IDENT)
		return unexpected(ps, "an index variable after '('");
	if ((g->var = strdup(ps->t.text)) == NULL)
		return nomem(ps);
	g->given |= GD_RANGE;
	if (next(ps) == -1 || want(ps, ",", "the index variable") == -1 ||
	    parse_expr_top(ps, &g->lo) == -1 ||
	    want(ps, ",", "the low end") == -1 ||
	    parse_expr_top(ps, &g->hi) == -1)
		return -1;
	return want(ps, ")", "the high end");
}

static int
new_graph(struct parser *ps, struct gfile *out, enum gkind kind)
{
	struct graph *g;

	if ((g = grow(out->g, &out->n, sizeof(*g))) == NULL)
		return nomem(ps);
	out->g = g;
	g += out->n - 1;
	g->kind = kind;
	g->line = ps->t.line;
	g->scale = 1;
	if ((g->file = strdup(ps->name)) == NULL ||
	    (g->format = strdup("")) == NULL)
		return nomem(ps);
	return 0;
}

static size_t
id_slot(const char *id, size_t cap)
{
	return (size_t)(pme_hash(id, strlen(id)) & (cap - 1));
}

/* The graph of out named id, or NULL. */
static struct graph *
id_find(const struct parser *ps, const struct gfile *out, const char *id)
{
	size_t h;

	if (ps->capids == 0)
		return NULL;
	for (h = id_slot(id, ps->capids); ps->ids[h] != 0;
	    h = (h + 1) & (ps->capids - 1))
		if (strcmp(out->g[ps->ids[h] - 1].id, id) == 0)
			return &out->g[ps->ids[h] - 1];
	return NULL;
}

/* Notes the name of out's last graph (the table kept half empty). */
static int
id_add(struct parser *ps, const struct gfile *out)
{
	size_t cap, h, *t;

	if (2 * out->n > ps->capids) {
		cap = ps->capids ? 2 * ps->capids : 64;
		if ((t = calloc(cap, sizeof(*t))) == NULL)
			return nomem(ps);
		for (size_t i = 0; i + 1 < out->n; i++) {
			for (h = id_slot(out->g[i].id, cap); t[h] != 0;
			    h = (h + 1) & (cap - 1))
				;
			t[h] = i + 1;
		}
		free(ps->ids);
		ps->ids = t;
		ps->capids = cap;
	}
	for (h = id_slot(out->g[out->n - 1].id, ps->capids); ps->ids[h] != 0;
	    h = (h + 1) & (ps->capids - 1))
		;
	ps->ids[h] = out->n;
	return 0;
}

static int
parse_graph(struct parser *ps, struct gfile *out)
{
	struct graph *g, *old;
	char buf[GF_MAXTOK + 16];
	size_t k;

	if (ps->t.type != T_IDENT)
		return unexpected(ps, "a graph kind");
	for (k = 0; k < G_NKINDS && strcmp(gkinds[k].name, ps->t.text) != 0;
	    k++)
		;
	if (k == G_NKINDS)
		return perr(ps, ps->t.line, "unknown graph kind '%s'",
		    ps->t.text);
	if (new_graph(ps, out, (enum gkind)k) == -1 || next(ps) == -1)
		return -1;
	g = &out->g[out->n - 1];
	if (ps->t.type != T_IDENT) {
		snprintf(buf, sizeof(buf), "a graph name after '%s'",
		    gkinds[k].name);
		return unexpected(ps, buf);
	}
	if ((old = id_find(ps, out, ps->t.text)) != NULL)
		return perr(ps, ps->t.line, "graph '%s' defined twice (first "
		    "at line %u)", ps->t.text, old->line);
	if ((g->id = strdup(ps->t.text)) == NULL)
		return nomem(ps);
	if (id_add(ps, out) == -1)
		return -1;
	if (next(ps) == -1)
		return -1;
	if (is(ps, "(") && (next(ps) == -1 || parse_header(ps, g) == -1))
		return -1;
	snprintf(buf, sizeof(buf), "'%s'", g->id);
	if (want(ps, "{", g->var != NULL ? "the header" : buf) == -1)
		return -1;
	return parse_body(ps, g);
}

int
gfile_parse(const char *text, size_t len, const char *name,
    struct gfile *out, struct pme_error *err)
{
	struct parser *ps;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (err != NULL)
		memset(err, 0, sizeof(*err));
	/* The parser holds a token of GF_MAXTOK bytes: not on the stack. */
	if ((ps = calloc(1, sizeof(*ps))) == NULL) {
		pme_seterr(err, PME_ENOMEM, "%s: out of memory", name);
		return -1;
	}
	ps->p = text;
	ps->end = text + len;
	ps->name = name;
	ps->line = 1;
	ps->err = err;
	if (next(ps) == -1)
		rc = -1;
	while (rc == 0 && ps->t.type != T_EOF)
		rc = parse_graph(ps, out);
	free(ps->ids);
	free(ps);
	if (rc == -1)
		gfile_free(out);
	return rc;
}

/*
 * Counts the lines of s[0..n), read after *line lines and *cur bytes of
 * the line then open: 1 when a line is longer than GF_MAXLINE bytes, so
 * that an endless line (/dev/zero) is refused as it comes, not read
 * until memory runs out.
 */
static int
long_line(const char *s, size_t n, unsigned *line, size_t *cur)
{
	const char *nl;

	while ((nl = memchr(s, '\n', n)) != NULL) {
		if (*cur + (size_t)(nl - s) > GF_MAXLINE)
			return 1;
		(*line)++;
		*cur = 0;
		n -= (size_t)(nl - s) + 1;
		s = nl + 1;
	}
	*cur += n;
	return *cur > GF_MAXLINE;
}

int
gfile_load(const char *path, struct gfile *out, struct pme_error *err)
{
	struct pme_error perr;
	FILE *fp;
	char *buf = NULL, *p;
	size_t len = 0, cap = 0, n, cur = 0;
	unsigned line = 1;
	int rc, e = 0;

	memset(out, 0, sizeof(*out));
	if ((fp = pme_fopen_read(path, &perr)) == NULL) {
		if (perr.sys_errno != 0)
			stats_syserr(err, perr.sys_errno, "%s: %s", path,
			    strerror(perr.sys_errno));
		else	/* a FIFO: not read */
			pme_seterr(err, perr.code, "%s", pme_strerror(&perr));
		return -1;
	}
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 8192;
			if ((p = realloc(buf, cap)) == NULL) {
				e = ENOMEM;
				break;
			}
			buf = p;
		}
		len += n = fread(buf + len, 1, cap - len, fp);
		if (long_line(buf + len - n, n, &line, &cur)) {
			pme_seterr(err, PME_EFORMAT,
			    "%s:%u: line longer than %u "
			    "bytes", path, line, GF_MAXLINE);
			free(buf);
			fclose(fp);
			return -1;
		}
	} while (n > 0);
	if (e == 0 && ferror(fp))
		e = errno != 0 ? errno : EIO;
	fclose(fp);
	if (e != 0) {
		stats_syserr(err, e, "%s: %s", path, strerror(e));
		free(buf);
		return -1;
	}
	rc = gfile_parse(buf, len, path, out, err);
	free(buf);
	return rc;
}

/* --- the model ----------------------------------------------------------- */

int
gcolor_rgb(const char *color, unsigned long *rgb)
{
	size_t i;

	if (color[0] == '#') {
		for (i = 1; i < 7; i++)
			if (!isxdigit((unsigned char)color[i]))
				return -1;
		if (color[7] != '\0')
			return -1;
		*rgb = strtoul(color + 1, NULL, 16);
		return 0;
	}
	for (i = 0; i < sizeof(colors) / sizeof(colors[0]); i++)
		if (strcmp(colors[i].name, color) == 0) {
			*rgb = colors[i].rgb;
			return 0;
		}
	return -1;
}

struct graph *
gfile_find(const struct gfile *f, const char *id)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->g[i].id != NULL && strcmp(f->g[i].id, id) == 0)
			return &f->g[i];
	return NULL;
}

static void
free_map(struct gmap *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(m[i].color);
		free(m[i].label);
	}
	free(m);
}

static void
free_rules(struct grule *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(r[i].event);
	free(r);
}

/* Frees the descriptors of bits in g, leaving their defaults' NULLs. */
static void
clear_fields(struct graph *g, unsigned bits)
{
	size_t i;

	for (i = 0; i < NDESCS; i++)
		if ((bits & descs[i].bit) && descs[i].type == D_STR) {
			char **s = (char **)((char *)g + descs[i].off);

			free(*s);
			*s = NULL;
		}
	if (bits & GD_FORMAT) {
		free(g->format);
		g->format = NULL;
	}
	if (bits & GD_PLOTSET) {
		free(g->plotset);
		g->plotset = NULL;
		g->nplotset = 0;
	}
	if (bits & GD_MAP) {
		free_map(g->map, g->nmap);
		g->map = NULL;
		g->nmap = 0;
	}
	if (bits & GD_ACTION) {
		free_rules(g->rules, g->nrules);
		g->rules = NULL;
		g->nrules = 0;
	}
	if (bits & GD_RANGE) {
		free(g->var);
		gexpr_free(g->lo);
		gexpr_free(g->hi);
		g->var = NULL;
		g->lo = g->hi = NULL;
	}
}

static void
graph_free(struct graph *g)
{
	clear_fields(g, ~0u);
	free(g->id);
	free(g->file);
}

void
gfile_free(struct gfile *f)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < f->n; i++)
		graph_free(&f->g[i]);
	free(f->g);
	f->g = NULL;
	f->n = 0;
}

/* strdup() that copies NULL as NULL; -1 when out of memory. */
static int
dup_str(char **dst, const char *s)
{
	*dst = NULL;
	return s != NULL && (*dst = strdup(s)) == NULL ? -1 : 0;
}

static int
copy_map(struct graph *d, const struct graph *s)
{
	size_t i;

	if (s->nmap == 0 ||
	    (d->map = calloc(room(s->nmap), sizeof(*d->map))) == NULL)
		return s->nmap == 0 ? 0 : -1;
	d->nmap = s->nmap;
	for (i = 0; i < s->nmap; i++) {
		d->map[i] = s->map[i];
		if (dup_str(&d->map[i].color, s->map[i].color) == -1 ||
		    dup_str(&d->map[i].label, s->map[i].label) == -1)
			return -1;
	}
	return 0;
}

static int
copy_rules(struct graph *d, const struct graph *s)
{
	size_t i;

	if (s->nrules == 0 ||
	    (d->rules = calloc(room(s->nrules), sizeof(*d->rules))) == NULL)
		return s->nrules == 0 ? 0 : -1;
	d->nrules = s->nrules;
	for (i = 0; i < s->nrules; i++) {
		d->rules[i] = s->rules[i];
		if (dup_str(&d->rules[i].event, s->rules[i].event) == -1)
			return -1;
	}
	return 0;
}

/* Copies the descriptors of bits from s into the empty fields of d. */
static int
copy_fields(struct graph *d, const struct graph *s, unsigned bits)
{
	size_t i;

	for (i = 0; i < NDESCS; i++)
		if ((bits & descs[i].bit) && descs[i].type == D_STR &&
		    dup_str((char **)((char *)d + descs[i].off),
		    *(char *const *)((const char *)s + descs[i].off)) == -1)
			return -1;
	d->scale = s->scale;
	d->bins = s->bins;
	d->normalize = s->normalize;
	if ((bits & GD_FORMAT) && dup_str(&d->format, s->format) == -1)
		return -1;
	if ((bits & GD_PLOTSET) && s->nplotset > 0) {
		if ((d->plotset = calloc(room(s->nplotset),
		    sizeof(long))) == NULL)
			return -1;
		memcpy(d->plotset, s->plotset, s->nplotset * sizeof(long));
		d->nplotset = s->nplotset;
	}
	if (((bits & GD_MAP) && copy_map(d, s) == -1) ||
	    ((bits & GD_ACTION) && copy_rules(d, s) == -1))
		return -1;
	if (bits & GD_RANGE) {
		if (dup_str(&d->var, s->var) == -1 ||
		    (s->lo != NULL && (d->lo = gexpr_dup(s->lo)) == NULL) ||
		    (s->hi != NULL && (d->hi = gexpr_dup(s->hi)) == NULL))
			return -1;
	}
	return 0;
}

/* Moves the descriptors of bits from t into d, whose own are freed. */
static void
move_fields(struct graph *d, struct graph *t, unsigned bits)
{
	size_t i;

	clear_fields(d, bits);
	for (i = 0; i < NDESCS; i++)
		if ((bits & descs[i].bit) && descs[i].type == D_STR)
			*(char **)((char *)d + descs[i].off) =
			    *(char **)((char *)t + descs[i].off);
	if (bits & GD_SCALE)
		d->scale = t->scale;
	if (bits & GD_BINS)
		d->bins = t->bins;
	if (bits & GD_NORMALIZE)
		d->normalize = t->normalize;
	if (bits & GD_FORMAT)
		d->format = t->format;
	if (bits & GD_PLOTSET) {
		d->plotset = t->plotset;
		d->nplotset = t->nplotset;
	}
	if (bits & GD_MAP) {
		d->map = t->map;
		d->nmap = t->nmap;
	}
	if (bits & GD_ACTION) {
		d->rules = t->rules;
		d->nrules = t->nrules;
	}
	if (bits & GD_RANGE) {
		d->var = t->var;
		d->lo = t->lo;
		d->hi = t->hi;
	}
	d->given |= bits;
}

/* A deep copy of s in *d; -1 (and nothing to free) when out of memory. */
static int
graph_copy(struct graph *d, const struct graph *s)
{
	memset(d, 0, sizeof(*d));
	d->kind = s->kind;
	d->given = s->given;
	d->line = s->line;
	if (dup_str(&d->id, s->id) == -1 || dup_str(&d->file, s->file) == -1 ||
	    copy_fields(d, s, ~0u) == -1) {
		graph_free(d);
		return -1;
	}
	return 0;
}

/* The slot of a graph of s's kind and name in t (cap slots, a graph of
 * v's index + 1 each): the one holding it, else the empty one it goes
 * in. */
static size_t *
kid_find(size_t *t, size_t cap, const struct graph *v, const struct graph *s)
{
	size_t h = (size_t)((pme_hash(s->id, strlen(s->id)) ^
	    (uint64_t)s->kind * UINT64_C(0x9e3779b97f4a7c15)) & (cap - 1));

	for (; t[h] != 0; h = (h + 1) & (cap - 1))
		if (v[t[h] - 1].kind == s->kind &&
		    strcmp(v[t[h] - 1].id, s->id) == 0)
			break;
	return &t[h];
}

/*
 * The graphs of dst are found by kind and name in a table, not by a pass
 * over dst for each graph of from (an event file of many specifications
 * made that quadratic).
 */
int
gfile_merge(struct gfile *dst, const struct gfile *from,
    struct pme_error *err)
{
	struct graph *d, t, *p;
	size_t i, cap = 64, *tab = NULL, *slot;
	unsigned bits;

	if (from->n == 0)
		return 0;
	while (cap < 2 * (dst->n + from->n))
		cap *= 2;
	/* Room for every graph of from at once: dst stays as valid as it
	 * was when memory runs out. */
	if ((p = realloc(dst->g, room(dst->n + from->n) * sizeof(*p))) ==
	    NULL)
		goto nomem;
	dst->g = p;
	if ((tab = calloc(cap, sizeof(*tab))) == NULL)
		goto nomem;
	for (i = 0; i < dst->n; i++)
		if (*(slot = kid_find(tab, cap, dst->g, &dst->g[i])) == 0)
			*slot = i + 1;
	for (i = 0; i < from->n; i++) {
		const struct graph *s = &from->g[i];

		if (*(slot = kid_find(tab, cap, dst->g, s)) != 0) {
			d = &dst->g[*slot - 1];
			bits = s->given & ~d->given;
			memset(&t, 0, sizeof(t));
			if (copy_fields(&t, s, bits) == -1) {
				graph_free(&t);
				goto nomem;
			}
			move_fields(d, &t, bits);
			continue;
		}
		if (graph_copy(&t, s) == -1)
			goto nomem;
		dst->g[dst->n++] = t;
		*slot = dst->n;
	}
	free(tab);
	return 0;
nomem:
	free(tab);
	pme_setnomem(err);
	return -1;
}

/* --- writing ------------------------------------------------------------- */

static int
write_string(const char *s, FILE *fp)
{
	if (fputc('"', fp) == EOF)
		return -1;
	for (; *s != '\0'; s++) {
		int rc;

		if (*s == '"' || *s == '\\')
			rc = fprintf(fp, "\\%c", *s);
		else if (*s == '\n')
			rc = fputs("\\n", fp);
		else if (*s == '\t')
			rc = fputs("\\t", fp);
		else
			rc = fputc(*s, fp);
		if (rc == EOF || rc < 0)
			return -1;
	}
	return fputc('"', fp) == EOF ? -1 : 0;
}

static int
write_header(const struct graph *g, FILE *fp)
{
	if (fprintf(fp, "%s %s", gkinds[g->kind].name, g->id) < 0)
		return -1;
	if ((g->given & GD_RANGE) && g->var != NULL && g->lo != NULL &&
	    g->hi != NULL) {
		if (fprintf(fp, " (%s, ", g->var) < 0 ||
		    gexpr_write(g->lo, fp) == -1 || fputs(", ", fp) == EOF ||
		    gexpr_write(g->hi, fp) == -1 || fputc(')', fp) == EOF)
			return -1;
	}
	return fputs(" {", fp) == EOF ? -1 : 0;
}

static int
write_map(const struct graph *g, FILE *fp)
{
	size_t i;

	if (fputs("map {", fp) == EOF)
		return -1;
	for (i = 0; i < g->nmap; i++) {
		const struct gmap *m = &g->map[i];

		if (fprintf(fp, "%s\n\t\t%.17g", i ? "," : "", m->lo) < 0 ||
		    (m->hi != m->lo && fprintf(fp, "..%.17g", m->hi) < 0))
			return -1;
		if (fputs(": ", fp) == EOF)
			return -1;
		if (m->color[0] == '#' ? write_string(m->color, fp) == -1 :
		    fputs(m->color, fp) == EOF)
			return -1;
		if (m->label != NULL && (fputc(' ', fp) == EOF ||
		    write_string(m->label, fp) == -1))
			return -1;
	}
	return fputs("\n\t}", fp) == EOF ? -1 : 0;
}

static int
write_action(const struct graph *g, FILE *fp)
{
	size_t i;

	if (fputs("action {", fp) == EOF)
		return -1;
	for (i = 0; i < g->nrules; i++)
		if (fprintf(fp, "%s\n\t\t%s: %s(%s)", i ? "," : "",
		    g->rules[i].event, g->rules[i].op == GA_ADD ? "ADD" :
		    "VALUE", g->var) < 0)
			return -1;
	return fputs("\n\t}", fp) == EOF ? -1 : 0;
}

/* Writes descriptor d of g, after "name <- " where it has one. */
static int
write_desc(const struct graph *g, const struct desc *d, FILE *fp)
{
	size_t i;

	if (d->type == D_ACTION)
		return write_action(g, fp);
	if (d->type == D_MAP)
		return write_map(g, fp);
	if (fprintf(fp, "%s <- ", d->name) < 0)
		return -1;
	switch (d->type) {
	case D_STR:
		return write_string(*(char *const *)((const char *)g + d->off),
		    fp);
	case D_FORMAT:
		return write_string(g->format, fp);
	case D_SCALE:
		return fprintf(fp, "%.17g", g->scale) < 0 ? -1 : 0;
	case D_BINS:
		return fprintf(fp, "%d", g->bins) < 0 ? -1 : 0;
	case D_BOOL:
		return fputs(g->normalize ? "true" : "false", fp) == EOF ? -1 : 0;
	default:
		if (fputc('{', fp) == EOF)
			return -1;
		for (i = 0; i < g->nplotset; i++)
			if (fprintf(fp, "%s%ld", i ? ", " : "", g->plotset[i]) < 0)
				return -1;
		return fputc('}', fp) == EOF ? -1 : 0;
	}
}

/* Whether descriptor d of g has something to write: a string or an
 * array the model has, whatever its bit says. */
static int
has_desc(const struct graph *g, const struct desc *d)
{
	if (!(g->given & d->bit))
		return 0;
	switch (d->type) {
	case D_STR:
		return *(char *const *)((const char *)g + d->off) != NULL;
	case D_FORMAT:
		return g->format != NULL;
	case D_PLOTSET:
		return g->nplotset > 0;
	case D_ACTION:
		return g->nrules > 0 && g->var != NULL;
	case D_MAP:
		return g->nmap > 0;
	default:
		return 1;
	}
}

int
gfile_write(const struct gfile *f, FILE *fp)
{
	const struct graph *g;
	size_t i, k;
	int first;

	for (i = 0; i < f->n; i++) {
		g = &f->g[i];
		if ((i > 0 && fputc('\n', fp) == EOF) ||
		    write_header(g, fp) == -1)
			return -1;
		first = 1;
		for (k = 0; k < NDESCS; k++) {
			if (!has_desc(g, &descs[k]))
				continue;
			if (fputs(first ? "\n\t" : ",\n\t", fp) == EOF ||
			    write_desc(g, &descs[k], fp) == -1)
				return -1;
			first = 0;
		}
		if (fputs(first ? "}\n" : "\n}\n", fp) == EOF)
			return -1;
	}
	return fflush(fp) == EOF || ferror(fp) ? -1 : 0;
}
