/*
 * folded.c - the stacks of pmehisto -T folded: each sample's call chain as
 * frame ids (histo.h: FRAME_*), counted in a hash table, then printed as
 * flamegraph "folded stacks", one line per distinct stack:
 * "outermost;...;innermost COUNT", in byte order.
 *
 * Names are made only at the end, so that reducing costs a hash of a few
 * integers per sample; stacks of different ids that print the same (two
 * units of one name) become one line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histo.h"
#include "util.h"

/* A key of up to INLINE ids (the views' pc and thread tables) is held in
 * its entry, so that a lookup touches one cache line, not two; a longer
 * one in the pool, its hash beside. */
#define INLINE	2

struct entry {
	uint64_t	 count;
	uint32_t	 n;		/* ids, innermost first */
	union {
		uint64_t	 id[INLINE];	/* n <= INLINE */
		struct {
			size_t	 off;		/* first id in the pool */
			uint64_t hash;
		} p;
	} k;
};

struct stacks {
	struct entry	*e;		/* open addressing; n == 0: empty */
	size_t		 cap, used;
	uint64_t	*pool;
	size_t		 npool, cappool;
	char		**names;	/* FRAME_NAME's and FRAME_INLINE's */
	char		**paths;	/* each name's load module, or NULL */
	size_t		 nnames;
	int		 dense;		/* filled to 3/4, not 1/2 */
};

struct line {
	char		*text;		/* the stack, without its count */
	uint64_t	 count;
};

struct stacks *
stacks_new(void)
{
	return calloc(1, sizeof(struct stacks));
}

struct stacks *
stacks_new_dense(void)
{
	struct stacks *s = stacks_new();

	if (s != NULL)
		s->dense = 1;
	return s;
}

void
stacks_free(struct stacks *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nnames; i++) {
		free(s->names[i]);
		free(s->paths[i]);
	}
	free(s->names);
	free(s->paths);
	free(s->e);
	free(s->pool);
	free(s);
}

/* The index of the name name of the load module path (NULL: none),
 * copied; -1 when out of memory. */
static long
intern(struct stacks *s, const char *name, const char *path)
{
	char **v;
	size_t i;

	for (i = 0; i < s->nnames; i++)
		if (strcmp(s->names[i], name) == 0 && (path == NULL ?
		    s->paths[i] == NULL : s->paths[i] != NULL &&
		    strcmp(s->paths[i], path) == 0))
			return (long)i;
	if ((v = realloc(s->names, (s->nnames + 1) * sizeof(*v))) == NULL)
		return -1;
	s->names = v;
	if ((v = realloc(s->paths, (s->nnames + 1) * sizeof(*v))) == NULL)
		return -1;
	s->paths = v;
	s->names[s->nnames] = strdup(name);
	s->paths[s->nnames] = path != NULL ? strdup(path) : NULL;
	if (s->names[s->nnames] == NULL || (path != NULL &&
	    s->paths[s->nnames] == NULL)) {
		free(s->names[s->nnames]);
		free(s->paths[s->nnames]);
		return -1;
	}
	return (long)s->nnames++;
}

uint64_t
stacks_name(struct stacks *s, const char *name)
{
	long i = intern(s, name, NULL);

	return i < 0 ? FRAME_UNKNOWN : FRAME_NAME | (uint64_t)i;
}

uint64_t
stacks_inline(struct stacks *s, const char *name)
{
	return stacks_inline_in(s, name, NULL);
}

uint64_t
stacks_inline_in(struct stacks *s, const char *name, const char *path)
{
	long i = intern(s, name, path);

	return i < 0 ? FRAME_UNKNOWN : FRAME_INLINE | (uint64_t)i;
}

uint64_t
stacks_hash(const uint64_t *id, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ n;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= id[i];
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h;
}

static const uint64_t *
entry_ids(const struct stacks *s, const struct entry *e)
{
	return e->n <= INLINE ? e->k.id : s->pool + e->k.p.off;
}

static int
grow(struct stacks *s)
{
	size_t cap = s->cap ? s->cap * 2 : 256, i, j;
	struct entry *e = calloc(cap, sizeof(*e));
	uint64_t h;

	if (e == NULL)
		return -1;
	for (i = 0; i < s->cap; i++) {
		if (s->e[i].n == 0)
			continue;
		h = s->e[i].n <= INLINE ? stacks_hash(s->e[i].k.id, s->e[i].n) :
		    s->e[i].k.p.hash;
		for (j = h & (cap - 1); e[j].n != 0; j = (j + 1) & (cap - 1))
			;
		e[j] = s->e[i];
	}
	free(s->e);
	s->e = e;
	s->cap = cap;
	return 0;
}

int
stacks_add(struct stacks *s, const uint64_t *id, size_t n, uint64_t count)
{
	struct entry *e;
	uint64_t h;
	size_t i;

	if (n == 0)
		return 0;
	if ((s->dense ? (s->used + 1) * 4 > s->cap * 3 :
	    (s->used + 1) * 2 > s->cap) && grow(s) == -1)
		return -1;
	h = stacks_hash(id, n);
	if (n <= INLINE) {
		for (i = h & (s->cap - 1); (e = &s->e[i])->n != 0;
		    i = (i + 1) & (s->cap - 1))
			if (e->n == n && e->k.id[0] == id[0] &&
			    (n == 1 || e->k.id[1] == id[1])) {
				e->count += count;
				return 0;
			}
		memcpy(e->k.id, id, n * sizeof(*id));
		goto added;
	}
	for (i = h & (s->cap - 1); (e = &s->e[i])->n != 0;
	    i = (i + 1) & (s->cap - 1))
		if (e->n == n && e->k.p.hash == h &&
		    memcmp(s->pool + e->k.p.off, id, n * sizeof(*id)) == 0) {
			e->count += count;
			return 0;
		}
	if (s->npool + n > s->cappool) {
		size_t cap = s->cappool ? s->cappool * 2 : 1024;
		uint64_t *p;

		while (cap < s->npool + n)
			cap *= 2;
		if ((p = realloc(s->pool, cap * sizeof(*p))) == NULL)
			return -1;
		s->pool = p;
		s->cappool = cap;
	}
	memcpy(s->pool + s->npool, id, n * sizeof(*id));
	e->k.p.off = s->npool;
	e->k.p.hash = h;
	s->npool += n;
added:
	e->n = (uint32_t)n;
	e->count = count;
	s->used++;
	return 0;
}

/* Whether frame id's name is put in brackets: a module's or mapping's,
 * not a function's, and not bracketed yet. */
static int
bracketed(uint64_t id, const char *name)
{
	return (id & FRAME_TYPE) != FRAME_UNIT &&
	    (id & FRAME_TYPE) != FRAME_INLINE && name[0] != '[';
}

/* Appends frame id's name to fp: a unit's name, or a module's or
 * mapping's base name in brackets ("[kernel]" and "[vdso]" as they are),
 * folded: with ';' (the frames' separator) as '_', a blank kept (the
 * count follows the line's last blank), and a kernel frame's with
 * FlameGraph's "_[k]" after it; -1 when out of memory. */
static int
put_name(FILE *fp, uint64_t id, const struct tally *t,
    const struct pme_unit *units, const struct pme_module *mods,
    char *const *names, int folded)
{
	uint32_t i = (uint32_t)id;
	const char *name = NULL, *c;
	char *e;

	switch (id & FRAME_TYPE) {
	case FRAME_UNIT:
		name = units[i].name;
		break;
	case FRAME_MODULE:
		name = pme_base_name(mods[i].path);
		break;
	case FRAME_FOREIGN:
		name = pme_base_name(t->foreign[i].path);
		break;
	case FRAME_NAME:
		name = pme_base_name(names[i]);
		break;
	case FRAME_INLINE:
		name = names[i];
		break;
	}
	if (name == NULL || name[0] == '\0')
		name = "[unknown]";
	else if (bracketed(id, name))
		fputc('[', fp);
	/* Escaped as in every report (pme_escape); then ';' separates
	 * frames. */
	if ((e = pme_escape_dup(name)) == NULL)
		return -1;
	for (c = e; *c != '\0'; c++)
		fputc(folded && *c == ';' ? '_' : *c, fp);
	free(e);
	if (bracketed(id, name))
		fputc(']', fp);
	if (folded && stacks_frame_kernel(t, id))
		fputs("_[k]", fp);
	return 0;
}

static char *
stack_text(const struct stacks *s, const struct entry *e,
    const struct tally *t, const struct pme_unit *units,
    const struct pme_module *mods)
{
	char *buf = NULL;
	size_t len = 0, j;
	FILE *fp;
	int failed = 0;

	if ((fp = open_memstream(&buf, &len)) == NULL)
		return NULL;
	for (j = e->n; j-- > 0 && !failed; ) {
		failed = put_name(fp, entry_ids(s, e)[j], t, units, mods,
		    s->names, 1) == -1;
		if (j > 0)
			fputc(';', fp);
	}
	if (fclose(fp) == EOF || failed) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void
lines_free(struct line *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++)
		free(v[i].text);
	free(v);
}

static int
line_cmp(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text,
	    ((const struct line *)b)->text);
}

/* s's stacks as text lines, sorted in byte order, equal ones merged
 * (*n of them); NULL when out of memory.  lines_free() frees them. */
static struct line *
stacks_lines(const struct stacks *s, const struct tally *t, size_t *nl)
{
	const struct pme_unit *units = NULL;
	const struct pme_module *mods = NULL;
	struct line *v;
	size_t i, n = 0, k;

	if (t->bf != NULL) {
		pme_bucketfile_units(t->bf, &units);
		pme_bucketfile_modules(t->bf, &mods);
	}
	if ((v = calloc(s->used + 1, sizeof(*v))) == NULL)
		return NULL;
	for (i = 0; i < s->cap; i++) {
		if (s->e[i].n == 0)
			continue;
		if ((v[n].text = stack_text(s, &s->e[i], t, units, mods)) ==
		    NULL) {
			lines_free(v, n);
			return NULL;
		}
		v[n++].count = s->e[i].count;
	}
	/* In the byte order of the stacks' text, the count after it. */
	qsort(v, n, sizeof(*v), line_cmp);
	for (i = k = 0; i < n; i++)
		if (k > 0 && strcmp(v[k - 1].text, v[i].text) == 0) {
			v[k - 1].count += v[i].count;
			free(v[i].text);
		} else
			v[k++] = v[i];
	*nl = k;
	return v;
}

int
stacks_print(const struct stacks *s, const struct tally *t, FILE *fp)
{
	struct line *v;
	size_t i, n;
	int rc = 0;

	if ((v = stacks_lines(s, t, &n)) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (fprintf(fp, "%s %llu\n", v[i].text,
		    (unsigned long long)v[i].count) < 0)
			rc = -1;
	lines_free(v, n);
	return rc;
}

int
stacks_print_diff(const struct stacks *bs, const struct tally *bt,
    const struct stacks *s, const struct tally *t, FILE *fp)
{
	struct line *a, *b = NULL;
	size_t i = 0, j = 0, na = 0, nb = 0;
	int rc = 0, c;

	if ((a = stacks_lines(bs, bt, &na)) == NULL ||
	    (b = stacks_lines(s, t, &nb)) == NULL) {
		lines_free(a, na);
		return -1;
	}
	/* Both in byte order: a merge, a stack of one side only with 0 on
	 * the other. */
	while ((i < na || j < nb) && rc == 0) {
		c = i == na ? 1 : j == nb ? -1 : strcmp(a[i].text, b[j].text);
		if (fprintf(fp, "%s %llu %llu\n", c <= 0 ? a[i].text :
		    b[j].text, c <= 0 ? (unsigned long long)a[i].count : 0,
		    c >= 0 ? (unsigned long long)b[j].count : 0) < 0)
			rc = -1;
		i += c <= 0;
		j += c >= 0;
	}
	lines_free(a, na);
	lines_free(b, nb);
	return rc;
}

int
stacks_walk(const struct stacks *s, int (*fn)(void *, const uint64_t *,
    size_t, uint64_t), void *arg)
{
	size_t i;

	for (i = 0; i < s->cap; i++)
		if (s->e[i].n != 0 && fn(arg, entry_ids(s, &s->e[i]),
		    s->e[i].n, s->e[i].count) != 0)
			return -1;
	return 0;
}

size_t
stacks_count(const struct stacks *s)
{
	return s->used;
}

int
frame_put(FILE *fp, uint64_t id, const struct stacks *s,
    const struct tally *t)
{
	const struct pme_unit *units = NULL;
	const struct pme_module *mods = NULL;

	if (t->bf != NULL) {
		pme_bucketfile_units(t->bf, &units);
		pme_bucketfile_modules(t->bf, &mods);
	}
	return put_name(fp, id, t, units, mods, s->names, 0);
}

char *
stacks_frame_name(const struct stacks *s, const struct tally *t, uint64_t id)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	int failed;

	if ((fp = open_memstream(&buf, &len)) == NULL)
		return NULL;
	failed = frame_put(fp, id, s, t) == -1;
	if (fclose(fp) == EOF || failed) {
		free(buf);
		return NULL;
	}
	return buf;
}

const char *
stacks_frame_path(const struct stacks *s, const struct tally *t, uint64_t id)
{
	const struct pme_unit *units;
	const struct pme_module *mods;
	uint32_t i = (uint32_t)id;
	size_t nmods = 0;
	const char *path = NULL;

	if (t->bf != NULL) {
		pme_bucketfile_units(t->bf, &units);
		nmods = pme_bucketfile_modules(t->bf, &mods);
	}
	switch (id & FRAME_TYPE) {
	case FRAME_UNIT:
		if (units[i].module < nmods)
			path = mods[units[i].module].path;
		break;
	case FRAME_MODULE:
		path = mods[i].path;
		break;
	case FRAME_FOREIGN:
		path = t->foreign[i].path;
		break;
	case FRAME_NAME:
		path = s->names[i];
		break;
	case FRAME_INLINE:	/* a function named by its file's symbols */
		path = s->paths[i];
		break;
	}
	/* "[kernel]", "[vdso]": no file. */
	return path == NULL || path[0] == '\0' || path[0] == '[' ? NULL : path;
}

int
stacks_frame_kernel(const struct tally *t, uint64_t id)
{
	const struct pme_range *ranges;
	const struct pme_unit *units;
	const struct pme_module *mods;
	uint32_t i = (uint32_t)id;
	size_t nmods;

	if (t->bf == NULL && ((id & FRAME_TYPE) == FRAME_UNIT ||
	    (id & FRAME_TYPE) == FRAME_MODULE))
		return 0;
	switch (id & FRAME_TYPE) {
	case FRAME_UNIT:
		pme_bucketfile_units(t->bf, &units);
		nmods = pme_bucketfile_modules(t->bf, &mods);
		if (units[i].module < nmods)
			return strcmp(mods[units[i].module].path,
			    "[kernel]") == 0;
		/* of absolute addresses (the quick path's kernel routines):
		 * in the kernel's half */
		pme_bucketfile_ranges(t->bf, &ranges);
		return units[i].nranges > 0 &&
		    PME_KERNEL_ADDR(ranges[units[i].range].start);
	case FRAME_MODULE:
		pme_bucketfile_modules(t->bf, &mods);
		return strcmp(mods[i].path, "[kernel]") == 0;
	case FRAME_FOREIGN:
		return strcmp(t->foreign[i].path, "[kernel]") == 0;
	case FRAME_NAME:
		return strcmp(t->stacks->names[i], "[kernel]") == 0;
	}
	return 0;
}
