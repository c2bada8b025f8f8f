/*
 * prog.c - program support (prog.h): the seed's questions, a child's end
 * as an exit status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "prog.h"

/* Room for n + 1 more bytes in *buf, grown by doubling: 0, or -1. */
static int
line_room(char **buf, size_t *cap, size_t n)
{
	size_t c = *cap ? *cap : 128;
	char *b;

	if (*buf != NULL && n + 1 < *cap)
		return 0;
	while (c <= n + 1)
		c *= 2;
	if ((b = realloc(*buf, c)) == NULL)
		return -1;
	*buf = b;
	*cap = c;
	return 0;
}

ssize_t
pme_read_line(FILE *fp, char **buf, size_t *cap)
{
	size_t n = 0;
	int c;

	for (;;) {
		if (line_room(buf, cap, n) == -1)
			return -1;
		if ((c = getc_unlocked(fp)) == EOF || c == '\n')
			break;
		if (n == PME_LINE_MAX) {
			(*buf)[n] = '\0';
			return -2;
		}
		(*buf)[n++] = (char)c;
	}
	if (c == EOF && n == 0)
		return -1;
	while (n > 0 && (*buf)[n - 1] == '\r')
		n--;
	(*buf)[n] = '\0';
	return (ssize_t)n;
}

char *
pme_ask(const char *question, const char *def)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;

	fputs(question, stderr);
	fflush(stderr);
	if ((n = pme_read_line(stdin, &buf, &cap)) < 0)
		fputc('\n', stderr);	/* end the prompt's line */
	if (n < 0 || strspn(buf, " \t") == (size_t)n) {
		free(buf);
		return def != NULL ? strdup(def) : NULL;
	}
	return buf;
}

int
pme_exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

void
pme_prog_writes(void)
{
	signal(SIGXFSZ, SIG_IGN);
}
