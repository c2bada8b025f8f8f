/*
 * symbench - times libpme's symbol reader on one image:
 *	symbench [-q] IMAGE
 * opens IMAGE, loads the lines of every module and prints the counts, the
 * time taken (open, lines) in milliseconds and the peak resident memory
 * (getrusage) in kilobytes.  Used by bench_pmebuild.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "pme_symbols.h"

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int
main(int argc, char *argv[])
{
	const struct pme_symmod *m;
	const struct pme_symroutine *r;
	const struct pme_symline *l;
	struct pme_error err;
	struct pme_image *img;
	struct rusage ru;
	double t0, t1, t2;
	size_t nm, nr, nl;
	int quiet = argc > 1 && strcmp(argv[1], "-q") == 0;

	if (argc != 2 + quiet) {
		fprintf(stderr, "usage: symbench [-q] image\n");
		return 2;
	}
	t0 = now_ms();
	if ((img = pme_image_open(argv[1 + quiet], NULL, &err)) == NULL) {
		fprintf(stderr, "symbench: %s\n", pme_strerror(&err));
		return 1;
	}
	t1 = now_ms();
	if (pme_image_load_lines(img, PME_NONE, &err) == -1) {
		fprintf(stderr, "symbench: %s\n", pme_strerror(&err));
		pme_image_close(img);
		return 1;
	}
	t2 = now_ms();
	nm = pme_image_modules(img, &m);
	nr = pme_image_routines(img, &r);
	nl = pme_image_lines(img, &l);
	getrusage(RUSAGE_SELF, &ru);
	if (!quiet)
		printf("modules %zu routines %zu lines %zu open %.1f ms "
		    "lines %.1f ms peak %ld KB\n", nm, nr, nl, t1 - t0,
		    t2 - t1, ru.ru_maxrss);
	pme_image_close(img);
	return 0;
}
