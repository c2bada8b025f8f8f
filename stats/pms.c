/*
 * pms.c - a sample file (.PMS) as a source of state events: a row per
 * thread sampled, coloured by the routine (or module) each sample fell
 * in, named through the bucket file as pmehisto names them.  A sample
 * stands for the time of its weight before it: the row shows its routine
 * over [time - weight, time) and nothing where no sample was taken.
 *
 * A file of several runs (pmemerge(1)) has a row per thread of each run:
 * each run's threads, processes and mappings are its own, and its times
 * are put on the first run's clock by the wall-clock times the headers
 * give of their starts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pme_sample.h"
#include "prog.h"
#include "stats.h"
#include "util.h"
#include "../histo/histo.h"	/* the sample filters */

#define NOTHING	(-1)		/* a value no legend entry holds */

struct name {
	char		*s;
	uint64_t	 n;		/* samples */
	size_t		 old;		/* index before sorting */
};

struct row {
	uint32_t	 run, tid;	/* run: 1 the first */
};

struct pms {
	struct src	*src;
	struct pme_addrmap *am;
	uint32_t	 runs;		/* headers read */
	struct pme_vec	 offs;		/* int64_t per run: what puts its
					   times on the first run's clock */
	uint64_t	 start0, mono0;	/* the first run's header's */
	struct pme_bucketfile *bf;
	size_t		 nmod;
	uint32_t	*modof;		/* per mapping: module, or PME_NONE */
	size_t		 nmodof;
	int		 bymodule;
	struct pme_vec	 names;		/* struct name */
	struct pme_vec	 tids;		/* struct row, row order */
	struct pme_vec	 tnames;	/* char *, by row */
	struct pme_vec	 ev;		/* struct pme_ev, value: name index */
	/* The name index of each bucket, each mapping (outside buckets)
	 * and the kernel's and unmapped samples, once found: -1 before. */
	int		*bname, *mname;
	size_t		 nbname, nmname;
	int		 kname, uname;
	struct filter	*filter;	/* samples kept, or NULL: all */
	struct filter_run fr;
	struct pme_sample *sel;		/* a batch's kept samples */
	size_t		 capsel;
	struct pme_error err;
};

/* The index of name s, added when new; -1 when out of memory. */
static int
name_index(struct pms *p, const char *s)
{
	struct name *nm;

	for (size_t i = 0; i < p->names.n; i++)
		if (strcmp(PME_VEC_AT(&p->names, struct name, i).s, s) == 0)
			return (int)i;
	if ((nm = pme_vec_push(&p->names)) == NULL ||
	    (nm->s = strdup(s)) == NULL)
		return -1;
	return (int)(p->names.n - 1);
}

/* Slot i of a cache of name indexes, grown with -1; NULL when out of
 * memory. */
static int *
slot(int **v, size_t *n, size_t i)
{
	int *nv;

	if (i >= *n) {
		size_t k = i + 64;

		if ((nv = realloc(*v, k * sizeof(*nv))) == NULL)
			return NULL;
		for (size_t j = *n; j < k; j++)
			nv[j] = -1;
		*v = nv;
		*n = k;
	}
	return &(*v)[i];
}

static long
row_of(struct pms *p, uint32_t tid)
{
	struct row *t;
	char **nm;

	for (size_t i = p->tids.n; i-- > 0;) {
		t = &PME_VEC_AT(&p->tids, struct row, i);
		if (t->run != p->runs)
			break;		/* rows of a run are together */
		if (t->tid == tid)
			return (long)i;
	}
	if ((t = pme_vec_push(&p->tids)) == NULL ||
	    (nm = pme_vec_push(&p->tnames)) == NULL)
		return -1;
	t->run = p->runs;
	t->tid = tid;
	*nm = NULL;
	return (long)(p->tids.n - 1);
}

/* Another run: a map of its own, and the mappings' caches emptied. */
static int
on_header(void *arg, const struct pme_sample_header *h)
{
	struct pms *p = arg;
	int64_t *off;

	if (p->runs == 0) {
		p->start0 = h->start;
		p->mono0 = h->start_mono;
	} else {
		pme_addrmap_free(p->am);
		if ((p->am = pme_addrmap_new(&p->err)) == NULL)
			return 1;
		for (size_t i = 0; i < p->nmodof; i++)
			p->modof[i] = PME_NONE - 1;
		for (size_t i = 0; i < p->nmname; i++)
			p->mname[i] = -1;
	}
	if ((off = pme_vec_push(&p->offs)) == NULL)
		return pme_setnomem(&p->err), 1;
	*off = (int64_t)(h->start - p->start0) -
	    (int64_t)(h->start_mono - p->mono0);
	p->runs++;
	filter_run_header(&p->fr, h);
	return 0;
}

static int
on_mapping(void *arg, const struct pme_mapping *m)
{
	struct pms *p = arg;

	filter_run_record(&p->fr, m->time);
	return pme_addrmap_mapping(p->am, m, &p->err) == -1;
}

static int
on_thread(void *arg, const struct pme_thread *t)
{
	struct pms *p = arg;
	char buf[128];
	char **nm;
	long r;

	if (pme_addrmap_thread(p->am, t, &p->err) == -1)
		return 1;
	if (p->filter != NULL && filter_run_thread(p->filter, &p->fr, t) == -1)
		return pme_setnomem(&p->err), 1;
	if (t->kind != PME_THREAD_COMM && t->kind != PME_THREAD_EXEC)
		return 0;
	if ((r = row_of(p, t->tid)) == -1)
		return 1;
	nm = &PME_VEC_AT(&p->tnames, char *, r);
	snprintf(buf, sizeof(buf), "%u %s", t->tid, t->name != NULL ?
	    t->name : "");
	free(*nm);
	return (*nm = strdup(buf)) == NULL;
}

/* The module of bf a mapping is, by libpme's rule (cached). */
static uint32_t
module_of(struct pms *p, uint32_t mi, const struct pme_mapping *m)
{
	uint32_t *nv;

	if (mi >= p->nmodof) {
		size_t n = mi + 64;

		if ((nv = realloc(p->modof, n * sizeof(*nv))) == NULL)
			return PME_NONE;
		for (size_t i = p->nmodof; i < n; i++)
			nv[i] = PME_NONE - 1;	/* not looked at */
		p->modof = nv;
		p->nmodof = n;
	}
	if (p->modof[mi] == PME_NONE - 1)
		p->modof[mi] = pme_fill_match(p->bf, (uint32_t)p->nmod,
		    m->path, m->buildid, m->buildid_len,
		    (m->flags & PME_MAP_MAIN) != 0, 0, NULL);
	return p->modof[mi];
}

/*
 * The index of the name a sample is coloured by, its sample counted; -1
 * when out of memory.  A name is looked for among the names once per
 * bucket, mapping, kernel or unmapped, not once per sample.
 */
static int
name_of(struct pms *p, const struct pme_sample *s)
{
	const struct pme_mapping *maps;
	const struct pme_bucket *b;
	const struct pme_unit *u;
	const char *name;
	char buf[512];
	uint64_t vaddr;
	uint32_t mi, mod, bk = PME_NONE;
	int *sl;

	if (s->flags & PME_SAMPLE_KERNEL) {
		sl = &p->kname;
		name = "(kernel)";
	} else if ((mi = pme_addrmap_lookup(p->am, s->pid, s->time, s->pc,
	    &vaddr)) == PME_NONE) {
		sl = &p->uname;
		name = "(unmapped)";
	} else {
		pme_addrmap_mappings(p->am, &maps);
		if (p->bf != NULL && !p->bymodule &&
		    (mod = module_of(p, mi, &maps[mi])) != PME_NONE)
			bk = pme_bucketfile_lookup(p->bf, mod, vaddr);
		if (bk != PME_NONE) {
			pme_bucketfile_buckets(p->bf,
			    (struct pme_bucket **)&b);
			pme_bucketfile_units(p->bf, &u);
			sl = slot(&p->bname, &p->nbname, bk);
			name = u[b[bk].unit].name;
		} else {
			sl = slot(&p->mname, &p->nmname, mi);
			snprintf(buf, sizeof(buf), "%s%s",
			    pme_base_name(maps[mi].path), p->bymodule ||
			    p->bf == NULL ? "" : " (outside buckets)");
			name = buf;
		}
	}
	if (sl == NULL || (*sl < 0 && (*sl = name_index(p, name)) < 0))
		return -1;
	PME_VEC_AT(&p->names, struct name, *sl).n++;
	return *sl;
}

static int
on_samples(void *arg, const struct pme_sample *s, size_t n)
{
	struct pms *p = arg;
	struct pme_sample *v;

	if (p->filter != NULL) {
		if (n > p->capsel) {
			if ((v = realloc(p->sel, n * sizeof(*v))) == NULL)
				return pme_setnomem(&p->err), 1;
			p->sel = v;
			p->capsel = n;
		}
		p->filter->read += n;
		if (filter_batch(p->filter, &p->fr, p->am, s, n, p->sel,
		    &n) == -1)
			return pme_setnomem(&p->err), 1;
		p->filter->kept += n;
		s = p->sel;
	}
	for (size_t i = 0; i < n; i++) {
		struct pme_ev *e;
		long r = row_of(p, s[i].tid);
		int ni = name_of(p, &s[i]);
		uint64_t w = s[i].weight < s[i].time ? s[i].weight :
		    s[i].time;

		if (r == -1 || ni == -1 || (e = pme_vec_push(&p->ev)) == NULL)
			return pme_setnomem(&p->err), 1;
		*e = (struct pme_ev){ s[i].time - w, ni, PME_EV_STATE,
		    (uint32_t)r };
		if ((e = pme_vec_push(&p->ev)) == NULL)
			return pme_setnomem(&p->err), 1;
		*e = (struct pme_ev){ s[i].time, NOTHING, PME_EV_STATE,
		    (uint32_t)r };
	}
	return 0;
}

/*
 * A sample whose interval begins before the row's previous one ended (a
 * timer that fired late, then on time) would have the previous sample's
 * end cut it short and leave its own time blank: of the events sorted by
 * row and time, an end is kept only where no interval is still open, so
 * the later sample holds the overlap and a row's time is the union of
 * its samples' intervals.
 */
static void
no_overlap(struct pme_vec *ev)
{
	struct pme_ev *v = ev->v;
	size_t i, n = 0;
	uint32_t row = 0;
	long open = 0;

	for (i = 0; i < ev->n; i++) {
		if (i == 0 || v[i].proc != row) {
			row = v[i].proc;
			open = 0;
		}
		if (v[i].value != NOTHING)
			open++;
		else if (--open > 0)
			continue;
		v[n++] = v[i];
	}
	ev->n = n;
}

#define RUN_WALL	1	/* pmeclock -w */
#define RUN_HEAP	2	/* pmeclock -e alloc */

/* What the header says the run recorded (RUN_*) into *(int *)arg, and
 * stop. */
static int
kind_header(void *arg, const struct pme_sample_header *h)
{
	int *k = arg;

	*k = (h->flags & PME_SHDR_WALL) != 0 ? RUN_WALL : 0;
	for (uint32_t i = 0; i < h->nevents; i++)
		if (h->events[i].name != NULL &&
		    strcmp(h->events[i].name, "bytes") == 0)
			*k |= RUN_HEAP;
	return 1;
}

static int
by_count(const void *a, const void *b)
{
	const struct name *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->s, y->s);
}

static int
by_row_time(const void *a, const void *b)
{
	const struct pme_ev *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* Names by sample count, most first (the legend keeps the first). */
static int
order_names(struct pms *p)
{
	size_t n = p->names.n;
	struct name *v = p->names.v;
	int *map;

	for (size_t i = 0; i < n; i++)
		v[i].old = i;
	if (n > 1)
		qsort(v, n, sizeof(*v), by_count);
	if ((map = malloc((n + 1) * sizeof(*map))) == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		map[v[i].old] = (int)i;
	for (size_t i = 0; i < p->ev.n; i++) {
		struct pme_ev *e = &PME_VEC_AT(&p->ev, struct pme_ev, i);

		if (e->value != NOTHING)
			e->value = map[e->value];
	}
	free(map);
	return 0;
}

int
src_open_samples(struct src *s, const char *path, const char *bucketpath,
    const char *by, struct filter *filter, struct pme_error *err)
{
	struct pme_sample_visitor v = { on_header, on_mapping, on_thread,
	    on_samples, NULL };
	struct pme_sample_summary sum;
	struct pms p = { .src = s, .kname = -1, .uname = -1,
	    .filter = filter != NULL && filter->on ? filter : NULL };
	const struct pme_module *mods;
	int rc = -1;

	memset(s, 0, sizeof(*s));
	s->path = path;
	pme_vec_init(&p.names, sizeof(struct name));
	pme_vec_init(&p.tids, sizeof(struct row));
	pme_vec_init(&p.offs, sizeof(int64_t));
	pme_vec_init(&p.tnames, sizeof(char *));
	pme_vec_init(&p.ev, sizeof(struct pme_ev));
	p.bymodule = by != NULL && strcmp(by, "module") == 0;
	if (bucketpath == NULL && access(PME_DEFAULT_PME, F_OK) == 0)
		bucketpath = PME_DEFAULT_PME;
	if (bucketpath != NULL && !p.bymodule) {
		if ((p.bf = pme_bucketfile_open(bucketpath, &p.err)) == NULL ||
		    pme_bucketfile_index(p.bf, &p.err) == -1)
			goto fail;
		p.nmod = pme_bucketfile_modules(p.bf, &mods);
	}
	if ((p.am = pme_addrmap_new(&p.err)) == NULL ||
	    filter_file(p.filter, &p.fr, path, &p.err) == -1 ||
	    pme_samplefile_read(path, &v, &p, &sum, &p.err) == -1 ||
	    order_names(&p) == -1)
		goto fail;
	/* Each run's times on the first's clock, then from the first
	 * sample's, so that the axis reads from 0. */
	for (size_t i = 0; i < p.ev.n; i++) {
		struct pme_ev *e = &PME_VEC_AT(&p.ev, struct pme_ev, i);
		const struct row *t = &PME_VEC_AT(&p.tids, struct row,
		    e->proc);

		e->time += (uint64_t)PME_VEC_AT(&p.offs, int64_t, t->run - 1);
		if (i == 0 || (int64_t)e->time < (int64_t)s->run.first)
			s->run.first = e->time;
	}
	if (p.ev.n > 1) {	/* none: p.ev.v is NULL */
		qsort(p.ev.v, p.ev.n, sizeof(struct pme_ev), by_row_time);
		no_overlap(&p.ev);
	}
	for (size_t i = 0; i < p.ev.n; i++)
		PME_VEC_AT(&p.ev, struct pme_ev, i).time -= s->run.first;
	s->run.first = 0;
	/* Threads without a name record are named by their id; of a file
	 * of several runs, each with its run's number after. */
	for (size_t i = 0; i < p.tnames.n; i++) {
		char **nm = &PME_VEC_AT(&p.tnames, char *, i);
		const struct row *t = &PME_VEC_AT(&p.tids, struct row, i);
		char buf[160];

		if (*nm == NULL)
			snprintf(buf, sizeof(buf), "%u", t->tid);
		else if (p.runs > 1)
			snprintf(buf, sizeof(buf), "%s", *nm);
		else
			continue;
		if (p.runs > 1)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			    " (run %u)", t->run);
		free(*nm);
		if ((*nm = strdup(buf)) == NULL)
			goto nomem;
	}
	s->ev = p.ev.v;
	s->nev = p.ev.n;
	p.ev.v = NULL;
	s->nnames = p.names.n;
	if ((s->names = calloc(s->nnames + 1, sizeof(*s->names))) == NULL)
		goto nomem;
	for (size_t i = 0; i < s->nnames; i++) {
		s->names[i] = PME_VEC_AT(&p.names, struct name, i).s;
		PME_VEC_AT(&p.names, struct name, i).s = NULL;
	}
	s->nrowname = p.tnames.n;
	s->rowname = p.tnames.v;
	p.tnames.v = NULL;
	p.tnames.n = 0;
	s->run.nproc = (uint32_t)p.tids.n;
	s->run.unit = "ns";
	s->run.command = "";
	s->run.flags = PME_RUN_CLOCKTIME | (sum.closed ? PME_RUN_COMPLETE : 0);
	s->run.lost = sum.lost_bytes;
	s->run.events = s->nev;
	for (size_t i = 0; i < s->nev; i++)
		if (s->ev[i].time > s->run.last)
			s->run.last = s->ev[i].time;
	rc = 0;
	goto out;
nomem:
	pme_setnomem(&p.err);
fail:
	/* The only file of a kind given here is the bucket file's. */
	pme_seterr(err, p.err.code, "%s%s", pme_strerror(&p.err),
	    p.err.code == PME_EKIND ? "; give it with -f, and a bucket file "
	    "with -B" : "");
out:
	for (size_t i = 0; i < p.names.n; i++)
		free(PME_VEC_AT(&p.names, struct name, i).s);
	for (size_t i = 0; i < p.tnames.n; i++)
		free(PME_VEC_AT(&p.tnames, char *, i));
	pme_vec_free(&p.names);
	pme_vec_free(&p.tids);
	pme_vec_free(&p.offs);
	pme_vec_free(&p.tnames);
	pme_vec_free(&p.ev);
	pme_addrmap_free(p.am);
	filter_run_free(&p.fr);
	free(p.sel);
	pme_bucketfile_close(p.bf);
	free(p.modof);
	free(p.bname);
	free(p.mname);
	if (rc == -1)
		src_close(s);
	return rc;
}

/* ------------------------------------------------------ wall states */

/*
 * A pmeclock -w run as states (pmehisto's, histo/wall.c): a row per
 * thread, its whole lifetime in slices of the nine states, each state's
 * slices summing to the thread's column of pmehisto -V states.  The
 * colours are Proteus' defaults where a state is one of its: busy gray
 * (user), getting a lock red, idle black (sleep), in a barrier navy
 * (condition).
 */
static const uint32_t state_rgb[WALL_NSTATE] = { 0xbebebe, 0x8b4513,
    0xffd700, 0xff0000, 0x000080, 0x0000ff, 0xa020f0, 0x000000,
    0x008000 };

struct wpass {
	struct pme_vec	 ev;		/* struct pme_ev */
	struct pme_vec	 tnames;	/* char *, by row */
	struct pme_error *err;
};

static int
on_wthread(void *arg, const struct wall_thread *t)
{
	struct wpass *w = arg;
	char buf[128], **nm;

	snprintf(buf, sizeof(buf), "%u %s", t->tid, t->name);
	if ((nm = pme_vec_push(&w->tnames)) == NULL ||
	    (*nm = strdup(buf)) == NULL)
		return pme_setnomem(w->err), 1;
	return 0;
}

static int
on_wslice(void *arg, const struct wall_slice *sl)
{
	struct wpass *w = arg;
	uint32_t row = (uint32_t)(w->tnames.n - 1);
	struct pme_ev *e;

	if ((e = pme_vec_push(&w->ev)) == NULL)
		return pme_setnomem(w->err), 1;
	*e = (struct pme_ev){ sl->start, sl->state, PME_EV_STATE, row };
	if ((e = pme_vec_push(&w->ev)) == NULL)
		return pme_setnomem(w->err), 1;
	*e = (struct pme_ev){ sl->end, NOTHING, PME_EV_STATE, row };
	return 0;
}

/* What path's run recorded (RUN_*), as its first header says. */
static int
run_kind(const char *path)
{
	struct pme_sample_visitor v = { NULL, NULL, NULL, NULL, NULL };
	struct pme_sample_summary sum;
	struct pme_error err;
	int kind = 0;

	v.header = kind_header;
	pme_samplefile_read(path, &v, &kind, &sum, &err);
	return kind;
}

int
src_open_states(struct src *s, const char *path, struct pme_error *err)
{
	static const struct wall_visitor v = { on_wthread, on_wslice };
	const char *paths[1] = { path };
	struct pme_sample_summary sum;
	struct wall_input in = { NULL, paths, 1, 0, 0, 1, 0, &sum };
	struct wpass w = { .err = err };
	int rc = -1;

	memset(s, 0, sizeof(*s));
	s->path = path;
	s->states = 1;
	pme_vec_init(&w.ev, sizeof(struct pme_ev));
	pme_vec_init(&w.tnames, sizeof(char *));
	if (wall_timeline(&in, &v, &w, err) == -1)
		goto out;
	if (w.ev.n > 1) {
		qsort(w.ev.v, w.ev.n, sizeof(struct pme_ev), by_row_time);
		no_overlap(&w.ev);
	}
	if ((s->names = calloc(WALL_NSTATE + 1, sizeof(*s->names))) == NULL)
		goto nomem;
	for (s->nnames = 0; s->nnames < WALL_NSTATE; s->nnames++)
		if ((s->names[s->nnames] = strdup(
		    wall_state_names[s->nnames])) == NULL)
			goto nomem;
	s->rgb = state_rgb;
	s->ev = w.ev.v;
	s->nev = w.ev.n;
	w.ev.v = NULL;
	s->nrowname = w.tnames.n;
	s->rowname = w.tnames.v;
	w.tnames.v = NULL;
	w.tnames.n = 0;
	src_whole_run(s);
	s->run.lost = sum.lost_bytes;	/* a file cut short, said */
	rc = 0;
	goto out;
nomem:
	pme_setnomem(err);
out:
	for (size_t i = 0; i < w.tnames.n; i++)
		free(PME_VEC_AT(&w.tnames, char *, i));
	pme_vec_free(&w.tnames);
	pme_vec_free(&w.ev);
	if (rc == -1)
		src_close(s);
	return rc;
}

int
src_open(struct src *s, const char *path, const char *bucketpath,
    const char *by, struct filter *filter, struct pme_error *err)
{
	struct pme_reader *r;
	struct pme_error e;
	int kind, wall, whole;

	/* A sample file is told by its kind; anything else is read as an
	 * event file, whose errors are the ones to show. */
	if (strcmp(path, "-") != 0 &&
	    (r = pme_reader_open(path, PME_KIND_SAMPLE, &e)) != NULL) {
		pme_reader_close(r);
		kind = run_kind(path);
		wall = (kind & RUN_WALL) != 0;
		if (by != NULL && strcmp(by, "state") == 0 && !wall)
			return pme_seterr(err, PME_EINVAL, "'%s': -b state: no "
			    "wall-time records (record them with pmeclock -w)",
			    path);
		whole = wall ? by == NULL || strcmp(by, "state") == 0 :
		    (kind & RUN_HEAP) && by == NULL;
		if (whole && filter != NULL && filter->on)
			return pme_seterr(err, PME_EINVAL, "'%s': %s: the "
			    "filters take samples: a %s run's %s drawn whole "
			    "(-b routine draws its samples)", path,
			    filter->text, wall ? "-w" : "-e alloc", wall ?
			    "states are" : "heap is");
		if (whole)
			return wall ? src_open_states(s, path, err) :
			    src_open_heap(s, path, err);
		return src_open_samples(s, path, bucketpath, by, filter, err);
	}
	if (filter != NULL && filter->on)
		return pme_seterr(err, PME_EINVAL, "'%s': %s: the filters take "
		    "a sample file (.PMS), not an event file", path,
		    filter->text);
	return src_open_events(s, path, err);
}
