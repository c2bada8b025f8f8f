/*
 * filter.c - which samples a report takes (pmehisto --time, --tid, --pid,
 * --comm, --cpu): a sample is kept when it passes every filter given.
 * Applied as the sample file streams (reduce.c, caliper.c), each run of a
 * joined file by itself: its own start for --time, its own threads'
 * names for --comm.  Nothing is buffered: a run's state is the set of
 * its threads now named as --comm says.  --time in percent of the run
 * needs each run's length before its samples: filter_file() reads the
 * file's headers and closing records first, so the file is read twice.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histo.h"

void
filter_free(struct filter *f)
{
	free(f->tids.v);
	free(f->pids.v);
	free(f->cpus.v);
	free(f->comm);
	free(f->pct);
	free(f->text);
	memset(f, 0, sizeof(*f));
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

int
filter_parse(struct filter *f, int which, const char *arg)
{
	static const char *names[] = { "time", "tid", "pid", "comm", "cpu" };
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
	default:
		return -1;
	}
	if (rc == -1)
		return -1;
	len = f->text ? strlen(f->text) : 0;
	if ((t = realloc(f->text, len + strlen(arg) + 16)) == NULL)
		return -1;
	snprintf(t + len, strlen(arg) + 16, "%s--%s %s", len ? " " : "",
	    names[which], arg);
	f->text = t;
	f->on = 1;
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
	static const struct pme_sample_visitor v = {
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
