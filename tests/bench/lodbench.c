/*
 * lodbench.c - the interactive view's redraw: grid_draw() (a pass over
 * the file) beside lod_draw() (the level-of-detail index, stats/lod.c)
 * on the same window of an event file of EVENTS state events in 32
 * rows, written here.
 *
 *     lodbench DIR EVENTS
 *
 * Prints "build MS" (lod_build: reading the file into the index), then
 * for the whole run ("full") and a thousandth of it in the middle
 * ("zoom"), 200 columns, all rows: the best of three redraws in
 * milliseconds by grid_draw and by lod_draw, and their ratio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats.h"

static const char spec[] =
    "StateGraph states (x, 0, NO_OF_PROCESSORS - 1) {\n"
    "\taction { EV_STATE: VALUE(x) }\n"
    "\tmap { 0: black \"Idle\", 1: gray \"Busy\", 2: red \"Lock\" }\n"
    "}\n";

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void
write_file(const char *path, long n)
{
	struct pme_error err;
	uint64_t t = 0;
	unsigned seed = 7;

	if (pme_event_open(path, 0, &err) == -1) {
		fprintf(stderr, "lodbench: %s\n", pme_strerror(&err));
		exit(1);
	}
	pme_event_processors(32);
	for (long i = 0; i < n; i++) {
		seed = seed * 1103515245 + 12345;
		t += 1 + (seed >> 16) % 20;
		pme_event_post(PME_EV_STATE, (uint32_t)(i % 32), t,
		    (seed >> 8) % 3);
	}
	if (pme_event_close(&err) == -1) {
		fprintf(stderr, "lodbench: %s\n", pme_strerror(&err));
		exit(1);
	}
}

static double
best(struct grid *gr, struct lod *l, const struct window *w)
{
	char err[512];
	double b = 0;

	for (int i = 0; i < 3; i++) {
		double t0 = now_ms();
		int rc = l != NULL ? lod_draw(l, gr, w, err, sizeof(err)) :
		    grid_draw(gr, w, err, sizeof(err));

		if (rc == -1) {
			fprintf(stderr, "lodbench: %s\n", err);
			exit(1);
		}
		t0 = now_ms() - t0;
		if (i == 0 || t0 < b)
			b = t0;
	}
	return b;
}

int
main(int argc, char **argv)
{
	char path[4096], err[512];
	struct gfile gf;
	struct src s;
	struct grid gr;
	struct lod l;
	struct window w;
	double t, g, d;

	if (argc != 3) {
		fprintf(stderr, "usage: lodbench dir events\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/lod.sim", argv[1]);
	write_file(path, atol(argv[2]));
	if (gfile_parse(spec, strlen(spec), "lodbench", &gf, err,
	    sizeof(err)) == -1 || src_open_events(&s, path, err,
	    sizeof(err)) == -1 || grid_prepare(&gr, &gf.g[0], &s, err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "lodbench: %s\n", err);
		return 1;
	}
	t = now_ms();
	if (lod_build(&l, &gr, err, sizeof(err)) == -1) {
		fprintf(stderr, "lodbench: %s\n", err);
		return 1;
	}
	printf("build %.3f\n", now_ms() - t);
	grid_whole(&gr, 200, &w);
	g = best(&gr, NULL, &w);
	d = best(&gr, &l, &w);
	printf("full %.3f %.3f %.1f\n", g, d, g / (d > 0 ? d : 1e-3));
	w.t0 = gr.tlo + (gr.thi - gr.tlo) / 2;
	w.t1 = w.t0 + (gr.thi - gr.tlo) / 1000 + 1;
	g = best(&gr, NULL, &w);
	d = best(&gr, &l, &w);
	printf("zoom %.3f %.3f %.1f\n", g, d, g / (d > 0 ? d : 1e-3));
	lod_free(&l);
	grid_free(&gr);
	src_close(&s);
	gfile_free(&gf);
	return 0;
}
