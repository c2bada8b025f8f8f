/*
 * t_escape.c - pme_escape (lib/util.h): every class of byte it escapes or
 * keeps, UTF-8 that is not valid in each way (overlong, surrogate, past
 * U+10FFFF, cut short, a stray continuation byte), and its snprintf-like
 * sizing that never cuts an escape or a character.
 */
#define TEST_NAME "t_escape"
#include "check.h"

#include "util.h"

static void
is(const char *in, const char *want)
{
	char buf[256], *dup;
	size_t n = pme_escape(buf, sizeof(buf), in);

	if (strcmp(buf, want) != 0 || n != strlen(want))
		fail("'%s' escaped to '%s' (%zu), not '%s'", in, buf, n, want);
	if ((dup = pme_escape_dup(in)) == NULL || strcmp(dup, want) != 0)
		fail("pme_escape_dup differs for '%s'", want);
	free(dup);
}

static void
test_classes(void)
{
	is("", "");
	is("plain_name(int, char *)", "plain_name(int, char *)");
	is("\x1b]0;PWNED\x07\x1b[2J", "\\x1b]0;PWNED\\x07\\x1b[2J");
	is("tab\there\nnl\r\x01\x1f", "tab\\x09here\\x0anl\\x0d\\x01\\x1f");
	is("del\x7f", "del\\x7f");
	is("back\\slash", "back\\\\slash");
	/* Valid UTF-8 of 2, 3 and 4 bytes is kept, U+00A0 and U+10FFFF too. */
	is("Gr\xc3\xb6\xc3\x9f" "e \xe6\x97\xa5 \xf0\x9f\x98\x80",
	    "Gr\xc3\xb6\xc3\x9f" "e \xe6\x97\xa5 \xf0\x9f\x98\x80");
	is("\xc2\xa0\xf4\x8f\xbf\xbf", "\xc2\xa0\xf4\x8f\xbf\xbf");
	/* C1 controls, valid UTF-8 though they are: byte by byte. */
	is("\xc2\x80\xc2\x9b[31m\xc2\x9f", "\\xc2\\x80\\xc2\\x9b[31m\\xc2\\x9f");
	/* Not UTF-8: a byte alone, a stray continuation, overlong forms, a
	 * surrogate, past U+10FFFF, a sequence cut short by its end or by
	 * an ASCII byte. */
	is("\xff\xfe", "\\xff\\xfe");
	is("a\x80" "b", "a\\x80b");
	is("\xc0\xaf\xc1\xbf", "\\xc0\\xaf\\xc1\\xbf");
	is("\xe0\x80\xaf", "\\xe0\\x80\\xaf");
	is("\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf");
	is("\xed\xa0\x80", "\\xed\\xa0\\x80");
	is("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
	is("\xf5\x80\x80\x80", "\\xf5\\x80\\x80\\x80");
	is("cut\xe2\x82", "cut\\xe2\\x82");
	is("\xe2\x82" "A", "\\xe2\\x82A");
}

/* Sizing: the whole length returned, only whole units written. */
static void
test_sizes(void)
{
	const char *in = "ab\x1b\xc3\xb6";	/* "ab\x1b" + o umlaut */
	char buf[16];
	size_t i;

	CHECK(pme_escape(NULL, 0, in) == 8);
	memset(buf, 'Z', sizeof(buf));
	CHECK(pme_escape(buf, 0, in) == 8 && buf[0] == 'Z');
	for (i = 1; i <= 9; i++) {
		const char *want = i <= 1 ? "" : i <= 2 ? "a" : i <= 6 ? "ab" :
		    i <= 8 ? "ab\\x1b" : "ab\\x1b\xc3\xb6";

		CHECK(pme_escape(buf, i, in) == 8);
		if (strcmp(buf, want) != 0)
			fail("outlen %zu: '%s', not '%s'", i, buf, want);
	}
}

int
main(void)
{
	test_classes();
	test_sizes();
	return failures != 0;
}
