/*
 * wall.c - pmehisto -V states and -V locks: where the wall-clock time of
 * a pmeclock -w run went (pmehisto(1), WALL TIME).
 *
 * Every instant of a thread, from its creation (its FORK record; the
 * main thread's exec) to its end (its EXIT record; else the last thing
 * seen of it), is booked to one state.  Off the CPU, the run's OFFC
 * intervals say exactly when and what for: [start, wake) to the kind of
 * the wait, [wake, end) to wait-cpu (it was runnable).  On the CPU is the
 * rest of the lifetime, exact, split into user and system in the
 * proportion of the thread's clock samples in user code and in the
 * kernel.  So the states of a thread sum to its lifetime.
 *
 * A futex wait (PME_WC_FUTEX) is a lock or a condition by the innermost
 * user frame that names one (wclass_of_name()); other futex waits are
 * "other".  Per routine, the states are inclusive: an interval counts
 * once for every routine on its stack, and the on-CPU states are the
 * clock samples' (weight) of the routines on theirs.  Per line, the
 * program's own (its main executable's line table), exclusive: each
 * interval and sample counts for the innermost line of its stack there.
 *
 * -V timeline writes every interval as a slice of Chrome's trace event
 * format (chrome://tracing, Perfetto, speedscope): a row per thread.
 *
 * -V locks lists the lock and condition waits of -W or longer: per
 * object (the futex's address, named by the static object of a module's
 * symbol table that holds it), per call site (the first frame outside
 * the C library's locking functions) and the longest waits.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "histo.h"
#include "pme_sample.h"
#include "measure.h"
#include "pme_symbols.h"
#include "util.h"

enum { S_USER, S_SYSTEM, S_WAITCPU, S_LOCK, S_COND, S_IO, S_FAULT,
    S_SLEEP, S_OTHER, NSTATE };

static const char *const state_names[NSTATE] = { "user", "system",
    "wait-cpu", "lock", "condition", "io", "fault", "sleep", "other" };
const char *const *const wall_state_names = state_names;
_Static_assert(NSTATE == WALL_NSTATE, "histo.h's WALL_NSTATE");

/* A recorded kind (enum pme_wclass) to a state, before the futex's. */
static const int class_state[PME_WC_MAX] = { S_OTHER, S_WAITCPU, S_OTHER,
    S_IO, S_FAULT, S_SLEEP, S_OTHER };

struct rix {
	uint64_t	 start, end;
	const char	*name;
};

struct lix {
	uint64_t	 start, end;
	const char	*file;
	uint32_t	 line;
};

struct objsym {
	uint64_t	 start, end;
	char		*name;
};

/* A mapped file's routines and static objects, read once. */
struct wimg {
	char		*path;
	struct pme_image *img;
	struct rix	*r;
	size_t		 nr;
	struct objsym	*o;
	size_t		 no;
	struct pme_image *limg;		/* with lines: the main program's */
	struct lix	*l;
	size_t		 nl;
	int		 ltried;
};

struct wth {
	uint32_t	 pid, tid;
	char		 name[64];
	uint64_t	 start, end, first, last;
	int		 hasstart, hasend;
	uint64_t	 st[NSTATE];
	uint64_t	 usamp, ksamp;
	uint64_t	 nint;		/* its off-CPU intervals */
	uint64_t	 uj, kj;	/* its samples shared out so far */
};

struct wrow {
	const char	*name;
	const char	*file;		/* line rows: file and line */
	uint32_t	 line;
	uint64_t	 st[NSTATE];
	uint64_t	 count, max;	/* lock rows: waits */
};

struct lwait {
	uint64_t	 ns, object;
	uint32_t	 tid, waker;
	int		 state, haswaker;
	const char	*site;
	uint32_t	 pid;
	uint64_t	 time;
};

/* An interval of -V timeline. */
struct slice {
	uint32_t	 pid, tid;
	uint64_t	 start, end;
	int		 state;
	const char	*where;		/* its stack's innermost routine */
	const char	*site;		/* the first outside libraries' locks */
};

struct wall {
	const struct wall_input *in;
	struct wall	*times;		/* the threads' times (thread_times()),
					   which the on-CPU samples share */
	struct slice	*sl;
	size_t		 nsl, capsl;
	struct pme_addrmap *am;
	struct pme_error *err;
	struct wimg	*img;		/* per mapping index */
	size_t		 nimg;
	struct wth	*th;
	size_t		 nth;
	struct wrow	*rt;		/* per routine */
	size_t		 nrt;
	struct wrow	*ln;		/* per line */
	size_t		 nln;
	struct lwait	*lw;
	size_t		 nlw;
	uint64_t	 nintervals;
	int		 wallrun;
	uint32_t	 clock;		/* the run's clock event, or UINT32_MAX */
};

/* ------------------------------------------------------------ symbols */

/* Ranges of routines and lines: structs that start with uint64_t start,
 * end, sorted by start and disjoint.  (Every qsort here is of two items
 * or more: qsort(NULL, 0, ...) is undefined.) */
static int
cmp_start(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The range of base[0..n) (each size bytes) holding va, or NULL. */
static const void *
in_ranges(const void *base, size_t n, size_t size, uint64_t va)
{
	const uint64_t *r;
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		r = (const uint64_t *)((const uint8_t *)base + mid * size);
		if (va < r[0])
			hi = mid;
		else if (va >= r[1])
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

/* The static objects (STT_OBJECT, STT_TLS not) of path's symbol table. */
static void
read_objects(struct wimg *w, const char *path)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;
	size_t i, n;
	const char *nm;
	void *p;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	if ((e = elf_begin(fd, ELF_C_READ, NULL)) != NULL)
		while ((scn = elf_nextscn(e, scn)) != NULL) {
			if (gelf_getshdr(scn, &sh) == NULL ||
			    (sh.sh_type != SHT_SYMTAB) || sh.sh_entsize == 0 ||
			    (d = elf_getdata(scn, NULL)) == NULL)
				continue;
			n = sh.sh_size / sh.sh_entsize;
			for (i = 0; i < n; i++) {
				if (gelf_getsym(d, (int)i, &sym) == NULL ||
				    GELF_ST_TYPE(sym.st_info) != STT_OBJECT ||
				    sym.st_size == 0 || (nm = elf_strptr(e,
				    sh.sh_link, sym.st_name)) == NULL)
					continue;
				if ((p = realloc(w->o, (w->no + 1) *
				    sizeof(*w->o))) == NULL)
					break;
				w->o = p;
				w->o[w->no].start = sym.st_value;
				w->o[w->no].end = sym.st_value + sym.st_size;
				if ((w->o[w->no].name = strdup(nm)) != NULL)
					w->no++;
			}
		}
	elf_end(e);
	close(fd);
}

static void
read_routines(struct wimg *w, const char *path)
{
	const struct pme_symroutine *r;
	struct pme_error err;
	size_t n, i, k;
	void *p;

	if ((w->img = pme_image_open_symbols(path, NULL, &err)) == NULL)
		return;
	n = pme_image_routines(w->img, &r);
	for (i = 0; i < n; i++)
		for (k = 0; k < r[i].nranges; k++) {
			if ((p = realloc(w->r, (w->nr + 1) * sizeof(*w->r))) ==
			    NULL)
				return;
			w->r = p;
			w->r[w->nr].start = r[i].ranges[k].start;
			w->r[w->nr].end = r[i].ranges[k].end;
			w->r[w->nr++].name = r[i].name;
		}
	if (w->nr > 1)
		qsort(w->r, w->nr, sizeof(*w->r), cmp_start);
}

static struct wimg *
image_of(struct wall *wl, uint32_t mi)
{
	const struct pme_mapping *m;
	size_t n = pme_addrmap_mappings(wl->am, &m), i;
	void *p;

	if (mi >= n)
		return NULL;
	if (mi >= wl->nimg) {
		if ((p = realloc(wl->img, n * sizeof(*wl->img))) == NULL)
			return NULL;
		wl->img = p;
		memset(wl->img + wl->nimg, 0, (n - wl->nimg) *
		    sizeof(*wl->img));
		wl->nimg = n;
	}
	if (wl->img[mi].path != NULL)
		return &wl->img[mi];
	/* Another mapping of the same file shares its symbols. */
	for (i = 0; i < wl->nimg; i++)
		if (wl->img[i].path != NULL && m[mi].path != NULL &&
		    strcmp(wl->img[i].path, m[mi].path) == 0) {
			wl->img[mi] = wl->img[i];
			wl->img[mi].path = NULL;
			return &wl->img[i];
		}
	if ((wl->img[mi].path = strdup(m[mi].path != NULL ? m[mi].path :
	    "")) == NULL)
		return NULL;
	read_routines(&wl->img[mi], m[mi].path);
	read_objects(&wl->img[mi], m[mi].path);
	return &wl->img[mi];
}

/* The routine holding pc of pid at time, or NULL. */
static const char *
routine_at(struct wall *wl, uint32_t pid, uint64_t time, uint64_t pc)
{
	const struct rix *r;
	uint64_t va;
	uint32_t mi;
	struct wimg *w;

	if ((mi = pme_addrmap_lookup(wl->am, pid, time, pc, &va)) ==
	    PME_NONE || (w = image_of(wl, mi)) == NULL)
		return NULL;
	r = in_ranges(w->r, w->nr, sizeof(*w->r), va);
	return r != NULL ? r->name : NULL;
}

/* The main program's lines, read once (its DWARF: other modules' lines
 * are not read, a C library's debug file costing seconds). */
static void
read_lines(struct wimg *w, const char *path)
{
	const struct pme_symline *l;
	struct pme_error err;
	size_t n, i;

	w->ltried = 1;
	if ((w->limg = pme_image_open(path, NULL, &err)) == NULL ||
	    pme_image_load_lines(w->limg, PME_NONE, &err) == -1)
		return;
	n = pme_image_lines(w->limg, &l);
	if (n == 0 || (w->l = calloc(n, sizeof(*w->l))) == NULL)
		return;
	for (i = 0; i < n; i++) {
		w->l[i].start = l[i].start;
		w->l[i].end = l[i].end;
		w->l[i].file = l[i].file;
		w->l[i].line = l[i].line;
	}
	w->nl = n;
	if (n > 1)
		qsort(w->l, n, sizeof(*w->l), cmp_start);
}

/* The program's line holding pc of pid at time, or NULL. */
static const struct lix *
line_at(struct wall *wl, uint32_t pid, uint64_t time, uint64_t pc)
{
	const struct pme_mapping *m;
	uint64_t va;
	uint32_t mi;
	struct wimg *w;

	if ((mi = pme_addrmap_lookup(wl->am, pid, time, pc, &va)) ==
	    PME_NONE || mi >= pme_addrmap_mappings(wl->am, &m) ||
	    !(m[mi].flags & PME_MAP_MAIN) || (w = image_of(wl, mi)) == NULL)
		return NULL;
	if (!w->ltried)
		read_lines(w, m[mi].path);
	return in_ranges(w->l, w->nl, sizeof(*w->l), va);
}

/* Adds ns of state to the innermost of the program's lines of the
 * stack (pc, then the return addresses, looked up at the call). */
static void
book_line(struct wall *wl, uint32_t pid, uint64_t time, uint64_t pc,
    const uint64_t *fr, uint32_t nfr, int state, uint64_t ns)
{
	const struct lix *l = NULL;
	struct wrow *r;
	uint32_t i;
	size_t k;
	void *p;

	if (pc != 0)
		l = line_at(wl, pid, time, pc);
	for (i = 0; l == NULL && i < nfr; i++)
		l = line_at(wl, pid, time, fr[i] - 1);
	if (l == NULL)
		return;
	for (k = 0; k < wl->nln; k++)
		if (wl->ln[k].file == l->file && wl->ln[k].line == l->line)
			break;
	if (k == wl->nln) {
		if ((p = realloc(wl->ln, (k + 1) * sizeof(*wl->ln))) == NULL)
			return;
		wl->ln = p;
		memset(&wl->ln[k], 0, sizeof(*wl->ln));
		wl->ln[k].file = l->file;
		wl->ln[k].line = l->line;
		wl->nln++;
	}
	r = &wl->ln[k];
	r->st[state] += ns;
	if (state != S_USER && state != S_SYSTEM)
		r->count++;
}

/* A static object holding address a of pid, by each module's bias
 * (a mapping's start less its link-time address): "queue_lock". */
static const char *
object_at(struct wall *wl, uint32_t pid, uint64_t a)
{
	const struct pme_mapping *m;
	size_t n = pme_addrmap_mappings(wl->am, &m), i, k;
	struct wimg *w;
	uint64_t va;

	for (i = 0; i < n; i++) {
		if (m[i].pid != pid || (w = image_of(wl, (uint32_t)i)) ==
		    NULL)
			continue;
		va = a - (m[i].start - m[i].vaddr);
		for (k = 0; k < w->no; k++)
			if (va >= w->o[k].start && va < w->o[k].end)
				return w->o[k].name;
	}
	return NULL;
}

/* ------------------------------------------------------------ tallies */

static struct wth *
thread_of(struct wall *wl, uint32_t pid, uint32_t tid)
{
	void *p;
	size_t i;

	for (i = 0; i < wl->nth; i++)
		if (wl->th[i].tid == tid && wl->th[i].pid == pid)
			return &wl->th[i];
	if ((p = realloc(wl->th, (wl->nth + 1) * sizeof(*wl->th))) == NULL)
		return NULL;
	wl->th = p;
	memset(&wl->th[wl->nth], 0, sizeof(*wl->th));
	wl->th[wl->nth].pid = pid;
	wl->th[wl->nth].tid = tid;
	wl->th[wl->nth].first = UINT64_MAX;
	return &wl->th[wl->nth++];
}

static void
seen(struct wth *t, uint64_t a, uint64_t b)
{
	if (a < t->first)
		t->first = a;
	if (b > t->last)
		t->last = b;
}

static struct wrow *
row_of(struct wrow **rows, size_t *n, const char *name)
{
	void *p;
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*rows)[i].name == name || ((*rows)[i].name != NULL &&
		    name != NULL && strcmp((*rows)[i].name, name) == 0))
			return &(*rows)[i];
	if ((p = realloc(*rows, (*n + 1) * sizeof(**rows))) == NULL)
		return NULL;
	*rows = p;
	memset(&(*rows)[*n], 0, sizeof(**rows));
	(*rows)[*n].name = name;
	return &(*rows)[(*n)++];
}

/* Adds ns of state to each routine of the stack, once each. */
static void
book_stack(struct wall *wl, const char **names, size_t n, int state,
    uint64_t ns)
{
	struct wrow *r;
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (names[i] == NULL)
			continue;
		for (j = 0; j < i && names[j] != names[i]; j++)
			;
		if (j < i)
			continue;
		if ((r = row_of(&wl->rt, &wl->nrt, names[i])) != NULL)
			r->st[state] += ns;
	}
}

/* Counts an interval once for each routine of its stack. */
static void
book_count(struct wall *wl, const char **names, size_t n)
{
	struct wrow *r;
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && names[j] != names[i]; j++)
			;
		if (names[i] != NULL && j == i &&
		    (r = row_of(&wl->rt, &wl->nrt, names[i])) != NULL)
			r->count++;
	}
}

/* The routines of pc and frames (return addresses: looked up at the
 * call), at most max. */
static size_t
names_of(struct wall *wl, uint32_t pid, uint64_t time, uint64_t pc,
    const uint64_t *fr, uint32_t nfr, const char **out, size_t max)
{
	size_t n = 0;
	uint32_t i;

	if (pc != 0)
		out[n++] = routine_at(wl, pid, time, pc);
	for (i = 0; i < nfr && n < max; i++)
		out[n++] = routine_at(wl, pid, time, fr[i] - 1);
	return n;
}

/* A name with its leading underscores skipped. */
static const char *
bare(const char *s)
{
	while (*s == '_')
		s++;
	return s;
}

static int
prefixed(const char *s, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strncmp(s, *list, strlen(*list)) == 0)
			return 1;
	return 0;
}

static const char *const lock_names[] = { "pthread_mutex_", "lll_lock",
    "pthread_rwlock_", "sem_", "new_sem_", "pthread_spin_", "mtx_", NULL };
static const char *const cond_names[] = { "pthread_cond_",
    "pthread_barrier_", "pthread_join", "pthread_clockjoin",
    "pthread_timedjoin", "futex_abstimed_wait", "cnd_", "thrd_join",
    NULL };

/* A futex wait's state by its innermost user frame that names a lock or
 * a condition: other when none does.  *site: the frame after them. */
static int
futex_state(const char **names, size_t n, const char **site)
{
	int state = S_OTHER;
	size_t i;

	*site = NULL;
	for (i = 0; i < n; i++) {
		if (names[i] == NULL)
			continue;
		if (prefixed(bare(names[i]), lock_names)) {
			if (state == S_OTHER)
				state = S_LOCK;
		} else if (prefixed(bare(names[i]), cond_names)) {
			if (state == S_OTHER)
				state = S_COND;
		} else if (state != S_OTHER) {
			*site = names[i];
			return state;
		}
	}
	return state;
}

#define NAMES	256

static int
add_slice(struct wall *wl, uint32_t pid, uint32_t tid, uint64_t a,
    uint64_t b, int state, const char *where, const char *site)
{
	struct slice *s;
	void *p;

	if (b <= a)
		return 0;
	if (wl->nsl == wl->capsl) {
		if ((p = realloc(wl->sl, (wl->capsl * 2 + 64) *
		    sizeof(*wl->sl))) == NULL)
			return -1;
		wl->sl = p;
		wl->capsl = wl->capsl * 2 + 64;
	}
	s = &wl->sl[wl->nsl++];
	s->pid = pid;
	s->tid = tid;
	s->start = a;
	s->end = b;
	s->state = state;
	s->where = where;
	s->site = site;
	return 0;
}

static int
on_offcpu(void *arg, const struct pme_offcpu *o)
{
	struct wall *wl = arg;
	const char *names[NAMES], *site = NULL;
	uint64_t wake = o->wake != 0 ? o->wake : o->end, ns;
	struct wth *t;
	struct lwait *p;
	size_t n;
	int state;

	if ((t = thread_of(wl, o->pid, o->tid)) == NULL)
		return histo_err(wl->err, PME_ENOMEM, "out of memory");
	seen(t, o->start, o->end);
	wl->nintervals++;
	t->nint++;
	n = names_of(wl, o->pid, o->start, o->pc, o->frames, o->nframes,
	    names, NAMES);
	state = class_state[o->kclass];
	if (o->kclass == PME_WC_FUTEX || o->kclass == PME_WC_UNKNOWN)
		state = futex_state(names, n, &site);
	ns = wake - o->start;
	t->st[state] += ns;
	t->st[S_WAITCPU] += o->end - wake;
	book_stack(wl, names, n, state, ns);
	book_count(wl, names, n);
	book_line(wl, o->pid, o->start, o->pc, o->frames, o->nframes, state,
	    ns);
	book_line(wl, o->pid, o->start, o->pc, o->frames, o->nframes,
	    S_WAITCPU, o->end - wake);
	if (wl->in->timeline && (add_slice(wl, o->pid, o->tid, o->start,
	    wake, state, n > 0 ? names[0] : NULL, site) == -1 ||
	    add_slice(wl, o->pid, o->tid, wake, o->end, S_WAITCPU,
	    n > 0 ? names[0] : NULL, site) == -1))
		return histo_err(wl->err, PME_ENOMEM, "out of memory");
	book_stack(wl, names, n, S_WAITCPU, o->end - wake);
	if ((state != S_LOCK && state != S_COND) || ns < wl->in->lockmin)
		return 0;
	if ((p = realloc(wl->lw, (wl->nlw + 1) * sizeof(*wl->lw))) == NULL)
		return histo_err(wl->err, PME_ENOMEM, "out of memory");
	wl->lw = p;
	p = &wl->lw[wl->nlw++];
	memset(p, 0, sizeof(*p));
	p->ns = ns;
	p->object = o->object;
	p->tid = o->tid;
	p->pid = o->pid;
	p->time = o->start;
	p->state = state;
	p->site = site;
	p->waker = o->waker;
	p->haswaker = (o->flags & PME_OFF_WAKER) != 0;
	return 0;
}

static int
on_header(void *arg, const struct pme_sample_header *h)
{
	struct wall *wl = arg;
	uint32_t i;

	if (h->flags & PME_SHDR_WALL)
		wl->wallrun = 1;
	/* The on-CPU split is the clock's samples' (-e may have put
	 * another event first). */
	wl->clock = h->nevents == 0 ? 0 : UINT32_MAX;
	for (i = 0; i < h->nevents && wl->clock == UINT32_MAX; i++)
		if (h->events[i].unit != NULL &&
		    strcmp(h->events[i].unit, "ns") == 0)
			wl->clock = i;
	return 0;
}

static int
on_mapping(void *arg, const struct pme_mapping *m)
{
	struct wall *wl = arg;

	return pme_addrmap_mapping(wl->am, m, wl->err) == -1 ? -1 : 0;
}

/* A thread record's name, creation and end. */
static int
thread_record(struct wall *wl, const struct pme_thread *r)
{
	struct wth *t;
	char name[64] = "";

	/* A new thread has its creator's name until it names itself. */
	if (r->kind == PME_THREAD_FORK && (t = thread_of(wl, r->ppid,
	    r->ptid)) != NULL)
		memcpy(name, t->name, sizeof(name));
	if ((t = thread_of(wl, r->pid, r->tid)) == NULL)
		return histo_err(wl->err, PME_ENOMEM, "out of memory");
	seen(t, r->time, r->time);
	if (r->name != NULL || name[0] != '\0')
		snprintf(t->name, sizeof(t->name), "%s", r->name != NULL ?
		    r->name : name);
	if (r->kind == PME_THREAD_FORK || (r->kind == PME_THREAD_EXEC &&
	    !t->hasstart)) {
		t->start = r->time;
		t->hasstart = 1;
	} else if (r->kind == PME_THREAD_EXIT) {
		t->end = r->time;
		t->hasend = 1;
	}
	return 0;
}

static int
on_thread(void *arg, const struct pme_thread *r)
{
	struct wall *wl = arg;

	if (pme_addrmap_thread(wl->am, r, wl->err) == -1)
		return -1;
	return thread_record(wl, r);
}

/*
 * The time on a CPU that clock sample s stands for: its thread's, its
 * lifetime less its off-CPU intervals, in user code or in the kernel
 * (finish_threads()), shared out among its samples there in equal parts
 * that add up to it exactly; the sample's interval where the threads'
 * times are not known.
 */
static uint64_t
cpu_share(struct wall *wl, const struct pme_sample *s)
{
	struct wth *t;
	uint64_t all, n, j;
	int kern = (s->flags & PME_SAMPLE_KERNEL) != 0;

	if (wl->times == NULL || (t = thread_of(wl->times, s->pid,
	    s->tid)) == NULL)
		return s->weight;
	all = t->st[kern ? S_SYSTEM : S_USER];
	n = kern ? t->ksamp : t->usamp;
	j = kern ? t->kj++ : t->uj++;
	if (j >= n)
		return 0;
	return (uint64_t)((unsigned __int128)all * (j + 1) / n -
	    (unsigned __int128)all * j / n);
}

/* Clock sample s counted in its thread, user or kernel; its thread, or
 * NULL when out of memory. */
static struct wth *
clock_sample(struct wall *wl, const struct pme_sample *s)
{
	struct wth *t;

	if ((t = thread_of(wl, s->pid, s->tid)) == NULL)
		return NULL;
	seen(t, s->time, s->time);
	if (s->flags & PME_SAMPLE_KERNEL)
		t->ksamp++;
	else
		t->usamp++;
	return t;
}

static int
on_samples(void *arg, const struct pme_sample *s, size_t n)
{
	struct wall *wl = arg;
	const char *names[NAMES];
	uint64_t w;
	size_t i, k;
	int kern;

	for (i = 0; i < n; i++) {
		if (s[i].event != wl->clock)
			continue;
		if (clock_sample(wl, &s[i]) == NULL)
			return histo_err(wl->err, PME_ENOMEM, "out of memory");
		kern = (s[i].flags & PME_SAMPLE_KERNEL) != 0;
		k = names_of(wl, s[i].pid, s[i].time, kern ? 0 : s[i].pc,
		    s[i].frames, s[i].nframes, names, NAMES);
		w = cpu_share(wl, &s[i]);
		book_stack(wl, names, k, kern ? S_SYSTEM : S_USER, w);
		book_line(wl, s[i].pid, s[i].time, kern ? 0 : s[i].pc,
		    s[i].frames, s[i].nframes, kern ? S_SYSTEM : S_USER, w);
	}
	return 0;
}

/* The times pass: the threads' lives, their samples and off-CPU time. */
static int
times_thread(void *arg, const struct pme_thread *r)
{
	return thread_record(arg, r);
}

static int
times_samples(void *arg, const struct pme_sample *s, size_t n)
{
	struct wall *wl = arg;
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i].event == wl->clock && clock_sample(wl, &s[i]) == NULL)
			return histo_err(wl->err, PME_ENOMEM, "out of memory");
	return 0;
}

/* An interval's time, all of it in other: only the sum counts here. */
static int
times_offcpu(void *arg, const struct pme_offcpu *o)
{
	struct wall *wl = arg;
	struct wth *t;

	if ((t = thread_of(wl, o->pid, o->tid)) == NULL)
		return histo_err(wl->err, PME_ENOMEM, "out of memory");
	seen(t, o->start, o->end);
	t->st[S_OTHER] += o->end - o->start;
	return 0;
}

static void	finish_threads(struct wall *);

/* Each thread's time on a CPU, user and system (finish_threads()), of
 * the sample files, into times: so that its samples share it out. */
static int
thread_times(struct wall *times, const char *const *paths, size_t n,
    struct pme_error *err)
{
	static const struct pme_sample_visitor v = {
		on_header, NULL, times_thread, times_samples, NULL
	};
	size_t i;

	memset(times, 0, sizeof(*times));
	times->err = err;
	for (i = 0; i < n; i++)
		if (pme_samplefile_read_offcpu(paths[i], &v, times_offcpu,
		    times, NULL, err) == -1)
			return -1;
	finish_threads(times);
	return 0;
}

/* The on-CPU rest of each thread's lifetime, split by its samples. */
static void
finish_threads(struct wall *wl)
{
	struct wth *t;
	uint64_t life, off, cpu;
	int s;

	for (t = wl->th; t < wl->th + wl->nth; t++) {
		if (!t->hasstart)
			t->start = t->first;
		if (!t->hasend)
			t->end = t->last;
		life = t->end > t->start ? t->end - t->start : 0;
		for (off = 0, s = S_WAITCPU; s < NSTATE; s++)
			off += t->st[s];
		cpu = life > off ? life - off : 0;
		t->st[S_SYSTEM] = t->usamp + t->ksamp == 0 ? 0 :
		    (uint64_t)((double)cpu * (double)t->ksamp /
		    (double)(t->usamp + t->ksamp));
		t->st[S_USER] = cpu - t->st[S_SYSTEM];
	}
}

/* ----------------------------------------------------------- timeline */

static int
cmp_slices(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* n * num / den, den > 0, without overflow. */
static uint64_t
share(uint64_t n, uint64_t num, uint64_t den)
{
	return (uint64_t)((unsigned __int128)n * num / den);
}

/*
 * The on-CPU slices of t, whose off-CPU slices are wl->sl[lo..hi) in
 * time order: the stretches of its lifetime outside them, each split
 * into user then system time in proportion to its length, so that the
 * user and system slices sum to t's user and system states exactly.
 * Shares are cumulated, then rounded down: a stretch's CPU time is
 * x(end) - x(start) of x(c) = cpu * c / total, c the stretches' length
 * so far, never more than the stretch; its system time the same of
 * the CPU time so far, never more than its CPU time.  Which part of a
 * stretch was in the kernel is not known: the samples give the split
 * of the whole thread only.
 */
static int
oncpu_slices(struct wall *wl, const struct wth *t, size_t lo, size_t hi)
{
	uint64_t cpu = t->st[S_USER] + t->st[S_SYSTEM], a, b, len, u, total = 0,
	    cum = 0, x0 = 0, x1, s0 = 0, s1;
	int pass;
	size_t i;

	if (cpu == 0)
		return 0;

	for (pass = 0; pass < 2; pass++)
		for (a = t->start, i = lo; i <= hi; i++) {
			b = i < hi && wl->sl[i].start < t->end ?
			    wl->sl[i].start : t->end;
			if (b > a) {
				len = b - a;
				if (pass == 0)
					total += len;
				else {
					cum += len;
					x1 = share(cpu, cum, total);
					s1 = share(t->st[S_SYSTEM], x1, cpu);
					u = x1 - x0 - (s1 - s0);
					if (add_slice(wl, t->pid, t->tid, a,
					    a + u, S_USER, NULL, NULL) == -1 ||
					    add_slice(wl, t->pid, t->tid,
					    a + u, a + x1 - x0, S_SYSTEM, NULL,
					    NULL) == -1)
						return -1;
					x0 = x1;
					s0 = s1;
				}
			}
			if (i < hi && wl->sl[i].end > a)
				a = wl->sl[i].end;
		}
	return 0;
}

/* The off-CPU slices' range of thread t, of slices sorted by thread:
 * *lo the first, the return the end. */
static size_t
slices_of(const struct wall *wl, const struct wth *t, size_t n, size_t *lo)
{
	size_t i = 0, j = n, m;

	while (i < j) {
		m = (i + j) / 2;
		if (wl->sl[m].pid < t->pid || (wl->sl[m].pid == t->pid &&
		    wl->sl[m].tid < t->tid))
			i = m + 1;
		else
			j = m;
	}
	for (*lo = i; i < n && wl->sl[i].pid == t->pid &&
	    wl->sl[i].tid == t->tid; i++)
		;
	return i;
}

/* Every thread's lifetime as slices: its off-CPU intervals and the
 * on-CPU rest, sorted by thread and time. */
static int
all_slices(struct wall *wl)
{
	size_t n = wl->nsl, lo, hi, i;

	if (n > 1)
		qsort(wl->sl, n, sizeof(*wl->sl), cmp_slices);
	for (i = 0; i < wl->nth; i++) {
		hi = slices_of(wl, &wl->th[i], n, &lo);
		if (oncpu_slices(wl, &wl->th[i], lo, hi) == -1)
			return histo_err(wl->err, PME_ENOMEM, "out of memory");
	}
	if (wl->nsl > 1)
		qsort(wl->sl, wl->nsl, sizeof(*wl->sl), cmp_slices);
	return 0;
}

/* ------------------------------------------------------------ reports */

static uint64_t
wall_of(const uint64_t *st)
{
	uint64_t w = 0;
	int s;

	for (s = 0; s < NSTATE; s++)
		w += st[s];
	return w;
}

static void
put_name(FILE *fp, const char *name)
{
	char buf[256];

	pme_escape(buf, sizeof(buf), name != NULL ? name : "[unknown]");
	fputs(buf, fp);
}

/*
 * A row of a state table: in CSV "key,name,wall,STATES,intervals"; as
 * text the thread id (key, when tid is set), the wall time and the
 * states in ms, the name last, where a long one shifts no column (the
 * Analyzer's function list, perf report's symbol).
 */
static void
put_row(FILE *fp, int csv, int tid, const char *key, const char *name,
    const uint64_t *st, uint64_t n)
{
	int s;

	if (csv) {
		fprintf(fp, "%s,", key);
		put_name(fp, name);
		fprintf(fp, ",%" PRIu64, wall_of(st));
		for (s = 0; s < NSTATE; s++)
			fprintf(fp, ",%" PRIu64, st[s]);
		fprintf(fp, ",%" PRIu64 "\n", n);
		return;
	}
	if (tid)
		fprintf(fp, "%-8s ", key);
	fprintf(fp, "%10.3f", (double)wall_of(st) / 1e6);
	for (s = 0; s < NSTATE; s++)
		fprintf(fp, " %10.3f", (double)st[s] / 1e6);
	fputs("  ", fp);
	put_name(fp, name);
	fputc('\n', fp);
}

/* The heading of a state table: first names the rows' kind. */
static void
put_heading(FILE *fp, const char *first, int tid, int csv)
{
	int s;

	if (csv)
		fprintf(fp, "%s,name,wall", first);
	else
		fprintf(fp, "%s%10s", tid ? "TID      " : "", "WALL");
	for (s = 0; s < NSTATE; s++)
		fprintf(fp, csv ? ",%s" : " %10s", state_names[s]);
	if (csv)
		fputs(",intervals\n", fp);
	else
		fprintf(fp, "  %s\n", first);
}

static int
cmp_rows(const void *a, const void *b)
{
	uint64_t x = wall_of(((const struct wrow *)a)->st);
	uint64_t y = wall_of(((const struct wrow *)b)->st);

	return x > y ? -1 : x < y;
}

/* The program's lines: "file:line", the file's last component. */
static void
write_lines(struct wall *wl, FILE *fp)
{
	int csv = wl->in->csv;
	char name[512];
	const char *f;
	size_t i;

	if (wl->nln > 1)
		qsort(wl->ln, wl->nln, sizeof(*wl->ln), cmp_rows);
	if (!csv)
		fprintf(fp, "\nWall time by state per line of the program, "
		    "exclusive (ms; on CPU from the samples)\n\n");
	put_heading(fp, csv ? "line" : "LINE", 0, csv);
	for (i = 0; i < wl->nln; i++) {
		f = strrchr(wl->ln[i].file, '/');
		snprintf(name, sizeof(name), "%s:%" PRIu32, f != NULL ? f + 1 :
		    wl->ln[i].file, wl->ln[i].line);
		put_row(fp, csv, 0, "line", name, wl->ln[i].st,
		    wl->ln[i].count);
	}
}

static void
write_states(struct wall *wl, FILE *fp)
{
	int csv = wl->in->csv;
	char id[64];
	size_t i;

	if (!csv)
		fprintf(fp, "Wall time by state per thread (ms): %zu threads, "
		    "%" PRIu64 " off-CPU intervals\n\n", wl->nth,
		    wl->nintervals);
	put_heading(fp, csv ? "thread" : "NAME", !csv, csv);
	for (i = 0; i < wl->nth; i++) {
		snprintf(id, sizeof(id), "%" PRIu32, wl->th[i].tid);
		put_row(fp, csv, 1, id, wl->th[i].name, wl->th[i].st,
		    wl->th[i].nint);
	}
	if (wl->nrt > 1)
		qsort(wl->rt, wl->nrt, sizeof(*wl->rt), cmp_rows);
	if (!csv)
		fprintf(fp, "\nWall time by state per routine, inclusive "
		    "(ms; on CPU from the samples)\n\n");
	put_heading(fp, csv ? "routine" : "ROUTINE", 0, csv);
	for (i = 0; i < wl->nrt; i++)
		put_row(fp, csv, 0, "routine", wl->rt[i].name, wl->rt[i].st,
		    wl->rt[i].count);
	write_lines(wl, fp);
}

static int
cmp_waits(const void *a, const void *b)
{
	const struct lwait *x = a, *y = b;

	return x->ns > y->ns ? -1 : x->ns < y->ns;
}

/* A wait's object, named or as an address, into buf. */
static const char *
object_name(struct wall *wl, const struct lwait *w, char *buf, size_t len)
{
	const char *n = object_at(wl, w->pid, w->object);

	if (n != NULL)
		pme_escape(buf, len, n);
	else
		snprintf(buf, len, "0x%" PRIx64, w->object);
	return buf;
}

static void
put_lock_rows(FILE *fp, struct wrow *rows, size_t n, const char *what,
    int csv)
{
	size_t i;

	if (n > 1)
		qsort(rows, n, sizeof(*rows), cmp_rows);
	if (!csv)
		fprintf(fp, "%8s %12s %12s %12s  %s\n", "COUNT", "TOTAL(ms)",
		    "MEAN(ms)", "MAX(ms)", what);
	for (i = 0; i < n; i++) {
		uint64_t tot = rows[i].st[S_LOCK] + rows[i].st[S_COND];

		if (csv) {
			fprintf(fp, "%s,", what[0] == 'O' ? "object" : "site");
			put_name(fp, rows[i].name);
			fprintf(fp, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
			    PRIu64 "\n", rows[i].count, tot,
			    tot / rows[i].count, rows[i].max);
			continue;
		}
		fprintf(fp, "%8" PRIu64 " %12.3f %12.3f %12.3f  ",
		    rows[i].count, (double)tot / 1e6, (double)tot / 1e6 /
		    (double)rows[i].count, (double)rows[i].max / 1e6);
		put_name(fp, rows[i].name);
		fputc('\n', fp);
	}
}

static void
add_wait(struct wrow *r, const struct lwait *w)
{
	if (r == NULL)
		return;
	r->count++;
	r->st[w->state] += w->ns;
	if (w->ns > r->max)
		r->max = w->ns;
}

static int
write_locks(struct wall *wl, FILE *fp)
{
	struct wrow *obj = NULL, *site = NULL;
	size_t nobj = 0, nsite = 0, i;
	char buf[256], waker[16], *names = NULL;
	int csv = wl->in->csv;

	/* Object names are kept as long as the rows. */
	if (wl->nlw > 0 && (names = calloc(wl->nlw, 256)) == NULL)
		return histo_err(wl->err, PME_ENOMEM, "out of memory");
	for (i = 0; i < wl->nlw; i++) {
		object_name(wl, &wl->lw[i], names + 256 * i, 256);
		add_wait(row_of(&obj, &nobj, names + 256 * i), &wl->lw[i]);
		add_wait(row_of(&site, &nsite, wl->lw[i].site), &wl->lw[i]);
	}
	if (!csv)
		fprintf(fp, "Lock and condition waits of %.3f ms or more: "
		    "%zu\n\n", (double)wl->in->lockmin / 1e6, wl->nlw);
	put_lock_rows(fp, obj, nobj, "OBJECT", csv);
	if (!csv)
		fputc('\n', fp);
	put_lock_rows(fp, site, nsite, "CALL SITE", csv);
	if (wl->nlw > 1)
		qsort(wl->lw, wl->nlw, sizeof(*wl->lw), cmp_waits);
	if (!csv)
		fprintf(fp, "\nLongest waits\n%12s %-10s %-8s %-8s %-24s "
		    "%s\n", "TIME(ms)", "KIND", "TID", "WOKEN BY", "OBJECT",
		    "CALL SITE");
	for (i = 0; i < wl->nlw && i < 10; i++) {
		const struct lwait *w = &wl->lw[i];

		object_name(wl, w, buf, sizeof(buf));
		if (csv) {
			fprintf(fp, "wait,%s,%" PRIu64 ",%s,%" PRIu32 ",",
			    buf, w->ns, state_names[w->state], w->tid);
			put_name(fp, w->site);
			fprintf(fp, ",%" PRIu32 "\n", w->haswaker ? w->waker :
			    0);
			continue;
		}
		snprintf(waker, sizeof(waker), w->haswaker ? "%" PRIu32 :
		    "-", w->waker);
		fprintf(fp, "%12.3f %-10s %-8" PRIu32 " %-8s %-24s ",
		    (double)w->ns / 1e6, state_names[w->state], w->tid, waker,
		    buf);
		put_name(fp, w->site);
		fputc('\n', fp);
	}
	free(obj);
	free(site);
	free(names);
	return 0;
}

/* -W's time, "500us", "1ms", "2s" or "0", into *ns; 0, or -1. */
int
wall_parse_wait(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || !(v >= 0))
		return -1;
	if (*end == '\0' && v == 0) {
		*ns = 0;
		return 0;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].unit) == 0) {
			if (v * units[i].ns > 1e18)	/* 31 years */
				return -1;
			*ns = (uint64_t)(v * units[i].ns + 0.5);
			return 0;
		}
	return -1;
}

/* s as a JSON string: quotes, backslashes and control bytes escaped,
 * other bytes as they are (a name that is not UTF-8 stays so). */
static void
json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; s != NULL && *s != '\0'; s++)
		if (*s == '"' || *s == '\\')
			fprintf(fp, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(fp, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, fp);
	fputc('"', fp);
}

/* Chrome's trace event format: thread names, then a complete event
 * ("X") per slice, in microseconds from the first: off-CPU, with the
 * innermost routine of its stack and the call site; on-CPU, without. */
static void
write_timeline(struct wall *wl, FILE *fp)
{
	uint64_t t0 = UINT64_MAX;
	const char *sep = "";
	size_t i;

	for (i = 0; i < wl->nth; i++)
		if (wl->th[i].start < t0)
			t0 = wl->th[i].start;
	fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", fp);
	for (i = 0; i < wl->nth; i++, sep = ",\n") {
		fprintf(fp, "%s{\"ph\":\"M\",\"name\":\"thread_name\","
		    "\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":"
		    "{\"name\":", sep, wl->th[i].pid, wl->th[i].tid);
		json_str(fp, wl->th[i].name);
		fputs("}}", fp);
	}
	for (i = 0; i < wl->nsl; i++, sep = ",\n") {
		const struct slice *s = &wl->sl[i];

		fprintf(fp, "%s{\"ph\":\"X\",\"cat\":\"%s\",\"name\":"
		    "\"%s\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":"
		    "%.3f,\"dur\":%.3f,\"args\":{", sep, s->state <= S_SYSTEM ?
		    "on-cpu" : "off-cpu", state_names[s->state], s->pid, s->tid,
		    (double)(s->start - t0) / 1e3,
		    (double)(s->end - s->start) / 1e3);
		if (s->state <= S_SYSTEM) {
			fputs("}}", fp);
			continue;
		}
		fputs("\"routine\":", fp);
		json_str(fp, s->where != NULL ? s->where : "[unknown]");
		if (s->site != NULL) {
			fputs(",\"site\":", fp);
			json_str(fp, s->site);
		}
		fputs("}}", fp);
	}
	fputs("\n]}\n", fp);
}

static void
wall_free(struct wall *wl)
{
	size_t i, k;

	for (i = 0; i < wl->nimg; i++) {
		if (wl->img[i].path == NULL)
			continue;	/* a copy of another's */
		free(wl->img[i].path);
		pme_image_close(wl->img[i].img);
		free(wl->img[i].r);
		for (k = 0; k < wl->img[i].no; k++)
			free(wl->img[i].o[k].name);
		free(wl->img[i].o);
		pme_image_close(wl->img[i].limg);
		free(wl->img[i].l);
	}
	free(wl->img);
	free(wl->th);
	free(wl->rt);
	free(wl->ln);
	free(wl->lw);
	free(wl->sl);
	pme_addrmap_free(wl->am);
}

/* wall_free() of what wall_load() made, its threads' times with it. */
static void
wall_unload(struct wall *wl)
{
	if (wl->times != NULL) {
		wall_free(wl->times);
		free(wl->times);
	}
	wall_free(wl);
}

/* The files of in read into wl (to be freed by wall_free()), each
 * thread's states totalled; with in->timeline, its slices made. */
static int
wall_load(struct wall *wl, const struct wall_input *in,
    struct pme_error *err)
{
	static const struct pme_sample_visitor v = {
		on_header, on_mapping, on_thread, on_samples, NULL
	};
	struct pme_sample_summary sum;
	size_t i;

	memset(wl, 0, sizeof(*wl));
	wl->in = in;
	wl->err = err;
	if ((wl->times = calloc(1, sizeof(*wl->times))) == NULL)
		return histo_err(err, PME_ENOMEM, "out of memory");
	if (thread_times(wl->times, in->samples, in->nsamples, err) == -1 ||
	    (wl->am = pme_addrmap_new(err)) == NULL)
		return -1;
	for (i = 0; i < in->nsamples; i++) {
		memset(&sum, 0, sizeof(sum));
		if (pme_samplefile_read_offcpu(in->samples[i], &v, on_offcpu,
		    wl, &sum, err) == -1)
			return -1;
		histo_warn_cut(in->prog, in->samples[i], &sum, "the view "
		    "shows the threads' time up to the last record read");
		if (in->sum != NULL)
			*in->sum = sum;
	}
	if (!wl->wallrun)
		return histo_err(err, PME_EINVAL, "'%s': no wall-time records "
		    "(record them with pmeclock -w)", in->samples[0]);
	finish_threads(wl);
	return in->timeline ? all_slices(wl) : 0;
}

int
wall_timeline(const struct wall_input *in, const struct wall_visitor *v,
    void *arg, struct pme_error *err)
{
	struct wall_input tin = *in;
	struct wall_thread t;
	struct wall_slice sl;
	struct wall wl;
	size_t i, k, lo, hi;
	int rc = -1;

	tin.timeline = 1;
	if (wall_load(&wl, &tin, err) == -1)
		goto out;
	for (i = 0; i < wl.nth; i++) {
		t = (struct wall_thread){ wl.th[i].pid, wl.th[i].tid,
		    wl.th[i].name, wl.th[i].start, wl.th[i].end,
		    wl.th[i].st };
		if (v->thread(arg, &t) != 0)
			goto stop;
		hi = slices_of(&wl, &wl.th[i], wl.nsl, &lo);
		for (k = lo; k < hi; k++) {
			sl = (struct wall_slice){ wl.sl[k].pid, wl.sl[k].tid,
			    wl.sl[k].start, wl.sl[k].end, wl.sl[k].state,
			    wl.sl[k].where, wl.sl[k].site };
			if (v->slice(arg, &sl) != 0)
				goto stop;
		}
	}
	rc = 0;
	goto out;
stop:
	if (err->code == PME_OK)
		histo_err(err, PME_EINVAL, "stopped");
out:
	wall_unload(&wl);
	return rc;
}

int
wall_write(const struct wall_input *in, FILE *fp, struct pme_error *err)
{
	struct wall wl;
	int rc = -1;

	if (wall_load(&wl, in, err) == -1)
		goto out;
	if (in->timeline) {
		write_timeline(&wl, fp);
		rc = 0;
	} else if (in->locks)
		rc = write_locks(&wl, fp);
	else {
		write_states(&wl, fp);
		rc = 0;
	}
out:
	wall_unload(&wl);
	return rc;
}

/* ----------------------------------------------------------- measures */

/*
 * The measures a run's records make (pmehisto -M, pmehisto(1) Wall
 * time): one row each.  A state's is the time the -V states table books
 * to it, each interval at the stack it was recorded with (on the CPU, the
 * clock's samples, each its share of its thread's time there:
 * cpu_share()); wall is every state; the I/O calls' are -V io's time,
 * bytes and calls.  As the heap's measures are
 * samples the reader makes of the heap records, these are samples
 * wall_read() makes of the off-CPU and I/O records, of an event it adds
 * to the run's header: so every view, export, diff and gate counts them
 * as it counts any measure.
 */
enum { M_WALL = NSTATE, M_IOTIME, M_IOBYTES, M_IOCALLS };

#define OFF	"pmeclock -w's off-CPU intervals, exact"
#define CPU	"each thread's lifetime less those, shared among its clock " \
		"samples"
static const struct wmeasure {
	const char	*name;
	const char	*unit;
	int		 what;		/* S_*, or M_* */
	const char	*says;		/* what the counts are */
} wmeasures[] = {
	{ "wall", "ns", M_WALL, "wall time: " OFF ", and " CPU },
	{ "user", "ns", S_USER, "on a CPU in user code: " CPU },
	{ "system", "ns", S_SYSTEM, "on a CPU in the kernel: " CPU },
	{ "wait-cpu", "ns", S_WAITCPU, "runnable, waiting for a CPU: " OFF },
	{ "lock", "ns", S_LOCK, "lock waits: " OFF },
	{ "condition", "ns", S_COND, "condition waits: " OFF },
	{ "io", "ns", S_IO, "I/O waits: " OFF },
	{ "fault", "ns", S_FAULT, "page fault waits: " OFF },
	{ "sleep", "ns", S_SLEEP, "sleeps: " OFF },
	{ "other", "ns", S_OTHER, "other waits: " OFF },
	{ "io-time", "ns", M_IOTIME, "the I/O calls' time: pmeclock -e io's "
	    "calls, exact" },
	{ "io-bytes", "bytes", M_IOBYTES, "the bytes the I/O calls moved: "
	    "pmeclock -e io's calls, exact" },
	{ "io-calls", "calls", M_IOCALLS, "the I/O calls: pmeclock -e io's, "
	    "exact" },
};
#define NWMEASURES	(sizeof(wmeasures) / sizeof(wmeasures[0]))

struct wread {
	const struct pme_sample_visitor *v;
	void		*arg;
	const struct wmeasure *m;
	const char	*path;
	struct wall	 wl;		/* the routines, for futex waits */
	struct wall	 times;		/* the threads' (thread_times()) */
	uint32_t	 ev;		/* the event added, or UINT32_MAX */
	int		 noio;		/* the file holds no I/O record */
	int		 rested;	/* wr_rest() done */
	int		 without;	/* a run without the records read */
	struct pme_sample_event evs[PME_EVENTS_MAX + 1];
	struct pme_sample *buf;
	size_t		 cap;
};

static const struct wmeasure *
wmeasure_find(const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < NWMEASURES; i++)
		if (strcmp(name, wmeasures[i].name) == 0)
			return &wmeasures[i];
	return NULL;
}

const char *
wall_measure(const char *name)
{
	const struct wmeasure *m = wmeasure_find(name);

	return m != NULL ? m->says : NULL;
}

const char *
wall_run_measure(size_t i)
{
	return i < NWMEASURES && wmeasures[i].what <= M_WALL ?
	    wmeasures[i].name : NULL;
}

static int
wr_io(const struct wread *wr)
{
	return wr->m->what >= M_IOTIME;
}

/* Whether measure m reads a sample file twice: first the threads' times
 * (on a CPU), or whether it holds an I/O record. */
static int
twice(const struct wmeasure *m)
{
	return m->what >= M_IOTIME || m->what == M_WALL || m->what == S_USER ||
	    m->what == S_SYSTEM;
}

int
wall_reads_twice(const char *name)
{
	const struct wmeasure *m = wmeasure_find(name);

	return m != NULL && twice(m);
}

/* The run's header, with the measure's event after its own: a run of
 * pmeclock -w for the states, a file with I/O records for the I/O
 * calls; another's as it is, which the caller then refuses as not
 * having the measure. */
static int
wr_header(void *arg, const struct pme_sample_header *h)
{
	struct wread *wr = arg;
	struct pme_sample_header h2;
	struct pme_sample_event *e;

	on_header(&wr->wl, h);
	wr->ev = UINT32_MAX;
	if (wr_io(wr) ? wr->noio : !(h->flags & PME_SHDR_WALL))
		wr->without = 1;
	if (wr->without || h->nevents == 0 || h->nevents >= PME_EVENTS_MAX)
		return wr->v->header != NULL ? wr->v->header(wr->arg, h) : 0;
	h2 = *h;
	memcpy(wr->evs, h->events, h->nevents * sizeof(*h->events));
	e = &wr->evs[h->nevents];
	memset(e, 0, sizeof(*e));
	e->name = wr->m->name;
	e->unit = wr->m->unit;
	e->kind = PME_EV_WALL;
	e->period = 1;
	h2.events = wr->evs;
	h2.nevents = h->nevents + 1;
	wr->ev = h->nevents;
	return wr->v->header != NULL ? wr->v->header(wr->arg, &h2) : 0;
}

static int
wr_mapping(void *arg, const struct pme_mapping *m)
{
	struct wread *wr = arg;

	if (pme_addrmap_mapping(wr->wl.am, m, wr->wl.err) == -1)
		return -1;
	return wr->v->mapping != NULL ? wr->v->mapping(wr->arg, m) : 0;
}

static int	wr_emit(struct wread *, uint32_t, uint32_t, uint64_t,
		    uint64_t, const uint64_t *, uint32_t, int, uint64_t);

/*
 * The time on a CPU of the threads that have no clock sample, which no
 * sample carries: at no address (unmapped), once each, at the thread's
 * end, so that a thread's wall time adds up to its lifetime.  Given with
 * the run's first samples or intervals (after its first mappings), so
 * that a file cut short keeps it; else at the run's close.
 */
static int
wr_rest(struct wread *wr)
{
	struct wth *t;
	size_t i;

	if (wr->rested || wr->wl.times == NULL || (wr->m->what != M_WALL &&
	    wr->m->what != S_USER))
		return 0;
	wr->rested = 1;
	for (i = 0; i < wr->times.nth; i++) {
		t = &wr->times.th[i];
		if (t->usamp + t->ksamp == 0 && wr_emit(wr, t->pid, t->tid,
		    t->end, 0, NULL, 0, 0, t->st[S_USER]) != 0)
			return -1;
	}
	return 0;
}

static int
wr_thread(void *arg, const struct pme_thread *t)
{
	struct wread *wr = arg;

	if (pme_addrmap_thread(wr->wl.am, t, wr->wl.err) == -1)
		return -1;
	return wr->v->thread != NULL ? wr->v->thread(wr->arg, t) : 0;
}

static int
wr_close(void *arg, const struct pme_sample_close *c)
{
	struct wread *wr = arg;

	if (wr_rest(wr) != 0)
		return -1;
	return wr->v->close != NULL ? wr->v->close(wr->arg, c) : 0;
}

/* Whether the clock's sample s is of the measure: wall, or its state. */
static int
on_cpu_of(const struct wread *wr, const struct pme_sample *s)
{
	int kern = (s->flags & PME_SAMPLE_KERNEL) != 0;

	if (s->event != wr->wl.clock || s->weight == 0)
		return 0;
	return wr->m->what == M_WALL || wr->m->what == (kern ? S_SYSTEM :
	    S_USER);
}

/* The batch, then its clock samples again as the measure's. */
static int
wr_samples(void *arg, const struct pme_sample *s, size_t n)
{
	struct wread *wr = arg;
	size_t i, k = 0;
	void *p;

	if (wr_rest(wr) != 0 || (wr->v->samples != NULL && n > 0 &&
	    wr->v->samples(wr->arg, s, n) != 0))
		return -1;
	if (wr->ev == UINT32_MAX || wr_io(wr) || wr->v->samples == NULL)
		return 0;
	if (n > wr->cap) {
		if ((p = realloc(wr->buf, n * sizeof(*wr->buf))) == NULL)
			return histo_err(wr->wl.err, PME_ENOMEM,
			    "out of memory");
		wr->buf = p;
		wr->cap = n;
	}
	for (i = 0; i < n; i++)
		if (on_cpu_of(wr, &s[i])) {
			wr->buf[k] = s[i];
			wr->buf[k].event = wr->ev;
			if ((wr->buf[k].weight = cpu_share(&wr->wl, &s[i])) > 0)
				k++;
		}
	return k > 0 ? wr->v->samples(wr->arg, wr->buf, k) : 0;
}

/* A sample of the measure at pc and its callers, weight w (none of 0);
 * its chain flagged as cut short when truncated, as a sample's is. */
static int
wr_emit(struct wread *wr, uint32_t pid, uint32_t tid, uint64_t time,
    uint64_t pc, const uint64_t *fr, uint32_t nfr, int truncated,
    uint64_t w)
{
	struct pme_sample s;

	if (w == 0 || wr->ev == UINT32_MAX || wr->v->samples == NULL)
		return 0;
	memset(&s, 0, sizeof(s));
	s.pc = pc;
	s.time = time;
	s.weight = w;
	s.pid = pid;
	s.tid = tid;
	s.cpu = UINT32_MAX;
	s.event = wr->ev;
	s.nframes = nfr;
	s.frames = nfr > 0 ? fr : NULL;
	if (truncated)
		s.flags |= PME_SAMPLE_TRUNCATED;
	return wr->v->samples(wr->arg, &s, 1);
}

/* An off-CPU interval as -V states books it: [start, wake) to its
 * state, [wake, end) to wait-cpu. */
static int
wr_offcpu(void *arg, const struct pme_offcpu *o)
{
	struct wread *wr = arg;
	const char *names[NAMES], *site;
	uint64_t wake = o->wake != 0 ? o->wake : o->end, w;
	int state = class_state[o->kclass], what = wr->m->what;
	size_t n;

	if (wr_rest(wr) != 0)
		return -1;
	if ((o->kclass == PME_WC_FUTEX || o->kclass == PME_WC_UNKNOWN) &&
	    (what == S_LOCK || what == S_COND || what == S_OTHER)) {
		n = names_of(&wr->wl, o->pid, o->start, o->pc, o->frames,
		    o->nframes, names, NAMES);
		state = futex_state(names, n, &site);
	}
	w = what == M_WALL ? o->end - o->start : (state == what ?
	    wake - o->start : 0) + (what == S_WAITCPU ? o->end - wake : 0);
	return wr_emit(wr, o->pid, o->tid, o->start, o->pc, o->frames,
	    o->nframes, (o->flags & PME_OFF_TRUNCATED) != 0, w);
}

static int
wr_iocall(void *arg, const struct pme_io *io)
{
	struct wread *wr = arg;
	uint64_t w = wr->m->what == M_IOTIME ? io->duration :
	    wr->m->what == M_IOBYTES ? io_bytes(io) : 1;

	return wr_emit(wr, io->pid, io->tid, io->start, io->pc, io->frames,
	    io->nframes, (io->flags & PME_IO_TRUNCATED) != 0, w);
}

static int
io_found(void *arg, const struct pme_io *io)
{
	(void)io;
	*(int *)arg = 1;
	return 1;	/* one is enough */
}

/* Whether the file at path holds an I/O record, read up to the first:
 * a run without is refused at its header, as it has not the measure. */
static int
has_io(const char *path)
{
	struct pme_error err;
	int found = 0;

	pme_samplefile_read_io(path, NULL, io_found, &found, NULL, &err);
	return found;
}

int
wall_read(const char *path, const char *want,
    const struct pme_sample_visitor *v, void *arg,
    struct pme_sample_summary *sum, struct pme_error *err)
{
	static const struct pme_sample_visitor wv = {
		wr_header, wr_mapping, wr_thread, wr_samples, wr_close
	};
	struct wread wr;
	int rc;

	memset(&wr, 0, sizeof(wr));
	if ((wr.m = wmeasure_find(want)) == NULL)
		return pme_samplefile_read(path, v, arg, sum, err);
	if (strcmp(path, "-") == 0 && twice(wr.m))
		return histo_err(err, PME_EINVAL, "standard input: -M %s "
		    "reads the sample file twice: give a sample file", want);
	wr.v = v;
	wr.arg = arg;
	wr.path = path;
	wr.wl.err = err;
	if (wr.m->what == M_WALL || wr.m->what == S_USER ||
	    wr.m->what == S_SYSTEM) {
		if (thread_times(&wr.times, &path, 1, err) == -1) {
			wall_free(&wr.times);
			return -1;
		}
		wr.wl.times = &wr.times;
	}
	if ((wr.wl.am = pme_addrmap_new(err)) == NULL) {
		wall_free(&wr.times);
		return -1;
	}
	wr.noio = wr_io(&wr) && !has_io(path);
	rc = wr_io(&wr) ? pme_samplefile_read_io(path, &wv, wr_iocall, &wr,
	    sum, err) : pme_samplefile_read_offcpu(path, &wv, wr_offcpu, &wr,
	    sum, err);
	if (rc == -1 && wr.without)
		histo_err(err, PME_EINVAL, wr.noio ? "'%s': -M %s: no I/O "
		    "calls recorded (pmeclock -e io records them)" : "'%s': -M "
		    "%s: no wall-time records (record them with pmeclock -w)",
		    path, want);
	free(wr.buf);
	wall_free(&wr.wl);
	wall_free(&wr.times);
	return rc;
}
