/*
 * stmtmark.h - HP Caliper's statement marks (pmehisto -V caliper): "~"
 * before a line number whose attribution is approximate because of
 * optimization, "*>" before a statement out of order, decided from the
 * line table of one function (stmtmark.c; the rules in pmehisto(1)).
 */
#ifndef STMTMARK_H
#define STMTMARK_H

#include <stddef.h>
#include <stdint.h>

/* A line-table entry of the function, as pme_symline has it. */
struct stmt_at {
	uint64_t	 start;
	const char	*file;		/* interned: equal names, equal
					   pointers */
	uint32_t	 line;
};

#define STMT_APPROX	1	/* "~" */
#define STMT_ORDER	2	/* "*>" */

/* The marks of each entry's statement, v[0..n) being the function's
 * entries in address order: marks[i] STMT_* or'ed, 0 for none.  0, or
 * -1 when out of memory. */
int	 stmt_marks(const struct stmt_at *v, size_t n, int *marks);

#endif /* STMTMARK_H */
