/*
 * t_reduce.c - reducing sample files into a bucket file (histo/reduce.c,
 * tally_file()), with every figure known: samples written here
 * (lib/sample.c's writer) at program counters of two routine buckets of
 * the main executable, one in the executable but in no bucket (its
 * module's "outside"), one in no mapping (unmapped), and one whose
 * weight stands for three timer expirations (histo_intervals()); a
 * second file adds to the first; a file cut short after a flush counts
 * what it holds; a file that is not there is an error naming it; the
 * counts survive a write and a read of the bucket file.
 */
#define TEST_NAME "t_reduce"
#include "pme.h"
#include "check.h"

#include <string.h>

#include "histo.h"

#define PERIOD	1000000		/* ns */
#define BASE	0x400000	/* where the executable is mapped */

/* P { f [0x1000, 0x1100), g [0x1100, 0x1200) } in /usr/bin/prog. */
static struct pme_bucketfile *
layout(void)
{
	struct pme_error err;
	struct pme_bucketfile *bf;
	struct pme_unit u;
	struct pme_range r[3] = { { 0x1000, 0x2000 }, { 0x1000, 0x1100 },
	    { 0x1100, 0x1200 } };
	static const char *const names[] = { "P", "f", "g" };
	uint32_t i, id[3];

	if ((bf = pme_bucketfile_new(&err)) == NULL ||
	    pme_bucketfile_add_kind(bf, "PROGRAM", &err) == PME_NONE ||
	    pme_bucketfile_add_kind(bf, "ROUTINE", &err) == PME_NONE ||
	    pme_bucketfile_add_module(bf, "/usr/bin/prog", NULL, 0,
	    PME_MODULE_MAIN, &err) == PME_NONE)
		die_pme("layout", &err);
	pme_bucketfile_info(bf)->measure = PME_MEASURE_CLOCK;
	for (i = 0; i < 3; i++) {
		memset(&u, 0, sizeof(u));
		u.name = names[i];
		u.kind = i > 0;
		u.parent = i == 0 ? PME_NONE : id[0];
		u.module = 0;
		if ((id[i] = pme_bucketfile_add_unit(bf, &u, &r[i], 1,
		    &err)) == PME_NONE)
			die_pme(names[i], &err);
	}
	if (pme_bucketfile_add_group(bf, "PROGRAM P BY ROUTINE", id[0], 1,
	    &err) == PME_NONE ||
	    pme_bucketfile_add_bucket(bf, id[1], &r[1], 1, &err) == PME_NONE ||
	    pme_bucketfile_add_bucket(bf, id[2], &r[2], 1, &err) == PME_NONE)
		die_pme("group", &err);
	return bf;
}

/* A sample file of process 7 running /usr/bin/prog at BASE: f 3 times,
 * g once weighing three periods, the executable outside the buckets
 * once, no mapping once.  cut: flushed, then left cut short. */
static const char *
record(const char *name, int cut)
{
	static const char *const argv[] = { "./prog" };
	static const uint64_t pcs[] = { BASE + 0x1010, BASE + 0x10ff,
	    BASE + 0x1000, BASE + 0x1150, BASE + 0x1800, 0x900000 };
	const char *path = tmppath(name);
	struct pme_sample_header h;
	struct pme_mapping m;
	struct pme_sample s;
	struct pme_samplewriter *w;
	struct pme_error err;
	size_t i;

	memset(&h, 0, sizeof(h));
	h.method = PME_METHOD_TEST;
	h.event = PME_EVENT_CPU_CLOCK;
	h.period = PERIOD;
	h.pid = 7;
	h.argc = 1;
	h.argv = argv;
	memset(&m, 0, sizeof(m));
	m.pid = 7;
	m.flags = PME_MAP_EXEC | PME_MAP_MAIN;
	m.start = BASE;
	m.end = BASE + 0x10000;
	m.path = "/usr/bin/prog";
	if ((w = pme_samplewriter_open(path, &h, 0, &err)) == NULL ||
	    pme_samplewriter_mapping(w, &m, &err) == -1)
		die_pme(path, &err);
	for (i = 0; i < sizeof(pcs) / sizeof(pcs[0]); i++) {
		memset(&s, 0, sizeof(s));
		s.pc = pcs[i];
		s.time = 1000 * (i + 1);
		s.weight = pcs[i] == BASE + 0x1150 ? 3 * PERIOD : PERIOD;
		s.pid = s.tid = 7;
		s.cpu = UINT32_MAX;
		if (pme_samplewriter_sample(w, &s, &err) == -1)
			die_pme(path, &err);
	}
	if (cut) {
		if (pme_samplewriter_flush(w, &err) == -1)
			die_pme(path, &err);
		pme_samplewriter_abort(w);
	} else if (pme_samplewriter_close(w, NULL, &err) == -1)
		die_pme(path, &err);
	return path;
}

/* The counts of bf's two buckets and its module's outside, as f g o. */
static void
counts(struct pme_bucketfile *bf, uint64_t f, uint64_t g, uint64_t o,
    const char *what)
{
	struct pme_bucket *b;

	CHECK(pme_bucketfile_buckets(bf, &b) == 2);
	if (b[0].count != f || b[1].count != g ||
	    *pme_bucketfile_outside(bf, 0) != o)
		fail("%s: f %llu, g %llu, outside %llu; not %llu %llu %llu",
		    what, (unsigned long long)b[0].count,
		    (unsigned long long)b[1].count, (unsigned long long)
		    *pme_bucketfile_outside(bf, 0), (unsigned long long)f,
		    (unsigned long long)g, (unsigned long long)o);
}

int
main(void)
{
	const char *one = record("one.pms", 0), *cut = record("cut.pms", 1);
	const char *out = tmppath("out.pme");
	struct pme_bucketfile *rd;
	struct pme_error err;
	struct tally t;

	tally_init(&t, layout());
	t.quiet = 1;
	t.prog = TEST_NAME;
	if (tally_file(&t, one, &err) == -1)
		die_pme("tally_file", &err);
	counts(t.bf, 3, 3, 1, "one file");
	CHECK(t.files == 1 && t.samples == 6 && t.counted == 8 &&
	    t.unmapped == 1 && t.period == PERIOD && t.processes == 1);
	CHECK(t.command != NULL && strcmp(t.command, "./prog") == 0);

	/* A second run adds to the first; a file cut short after its
	 * flush still counts what it holds. */
	if (tally_file(&t, one, &err) == -1)
		die_pme("tally_file, again", &err);
	counts(t.bf, 6, 6, 2, "two files");
	CHECK(t.files == 2 && t.samples == 12 && t.counted == 16 &&
	    t.unmapped == 2);
	if (tally_file(&t, cut, &err) == -1)
		fail("a file cut short: %s", err.msg);
	counts(t.bf, 9, 9, 3, "a file cut short too");

	/* A file that is not there: an error that names it. */
	CHECK(tally_file(&t, tmppath("none.pms"), &err) == -1 &&
	    strstr(err.msg, "none.pms") != NULL);
	counts(t.bf, 9, 9, 3, "after a missing file");

	/* The counts are the bucket file's: written and read back. */
	pme_bucketfile_info(t.bf)->runs = 3;
	pme_bucketfile_info(t.bf)->total = t.counted;
	if (pme_bucketfile_write(t.bf, out, &err) == -1)
		die_pme(out, &err);
	if ((rd = pme_bucketfile_open(out, &err)) == NULL)
		die_pme(out, &err);
	counts(rd, 9, 9, 3, "read back");
	CHECK(pme_bucketfile_info(rd)->runs == 3 &&
	    pme_bucketfile_info(rd)->total == 24);
	pme_bucketfile_close(rd);
	pme_bucketfile_close(t.bf);
	t.bf = NULL;
	tally_free(&t);
	return failures != 0;
}
