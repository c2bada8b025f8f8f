/*
 * dwline.c - the line tables: pme's own bounded decoder of .debug_line
 * (DWARF 2 to 5) into the lines of pme_symbols.h, sorted and joined per
 * module, each with the routine that holds it; and the declaring files
 * of subprograms (DW_AT_decl_file).  One room of the ELF/DWARF reader,
 * whose rooms share lib/symint.h (lib/symbols.c says which does what).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symint.h"

/*
 * Line tables are decoded here rather than through libdwarf's
 * dwarf_srclines_b(): libdwarf 20210528 starts the DWARF 5 file register
 * at 0 instead of 1, so rows gcc leaves in the initial file (an inline
 * function of a header emitted first) come out in the wrong file; and it
 * allocates an object per row, which made it slower than readelf.  Below
 * is the line number state machine of DWARF 2 to 5 (section 6.2), reading
 * only what a row needs.
 */

/* A bounded reader in the image's byte order; a short read sets bad. */
struct rd {
	const uint8_t	*p, *end;
	int		 bad, be;
};

static uint64_t
rd_un(struct rd *r, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		r->p = r->end;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)r->p[r->be ? n - 1 - i : i] << (8 * i);
	r->p += n;
	return v;
}

static uint64_t
rd_leb(struct rd *r, int sign)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (r->p >= r->end) {
			r->bad = 1;
			return 0;
		}
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

static const char *
rd_str(struct rd *r)
{
	const char *s = (const char *)r->p;
	const uint8_t *z;

	if (r->bad || (z = memchr(r->p, 0, r->end - r->p)) == NULL) {
		r->bad = 1;
		r->p = r->end;
		return "";
	}
	r->p = z + 1;
	return s;
}

/* The string at off of a string section, or NULL. */
static const char *
sect_str(const struct sect *s, uint64_t off)
{
	if (off >= s->n || memchr(s->p + off, 0, s->n - off) == NULL)
		return NULL;
	return (const char *)s->p + off;
}

/* A line table header: where its program is and its files' names. */
struct lthdr {
	unsigned	 version, offsize, minlen, range, opbase;
	int		 linebase, default_stmt;
	const uint8_t	*oplens;
	struct rd	 prog;
	struct pme_vec	 dirs;		/* const char *, raw */
	struct pme_vec	 files;		/* const char *, resolved, interned */
};

/* dir/name made absolute against compdir, then relative to it if under. */
static const char *
resolve(struct pme_image *img, const char *compdir, const char *dir,
    const char *name)
{
	char buf[4096];
	int n;

	if (*name == '/' || (dir == NULL && compdir == NULL))
		n = snprintf(buf, sizeof(buf), "%s", name);
	else if (dir == NULL || *dir == '\0')
		n = snprintf(buf, sizeof(buf), "%s/%s", compdir, name);
	else if (*dir == '/' || compdir == NULL)
		n = snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	else
		n = snprintf(buf, sizeof(buf), "%s/%s/%s", compdir, dir, name);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return pme_intern(&img->names, name);
	return pme_intern(&img->names, relname(compdir, buf));
}

static int
add_file(struct pme_image *img, struct lthdr *h, const char *compdir,
    const char *name, uint64_t dir)
{
	const char **f, *d = NULL;

	if (dir < h->dirs.n)
		d = PME_VEC_AT(&h->dirs, const char *, dir);
	if ((f = pme_vec_push(&h->files)) == NULL ||
	    (*f = resolve(img, compdir, d, name)) == NULL)
		return sym_nomem(img);
	return 0;
}

/* Reads one value of form; strings into *s, numbers into *u. */
static int
lt_form(struct pme_image *img, struct lthdr *h, struct rd *r, uint64_t form,
    const char **s, uint64_t *u)
{
	switch (form) {
	case DW_FORM_string:
		*s = rd_str(r);
		return 0;
	case DW_FORM_line_strp:
		*s = sect_str(&img->dlinestr, rd_un(r, h->offsize));
		return *s == NULL ? -1 : 0;
	case DW_FORM_strp:
		*s = sect_str(&img->dstr, rd_un(r, h->offsize));
		return *s == NULL ? -1 : 0;
	case DW_FORM_udata:
		*u = rd_leb(r, 0);
		return 0;
	case DW_FORM_data1:
		*u = rd_un(r, 1);
		return 0;
	case DW_FORM_data2:
		*u = rd_un(r, 2);
		return 0;
	case DW_FORM_data4:
		*u = rd_un(r, 4);
		return 0;
	case DW_FORM_data8:
		*u = rd_un(r, 8);
		return 0;
	case DW_FORM_data16:
		rd_un(r, 8), rd_un(r, 8);
		return 0;
	case DW_FORM_block:
		*u = rd_leb(r, 0);
		if (*u > (uint64_t)(r->end - r->p))
			return -1;
		r->p += *u;
		return 0;
	}
	return -1;
}

/* DWARF 5 directory or file entries, described by their format. */
static int
lt_entries(struct pme_image *img, struct lthdr *h, struct rd *r,
    const char *compdir, int files)
{
	uint64_t fmt[16][2], count, i, u, dir;
	unsigned nfmt = (unsigned)rd_un(r, 1), k;
	const char *s, *name, **d;

	if (nfmt > 16)
		return -1;
	for (k = 0; k < nfmt; k++) {
		fmt[k][0] = rd_leb(r, 0);
		fmt[k][1] = rd_leb(r, 0);
	}
	count = rd_leb(r, 0);
	for (i = 0; i < count && !r->bad; i++) {
		name = "?";
		dir = 0;
		for (k = 0; k < nfmt; k++) {
			s = NULL;
			u = 0;
			if (lt_form(img, h, r, fmt[k][1], &s, &u) == -1)
				return -1;
			if (fmt[k][0] == DW_LNCT_path && s != NULL)
				name = s;
			else if (fmt[k][0] == DW_LNCT_directory_index)
				dir = u;
		}
		if (files && add_file(img, h, compdir, name, dir) == -1)
			return -2;
		if (!files && ((d = pme_vec_push(&h->dirs)) == NULL ||
		    (*d = name) == NULL))
			return -2;
	}
	return r->bad ? -1 : 0;
}

/* DWARF 2 to 4: include_directories and file_names. */
static int
lt_entries_v4(struct pme_image *img, struct lthdr *h, struct rd *r,
    const char *compdir)
{
	const char *s, **d;
	uint64_t dir;

	if ((d = pme_vec_push(&h->dirs)) == NULL)
		return -2;
	*d = NULL;			/* directory 0 is comp_dir */
	while (!r->bad && *(s = rd_str(r)) != '\0') {
		if ((d = pme_vec_push(&h->dirs)) == NULL)
			return -2;
		*d = s;
	}
	if (pme_vec_push(&h->files) == NULL)	/* file 0 is not used */
		return -2;
	while (!r->bad && *(s = rd_str(r)) != '\0') {
		dir = rd_leb(r, 0);
		rd_leb(r, 0), rd_leb(r, 0);
		if (add_file(img, h, compdir, s, dir) == -1)
			return -2;
	}
	return r->bad ? -1 : 0;
}

static int
lt_error(struct pme_image *img, uint64_t off, const char *what)
{
	return pme_setfmt(img->err, PME_EFORMAT, img->path, off,
	    ".debug_line: %s", what);
}

/* Parses the header of the line table at off. */
static int
lt_header(struct pme_image *img, uint64_t off, const char *compdir,
    struct lthdr *h)
{
	struct rd r = { NULL, NULL, 0, img->be };
	uint64_t len, hlen;
	const uint8_t *hend;
	int rc;

	/* First: with no .debug_line, p is NULL and takes no offset. */
	if (off >= img->dline.n)
		return lt_error(img, off, "offset out of the section");
	r.p = img->dline.p + off;
	r.end = img->dline.p + img->dline.n;
	h->offsize = 4;
	if ((len = rd_un(&r, 4)) == 0xffffffff) {
		h->offsize = 8;
		len = rd_un(&r, 8);
	}
	if (r.bad || len > (uint64_t)(r.end - r.p))
		return lt_error(img, off, "unit longer than the section");
	r.end = r.p + len;
	h->version = (unsigned)rd_un(&r, 2);
	if (h->version < 2 || h->version > 5)
		return lt_error(img, off, "unknown version");
	if (h->version >= 5)
		rd_un(&r, 2);		/* address and segment selector size */
	hlen = rd_un(&r, h->offsize);
	if (r.bad || hlen > (uint64_t)(r.end - r.p))
		return lt_error(img, off, "header longer than the unit");
	hend = r.p + hlen;
	h->minlen = (unsigned)rd_un(&r, 1);
	if (h->version >= 4)
		rd_un(&r, 1);		/* maximum operations per instruction */
	h->default_stmt = rd_un(&r, 1) != 0;
	h->linebase = (int8_t)rd_un(&r, 1);
	h->range = (unsigned)rd_un(&r, 1);
	h->opbase = (unsigned)rd_un(&r, 1);
	h->oplens = r.p;
	if (r.bad || h->range == 0 || h->opbase == 0 ||
	    h->opbase - 1 > (size_t)(hend - r.p))
		return lt_error(img, off, "bad header");
	r.p += h->opbase - 1;
	if (h->version >= 5) {
		rc = lt_entries(img, h, &r, compdir, 0);
		if (rc == 0)
			rc = lt_entries(img, h, &r, compdir, 1);
	} else
		rc = lt_entries_v4(img, h, &r, compdir);
	if (rc == -2)
		return sym_nomem(img);
	if (rc == -1 || r.p > hend)
		return lt_error(img, off, "bad directory or file table");
	h->prog.p = hend;
	h->prog.end = r.end;
	h->prog.be = img->be;
	h->prog.bad = 0;
	return 0;
}

static void
lt_free(struct lthdr *h)
{
	pme_vec_free(&h->dirs);
	pme_vec_free(&h->files);
}

/*
 * The declaring file of a subprogram: decl_file numbers the files of the
 * unit's line table, whose header is read once per unit when first needed.
 */
const char *
decl_file(struct cu *cu, uint64_t idx)
{
	struct pme_image *img = cu->img;
	struct pme_error *saved = img->err, quiet;

	if (!cu->lt_tried && cu->info.has_stmt) {
		cu->lt_tried = 1;
		if ((cu->lt = calloc(1, sizeof(*cu->lt))) == NULL)
			return NULL;
		pme_vec_init(&cu->lt->dirs, sizeof(const char *));
		pme_vec_init(&cu->lt->files, sizeof(const char *));
		/* A bad line table is reported when lines are loaded. */
		img->err = &quiet;
		if (lt_header(img, cu->info.stmt, cu->compdir, cu->lt) == -1)
			cu->lt->files.n = 0;
		img->err = saved;
	}
	if (cu->lt == NULL || idx >= cu->lt->files.n)
		return NULL;
	return PME_VEC_AT(&cu->lt->files, const char *, idx);
}

void
cu_free(struct cu *cu)
{
	if (cu->lt != NULL)
		lt_free(cu->lt);
	free(cu->lt);
	cu->lt = NULL;
	cu->lt_tried = 0;
}

/* Where rows go: runs of one file and line become entries. */
struct sink {
	struct pme_image *img;
	size_t		 first;		/* the module's first entry */
	int		 sorted;
	const char	*primary;	/* the module's own file */
	int		 open;		/* a run is going on */
	uint64_t	 start;
	const char	*file;
	uint32_t	 line;
};

/* Appends [s, e), clipped, joined to the previous entry if it can be. */
static int
emit_line(struct sink *k, uint64_t s, uint64_t e)
{
	struct pme_image *img = k->img;
	struct pme_symline *p;
	struct pme_range r = { s, e };

	if (!sym_clip(img, &r))
		return 0;
	if (img->lines.n > k->first) {
		p = (struct pme_symline *)img->lines.v + img->lines.n - 1;
		if (p->end == r.start && p->line == k->line &&
		    p->file == k->file) {
			p->end = r.end;
			return 0;
		}
		if (r.start < p->start)
			k->sorted = 0;
	}
	if ((p = pme_vec_push(&img->lines)) == NULL)
		return sym_nomem(img);
	p->start = r.start;
	p->end = r.end;
	p->line = k->line;
	p->routine = PME_NONE;
	p->file = k->file;
	p->file_is_primary = k->file == k->primary;
	return 0;
}

/*
 * A row holds from its address to the next row's; consecutive rows of
 * one file and line are one run; an end_sequence row only ends the run
 * before it.  Addresses going backwards inside a sequence end the run
 * without an entry.
 */
static int
row(struct sink *k, uint64_t addr, const char *file, uint64_t line,
    int endseq)
{
	if (!endseq && k->open && file == k->file && line == k->line)
		return 0;
	if (k->open && addr > k->start && emit_line(k, k->start, addr) == -1)
		return -1;
	k->open = !endseq;
	k->start = addr;
	k->file = file;
	k->line = (uint32_t)line;
	return 0;
}

/* The name of file register value f. */
static const char *
lt_file(struct pme_image *img, const struct lthdr *h, uint64_t f)
{
	const char *s;

	if (f < h->files.n && (s = PME_VEC_AT(&h->files, const char *, f)))
		return s;
	return pme_intern(&img->names, "?");
}

/* State of the line number machine. */
struct lstate {
	uint64_t	 addr, file, line;
};

static void
lstate_reset(struct lstate *s)
{
	s->addr = 0;
	s->file = 1;
	s->line = 1;
}

static int
lt_emit(struct sink *k, const struct lthdr *h, const struct lstate *s,
    int endseq)
{
	const char *f = lt_file(k->img, h, s->file);

	if (f == NULL)
		return sym_nomem(k->img);
	return row(k, s->addr, f, s->line, endseq);
}

/* An extended opcode (after the 0): end_sequence, set_address, ... */
static int
lt_extended(struct sink *k, struct lthdr *h, struct rd *r, struct lstate *s)
{
	uint64_t len = rd_leb(r, 0);
	const uint8_t *next;
	unsigned op;

	if (r->bad || len == 0 || len > (uint64_t)(r->end - r->p))
		return 1;
	next = r->p + len;
	op = *r->p++;
	if (op == DW_LNE_end_sequence) {
		if (lt_emit(k, h, s, 1) == -1)
			return -1;
		lstate_reset(s);
	} else if (op == DW_LNE_set_address && len - 1 <= 8)
		s->addr = rd_un(r, (unsigned)(len - 1));
	else if (op == DW_LNE_define_file && h->version <= 4) {
		const char *name = rd_str(r);
		uint64_t dir = rd_leb(r, 0);

		if (!r->bad && add_file(k->img, h, NULL, name, dir) == -1)
			return -1;
	}
	r->p = next;
	return 0;
}

/* A standard opcode other than the special ones; 1 if unknown bytes. */
static int
lt_standard(struct sink *k, struct lthdr *h, struct rd *r, struct lstate *s,
    unsigned op)
{
	unsigned i;

	switch (op) {
	case DW_LNS_copy:
		return lt_emit(k, h, s, 0);
	case DW_LNS_advance_pc:
		s->addr += rd_leb(r, 0) * h->minlen;
		return 0;
	case DW_LNS_advance_line:
		s->line += rd_leb(r, 1);
		return 0;
	case DW_LNS_set_file:
		s->file = rd_leb(r, 0);
		return 0;
	case DW_LNS_const_add_pc:
		s->addr += (255 - h->opbase) / h->range * h->minlen;
		return 0;
	case DW_LNS_fixed_advance_pc:
		s->addr += rd_un(r, 2);
		return 0;
	}
	for (i = 0; i < h->oplens[op - 1]; i++)	/* operands skipped */
		rd_leb(r, 0);
	return 0;
}

/* Runs the line program of h into k. */
static int
lt_run(struct sink *k, struct lthdr *h, uint64_t off)
{
	struct rd *r = &h->prog;
	struct lstate s;
	uint64_t daddr[256], dline[256];
	unsigned op, adj;
	int rc = 0;

	/* Each special opcode's advances, worked out once: a division per
	 * row was the loop's dearest instruction. */
	for (op = h->opbase; op < 256; op++) {
		adj = op - h->opbase;
		daddr[op] = adj / h->range * h->minlen;
		dline[op] = (uint64_t)(int64_t)(h->linebase +
		    (int)(adj % h->range));
	}
	lstate_reset(&s);
	while (r->p < r->end && rc == 0 && !r->bad) {
		op = *r->p++;
		if (op >= h->opbase) {
			s.addr += daddr[op];
			s.line += dline[op];
			rc = lt_emit(k, h, &s, 0);
		} else if (op == 0)
			rc = lt_extended(k, h, r, &s);
		else
			rc = lt_standard(k, h, r, &s, op);
	}
	if (rc == 1 || r->bad)
		return lt_error(k->img, off + (uint64_t)(r->p - k->img->dline.p -
		    off), "line program runs past its unit");
	return rc;
}

static int
cmp_line(const void *a, const void *b)
{
	const struct pme_symline *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static int
cmp_rrange(const void *a, const void *b)
{
	const struct rrange *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static void
line_key(const void *e, uint64_t *k)
{
	k[0] = ((const struct pme_symline *)e)->start;
}

/* Runs of ascending starts that merge_runs() takes: more, and the
 * radix sort is cheaper. */
#define MAX_RUNS	32

/*
 * The runs of ascending starts of v[0..n): run[0..nr) their firsts,
 * run[nr] n; 0, or -1 when there are more than MAX_RUNS.  *longest is the
 * length of the longest.
 */
static int
find_runs(const struct pme_symline *v, size_t n, size_t *run, size_t *nr,
    size_t *longest)
{
	size_t i;

	*nr = 0;
	run[(*nr)++] = 0;
	*longest = 0;
	for (i = 1; i < n; i++)
		if (v[i].start < v[i - 1].start) {
			if (*nr == MAX_RUNS)
				return -1;
			if (i - run[*nr - 1] > *longest)
				*longest = i - run[*nr - 1];
			run[(*nr)++] = i;
		}
	if (n - run[*nr - 1] > *longest)
		*longest = n - run[*nr - 1];
	run[*nr] = n;
	return 0;
}

/*
 * Merges the adjacent sorted runs v[lo..mid) and v[mid..hi) in place,
 * stably, through tmp, which has room for the shorter: copied out, it is
 * merged back from the end of v when it is the second, from the start
 * when it is the first.
 */
static void
merge_two(struct pme_symline *v, size_t lo, size_t mid, size_t hi,
    struct pme_symline *tmp)
{
	size_t i, j, o, nt;

	if (hi - mid <= mid - lo) {
		nt = hi - mid;
		memcpy(tmp, v + mid, nt * sizeof(*v));
		for (i = mid, j = nt, o = hi; j > 0; )
			v[--o] = i > lo && v[i - 1].start > tmp[j - 1].start ?
			    v[--i] : tmp[--j];
	} else {
		nt = mid - lo;
		memcpy(tmp, v + lo, nt * sizeof(*v));
		for (i = 0, j = mid, o = lo; i < nt; )
			v[o++] = j < hi && v[j].start < tmp[i].start ? v[j++] :
			    tmp[i++];
	}
}

/*
 * Sorts the module's new lines and trims overlaps: the first one wins.
 * The sort is stable.  A few runs of ascending starts (a line table's
 * sequences: the SQLite amalgamation's 82,611 lines are two, .text and
 * .text.startup) are merged pairwise in place, through room for all but
 * the longest run; more take a radix sort on the start (a few passes,
 * where qsort made n log n calls: a big unit has hundreds of thousands of
 * rows); without memory for either, glibc's merge sort.
 */
static size_t
sort_lines(struct pme_symline *v, size_t n, int sorted)
{
	struct pme_symline *tmp = NULL, *s = NULL;
	size_t run[MAX_RUNS + 1], nr, longest, r, i, k;

	if (!sorted && n > 1 && find_runs(v, n, run, &nr, &longest) == 0) {
		/* The shorter of two merged runs never holds the longest. */
		if ((tmp = malloc((n - longest + 1) * sizeof(*v))) != NULL) {
			for (; nr > 1; nr = (nr + 1) / 2, run[nr] = n)
				for (r = 0; r < nr; r += 2) {
					if (r + 1 < nr)
						merge_two(v, run[r], run[r + 1],
						    run[r + 2], tmp);
					run[r / 2] = run[r];
				}
			s = v;
		}
	} else if (!sorted && n > 1 && (tmp = malloc(n * sizeof(*v))) != NULL &&
	    (s = pme_radix_sort(v, tmp, n, sizeof(*v), 1, line_key)) != NULL &&
	    s != v)
		memcpy(v, s, n * sizeof(*v));
	if (!sorted && n > 1 && s == NULL)
		qsort(v, n, sizeof(*v), cmp_line);
	free(tmp);
	for (i = 1, k = n ? 1 : 0; i < n; i++) {
		if (v[i].end <= v[k - 1].end)
			continue;
		if (v[i].start < v[k - 1].end)
			v[i].start = v[k - 1].end;
		v[k++] = v[i];
	}
	return k;
}

/* Gives each line the routine whose range holds its start. */
static int
line_routines(struct pme_image *img, const struct pme_symmod *m,
    struct pme_symline *v, size_t n)
{
	const struct pme_symroutine *r;
	struct rrange *rr;
	size_t i, j, nr = 0;

	if (m->nroutines == 0 || n == 0)
		return 0;	/* and routines.v may be NULL: no offset to it */
	r = (const struct pme_symroutine *)img->routines.v + m->first_routine;
	for (i = 0; i < m->nroutines; i++)
		nr += r[i].nranges;
	if (nr == 0)
		return 0;
	if ((rr = malloc(nr * sizeof(*rr))) == NULL)
		return sym_nomem(img);
	for (i = 0, nr = 0; i < m->nroutines; i++)
		for (j = 0; j < r[i].nranges; j++, nr++) {
			rr[nr].start = r[i].ranges[j].start;
			rr[nr].end = r[i].ranges[j].end;
			rr[nr].routine = m->first_routine + (uint32_t)i;
		}
	qsort(rr, nr, sizeof(*rr), cmp_rrange);
	for (i = 0, j = 0; i < n; i++) {
		while (j + 1 < nr && rr[j + 1].start <= v[i].start)
			j++;
		if (rr[j].start <= v[i].start && v[i].start < rr[j].end)
			v[i].routine = rr[j].routine;
	}
	free(rr);
	return 0;
}

static int
module_lines(struct pme_image *img, uint32_t mi)
{
	struct pme_symmod *m = &PME_VEC_AT(&img->mods, struct pme_symmod, mi);
	const struct modinfo *info = &PME_VEC_AT(&img->info, struct modinfo,
	    mi);
	struct lthdr h;
	struct sink k = { 0 };
	struct pme_symline *v;
	size_t first = img->lines.n, n;
	int rc;

	if (m->lines_loaded)
		return 0;
	m->first_line = (uint32_t)first;
	m->nlines = 0;
	if (!info->has_stmt) {
		m->lines_loaded = 1;
		return 0;
	}
	memset(&h, 0, sizeof(h));
	pme_vec_init(&h.dirs, sizeof(const char *));
	pme_vec_init(&h.files, sizeof(const char *));
	k.img = img;
	k.first = first;
	k.sorted = 1;
	k.primary = m->name;
	rc = lt_header(img, info->stmt, info->compdir, &h);
	if (rc == 0)
		rc = lt_run(&k, &h, info->stmt);
	lt_free(&h);
	v = img->lines.n > first ? (struct pme_symline *)img->lines.v + first :
	    NULL;
	n = v != NULL ? sort_lines(v, img->lines.n - first, k.sorted) : 0;
	img->lines.n = first + n;
	if (rc == 0 && n > UINT32_MAX - first)
		rc = pme_seterr(img->err, PME_ELIMIT, "'%s': too many lines",
		    img->path);
	if (rc == 0)
		rc = line_routines(img, m, v, n);
	if (rc == -1) {
		img->lines.n = first;
		return -1;
	}
	m->nlines = (uint32_t)n;
	m->lines_loaded = 1;
	return 0;
}

int
pme_image_load_lines(struct pme_image *img, uint32_t module,
    struct pme_error *err)
{
	size_t i;
	int rc = 0;

	img->err = err;
	if (module != PME_NONE && module >= img->mods.n)
		rc = pme_seterr(err, PME_EINVAL, "'%s': no module %u",
		    img->path, module);
	else if (module != PME_NONE)
		rc = module_lines(img, module);
	for (i = 0; module == PME_NONE && i < img->mods.n && rc == 0; i++)
		rc = module_lines(img, (uint32_t)i);
	img->err = NULL;
	return rc;
}
