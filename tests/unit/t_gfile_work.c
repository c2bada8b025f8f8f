/*
 * t_gfile_work.c - the work of stats' graph file parser grows with the
 * graphs, not with their square: a graph file of 32,000 graphs took
 * seconds, each graph's name compared with every one before it to find
 * a graph defined twice.  The work is counted, not timed: stats/gfile.c
 * is compiled here with its strcmp() calls counted, and the comparisons
 * per graph must stay the same from 1,000 to 32,000 graphs (about 30;
 * they grew as n / 2: 16,000 more per graph at 32,000).  A graph defined twice
 * is still found, at its line.
 */
#define TEST_NAME "t_gfile_work"
#include "check.h"

#include <string.h>

static unsigned long ncmp;

static int
counted_strcmp(const char *a, const char *b)
{
	ncmp++;
	return strcmp(a, b);
}

#define strcmp counted_strcmp
#include "gfile.c"
#undef strcmp

/* n graphs, the last named as the one at index dup when dup < n. */
static char *
graphs(size_t n, size_t dup, size_t *len)
{
	char *s = malloc(n * 80 + 1), *p = s;

	if (s == NULL)
		die("out of memory");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "StateGraph s%zu (x, 0, 3) { action { "
		    "EV_STATE: VALUE(x) } }\n", i + 1 == n && dup < n ? dup :
		    i);
	*len = (size_t)(p - s);
	return s;
}

static void
test_linear(void)
{
	static const size_t sizes[] = { 1000, 8000, 32000 };
	struct gfile gf;
	struct pme_error err = { 0 };
	double first = 0;

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t len, n = sizes[k];
		char *text = graphs(n, n, &len);

		ncmp = 0;
		if (gfile_parse(text, len, "g", &gf, &err) == -1)
			fail("%zu graphs: %s", n, err.msg);
		else if (gf.n != n)
			fail("%zu graphs: %zu parsed", n, gf.n);
		/* About 30 a graph, the same at any size: the tokens'
		 * punctuation and keywords are compared too. */
		if (k == 0)
			first = (double)ncmp / (double)n;
		else if ((double)ncmp / (double)n > first + 2)
			fail("%zu graphs: %lu comparisons of names, %.1f a "
			    "graph where %zu graphs took %.1f", n, ncmp,
			    (double)ncmp / (double)n, sizes[0], first);
		gfile_free(&gf);
		free(text);
	}
}

/*
 * gfile_merge() of n graphs into n graphs, half of them of the same
 * names: the comparisons per graph the same at any size (it compared
 * each graph of from with every graph of dst), and the merge right.
 */
static void
test_merge(void)
{
	static const size_t sizes[] = { 1000, 8000, 32000 };
	struct gfile dst, from;
	struct pme_error err = { 0 };
	char want[32];
	double first = 0;

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t len, n = sizes[k];
		char *a = graphs(n, n, &len), *b;

		if (gfile_parse(a, len, "a", &dst, &err) == -1)
			die("%s", err.msg);
		/* from: s(n/2) .. s(n + n/2 - 1), with a menu */
		b = malloc(n * 100 + 1);
		len = 0;
		for (size_t i = n / 2; i < n + n / 2; i++)
			len += (size_t)sprintf(b + len, "StateGraph s%zu { menu "
			    "<- \"m\" }\n", i);
		if (gfile_parse(b, len, "b", &from, &err) == -1)
			die("%s", err.msg);
		ncmp = 0;
		if (gfile_merge(&dst, &from, &err) == -1)
			fail("merge: %s", err.msg);
		/* s0 kept as it was, s(n-1) given from's menu, s(n) the
		 * first graph added. */
		snprintf(want, sizeof(want), "s%zu", n);
		if (dst.n != n + n / 2 || dst.g[0].menu != NULL ||
		    dst.g[n - 1].menu == NULL || strcmp(dst.g[n].id, want) != 0)
			fail("merge of %zu: not the graphs expected", n);
		if (k == 0)
			first = (double)ncmp / (double)n;
		else if ((double)ncmp / (double)n > first + 2)
			fail("merge of %zu graphs: %.1f comparisons a graph "
			    "where %zu took %.1f", n, (double)ncmp /
			    (double)n, sizes[0], first);
		gfile_free(&dst);
		gfile_free(&from);
		free(a);
		free(b);
	}
}

static void
test_twice(void)
{
	struct gfile gf;
	struct pme_error err = { 0 };
	size_t len;
	char *text = graphs(5000, 1234, &len);

	if (gfile_parse(text, len, "g", &gf, &err) == 0)
		fail("a graph defined twice was taken");
	else if (strcmp(err.msg, "g:5000: graph 's1234' defined twice "
	    "(first at line 1235)") != 0)
		fail("defined twice: %s", err.msg);
	free(text);
}

int
main(void)
{
	test_linear();
	test_merge();
	test_twice();
	return failures != 0;
}
