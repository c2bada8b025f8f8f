/*
 * kallsyms.c - the kernel's text symbols (kallsyms.h): /proc/kallsyms
 * parsed, and the per-user cache of the kernel's own symbols that spares
 * later runs of this boot the kernel's making of its text.
 *
 * The cache file, in the byte order of the machine that wrote it (it is
 * only read there, in the same boot):
 *	magic	8 bytes "PMEKSYM1"
 *	key	64 bytes, the key (pme_ksyms_key), NUL-padded
 *	n	uint64, symbols
 *	strsize	uint64, bytes of names
 *	addr	n uint64, ascending
 *	name	n uint32, offsets of the names in the strings
 *	strings	strsize bytes of NUL-ended names, the last byte a NUL
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "kallsyms.h"
#include "pme_sample.h"
#include "util.h"

#define MAGIC		"PMEKSYM1"
#define KEYLEN		64
#define HEADER		(8 + KEYLEN + 16)
#define NAMEMAX		255		/* longer names are cut here */

struct entry {			/* a symbol while kallsyms is sorted */
	uint64_t	 addr;
	uint32_t	 line;		/* aliases keep kallsyms' order */
	uint32_t	 name;
	uint8_t		 tagged;
};

char *
pme_ksyms_cachedir(void)
{
	const char *env = getenv("PME_KALLSYMS_CACHE"), *base;
	char *dir;
	int n;

	if (env != NULL && strcmp(env, "0") == 0)
		return NULL;
	if ((base = getenv("XDG_CACHE_HOME")) != NULL && base[0] == '/')
		n = asprintf(&dir, "%s/pme", base);
	else if ((base = getenv("HOME")) != NULL && base[0] == '/')
		n = asprintf(&dir, "%s/.cache/pme", base);
	else
		return NULL;
	return n < 0 ? NULL : dir;
}

int
pme_ksyms_key(char *buf, size_t len)
{
	char id[PME_BOOT_MAX + 1], restrict_[16];

	if (len < KEYLEN || pme_boot_id(id, sizeof(id)) == -1 ||
	    pme_first_line("/proc/sys/kernel/kptr_restrict", restrict_,
	    sizeof(restrict_)))
		return -1;
	return snprintf(buf, len, "%s %s", id, restrict_) >= KEYLEN ? -1 : 0;
}

void
pme_ksyms_free(struct pme_ksyms *k)
{
	if (k->map != NULL)
		munmap(k->map, k->maplen);
	free(k->mem);
	memset(k, 0, sizeof(*k));
}

/* ------------------------------------------------------------ the cache */

/* The directory dir open, when it is the user's and no one else's to
 * write in; else -1. */
static int
open_dir(const char *dir)
{
	struct stat st;
	int fd;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || st.st_uid != geteuid() ||
	    (st.st_mode & 022) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether the mapped cache m (len bytes) holds together for key; fills k. */
static int
check_cache(struct pme_ksyms *k, const unsigned char *m, size_t len,
    const char *key)
{
	char want[KEYLEN];
	uint64_t n, strsize;

	if (len < HEADER || memcmp(m, MAGIC, 8) != 0)
		return 0;
	memset(want, 0, sizeof(want));
	memcpy(want, key, strnlen(key, KEYLEN - 1));
	if (memcmp(m + 8, want, KEYLEN) != 0)
		return 0;
	memcpy(&n, m + 8 + KEYLEN, 8);
	memcpy(&strsize, m + 16 + KEYLEN, 8);
	/* Each bound before the product or sum that could overflow. */
	if (n < 2 || n > (len - HEADER) / 12 || strsize == 0 ||
	    strsize != len - HEADER - n * 12 || m[len - 1] != '\0')
		return 0;
	k->n = (size_t)n;
	k->strsize = (size_t)strsize;
	k->addr = (const uint64_t *)(const void *)(m + HEADER);
	k->name = (const uint32_t *)(const void *)(m + HEADER + n * 8);
	k->str = (const char *)m + HEADER + n * 12;
	k->cached = 1;
	return 1;
}

int
pme_ksyms_load(struct pme_ksyms *k, const char *dir, const char *key)
{
	struct stat st;
	void *m;
	int dfd, fd;

	memset(k, 0, sizeof(*k));
	if ((dfd = open_dir(dir)) == -1)
		return 0;
	fd = openat(dfd, PME_KSYMS_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	close(dfd);
	if (fd == -1)
		return 0;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 077) != 0 ||
	    st.st_size < HEADER || (uint64_t)st.st_size > SIZE_MAX ||
	    (m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
	    0)) == MAP_FAILED) {
		close(fd);
		return 0;
	}
	close(fd);
	k->map = m;
	k->maplen = (size_t)st.st_size;
	if (check_cache(k, m, k->maplen, key))
		return 1;
	pme_ksyms_free(k);
	return 0;
}

/* Makes directory name (mode 0700) unless something is there. */
static void
make_dir(const char *name)
{
	char *slash, parent[PATH_MAX];
	struct stat st;

	if (lstat(name, &st) == 0 || errno != ENOENT ||
	    snprintf(parent, sizeof(parent), "%s", name) >=
	    (int)sizeof(parent) || (slash = strrchr(parent, '/')) == NULL)
		return;
	*slash = '\0';
	/* Only in a directory of the user's: root's run with another
	 * user's HOME must not leave a directory that user cannot use. */
	if (lstat(parent[0] ? parent : "/", &st) == -1 ||
	    !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return;
	mkdir(name, 0700);
}

/* Writes all of v[0..n) to fd; 0 or -1. */
static int
write_all(int fd, struct iovec *v, int n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = writev(fd, v, n)) <= 0) {
			if (w == -1 && errno == EINTR)
				continue;
			return -1;
		}
		for (; n > 0 && (size_t)w >= v->iov_len; v++, n--)
			w -= (ssize_t)v->iov_len;
		if (n > 0) {
			v->iov_base = (char *)v->iov_base + w;
			v->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* The kernel's own symbols of k in cache form: addresses, names and
 * strings in one allocation; NULL when there are too few, when one of a
 * module lies among them, or memory ran out. */
static unsigned char *
own_symbols(const struct pme_ksyms *k, uint64_t *n, uint64_t *strsize)
{
	size_t i, first = SIZE_MAX, last = 0, m = 0, s = 0, len;
	unsigned char *buf;
	uint64_t *a;
	uint32_t *o;
	char *str;

	for (i = 0; i < k->n; i++)
		if (!k->tagged[i]) {
			if (first == SIZE_MAX)
				first = i;
			last = i;
			m++;
			s += strlen(k->str + k->name[i]) + 1;
		}
	if (m < 2 || m != last - first + 1 || s > UINT32_MAX)
		return NULL;
	if ((buf = malloc(m * 12 + s)) == NULL)
		return NULL;
	a = (uint64_t *)(void *)buf;
	o = (uint32_t *)(void *)(buf + m * 8);
	str = (char *)buf + m * 12;
	for (i = first, s = 0; i <= last; i++) {
		len = strlen(k->str + k->name[i]) + 1;
		*a++ = k->addr[i];
		*o++ = (uint32_t)s;
		memcpy(str + s, k->str + k->name[i], len);
		s += len;
	}
	*n = m;
	*strsize = s;
	return buf;
}

void
pme_ksyms_save(const struct pme_ksyms *k, const char *dir, const char *key)
{
	unsigned char head[HEADER], *body;
	char tmp[64];
	struct iovec v[2];
	struct timespec ts;
	uint64_t n, strsize;
	int dfd, fd;

	if (k->cached || k->tagged == NULL || strlen(key) >= KEYLEN ||
	    (body = own_symbols(k, &n, &strsize)) == NULL)
		return;
	memset(head, 0, sizeof(head));
	memcpy(head, MAGIC, 8);
	memcpy(head + 8, key, strlen(key));
	memcpy(head + 8 + KEYLEN, &n, 8);
	memcpy(head + 16 + KEYLEN, &strsize, 8);
	v[0].iov_base = head;
	v[0].iov_len = HEADER;
	v[1].iov_base = body;
	v[1].iov_len = n * 12 + strsize;
	if (strchr(dir + 1, '/') != NULL) {
		char parent[PATH_MAX];

		if (snprintf(parent, sizeof(parent), "%s", dir) <
		    (int)sizeof(parent)) {
			*strrchr(parent, '/') = '\0';
			make_dir(parent);
		}
	}
	make_dir(dir);
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(tmp, sizeof(tmp), ".%s.%ld.%ld", PME_KSYMS_FILE,
	    (long)getpid(), (long)ts.tv_nsec);
	if ((dfd = open_dir(dir)) != -1) {
		/* No fsync: a crash ends the boot the cache is for. */
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (fd != -1) {
			if (write_all(fd, v, 2) == -1 || close(fd) == -1 ||
			    renameat(dfd, tmp, dfd, PME_KSYMS_FILE) == -1)
				unlinkat(dfd, tmp, 0);
		}
		close(dfd);
	}
	free(body);
}

/* ------------------------------------------------------------ kallsyms */

/* The value of hexadecimal digit c, or -1. */
static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Parses the line at s ("ffffffff81000000 T _stext\t[module]"), ended by
 * a newline or end: a text symbol of the kernel's half into e, its name
 * NUL-ended in place (cut at NAMEMAX bytes).  Returns the start of the
 * next line, and sets *ok when the line is such a symbol.
 */
static char *
parse_line(char *s, char *end, struct entry *e, char *base, int *ok)
{
	char *nl = memchr(s, '\n', (size_t)(end - s)), *name;
	uint64_t a = 0;
	int d, k = 0;

	if (nl == NULL)
		nl = end;
	*ok = 0;
	for (; s < nl && (d = hexval(*s)) >= 0 && k < 17; s++, k++)
		a = a << 4 | (uint64_t)d;
	if (k == 0 || k > 16 || nl - s < 4 || s[0] != ' ' || s[2] != ' ' ||
	    (s[1] != 'T' && s[1] != 't') || a < PME_KERNEL_START)
		return nl + (nl < end);
	name = s += 3;
	while (s < nl && *s != ' ' && *s != '\t')
		s++;
	if (s == name)
		return nl + (nl < end);
	e->tagged = s + 1 < nl && s[0] == '\t' && s[1] == '[';
	if (s - name > NAMEMAX)
		s = name + NAMEMAX;
	*s = '\0';
	e->addr = a;
	e->name = (uint32_t)(name - base);
	*ok = 1;
	return nl + (nl < end);
}

static int
cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr > y->addr ? 1 : -1;
	return (x->line > y->line) - (x->line < y->line);
}

/* The whole of the file at path, malloc'd, *len bytes and a NUL; NULL
 * with errno 0 when it cannot be read, ENOMEM when memory ran out. */
static char *
slurp(const char *path, size_t *len)
{
	size_t cap = 1 << 22, n = 0;
	char *buf = NULL, *g;
	ssize_t r;
	int fd;

	errno = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		errno = 0;
		return NULL;
	}
	for (;;) {
		if (buf == NULL || cap - n < 65536) {
			cap = buf == NULL ? cap : cap * 2;
			if (cap > UINT32_MAX || (g = realloc(buf, cap)) == NULL) {
				free(buf);
				close(fd);
				errno = ENOMEM;
				return NULL;
			}
			buf = g;
		}
		if ((r = read(fd, buf + n, cap - n - 1)) <= 0) {
			if (r == -1 && errno == EINTR)
				continue;
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

int
pme_ksyms_read(struct pme_ksyms *k, const char *path)
{
	struct entry *e = NULL, *g;
	size_t len = 0, n = 0, cap = 0, i, sorted = 1;
	uint64_t *addr;
	uint32_t *name;
	uint8_t *tagged;
	char *buf, *s, *end;
	int ok;

	memset(k, 0, sizeof(*k));
	if ((buf = slurp(path, &len)) == NULL)
		return errno == ENOMEM ? -1 : 0;
	for (s = buf, end = buf + len; s < end;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			if ((g = realloc(e, cap * sizeof(*e))) == NULL)
				goto nomem;
			e = g;
		}
		s = parse_line(s, end, &e[n], buf, &ok);
		if (!ok)
			continue;
		e[n].line = (uint32_t)n;
		if (n > 0 && e[n].addr < e[n - 1].addr)
			sorted = 0;
		n++;
	}
	if (n == 0) {
		free(e);
		free(buf);
		return 0;
	}
	/* The kernel lists its own symbols in order, those of modules
	 * after them; sort only when it did not. */
	if (!sorted)
		qsort(e, n, sizeof(*e), cmp_entry);
	/* The arrays after the text, in the one allocation. */
	if ((g = realloc(buf, (len + 1 + 7) / 8 * 8 + n * 13)) == NULL)
		goto nomem;
	buf = (char *)g;
	addr = (uint64_t *)(void *)(buf + (len + 1 + 7) / 8 * 8);
	name = (uint32_t *)(void *)(addr + n);
	tagged = (uint8_t *)(name + n);
	for (i = 0; i < n; i++) {
		addr[i] = e[i].addr;
		name[i] = e[i].name;
		tagged[i] = e[i].tagged;
	}
	free(e);
	k->mem = buf;
	k->str = buf;
	k->strsize = len + 1;
	k->addr = addr;
	k->name = name;
	k->tagged = tagged;
	k->n = n;
	return 1;
nomem:
	free(e);
	free(buf);
	return -1;
}

/* ------------------------------------------------------------ lookup */

int
pme_ksyms_find(const struct pme_ksyms *k, uint64_t pc, size_t *i,
    uint64_t *end)
{
	const uint64_t *a = k->addr;
	size_t lo = 0, hi = k->n, j;

	if (pc < PME_KERNEL_START)
		return 0;
	if (k->n == 0 || pc < a[0] || pc >= a[k->n - 1])
		return k->cached ? -1 : 0;
	while (lo < hi) {
		j = lo + (hi - lo) / 2;
		if (a[j] <= pc)
			lo = j + 1;
		else
			hi = j;
	}
	/* a[lo - 1] <= pc < a[lo], as the search compared them, even in a
	 * damaged cache: the first listed at a[lo - 1] holds it. */
	for (j = lo - 1; j > 0 && a[j - 1] == a[j]; j--)
		continue;
	if (k->cached && k->name[j] >= k->strsize)
		return -2;
	*i = j;
	*end = a[lo];
	return 1;
}
