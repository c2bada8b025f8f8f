/*
 * peakrss - runs a command and writes its peak resident set size:
 *
 *     peakrss [-c] OUT COMMAND [ARGUMENT...]
 *
 * OUT gets one line, the command's peak RSS in KiB (getrusage's
 * ru_maxrss of the child, from wait4(2)), whatever its exit status;
 * with -c, then its user and system CPU time in microseconds (those of
 * the processes it waited for included) and its wall time in
 * microseconds, on the same line.
 * Exits with the command's status (128 + signal if it was killed), 127
 * when it could not be run.  For tests/bench/bench_pmehisto.sh and
 * tests/sh/pmehisto_bombs.sh, where /usr/bin/time may be missing.
 */
#include <sys/resource.h>
#include <sys/wait.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long
usec(const struct timeval *t)
{
	return (long long)t->tv_sec * 1000000 + t->tv_usec;
}

int
main(int argc, char **argv)
{
	struct rusage ru;
	struct timespec t0, t1;
	FILE *out;
	pid_t pid;
	int status, cpu = 0;

	if (argc > 1 && strcmp(argv[1], "-c") == 0) {
		cpu = 1;
		argc--;
		argv++;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: peakrss [-c] out command "
		    "[argument ...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((pid = fork()) == -1) {
		perror("peakrss: fork");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) == -1) {
		perror("peakrss: wait4");
		return 127;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if ((out = fopen(argv[1], "w")) == NULL ||
	    fprintf(out, "%ld", ru.ru_maxrss) < 0 || (cpu && fprintf(out,
	    " %lld %lld %lld", usec(&ru.ru_utime), usec(&ru.ru_stime),
	    (long long)(t1.tv_sec - t0.tv_sec) * 1000000 +
	    (t1.tv_nsec - t0.tv_nsec) / 1000) < 0) ||
	    fprintf(out, "\n") < 0 || fclose(out) != 0) {
		perror(argv[1]);
		return 127;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	    128 + WTERMSIG(status);
}
