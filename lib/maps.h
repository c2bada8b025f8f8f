/*
 * maps.h - reading /proc/PID/maps, the kernel's list of a process's
 * mappings, one a line:
 *
 *     55d4c0a00000-55d4c0a05000 r-xp 00001000 fd:01 1048600    /usr/bin/cat
 *
 * start-end (hex), permissions (r, w, x or -, then p or s), the offset in
 * the file (hex), the file's device major:minor (hex), its inode
 * (decimal), then, after spaces, the path up to the end of the line: an
 * absolute path (which may hold spaces, with " (deleted)" appended when
 * the file was removed), a pseudo path ([vdso], [stack], [heap],
 * [anon:name]) or nothing (anonymous memory).  One reader for pmeclock
 * -p's attach (sample/attach.c) and pmetrace's step engine (trace/step.c).
 * Internal: in libpme.a for the programs, hidden from libpme.so's exports
 * (lib/libpme.map).
 */
#ifndef PME_MAPS_H
#define PME_MAPS_H

#include <stdint.h>
#include <stdio.h>

#include "pme.h"

/* One line's fields. */
struct pme_maps_line {
	uint64_t	 start, end;	/* the addresses [start, end) */
	uint64_t	 offset;	/* of start in the file */
	uint64_t	 inode;
	uint32_t	 major, minor;	/* the file's device */
	char		 perms[5];	/* "r-xp" */
	int		 deleted;	/* the path ended in " (deleted)" */
	const char	*path;		/* without " (deleted)"; "" if none */
};

/*
 * Reads the lines of maps text fp, named name in messages, one a call:
 * pme_maps_next() fills *m and returns 1, returns 0 at the end (or after
 * an error of reading), or -1 with err filled for a line not in the
 * kernel's form ("'name': offset 0x1a0: line 4: what", the offset of the
 * byte at fault) and for an error of reading (PME_EIO); after a bad line
 * the next call reads the next.  Lines of any length.  m->path points
 * into the reader's line, valid until the next call.  pme_maps_end()
 * frees the line (not fp).
 */
struct pme_maps {
	FILE		*fp;
	const char	*name;
	char		*buf;
	size_t		 cap;
	uint64_t	 line;		/* lines read */
	uint64_t	 offset;	/* of the next line */
	int		 done;
};
void		 pme_maps_init(struct pme_maps *r, FILE *fp, const char *name);
int		 pme_maps_next(struct pme_maps *r, struct pme_maps_line *m,
		    struct pme_error *err);
void		 pme_maps_end(struct pme_maps *r);

/*
 * One line of len bytes (its newline, if any, last) followed by a NUL,
 * as getline(3) leaves it, parsed in place: the path is ended with a NUL
 * in line.  0, or -1 with *col the index of the byte at fault and *why
 * what is wrong with it.
 */
int		 pme_maps_parse(char *line, size_t len,
		    struct pme_maps_line *m, size_t *col, const char **why);

#endif
