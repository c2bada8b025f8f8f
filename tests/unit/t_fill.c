/*
 * t_fill.c - adding a run's counts to a bucket file under its lock
 * (pme.h: pme_fill_*): ACCUMCOUNTS adds, CLEARCOUNTS replaces, modules a
 * run added are matched whatever their order, second counts follow the
 * run or are kept, another measure or layout is refused with the file
 * untouched, a file replaced while a fill waits for its lock is the one
 * added to, and an aborted fill releases the lock.
 */
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pme.h"

#define TEST_NAME "t_fill"
#include "check.h"

static char path[4096];

/* A file of one module, two routines, a bucket each, counts a and b. */
static struct pme_bucketfile *
make(unsigned options, uint32_t measure, uint64_t a, uint64_t b,
    int extra)
{
	static const struct pme_range r[] = { { 0x1000, 0x1100 },
	    { 0x1100, 0x1200 }, { 0x1200, 0x1300 } };
	struct pme_bucketfile *bf;
	struct pme_unit u;
	struct pme_bucket *bk;
	struct pme_error err;
	uint32_t k, p, i;

	if ((bf = pme_bucketfile_new(&err)) == NULL)
		die_pme("new", &err);
	k = pme_bucketfile_add_kind(bf, "ROUTINE", &err);
	if (pme_bucketfile_add_module(bf, "/bin/prog", NULL, 0,
	    PME_MODULE_MAIN, &err) != 0)
		die_pme("module", &err);
	memset(&u, 0, sizeof(u));
	u.kind = k;
	u.parent = PME_NONE;
	u.module = 0;
	u.name = "all";
	p = pme_bucketfile_add_unit(bf, &u, r, 2 + extra, &err);
	pme_bucketfile_add_group(bf, "ROUTINE all BY ROUTINE", p, k, &err);
	u.parent = p;
	for (i = 0; i < 2u + extra; i++) {
		u.name = i == 0 ? "f" : i == 1 ? "g" : "h";
		if (pme_bucketfile_add_bucket(bf, pme_bucketfile_add_unit(bf,
		    &u, r + i, 1, &err), r + i, 1, &err) == PME_NONE)
			die_pme("bucket", &err);
	}
	pme_bucketfile_buckets(bf, &bk);
	bk[0].count = a;
	bk[1].count = b;
	pme_bucketfile_info(bf)->options = options;
	pme_bucketfile_info(bf)->measure = measure;
	pme_bucketfile_info(bf)->runs = measure != PME_MEASURE_NONE;
	pme_bucketfile_info(bf)->total = a + b;
	return bf;
}

static void
put(struct pme_bucketfile *bf)
{
	struct pme_error err;

	if (pme_bucketfile_write(bf, path, &err) == -1)
		die_pme("write", &err);
	pme_bucketfile_close(bf);
}

/* The file at path, read; its run, counts cleared, counting a and b. */
static struct pme_bucketfile *
run_of(uint32_t measure, uint64_t a, uint64_t b)
{
	struct pme_bucketfile *bf;
	struct pme_bucket *bk;
	struct pme_error err;

	if ((bf = pme_bucketfile_open(path, &err)) == NULL)
		die_pme("open", &err);
	pme_bucketfile_clear(bf);
	pme_bucketfile_buckets(bf, &bk);
	bk[0].count = a;
	bk[1].count = b;
	pme_bucketfile_info(bf)->measure = measure;
	pme_bucketfile_info(bf)->runs = 1;
	pme_bucketfile_info(bf)->total = a + b;
	return bf;
}

/* The file at path has counts a and b, runs and measure. */
static int
file_is(uint64_t a, uint64_t b, uint64_t runs, uint32_t measure)
{
	struct pme_bucketfile *bf;
	struct pme_bucket *bk;
	struct pme_error err;
	const struct pme_info *i;
	int ok;

	if ((bf = pme_bucketfile_open(path, &err)) == NULL)
		die_pme("open", &err);
	pme_bucketfile_buckets(bf, &bk);
	i = pme_bucketfile_info(bf);
	ok = bk[0].count == a && bk[1].count == b && i->runs == runs &&
	    i->measure == measure && i->total == a + b;
	if (!ok)
		fprintf(stderr, "t_fill: %llu %llu runs %llu measure %u\n",
		    (unsigned long long)bk[0].count,
		    (unsigned long long)bk[1].count,
		    (unsigned long long)i->runs, i->measure);
	pme_bucketfile_close(bf);
	return ok;
}

static void
test_accum_clear(void)
{
	struct pme_bucketfile *run;
	struct pme_error err;

	put(make(PME_OPT_ACCUM, PME_MEASURE_INSTR, 10, 20, 0));
	run = run_of(PME_MEASURE_INSTR, 1, 2);
	CHECK(pme_fill_add(path, NULL, run, &err) == 0);
	CHECK(file_is(11, 22, 2, PME_MEASURE_INSTR));
	CHECK(pme_fill_add(path, NULL, run, &err) == 0);
	CHECK(file_is(12, 24, 3, PME_MEASURE_INSTR));
	pme_bucketfile_close(run);

	/* CLEARCOUNTS: the run's counts replace the file's, of any measure. */
	put(make(0, PME_MEASURE_CLOCK, 10, 20, 0));
	run = run_of(PME_MEASURE_INSTR, 1, 2);
	CHECK(pme_fill_add(path, NULL, run, &err) == 0);
	CHECK(file_is(1, 2, 1, PME_MEASURE_INSTR));
	pme_bucketfile_close(run);
}

/* Modules added by two runs, in other orders: matched by path. */
static void
test_modules(void)
{
	struct pme_bucketfile *bf, *run;
	const struct pme_module *m;
	struct pme_error err;
	uint32_t x;
	size_t n;

	put(make(PME_OPT_ACCUM, PME_MEASURE_NONE, 0, 0, 0));
	run = run_of(PME_MEASURE_INSTR, 1, 2);
	x = pme_bucketfile_add_module(run, "/lib/x.so", NULL, 0, 0, &err);
	*pme_bucketfile_outside(run, x) = 5;
	x = pme_bucketfile_add_module(run, "/lib/y.so", NULL, 0, 0, &err);
	*pme_bucketfile_outside(run, x) = 6;
	/* Another run wrote the file meanwhile, with y.so only. */
	bf = make(PME_OPT_ACCUM, PME_MEASURE_INSTR, 10, 20, 0);
	x = pme_bucketfile_add_module(bf, "/lib/y.so", NULL, 0, 0, &err);
	*pme_bucketfile_outside(bf, x) = 60;
	put(bf);
	CHECK(pme_fill_add(path, NULL, run, &err) == 0);
	CHECK(file_is(11, 22, 2, PME_MEASURE_INSTR));
	bf = pme_bucketfile_open(path, &err);
	n = pme_bucketfile_modules(bf, &m);
	CHECK(n == 3 && strcmp(m[1].path, "/lib/y.so") == 0 &&
	    m[1].outside == 66 && strcmp(m[2].path, "/lib/x.so") == 0 &&
	    m[2].outside == 5);
	pme_bucketfile_close(bf);
	pme_bucketfile_close(run);
}

/* Second counts: the run's replace others; a run without keeps them. */
static void
test_counts2(void)
{
	struct pme_bucketfile *bf, *run;
	struct pme_error err;
	uint64_t *c;

	put(make(PME_OPT_ACCUM, PME_MEASURE_INSTR, 10, 20, 0));
	run = run_of(PME_MEASURE_INSTR, 1, 2);
	pme_bucketfile_set_counts2(run, "calls", &err);
	pme_bucketfile_counts2(run, &c);
	c[0] = 7;
	c[1] = 8;
	CHECK(pme_fill_add(path, NULL, run, &err) == 0);
	pme_bucketfile_close(run);
	run = run_of(PME_MEASURE_INSTR, 1, 2);
	pme_bucketfile_set_counts2(run, NULL, &err);
	CHECK(pme_fill_add(path, NULL, run, &err) == 0);
	pme_bucketfile_close(run);
	CHECK(file_is(12, 24, 3, PME_MEASURE_INSTR));
	bf = pme_bucketfile_open(path, &err);
	CHECK(pme_bucketfile_counts2(bf, &c) != NULL && c[0] == 7 &&
	    c[1] == 8);
	pme_bucketfile_close(bf);
}

/* Refusals leave the file as it was, unlocked. */
static void
test_refused(void)
{
	struct pme_bucketfile *run;
	struct pme_error err;
	uint8_t *before, *after;
	size_t n1, n2;

	put(make(PME_OPT_ACCUM, PME_MEASURE_CLOCK, 10, 20, 0));
	before = readfile(path, &n1);
	run = run_of(PME_MEASURE_INSTR, 1, 2);
	CHECK(pme_fill_check(run, PME_MEASURE_INSTR, path, &err) == 0);
	CHECK(pme_fill_add(path, NULL, run, &err) == -1 &&
	    err.code == PME_EINVAL && strstr(err.msg, "its counts are clock "
	    "samples, not instructions: they cannot be added up") != NULL);
	pme_bucketfile_close(run);
	run = pme_bucketfile_open(path, &err);
	CHECK(pme_fill_check(run, PME_MEASURE_INSTR, "x.pme", &err) == -1 &&
	    strcmp(err.msg, "'x.pme': its counts are clock samples, not "
	    "instructions: they cannot be added up (ACCUMCOUNTS)") == 0);
	CHECK(pme_fill_check(run, PME_MEASURE_CLOCK, "x.pme", &err) == 0);
	pme_bucketfile_close(run);

	/* Made again, with another bucket, since the run began. */
	run = run_of(PME_MEASURE_CLOCK, 1, 2);
	put(make(PME_OPT_ACCUM, PME_MEASURE_CLOCK, 10, 20, 1));
	free(before);
	before = readfile(path, &n1);
	CHECK(pme_fill_add(path, NULL, run, &err) == -1 &&
	    strstr(err.msg, "changed since the run began: the bucket files "
	    "differ in their units") != NULL);
	after = readfile(path, &n2);
	CHECK(n1 == n2 && memcmp(before, after, n1) == 0);
	free(before);
	free(after);
	CHECK(pme_fill_add("-", NULL, run, &err) == -1 &&
	    err.code == PME_EINVAL);
	CHECK(pme_fill_add("no/such/file.pme", NULL, run, &err) == -1 &&
	    err.code == PME_EIO && strstr(err.msg, "cannot open") != NULL);
	pme_bucketfile_close(run);
}

/* An aborted fill writes nothing and releases the lock (or this hangs
 * until the alarm). */
static void
test_abort(void)
{
	struct pme_bucketfile *run;
	struct pme_error err;
	struct pme_fill *f;

	put(make(PME_OPT_ACCUM, PME_MEASURE_INSTR, 10, 20, 0));
	run = run_of(PME_MEASURE_INSTR, 1, 2);
	CHECK((f = pme_fill_begin(path, run, &err)) != NULL);
	CHECK(pme_bucketfile_info(pme_fill_sum(f))->runs == 2);
	pme_fill_abort(f);
	pme_fill_abort(NULL);
	CHECK(file_is(10, 20, 1, PME_MEASURE_INSTR));
	CHECK((f = pme_fill_begin(path, run, &err)) != NULL);
	CHECK(pme_fill_commit(f, NULL, &err) == 0);
	CHECK(file_is(11, 22, 2, PME_MEASURE_INSTR));
	pme_bucketfile_close(run);
}

/*
 * A child fills while this process holds the lock, and the file is
 * replaced before the lock is released: whether the child was waiting on
 * the old file or had not opened it yet, it must add to the new one.
 */
static void
test_replaced(void)
{
	struct pme_bucketfile *run;
	struct pme_error err;
	pid_t pid;
	int fd, st;

	put(make(PME_OPT_ACCUM, PME_MEASURE_INSTR, 10, 20, 0));
	run = run_of(PME_MEASURE_INSTR, 1, 2);
	CHECK((fd = open(path, O_RDONLY)) != -1 && flock(fd, LOCK_EX) == 0);
	if ((pid = fork()) == 0) {
		close(fd);	/* the lock is this process's, not the copy's */
		st = pme_fill_add(path, NULL, run, &err) == 0 ? 0 : 1;
		pme_bucketfile_close(run);
		_exit(st);
	}
	usleep(100000);
	put(make(PME_OPT_ACCUM, PME_MEASURE_INSTR, 100, 200, 0));
	close(fd);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0);
	CHECK(file_is(101, 202, 2, PME_MEASURE_INSTR));
	pme_bucketfile_close(run);
}

/*
 * pme_fill_match(): build-id first; then exact path, real path, the main
 * executable, base name, in that order; another build passed over (and
 * said) unless forced; only the first n modules.
 */
static void
test_match(void)
{
	static const uint8_t ida[4] = { 1, 2, 3, 4 }, idb[4] = { 5, 6, 7, 8 },
	    idc[4] = { 9, 9, 9, 9 };
	struct pme_bucketfile *bf;
	struct pme_error err;
	char lib[4200], link[4200];
	unsigned why;
	FILE *f;

	snprintf(lib, sizeof(lib), "%s", tmppath("libx.so.1"));
	snprintf(link, sizeof(link), "%s", tmppath("libx.so"));
	if ((f = fopen(lib, "w")) == NULL || fclose(f) != 0 ||
	    symlink("libx.so.1", link) != 0)
		die("%s: %s", lib, strerror(errno));
	if ((bf = pme_bucketfile_new(&err)) == NULL)
		die_pme("new", &err);
	/* 0 main, id a; 1 the library by its real path, no id; 2 id b;
	 * 3 /opt/y/libz.so, id c; 4 /usr/lib/only.so, no id */
	if (pme_bucketfile_add_module(bf, "/build/prog", ida, 4,
	    PME_MODULE_MAIN, &err) != 0 ||
	    pme_bucketfile_add_module(bf, lib, NULL, 0, 0, &err) != 1 ||
	    pme_bucketfile_add_module(bf, "/usr/lib/libb.so", idb, 4, 0,
	    &err) != 2 ||
	    pme_bucketfile_add_module(bf, "/opt/y/libz.so", idc, 4, 0,
	    &err) != 3 ||
	    pme_bucketfile_add_module(bf, "/usr/lib/only.so", NULL, 0, 0,
	    &err) != 4)
		die_pme("module", &err);

	/* the build-id wins over any path */
	CHECK(pme_fill_match(bf, 5, "/elsewhere/b", idb, 4, 0, 0, &why) == 2
	    && why == 0);
	CHECK(pme_fill_match(bf, 5, "/usr/lib/libb.so", ida, 4, 1, 0, &why)
	    == 0);
	/* the same path, another build: passed over and said, or forced */
	CHECK(pme_fill_match(bf, 5, "/usr/lib/libb.so", idc + 0, 3, 0, 0,
	    &why) == PME_NONE && why == PME_MATCH_OTHERBUILD);
	CHECK(pme_fill_match(bf, 5, "/usr/lib/libb.so", idc, 3, 0,
	    PME_MATCH_FORCE, &why) == 2);
	/* the main executable of another build */
	CHECK(pme_fill_match(bf, 5, "/run/prog2", idc, 3, 1, 0, &why) ==
	    PME_NONE && (why & PME_MATCH_OTHERMAIN));
	CHECK(pme_fill_match(bf, 5, "/run/prog2", idc, 3, 1,
	    PME_MATCH_FORCE, &why) == 0);
	/* no build-id on one side: by path */
	CHECK(pme_fill_match(bf, 5, "/usr/lib/libb.so", NULL, 0, 0, 0, &why)
	    == 2 && why == 0);
	CHECK(pme_fill_match(bf, 5, "/usr/lib/only.so", idb + 1, 3, 0, 0,
	    &why) == 4);
	/* by the real path: a symbolic link to the module's file */
	CHECK(pme_fill_match(bf, 5, link, NULL, 0, 0, 0, &why) == 1);
	/* the main executable, whatever its path */
	CHECK(pme_fill_match(bf, 5, "/tmp/a.out", NULL, 0, 1, 0, &why) == 0);
	/* by base name, last */
	CHECK(pme_fill_match(bf, 5, "/copy/of/only.so", NULL, 0, 0, 0, &why)
	    == 4);
	CHECK(pme_fill_match(bf, 5, "/copy/libz.so", NULL, 0, 0, 0, &why)
	    == 3);
	/* ... which a build-id that differs stops too */
	CHECK(pme_fill_match(bf, 5, "/copy/libz.so", ida + 1, 3, 0, 0, &why)
	    == PME_NONE && why == PME_MATCH_OTHERBUILD);
	/* nothing */
	CHECK(pme_fill_match(bf, 5, "/usr/lib/libc.so.6", NULL, 0, 0, 0,
	    &why) == PME_NONE && why == 0);
	CHECK(pme_fill_match(bf, 5, NULL, NULL, 0, 0, 0, &why) == PME_NONE);
	/* only the first n modules */
	CHECK(pme_fill_match(bf, 2, "/elsewhere/b", idb, 4, 0, 0, &why) ==
	    PME_NONE);
	CHECK(pme_fill_match(bf, 4, "/usr/lib/only.so", NULL, 0, 0, 0, NULL)
	    == PME_NONE);
	pme_bucketfile_close(bf);
}

int
main(void)
{
	alarm(60);
	snprintf(path, sizeof(path), "%s", tmppath("t_fill.pme"));
	test_accum_clear();
	test_modules();
	test_counts2();
	test_refused();
	test_abort();
	test_replaced();
	test_match();
	testdir_done();
	return failures != 0;
}
