/*
 * reduce.c - tallies the samples of sample files into a bucket file.
 *
 * Each sample's (pid, time, pc) is rebased through the recorded mappings
 * to (mapping, link-time address); the mapping is resolved once to a load
 * module of the bucket file (by build-id, else by path, else the main
 * executable's flag) and the bucket looked up there.  The hot loop keeps
 * two caches so that most samples cost a few compares: the last mapping
 * hit (valid while no mapping record has a later time than the sample)
 * and the last bucket's range; a miss costs a page-table lookup
 * (lib/lookix.h, pme_lookix_find()).
 *
 * A sample file may hold several runs (pmemerge(1) joins them): each has
 * its own mappings, processes and threads, so each is rebased through an
 * address map of its own and counted as a run.
 *
 * The quick path makes its buckets of the files samples fell in, which
 * the whole sample file says (quickscan.c): in general the file is read
 * twice, the scan nested in the first batch of samples.  With t->sparse
 * it is read once, the scan beside the tally, and the samples counted by
 * address (run, mapping, pc) until the buckets are made at the end; the
 * counts then go where the two readings put them, in the order their
 * addresses were first seen (that of the samples that resolve a mapping
 * or make an entry of the foreign table).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histo.h"
#include "kallsyms.h"
#include "lookix.h"
#include "quick.h"
#include "util.h"

#define RES_FOREIGN	0x80000000u	/* resolution: foreign table index */
/* The sample flags a call chain is added with (add_chain()). */
#define CHAIN_FLAGS	(PME_SAMPLE_KERNEL | PME_SAMPLE_TRUNCATED)

struct live {			/* a mapping of a process, for overlaps */
	uint32_t	 pid;
	uint64_t	 start, end;
};

#define IDBITS		(1u << 22)	/* Linux's largest pid_max */

struct idset {			/* thread and process ids seen */
	uint64_t	*bits;		/* ids below IDBITS */
	uint32_t	*v;		/* larger ids + 1, 0 empty */
	size_t		 n, nv, cap;
};

/* A frame id computed (frame_id): the same address of the same process
 * gives the same id while no mapping or thread record comes between. */
#define FCACHE		4096		/* entries, a power of two */

struct fcache {
	uint64_t	 addr, id, va;
	uint32_t	 pid;
	uint32_t	 gen;		/* 0: empty; bit 31: kernel flag */
};

/*
 * Call chains as recorded (process, thread, kernel flag, pc, return
 * addresses), counted before their frames are resolved: a program's
 * samples repeat a few chains, and one hash of the raw addresses per
 * sample costs less than a frame lookup per address and a hash of the
 * resolved key.  Entries are kept in the order first seen and resolved in
 * that order (raw_flush), before the mappings change and at the end, so
 * that every table they feed sees the chains in the samples' order, as
 * when each sample was resolved as it came.
 */
struct rawent {
	uint64_t	 off;		/* of the key in pool */
	uint64_t	 hash;
	uint64_t	 count;		/* sampling intervals */
	uint64_t	 time;		/* of the first sample */
	uint32_t	 n;		/* key words: 3 + frames */
};

struct rawtab {
	struct rawent	*e;		/* in the order first seen */
	size_t		 ne, cape;
	uint32_t	*slot;		/* index + 1 into e, or 0: free */
	size_t		 nslot;		/* a power of two */
	uint64_t	*pool;
	size_t		 npool, cappool;
};

/* Entries or key words after which the table is resolved and emptied:
 * chains that never repeat would otherwise hold every sample. */
#define RAW_MAXENT	(1u << 16)
#define RAW_MAXPOOL	(1u << 21)
/* Samples after which the table is left when half their chains were new. */
#define RAW_TRIAL	4096

/* Samples of one address, counted until the buckets are made (t->sparse). */
struct defer {
	uint64_t	 pc, vaddr;	/* vaddr: link-time, with a mapping */
	uint64_t	 n, samples;	/* intervals; samples */
	uint32_t	 run, mi;	/* the run's address map, its mapping
					   (PME_NONE: in none) */
	int		 kernel;	/* with no mapping: the kernel's */
};

/* The bucket file's tables, once there is one, and the last bucket hit. */
struct bound {
	struct pme_bucket *bk;
	const struct pme_range *rng;
	const struct pme_module *mods;
	uint8_t		*mod_units;	/* module has units */
	int		 has_abs;	/* units of absolute addresses */
	const struct pme_lookix *ix;	/* the bucket file's index */
	int		 bvalid;	/* the bucket cache */
	uint32_t	 bmod, bidx;
	uint64_t	 blo, blen;
};

/* Samples to mappings, and mappings to modules: the last mapping hit
 * (the mapping cache), the processes' live mappings, each mapping's
 * resolution. */
struct mapres {
	int		 cvalid;
	uint32_t	 cpid;
	uint64_t	 clo, clen, cdelta;
	uint32_t	 cres;
	uint64_t	 maptime;	/* latest mapping or thread record */
	int		 overlap;	/* mappings of a process overlap */
	int		 otherbuild;	/* warned of another build */
	struct live	*live;
	size_t		 nlive, caplive;
	uint32_t	*res;		/* per mapping: module, foreign, or
					   PME_NONE when not yet resolved */
	size_t		 nres;
};

/* Call chains (-T folded, the views): one sample's frame ids, the ids of
 * recent addresses, the chains not yet resolved. */
struct chains {
	uint64_t	*ids;
	size_t		 capids;
	uint64_t	*vas;		/* add_chain_inl(): the frames'
					   addresses, capvas of them */
	size_t		 capvas;
	uint64_t	 truncid;	/* "[truncated]"'s frame id, or 0 */
	struct fcache	*fc;		/* frame ids of recent addresses */
	uint32_t	 fgen;		/* the mappings' generation: an entry
					   of another is stale */
	struct rawtab	 raw;		/* chains not yet resolved */
	uint64_t	 rawseen, rawnew;	/* samples it took, and new
					   chains of them */
	int		 rawoff;	/* it does not pay: chains seldom
					   repeat */
};

/* The quick path in one pass (t->sparse): the scan beside, and the
 * samples counted by address until the buckets are made. */
struct onepass {
	struct scan	*qs;
	struct pme_addrmap **ams;	/* the earlier runs' address maps */
	size_t		 nams;
	struct defer	*dv;		/* in the order first seen */
	size_t		 ndv, capdv;
	uint32_t	*dix;		/* dv's entries + 1 by address, 0 empty */
	size_t		 capdix;
	uint32_t	 cmi;		/* the mapping cache's mapping */
	struct pme_mapping one;		/* quick_start()'s file in want of a
					   scan's: the first batch's */
	int		 onefound;
};

/* What the file's runs say, for the tally's summary. */
struct runstat {
	uint64_t	 matched;	/* samples in the bucket file's modules
					   or in absolute buckets */
	uint64_t	 samples;
	uint64_t	 counted;	/* sampling intervals they stand for */
	uint64_t	 period;	/* of this file, ns */
	uint32_t	 last_tid, last_pid;
	int		 have_last;
	struct idset	 tids, pids;
	uint64_t	 start, start_mono, last_time;
	int		 header;	/* of this run: 0 none yet, 1 read,
					   2 closed too */
	uint64_t	 cut;		/* runs of the file cut short before
					   the next header */
};

/* The samples the filters keep (t->filter): the run's state, and a
 * batch's kept samples. */
struct sel {
	struct filter_run fr;
	struct pme_sample *v;
	size_t		 cap;
};

/* One sample file's reduction: a struct for each concern. */
struct run {
	struct tally	*t;
	const char	*path;
	struct pme_error *err;
	struct pme_addrmap *am;
	int		 failed;
	struct bound	 file;
	struct mapres	 map;
	struct chains	 chains;
	struct onepass	 pass;
	struct runstat	 stat;
	struct sel	 sel;
};

void
tally_init(struct tally *t, struct pme_bucketfile *bf)
{
	memset(t, 0, sizeof(*t));
	t->bf = bf;
	t->status = -1;
	t->prog = "pmehisto";
}

void
tally_free(struct tally *t)
{
	size_t i;

	for (i = 0; i < t->nforeign; i++)
		free(t->foreign[i].path);
	free(t->foreign);
	free(t->note);
	free(t->command);
	free(t->quick_path);
	stacks_free(t->stacks);
	stacks_free(t->pcs);
	stacks_free(t->tprocs);
	inlines_free(t->inl);
	symnames_free(t->syms);
	measure_free(&t->measure);
	for (i = 0; i < t->ntnames; i++)
		free(t->tnames[i].name);
	free(t->tnames);
}

/* Memory ran out; the error is the first one's, when the tally had
 * stopped already (other_build). */
static int
nomem(struct run *r)
{
	if (!r->failed)
		histo_err(r->err, PME_ENOMEM, "out of memory");
	r->failed = 1;
	return -1;
}

/* The scan beside (t->sparse) failed, its error said. */
static int
scan_failed(struct run *r)
{
	r->failed = 1;
	return -1;
}

/* ------------------------------------------------------------------ ids */

static int
idset_big(struct idset *s, uint32_t id)
{
	size_t i, mask;

	if (s->nv * 2 >= s->cap) {
		struct idset g;

		memset(&g, 0, sizeof(g));
		g.cap = s->cap ? s->cap * 2 : 64;
		if ((g.v = calloc(g.cap, sizeof(*g.v))) == NULL)
			return -1;
		for (i = 0; i < s->cap; i++)
			if (s->v[i] != 0)
				idset_big(&g, s->v[i] - 1);
		free(s->v);
		s->v = g.v;
		s->cap = g.cap;
	}
	mask = s->cap - 1;
	for (i = (id * 2654435761u) & mask; s->v[i] != 0; i = (i + 1) & mask)
		if (s->v[i] == id + 1)
			return 0;
	s->v[i] = id + 1;
	s->nv++;
	s->n++;
	return 0;
}

/* Adds id; the bitmap's pages are touched only where ids fall. */
static inline int
idset_add(struct idset *s, uint32_t id)
{
	uint64_t bit = (uint64_t)1 << (id & 63);

	if (id >= IDBITS)
		return idset_big(s, id);
	if (s->bits == NULL &&
	    (s->bits = calloc(IDBITS / 64, sizeof(*s->bits))) == NULL)
		return -1;
	if (s->bits[id >> 6] & bit)
		return 0;
	s->bits[id >> 6] |= bit;
	s->n++;
	return 0;
}

/* ------------------------------------------------------- the bucket file */

static int
bind_bucketfile(struct run *r)
{
	struct pme_bucketfile *bf = r->t->bf;
	const struct pme_unit *u;
	size_t nu, nm, i;

	pme_bucketfile_buckets(bf, &r->file.bk);
	pme_bucketfile_ranges(bf, &r->file.rng);
	nm = pme_bucketfile_modules(bf, &r->file.mods);
	nu = pme_bucketfile_units(bf, &u);
	if ((r->file.mod_units = calloc(nm + 1, 1)) == NULL)
		return nomem(r);
	if (pme_bucketfile_index(bf, r->err) == -1) {
		r->failed = 1;
		return -1;
	}
	r->file.ix = pme_bucketfile_lookix(bf);
	for (i = 0; i < nu; i++) {
		if (u[i].module == PME_NONE)
			r->file.has_abs = 1;
		else if (u[i].module < nm)
			r->file.mod_units[u[i].module] = 1;
	}
	r->t->nmods = nm;
	return 0;
}

/*
 * Samples in mapping m, which is no module of the bucket file: when it
 * names one of another build (why: PME_MATCH_OTHER*), the buckets are
 * not of the file that ran.  With t->remake (the quick path's bucket
 * file, made from symbols) the tally stops, t->stale set, for the caller
 * to make them again; so it does for a main executable none of whose
 * builds is in the file (another program), as the quick path's file
 * holds every file samples fell in.  A definition's (.PMD) file is the
 * user's: another build of a file it names (OTHERBUILD) is an error;
 * another main executable (OTHERMAIN alone: a wrapper's, or another
 * program's) counts outside, as a library it does not name does.
 * Returns -1 when the tally stops.
 */
static int
other_build(struct run *r, const struct pme_mapping *m, unsigned why)
{
	const char *path = m->path != NULL && m->path[0] != '\0' ? m->path :
	    "(the main executable)";

	if (r->t->remake && (why != 0 || (m->flags & PME_MAP_MAIN))) {
		r->t->stale = 1;
		r->failed = 1;
		histo_err(r->err, PME_EINVAL, "'%s': samples of %s '%s'",
		    r->path, why & PME_MATCH_OTHERBUILD ?
		    "another build of" : "another program,", path);
		return -1;
	}
	if (r->t->remake || !(why & PME_MATCH_OTHERBUILD))
		return 0;
	r->failed = 1;
	histo_err(r->err, PME_EINVAL, "'%s': samples of another build of "
	    "'%s' than '%s' has buckets of (build-id differs): make it "
	    "again from its definition (pmebuild), or use -x -B FILE for a "
	    "bucket per routine", r->path, path, r->t->bfname);
	return -1;
}

/* The bucket file's module for mapping m (pme_fill_match), or PME_NONE
 * (with r->failed when the tally stops: other_build); the first mapping
 * of another program's main executable is warned about. */
static uint32_t
match_module(struct run *r, const struct pme_mapping *m)
{
	unsigned why;
	uint32_t mod;

	mod = pme_fill_match(r->t->bf, (uint32_t)r->t->nmods, m->path,
	    m->buildid, m->buildid_len, (m->flags & PME_MAP_MAIN) != 0, 0,
	    &why);
	if (mod == PME_NONE && r->t->check && other_build(r, m, why) == -1)
		return PME_NONE;
	if (mod == PME_NONE && why != 0 && !r->map.otherbuild && !r->t->quiet) {
		r->map.otherbuild = 1;
		histo_warn(r->t->prog, "'%s': build-id differs from the "
		    "bucket file's: counted outside its buckets",
		    m->path != NULL ? m->path : "(the main executable)");
	}
	return mod;
}

/* The foreign table's entry for mapping m, added if new. */
static uint32_t
foreign_index(struct run *r, const struct pme_mapping *m)
{
	struct tally *t = r->t;
	const char *name = (m->flags & PME_MAP_KERNEL) ? "[kernel]" :
	    m->path == NULL || m->path[0] == '\0' ? "[anonymous]" : m->path;
	struct foreign *f;
	size_t i;

	for (i = 0; i < t->nforeign; i++)
		if (strcmp(t->foreign[i].path, name) == 0)
			return (uint32_t)i | RES_FOREIGN;
	if ((f = realloc(t->foreign, (t->nforeign + 1) * sizeof(*f))) == NULL)
		return PME_NONE;
	t->foreign = f;
	f += t->nforeign;
	f->count = 0;
	if ((f->path = strdup(name)) == NULL)
		return PME_NONE;
	return (uint32_t)t->nforeign++ | RES_FOREIGN;
}

/* The foreign entry for samples the kernel flagged and nothing mapped. */
static uint32_t
kernel_index(struct run *r)
{
	struct pme_mapping k;

	memset(&k, 0, sizeof(k));
	k.flags = PME_MAP_KERNEL;
	return foreign_index(r, &k);
}

static uint32_t
resolve(struct run *r, uint32_t mi)
{
	const struct pme_mapping *maps;
	size_t n = pme_addrmap_mappings(r->am, &maps);
	uint32_t res;

	if (mi >= r->map.nres) {
		size_t cap = n > mi ? n : (size_t)mi + 1, i;
		uint32_t *v = realloc(r->map.res, cap * sizeof(*v));

		if (v == NULL)
			return PME_NONE;
		for (i = r->map.nres; i < cap; i++)
			v[i] = PME_NONE;
		r->map.res = v;
		r->map.nres = cap;
	}
	if (r->map.res[mi] != PME_NONE)
		return r->map.res[mi];
	if ((res = match_module(r, &maps[mi])) == PME_NONE && !r->failed)
		res = foreign_index(r, &maps[mi]);
	return r->map.res[mi] = res;
}

/* The bucket of addr in module (PME_NONE: absolute), through the cache. */
static inline uint32_t
bucket_of(struct run *r, uint32_t module, uint64_t addr)
{
	struct pme_range in;
	uint32_t b;

	if (r->file.bvalid && module == r->file.bmod &&
	    addr - r->file.blo < r->file.blen)
		return r->file.bidx;
	if ((b = pme_lookix_find(r->file.ix, module, addr, &in)) != PME_NONE) {
		r->file.bvalid = 1;
		r->file.bmod = module;
		r->file.bidx = b;
		r->file.blo = in.start;
		r->file.blen = in.end - in.start;
	}
	return b;
}

/* ----------------------------------------------------------- callbacks */

static char *
join_argv(const struct pme_sample_header *h)
{
	size_t len = 1, i;
	char *s;

	for (i = 0; i < h->argc; i++)
		len += strlen(h->argv[i] ? h->argv[i] : "") + 1;
	if ((s = malloc(len)) == NULL)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < h->argc; i++) {
		if (i > 0)
			strcat(s, " ");
		strcat(s, h->argv[i] ? h->argv[i] : "");
	}
	return s;
}

/* The run's threads, processes and time into t: it is counted. */
static void
run_end(struct run *r)
{
	struct tally *t = r->t;

	if (r->stat.header != 2 && r->stat.last_time > r->stat.start_mono)
		t->duration += r->stat.last_time - r->stat.start_mono;
	t->threads += r->stat.tids.n;
	t->processes += r->stat.pids.n;
	t->files++;
}

static void
idset_clear(struct idset *s)
{
	free(s->v);
	free(s->bits);
	memset(s, 0, sizeof(*s));
}

static int	raw_flush(struct run *);

/* Another header: the run before ends, and the next starts with no
 * mapping, process or thread of its own. */
static int
run_next(struct run *r)
{
	if (raw_flush(r) == -1)
		return -1;
	if (r->stat.header == 1)
		r->stat.cut++;
	run_end(r);
	if (r->pass.qs != NULL) {
		/* Its counts by mapping are resolved at the end. */
		struct pme_addrmap **v = realloc(r->pass.ams,
		    (r->pass.nams + 1) * sizeof(*v));

		if (v == NULL)
			return nomem(r);
		r->pass.ams = v;
		r->pass.ams[r->pass.nams++] = r->am;
	} else
		pme_addrmap_free(r->am);
	if ((r->am = pme_addrmap_new(r->err)) == NULL) {
		r->failed = 1;
		return -1;
	}
	r->map.nres = 0;
	r->map.nlive = 0;
	r->map.cvalid = 0;
	r->chains.fgen = r->chains.fgen % 0x7fffffffu + 1;
	r->map.maptime = 0;
	r->map.overlap = 0;
	r->stat.have_last = 0;
	r->stat.last_time = 0;
	idset_clear(&r->stat.tids);
	idset_clear(&r->stat.pids);
	return 0;
}

/* A later run's command: the first run's is said with how many more ran
 * another ("./demo (and 3 more runs of other commands)"). */
static int
other_command(struct run *r, const struct pme_sample_header *h)
{
	struct tally *t = r->t;
	char *s, *more;

	if ((s = join_argv(h)) == NULL)
		return nomem(r);
	if (t->command == NULL || (strncmp(s, t->command,
	    t->command_len) == 0 && s[t->command_len] == '\0')) {
		free(s);
		return 0;
	}
	free(s);
	t->other_commands++;
	if (asprintf(&more, "%.*s (and %llu more run%s of other commands)",
	    (int)t->command_len, t->command,
	    (unsigned long long)t->other_commands,
	    t->other_commands == 1 ? "" : "s") == -1)
		return nomem(r);
	free(t->command);
	t->command = more;
	return 0;
}

static int
on_header(void *arg, const struct pme_sample_header *h)
{
	struct run *r = arg;
	struct tally *t = r->t;

	if (r->pass.qs != NULL && quick_scan_visitor.header(r->pass.qs, h) != 0)
		return scan_failed(r);

	if (r->stat.header != 0 && run_next(r) == -1)
		return -1;
	if (measure_run(&t->measure, h, r->path, r->err) == -1) {
		r->failed = 1;
		return -1;
	}
	filter_run_header(&r->sel.fr, h);
	r->stat.header = 1;
	r->stat.start = h->start;
	r->stat.period = measure_clock(&t->measure) ? h->period :
	    t->measure.period;
	r->stat.start_mono = h->start_mono;
	if (t->files == 0) {
		t->period = r->stat.period;
		t->method = h->method;
		t->event = h->event;
		if ((t->command = join_argv(h)) == NULL ||
		    (h->note != NULL && (t->note = strdup(h->note)) == NULL))
			return nomem(r);
		t->command_len = strlen(t->command);
		return 0;
	}
	if (r->stat.period != t->period)
		t->periods_differ = 1;
	return other_command(r, h);
}

static int
live_add(struct run *r, uint32_t pid, uint64_t start, uint64_t end)
{
	size_t i;

	for (i = 0; i < r->map.nlive && !r->map.overlap; i++)	/* once is enough */
		if (r->map.live[i].pid == pid && start < r->map.live[i].end &&
		    r->map.live[i].start < end)
			r->map.overlap = 1;
	if (r->map.nlive == r->map.caplive) {
		size_t cap = r->map.caplive ? r->map.caplive * 2 : 64;
		struct live *v = realloc(r->map.live, cap * sizeof(*v));

		if (v == NULL)
			return -1;
		r->map.live = v;
		r->map.caplive = cap;
	}
	r->map.live[r->map.nlive].pid = pid;
	r->map.live[r->map.nlive].start = start;
	r->map.live[r->map.nlive++].end = end;
	return 0;
}

static int
on_mapping(void *arg, const struct pme_mapping *m)
{
	struct run *r = arg;

	if (raw_flush(r) == -1)
		return -1;
	if (r->pass.qs != NULL &&
	    quick_scan_visitor.mapping(r->pass.qs, m) != 0)
		return scan_failed(r);
	r->map.cvalid = 0;
	r->chains.fgen = r->chains.fgen % 0x7fffffffu + 1;
	if (m->time > r->map.maptime)
		r->map.maptime = m->time;
	filter_run_record(&r->sel.fr, m->time);
	if (live_add(r, m->pid, m->start, m->end) == -1)
		return nomem(r);
	if (pme_addrmap_mapping(r->am, m, r->err) == -1) {
		r->failed = 1;
		return -1;
	}
	return 0;
}

/* Names thread th->tid of th->pid th->name (the latest name wins). */
static int
thread_name(struct tally *t, const struct pme_thread *th)
{
	struct tname *v;
	char *name;
	size_t i;

	if ((name = strdup(th->name)) == NULL)
		return -1;
	for (i = 0; i < t->ntnames; i++)
		if (t->tnames[i].pid == th->pid && t->tnames[i].tid == th->tid) {
			free(t->tnames[i].name);
			t->tnames[i].name = name;
			return 0;
		}
	if ((v = realloc(t->tnames, (t->ntnames + 1) * sizeof(*v))) == NULL) {
		free(name);
		return -1;
	}
	t->tnames = v;
	v[t->ntnames].pid = th->pid;
	v[t->ntnames].tid = th->tid;
	v[t->ntnames++].name = name;
	return 0;
}

static int
on_thread(void *arg, const struct pme_thread *th)
{
	struct run *r = arg;
	size_t i, n;

	if (raw_flush(r) == -1)
		return -1;
	if (r->pass.qs != NULL &&
	    quick_scan_visitor.thread(r->pass.qs, th) != 0)
		return scan_failed(r);
	r->map.cvalid = 0;
	r->chains.fgen = r->chains.fgen % 0x7fffffffu + 1;
	if (th->time > r->map.maptime)
		r->map.maptime = th->time;
	if (idset_add(&r->stat.pids, th->pid) == -1 ||
	    idset_add(&r->stat.tids, th->tid) == -1)
		return nomem(r);
	if (th->kind == PME_THREAD_EXEC) {
		for (i = n = 0; i < r->map.nlive; i++)
			if (r->map.live[i].pid != th->pid)
				r->map.live[n++] = r->map.live[i];
		r->map.nlive = n;
	} else if (th->kind == PME_THREAD_FORK && th->pid != th->ppid) {
		n = r->map.nlive;
		for (i = 0; i < n; i++)
			if (r->map.live[i].pid == th->ppid &&
			    live_add(r, th->pid, r->map.live[i].start,
			    r->map.live[i].end) == -1)
				return nomem(r);
	}
	if (pme_addrmap_thread(r->am, th, r->err) == -1) {
		r->failed = 1;
		return -1;
	}
	if (r->t->filter != NULL &&
	    filter_run_thread(r->t->filter, &r->sel.fr, th) == -1)
		return nomem(r);
	if (r->t->sites && th->name != NULL && (th->kind ==
	    PME_THREAD_COMM || th->kind == PME_THREAD_EXEC) &&
	    thread_name(r->t, th) == -1)
		return nomem(r);
	return 0;
}

int
quick_boot(int was, int first, const char *boot)
{
	char mine[PME_BOOT_MAX + 1];
	int run = QUICK_BOOT_UNKNOWN;

	if (boot != NULL)
		run = pme_boot_id(mine, sizeof(mine)) == 0 &&
		    strcmp(boot, mine) == 0 ? QUICK_BOOT_THIS :
		    QUICK_BOOT_OTHER;
	if (first || was == QUICK_BOOT_OTHER || run == QUICK_BOOT_OTHER)
		return first ? run : QUICK_BOOT_OTHER;
	return was == QUICK_BOOT_THIS && run == QUICK_BOOT_THIS ?
	    QUICK_BOOT_THIS : QUICK_BOOT_UNKNOWN;
}

/*
 * Whether runs of boot state boot (QUICK_BOOT_*) were recorded in this
 * boot, so that /proc/kallsyms has their kernel's addresses: by their
 * boot ids, or, when a run has none (a file of an earlier pmeclock), by
 * whether the first started (start, CLOCK_REALTIME ns) since this boot,
 * as /proc/stat's btime tells.
 */
static int
quick_this_boot(int boot, uint64_t start)
{
	unsigned long long btime = 0;
	char line[128];
	FILE *fp;

	if (boot != QUICK_BOOT_UNKNOWN)
		return boot == QUICK_BOOT_THIS;
	if ((fp = fopen("/proc/stat", "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "btime %llu", &btime) == 1)
			break;
	fclose(fp);
	return btime > 0 && start / 1000000000u >= btime;
}

/* See histo.h. */
int
quick_kernel(struct pme_kroutines *kr, const uint64_t *pcs, size_t n,
    int boot, uint64_t start)
{
	char *cache = NULL;
	int rc;

	if ((boot = quick_this_boot(boot, start)))
		cache = pme_ksyms_cachedir();
	rc = pme_quick_kernel_routines(kr, pcs, n, boot ? "/proc/kallsyms" :
	    NULL, cache);
	free(cache);
	return rc;
}

/* The kernel's rows of the quick path's bucket file bf, for q's kernel
 * samples (quick_kernel()). */
static int
add_kernel(struct tally *t, const struct quick_files *q,
    struct pme_error *err)
{
	struct pme_kroutines kr;
	int rc;

	if (quick_kernel(&kr, q->kpcs, q->nkpcs, q->boot, q->start) == -1)
		rc = pme_setnomem(err);
	else
		rc = pme_quick_add_kernel(t->bf, &kr, err);
	/* Said, as the kernel's samples and frames are one "[kernel]". */
	if (rc == 0 && kr.k.n == 0 && !t->quiet &&
	    quick_this_boot(q->boot, q->start))
		histo_warn(t->prog, "kernel routines not named: /proc/kallsyms "
		    "shows this user no addresses (kernel.kptr_restrict, "
		    "kernel.perf_event_paranoid)");
	pme_quick_kernel_free(&kr);
	return rc;
}

/*
 * The files the quick path makes buckets of: those samples fell in
 * (quick_scan() reads the sample file once before it is reduced), or,
 * from standard input, which cannot be read twice, the main mapping.
 */
/* The mapping whose file gets buckets when the scan finds none: the
 * main executable's, else the first executable file's, at the first
 * batch of samples. */
static const struct pme_mapping *
first_file(struct run *r)
{
	const struct pme_mapping *maps, *m = NULL;
	size_t n = pme_addrmap_mappings(r->am, &maps), i;

	for (i = 0; i < n && m == NULL; i++)
		if (maps[i].flags & PME_MAP_MAIN)
			m = &maps[i];
	for (i = 0; i < n && m == NULL; i++)
		if ((maps[i].flags & PME_MAP_EXEC) &&
		    !(maps[i].flags & PME_MAP_KERNEL) && maps[i].path &&
		    maps[i].path[0] == '/')
			m = &maps[i];
	return m;
}

static int quick_make(struct run *, struct quick_files *,
    const struct pme_mapping *);

static int
quick_start(struct run *r)
{
	struct quick_files q;

	memset(&q, 0, sizeof(q));
	if (strcmp(r->path, "-") != 0) {
		if (quick_scan(r->path, &q, r->err) == -1) {
			r->failed = 1;
			return -1;
		}
	}
	return quick_make(r, &q, q.n == 0 ? first_file(r) : NULL);
}

static void	quick_unmade(const struct tally *t,
		    const struct pme_quick_image *v, size_t n);

/* The bucket file of q's files, else of m's, bound; q is freed.  (m's
 * image is apart from q: q->files, which quick_files_free() frees, holds
 * q->n entries, and may hold a freed one beyond them.) */
static int
quick_make(struct run *r, struct quick_files *q, const struct pme_mapping *m)
{
	struct tally *t = r->t;
	struct pme_quick_image one;
	const struct pme_quick_image *v = q->v;
	size_t n = q->n;
	const char *base;

	if (m != NULL && n == 0) {
		one.path = m->path;
		one.buildid = m->buildid;
		one.idlen = m->buildid_len;
		one.flags = PME_MODULE_MAIN;
		v = &one;
		n = 1;
	}
	if (n == 0) {
		quick_files_free(q);
		r->failed = 1;
		return histo_err(r->err, PME_EFORMAT, "'%s': no executable "
		    "mapping recorded before the first sample: no routines "
		    "to make buckets of", r->path);
	}
	base = strrchr(v[0].path, '/');
	if ((t->quick_path = strdup(v[0].path)) == NULL)
		r->failed = 1;
	else if ((t->bf = pme_quick_build_sampled(v, n, base ? base + 1 :
	    v[0].path, q->addrs, q->naddrs, &t->unmade, r->err)) == NULL ||
	    (q->nkpcs > 0 && add_kernel(t, q, r->err) == -1))
		r->failed = 1;
	if (!r->failed)
		quick_unmade(t, v, n);
	quick_files_free(q);
	if (r->failed)
		return t->quick_path == NULL ? nomem(r) : -1;
	return bind_bucketfile(r);
}

/* Says which programs of v the quick path's bucket file has no module of
 * (their file gone or rebuilt since the run, or one no path opens, a
 * program run from a memfd): their samples are outside its buckets. */
static void
quick_unmade(const struct tally *t, const struct pme_quick_image *v,
    size_t n)
{
	const struct pme_module *mods;
	char real[PATH_MAX];
	const char *p;
	size_t nm, i, j;

	if (t->quiet)
		return;
	nm = pme_bucketfile_modules(t->bf, &mods);
	for (i = 0; i < n; i++) {
		if (!(v[i].flags & PME_MODULE_MAIN))
			continue;
		p = realpath(v[i].path, real) != NULL ? real : v[i].path;
		for (j = 0; j < nm && strcmp(mods[j].path, p) != 0; j++)
			;
		if (j == nm)
			histo_warn(t->prog, "'%s': not read (gone or rebuilt "
			    "since the run, or no file): its samples are "
			    "counted under its name", v[i].path);
	}
}

/*
 * The sampling intervals sample s stands for: one, or more when the
 * kernel delivered one timer signal for several expirations (its weight
 * then holds them all, pme_sample.h).  Counting samples alone would
 * charge the intervals a busy machine's timer missed to nobody, and the
 * threads that ran with least contention would take more than their
 * share.
 */
static inline uint64_t
intervals(const struct run *r, const struct pme_sample *s)
{
	return histo_intervals(r->stat.period, s);
}

/* Counts n intervals of mapping resolution res at link-time vaddr. */
static inline __attribute__((always_inline)) void
count(struct run *r, uint32_t res, uint64_t vaddr, uint64_t pc, uint64_t n)
{
	uint32_t b;

	r->stat.counted += n;
	if (res & RES_FOREIGN) {
		if (r->file.has_abs &&
		    (b = bucket_of(r, PME_NONE, pc)) != PME_NONE) {
			r->file.bk[b].count += n;
			r->stat.matched++;
		} else
			r->t->foreign[res & ~RES_FOREIGN].count += n;
		return;
	}
	r->stat.matched += r->file.mod_units[res];
	if ((b = bucket_of(r, res, vaddr)) != PME_NONE)
		r->file.bk[b].count += n;
	else
		*pme_bucketfile_outside(r->t->bf, res) += n;
}

/* Mapping mi of process pid into the mapping cache (r->map.cres apart). */
static void
cache_mapping(struct run *r, uint32_t pid, uint32_t mi)
{
	const struct pme_mapping *maps;

	pme_addrmap_mappings(r->am, &maps);
	r->map.cvalid = 1;
	r->map.cpid = pid;
	r->pass.cmi = mi;
	r->map.clo = maps[mi].start;
	r->map.clen = maps[mi].end - maps[mi].start;
	r->map.cdelta = maps[mi].vaddr - maps[mi].start;
}

/* A sample the mapping cache did not hold. */
static void
tally_slow(struct run *r, const struct pme_sample *s)
{
	uint64_t vaddr, n = intervals(r, s);
	uint32_t mi, res, b;

	mi = pme_addrmap_lookup(r->am, s->pid, s->time, s->pc, &vaddr);
	if (mi == PME_NONE) {
		r->stat.counted += n;
		if (r->file.has_abs &&
		    (b = bucket_of(r, PME_NONE, s->pc)) != PME_NONE) {
			r->file.bk[b].count += n;
			r->stat.matched++;
		} else if ((s->flags & PME_SAMPLE_KERNEL) &&
		    (res = kernel_index(r)) != PME_NONE)
			r->t->foreign[res & ~RES_FOREIGN].count += n;
		else
			r->t->unmapped += n;
		return;
	}
	if ((res = resolve(r, mi)) == PME_NONE) {
		nomem(r);
		return;
	}
	if (!r->map.overlap && s->time >= r->map.maptime) {
		cache_mapping(r, s->pid, mi);
		r->map.cres = res;
	}
	count(r, res, vaddr, s->pc, n);
}

/*
 * The frame id (histo.h) of addr, a pc of process pid at time, rebased as
 * the samples' pcs are; the kernel's when nothing maps a pc it flagged.
 * *va is addr's link-time address (addr itself when no mapping holds it).
 */
static uint64_t frame_lookup(struct run *, uint32_t, uint64_t, uint64_t,
    int, uint64_t *);

/*
 * frame_lookup() through r->chains.fc: call chains repeat their return
 * addresses, and a lookup costs a search of the mappings and one of the
 * buckets.  Entries hold while the mappings do: for samples not older
 * than the last mapping or thread record, in processes whose mappings do
 * not overlap (as the mapping cache of count()).
 */
static uint64_t frame_miss(struct run *, uint32_t, uint64_t, uint64_t, int,
    uint64_t *);

/* The hit, inline: a call chain of a dozen frames costs a dozen calls. */
static inline __attribute__((always_inline)) uint64_t
frame_id(struct run *r, uint32_t pid, uint64_t time, uint64_t addr,
    int kernel, uint64_t *va)
{
	struct fcache *f;
	uint32_t gen = r->chains.fgen | (kernel ? 0x80000000u : 0);

	if (r->chains.fc != NULL && !r->map.overlap && time >= r->map.maptime) {
		f = &r->chains.fc[((addr ^ addr >> 12 ^
		    (uint64_t)pid * 0x9e3779b1u) * 0x9e3779b97f4a7c15ull) >>
		    52 & (FCACHE - 1)];
		if (f->gen == gen && f->addr == addr && f->pid == pid) {
			*va = f->va;
			return f->id;
		}
	}
	return frame_miss(r, pid, time, addr, kernel, va);
}

static uint64_t
frame_miss(struct run *r, uint32_t pid, uint64_t time, uint64_t addr,
    int kernel, uint64_t *va)
{
	struct fcache *f;
	uint32_t gen = r->chains.fgen | (kernel ? 0x80000000u : 0);

	if (r->map.overlap || time < r->map.maptime || (r->chains.fc == NULL &&
	    (r->chains.fc = calloc(FCACHE, sizeof(*r->chains.fc))) == NULL))
		return frame_lookup(r, pid, time, addr, kernel, va);
	f = &r->chains.fc[((addr ^ addr >> 12 ^ (uint64_t)pid * 0x9e3779b1u) *
	    0x9e3779b97f4a7c15ull) >> 52 & (FCACHE - 1)];
	f->id = frame_lookup(r, pid, time, addr, kernel, va);
	f->va = *va;
	f->addr = addr;
	f->pid = pid;
	f->gen = gen;
	return f->id;
}

/* A frame in no bucket, at link-time address va of mapping mi: the
 * function its file's symbols put there, else id (its module or
 * mapping). */
static uint64_t
sym_frame(struct run *r, uint32_t mi, uint64_t va, uint64_t id)
{
	const struct pme_mapping *maps;
	struct tally *t = r->t;
	uint64_t s;

	if (t->syms == NULL && (t->syms = symnames_new()) == NULL)
		return id;
	pme_addrmap_mappings(r->am, &maps);
	return (s = symnames_at(t->syms, t->stacks, &maps[mi], va)) != 0 ?
	    s : id;
}

static uint64_t
frame_lookup(struct run *r, uint32_t pid, uint64_t time, uint64_t addr,
    int kernel, uint64_t *va)
{
	const struct pme_mapping *maps;
	const struct pme_bucketfile *bf = r->t->bf;
	uint64_t vaddr = addr;
	uint32_t mi, res = PME_NONE, b;

	mi = pme_addrmap_lookup(r->am, pid, time, addr, &vaddr);
	*va = vaddr;
	if (mi == PME_NONE || (res = resolve(r, mi)) == PME_NONE ||
	    (res & RES_FOREIGN)) {
		if (r->file.has_abs && (b = pme_bucketfile_find(bf, PME_NONE,
		    addr, NULL)) != PME_NONE) {
			*va = addr;
			return FRAME_UNIT | r->file.bk[b].unit;
		}
		if (mi != PME_NONE && res != PME_NONE)
			return sym_frame(r, mi, vaddr, FRAME_FOREIGN | (res &
			    ~RES_FOREIGN));
		if (kernel && (res = kernel_index(r)) != PME_NONE)
			return FRAME_FOREIGN | (res & ~RES_FOREIGN);
		return FRAME_UNKNOWN;
	}
	if ((b = pme_bucketfile_find(bf, res, vaddr, NULL)) != PME_NONE)
		return FRAME_UNIT | r->file.bk[b].unit;
	if (r->file.mods[res].path[0] != '\0')
		return sym_frame(r, mi, vaddr, FRAME_MODULE | res);
	pme_addrmap_mappings(r->am, &maps);
	return maps[mi].path != NULL && maps[mi].path[0] != '\0' ?
	    sym_frame(r, mi, vaddr, stacks_name(r->t->stacks,
	    maps[mi].path)) : FRAME_UNKNOWN;
}

/*
 * Counts count intervals of one call chain into t->stacks (-T folded): a
 * sample at pc of thread tid of process pid at time, frames[0..nframes)
 * its return addresses.  A return address points after its call: the
 * call is the byte before it.  With t->sites (the views, calls.c) the key
 * is longer: the frame ids, then the link-time addresses of the calls (of
 * the frames after the first); and the innermost frame's pc is counted in
 * t->pcs (frame id, link-time address, home frame: add_sites()), its
 * thread in t->tprocs (pid <<
 * 32 | tid, frame id).  Two small tables beside, rather than a key that
 * holds them, keep the distinct stacks few and the tables in the cache.
 * With t->addrs (the exports at the resolution of lines) the key is the
 * frame ids, then every frame's link-time address, the pc's first.
 */
/* Room for n frames of add_chain_inl(): 2n ids (the key with its
 * sites), n addresses; 0 or -1.  add_chain() grows the ids alone. */
static int
inl_room(struct chains *c, size_t n)
{
	uint64_t *v;
	size_t cap = 2 * n + 64;

	if (2 * n > c->capids) {
		if ((v = realloc(c->ids, cap * sizeof(*v))) == NULL)
			return -1;
		c->ids = v;
		c->capids = cap;
	}
	if (n > c->capvas) {
		if ((v = realloc(c->vas, cap * sizeof(*v))) == NULL)
			return -1;
		c->vas = v;
		c->capvas = cap;
	}
	return 0;
}

/* The pc's and thread's tables of t->sites (add_chain()); home is the
 * frame of the routine or module that holds va (id, or with --inline
 * the one id is inlined into), whose module the Spy's lines are of. */
static int
add_sites(struct run *r, uint32_t pid, uint32_t tid, uint64_t id,
    uint64_t va, uint64_t home, uint64_t count)
{
	uint64_t key[3] = { id, va, home };

	if (stacks_add(r->t->pcs, key, 3, count) == -1)
		return nomem(r);
	key[0] = (uint64_t)pid << 32 | tid;
	key[1] = id;
	return stacks_add(r->t->tprocs, key, 2, count) == -1 ? nomem(r) : 0;
}

/*
 * add_chain() with --inline: each frame after the functions inlined at
 * its address (inline.c), innermost first.  The innermost takes the
 * frame's call site; each after it calls the one before where that one's
 * instance starts, and so does the frame: the calls of an inlined
 * instance are one call, whatever pc the samples had.  The exports
 * (t->addrs) keep the frame's address at every level instead: each
 * level's line is told from it and its depth (export.c).
 */
static int
add_chain_inl(struct run *r, uint32_t pid, uint32_t tid, uint64_t time,
    uint64_t pc, unsigned fl, const uint64_t *frames, size_t nframes,
    uint64_t count)
{
	int kernel = (fl & PME_SAMPLE_KERNEL) != 0;
	struct tally *t = r->t;
	struct chains *ch = &r->chains;
	const uint64_t *c, *at;
	uint64_t id, va, home = 0;
	size_t j, n = 0;
	int m, i;

	for (j = 0; j <= nframes; j++) {
		id = frame_id(r, pid, time, j == 0 ? pc : frames[j - 1] - 1,
		    j == 0 ? kernel : PME_KERNEL_ADDR(frames[j - 1]), &va);
		if (j == 0)
			home = id;
		m = t->inl != NULL ? inlines_at(t->inl, t, id, va, &c, &at) :
		    0;
		if (m == -1 || inl_room(ch, n + (size_t)m + 2) == -1)
			return nomem(r);
		for (i = 0; i < m; i++) {
			ch->ids[n] = c[i];
			ch->vas[n++] = i == 0 || t->addrs ? va : at[i - 1];
		}
		ch->ids[n] = id;
		ch->vas[n++] = m == 0 || t->addrs ? va : at[m - 1];
	}
	/* A chain the unwinder stopped short of the outermost frame: its
	 * outermost is "[truncated]", called from nowhere. */
	if (fl & PME_SAMPLE_TRUNCATED) {
		if (ch->truncid == 0 && (ch->truncid = stacks_name(t->stacks,
		    "[truncated]")) == FRAME_UNKNOWN)
			return nomem(r);
		ch->ids[n] = ch->truncid;
		ch->vas[n++] = 0;
	}
	if (t->sites) {
		if (add_sites(r, pid, tid, ch->ids[0], ch->vas[0], home,
		    count) == -1)
			return -1;
		memcpy(ch->ids + n, ch->vas + 1, (n - 1) * sizeof(*ch->ids));
	} else if (t->addrs)	/* each frame's address after the frames */
		memcpy(ch->ids + n, ch->vas, n * sizeof(*ch->ids));
	return stacks_add(t->stacks, ch->ids, t->sites ? 2 * n - 1 :
	    t->addrs ? 2 * n : n, count) == -1 ? nomem(r) : 0;
}

static int
add_chain(struct run *r, uint32_t pid, uint32_t tid, uint64_t time,
    uint64_t pc, unsigned fl, const uint64_t *frames, size_t nframes,
    uint64_t count)
{
	struct tally *t = r->t;
	size_t j, k = nframes + 1, len = t->sites ? 2 * k - 1 : t->addrs ?
	    2 * k : k;
	int kernel = (fl & PME_SAMPLE_KERNEL) != 0;
	uint64_t va;

	/* --hide-kernel: the user frame that entered the kernel is the
	 * leaf (a kernel thread's chain, all kernel, is kept; one whose
	 * user part the unwinder lost is the user's, unknown) */
	if (t->hide_kernel && kernel) {
		for (j = 0; j < nframes && PME_KERNEL_ADDR(frames[j]); j++)
			;
		if (j < nframes) {
			pc = frames[j] - 1;
			frames += j + 1;
			nframes -= j + 1;
			kernel = 0;
			fl &= ~(unsigned)PME_SAMPLE_KERNEL;
			k = nframes + 1;
			len = t->sites ? 2 * k - 1 : t->addrs ? 2 * k : k;
		} else if (fl & PME_SAMPLE_TRUNCATED) {
			/* the user's part was lost: a frame unknown, then
			 * "[truncated]" */
			pc = 0;
			nframes = 0;
			kernel = 0;
			fl &= ~(unsigned)PME_SAMPLE_KERNEL;
		}
	}
	if (t->inl != NULL || (fl & PME_SAMPLE_TRUNCATED))
		return add_chain_inl(r, pid, tid, time, pc, fl, frames,
		    nframes, count);

	if (len > r->chains.capids) {
		size_t cap = len + 64;
		uint64_t *v = realloc(r->chains.ids, cap * sizeof(*v));

		if (v == NULL)
			return nomem(r);
		r->chains.ids = v;
		r->chains.capids = cap;
	}
	r->chains.ids[0] = frame_id(r, pid, time, pc, kernel, &va);
	if (t->addrs)
		r->chains.ids[k] = va;
	if (t->sites && add_sites(r, pid, tid, r->chains.ids[0], va,
	    r->chains.ids[0], count) == -1)
		return -1;
	for (j = 0; j < nframes; j++) {
		r->chains.ids[j + 1] = frame_id(r, pid, time, frames[j] - 1,
		    PME_KERNEL_ADDR(frames[j]), &va);
		if (t->sites)
			r->chains.ids[k + j] = va;
		else if (t->addrs)
			r->chains.ids[k + j + 1] = va;
	}
	return stacks_add(t->stacks, r->chains.ids, len, count) == -1 ?
	    nomem(r) : 0;
}

/* Resolves the raw table's chains in the order first seen and empties
 * it: before the mappings change, and at the end; 0 or -1. */
static int
raw_flush(struct run *r)
{
	struct rawtab *w = &r->chains.raw;
	const struct rawent *e;
	const uint64_t *k;
	size_t i, j;

	for (i = 0; i < w->ne; i++) {
		e = &w->e[i];
		k = w->pool + e->off;
		if (add_chain(r, (uint32_t)(k[0] >> 32), (uint32_t)k[0],
		    e->time, k[2], (unsigned)k[1], k + 3, e->n - 3, e->count) ==
		    -1)
			return -1;
		/* its slot: the one that holds it, past any other */
		for (j = e->hash & (w->nslot - 1); w->slot[j] != i + 1;
		    j = (j + 1) & (w->nslot - 1))
			;
		w->slot[j] = 0;
	}
	w->ne = w->npool = 0;
	return 0;
}

/* Puts entry i (as i + 1: 0 is a free slot) in an open-addressing index
 * of mask + 1 slots, at the first free one from j. */
static inline void
slot_put(uint32_t *slot, size_t mask, size_t j, size_t i)
{
	while (slot[j] != 0)
		j = (j + 1) & mask;
	slot[j] = (uint32_t)i + 1;
}

/* The raw table grown to hold another entry of n key words; 0 or -1. */
static int
raw_grow(struct rawtab *w, size_t n)
{
	size_t i, cap;

	if (w->ne == w->cape) {
		struct rawent *e;

		cap = w->cape ? w->cape * 2 : 256;
		if ((e = realloc(w->e, cap * sizeof(*e))) == NULL)
			return -1;
		w->e = e;
		w->cape = cap;
	}
	if (w->npool + n > w->cappool) {
		uint64_t *p;

		for (cap = w->cappool ? w->cappool * 2 : 4096;
		    cap < w->npool + n; cap *= 2)
			;
		if ((p = realloc(w->pool, cap * sizeof(*p))) == NULL)
			return -1;
		w->pool = p;
		w->cappool = cap;
	}
	if ((w->ne + 1) * 2 > w->nslot) {
		uint32_t *slot;

		cap = w->nslot ? w->nslot * 2 : 1024;
		if ((slot = calloc(cap, sizeof(*slot))) == NULL)
			return -1;
		for (i = 0; i < w->ne; i++)
			slot_put(slot, cap - 1, w->e[i].hash & (cap - 1), i);
		free(w->slot);
		w->slot = slot;
		w->nslot = cap;
	}
	return 0;
}

/* Counts count intervals of sample s's chain in the raw table; 0 or -1. */
static int
raw_add(struct run *r, const struct pme_sample *s, uint64_t count)
{
	struct rawtab *w = &r->chains.raw;
	struct rawent *e;
	uint64_t head[3], *k, h;
	size_t n = (size_t)s->nframes + 3, i;
	uint32_t x;

	head[0] = (uint64_t)s->pid << 32 | s->tid;
	head[1] = s->flags & CHAIN_FLAGS;
	head[2] = s->pc;
	h = stacks_hash(s->frames, s->nframes) ^ stacks_hash(head, 3) *
	    0x9e3779b97f4a7c15ull;
	if (w->nslot > 0)
		for (i = h & (w->nslot - 1); (x = w->slot[i]) != 0;
		    i = (i + 1) & (w->nslot - 1)) {
			e = &w->e[x - 1];
			k = w->pool + e->off;
			if (e->hash == h && e->n == n && k[0] == head[0] &&
			    k[2] == head[2] && k[1] == head[1] &&
			    (s->nframes == 0 || memcmp(k + 3, s->frames,
			    s->nframes * sizeof(*k)) == 0)) {
				e->count += count;
				r->chains.rawseen++;
				return 0;
			}
		}
	/* Half the chains new after the first RAW_TRIAL: resolving them
	 * at once costs less. */
	if (++r->chains.rawnew * 2 > ++r->chains.rawseen &&
	    r->chains.rawseen >= RAW_TRIAL) {
		r->chains.rawoff = 1;
		if (raw_flush(r) == -1)
			return -1;
		return add_chain(r, s->pid, s->tid, s->time, s->pc,
		    (unsigned)head[1], s->frames, s->nframes, count);
	}
	if ((w->ne >= RAW_MAXENT || w->npool + n > RAW_MAXPOOL) &&
	    raw_flush(r) == -1)
		return -1;
	if (raw_grow(w, n) == -1)
		return nomem(r);
	for (i = h & (w->nslot - 1); w->slot[i] != 0;
	    i = (i + 1) & (w->nslot - 1))
		;
	w->slot[i] = (uint32_t)++w->ne;
	e = &w->e[w->ne - 1];
	e->off = w->npool;
	e->hash = h;
	e->count = count;
	e->time = s->time;
	e->n = (uint32_t)n;
	k = w->pool + w->npool;
	memcpy(k, head, sizeof(head));
	if (s->nframes > 0)	/* frames is NULL then */
		memcpy(k + 3, s->frames, s->nframes * sizeof(*k));
	w->npool += n;
	return 0;
}

/*
 * Counts the call chains of s[0..n): through the raw table while the
 * mappings hold for them (as the frame cache's entries do), else resolved
 * at once, after the raw table's, so that the chains keep their order.
 */
static int
add_stacks(struct run *r, const struct pme_sample *s, size_t n)
{
	struct tally *t = r->t;
	size_t i;

	if (t->sites && ((t->pcs == NULL && (t->pcs = stacks_new_dense()) == NULL) ||
	    (t->tprocs == NULL && (t->tprocs = stacks_new()) == NULL)))
		return nomem(r);
	for (i = 0; i < n; i++, s++) {
		if (s->nframes > 0)
			t->chained++;
		if (!r->chains.rawoff && !r->map.overlap &&
		    s->time >= r->map.maptime) {
			if (raw_add(r, s, intervals(r, s)) == -1)
				return -1;
		} else if (raw_flush(r) == -1 ||
		    add_chain(r, s->pid, s->tid, s->time, s->pc,
		    s->flags & CHAIN_FLAGS, s->frames,
		    s->nframes, intervals(r, s)) == -1)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------- one pass (t->sparse) */

static inline size_t
defer_slot(uint64_t pc, uint32_t mi, uint32_t run, int kernel, size_t mask)
{
	return (size_t)(((pc ^ (uint64_t)mi << 40 ^ (uint64_t)run << 56 ^
	    (uint64_t)kernel) * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

/* The index of dv grown to twice its room; -1 when memory ran out. */
static int
defer_grow(struct run *r)
{
	size_t cap = r->pass.capdix ? r->pass.capdix * 2 : 1024, i;
	uint32_t *v = calloc(cap, sizeof(*v));
	const struct defer *d;

	if (v == NULL)
		return -1;
	for (i = 0; i < r->pass.ndv; i++) {
		d = &r->pass.dv[i];
		slot_put(v, cap - 1, defer_slot(d->pc, d->mi, d->run,
		    d->kernel, cap - 1), i);
	}
	free(r->pass.dix);
	r->pass.dix = v;
	r->pass.capdix = cap;
	return 0;
}

/* Counts sample s, n intervals, at (run, mapping mi, pc), vaddr its
 * link-time address; -1 when memory ran out. */
static int
defer(struct run *r, uint32_t mi, uint64_t vaddr, const struct pme_sample *s,
    uint64_t n)
{
	int kernel = mi == PME_NONE && (s->flags & PME_SAMPLE_KERNEL) != 0;
	uint32_t run = (uint32_t)r->pass.nams;
	struct defer *d;
	size_t i, mask;

	if (r->pass.ndv * 2 >= r->pass.capdix && defer_grow(r) == -1)
		return -1;
	mask = r->pass.capdix - 1;
	for (i = defer_slot(s->pc, mi, run, kernel, mask); r->pass.dix[i] != 0;
	    i = (i + 1) & mask) {
		d = &r->pass.dv[r->pass.dix[i] - 1];
		if (d->pc == s->pc && d->mi == mi && d->run == run &&
		    d->kernel == kernel) {
			d->n += n;
			d->samples++;
			return 0;
		}
	}
	if (r->pass.ndv == r->pass.capdv) {
		size_t cap = r->pass.capdv ? r->pass.capdv * 2 : 1024;

		if ((d = realloc(r->pass.dv, cap * sizeof(*d))) == NULL)
			return -1;
		r->pass.dv = d;
		r->pass.capdv = cap;
	}
	d = &r->pass.dv[r->pass.ndv];
	d->pc = s->pc;
	d->vaddr = vaddr;
	d->n = n;
	d->samples = 1;
	d->run = run;
	d->mi = mi;
	d->kernel = kernel;
	r->pass.dix[i] = (uint32_t)++r->pass.ndv;
	return 0;
}

/* A copy of the first batch's first_file(), for quick_make(). */
static int
keep_first_file(struct run *r)
{
	const struct pme_mapping *m = first_file(r);

	r->pass.onefound = 1;
	if (m == NULL)
		return 0;
	r->pass.one = *m;
	r->pass.one.path = NULL;
	r->pass.one.buildid = NULL;
	if ((m->path != NULL && (r->pass.one.path = strdup(m->path)) == NULL) ||
	    (m->buildid_len > 0 &&
	    (r->pass.one.buildid = malloc(m->buildid_len)) == NULL))
		return nomem(r);
	if (m->buildid_len > 0)
		memcpy((uint8_t *)r->pass.one.buildid, m->buildid,
		    m->buildid_len);
	r->pass.onefound = 2;
	return 0;
}

/* A new thread or process of sample s into the sets; -1 out of memory. */
static inline int
note_thread(struct run *r, const struct pme_sample *s)
{
	if (!r->stat.have_last || s->tid != r->stat.last_tid ||
	    s->pid != r->stat.last_pid) {
		if (idset_add(&r->stat.tids, s->tid) == -1 ||
		    idset_add(&r->stat.pids, s->pid) == -1)
			return -1;
		r->stat.last_tid = s->tid;
		r->stat.last_pid = s->pid;
		r->stat.have_last = 1;
	}
	return 0;
}

/* The samples of a batch by address (defer()), the scan beside. */
static int
defer_samples(struct run *r, const struct pme_sample *s, size_t n)
{
	uint64_t vaddr;
	uint32_t mi;
	size_t i;

	if (quick_scan_visitor.samples(r->pass.qs, s, n) != 0)
		return scan_failed(r);
	if (!r->pass.onefound && keep_first_file(r) == -1)
		return -1;
	for (i = 0; i < n; i++, s++) {
		if (note_thread(r, s) == -1)
			return nomem(r);
		if (r->map.cvalid && s->pid == r->map.cpid &&
		    s->pc - r->map.clo < r->map.clen &&
		    s->time >= r->map.maptime) {
			mi = r->pass.cmi;
			vaddr = s->pc + r->map.cdelta;
		} else if ((mi = pme_addrmap_lookup(r->am, s->pid, s->time,
		    s->pc, &vaddr)) != PME_NONE && !r->map.overlap &&
		    s->time >= r->map.maptime)
			cache_mapping(r, s->pid, mi);
		if (defer(r, mi, mi == PME_NONE ? s->pc : vaddr, s,
		    intervals(r, s)) == -1)
			return nomem(r);
	}
	r->stat.samples += n;
	if (n > 0)
		r->stat.last_time = s[-1].time;
	return 0;
}

/*
 * The counts by address into the buckets made, as tally_slow() and
 * count() would have put each sample, in the order first seen; each run
 * through its own address map.
 */
static int
flush(struct run *r)
{
	struct pme_addrmap *last = r->am;
	const struct defer *d;
	uint32_t run = UINT32_MAX, res, b;
	uint64_t before;
	size_t i;

	for (i = 0; i < r->pass.ndv; i++) {
		d = &r->pass.dv[i];
		if (d->run != run) {
			run = d->run;
			r->am = run < r->pass.nams ? r->pass.ams[run] : last;
			r->map.nres = 0;
		}
		if (d->mi == PME_NONE) {
			r->stat.counted += d->n;
			if (r->file.has_abs && (b = bucket_of(r, PME_NONE,
			    d->pc)) != PME_NONE) {
				r->file.bk[b].count += d->n;
				r->stat.matched += d->samples;
			} else if (d->kernel &&
			    (res = kernel_index(r)) != PME_NONE)
				r->t->foreign[res & ~RES_FOREIGN].count += d->n;
			else
				r->t->unmapped += d->n;
			continue;
		}
		if ((res = resolve(r, d->mi)) == PME_NONE) {
			r->am = last;
			return nomem(r);
		}
		before = r->stat.matched;
		count(r, res, d->vaddr, d->pc, d->n);
		r->stat.matched = before + (r->stat.matched - before) *
		    d->samples;
	}
	r->am = last;
	r->map.nres = 0;
	return 0;
}

static void
addr_key(const void *e, uint64_t *k)
{
	k[0] = *(const uint64_t *)e;
}

/* The link-time addresses of the entries in mappings, sorted, each once,
 * into q (as quick_scan() keeps them); -1 when memory ran out. */
static int
entry_addrs(const struct run *r, struct quick_files *q)
{
	uint64_t *v, *tmp, *s;
	size_t i, n = 0;

	if ((v = malloc((r->pass.ndv + 1) * sizeof(*v))) == NULL ||
	    (tmp = malloc((r->pass.ndv + 1) * sizeof(*tmp))) == NULL) {
		free(v);
		return -1;
	}
	for (i = 0; i < r->pass.ndv; i++)
		if (r->pass.dv[i].mi != PME_NONE)
			v[n++] = r->pass.dv[i].vaddr;
	if ((s = pme_radix_sort(v, tmp, n, sizeof(*v), 1, addr_key)) ==
	    NULL) {
		free(v);
		free(tmp);
		return -1;
	}
	free(s == v ? tmp : v);
	for (i = n > 0, q->naddrs = n > 0; i < n; i++)
		if (s[i] != s[q->naddrs - 1])
			s[q->naddrs++] = s[i];
	q->addrs = s;
	return 0;
}

/* The end of the one pass: the scan's files made buckets of (none when
 * no sample came), only the routines of the entries' addresses, the
 * counts into them. */
static int
quick_end(struct run *r)
{
	struct quick_files q;
	struct scan *qs = r->pass.qs;

	r->pass.qs = NULL;
	if (quick_scanner_end(qs, &q) == -1) {
		r->failed = 1;
		return -1;
	}
	if (!r->pass.onefound) {
		quick_files_free(&q);
		return 0;
	}
	if (entry_addrs(r, &q) == -1) {
		quick_files_free(&q);
		return nomem(r);
	}
	if (quick_make(r, &q, q.n == 0 && r->pass.onefound == 2 ? &r->pass.one :
	    NULL) == -1)
		return -1;
	return flush(r);
}

static int
tally_samples(struct run *r, const struct pme_sample *s, size_t n)
{
	size_t i;

	/* Only the measure's samples (a run of several events). */
	if ((n = measure_pick(&r->t->measure, s, n, &s)) == SIZE_MAX)
		return nomem(r);
	if (n == 0)
		return 0;
	if (r->pass.qs != NULL)
		return defer_samples(r, s, n);
	if (r->t->bf == NULL && quick_start(r) == -1)
		return -1;
	/* Apart from the loop below, which must stay lean. */
	if (r->t->stacks != NULL && add_stacks(r, s, n) == -1)
		return -1;
	for (i = 0; i < n; i++, s++) {
		if (note_thread(r, s) == -1)
			return nomem(r);
		if (r->map.cvalid && s->pid == r->map.cpid &&
		    s->pc - r->map.clo < r->map.clen &&
		    s->time >= r->map.maptime)
			count(r, r->map.cres, s->pc + r->map.cdelta, s->pc,
			    intervals(r, s));
		else {
			tally_slow(r, s);
			if (r->failed)
				return -1;
		}
	}
	r->stat.samples += n;
	if (n > 0)
		r->stat.last_time = s[-1].time;
	return 0;
}

/* The batch's samples the filters keep, tallied: the batch is read once,
 * the kept ones copied aside (their frames stay where the reader put
 * them), so memory grows with the batch, not with the file. */
static int
on_samples(void *arg, const struct pme_sample *s, size_t n)
{
	struct run *r = arg;
	struct filter *f = r->t->filter;
	struct pme_sample *v;
	size_t k;

	if (f == NULL || !f->on)
		return tally_samples(r, s, n);
	if (n > r->sel.cap) {
		if ((v = realloc(r->sel.v, n * sizeof(*v))) == NULL)
			return nomem(r);
		r->sel.v = v;
		r->sel.cap = n;
	}
	if (filter_batch(f, &r->sel.fr, r->am, s, n, r->sel.v, &k) == -1)
		return nomem(r);
	f->read += n;
	f->kept += k;
	return k > 0 ? tally_samples(r, r->sel.v, k) : 0;
}

static int
on_close(void *arg, const struct pme_sample_close *c)
{
	struct run *r = arg;
	struct tally *t = r->t;

	if (r->pass.qs != NULL && quick_scan_visitor.close(r->pass.qs, c) != 0)
		return scan_failed(r);
	t->lost += c->lost;
	if (c->end > r->stat.start)
		t->duration += c->end - r->stat.start;
	if (t->files == 0)
		t->status = c->status;
	if (c->threads > r->stat.tids.n)
		r->stat.tids.n = c->threads;
	r->stat.header = 2;
	return 0;
}

/* ---------------------------------------------------------------- files */

static void
warn_file(const struct run *r, const struct pme_sample_summary *sum)
{
	const struct tally *t = r->t;

	if (t->quiet)
		return;
	if (r->stat.cut > 0)
		histo_warn(t->prog, "'%s': %llu run%s cut short (no closing "
		    "record) before the next header: reduced the samples "
		    "read", r->path, (unsigned long long)r->stat.cut,
		    r->stat.cut == 1 ? "" : "s");
	if (sum->lost_bytes >= 0 || !sum->closed)
		histo_warn(t->prog, "'%s': cut short%s: %lld bytes after the "
		    "last whole chunk lost; reduced the %llu samples read",
		    r->path, sum->closed ? "" :
		    " (no closing record)", (long long)(sum->lost_bytes > 0 ?
		    sum->lost_bytes : 0), (unsigned long long)sum->samples);
	if (r->stat.samples > 0 && r->stat.matched == 0 && !t->quick)
		histo_warn(t->prog, "'%s': no sample fell in a load module of "
		    "'%s' (a run of another program?): all %llu samples are "
		    "outside its buckets", r->path, t->bfname,
		    (unsigned long long)r->stat.samples);
}

int
tally_file(struct tally *t, const char *path, struct pme_error *err)
{
	static const struct pme_sample_visitor v = {
		on_header, on_mapping, on_thread, on_samples, on_close
	};
	struct pme_sample_summary sum;
	struct run r;
	int rc = -1;

	memset(&r, 0, sizeof(r));
	r.t = t;
	r.path = path;
	r.err = err;
	r.chains.fgen = 1;
	if ((r.am = pme_addrmap_new(err)) == NULL)
		goto done;
	if (t->bf != NULL && bind_bucketfile(&r) == -1)
		goto done;
	/* The quick path in one pass: see the top of the file. */
	if (t->bf == NULL && t->quick && t->sparse && t->stacks == NULL &&
	    strcmp(path, "-") != 0 && (r.pass.qs = quick_scanner_new(err)) ==
	    NULL)
		goto done;
	if (filter_file(t->filter, &r.sel.fr, path, err) == -1)
		goto done;
	memset(&sum, 0, sizeof(sum));
	if (wall_read(path, t->measure.want, &v, &r, &sum, err) == -1) {
		/* Past the first samples, the scan of two readings would
		 * have failed first, with the reader's own words. */
		if (!r.failed && err->code == PME_EINVAL &&
		    !(r.pass.qs != NULL && r.pass.onefound))
			histo_err(err, PME_EINVAL, "'%s': cannot be reduced",
			    path);
		goto done;
	}
	if (r.pass.qs != NULL && quick_end(&r) == -1)
		goto done;
	if (raw_flush(&r) == -1)
		goto done;
	run_end(&r);
	t->samples += r.stat.samples;
	t->counted += r.stat.counted;
	warn_file(&r, &sum);
	rc = 0;
done:
	quick_scanner_free(r.pass.qs);
	for (size_t i = 0; i < r.pass.nams; i++)
		pme_addrmap_free(r.pass.ams[i]);
	free(r.pass.ams);
	free(r.pass.dv);
	free(r.pass.dix);
	free((char *)r.pass.one.path);
	free((uint8_t *)r.pass.one.buildid);
	pme_addrmap_free(r.am);
	free(r.map.res);
	free(r.chains.ids);
	free(r.chains.vas);
	free(r.chains.fc);
	free(r.chains.raw.e);
	free(r.chains.raw.slot);
	free(r.chains.raw.pool);
	free(r.map.live);
	free(r.file.mod_units);
	free(r.stat.tids.v);
	free(r.stat.pids.v);
	free(r.stat.tids.bits);
	free(r.stat.pids.bits);
	filter_run_free(&r.sel.fr);
	free(r.sel.v);
	return rc;
}

const char *
histo_kind_hint(const struct pme_error *err, const char *name)
{
	if (err->code != PME_EKIND)
		return "";
	switch (pme_file_kind(name)) {
	case PME_KIND_SAMPLE:
		return "; give it as a sample file operand, and a bucket file "
		    "with -b";
	case PME_KIND_BUCKET:
		return "; give it with -b (and -t if pmetrace filled it), and "
		    "sample files as operands";
	case PME_KIND_EVENT:
		return "; stats(1) reads event files";
	}
	return "";
}
