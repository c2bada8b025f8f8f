/*
 * peakrss - runs a command and writes its peak resident set size:
 *
 *     peakrss OUT COMMAND [ARGUMENT...]
 *
 * OUT gets one line, the command's peak RSS in KiB (getrusage's
 * ru_maxrss of the child, from wait4(2)), whatever its exit status.
 * Exits with the command's status (128 + signal if it was killed), 127
 * when it could not be run.  For tests/bench/bench_pmehisto.sh and
 * tests/sh/pmehisto_bombs.sh, where /usr/bin/time may be missing.
 */
#include <sys/resource.h>
#include <sys/wait.h>
#include <stdio.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct rusage ru;
	FILE *out;
	pid_t pid;
	int status;

	if (argc < 3) {
		fprintf(stderr, "usage: peakrss out command [argument ...]\n");
		return 2;
	}
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
	if ((out = fopen(argv[1], "w")) == NULL ||
	    fprintf(out, "%ld\n", ru.ru_maxrss) < 0 || fclose(out) != 0) {
		perror(argv[1]);
		return 127;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	    128 + WTERMSIG(status);
}
