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
 * The seed's default file names, in the current directory: what every
 * program and runtime reads and writes when no name is given (DESIGN.md,
 * section 1).  The event file's is public: PME_EVENT_FILE (pme_event.h).
 */
#define PME_DEFAULT_PMD	"PMEFILE.PMD"	/* program definition */
#define PME_DEFAULT_PME	"PMEFILE.PME"	/* bucket file */
#define PME_DEFAULT_PMS	"PMEFILE.PMS"	/* sample file */
#define PME_DEFAULT_HIS	"PMEFILE.HIS"	/* histogram file */

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
 * Before writing the output out, for a program that replaces it
 * (through a temporary file, util.h): -1 with err filled (PME_EINVAL)
 * when out is one of the files in[0..nin) that the program reads (the
 * same file, or the same symbolic link) -- the output would replace the
 * input it is made of -- or holds a pme file of a kind other than kind
 * (kind 0: out is no pme file, and no pme file is replaced by it); what
 * is the output in a message's words ("a histogram"; NULL: kind's).
 * The message names both files: "'s.PMS' is the input 's.PMS': not
 * replaced by a histogram; name another output".  0 when out may be
 * written: it does not exist, is "-", a name of a descriptor or a
 * special file (written, not replaced), an empty or other file, or a pme
 * file of kind.  A caller whose output may be its input (pmehisto's -B
 * of -b's file, a bucket file pmetrace fills, a sum pmemerge adds into
 * one of its inputs) leaves that input out of in.
 */
int		 pme_out_check(const char *out, uint32_t kind,
		    const char *what, const char *const *in, size_t nin,
		    struct pme_error *err);

/*
 * What exec'ing the program file (found as execvp(3) finds it) does to
 * the credentials (setid.h's setid_exec()): SETID_UID, SETID_GID or
 * SETID_CAPS, with who filled (n bytes) in a message's words ("a
 * set-user-ID program of 'root' (uid 0)", "a set-group-ID program of
 * 'games' (gid 60)", "a program with file capabilities"); SETID_NONE,
 * who untouched, when it changes nothing or file is not found.
 */
int		 pme_setid_words(const char *file, char *who, size_t n);

/*
 * The guard: what a program leaves behind when it is killed, even by
 * SIGKILL, which it cannot catch, finished for it by a child that only
 * waits on a pipe.  pme_guard_start() forks it (prog names it in its
 * messages, name is its process name): it has a process group of its
 * own and ignores SIGINT, SIGQUIT, SIGHUP and SIGTERM, so that what
 * kills the program's group (^C, timeout(1)) does not reach it; 0, or
 * -1 with err filled.  Then the program tells it what to do should the
 * program end before pme_guard_end(): pme_guard_kill() kills pid
 * (SIGKILL: a child the program runs, which would run on unattended);
 * pme_guard_rmdir() removes the directory dir and the files in it (a
 * temporary directory); pme_guard_file() finishes an output written
 * live (util.h): removes tmp, the previous file kept aside, or, when
 * isnew, renames tmp, the new file, over path.  pme_guard_forget()
 * forgets what it was told (done by the program itself).  When the pipe
 * closes (the program ended), the guard kills first, then does the rest
 * in the order told; told pme_guard_end() (the program is ending well),
 * it does nothing, and pme_guard_end() waits for it.  Each does nothing
 * without a guard.
 */
int		 pme_guard_start(const char *prog, const char *name,
		    struct pme_error *err);
void		 pme_guard_kill(pid_t pid);
void		 pme_guard_rmdir(const char *dir);
void		 pme_guard_file(const char *tmp, const char *path, int isnew);
void		 pme_guard_forget(void);
void		 pme_guard_end(void);

/* Removes the directory dir and the files in it (not directories). */
void		 pme_remove_dir(const char *dir);

/* Whether pid is a process that has not ended (not even a zombie). */
int		 pme_pid_alive(long pid);

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
