/*
 * trace.h - pmetrace's modules: the tally (bucket file being filled, load
 * modules matched to the program's objects), the ELF reader and the two
 * engines.  Not installed; the runtime's header is pmetrace.h.
 */
#ifndef TRACE_H
#define TRACE_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pme.h"

/* ----------------------------------------------------------- tally.c */

struct tr_tally;

/* Options of the run, shared by the engines. */
struct tr_opts {
	char *const	*argv;		/* the command */
	const char	*exe;		/* argv[0] found in PATH, real path */
	int		 verbose;	/* -v given */
	int		 quiet;		/* -q given */
	int		 force;		/* -f: build-ids may differ */
	int		 nopin;		/* -P: step engine on any CPU */
	const char	*start, *stop;	/* --start, --stop: routines' names */
	char		*startspec;	/* their entries, "OFFSET:PATH" */
	char		*stopspec;	/*   (tr_routine_spec), or NULL */
	const struct pme_bucketfile *bf; /* the bucket file being filled */
};

/*
 * The bucket file bf, being filled.  Objects of the program (files it ran
 * code in) are matched to bf's load modules by pme_fill_match() (forced
 * with force); an object that matches none is added as a module of its
 * own, so that its counts are kept as outside counts.  NULL with err
 * filled when out of memory (bf's lookup index is built here).
 */
struct tr_tally	*tr_tally_new(struct pme_bucketfile *bf,
		    const struct tr_opts *o, struct pme_error *err);
void		 tr_tally_free(struct tr_tally *t);
/*
 * The module for the object at path (as mapped; made real here) with
 * build-id id[0..idlen); ismain when it is a process's main executable.
 * Cached by path.  PME_NONE when path is not a file ("[vdso]", "???").
 */
uint32_t	 tr_tally_module(struct tr_tally *t, const char *path,
		    const uint8_t *id, uint32_t idlen, int ismain);
/*
 * n instructions at link-time address vaddr of module (PME_NONE: no
 * module, unmapped; run-time address runaddr, looked up in the buckets
 * of absolute addresses when the file has any; haverun 0 when unknown).
 */
void		 tr_tally_add(struct tr_tally *t, uint32_t module,
		    uint64_t vaddr, uint64_t runaddr, int haverun, uint64_t n);
/* n calls to the routine entered at vaddr of module. */
void		 tr_tally_calls(struct tr_tally *t, uint32_t module,
		    uint64_t vaddr, uint64_t n);
/*
 * n jumps to vaddr of module from code of module from (PME_NONE: in no
 * file), counted as calls as pmevg counts them: into another module, or
 * to an entry of the unit of the bucket holding vaddr (a range's start;
 * a line's routine's when the unit is of kind LINE).  A jump after a
 * move into the stack pointer (switched: longjmp, an exception's
 * landing, trace/x86sp.h) returns into an older frame: into a routine
 * (or its line) it is a call only at the entry, wherever it comes from.
 */
void		 tr_tally_jumps(struct tr_tally *t, uint32_t module,
		    uint64_t vaddr, uint32_t from, int switched, uint64_t n);
/* 0 when at least one module holding buckets matched an object the
 * program ran (or force); else -1 with a message in err naming the
 * mismatches. */
int		 tr_tally_check(struct tr_tally *t, const char *bfname,
		    struct pme_error *err);
/* Warnings the tally has for the user (build-ids that differ), one per
 * call, NULL when done. */
const char	*tr_tally_warning(struct tr_tally *t);

/* ------------------------------------------------------------ engines */

/*
 * Each engine runs o->argv and tallies into t.  It returns 0 when the
 * counts are in t, -1 with err filled when they are not, ENGINE_MISSING
 * when the engine cannot run here at all (err says why; another engine
 * may be tried).  *status is the program's exit status as a shell gives
 * it (0-255, 128 + signal), or -1 when the program did not run.
 */
#define ENGINE_MISSING	(-2)

int		 engine_callgrind(struct tr_tally *t, const struct tr_opts *o,
		    int *status, struct pme_error *err);
int		 engine_step(struct tr_tally *t, const struct tr_opts *o,
		    int *status, struct pme_error *err);
int		 engine_pmevg(struct tr_tally *t, const struct tr_opts *o,
		    int *status, struct pme_error *err);
int		 engine_qemu(struct tr_tally *t, const struct tr_opts *o,
		    int *status, struct pme_error *err);
/* Every counts file in pmevg's format (pv.*) in dir, written by engine's
 * tool (pmevg.c; the qemu engine's plugin writes the same), read into t;
 * the tool's messages name engine. */
int		 tr_pvdir_read(struct tr_tally *t, const struct tr_opts *o,
		    const char *dir, const char *engine, struct pme_error *err);
/*
 * For the fuzz targets: one callgrind output file buf[0..len) with the
 * valgrind log of its process log[0..loglen) (none when log is NULL),
 * and one pmevg counts file (a region dump only when region), read into
 * t as the engines read them.  0, or -1 with err filled (1: a pmevg file
 * skipped, not of the region).
 */
int		 tr_callgrind_read(struct tr_tally *t, const struct tr_opts *o,
		    const char *buf, size_t len, const char *log,
		    size_t loglen, struct pme_error *err);
int		 tr_pmevg_read(struct tr_tally *t, const char *name,
		    int region, struct pme_error *err);
/* A mapping of code the step engine found in /proc/PID/maps: link-time
 * address = run-time + delta (modulo 2^64) in module (or PME_NONE). */
struct tr_map {
	uint64_t	 start, end, delta;
	uint32_t	 module;
};
/* For the fuzz target (x86-64 only): the code mappings of the maps text
 * fp of a process whose executable is exe, as the step engine reads them,
 * in *out (the caller frees it); how many. */
size_t		 tr_step_maps(struct tr_tally *t, FILE *fp, const char *exe,
		    struct tr_map **out);

/*
 * --start, --stop (startstop.c): the entry of the routine called name in
 * the objects of bf's load modules as "OFFSET:PATH" (its file offset in
 * hexadecimal, the object's real path) in out; -1 with err filled when
 * no object has such a routine.
 */
int		 tr_routine_spec(struct pme_bucketfile *bf, const char *name,
		    char *out, size_t len, struct pme_error *err);

char		*callgrind_find(void);
/* name as execvp(3) would find it (the caller frees it), or NULL. */
char		*tr_find_in_path(const char *name);
/* Its real path in out[PATH_MAX], or "" when not found. */
void		 tr_real_command(const char *name, char *out);

/*
 * Running valgrind (callgrind.c), for the engines that do.  A temporary
 * directory for its output (TMPDIR, else /tmp; the caller frees the name,
 * and removes it with pme_remove_dir()), which pmetrace's guard (prog.h)
 * removes should pmetrace be killed, as it kills valgrind (tr_spawn()),
 * unless PMETRACE_KEEP keeps it; the engine has the guard forget both
 * once valgrind has ended.
 */
char		*tr_tmpdir(struct pme_error *err);

/* The signals pmetrace waits with blocked while valgrind runs, and what
 * they were before. */
struct tr_sigsave {
	sigset_t	 set, old;	/* blocked, and the mask before */
	struct sigaction chld;		/* SIGCHLD's disposition before */
};
void		 tr_block_signals(struct tr_sigsave *ss);
/* Back to the signals as they were; one sent to pmetrace while
 * valgrind ran takes effect now. */
void		 tr_restore_signals(struct tr_sigsave *ss);
/*
 * Starts vg with its arguments args[0..n) (args[0] its name, the last
 * "--") followed by the command, PMETRACE_ENGINE=engine and, when vglib
 * is not NULL, VALGRIND_LIB=vglib in its environment: its pid, or -1.
 */
pid_t		 tr_spawn(const char *vg, char *const *args, size_t n,
		    const char *engine, const char *vglib,
		    const struct tr_opts *o, const struct tr_sigsave *ss,
		    struct pme_error *err);
/* Waits for pid, passing on the signals another process sends pmetrace;
 * -1 when it cannot. */
int		 tr_wait_child(pid_t pid, const struct tr_sigsave *ss, int *st);

#endif /* TRACE_H */
