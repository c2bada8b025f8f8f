/*
 * io.c - pmehisto -V io: the I/O calls a run traced (pmeclock -e io), as
 * the Oracle Analyzer's I/O view and strace -c show them: per system
 * call, per file (the descriptor's path) and per call site (the routine
 * and line that called the C library's wrapper), each with its calls,
 * errors, bytes and total, mean and largest time; then the slowest calls.
 * Times are exact (the kernel's entry and exit), not sampled.
 *
 * A call site is the first frame of the call's stack outside the module
 * that entered the kernel (the C library), less one byte (the call
 * instruction), named through the symbols and line table of its file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histo.h"
#include "pme_symbols.h"
#include "util.h"

#define IO_SLOWEST	10
#define IO_SLOW_FRAMES	8	/* of a slowest call's stack, shown */

/* A group of calls: a call kind, a file or a site. */
struct iogroup {
	char		*key;		/* escaped, as printed */
	uint32_t	 call;		/* of a site's row */
	uint64_t	 calls, errors, bytes, total, max;
};

/* One of the slowest calls. */
struct ioslow {
	uint64_t	 duration, at;	/* at: from its run's start */
	uint32_t	 tid, call;
	int64_t		 ret;
	char		*file, *site;
	uint64_t	 bytes;
	struct ioframe {		/* its stack, innermost first: */
		char	*path;		/*   the mapping's file, NULL: none */
		uint64_t v;		/*   link-time address, or run-time */
	}		 fr[IO_SLOW_FRAMES];
	int		 nfr;
};

/* An image opened to name sites: a routine range sorted by start. */
struct iorange {
	uint64_t	 start, end;
	uint32_t	 routine;
};

struct ioimage {
	char		*path;
	struct pme_image *img;		/* NULL: could not be read */
	struct iorange	*r;
	size_t		 nr;
};

struct iorep {
	struct pme_addrmap *am;
	struct iogroup	*g[3];		/* by call, by file, by site */
	size_t		 ng[3], capg[3];
	struct ioslow	 slow[IO_SLOWEST];
	size_t		 nslow;
	struct ioimage	*im;
	size_t		 nim, capim;
	uint64_t	 calls, total, start;
	int		 failed;
	struct pme_error *err;
};

/* A run: its own processes and mappings (pme(5): a file may hold
 * several), its own start. */
static int
io_header(void *arg, const struct pme_sample_header *h)
{
	struct iorep *r = arg;

	r->start = h->start_mono;
	pme_addrmap_free(r->am);
	return (r->am = pme_addrmap_new(r->err)) == NULL;
}

static int
io_mapping(void *arg, const struct pme_mapping *m)
{
	struct iorep *r = arg;

	return pme_addrmap_mapping(r->am, m, r->err) == -1;
}

static int
io_thread(void *arg, const struct pme_thread *t)
{
	struct iorep *r = arg;

	return pme_addrmap_thread(r->am, t, r->err) == -1;
}

static int
by_start(const void *a, const void *b)
{
	const struct iorange *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The image of path, read once. */
static struct ioimage *
image_of(struct iorep *r, const char *path)
{
	const struct pme_symroutine *rt;
	struct pme_error err;
	struct ioimage *im;
	size_t i, n, k;
	uint32_t j;
	void *p;

	for (i = 0; i < r->nim; i++)
		if (strcmp(r->im[i].path, path) == 0)
			return &r->im[i];
	if (r->nim == r->capim) {
		if ((p = realloc(r->im, (r->capim * 2 + 8) *
		    sizeof(*r->im))) == NULL)
			return NULL;
		r->im = p;
		r->capim = r->capim * 2 + 8;
	}
	im = &r->im[r->nim];
	memset(im, 0, sizeof(*im));
	if ((im->path = strdup(path)) == NULL)
		return NULL;
	r->nim++;
	if ((im->img = pme_image_open(path, NULL, &err)) == NULL)
		return im;
	n = pme_image_routines(im->img, &rt);
	for (i = 0, k = 0; i < n; i++)
		k += rt[i].nranges;
	if ((im->r = calloc(k + 1, sizeof(*im->r))) == NULL)
		return im;
	for (i = 0; i < n; i++)
		for (j = 0; j < rt[i].nranges; j++) {
			im->r[im->nr].start = rt[i].ranges[j].start;
			im->r[im->nr].end = rt[i].ranges[j].end;
			im->r[im->nr++].routine = (uint32_t)i;
		}
	qsort(im->r, im->nr, sizeof(*im->r), by_start);
	return im;
}

/* The routine of im holding v, or PME_NONE. */
static uint32_t
routine_at(const struct ioimage *im, uint64_t v)
{
	size_t lo = 0, hi = im->nr, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (im->r[mid].start <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && v < im->r[lo - 1].end)
		return im->r[lo - 1].routine;
	return PME_NONE;
}

/* The line of module mod of im holding v, or NULL. */
static const struct pme_symline *
line_at(struct ioimage *im, uint32_t mod, uint64_t v)
{
	const struct pme_symmod *mods;
	const struct pme_symline *l;
	struct pme_error err;
	uint32_t i;

	if (pme_image_load_lines(im->img, mod, &err) == -1)
		return NULL;
	pme_image_modules(im->img, &mods);
	pme_image_lines(im->img, &l);
	for (i = 0; i < mods[mod].nlines; i++)
		if (l[mods[mod].first_line + i].start <= v &&
		    v < l[mods[mod].first_line + i].end)
			return &l[mods[mod].first_line + i];
	return NULL;
}

/* The name of the code at link-time address v of mapping m into buf. */
static void
name_code(struct iorep *r, const struct pme_mapping *m, uint64_t v,
    char *buf, size_t len)
{
	const struct pme_symroutine *rt;
	const struct pme_symline *l;
	struct ioimage *im;
	const char *base = strrchr(m->path, '/');
	uint32_t k;

	base = base != NULL ? base + 1 : m->path;
	if ((im = image_of(r, m->path)) == NULL || im->img == NULL ||
	    (k = routine_at(im, v)) == PME_NONE) {
		snprintf(buf, len, "%s+0x%" PRIx64, base, v);
		return;
	}
	pme_image_routines(im->img, &rt);
	if ((l = line_at(im, rt[k].module, v)) != NULL)
		snprintf(buf, len, "%s (%s:%u)", rt[k].name, l->file, l->line);
	else
		snprintf(buf, len, "%s (%s)", rt[k].name, base);
}

/* The call site of io, escaped, into buf. */
static void
site_of(struct iorep *r, const struct pme_io *io, char *buf, size_t len)
{
	const struct pme_mapping *maps;
	uint32_t mi, fi = PME_NONE;
	uint64_t v, fv = 0;
	char name[1024];
	uint32_t i;

	mi = pme_addrmap_lookup(r->am, io->pid, io->start, io->pc, &v);
	for (i = 0; i < io->nframes; i++) {
		fi = pme_addrmap_lookup(r->am, io->pid, io->start,
		    io->frames[i] - 1, &fv);
		if (fi != mi || i + 1 == io->nframes)
			break;
	}
	if (io->nframes == 0) {
		fi = mi;
		fv = v;
	}
	pme_addrmap_mappings(r->am, &maps);
	if (fi == PME_NONE)
		snprintf(name, sizeof(name), "0x%" PRIx64, io->nframes > 0 ?
		    io->frames[0] : io->pc);
	else
		name_code(r, &maps[fi], fv, name, sizeof(name));
	pme_escape(buf, len, name);
}

static struct iogroup *
group_of(struct iorep *r, int t, const char *key, uint32_t call)
{
	struct iogroup *g;
	size_t i;
	void *p;

	for (i = r->ng[t]; i-- > 0; )
		if (r->g[t][i].call == call && strcmp(r->g[t][i].key, key) == 0)
			return &r->g[t][i];
	if (r->ng[t] == r->capg[t]) {
		if ((p = realloc(r->g[t], (r->capg[t] * 2 + 16) *
		    sizeof(*g))) == NULL)
			return NULL;
		r->g[t] = p;
		r->capg[t] = r->capg[t] * 2 + 16;
	}
	g = &r->g[t][r->ng[t]];
	memset(g, 0, sizeof(*g));
	if ((g->key = strdup(key)) == NULL)
		return NULL;
	g->call = call;
	r->ng[t]++;
	return g;
}

uint64_t
io_bytes(const struct pme_io *io)
{
	if (io->ret < 0 || io->call == PME_IO_OPEN ||
	    io->call == PME_IO_OPENAT || io->call == PME_IO_CLOSE)
		return 0;
	return (uint64_t)io->ret;
}

static void
group_add(struct iogroup *g, const struct pme_io *io)
{
	g->calls++;
	if (io->ret < 0)
		g->errors++;
	g->bytes += io_bytes(io);
	g->total += io->duration;
	if (io->duration > g->max)
		g->max = io->duration;
}

static void
slow_free(struct ioslow *s)
{
	int k;

	free(s->file);
	free(s->site);
	for (k = 0; k < s->nfr; k++)
		free(s->fr[k].path);
}

/* The stack of io, where its frames were then, into s. */
static int
slow_stack(struct iorep *r, const struct pme_io *io, struct ioslow *s)
{
	const struct pme_mapping *maps;
	uint64_t a, v;
	uint32_t k, mi;

	s->nfr = 0;
	pme_addrmap_mappings(r->am, &maps);
	for (k = 0; k <= io->nframes && s->nfr < IO_SLOW_FRAMES; k++) {
		/* A return address less one: its call. */
		a = k == 0 ? io->pc : io->frames[k - 1] - 1;
		mi = pme_addrmap_lookup(r->am, io->pid, io->start, a, &v);
		s->fr[s->nfr].v = mi == PME_NONE ? a : v;
		s->fr[s->nfr].path = NULL;
		if (mi != PME_NONE &&
		    (s->fr[s->nfr].path = strdup(maps[mi].path)) == NULL)
			return -1;
		s->nfr++;
	}
	return 0;
}

/* Keeps io among the slowest calls. */
static int
slow_add(struct iorep *r, const struct pme_io *io, const char *file,
    const char *site)
{
	struct ioslow *s;
	size_t i = r->nslow;

	if (i == IO_SLOWEST && io->duration <= r->slow[i - 1].duration)
		return 0;
	if (i == IO_SLOWEST)
		slow_free(&r->slow[--i]);
	else
		r->nslow++;
	for (; i > 0 && r->slow[i - 1].duration < io->duration; i--)
		r->slow[i] = r->slow[i - 1];
	s = &r->slow[i];
	s->duration = io->duration;
	s->at = io->start >= r->start ? io->start - r->start : 0;
	s->tid = io->tid;
	s->call = io->call;
	s->ret = io->ret;
	s->bytes = io_bytes(io);
	s->file = strdup(file);
	s->site = strdup(site);
	s->nfr = 0;
	return s->file == NULL || s->site == NULL ||
	    slow_stack(r, io, s) == -1 ? -1 : 0;
}

static int
io_record(void *arg, const struct pme_io *io)
{
	struct iorep *r = arg;
	char file[4200], site[3200];
	struct iogroup *g[3];

	if (io->path != NULL)
		pme_escape(file, sizeof(file), io->path);
	else
		snprintf(file, sizeof(file), "fd %d", io->fd);
	site_of(r, io, site, sizeof(site));
	if ((g[0] = group_of(r, 0, pme_io_name(io->call), io->call)) ==
	    NULL ||
	    (g[1] = group_of(r, 1, file, 0)) == NULL ||
	    (g[2] = group_of(r, 2, site, io->call)) == NULL ||
	    slow_add(r, io, file, site) == -1) {
		pme_setnomem(r->err);
		return 1;
	}
	group_add(g[0], io);
	group_add(g[1], io);
	group_add(g[2], io);
	r->calls++;
	r->total += io->duration;
	return 0;
}

static int
by_total(const void *a, const void *b)
{
	const struct iogroup *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->key, y->key);
}

static void
print_groups(struct iorep *r, int t, const char *title, FILE *fp)
{
	struct iogroup *g;
	size_t i;

	qsort(r->g[t], r->ng[t], sizeof(*r->g[t]), by_total);
	fprintf(fp, "\n%s\n%10s %7s %12s %12s %10s %10s  %s%s\n", title,
	    "CALLS", "ERRORS", "BYTES", "TOTAL ms", "MEAN us", "MAX us",
	    t == 2 ? "CALL      " : "", t == 0 ? "CALL" : t == 1 ? "FILE" :
	    "SITE");
	for (i = 0; i < r->ng[t]; i++) {
		g = &r->g[t][i];
		fprintf(fp, "%10" PRIu64 " %7" PRIu64 " %12" PRIu64
		    " %12.3f %10.1f %10.1f  ", g->calls, g->errors, g->bytes,
		    (double)g->total / 1e6, (double)g->total / 1e3 /
		    (double)g->calls, (double)g->max / 1e3);
		if (t == 2)
			fprintf(fp, "%-9s ", pme_io_name(g->call));
		fprintf(fp, "%s\n", g->key);
	}
}

/* A CSV row: table, call, file, site, then the numbers. */
static void
csv_row(FILE *fp, const char *table, uint32_t call, const char *file,
    const char *site, uint64_t calls, uint64_t errors, uint64_t bytes,
    uint64_t total, uint64_t max)
{
	fprintf(fp, "%s,%s,", table, call != 0 ? pme_io_name(call) : "");
	pme_csv_field(fp, file);
	fputc(',', fp);
	pme_csv_field(fp, site);
	fprintf(fp, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
	    PRIu64 "\n", calls, errors, bytes, total, max);
}

/* The tables as one CSV (-T csv), times in ns. */
static void
print_csv(struct iorep *r, FILE *fp)
{
	static const char *const tables[3] = { "call", "file", "site" };
	const struct iogroup *g;
	const struct ioslow *s;
	size_t i;
	int t;

	fprintf(fp, "table,call,file,site,calls,errors,bytes,total_ns,"
	    "max_ns\n");
	for (t = 0; t < 3; t++) {
		qsort(r->g[t], r->ng[t], sizeof(*r->g[t]), by_total);
		for (i = 0; i < r->ng[t]; i++) {
			g = &r->g[t][i];
			csv_row(fp, tables[t], t == 0 ? r->g[t][i].call : t ==
			    2 ? g->call : 0, t == 1 ? g->key : "", t == 2 ?
			    g->key : "", g->calls, g->errors, g->bytes,
			    g->total, g->max);
		}
	}
	for (i = 0; i < r->nslow; i++) {
		s = &r->slow[i];
		csv_row(fp, "slowest", s->call, s->file, s->site, 1,
		    s->ret < 0, s->bytes, s->duration, s->duration);
	}
}

/* A slowest call's stack, a frame a line, indented. */
static void
print_stack(struct iorep *r, const struct ioslow *s, FILE *fp)
{
	struct pme_mapping m;
	char name[1024], esc[3200];
	int k;

	memset(&m, 0, sizeof(m));
	for (k = 0; k < s->nfr; k++) {
		if (s->fr[k].path == NULL)
			snprintf(name, sizeof(name), "0x%" PRIx64, s->fr[k].v);
		else {
			m.path = s->fr[k].path;
			name_code(r, &m, s->fr[k].v, name, sizeof(name));
		}
		pme_escape(esc, sizeof(esc), name);
		fprintf(fp, "%58s%s\n", "", esc);
	}
}

static void
print_report(struct iorep *r, FILE *fp)
{
	struct ioslow *s;
	size_t i;

	fprintf(fp, "I/O calls: %" PRIu64 ", %.3f ms in all\n", r->calls,
	    (double)r->total / 1e6);
	print_groups(r, 0, "By call", fp);
	print_groups(r, 1, "By file", fp);
	print_groups(r, 2, "By call site", fp);
	fprintf(fp, "\nSlowest calls, each with its stack\n%10s %10s %8s "
	    "%-9s %10s  %s\n", "us", "AT s", "TID", "CALL", "RETURNED",
	    "FILE, SITE");
	for (i = 0; i < r->nslow; i++) {
		s = &r->slow[i];
		fprintf(fp, "%10.1f %10.6f %8u %-9s %10" PRId64 "  %s, %s\n",
		    (double)s->duration / 1e3, (double)s->at / 1e9, s->tid,
		    pme_io_name(s->call), s->ret, s->file, s->site);
		print_stack(r, s, fp);
	}
}

static void
iorep_free(struct iorep *r)
{
	size_t i;
	int t;

	for (t = 0; t < 3; t++) {
		for (i = 0; i < r->ng[t]; i++)
			free(r->g[t][i].key);
		free(r->g[t]);
	}
	for (i = 0; i < r->nslow; i++)
		slow_free(&r->slow[i]);
	for (i = 0; i < r->nim; i++) {
		free(r->im[i].path);
		free(r->im[i].r);
		pme_image_close(r->im[i].img);
	}
	free(r->im);
	pme_addrmap_free(r->am);
}

int
io_write(const char *prog, const char *const *samples, size_t n, int csv,
    FILE *fp, struct pme_error *err)
{
	struct pme_sample_summary sum;
	static const struct pme_sample_visitor v = {
		io_header, io_mapping, io_thread, NULL, NULL
	};
	struct iorep r;
	size_t i;
	int rc = 0;

	memset(&r, 0, sizeof(r));
	r.err = err;
	for (i = 0; i < n && rc == 0; i++) {
		memset(&sum, 0, sizeof(sum));
		if ((rc = pme_samplefile_read_io(samples[i], &v, io_record, &r,
		    &sum, err)) == 0)
			histo_warn_cut(prog, samples[i], &sum, "the report "
			    "shows the calls read");
	}
	if (rc == 0 && r.calls == 0)
		rc = pme_seterr(err, PME_EINVAL, "'%s': no I/O calls recorded "
		    "(pmeclock -e io records them)", samples[0]);
	if (rc == 0 && csv)
		print_csv(&r, fp);
	else if (rc == 0)
		print_report(&r, fp);
	iorep_free(&r);
	return rc;
}
