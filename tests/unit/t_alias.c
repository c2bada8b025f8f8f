/*
 * t_alias - the aliases of bucket file units (pme_bucketfile_add_alias(),
 * pme_bucketfile_aliases(), the optional ALIA chunk of pme(5)):
 *   added out of unit order, read back in the order promised;
 *   written, read and written again: the same bytes;
 *   a file without aliases has no ALIA chunk; an aliased file read
 *   without its ALIA chunk (as a reader that does not know the chunk
 *   reads it) has the same layout as the file without aliases;
 *   forged ALIA payloads (a unit or string out of range, a short or long
 *   payload, a huge count, a second ALIA) are refused with the offset;
 *   bad arguments are refused.
 * Files go to $TMPDIR.  Exit status: 0 pass, 1 fail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pme.h"

#define TEST_NAME "t_alias"
#include "check.h"

#define T_ALIA	PME_FOURCC('A', 'L', 'I', 'A')

/* Three routine units under a program; aliases on the first and last. */
static struct pme_bucketfile *
make(int aliases)
{
	static const struct pme_range r[] = { { 0x1000, 0x2000 },
	    { 0x1000, 0x1100 }, { 0x1100, 0x1800 }, { 0x1800, 0x2000 } };
	struct pme_bucketfile *bf;
	struct pme_error err;
	struct pme_unit u;
	uint32_t kp, kr, m, prog, i;
	static const char *names[] = { "__finitel", "main", "sum_all" };

	if ((bf = pme_bucketfile_new(&err)) == NULL)
		return NULL;
	kp = pme_bucketfile_add_kind(bf, "PROGRAM", &err);
	kr = pme_bucketfile_add_kind(bf, "ROUTINE", &err);
	m = pme_bucketfile_add_module(bf, "/bin/x", NULL, 0, PME_MODULE_MAIN,
	    &err);
	memset(&u, 0, sizeof(u));
	u.name = "x";
	u.kind = kp;
	u.parent = PME_NONE;
	u.module = m;
	prog = pme_bucketfile_add_unit(bf, &u, r, 1, &err);
	CHECK(pme_bucketfile_add_group(bf, "PROGRAM x BY ROUTINE", prog, kr,
	    &err) == 0);
	for (i = 0; i < 3; i++) {
		u.name = names[i];
		u.kind = kr;
		u.parent = prog;
		CHECK(pme_bucketfile_add_unit(bf, &u, &r[1 + i], 1, &err) ==
		    i + 1);
		CHECK(pme_bucketfile_add_bucket(bf, i + 1, &r[1 + i], 1,
		    &err) == i);
	}
	if (aliases) {
		/* Out of unit order: the last unit's first. */
		CHECK(pme_bucketfile_add_alias(bf, 3, "sum", &err) == 0);
		CHECK(pme_bucketfile_add_alias(bf, 1, "__GI___finitel",
		    &err) == 0);
		CHECK(pme_bucketfile_add_alias(bf, 1, "finitel", &err) == 1);
		/* A name already in the string table (a unit's). */
		CHECK(pme_bucketfile_add_alias(bf, 3, "main", &err) == 1);
	}
	return bf;
}

/* The aliases of every unit as one string: "1:a,b 3:c". */
static void
aliases_of(const struct pme_bucketfile *bf, char *buf, size_t len)
{
	const struct pme_unit *u;
	const char *const *v;
	size_t nu = pme_bucketfile_units(bf, &u), i, j, n, k = 0;

	buf[0] = '\0';
	for (i = 0; i < nu; i++) {
		if ((n = pme_bucketfile_aliases(bf, (uint32_t)i, &v)) == 0) {
			CHECK(v == NULL);
			continue;
		}
		k += (size_t)snprintf(buf + k, len - k, "%s%zu:", k ? " " : "",
		    i);
		for (j = 0; j < n && k < len; j++)
			k += (size_t)snprintf(buf + k, len - k, "%s%s",
			    j ? "," : "", v[j]);
	}
}

/* Whether the file at path holds a chunk of type t. */
static int
has_chunk(const char *path, uint32_t t)
{
	struct pme_reader *r;
	struct pme_chunk c;
	int found = 0;

	if ((r = pme_reader_open(path, PME_KIND_BUCKET, NULL)) == NULL)
		return -1;
	while (pme_reader_next(r, &c, NULL) == 1)
		found |= c.type == t;
	pme_reader_close(r);
	return found;
}

/*
 * Copies the bucket file src to dst chunk by chunk, the ALIA chunk's
 * payload replaced by alia[0..len) (dropped when alia is NULL; twice when
 * twice is set).
 */
static int
rewrite(const char *src, const char *dst, const uint8_t *alia, size_t len,
    int twice)
{
	struct pme_reader *r;
	struct pme_writer *w;
	struct pme_error err;
	struct pme_chunk c;
	int rc = 0, k;

	if ((r = pme_reader_open(src, PME_KIND_BUCKET, &err)) == NULL ||
	    (w = pme_writer_open(dst, PME_KIND_BUCKET, 0, &err)) == NULL) {
		fail("rewrite: %s", pme_strerror(&err));
		pme_reader_close(r);
		return -1;
	}
	while (rc == 0 && pme_reader_next(r, &c, &err) == 1) {
		if (c.type != T_ALIA)
			rc = pme_reader_payload(r, &c, PME_CHUNK_MAX, &err) != 1 ?
			    -1 : pme_writer_chunk(w, c.type, c.data, c.len, 0,
			    &err);
		else
			for (k = 0; alia != NULL && k < 1 + twice && rc == 0;
			    k++)
				rc = pme_writer_chunk(w, T_ALIA, alia, len, 0,
				    &err);
	}
	pme_reader_close(r);
	if (rc == 0)
		rc = pme_writer_commit(w, &err);
	else
		pme_writer_abort(w);
	if (rc != 0)
		fail("rewrite: %s", pme_strerror(&err));
	return rc;
}

static void
test_roundtrip(void)
{
	struct pme_bucketfile *bf, *back;
	struct pme_error err;
	const char *const *v;
	uint8_t *a, *b;
	size_t la, lb;
	char got[256];

	if ((bf = make(1)) == NULL) {
		fail("cannot make a bucket file");
		return;
	}
	aliases_of(bf, got, sizeof(got));
	if (strcmp(got, "1:__GI___finitel,finitel 3:sum,main") != 0)
		fail("aliases before writing: '%s'", got);
	CHECK(pme_bucketfile_aliases(bf, 0, &v) == 0 && v == NULL);
	CHECK(pme_bucketfile_aliases(bf, 99, &v) == 0 && v == NULL);
	CHECK(pme_bucketfile_write(bf, tmppath("a.pme"), &err) == 0);
	CHECK(has_chunk(tmppath("a.pme"), T_ALIA) == 1);
	if ((back = pme_bucketfile_open(tmppath("a.pme"), &err)) == NULL) {
		fail("read back: %s", pme_strerror(&err));
		pme_bucketfile_close(bf);
		return;
	}
	aliases_of(back, got, sizeof(got));
	if (strcmp(got, "1:__GI___finitel,finitel 3:sum,main") != 0)
		fail("aliases read back: '%s'", got);
	CHECK(pme_bucketfile_write(back, tmppath("b.pme"), &err) == 0);
	a = readfile(tmppath("a.pme"), &la);
	b = readfile(tmppath("b.pme"), &lb);
	CHECK(la == lb && memcmp(a, b, la) == 0);
	free(a);
	free(b);
	/* Added to a file read back: it goes on as if never written. */
	CHECK(pme_bucketfile_add_alias(back, 2, "main_alias", &err) == 0);
	aliases_of(back, got, sizeof(got));
	if (strcmp(got, "1:__GI___finitel,finitel 2:main_alias 3:sum,main")
	    != 0)
		fail("alias added after reading: '%s'", got);
	pme_bucketfile_close(back);
	pme_bucketfile_close(bf);
}

/*
 * No aliases: no ALIA chunk.  The aliased file without its ALIA chunk (as
 * a reader that does not know the chunk sees it) has the same layout as
 * the file without aliases: accumulating one into the other checks that.
 */
static void
test_without(void)
{
	struct pme_bucketfile *bf, *back;
	struct pme_error err;
	char got[256];

	bf = make(0);
	CHECK(bf != NULL && pme_bucketfile_write(bf, tmppath("none.pme"), &err)
	    == 0);
	CHECK(has_chunk(tmppath("none.pme"), T_ALIA) == 0);
	CHECK(rewrite(tmppath("a.pme"), tmppath("skip.pme"), NULL, 0, 0) == 0);
	if ((back = pme_bucketfile_open(tmppath("skip.pme"), &err)) == NULL)
		fail("without ALIA: %s", pme_strerror(&err));
	else {
		aliases_of(back, got, sizeof(got));
		CHECK(got[0] == '\0');
		if (bf != NULL && pme_bucketfile_accumulate(bf, back, &err) != 0)
			fail("without ALIA: %s", pme_strerror(&err));
		pme_bucketfile_close(back);
	}
	pme_bucketfile_close(bf);
}

/* A forged ALIA payload must be refused, naming the chunk. */
static void
refused(const char *what, const uint8_t *p, size_t len, int twice,
    const char *want)
{
	struct pme_bucketfile *bf;
	struct pme_error err;

	if (rewrite(tmppath("a.pme"), tmppath("forged.pme"), p, len, twice) != 0)
		return;
	memset(&err, 0, sizeof(err));
	if ((bf = pme_bucketfile_open(tmppath("forged.pme"), &err)) != NULL) {
		fail("%s: accepted", what);
		pme_bucketfile_close(bf);
		return;
	}
	if (err.code != PME_EFORMAT || strstr(err.msg, "forged.pme") == NULL ||
	    strstr(err.msg, "offset 0x") == NULL ||
	    strstr(err.msg, want) == NULL)
		fail("%s: error '%s', wanted one with '%s'", what, err.msg,
		    want);
}

static void
test_forged(void)
{
	/* Two aliases: unit steps 1, 0; string indexes.  The file's string
	 * table holds fewer than 100 strings, and 4 units. */
	static const uint8_t good[] = { 2, 1, 0, 0, 1 };
	static const uint8_t unit[] = { 1, 4, 0 };
	static const uint8_t wrap[] = { 2, 3, 0x7f, 0, 1 };
	static const uint8_t str[] = { 1, 1, 100 };
	static const uint8_t shrt[] = { 2, 0x81, 0x00, 0, 1 };
	static const uint8_t lng[] = { 1, 1, 0, 0 };
	static const uint8_t count[] = { 0xff, 0xff, 0xff, 0xff, 0x0f, 1 };
	struct pme_bucketfile *bf;
	struct pme_error err;
	char got[256];

	CHECK(rewrite(tmppath("a.pme"), tmppath("good.pme"), good, sizeof(good), 0)
	    == 0);
	if ((bf = pme_bucketfile_open(tmppath("good.pme"), &err)) == NULL)
		fail("a hand-made ALIA: %s", pme_strerror(&err));
	else {
		aliases_of(bf, got, sizeof(got));
		if (strncmp(got, "1:", 2) != 0 || strchr(got, ',') == NULL)
			fail("a hand-made ALIA: '%s'", got);
		pme_bucketfile_close(bf);
	}
	refused("unit out of range", unit, sizeof(unit), 0, "no unit 4");
	refused("units past the last", wrap, sizeof(wrap), 0, "no unit");
	refused("string out of range", str, sizeof(str), 0, "no string 100");
	refused("short payload", shrt, sizeof(shrt), 0, "ends early");
	refused("long payload", lng, sizeof(lng), 0, "after the table");
	refused("huge count", count, sizeof(count), 0, "does not fit");
	refused("second ALIA", good, sizeof(good), 1, "second 'ALIA'");
}

static void
test_args(void)
{
	struct pme_bucketfile *bf = make(0);
	struct pme_error err;

	if (bf == NULL)
		return;
	CHECK(pme_bucketfile_add_alias(bf, 4, "x", &err) == PME_NONE &&
	    err.code == PME_EINVAL);
	CHECK(pme_bucketfile_add_alias(bf, 1, "", &err) == PME_NONE &&
	    err.code == PME_EINVAL);
	CHECK(pme_bucketfile_add_alias(bf, 1, NULL, &err) == PME_NONE &&
	    err.code == PME_EINVAL);
	pme_bucketfile_close(bf);
}

int
main(void)
{
	test_roundtrip();
	test_without();
	test_forged();
	test_args();
	testdir_done();
	return failures > 0;
}
