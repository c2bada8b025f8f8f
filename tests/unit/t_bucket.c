/*
 * t_bucket.c - bucket files: build, write, read back field by field,
 * deterministic bytes, every byte flipped and every cut, forged tables
 * with good crcs, lookup, accumulate, clear.
 *
 * "t_bucket bench [units]" times writing and reading a big file instead.
 */
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "pme.h"

#define TEST_NAME "t_bucket"
#include "check.h"

/* ------------------------------------------------------------ a file */

static const uint8_t id_main[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5,
    6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const uint8_t id_lib[8] = { 0, 0xff, 0, 0xff, 0x80, 0x7f, 1, 0 };

#define BIG	((1ULL << 40) + 3)

static uint32_t
unit(struct pme_bucketfile *bf, const char *name, uint32_t kind,
    uint32_t parent, uint32_t module, uint32_t flags, uint64_t step,
    uint32_t line, const char *file, const struct pme_range *r, uint32_t n)
{
	struct pme_error err;
	struct pme_unit u;
	uint32_t i;

	memset(&u, 0, sizeof(u));
	u.name = name;
	u.kind = kind;
	u.parent = parent;
	u.module = module;
	u.flags = flags;
	u.step = step;
	u.line = line;
	u.file = file;
	u.range = 999;		/* ignored */
	u.nranges = 999;	/* ignored */
	if ((i = pme_bucketfile_add_unit(bf, &u, r, n, &err)) == PME_NONE)
		die_pme(name, &err);
	return i;
}

static void
bucket(struct pme_bucketfile *bf, uint32_t u, const struct pme_range *r,
    uint32_t n, uint64_t count)
{
	struct pme_bucket *b;
	struct pme_error err;
	uint64_t total;
	uint32_t i;

	if ((i = pme_bucketfile_add_bucket(bf, u, r, n, &err)) == PME_NONE)
		die_pme("bucket", &err);
	pme_bucketfile_buckets(bf, &b);
	b[i].count = count;
	/* The total holds every count (the reader checks it), saturated. */
	total = pme_bucketfile_info(bf)->total;
	pme_bucketfile_info(bf)->total = count > UINT64_MAX - total ?
	    UINT64_MAX : total + count;
}

static void
group(struct pme_bucketfile *bf, const char *stmt, uint32_t u, uint32_t by)
{
	struct pme_error err;

	if (pme_bucketfile_add_group(bf, stmt, u, by, &err) == PME_NONE)
		die_pme("group", &err);
}

static const struct pme_range r_main[] = { { 0x1000, 0x1400 },
    { 0x2000, 0x2010 } };
static const struct pme_range r_f[] = { { 0x1000, 0x1100 },
    { 0x2000, 0x2010 } };			/* f and f.cold */
static const struct pme_range r_g[] = { { 0x1100, 0x1400 } };
static const struct pme_range r_l1[] = { { 0x1000, 0x1010 },
    { 0x1040, 0x1050 }, { 0x2000, 0x2008 } };
static const struct pme_range r_l2[] = { { 0x1010, 0x1040 } };
static const struct pme_range r_lib[] = { { 0x90000, 0x90100 } };
static const struct pme_range r_abs[] = { { 0xffffffffff600000ULL,
    0xffffffffff601000ULL } };

/*
 * A program of two modules: main.c (f with a cold part, g, and two line
 * units of f) in the executable, and one routine of a library; a unit of
 * absolute addresses; three groups.
 */
static struct pme_bucketfile *
build(void)
{
	struct pme_bucketfile *bf;
	struct pme_error err;
	struct pme_info *info;
	struct pme_range half[2] = { { 0x1100, 0x1280 }, { 0x1280, 0x1400 } };
	uint32_t P, M, R, L, prog, mainc, f, g, lib, l1, l2, v;

	if ((bf = pme_bucketfile_new(&err)) == NULL)
		die_pme("new", &err);
	info = pme_bucketfile_info(bf);
	info->options = PME_OPT_ABSADDR | PME_OPT_LIST | PME_OPT_LINES;
	info->measure = PME_MEASURE_CLOCK;
	info->period = 10000000;
	info->runs = 2;
	info->total = UINT64_MAX;	/* saturated, as bucket v's count */
	info->lost = 7;
	info->unmapped = 11;
	P = pme_bucketfile_add_kind(bf, "PROGRAM", &err);
	M = pme_bucketfile_add_kind(bf, "MODULE", &err);
	R = pme_bucketfile_add_kind(bf, "ROUTINE", &err);
	L = pme_bucketfile_add_kind(bf, "LINE", &err);
	CHECK(P == 0 && M == 1 && R == 2 && L == 3);
	CHECK(pme_bucketfile_add_module(bf, "/usr/bin/demo", id_main,
	    sizeof(id_main), PME_MODULE_MAIN, &err) == 0);
	CHECK(pme_bucketfile_add_module(bf, "/lib/libm.so.6", id_lib,
	    sizeof(id_lib), 0, &err) == 1);
	CHECK(pme_bucketfile_add_module(bf, "", NULL, 0, 0, &err) == 2);
	*pme_bucketfile_outside(bf, 0) = 12345;
	*pme_bucketfile_outside(bf, 1) = BIG;
	prog = unit(bf, "demo", P, PME_NONE, PME_NONE, PME_UNIT_DERIVED, 0, 0,
	    NULL, NULL, 0);
	mainc = unit(bf, "main.c", M, prog, 0, PME_UNIT_LINES, 0x100, 0,
	    "main.c", r_main, 2);
	f = unit(bf, "f", R, mainc, 0, 0, 0, 10, "main.c", r_f, 2);
	g = unit(bf, "g", R, mainc, 0, PME_UNIT_EXPLICIT, 0, 40, "main.c",
	    r_g, 1);
	l1 = unit(bf, "11", L, f, 0, 0, 0, 11, "main.c", r_l1, 3);
	l2 = unit(bf, "12", L, f, 0, 0, 0, 12, "inc/util.h", r_l2, 1);
	lib = unit(bf, "sqrt", R, prog, 1, PME_UNIT_NOLINES, 0, 0, NULL,
	    r_lib, 1);
	v = unit(bf, "vsyscall", R, prog, PME_NONE, 0, 0, 0, NULL, r_abs, 1);
	group(bf, "PROGRAM demo BY ROUTINE", prog, R);
	bucket(bf, f, r_f, 2, BIG);
	bucket(bf, g, half, 1, 5);	/* g split by a step */
	bucket(bf, g, half + 1, 1, 0);
	bucket(bf, lib, r_lib, 1, 1);
	bucket(bf, v, r_abs, 1, UINT64_MAX);
	group(bf, "ROUTINE f BY LINE", f, L);
	bucket(bf, l1, r_l1, 3, 3);
	bucket(bf, l2, r_l2, 1, 4);
	group(bf, "MODULE main.c", mainc, PME_NONE);
	return bf;
}

/* ------------------------------------------------------------ compare */

static int
same_ranges(const struct pme_range *a, uint64_t ia,
    const struct pme_range *b, uint64_t ib, uint32_t n)
{
	return n == 0 || memcmp(a + ia, b + ib, n * sizeof(*a)) == 0;
}

static int
same_str(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

static void
compare_units(const struct pme_bucketfile *a, const struct pme_bucketfile *b)
{
	const struct pme_unit *x, *y;
	const struct pme_range *ra, *rb;
	size_t n, i;

	pme_bucketfile_ranges(a, &ra);
	pme_bucketfile_ranges(b, &rb);
	n = pme_bucketfile_units(a, &x);
	CHECK(pme_bucketfile_units(b, &y) == n);
	for (i = 0; i < n; i++) {
		CHECK(same_str(x[i].name, y[i].name));
		CHECK(same_str(x[i].file, y[i].file));
		CHECK(x[i].kind == y[i].kind && x[i].parent == y[i].parent);
		CHECK(x[i].module == y[i].module && x[i].flags == y[i].flags);
		CHECK(x[i].step == y[i].step && x[i].line == y[i].line);
		CHECK(x[i].range == y[i].range);
		CHECK(x[i].nranges == y[i].nranges);
		CHECK(same_ranges(ra, x[i].range, rb, y[i].range,
		    x[i].nranges));
	}
}

static void
compare(const struct pme_bucketfile *a, const struct pme_bucketfile *b)
{
	const char *const *ka, *const *kb;
	const struct pme_module *ma, *mb;
	const struct pme_group *ga, *gb;
	const struct pme_range *ra, *rb;
	struct pme_bucket *ba, *bb;
	struct pme_info ia, ib;
	size_t n, i;

	ia = *pme_bucketfile_info((struct pme_bucketfile *)a);
	ib = *pme_bucketfile_info((struct pme_bucketfile *)b);
	CHECK(memcmp(&ia, &ib, sizeof(ia)) == 0);
	n = pme_bucketfile_kinds(a, &ka);
	CHECK(pme_bucketfile_kinds(b, &kb) == n);
	for (i = 0; i < n; i++)
		CHECK(strcmp(ka[i], kb[i]) == 0);
	n = pme_bucketfile_modules(a, &ma);
	CHECK(pme_bucketfile_modules(b, &mb) == n);
	for (i = 0; i < n; i++) {
		CHECK(strcmp(ma[i].path, mb[i].path) == 0);
		CHECK(ma[i].buildid_len == mb[i].buildid_len);
		CHECK((ma[i].buildid == NULL) == (mb[i].buildid == NULL));
		CHECK(ma[i].buildid_len == 0 || memcmp(ma[i].buildid,
		    mb[i].buildid, ma[i].buildid_len) == 0);
		CHECK(ma[i].flags == mb[i].flags);
		CHECK(ma[i].outside == mb[i].outside);
	}
	n = pme_bucketfile_ranges(a, &ra);
	CHECK(pme_bucketfile_ranges(b, &rb) == n);
	CHECK(same_ranges(ra, 0, rb, 0, (uint32_t)n));
	compare_units(a, b);
	n = pme_bucketfile_groups(a, &ga);
	CHECK(pme_bucketfile_groups(b, &gb) == n);
	for (i = 0; i < n; i++) {
		CHECK(strcmp(ga[i].statement, gb[i].statement) == 0);
		CHECK(ga[i].unit == gb[i].unit);
		CHECK(ga[i].bykind == gb[i].bykind);
		CHECK(ga[i].first == gb[i].first);
		CHECK(ga[i].count == gb[i].count);
	}
	n = pme_bucketfile_buckets(a, &ba);
	CHECK(pme_bucketfile_buckets(b, &bb) == n);
	for (i = 0; i < n; i++) {
		CHECK(ba[i].unit == bb[i].unit && ba[i].group == bb[i].group);
		CHECK(ba[i].range == bb[i].range);
		CHECK(ba[i].nranges == bb[i].nranges);
		CHECK(ba[i].count == bb[i].count);
	}
}

/* What build() made, checked against literal values. */
static void
check_built(const struct pme_bucketfile *bf)
{
	const struct pme_module *m;
	const struct pme_unit *u;
	const struct pme_group *g;
	const struct pme_range *r;
	struct pme_bucket *b;

	CHECK(pme_bucketfile_modules(bf, &m) == 3);
	CHECK(m[0].buildid_len == 20 && memcmp(m[0].buildid, id_main, 20) ==
	    0 && m[0].flags == PME_MODULE_MAIN && m[0].outside == 12345);
	CHECK(m[1].outside == BIG && m[2].buildid == NULL &&
	    strcmp(m[2].path, "") == 0);
	CHECK(pme_bucketfile_units(bf, &u) == 8);
	CHECK(u[0].parent == PME_NONE && u[0].module == PME_NONE &&
	    u[0].nranges == 0 && u[0].file == NULL);
	CHECK(u[4].nranges == 3 && u[4].parent == 2 && u[4].line == 11 &&
	    strcmp(u[4].file, "main.c") == 0);
	CHECK(u[5].file != NULL && strcmp(u[5].file, "inc/util.h") == 0);
	CHECK(u[1].step == 0x100 && u[1].flags == PME_UNIT_LINES);
	pme_bucketfile_ranges(bf, &r);
	CHECK(r[u[7].range].start == 0xffffffffff600000ULL);
	CHECK(r[u[4].range + 2].start == 0x2000 &&
	    r[u[4].range + 2].end == 0x2008);
	CHECK(pme_bucketfile_groups(bf, &g) == 3);
	CHECK(g[0].first == 0 && g[0].count == 5 && g[0].bykind == 2);
	CHECK(g[1].first == 5 && g[1].count == 2);
	CHECK(g[2].first == 7 && g[2].count == 0 && g[2].bykind == PME_NONE);
	CHECK(pme_bucketfile_buckets(bf, &b) == 7);
	CHECK(b[0].count == BIG && b[4].count == UINT64_MAX);
	CHECK(b[1].group == 0 && b[5].group == 1 && b[6].group == 1);
	/* A bucket over its unit's ranges shares them. */
	CHECK(b[0].range == u[2].range && b[1].range != u[3].range);
	CHECK(r[b[2].range].start == 0x1280 && r[b[2].range].end == 0x1400);
}

/* ------------------------------------------------------------ tests */

static void
test_roundtrip(void)
{
	struct pme_bucketfile *a, *b, *c;
	struct pme_error err;
	const char *p1 = tmppath("one.pme"), *p2 = tmppath("two.pme");
	uint8_t *x, *y;
	size_t nx, ny;

	a = build();
	check_built(a);
	if (pme_bucketfile_write(a, p1, &err) == -1)
		die_pme(p1, &err);
	if ((b = pme_bucketfile_open(p1, &err)) == NULL)
		die_pme(p1, &err);
	check_built(b);
	compare(a, b);
	if (pme_bucketfile_write(b, p2, &err) == -1)
		die_pme(p2, &err);
	x = readfile(p1, &nx);
	y = readfile(p2, &ny);
	CHECK(nx == ny && memcmp(x, y, nx) == 0);
	if ((c = pme_bucketfile_mem(x, nx, "mem.pme", &err)) == NULL)
		die_pme("mem", &err);
	compare(a, c);
	/* Adding to a file read back extends its string table. */
	CHECK(pme_bucketfile_add_kind(c, "LINE", &err) == 4);
	CHECK(pme_bucketfile_add_kind(c, "PHASE", &err) == 5);
	CHECK(pme_bucketfile_write(c, p2, &err) == 0);
	pme_bucketfile_close(c);
	c = pme_bucketfile_open(p2, &err);
	CHECK(c != NULL);
	if (c != NULL) {
		const char *const *k;

		CHECK(pme_bucketfile_kinds(c, &k) == 6);
		CHECK(strcmp(k[4], "LINE") == 0 && k[4] == k[3]);
		CHECK(strcmp(k[5], "PHASE") == 0);
	}
	free(x);
	free(y);
	pme_bucketfile_close(a);
	pme_bucketfile_close(b);
	pme_bucketfile_close(c);
}

/* An empty bucket file is a valid one. */
static void
test_empty(void)
{
	struct pme_bucketfile *a, *b;
	struct pme_error err;
	const char *p = tmppath("empty.pme");

	a = pme_bucketfile_new(&err);
	CHECK(a != NULL && pme_bucketfile_write(a, p, &err) == 0);
	b = pme_bucketfile_open(p, &err);
	CHECK(b != NULL);
	if (b != NULL) {
		compare(a, b);
		CHECK(pme_bucketfile_lookup(b, 0, 0) == PME_NONE);
		CHECK(pme_bucketfile_outside(b, 0) == NULL);
	}
	pme_bucketfile_close(a);
	pme_bucketfile_close(b);
}

/* Every cut and every flip of a written file fails cleanly. */
static void
test_damage(void)
{
	struct pme_bucketfile *a, *b;
	struct pme_error err;
	const char *p = tmppath("damage.pme");
	uint8_t *x;
	size_t n, i;
	int m;
	static const uint8_t masks[] = { 0xff, 0x01 };

	a = build();
	CHECK(pme_bucketfile_write(a, p, &err) == 0);
	pme_bucketfile_close(a);
	x = readfile(p, &n);
	for (i = 0; i < n; i++) {
		memset(&err, 0, sizeof(err));
		b = pme_bucketfile_mem(x, i, "cut.pme", &err);
		if (b != NULL || strstr(err.msg, "'cut.pme': offset 0x") ==
		    NULL || (err.code != PME_ETRUNC && i >= 16))
			fail("cut at %zu: %s", i, b ? "read" : err.msg);
		pme_bucketfile_close(b);
	}
	for (m = 0; m < 2; m++)
		for (i = 0; i < n; i++) {
			x[i] ^= masks[m];
			memset(&err, 0, sizeof(err));
			b = pme_bucketfile_mem(x, n, "flip.pme", &err);
			x[i] ^= masks[m];
			if (b != NULL || strstr(err.msg,
			    "'flip.pme': offset 0x") == NULL)
				fail("flip 0x%02x at %zu: %s", masks[m], i,
				    b ? "read" : err.msg);
			pme_bucketfile_close(b);
		}
	free(x);
}

/* ------------------------------------------------------------ forging */

/*
 * Files made from payloads written here by hand after pme(5), with good
 * crcs: the tables themselves must be checked.
 */
struct pay {
	uint8_t	 b[4096];
	size_t	 n;
};

static void
uv(struct pay *p, uint64_t v)
{
	while (v >= 0x80) {
		p->b[p->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p->b[p->n++] = (uint8_t)v;
}

static void
sv(struct pay *p, int64_t v)
{
	uv(p, v < 0 ? ((uint64_t)~v << 1) | 1 : (uint64_t)v << 1);
}

static void
le32(uint8_t *p, uint32_t v)
{
	p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24;
}

static void
le64(uint8_t *p, uint64_t v)
{
	le32(p, (uint32_t)v);
	le32(p + 4, (uint32_t)(v >> 32));
}

/* Set: forged payloads are stored compressed, whatever their size, so
 * that the decoders read them through the reader's inflating stream. */
static int zip;

static size_t
chunk(uint8_t *p, const char *type, const struct pay *pay)
{
	uLongf stored = compressBound(sizeof(pay->b));
	uint32_t c;

	memcpy(p, type, 4);
	le32(p + 4, zip && pay->n > 0);
	le32(p + 12, (uint32_t)pay->n);
	if (zip && pay->n > 0) {
		if (compress(p + 20, &stored, pay->b, pay->n) != Z_OK)
			die_pme("compress", NULL);
	} else {
		memcpy(p + 20, pay->b, pay->n);
		stored = pay->n;
	}
	le32(p + 8, (uint32_t)stored);
	c = crc32(0, p, 16);
	c = crc32(c, p + 20, (uInt)stored);
	le32(p + 16, c);
	return 20 + stored;
}

enum { OPTS, STRS, KIND, MODS, RNGS, UNIT, GRPS, BCKT, NPAY };
static const char *const tags[NPAY] = { "OPTS", "STRS", "KIND", "MODS",
    "RNGS", "UNIT", "GRPS", "BCKT" };

/* The smallest file with one of everything: strings "a" and "f.c". */
static void
base(struct pay *p)
{
	memset(p, 0, NPAY * sizeof(*p));
	p[OPTS].n = 48;
	p[OPTS].b[4] = PME_MEASURE_INSTR;
	le64(p[OPTS].b + 24, (1ULL << 63) + 5);	/* total: the buckets' */
	uv(&p[STRS], 2);
	uv(&p[STRS], 1); p[STRS].b[p[STRS].n++] = 'a';
	uv(&p[STRS], 3); memcpy(p[STRS].b + p[STRS].n, "f.c", 3);
	p[STRS].n += 3;
	uv(&p[KIND], 1); uv(&p[KIND], 0);
	uv(&p[MODS], 1);
	uv(&p[MODS], 1); uv(&p[MODS], 0); uv(&p[MODS], 9); uv(&p[MODS], 2);
	p[MODS].b[p[MODS].n++] = 0xab; p[MODS].b[p[MODS].n++] = 0xcd;
	/* Tables column by column: RNGS lengths, then starts. */
	uv(&p[RNGS], 2);
	uv(&p[RNGS], 0x10); uv(&p[RNGS], 0x20);
	sv(&p[RNGS], 0x1000); sv(&p[RNGS], 0x10);
	/* UNIT: name kind parent module flags step nranges range line
	 * file, each for both units. */
	uv(&p[UNIT], 2);
	sv(&p[UNIT], 0); sv(&p[UNIT], 0);
	uv(&p[UNIT], 0); uv(&p[UNIT], 0);
	uv(&p[UNIT], 0); uv(&p[UNIT], 1);
	uv(&p[UNIT], 1); uv(&p[UNIT], 0);
	uv(&p[UNIT], 0); uv(&p[UNIT], 0);
	uv(&p[UNIT], 0); uv(&p[UNIT], 0);
	uv(&p[UNIT], 2); uv(&p[UNIT], 1);
	sv(&p[UNIT], 0); sv(&p[UNIT], -1);
	sv(&p[UNIT], 0); sv(&p[UNIT], 7);
	uv(&p[UNIT], 2); uv(&p[UNIT], 0);
	uv(&p[GRPS], 1);
	uv(&p[GRPS], 0); uv(&p[GRPS], 0); uv(&p[GRPS], 1); uv(&p[GRPS], 2);
	/* BCKT: unit nranges range count */
	uv(&p[BCKT], 2);
	sv(&p[BCKT], 0); sv(&p[BCKT], 0);
	uv(&p[BCKT], 1); uv(&p[BCKT], 1);
	sv(&p[BCKT], 0); sv(&p[BCKT], 0);
	uv(&p[BCKT], 5); uv(&p[BCKT], 1ULL << 63);
}

static size_t
assemble(uint8_t *buf, const struct pay *p, const char *order)
{
	size_t n = 0;
	int i;

	memcpy(buf, "\x7fPMEBUCK\1\0\0\0", 12);
	le32(buf + 12, crc32(0, buf, 12));
	n = 16;
	for (; *order != '\0'; order++) {
		if (*order == 'z') {
			struct pay z = { "future", 6 };

			n += chunk(buf + n, "ZZZZ", &z);
			continue;
		}
		i = *order - '0';
		n += chunk(buf + n, tags[i], &p[i]);
	}
	n += chunk(buf + n, "END ", &(struct pay){ "", 0 });
	return n;
}

static struct pme_bucketfile *
forged(const struct pay *p, const char *order, struct pme_error *err)
{
	static uint8_t buf[16384];
	size_t n = assemble(buf, p, order);

	memset(err, 0, sizeof(*err));
	return pme_bucketfile_mem(buf, n, "forged.pme", err);
}

static void
expect(const struct pay *p, const char *order, const char *what,
    const char *label)
{
	struct pme_bucketfile *bf;
	struct pme_error err;

	bf = forged(p, order, &err);
	if (bf != NULL || err.code != PME_EFORMAT ||
	    strstr(err.msg, "'forged.pme': offset 0x") == NULL ||
	    strstr(err.msg, what) == NULL)
		fail("forged %s: %s, want '%s'", label,
		    bf ? "read" : err.msg, what);
	pme_bucketfile_close(bf);
}

/* The forged file read, or NULL with the failure told. */
static struct pme_bucketfile *
readable(const struct pay *p, const char *order, const char *label)
{
	struct pme_bucketfile *bf;
	struct pme_error err;

	if ((bf = forged(p, order, &err)) == NULL)
		fail("forged %s: %s", label, err.msg);
	return bf;
}

static void
test_forged_ok(void)
{
	struct pme_bucketfile *bf;
	struct pme_error err;
	struct pay p[NPAY];
	const struct pme_unit *u;
	const struct pme_module *m;
	const struct pme_range *r;
	struct pme_bucket *b;

	base(p);
	bf = forged(p, "z01234z567z", &err);
	CHECK(bf != NULL);
	if (bf == NULL) {
		fail("%s", err.msg);
		return;
	}
	CHECK(pme_bucketfile_info(bf)->measure == PME_MEASURE_INSTR);
	CHECK(pme_bucketfile_modules(bf, &m) == 1 && m[0].outside == 9 &&
	    m[0].buildid_len == 2 && m[0].buildid[1] == 0xcd &&
	    strcmp(m[0].path, "f.c") == 0);
	CHECK(pme_bucketfile_ranges(bf, &r) == 2 && r[1].start == 0x1020 &&
	    r[1].end == 0x1040);
	CHECK(pme_bucketfile_units(bf, &u) == 2);
	CHECK(u[0].module == 0 && u[0].nranges == 2 && u[0].file != NULL &&
	    strcmp(u[0].file, "f.c") == 0 && strcmp(u[0].name, "a") == 0);
	CHECK(u[1].parent == 0 && u[1].range == 1 && u[1].line == 7 &&
	    u[1].module == PME_NONE && u[1].file == NULL);
	CHECK(pme_bucketfile_buckets(bf, &b) == 2);
	CHECK(b[0].unit == 0 && b[0].count == 5 && b[0].group == 0);
	CHECK(b[1].unit == 1 && b[1].range == 1 && b[1].count == 1ULL << 63);
	pme_bucketfile_close(bf);
}

/* Replaces field k (0-based varint after the count) of record rec. */
static void
patch(struct pay *p, int table, const uint64_t *fields, size_t nf,
    int signedmask)
{
	size_t i;

	p[table].n = 0;
	for (i = 0; i < nf; i++) {
		if (signedmask & 1 << i)
			sv(&p[table], (int64_t)fields[i]);
		else
			uv(&p[table], fields[i]);
	}
}

static void
test_forged_bad(void)
{
	struct pme_bucketfile *bf;
	struct pay p[NPAY];
	/* UNIT: count, then one unit: name(signed) kind parent module flags
	 * step nranges range(signed) line(signed) file. */
#define UNIT1(name, kind, parent, module, range, nranges, file) \
	{ 1, name, kind, parent, module, 0, 0, nranges, range, 0, file }
	static const struct {
		uint64_t f[11];
		const char *what;
	} units[] = {
		{ UNIT1(2, 0, 0, 0, 0, 0, 0), "no string 2" },
		{ UNIT1(0, 1, 0, 0, 0, 0, 0), "no kind 1" },
		{ UNIT1(0, 0, 1, 0, 0, 0, 0), "parent does not come first" },
		{ UNIT1(0, 0, 0, 2, 0, 0, 0), "no module 1" },
		{ UNIT1(0, 0, 0, 0, 0, 3, 0), "ranges outside the pool" },
		{ UNIT1(0, 0, 0, 0, 2, 1, 0), "ranges outside the pool" },
		{ UNIT1(0, 0, 0, 0, (uint64_t)-1, 1, 0),
		    "ranges outside the pool" },
		{ UNIT1(0, 0, 0, 0, 1, UINT32_MAX, 0),
		    "ranges outside the pool" },
		{ UNIT1(0, 0, 0, 0, 0, 0, 3), "no string 2" },
		{ UNIT1(-1, 0, 0, 0, 0, 0, 0), "no string 1844" },
		{ { 1, 0, 0, 0, 0, 0, 0, 0, 0, 1ULL << 32, 0 }, "ends early" },
		{ { 1, 0, 0, 0, 0, 0, 0, 1ULL << 32, 0, 0, 0 }, "ends early" },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		base(p);
		patch(p, UNIT, units[i].f, 11, 1 << 1 | 1 << 8 | 1 << 9);
		p[BCKT].n = 0;
		uv(&p[BCKT], 0);
		p[GRPS].n = 0;
		uv(&p[GRPS], 0);
		expect(p, "01234567", units[i].what, "unit");
	}

	base(p);
	p[UNIT].b[0] = 100;	/* 100 units in a few bytes */
	expect(p, "01234567", "count 100 does not fit", "unit count");
	base(p);
	p[STRS].n = 0;
	uv(&p[STRS], 1ULL << 40);
	expect(p, "01234567", "does not fit", "huge string count");
	base(p);
	p[RNGS].b[0] = 0xff;	/* a varint running off the end */
	expect(p, "01234567", "does not fit", "range count");
	base(p);
	p[STRS].b[p[STRS].n - 2] = '\0';
	expect(p, "01234567", "NUL byte", "nul");
	base(p);
	p[STRS].b[1] = 0x7f;	/* string longer than the payload */
	expect(p, "01234567", "ends early", "long string");
	base(p);
	p[KIND].b[1] = 2;
	expect(p, "01234567", "kind 0: no string 2", "kind name");
	base(p);
	p[MODS].b[4] = 3;	/* build-id longer than the payload */
	expect(p, "01234567", "ends early", "build-id");
	base(p);
	p[RNGS].b[2] = 0;	/* empty range */
	expect(p, "01234567", "range 1: bad length", "empty range");
	base(p);
	p[RNGS].n = 0;
	uv(&p[RNGS], 1);
	uv(&p[RNGS], 17);
	sv(&p[RNGS], -16);	/* end past 2^64 */
	expect(p, "01234567", "range 0: bad length", "range overflow");
	base(p);
	p[GRPS].b[2] = 2;	/* unit 2 of 2 */
	expect(p, "01234567", "group 0: no unit 2", "group unit");
	base(p);
	p[GRPS].b[3] = 2;	/* kind 1 of 1 */
	expect(p, "01234567", "group 0: no kind 1", "group kind");
	base(p);
	p[GRPS].b[4] = 3;
	expect(p, "01234567", "2 buckets, the groups hold 3", "group count");
	base(p);
	p[BCKT].b[1] = 4;	/* expected 0, delta +2 */
	expect(p, "01234567", "bucket 0: no unit 2", "bucket unit");
	base(p);
	p[BCKT].b[5] = 4;	/* range 0 + 2 */
	expect(p, "01234567", "bucket 0: ranges outside", "bucket range");
	base(p);
	p[BCKT].b[3] = 3;
	expect(p, "01234567", "bucket 0: ranges outside", "bucket nranges");
	base(p);
	p[BCKT].n--;		/* last count cut */
	expect(p, "01234567", "ends early", "bucket count");
	base(p);
	p[KIND].b[p[KIND].n++] = 0;
	expect(p, "01234567", "1 bytes after the table", "trailing");
	base(p);
	p[OPTS].n = 40;
	expect(p, "01234567", "not 48", "opts");
	/*
	 * 517 buckets over the pool of 2: 1 + 516 * 2 = 1033 references,
	 * one more than the index may hold (4 * 2 + 1024).
	 */
	base(p);
	p[GRPS].n = 0;
	uv(&p[GRPS], 1);
	uv(&p[GRPS], 0); uv(&p[GRPS], 0); uv(&p[GRPS], 0); uv(&p[GRPS], 517);
	p[BCKT].n = 0;
	uv(&p[BCKT], 517);
	for (i = 0; i < 517; i++)
		sv(&p[BCKT], i == 0 ? 0 : -1);
	for (i = 0; i < 517; i++)
		uv(&p[BCKT], i == 0 ? 1 : 2);
	for (i = 0; i < 2 * 517; i++)
		uv(&p[BCKT], 0);
	expect(p, "01234567", "buckets refer to 1033 ranges of a pool of 2",
	    "index");
	p[BCKT].b[2 + 517] = 0;	/* 1032: fits */
	if ((bf = readable(p, "01234567", "1032 ranges")) != NULL)
		CHECK(pme_bucketfile_lookup(bf, 0, 0x1000) == 1);
	pme_bucketfile_close(bf);

	/* Counts against the total (in OPTS before or after BCKT), the
	 * runs against what a file can hold. */
	base(p);
	le64(p[OPTS].b + 24, 4);
	expect(p, "01234567", "'BCKT' chunk: bucket 0 counts 5, more than "
	    "the file's total of 4", "count above the total");
	expect(p, "12345670", "'OPTS' chunk: bucket 0 counts 5, more than "
	    "the file's total of 4", "count above the total, OPTS last");
	le64(p[OPTS].b + 24, (1ULL << 63) + 4);
	expect(p, "01234567", "'BCKT' chunk: the buckets count "
	    "9223372036854775813 in all, more than the file's total of "
	    "9223372036854775812", "counts above the total");
	base(p);
	le64(p[OPTS].b + 16, (1ULL << 53) + 1);
	expect(p, "01234567", "'OPTS' chunk: 9007199254740993 runs, more "
	    "than a file can hold (2^53)", "runs");
	le64(p[OPTS].b + 16, UINT64_MAX);
	expect(p, "01234567", "18446744073709551615 runs", "runs 2^64-1");
	le64(p[OPTS].b + 16, 1ULL << 53);
	if ((bf = readable(p, "12345670", "2^53 runs")) != NULL)
		CHECK(pme_bucketfile_info(bf)->runs == 1ULL << 53);
	pme_bucketfile_close(bf);

	base(p);
	expect(p, "0123456", "no 'BCKT' chunk", "no BCKT");
	expect(p, "1234567", "no 'OPTS' chunk", "no OPTS");
	expect(p, "0123457", "'BCKT' chunk before 'GRPS'", "no GRPS");
	expect(p, "0213457", "'KIND' chunk before 'STRS'", "order");
	expect(p, "012345667", "second 'GRPS' chunk", "twice");
	expect(p, "", "no 'OPTS' chunk", "nothing");
}

/* Every index of a bucket file that was accepted is in bounds. */
static int
valid(const struct pme_bucketfile *bf)
{
	const char *const *k;
	const struct pme_module *m;
	const struct pme_unit *u;
	const struct pme_group *g;
	const struct pme_range *r;
	struct pme_bucket *b;
	size_t nk, nm, nu, ng, nb, nr, i, next = 0;

	nk = pme_bucketfile_kinds(bf, &k);
	nm = pme_bucketfile_modules(bf, &m);
	nu = pme_bucketfile_units(bf, &u);
	ng = pme_bucketfile_groups(bf, &g);
	nb = pme_bucketfile_buckets(bf, &b);
	nr = pme_bucketfile_ranges(bf, &r);
	for (i = 0; i < nr; i++)
		if (r[i].start >= r[i].end)
			return 0;
	for (i = 0; i < nu; i++)
		if (u[i].kind >= nk || (u[i].parent != PME_NONE &&
		    u[i].parent >= i) || (u[i].module != PME_NONE &&
		    u[i].module >= nm) || u[i].range > nr ||
		    u[i].nranges > nr - u[i].range || u[i].name == NULL)
			return 0;
	for (i = 0; i < ng; i++) {
		if (g[i].unit >= nu || (g[i].bykind != PME_NONE &&
		    g[i].bykind >= nk) || g[i].first != next)
			return 0;
		next += g[i].count;
	}
	if (next != nb)
		return 0;
	for (i = 0; i < nb; i++)
		if (b[i].unit >= nu || b[i].group >= ng ||
		    i < g[b[i].group].first ||
		    i >= (size_t)g[b[i].group].first + g[b[i].group].count ||
		    b[i].range > nr || b[i].nranges > nr - b[i].range)
			return 0;
	return 1;
}

/*
 * Chunks refused before they are inflated: a repeated one, and one that
 * is not a zlib stream, of a type not known here, is passed over.  A
 * table with more bytes than its count of records can fill is refused
 * having read the count.
 */
static void
test_unread(void)
{
	struct pme_bucketfile *bf;
	struct pme_error err;
	struct pay p[NPAY];
	uint8_t buf[16384], *q;
	size_t n, k;
	uint32_t c;
	int i;

	/* base's file, then a GRPS or a ZZZZ chunk of raw 1000 bytes whose
	 * stored bytes are no zlib stream, with a good crc */
	for (i = 0; i < 2; i++) {
		base(p);
		n = assemble(buf, p, "01234567");
		n -= 20;		/* END */
		q = buf + n;
		memcpy(q, i == 0 ? "GRPS" : "ZZZZ", 4);
		memcpy(q + 4, "\x01\0\0\0\x05\0\0\0\xe8\x03\0\0", 12);
		memcpy(q + 20, "junk!", 5);
		c = crc32(crc32(0, q, 16), q + 20, 5);
		le32(q + 16, c);
		n += 25;
		n += chunk(buf + n, "END ", &(struct pay){ "", 0 });
		memset(&err, 0, sizeof(err));
		bf = pme_bucketfile_mem(buf, n, "forged.pme", &err);
		if (i == 0)
			CHECK(bf == NULL && strstr(err.msg, "'forged.pme': "
			    "offset 0x") != NULL && strstr(err.msg,
			    ": second 'GRPS' chunk") != NULL);
		else
			CHECK(bf != NULL);
		pme_bucketfile_close(bf);
	}
	/* A RNGS of 2 ranges holds 40 bytes at most after its count. */
	for (k = 0; k < 2; k++) {
		base(p);
		while (p[RNGS].n < 42 - k)	/* the count, then 41 or 40 */
			p[RNGS].b[p[RNGS].n++] = 0;
		expect(p, "01234567", k == 0 ? "'RNGS' chunk: 41 bytes for 2 "
		    "records of at most 20" : "'RNGS' chunk: 35 bytes after "
		    "the table", "rngs bound");
	}
	base(p);
	p[KIND].b[0] = 0;	/* a count of 0 with a byte after it */
	expect(p, "01234567", "'KIND' chunk: 1 bytes for 0 records of at "
	    "most 10", "kind bound");
}

/*
 * A file bigger than the reader's window, with strings longer than it:
 * read back whole, stored compressed and not, it writes the same bytes.
 */
/* A bucket file of kind LINE, module /usr/bin/NAME and its unit NAME,
 * the group of statement stmt. */
static struct pme_bucketfile *
line_file(const char *name, const char *stmt)
{
	struct pme_bucketfile *bf;
	struct pme_error err;
	char path[64];

	if ((bf = pme_bucketfile_new(&err)) == NULL)
		die_pme("pme_bucketfile_new", &err);
	snprintf(path, sizeof(path), "/usr/bin/%s", name);
	pme_bucketfile_add_kind(bf, "LINE", &err);
	pme_bucketfile_add_module(bf, path, id_main, 20, PME_MODULE_MAIN,
	    &err);
	group(bf, stmt, unit(bf, name, 0, PME_NONE, 0, 0, 0, 0, NULL, NULL,
	    0), 0);
	return bf;
}

/* PME_CHUNK_ZLIB when path's RNGS chunk is compressed (and its STRS,
 * UNIT and BCKT are), 0 when it is stored plain; else 2. */
static uint32_t
rngs_zlib(const char *path)
{
	struct pme_reader *rd;
	struct pme_chunk c;
	struct pme_error err;
	uint32_t z = 2;
	int n = 0;

	if ((rd = pme_reader_open(path, PME_KIND_BUCKET, &err)) == NULL)
		die_pme("pme_reader_open", &err);
	while (pme_reader_next(rd, &c, &err) == 1)
		if (c.type == PME_FOURCC('R', 'N', 'G', 'S'))
			z = c.flags & PME_CHUNK_ZLIB;
		else if (c.type == PME_FOURCC('S', 'T', 'R', 'S') ||
		    c.type == PME_FOURCC('U', 'N', 'I', 'T') ||
		    c.type == PME_FOURCC('B', 'C', 'K', 'T'))
			n += (c.flags & PME_CHUNK_ZLIB) != 0;
	pme_reader_close(rd);
	return n == 3 ? z : 2;
}

/* Ranges at random addresses of random lengths: RNGS, which zlib would
 * hardly shrink, is stored plain; the rest compressed. */
static void
test_random_ranges(void)
{
	struct pme_bucketfile *a, *b;
	struct pme_error err;
	struct pme_range r;
	const char *p = tmppath("rand.pme");
	uint64_t x = 88172645463325252ull, addr = 0x400000;
	char name[32];
	uint32_t u, i;

	a = line_file("rand", "LINE IN rand");
	for (i = 0; i < 60000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		r.start = addr += 1 + (x & 0xfffff);
		r.end = addr += 1 + (x >> 20 & 0xfffff);
		snprintf(name, sizeof(name), "r.c:%u", i + 1);
		u = unit(a, name, 0, 0, 0, 0, 0, i + 1, "r.c", &r, 1);
		bucket(a, u, &r, 1, i);
	}
	CHECK(pme_bucketfile_write(a, p, &err) == 0);
	CHECK(rngs_zlib(p) == 0);
	b = pme_bucketfile_open(p, &err);
	CHECK(b != NULL);
	if (b != NULL)
		compare(a, b);
	pme_bucketfile_close(a);
	pme_bucketfile_close(b);
}

static void
test_big(void)
{
	struct pme_bucketfile *a, *b;
	struct pme_error err;
	struct pme_range r[2];
	const char *p1 = tmppath("big1.pme"), *p2 = tmppath("big2.pme");
	char name[32], *longname;
	uint8_t *x, *y;
	size_t nx, ny, i;
	uint64_t addr = 0x401000;
	uint32_t u;

	if ((longname = malloc(300001)) == NULL)
		die_pme("malloc", NULL);
	for (i = 0; i < 300000; i++)
		longname[i] = (char)('a' + (i * 7 + i / 26) % 26);
	longname[300000] = '\0';
	a = pme_bucketfile_new(&err);
	pme_bucketfile_add_kind(a, "LINE", &err);
	pme_bucketfile_add_module(a, "/usr/bin/big", id_main, 20,
	    PME_MODULE_MAIN, &err);
	u = unit(a, longname, 0, PME_NONE, 0, 0, 0, 0, NULL, NULL, 0);
	group(a, longname + 1000, u, 0);
	for (i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "%zu", i % 7000 + 1);
		r[0].start = addr;
		r[0].end = addr += 4 + i % 13;
		r[1].start = addr + 0x100000;
		r[1].end = addr + 0x100000 + 8;
		u = unit(a, i % 50000 == 7 ? longname + i / 1000 : name, 0, 0,
		    0, 0, 0, (uint32_t)(i % 10000 + 1), name, r,
		    1 + (i % 3 == 0));
		bucket(a, u, r, 1 + (i % 3 == 0), i * 0x123456789ull);
	}
	CHECK(pme_bucketfile_write(a, p1, &err) == 0);
	b = pme_bucketfile_open(p1, &err);
	CHECK(b != NULL);
	if (b != NULL) {
		compare(a, b);
		CHECK(pme_bucketfile_write(b, p2, &err) == 0);
		x = readfile(p1, &nx);
		y = readfile(p2, &ny);
		CHECK(nx > 400000 && nx == ny && memcmp(x, y, nx) == 0);
		free(x);
		free(y);
	}
	/* Regular ranges: RNGS is compressed, like the strings, units and
	 * buckets. */
	CHECK(rngs_zlib(p1) == PME_CHUNK_ZLIB);
	pme_bucketfile_close(a);
	pme_bucketfile_close(b);
	free(longname);
}

/*
 * Random changes to the decompressed payloads of a good file, stored
 * again with good crcs: the decoders alone stand between these bytes and
 * the caller.  Each is refused as corrupt or gives a valid bucket file.
 */
static void
test_mutate(void)
{
	static uint8_t pay[NPAY][4096], file[16384];
	struct pme_bucketfile *bf;
	struct pme_reader *r;
	struct pme_chunk c;
	struct pme_error err;
	struct pay one;
	const char *p = tmppath("mutate.pme");
	size_t len[NPAY], n, k, j;
	uint32_t x = 2463534242u;
	uint8_t *orig;
	int i, t, ok = 0;

	bf = build();
	CHECK(pme_bucketfile_write(bf, p, &err) == 0);
	pme_bucketfile_close(bf);
	r = pme_reader_open(p, PME_KIND_BUCKET, &err);
	for (i = 0; r != NULL && pme_reader_next(r, &c, &err) == 1; i++) {
		if (pme_reader_payload(r, &c, sizeof(((struct pay *)0)->b),
		    &err) != 1) {
			fail("mutate: %s", pme_strerror(&err));
			return;
		}
		memcpy(pay[i], c.data, c.len);
		len[i] = c.len;
	}
	pme_reader_close(r);
	CHECK(i == NPAY);
	for (t = 0; t < 30000; t++) {
		n = 16;
		memcpy(file, "\x7fPMEBUCK\1\0\0\0", 12);
		le32(file + 12, crc32(0, file, 12));
		k = 1 + (size_t)(t % (NPAY - 1));	/* OPTS is fixed */
		for (i = 0; i < NPAY; i++) {
			orig = pay[i];
			one.n = len[i];
			memcpy(one.b, orig, len[i]);
			if ((size_t)i == k && one.n > 0) {
				/* One to three bytes changed, or the
				 * payload cut. */
				for (j = 0; j < 1 + (size_t)(t % 3) &&
				    one.n > 0; j++) {
					x ^= x << 13;
					x ^= x >> 17;
					x ^= x << 5;
					if (t % 7 == 6)
						one.n = x % one.n;
					else
						one.b[x % one.n] = (uint8_t)
						    (x >> 8 & (t % 2 ? 0xff :
						    0x83));
				}
			}
			n += chunk(file + n, tags[i], &one);
		}
		n += chunk(file + n, "END ", &(struct pay){ "", 0 });
		bf = pme_bucketfile_mem(file, n, "mutant.pme", &err);
		if (bf == NULL && (err.code != PME_EFORMAT ||
		    strstr(err.msg, "'mutant.pme': offset 0x") == NULL))
			fail("mutant %d: %s", t, err.msg);
		if (bf != NULL) {
			ok++;
			if (!valid(bf))
				fail("mutant %d: accepted but invalid", t);
			pme_bucketfile_lookup(bf, 0, 0x1000);
		}
		pme_bucketfile_close(bf);
	}
	if (ok == 0 || ok == 30000)
		fail("mutants: %d of 30000 accepted", ok);
}

static void
test_kind(void)
{
	struct pme_error err;
	uint8_t buf[64];

	memcpy(buf, "\x7fPMESAMP\1\0\0\0", 12);
	le32(buf + 12, crc32(0, buf, 12));
	CHECK(pme_bucketfile_mem(buf, 16, "s.pms", &err) == NULL &&
	    err.code == PME_EKIND);
	CHECK(pme_bucketfile_open(tmppath("absent.pme"), &err) == NULL &&
	    err.code == PME_EIO && strstr(err.msg, "absent.pme") != NULL);
}

/* ------------------------------------------------------------ lookup */

static void
test_lookup(void)
{
	struct pme_bucketfile *bf = build();
	struct pme_range late = { 0x5000, 0x5010 };
	struct pme_error err;
	uint32_t u;

	/* f: [0x1000,0x1100) and [0x2000,0x2010) is bucket 0. */
	CHECK(pme_bucketfile_lookup(bf, 0, 0x1000) == 0);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x10ff) == 0);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x2000) == 0);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x200f) == 0);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x2010) == PME_NONE);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x1100) == 1);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x127f) == 1);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x1280) == 2);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x13ff) == 2);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x1400) == PME_NONE);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x1fff) == PME_NONE);
	CHECK(pme_bucketfile_lookup(bf, 0, 0xfff) == PME_NONE);
	CHECK(pme_bucketfile_lookup(bf, 0, 0) == PME_NONE);
	CHECK(pme_bucketfile_lookup(bf, 0, UINT64_MAX) == PME_NONE);
	/* The library's routine, and not in the other modules. */
	CHECK(pme_bucketfile_lookup(bf, 1, 0x90000) == 3);
	CHECK(pme_bucketfile_lookup(bf, 1, 0x900ff) == 3);
	CHECK(pme_bucketfile_lookup(bf, 1, 0x90100) == PME_NONE);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x90000) == PME_NONE);
	CHECK(pme_bucketfile_lookup(bf, 1, 0x1000) == PME_NONE);
	CHECK(pme_bucketfile_lookup(bf, 2, 0x1000) == PME_NONE);
	CHECK(pme_bucketfile_lookup(bf, 7, 0x1000) == PME_NONE);
	/* Absolute addresses: module PME_NONE. */
	CHECK(pme_bucketfile_lookup(bf, PME_NONE, 0xffffffffff600000ULL) == 4);
	CHECK(pme_bucketfile_lookup(bf, PME_NONE, 0xffffffffff600fffULL) == 4);
	CHECK(pme_bucketfile_lookup(bf, PME_NONE, 0xffffffffff601000ULL) ==
	    PME_NONE);
	CHECK(pme_bucketfile_lookup(bf, PME_NONE, 0x1000) == PME_NONE);
	CHECK(pme_bucketfile_lookup(bf, 0, 0xffffffffff600000ULL) == PME_NONE);
	/* The line buckets overlap f's: f starts first and keeps them. */
	CHECK(pme_bucketfile_lookup(bf, 0, 0x1010) == 0);
	/* Adding a bucket rebuilds the index. */
	CHECK(pme_bucketfile_lookup(bf, 0, 0x5000) == PME_NONE);
	u = unit(bf, "late", 2, 0, 0, 0, 0, 0, NULL, &late, 1);
	CHECK(pme_bucketfile_add_bucket(bf, u, &late, 1, &err) == 7);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x5000) == 7);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x500f) == 7);
	pme_bucketfile_close(bf);
}

#define NB	300

/*
 * Buckets of two modules and absolute ones, with ranges that overlap
 * (the earlier start keeps the addresses, on a tie the lower index).
 */
static struct pme_bucketfile *
random_buckets(unsigned seed, struct pme_range *rr, uint32_t *mod)
{
	struct pme_bucketfile *bf;
	struct pme_error err;
	struct pme_unit u;
	uint32_t k = 0, i, um[3];

	srand(seed);
	if ((bf = pme_bucketfile_new(&err)) == NULL ||
	    (k = pme_bucketfile_add_kind(bf, "ROUTINE", &err)) == PME_NONE ||
	    pme_bucketfile_add_module(bf, "/a", NULL, 0, 0, &err) != 0 ||
	    pme_bucketfile_add_module(bf, "/b", NULL, 0, 0, &err) != 1)
		die_pme("new", &err);
	memset(&u, 0, sizeof(u));
	u.kind = k;
	u.parent = PME_NONE;
	for (i = 0; i < 3; i++) {
		u.name = i == 0 ? "a" : i == 1 ? "b" : "abs";
		u.module = i < 2 ? i : PME_NONE;
		if ((um[i] = pme_bucketfile_add_unit(bf, &u, NULL, 0, &err)) ==
		    PME_NONE)
			die_pme("unit", &err);
	}
	if (pme_bucketfile_add_group(bf, "g", um[0], PME_NONE, &err) ==
	    PME_NONE)
		die_pme("group", &err);
	for (i = 0; i < NB; i++) {
		mod[i] = (uint32_t)rand() % 3;
		rr[i].start = (uint64_t)(rand() % 20000) +
		    (mod[i] == 2 ? UINT64_C(0xffffffffff000000) : 0);
		rr[i].end = rr[i].start + 1 + (uint64_t)(rand() %
		    (i % 7 == 0 ? 600 : 40));
		if (pme_bucketfile_add_bucket(bf, um[mod[i]], &rr[i], 1,
		    &err) != i)
			die_pme("bucket", &err);
	}
	return bf;
}

/* The bucket a plain search gives: the earliest start, then index. */
static uint32_t
plain(const struct pme_range *rr, const uint32_t *mod, uint32_t m,
    uint64_t a)
{
	uint32_t i, best = PME_NONE;

	for (i = 0; i < NB; i++)
		if (mod[i] == m && a >= rr[i].start && a < rr[i].end &&
		    (best == PME_NONE || rr[i].start < rr[best].start))
			best = i;
	return best;
}

/*
 * The index against a plain search, every address of 4 x 300 random
 * buckets that overlap, in two modules and absolute: the bucket, and the
 * range find() returns holds the address and gives the same bucket at
 * both its ends (after a test by arch-fill, a helper's branch).
 */
static void
test_find_random(void)
{
	struct pme_range rr[NB], in;
	uint32_t mod[NB], m, want, got, bad = 0;
	struct pme_bucketfile *bf;
	struct pme_error err;
	uint64_t a, base;
	unsigned seed;

	for (seed = 1; seed <= 4; seed++) {
		bf = random_buckets(seed, rr, mod);
		if (pme_bucketfile_index(bf, &err) == -1)
			die_pme("index", &err);
		for (m = 0; m < 3; m++) {
			base = m == 2 ? UINT64_C(0xffffffffff000000) : 0;
			for (a = base; a < base + 21000; a++) {
				want = plain(rr, mod, m, a);
				got = pme_bucketfile_find(bf, m == 2 ?
				    PME_NONE : m, a, &in);
				if (got != want ||
				    (got != PME_NONE && (a < in.start ||
				    a >= in.end || plain(rr, mod, m,
				    in.start) != got || plain(rr, mod, m,
				    in.end - 1) != got)))
					bad++;
				if (pme_bucketfile_lookup(bf, m == 2 ?
				    PME_NONE : m, a) != want)
					bad++;
			}
		}
		if (bad != 0)
			fail("seed %u: %u addresses answered wrong", seed, bad);
		pme_bucketfile_close(bf);
	}
}

/*
 * pme_bucketfile_index() and pme_bucketfile_find(): no answer without the
 * index (adding a bucket drops it), the range of the bucket that holds
 * the address (what is left of it where buckets overlap), modules added
 * after the index have no buckets.
 */
static void
test_find(void)
{
	struct pme_bucketfile *bf = build();
	struct pme_range in, late = { 0x5000, 0x5010 };
	struct pme_error err;
	uint32_t u;

	CHECK(pme_bucketfile_find(bf, 0, 0x1000, &in) == PME_NONE);
	CHECK(pme_bucketfile_index(bf, &err) == 0);
	CHECK(pme_bucketfile_index(bf, &err) == 0);
	in.start = in.end = 1;
	CHECK(pme_bucketfile_find(bf, 0, 0x1050, &in) == 0 &&
	    in.start == 0x1000 && in.end == 0x1100);
	CHECK(pme_bucketfile_find(bf, 0, 0x2008, &in) == 0 &&
	    in.start == 0x2000 && in.end == 0x2010);
	CHECK(pme_bucketfile_find(bf, 0, 0x1290, &in) == 2 &&
	    in.start == 0x1280 && in.end == 0x1400);
	CHECK(pme_bucketfile_find(bf, PME_NONE, 0xffffffffff600010ULL, NULL)
	    == 4);
	CHECK(pme_bucketfile_find(bf, 0, 0x1400, NULL) == PME_NONE);
	CHECK(pme_bucketfile_add_module(bf, "/later.so", NULL, 0, 0, &err) !=
	    PME_NONE);
	CHECK(pme_bucketfile_find(bf, 3, 0x1000, NULL) == PME_NONE);
	CHECK(pme_bucketfile_find(bf, 0, 0x1000, NULL) == 0);
	u = unit(bf, "late", 2, 0, 0, 0, 0, 0, NULL, &late, 1);
	CHECK(pme_bucketfile_add_bucket(bf, u, &late, 1, &err) == 7);
	CHECK(pme_bucketfile_find(bf, 0, 0x1000, NULL) == PME_NONE);
	CHECK(pme_bucketfile_index(bf, &err) == 0);
	CHECK(pme_bucketfile_find(bf, 0, 0x5001, &in) == 7 &&
	    in.start == 0x5000 && in.end == 0x5010);
	pme_bucketfile_close(bf);
}

/* Overlapping buckets, added out of order: one answer, always the same. */
static void
test_overlap(void)
{
	struct pme_range a = { 0x100, 0x200 }, b = { 0x150, 0x180 },
	    c = { 0x100, 0x300 }, d = { 0x50, 0x120 }, e = { 0x400, 0x500 };
	struct pme_bucketfile *bf;
	struct pme_error err;
	uint32_t u;

	bf = pme_bucketfile_new(&err);
	pme_bucketfile_add_kind(bf, "R", &err);
	pme_bucketfile_add_module(bf, "m", NULL, 0, 0, &err);
	u = unit(bf, "u", 0, PME_NONE, 0, 0, 0, 0, NULL, &c, 1);
	group(bf, "all", u, PME_NONE);
	bucket(bf, u, &e, 1, 0);	/* 0 */
	bucket(bf, u, &a, 1, 0);	/* 1 */
	bucket(bf, u, &b, 1, 0);	/* 2: inside 1 */
	bucket(bf, u, &c, 1, 0);	/* 3: same start as 1 */
	bucket(bf, u, &d, 1, 0);	/* 4: starts first */
	CHECK(pme_bucketfile_lookup(bf, 0, 0x4f) == PME_NONE);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x50) == 4);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x11f) == 4);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x120) == 1);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x160) == 1);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x1ff) == 1);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x200) == 3);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x2ff) == 3);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x300) == PME_NONE);
	CHECK(pme_bucketfile_lookup(bf, 0, 0x450) == 0);
	pme_bucketfile_close(bf);
}

/* ------------------------------------------------------------ counts */

static void
test_accumulate(void)
{
	struct pme_bucketfile *a = build(), *b = build(), *c;
	struct pme_range other = { 0x1000, 0x1101 };
	struct pme_bucket *ba, *bb;
	const struct pme_module *m;
	struct pme_info *ia;
	struct pme_error err;
	size_t n, i;

	CHECK(pme_bucketfile_accumulate(a, b, &err) == 0);
	n = pme_bucketfile_buckets(a, &ba);
	pme_bucketfile_buckets(b, &bb);
	for (i = 0; i < n; i++)
		CHECK(ba[i].count == (bb[i].count > UINT64_MAX / 2 ?
		    UINT64_MAX : 2 * bb[i].count));
	CHECK(ba[0].count == 2 * BIG);
	CHECK(ba[4].count == UINT64_MAX);	/* saturated */
	ia = pme_bucketfile_info(a);
	CHECK(ia->runs == 4 && ia->total == UINT64_MAX &&
	    ia->lost == 14 && ia->unmapped == 22);
	CHECK(ia->measure == PME_MEASURE_CLOCK && ia->period == 10000000);
	pme_bucketfile_modules(a, &m);
	CHECK(m[0].outside == 2 * 12345 && m[1].outside == 2 * BIG);

	/* An empty (never run) file takes what the other measures. */
	c = build();
	pme_bucketfile_clear(c);
	pme_bucketfile_info(c)->measure = PME_MEASURE_NONE;
	pme_bucketfile_info(c)->period = 0;
	CHECK(pme_bucketfile_accumulate(c, b, &err) == 0);
	compare(c, b);
	pme_bucketfile_info(c)->measure = PME_MEASURE_INSTR;
	CHECK(pme_bucketfile_accumulate(c, b, &err) == -1 &&
	    err.code == PME_EINVAL);
	pme_bucketfile_close(c);

	/* Runs that a file cannot hold together are refused. */
	c = build();
	pme_bucketfile_info(c)->runs = (1ULL << 53) - 1;
	CHECK(pme_bucketfile_accumulate(c, b, &err) == -1 &&
	    err.code == PME_EINVAL && strstr(err.msg, "more together than "
	    "a file can hold (2^53)") != NULL);
	CHECK(pme_bucketfile_info(c)->runs == (1ULL << 53) - 1);
	pme_bucketfile_info(c)->runs = (1ULL << 53) - 2;
	CHECK(pme_bucketfile_accumulate(c, b, &err) == 0 &&
	    pme_bucketfile_info(c)->runs == 1ULL << 53);
	pme_bucketfile_close(c);

	/* Different layouts are refused and change nothing. */
	c = build();
	CHECK(pme_bucketfile_add_kind(c, "PHASE", &err) == 4);
	CHECK(pme_bucketfile_accumulate(b, c, &err) == -1 &&
	    err.code == PME_EINVAL && strstr(err.msg, "kinds") != NULL);
	pme_bucketfile_close(c);
	c = pme_bucketfile_new(&err);
	CHECK(pme_bucketfile_accumulate(b, c, &err) == -1 &&
	    err.code == PME_EINVAL);
	pme_bucketfile_close(c);
	c = build();
	unit(c, "extra", 2, PME_NONE, 0, 0, 0, 0, NULL, &other, 1);
	CHECK(pme_bucketfile_accumulate(b, c, &err) == -1 &&
	    strstr(err.msg, "units") != NULL);
	bucket(c, 2, &other, 1, 9);
	CHECK(pme_bucketfile_accumulate(b, c, &err) == -1);
	pme_bucketfile_close(c);
	c = build();
	bucket(c, 2, &other, 1, 9);
	CHECK(pme_bucketfile_accumulate(b, c, &err) == -1 &&
	    strstr(err.msg, "buckets") != NULL);
	pme_bucketfile_close(c);
	c = pme_bucketfile_new(&err);
	pme_bucketfile_add_kind(c, "PROGRAM", &err);
	pme_bucketfile_add_kind(c, "MODULE", &err);
	pme_bucketfile_add_kind(c, "ROUTINE", &err);
	pme_bucketfile_add_kind(c, "LINE", &err);
	pme_bucketfile_add_module(c, "/usr/bin/demo", id_lib, 8, 0, &err);
	CHECK(pme_bucketfile_accumulate(b, c, &err) == -1 &&
	    strstr(err.msg, "modules") != NULL);
	pme_bucketfile_close(c);
	c = build();
	compare(b, c);			/* b untouched by the refusals */

	pme_bucketfile_clear(a);
	n = pme_bucketfile_buckets(a, &ba);
	for (i = 0; i < n; i++)
		CHECK(ba[i].count == 0);
	pme_bucketfile_modules(a, &m);
	for (i = 0; i < 3; i++)
		CHECK(m[i].outside == 0);
	CHECK(ia->runs == 0 && ia->total == 0 && ia->lost == 0 &&
	    ia->unmapped == 0);
	CHECK(ia->options == pme_bucketfile_info(b)->options);
	pme_bucketfile_close(a);
	pme_bucketfile_close(b);
	pme_bucketfile_close(c);
}

/*
 * Modules no unit refers to (a run's libraries, for counts outside the
 * buckets) are matched by path and build-id, whatever their order, and
 * added when missing; the modules units refer to must be the same.
 */
static void
test_accumulate_modules(void)
{
	struct pme_bucketfile *a = build(), *b = build(), *c;
	const struct pme_module *m;
	struct pme_error err;
	uint32_t x, y;
	size_t n;

	x = pme_bucketfile_add_module(a, "/lib/libx.so", id_lib, 4, 0, &err);
	y = pme_bucketfile_add_module(a, "/lib/liby.so", NULL, 0, 0, &err);
	*pme_bucketfile_outside(a, x) = 1;
	*pme_bucketfile_outside(a, y) = 2;
	CHECK(pme_bucketfile_add_module(b, "/lib/libz.so", NULL, 0, 0,
	    &err) == 3);
	CHECK(pme_bucketfile_add_module(b, "/lib/liby.so", NULL, 0, 0,
	    &err) == 4);
	CHECK(pme_bucketfile_add_module(b, "/lib/libx.so", id_lib, 5, 0,
	    &err) == 5);	/* another build-id: another module */
	*pme_bucketfile_outside(b, 3) = 30;
	*pme_bucketfile_outside(b, 4) = 40;
	*pme_bucketfile_outside(b, 5) = 50;
	CHECK(pme_bucketfile_accumulate(a, b, &err) == 0);
	n = pme_bucketfile_modules(a, &m);
	CHECK(n == 7);
	CHECK(m[0].outside == 2 * 12345 && m[1].outside == 2 * BIG);
	CHECK(m[x].outside == 1 && m[y].outside == 2 + 40);
	CHECK(strcmp(m[5].path, "/lib/libz.so") == 0 && m[5].outside == 30);
	CHECK(strcmp(m[6].path, "/lib/libx.so") == 0 &&
	    m[6].buildid_len == 5 && m[6].outside == 50);

	/* Into a file without them: all three added, in src's order. */
	c = build();
	CHECK(pme_bucketfile_accumulate(c, a, &err) == 0);
	n = pme_bucketfile_modules(c, &m);
	CHECK(n == 7 && strcmp(m[3].path, "/lib/libx.so") == 0 &&
	    m[3].outside == 1 && m[4].outside == 42 && m[5].outside == 30 &&
	    m[6].outside == 50 && m[0].outside == 3 * 12345);
	pme_bucketfile_close(c);
	pme_bucketfile_close(a);
	pme_bucketfile_close(b);
}

static void
test_args(void)
{
	struct pme_range bad = { 0x10, 0x10 }, ok = { 1, 2 };
	struct pme_bucketfile *bf;
	struct pme_error err;
	struct pme_unit u;

	bf = pme_bucketfile_new(&err);
	memset(&u, 0, sizeof(u));
	u.name = "x";
	u.parent = PME_NONE;
	u.module = PME_NONE;
	CHECK(pme_bucketfile_add_unit(bf, &u, &ok, 1, &err) == PME_NONE &&
	    err.code == PME_EINVAL);		/* no kind 0 */
	CHECK(pme_bucketfile_add_kind(bf, "K", &err) == 0);
	CHECK(pme_bucketfile_add_unit(bf, &u, &bad, 1, &err) == PME_NONE &&
	    err.code == PME_EINVAL);
	u.parent = 0;
	CHECK(pme_bucketfile_add_unit(bf, &u, &ok, 1, &err) == PME_NONE);
	u.parent = PME_NONE;
	u.module = 0;
	CHECK(pme_bucketfile_add_unit(bf, &u, &ok, 1, &err) == PME_NONE);
	u.module = PME_NONE;
	u.name = NULL;
	CHECK(pme_bucketfile_add_unit(bf, &u, &ok, 1, &err) == PME_NONE);
	u.name = "x";
	CHECK(pme_bucketfile_add_unit(bf, &u, &ok, 1, &err) == 0);
	CHECK(pme_bucketfile_add_bucket(bf, 0, &ok, 1, &err) == PME_NONE &&
	    err.code == PME_EINVAL);		/* no group yet */
	CHECK(pme_bucketfile_add_group(bf, "g", 1, PME_NONE, &err) ==
	    PME_NONE);
	CHECK(pme_bucketfile_add_group(bf, "g", 0, 1, &err) == PME_NONE);
	CHECK(pme_bucketfile_add_group(bf, NULL, 0, 0, &err) == 0);
	CHECK(pme_bucketfile_add_bucket(bf, 1, &ok, 1, &err) == PME_NONE);
	CHECK(pme_bucketfile_add_bucket(bf, 0, &bad, 1, &err) == PME_NONE);
	CHECK(pme_bucketfile_add_module(bf, "m", NULL, 4, 0, &err) ==
	    PME_NONE && err.code == PME_EINVAL);
	CHECK(pme_bucketfile_add_module(bf, "m", (uint8_t *)"", 5000, 0,
	    &err) == PME_NONE && err.code == PME_ELIMIT);
	CHECK(pme_bucketfile_add_module(bf, NULL, NULL, 0, 0, &err) == 0);
	CHECK(pme_bucketfile_write(bf, tmppath("no/dir.pme"), &err) == -1 &&
	    err.code == PME_EIO);
	pme_bucketfile_close(bf);
	pme_bucketfile_close(NULL);
}

/* ------------------------------------------------------------ bench */

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A file as pmebuild makes for line-level sampling of a big program:
 * n line units in 50 files, 1-2 ranges each, a bucket per unit.
 */
static int
bench(long n)
{
	struct pme_bucketfile *bf, *rd;
	struct pme_error err;
	struct pme_range r[2];
	struct pme_bucket *b;
	char name[32], files[50][32];
	const char *p = tmppath("bench.pme");
	double t0, t1, t2, t3, t4;
	uint64_t addr = 0x401000;
	struct stat st;
	long i;
	uint32_t u;

	for (i = 0; i < 50; i++)
		snprintf(files[i], sizeof(files[i]), "src/file%02ld.c", i);
	t0 = now();
	bf = line_file("big", "PROGRAM big BY LINE");
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%ld", i % 10000 + 1);
		r[0].start = addr;
		r[0].end = addr += 4 + i % 13;
		r[1].start = addr + 0x100000;
		r[1].end = addr + 0x100000 + 8;
		u = unit(bf, name, 0, 0, 0, 0, 0, (uint32_t)(i % 10000 + 1),
		    files[i % 50], r, 1 + (i % 3 == 0));
		bucket(bf, u, r, 1 + (i % 3 == 0), (uint64_t)i * 7);
	}
	t1 = now();
	if (pme_bucketfile_write(bf, p, &err) == -1)
		die_pme(p, &err);
	t2 = now();
	if ((rd = pme_bucketfile_open(p, &err)) == NULL)
		die_pme(p, &err);
	t3 = now();
	for (i = 0; i < n; i++)
		if (pme_bucketfile_lookup(rd, 0, 0x401000 + (uint64_t)i * 5) ==
		    PME_NONE)
			die_pme("lookup", NULL);
	t4 = now();
	stat(p, &st);
	pme_bucketfile_buckets(rd, &b);
	printf("%ld units and buckets, %lld bytes\n", n, (long long)st.st_size);
	printf("build %.1f ms, write %.1f ms, read %.1f ms, "
	    "index + %ld lookups %.1f ms\n", (t1 - t0) * 1e3, (t2 - t1) * 1e3,
	    (t3 - t2) * 1e3, n, (t4 - t3) * 1e3);
	pme_bucketfile_close(bf);
	pme_bucketfile_close(rd);
	unlink(p);
	return 0;
}

int
main(int argc, char **argv)
{
	testdir();
	if (argc > 1 && strcmp(argv[1], "bench") == 0) {
		bench(argc > 2 ? atol(argv[2]) : 500000);
		testdir_done();
		return 0;
	}
	test_roundtrip();
	test_empty();
	test_damage();
	for (zip = 0; zip < 2; zip++) {
		test_forged_ok();
		test_forged_bad();
	}
	zip = 0;
	test_unread();
	test_big();
	test_random_ranges();
	test_mutate();
	test_kind();
	test_lookup();
	test_find();
	test_find_random();
	test_overlap();
	test_accumulate();
	test_accumulate_modules();
	test_args();
	testdir_done();
	return failures ? 1 : 0;
}
