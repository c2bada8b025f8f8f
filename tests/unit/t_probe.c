/*
 * t_probe.c - pme_probe_remove(), the one removal from a linear-probing
 * table that the heap's three tables share (histo/heap.c's blocks by
 * address, lib/sample.c's block numbers by serial, the runtime's live
 * blocks in sample/heap.c): random insertions and removals against a
 * plain list of what should be there, on small tables whose homes
 * collide and wrap around the end, each state checked whole: every key
 * found by probing from its home, no other key in the table, the other
 * fields moved with their keys.  And entries whose key is not first.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define TEST_NAME "t_probe"
#include "check.h"

struct ent {
	uint32_t	 tag;		/* the key's, moved with it */
	uint64_t	 key;		/* 0: empty; not the first field */
	uint32_t	 more;
};

static unsigned homebits;	/* how few homes the keys share */

static size_t
home(uint64_t key, size_t cap)
{
	return (size_t)(key * 0x9e3779b97f4a7c15ull >> 40) &
	    ((1u << homebits) - 1) & (cap - 1);
}

/* A home near the end, so that runs wrap to slot 0. */
static size_t
home_end(uint64_t key, size_t cap)
{
	return (cap - 1 - (size_t)(key % 3)) & (cap - 1);
}

static size_t (*homefn)(uint64_t, size_t);

static void
put(struct ent *t, size_t cap, uint64_t key)
{
	size_t s;

	for (s = homefn(key, cap); t[s].key != 0; s = (s + 1) & (cap - 1))
		continue;
	t[s].key = key;
	t[s].tag = (uint32_t)(key * 7);
	t[s].more = (uint32_t)(key ^ 0x5a5a);
}

static long
find(const struct ent *t, size_t cap, uint64_t key)
{
	size_t s;

	for (s = homefn(key, cap); t[s].key != 0; s = (s + 1) & (cap - 1))
		if (t[s].key == key)
			return (long)s;
	return -1;
}

/* t holds exactly the n keys of want, each reachable, fields intact. */
static void
whole(const struct ent *t, size_t cap, const uint64_t *want, size_t n,
    const char *what, unsigned step)
{
	size_t i, used = 0;
	long s;

	for (i = 0; i < cap; i++)
		used += t[i].key != 0;
	if (used != n)
		fail("%s, step %u: %zu entries, not %zu", what, step, used, n);
	for (i = 0; i < n; i++) {
		if ((s = find(t, cap, want[i])) < 0) {
			fail("%s, step %u: key %llu not reachable", what, step,
			    (unsigned long long)want[i]);
			continue;
		}
		if (t[s].tag != (uint32_t)(want[i] * 7) ||
		    t[s].more != (uint32_t)(want[i] ^ 0x5a5a))
			fail("%s, step %u: key %llu's fields not its own",
			    what, step, (unsigned long long)want[i]);
	}
}

static void
run(size_t cap, size_t (*fn)(uint64_t, size_t), unsigned bits,
    const char *what)
{
	struct ent *t = calloc(cap, sizeof(*t));
	uint64_t *want = calloc(cap, sizeof(*want)), next = 1;
	size_t n = 0, k;
	unsigned step;
	long s;

	if (t == NULL || want == NULL)
		die("out of memory");
	homefn = fn;
	homebits = bits;
	srand(cap * 31 + bits);
	for (step = 0; step < 20000; step++) {
		/* At most three quarters full (a table of one slot,
		 * full), so that runs are long. */
		if (n < (cap > 1 ? cap * 3 / 4 : 1) && (n == 0 ||
		    rand() % 2)) {
			put(t, cap, next);
			want[n++] = next++;
		} else {
			k = (size_t)rand() % n;
			if ((s = find(t, cap, want[k])) < 0) {
				fail("%s, step %u: key %llu lost", what, step,
				    (unsigned long long)want[k]);
				break;
			}
			pme_probe_remove(t, sizeof(*t), offsetof(struct ent,
			    key), cap, (size_t)s, fn);
			want[k] = want[--n];
		}
		whole(t, cap, want, n, what, step);
		if (failures > 0)
			break;
	}
	free(t);
	free(want);
}

int
main(void)
{
	run(8, home, 1, "8 slots, 2 homes");
	run(16, home, 2, "16 slots, 4 homes");
	run(64, home, 6, "64 slots, spread");
	run(16, home_end, 0, "16 slots, homes at the end");
	run(1, home, 0, "1 slot");
	return failures != 0;
}
