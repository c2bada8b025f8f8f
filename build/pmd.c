/*
 * pmd.c - the statements of the program definition language: DEFINE UNITS,
 * DEFINE ADDRESSES, DEFINE SAMPLING, DEFINE OPTIONS, DEFINE CLEAR, END and
 * program unit specifications, read one line at a time.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pmd.h"

#define MAXQUALS 8

/* A parsed program unit specification. */
struct spec {
	uint32_t	 kind;
	const char	*name;
	const char	*quals[MAXQUALS];	/* IN names */
	size_t		 nquals;
	uint32_t	 bykind;		/* PME_NONE without BY */
	int		 hasrange;
	uint64_t	 start, end;		/* inclusive, as written */
	int		 hasstep;
	uint64_t	 step;
	uint32_t	 keyword;		/* PME_UNIT_LINES/NOLINES or 0 */
};

struct parser {
	struct pmd		*p;
	const struct pmd_token	*t;
	size_t			 i;
	const char		*line;
};

static void
vreport(struct pmd *p, const char *what, const char *fmt, va_list ap)
{
	if (p->file != NULL)
		fprintf(p->msg, "%s: %s:%u: %s", p->prog, p->file, p->line,
		    what);
	else
		fprintf(p->msg, "%s: %s", p->prog, what);
	vfprintf(p->msg, fmt, ap);
	fputc('\n', p->msg);
	fflush(p->msg);
}

void
pmd_error(struct pmd *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(p, "", fmt, ap);
	va_end(ap);
	if (!p->interactive)
		p->errors++;
}

void
pmd_warn(struct pmd *p, const char *fmt, ...)
{
	va_list ap;

	p->warnings++;
	if (p->quiet)
		return;
	va_start(ap, fmt);
	vreport(p, "warning: ", fmt, ap);
	va_end(ap);
}

void
pmd_init(struct pmd *p, FILE *out, FILE *msg, const char *prog)
{
	uint32_t k;

	memset(p, 0, sizeof(*p));
	p->out = out;
	p->msg = msg;
	p->prog = prog;
	p->file = "<stdin>";
	p->maxbuckets = PMD_MAXBUCKETS;
	pme_intern_init(&p->names, &p->arena);
	pme_vec_init(&p->units, sizeof(struct pmd_unit));
	pme_vec_init(&p->roots, sizeof(uint32_t));
	pme_vec_init(&p->modules, sizeof(struct pmd_module));
	pme_vec_init(&p->groups, sizeof(struct pmd_group));
	pme_vec_init(&p->buckets, sizeof(struct pmd_bucket));
	pme_vec_init(&p->bucket_ranges, sizeof(struct pme_range));
	pme_vec_init(&p->spans, sizeof(struct pmd_span));
	for (k = 0; k < PMD_MAXKINDS; k++)
		p->open[k] = PME_NONE;
}

void
pmd_free_units(struct pmd *p)
{
	uint32_t i;

	for (i = 0; i < p->units.n; i++) {
		struct pmd_unit *u = pmd_unit(p, i);

		if (u->rcap > 0)	/* else none, or in the arena */
			free(u->r);
		free(u->ch);
	}
	pme_vec_free(&p->units);
	pme_vec_free(&p->roots);
	free(p->hash);
	p->hash = NULL;
	p->hashcap = p->nhashed = 0;
	for (i = 0; i < PMD_MAXKINDS; i++)
		p->open[i] = PME_NONE;
}

void
pmd_free(struct pmd *p)
{
	uint32_t i;

	pmd_free_units(p);
	for (i = 0; i < p->modules.n; i++)
		free(PME_VEC_AT(&p->modules, struct pmd_module, i).buildid);
	for (i = 0; i < p->nkinds; i++)
		free(p->kinds[i]);
	pme_vec_free(&p->modules);
	pme_vec_free(&p->groups);
	pme_vec_free(&p->buckets);
	pme_vec_free(&p->bucket_ranges);
	pme_vec_free(&p->spans);
	pme_intern_free(&p->names);
	pme_arena_free(&p->arena);
}

uint32_t
pmd_nunits(const struct pmd *p)
{
	return (uint32_t)p->units.n;
}

uint32_t
pmd_find_kind(const struct pmd *p, const char *name)
{
	uint32_t k;

	for (k = 0; k < p->nkinds; k++)
		if (strcasecmp(p->kinds[k], name) == 0)
			return k;
	return PME_NONE;
}

int
pmd_kind_is(const struct pmd *p, uint32_t kind, const char *name)
{
	return kind < p->nkinds && strcasecmp(p->kinds[kind], name) == 0;
}

const char *
pmd_prompt(const struct pmd *p)
{
	switch (p->mode) {
	case PMD_MODE_UNITS:
		return "Enter program unit spec: ";
	case PMD_MODE_ADDRESSES:
		return "Enter address spec: ";
	case PMD_MODE_SAMPLING:
		return "Enter sampling spec: ";
	default:
		return "Enter DEFINE statement: ";
	}
}

/* ------------------------------------------------------------ parsing */

static const struct pmd_token *
peek(struct parser *ps)
{
	return &ps->t[ps->i];
}

static const struct pmd_token *
next(struct parser *ps)
{
	const struct pmd_token *t = &ps->t[ps->i];

	if (t->type != PMD_T_END)
		ps->i++;
	return t;
}

static int
is_kw(const struct pmd_token *t, const char *kw)
{
	return t->type == PMD_T_WORD && strcasecmp(t->text, kw) == 0;
}

static int
accept(struct parser *ps, enum pmd_tok type)
{
	if (peek(ps)->type != type)
		return 0;
	next(ps);
	return 1;
}

static int
unexpected(struct parser *ps, const char *wanted)
{
	const struct pmd_token *t = peek(ps);

	if (t->type == PMD_T_END)
		pmd_error(ps->p, "expected %s at end of line", wanted);
	else
		pmd_error(ps->p, "expected %s, found '%s'", wanted, t->text);
	return -1;
}

static int
at_end(struct parser *ps)
{
	if (peek(ps)->type == PMD_T_END)
		return 0;
	pmd_error(ps->p, "unexpected '%s' after the statement",
	    peek(ps)->text);
	return -1;
}

/* A hexadecimal number, with or without 0x. */
static int
hexnum(struct parser *ps, const char *what, uint64_t *v)
{
	const struct pmd_token *t = peek(ps);
	const char *s = t->text;
	uint64_t n = 0;
	int d;

	if (t->type != PMD_T_WORD)
		return unexpected(ps, what);
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s[2] != '\0')
		s += 2;
	for (; *s != '\0'; s++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else {
			pmd_error(ps->p, "'%s' is not a hexadecimal %s",
			    t->text, what);
			return -1;
		}
		if (n >> 60) {
			pmd_error(ps->p, "'%s' does not fit in 64 bits",
			    t->text);
			return -1;
		}
		n = n << 4 | (uint64_t)d;
	}
	next(ps);
	*v = n;
	return 0;
}

static int
name_token(struct parser *ps, const char *what, const char **name)
{
	const struct pmd_token *t = peek(ps);

	if (t->type != PMD_T_WORD && t->type != PMD_T_STRING)
		return unexpected(ps, what);
	if (t->text[0] == '\0') {
		pmd_error(ps->p, "empty %s", what);
		return -1;
	}
	*name = t->text;
	next(ps);
	return 0;
}

static uint32_t
kind_token(struct parser *ps)
{
	const struct pmd_token *t = peek(ps);
	uint32_t k;

	if (t->type != PMD_T_WORD) {
		unexpected(ps, "a unit kind");
		return PME_NONE;
	}
	if ((k = pmd_find_kind(ps->p, t->text)) == PME_NONE) {
		pmd_error(ps->p, "unknown unit kind '%s'", t->text);
		return PME_NONE;
	}
	next(ps);
	return k;
}

/* The fields after the name: [start - end] [, [step] [, keyword]]. */
/* LINES or NOLINES ending the statement, wherever the fields stop. */
static int
keyword_field(struct parser *ps, struct spec *s)
{
	s->keyword = is_kw(next(ps), "LINES") ? PME_UNIT_LINES :
	    PME_UNIT_NOLINES;
	return at_end(ps);
}

static int
is_lines_kw(struct parser *ps)
{
	return is_kw(peek(ps), "LINES") || is_kw(peek(ps), "NOLINES");
}

static int
spec_fields(struct parser *ps, struct spec *s)
{
	if (!accept(ps, PMD_T_COMMA))
		return at_end(ps);
	if (is_lines_kw(ps))
		return keyword_field(ps, s);
	if (peek(ps)->type == PMD_T_WORD) {
		if (hexnum(ps, "start address", &s->start) == -1)
			return -1;
		if (!accept(ps, PMD_T_DASH))
			return unexpected(ps, "'-' and an end address");
		if (hexnum(ps, "end address", &s->end) == -1)
			return -1;
		if (s->end < s->start) {
			pmd_error(ps->p, "end address %" PRIX64 " is below "
			    "start address %" PRIX64, s->end, s->start);
			return -1;
		}
		s->hasrange = 1;
	}
	if (!accept(ps, PMD_T_COMMA))
		return at_end(ps);
	if (peek(ps)->type == PMD_T_WORD && !is_lines_kw(ps)) {
		if (hexnum(ps, "step", &s->step) == -1)
			return -1;
		if (s->step == 0) {
			pmd_error(ps->p, "step must not be zero");
			return -1;
		}
		s->hasstep = 1;
	}
	if (!accept(ps, PMD_T_COMMA) && peek(ps)->type == PMD_T_END)
		return 0;
	if (is_lines_kw(ps))
		return keyword_field(ps, s);
	if (peek(ps)->type != PMD_T_END)
		return unexpected(ps, "LINES or NOLINES");
	return 0;
}

static int
parse_spec(struct parser *ps, struct spec *s)
{
	memset(s, 0, sizeof(*s));
	s->bykind = PME_NONE;
	if ((s->kind = kind_token(ps)) == PME_NONE)
		return -1;
	if (name_token(ps, "a unit name", &s->name) == -1)
		return -1;
	while (is_kw(peek(ps), "IN")) {
		next(ps);
		if (s->nquals == MAXQUALS) {
			pmd_error(ps->p, "more than %d IN qualifiers",
			    MAXQUALS);
			return -1;
		}
		if (name_token(ps, "a unit name after IN",
		    &s->quals[s->nquals++]) == -1)
			return -1;
	}
	if (is_kw(peek(ps), "BY")) {
		next(ps);
		if ((s->bykind = kind_token(ps)) == PME_NONE)
			return -1;
		return at_end(ps);
	}
	return spec_fields(ps, s);
}

/* ----------------------------------------------------- unit statements */

static int
has_ancestor(struct pmd *p, uint32_t u, const char *name)
{
	uint32_t a;

	for (a = pmd_unit(p, u)->parent; a != PME_NONE;
	    a = pmd_unit(p, a)->parent)
		if (strcmp(pmd_unit(p, a)->name, name) == 0)
			return 1;
	return 0;
}

/* Whether name is a line number alone ("34"), and which. */
static int
bare_line(const char *name, uint32_t *line)
{
	unsigned long n;
	char *end;

	if (!isdigit((unsigned char)name[0]))
		return 0;
	errno = 0;
	n = strtoul(name, &end, 10);
	if (*end != '\0' || errno != 0 || n > UINT32_MAX)
		return 0;
	*line = (uint32_t)n;
	return 1;
}

/*
 * Whether unit u is called name, by its name or (byalias) an alias: a
 * routine's other names, or a bare number for a line of the module's own
 * file ("34" for "main.c:34", the name lines had before they carried
 * their file).
 */
static int
called(const struct pmd_unit *u, const char *name, int byalias)
{
	uint32_t i, line;

	if (!byalias)
		return strcmp(u->name, name) == 0;
	for (i = 0; i < u->naliases; i++)
		if (strcmp(u->aliases[i], name) == 0)
			return 1;
	return u->ownfile && bare_line(name, &line) && u->line == line;
}

/* The units of s's kind called s's name under its qualifiers: how many,
 * the first in *found and the second in *other. */
static uint32_t
matches(struct pmd *p, const struct spec *s, int byalias, uint32_t *found,
    uint32_t *other)
{
	uint32_t i, n = 0;
	size_t q;

	for (i = 0; i < p->units.n; i++) {
		struct pmd_unit *u = pmd_unit(p, i);

		if (u->kind != s->kind || !called(u, s->name, byalias))
			continue;
		for (q = 0; q < s->nquals; q++)
			if (!has_ancestor(p, i, s->quals[q]))
				break;
		if (q < s->nquals)
			continue;
		if (n++ == 0)
			*found = i;
		else if (n == 2)
			*other = i;
	}
	return n;
}

/*
 * The name of the unit of s's kind, under its qualifiers, nearest s's
 * name (pme_edit_distance() within pme_near_cutoff()), for "did you
 * mean"; NULL when none is near.  Only names of the kind are compared,
 * and those whose length alone puts them too far cost nothing, so a
 * misspelt routine among an SQLite's thousands is quick.
 */
static const char *
nearest(struct pmd *p, const struct spec *s)
{
	struct pme_near nr;
	size_t d, q;
	uint32_t i;

	pme_near_init(&nr, s->name);
	for (i = 0; i < p->units.n; i++) {
		struct pmd_unit *u = pmd_unit(p, i);

		if (u->kind != s->kind || (nr.name != NULL &&
		    strcmp(u->name, nr.name) == 0))
			continue;
		if ((d = pme_near_dist(&nr, u->name)) == SIZE_MAX)
			continue;
		for (q = 0; q < s->nquals; q++)
			if (!has_ancestor(p, i, s->quals[q]))
				break;
		if (q == s->nquals)
			nr.name = u->name, nr.best = d;
	}
	return nr.name;
}

/*
 * The one unit a specification names: by its name, else by one of its
 * aliases (a routine's other names).  Reports "not declared" or
 * "ambiguous" (naming where the candidates are) and returns PME_NONE.
 */
static uint32_t
resolve(struct pmd *p, const struct spec *s)
{
	uint32_t found = PME_NONE, other = PME_NONE, n;

	if ((n = matches(p, s, 0, &found, &other)) == 0)
		n = matches(p, s, 1, &found, &other);
	if (n == 0) {
		const char *near = nearest(p, s);

		pmd_error(p, "%s '%s'%s%s is not declared%s%s%s",
		    p->kinds[s->kind], s->name, s->nquals ? " IN " : "",
		    s->nquals ? s->quals[0] : "", near ? "; did you mean '" :
		    "", near ? near : "", near ? "'?" : "");
		return PME_NONE;
	}
	if (n > 1) {
		uint32_t a = pmd_unit(p, found)->parent;
		uint32_t b = pmd_unit(p, other)->parent;

		pmd_error(p, "%s '%s' is ambiguous: %u units have that name "
		    "(in '%s', in '%s'%s); name one with IN",
		    p->kinds[s->kind], s->name, n,
		    a == PME_NONE ? "" : pmd_unit(p, a)->name,
		    b == PME_NONE ? "" : pmd_unit(p, b)->name,
		    n > 2 ? ", ..." : "");
		return PME_NONE;
	}
	return found;
}

static void
set_fields(struct pmd *p, uint32_t u, const struct spec *s)
{
	struct pmd_unit *unit = pmd_unit(p, u);

	if (s->hasstep)
		unit->step = s->step;
	if (s->keyword) {
		unit->flags &= ~(uint32_t)(PME_UNIT_LINES | PME_UNIT_NOLINES);
		unit->flags |= s->keyword;
	}
	if (s->hasrange) {
		/* The unit's load module, found or inherited, stays: its
		 * addresses are that module's link-time addresses.  A unit
		 * with none has absolute run-time addresses. */
		unit->nr = 0;
		unit->flags &= ~(uint32_t)PME_UNIT_DERIVED;
		unit->flags |= PME_UNIT_EXPLICIT;
		/* Ranges are half-open: the very last address of the
		 * space, never a program counter, is left out. */
		pmd_add_range(p, u, s->start,
		    s->end == UINT64_MAX ? s->end : s->end + 1);
	}
}

static int
check_keyword(struct pmd *p, const struct spec *s)
{
	if (s->keyword && !pmd_kind_is(p, s->kind, "MODULE")) {
		pmd_error(p, "LINES and NOLINES apply to MODULE units, "
		    "not to %s", p->kinds[s->kind]);
		return -1;
	}
	return 0;
}

static int
declare(struct pmd *p, const struct spec *s)
{
	uint32_t parent = PME_NONE, u, k;
	int j;

	if (s->nquals > 0 || s->bykind != PME_NONE) {
		pmd_error(p, "%s", s->nquals ? "IN belongs in DEFINE "
		    "ADDRESSES and DEFINE SAMPLING, not in DEFINE UNITS" :
		    "BY belongs in DEFINE SAMPLING, not in DEFINE UNITS");
		return -1;
	}
	if (check_keyword(p, s) == -1)
		return -1;
	for (j = (int)s->kind - 1; j >= 0; j--)
		if (p->open[j] != PME_NONE) {
			parent = p->open[j];
			break;
		}
	if (pmd_lookup(p, s->kind, s->name, parent) != PME_NONE) {
		pmd_error(p, "%s '%s' is already declared there",
		    p->kinds[s->kind], s->name);
		return -1;
	}
	if ((u = pmd_add_unit(p, s->name, s->kind, parent)) == PME_NONE) {
		pmd_error(p, "out of memory");
		return -1;
	}
	set_fields(p, u, s);
	p->open[s->kind] = u;
	for (k = s->kind + 1; k < PMD_MAXKINDS; k++)
		p->open[k] = PME_NONE;
	return 0;
}

static int
address(struct pmd *p, const struct spec *s)
{
	uint32_t u;

	if (s->bykind != PME_NONE) {
		pmd_error(p, "BY belongs in DEFINE SAMPLING");
		return -1;
	}
	if (check_keyword(p, s) == -1)
		return -1;
	if ((u = resolve(p, s)) == PME_NONE)
		return -1;
	set_fields(p, u, s);
	return 0;
}

static int
sampling(struct pmd *p, const struct spec *s, const char *stmt)
{
	uint32_t u;

	if (s->keyword) {
		pmd_error(p, "LINES and NOLINES belong in DEFINE UNITS or "
		    "DEFINE ADDRESSES");
		return -1;
	}
	if ((u = resolve(p, s)) == PME_NONE)
		return -1;
	if (s->bykind != PME_NONE) {
		if (s->bykind <= s->kind) {
			pmd_error(p, "%s is not a subunit kind of %s",
			    p->kinds[s->bykind], p->kinds[s->kind]);
			return -1;
		}
		return pmd_sample_by(p, stmt, u, s->bykind);
	}
	return pmd_sample_unit(p, stmt, u, s->hasrange, s->start, s->end,
	    s->hasstep ? s->step : 0);
}

static int
unit_statement(struct parser *ps)
{
	struct pmd *p = ps->p;
	struct spec s;

	if (p->nkinds == 0) {
		if (peek(ps)->type == PMD_T_WORD)
			pmd_error(p, "unknown statement '%s': unit kinds are "
			    "declared by DEFINE UNITS first",
			    peek(ps)->text);
		else
			unexpected(ps, "a statement");
		return -1;
	}
	if (parse_spec(ps, &s) == -1)
		return -1;
	switch (p->mode) {
	case PMD_MODE_UNITS:
		return declare(p, &s);
	case PMD_MODE_ADDRESSES:
		return address(p, &s);
	case PMD_MODE_SAMPLING:
		return sampling(p, &s, ps->line);
	default:
		pmd_error(p, "a unit specification needs a mode first: "
		    "DEFINE UNITS, DEFINE ADDRESSES or DEFINE SAMPLING");
		return -1;
	}
}

/* ---------------------------------------------------- DEFINE statements */

static int
reserved_kind(const char *name)
{
	static const char *const words[] = { "DEFINE", "END", "IN", "BY",
	    "LINES", "NOLINES" };
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcasecmp(name, words[i]) == 0)
			return 1;
	return 0;
}

static int
define_units(struct parser *ps)
{
	struct pmd *p = ps->p;
	char *names[PMD_MAXKINDS];
	uint32_t n = 0, i, j;
	const struct pmd_token *t;
	int bad = 0;

	accept(ps, PMD_T_COLON);
	while ((t = peek(ps))->type != PMD_T_END) {
		if (accept(ps, PMD_T_COMMA))
			continue;
		if (t->type != PMD_T_WORD) {
			unexpected(ps, "a unit kind name");
			bad = 1;
			break;
		}
		if (reserved_kind(t->text)) {
			pmd_error(p, "'%s' is a keyword, not a unit kind",
			    t->text);
			bad = 1;
			break;
		}
		for (i = 0; i < p->nkinds; i++)
			if (strcasecmp(p->kinds[i], t->text) == 0)
				break;
		for (j = 0; j < n; j++)
			if (strcasecmp(names[j], t->text) == 0)
				break;
		if (i < p->nkinds || j < n) {
			pmd_error(p, "unit kind '%s' is already declared",
			    t->text);
			bad = 1;
			break;
		}
		if (p->nkinds + n == PMD_MAXKINDS) {
			pmd_error(p, "more than %d unit kinds", PMD_MAXKINDS);
			bad = 1;
			break;
		}
		names[n++] = strdup(t->text);
		next(ps);
	}
	if (!bad && n == 0 && p->nkinds == 0) {
		pmd_error(p, "DEFINE UNITS needs unit kinds the first time");
		bad = 1;
	}
	for (i = 0; i < n; i++) {
		if (bad || names[i] == NULL)
			free(names[i]);
		else
			p->kinds[p->nkinds++] = names[i];
	}
	if (bad)
		return -1;
	p->mode = PMD_MODE_UNITS;
	return 0;
}

static int
define_addresses(struct parser *ps)
{
	struct pmd *p = ps->p;
	const char *file, *psect = NULL;
	int exe;

	if (p->nkinds == 0) {
		pmd_error(p, "DEFINE ADDRESSES needs unit kinds: DEFINE UNITS "
		    "first");
		return -1;
	}
	accept(ps, PMD_T_COLON);
	if (peek(ps)->type == PMD_T_END) {
		p->mode = PMD_MODE_ADDRESSES;
		return 0;
	}
	if (!is_kw(peek(ps), "MAP") && !is_kw(peek(ps), "EXE"))
		return unexpected(ps, "MAP, EXE or end of line");
	exe = is_kw(next(ps), "EXE");
	if (name_token(ps, "a file name", &file) == -1)
		return -1;
	if (is_kw(peek(ps), "PSECT")) {
		next(ps);
		if (name_token(ps, "a section name", &psect) == -1)
			return -1;
	}
	if (at_end(ps) == -1)
		return -1;
	p->mode = PMD_MODE_ADDRESSES;
	return exe ? pmd_exe(p, file, psect) : pmd_map(p, file, psect);
}

static const struct {
	const char	*name;
	uint32_t	 clear, set;
} options[] = {
	{ "LIST", 0, PME_OPT_LIST },
	{ "NOLIST", PME_OPT_LIST, 0 },
	{ "PRINT", 0, PME_OPT_PRINT },
	{ "NOPRINT", PME_OPT_PRINT, 0 },
	{ "RELADDR", PME_OPT_ABSADDR, 0 },
	{ "ABSADDR", 0, PME_OPT_ABSADDR },
	{ "CLEARCOUNTS", PME_OPT_ACCUM, 0 },
	{ "ACCUMCOUNTS", 0, PME_OPT_ACCUM },
	{ "LINES", PME_OPT_NOLINES, PME_OPT_LINES },
	{ "SOMELINES", PME_OPT_LINES | PME_OPT_NOLINES, 0 },
	{ "NOLINES", PME_OPT_LINES, PME_OPT_NOLINES },
};

static int
define_options(struct parser *ps)
{
	struct pmd *p = ps->p;
	uint32_t opts = p->options;
	const struct pmd_token *t;
	size_t i;
	int any = 0;

	accept(ps, PMD_T_COLON);
	while ((t = peek(ps))->type != PMD_T_END) {
		if (accept(ps, PMD_T_COMMA))
			continue;
		for (i = 0; i < sizeof(options) / sizeof(options[0]); i++)
			if (is_kw(t, options[i].name))
				break;
		if (i == sizeof(options) / sizeof(options[0])) {
			pmd_error(p, "unknown option '%s'", t->text);
			return -1;
		}
		opts = (opts & ~options[i].clear) | options[i].set;
		any = 1;
		next(ps);
	}
	if (!any) {
		pmd_error(p, "DEFINE OPTIONS needs at least one option");
		return -1;
	}
	p->options = opts;
	return 0;
}

static int
define(struct parser *ps)
{
	struct pmd *p = ps->p;
	const struct pmd_token *t = peek(ps);

	if (is_kw(t, "UNITS") || is_kw(t, "UNIT")) {
		next(ps);
		return define_units(ps);
	}
	if (is_kw(t, "ADDRESSES") || is_kw(t, "ADDR") ||
	    is_kw(t, "ADDRESS")) {
		next(ps);
		return define_addresses(ps);
	}
	if (is_kw(t, "OPTIONS") || is_kw(t, "OPTION")) {
		next(ps);
		return define_options(ps);
	}
	if (is_kw(t, "SAMPLING")) {
		next(ps);
		accept(ps, PMD_T_COLON);
		if (at_end(ps) == -1)
			return -1;
		if (p->nkinds == 0) {
			pmd_error(p, "DEFINE SAMPLING needs unit kinds: "
			    "DEFINE UNITS first");
			return -1;
		}
		p->mode = PMD_MODE_SAMPLING;
		return 0;
	}
	if (is_kw(t, "CLEAR")) {
		next(ps);
		if (at_end(ps) == -1)
			return -1;
		pmd_clear(p);
		return 0;
	}
	if (t->type == PMD_T_END)
		pmd_error(p, "DEFINE what? UNITS, ADDRESSES, SAMPLING, "
		    "OPTIONS or CLEAR");
	else
		pmd_error(p, "unknown DEFINE statement 'DEFINE %s'", t->text);
	return -1;
}

/* The statement as kept in the bucket file: without blanks around it and
 * without its comment.  The caller frees it. */
static char *
clean_statement(const char *line)
{
	size_t i, start, end = 0;
	int quoted = 0;
	char *s;

	for (i = 0; line[i] != '\0'; i++) {
		if (line[i] == '"')
			quoted = !quoted;
		else if (!quoted && (line[i] == '!' || line[i] == '#'))
			break;
		if (!quoted && strchr(" \t\r\n\f\v", line[i]) == NULL)
			end = i + 1;
		else if (quoted)
			end = i + 1;
	}
	start = strspn(line, " \t\r\n\f\v");
	if (start > end)
		start = end;
	if ((s = malloc(end - start + 1)) != NULL) {
		memcpy(s, line + start, end - start);
		s[end - start] = '\0';
	}
	return s;
}

int
pmd_statement(struct pmd *p, const char *line)
{
	struct pmd_token *toks;
	struct parser ps;
	size_t ntoks;
	char *store, *stmt;
	const char *why;
	int rc;

	if (p->options & PME_OPT_LIST)
		fprintf(p->out, "%6u  %s\n", p->line, line);
	if (pmd_lex(line, &toks, &ntoks, &store, &why) == -1) {
		pmd_error(p, "%s", why);
		free(toks);
		free(store);
		return -1;
	}
	ps.p = p;
	ps.t = toks;
	ps.i = 0;
	if ((stmt = clean_statement(line)) == NULL) {
		pmd_error(p, "out of memory");
		free(toks);
		free(store);
		return -1;
	}
	ps.line = stmt;
	if (ntoks == 0)
		rc = 0;
	else if (is_kw(peek(&ps), "DEFINE")) {
		next(&ps);
		rc = define(&ps);
	} else if (is_kw(peek(&ps), "END")) {
		next(&ps);
		if ((rc = at_end(&ps)) == 0)
			p->mode = PMD_MODE_DONE;
	} else
		rc = unit_statement(&ps);
	free(stmt);
	free(toks);
	free(store);
	return rc;
}

/* ------------------------------------------------------------- fuzzing */

int
pmd_fuzz_one(const unsigned char *data, size_t size, size_t *nbuckets)
{
	struct pmd p;
	FILE *null;
	char *text, *line, *nl;
	int errors;

	*nbuckets = 0;
	if ((null = fopen("/dev/null", "w")) == NULL)
		return -1;
	if ((text = malloc(size + 1)) == NULL) {
		fclose(null);
		return -1;
	}
	memcpy(text, data, size);
	text[size] = '\0';
	pmd_init(&p, null, null, "fuzz");
	p.file = "fuzz";
	p.nofiles = 1;
	p.maxbuckets = 1u << 16;	/* the fuzzer's memory is 2 GiB */
	for (line = text; line != NULL && p.mode != PMD_MODE_DONE;
	    line = nl) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl++ = '\0';
		p.line++;
		pmd_statement(&p, line);
	}
	pmd_derive(&p);
	errors = (int)p.errors;
	*nbuckets = p.buckets.n;
	pmd_free(&p);
	free(text);
	fclose(null);
	return errors;
}
