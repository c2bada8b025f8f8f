/*
 * prog.h - program support: what every pme program (and, where they can,
 * the runtimes) does the same way, in one place: the seed's questions on
 * a terminal, and a child's end as an exit status.  With the name rules
 * and atomic output of util.h.  Internal: in libpme.a for the programs,
 * hidden from libpme.so's exports (lib/libpme.map).  The one part of lib/
 * that talks to the user, as the seed's dialogue must.
 */
#ifndef PME_PROG_H
#define PME_PROG_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "pme.h"

/*
 * The seed's dialogue on a terminal.  pme_read_line() reads a line of fp
 * into *buf (grown as getline(3) grows it), without its newline or
 * carriage return; returns its length, or -1 at the end of input, or -2
 * when the line is longer than PME_LINE_MAX bytes (then what was read of
 * it is in *buf and the rest unread: an endless line, /dev/zero, is
 * refused before it takes all memory).  A NUL byte is kept: the caller
 * tells a line that holds one by its length.
 * pme_ask() writes question to standard error and reads the answer from
 * standard input: the answer (the caller frees it), or a copy of def
 * (NULL when def is) for a blank answer or the end of input, when it ends
 * the question's line.
 */
#define PME_LINE_MAX	(1u << 20)
ssize_t		 pme_read_line(FILE *fp, char **buf, size_t *cap);
char		*pme_ask(const char *question, const char *def);

/*
 * The exit status a shell gives for a child's end, status as waitpid(2)
 * returns it: its exit code (0-255), or 128 + the signal that killed it.
 */
int		 pme_exit_status(int status);

/*
 * For a program that writes files, first thing: a file size limit
 * (ulimit -f) then makes write(2) fail with EFBIG, reported and cleaned
 * up as a full disk is, instead of SIGXFSZ killing the program in the
 * middle of a write.  Not before exec'ing another program, which would
 * inherit the ignored signal.
 */
void	 pme_prog_writes(void);

/*
 * A text report laid out already (pmehisto -V caliper) on a terminal:
 * text, its lines escaped, in pages of rows - 1 terminal rows (a line
 * wider than cols counts the rows it wraps to), with the commands of
 * pme_report_term() read from in after each page (S shows the last page;
 * /text searches the lines).  0, or -1 with err filled (no memory, or
 * writing out failed).  In render.c, beside the report's pager.
 */
int		 pme_text_term(const char *text, FILE *in, FILE *out, int rows,
		    int cols, struct pme_error *err);

#endif /* PME_PROG_H */
