/*
 * t_gfile.c - stats' graph file language (stats/graph.h): the seed's
 * example parsed field by field, expressions and their evaluation, the
 * default Graphfile, parse -> write -> parse round trips, merge
 * precedence, the format check, and the golden bad inputs of
 * tests/stats/bad (NAME.graph must fail with exactly NAME.err).
 */
#define TEST_NAME "t_gfile"
#include "check.h"

#include <dirent.h>

#include "graph.h"
#include "stats.h"

static const char seed[] =
    "ArrayGraph accesslatency (x, 0, NO_OF_PROCESSORS -1) {\n"
    "       menu <- \"Access Latency\",\n"
    "       name <- \"Memory Access Latency\",\n"
    "       scale <- 0.01,\n"
    "       format <- \"%.1f\",\n"
    "       y_axis <- \"Processor\",\n"
    "       x_axis <- \"Time / Cycles\",\n"
    "       action {\n"
    "       \tEV_MEMACC_LATENCY: VALUE(x)\n"
    "       }}\n";

/* Every descriptor, the header's expressions, blocks without commas. */
static const char rich[] =
    "// every descriptor\n"
    "StateGraph s (p, -1 * 2, (N + 1) / 2 - - 3) {\n"
    "\tmenu <- \"S \\\"quoted\\\" \\\\ \\t tab\\nnewline\",\n"
    "\tname <- \"States\", x_axis <- \"Time\", y_axis <- \"Row\",\n"
    "\tplotset <- { 3, 1, 3 }\n"
    "\taction { EV_A: VALUE(p); EV_B: ADD(p), EV_C: VALUE(p) }\n"
    "\tmap { -2..-0.5: \"#a0B1c2\", 0: black \"Idle\", 1..4: teal, }\n"
    "}\n"
    "ArrayGraph a (x, 0, 1e3) { scale <- 2.5e-3 * 4, format <- \"%8.3e\","
    " bins <- 64, map { 0..9: red \"low\", 10..99: green } }\n"
    "HistoGraph h { metric <- \"Message Latency\", bins <- 1, "
    "format <- \"100%% %g\", plotset <- {0} }\n"
    "HistoSummary hs { menu <- \"All\", scale <- 1 }\n"
    "UtilGraph u (x, 0, N) { normalize <- true, action { E: ADD(x) } }\n"
    "UtilGraph u2 { normalize <- 0, menu <- \"\" }\n";

static int
parse(const char *text, struct gfile *f, struct pme_error *err)
{
	return gfile_parse(text, strlen(text), "test", f, err);
}

static void
must_parse(const char *what, const char *text, struct gfile *f)
{
	struct pme_error err = { 0 };

	if (parse(text, f, &err) == -1)
		die("%s does not parse: %s", what, err.msg);
}

static int
syms(const char *sym, void *arg, double *v)
{
	(void)arg;
	if (strcmp(sym, "NO_OF_PROCESSORS") == 0 || strcmp(sym, "N") == 0)
		*v = 16;
	else if (strcmp(sym, "P") == 0)
		*v = 3;
	else
		return -1;
	return 0;
}

static int
streq(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static void
test_seed(void)
{
	struct gfile f;
	struct graph *g;
	double v;
	struct pme_error err = { 0 };

	must_parse("the seed's example", seed, &f);
	if (f.n != 1)
		die("seed: %zu graphs", f.n);
	g = &f.g[0];
	CHECK(g->kind == G_ARRAY);
	CHECK(streq(g->id, "accesslatency"));
	CHECK(streq(g->var, "x"));
	CHECK(g->given == (GD_MENU | GD_NAME | GD_SCALE | GD_FORMAT |
	    GD_XAXIS | GD_YAXIS | GD_ACTION | GD_RANGE));
	CHECK(streq(g->menu, "Access Latency"));
	CHECK(streq(g->name, "Memory Access Latency"));
	CHECK(streq(g->y_axis, "Processor"));
	CHECK(streq(g->x_axis, "Time / Cycles"));
	CHECK(g->scale == 0.01);
	CHECK(streq(g->format, "%.1f"));
	CHECK(g->metric == NULL && g->bins == 0 && g->normalize == 0);
	CHECK(g->plotset == NULL && g->nplotset == 0);
	CHECK(g->map == NULL && g->nmap == 0);
	CHECK(g->nrules == 1 && streq(g->rules[0].event, "EV_MEMACC_LATENCY"));
	CHECK(g->nrules == 1 && g->rules[0].op == GA_VALUE &&
	    g->rules[0].line == 9);
	CHECK(streq(g->file, "test") && g->line == 1);
	CHECK(g->lo != NULL && g->lo->op == GE_NUM && g->lo->num == 0);
	CHECK(g->hi != NULL && g->hi->op == GE_SUB &&
	    g->hi->a->op == GE_SYM && streq(g->hi->a->sym, "NO_OF_PROCESSORS") &&
	    g->hi->b->op == GE_NUM && g->hi->b->num == 1);
	CHECK(gexpr_eval(g->hi, syms, NULL, &v, &err) == 0 &&
	    v == 15);
	CHECK(gfile_find(&f, "accesslatency") == g);
	CHECK(gfile_find(&f, "states") == NULL);
	gfile_free(&f);
	CHECK(f.g == NULL && f.n == 0);
}

/* Parses text as a graph's low end and evaluates it. */
static int
eval(const char *text, double *v, struct pme_error *err)
{
	char buf[8192];
	struct gfile f;
	int rc;

	snprintf(buf, sizeof(buf), "ArrayGraph e (x, %s, 0) {}", text);
	if (parse(buf, &f, err) == -1)
		return -2;
	rc = gexpr_eval(f.g[0].lo, syms, NULL, v, err);
	gfile_free(&f);
	return rc;
}

static void
expr_is(const char *text, double want)
{
	struct pme_error err = { 0 };
	double v = -12345;

	if (eval(text, &v, &err) != 0)
		fail("'%s': %s", text, err.msg);
	else if ((v > want ? v - want : want - v) > 1e-12 *
	    (want < 0 ? -want : want))
		fail("'%s' is %.17g, not %.17g", text, v, want);
}

static void
expr_fails(const char *text, int rc, const char *want)
{
	struct pme_error err = { 0 };
	double v;

	if (eval(text, &v, &err) != rc || strcmp(err.msg, want) != 0)
		fail("'%s': '%s', not '%s'", text, err.msg, want);
}

/* An expression of n nested parentheses, n minus signs or n additions. */
static char *
deep(int n, int kind)
{
	char *s = malloc(4 * (size_t)n + 8), *p = s;
	int i;

	if (s == NULL)
		die("out of memory");
	for (i = 0; i < n && kind != 2; i++)
		*p++ = kind == 0 ? '(' : '-';
	*p++ = '1';
	for (i = 0; i < n; i++) {
		if (kind == 0)
			*p++ = ')';
		else if (kind == 2) {
			memcpy(p, " + 1", 4);
			p += 4;
		}
	}
	*p = '\0';
	return s;
}

static void
test_expr(void)
{
	const char *deepmsg = "test:1: expression nested more than 64 deep";
	char *s;
	int k;

	expr_is("1 + 2 * 3", 7);
	expr_is("(1 + 2) * 3", 9);
	expr_is("10 - 4 - 3", 3);
	expr_is("24 / 4 / 2", 3);
	expr_is("-2 * -3", 6);
	expr_is("- (2 + 3)", -5);
	expr_is("2 - - 2", 4);
	expr_is("- - 2", 2);
	expr_is("N - 1", 15);
	expr_is("N * P + 1e1", 58);
	expr_is("-P / 2", -1.5);
	expr_is("1.5e-1 * 2 + .5 + 2E+1", 20.8);
	expr_is("NO_OF_PROCESSORS -1", 15);
	expr_fails("Q + 1", -1, "unknown symbol 'Q'");
	expr_fails("N * (2 + NOPE)", -1, "unknown symbol 'NOPE'");
	expr_fails("1 / (N - 16)", -1, "division by zero");
	expr_fails("1 +", -2, "test:1: expected a number or a name, found ','");
	expr_fails("(1", -2, "test:1: expected ')' after the expression, "
	    "found ','");
	expr_fails("1e999", -2, "test:1: number '1e999' out of range");
	/* 64 levels are allowed, 65 are not, whichever way they nest. */
	for (k = 0; k < 3; k++) {
		expr_is((s = deep(k == 2 ? 63 : 64, k)), k == 1 ? 1 : k == 2 ?
		    64 : 1);
		free(s);
		expr_fails((s = deep(k == 2 ? 64 : 65, k)), -2, deepmsg);
		free(s);
	}
	expr_fails((s = deep(100000, 0)), -2, deepmsg);
	free(s);
	expr_fails((s = deep(100000, 2)), -2, deepmsg);
	free(s);
}

static const char *const labels[] = { "Idle", "Busy", "Getting lock",
	"In barrier, idle", "In barrier, busy", "User 1", "User 2", "User 3",
	"User 4" };
static const char *const colours[] = { "black", "gray", "red", "navy",
	"brown", "blue", "green", "yellow", "white" };

static void
check_default_map(const struct graph *g)
{
	size_t i;

	CHECK(g->nmap == 9);
	for (i = 0; i < g->nmap && i < 9; i++)
		if (g->map[i].lo != (double)i || g->map[i].hi != (double)i ||
		    !streq(g->map[i].color, colours[i]) ||
		    !streq(g->map[i].label, labels[i]))
			fail("%s: map entry %zu differs", g->id, i);
	CHECK(g->nrules == 1 && streq(g->rules[0].event, "EV_STATE") &&
	    g->rules[0].op == GA_VALUE);
	CHECK(streq(g->var, "x") && g->hi != NULL && g->hi->op == GE_SUB);
}

static void
test_default(void)
{
	struct gfile f;
	struct pme_error err = { 0 };

	if (gfile_load("stats/Graphfile", &f, &err) == -1)
		die("%s", err.msg);
	CHECK(f.n == 3);
	if (f.n == 3) {
		CHECK(f.g[0].kind == G_STATE && streq(f.g[0].id, "states"));
		CHECK(streq(f.g[0].menu, "Processor States"));
		CHECK(f.g[1].kind == G_UTIL && streq(f.g[1].id, "utilization"));
		check_default_map(&f.g[0]);
		check_default_map(&f.g[1]);
		CHECK(streq(f.g[0].file, "stats/Graphfile"));
		/* A sample file's heap (pmeclock -e alloc). */
		CHECK(f.g[2].kind == G_LINE && streq(f.g[2].id, "heap"));
		CHECK(f.g[2].nrules == 1 && streq(f.g[2].rules[0].event,
		    "EV_HEAP") && f.g[2].nmap == 0);
	}
	gfile_free(&f);
	CHECK(gfile_load("tests/stats/no such file", &f, &err) == -1);
	CHECK(strcmp(err.msg, "tests/stats/no such file: No such file or "
	    "directory") == 0);
}

static int
expr_equal(const struct gexpr *a, const struct gexpr *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return a->op == b->op && a->num == b->num && streq(a->sym, b->sym) &&
	    expr_equal(a->a, b->a) && expr_equal(a->b, b->b);
}

/* Whether two graphs say the same, wherever they were written. */
static int
graph_equal(const struct graph *a, const struct graph *b)
{
	size_t i;

	if (a->kind != b->kind || !streq(a->id, b->id) ||
	    !streq(a->var, b->var) || !expr_equal(a->lo, b->lo) ||
	    !expr_equal(a->hi, b->hi) || a->given != b->given ||
	    !streq(a->menu, b->menu) || !streq(a->name, b->name) ||
	    !streq(a->x_axis, b->x_axis) || !streq(a->y_axis, b->y_axis) ||
	    a->scale != b->scale || !streq(a->format, b->format) ||
	    !streq(a->metric, b->metric) || a->bins != b->bins ||
	    a->normalize != b->normalize || a->nplotset != b->nplotset ||
	    a->nmap != b->nmap || a->nrules != b->nrules)
		return 0;
	for (i = 0; i < a->nplotset; i++)
		if (a->plotset[i] != b->plotset[i])
			return 0;
	for (i = 0; i < a->nmap; i++)
		if (a->map[i].lo != b->map[i].lo ||
		    a->map[i].hi != b->map[i].hi ||
		    !streq(a->map[i].color, b->map[i].color) ||
		    !streq(a->map[i].label, b->map[i].label))
			return 0;
	for (i = 0; i < a->nrules; i++)
		if (!streq(a->rules[i].event, b->rules[i].event) ||
		    a->rules[i].op != b->rules[i].op)
			return 0;
	return 1;
}

static char *
written(const struct gfile *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	if ((fp = open_memstream(&text, &len)) == NULL)
		die("open_memstream: %s", strerror(errno));
	CHECK(gfile_write(f, fp) == 0);
	fclose(fp);
	return text;
}

static void
roundtrip(const char *what, const char *text)
{
	struct gfile a, b;
	char *t1, *t2;
	size_t i;

	must_parse(what, text, &a);
	t1 = written(&a);
	must_parse("what gfile_write wrote", t1, &b);
	if (a.n != b.n)
		fail("%s: %zu graphs, %zu written back", what, a.n, b.n);
	for (i = 0; i < a.n && i < b.n; i++)
		if (!graph_equal(&a.g[i], &b.g[i]))
			fail("%s: graph '%s' differs written back:\n%s", what,
			    a.g[i].id, t1);
	/* The text is canonical: written again, it is the same. */
	t2 = written(&b);
	if (strcmp(t1, t2) != 0)
		fail("%s: written twice differs:\n%s\n---\n%s", what, t1, t2);
	free(t1);
	free(t2);
	gfile_free(&a);
	gfile_free(&b);
}

static void
test_roundtrip(void)
{
	uint8_t *text;
	size_t len;
	struct gfile f;

	roundtrip("the seed's example", seed);
	roundtrip("every descriptor", rich);
	text = readfile("stats/Graphfile", &len);
	roundtrip("stats/Graphfile", (char *)text);
	free(text);
	roundtrip("nothing", "");
	/* The rich text says what it should. */
	must_parse("every descriptor", rich, &f);
	CHECK(f.n == 6);
	if (f.n == 6) {
		CHECK(streq(f.g[0].menu,
		    "S \"quoted\" \\ \t tab\nnewline"));
		CHECK(f.g[0].nplotset == 3 && f.g[0].plotset[0] == 3 &&
		    f.g[0].plotset[1] == 1 && f.g[0].plotset[2] == 3);
		CHECK(f.g[0].nrules == 3 && f.g[0].rules[1].op == GA_ADD);
		CHECK(f.g[0].nmap == 3 && f.g[0].map[0].lo == -2 &&
		    f.g[0].map[0].hi == -0.5 &&
		    streq(f.g[0].map[0].color, "#a0B1c2") &&
		    f.g[0].map[0].label == NULL);
		CHECK(f.g[1].scale == 2.5e-3 * 4 && f.g[1].bins == 64);
		CHECK(streq(f.g[2].metric, "Message Latency"));
		CHECK(f.g[3].kind == G_HSUMMARY && !(f.g[3].given & GD_RANGE));
		CHECK(f.g[4].normalize == 1 && f.g[5].normalize == 0);
		CHECK(streq(f.g[5].menu, "") && (f.g[5].given & GD_NORMALIZE));
	}
	gfile_free(&f);
}

static void
test_merge(void)
{
	struct gfile dst, from;
	struct graph *g;
	struct pme_error err = { 0 };

	must_parse("the graph file",
	    "StateGraph states (x, 0, N - 1) { menu <- \"Mine\", "
	    "map { 0: black } }\n"
	    "ArrayGraph mine { name <- \"Only here\" }\n", &dst);
	must_parse("the event file's",
	    "StateGraph states (p, 0, 7) { menu <- \"Theirs\", "
	    "name <- \"Their name\", map { 0..3: red }, "
	    "action { EV_STATE: VALUE(p) } }\n"
	    "HistoGraph theirs { metric <- \"Latency\", bins <- 8 }\n", &from);
	CHECK(gfile_merge(&dst, &from, &err) == 0);
	gfile_free(&from);
	must_parse("another event file's",
	    "UtilGraph states { menu <- \"Same id, other kind\" }\n", &from);
	CHECK(gfile_merge(&dst, &from, &err) == 0);
	gfile_free(&from);
	CHECK(dst.n == 4);
	g = &dst.g[0];
	/* The graph file's descriptors win, the event file's fill in. */
	CHECK(streq(g->menu, "Mine") && streq(g->name, "Their name"));
	CHECK(g->nmap == 1 && streq(g->map[0].color, "black"));
	CHECK(streq(g->var, "x") && g->hi->op == GE_SUB);
	CHECK(g->nrules == 1 && streq(g->rules[0].event, "EV_STATE"));
	CHECK(g->given == (GD_MENU | GD_MAP | GD_RANGE | GD_NAME | GD_ACTION));
	CHECK(streq(dst.g[1].id, "mine") && dst.g[1].given == GD_NAME);
	if (dst.n == 4) {
		CHECK(dst.g[2].kind == G_HISTO && dst.g[2].bins == 8 &&
		    streq(dst.g[2].metric, "Latency"));
		CHECK(dst.g[3].kind == G_UTIL && streq(dst.g[3].menu,
		    "Same id, other kind"));
	}
	gfile_free(&dst);
}

static void
test_formats(void)
{
	static const char *const good[] = { "%.1f", "%8.3e", "%g ms",
		"100%% %f", "%-+ #012.10G", "%A", "%%%E%%" };
	static const struct {
		const char *fmt, *why;
	} bad[] = {
		{ "%n", "'%n' is not allowed" },
		{ "%f%n", "'%n' is not allowed" },
		{ "%s", "'%s' is not a floating conversion" },
		{ "%d", "'%d' is not a floating conversion" },
		{ "%f %f", "more than one conversion" },
		{ "%*f", "'*' widths and precisions are not allowed" },
		{ "%.*f", "'*' widths and precisions are not allowed" },
		{ "%", "a '%' with no conversion at the end" },
		{ "%.1f%", "a '%' with no conversion at the end" },
		{ "%lf", "length modifier 'l' is not allowed" },
		{ "%Lf", "length modifier 'L' is not allowed" },
		{ "%100f", "a width of more than two digits" },
		{ "%.100f", "a precision of more than two digits" },
		{ "no conversion", "no floating conversion" },
		{ "%%", "no floating conversion" },
		{ "%\x01", "'%' before a character that is not a floating "
		    "conversion" },
	};
	struct pme_error err = { 0 };
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (gformat_check(good[i], &err) != 0)
			fail("'%s' refused: %s", good[i], err.msg);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = 0;
		if (gformat_check(bad[i].fmt, &err) != -1 ||
		    strcmp(err.msg, bad[i].why) != 0)
			fail("'%s': '%s', not '%s'", bad[i].fmt, err.msg,
			    bad[i].why);
	}
}

static void
test_colors(void)
{
	unsigned long rgb = 0;

	CHECK(gcolor_rgb("navy", &rgb) == 0 && rgb == 0x000080);
	CHECK(gcolor_rgb("grey", &rgb) == 0 && rgb == 0x808080);
	CHECK(gcolor_rgb("#A0b1C2", &rgb) == 0 && rgb == 0xa0b1c2);
	CHECK(gcolor_rgb("#a0b1c", &rgb) == -1);
	CHECK(gcolor_rgb("#a0b1c2d", &rgb) == -1);
	CHECK(gcolor_rgb("#a0b1cg", &rgb) == -1);
	CHECK(gcolor_rgb("Navy", &rgb) == -1);
}

/* Inputs that are valid, or refused without a golden file of their own. */
static void
test_edges(void)
{
	struct gfile f;
	struct pme_error err = { 0 };
	char *s;

	must_parse("an empty file", "", &f);
	CHECK(f.n == 0 && f.g == NULL);
	must_parse("comments alone", "# a\n// b\n/* c\n */ \t\r\n", &f);
	CHECK(f.n == 0);
	CHECK(gfile_parse("StateGraph s {}", 10, "cut", &f, &err) == -1);
	CHECK(strcmp(err.msg, "cut:1: expected a graph name after "
	    "'StateGraph', found end of file") == 0);
	/* A string of 4096 bytes is allowed, one more is not. */
	if ((s = malloc(5000)) == NULL)
		die("out of memory");
	snprintf(s, 5000, "StateGraph s { menu <- \"%04096d\" }", 0);
	must_parse("a string of 4096 bytes", s, &f);
	CHECK(f.n == 1 && strlen(f.g[0].menu) == 4096);
	gfile_free(&f);
	snprintf(s, 5000, "StateGraph s { menu <- \"%04097d\" }", 0);
	CHECK(parse(s, &f, &err) == -1);
	CHECK(strcmp(err.msg, "test:1: string longer than 4096 bytes") == 0);
	snprintf(s, 5000, "StateGraph s%04097d {}", 0);
	CHECK(parse(s, &f, &err) == -1);
	CHECK(strcmp(err.msg, "test:1: name longer than 4096 bytes") == 0);
	free(s);
	CHECK(parse("StateGraph s { menu <- \"a\\qb\" }", &f, &err) == -1);
	CHECK(strcmp(err.msg, "test:1: unknown escape '\\q' in a string") == 0);
	CHECK(parse("UtilGraph u { action { E: VALUE(x) } }", &f, &err) == -1);
	CHECK(strcmp(err.msg, "test:1: 'x' is not an index variable: graph 'u' "
	    "has no (x, lo, hi) header") == 0);
	CHECK(f.g == NULL && f.n == 0);
}

/* The whole of path as a string, its one final newline taken off. */
static char *
message(const char *path)
{
	size_t len;
	char *s = (char *)readfile(path, &len);

	if (len > 0 && s[len - 1] == '\n')
		s[len - 1] = '\0';
	return s;
}

static int
bad_one(const char *dir, const char *name)
{
	struct pme_error err = { 0 };
	char path[4096];
	struct gfile f;
	uint8_t *text;
	size_t len;
	char *want;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = readfile(path, &len);
	snprintf(path, sizeof(path), "%s/%.*s.err", dir,
	    (int)(strlen(name) - 6), name);
	want = message(path);
	if (gfile_parse((char *)text, len, name, &f, &err) == 0) {
		fail("%s parses", name);
		gfile_free(&f);
	} else if (strcmp(err.msg, want) != 0)
		fail("%s:\n  got:  %s\n  want: %s", name, err.msg, want);
	CHECK(f.g == NULL && f.n == 0);
	free(text);
	free(want);
	return 1;
}

static void
test_bad(void)
{
	const char *dir = "tests/stats/bad";
	struct dirent *de;
	DIR *d;
	size_t n;
	int count = 0;

	if ((d = opendir(dir)) == NULL)
		die("%s: %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL)
		if ((n = strlen(de->d_name)) > 6 &&
		    strcmp(de->d_name + n - 6, ".graph") == 0)
			count += bad_one(dir, de->d_name);
	closedir(d);
	/* The directory holds the cases the issue names, and more. */
	if (count < 19)
		fail("%d bad inputs in %s, not the 19 or more expected", count,
		    dir);
}

/*
 * Every row of gkinds[] (kinds.c) against graphfile(5): its name read
 * back to its kind, the descriptors the page gives it taken and the
 * others refused, a drawable operation, and its own drawing when it is
 * not drawn as a grid of events.  A new kind needs its line in want[].
 */
static void
test_kinds(void)
{
	static const char *const want[][2] = {
		{ "StateGraph", " menu name x_axis y_axis plotset " },
		{ "ArrayGraph", " menu name x_axis y_axis scale format bins "
		    "plotset " },
		{ "HistoGraph", " menu name x_axis y_axis metric scale format "
		    "bins plotset " },
		{ "HistoSummary", " menu name x_axis y_axis scale format " },
		{ "UtilGraph", " menu name x_axis y_axis scale format "
		    "normalize plotset " },
		{ "LineGraph", " menu name x_axis y_axis scale format " },
	};
	static const char *const dnames[] = { "menu", "name", "x_axis",
	    "y_axis", "metric", "scale", "format", "bins", "normalize",
	    "plotset" };
	static const unsigned dbits[] = { GD_MENU, GD_NAME, GD_XAXIS,
	    GD_YAXIS, GD_METRIC, GD_SCALE, GD_FORMAT, GD_BINS, GD_NORMALIZE,
	    GD_PLOTSET };
	static const char *const dvals[] = { "\"m\"", "\"n\"", "\"x\"",
	    "\"y\"", "\"h\"", "2", "\"%g\"", "3", "true", "{ 0 }" };
	struct gfile gf;
	struct pme_error err = { 0 };
	char text[256];

	for (int k = 0; k < G_NKINDS; k++) {
		const char *takes = NULL;
		char word[32];

		CHECK(gkinds[k].name != NULL && gkinds[k].drawable != NULL);
		CHECK((gkinds[k].flags & GK_EVENTS) || gkinds[k].draw != NULL);
		for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++)
			if (strcmp(want[w][0], gkinds[k].name) == 0)
				takes = want[w][1];
		if (takes == NULL) {
			fail("%s: not in test_kinds' list", gkinds[k].name);
			continue;
		}
		for (size_t d = 0; d < sizeof(dbits) / sizeof(dbits[0]); d++) {
			int ok;

			snprintf(word, sizeof(word), " %s ", dnames[d]);

			snprintf(text, sizeof(text), "%s g { %s <- %s }\n",
			    gkinds[k].name, dnames[d], dvals[d]);
			ok = gfile_parse(text, strlen(text), "k", &gf,
			    &err) == 0;
			if (ok != (strstr(takes, word) != NULL) ||
			    ok != ((gkinds[k].descs & dbits[d]) != 0))
				fail("%s: '%s' %s", gkinds[k].name, dnames[d],
				    ok ? "taken" : err.msg);
			if (ok && (gf.n != 1 || gf.g[0].kind != (enum gkind)k))
				fail("%s: read back as another kind",
				    gkinds[k].name);
			gfile_free(&gf);
		}
	}
}

int
main(void)
{
	test_seed();
	test_expr();
	test_default();
	test_roundtrip();
	test_merge();
	test_formats();
	test_colors();
	test_edges();
	test_bad();
	test_kinds();
	return failures != 0;
}
