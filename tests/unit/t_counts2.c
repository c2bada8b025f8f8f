/*
 * t_counts2.c - the second count per bucket (pme_bucketfile_set_counts2,
 * the CNT2 chunk): round trip, absent by default and bytes unchanged,
 * buckets added later, clear, accumulate, rename and removal, a reader
 * that does not know the chunk, and forged CNT2 payloads with good crcs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "pme.h"

#define TEST_NAME "t_counts2"
#include "check.h"

/* Two routines in one module, a group of three buckets (one in ROUTINE a,
 * two halves of ROUTINE b). */
static struct pme_bucketfile *
build(void)
{
	static const struct pme_range ra = { 0x1000, 0x1040 };
	static const struct pme_range rb = { 0x1040, 0x10a0 };
	static const struct pme_range rb1 = { 0x1040, 0x1070 };
	static const struct pme_range rb2 = { 0x1070, 0x10a0 };
	static const uint8_t id[4] = { 1, 2, 3, 4 };
	struct pme_bucketfile *bf;
	struct pme_error err;
	struct pme_unit u;
	uint32_t k, m, p, a, b;

	if ((bf = pme_bucketfile_new(&err)) == NULL)
		die_pme("new", &err);
	k = pme_bucketfile_add_kind(bf, "PROGRAM", &err);
	pme_bucketfile_add_kind(bf, "ROUTINE", &err);
	m = pme_bucketfile_add_module(bf, "/bin/x", id, 4, PME_MODULE_MAIN,
	    &err);
	memset(&u, 0, sizeof(u));
	u.name = "P";
	u.kind = k;
	u.parent = PME_NONE;
	u.module = m;
	if ((p = pme_bucketfile_add_unit(bf, &u, NULL, 0, &err)) == PME_NONE)
		die_pme("unit", &err);
	u.kind = k + 1;
	u.parent = p;
	u.name = "a";
	a = pme_bucketfile_add_unit(bf, &u, &ra, 1, &err);
	u.name = "b";
	b = pme_bucketfile_add_unit(bf, &u, &rb, 1, &err);
	if (a == PME_NONE || b == PME_NONE ||
	    pme_bucketfile_add_group(bf, "PROGRAM P BY ROUTINE", p, k + 1,
	    &err) == PME_NONE ||
	    pme_bucketfile_add_bucket(bf, a, &ra, 1, &err) == PME_NONE ||
	    pme_bucketfile_add_bucket(bf, b, &rb1, 1, &err) == PME_NONE ||
	    pme_bucketfile_add_bucket(bf, b, &rb2, 1, &err) == PME_NONE)
		die_pme("build", &err);
	return bf;
}

static void
set_counts(struct pme_bucketfile *bf, uint64_t a, uint64_t b, uint64_t c)
{
	struct pme_bucket *bk;

	pme_bucketfile_buckets(bf, &bk);
	bk[0].count = a;
	bk[1].count = b;
	bk[2].count = c;
	pme_bucketfile_info(bf)->total = a + b + c;	/* no bucket above it */
}

static void
test_roundtrip(void)
{
	struct pme_bucketfile *bf = build(), *rd;
	struct pme_error err;
	uint64_t *c, *c2;
	uint8_t *plain, *with;
	size_t nplain, nwith;
	const char *name;

	CHECK(pme_bucketfile_counts2(bf, &c) == NULL && c == NULL);
	set_counts(bf, 100, 200, 300);
	if (pme_bucketfile_write(bf, tmppath("plain.pme"), &err) == -1)
		die_pme("write", &err);
	plain = readfile(tmppath("plain.pme"), &nplain);
	CHECK(memmem(plain, nplain, "CNT2", 4) == NULL);

	if (pme_bucketfile_set_counts2(bf, "calls", &err) == -1)
		die_pme("set", &err);
	name = pme_bucketfile_counts2(bf, &c);
	CHECK(name != NULL && strcmp(name, "calls") == 0);
	CHECK(c != NULL && c[0] == 0 && c[1] == 0 && c[2] == 0);
	c[0] = 7;
	c[1] = 0;
	c[2] = (uint64_t)1 << 60;
	if (pme_bucketfile_write(bf, tmppath("calls.pme"), &err) == -1)
		die_pme("write", &err);
	with = readfile(tmppath("calls.pme"), &nwith);
	CHECK(memmem(with, nwith, "CNT2", 4) != NULL);
	/* The chunks before CNT2 are the same bytes. */
	CHECK(nwith > nplain && memcmp(plain, with, nplain - 20) == 0);

	if ((rd = pme_bucketfile_open(tmppath("calls.pme"), &err)) == NULL)
		die_pme("open", &err);
	name = pme_bucketfile_counts2(rd, &c2);
	CHECK(name != NULL && strcmp(name, "calls") == 0);
	CHECK(c2 != NULL && c2[0] == 7 && c2[1] == 0 &&
	    c2[2] == (uint64_t)1 << 60);
	CHECK(pme_bucketfile_counts2(rd, NULL) == name);
	/* Written again, the same bytes. */
	if (pme_bucketfile_write(rd, tmppath("again.pme"), &err) == -1)
		die_pme("write", &err);
	free(plain);
	plain = readfile(tmppath("again.pme"), &nplain);
	CHECK(nplain == nwith && memcmp(plain, with, nwith) == 0);
	pme_bucketfile_close(rd);

	/* Renaming zeroes; NULL removes. */
	CHECK(pme_bucketfile_set_counts2(bf, "faults", &err) == 0);
	name = pme_bucketfile_counts2(bf, &c);
	CHECK(strcmp(name, "faults") == 0 && c[0] == 0 && c[2] == 0);
	CHECK(pme_bucketfile_set_counts2(bf, NULL, &err) == 0);
	CHECK(pme_bucketfile_counts2(bf, &c) == NULL && c == NULL);
	if (pme_bucketfile_write(bf, tmppath("removed.pme"), &err) == -1)
		die_pme("write", &err);
	free(with);
	with = readfile(tmppath("removed.pme"), &nwith);
	CHECK(memmem(with, nwith, "CNT2", 4) == NULL);

	/* Bad names. */
	CHECK(pme_bucketfile_set_counts2(bf, "", &err) == -1 &&
	    err.code == PME_EINVAL);
	memset(plain, 'x', 256);
	plain[256] = '\0';
	CHECK(pme_bucketfile_set_counts2(bf, (char *)plain, &err) == -1);
	plain[255] = '\0';
	CHECK(pme_bucketfile_set_counts2(bf, (char *)plain, &err) == 0);
	free(plain);
	free(with);
	pme_bucketfile_close(bf);
}

/* A bucket added after the second counts were set gets one of 0. */
static void
test_later_bucket(void)
{
	static const struct pme_range r = { 0x2000, 0x2010 };
	struct pme_bucketfile *bf = build(), *rd;
	struct pme_error err;
	uint64_t *c;

	CHECK(pme_bucketfile_set_counts2(bf, "calls", &err) == 0);
	pme_bucketfile_counts2(bf, &c);
	c[0] = c[1] = c[2] = 5;
	CHECK(pme_bucketfile_add_bucket(bf, 1, &r, 1, &err) == 3);
	pme_bucketfile_counts2(bf, &c);
	CHECK(c[0] == 5 && c[2] == 5 && c[3] == 0);
	if (pme_bucketfile_write(bf, tmppath("later.pme"), &err) == -1)
		die_pme("write", &err);
	if ((rd = pme_bucketfile_open(tmppath("later.pme"), &err)) == NULL)
		die_pme("open", &err);
	pme_bucketfile_counts2(rd, &c);
	CHECK(c != NULL && c[1] == 5 && c[3] == 0);
	pme_bucketfile_close(rd);
	pme_bucketfile_close(bf);
}

static void
test_clear_accumulate(void)
{
	struct pme_bucketfile *a = build(), *b = build(), *n = build();
	struct pme_error err;
	uint64_t *ca, *cb;

	CHECK(pme_bucketfile_set_counts2(a, "calls", &err) == 0);
	CHECK(pme_bucketfile_set_counts2(b, "calls", &err) == 0);
	pme_bucketfile_counts2(a, &ca);
	pme_bucketfile_counts2(b, &cb);
	ca[0] = 1, ca[1] = 2, ca[2] = UINT64_MAX - 1;
	cb[0] = 10, cb[1] = 0, cb[2] = 5;
	set_counts(a, 1, 1, 1);
	set_counts(b, 2, 2, 2);
	CHECK(pme_bucketfile_accumulate(a, b, &err) == 0);
	CHECK(ca[0] == 11 && ca[1] == 2 && ca[2] == UINT64_MAX);
	CHECK(cb[0] == 10);

	/* Both or neither, and the same name. */
	CHECK(pme_bucketfile_accumulate(a, n, &err) == -1 &&
	    err.code == PME_EINVAL && strstr(err.msg, "second counts"));
	CHECK(pme_bucketfile_accumulate(n, a, &err) == -1);
	CHECK(pme_bucketfile_set_counts2(n, "faults", &err) == 0);
	CHECK(pme_bucketfile_accumulate(a, n, &err) == -1);
	CHECK(ca[0] == 11);	/* a refused accumulate changes nothing */

	pme_bucketfile_clear(a);
	CHECK(pme_bucketfile_counts2(a, &ca) != NULL);
	CHECK(ca[0] == 0 && ca[1] == 0 && ca[2] == 0);
	pme_bucketfile_close(a);
	pme_bucketfile_close(b);
	pme_bucketfile_close(n);
}

/* ------------------------------------------------------------ forging */

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = v, p[1] = v >> 8, p[2] = v >> 16, p[3] = v >> 24;
}

/* Appends a chunk of type with payload pay[0..n) at buf + *len. */
static void
chunk(uint8_t *buf, size_t *len, const char *type, const uint8_t *pay,
    size_t n)
{
	uint8_t *h = buf + *len;
	uLong crc;

	memcpy(h, type, 4);
	put32(h + 4, 0);
	put32(h + 8, (uint32_t)n);
	put32(h + 12, (uint32_t)n);
	if (n > 0)
		memcpy(h + 20, pay, n);
	crc = crc32(0, h, 16);
	crc = crc32(crc, h + 20, (uInt)n);
	put32(h + 16, (uint32_t)crc);
	*len += 20 + n;
}

/*
 * A copy of the plain file (no CNT2) with the given chunks put before END
 * (or, with early set, before the BCKT chunk); returns the reader's
 * verdict with the error in err.
 */
static struct pme_bucketfile *
forge(const uint8_t *plain, size_t nplain, const char *type,
    const uint8_t *pay, size_t n, int copies, int early,
    struct pme_error *err)
{
	static uint8_t buf[1 << 16];
	const uint8_t *bckt = memmem(plain, nplain, "BCKT", 4);
	size_t len, cut;
	int i;

	cut = early ? (size_t)(bckt - plain) : nplain - 20;
	memcpy(buf, plain, cut);
	len = cut;
	for (i = 0; i < copies; i++)
		chunk(buf, &len, type, pay, n);
	memcpy(buf + len, plain + cut, nplain - cut);
	len += nplain - cut;
	return pme_bucketfile_mem(buf, len, "forged.pme", err);
}

static void
expect_bad(const uint8_t *plain, size_t nplain, const uint8_t *pay,
    size_t n, int copies, int early, const char *what)
{
	struct pme_bucketfile *bf;
	struct pme_error err;

	bf = forge(plain, nplain, "CNT2", pay, n, copies, early, &err);
	if (bf != NULL) {
		fail("forged CNT2 accepted, expected '%s'", what);
		pme_bucketfile_close(bf);
		return;
	}
	if (err.code != PME_EFORMAT || strstr(err.msg, what) == NULL)
		fail("forged CNT2: '%s', expected '%s'", err.msg, what);
}

static void
test_forged(void)
{
	struct pme_bucketfile *bf = build(), *rd;
	struct pme_error err;
	uint8_t *plain;
	size_t nplain;
	uint64_t *c;
	static const uint8_t good[] = { 5, 'c', 'a', 'l', 'l', 's', 3, 1, 2,
	    0x80, 0x01 };
	uint8_t p[64];

	if (pme_bucketfile_write(bf, tmppath("plain.pme"), &err) == -1)
		die_pme("write", &err);
	plain = readfile(tmppath("plain.pme"), &nplain);

	/* Good: name "calls", counts 1, 2, 128. */
	rd = forge(plain, nplain, "CNT2", good, sizeof(good), 1, 0, &err);
	CHECK(rd != NULL);
	if (rd != NULL) {
		CHECK(strcmp(pme_bucketfile_counts2(rd, &c), "calls") == 0);
		CHECK(c[0] == 1 && c[1] == 2 && c[2] == 128);
		pme_bucketfile_close(rd);
	} else
		fail("good CNT2: %s", err.msg);
	/* A newer chunk after it is skipped, as CNT2 is by older readers. */
	rd = forge(plain, nplain, "ZZZ2", good, sizeof(good), 1, 0, &err);
	CHECK(rd != NULL && pme_bucketfile_counts2(rd, NULL) == NULL);
	pme_bucketfile_close(rd);

	expect_bad(plain, nplain, good, sizeof(good), 2, 0,
	    "second 'CNT2' chunk");
	expect_bad(plain, nplain, good, sizeof(good), 1, 1,
	    "'CNT2' chunk before 'BCKT'");
	memset(p, 0, sizeof(p));
	memcpy(p, good, sizeof(good));
	p[6] = 2;	/* two counts for three buckets, a byte left */
	expect_bad(plain, nplain, p, sizeof(good), 1, 0,
	    "2 counts for 3 buckets");
	p[6] = 9;	/* nine counts claimed, four bytes left */
	expect_bad(plain, nplain, p, sizeof(good), 1, 0, "does not fit");
	p[6] = 3;
	expect_bad(plain, nplain, p, sizeof(good) - 1, 1, 0,
	    "payload ends early");
	expect_bad(plain, nplain, p, sizeof(good) + 1, 1, 0,
	    "1 bytes after the table");
	p[2] = '\0';
	expect_bad(plain, nplain, p, sizeof(good), 1, 0, "NUL byte");
	p[0] = 0;
	expect_bad(plain, nplain, p, sizeof(good), 1, 0, "a name of 0 bytes");
	p[0] = 60;	/* a name longer than the payload */
	expect_bad(plain, nplain, p, sizeof(good), 1, 0, "payload ends early");
	expect_bad(plain, nplain, p, 0, 1, 0, "payload ends early");
	free(plain);
	pme_bucketfile_close(bf);
}

int
main(void)
{
	test_roundtrip();
	test_later_bucket();
	test_clear_accumulate();
	test_forged();
	testdir_done();
	if (failures > 0) {
		fprintf(stderr, "t_counts2: %d failures\n", failures);
		return 1;
	}
	return 0;
}
