/*
 * maps.c - reading /proc/PID/maps (maps.h).  Strict about the fields the
 * kernel writes (show_map_vma(): "%08lx-%08lx %c%c%c%c %08llx %02x:%02x
 * %lu ", spaces, the path), so that a line it did not write is an error
 * rather than a mapping at a wrong address; the path is whatever follows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "maps.h"
#include "util.h"

#define DELETED		" (deleted)"
#define DELETED_LEN	(sizeof(DELETED) - 1)

/* The digits of base 16 or 10 at line[*i] as *v, at most max. */
static int
number(const char *line, size_t len, size_t *i, int base, uint64_t max,
    uint64_t *v, const char **why)
{
	size_t j = *i;
	uint64_t x = 0;
	unsigned d;
	char c;

	for (; j < len; j++) {
		c = line[j];
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			break;
		if (x > (max - d) / (unsigned)base) {
			*why = "number too big";
			return -1;
		}
		x = x * (unsigned)base + d;
	}
	if (j == *i) {
		*why = base == 16 ? "not a hexadecimal number" :
		    "not a decimal number";
		return -1;
	}
	*i = j;
	*v = x;
	return 0;
}

/* One or more spaces at line[*i]. */
static int
spaces(const char *line, size_t len, size_t *i, const char **why)
{
	if (*i >= len || line[*i] != ' ') {
		*why = *i >= len ? "line ends early" : "not a space";
		return -1;
	}
	while (*i < len && line[*i] == ' ')
		(*i)++;
	return 0;
}

int
pme_maps_parse(char *line, size_t len, struct pme_maps_line *m,
    size_t *col, const char **why)
{
	static const char perm[4][3] = { "r-", "w-", "x-", "ps" };
	uint64_t v;
	size_t i = 0, e = len, k;
	char *p;

	memset(m, 0, sizeof(*m));
	m->path = "";
	if (e > 0 && line[e - 1] == '\n')
		e--;
	if ((p = memchr(line, '\0', e)) != NULL ||
	    (p = memchr(line, '\n', e)) != NULL) {
		*col = (size_t)(p - line);
		*why = *p == '\0' ? "a NUL byte" : "a newline inside the line";
		return -1;
	}
	if (number(line, e, &i, 16, UINT64_MAX, &m->start, why) < 0)
		goto bad;
	if (i >= e || line[i] != '-') {
		*why = "no '-' after the start address";
		goto bad;
	}
	i++;
	k = i;
	if (number(line, e, &i, 16, UINT64_MAX, &m->end, why) < 0)
		goto bad;
	if (m->end <= m->start) {
		i = k;
		*why = "end address not above the start";
		goto bad;
	}
	if (spaces(line, e, &i, why) < 0)
		goto bad;
	for (k = 0; k < 4; k++, i++) {
		if (i >= e || (line[i] != perm[k][0] &&
		    line[i] != perm[k][1])) {
			*why = "bad permissions";
			goto bad;
		}
		m->perms[k] = line[i];
	}
	if (spaces(line, e, &i, why) < 0 ||
	    number(line, e, &i, 16, UINT64_MAX, &m->offset, why) < 0 ||
	    spaces(line, e, &i, why) < 0 ||
	    number(line, e, &i, 16, UINT32_MAX, &v, why) < 0)
		goto bad;
	m->major = (uint32_t)v;
	if (i >= e || line[i] != ':') {
		*why = "no ':' in the device";
		goto bad;
	}
	i++;
	if (number(line, e, &i, 16, UINT32_MAX, &v, why) < 0)
		goto bad;
	m->minor = (uint32_t)v;
	if (spaces(line, e, &i, why) < 0 ||
	    number(line, e, &i, 10, UINT64_MAX, &m->inode, why) < 0)
		goto bad;
	if (i < e && spaces(line, e, &i, why) < 0)
		goto bad;
	if (e - i > DELETED_LEN &&
	    memcmp(line + e - DELETED_LEN, DELETED, DELETED_LEN) == 0) {
		m->deleted = 1;
		e -= DELETED_LEN;
	}
	line[e] = '\0';
	m->path = line + i;
	return 0;
bad:
	*col = i;
	return -1;
}

void
pme_maps_init(struct pme_maps *r, FILE *fp, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->fp = fp;
	r->name = name;
}

int
pme_maps_next(struct pme_maps *r, struct pme_maps_line *m,
    struct pme_error *err)
{
	const char *why;
	uint64_t off;
	ssize_t n;
	size_t col;

	if (r->done)
		return 0;
	if ((n = getline(&r->buf, &r->cap, r->fp)) < 0) {
		r->done = 1;
		if (ferror(r->fp))
			return pme_setsys(err, r->name, "read");
		if (!feof(r->fp))
			return pme_setnomem(err);
		return 0;
	}
	off = r->offset;
	r->offset += (uint64_t)n;
	r->line++;
	if (pme_maps_parse(r->buf, (size_t)n, m, &col, &why) < 0)
		return pme_setfmt(err, PME_EFORMAT, r->name, off + col,
		    "line %llu: %s", (unsigned long long)r->line, why);
	return 1;
}

void
pme_maps_end(struct pme_maps *r)
{
	free(r->buf);
	r->buf = NULL;
	r->cap = 0;
}
