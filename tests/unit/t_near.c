/*
 * t_near.c - the distances of "did you mean" (lib/util.h):
 * pme_edit_distance() against distances worked by hand (optimal string
 * alignment: a swap of neighbours is one edit), its early cut-off at max,
 * and pme_near_cutoff(), GCC's bound.
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

int
main(void)
{
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
	return failures != 0;
}
