/*
 * export.c - pmehisto -T svg, callgrind and pprof: the call stacks of
 * -T folded (folded.c) by frame name (export.h), and the callgrind file
 * made of them.  The flame graph is svg.c's, the pprof profile pprof.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "util.h"

/* Doubles the slots of set (each an index + 1 into set->s, 0 empty). */
static int
strset_grow(struct strset *set)
{
	size_t cap = set->cap ? set->cap * 2 : 64, i, j;
	size_t *slot = calloc(cap, sizeof(*slot));

	if (slot == NULL)
		return -1;
	for (i = 0; i < set->n; i++) {
		for (j = pme_hash(set->s[i], strlen(set->s[i])) & (cap - 1);
		    slot[j] != 0; j = (j + 1) & (cap - 1))
			;
		slot[j] = i + 1;
	}
	free(set->slot);
	set->slot = slot;
	set->cap = cap;
	return 0;
}

size_t
strset_add(struct strset *set, const char *str)
{
	const char **v;
	size_t j;

	if ((set->n + 1) * 2 > set->cap && strset_grow(set) == -1)
		return (size_t)-1;
	for (j = pme_hash(str, strlen(str)) & (set->cap - 1);
	    set->slot[j] != 0; j = (j + 1) & (set->cap - 1))
		if (strcmp(set->s[set->slot[j] - 1], str) == 0)
			return set->slot[j] - 1;
	if ((v = realloc(set->s, (set->n + 1) * sizeof(*v))) == NULL)
		return (size_t)-1;
	set->s = v;
	v[set->n] = str;
	set->slot[j] = set->n + 1;
	return set->n++;
}

void
strset_free(struct strset *set)
{
	free(set->s);
	free(set->slot);
}

/* ------------------------------------------------------------ the model */

/* The stacks as folded.c holds them, copied: ids innermost first. */
struct raw {
	uint64_t	*ids;
	size_t		 nids, capids;
	struct xstack	*st;
	size_t		 nst, capst;
};

static int
raw_add(void *arg, const uint64_t *id, size_t n, uint64_t count)
{
	struct raw *r = arg;

	if (r->nst == r->capst) {
		size_t cap = r->capst ? r->capst * 2 : 256;
		struct xstack *v = realloc(r->st, cap * sizeof(*v));

		if (v == NULL)
			return -1;
		r->st = v;
		r->capst = cap;
	}
	if (r->nids + n > r->capids) {
		size_t cap = r->capids ? r->capids * 2 : 1024;
		uint64_t *v;

		while (cap < r->nids + n)
			cap *= 2;
		if ((v = realloc(r->ids, cap * sizeof(*v))) == NULL)
			return -1;
		r->ids = v;
		r->capids = cap;
	}
	memcpy(r->ids + r->nids, id, n * sizeof(*id));
	r->st[r->nst].off = r->nids;
	r->st[r->nst].n = (uint32_t)n;
	r->st[r->nst++].count = count;
	r->nids += n;
	return 0;
}

static int
id_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct named {
	char		*name;
	uint64_t	 id;
};

static int
named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c != 0 ? c : id_cmp(&x->id, &y->id);
}

/* What the bucket file says of frame x->id: its module, and its unit's
 * file, line and address; -1 when out of memory. */
static int
frame_facts(const struct tally *t, struct xname *x)
{
	const struct pme_unit *units;
	const struct pme_range *ranges;
	const struct pme_module *mods;
	const char *path = stacks_frame_path(t->stacks, t, x->id);
	uint32_t i = (uint32_t)x->id, mod = PME_NONE;
	size_t nmods;

	if (path != NULL && (x->path = pme_escape_dup(path)) == NULL)
		return -1;
	x->kernel = stacks_frame_kernel(t, x->id);
	if (t->bf == NULL)
		return 0;
	pme_bucketfile_units(t->bf, &units);
	pme_bucketfile_ranges(t->bf, &ranges);
	nmods = pme_bucketfile_modules(t->bf, &mods);
	if ((x->id & FRAME_TYPE) == FRAME_MODULE)
		mod = i;
	if ((x->id & FRAME_TYPE) == FRAME_UNIT) {
		mod = units[i].module;
		x->line = units[i].line;
		if (units[i].nranges > 0)
			x->addr = ranges[units[i].range].start;
		if (units[i].file != NULL &&
		    (x->file = pme_escape_dup(units[i].file)) == NULL)
			return -1;
	}
	if (mod < nmods)
		x->mod = &mods[mod];
	return 0;
}

/*
 * Names the distinct ids ids[0..n) (sorted): m->names, one per name, and
 * of[k] the name index of ids[k].
 */
static int
name_ids(struct xmodel *m, const uint64_t *ids, size_t n, uint32_t *of)
{
	struct named *v = calloc(n + 1, sizeof(*v));
	size_t i, k;
	int rc = -1;

	if (v == NULL || (m->names = calloc(n + 1, sizeof(*m->names))) ==
	    NULL)
		goto done;
	for (i = 0; i < n; i++) {
		v[i].id = ids[i];
		if ((v[i].name = stacks_frame_name(m->t->stacks, m->t,
		    ids[i])) == NULL)
			goto done;
	}
	qsort(v, n, sizeof(*v), named_cmp);
	for (i = 0; i < n; i++) {
		if (m->nnames == 0 ||
		    strcmp(m->names[m->nnames - 1].name, v[i].name) != 0) {
			struct xname *x = &m->names[m->nnames++];

			x->name = v[i].name;
			v[i].name = NULL;
			x->id = v[i].id;
			if (frame_facts(m->t, x) == -1)
				goto done;
		}
		k = (uint64_t *)bsearch(&v[i].id, ids, n, sizeof(*ids),
		    id_cmp) - ids;
		of[k] = (uint32_t)(m->nnames - 1);
	}
	rc = 0;
done:
	for (i = 0; v != NULL && i < n; i++)
		free(v[i].name);
	free(v);
	return rc;
}

static const uint32_t *cmp_pool;

static int
stack_cmp(const void *a, const void *b)
{
	const struct xstack *x = a, *y = b;
	uint32_t i, n = x->n < y->n ? x->n : y->n;

	for (i = 0; i < n; i++)
		if (cmp_pool[x->off + i] != cmp_pool[y->off + i])
			return cmp_pool[x->off + i] < cmp_pool[y->off + i] ?
			    -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* The stacks by name, outermost first, sorted, equal ones merged. */
static int
name_stacks(struct xmodel *m, struct raw *r, const uint64_t *ids,
    size_t nids, const uint32_t *of)
{
	size_t i, j, k;

	if ((m->pool = calloc(r->nids + 1, sizeof(*m->pool))) == NULL)
		return -1;
	for (i = 0; i < r->nst; i++) {
		struct xstack *s = &r->st[i];

		for (j = 0; j < s->n; j++) {
			const uint64_t *p = bsearch(&r->ids[s->off + j], ids,
			    nids, sizeof(*ids), id_cmp);

			m->pool[s->off + s->n - 1 - j] = of[p - ids];
		}
		m->total += s->count;
		if (s->n > m->depth)
			m->depth = s->n;
	}
	cmp_pool = m->pool;
	qsort(r->st, r->nst, sizeof(*r->st), stack_cmp);
	for (i = k = 0; i < r->nst; i++)
		if (k > 0 && stack_cmp(&r->st[k - 1], &r->st[i]) == 0)
			r->st[k - 1].count += r->st[i].count;
		else
			r->st[k++] = r->st[i];
	m->st = r->st;
	m->nst = k;
	r->st = NULL;
	return 0;
}

static void
xmodel_free(struct xmodel *m)
{
	size_t i;

	for (i = 0; i < m->nnames; i++) {
		free(m->names[i].name);
		free(m->names[i].path);
		free(m->names[i].file);
	}
	free(m->names);
	free(m->st);
	free(m->pool);
	free(m->command);
}

static int
xmodel_make(struct xmodel *m, const struct tally *t)
{
	struct raw r;
	uint64_t *ids = NULL;
	uint32_t *of = NULL;
	size_t n = 0, i;
	int rc = -1;

	memset(m, 0, sizeof(*m));
	memset(&r, 0, sizeof(r));
	m->t = t;
	/* The command line is the program's bytes: made safe for a
	 * terminal, a text line and XML (no controls) as names are. */
	if ((t->command != NULL && (m->command = pme_escape_dup(t->command)) ==
	    NULL) || stacks_walk(t->stacks, raw_add, &r) == -1 ||
	    (ids = malloc((r.nids + 1) * sizeof(*ids))) == NULL ||
	    (of = calloc(r.nids + 1, sizeof(*of))) == NULL)
		goto done;
	if (r.nids > 0)
		memcpy(ids, r.ids, r.nids * sizeof(*ids));
	qsort(ids, r.nids, sizeof(*ids), id_cmp);
	for (i = 0; i < r.nids; i++)
		if (n == 0 || ids[n - 1] != ids[i])
			ids[n++] = ids[i];
	if (name_ids(m, ids, n, of) == 0 &&
	    name_stacks(m, &r, ids, n, of) == 0)
		rc = 0;
done:
	free(ids);
	free(of);
	free(r.ids);
	free(r.st);
	return rc;
}

/* --------------------------------------------------------- the callgrind */

/*
 * A call from caller to callee, its cost the samples of the stacks it
 * is on, counted once per stack: at the outermost of a name's frames, so
 * that callgrind_annotate --inclusive=yes, which sums the calls into a
 * function, gives each the samples whose stacks hold it, recursion or
 * not.  The caller of a stack's outermost frame is the root, (all).
 */
struct call {
	uint32_t	 caller, callee;
	uint64_t	 cost;
};

static int
call_cmp(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	return x->callee < y->callee ? -1 : x->callee > y->callee;
}

/* The calls of m's stacks, sorted, merged; self[name] the samples of
 * stacks ending in it.  NULL when out of memory. */
static struct call *
calls_of(const struct xmodel *m, uint64_t *self, size_t *ncalls)
{
	struct call *c;
	size_t *seen, n = 0, i, j, k;
	const size_t root = m->nnames;

	if ((seen = calloc(m->nnames + 1, sizeof(*seen))) == NULL)
		return NULL;
	for (i = 0, k = 0; i < m->nst; i++)
		k += m->st[i].n;
	if ((c = calloc(k + 1, sizeof(*c))) == NULL) {
		free(seen);
		return NULL;
	}
	for (i = 0; i < m->nst; i++) {
		const struct xstack *s = &m->st[i];
		const uint32_t *a = m->pool + s->off;

		for (j = 0; j < s->n; j++) {
			if (seen[a[j]] == i + 1)
				continue;
			seen[a[j]] = i + 1;
			c[n].caller = (uint32_t)(j == 0 ? root : a[j - 1]);
			c[n].callee = a[j];
			c[n++].cost = s->count;
		}
		self[a[s->n - 1]] += s->count;
	}
	free(seen);
	qsort(c, n, sizeof(*c), call_cmp);
	for (i = k = 0; i < n; i++)
		if (k > 0 && call_cmp(&c[k - 1], &c[i]) == 0)
			c[k - 1].cost += c[i].cost;
		else
			c[k++] = c[i];
	*ncalls = k;
	return c;
}

/* Compressed names (callgrind's "(id) name" once, "(id)" after): the
 * ids of one kind of name, those already given. */
struct cgnames {
	struct strset	 set;
	unsigned char	*given;
	size_t		 cap;
};

/* Name s, whose id is i + 1, under key. */
static int
cg_id(FILE *fp, const char *key, struct cgnames *k, size_t i, const char *s)
{
	if (i >= k->cap) {
		size_t cap = (i + 1) * 2;
		unsigned char *v = realloc(k->given, cap);

		if (v == NULL)
			return -1;
		memset(v + k->cap, 0, cap - k->cap);
		k->given = v;
		k->cap = cap;
	}
	if (k->given[i])
		return fprintf(fp, "%s=(%zu)\n", key, i + 1) < 0 ? -1 : 0;
	k->given[i] = 1;
	return fprintf(fp, "%s=(%zu) %s\n", key, i + 1, s) < 0 ? -1 : 0;
}

static int
cg_name(FILE *fp, const char *key, struct cgnames *k, const char *s)
{
	size_t i = strset_add(&k->set, s);

	return i == (size_t)-1 ? -1 : cg_id(fp, key, k, i, s);
}

struct cg {
	const struct xmodel *m;
	FILE		*fp;
	struct cgnames	 ob, fl, fn;
};

/* The object, file and function lines of name index i (the root's when
 * i is nnames), with prefix "" or "c" (a call's callee). */
static int
cg_fn(struct cg *g, uint32_t i, const char *prefix)
{
	const struct xname *x = i < g->m->nnames ? &g->m->names[i] : NULL;
	char key[8];

	/* Each time: callgrind_annotate keeps the last object named. */
	snprintf(key, sizeof(key), "%sob", prefix);
	if (cg_name(g->fp, key, &g->ob, x != NULL && x->path != NULL ?
	    x->path : "???") == -1)
		return -1;
	snprintf(key, sizeof(key), "%s", prefix[0] ? "cfi" : "fl");
	if (cg_name(g->fp, key, &g->fl, x != NULL && x->file != NULL ?
	    x->file : "???") == -1)
		return -1;
	/* Functions are numbered as the names, the root after them. */
	snprintf(key, sizeof(key), "%sfn", prefix);
	return cg_id(g->fp, key, &g->fn, i, x != NULL ? x->name : "(all)");
}

/* Name index i's position: its first address and source line. */
static void
cg_pos(const struct cg *g, uint32_t i, char *buf, size_t len)
{
	const struct xname *x = i < g->m->nnames ? &g->m->names[i] : NULL;

	snprintf(buf, len, "0x%llx %u",
	    (unsigned long long)(x != NULL ? x->addr : 0),
	    x != NULL ? x->line : 0);
}

/* Function f's lines: its self cost, then its calls c[0..n).  Every
 * function has them, so that each is named with its object. */
static int
cg_function(struct cg *g, uint32_t f, uint64_t self, const struct call *c,
    size_t n)
{
	char pos[64], cpos[64];
	size_t i;

	if (fputc('\n', g->fp) == EOF || cg_fn(g, f, "") == -1)
		return -1;
	cg_pos(g, f, pos, sizeof(pos));
	/* A cost line even of 0: callgrind_annotate annotates a source
	 * file only from them, and warns on one with calls only. */
	if (f < g->m->nnames && fprintf(g->fp, "%s %llu\n", pos,
	    (unsigned long long)self) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		cg_pos(g, c[i].callee, cpos, sizeof(cpos));
		if (cg_fn(g, c[i].callee, "c") == -1 ||
		    fprintf(g->fp, "calls=%llu %s\n%s %llu\n",
		    (unsigned long long)c[i].cost, cpos, pos,
		    (unsigned long long)c[i].cost) < 0)
			return -1;
	}
	return 0;
}

static int
cg_body(struct cg *g, const uint64_t *self, const struct call *c,
    size_t nc)
{
	const uint32_t root = (uint32_t)g->m->nnames;
	size_t i = 0, k, first;
	uint32_t f;

	/* The root first; its calls sort last (its index is the
	 * largest). */
	for (k = nc; k > 0 && c[k - 1].caller == root; k--)
		;
	if (cg_function(g, root, 0, c + k, nc - k) == -1)
		return -1;
	for (f = 0; f < root; f++) {
		for (first = i; i < k && c[i].caller == f; i++)
			;
		if (cg_function(g, f, self[f], c + first, i - first) == -1)
			return -1;
	}
	return 0;
}

int
callgrind_write(const struct xmodel *m, FILE *fp)
{
	struct cg g;
	struct call *c;
	uint64_t *self;
	size_t nc;
	int rc = -1;

	memset(&g, 0, sizeof(g));
	g.m = m;
	g.fp = fp;
	if ((self = calloc(m->nnames + 1, sizeof(*self))) == NULL)
		return -1;
	if ((c = calls_of(m, self, &nc)) == NULL)
		goto done;
	if (fprintf(fp, "# callgrind format\nversion: 1\n"
	    "creator: pmehisto (pme) %s\n", PME_VERSION_STRING) < 0 ||
	    (m->command != NULL && fprintf(fp, "cmd: %s\n", m->command) < 0) ||
	    fprintf(fp, "positions: instr line\nevent: Samples : clock "
	    "samples\nevents: Samples\n") < 0)
		goto done;
	if (cg_body(&g, self, c, nc) == -1 ||
	    fprintf(fp, "\ntotals: %llu\n", (unsigned long long)m->total) < 0)
		goto done;
	rc = 0;
done:
	free(self);
	free(c);
	strset_free(&g.ob.set);
	strset_free(&g.fl.set);
	free(g.ob.given);
	free(g.fl.given);
	free(g.fn.given);
	return rc;
}

/* ------------------------------------------------------------ the entry */

static int
to_memory(const struct xmodel *m, int (*write)(const struct xmodel *,
    FILE *), struct export_out *out, struct pme_error *err)
{
	FILE *fp;
	int failed;

	if ((fp = open_memstream(&out->data, &out->len)) == NULL)
		return histo_err(err, PME_ENOMEM, "out of memory");
	failed = write(m, fp) == -1;
	if (fclose(fp) == EOF || failed) {
		free(out->data);
		out->data = NULL;
		return histo_err(err, PME_ENOMEM, "out of memory");
	}
	return 0;
}

static int
svg_make(const struct xmodel *m, struct export_out *out,
    struct pme_error *err)
{
	return to_memory(m, svg_write, out, err);
}

static int
callgrind_make(const struct xmodel *m, struct export_out *out,
    struct pme_error *err)
{
	return to_memory(m, callgrind_write, out, err);
}

/* The registry: -T's word, the help's gloss, -o's default extension,
 * binary, the family, the writer. */
const struct export_format export_formats[] = {
	{ "svg", "a flame graph", ".svg", 0, EXPORT_STACKS, svg_make },
	{ "callgrind", NULL, "", 0, EXPORT_STACKS, callgrind_make },
	{ "pprof", NULL, ".pb.gz", 1, EXPORT_STACKS, pprof_make }
};
const size_t export_nformats = sizeof(export_formats) /
    sizeof(export_formats[0]);

const struct export_format *
export_find(const char *name)
{
	size_t i;

	for (i = 0; i < export_nformats; i++)
		if (strcmp(name, export_formats[i].name) == 0)
			return &export_formats[i];
	return NULL;
}

int
export_make(const struct export_format *f, const struct tally *t,
    const char *what, struct export_out *out, struct pme_error *err)
{
	struct xmodel m;
	int rc;

	memset(out, 0, sizeof(*out));
	if (xmodel_make(&m, t) == -1) {
		xmodel_free(&m);
		return histo_err(err, PME_ENOMEM, "out of memory");
	}
	if (m.depth < 2) {
		xmodel_free(&m);
		return histo_err(err, PME_EFORMAT, "%s%s%s: no call chains "
		    "for -T %s (record them with pmeclock -g)",
		    what != NULL ? "'" : "", what != NULL ? what :
		    "the sample files", what != NULL ? "'" : "", f->name);
	}
	rc = f->make(&m, out, err);
	xmodel_free(&m);
	return rc;
}
