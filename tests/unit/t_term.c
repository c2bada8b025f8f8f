/*
 * t_term.c - stats' interactive view (stats/term.c) driven through
 * term_replay() by the bytes a terminal sends, its frames read back:
 * the first frame (the whole run, 0 to 1,999), a zoom (C-Down: view
 * 2/2, the middle half), a pan of the latest view in place (Right: a
 * fifth of its width), views back (M-Left, and
 * ESC ESC [ D as tmux sends it), the next graph (Tab), and an arrow with
 * a parameter of eleven digits, which a terminal may send, acting as the
 * plain arrow (its parameter once overflowed an int: found by
 * fuzz_term), and the end of the keys ending the view as q does.
 */
#define TEST_NAME "t_term"
#include "pme.h"
#include "check.h"

#include "stats.h"

static struct src src;
static struct gfile gf;

static const char graphs[] =
    "StateGraph states (x, 0, NO_OF_PROCESSORS - 1) {\n"
    "	name <- \"Processor States\",\n"
    "	action { EV_STATE: VALUE(x) }\n"
    "	map { 0: black \"Idle\", 1: gray \"Busy\", 2: red \"Lock\" }\n"
    "}\n"
    "UtilGraph utilization (x, 0, NO_OF_PROCESSORS - 1) {\n"
    "	name <- \"Utilization\",\n"
    "	action { EV_STATE: VALUE(x) }\n"
    "	map { 0: black \"Idle\", 1: gray \"Busy\" }\n"
    "}\n";

/* The frames term_replay() draws for keys on a 24 x 80 text screen. */
static char *
frames(const char *keys, size_t n)
{
	const struct graph *gv[2] = { &gf.g[0], &gf.g[1] };
	struct term_geom geom = { 24, 80, 0, -1 };
	const char *path = tmppath("frames");
	struct pme_error err = { 0 };
	uint8_t *text;
	size_t len;

	if ((geom.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1)
		die("%s: %s", path, strerror(errno));
	if (term_replay(&src, gv, 2, 0, &geom, (const uint8_t *)keys, n,
	    &err) != 0)
		die("term_replay: %s", err.msg);
	close(geom.fd);
	text = readfile(path, &len);
	return (char *)text;
}

/* The last frame's header lines, "view ... | unit a to b, rows ..." */
static void
last_is(const char *keys, size_t n, const char *view, const char *range)
{
	char *f = frames(keys, n), *last = f, *p;

	while ((p = strstr(last + 1, "\033[H\033[0m")) != NULL)
		last = p;
	if (strstr(last, view) == NULL || strstr(last, range) == NULL)
		fail("keys of %zu bytes: the last frame lacks '%s' or '%s'",
		    n, view, range);
	free(f);
}

#define K(s) s, sizeof(s) - 1

int
main(void)
{
	struct pme_error e;
	struct pme_error err = { 0 };

	if (chdir(testdir()) == -1)
		die("%s: %s", testdir(), strerror(errno));
	if (pme_event_open("events.sim", 0, &e) == -1)
		die_pme("events.sim", &e);
	pme_event_processors(2);
	pme_event_post(PME_EV_STATE, 0, 0, 1);
	pme_event_post(PME_EV_STATE, 0, 500, 2);
	pme_event_post(PME_EV_STATE, 1, 0, 0);
	pme_event_post(PME_EV_STATE, 1, 1000, 1);
	pme_event_post(PME_EV_STATE, 1, 1999, 0);
	if (pme_event_close(&e) == -1)
		die_pme("close", &e);
	if (src_open_events(&src, "events.sim", &err) == -1 ||
	    gfile_parse(graphs, strlen(graphs), "graphs", &gf, &err) == -1)
		die("%s", err.msg);

	last_is(K(""), "view 1/1\033[0m  Processor States  (graph 1/2)",
	    "cycles 0 to 1,999, rows 0 to 1");
	last_is(K("\033[1;5B"), "view 2/2\033[0m  Processor States",
	    "cycles 499 to 1,498, rows 0 to 1");
	last_is(K("\033[1;5B\033[C"), "view 2/2",
	    "cycles 698 to 1,697, rows 0 to 1");
	last_is(K("\033[1;5B\033[99999999999C"), "view 2/2",
	    "cycles 698 to 1,697, rows 0 to 1");
	last_is(K("\033[1;5B\033[C\033[1;3D"), "view 1/2",
	    "cycles 0 to 1,999, rows 0 to 1");
	last_is(K("\033[1;5B\033\033[D"), "view 1/2", "cycles 0 to 1,999, rows 0 to 1");
	last_is(K("\033[1;5B\t"), "view 2/2\033[0m  Utilization  (graph 2/2)",
	    "cycles 499 to 1,498, rows 0 to 1");
	/* q ends it: what follows is not read. */
	last_is(K("\033[1;5Bq\033[1;3D"), "view 2/2", "cycles 499 to 1,498, rows 0 to 1");
	gfile_free(&gf);
	src_close(&src);
	testdir_done();
	return failures != 0;
}
