/*
 * t_pager.c - the terminal display's commands (pme_report_term, lib/
 * render.c), fed from memory and read back byte for byte: the seed's
 * Return, R, S, K and H as they were, and the additions Q (as K), B (the
 * page before, from the first the last), a page number, /text (the next
 * page with a row whose name contains text, case ignored, those rows in
 * reverse video; "/" or n again; not found, a message and the same page);
 * then PME_REPORT_NOADDR: the pages without the address column in text
 * and PostScript, the CSV columns unchanged.
 */
#define TEST_NAME "t_pager"
#include "pme_render.h"
#include "check.h"

#define CLEAR	"\033[H\033[2J"
#define PROMPT	"Enter command (H for help): "
#define ROWS	12		/* a page of 11 lines, then the prompt */
#define COLS	60

/* 24 routines, two with "Loop" in their name (pages 2 and 4), one name
 * longer than the name column (32) with "tail" past the cut. */
static const char *const names[] = {
	"r00", "r01", "r02", "r03", "r04", "r05", "MainLoop", "r07",
	"r08", "r09", "r10", "r11", "r12", "r13", "r14", "r15",
	"r16", "r17", "inner_loop_step", "r19", "r20", "r21",
	"a_very_long_routine_name_with_a_tail", "r23",
};
#define NROWS ((uint32_t)(sizeof(names) / sizeof(names[0])))

/*
 * A report of one group, a bucket per name[i], counting 10 (i + 1) of
 * 300; a name as the one before is a second bucket of its unit.  The last
 * bucket is 0xa100 bytes long, the others 0x100.
 */
static struct pme_report *
build(const char *const *name, uint32_t n, unsigned flags)
{
	struct pme_report *r;
	struct pme_report_row row;
	struct pme_error err;
	uint32_t i;

	if ((r = pme_report_new(NULL, 300, &err)) == NULL)
		die_pme("pme_report_new", &err);
	pme_report_options(r, flags, 0);
	if (pme_report_group(r, "PROGRAM P BY ROUTINE", &err) == -1)
		die_pme("pme_report_group", &err);
	memset(&row, 0, sizeof(row));
	for (i = 0; i < n; i++) {
		if (i > 0 && strcmp(name[i], name[i - 1]) == 0)
			row.start = row.last + 1;
		else {
			row.unit = i;
			row.start = 0;
		}
		row.name = name[i];
		row.bucket = i;
		row.last = row.start + (i + 1 == n ? 0xa0ff : 0xff);
		row.abs_start = 0x1000 * (i + 1);
		row.abs_last = row.abs_start + 0xff;
		row.count = 10 * (i + 1);
		if (pme_report_row(r, &row, &err) == -1)
			die_pme("pme_report_row", &err);
	}
	if (pme_report_summary(r, "Total", "300", &err) == -1)
		die_pme("pme_report_summary", &err);
	return r;
}

/* What the display writes for the commands in (lines), NUL-terminated. */
static char *
term(const struct pme_report *r, const char *in)
{
	struct pme_error err;
	FILE *fi, *fo;
	char *out = NULL;
	size_t len = 0;

	if ((fi = fmemopen((void *)in, strlen(in), "r")) == NULL ||
	    (fo = open_memstream(&out, &len)) == NULL)
		die("fmemopen: %s", strerror(errno));
	if (pme_report_term(r, fi, fo, ROWS, COLS, &err) == -1)
		die_pme("pme_report_term", &err);
	fclose(fi);
	fclose(fo);
	return out;
}

/* The text backend's page n (from 1) in the display's geometry. */
static char *
page(const struct pme_report *r, int n)
{
	struct pme_page pg = { COLS, ROWS - 1, 1 };
	struct pme_error err;
	char *out = NULL, *p, *end;
	size_t len = 0;
	FILE *fo;
	int i;

	if ((fo = open_memstream(&out, &len)) == NULL)
		die("open_memstream: %s", strerror(errno));
	if (pme_report_text(r, fo, &pg, &err) == -1)
		die_pme("pme_report_text", &err);
	fclose(fo);
	for (p = out, i = 1; i < n && p != NULL; i++)
		if ((p = strchr(p, '\f')) != NULL)
			p++;
	if (p == NULL)
		die("no page %d", n);
	if ((end = strchr(p, '\f')) != NULL)
		*end = '\0';
	memmove(out, p, strlen(p) + 1);
	return out;
}

/* A screen of page n, then the prompt. */
static void
screen(char *buf, size_t len, const struct pme_report *r, int n)
{
	char *p = page(r, n);

	snprintf(buf + strlen(buf), len - strlen(buf), "%s%s%s", CLEAR, p,
	    PROMPT);
	free(p);
}

static void
text(char *buf, size_t len, const char *s)
{
	snprintf(buf + strlen(buf), len - strlen(buf), "%s", s);
}

static void
same(const char *what, const char *got, const char *want)
{
	size_t i;

	if (strcmp(got, want) == 0)
		return;
	for (i = 0; got[i] != '\0' && got[i] == want[i]; i++)
		;
	fail("%s: differs at byte %zu:\n--- got from there:\n%.300s\n"
	    "--- wanted:\n%.300s", what, i, got + i, want + i);
}

static const char help[] =
    "Commands (on a terminal a letter acts at once, without Return):\n"
    "  Return  display the next histogram page (or space)\n"
    "  R       restart the display from the beginning\n"
    "  S       skip to the summary statistics\n"
    "  K       kill the display and exit\n"
    "  H       help: print this command list\n"
    "  Q       quit: the same as K\n"
    "  B       back: display the page before\n"
    "  number  display the page of that number\n"
    "  /text   display this page or the next with a name containing text\n"
    "          (case ignored), its rows in reverse video\n"
    "  / or n  search for the same text again\n";

/* Page n of the text backend with the rows named name in reverse video. */
static void
marked(char *buf, size_t len, const struct pme_report *r, int n,
    const char *const *name)
{
	char *p = page(r, n), *line, *nl;
	size_t i;

	text(buf, len, CLEAR);
	for (line = p; *line != '\0'; line = nl + 1) {
		nl = strchr(line, '\n');
		*nl = '\0';
		for (i = 0; name[i] != NULL; i++)
			if (strncmp(line, name[i], strlen(name[i])) == 0 &&
			    line[strlen(name[i])] == ' ')
				break;
		if (name[i] != NULL)
			snprintf(buf + strlen(buf), len - strlen(buf),
			    "\033[7m%s\033[m\n", line);
		else
			snprintf(buf + strlen(buf), len - strlen(buf), "%s\n",
			    line);
	}
	text(buf, len, PROMPT);
	free(p);
}

static int
pages(const struct pme_report *r)
{
	struct pme_page pg = { COLS, ROWS - 1, 0 };

	return pme_report_pages(r, &pg);
}

/* The seed's commands as they were; Q and q end as K does. */
static void
test_seed(const struct pme_report *r)
{
	static char want[1 << 16];
	char *got;
	int n = pages(r);

	if (n < 5)
		die("%d pages: the test wants 5 or more", n);
	want[0] = '\0';
	screen(want, sizeof(want), r, 1);
	screen(want, sizeof(want), r, 2);
	screen(want, sizeof(want), r, n);
	screen(want, sizeof(want), r, 1);
	screen(want, sizeof(want), r, 1);
	text(want, sizeof(want), help);
	text(want, sizeof(want), PROMPT);
	got = term(r, "\nS\n\n  r\nH\nK\n");
	same("Return, S, Return, R, H, K", got, want);
	free(got);

	want[0] = '\0';
	screen(want, sizeof(want), r, 1);
	screen(want, sizeof(want), r, 2);
	got = term(r, "\nq\n\n");
	same("q", got, want);
	free(got);
	got = term(r, "\nQuit\n\n");
	same("Quit", got, want);
	free(got);
	/* The end of the input ends it after a newline. */
	text(want, sizeof(want), "\n");
	got = term(r, "\n");
	same("end of input", got, want);
	free(got);
}

/* B goes back a page, from the first to the last; a number to its page. */
static void
test_pages(const struct pme_report *r)
{
	static char want[1 << 16];
	char *got, msg[512];
	int n = pages(r);

	want[0] = '\0';
	screen(want, sizeof(want), r, 1);
	screen(want, sizeof(want), r, n);
	screen(want, sizeof(want), r, n - 1);
	screen(want, sizeof(want), r, 3);
	screen(want, sizeof(want), r, 2);
	screen(want, sizeof(want), r, n);
	snprintf(msg, sizeof(msg), "no page 0: the pages are 1 to %d\n%s"
	    "no page %d: the pages are 1 to %d\n%s"
	    "no page 3x: the pages are 1 to %d\n%s", n, PROMPT, n + 1, n,
	    PROMPT, n, PROMPT);
	text(want, sizeof(want), msg);
	screen(want, sizeof(want), r, 1);
	snprintf(msg, sizeof(msg), "B\nb\n3\nback\n%d\n0\n%d\n3x\n\nk\n", n,
	    n + 1);
	got = term(r, msg);
	same("B, b, 3, back, last, 0, past the last, 3x, Return", got, want);
	free(got);
}

/* /text: the next page (after this one, wrapping) with a row whose name
 * contains text, case ignored; / or n again; not found stays. */
static void
test_search(const struct pme_report *r)
{
	static char want[1 << 16];
	static const char *const loop[] = { "MainLoop", "inner_loop_step",
	    NULL };
	static const char *const tail[] = { "a_very_long_routine_name_wi~",
	    NULL };
	static const char *const none[] = { NULL };
	char *got, *p;
	int n = pages(r), pmain = 0, pinner = 0, ptail = 0, i;

	/* Where the rows are, from the text backend. */
	for (i = 1; i <= n; i++) {
		p = page(r, i);
		pmain = strstr(p, "\nMainLoop ") ? i : pmain;
		pinner = strstr(p, "\ninner_loop_step ") ? i : pinner;
		ptail = strstr(p, "\na_very_long_routine_name_wi~ ") ? i :
		    ptail;
		free(p);
	}
	if (pmain < 2 || pinner <= pmain + 1 || ptail < pinner)
		die("the rows are on pages %d, %d, %d: the test wants them "
		    "on two pages apart, after the first", pmain, pinner,
		    ptail);

	/* Found, again with n and /, round to the first; again from
	 * the page it is on is the next one's; the rows stay marked as the
	 * pages go by; a new search, not found. */
	want[0] = '\0';
	screen(want, sizeof(want), r, 1);
	marked(want, sizeof(want), r, pmain, loop);
	marked(want, sizeof(want), r, pinner, loop);
	marked(want, sizeof(want), r, pmain, loop);
	marked(want, sizeof(want), r, pmain + 1, loop);
	marked(want, sizeof(want), r, pinner, loop);
	text(want, sizeof(want), "'Zzz': not found\n" PROMPT);
	text(want, sizeof(want), "'Zzz': not found\n" PROMPT);
	got = term(r, "/LOOP\nn\n /  \n\nN\n/Zzz\nn\nk\n");
	same("/LOOP, n, /, Return, N, /Zzz, n", got, want);
	free(got);

	/* A new search starts on the page shown: /LOOP twice stays on
	 * the first page with a match; n then goes on. */
	want[0] = '\0';
	screen(want, sizeof(want), r, 1);
	marked(want, sizeof(want), r, pmain, loop);
	marked(want, sizeof(want), r, pmain, loop);
	marked(want, sizeof(want), r, pinner, loop);
	got = term(r, "/LOOP\n/LOOP\nn\nk\n");
	same("/LOOP on its page", got, want);
	free(got);

	/* The whole name is searched, not only what the column shows; a
	 * search before any is refused; the text is escaped when told. */
	want[0] = '\0';
	screen(want, sizeof(want), r, 1);
	text(want, sizeof(want), "no search yet: /text searches for text\n"
	    PROMPT);
	text(want, sizeof(want), "no search yet: /text searches for text\n"
	    PROMPT);
	marked(want, sizeof(want), r, ptail, tail);
	text(want, sizeof(want), "'a\\x1b[2J': not found\n" PROMPT);
	marked(want, sizeof(want), r, 1, none);
	got = term(r, "n\n/\n/_TAIL\n/a\033[2J\nR\nk\n");
	same("n first, /_TAIL, an escape", got, want);
	free(got);
}

/* Three routines, the second in two buckets. */
static struct pme_report *
small(unsigned flags)
{
	static const char *const name[] = { "alpha", "beta", "beta",
	    "gamma_with_a_long_name" };

	return build(name, 4, flags);
}

/* Output of backend (0 text on 72 x 20 pages, 1 PostScript, 2 CSV). */
static char *
out(const struct pme_report *r, int backend)
{
	struct pme_page pg = { 72, 20, 1 };
	struct pme_error err;
	char *s = NULL;
	size_t len = 0;
	FILE *fo;
	int rc;

	if ((fo = open_memstream(&s, &len)) == NULL)
		die("open_memstream: %s", strerror(errno));
	rc = backend == 0 ? pme_report_text(r, fo, &pg, &err) :
	    backend == 1 ? pme_report_ps(r, fo, &err) :
	    pme_report_csv(r, fo, &err);
	if (rc == -1)
		die_pme("backend", &err);
	fclose(fo);
	return s;
}

static int
count(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what)) != NULL) {
		n++;
		s++;
	}
	return n;
}

/* PME_REPORT_NOADDR: no address column on the pages, the bar where it
 * was; PostScript without the ranges, its bars where they were; CSV as
 * it was. */
static void
test_noaddr(void)
{
	static const char head[] =
	    "Performance Measurement and Evaluation Histogram"
	    "                  Page 1\n\nPROGRAM P BY ROUTINE\n";
	static const char tail[] =
	    "\f" "Performance Measurement and Evaluation Histogram"
	    "                  Page 2\n\nSummary statistics\n\n"
	    "Total:  300\n";
	struct pme_report *a = small(PME_REPORT_COUNTS);
	struct pme_report *b = small(PME_REPORT_COUNTS | PME_REPORT_NOADDR);
	char want[2048], *sa, *sb;

	sa = out(a, 0);
	sb = out(b, 0);
	snprintf(want, sizeof(want), "%s%s%s", head,
	    "                                      +----+----+----+     %  count\n"
	    "alpha                   |   0 - FF    |****              3.3%     10\n"
	    "beta                    |   0 - FF    |********          6.7%     20\n"
	    "                        | 100 - 1FF   |***********      10.0%     30\n"
	    "gamma_with_a_long_name  |   0 - A0FF  |***************  13.3%     40\n"
	    "                                      +----+----+----+\n"
	    "Scaling: 2.7 counts/asterisk\n\n", tail);
	same("text with the address column", sa, want);
	snprintf(want, sizeof(want), "%s%s%s", head,
	    "                        +----+----+----+----+----+----+     %  count\n"
	    "alpha                   |********                         3.3%     10\n"
	    "beta                    |***************                  6.7%     20\n"
	    "                        |***********************         10.0%     30\n"
	    "gamma_with_a_long_name  |******************************  13.3%     40\n"
	    "                        +----+----+----+----+----+----+\n"
	    "Scaling: 1.3 counts/asterisk\n\n", tail);
	same("text without the address column", sb, want);
	free(sa);
	free(sb);

	sa = out(a, 1);
	sb = out(b, 1);
	CHECK(strstr(sa, "164.4 681.0 moveto (  0 - FF  ) show\n") != NULL);
	CHECK(strstr(sa, "164.4 659.0 moveto (100 - 1FF ) show\n") != NULL);
	CHECK(count(sa, " - ") == 4);
	CHECK(count(sb, " - ") == 0);
	CHECK(strstr(sa, "217.2 680.0 68.40 7 B\n") != NULL);
	CHECK(count(sa, " 7 B\n") == 4);
	CHECK(strstr(sb, "164.4 680.0 81.60 7 B\n") != NULL);
	CHECK(strstr(sb, "164.4 647.0 326.40 7 B\n") != NULL);
	CHECK(count(sb, " 7 B\n") == 4);
	free(sa);
	free(sb);

	sa = out(a, 2);
	sb = out(b, 2);
	same("CSV without the address column", sb, sa);
	same("CSV", sa, "bucket,unit,kind,group,start,end,count,percent,"
	    "file,line,module\n"
	    "0,alpha,,PROGRAM P BY ROUTINE,0x1000,0x10ff,10,3.3333,,,\n"
	    "1,beta,,PROGRAM P BY ROUTINE,0x2000,0x20ff,20,6.6667,,,\n"
	    "2,beta,,PROGRAM P BY ROUTINE,0x3000,0x30ff,30,10.0000,,,\n"
	    "3,gamma_with_a_long_name,,PROGRAM P BY ROUTINE,0x4000,0x40ff,40,"
	    "13.3333,,,\n");
	free(sa);
	free(sb);
	pme_report_free(a);
	pme_report_free(b);
}

int
main(void)
{
	struct pme_report *r = build(names, NROWS, 0);

	test_seed(r);
	test_pages(r);
	test_search(r);
	pme_report_free(r);
	test_noaddr();
	testdir_done();
	return failures != 0;
}
