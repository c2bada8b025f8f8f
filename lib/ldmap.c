/*
 * ldmap.c - GNU ld -Map files as modules (pme_symbols.h).
 *
 * Only the part after "Linker script and memory map" is read, so the
 * archive member list, the "Discarded input sections" and the memory
 * configuration before it are ignored.  There, an output section starts at
 * column 0 (".text  0x1090  0x29e"); an input section is indented by one
 * space (" .text  0x1280  0x5e util.o"), and a name too long for its
 * column stands alone with its address, size and file on the next line.
 * Lines of symbols ("  0x1280  util_mix"), assignments, "*fill*" and
 * input patterns (" *(.text .text.*)") are skipped.
 *
 * An input object whose sections in psect are all empty (crti.o's .text,
 * a data-only object) contributes no code and is not a module: a module
 * without ranges could not hold a sample.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pme_symbols.h"
#include "util.h"

struct pme_map {
	struct pme_arena arena;
	struct pme_intern names;
	struct pme_vec	 mods;		/* struct pme_symmod */
};

/* One input section of psect, in map order. */
struct piece {
	const char	*file;		/* interned */
	size_t		 seq;		/* order of appearance */
	uint64_t	 start, end;
};

struct parse {
	struct pme_map	*map;
	const char	*path;
	const char	*psect;
	struct pme_vec	 pieces;
	char		*pending;	/* wrapped input section name */
	int		 started;	/* past "Linker script and memory map" */
	int		 in_psect;
	int		 seen_psect;
	uint64_t	 lineno;
	struct pme_error *err;
};

/* Parses a "0x..." number; returns the end or NULL. */
static const char *
hexnum(const char *s, uint64_t *v)
{
	char *end;

	if (s[0] != '0' || s[1] != 'x')
		return NULL;
	errno = 0;
	*v = strtoull(s + 2, &end, 16);
	if (end == s + 2 || errno != 0 || (*end != '\0' && *end != ' ' &&
	    *end != '\t' && *end != '\n'))
		return NULL;
	return end;
}

static const char *
skipws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static int
add_piece(struct parse *p, uint64_t start, uint64_t size, const char *file)
{
	struct piece *pc;
	const char *name;
	size_t len = strlen(file);

	while (len > 0 && (file[len - 1] == '\n' || file[len - 1] == ' ' ||
	    file[len - 1] == '\r' || file[len - 1] == '\t'))
		len--;
	if (size == 0 || len == 0)
		return 0;
	if (start + size < start)
		return pme_seterr(p->err, PME_EFORMAT,
		    "'%s':%llu: address range wraps", p->path,
		    (unsigned long long)p->lineno);
	if ((name = pme_arena_strndup(&p->map->arena, file, len)) == NULL ||
	    (name = pme_intern(&p->map->names, name)) == NULL ||
	    (pc = pme_vec_push(&p->pieces)) == NULL)
		return pme_setnomem(p->err);
	pc->file = name;
	pc->seq = p->pieces.n;
	pc->start = start;
	pc->end = start + size;
	return 0;
}

/*
 * "0xADDR 0xSIZE file" after an input section's name.  Returns 1 when the
 * line was one, 0 when not (a symbol or an assignment), -1 on error.
 */
static int
input_tail(struct parse *p, const char *s)
{
	uint64_t addr, size;

	s = skipws(s);
	if ((s = hexnum(s, &addr)) == NULL)
		return 0;
	s = skipws(s);
	if ((s = hexnum(s, &size)) == NULL)
		return 0;
	s = skipws(s);
	if (*s == '\0' || *s == '\n')
		return 0;
	return add_piece(p, addr, size, s) == -1 ? -1 : 1;
}

/* A column-0 line: an output section (or a statement) begins. */
static void
output_line(struct parse *p, const char *s)
{
	size_t n = strcspn(s, " \t\n");

	p->in_psect = strlen(p->psect) == n && strncmp(s, p->psect, n) == 0;
	p->seen_psect |= p->in_psect;
}

static int
input_line(struct parse *p, const char *s)
{
	size_t n;
	int rc;

	if (p->pending != NULL) {
		rc = input_tail(p, s);
		free(p->pending);
		p->pending = NULL;
		if (rc != 0)
			return rc == -1 ? -1 : 0;
	}
	if (s[0] != ' ' || s[1] == ' ' || s[1] == '*' || s[1] == '\n' ||
	    s[1] == '\0')
		return 0;
	s++;
	n = strcspn(s, " \t\n");
	if (*skipws(s + n) == '\n' || *skipws(s + n) == '\0') {
		if ((p->pending = strndup(s, n)) == NULL)
			return pme_setnomem(p->err);
		return 0;
	}
	return input_tail(p, s + n) == -1 ? -1 : 0;
}

static int
map_line(struct parse *p, const char *s)
{
	if (!p->started) {
		p->started = strncmp(s, "Linker script and memory map", 28)
		    == 0;
		return 0;
	}
	if (s[0] != ' ' && s[0] != '\t' && s[0] != '\n' && s[0] != '\0') {
		free(p->pending);
		p->pending = NULL;
		output_line(p, s);
		return 0;
	}
	if (!p->in_psect)
		return 0;
	return input_line(p, s);
}

static int
cmp_piece(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	if (x->file != y->file)
		return (uintptr_t)x->file < (uintptr_t)y->file ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

struct order {
	size_t		 seq;		/* first appearance */
	size_t		 first, n;	/* its pieces */
};

static int
cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* One module from pieces v[0..n) of one file, sorted by start. */
static int
make_module(struct parse *p, struct piece *v, size_t n)
{
	struct pme_symmod *m;
	struct pme_range *r;
	size_t i, k = 0;

	if ((r = pme_arena_alloc(&p->map->arena, n * sizeof(*r))) == NULL ||
	    (m = pme_vec_push(&p->map->mods)) == NULL)
		return pme_setnomem(p->err);
	for (i = 0; i < n; i++) {
		if (k > 0 && v[i].start <= r[k - 1].end) {
			if (v[i].end > r[k - 1].end)
				r[k - 1].end = v[i].end;
			continue;
		}
		r[k].start = v[i].start;
		r[k++].end = v[i].end;
	}
	m->name = v[0].file;
	m->ranges = r;
	m->nranges = (uint32_t)k;
	return 0;
}

/* Groups the pieces by file, in the order the files first appear. */
static int
build_modules(struct parse *p)
{
	struct piece *v = p->pieces.v;
	struct order *o;
	size_t i, j, no = 0, n = p->pieces.n;
	int rc = 0;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_piece);
	if ((o = malloc(n * sizeof(*o))) == NULL)
		return pme_setnomem(p->err);
	for (i = 0; i < n; i = j) {
		o[no].seq = v[i].seq;
		o[no].first = i;
		for (j = i; j < n && v[j].file == v[i].file; j++)
			if (v[j].seq < o[no].seq)
				o[no].seq = v[j].seq;
		o[no++].n = j - i;
	}
	qsort(o, no, sizeof(*o), cmp_order);
	for (i = 0; i < no && rc == 0; i++)
		rc = make_module(p, v + o[i].first, o[i].n);
	free(o);
	return rc;
}

static int
read_map(struct parse *p, FILE *fp)
{
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	while (rc == 0 && getline(&line, &cap, fp) != -1) {
		p->lineno++;
		rc = map_line(p, line);
	}
	if (rc == 0 && ferror(fp))
		rc = pme_setsys(p->err, p->path, "read");
	free(line);
	free(p->pending);
	p->pending = NULL;
	if (rc == 0 && !p->started)
		rc = pme_seterr(p->err, PME_EFORMAT, "'%s': not a GNU ld map "
		    "(no \"Linker script and memory map\")", p->path);
	else if (rc == 0 && !p->seen_psect)
		rc = pme_seterr(p->err, PME_EFORMAT,
		    "'%s': no output section '%s'", p->path, p->psect);
	return rc;
}

struct pme_map *
pme_map_open(const char *path, const char *psect, struct pme_error *err)
{
	struct parse p = { 0 };
	struct pme_map *map;
	FILE *fp;
	int rc;

	if (path == NULL) {
		pme_seterr(err, PME_EINVAL, "no map path");
		return NULL;
	}
	if ((map = calloc(1, sizeof(*map))) == NULL) {
		pme_setnomem(err);
		return NULL;
	}
	pme_intern_init(&map->names, &map->arena);
	pme_vec_init(&map->mods, sizeof(struct pme_symmod));
	if ((fp = fopen(path, "r")) == NULL) {
		pme_setsys(err, path, "open");
		pme_map_close(map);
		return NULL;
	}
	p.map = map;
	p.path = path;
	p.psect = psect != NULL ? psect : ".text";
	p.err = err;
	pme_vec_init(&p.pieces, sizeof(struct piece));
	rc = read_map(&p, fp);
	fclose(fp);
	if (rc == 0)
		rc = build_modules(&p);
	pme_vec_free(&p.pieces);
	if (rc == -1) {
		pme_map_close(map);
		return NULL;
	}
	return map;
}

void
pme_map_close(struct pme_map *map)
{
	if (map == NULL)
		return;
	pme_vec_free(&map->mods);
	pme_intern_free(&map->names);
	pme_arena_free(&map->arena);
	free(map);
}

size_t
pme_map_modules(const struct pme_map *map, const struct pme_symmod **out)
{
	*out = map->mods.v;
	return map->mods.n;
}
