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

ssize_t
pme_read_line(FILE *fp, char **buf, size_t *cap)
{
	ssize_t n = getline(buf, cap, fp);

	if (n < 0)
		return -1;
	while (n > 0 && ((*buf)[n - 1] == '\n' || (*buf)[n - 1] == '\r'))
		(*buf)[--n] = '\0';
	return n;
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
