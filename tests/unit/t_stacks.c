/*
 * t_stacks.c - the call stacks of pmehisto -T folded and the views
 * (histo/folded.c), and their exports (histo/export.c).  Folded: stacks
 * added and met again counted once with their counts summed, short (held in the entry) and long (in the pool) alike,
 * through the table's growth, plain and dense; stacks_walk() gives back
 * the ids as added; the folded lines in byte order, outermost first, a
 * unit's name as is, a module's, foreign mapping's or path's base name
 * in brackets ("[kernel]" as it is), ';' and ' ' made '_', two stacks
 * that print alike one line; stacks_frame_name() keeping ';' and ' ';
 * stacks_frame_path().  Exports: the string set that numbers the
 * frames' files and objects (an index per distinct string, in the order
 * added, the same index again for a string met again, through its
 * growth); export_make()'s callgrind file of stacks whose costs are
 * known, with their frames' addresses (t->addrs) (main calls f 8 samples, f calls g 3, main calls g 2; self: f 5,
 * g 5; 10 in all); and its error when no stack has a caller (pmeclock
 * without -g).
 */
#define TEST_NAME "t_stacks"
#include "pme.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histo.h"
#include "export.h"

/* The bucket file the frames name: units names[1..n) under names[0],
 * in /usr/bin/prog, and /lib/libm.so.6 with no unit. */
static struct pme_bucketfile *
layout(const char *const *names, uint32_t n, uint32_t *u)
{
	struct pme_error err;
	struct pme_bucketfile *bf;
	struct pme_unit un;
	struct pme_range r;
	uint32_t i;

	if ((bf = pme_bucketfile_new(&err)) == NULL ||
	    pme_bucketfile_add_kind(bf, "ROUTINE", &err) == PME_NONE ||
	    pme_bucketfile_add_module(bf, "/usr/bin/prog", NULL, 0,
	    PME_MODULE_MAIN, &err) == PME_NONE ||
	    pme_bucketfile_add_module(bf, "/lib/libm.so.6", NULL, 0, 0,
	    &err) == PME_NONE)
		die_pme("layout", &err);
	for (i = 0; i < n; i++) {
		memset(&un, 0, sizeof(un));
		un.name = names[i];
		un.parent = i == 0 ? PME_NONE : u[0];
		un.module = 0;
		r.start = 0x1000 + 0x100 * i;
		r.end = r.start + (i == 0 ? 0x100 * n : 0x100);
		if ((u[i] = pme_bucketfile_add_unit(bf, &un, &r, 1, &err)) ==
		    PME_NONE)
			die_pme(names[i], &err);
	}
	return bf;
}

/* The folded lines of s, in memory the caller frees. */
static char *
printed(const struct stacks *s, const struct tally *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	if (fp == NULL)
		die("open_memstream");
	CHECK(stacks_print(s, t, fp) == 0);
	fclose(fp);
	return buf;
}

struct sum {
	uint64_t	 count, ids;
	size_t		 stacks, longest;
	uint64_t	 want[8];	/* a stack to find, and its count */
	size_t		 nwant;
	uint64_t	 found;
};

static int
summed(void *arg, const uint64_t *id, size_t n, uint64_t count)
{
	struct sum *m = arg;
	size_t i;

	m->count += count;
	m->stacks++;
	m->longest = n > m->longest ? n : m->longest;
	for (i = 0; i < n; i++)
		m->ids += id[i];
	if (n == m->nwant && memcmp(id, m->want, n * sizeof(*id)) == 0)
		m->found = count;
	return 0;
}

/* Many stacks, each added twice: short ones and long ones past the
 * table's growth; the walk gives each once with both counts. */
static void
test_many(int dense)
{
	struct stacks *s = dense ? stacks_new_dense() : stacks_new();
	struct sum m;
	uint64_t id[8], ids = 0, count = 0;
	size_t i, j, n;
	int pass;

	if (s == NULL)
		die("stacks_new");
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < 5000; i++) {
			n = 1 + i % 8;
			for (j = 0; j < n; j++)
				id[j] = FRAME_UNIT | (i * 7 + j);
			CHECK(stacks_add(s, id, n, i + 1) == 0);
			count += i + 1;
			if (pass == 0)
				for (j = 0; j < n; j++)
					ids += id[j];
		}
	CHECK(stacks_add(s, id, 0, 99) == 0);	/* no frames: nothing */
	CHECK(stacks_count(s) == 5000);
	memset(&m, 0, sizeof(m));
	m.nwant = 1 + 4321 % 8;
	for (j = 0; j < m.nwant; j++)
		m.want[j] = FRAME_UNIT | (4321 * 7 + j);
	CHECK(stacks_walk(s, summed, &m) == 0);
	CHECK(m.stacks == 5000 && m.count == count && m.ids == ids &&
	    m.longest == 8);
	CHECK(m.found == 2 * 4322);
	stacks_free(s);
}

static int
stop(void *arg, const uint64_t *id, size_t n, uint64_t count)
{
	(void)id;
	(void)n;
	(void)count;
	return ++*(int *)arg == 2;
}

static void
test_print(void)
{
	static const char *const names[] = { "P", "main", "g h", "a;b",
	    "dup", "dup" };
	struct tally t;
	struct stacks *s = stacks_new();
	struct foreign fr = { "/usr/lib/x86_64-linux-gnu/libc.so.6", 0 };
	uint32_t u[6];
	uint64_t libc, kernel, libc2, a[4];
	char *text, *name;
	int calls = 0;

	if (s == NULL)
		die("stacks_new");
	tally_init(&t, layout(names, 6, u));
	t.foreign = &fr;
	t.stacks = s;
	t.nforeign = 1;
	libc = stacks_name(s, "/lib/x86_64-linux-gnu/libz.so.1");
	kernel = stacks_name(s, "[kernel]");
	libc2 = stacks_name(s, "/lib/x86_64-linux-gnu/libz.so.1");
	CHECK((libc & FRAME_TYPE) == FRAME_NAME && libc2 == libc &&
	    kernel != libc && (kernel & FRAME_TYPE) == FRAME_NAME);

	/* Innermost first: main calls "g h", which calls "a;b". */
	a[0] = FRAME_UNIT | u[3], a[1] = FRAME_UNIT | u[2];
	a[2] = FRAME_UNIT | u[1];
	CHECK(stacks_add(s, a, 3, 5) == 0);
	a[0] = FRAME_UNIT | u[4], a[1] = FRAME_UNIT | u[1];	/* dup */
	CHECK(stacks_add(s, a, 2, 2) == 0);
	a[0] = FRAME_UNIT | u[5];				/* dup too */
	CHECK(stacks_add(s, a, 2, 3) == 0);
	a[0] = kernel, a[1] = libc, a[2] = FRAME_MODULE | 1;
	a[3] = FRAME_UNIT | u[1];
	CHECK(stacks_add(s, a, 4, 7) == 0);
	a[0] = FRAME_FOREIGN | 0, a[1] = FRAME_UNKNOWN;
	CHECK(stacks_add(s, a, 2, 1) == 0);
	CHECK(stacks_count(s) == 5);

	text = printed(s, &t);
	if (strcmp(text, "[unknown];[libc.so.6] 1\n"
	    "main;[libm.so.6];[libz.so.1];[kernel]_[k] 7\n"
	    "main;dup 5\n"
	    "main;g h;a_b 5\n") != 0)
		fail("folded lines:\n%s", text);
	free(text);

	name = stacks_frame_name(s, &t, FRAME_UNIT | u[3]);
	CHECK(name != NULL && strcmp(name, "a;b") == 0);
	free(name);
	name = stacks_frame_name(s, &t, FRAME_UNIT | u[2]);
	CHECK(name != NULL && strcmp(name, "g h") == 0);
	free(name);
	CHECK(strcmp(stacks_frame_path(s, &t, FRAME_UNIT | u[2]),
	    "/usr/bin/prog") == 0);
	CHECK(strcmp(stacks_frame_path(s, &t, FRAME_MODULE | 1),
	    "/lib/libm.so.6") == 0);
	CHECK(strcmp(stacks_frame_path(s, &t, libc),
	    "/lib/x86_64-linux-gnu/libz.so.1") == 0);
	CHECK(strcmp(stacks_frame_path(s, &t, FRAME_FOREIGN | 0),
	    fr.path) == 0);
	CHECK(stacks_frame_path(s, &t, kernel) == NULL);
	CHECK(stacks_frame_path(s, &t, FRAME_UNKNOWN) == NULL);

	/* A walk stops when its function says so. */
	CHECK(stacks_walk(s, stop, &calls) == -1 && calls == 2);

	/* An empty table prints nothing. */
	stacks_free(s);
	if ((s = stacks_new()) == NULL)
		die("stacks_new");
	t.stacks = s;
	text = printed(s, &t);
	CHECK(text != NULL && text[0] == '\0');
	free(text);
	stacks_free(s);
	stacks_free(NULL);
	t.stacks = NULL;
	pme_bucketfile_close(t.bf);
	t.foreign = NULL;
	t.nforeign = 0;
	t.bf = NULL;
	tally_free(&t);
}

static void
test_strset(void)
{
	static char s[3000][16];
	struct strset set;
	size_t i;
	char again[16];

	memset(&set, 0, sizeof(set));
	strset_free(&set);		/* an empty one */
	for (i = 0; i < 3000; i++) {
		snprintf(s[i], sizeof(s[i]), "lib%zu.so", i);
		CHECK(strset_add(&set, s[i]) == i);
	}
	for (i = 0; i < 3000; i += 7) {
		snprintf(again, sizeof(again), "lib%zu.so", i);
		CHECK(strset_add(&set, again) == i);	/* by content */
	}
	CHECK(set.n == 3000 && set.s[1234] == s[1234]);
	strset_free(&set);
}

/* A stack of n frames a, b, c (innermost first) with each frame's
 * link-time address after them, as pmehisto keeps them for the exports
 * at the resolution of lines (t->addrs): a frame at its unit's start
 * plus 0x10 for the innermost, plus 0x20 for a call site. */
static void
addv(struct stacks *s, uint64_t count, size_t n, const uint32_t *u,
    uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t f[3] = { a, b, c };
	uint64_t id[6];
	size_t i;

	for (i = 0; i < n; i++) {
		id[i] = FRAME_UNIT | u[f[i]];
		id[n + i] = 0x1000 + 0x100 * f[i] + (i == 0 ? 0x10 : 0x20);
	}
	if (stacks_add(s, id, 2 * n, count) == -1)
		die("stacks_add");
}

static void
test_callgrind(void)
{
	static const char *const names[] = { "P", "main", "f", "g" };
	struct export_out out;
	struct pme_error err;
	struct tally t;
	uint32_t u[4];
	char *text;

	tally_init(&t, layout(names, 4, u));
	if ((t.stacks = stacks_new()) == NULL)
		die("stacks_new");
	/* Innermost first. */
	t.addrs = 1;
	addv(t.stacks, 5, 2, u, 2, 1, 0);		/* main > f */
	addv(t.stacks, 3, 3, u, 3, 2, 1);		/* main > f > g */
	addv(t.stacks, 2, 2, u, 3, 1, 0);		/* main > g */
	if (export_make(export_find("callgrind"), &t, "x.PMS", &out, &err) == -1)
		die_pme("export_make", &err);
	if ((text = strndup(out.data, out.len)) == NULL)
		die("strndup");
	CHECK(strncmp(text, "# callgrind format\nversion: 1\n", 30) == 0);
	CHECK(strstr(text, "\nevents: Samples\n") != NULL);
	CHECK(strstr(text, "\ntotals: 10\n") != NULL);
	/* Inclusive costs of the calls: main's of f (5 + 3), f's of g,
	 * main's of g; nothing else calls.  Each call counted once:
	 * samples do not count calls. */
	CHECK(strstr(text, "calls=1 0\n0 8\n") != NULL &&
	    strstr(text, "calls=1 0\n0 3\n") != NULL &&
	    strstr(text, "calls=1 0\n0 2\n") != NULL);
	CHECK(strstr(text, "calls=8") == NULL &&
	    strstr(text, "calls=3") == NULL);
	/* f: self 5, then its call of g, on line 0 (no line table), as
	 * callgrind writes with positions: line. */
	CHECK(strstr(text, "\npositions: line\n") != NULL);
	CHECK(strstr(text, "\nfn=(1) f\n0 5\ncob=(2)\ncfi=(1)\n"
	    "cfn=(2) g\ncalls=1 0\n0 3\n") != NULL);
	CHECK(strstr(text, "\nfn=(2)\n0 5\n") != NULL);	/* g */
	CHECK(strstr(text, "calls=1 0\n0 10\n") != NULL);	/* the root's */
	if (failures || getenv("T_STACKS_SHOW") != NULL)
		fprintf(stderr, "%s", text);
	free(text);
	free(out.data);

	/* Stacks of one frame: no caller to export. */
	stacks_free(t.stacks);
	if ((t.stacks = stacks_new()) == NULL)
		die("stacks_new");
	addv(t.stacks, 4, 1, u, 2, 0, 0);
	CHECK(export_make(export_find("callgrind"), &t, "flat.PMS", &out, &err) ==
	    -1 && err.code == PME_EFORMAT && strcmp(err.msg, "'flat.PMS': "
	    "no call chains for -T callgrind (record them with pmeclock -g)")
	    == 0);
	CHECK(out.data == NULL);
	pme_bucketfile_close(t.bf);
	t.bf = NULL;
	tally_free(&t);
}

int
main(void)
{
	test_many(0);
	test_many(1);
	test_print();
	test_strset();
	test_callgrind();
	return failures != 0;
}
