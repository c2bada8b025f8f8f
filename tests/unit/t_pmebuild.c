/*
 * t_pmebuild - tests of pmebuild's modules (build/), and a dumper of
 * bucket files for the shell tests.
 *
 * With no argument: statements are fed to the parser in memory and the
 * unit tree and bucket groups they make are checked, then written to a
 * bucket file in $TMPDIR, read back with libpme and checked again.
 *
 *	t_pmebuild dump FILE.PME	one line per bucket range:
 *		group kind name start end module
 *	(addresses lowercase hexadecimal, end exclusive; module is the load
 *	module's file name, "-" for absolute addresses), then one line per
 *	unit: "unit kind name parent nranges [alias...]".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmd.h"

#define TEST_NAME "t_pmebuild"
#include "check.h"


static const char *
base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int
dump(const char *path)
{
	const struct pme_module *mods;
	const struct pme_unit *units;
	const struct pme_group *groups;
	const struct pme_range *ranges;
	const char *const *kinds, *const *aliases;
	struct pme_bucket *b;
	struct pme_bucketfile *bf;
	struct pme_error err;
	size_t ng, nu, na, g, i, j;

	if ((bf = pme_bucketfile_open(path, &err)) == NULL) {
		fprintf(stderr, "t_pmebuild: %s\n", pme_strerror(&err));
		return 1;
	}
	pme_bucketfile_kinds(bf, &kinds);
	pme_bucketfile_modules(bf, &mods);
	nu = pme_bucketfile_units(bf, &units);
	ng = pme_bucketfile_groups(bf, &groups);
	pme_bucketfile_buckets(bf, &b);
	pme_bucketfile_ranges(bf, &ranges);
	for (g = 0; g < ng; g++)
		for (i = groups[g].first; i < groups[g].first +
		    groups[g].count; i++) {
			const struct pme_unit *u = &units[b[i].unit];

			for (j = 0; j < b[i].nranges; j++)
				printf("%zu %s %s %llx %llx %s\n", g + 1,
				    kinds[u->kind], u->name,
				    (unsigned long long)ranges[b[i].range +
				    j].start, (unsigned long long)
				    ranges[b[i].range + j].end,
				    u->module == PME_NONE ? "-" :
				    mods[u->module].path[0] ? base(
				    mods[u->module].path) : "(main)");
		}
	for (i = 0; i < nu; i++) {
		printf("unit %s %s %s %u", kinds[units[i].kind],
		    units[i].name, units[i].parent == PME_NONE ? "-" :
		    units[units[i].parent].name, units[i].nranges);
		na = pme_bucketfile_aliases(bf, (uint32_t)i, &aliases);
		for (j = 0; j < na; j++)
			printf(" %s", aliases[j]);
		putchar('\n');
	}
	pme_bucketfile_close(bf);
	return 0;
}

static void
print_ranges(const struct pme_range *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf(" %llx-%llx", (unsigned long long)r[i].start,
		    (unsigned long long)r[i].end);
	putchar('\n');
}

static int
layout(const char *path)
{
	const struct pme_module *mods;
	const struct pme_unit *u;
	const struct pme_group *g;
	const struct pme_range *r;
	const char *const *kinds, *const *al;
	struct pme_bucket *b;
	struct pme_bucketfile *bf;
	struct pme_error err;
	size_t n, i, j;

	if ((bf = pme_bucketfile_open(path, &err)) == NULL) {
		fprintf(stderr, "t_pmebuild: %s\n", pme_strerror(&err));
		return 1;
	}
	printf("options %x\n", pme_bucketfile_info(bf)->options);
	n = pme_bucketfile_kinds(bf, &kinds);
	for (i = 0; i < n; i++)
		printf("kind %zu %s\n", i, kinds[i]);
	n = pme_bucketfile_modules(bf, &mods);
	for (i = 0; i < n; i++) {
		printf("module %zu %s %x ", i, mods[i].path, mods[i].flags);
		for (j = 0; j < mods[i].buildid_len; j++)
			printf("%02x", mods[i].buildid[j]);
		putchar('\n');
	}
	pme_bucketfile_ranges(bf, &r);
	n = pme_bucketfile_units(bf, &u);
	for (i = 0; i < n; i++) {
		printf("unit %zu '%s' kind %u parent %d module %d flags %x "
		    "step %llx %s:%u", i, u[i].name, u[i].kind,
		    (int)u[i].parent, (int)u[i].module, u[i].flags,
		    (unsigned long long)u[i].step, u[i].file ? u[i].file :
		    "-", u[i].line);
		print_ranges(&r[u[i].range], u[i].nranges);
		for (j = pme_bucketfile_aliases(bf, (uint32_t)i, &al); j > 0;
		    j--)
			printf("alias %zu %s\n", i, al[j - 1]);
	}
	n = pme_bucketfile_groups(bf, &g);
	for (i = 0; i < n; i++)
		printf("group %zu '%s' unit %u by %d buckets %u+%u\n", i,
		    g[i].statement, g[i].unit, (int)g[i].bykind, g[i].first,
		    g[i].count);
	n = pme_bucketfile_buckets(bf, &b);
	for (i = 0; i < n; i++) {
		printf("bucket %zu unit %u group %u", i, b[i].unit,
		    b[i].group);
		print_ranges(&r[b[i].range], b[i].nranges);
	}
	pme_bucketfile_close(bf);
	return 0;
}

/* Feeds newline-separated statements; returns the errors they made. */
static unsigned
feed(struct pmd *p, const char *text)
{
	char *copy = strdup(text), *line, *nl;
	unsigned before = p->errors;

	for (line = copy; line != NULL && p->mode != PMD_MODE_DONE;
	    line = nl) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl++ = '\0';
		p->line++;
		pmd_statement(p, line);
	}
	free(copy);
	return p->errors - before;
}

static FILE *
sink(void)
{
	FILE *f = fopen("/dev/null", "w");

	if (f == NULL) {
		perror("/dev/null");
		exit(1);
	}
	return f;
}

static uint32_t
find(struct pmd *p, const char *name)
{
	uint32_t i;

	for (i = 0; i < pmd_nunits(p); i++)
		if (strcmp(pmd_unit(p, i)->name, name) == 0)
			return i;
	return PME_NONE;
}

/* The seed's CRUNCH: parents by declaration order, derived ranges. */
static void
test_tree(void)
{
	FILE *null = sink();
	struct pmd p;
	uint32_t crunch, read, init, print;

	pmd_init(&p, null, null, "t");
	p.file = "tree";
	CHECK(feed(&p, "DEFINE UNITS: PROGRAM, PHASE, MODULE\n"
	    "PROGRAM CRUNCH\nPHASE READ_DATA\nMODULE INITIALIZE, 100-1FF\n"
	    "MODULE READER, 200 - 2AF\nPHASE PROCESS_DATA\n"
	    "MODULE INVERT\nPHASE PRINT_DATA\nMODULE PRINTER,400-4FF,10\n"
	    "END\n") == 0);
	CHECK(p.mode == PMD_MODE_DONE);
	CHECK(pmd_nunits(&p) == 8);
	crunch = find(&p, "CRUNCH");
	read = find(&p, "READ_DATA");
	init = find(&p, "INITIALIZE");
	print = find(&p, "PRINTER");
	CHECK(pmd_unit(&p, read)->parent == crunch);
	CHECK(pmd_unit(&p, init)->parent == read);
	CHECK(pmd_unit(&p, find(&p, "INVERT"))->parent ==
	    find(&p, "PROCESS_DATA"));
	CHECK(pmd_unit(&p, print)->step == 0x10);
	pmd_derive(&p);
	/* READ_DATA is INITIALIZE and READER: 100 - 2AF in one range. */
	CHECK(pmd_unit(&p, read)->nr == 1);
	CHECK(pmd_unit(&p, read)->r[0].start == 0x100);
	CHECK(pmd_unit(&p, read)->r[0].end == 0x2b0);
	/* CRUNCH: 100 - 2AF and 400 - 4FF; INVERT has no addresses. */
	CHECK(pmd_unit(&p, crunch)->nr == 2);
	CHECK(pmd_unit(&p, find(&p, "INVERT"))->nr == 0);
	pmd_free(&p);
	fclose(null);
}

/* Errors abort their statement only; DEFINE CLEAR drops the groups. */
static void
test_errors_and_clear(void)
{
	FILE *null = sink();
	struct pmd p;

	pmd_init(&p, null, null, "t");
	p.file = "errors";
	CHECK(feed(&p, "DEFINE UNITS: PROGRAM, MODULE\nPROGRAM P\n"
	    "MODULE A, 1000-1FFF\nMODULE B, 1800-27FF\nMODUL C\n") == 1);
	CHECK(pmd_nunits(&p) == 3);
	CHECK(feed(&p, "DEFINE SAMPLING\nPROGRAM P BY MODULE\n") == 1);
	CHECK(p.groups.n == 0);
	CHECK(feed(&p, "MODULE A,,800\nMODULE B\n") == 1);
	CHECK(p.groups.n == 1 && p.buckets.n == 2);
	CHECK(feed(&p, "DEFINE CLEAR\nMODULE B\n") == 0);
	CHECK(p.groups.n == 1 && p.buckets.n == 1);
	p.interactive = 1;
	CHECK(feed(&p, "MODULE B\n") == 0);	/* not counted on a tty */
	pmd_free(&p);
	fclose(null);
}

/* A window and a step: the seed's "ROUTINE X, 100 - 1FF, 10". */
static void
test_window(void)
{
	FILE *null = sink();
	struct pmd p;
	const struct pme_range *r;
	size_t i;

	pmd_init(&p, null, null, "t");
	p.file = "window";
	CHECK(feed(&p, "DEFINE UNITS: MODULE, ROUTINE\nMODULE M\n"
	    "ROUTINE X, 2000 - 23AB\nDEFINE SAMPLING\n"
	    "ROUTINE X, 100 - 1FF, 10\nROUTINE X, 0 - 3AC\n") == 1);
	CHECK(p.buckets.n == 16);
	r = p.bucket_ranges.v;
	for (i = 0; i < p.buckets.n && i < 16; i++) {
		CHECK(r[i].start == 0x2100 + 0x10 * i);
		CHECK(r[i].end == 0x2110 + 0x10 * i);
	}
	pmd_free(&p);
	fclose(null);
}

/* What pmd_write puts in the file comes back through libpme. */
/* The bucket file pmd_write() makes of the .PMD text (named name in
 * messages), in $TMPDIR/name.pme, opened again; NULL after a failure. */
static struct pme_bucketfile *
written(const char *name, const char *text)
{
	const char *tmp = getenv("TMPDIR");
	struct pme_bucketfile *bf;
	struct pme_error err;
	FILE *null = sink();
	struct pmd p;
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s.pme", tmp ? tmp : "/tmp", name);
	pmd_init(&p, null, null, "t");
	p.file = name;
	CHECK(feed(&p, text) == 0);
	CHECK(pmd_write(&p, path, &err) == 0);
	pmd_free(&p);
	fclose(null);
	if ((bf = pme_bucketfile_open(path, &err)) == NULL)
		fail("%s", pme_strerror(&err));
	return bf;
}

static void
test_write(void)
{
	const struct pme_unit *units;
	const struct pme_group *groups;
	const struct pme_range *ranges;
	struct pme_bucket *b;
	struct pme_bucketfile *bf;

	if ((bf = written("write", "DEFINE OPTIONS: ABSADDR, ACCUMCOUNTS\n"
	    "DEFINE UNITS: PROGRAM, MODULE\nPROGRAM P\nMODULE A, 10-1F\n"
	    "MODULE B, 30 - 3F\nDEFINE SAMPLING\nPROGRAM P BY MODULE\n"
	    "END\n")) == NULL)
		return;
	CHECK(pme_bucketfile_info(bf)->options ==
	    (PME_OPT_ABSADDR | PME_OPT_ACCUM));
	CHECK(pme_bucketfile_units(bf, &units) == 3);
	CHECK(strcmp(units[0].name, "P") == 0 && units[0].nranges == 2);
	CHECK(units[1].parent == 0 && units[2].parent == 0);
	CHECK(pme_bucketfile_groups(bf, &groups) == 1);
	CHECK(strcmp(groups[0].statement, "PROGRAM P BY MODULE") == 0);
	CHECK(groups[0].bykind == 1 && groups[0].count == 2);
	CHECK(pme_bucketfile_buckets(bf, &b) == 2);
	pme_bucketfile_ranges(bf, &ranges);
	CHECK(b[1].unit == 2 && ranges[b[1].range].start == 0x30 &&
	    ranges[b[1].range].end == 0x40);
	CHECK(pme_bucketfile_lookup(bf, PME_NONE, 0x35) == 1);
	CHECK(pme_bucketfile_lookup(bf, PME_NONE, 0x25) == PME_NONE);
	pme_bucketfile_close(bf);
}

/*
 * A bucket over its unit's ranges shares them in the file's pool (every
 * line of -x); one whose unit gained addresses after it was made (here
 * MODULE M, derived again with ROUTINE k's in front) keeps its own.
 */
static void
test_write_shared(void)
{
	const struct pme_unit *units;
	const struct pme_range *ranges;
	struct pme_bucket *b;
	struct pme_bucketfile *bf;

	if ((bf = written("shared", "DEFINE UNITS: PROGRAM, MODULE, ROUTINE\n"
	    "PROGRAM P\nMODULE M\nROUTINE f, 1000 - 10FF\n"
	    "ROUTINE g, 2000 - 203F\nROUTINE k\nMODULE N\n"
	    "ROUTINE h, 5000 - 50FF\nDEFINE SAMPLING\nMODULE M\n"
	    "DEFINE ADDRESSES\nROUTINE k, 800 - 8FF\nDEFINE SAMPLING\n"
	    "ROUTINE k\nMODULE N\nEND\n")) == NULL)
		return;
	CHECK(pme_bucketfile_units(bf, &units) == 7);
	CHECK(pme_bucketfile_buckets(bf, &b) == 3);
	pme_bucketfile_ranges(bf, &ranges);
	/* M: its two ranges as they were, not the unit's three. */
	CHECK(b[0].unit == 1 && units[1].nranges == 3 && b[0].nranges == 2);
	CHECK(b[0].range != units[1].range);
	CHECK(ranges[b[0].range].start == 0x1000 &&
	    ranges[b[0].range + 1].end == 0x2040);
	/* k and N: their units' ranges, shared. */
	CHECK(b[1].unit == 4 && b[1].range == units[4].range &&
	    b[1].nranges == 1 && ranges[b[1].range].start == 0x800);
	CHECK(b[2].unit == 5 && b[2].range == units[5].range);
	CHECK(pme_bucketfile_lookup(bf, PME_NONE, 0x810) == 1);
	CHECK(pme_bucketfile_lookup(bf, PME_NONE, 0x5010) == 2);
	CHECK(pme_bucketfile_lookup(bf, PME_NONE, 0x2010) == 0);
	pme_bucketfile_close(bf);
}

/* Each of the eleven options, alone after the defaults. */
static void
test_options(void)
{
	static const struct {
		const char	*opt;
		uint32_t	 bits;
	} t[] = {
		{ "LIST", PME_OPT_LIST }, { "NOLIST", 0 },
		{ "PRINT", PME_OPT_PRINT }, { "NOPRINT", 0 },
		{ "RELADDR", 0 }, { "ABSADDR", PME_OPT_ABSADDR },
		{ "CLEARCOUNTS", 0 }, { "ACCUMCOUNTS", PME_OPT_ACCUM },
		{ "LINES", PME_OPT_LINES }, { "SOMELINES", 0 },
		{ "NOLINES", PME_OPT_NOLINES },
	};
	FILE *null = sink();
	char line[64];
	struct pmd p;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		pmd_init(&p, null, null, "t");
		p.file = "options";
		snprintf(line, sizeof(line), "DEFINE OPTIONS: %s\n", t[i].opt);
		CHECK(feed(&p, line) == 0);
		if (p.options != t[i].bits)
			fail("option %s: bits %#x, not %#x", t[i].opt,
			    p.options, t[i].bits);
		pmd_free(&p);
	}
	/* Later options undo earlier ones; LINES and NOLINES exclude. */
	pmd_init(&p, null, null, "t");
	p.file = "options";
	CHECK(feed(&p, "DEFINE OPTIONS: LIST PRINT ABSADDR ACCUMCOUNTS "
	    "LINES\nDEFINE OPTIONS NOLINES, NOLIST\n") == 0);
	CHECK(p.options == (PME_OPT_PRINT | PME_OPT_ABSADDR | PME_OPT_ACCUM |
	    PME_OPT_NOLINES));
	CHECK(feed(&p, "DEFINE OPTIONS: SOMELINES RELADDR CLEARCOUNTS "
	    "NOPRINT\n") == 0);
	CHECK(p.options == 0);
	pmd_free(&p);
	fclose(null);
}

/* The fuzz target's entry parses as pmebuild does, reads no file, and
 * says how many statements failed and how many buckets were made. */
static void
test_fuzz_entry(void)
{
	static const char good[] = "DEFINE UNITS: A\nA X, 10-1F, 8\n"
	    "DEFINE SAMPLING\nA X\nEND\n";
	static const char exe[] = "DEFINE UNITS: A\nA X, 1-2\n"
	    "DEFINE ADDRESSES: EXE \"/etc/passwd\"\nDEFINE SAMPLING\nA X\n";
	static const char bad[] = "DEFINE UNITS: A\nB Y\nA X, 1-2\n"
	    "DEFINE SAMPLING\nA Z\nA X\n";
	size_t n;

	CHECK(pmd_fuzz_one((const unsigned char *)good, sizeof(good) - 1,
	    &n) == 0 && n == 2);
	/* EXE is refused: no file is read, the rest is parsed. */
	CHECK(pmd_fuzz_one((const unsigned char *)exe, sizeof(exe) - 1,
	    &n) == 1 && n == 1);
	/* an unknown kind and an undeclared unit */
	CHECK(pmd_fuzz_one((const unsigned char *)bad, sizeof(bad) - 1,
	    &n) == 2 && n == 1);
}

int
main(int argc, char *argv[])
{
	if (argc == 3 && strcmp(argv[1], "dump") == 0)
		return dump(argv[2]);
	if (argc == 3 && strcmp(argv[1], "layout") == 0)
		return layout(argv[2]);
	if (argc != 1) {
		fprintf(stderr, "usage: t_pmebuild [dump|layout file.pme]\n");
		return 2;
	}
	test_tree();
	test_errors_and_clear();
	test_window();
	test_write();
	test_write_shared();
	test_options();
	test_fuzz_entry();
	return failures ? 1 : 0;
}
