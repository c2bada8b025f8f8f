/*
 * t_near.c - the distances of "did you mean" (lib/util.h):
 * pme_edit_distance() against distances worked by hand (optimal string
 * alignment: a swap of neighbours is one edit), its early cut-off at max,
 * pme_near_cutoff(), GCC's bound, and the nearest of names offered one at
 * a time (struct pme_near): the first of the nearest, none beyond the
 * cut-off.
 */
#define TEST_NAME "t_near"
#include "check.h"

#include "util.h"

static void
dist(const char *a, const char *b, size_t max, size_t want)
{
	size_t got = pme_edit_distance(a, b, max);

	if (got != want)
		fail("pme_edit_distance('%s', '%s', %zu): %zu, not %zu", a, b,
		    max, got, want);
	if ((got = pme_edit_distance(b, a, max)) != want)
		fail("pme_edit_distance('%s', '%s', %zu): %zu, not %zu", b, a,
		    max, got, want);
}

static void
cutoff(size_t la, size_t lb, size_t want)
{
	if (pme_near_cutoff(la, lb) != want)
		fail("pme_near_cutoff(%zu, %zu): %zu, not %zu", la, lb,
		    pme_near_cutoff(la, lb), want);
}

/* The nearest to want of the names (NULL-ended), as a caller takes it. */
static const char *
nearest(const char *want, const char *const *names)
{
	struct pme_near n;
	size_t d;

	pme_near_init(&n, want);
	for (; *names != NULL; names++)
		if ((d = pme_near_dist(&n, *names)) != SIZE_MAX)
			n.name = *names, n.best = d;
	return n.name;
}

static void
near(const char *want, const char *const *names, const char *expect)
{
	const char *got = nearest(want, names);

	if (got == NULL ? expect != NULL : expect == NULL ||
	    strcmp(got, expect) != 0)
		fail("nearest '%s': '%s', not '%s'", want, got ? got : "(none)",
		    expect ? expect : "(none)");
}

int
main(void)
{
	static const char *const primes[] = { "main", "count_primes2",
	    "count_primes", "count_prims", "sort", NULL };
	static const char *const same[] = { "sort", "sort", "sorts", NULL };
	static const char *const far[] = { "a", "checksum", NULL };

	dist("", "", 5, 0);
	dist("abc", "", 5, 3);
	dist("kitten", "sitting", 5, 3);
	dist("sqlite3VdbeExek", "sqlite3VdbeExec", 5, 1);
	dist("typo3.pmd", "typo.pmd", 5, 1);
	dist("pdm", "pmd", 5, 1);		/* a swap, not two edits */
	dist("ca", "abc", 5, 3);		/* OSA: no edit after a swap */
	dist("MODUL", "MODULE", 5, 1);
	/* Above max: max + 1, also when only the lengths tell. */
	dist("kitten", "sitting", 2, 3);
	dist("a", "abcdefgh", 3, 4);
	dist("abcdef", "uvwxyz", 1, 2);

	cutoff(0, 0, 0);
	cutoff(1, 1, 0);
	cutoff(2, 2, 1);
	cutoff(4, 5, 1);
	cutoff(6, 6, 2);
	cutoff(15, 15, 5);
	cutoff(3, 8, 3);

	near("count_prime", primes, "count_primes");	/* first of two at 1 */
	near("count_primes3", primes, "count_primes2");
	near("sort", same, "sort");			/* 0 stays */
	near("b", far, NULL);				/* one character */
	near("shuffle", far, NULL);			/* beyond the cut-off */
	near("checksun", far, "checksum");
	return failures != 0;
}
