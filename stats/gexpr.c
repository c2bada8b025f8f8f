/*
 * gexpr.c - the graph file's arithmetic expressions (evaluated, copied,
 * freed, written back) and the check of a format descriptor.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "pme.h"
#include "util.h"

int
gexpr_eval(const struct gexpr *e, gsym_fn fn, void *arg, double *v,
    struct pme_error *err)
{
	double a, b = 0;

	switch (e->op) {
	case GE_NUM:
		*v = e->num;
		return 0;
	case GE_SYM:
		if (fn == NULL || fn(e->sym, arg, v) == -1) {
			pme_seterr(err, PME_EINVAL,
			    "unknown symbol '%s'", e->sym);
			return -1;
		}
		return 0;
	default:
		break;
	}
	if (gexpr_eval(e->a, fn, arg, &a, err) == -1 ||
	    (e->op != GE_NEG &&
	    gexpr_eval(e->b, fn, arg, &b, err) == -1))
		return -1;
	switch (e->op) {
	case GE_NEG:	*v = -a; break;
	case GE_ADD:	*v = a + b; break;
	case GE_SUB:	*v = a - b; break;
	case GE_MUL:	*v = a * b; break;
	default:
		if (b == 0) {
			pme_seterr(err, PME_EINVAL, "division by zero");
			return -1;
		}
		*v = a / b;
		break;
	}
	return 0;
}

void
gexpr_free(struct gexpr *e)
{
	if (e == NULL)
		return;
	gexpr_free(e->a);
	gexpr_free(e->b);
	free(e->sym);
	free(e);
}

struct gexpr *
gexpr_dup(const struct gexpr *e)
{
	struct gexpr *d;

	if (e == NULL)
		return NULL;
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return NULL;
	d->op = e->op;
	d->num = e->num;
	if ((e->sym != NULL && (d->sym = strdup(e->sym)) == NULL) ||
	    (e->a != NULL && (d->a = gexpr_dup(e->a)) == NULL) ||
	    (e->b != NULL && (d->b = gexpr_dup(e->b)) == NULL)) {
		gexpr_free(d);
		return NULL;
	}
	return d;
}

/* How tightly an operator binds: leaves and negation most. */
static int
prec(const struct gexpr *e)
{
	switch (e->op) {
	case GE_ADD:
	case GE_SUB:
		return 1;
	case GE_MUL:
	case GE_DIV:
		return 2;
	default:
		return 3;
	}
}

/* Writes e in parentheses when it binds less tightly than min. */
static int
write_sub(const struct gexpr *e, int min, FILE *fp)
{
	int paren = prec(e) < min;

	if (paren && fputc('(', fp) == EOF)
		return -1;
	if (gexpr_write(e, fp) == -1)
		return -1;
	return paren && fputc(')', fp) == EOF ? -1 : 0;
}

int
gexpr_write(const struct gexpr *e, FILE *fp)
{
	static const char ops[] = "  -+-*/";	/* by enum gop */
	int p = prec(e);

	switch (e->op) {
	case GE_NUM:
		return fprintf(fp, "%.17g", e->num) < 0 ? -1 : 0;
	case GE_SYM:
		return fputs(e->sym, fp) == EOF ? -1 : 0;
	case GE_NEG:
		/* A space, so that a negative number after it is not "--". */
		if (fputs("- ", fp) == EOF)
			return -1;
		return write_sub(e->a, 3, fp);
	default:
		/* Left-associative: the right operand of a - b - c's kind
		 * needs parentheses at the same level, the left does not. */
		if (write_sub(e->a, p, fp) == -1 ||
		    fprintf(fp, " %c ", ops[e->op]) < 0)
			return -1;
		return write_sub(e->b, p + 1, fp);
	}
}

/* Skips up to two digits at *s; -1 when a third follows. */
static int
two_digits(const char **s)
{
	int n = 0;

	while (isdigit((unsigned char)**s)) {
		if (++n > 2)
			return -1;
		(*s)++;
	}
	return 0;
}

/* Checks the conversion after the '%' at s; *next is past it. */
static int
check_conv(const char *s, const char **next, struct pme_error *err)
{
	s += strspn(s, "-+ #0");
	if (*s == '*' || (*s == '.' && s[1] == '*')) {
		pme_seterr(err, PME_EINVAL,
		    "'*' widths and precisions are not allowed");
		return -1;
	}
	if (two_digits(&s) == -1) {
		pme_seterr(err, PME_EINVAL, "a width of more than two digits");
		return -1;
	}
	if (*s == '.') {
		s++;
		if (*s == '*' || two_digits(&s) == -1) {
			pme_seterr(err, PME_EINVAL, *s == '*' ?
			    "'*' widths and precisions are not allowed" :
			    "a precision of more than two digits");
			return -1;
		}
	}
	if (*s == '\0') {
		pme_seterr(err, PME_EINVAL,
		    "a '%%' with no conversion at the end");
		return -1;
	}
	if (strchr("hlLqjzt", *s) != NULL) {
		pme_seterr(err, PME_EINVAL,
		    "length modifier '%c' is not allowed", *s);
		return -1;
	}
	if (*s == 'n') {
		pme_seterr(err, PME_EINVAL, "'%%n' is not allowed");
		return -1;
	}
	if (strchr("fFeEgGaA", *s) == NULL) {
		if (isprint((unsigned char)*s))
			pme_seterr(err, PME_EINVAL,
			    "'%%%c' is not a floating conversion", *s);
		else
			pme_seterr(err, PME_EINVAL,
			    "'%%' before a character that "
			    "is not a floating conversion");
		return -1;
	}
	*next = s + 1;
	return 0;
}

int
gformat_check(const char *fmt, struct pme_error *err)
{
	const char *s = fmt;
	int n = 0;

	while ((s = strchr(s, '%')) != NULL) {
		if (s[1] == '%') {
			s += 2;
			continue;
		}
		if (check_conv(s + 1, &s, err) == -1)
			return -1;
		if (++n > 1) {
			pme_seterr(err, PME_EINVAL, "more than one conversion");
			return -1;
		}
	}
	if (n == 0) {
		pme_seterr(err, PME_EINVAL, "no floating conversion");
		return -1;
	}
	return 0;
}
