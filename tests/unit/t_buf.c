/*
 * t_buf.c - the byte buffer and cursor of lib/util.h: little-endian
 * values written and read back, empty appends and reads on a buffer
 * that has no storage yet (a fuzzed event file made one: UBSan's "zero
 * offset to null pointer"), a short read marking the cursor bad and
 * every later read zero, and strings with their length.
 */
#define TEST_NAME "t_buf"
#include "check.h"

#include "util.h"

static void
test_empty(void)
{
	struct pme_buf b = { 0 };
	struct pme_cur c = { NULL, 0, 0 };
	struct pme_arena a = { 0 };
	const char *s;

	pme_buf_bytes(&b, "", 0);
	pme_buf_bytes(&b, NULL, 0);
	if (b.failed || b.n != 0)
		fail("an empty append: failed %d, %zu bytes", b.failed, b.n);
	if (pme_cur_bytes(&c, 0) == NULL || c.bad)
		fail("an empty read of no payload failed");
	if (pme_cur_u8(&c) != 0 || !c.bad)
		fail("a read past no payload is not bad");
	pme_buf_str(&b, "");
	c = (struct pme_cur){ b.p, b.n, 0 };
	if ((s = pme_cur_str(&c, &a)) == NULL || *s != '\0' || c.bad ||
	    c.n != 0)
		fail("the empty string did not come back");
	pme_buf_free(&b);
	pme_arena_free(&a);
}

static void
test_values(void)
{
	static const uint8_t want[] = {
		0x7f, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12,
		0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,
		2, 0, 0, 0, 'h', 'i',
	};
	struct pme_buf b = { 0 };
	struct pme_cur c;
	struct pme_arena a = { 0 };
	const char *s;

	pme_buf_u8(&b, 0x7f);
	pme_buf_u16(&b, 0x1234);
	pme_buf_u32(&b, 0x12345678);
	pme_buf_u64(&b, 0x0123456789abcdefULL);
	pme_buf_str(&b, "hi");
	if (b.failed || b.n != sizeof(want) || memcmp(b.p, want, b.n) != 0)
		fail("the payload's bytes differ (%zu bytes)", b.n);
	c = (struct pme_cur){ b.p, b.n, 0 };
	if (pme_cur_u8(&c) != 0x7f || pme_cur_u16(&c) != 0x1234 ||
	    pme_cur_u32(&c) != 0x12345678 ||
	    pme_cur_u64(&c) != 0x0123456789abcdefULL)
		fail("the values did not come back");
	if ((s = pme_cur_str(&c, &a)) == NULL || strcmp(s, "hi") != 0)
		fail("the string did not come back");
	if (c.bad || c.n != 0)
		fail("after every value: bad %d, %zu bytes left", c.bad, c.n);
	/* A short read: bad, and zeroes after. */
	c = (struct pme_cur){ b.p, 3, 0 };
	if (pme_cur_u32(&c) != 0 || !c.bad || pme_cur_u8(&c) != 0)
		fail("a short read is not bad, or a later read not zero");
	pme_buf_free(&b);
	pme_arena_free(&a);
}

int
main(void)
{
	test_empty();
	test_values();
	return failures != 0;
}
