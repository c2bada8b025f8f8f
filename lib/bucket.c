/*
 * bucket.c - bucket files (.PME, kind "BUCK"): building, reading, writing,
 * looking up, clearing and accumulating.  The payload layouts are in
 * pme(5); every index a file holds is checked before it is used.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util.h"
#include "varint.h"
#include "lookix.h"
#include "bucketw.h"

#define MAX_BUILDID	1024

/*
 * Strings live once in a table; units, kinds, modules and groups refer to
 * them by index, so that the thousands of line units naming the same few
 * files and numbers cost one string each.  The hash from string to index
 * is built only when something is added, not when a file is read.
 */
struct strslot {
	uint32_t	 idx;		/* index + 1, 0 when empty */
	uint32_t	 hash;		/* the string's pme_hash(), low bits */
};

struct strtab {
	struct pme_vec	 strs;		/* const char * */
	struct strslot	*slot;		/* cap of them */
	size_t		 cap;		/* slots, a power of two */
	size_t		 hashed;	/* strs[0 .. hashed) are in slot */
	uint32_t	 recent[2];	/* index + 1 of the strings added
					   last, the latest first; 0 none */
	size_t		 recentlen[2];	/* their lengths */
	int		 borrow;	/* new strings are the caller's, not
					   copies (bucketw.h) */
};

struct unitstr {
	uint32_t	 name;		/* string index */
	uint32_t	 file;		/* string index or PME_NONE */
};

struct alias {
	uint32_t	 unit;
	uint32_t	 name;		/* string index */
};

struct lookent {
	uint32_t	 module;
	uint32_t	 bucket;
	uint64_t	 start;
	uint64_t	 end;
};


static void	 index_free(struct pme_lookix *);

struct pme_bucketfile {
	struct pme_info	 info;
	struct pme_arena arena;
	struct strtab	 st;
	struct pme_vec	 kinds;		/* const char * */
	struct pme_vec	 kindstr;	/* uint32_t */
	struct pme_vec	 mods;		/* struct pme_module */
	struct pme_vec	 modstr;	/* uint32_t: path */
	struct pme_vec	 units;		/* struct pme_unit */
	struct pme_vec	 unitstr;	/* struct unitstr */
	struct pme_vec	 groups;	/* struct pme_group */
	struct pme_vec	 groupstr;	/* uint32_t: statement */
	struct pme_vec	 buckets;	/* struct pme_bucket */
	struct pme_vec	 ranges;	/* struct pme_range */
	struct pme_lookix	*index;		/* NULL until a lookup needs it */
	char		*c2name;	/* the second count's name, or NULL */
	struct pme_vec	 counts2;	/* uint64_t per bucket, with c2name */
	struct pme_vec	 aliases;	/* struct alias, units ascending */
	struct pme_vec	 aliasname;	/* const char *, beside aliases */
	char		*evname;	/* PME_MEASURE_EVENT's, or NULL */
	char		*evunit;
};

#define KINDS(bf)	((const char **)(bf)->kinds.v)
#define MODS(bf)	((struct pme_module *)(bf)->mods.v)
#define UNITS(bf)	((struct pme_unit *)(bf)->units.v)
#define GROUPS(bf)	((struct pme_group *)(bf)->groups.v)
#define BUCKETS(bf)	((struct pme_bucket *)(bf)->buckets.v)
#define RANGES(bf)	((struct pme_range *)(bf)->ranges.v)
#define STRS(bf)	((const char **)(bf)->st.strs.v)

/* ------------------------------------------------------------ strings */

/*
 * The slots keep each string's hash: growing the table moves them without
 * hashing the strings again, and a probe compares strings only when the
 * hashes agree (a big program's line names, "sqlite3.c:1234", share long
 * prefixes).
 */
static int
strtab_grow(struct strtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024, i, j;
	struct strslot *slot;

	while (cap < t->strs.n * 2 + 2)
		cap *= 2;
	if ((slot = calloc(cap, sizeof(*slot))) == NULL)
		return -1;
	for (i = 0; i < t->cap; i++) {
		if (t->slot[i].idx == 0)
			continue;
		j = t->slot[i].hash & (cap - 1);
		while (slot[j].idx != 0)
			j = (j + 1) & (cap - 1);
		slot[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	return 0;
}

/* The slot where s, of hash h, is or would go. */
static size_t
strtab_find(const struct strtab *t, const char *s, uint32_t h)
{
	const char **strs = t->strs.v;
	size_t j = h & (t->cap - 1);

	while (t->slot[j].idx != 0 && (t->slot[j].hash != h ||
	    strcmp(strs[t->slot[j].idx - 1], s) != 0))
		j = (j + 1) & (t->cap - 1);
	return j;
}

/* Hashes strings read from a file; the first of equal strings wins. */
static int
strtab_catch_up(struct strtab *t)
{
	const char **strs = t->strs.v;
	size_t j;
	uint32_t h;

	if (t->cap < t->strs.n * 2 + 2 && strtab_grow(t) == -1)
		return -1;
	for (; t->hashed < t->strs.n; t->hashed++) {
		h = (uint32_t)pme_hash(strs[t->hashed],
		    strlen(strs[t->hashed]));
		j = strtab_find(t, strs[t->hashed], h);
		if (t->slot[j].idx == 0) {
			t->slot[j].idx = (uint32_t)t->hashed + 1;
			t->slot[j].hash = h;
		}
	}
	return 0;
}

static uint32_t strtab_lookup(struct pme_bucketfile *, const char *, size_t);

/* The index of s, added if new; PME_NONE when out of memory or full. */
static uint32_t
strtab_add(struct pme_bucketfile *bf, const char *s)
{
	struct strtab *t = &bf->st;
	size_t j, len = strlen(s), l;
	uint32_t i;

	/* Units come in runs that share a file ("sqlite3.c" for each of a
	 * hundred thousand lines): the last two strings are compared before
	 * hashing, their lengths first (the lines' own names differ). */
	for (i = 0; i < 2; i++)
		if (t->recent[i] != 0 && t->recentlen[i] == len &&
		    memcmp(STRS(bf)[t->recent[i] - 1], s, len) == 0) {
			j = t->recent[i];
			l = t->recentlen[i];
			t->recent[i] = t->recent[0];
			t->recentlen[i] = t->recentlen[0];
			t->recent[0] = (uint32_t)j;
			t->recentlen[0] = l;
			return (uint32_t)j - 1;
		}
	i = strtab_lookup(bf, s, len);
	if (i != PME_NONE) {
		t->recent[1] = t->recent[0];
		t->recentlen[1] = t->recentlen[0];
		t->recent[0] = i + 1;
		t->recentlen[0] = len;
	}
	return i;
}

/* strtab_add() of s, of len bytes, without looking at the recent
 * strings. */
static uint32_t
strtab_lookup(struct pme_bucketfile *bf, const char *s, size_t len)
{
	struct strtab *t = &bf->st;
	size_t j;
	uint32_t h = (uint32_t)pme_hash(s, len);
	const char **p;

	if (strtab_catch_up(t) == -1)
		return PME_NONE;
	if ((t->strs.n + 1) * 2 > t->cap && strtab_grow(t) == -1)
		return PME_NONE;
	j = strtab_find(t, s, h);
	if (t->slot[j].idx != 0)
		return t->slot[j].idx - 1;
	if (t->strs.n >= PME_NONE - 1 || (p = pme_vec_push(&t->strs)) == NULL)
		return PME_NONE;
	if (t->borrow)
		*p = s;		/* strtab_add(): len is strlen(s) */
	else if ((*p = pme_arena_strndup(&bf->arena, s, len)) == NULL) {
		t->strs.n--;
		return PME_NONE;
	}
	t->slot[j].idx = (uint32_t)t->strs.n;
	t->slot[j].hash = h;
	t->hashed = t->strs.n;
	return (uint32_t)t->strs.n - 1;
}

/* ------------------------------------------------------------ life */

void
pme_bucketfile_borrow_strings(struct pme_bucketfile *bf)
{
	bf->st.borrow = 1;
}

struct pme_bucketfile *
pme_bucketfile_new(struct pme_error *err)
{
	struct pme_bucketfile *bf;

	if ((bf = calloc(1, sizeof(*bf))) == NULL) {
		pme_setnomem(err);
		return NULL;
	}
	pme_vec_init(&bf->st.strs, sizeof(const char *));
	pme_vec_init(&bf->kinds, sizeof(const char *));
	pme_vec_init(&bf->kindstr, sizeof(uint32_t));
	pme_vec_init(&bf->mods, sizeof(struct pme_module));
	pme_vec_init(&bf->modstr, sizeof(uint32_t));
	pme_vec_init(&bf->units, sizeof(struct pme_unit));
	pme_vec_init(&bf->unitstr, sizeof(struct unitstr));
	pme_vec_init(&bf->groups, sizeof(struct pme_group));
	pme_vec_init(&bf->groupstr, sizeof(uint32_t));
	pme_vec_init(&bf->buckets, sizeof(struct pme_bucket));
	pme_vec_init(&bf->ranges, sizeof(struct pme_range));
	pme_vec_init(&bf->counts2, sizeof(uint64_t));
	pme_vec_init(&bf->aliases, sizeof(struct alias));
	pme_vec_init(&bf->aliasname, sizeof(const char *));
	return bf;
}

void
pme_bucketfile_close(struct pme_bucketfile *bf)
{
	if (bf == NULL)
		return;
	pme_vec_free(&bf->st.strs);
	free(bf->st.slot);
	pme_vec_free(&bf->kinds);
	pme_vec_free(&bf->kindstr);
	pme_vec_free(&bf->mods);
	pme_vec_free(&bf->modstr);
	pme_vec_free(&bf->units);
	pme_vec_free(&bf->unitstr);
	pme_vec_free(&bf->groups);
	pme_vec_free(&bf->groupstr);
	pme_vec_free(&bf->buckets);
	pme_vec_free(&bf->ranges);
	index_free(bf->index);
	free(bf->c2name);
	free(bf->evname);
	free(bf->evunit);
	pme_vec_free(&bf->counts2);
	pme_vec_free(&bf->aliases);
	pme_vec_free(&bf->aliasname);
	pme_arena_free(&bf->arena);
	free(bf);
}

struct pme_info *
pme_bucketfile_info(struct pme_bucketfile *bf)
{
	return &bf->info;
}

/* ------------------------------------------------------------ adding */

static uint32_t
nomem(struct pme_error *err)
{
	pme_setnomem(err);
	return PME_NONE;
}

static uint32_t
einval(struct pme_error *err, const char *what)
{
	pme_seterr(err, PME_EINVAL, "%s", what);
	return PME_NONE;
}

/* Room for one more element of a table indexed by uint32_t. */
static int
full(const struct pme_vec *v, const char *what, struct pme_error *err)
{
	if (v->n < PME_NONE - 1)
		return 0;
	pme_seterr(err, PME_ELIMIT, "too many %s", what);
	return 1;
}

uint32_t
pme_bucketfile_add_kind(struct pme_bucketfile *bf, const char *name,
    struct pme_error *err)
{
	uint32_t s, *ps;
	const char **pk;

	if (name == NULL)
		return einval(err, "pme_bucketfile_add_kind: no name");
	if (full(&bf->kinds, "kinds", err))
		return PME_NONE;
	if ((s = strtab_add(bf, name)) == PME_NONE ||
	    pme_vec_reserve(&bf->kinds, bf->kinds.n + 1) == -1 ||
	    (ps = pme_vec_push(&bf->kindstr)) == NULL)
		return nomem(err);
	*ps = s;
	pk = pme_vec_push(&bf->kinds);
	*pk = STRS(bf)[s];
	return (uint32_t)bf->kinds.n - 1;
}

uint32_t
pme_bucketfile_add_module(struct pme_bucketfile *bf, const char *path,
    const uint8_t *buildid, uint32_t idlen, uint32_t flags,
    struct pme_error *err)
{
	struct pme_module *m;
	uint32_t s, *ps;
	uint8_t *id = NULL;

	if (buildid == NULL && idlen > 0)
		return einval(err, "pme_bucketfile_add_module: no build-id");
	if (idlen > MAX_BUILDID) {
		pme_seterr(err, PME_ELIMIT, "build-id of %u bytes exceeds "
		    "the %d byte limit", idlen, MAX_BUILDID);
		return PME_NONE;
	}
	if (full(&bf->mods, "load modules", err))
		return PME_NONE;
	if ((s = strtab_add(bf, path ? path : "")) == PME_NONE ||
	    (idlen > 0 && (id = pme_arena_alloc(&bf->arena, idlen)) == NULL) ||
	    pme_vec_reserve(&bf->mods, bf->mods.n + 1) == -1 ||
	    (ps = pme_vec_push(&bf->modstr)) == NULL)
		return nomem(err);
	if (idlen > 0)
		memcpy(id, buildid, idlen);
	*ps = s;
	m = pme_vec_push(&bf->mods);
	m->path = STRS(bf)[s];
	m->buildid = id;
	m->buildid_len = idlen;
	m->flags = flags;
	return (uint32_t)bf->mods.n - 1;
}

static int
check_ranges(const struct pme_range *r, uint32_t n, struct pme_error *err)
{
	uint32_t i;

	if (r == NULL && n > 0)
		return pme_seterr(err, PME_EINVAL, "no ranges");
	for (i = 0; i < n; i++)
		if (r[i].start >= r[i].end)
			return pme_seterr(err, PME_EINVAL,
			    "empty range 0x%llx - 0x%llx",
			    (unsigned long long)r[i].start,
			    (unsigned long long)r[i].end);
	return 0;
}

/*
 * Appends ranges to the pool and returns the index of the first.  The
 * caller may pass ranges from the pool itself (another unit's), which the
 * growth of the pool would move.
 */
static int
add_ranges(struct pme_bucketfile *bf, const struct pme_range *r, uint32_t n,
    uint64_t *index, struct pme_error *err)
{
	const struct pme_range *pool = RANGES(bf);
	size_t off = 0;
	int inpool;

	inpool = n > 0 && pool != NULL && r >= pool &&
	    r < pool + bf->ranges.n;
	if (inpool)
		off = (size_t)(r - pool);
	if (pme_vec_reserve(&bf->ranges, bf->ranges.n + n) == -1)
		return pme_setnomem(err);
	if (inpool)
		r = RANGES(bf) + off;
	*index = bf->ranges.n;
	if (n > 0)
		memcpy(RANGES(bf) + bf->ranges.n, r, n * sizeof(*r));
	bf->ranges.n += n;
	return 0;
}

static int
check_unit(const struct pme_bucketfile *bf, const struct pme_unit *u,
    struct pme_error *err)
{
	if (u == NULL || u->name == NULL)
		return pme_seterr(err, PME_EINVAL, "unit without a name");
	if (u->kind >= bf->kinds.n)
		return pme_seterr(err, PME_EINVAL, "unit '%s': no kind %u",
		    u->name, u->kind);
	if (u->parent != PME_NONE && u->parent >= bf->units.n)
		return pme_seterr(err, PME_EINVAL, "unit '%s': no parent %u",
		    u->name, u->parent);
	if (u->module != PME_NONE && u->module >= bf->mods.n)
		return pme_seterr(err, PME_EINVAL, "unit '%s': no module %u",
		    u->name, u->module);
	return 0;
}

uint32_t
pme_bucketfile_add_unit(struct pme_bucketfile *bf, const struct pme_unit *u,
    const struct pme_range *ranges, uint32_t n, struct pme_error *err)
{
	struct unitstr us;
	struct unitstr *pus;
	struct pme_unit *pu;
	uint64_t first;

	if (check_unit(bf, u, err) == -1 || check_ranges(ranges, n, err) == -1)
		return PME_NONE;
	if (full(&bf->units, "units", err))
		return PME_NONE;
	us.file = PME_NONE;
	if ((us.name = strtab_add(bf, u->name)) == PME_NONE ||
	    (u->file != NULL && (us.file = strtab_add(bf, u->file)) ==
	    PME_NONE) ||
	    pme_vec_reserve(&bf->units, bf->units.n + 1) == -1 ||
	    pme_vec_reserve(&bf->unitstr, bf->unitstr.n + 1) == -1)
		return nomem(err);
	if (add_ranges(bf, ranges, n, &first, err) == -1)
		return PME_NONE;
	pu = pme_vec_push(&bf->units);
	*pu = *u;
	pu->name = STRS(bf)[us.name];
	pu->file = u->file ? STRS(bf)[us.file] : NULL;
	pu->range = first;
	pu->nranges = n;
	pus = pme_vec_push(&bf->unitstr);
	*pus = us;
	return (uint32_t)bf->units.n - 1;
}

uint32_t
pme_bucketfile_add_group(struct pme_bucketfile *bf, const char *statement,
    uint32_t unit, uint32_t bykind, struct pme_error *err)
{
	struct pme_group *g;
	uint32_t s, *ps;

	if (unit >= bf->units.n)
		return einval(err, "pme_bucketfile_add_group: no such unit");
	if (bykind != PME_NONE && bykind >= bf->kinds.n)
		return einval(err, "pme_bucketfile_add_group: no such kind");
	if (full(&bf->groups, "groups", err))
		return PME_NONE;
	if ((s = strtab_add(bf, statement ? statement : "")) == PME_NONE ||
	    pme_vec_reserve(&bf->groups, bf->groups.n + 1) == -1 ||
	    (ps = pme_vec_push(&bf->groupstr)) == NULL)
		return nomem(err);
	*ps = s;
	g = pme_vec_push(&bf->groups);
	g->statement = STRS(bf)[s];
	g->unit = unit;
	g->bykind = bykind;
	g->first = (uint32_t)bf->buckets.n;
	g->count = 0;
	return (uint32_t)bf->groups.n - 1;
}

/* A bucket over exactly its unit's ranges shares them in the pool. */
static int
same_ranges(const struct pme_bucketfile *bf, const struct pme_unit *u,
    const struct pme_range *r, uint32_t n)
{
	return n == u->nranges && (n == 0 ||
	    memcmp(RANGES(bf) + u->range, r, n * sizeof(*r)) == 0);
}

uint32_t
pme_bucketfile_add_bucket(struct pme_bucketfile *bf, uint32_t unit,
    const struct pme_range *ranges, uint32_t n, struct pme_error *err)
{
	struct pme_group *g;
	struct pme_bucket *b;
	uint64_t first;

	if (bf->groups.n == 0)
		return einval(err, "pme_bucketfile_add_bucket: no group");
	if (unit >= bf->units.n)
		return einval(err, "pme_bucketfile_add_bucket: no such unit");
	if (check_ranges(ranges, n, err) == -1)
		return PME_NONE;
	if (full(&bf->buckets, "buckets", err))
		return PME_NONE;
	if (pme_vec_reserve(&bf->buckets, bf->buckets.n + 1) == -1 ||
	    (bf->c2name != NULL &&
	    pme_vec_reserve(&bf->counts2, bf->buckets.n + 1) == -1))
		return nomem(err);
	if (same_ranges(bf, &UNITS(bf)[unit], ranges, n))
		first = UNITS(bf)[unit].range;
	else if (add_ranges(bf, ranges, n, &first, err) == -1)
		return PME_NONE;
	b = pme_vec_push(&bf->buckets);
	if (bf->c2name != NULL)
		pme_vec_push(&bf->counts2);	/* reserved: cannot fail */
	b->unit = unit;
	b->group = (uint32_t)bf->groups.n - 1;
	b->range = first;
	b->nranges = n;
	g = &GROUPS(bf)[bf->groups.n - 1];
	g->count++;
	index_free(bf->index);
	bf->index = NULL;
	return (uint32_t)bf->buckets.n - 1;
}

/* ------------------------------------------------------------ getters */

size_t
pme_bucketfile_kinds(const struct pme_bucketfile *bf, const char *const **out)
{
	*out = bf->kinds.v;
	return bf->kinds.n;
}

size_t
pme_bucketfile_modules(const struct pme_bucketfile *bf,
    const struct pme_module **out)
{
	*out = bf->mods.v;
	return bf->mods.n;
}

size_t
pme_bucketfile_units(const struct pme_bucketfile *bf,
    const struct pme_unit **out)
{
	*out = bf->units.v;
	return bf->units.n;
}

size_t
pme_bucketfile_groups(const struct pme_bucketfile *bf,
    const struct pme_group **out)
{
	*out = bf->groups.v;
	return bf->groups.n;
}

size_t
pme_bucketfile_buckets(const struct pme_bucketfile *bf,
    struct pme_bucket **out)
{
	*out = bf->buckets.v;
	return bf->buckets.n;
}

size_t
pme_bucketfile_ranges(const struct pme_bucketfile *bf,
    const struct pme_range **out)
{
	*out = bf->ranges.v;
	return bf->ranges.n;
}

uint64_t *
pme_bucketfile_outside(struct pme_bucketfile *bf, uint32_t module)
{
	if (module >= bf->mods.n)
		return NULL;
	return &MODS(bf)[module].outside;
}

/* ------------------------------------------------------------ second count */

/* Names are short words ("calls"); the format allows 1 to 255 bytes. */
#define C2NAME_MAX	255

static int
check_c2name(const char *name, struct pme_error *err)
{
	size_t len = strlen(name);

	if (len == 0 || len > C2NAME_MAX)
		return pme_seterr(err, PME_EINVAL, "a second count's name of "
		    "%zu bytes: 1 to %d are allowed", len, C2NAME_MAX);
	return 0;
}

int
pme_bucketfile_set_counts2(struct pme_bucketfile *bf, const char *name,
    struct pme_error *err)
{
	char *s;

	if (name == NULL) {
		free(bf->c2name);
		bf->c2name = NULL;
		bf->counts2.n = 0;
		return 0;
	}
	if (check_c2name(name, err) == -1)
		return -1;
	if ((s = strdup(name)) == NULL ||
	    pme_vec_reserve(&bf->counts2, bf->buckets.n) == -1) {
		free(s);
		return pme_setnomem(err);
	}
	free(bf->c2name);
	bf->c2name = s;
	bf->counts2.n = bf->buckets.n;
	if (bf->buckets.n > 0)
		memset(bf->counts2.v, 0, bf->buckets.n * sizeof(uint64_t));
	return 0;
}

const char *
pme_bucketfile_counts2(struct pme_bucketfile *bf, uint64_t **counts)
{
	if (counts != NULL)
		*counts = bf->c2name != NULL ? bf->counts2.v : NULL;
	return bf->c2name;
}

/* ------------------------------------------------- the event measured */

const char *
pme_bucketfile_event(const struct pme_bucketfile *bf, const char **unit)
{
	if (unit != NULL)
		*unit = bf->evunit;
	return bf->info.measure == PME_MEASURE_EVENT ? bf->evname : NULL;
}

int
pme_bucketfile_set_event(struct pme_bucketfile *bf, const char *name,
    const char *unit, struct pme_error *err)
{
	char *n, *u;

	if (check_c2name(name, err) == -1 || check_c2name(unit, err) == -1)
		return -1;
	if ((n = strdup(name)) == NULL || (u = strdup(unit)) == NULL) {
		free(n);
		return pme_setnomem(err);
	}
	free(bf->evname);
	free(bf->evunit);
	bf->evname = n;
	bf->evunit = u;
	bf->info.measure = PME_MEASURE_EVENT;
	return 0;
}

/* ------------------------------------------------------------ aliases */

/* The first alias of a unit at or after unit. */
static size_t
alias_first(const struct pme_bucketfile *bf, uint32_t unit)
{
	const struct alias *a = bf->aliases.v;
	size_t lo = 0, hi = bf->aliases.n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (a[mid].unit < unit)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint32_t
pme_bucketfile_add_alias(struct pme_bucketfile *bf, uint32_t unit,
    const char *name, struct pme_error *err)
{
	struct alias *a;
	const char **v;
	size_t at, n = bf->aliases.n;
	uint32_t s;

	if (unit >= bf->units.n)
		return einval(err, "pme_bucketfile_add_alias: no such unit");
	if (name == NULL || *name == '\0')
		return einval(err, "pme_bucketfile_add_alias: no name");
	if (full(&bf->aliases, "aliases", err))
		return PME_NONE;
	if ((s = strtab_add(bf, name)) == PME_NONE ||
	    pme_vec_reserve(&bf->aliases, n + 1) == -1 ||
	    pme_vec_reserve(&bf->aliasname, n + 1) == -1)
		return nomem(err);
	/* After the unit's others: most callers add in unit order. */
	at = alias_first(bf, unit + 1);
	a = bf->aliases.v;
	v = bf->aliasname.v;
	memmove(a + at + 1, a + at, (n - at) * sizeof(*a));
	memmove(v + at + 1, v + at, (n - at) * sizeof(*v));
	a[at].unit = unit;
	a[at].name = s;
	v[at] = STRS(bf)[s];
	bf->aliases.n = bf->aliasname.n = n + 1;
	return (uint32_t)(at - alias_first(bf, unit));
}

size_t
pme_bucketfile_aliases(const struct pme_bucketfile *bf, uint32_t unit,
    const char *const **out)
{
	size_t lo = alias_first(bf, unit), hi = lo;

	while (hi < bf->aliases.n &&
	    PME_VEC_AT(&bf->aliases, struct alias, hi).unit == unit)
		hi++;
	*out = hi > lo ? (const char **)bf->aliasname.v + lo : NULL;
	return hi - lo;
}

/*
 * The ranges the buckets refer to, counted once per bucket: the size of
 * the lookup index.  Buckets that do not overlap refer to each pool entry
 * at most once, so a file claiming many times more is forged (or its
 * buckets overlap wholesale), and must not make a lookup allocate an
 * index far bigger than the file.
 */
static int
index_fits(uint64_t refs, size_t npool)
{
	return refs <= 4 * (uint64_t)npool + 1024;
}

/* ------------------------------------------------------------ encoding */

/*
 * Payloads are tables of LEB128 varints (pme(5)): most fields are small
 * numbers or small differences from the previous record, so a varint table
 * is a fraction of the fixed-width one, and it compresses better too.
 */
struct enc {
	uint8_t		*base;
	uint8_t		*p;
};

/* Each record below takes at most this many varints. */
#define ENC_MAXFIELDS	12

static int
enc_init(struct enc *e, size_t records, size_t extra)
{
	size_t per = ENC_MAXFIELDS * PME_VARINT_MAX;

	if (records > (SIZE_MAX - extra - PME_VARINT_MAX) / per)
		return -1;
	if ((e->base = malloc(records * per + extra + PME_VARINT_MAX)) == NULL)
		return -1;
	e->p = e->base;
	return 0;
}

static inline void
put_uv(struct enc *e, uint64_t v)
{
	e->p = pme_uv_put(e->p, v);
}

/* A difference modulo 2^64, zigzagged so small negatives stay small. */
static inline void
put_sv(struct enc *e, uint64_t now, uint64_t expected)
{
	put_uv(e, pme_zig(now - expected));
}

/* An optional index: 0 for PME_NONE, else index + 1. */
static inline void
put_opt(struct enc *e, uint32_t v)
{
	put_uv(e, v == PME_NONE ? 0 : (uint64_t)v + 1);
}

static void
put_u32(uint8_t *p, uint32_t v)
{
	pme_le32(p, v);
}

static void
put_u64(uint8_t *p, uint64_t v)
{
	pme_le32(p, (uint32_t)v);
	pme_le32(p + 4, (uint32_t)(v >> 32));
}

static int
enc_opts(const struct pme_bucketfile *bf, struct enc *e)
{
	const struct pme_info *i = &bf->info;

	if (enc_init(e, 0, 48) == -1)
		return -1;
	put_u32(e->p, i->options);
	put_u32(e->p + 4, i->measure);
	put_u64(e->p + 8, i->period);
	put_u64(e->p + 16, i->runs);
	put_u64(e->p + 24, i->total);
	put_u64(e->p + 32, i->lost);
	put_u64(e->p + 40, i->unmapped);
	e->p += 48;
	return 0;
}

static int
enc_strs(const struct pme_bucketfile *bf, struct enc *e)
{
	const char **s = STRS(bf);
	size_t i, n = bf->st.strs.n, bytes = 0, len;

	for (i = 0; i < n; i++)
		bytes += strlen(s[i]);
	if (enc_init(e, n + 1, bytes) == -1)
		return -1;
	put_uv(e, n);
	for (i = 0; i < n; i++) {
		len = strlen(s[i]);
		put_uv(e, len);
		memcpy(e->p, s[i], len);
		e->p += len;
	}
	return 0;
}

static int
enc_kinds(const struct pme_bucketfile *bf, struct enc *e)
{
	const uint32_t *ks = bf->kindstr.v;
	size_t i;

	if (enc_init(e, bf->kinds.n + 1, 0) == -1)
		return -1;
	put_uv(e, bf->kinds.n);
	for (i = 0; i < bf->kinds.n; i++)
		put_uv(e, ks[i]);
	return 0;
}

static int
enc_mods(const struct pme_bucketfile *bf, struct enc *e)
{
	const struct pme_module *m = MODS(bf);
	const uint32_t *ms = bf->modstr.v;
	size_t i, n = bf->mods.n;

	if (enc_init(e, n + 1, n * MAX_BUILDID) == -1)
		return -1;
	put_uv(e, n);
	for (i = 0; i < n; i++) {
		put_uv(e, ms[i]);
		put_uv(e, m[i].flags);
		put_uv(e, m[i].outside);
		put_uv(e, m[i].buildid_len);
		if (m[i].buildid_len > 0)
			memcpy(e->p, m[i].buildid, m[i].buildid_len);
		e->p += m[i].buildid_len;
	}
	return 0;
}

/* Lengths first, so that a reader knows each end as it reads the starts. */
static int
enc_ranges(const struct pme_bucketfile *bf, struct enc *e)
{
	const struct pme_range *r = RANGES(bf);
	uint64_t prev = 0;
	size_t i, n = bf->ranges.n;

	if (enc_init(e, n + 1, 0) == -1)
		return -1;
	put_uv(e, n);
	for (i = 0; i < n; i++)
		put_uv(e, r[i].end - r[i].start);
	for (i = 0; i < n; i++) {
		put_sv(e, r[i].start, prev);
		prev = r[i].end;
	}
	return 0;
}

/* A parent as a difference from the last parent given; 0 for none. */
static uint64_t
parent_code(uint32_t parent, uint32_t *last)
{
	uint64_t d = (uint64_t)parent - *last;

	if (parent == PME_NONE)
		return 0;
	*last = parent;
	return (d >> 63 ? ~(d << 1) : d << 1) + 1;
}

/*
 * Tables are stored column by column: a column of one field is a run of
 * alike small numbers that deflate compresses several times faster and
 * smaller than the same fields interleaved.
 */
static void
enc_unit_tree(const struct pme_bucketfile *bf, struct enc *e)
{
	const struct pme_unit *u = UNITS(bf);
	const struct unitstr *us = bf->unitstr.v;
	size_t i, n = bf->units.n;
	uint32_t last = 0;
	uint64_t prev = 0;

	for (i = 0; i < n; i++) {
		put_sv(e, us[i].name, prev);
		prev = us[i].name;
	}
	for (i = 0; i < n; i++)
		put_uv(e, u[i].kind);
	for (i = 0; i < n; i++)
		put_uv(e, parent_code(u[i].parent, &last));
	for (i = 0; i < n; i++)
		put_opt(e, u[i].module);
	for (i = 0; i < n; i++)
		put_uv(e, u[i].flags);
	for (i = 0; i < n; i++)
		put_uv(e, u[i].step);
}

static void
enc_unit_places(const struct pme_bucketfile *bf, struct enc *e)
{
	const struct pme_unit *u = UNITS(bf);
	const struct unitstr *us = bf->unitstr.v;
	size_t i, n = bf->units.n;
	uint64_t next = 0;

	for (i = 0; i < n; i++)
		put_uv(e, u[i].nranges);
	for (i = 0; i < n; i++) {
		put_sv(e, u[i].range, next);
		next = u[i].range + u[i].nranges;
	}
	for (i = 0; i < n; i++)
		put_sv(e, u[i].line, i > 0 ? u[i - 1].line : 0);
	for (i = 0; i < n; i++)
		put_opt(e, us[i].file);
}

static int
enc_units(const struct pme_bucketfile *bf, struct enc *e)
{
	if (enc_init(e, bf->units.n + 1, 0) == -1)
		return -1;
	put_uv(e, bf->units.n);
	enc_unit_tree(bf, e);
	enc_unit_places(bf, e);
	return 0;
}

static int
enc_groups(const struct pme_bucketfile *bf, struct enc *e)
{
	const struct pme_group *g = GROUPS(bf);
	const uint32_t *gs = bf->groupstr.v;
	size_t i;

	if (enc_init(e, bf->groups.n + 1, 0) == -1)
		return -1;
	put_uv(e, bf->groups.n);
	for (i = 0; i < bf->groups.n; i++) {
		put_uv(e, gs[i]);
		put_uv(e, g[i].unit);
		put_opt(e, g[i].bykind);
		put_uv(e, g[i].count);
	}
	return 0;
}

static int
enc_buckets(const struct pme_bucketfile *bf, struct enc *e)
{
	const struct pme_bucket *b = BUCKETS(bf);
	const struct pme_unit *u = UNITS(bf);
	size_t i, n = bf->buckets.n;

	if (enc_init(e, n + 1, 0) == -1)
		return -1;
	put_uv(e, n);
	for (i = 0; i < n; i++)
		put_sv(e, b[i].unit, i > 0 ? (uint64_t)b[i - 1].unit + 1 : 0);
	for (i = 0; i < n; i++)
		put_uv(e, b[i].nranges);
	for (i = 0; i < n; i++)
		put_sv(e, b[i].range, u[b[i].unit].range);
	for (i = 0; i < n; i++)
		put_uv(e, b[i].count);
	return 0;
}

/* The event measured: its name and its unit, each a uv length and its
 * bytes. */
static int
enc_event(const struct pme_bucketfile *bf, struct enc *e)
{
	size_t n = strlen(bf->evname), u = strlen(bf->evunit);

	if (enc_init(e, 2, n + u) == -1)
		return -1;
	put_uv(e, n);
	memcpy(e->p, bf->evname, n);
	e->p += n;
	put_uv(e, u);
	memcpy(e->p, bf->evunit, u);
	e->p += u;
	return 0;
}

/* The optional second count: its name, then one uv per bucket. */
static int
enc_counts2(const struct pme_bucketfile *bf, struct enc *e)
{
	const uint64_t *c = bf->counts2.v;
	size_t i, n = bf->counts2.n, len = strlen(bf->c2name);

	if (enc_init(e, n + 2, len) == -1)
		return -1;
	put_uv(e, len);
	memcpy(e->p, bf->c2name, len);
	e->p += len;
	put_uv(e, n);
	for (i = 0; i < n; i++)
		put_uv(e, c[i]);
	return 0;
}

/* The optional aliases: count, the units' ascending steps, the names. */
static int
enc_aliases(const struct pme_bucketfile *bf, struct enc *e)
{
	const struct alias *a = bf->aliases.v;
	size_t i, n = bf->aliases.n;

	if (enc_init(e, n + 1, 0) == -1)
		return -1;
	put_uv(e, n);
	for (i = 0; i < n; i++)
		put_uv(e, a[i].unit - (i > 0 ? a[i - 1].unit : 0));
	for (i = 0; i < n; i++)
		put_uv(e, a[i].name);
	return 0;
}

#define T_OPTS	PME_FOURCC('O', 'P', 'T', 'S')
#define T_STRS	PME_FOURCC('S', 'T', 'R', 'S')
#define T_KIND	PME_FOURCC('K', 'I', 'N', 'D')
#define T_MODS	PME_FOURCC('M', 'O', 'D', 'S')
#define T_RNGS	PME_FOURCC('R', 'N', 'G', 'S')
#define T_UNIT	PME_FOURCC('U', 'N', 'I', 'T')
#define T_GRPS	PME_FOURCC('G', 'R', 'P', 'S')
#define T_BCKT	PME_FOURCC('B', 'C', 'K', 'T')
#define T_CNT2	PME_FOURCC('C', 'N', 'T', '2')
#define T_ALIA	PME_FOURCC('A', 'L', 'I', 'A')
#define T_MEAS	PME_FOURCC('M', 'E', 'A', 'S')

/* The chunks in the order a file holds them and a reader needs them. */
static const struct chunkdef {
	uint32_t	 type;
	const char	*name;
	int		(*enc)(const struct pme_bucketfile *, struct enc *);
} chunkdefs[] = {
	{ T_OPTS, "OPTS", enc_opts },
	{ T_STRS, "STRS", enc_strs },
	{ T_KIND, "KIND", enc_kinds },
	{ T_MODS, "MODS", enc_mods },
	{ T_RNGS, "RNGS", enc_ranges },
	{ T_UNIT, "UNIT", enc_units },
	{ T_GRPS, "GRPS", enc_groups },
	{ T_BCKT, "BCKT", enc_buckets },
	{ T_CNT2, "CNT2", enc_counts2 },	/* only when set */
	{ T_ALIA, "ALIA", enc_aliases },	/* only when there are some */
	{ T_MEAS, "MEAS", enc_event },		/* PME_MEASURE_EVENT only */
};
#define NCHUNKS (sizeof(chunkdefs) / sizeof(chunkdefs[0]))

/*
 * Whether the RNGS payload p of len bytes is worth compressing.  Its
 * addresses and lengths can be nearly random bytes (SQLite's lines:
 * zlib makes 204,100 bytes 159,120, in a third of the time the whole
 * file takes to compress) or very regular (a generated program's: less
 * than half).  Past 128 KiB, its first and last 32 KiB (lengths, then
 * starts) are compressed as a sample: 70% or more of their size, and
 * the chunk is stored plain.
 */
#define RNGS_SAMPLE	32768

static int
ranges_compress(const uint8_t *p, size_t len)
{
	uLongf n1, n2;
	Bytef *out;
	int rc;

	if (len <= 4 * RNGS_SAMPLE)
		return 1;
	n1 = n2 = compressBound(RNGS_SAMPLE);
	if ((out = malloc(2 * (size_t)n1)) == NULL)
		return 1;
	rc = compress2(out, &n1, p, RNGS_SAMPLE, Z_BEST_SPEED) != Z_OK ||
	    compress2(out + n1, &n2, p + len - RNGS_SAMPLE, RNGS_SAMPLE,
	    Z_BEST_SPEED) != Z_OK || (n1 + n2) * 10 < 2 * RNGS_SAMPLE * 7;
	free(out);
	return rc;
}

int
pme_bucketfile_write(const struct pme_bucketfile *bf, const char *path,
    struct pme_error *err)
{
	struct pme_writer *w;
	struct enc e;
	uint64_t refs;
	size_t i, len;
	int rc;

	for (i = 0, refs = 0; i < bf->buckets.n; i++)
		refs += BUCKETS(bf)[i].nranges;
	if (!index_fits(refs, bf->ranges.n))
		return pme_seterr(err, PME_ELIMIT, "'%s': the buckets refer to "
		    "%llu ranges of a pool of %zu: they overlap too much", path,
		    (unsigned long long)refs, bf->ranges.n);
	if ((w = pme_writer_open(path, PME_KIND_BUCKET, 0, err)) == NULL)
		return -1;
	for (i = 0; i < NCHUNKS; i++) {
		if ((chunkdefs[i].type == T_CNT2 && bf->c2name == NULL) ||
		    (chunkdefs[i].type == T_ALIA && bf->aliases.n == 0) ||
		    (chunkdefs[i].type == T_MEAS &&
		    pme_bucketfile_event(bf, NULL) == NULL))
			continue;
		if (chunkdefs[i].enc(bf, &e) == -1) {
			pme_writer_abort(w);
			return pme_setnomem(err);
		}
		len = (size_t)(e.p - e.base);
		if (len > PME_CHUNK_MAX)
			rc = pme_seterr(err, PME_ELIMIT, "'%s': the %s table "
			    "needs %zu bytes, more than a chunk holds", path,
			    chunkdefs[i].name, len);
		else
			rc = pme_writer_chunk(w, chunkdefs[i].type, e.base,
			    len, chunkdefs[i].type != T_RNGS ||
			    ranges_compress(e.base, len), err);
		free(e.base);
		if (rc == -1) {
			pme_writer_abort(w);
			return -1;
		}
	}
	return pme_writer_commit(w, err);
}

/* ------------------------------------------------------------ decoding */

/*
 * One chunk's payload being decoded, and where to say what is wrong.  The
 * payload is read through a window as the decoder goes, decompressed a
 * piece at a time (pme_reader_read()): a chunk that goes wrong early, or
 * claims more bytes than its table fills, is refused having cost a
 * window, not its raw length.
 */
#define WIN_LEN		(64u << 10)	/* at least the longest field read
					   whole: a build-id, OPTS */
struct dec {
	const uint8_t	*p;
	const uint8_t	*end;		/* of the bytes in the window */
	uint64_t	 rest;		/* payload bytes not yet in it */
	int		 bad;
	int		 failed;	/* reading failed: err says why */
	struct pme_reader *r;
	uint8_t		*win;
	const char	*file;
	const char	*tag;
	uint64_t	 offset;
	struct pme_error *err;
	int		 opts;		/* the OPTS chunk was read */
};

/* Payload bytes not yet decoded. */
static uint64_t
left(const struct dec *d)
{
	return (uint64_t)(d->end - d->p) + d->rest;
}

/* Makes want bytes (at most WIN_LEN) readable at d->p if the payload
 * has them; returns how many are. */
static size_t
refill(struct dec *d, size_t want)
{
	size_t have = (size_t)(d->end - d->p), n, k, got;

	if (have >= want || d->rest == 0 || d->failed)
		return have;
	memmove(d->win, d->p, have);
	n = WIN_LEN - have < d->rest ? WIN_LEN - have : (size_t)d->rest;
	for (k = 0; k < n; k += got) {
		if (pme_reader_read(d->r, d->win + have + k, n - k, &got,
		    d->err) == -1) {
			d->failed = d->bad = 1;
			break;
		}
		if (got == 0) {
			d->bad = 1;
			break;
		}
	}
	d->p = d->win;
	d->end = d->win + have + k;
	d->rest -= k;
	return have + k;
}

/* A varint that may run past the window: the window is refilled to hold
 * the longest there is first, when the payload has it. */
static uint64_t
get_uv_slow(struct dec *d)
{
	const uint8_t *q;
	uint64_t v;

	refill(d, PME_VARINT_MAX);
	if ((q = pme_uv_get(d->p, d->end, &v)) == NULL) {
		d->bad = 1;
		return 0;
	}
	d->p = q;
	return v;
}

/* Most values are one byte. */
static inline uint64_t
get_uv(struct dec *d)
{
	if (d->p < d->end && *d->p < 0x80)
		return *d->p++;
	return get_uv_slow(d);
}

static uint64_t
get_sv(struct dec *d, uint64_t expected)
{
	return expected + pme_unzig(get_uv(d));
}

static int
derr(struct dec *d, const char *fmt, ...) PME_PRINTF(2, 3);

/* After a failed read, err already says what went wrong. */
static int
derr(struct dec *d, const char *fmt, ...)
{
	char what[300];
	va_list ap;

	if (d->failed)
		return -1;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return pme_setfmt(d->err, PME_EFORMAT, d->file, d->offset,
	    "'%s' chunk: %s", d->tag, what);
}

static int
short_payload(struct dec *d)
{
	return derr(d, "payload ends early");
}

/* A u32 varint, or bad. */
static uint32_t
get_u32v(struct dec *d)
{
	uint64_t v = get_uv(d);

	if (v > UINT32_MAX)
		d->bad = 1;
	return (uint32_t)v;
}

/*
 * Reads a table's element count and reserves room for it, after checking
 * that count elements of at least minsize bytes each fit in the payload:
 * a forged count must not size an allocation.  Unless maxsize is 0, the
 * payload must not hold more than count elements of maxsize bytes: what
 * the table can hold bounds what it may cost to read.
 */
static int
get_count(struct dec *d, struct pme_vec *v, size_t minsize, size_t maxsize,
    size_t *count)
{
	uint64_t n = get_uv(d);

	if (d->bad || n > left(d) / minsize || n >= PME_NONE)
		return derr(d, "count %llu does not fit the payload",
		    (unsigned long long)n);
	if (maxsize > 0 && left(d) > n * maxsize)
		return derr(d, "%llu bytes for %llu records of at most %zu",
		    (unsigned long long)left(d), (unsigned long long)n,
		    maxsize);
	if (v != NULL && pme_vec_reserve(v, v->n + (size_t)n) == -1)
		return pme_setnomem(d->err);
	*count = (size_t)n;
	return 0;
}

static int
dec_end(struct dec *d)
{
	if (d->bad)
		return short_payload(d);
	if (left(d) != 0)
		return derr(d, "%llu bytes after the table",
		    (unsigned long long)left(d));
	return 0;
}

static uint64_t
get_u64le(const uint8_t *p)
{
	return pme_get32(p) | (uint64_t)pme_get32(p + 4) << 32;
}

/*
 * Copies len bytes of text (len checked against the payload) to dst and
 * terminates it.  -1, reported, when they cannot be read; -2, for the
 * caller to report, when they hold a NUL byte.
 */
static int
get_text(struct dec *d, char *dst, size_t len)
{
	size_t have, k;

	for (; len > 0; len -= k, dst += k) {
		if ((have = refill(d, 1)) == 0)
			return short_payload(d);
		k = have < len ? have : len;
		if (memchr(d->p, '\0', k) != NULL)
			return -2;
		memcpy(dst, d->p, k);
		d->p += k;
	}
	*dst = '\0';
	return 0;
}

/*
 * The most runs a file may claim: the counts are compared per run in
 * double precision (pmehisto -D), which holds integers exactly up to
 * 2^53; a claim of more (2^64-1 runs made every growth of a gate
 * "noise") is no file a measurement wrote.
 */
#define RUNS_MAX	(UINT64_C(1) << 53)

/*
 * The buckets' counts against the file's total of all counts, once both
 * chunks are read: no bucket, nor all of them together, may count more
 * (a total saturated at 2^64-1 holds any).
 */
static int
counts_fit(const struct pme_bucketfile *bf, struct dec *d)
{
	const struct pme_bucket *b = BUCKETS(bf);
	uint64_t total = bf->info.total, sum = 0;
	size_t i;

	for (i = 0; i < bf->buckets.n; i++) {
		if (b[i].count > total)
			return derr(d, "bucket %zu counts %llu, more than the "
			    "file's total of %llu", i,
			    (unsigned long long)b[i].count,
			    (unsigned long long)total);
		sum = b[i].count > UINT64_MAX - sum ? UINT64_MAX :
		    sum + b[i].count;
	}
	if (sum > total)
		return derr(d, "the buckets count %llu in all, more than the "
		    "file's total of %llu", (unsigned long long)sum,
		    (unsigned long long)total);
	return 0;
}

static int
dec_opts(struct pme_bucketfile *bf, struct dec *d)
{
	struct pme_info *i = &bf->info;
	const uint8_t *p;

	if (left(d) != 48)
		return derr(d, "payload of %llu bytes, not 48",
		    (unsigned long long)left(d));
	if (refill(d, 48) < 48)
		return short_payload(d);
	p = d->p;
	i->options = pme_get32(p);
	i->measure = pme_get32(p + 4);
	i->period = get_u64le(p + 8);
	i->runs = get_u64le(p + 16);
	i->total = get_u64le(p + 24);
	i->lost = get_u64le(p + 32);
	i->unmapped = get_u64le(p + 40);
	d->p += 48;
	if (i->runs > RUNS_MAX)
		return derr(d, "%llu runs, more than a file can hold (2^53)",
		    (unsigned long long)i->runs);
	return counts_fit(bf, d);	/* buckets before OPTS: now */
}

static int
dec_strs(struct pme_bucketfile *bf, struct dec *d)
{
	const char **s = NULL;
	size_t n, i;
	uint64_t len;

	char *t;
	int rc;

	if (get_count(d, &bf->st.strs, 1, 0, &n) == -1)
		return -1;
	s = bf->st.strs.v;
	for (i = 0; i < n; i++) {
		len = get_uv(d);
		if (d->bad || len > left(d))
			return short_payload(d);
		if ((t = pme_arena_alloc(&bf->arena, (size_t)len + 1)) == NULL)
			return pme_setnomem(d->err);
		if ((rc = get_text(d, t, (size_t)len)) == -2)
			return derr(d, "string %zu holds a NUL byte", i);
		if (rc == -1)
			return -1;
		s[i] = t;
		bf->st.strs.n++;
	}
	return dec_end(d);
}

/* A string index, or PME_NONE after reporting it. */
static uint32_t
get_str(struct pme_bucketfile *bf, struct dec *d, const char *what, size_t i)
{
	uint64_t s = get_uv(d);

	if (d->bad) {
		short_payload(d);
		return PME_NONE;
	}
	if (s >= bf->st.strs.n) {
		derr(d, "%s %zu: no string %llu", what, i,
		    (unsigned long long)s);
		return PME_NONE;
	}
	return (uint32_t)s;
}

static int
dec_kinds(struct pme_bucketfile *bf, struct dec *d)
{
	size_t n, i;
	uint32_t s;

	if (get_count(d, &bf->kinds, 1, PME_VARINT_MAX, &n) == -1)
		return -1;
	if (pme_vec_reserve(&bf->kindstr, n) == -1)
		return pme_setnomem(d->err);
	for (i = 0; i < n; i++) {
		if ((s = get_str(bf, d, "kind", i)) == PME_NONE)
			return -1;
		PME_VEC_AT(&bf->kindstr, uint32_t, i) = s;
		KINDS(bf)[i] = STRS(bf)[s];
	}
	bf->kinds.n = bf->kindstr.n = n;
	return dec_end(d);
}

static int
dec_mods(struct pme_bucketfile *bf, struct dec *d)
{
	struct pme_module *m;
	size_t n, i;
	uint32_t s;
	uint8_t *id;

	if (get_count(d, &bf->mods, 4, 4 * PME_VARINT_MAX + MAX_BUILDID, &n) == -1)
		return -1;
	if (pme_vec_reserve(&bf->modstr, n) == -1)
		return pme_setnomem(d->err);
	for (i = 0; i < n; i++) {
		m = &MODS(bf)[i];
		if ((s = get_str(bf, d, "module", i)) == PME_NONE)
			return -1;
		PME_VEC_AT(&bf->modstr, uint32_t, i) = s;
		m->path = STRS(bf)[s];
		m->flags = get_u32v(d);
		m->outside = get_uv(d);
		m->buildid_len = get_u32v(d);
		m->buildid = NULL;
		if (d->bad || m->buildid_len > left(d))
			return short_payload(d);
		if (m->buildid_len > MAX_BUILDID)
			return derr(d, "module %zu: build-id of %u bytes", i,
			    m->buildid_len);
		if (refill(d, m->buildid_len) < m->buildid_len)
			return short_payload(d);
		if (m->buildid_len > 0) {
			if ((id = pme_arena_alloc(&bf->arena,
			    m->buildid_len)) == NULL)
				return pme_setnomem(d->err);
			memcpy(id, d->p, m->buildid_len);
			m->buildid = id;
			d->p += m->buildid_len;
		}
	}
	bf->mods.n = bf->modstr.n = n;
	return dec_end(d);
}

static int
dec_ranges(struct pme_bucketfile *bf, struct dec *d)
{
	struct pme_range *r;
	uint64_t prev = 0, len;
	size_t n, i;

	if (get_count(d, &bf->ranges, 2, 2 * PME_VARINT_MAX, &n) == -1)
		return -1;
	r = RANGES(bf);
	for (i = 0; i < n; i++) {
		r[i].end = get_uv(d);		/* the length, for now */
		if (r[i].end == 0 && !d->bad)
			return derr(d, "range %zu: bad length", i);
	}
	for (i = 0; i < n; i++) {
		len = r[i].end;
		r[i].start = get_sv(d, prev);
		if (r[i].start + len < r[i].start)
			return derr(d, "range %zu: bad length", i);
		r[i].end = prev = r[i].start + len;
	}
	if (d->bad)
		return short_payload(d);
	bf->ranges.n = n;
	return dec_end(d);
}

/* range + nranges within the pool, without overflow. */
static int
in_pool(const struct pme_bucketfile *bf, uint64_t range, uint32_t nranges)
{
	return range <= bf->ranges.n && nranges <= bf->ranges.n - range;
}

/*
 * Column readers: each reads one field of n records and checks it; a
 * payload that ends early reads zeroes, caught before a zero is trusted.
 */
static int
dec_unit_names(struct pme_bucketfile *bf, struct dec *d, size_t n)
{
	struct pme_unit *u = UNITS(bf);
	struct unitstr *us = bf->unitstr.v;
	uint64_t s = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		s = get_sv(d, s);
		if (d->bad)
			return short_payload(d);
		if (s >= bf->st.strs.n)
			return derr(d, "unit %zu: no string %llu", i,
			    (unsigned long long)s);
		us[i].name = (uint32_t)s;
		u[i].name = STRS(bf)[s];
	}
	return 0;
}

static int
dec_unit_parents(struct pme_bucketfile *bf, struct dec *d, size_t n)
{
	struct pme_unit *u = UNITS(bf);
	uint64_t c, p, last = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		c = get_uv(d);
		if (c == 0) {
			u[i].parent = PME_NONE;
			continue;
		}
		c--;
		p = last + (c & 1 ? ~(c >> 1) : c >> 1);
		if (p >= i)
			return derr(d, "unit %zu: parent does not come first",
			    i);
		u[i].parent = (uint32_t)p;
		last = p;
	}
	return 0;
}

static int
dec_unit_tree(struct pme_bucketfile *bf, struct dec *d, size_t n)
{
	struct pme_unit *u = UNITS(bf);
	uint64_t m;
	size_t i;

	for (i = 0; i < n; i++)
		if ((u[i].kind = get_u32v(d)) >= bf->kinds.n && !d->bad)
			return derr(d, "unit %zu: no kind %u", i, u[i].kind);
	if (dec_unit_parents(bf, d, n) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if ((m = get_uv(d)) > bf->mods.n)
			return derr(d, "unit %zu: no module %llu", i,
			    (unsigned long long)m - 1);
		u[i].module = m == 0 ? PME_NONE : (uint32_t)m - 1;
	}
	for (i = 0; i < n; i++)
		u[i].flags = get_u32v(d);
	for (i = 0; i < n; i++)
		u[i].step = get_uv(d);
	if (d->bad)
		return short_payload(d);
	return 0;
}

static int
dec_unit_places(struct pme_bucketfile *bf, struct dec *d, size_t n)
{
	struct pme_unit *u = UNITS(bf);
	struct unitstr *us = bf->unitstr.v;
	uint64_t next = 0, line = 0, f;
	size_t i;

	for (i = 0; i < n; i++)
		u[i].nranges = get_u32v(d);
	for (i = 0; i < n; i++) {
		u[i].range = get_sv(d, next);
		if (!in_pool(bf, u[i].range, u[i].nranges) && !d->bad)
			return derr(d, "unit %zu: ranges outside the pool", i);
		next = u[i].range + u[i].nranges;
	}
	for (i = 0; i < n; i++) {
		if ((line = get_sv(d, line)) > UINT32_MAX)
			d->bad = 1;
		u[i].line = (uint32_t)line;
	}
	for (i = 0; i < n; i++) {
		if ((f = get_uv(d)) > bf->st.strs.n)
			return derr(d, "unit %zu: no string %llu", i,
			    (unsigned long long)f - 1);
		us[i].file = f == 0 ? PME_NONE : (uint32_t)f - 1;
		u[i].file = f == 0 ? NULL : STRS(bf)[f - 1];
	}
	if (d->bad)
		return short_payload(d);
	return 0;
}

static int
dec_units(struct pme_bucketfile *bf, struct dec *d)
{
	size_t n;

	if (get_count(d, &bf->units, 10, 10 * PME_VARINT_MAX, &n) == -1)
		return -1;
	if (pme_vec_reserve(&bf->unitstr, n) == -1)
		return pme_setnomem(d->err);
	if (dec_unit_names(bf, d, n) == -1 ||
	    dec_unit_tree(bf, d, n) == -1 ||
	    dec_unit_places(bf, d, n) == -1)
		return -1;
	bf->units.n = bf->unitstr.n = n;
	return dec_end(d);
}

static int
dec_groups(struct pme_bucketfile *bf, struct dec *d)
{
	struct pme_group *g;
	uint64_t bykind, first = 0;
	size_t n, i;
	uint32_t s;

	if (get_count(d, &bf->groups, 4, 4 * PME_VARINT_MAX, &n) == -1)
		return -1;
	if (pme_vec_reserve(&bf->groupstr, n) == -1)
		return pme_setnomem(d->err);
	for (i = 0; i < n; i++) {
		g = &GROUPS(bf)[i];
		if ((s = get_str(bf, d, "group", i)) == PME_NONE)
			return -1;
		PME_VEC_AT(&bf->groupstr, uint32_t, i) = s;
		g->statement = STRS(bf)[s];
		g->unit = get_u32v(d);
		bykind = get_uv(d);
		g->count = get_u32v(d);
		if (d->bad)
			return short_payload(d);
		if (g->unit >= bf->units.n)
			return derr(d, "group %zu: no unit %u", i, g->unit);
		if (bykind > bf->kinds.n)
			return derr(d, "group %zu: no kind %llu", i,
			    (unsigned long long)bykind - 1);
		g->bykind = bykind == 0 ? PME_NONE : (uint32_t)bykind - 1;
		/* Groups hold consecutive buckets, in order. */
		if (first + g->count >= PME_NONE)
			return derr(d, "group %zu: too many buckets", i);
		g->first = (uint32_t)first;
		first += g->count;
	}
	bf->groups.n = bf->groupstr.n = n;
	return dec_end(d);
}

static int
dec_bucket_units(struct pme_bucketfile *bf, struct dec *d, size_t n)
{
	struct pme_bucket *b = BUCKETS(bf);
	uint64_t unit = (uint64_t)-1;	/* the first expected is 0 */
	size_t i;

	for (i = 0; i < n; i++) {
		unit = get_sv(d, unit + 1);
		if (d->bad)
			return short_payload(d);
		if (unit >= bf->units.n)
			return derr(d, "bucket %zu: no unit %llu", i,
			    (unsigned long long)unit);
		b[i].unit = (uint32_t)unit;
	}
	return 0;
}

/* The groups hold consecutive buckets: each bucket's group follows. */
static void
set_groups(struct pme_bucketfile *bf, size_t n)
{
	const struct pme_group *g = GROUPS(bf);
	struct pme_bucket *b = BUCKETS(bf);
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		while (i >= (size_t)g[k].first + g[k].count)
			k++;
		b[i].group = (uint32_t)k;
	}
}

static int
dec_buckets(struct pme_bucketfile *bf, struct dec *d)
{
	const struct pme_group *g = GROUPS(bf);
	struct pme_bucket *b;
	size_t n, i, want = 0;
	uint64_t refs;

	for (i = 0; i < bf->groups.n; i++)
		want += g[i].count;
	if (get_count(d, &bf->buckets, 4, 4 * PME_VARINT_MAX, &n) == -1)
		return -1;
	if (n != want)
		return derr(d, "%zu buckets, the groups hold %zu", n, want);
	if (dec_bucket_units(bf, d, n) == -1)
		return -1;
	b = BUCKETS(bf);
	for (i = 0; i < n; i++)
		b[i].nranges = get_u32v(d);
	for (i = 0; i < n; i++) {
		b[i].range = get_sv(d, UNITS(bf)[b[i].unit].range);
		if (!in_pool(bf, b[i].range, b[i].nranges) && !d->bad)
			return derr(d, "bucket %zu: ranges outside the pool",
			    i);
	}
	for (i = 0, refs = 0; i < n; i++) {
		b[i].count = get_uv(d);
		refs += b[i].nranges;
	}
	if (d->bad)
		return short_payload(d);
	if (!index_fits(refs, bf->ranges.n))
		return derr(d, "buckets refer to %llu ranges of a pool of %zu",
		    (unsigned long long)refs, bf->ranges.n);
	set_groups(bf, n);
	bf->buckets.n = n;
	if (d->opts && counts_fit(bf, d) == -1)
		return -1;
	return dec_end(d);
}

static int
dec_counts2(struct pme_bucketfile *bf, struct dec *d)
{
	uint64_t len = get_uv(d), *c;
	size_t n, i;
	int rc;

	if (d->bad || len > left(d))
		return short_payload(d);
	if (len == 0 || len > C2NAME_MAX)
		return derr(d, "a name of %llu bytes", (unsigned long long)len);
	if ((bf->c2name = malloc((size_t)len + 1)) == NULL)
		return pme_setnomem(d->err);
	if ((rc = get_text(d, bf->c2name, (size_t)len)) == -2)
		return derr(d, "the name holds a NUL byte");
	if (rc == -1)
		return -1;
	if (get_count(d, &bf->counts2, 1, PME_VARINT_MAX, &n) == -1)
		return -1;
	if (n != bf->buckets.n)
		return derr(d, "%zu counts for %zu buckets", n,
		    bf->buckets.n);
	c = bf->counts2.v;
	for (i = 0; i < n; i++)
		c[i] = get_uv(d);
	bf->counts2.n = n;
	return dec_end(d);
}

/* A name of dec_event(): 1 to C2NAME_MAX bytes, no NUL; NULL, said. */
static char *
dec_name(struct dec *d)
{
	uint64_t len = get_uv(d);
	char *s;
	int rc;

	if (d->bad || len > left(d)) {
		short_payload(d);
		return NULL;
	}
	if (len == 0 || len > C2NAME_MAX) {
		derr(d, "a name of %llu bytes", (unsigned long long)len);
		return NULL;
	}
	if ((s = malloc((size_t)len + 1)) == NULL) {
		pme_setnomem(d->err);
		return NULL;
	}
	if ((rc = get_text(d, s, (size_t)len)) != 0) {
		if (rc == -2)
			derr(d, "the name holds a NUL byte");
		free(s);
		return NULL;
	}
	return s;
}

static int
dec_event(struct pme_bucketfile *bf, struct dec *d)
{
	if ((bf->evname = dec_name(d)) == NULL ||
	    (bf->evunit = dec_name(d)) == NULL)
		return -1;
	if (bf->info.measure != PME_MEASURE_EVENT)
		return derr(d, "an event for counts of measure %u",
		    bf->info.measure);
	return dec_end(d);
}

static int
dec_aliases(struct pme_bucketfile *bf, struct dec *d)
{
	struct alias *a;
	const char **v;
	uint64_t unit = 0, step;
	uint32_t s;
	size_t n, i;

	if (get_count(d, &bf->aliases, 2, 2 * PME_VARINT_MAX, &n) == -1)
		return -1;
	if (pme_vec_reserve(&bf->aliasname, n) == -1)
		return pme_setnomem(d->err);
	a = bf->aliases.v;
	v = bf->aliasname.v;
	for (i = 0; i < n; i++) {
		step = get_uv(d);
		if (d->bad)
			return short_payload(d);
		if (step >= bf->units.n || (unit += step) >= bf->units.n)
			return derr(d, "alias %zu: no unit %llu", i,
			    (unsigned long long)(step >= bf->units.n ? step :
			    unit));
		a[i].unit = (uint32_t)unit;
	}
	for (i = 0; i < n; i++) {
		if ((s = get_str(bf, d, "alias", i)) == PME_NONE)
			return -1;
		a[i].name = s;
		v[i] = STRS(bf)[s];
	}
	bf->aliases.n = bf->aliasname.n = n;
	return dec_end(d);
}

static const struct dectab {
	uint32_t	 type;
	const char	*name;
	int		(*dec)(struct pme_bucketfile *, struct dec *);
	int		 optional;
} dectab[] = {
	{ T_OPTS, "OPTS", dec_opts, 0 },
	{ T_STRS, "STRS", dec_strs, 0 },
	{ T_KIND, "KIND", dec_kinds, 0 },
	{ T_MODS, "MODS", dec_mods, 0 },
	{ T_RNGS, "RNGS", dec_ranges, 0 },
	{ T_UNIT, "UNIT", dec_units, 0 },
	{ T_GRPS, "GRPS", dec_groups, 0 },
	{ T_BCKT, "BCKT", dec_buckets, 0 },
	{ T_CNT2, "CNT2", dec_counts2, 1 },
	{ T_ALIA, "ALIA", dec_aliases, 1 },
	{ T_MEAS, "MEAS", dec_event, 1 },
};
#define NDEC (sizeof(dectab) / sizeof(dectab[0]))

/*
 * The tables refer to the ones before them, so each chunk must follow
 * those it needs: the order of dectab, OPTS anywhere.  An optional chunk
 * need not be there, but when it is, it follows those before it too.
 * The place is checked before the payload is read, so that a repeated
 * chunk costs nothing to refuse; chunks of unknown types are passed over
 * unread.
 */
static int
dec_chunk(struct pme_bucketfile *bf, struct pme_reader *r,
    const struct pme_chunk *c, unsigned *seen, uint8_t *win,
    struct pme_error *err)
{
	const char *file = pme_reader_name(r);
	struct dec d;
	size_t i, k;

	for (i = 0; i < NDEC && dectab[i].type != c->type; i++)
		continue;
	if (i == NDEC)
		return 0;	/* a newer minor's chunk: skipped */
	if (*seen & 1u << i)
		return pme_setfmt(err, PME_EFORMAT, file, c->offset,
		    "second '%s' chunk", dectab[i].name);
	for (k = 1; k < i; k++)
		if (!dectab[k].optional && !(*seen & 1u << k))
			return pme_setfmt(err, PME_EFORMAT, file, c->offset,
			    "'%s' chunk before '%s'", dectab[i].name,
			    dectab[k].name);
	*seen |= 1u << i;
	memset(&d, 0, sizeof(d));
	d.p = d.end = win;
	d.rest = c->len;
	d.r = r;
	d.win = win;
	d.file = file;
	d.tag = dectab[i].name;
	d.offset = c->offset;
	d.err = err;
	d.opts = (*seen & 1u) != 0;	/* dectab[0] */
	return dectab[i].dec(bf, &d);
}

static int
missing(unsigned seen, const char *file, uint64_t offset,
    struct pme_error *err)
{
	size_t i;

	for (i = 0; i < NDEC; i++)
		if (!dectab[i].optional && !(seen & 1u << i))
			return pme_setfmt(err, PME_EFORMAT, file, offset,
			    "no '%s' chunk", dectab[i].name);
	return 0;
}

static struct pme_bucketfile *
read_all(struct pme_reader *r, struct pme_error *err)
{
	struct pme_bucketfile *bf;
	struct pme_chunk c;
	unsigned seen = 0;
	const char *file = pme_reader_name(r);
	uint8_t *win;
	int rc;

	if ((win = malloc(WIN_LEN)) == NULL) {
		pme_setnomem(err);
		return NULL;
	}
	if ((bf = pme_bucketfile_new(err)) == NULL) {
		free(win);
		return NULL;
	}
	while ((rc = pme_reader_next(r, &c, err)) == 1)
		if (dec_chunk(bf, r, &c, &seen, win, err) == -1)
			goto fail;
	if (rc == -1)
		goto fail;
	if (pme_reader_lost(r) >= 0) {
		pme_setfmt(err, PME_ETRUNC, file, pme_reader_offset(r),
		    "file cut short: no END chunk, %lld bytes lost",
		    (long long)pme_reader_lost(r));
		goto fail;
	}
	if (missing(seen, file, pme_reader_offset(r), err) == -1)
		goto fail;
	free(win);
	return bf;
fail:
	free(win);
	pme_bucketfile_close(bf);
	return NULL;
}

struct pme_bucketfile *
pme_bucketfile_open(const char *path, struct pme_error *err)
{
	struct pme_reader *r;
	struct pme_bucketfile *bf;

	if ((r = pme_reader_open(path, PME_KIND_BUCKET, err)) == NULL)
		return NULL;
	bf = read_all(r, err);
	pme_reader_close(r);
	return bf;
}

struct pme_bucketfile *
pme_bucketfile_mem(const void *buf, size_t len, const char *name,
    struct pme_error *err)
{
	struct pme_reader *r;
	struct pme_bucketfile *bf;

	if ((r = pme_reader_mem(buf, len, name, PME_KIND_BUCKET, err)) ==
	    NULL)
		return NULL;
	bf = read_all(r, err);
	pme_reader_close(r);
	return bf;
}

/* ------------------------------------------------------------ lookup */

static int
lookent_cmp(const void *a, const void *b)
{
	const struct lookent *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	return 0;
}

static int
sorted(const struct lookent *e, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (lookent_cmp(&e[i - 1], &e[i]) > 0)
			return 0;
	return 1;
}

/*
 * pmebuild makes buckets that do not overlap, but a file may hold some
 * that do: where they do, the one starting first keeps the addresses (on
 * a tie, the lower bucket index), the later one keeps what is left past
 * it.  The index is then disjoint and a binary search is exact.
 */
static size_t
disjoin(struct lookent *e, size_t n)
{
	uint64_t reach = 0;
	size_t i, out = 0;

	for (i = 0; i < n; i++) {
		if (out > 0 && e[out - 1].module == e[i].module &&
		    e[i].start < reach)
			e[i].start = reach;
		if (e[i].start >= e[i].end)
			continue;
		if (out == 0 || e[out - 1].module != e[i].module ||
		    e[i].end > reach)
			reach = e[i].end;
		e[out++] = e[i];
	}
	return out;
}

static int
build_module(struct pme_modix *m, const struct lookent *e, size_t n)
{
	size_t i, p, k;
	uint64_t span = 0, maxpages = 2 * (uint64_t)n + 64;

	m->n = n;
	m->start = malloc(n * sizeof(*m->start));
	m->end = malloc(n * sizeof(*m->end));
	m->bucket = malloc(n * sizeof(*m->bucket));
	if (m->start == NULL || m->end == NULL || m->bucket == NULL)
		return -1;
	m->lo = e[0].start;
	for (i = 0; i < n; i++) {
		m->start[i] = e[i].start;
		m->end[i] = e[i].end;
		m->bucket[i] = e[i].bucket;
		if (e[i].end - m->lo > span)
			span = e[i].end - m->lo;
	}
	while ((span >> m->shift) >= maxpages)
		m->shift++;
	m->npages = (size_t)(span >> m->shift) + 1;
	if ((m->first = malloc((m->npages + 1) * sizeof(*m->first))) == NULL)
		return -1;
	for (p = k = 0; p < m->npages; p++) {
		uint64_t pstart = m->lo + ((uint64_t)p << m->shift);

		while (k < n && m->end[k] <= pstart)
			k++;
		m->first[p] = (uint32_t)k;
	}
	m->first[m->npages] = (uint32_t)n;
	return 0;
}

static void
index_free(struct pme_lookix *x)
{
	size_t i;

	if (x == NULL)
		return;
	for (i = 0; x->m != NULL && i <= x->nm; i++) {
		free(x->m[i].first);
		free(x->m[i].start);
		free(x->m[i].end);
		free(x->m[i].bucket);
	}
	free(x->m);
	free(x);
}

int
pme_bucketfile_index(struct pme_bucketfile *bf, struct pme_error *err)
{
	const struct pme_bucket *b = BUCKETS(bf);
	const struct pme_range *r = RANGES(bf);
	struct lookent *e;
	struct pme_lookix *x;
	uint64_t refs = 0;
	size_t i, j, n, k, nm = bf->mods.n;
	uint32_t mod;

	if (bf->index != NULL)
		return 0;
	for (i = 0; i < bf->buckets.n; i++)
		refs += b[i].nranges;
	if (!index_fits(refs, bf->ranges.n))
		return pme_seterr(err, PME_ELIMIT, "%llu bucket ranges for a "
		    "pool of %zu: buckets that overlap wholesale",
		    (unsigned long long)refs, bf->ranges.n);
	if ((e = malloc((refs ? refs : 1) * sizeof(*e))) == NULL ||
	    (x = calloc(1, sizeof(*x))) == NULL) {
		free(e);
		return pme_setnomem(err);
	}
	x->nm = nm;
	if ((x->m = calloc(nm + 1, sizeof(*x->m))) == NULL)
		goto nomem;
	n = 0;
	for (i = 0; i < bf->buckets.n; i++)
		for (k = 0; k < b[i].nranges; k++, n++) {
			mod = UNITS(bf)[b[i].unit].module;
			e[n].module = mod >= nm ? (uint32_t)nm : mod;
			e[n].bucket = (uint32_t)i;
			e[n].start = r[b[i].range + k].start;
			e[n].end = r[b[i].range + k].end;
		}
	if (!sorted(e, n))
		qsort(e, n, sizeof(*e), lookent_cmp);
	n = disjoin(e, n);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && e[j].module == e[i].module; j++)
			continue;
		if (build_module(&x->m[e[i].module], e + i, j - i) == -1)
			goto nomem;
	}
	free(e);
	bf->index = x;
	return 0;
nomem:
	free(e);
	index_free(x);
	return pme_setnomem(err);
}

const struct pme_lookix *
pme_bucketfile_lookix(const struct pme_bucketfile *bf)
{
	return bf->index;
}

uint32_t
pme_bucketfile_find(const struct pme_bucketfile *bf, uint32_t module,
    uint64_t addr, struct pme_range *in)
{
	return pme_lookix_find(bf->index, module, addr, in);
}

uint32_t
pme_bucketfile_lookup(struct pme_bucketfile *bf, uint32_t module,
    uint64_t addr)
{
	if (bf->index == NULL && pme_bucketfile_index(bf, NULL) == -1)
		return PME_NONE;
	return pme_bucketfile_find(bf, module, addr, NULL);
}

/* ------------------------------------------------------------ counts */

void
pme_bucketfile_clear(struct pme_bucketfile *bf)
{
	size_t i;

	for (i = 0; i < bf->buckets.n; i++)
		BUCKETS(bf)[i].count = 0;
	for (i = 0; i < bf->mods.n; i++)
		MODS(bf)[i].outside = 0;
	for (i = 0; i < bf->counts2.n; i++)
		PME_VEC_AT(&bf->counts2, uint64_t, i) = 0;
	bf->info.runs = 0;
	bf->info.total = 0;
	bf->info.lost = 0;
	bf->info.unmapped = 0;
}

static int
same_rangeset(const struct pme_bucketfile *a, uint64_t ra,
    const struct pme_bucketfile *b, uint64_t rb, uint32_t n)
{
	return n == 0 || memcmp(RANGES(a) + ra, RANGES(b) + rb,
	    n * sizeof(struct pme_range)) == 0;
}

static int
same_module(const struct pme_module *x, const struct pme_module *y)
{
	return strcmp(x->path, y->path) == 0 &&
	    x->buildid_len == y->buildid_len && (x->buildid_len == 0 ||
	    memcmp(x->buildid, y->buildid, x->buildid_len) == 0);
}

/* The modules up to the last one a unit refers to. */
static size_t
unit_modules(const struct pme_bucketfile *bf)
{
	const struct pme_unit *u = UNITS(bf);
	size_t i, n = 0;

	for (i = 0; i < bf->units.n; i++)
		if (u[i].module != PME_NONE && u[i].module >= n)
			n = (size_t)u[i].module + 1;
	return n;
}

/*
 * The modules units refer to must be the same, in the same order; the
 * others (those a run added for its counts outside the buckets) are
 * matched by path and build-id when the counts are added.
 */
static const char *
diff_modules(const struct pme_bucketfile *a, const struct pme_bucketfile *b)
{
	size_t n = unit_modules(a), i;

	if (unit_modules(b) != n)
		return "load modules";
	for (i = 0; i < n; i++)
		if (!same_module(&MODS(a)[i], &MODS(b)[i]))
			return "load modules";
	return NULL;
}

/* dst's module for each of src's, added to dst when it has none; NULL
 * when out of memory. */
static uint32_t *
map_modules(struct pme_bucketfile *dst, const struct pme_bucketfile *src,
    struct pme_error *err)
{
	const struct pme_module *m = MODS(src);
	size_t n = unit_modules(src), i, j;
	uint32_t *map;

	if ((map = malloc((src->mods.n + 1) * sizeof(*map))) == NULL) {
		pme_setnomem(err);
		return NULL;
	}
	for (i = 0; i < src->mods.n; i++) {
		map[i] = (uint32_t)i;
		if (i < n)
			continue;
		for (j = 0; j < dst->mods.n; j++)
			if (same_module(&MODS(dst)[j], &m[i]))
				break;
		if (j < dst->mods.n)
			map[i] = (uint32_t)j;
		else if ((map[i] = pme_bucketfile_add_module(dst, m[i].path,
		    m[i].buildid, m[i].buildid_len, m[i].flags, err)) ==
		    PME_NONE) {
			free(map);
			return NULL;
		}
	}
	return map;
}

static const char *
diff_units(const struct pme_bucketfile *a, const struct pme_bucketfile *b)
{
	const struct pme_unit *x = UNITS(a), *y = UNITS(b);
	size_t i;

	if (a->units.n != b->units.n)
		return "units";
	for (i = 0; i < a->units.n; i++)
		if (x[i].kind != y[i].kind || x[i].parent != y[i].parent ||
		    x[i].module != y[i].module ||
		    x[i].nranges != y[i].nranges ||
		    strcmp(x[i].name, y[i].name) != 0 ||
		    !same_rangeset(a, x[i].range, b, y[i].range,
		    x[i].nranges))
			return "units";
	return NULL;
}

static const char *
diff_buckets(const struct pme_bucketfile *a, const struct pme_bucketfile *b)
{
	const struct pme_bucket *x = BUCKETS(a), *y = BUCKETS(b);
	const struct pme_group *g = GROUPS(a), *h = GROUPS(b);
	size_t i;

	if (a->groups.n != b->groups.n || a->buckets.n != b->buckets.n)
		return "buckets";
	for (i = 0; i < a->groups.n; i++)
		if (g[i].unit != h[i].unit || g[i].count != h[i].count)
			return "buckets";
	for (i = 0; i < a->buckets.n; i++)
		if (x[i].unit != y[i].unit || x[i].nranges != y[i].nranges ||
		    !same_rangeset(a, x[i].range, b, y[i].range,
		    x[i].nranges))
			return "buckets";
	return NULL;
}

/* What differs in the layouts of a and b, or NULL. */
static const char *
diff_layout(const struct pme_bucketfile *a, const struct pme_bucketfile *b)
{
	const char *what;
	size_t i;

	if (a->kinds.n != b->kinds.n)
		return "unit kinds";
	for (i = 0; i < a->kinds.n; i++)
		if (strcmp(KINDS(a)[i], KINDS(b)[i]) != 0)
			return "unit kinds";
	if ((what = diff_modules(a, b)) != NULL ||
	    (what = diff_units(a, b)) != NULL ||
	    (what = diff_buckets(a, b)) != NULL)
		return what;
	return NULL;
}

/* Counts saturate rather than wrap: a full counter is visibly full. */
static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

int
pme_bucketfile_accumulate(struct pme_bucketfile *dst,
    const struct pme_bucketfile *src, struct pme_error *err)
{
	struct pme_info *d = &dst->info;
	const struct pme_info *s = &src->info;
	const char *what;
	uint32_t *map;
	size_t i;

	if ((what = diff_layout(dst, src)) != NULL)
		return pme_seterr(err, PME_EINVAL, "the bucket files differ "
		    "in their %s", what);
	if ((dst->c2name == NULL) != (src->c2name == NULL) ||
	    (dst->c2name != NULL && strcmp(dst->c2name, src->c2name) != 0))
		return pme_seterr(err, PME_EINVAL, "the bucket files differ "
		    "in their second counts");
	if (d->measure != PME_MEASURE_NONE && s->measure != PME_MEASURE_NONE &&
	    d->measure != s->measure)
		return pme_seterr(err, PME_EINVAL, "the bucket files count "
		    "different things");
	if (s->runs > RUNS_MAX || d->runs > RUNS_MAX - s->runs)
		return pme_seterr(err, PME_EINVAL, "the bucket files hold "
		    "%llu and %llu runs, more together than a file can hold "
		    "(2^53)", (unsigned long long)d->runs,
		    (unsigned long long)s->runs);
	if (d->measure == PME_MEASURE_EVENT && s->measure == d->measure &&
	    strcmp(dst->evname, src->evname) != 0)
		return pme_seterr(err, PME_EINVAL, "the bucket files count "
		    "different things: samples of %s and of %s", dst->evname,
		    src->evname);
	if (d->measure == PME_MEASURE_NONE && s->measure == PME_MEASURE_EVENT &&
	    pme_bucketfile_set_event(dst, src->evname, src->evunit, err) == -1)
		return -1;
	if ((map = map_modules(dst, src, err)) == NULL)
		return -1;
	if (d->measure == PME_MEASURE_NONE)
		d->measure = s->measure;
	if (d->period == 0)
		d->period = s->period;
	for (i = 0; i < dst->buckets.n; i++)
		BUCKETS(dst)[i].count = sat_add(BUCKETS(dst)[i].count,
		    BUCKETS(src)[i].count);
	for (i = 0; i < src->mods.n; i++)
		MODS(dst)[map[i]].outside = sat_add(MODS(dst)[map[i]].outside,
		    MODS(src)[i].outside);
	free(map);
	for (i = 0; i < dst->counts2.n; i++)
		PME_VEC_AT(&dst->counts2, uint64_t, i) = sat_add(
		    PME_VEC_AT(&dst->counts2, uint64_t, i),
		    PME_VEC_AT(&src->counts2, uint64_t, i));
	d->runs = sat_add(d->runs, s->runs);
	d->total = sat_add(d->total, s->total);
	d->lost = sat_add(d->lost, s->lost);
	d->unmapped = sat_add(d->unmapped, s->unmapped);
	return 0;
}
