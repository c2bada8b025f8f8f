/*
 * stmtmark.c - HP Caliper's statement marks, from the line table of one
 * function (its entries in address order, consecutive entries of one
 * line being one piece of it):
 *
 *   *>  a statement out of order: its code begins before the code of a
 *       statement on an earlier line of the same file begins (the
 *       compiler moved it up);
 *   ~   a line approximate: in a function with a statement out of order
 *       (optimized code), a statement whose code is in more than one
 *       piece, other statements' instructions between its own, so that
 *       which line a sample is booked to is the compiler's choice.
 *
 * Code compiled without optimization has none: its statements begin in
 * source order, though a loop's line is in pieces.
 */
#include <stdlib.h>

#include "stmtmark.h"

/* A statement of the function: where it begins, in how many pieces. */
struct stmt {
	const char	*file;
	uint32_t	 line;
	uint64_t	 first;
	size_t		 pieces;
};

/* The statements of v[0..n) into s (*ns of them), and each entry's in
 * of[]. */
static void
statements(const struct stmt_at *v, size_t n, struct stmt *s, size_t *ns,
    size_t *of)
{
	size_t i, k;

	*ns = 0;
	for (i = 0; i < n; i++) {
		for (k = 0; k < *ns && (s[k].file != v[i].file ||
		    s[k].line != v[i].line); k++)
			;
		if (k == *ns) {
			s[k].file = v[i].file;
			s[k].line = v[i].line;
			s[k].first = v[i].start;
			s[k].pieces = 0;
			(*ns)++;
		}
		if (v[i].start < s[k].first)
			s[k].first = v[i].start;
		if (i == 0 || of[i - 1] != k)
			s[k].pieces++;
		of[i] = k;
	}
}

int
stmt_marks(const struct stmt_at *v, size_t n, int *marks)
{
	struct stmt *s = calloc(n + 1, sizeof(*s));
	size_t *of = calloc(n + 1, sizeof(*of)), ns, i, j;
	int *m = calloc(n + 1, sizeof(*m)), moved = 0;

	if (s == NULL || of == NULL || m == NULL) {
		free(s);
		free(of);
		free(m);
		return -1;
	}
	statements(v, n, s, &ns, of);
	for (i = 0; i < ns; i++)
		for (j = 0; j < ns; j++)
			if (s[j].file == s[i].file && s[j].line < s[i].line &&
			    s[j].first > s[i].first) {
				m[i] = STMT_ORDER;
				moved = 1;
				break;
			}
	for (i = 0; i < ns; i++)
		if (moved && s[i].pieces > 1)
			m[i] |= STMT_APPROX;
	for (i = 0; i < n; i++)
		marks[i] = m[of[i]];
	free(s);
	free(of);
	free(m);
	return 0;
}
