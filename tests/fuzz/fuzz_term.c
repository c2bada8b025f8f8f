/*
 * fuzz_term.c - libFuzzer target for stats' interactive view's command
 * input (stats/term.c, through term_replay(): the bytes a terminal
 * sends, decoded into keys and escape sequences, each acted on and the
 * frame drawn as at a terminal): any bytes, on any screen from 1 x 1 to
 * 255 x 255 in each colour mode, over graphs of every kind, must end
 * without a fault, and with an error only for a write that failed.
 * Input: a byte of rows, a byte of columns, a byte of the colour mode
 * (its value modulo 3), whether the legend is in percent (bit 2) and
 * which graph comes first (bits 3 and up), then the keys.  The event
 * file is made once, by the event API, in a directory of the target's
 * own, the current one during each run, where 'P' writes stats.ps.  `make fuzz` builds and runs it.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats.h"

static const char graphs[] =
    "StateGraph states (x, 0, NO_OF_PROCESSORS - 1) {\n"
    "	name <- \"Processor States\",\n"
    "	action { EV_STATE: VALUE(x) }\n"
    "	map { 0: black \"Idle\", 1: gray \"Busy\", 2: red \"Lock\",\n"
    "	    5: blue \"User 1\" }\n"
    "}\n"
    "UtilGraph utilization (x, 0, NO_OF_PROCESSORS - 1) {\n"
    "	action { EV_STATE: VALUE(x) }\n"
    "	map { 0: black \"Idle\", 1: gray \"Busy\" }\n"
    "}\n"
    "ArrayGraph latency (x, 0, NO_OF_PROCESSORS - 1) {\n"
    "	scale <- 0.01, format <- \"%.1f\",\n"
    "	action { EV_LATENCY: VALUE(x) }\n"
    "}\n"
    "HistoGraph histo { metric <- \"Message Latency\" }\n"
    "HistoSummary summary { }\n";

static struct src src;
static struct gfile gf;
static int devnull = -1, here = -1, there = -1;
static char dir[] = "/tmp/pme-fuzz-term.XXXXXX";

static void
cleanup(void)
{
	if (there != -1) {
		unlinkat(there, "events.sim", 0);
		unlinkat(there, "stats.ps", 0);
		rmdir(dir);
	}
}

/* The event file: 4 processors (one named) in states over 3,000 cycles,
 * a value type, a histometric of two sets. */
static void
setup(void)
{
	struct pme_error e;
	struct pme_error err = { 0 };
	uint32_t lat;
	int h;

	if (mkdtemp(dir) == NULL || (here = open(".", O_RDONLY)) == -1 ||
	    chdir(dir) == -1 || (there = open(".", O_RDONLY)) == -1 ||
	    pme_event_open("events.sim", 0, &e) == -1 ||
	    (devnull = open("/dev/null", O_WRONLY)) == -1)
		abort();
	lat = pme_event_type("EV_LATENCY");
	h = pme_histo_new("Message Latency", 0, 2, 0, 0, 400, 20);
	pme_event_processors(4);
	pme_event_proc_name(2, "cpu two");
	for (uint32_t p = 0; p < 4; p++)
		for (uint64_t t = 0; t < 3000; t += 10 + p * 7) {
			pme_event_post(PME_EV_STATE, p, t, (int64_t)((t / 10 +
			    p) % 6));
			pme_event_post(lat, p, t, (int64_t)(t * 13 % 997));
			pme_histo_sample(h, (int)(p % 2), (double)(t % 450));
		}
	if (pme_event_close(&e) == -1 ||
	    src_open_events(&src, "events.sim", &err) == -1 ||
	    gfile_parse(graphs, strlen(graphs), "graphs", &gf, &err) == -1 ||
	    gf.n != 5 || fchdir(here) == -1)
		abort();
	atexit(cleanup);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct graph *gv[5];
	struct term_geom geom;
	struct pme_error err = { 0 };
	size_t first;

	if (devnull == -1)
		setup();
	if (size < 3)
		return 0;
	geom.rows = data[0] > 0 ? data[0] : 1;
	geom.cols = data[1] > 0 ? data[1] : 1;
	geom.colour = data[2] % 3;
	geom.fd = devnull;
	first = (size_t)(data[2] >> 3) % gf.n;
	for (size_t i = 0; i < gf.n; i++)
		gv[i] = &gf.g[(first + i) % gf.n];
	err.msg[0] = 0;
	if (fchdir(there) == -1)
		abort();
	if (term_replay(&src, gv, gf.n, (data[2] >> 2) & 1, &geom, data + 3,
	    size - 3, &err) == -1 && strstr(err.msg, "write") == NULL) {
		fprintf(stderr, "term_replay: %s\n", err.msg);
		abort();
	}
	if (fchdir(here) == -1)
		abort();
	return 0;
}
