/*
 * filter.c - which samples a report takes (pmehisto --time, --tid, --pid,
 * --comm, --cpu, --dso, --focus, --ignore, --hide): a sample is kept
 * when it passes every filter given, and --hide and --focus rewrite its
 * stack.
 * Applied as the sample file streams (reduce.c, caliper.c), each run of a
 * joined file by itself: its own start for --time, its own threads'
 * names for --comm.  Nothing is buffered: a run's state is the set of
 * its threads now named as --comm says.  --time in percent of the run
 * needs each run's length before its samples: filter_file() reads the
 * file's headers and closing records first, so the file is read twice.
 * The stack filters name each frame from the symbol table of its
 * mapping's file (pme_image_open_symbols(), each file once), as pprof
 * matches its -focus, -ignore and -hide: a frame matches when its
 * routine's name or its file's path does; a routine's and a file's
 * matches are remembered.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histo.h"
#include "pme_symbols.h"

/* A frame's bits: which of re[] its routine or file matches, and
 * whether its file is one of --dso's. */
#define FB_DSO		(1u << FRE_N)
#define FB_DONE		0x80u		/* a routine's bits computed */

struct fsym {			/* a routine's range, for the search */
	uint64_t	 start, end;
	uint32_t	 r;
};

struct fimage {			/* a mapped file, by path */
	char		*path;
	struct pme_image *img;	/* NULL: no symbols (the kernel, [vdso],
				   a file not found) */
	const struct pme_symroutine *rt;
	struct fsym	*sym;	/* sorted by start */
	size_t		 nsym;
	uint8_t		*bits;	/* per routine */
	unsigned	 modbits;	/* the path's */
};

/* The bits of recent frames: the same address of the same process has
 * the same bits while no mapping or thread record comes between. */
#define FCACHE		4096		/* entries, a power of two */

struct fcent {
	uint64_t	 addr;
	uint32_t	 pid, gen;	/* gen 0: empty */
	unsigned	 bits;
};

struct fstacks {
	struct fcent	*fc;
	uint32_t	 gen;		/* of the records */
	uint64_t	 rectime;	/* the latest record's time */
	struct fimage	*img;
	size_t		 nimg;
	uint32_t	*mimg;	/* per mapping of the run: img index + 1 */
	size_t		 nmimg;
	uint64_t	*pool;	/* the rewritten samples' frames */
	size_t		 cappool;
	uint8_t		*fb;	/* one sample's frames' bits */
	size_t		 capfb;
};

void
filter_free(struct filter *f)
{
	size_t i;

	free(f->tids.v);
	free(f->pids.v);
	free(f->cpus.v);
	free(f->comm);
	free(f->pct);
	for (i = 0; i < f->ndsos; i++)
		free(f->dsos[i]);
	free(f->dsos);
	for (i = 0; i < FRE_N; i++)
		if (f->hasre[i])
			regfree(&f->re[i]);
	free(f->resrc[0]);
	free(f->resrc[1]);
	free(f->resrc[2]);
	free(f->text);
	memset(f, 0, sizeof(*f));
}

/* "NAME[,NAME...]" appended to --dso's names; -1 when a name is empty. */
static int
parse_dsos(struct filter *f, const char *arg)
{
	const char *p = arg, *e;
	char **v;

	for (;;) {
		e = strchr(p, ',');
		if (e == NULL)
			e = p + strlen(p);
		if (e == p || (v = realloc(f->dsos, (f->ndsos + 1) *
		    sizeof(*v))) == NULL)
			return -1;
		f->dsos = v;
		if ((v[f->ndsos] = strndup(p, (size_t)(e - p))) == NULL)
			return -1;
		f->ndsos++;
		if (*e == '\0')
			return 0;
		p = e + 1;
	}
}

/* A regular expression of --focus, --ignore or --hide: given twice,
 * either matches ("(a)|(b)"); -1 when it is not one. */
static int
parse_re(struct filter *f, int i, const char *arg)
{
	size_t len = strlen(arg) + (f->resrc[i] ? strlen(f->resrc[i]) + 6 : 1);
	regex_t re;
	char *src;

	if (arg[0] == '\0' || (src = malloc(len)) == NULL)
		return -1;
	if (f->resrc[i] != NULL)
		snprintf(src, len, "(%s)|(%s)", f->resrc[i], arg);
	else
		memcpy(src, arg, len);
	if (regcomp(&re, src, REG_EXTENDED | REG_NOSUB) != 0) {
		free(src);
		return -1;
	}
	if (f->hasre[i])
		regfree(&f->re[i]);
	free(f->resrc[i]);
	f->resrc[i] = src;
	f->re[i] = re;
	f->hasre[i] = 1;
	return 0;
}

/* "N[-M][,N[-M]...]" into l; -1 when it is not one. */
static int
parse_list(struct idlist *l, const char *arg)
{
	const char *p = arg;
	unsigned long long lo, hi;
	struct idrange *v;
	char *end;

	for (;;) {
		if (*p < '0' || *p > '9')
			return -1;
		errno = 0;
		lo = hi = strtoull(p, &end, 10);
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				return -1;
			hi = strtoull(p, &end, 10);
		}
		if (errno != 0 || lo > UINT32_MAX || hi > UINT32_MAX ||
		    hi < lo)
			return -1;
		if ((v = realloc(l->v, (l->n + 1) * sizeof(*v))) == NULL)
			return -1;
		l->v = v;
		v[l->n].lo = (uint32_t)lo;
		v[l->n++].hi = (uint32_t)hi;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return -1;
		p = end + 1;
	}
}

/* Seconds "S" (decimal, not negative) into ns; -1 when not. */
static int
parse_seconds(const char *s, size_t len, uint64_t *ns)
{
	char buf[64], *end;
	double d;

	if (len == 0 || len >= sizeof(buf) || s[0] == '-' || s[0] == '+')
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	d = strtod(buf, &end);
	if (errno != 0 || *end != '\0' || !(d >= 0) || d > 1e9)
		return -1;
	*ns = (uint64_t)(d * 1e9 + 0.5);
	return 0;
}

/* A percentage "P%" at *p, moving *p past it; -1 when not one. */
static int
parse_pct(const char **p, double *v)
{
	char *end;

	if (**p < '0' || **p > '9')
		return -1;
	errno = 0;
	*v = strtod(*p, &end);
	if (errno != 0 || *end != '%' || !(*v >= 0) || *v > 100)
		return -1;
	*p = end + 1;
	return 0;
}

/* One window "P%/N" (the Nth slice of P% of the run) or "A%-B%" at *p
 * into r, as perf report's --time has them; -1 when not one. */
static int
parse_window(const char **p, struct pctrange *r)
{
	unsigned long n;
	char *end;
	double v;

	if (parse_pct(p, &v) == -1)
		return -1;
	if (**p == '/') {
		if ((*p)[1] < '1' || (*p)[1] > '9')
			return -1;
		errno = 0;
		n = strtoul(*p + 1, &end, 10);
		if (errno != 0 || n > 100 || v == 0 || v * n > 100 + 1e-9)
			return -1;
		*p = end;
		r->lo = v * (n - 1);
		r->hi = v * n;
		return 0;
	}
	if (**p != '-')
		return -1;
	(*p)++;
	r->lo = v;
	if (parse_pct(p, &r->hi) == -1 || r->hi <= r->lo)
		return -1;
	return 0;
}

/* Windows in percent of the run, comma apart; -1 when not. */
static int
parse_percent(struct filter *f, const char *arg)
{
	struct pctrange *v;
	const char *p = arg;

	for (;;) {
		if ((v = realloc(f->pct, (f->npct + 1) * sizeof(*v))) == NULL)
			return -1;
		f->pct = v;
		if (parse_window(&p, &v[f->npct]) == -1)
			return -1;
		f->npct++;
		if (*p == '\0')
			break;
		if (*p++ != ',')
			return -1;
	}
	f->time = 1;
	return 0;
}

/* "START,END", either side may be empty, or windows in percent; -1 when
 * not. */
static int
parse_time(struct filter *f, const char *arg)
{
	const char *comma = strchr(arg, ',');

	if (strchr(arg, '%') != NULL)
		return parse_percent(f, arg);

	if (comma == NULL || strchr(comma + 1, ',') != NULL)
		return -1;
	f->t0 = 0;
	f->t1 = UINT64_MAX;
	if (comma > arg && parse_seconds(arg, (size_t)(comma - arg),
	    &f->t0) == -1)
		return -1;
	if (comma[1] != '\0' && parse_seconds(comma + 1, strlen(comma + 1),
	    &f->t1) == -1)
		return -1;
	if (f->t1 <= f->t0)
		return -1;
	f->time = 1;
	return 0;
}

const char *const filter_names[FILTER_HIDE + 1] = { "time", "tid", "pid",
    "comm", "cpu", "dso", "focus", "ignore", "hide" };

int
filter_parse(struct filter *f, int which, const char *arg)
{
	size_t len;
	char *t;
	int rc;

	switch (which) {
	case FILTER_TIME:
		rc = parse_time(f, arg);
		break;
	case FILTER_TID:
		rc = parse_list(&f->tids, arg);
		break;
	case FILTER_PID:
		rc = parse_list(&f->pids, arg);
		break;
	case FILTER_COMM:
		free(f->comm);
		rc = arg[0] == '\0' || (f->comm = strdup(arg)) == NULL ? -1 : 0;
		break;
	case FILTER_CPU:
		rc = parse_list(&f->cpus, arg);
		break;
	case FILTER_DSO:
		rc = parse_dsos(f, arg);
		break;
	case FILTER_FOCUS:
	case FILTER_IGNORE:
	case FILTER_HIDE:
		rc = parse_re(f, which - FILTER_FOCUS + FRE_FOCUS, arg);
		break;
	default:
		return -1;
	}
	if (rc == -1)
		return -1;
	len = f->text ? strlen(f->text) : 0;
	if ((t = realloc(f->text, len + strlen(arg) + 16)) == NULL)
		return -1;
	snprintf(t + len, strlen(arg) + 16, "%s--%s %s", len ? " " : "",
	    filter_names[which], arg);
	f->text = t;
	f->on = 1;
	f->stacks |= which >= FILTER_DSO;
	return 0;
}

static int
in_list(const struct idlist *l, uint32_t id)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (id >= l->v[i].lo && id <= l->v[i].hi)
			return 1;
	return 0;
}

/* The pass of filter_file(): each run's start, and its length once its
 * closing record (or, with samples, its last sample) says it. */
struct lens {
	struct filter_run *fr;
	uint64_t	 start, mono, last;
	int		 open;		/* a run without its closing record */
	int		 unclosed;	/* a run ended so */
};

static int
lens_add(struct lens *l, uint64_t len)
{
	struct filter_run *fr = l->fr;
	uint64_t *v;

	if (fr->nlens == fr->caplens) {
		fr->caplens = fr->caplens ? 2 * fr->caplens : 4;
		if ((v = realloc(fr->lens, fr->caplens * sizeof(*v))) == NULL)
			return -1;
		fr->lens = v;
	}
	fr->lens[fr->nlens++] = len;
	return 0;
}

/* A run not closed: as long as its last sample (0 when not read). */
static int
lens_cut(struct lens *l)
{
	if (!l->open)
		return 0;
	l->open = 0;
	l->unclosed = 1;
	return lens_add(l, l->last > l->mono ? l->last - l->mono : 0);
}

static int
lens_header(void *arg, const struct pme_sample_header *h)
{
	struct lens *l = arg;

	if (lens_cut(l) == -1)
		return -1;
	l->start = h->start;
	l->mono = l->last = h->start_mono;
	l->open = 1;
	return 0;
}

static int
lens_samples(void *arg, const struct pme_sample *s, size_t n)
{
	struct lens *l = arg;
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i].time > l->last)
			l->last = s[i].time;
	return 0;
}

static int
lens_close(void *arg, const struct pme_sample_close *c)
{
	struct lens *l = arg;

	l->open = 0;
	return lens_add(l, c->end > l->start ? c->end - l->start : 0);
}

int
filter_file(const struct filter *f, struct filter_run *fr, const char *path,
    struct pme_error *err)
{
	/* The closing records say the lengths: the sample chunks are
	 * passed over unread (a visitor without samples and no summary),
	 * and read only when a run has none, to its last sample. */
	static const struct pme_sample_visitor quick = {
		lens_header, NULL, NULL, NULL, lens_close
	}, v = {
		lens_header, NULL, NULL, lens_samples, lens_close
	};
	struct lens l;

	fr->run = fr->nlens = 0;
	if (f == NULL || f->npct == 0)
		return 0;
	if (strcmp(path, "-") == 0)
		return histo_err(err, PME_EINVAL, "standard input: --time in "
		    "percent of the run reads the runs' lengths first: give "
		    "a sample file");
	memset(&l, 0, sizeof(l));
	l.fr = fr;
	if (pme_samplefile_read(path, &quick, &l, NULL, err) == -1 ||
	    lens_cut(&l) == -1)
		return -1;
	if (!l.unclosed)
		return 0;
	fr->nlens = 0;
	memset(&l, 0, sizeof(l));
	l.fr = fr;
	if (pme_samplefile_read(path, &v, &l, NULL, err) == -1 ||
	    lens_cut(&l) == -1)
		return -1;
	return 0;
}

void
filter_run_header(struct filter_run *fr, const struct pme_sample_header *h)
{
	fr->start = h->start_mono;
	fr->ncomm = 0;
	fr->len = fr->run < fr->nlens ? fr->lens[fr->run] : 0;
	fr->run++;
	/* The run's mappings are its own. */
	if (fr->st != NULL)
		fr->st->nmimg = fr->st->rectime = 0;
	filter_run_record(fr, 0);
}

void
filter_run_record(struct filter_run *fr, uint64_t time)
{
	struct fstacks *st = fr->st;

	if (st == NULL)
		return;
	st->gen = st->gen % 0x7fffffffu + 1;
	if (st->gen == 1)	/* wrapped: every entry is stale */
		memset(st->fc, 0, FCACHE * sizeof(*st->fc));
	st->rectime = time > st->rectime ? time : st->rectime;
}

static int
comm_has(const struct filter_run *fr, uint32_t tid)
{
	size_t i;

	for (i = 0; i < fr->ncomm; i++)
		if (fr->comm[i] == tid)
			return 1;
	return 0;
}

static void
comm_del(struct filter_run *fr, uint32_t tid)
{
	size_t i;

	for (i = 0; i < fr->ncomm; i++)
		if (fr->comm[i] == tid)
			fr->comm[i--] = fr->comm[--fr->ncomm];
}

static int
comm_add(struct filter_run *fr, uint32_t tid)
{
	uint32_t *v;

	if (comm_has(fr, tid))
		return 0;
	if (fr->ncomm == fr->capcomm) {
		fr->capcomm = fr->capcomm ? fr->capcomm * 2 : 16;
		if ((v = realloc(fr->comm, fr->capcomm * sizeof(*v))) == NULL)
			return -1;
		fr->comm = v;
	}
	fr->comm[fr->ncomm++] = tid;
	return 0;
}

int
filter_run_thread(const struct filter *f, struct filter_run *fr,
    const struct pme_thread *th)
{
	filter_run_record(fr, th->time);
	if (f->comm == NULL)
		return 0;
	switch (th->kind) {
	case PME_THREAD_COMM:
	case PME_THREAD_EXEC:
		if (th->name == NULL)
			return 0;
		if (strcmp(th->name, f->comm) == 0)
			return comm_add(fr, th->tid);
		comm_del(fr, th->tid);
		return 0;
	case PME_THREAD_FORK:
		/* A new thread is named as the one that made it. */
		if (comm_has(fr, th->ptid))
			return comm_add(fr, th->tid);
		comm_del(fr, th->tid);
		return 0;
	}
	return 0;
}

void
filter_run_free(struct filter_run *fr)
{
	struct fstacks *st = fr->st;
	size_t i;

	for (i = 0; st != NULL && i < st->nimg; i++) {
		free(st->img[i].path);
		pme_image_close(st->img[i].img);
		free(st->img[i].sym);
		free(st->img[i].bits);
	}
	if (st != NULL) {
		free(st->img);
		free(st->mimg);
		free(st->pool);
		free(st->fb);
		free(st->fc);
		free(st);
	}
	free(fr->comm);
	free(fr->lens);
	memset(fr, 0, sizeof(*fr));
}

/* Whether t (ns from the run's start) is in a window of --time: in
 * percent, from floor(len * lo / 100) (included) to floor(len * hi / 100)
 * (not included; a window to 100% to the run's end and after). */
static int
in_time(const struct filter *f, const struct filter_run *fr, uint64_t t)
{
	const struct pctrange *r;
	double len = (double)fr->len;

	if (f->npct == 0)
		return t >= f->t0 && t < f->t1;
	for (r = f->pct; r < f->pct + f->npct; r++)
		if (t >= (uint64_t)(len * r->lo / 100) && (r->hi >= 100 ||
		    t < (uint64_t)(len * r->hi / 100)))
			return 1;
	return 0;
}

int
filter_keep(const struct filter *f, const struct filter_run *fr,
    const struct pme_sample *s)
{
	if (f->time && !in_time(f, fr, s->time > fr->start ?
	    s->time - fr->start : 0))
		return 0;
	if (f->tids.n > 0 && !in_list(&f->tids, s->tid))
		return 0;
	if (f->pids.n > 0 && !in_list(&f->pids, s->pid))
		return 0;
	if (f->cpus.n > 0 && (s->cpu == UINT32_MAX ||
	    !in_list(&f->cpus, s->cpu)))
		return 0;
	if (f->comm != NULL && !comm_has(fr, s->tid))
		return 0;
	return 1;
}

/* ------------------------------------------------------ stack filters */

static int
cmp_fsym(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static unsigned
re_bits(const struct filter *f, const char *text)
{
	unsigned bits = 0;
	int i;

	for (i = 0; i < FRE_N; i++)
		if (f->hasre[i] && regexec(&f->re[i], text, 0, NULL, 0) == 0)
			bits |= 1u << i;
	return bits;
}

static int
is_dso(const struct filter *f, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base != NULL ? base + 1 : path;
	for (i = 0; i < f->ndsos; i++)
		if (strcmp(f->dsos[i], path) == 0 ||
		    strcmp(f->dsos[i], base) == 0)
			return 1;
	return 0;
}

/* The routines' ranges of im's symbol table, sorted; -1 out of memory. */
static int
image_syms(struct fimage *im)
{
	const struct pme_symroutine *rt;
	size_t n, i, j, k = 0;

	n = pme_image_routines(im->img, &rt);
	im->rt = rt;
	for (i = j = 0; i < n; i++)
		j += rt[i].nranges;
	if ((im->sym = calloc(j + 1, sizeof(*im->sym))) == NULL ||
	    (im->bits = calloc(n + 1, 1)) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		for (j = 0; j < rt[i].nranges; j++) {
			im->sym[k].start = rt[i].ranges[j].start;
			im->sym[k].end = rt[i].ranges[j].end;
			im->sym[k++].r = (uint32_t)i;
		}
	qsort(im->sym, k, sizeof(*im->sym), cmp_fsym);
	im->nsym = k;
	return 0;
}

/* The image of path, opened the first time; NULL out of memory. */
static struct fimage *
image_get(const struct filter *f, struct fstacks *st, const char *path,
    int kernel)
{
	struct pme_error err;
	struct fimage *v, *im;
	size_t i;

	for (i = 0; i < st->nimg; i++)
		if (strcmp(st->img[i].path, path) == 0)
			return &st->img[i];
	if ((v = realloc(st->img, (st->nimg + 1) * sizeof(*v))) == NULL)
		return NULL;
	st->img = v;
	im = &v[st->nimg];
	memset(im, 0, sizeof(*im));
	if ((im->path = strdup(path)) == NULL)
		return NULL;
	st->nimg++;
	im->modbits = re_bits(f, path) | (is_dso(f, path) ? FB_DSO : 0);
	/* Routines are read only for a regular expression to match them:
	 * --dso alone takes the file. */
	if (kernel || path[0] == '[' || path[0] == '\0' ||
	    !(f->hasre[FRE_FOCUS] || f->hasre[FRE_IGNORE] ||
	    f->hasre[FRE_HIDE]))
		return im;
	if ((im->img = pme_image_open_symbols(path, NULL, &err)) != NULL &&
	    image_syms(im) == -1)
		return NULL;
	return im;
}

/* The bits of routine-or-file at link-time address va of im. */
static unsigned
image_bits(const struct filter *f, struct fimage *im, uint64_t va)
{
	size_t lo = 0, hi = im->nsym, mid;
	const struct fsym *y;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (im->sym[mid].start <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || va >= (y = &im->sym[lo - 1])->end)
		return im->modbits;
	if (!(im->bits[y->r] & FB_DONE))
		im->bits[y->r] = (uint8_t)(FB_DONE |
		    re_bits(f, im->rt[y->r].name));
	return im->modbits | (im->bits[y->r] & ~FB_DONE);
}

/* The bits of addr in process pid at time; ~0u out of memory. */
static unsigned
frame_bits(const struct filter *f, struct fstacks *st, struct pme_addrmap *am,
    const struct pme_sample *s, uint64_t addr, int kernel)
{
	const struct pme_mapping *maps;
	struct fimage *im;
	uint64_t va;
	uint32_t mi, *v;
	size_t n;

	mi = pme_addrmap_lookup(am, s->pid, s->time, addr, &va);
	if (mi == PME_NONE) {
		if (!kernel)
			return 0;
		im = image_get(f, st, "[kernel]", 1);
		return im == NULL ? ~0u : im->modbits;
	}
	if (mi >= st->nmimg) {
		n = pme_addrmap_mappings(am, &maps);
		if ((v = realloc(st->mimg, n * sizeof(*v))) == NULL)
			return ~0u;
		memset(v + st->nmimg, 0, (n - st->nmimg) * sizeof(*v));
		st->mimg = v;
		st->nmimg = n;
	}
	if (st->mimg[mi] == 0) {
		pme_addrmap_mappings(am, &maps);
		if ((im = image_get(f, st, maps[mi].path ? maps[mi].path : "",
		    maps[mi].flags & PME_MAP_KERNEL)) == NULL)
			return ~0u;
		st->mimg[mi] = (uint32_t)(im - st->img) + 1;
	}
	im = &st->img[st->mimg[mi] - 1];
	return im->img != NULL ? image_bits(f, im, va) : im->modbits;
}

/* frame_bits() through the cache, for samples not older than the last
 * record (whose mappings the cache's entries may predate). */
static unsigned
cached_bits(const struct filter *f, struct fstacks *st,
    struct pme_addrmap *am, const struct pme_sample *s, uint64_t addr,
    int kernel)
{
	struct fcent *e;
	unsigned b;

	if (s->time < st->rectime || kernel)
		return frame_bits(f, st, am, s, addr, kernel);
	e = &st->fc[((addr ^ addr >> 12 ^ (uint64_t)s->pid * 0x9e3779b1u) *
	    0x9e3779b97f4a7c15ull) >> 52 & (FCACHE - 1)];
	if (e->gen == st->gen && e->addr == addr && e->pid == s->pid)
		return e->bits;
	if ((b = frame_bits(f, st, am, s, addr, kernel)) == ~0u)
		return b;
	e->addr = addr;
	e->pid = s->pid;
	e->gen = st->gen;
	e->bits = b;
	return b;
}

/*
 * Sample s through the stack filters into *out, its frames at pool:
 * 1 kept, 0 not, -1 out of memory.  Frame 0 is the pc, frame j the
 * caller at frames[j - 1] (its call the byte before).  --dso takes the
 * pc's file; --ignore drops a sample with a frame it matches; --focus
 * keeps one with a frame it matches and cuts the stack above the
 * outermost such frame; --hide then takes out the frames it matches (a
 * sample with none left is dropped, as pprof drops it), the first left
 * becoming the pc (its call's address).
 */
static int
stack_one(const struct filter *f, struct fstacks *st, struct pme_addrmap *am,
    const struct pme_sample *s, struct pme_sample *out, uint64_t *pool)
{
	size_t n = (size_t)s->nframes + 1, j, top, first, k = 0;
	unsigned b, any = 0;

	if (n > st->capfb) {
		free(st->fb);
		if ((st->fb = malloc(n)) == NULL)
			return -1;
		st->capfb = n;
	}
	for (j = 0; j < n; j++) {
		b = cached_bits(f, st, am, s, j == 0 ? s->pc :
		    s->frames[j - 1] - 1, j == 0 && (s->flags &
		    PME_SAMPLE_KERNEL));
		if (b == ~0u)
			return -1;
		st->fb[j] = (uint8_t)b;
		any |= b;
	}
	if ((f->ndsos > 0 && !(st->fb[0] & FB_DSO)) ||
	    (any & 1u << FRE_IGNORE) ||
	    (f->hasre[FRE_FOCUS] && !(any & 1u << FRE_FOCUS)))
		return 0;
	top = n - 1;
	if (f->hasre[FRE_FOCUS])
		while (!(st->fb[top] & 1u << FRE_FOCUS))
			top--;
	*out = *s;
	if (top == n - 1 && !(any & 1u << FRE_HIDE))
		return 1;
	for (first = 0; first <= top && (st->fb[first] & 1u << FRE_HIDE);
	    first++)
		continue;
	if (first > top)
		return 0;
	if (first > 0) {
		out->pc = s->frames[first - 1] - 1;
		out->flags &= ~PME_SAMPLE_KERNEL;
	}
	for (j = first + 1; j <= top; j++)
		if (!(st->fb[j] & 1u << FRE_HIDE))
			pool[k++] = s->frames[j - 1];
	if (top < n - 1)
		out->flags &= ~PME_SAMPLE_TRUNCATED;
	out->frames = pool;
	out->nframes = (uint32_t)k;
	return 1;
}

int
filter_batch(struct filter *f, struct filter_run *fr, struct pme_addrmap *am,
    const struct pme_sample *s, size_t n, struct pme_sample *out,
    size_t *kept)
{
	struct fstacks *st = fr->st;
	size_t i, k = 0, need = 0;
	uint64_t *v;
	int rc;

	if (f->stacks && st == NULL) {
		if ((st = fr->st = calloc(1, sizeof(*st))) == NULL ||
		    (st->fc = calloc(FCACHE, sizeof(*st->fc))) == NULL)
			return -1;
		st->gen = 1;
	}
	for (i = 0; f->stacks && i < n; i++)
		need += s[i].nframes;
	if (f->stacks && need > st->cappool) {
		if ((v = realloc(st->pool, need * sizeof(*v))) == NULL)
			return -1;
		st->pool = v;
		st->cappool = need;
	}
	for (i = need = 0; i < n; i++) {
		if (!filter_keep(f, fr, &s[i]))
			continue;
		if (!f->stacks) {
			out[k++] = s[i];
			continue;
		}
		if ((rc = stack_one(f, st, am, &s[i], &out[k], st->pool +
		    need)) == -1)
			return -1;
		if (rc == 1)
			need += out[k++].nframes;
	}
	*kept = k;
	return 0;
}
