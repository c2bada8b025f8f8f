/*
 * quickscan.c - which files the quick path (pmehisto -x) makes buckets
 * of: every file mapped executable that samples fell in, read from the
 * sample file before it is reduced, so that shared libraries, the
 * dynamic loader and what was dlopen'ed later get routine buckets too;
 * and the program, the main executable whose processes took the most
 * samples (in any of their files: python's are mostly in libpython), so
 * that a run started through a wrapper (env, sh -c, a pyenv shim) is
 * reported for the program it ran rather than the first one exec'ed.
 */
#include <stdlib.h>
#include <string.h>

#include "histo.h"
#include "util.h"

struct qfile {
	char		*path;
	uint8_t		*id;
	uint32_t	 idlen;
	int		 main;
	uint64_t	 count;		/* samples in it */
	uint64_t	 taken;		/* samples of processes it is the main
					   executable of */
};

struct pidmain {		/* a process's main executable, a file */
	uint32_t	 pid;
	size_t		 file;
};

struct span {			/* a mapping of a process, for overlaps */
	uint32_t	 pid;
	uint64_t	 start, end;
};

struct scan {
	struct pme_addrmap *am;
	/* The mapping of the last sample, while no record comes between
	 * and the mappings of a process do not overlap (as reduce.c's
	 * mapping cache): most samples fall in the mapping before them. */
	int		 cvalid, overlap;
	uint32_t	 cpid, cmap;
	uint64_t	 clo, clen, maptime;
	struct span	*spans;
	size_t		 nspans;
	uint64_t	*kpcs;		/* pcs of kernel samples */
	size_t		 nkpcs, capkpcs;
	uint64_t	 start;		/* of the first run, CLOCK_REALTIME */
	int		 boot;		/* as quick_files' */
	unsigned	 runs;		/* headers read */
	uint64_t	*counts;	/* per mapping of am */
	size_t		 ncounts;
	struct qfile	*f;
	size_t		 nf;
	struct pidmain	*pm;
	size_t		 npm;
	struct pme_error *err;
};

static void
free_files(struct qfile *f, size_t n)
{
	size_t i;

	for (i = 0; f != NULL && i < n; i++) {
		free(f[i].path);
		free(f[i].id);
	}
	free(f);
}

static int
nomem(struct scan *s)
{
	return histo_err(s->err, PME_ENOMEM, "out of memory");
}

/* The entry for mapping m, added if new. */
static struct qfile *
file_of(struct scan *s, const struct pme_mapping *m)
{
	struct qfile *f;
	size_t i;

	for (i = 0; i < s->nf; i++)
		if (strcmp(s->f[i].path, m->path) == 0 &&
		    s->f[i].idlen == m->buildid_len && (m->buildid_len == 0 ||
		    memcmp(s->f[i].id, m->buildid, m->buildid_len) == 0))
			return &s->f[i];
	if ((f = realloc(s->f, (s->nf + 1) * sizeof(*f))) == NULL)
		return NULL;
	s->f = f;
	f += s->nf;
	memset(f, 0, sizeof(*f));
	if ((f->path = strdup(m->path)) == NULL || (m->buildid_len > 0 &&
	    (f->id = malloc(m->buildid_len)) == NULL)) {
		free(f->path);
		return NULL;
	}
	if (m->buildid_len > 0)
		memcpy(f->id, m->buildid, m->buildid_len);
	f->idlen = m->buildid_len;
	s->nf++;
	return f;
}

/* The counts of the run's mappings into the files; a new address map. */
static int
harvest(struct scan *s)
{
	const struct pme_mapping *maps;
	size_t n = pme_addrmap_mappings(s->am, &maps), i;
	struct qfile *f;

	for (i = 0; i < n && i < s->ncounts; i++) {
		if (s->counts[i] == 0 || (maps[i].flags & PME_MAP_KERNEL) ||
		    maps[i].path == NULL || maps[i].path[0] != '/')
			continue;
		if ((f = file_of(s, &maps[i])) == NULL)
			return nomem(s);
		f->count += s->counts[i];
	}
	if (s->ncounts > 0)
		memset(s->counts, 0, s->ncounts * sizeof(*s->counts));
	pme_addrmap_free(s->am);
	if ((s->am = pme_addrmap_new(s->err)) == NULL)
		return -1;
	return 0;
}

static int
on_header(void *arg, const struct pme_sample_header *h)
{
	struct scan *s = arg;

	s->boot = quick_boot(s->boot, s->runs++ == 0, h->boot);
	if (s->start == 0)
		s->start = h->start;
	s->cvalid = s->overlap = 0;
	s->nspans = 0;
	s->maptime = 0;
	return harvest(arg);
}

/* Notes a mapping [start, end) of pid, and whether it overlaps one of
 * the process's before; -1 when memory ran out. */
static int
note_span(struct scan *s, uint32_t pid, uint64_t start, uint64_t end)
{
	struct span *v;
	size_t i;

	for (i = 0; i < s->nspans && !s->overlap; i++)
		s->overlap = s->spans[i].pid == pid &&
		    start < s->spans[i].end && s->spans[i].start < end;
	if (s->nspans >= 16 && (s->nspans & (s->nspans - 1)) != 0)
		v = s->spans;
	else if ((v = realloc(s->spans, (s->nspans < 16 ? 16 :
	    s->nspans * 2) * sizeof(*v))) == NULL)
		return -1;
	s->spans = v;
	v[s->nspans].pid = pid;
	v[s->nspans].start = start;
	v[s->nspans++].end = end;
	return 0;
}

/* A record came: the cache's mapping may no longer be the one. */
static void
record_at(struct scan *s, uint64_t time)
{
	s->cvalid = 0;
	if (time > s->maptime)
		s->maptime = time;
}

/* A kernel sample's pc, for the kernel's routines. */
static int
kernel_pc(struct scan *s, uint64_t pc)
{
	uint64_t *v;

	if (s->nkpcs == s->capkpcs) {
		s->capkpcs = s->capkpcs ? s->capkpcs * 2 : 256;
		if ((v = realloc(s->kpcs, s->capkpcs * sizeof(*v))) == NULL)
			return nomem(s);
		s->kpcs = v;
	}
	s->kpcs[s->nkpcs++] = pc;
	return 0;
}

/* A kernel sample's pc and the calls of its kernel frames (-g). */
static int
kernel_chain(struct scan *s, const struct pme_sample *p)
{
	uint32_t j;

	if (kernel_pc(s, p->pc) == -1)
		return -1;
	for (j = 0; j < p->nframes && PME_KERNEL_ADDR(p->frames[j]); j++)
		if (kernel_pc(s, p->frames[j] - 1) == -1)
			return -1;
	return 0;
}

/* The entry of pid's main executable, added if new (file PME_NONE). */
static struct pidmain *
pid_main(struct scan *s, uint32_t pid)
{
	struct pidmain *v;
	size_t i;

	for (i = s->npm; i-- > 0;)
		if (s->pm[i].pid == pid)
			return &s->pm[i];
	if ((v = realloc(s->pm, (s->npm + 1) * sizeof(*v))) == NULL)
		return NULL;
	s->pm = v;
	v[s->npm].pid = pid;
	v[s->npm].file = PME_NONE;
	return &v[s->npm++];
}

static int
on_mapping(void *arg, const struct pme_mapping *m)
{
	struct scan *s = arg;
	struct pidmain *p;
	struct qfile *f;

	if ((m->flags & PME_MAP_MAIN) && !(m->flags & PME_MAP_KERNEL) &&
	    m->path != NULL && m->path[0] == '/') {
		if ((f = file_of(s, m)) == NULL ||
		    (p = pid_main(s, m->pid)) == NULL)
			return nomem(s);
		f->main = 1;
		p->file = (size_t)(f - s->f);
	}
	record_at(s, m->time);
	if (note_span(s, m->pid, m->start, m->end) == -1)
		return nomem(s);
	return pme_addrmap_mapping(s->am, m, s->err);
}

/* A child's main executable is its parent's until it execs. */
static int
on_thread(void *arg, const struct pme_thread *th)
{
	struct scan *s = arg;
	struct pidmain *p, *c;
	size_t file, i, n;

	/* An exec ends the process's mappings; a fork gives the child its
	 * parent's. */
	record_at(s, th->time);
	if (th->kind == PME_THREAD_EXEC) {
		for (i = n = 0; i < s->nspans; i++)
			if (s->spans[i].pid != th->pid)
				s->spans[n++] = s->spans[i];
		s->nspans = n;
	} else if (th->kind == PME_THREAD_FORK && th->pid != th->ppid) {
		for (i = 0, n = s->nspans; i < n; i++)
			if (s->spans[i].pid == th->ppid && note_span(s, th->pid,
			    s->spans[i].start, s->spans[i].end) == -1)
				return nomem(s);
	}
	if (th->kind == PME_THREAD_FORK && th->pid != th->ppid) {
		if ((p = pid_main(s, th->ppid)) == NULL)
			return nomem(s);
		file = p->file;
		if ((c = pid_main(s, th->pid)) == NULL)
			return nomem(s);
		c->file = file;
	}
	return pme_addrmap_thread(s->am, th, s->err);
}

/* The mapping of sample p, cached when the cache may hold it. */
static uint32_t
lookup(struct scan *s, const struct pme_sample *p)
{
	const struct pme_mapping *maps;
	uint64_t vaddr;
	uint32_t mi;

	mi = pme_addrmap_lookup(s->am, p->pid, p->time, p->pc, &vaddr);
	if (mi != PME_NONE && !s->overlap && p->time >= s->maptime) {
		pme_addrmap_mappings(s->am, &maps);
		s->cvalid = 1;
		s->cpid = p->pid;
		s->cmap = mi;
		s->clo = maps[mi].start;
		s->clen = maps[mi].end - maps[mi].start;
	}
	return mi;
}

static int
on_samples(void *arg, const struct pme_sample *p, size_t n)
{
	struct scan *s = arg;
	struct pidmain *last = NULL;
	uint64_t *v;
	uint32_t mi;
	size_t i, cap;

	for (i = 0; i < n; i++) {
		if (last == NULL || last->pid != p[i].pid)
			if ((last = pid_main(s, p[i].pid)) == NULL)
				return nomem(s);
		if (last->file != PME_NONE)
			s->f[last->file].taken++;
		if (s->cvalid && p[i].pid == s->cpid && p[i].pc - s->clo <
		    s->clen && p[i].time >= s->maptime)
			mi = s->cmap;
		else
			mi = lookup(s, &p[i]);
		if ((p[i].flags & PME_SAMPLE_KERNEL) && kernel_chain(s,
		    &p[i]) == -1)
			return -1;
		if (mi == PME_NONE)
			continue;
		if (mi >= s->ncounts) {
			cap = (size_t)mi * 2 + 16;
			if ((v = realloc(s->counts, cap * sizeof(*v))) == NULL)
				return nomem(s);
			memset(v + s->ncounts, 0, (cap - s->ncounts) *
			    sizeof(*v));
			s->counts = v;
			s->ncounts = cap;
		}
		s->counts[mi]++;
	}
	return 0;
}

static int
on_close(void *arg, const struct pme_sample_close *c)
{
	(void)arg;
	(void)c;
	return 0;
}

/* The program first (a main executable before any other, then the one
 * whose processes took more samples), then the others by samples, then
 * by path. */
static int
cmp_file(const void *a, const void *b)
{
	const struct qfile *x = a, *y = b;

	if (x->main != y->main)
		return x->main ? -1 : 1;
	if (x->main && x->taken != y->taken)
		return x->taken > y->taken ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->path, y->path);
}

const struct pme_sample_visitor quick_scan_visitor = {
	on_header, on_mapping, on_thread, on_samples, on_close
};

static void
scan_free(struct scan *s)
{
	free_files(s->f, s->nf);
	free(s->pm);
	free(s->spans);
	free(s->kpcs);
	free(s->counts);
	pme_addrmap_free(s->am);
	free(s);
}

struct scan *
quick_scanner_new(struct pme_error *err)
{
	struct scan *s;

	if ((s = calloc(1, sizeof(*s))) == NULL) {
		histo_err(err, PME_ENOMEM, "out of memory");
		return NULL;
	}
	s->err = err;
	if ((s->am = pme_addrmap_new(err)) == NULL) {
		free(s);
		return NULL;
	}
	return s;
}

int
quick_scanner_end(struct scan *s, struct quick_files *q)
{
	size_t i, n;
	int rc = -1;

	memset(q, 0, sizeof(*q));
	if (harvest(s) == -1)
		goto out;
	if (s->nf > 1)
		qsort(s->f, s->nf, sizeof(*s->f), cmp_file);
	/* Only the program is the main executable's module; the other
	 * files are those samples fell in. */
	for (i = 1, n = 1; i < s->nf; i++) {
		if (s->f[i].count == 0) {
			free(s->f[i].path);
			free(s->f[i].id);
			continue;
		}
		s->f[i].main = 0;
		s->f[n++] = s->f[i];
	}
	if (s->nf > 0 && s->f[0].count == 0 && s->f[0].taken == 0) {
		free(s->f[0].path);
		free(s->f[0].id);
		memmove(s->f, s->f + 1, --n * sizeof(*s->f));
	}
	s->nf = s->nf > 0 ? n : 0;
	if ((q->v = calloc(s->nf + 1, sizeof(*q->v))) == NULL) {
		nomem(s);
		goto out;
	}
	for (i = 0; i < s->nf; i++) {
		q->v[i].path = s->f[i].path;
		q->v[i].buildid = s->f[i].id;
		q->v[i].idlen = s->f[i].idlen;
		q->v[i].flags = s->f[i].main ? PME_MODULE_MAIN : 0;
	}
	q->n = s->nf;
	q->files = s->f;
	q->kpcs = s->kpcs;
	q->nkpcs = s->nkpcs;
	q->start = s->start;
	q->boot = s->boot;
	s->f = NULL;
	s->nf = 0;
	s->kpcs = NULL;
	rc = 0;
out:
	scan_free(s);
	return rc;
}

void
quick_scanner_free(struct scan *s)
{
	if (s != NULL)
		scan_free(s);
}

int
quick_scan(const char *path, struct quick_files *q, struct pme_error *err)
{
	struct pme_sample_summary sum;
	struct scan *s;

	memset(q, 0, sizeof(*q));
	if ((s = quick_scanner_new(err)) == NULL)
		return -1;
	memset(&sum, 0, sizeof(sum));
	if (pme_samplefile_read(path, &quick_scan_visitor, s, &sum,
	    err) == -1) {
		scan_free(s);
		return -1;
	}
	return quick_scanner_end(s, q);
}

void
quick_files_free(struct quick_files *q)
{
	free_files(q->files, q->n);
	free(q->kpcs);
	free(q->addrs);
	free(q->v);
	memset(q, 0, sizeof(*q));
}
