/*
 * evbench.c - nanoseconds per event: pme_event_post() into an event file
 * on one thread and on two at once, beside the baseline of a plain
 * buffered write (stdio, 64 KiB buffer) of the same 24 bytes per event
 * to a file in the same directory, measured in the same run.
 *
 *     evbench DIR EVENTS
 *
 * Prints "write NS", "post1 NS" and "post2 NS" (per event, wall time over
 * all events of both threads, the close included), and "cpu1 NS" and
 * "cpu2 NS": the posting threads' own CPU time per event, what a post
 * costs the program (the library's writer thread encodes and writes).  Then it loads the
 * one-thread file, DIR/big.sim (EVENTS events in 32 rows), as stats
 * does (pme_eventfile_open, then every event streamed), beside a plain
 * sequential read(2) of the same file's bytes, and prints "load MEV/S"
 * and "read MEV/S" (the same events' bytes per second, as events).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "pme_event.h"

static long nev;
static uint32_t type;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double tcpu[2];		/* each poster's own CPU time */

static double
thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *
poster(void *arg)
{
	uint32_t base = (uint32_t)(uintptr_t)arg;
	double c0 = thread_cpu();

	for (long i = 0; i < nev; i++)
		pme_event_post(type, base + (uint32_t)(i & 31), (uint64_t)i * 3,
		    i & 1023);
	tcpu[base / 32] = thread_cpu() - c0;
	return NULL;
}

static double
posting(const char *path, int threads)
{
	pthread_t th[2];
	struct pme_error err;
	double t0, t1;

	if (pme_event_open(path, 0, &err) == -1) {
		fprintf(stderr, "evbench: %s\n", err.msg);
		exit(1);
	}
	type = pme_event_type("EV_BENCH");
	t0 = now();
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, poster,
		    (void *)(uintptr_t)(i * 32));
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	if (pme_event_close(&err) == -1) {
		fprintf(stderr, "evbench: %s\n", err.msg);
		exit(1);
	}
	t1 = now();
	printf("cpu%d %.2f\n", threads, (tcpu[0] + (threads > 1 ? tcpu[1] :
	    0)) * 1e9 / ((double)nev * threads));
	return (t1 - t0) * 1e9 / ((double)nev * threads);
}

static double
writing(const char *path)
{
	struct { uint64_t t; int64_t v; uint32_t type, proc; } r;
	static char buf[1 << 16];
	double t0, t1;
	FILE *fp;

	if ((fp = fopen(path, "w")) == NULL) {
		perror(path);
		exit(1);
	}
	setvbuf(fp, buf, _IOFBF, sizeof(buf));
	t0 = now();
	for (long i = 0; i < nev; i++) {
		r.t = (uint64_t)i * 3;
		r.v = i & 1023;
		r.type = 2;
		r.proc = (uint32_t)(i & 31);
		fwrite(&r, sizeof(r), 1, fp);
	}
	fclose(fp);
	t1 = now();
	return (t1 - t0) * 1e9 / nev;
}

static int
count(const struct pme_ev *ev, size_t n, void *arg)
{
	uint64_t *sum = arg;

	for (size_t i = 0; i < n; i++)
		sum[0] += ev[i].time ^ (uint64_t)ev[i].value;
	sum[1] += n;
	return 0;
}

static double
loading(const char *path)
{
	struct pme_eventfile *ef;
	struct pme_error err;
	uint64_t sum[2] = { 0, 0 };
	double t0 = now(), t1;

	if ((ef = pme_eventfile_open(path, &err)) == NULL ||
	    pme_eventfile_events(ef, count, sum, &err) != 0) {
		fprintf(stderr, "evbench: %s\n", err.msg);
		exit(1);
	}
	pme_eventfile_close(ef);
	t1 = now();
	if (sum[1] != (uint64_t)nev) {
		fprintf(stderr, "evbench: %llu events read, %ld posted\n",
		    (unsigned long long)sum[1], nev);
		exit(1);
	}
	return nev / (t1 - t0) / 1e6;
}

static double
reading(const char *path)
{
	static char buf[1 << 16];
	double t0 = now(), t1;
	ssize_t k;
	int fd;

	if ((fd = open(path, O_RDONLY)) == -1) {
		perror(path);
		exit(1);
	}
	while ((k = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	t1 = now();
	return nev / (t1 - t0) / 1e6;
}

int
main(int argc, char **argv)
{
	char p1[4096], p2[4096], pw[4096];
	double a, b, w;

	if (argc != 3) {
		fprintf(stderr, "usage: evbench dir events\n");
		return 2;
	}
	nev = atol(argv[2]);
	snprintf(p1, sizeof(p1), "%s/big.sim", argv[1]);
	snprintf(p2, sizeof(p2), "%s/two.sim", argv[1]);
	snprintf(pw, sizeof(pw), "%s/plain.bin", argv[1]);
	w = writing(pw);
	unlink(pw);
	a = posting(p1, 1);
	printf("write %.2f\npost1 %.2f\n", w, a);
	fflush(stdout);
	printf("read %.1f\n", reading(p1));
	printf("load %.1f\n", loading(p1));
	nev /= 2;
	b = posting(p2, 2);
	unlink(p2);
	printf("post2 %.2f\n", b);
	return 0;
}
