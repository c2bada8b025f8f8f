/*
 * util.c - libpme internals: errors, arrays, arena, interning, buffers,
 * atomic output files, escaped names.
 */
#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

const char *
pme_strerror(const struct pme_error *err)
{
	if (err == NULL || err->code == PME_OK)
		return "success";
	return err->msg;
}

static void
vseterr(struct pme_error *err, enum pme_errcode code, const char *fmt,
    va_list ap)
{
	err->code = code;
	err->sys_errno = 0;
	err->offset = 0;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

int
pme_seterr(struct pme_error *err, enum pme_errcode code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	vseterr(err, code, fmt, ap);
	va_end(ap);
	return -1;
}

int
pme_setfmt(struct pme_error *err, enum pme_errcode code, const char *name,
    uint64_t offset, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	pme_seterr(err, code, "'%s': offset 0x%llx: %s", name,
	    (unsigned long long)offset, what);
	err->offset = offset;
	return -1;
}

int
pme_setsys(struct pme_error *err, const char *name, const char *what)
{
	int e = errno;

	if (err == NULL)
		return -1;
	pme_seterr(err, PME_EIO, "'%s': %s: %s", name, what, strerror(e));
	err->sys_errno = e;
	return -1;
}

int
pme_setnomem(struct pme_error *err)
{
	return pme_seterr(err, PME_ENOMEM, "out of memory");
}

void
pme_vec_init(struct pme_vec *vec, size_t size)
{
	vec->v = NULL;
	vec->n = vec->cap = 0;
	vec->size = size;
}

int
pme_vec_reserve(struct pme_vec *vec, size_t n)
{
	size_t cap;
	void *v;

	if (n <= vec->cap)
		return 0;
	cap = vec->cap ? vec->cap : 16;
	while (cap < n) {
		if (cap > SIZE_MAX / 2 / vec->size)
			return -1;
		cap *= 2;
	}
	if ((v = realloc(vec->v, cap * vec->size)) == NULL)
		return -1;
	vec->v = v;
	vec->cap = cap;
	return 0;
}

void *
pme_vec_push(struct pme_vec *vec)
{
	char *e;

	if (vec->n == vec->cap && pme_vec_reserve(vec, vec->n + 1) == -1)
		return NULL;
	e = (char *)vec->v + vec->n++ * vec->size;
	memset(e, 0, vec->size);
	return e;
}

void
pme_vec_free(struct pme_vec *vec)
{
	free(vec->v);
	vec->v = NULL;
	vec->n = vec->cap = 0;
}

/* Blocks grow with use so that big tables cost few mallocs. */
struct pme_arena_block {
	struct pme_arena_block *next;
	size_t	 used, cap;
	_Alignas(8) unsigned char data[];
};

void *
pme_arena_alloc(struct pme_arena *a, size_t len)
{
	struct pme_arena_block *b = a->head;
	size_t need = (len + 7) & ~(size_t)7, cap;
	void *p;

	if (need < len)
		return NULL;
	if (b == NULL || b->cap - b->used < need) {
		cap = b ? b->cap * 2 : 4096;
		if (cap > (1u << 24))
			cap = 1u << 24;
		if (cap < need)
			cap = need;
		if ((b = malloc(sizeof(*b) + cap)) == NULL)
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = a->head;
		a->head = b;
	}
	p = b->data + b->used;
	b->used += need;
	return p;
}

char *
pme_arena_strndup(struct pme_arena *a, const char *s, size_t n)
{
	char *p;

	if (n == SIZE_MAX || (p = pme_arena_alloc(a, n + 1)) == NULL)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
pme_arena_strdup(struct pme_arena *a, const char *s)
{
	return pme_arena_strndup(a, s, strlen(s));
}

void
pme_arena_free(struct pme_arena *a)
{
	struct pme_arena_block *b, *next;

	for (b = a->head; b != NULL; b = next) {
		next = b->next;
		free(b);
	}
	a->head = NULL;
}

uint64_t
pme_hash(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n-- > 0) {
		h ^= *s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t
probe_key(const unsigned char *t, size_t size, size_t off, size_t i)
{
	uint64_t k;

	memcpy(&k, t + i * size + off, sizeof(k));
	return k;
}

void
pme_probe_remove(void *table, size_t size, size_t off, size_t cap,
    size_t i, size_t (*home)(uint64_t, size_t))
{
	unsigned char *t = table;
	size_t j = i, k;
	uint64_t key, zero = 0;

	for (;;) {
		memcpy(t + i * size + off, &zero, sizeof(zero));
		/* The next entry of the run that may move to i: one whose
		 * home is not cyclically in (i, j]. */
		for (;;) {
			j = (j + 1) & (cap - 1);
			if ((key = probe_key(t, size, off, j)) == 0)
				return;
			k = home(key, cap);
			if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
				continue;
			break;
		}
		memcpy(t + i * size, t + j * size, size);
		i = j;
	}
}

/*
 * The descriptor a name stands for: /dev/stdout (1), /dev/stderr (2),
 * /dev/fd/N and /proc/self/fd/N (N, bash's >(...) among them); else -1.
 */
static int
fd_name(const char *name)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };
	const char *p;
	char *end;
	long n;
	size_t i;

	if (strcmp(name, "/dev/stdout") == 0)
		return 1;
	if (strcmp(name, "/dev/stderr") == 0)
		return 2;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (strncmp(name, dirs[i], strlen(dirs[i])) != 0)
			continue;
		p = name + strlen(dirs[i]);
		if (*p < '0' || *p > '9')
			return -1;
		n = strtol(p, &end, 10);
		return *end == '\0' && n <= INT_MAX ? (int)n : -1;
	}
	return -1;
}

/* name stands for a descriptor, or exists and is neither a regular file
 * nor a directory: a device (/dev/null), a FIFO, a socket. */
static int
is_special(const char *name)
{
	struct stat st;

	return fd_name(name) != -1 || (stat(name, &st) == 0 &&
	    !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
}

/* Whether name is kept as it is by the seed's rule: "-", a last
 * component with an extension, a descriptor or special file. */
static int
keeps_name(const char *name)
{
	const char *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	return strcmp(name, "-") == 0 ||
	    strchr(base + (base[0] == '.'), '.') != NULL || is_special(name);
}

int
pme_name_trimmed(char *buf, size_t len, const char *name, const char *ext)
{
	size_t n = name != NULL ? strlen(name) : 0, e = strlen(ext);
	char tmp[PATH_MAX];

	while (n > 0 && (name[n - 1] == ' ' || name[n - 1] == '\t'))
		n--;
	if (n == 0 || n >= len || n >= sizeof(tmp))
		return -1;
	memcpy(tmp, name, n);
	tmp[n] = '\0';
	if (keeps_name(tmp))
		e = 0;
	else if (n + e >= len)
		return -1;
	memcpy(buf, tmp, n);
	memcpy(buf + n, ext, e);
	buf[n + e] = '\0';
	return 0;
}

char *
pme_with_ext(const char *name, const char *ext)
{
	char *s;

	if (keeps_name(name))
		return strdup(name);
	if ((s = malloc(strlen(name) + strlen(ext) + 1)) != NULL) {
		strcpy(s, name);
		strcat(s, ext);
	}
	return s;
}

char *
pme_input_name(const char *name, const char *ext)
{
	char *s = pme_with_ext(name, ext), *e;
	struct stat st;

	if (s == NULL || strlen(s) == strlen(name) || stat(s, &st) == 0)
		return s;
	for (e = s + strlen(name); *e != '\0'; e++)
		*e = (char)tolower((unsigned char)*e);
	if (stat(s, &st) == 0)
		return s;
	strcpy(s + strlen(name), ext);
	return s;
}

const char *
pme_path_find(const char *name, const char *dirs, int mode, char *buf,
    size_t n)
{
	const char *d, *e;
	struct stat st;
	int len;

	for (d = dirs; ; d = e + 1) {
		if ((e = strchr(d, ':')) == NULL)
			e = d + strlen(d);
		len = e == d ? snprintf(buf, n, "./%s", name) :
		    snprintf(buf, n, "%.*s/%s", (int)(e - d), d, name);
		if (len > 0 && (size_t)len < n && stat(buf, &st) == 0 &&
		    S_ISREG(st.st_mode) && access(buf, mode) == 0)
			return buf;
		if (*e == '\0')
			return NULL;
	}
}

const char *
pme_exec_dirs(char *buf, size_t n)
{
	const char *path = getenv("PATH");

	if (path != NULL)
		return path;
	if (confstr(_CS_PATH, buf, n) == 0 || buf[0] == '\0' ||
	    strlen(buf) + 1 >= n)
		return "/bin:/usr/bin";
	return buf;
}

size_t
pme_edit_distance(const char *a, const char *b, size_t max)
{
	size_t la = strlen(a), lb = strlen(b), i, j, best, *row, *r0, *r1,
	    *r2, *t;

	if ((la > lb ? la - lb : lb - la) > max ||
	    (row = malloc(3 * (lb + 1) * sizeof(*row))) == NULL)
		return max + 1;
	r0 = row, r1 = row + lb + 1, r2 = row + 2 * (lb + 1);
	for (j = 0; j <= lb; j++)
		r1[j] = j;
	for (i = 1; i <= la; i++) {
		/* r1 is the row of a[0..i-1), r0 the one before it. */
		r2[0] = best = i;
		for (j = 1; j <= lb; j++) {
			size_t d = r1[j - 1] + (a[i - 1] != b[j - 1]);

			if (r1[j] + 1 < d)
				d = r1[j] + 1;
			if (r2[j - 1] + 1 < d)
				d = r2[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && r0[j - 2] + 1 < d)
				d = r0[j - 2] + 1;
			if ((r2[j] = d) < best)
				best = d;
		}
		if (best > max)
			break;
		t = r0, r0 = r1, r1 = r2, r2 = t;
	}
	best = i <= la ? max + 1 : r1[lb] > max ? max + 1 : r1[lb];
	free(row);
	return best;
}

size_t
pme_near_cutoff(size_t la, size_t lb)
{
	size_t hi = la > lb ? la : lb, lo = la > lb ? lb : la;

	if (hi <= 1)
		return 0;
	if (hi - lo <= 1)
		return hi / 3 > 0 ? hi / 3 : 1;
	return (hi + 2) / 3;
}

void
pme_near_init(struct pme_near *n, const char *want)
{
	n->want = want;
	n->wantlen = strlen(want);
	n->best = SIZE_MAX;
	n->name = NULL;
}

size_t
pme_near_dist(const struct pme_near *n, const char *name)
{
	size_t cut = pme_near_cutoff(n->wantlen, strlen(name)), d;

	if (n->best <= cut) {		/* only a nearer one is wanted */
		if (n->best == 0)
			return SIZE_MAX;
		cut = n->best - 1;
	}
	d = pme_edit_distance(n->want, name, cut);
	return d > cut ? SIZE_MAX : d;
}

/* s in lower case, into buf of n bytes (cut short when it does not fit). */
static char *
lower(char *buf, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i + 1 < n && s[i] != '\0'; i++)
		buf[i] = (char)tolower((unsigned char)s[i]);
	buf[i] = '\0';
	return buf;
}

/* The length of name less its extension (from its last '.', if any). */
static size_t
stem_len(const char *name)
{
	const char *dot = strrchr(name + (name[0] == '.'), '.');

	return dot != NULL ? (size_t)(dot - name) : strlen(name);
}

char *
pme_near_file(const char *path, const char *ext)
{
	const char *base = pme_base_name(path);
	char want[NAME_MAX + 1], got[NAME_MAX + 1], *best = NULL, *s;
	size_t el = strlen(ext), n, d, cut, bestd = SIZE_MAX;
	int dirlen = (int)(base - path);
	struct dirent *de;
	DIR *dir;

	if ((s = strndup(path, (size_t)dirlen)) == NULL)
		return NULL;
	dir = opendir(dirlen > 0 ? s : ".");
	free(s);
	if (dir == NULL)
		return NULL;
	lower(want, sizeof(want), base);
	while ((de = readdir(dir)) != NULL) {
		n = strlen(de->d_name);
		if (n <= el || strcasecmp(de->d_name + n - el, ext) != 0 ||
		    strcmp(de->d_name, base) == 0)
			continue;
		cut = pme_near_cutoff(stem_len(base), stem_len(de->d_name));
		d = pme_edit_distance(want, lower(got, sizeof(got),
		    de->d_name), cut);
		/* The nearest; of those as near, the first in byte order,
		 * so that the hint does not depend on the directory's. */
		if (d > cut || d > bestd || (d == bestd &&
		    strcmp(de->d_name, best + dirlen) > 0))
			continue;
		if (asprintf(&s, "%.*s%s", dirlen, path, de->d_name) == -1)
			break;
		free(best);
		best = s;
		bestd = d;
	}
	closedir(dir);
	return best;
}

const char *
pme_base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s != NULL && s[1] != '\0' ? s + 1 : p;
}

static int
cmp_range(const void *a, const void *b)
{
	const struct pme_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

size_t
pme_ranges_merge(struct pme_range *r, size_t n)
{
	size_t i, out = 0;

	if (n < 2)
		return n;
	for (i = 1; i < n && cmp_range(&r[i - 1], &r[i]) <= 0; i++)
		;
	if (i < n)
		qsort(r, n, sizeof(*r), cmp_range);
	for (i = 1; i < n; i++) {
		if (r[i].start <= r[out].end) {
			if (r[i].end > r[out].end)
				r[out].end = r[i].end;
		} else
			r[++out] = r[i];
	}
	return out + 1;
}

/* One pass of pme_radix_sort(): each element of a to its place in t by
 * byte b of its key, whose counts are count[w]; sz is the element size. */
#define RADIX_SCATTER(sz)						\
	for (i = 0; i < n; i++) {					\
		key(a + i * (sz), k);					\
		memcpy(t + count[w][(k[b / 8] >> (8 * (b % 8))) &	\
		    0xff]++ * (sz), a + i * (sz), (sz));		\
	}

void *
pme_radix_sort(void *v, void *tmp, size_t n, size_t size, unsigned nwords,
    void (*key)(const void *, uint64_t *))
{
	size_t (*count)[256], i, sum, c;
	char *a = v, *t = tmp, *x;
	uint64_t k[PME_SORT_MAXWORDS], k0[PME_SORT_MAXWORDS];
	uint64_t diff[PME_SORT_MAXWORDS] = { 0 };
	unsigned b, w, nb = 8 * nwords, pass[8 * PME_SORT_MAXWORDS], np = 0;

	if (n < 2 || nwords == 0 || nwords > PME_SORT_MAXWORDS)
		return n < 2 ? v : NULL;
	/* The bytes some keys differ in: those that all keys share cost no
	 * pass, nor any counting, nor room for their counts (addresses of
	 * one image differ in three or four of eight). */
	key(a, k0);
	for (i = 1; i < n; i++) {
		key(a + i * size, k);
		for (w = 0; w < nwords; w++)
			diff[w] |= k[w] ^ k0[w];
	}
	for (b = 0; b < nb; b++)
		if ((diff[b / 8] >> (8 * (b % 8))) & 0xff)
			pass[np++] = b;
	if ((count = calloc(np ? np : 1, sizeof(*count))) == NULL)
		return NULL;
	/* Their counts in one pass: count[w] is byte pass[w]'s. */
	for (i = 0; i < n; i++) {
		key(a + i * size, k);
		for (w = 0; w < np; w++)
			count[w][(k[pass[w] / 8] >> (8 *
			    (pass[w] % 8))) & 0xff]++;
	}
	for (w = 0; w < np; w++) {
		b = pass[w];
		for (i = 0, sum = 0; i < 256; i++) {
			c = count[w][i];
			count[w][i] = sum;
			sum += c;
		}
		switch (size) {	/* copies of a known size are inlined */
		case 16:
			RADIX_SCATTER(16);
			break;
		case 24:
			RADIX_SCATTER(24);
			break;
		case 32:
			RADIX_SCATTER(32);
			break;
		case 40:
			RADIX_SCATTER(40);
			break;
		default:
			RADIX_SCATTER(size);
			break;
		}
		x = a;
		a = t;
		t = x;
	}
	free(count);
	return a;
}

/* Elements e and f (of size bytes) swapped through t. */
static void
flag_swap(char *e, char *f, char *t, size_t size)
{
	memcpy(t, e, size);
	memcpy(e, f, size);
	memcpy(f, t, size);
}

/* v[0..n) sorted by their keys by insertion: for a few elements. */
static void
flag_insert(char *v, size_t n, size_t size,
    void (*key)(const void *, uint64_t *), char *t)
{
	uint64_t x, y;
	size_t i;
	char *e;

	for (i = 1; i < n; i++)
		for (e = v + i * size; e > v; e -= size) {
			key(e - size, &x);
			key(e, &y);
			if (x <= y)
				break;
			flag_swap(e - size, e, t, size);
		}
}

#define FLAG_FEW	32	/* sorted by insertion */

/* v[0..n) (n at least FLAG_FEW) sorted in place by key bytes b and
 * below: each element moved to its byte's bucket by swaps, then each
 * bucket by the next byte.  d[0..n) holds the elements' bytes b as they
 * move (a byte an element, not a copy), d the room of the buckets'
 * bytes below. */
static void
flag_sort(char *v, uint8_t *d, size_t n, size_t size,
    void (*key)(const void *, uint64_t *), unsigned b, char *t)
{
	size_t count[256] = { 0 }, next[256], end[256], i, j, sum = 0;
	uint64_t k;
	unsigned c;
	uint8_t x;

	for (i = 0; i < n; i++) {
		key(v + i * size, &k);
		count[d[i] = (uint8_t)(k >> (8 * b))]++;
	}
	for (c = 0; c < 256; c++) {
		next[c] = sum;
		end[c] = sum += count[c];
	}
	for (c = 0; c < 256; c++)
		while ((i = next[c]) < end[c]) {
			if ((x = d[i]) == c) {
				next[c]++;
				continue;
			}
			j = next[x]++;
			flag_swap(v + i * size, v + j * size, t, size);
			d[i] = d[j];
			d[j] = x;
		}
	for (c = 0, sum = 0; b > 0 && c < 256; sum += count[c++])
		if (count[c] >= FLAG_FEW)
			flag_sort(v + sum * size, d + sum, count[c], size, key,
			    b - 1, t);
		else if (count[c] > 1)
			flag_insert(v + sum * size, count[c], size, key, t);
}

int
pme_radix_sort_inplace(void *v, size_t n, size_t size,
    void (*key)(const void *, uint64_t *))
{
	char t[PME_SORT_MAXSIZE];
	uint64_t k0, k, diff = 0;
	unsigned b = 7;
	uint8_t *d;
	size_t i;

	if (n < 2 || size > PME_SORT_MAXSIZE)
		return size > PME_SORT_MAXSIZE ? -1 : 0;
	if (n < FLAG_FEW) {
		flag_insert(v, n, size, key, t);
		return 0;
	}
	if ((d = malloc(n)) == NULL)
		return -1;
	/* From the highest byte some keys differ in. */
	key(v, &k0);
	for (i = 1; i < n; i++) {
		key((char *)v + i * size, &k);
		diff |= k ^ k0;
	}
	while (b > 0 && ((diff >> (8 * b)) & 0xff) == 0)
		b--;
	flag_sort(v, d, n, size, key, b, t);
	free(d);
	return 0;
}

void
pme_intern_init(struct pme_intern *in, struct pme_arena *a)
{
	in->arena = a;
	in->slot = NULL;
	in->n = in->cap = 0;
}

static int
intern_grow(struct pme_intern *in)
{
	size_t cap = in->cap ? in->cap * 2 : 256, i, j;
	const char **slot;

	if ((slot = calloc(cap, sizeof(*slot))) == NULL)
		return -1;
	for (i = 0; i < in->cap; i++) {
		if (in->slot[i] == NULL)
			continue;
		j = pme_hash(in->slot[i], strlen(in->slot[i])) & (cap - 1);
		while (slot[j] != NULL)
			j = (j + 1) & (cap - 1);
		slot[j] = in->slot[i];
	}
	free(in->slot);
	in->slot = slot;
	in->cap = cap;
	return 0;
}

const char *
pme_intern(struct pme_intern *in, const char *s)
{
	size_t len = strlen(s), j;

	if ((in->n + 1) * 2 > in->cap && intern_grow(in) == -1)
		return NULL;
	j = pme_hash(s, len) & (in->cap - 1);
	while (in->slot[j] != NULL) {
		if (strcmp(in->slot[j], s) == 0)
			return in->slot[j];
		j = (j + 1) & (in->cap - 1);
	}
	if ((in->slot[j] = pme_arena_strndup(in->arena, s, len)) == NULL)
		return NULL;
	in->n++;
	return in->slot[j];
}

void
pme_intern_free(struct pme_intern *in)
{
	free(in->slot);
	in->slot = NULL;
	in->n = in->cap = 0;
}

static uint8_t *
buf_room(struct pme_buf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->failed || n == 0)	/* nothing to place: b->p may be NULL */
		return NULL;
	if (b->cap - b->n < n) {
		cap = b->cap ? b->cap : 256;
		while (cap - b->n < n) {
			if (cap > SIZE_MAX / 2) {
				b->failed = 1;
				return NULL;
			}
			cap *= 2;
		}
		if ((p = realloc(b->p, cap)) == NULL) {
			b->failed = 1;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	p = b->p + b->n;
	b->n += n;
	return p;
}

void
pme_buf_bytes(struct pme_buf *b, const void *src, size_t n)
{
	uint8_t *p = buf_room(b, n);

	if (p != NULL && n > 0)
		memcpy(p, src, n);
}

void
pme_buf_u8(struct pme_buf *b, uint8_t v)
{
	pme_buf_bytes(b, &v, 1);
}

void
pme_buf_u16(struct pme_buf *b, uint16_t v)
{
	uint8_t p[2] = { v, v >> 8 };

	pme_buf_bytes(b, p, 2);
}

void
pme_buf_u32(struct pme_buf *b, uint32_t v)
{
	uint8_t p[4];

	pme_le32(p, v);
	pme_buf_bytes(b, p, 4);
}

void
pme_buf_u64(struct pme_buf *b, uint64_t v)
{
	uint8_t p[8];

	pme_le32(p, (uint32_t)v);
	pme_le32(p + 4, (uint32_t)(v >> 32));
	pme_buf_bytes(b, p, 8);
}

void
pme_buf_str(struct pme_buf *b, const char *s)
{
	size_t n = strlen(s);

	if (n > UINT32_MAX) {
		b->failed = 1;
		return;
	}
	pme_buf_u32(b, (uint32_t)n);
	pme_buf_bytes(b, s, n);
}

void
pme_buf_free(struct pme_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->n = b->cap = 0;
	b->failed = 0;
}

const uint8_t *
pme_cur_bytes(struct pme_cur *c, size_t n)
{
	const uint8_t *p;

	if (c->bad || c->n < n) {
		c->bad = 1;
		return NULL;
	}
	if (n == 0)		/* an empty read of a payload that may be NULL */
		return (const uint8_t *)"";
	p = c->p;
	c->p += n;
	c->n -= n;
	return p;
}

uint8_t
pme_cur_u8(struct pme_cur *c)
{
	const uint8_t *p = pme_cur_bytes(c, 1);

	return p ? p[0] : 0;
}

uint16_t
pme_cur_u16(struct pme_cur *c)
{
	const uint8_t *p = pme_cur_bytes(c, 2);

	return p ? (uint16_t)(p[0] | p[1] << 8) : 0;
}

uint32_t
pme_cur_u32(struct pme_cur *c)
{
	const uint8_t *p = pme_cur_bytes(c, 4);

	return p ? pme_get32(p) : 0;
}

uint64_t
pme_cur_u64(struct pme_cur *c)
{
	const uint8_t *p = pme_cur_bytes(c, 8);

	return p ? pme_get32(p) | (uint64_t)pme_get32(p + 4) << 32 : 0;
}

const char *
pme_cur_str(struct pme_cur *c, struct pme_arena *a)
{
	uint32_t n = pme_cur_u32(c);
	const uint8_t *p = pme_cur_bytes(c, n);
	char *s;

	if (p == NULL)
		return NULL;
	if (memchr(p, '\0', n) != NULL) {
		c->bad = 1;
		return NULL;
	}
	if ((s = pme_arena_strndup(a, (const char *)p, n)) == NULL)
		c->bad = 1;
	return s;
}

int
pme_cur_fits(const struct pme_cur *c, uint64_t count, size_t minsize)
{
	if (c->bad)
		return 0;
	if (minsize == 0)
		return count <= c->n + 1;
	return count <= c->n / minsize;
}

/* ------------------------------------------------------- atomic output */

/*
 * A temporary name beside path: "dir/.base.XXXXXX".  Hidden, so that a
 * glob in the directory does not pick it up while it is being written.
 */
static char *
tmp_template(const char *path, struct pme_error *err)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t dirlen = (size_t)(base - path);
	char *t;

	if (*base == '\0') {
		pme_seterr(err, PME_EINVAL, "'%s': not a file name", path);
		return NULL;
	}
	if ((t = malloc(dirlen + strlen(base) + 9)) == NULL) {
		pme_setnomem(err);
		return NULL;
	}
	memcpy(t, path, dirlen);
	t[dirlen] = '.';
	strcpy(t + dirlen + 1, base);
	strcat(t + dirlen, ".XXXXXX");
	return t;
}

/*
 * mkstemp(3) creates files with mode 0600; pme's outputs are ordinary
 * files the user's umask should govern, and reading the umask back is
 * racy in a threaded program.  So the name is filled here and the file
 * created with O_EXCL and mode 0666, which the kernel masks with the
 * umask.
 */
static int
tmp_open(char *t)
{
	static const char digits[] =
	    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	static unsigned long counter;
	char *x = t + strlen(t) - 6;
	struct timespec ts;
	unsigned long long v;
	int fd, i, try;

	for (try = 0; try < 100; try++) {
		clock_gettime(CLOCK_REALTIME, &ts);
		v = (unsigned long long)ts.tv_nsec * 2654435761u ^
		    (unsigned long long)getpid() << 20 ^ counter++ * 7919;
		for (i = 0; i < 6; i++, v /= 62)
			x[i] = digits[v % 62];
		fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd != -1 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/* The caller's or root's. */
static int
mine(const struct stat *st)
{
	return st->st_uid == geteuid() || st->st_uid == 0;
}

/*
 * A name that holds a device, a FIFO or a socket is written directly, as
 * standard output is: replacing it would turn /dev/null into a file.  It
 * must be the caller's or root's (a FIFO another user planted gets
 * nothing), and the file opened must be the one looked at.  A symbolic
 * link is followed only when it is the caller's or root's and leads to
 * such a file (/dev/stdout, /dev/fd/N); any other link is replaced, never
 * followed, so that a link planted in a shared directory leads nowhere.
 */
int
pme_out_special(const char *path, int *fd, struct pme_error *err)
{
	struct stat st, fst;
	int n;

	*fd = -1;
	if ((n = fd_name(path)) != -1) {
		if ((*fd = fcntl(n, F_DUPFD_CLOEXEC, 3)) == -1)
			return pme_setsys(err, path, "cannot write");
		return 1;
	}
	if (lstat(path, &st) == -1 || S_ISREG(st.st_mode))
		return 0;
	if (S_ISLNK(st.st_mode) && (!mine(&st) || stat(path, &st) == -1 ||
	    S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
		return 0;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return pme_setsys(err, path, "cannot create");
	}
	if (!mine(&st)) {
		errno = EPERM;
		return pme_setsys(err, path, "not written, a special file of "
		    "another user");
	}
	if ((*fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)) == -1)
		return pme_setsys(err, path, "cannot open");
	if (fstat(*fd, &fst) == -1 || fst.st_dev != st.st_dev ||
	    fst.st_ino != st.st_ino) {
		close(*fd);
		*fd = -1;
		errno = EAGAIN;
		return pme_setsys(err, path, "replaced while opened");
	}
	return 1;
}

/* What a file that is not a regular one is, for a message. */
static const char *
file_type(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" :
	    S_ISDIR(m) ? "a directory" : S_ISBLK(m) ? "a block device" :
	    S_ISCHR(m) ? "a character device" : "not a regular file";
}

/*
 * Opened without blocking (the open of a FIFO without a writer waits for
 * one), then looked at: only what pme_open_read() accepts is read, with
 * O_NONBLOCK cleared again.
 */
int
pme_open_read(const char *path, struct pme_error *err)
{
	struct stat st;
	int fd, given = fd_name(path) != -1 ||
	    strcmp(path, "/dev/stdin") == 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		return pme_setsys(err, path, "cannot open");
	if (fstat(fd, &st) == -1) {
		pme_setsys(err, path, "cannot open");
		close(fd);
		return -1;
	}
	if (!given && !S_ISREG(st.st_mode) && !(S_ISCHR(st.st_mode) &&
	    st.st_rdev == makedev(1, 3))) {
		close(fd);
		return pme_seterr(err, PME_EIO, "'%s': %s, not a regular "
		    "file: not read", path, file_type(st.st_mode));
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == -1) {
		pme_setsys(err, path, "cannot open");
		close(fd);
		return -1;
	}
	return fd;
}

FILE *
pme_fopen_read(const char *path, struct pme_error *err)
{
	FILE *fp;
	int fd;

	if ((fd = pme_open_read(path, err)) == -1)
		return NULL;
	if ((fp = fdopen(fd, "r")) == NULL) {
		pme_setsys(err, path, "cannot open");
		close(fd);
	}
	return fp;
}

/*
 * Anonymous temporaries: a file opened with O_TMPFILE in the output's
 * directory has no name until pme_tmp_commit() links it, so a program
 * killed while writing (SIGKILL included) leaves nothing behind.  The
 * caller closes its descriptor before committing, so a duplicate kept
 * here holds the file until then.  A few at a time (a program writes one
 * or two outputs at once); beyond that, or where the file system has no
 * O_TMPFILE (NFS, FAT, old kernels), a named temporary as before.
 */
#define NANON	16
static struct anon {
	const char	*tmp;		/* the caller's name for it */
	int		 fd;
} anons[NANON];
static pthread_mutex_t anon_lock = PTHREAD_MUTEX_INITIALIZER;

/* The slot of tmp, or -1. (lock held) */
static int
anon_find(const char *tmp)
{
	int i;

	for (i = 0; i < NANON; i++)
		if (tmp != NULL && anons[i].tmp == tmp)
			return i;
	return -1;
}

/* Takes tmp's slot out; its descriptor, or -1 when tmp is named. */
static int
anon_take(const char *tmp)
{
	int i, fd = -1;

	pthread_mutex_lock(&anon_lock);
	if ((i = anon_find(tmp)) != -1) {
		fd = anons[i].fd;
		anons[i].tmp = NULL;
	}
	pthread_mutex_unlock(&anon_lock);
	return fd;
}

/* An O_TMPFILE file in tmp's directory, registered; -1 when there is none
 * to be had (the caller then makes a named one). */
static int
anon_open(const char *tmp)
{
	const char *slash = strrchr(tmp, '/');
	char *dir;
	int fd, keep, i;

	if ((dir = slash == NULL ? strdup(".") :
	    strndup(tmp, (size_t)(slash - tmp) + (slash == tmp))) == NULL)
		return -1;
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	free(dir);
	if (fd == -1)
		return -1;
	if ((keep = fcntl(fd, F_DUPFD_CLOEXEC, 3)) == -1) {
		close(fd);
		return -1;
	}
	pthread_mutex_lock(&anon_lock);
	if ((i = anon_find(NULL)) == -1)
		for (i = 0; i < NANON && anons[i].tmp != NULL; i++)
			continue;
	if (i < NANON) {
		anons[i].tmp = tmp;
		anons[i].fd = keep;
	}
	pthread_mutex_unlock(&anon_lock);
	if (i == NANON) {
		close(keep);
		close(fd);
		return -1;
	}
	return fd;
}

/* Gives the anonymous file at fd the name tmp (its X's filled anew until
 * one is free), through /proc/self/fd. */
static int
anon_link(char *tmp, int fd)
{
	char proc[64], *x = tmp + strlen(tmp) - 6;
	unsigned long long v;
	struct timespec ts;
	int try, i;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (try = 0; try < 100; try++) {
		clock_gettime(CLOCK_REALTIME, &ts);
		v = (unsigned long long)ts.tv_nsec * 2654435761u ^
		    (unsigned long long)getpid() << 20 ^ (unsigned)try * 7919;
		for (i = 0; i < 6; i++, v /= 62)
			x[i] = "0123456789abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[v % 62];
		if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp,
		    AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

static int
tmp_create(const char *path, char **tmp, int anon, struct pme_error *err)
{
	int fd, rc;

	if ((*tmp = tmp_template(path, err)) == NULL)
		return -1;
	if ((rc = pme_out_special(path, &fd, err)) != 0) {
		free(*tmp);
		*tmp = NULL;
		return rc == 1 ? fd : -1;
	}
	if (anon && (fd = anon_open(*tmp)) != -1)
		return fd;
	if ((fd = tmp_open(*tmp)) == -1) {
		pme_setsys(err, path, "cannot create");
		free(*tmp);
		*tmp = NULL;
	}
	return fd;
}

int
pme_tmp_create(const char *path, char **tmp, struct pme_error *err)
{
	return tmp_create(path, tmp, 1, err);
}

int
pme_tmp_named(const char *path, char **tmp, struct pme_error *err)
{
	return tmp_create(path, tmp, 0, err);
}

int
pme_tmp_commit(char *tmp, const char *path, struct pme_error *err)
{
	int rc = 0, fd;

	if (tmp == NULL)
		return 0;
	if ((fd = anon_take(tmp)) != -1) {
		rc = anon_link(tmp, fd);
		close(fd);
		if (rc == -1) {
			rc = pme_setsys(err, path, "cannot name the new file");
			free(tmp);
			return rc;
		}
	}
	if (rename(tmp, path) == -1) {
		rc = pme_setsys(err, path, "cannot rename into place");
		unlink(tmp);
	}
	free(tmp);
	return rc;
}

void
pme_tmp_abort(char *tmp)
{
	int fd;

	if (tmp == NULL)
		return;
	if ((fd = anon_take(tmp)) != -1)
		close(fd);	/* the file goes with its last descriptor */
	else
		unlink(tmp);
	free(tmp);
}

/* ------------------------------------------------------------------- CSV */

void
pme_csv_field(FILE *fp, const char *s)
{
	if (strpbrk(s, ",\"\n\r") == NULL) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

/* --------------------------------------------------------- escaped names */

/*
 * The length of the UTF-8 sequence at s when it is valid (shortest form,
 * no surrogate, at most U+10FFFF) and not a C1 control (U+0080 to
 * U+009F); else 0.
 */
static size_t
utf8_len(const unsigned char *s)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	cp = s[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp <= 0x9f)
		return 0;
	return n;
}

size_t
pme_escape(char *out, size_t outlen, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	char e[4];
	const char *u;
	const unsigned char *q;
	size_t n = 0, done = 0, k, used;

	while (*p != '\0') {
		/* A run of printable ASCII, copied whole: names are mostly
		 * that, and a report escapes thousands. */
		for (q = p; *q >= 0x20 && *q < 0x7f && *q != '\\'; q++)
			continue;
		if (q > p) {
			k = (size_t)(q - p);
			if (out != NULL && done == n && n + 1 < outlen) {
				used = outlen - n - 1 < k ? outlen - n - 1 : k;
				memcpy(out + n, p, used);
				done += used;
			}
			n += k;
			p = q;
			continue;
		}
		u = (const char *)p;
		used = 1;
		if (*p == '\\') {
			u = "\\\\";
			k = 2;
		} else if (*p >= 0x20 && *p < 0x7f)
			k = 1;
		else if ((k = utf8_len(p)) > 0)
			used = k;
		else {
			e[0] = '\\';
			e[1] = 'x';
			e[2] = hex[*p >> 4];
			e[3] = hex[*p & 15];
			u = e;
			k = 4;
		}
		/* Whole escapes and characters only, up to the first that
		 * does not fit. */
		if (out != NULL && done == n && n + k < outlen) {
			memcpy(out + n, u, k);
			done += k;
		}
		n += k;
		p += used;
	}
	if (out != NULL && outlen > 0)
		out[done] = '\0';
	return n;
}

char *
pme_escape_dup(const char *s)
{
	size_t n = pme_escape(NULL, 0, s);
	char *e;

	if ((e = malloc(n + 1)) != NULL)
		pme_escape(e, n + 1, s);
	return e;
}

int
pme_first_line(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

uint32_t
pme_note_buildid(const void *notes, size_t len, size_t max,
    const uint8_t **id)
{
	const uint8_t *p = notes, *end = p + len;
	Elf64_Nhdr nh;		/* Elf32_Nhdr's too: three 32-bit words */
	size_t name, desc;

	while ((size_t)(end - p) >= sizeof(nh)) {
		memcpy(&nh, p, sizeof(nh));
		name = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		desc = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		p += sizeof(nh);
		if ((size_t)(end - p) < name || (size_t)(end - p) - name < desc)
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(p, "GNU", 4) == 0 && nh.n_descsz > 0 &&
		    nh.n_descsz <= max) {
			*id = p + name;
			return nh.n_descsz;
		}
		p += name + desc;
	}
	return 0;
}
