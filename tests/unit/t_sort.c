/*
 * t_sort.c - pme_radix_sort() against qsort() on the same elements, with
 * the original position as the last key, so that stability is checked
 * too: keys of one word and of three, keys that differ in few bytes (the
 * case it is for) and in all, equal keys, and the small cases.  And
 * pme_hash(): equal bytes hash equal, and the low bits that pick a table
 * slot spread names that differ in their last characters.  And
 * pme_radix_sort_inplace() against qsort() likewise, but for stability.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define TEST_NAME "t_sort"
#include "check.h"

struct el {
	uint64_t	 k[3];		/* k[0] least significant */
	uint32_t	 pos;		/* where it was before sorting */
	uint32_t	 pad;
};

static unsigned nwords;

static void
words(const void *e, uint64_t *k)
{
	const struct el *x = e;
	unsigned i;

	for (i = 0; i < nwords; i++)
		k[i] = x->k[i];
}

static int
cmp_el(const void *a, const void *b)
{
	const struct el *x = a, *y = b;
	unsigned i;

	for (i = nwords; i-- > 0;)
		if (x->k[i] != y->k[i])
			return x->k[i] < y->k[i] ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

static uint64_t
rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 11;
}

/* n elements, keys of w words masked by mask; sorted both ways. */
static void
one(size_t n, unsigned w, uint64_t mask, uint64_t seed)
{
	struct el *v = calloc(2 * n + 1, sizeof(*v)), *want, *got;
	size_t i;
	unsigned j;

	if (v == NULL || (want = calloc(n + 1, sizeof(*want))) == NULL)
		die("out of memory");
	for (i = 0; i < n; i++) {
		for (j = 0; j < 3; j++)
			v[i].k[j] = j < w ? rnd(&seed) & mask : 0;
		v[i].pos = (uint32_t)i;
	}
	memcpy(want, v, n * sizeof(*v));
	nwords = w;
	qsort(want, n, sizeof(*want), cmp_el);
	got = pme_radix_sort(v, v + n, n, sizeof(*v), w, words);
	CHECK(got != NULL);
	if (got != NULL && memcmp(got, want, n * sizeof(*v)) != 0)
		fail("n %zu words %u mask %llx: not qsort's order", n, w,
		    (unsigned long long)mask);
	free(v);
	free(want);
}

/* pme_radix_sort_inplace() on n elements of one word masked by mask:
 * keys in order, and the same elements as qsort()'s (sorted with their
 * positions again, since the sort in place is not stable). */
static void
inplace(size_t n, uint64_t mask, uint64_t seed)
{
	struct el *v = calloc(n + 1, sizeof(*v)), *want;
	size_t i;

	if (v == NULL || (want = calloc(n + 1, sizeof(*want))) == NULL)
		die("out of memory");
	for (i = 0; i < n; i++) {
		v[i].k[0] = rnd(&seed) & mask;
		v[i].pos = (uint32_t)i;
	}
	memcpy(want, v, n * sizeof(*v));
	nwords = 1;
	qsort(want, n, sizeof(*want), cmp_el);
	CHECK(pme_radix_sort_inplace(v, n, sizeof(*v), words) == 0);
	for (i = 1; i < n; i++)
		if (v[i - 1].k[0] > v[i].k[0]) {
			fail("in place, n %zu mask %llx: out of order at %zu",
			    n, (unsigned long long)mask, i);
			break;
		}
	qsort(v, n, sizeof(*v), cmp_el);
	if (memcmp(v, want, n * sizeof(*v)) != 0)
		fail("in place, n %zu mask %llx: not the same elements", n,
		    (unsigned long long)mask);
	free(v);
	free(want);
}

static void
hashes(void)
{
	char a[32], b[32];
	unsigned slots[64] = { 0 }, used = 0, i;

	CHECK(pme_hash("sqlite3.c:97490", 15) ==
	    pme_hash("sqlite3.c:97490", 15));
	CHECK(pme_hash("", 0) != pme_hash("a", 1));
	CHECK(pme_hash("\0", 1) != pme_hash("", 0));
	for (i = 0; i < 64; i++) {
		snprintf(a, sizeof(a), "sqlite3.c:%u", 97400 + i);
		slots[pme_hash(a, strlen(a)) & 63]++;
	}
	for (i = 0; i < 64; i++)
		used += slots[i] != 0;
	/* 64 random keys in 64 slots fill about 40; a bad mix fills few. */
	if (used < 30)
		fail("64 names in 64 slots use only %u", used);
	snprintf(a, sizeof(a), "abcdefgh12345678");
	snprintf(b, sizeof(b), "abcdefgh12345679");
	CHECK(pme_hash(a, 16) != pme_hash(b, 16));
}

int
main(void)
{
	one(0, 1, ~0ULL, 1);
	one(1, 1, ~0ULL, 2);
	one(2, 2, 0xff, 3);
	one(1000, 1, ~0ULL, 4);
	one(1000, 1, 0x3, 5);		/* many equal keys: stability */
	one(5000, 3, 0xfff0, 6);	/* few bytes differ */
	one(5000, 3, ~0ULL, 7);
	one(300, 2, 0, 8);		/* all equal */
	inplace(0, ~0ULL, 9);
	inplace(31, ~0ULL, 10);
	inplace(5000, ~0ULL, 11);
	inplace(5000, 0x1fff0, 12);	/* a library's addresses */
	inplace(5000, 0x3, 13);		/* many equal keys */
	inplace(300, 0, 14);		/* all equal */
	inplace(100000, 0xffffffull << 8, 15);
	hashes();
	return failures != 0;
}
