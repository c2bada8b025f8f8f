/*
 * filter.c - which samples a report takes (pmehisto --time, --tid, --pid,
 * --comm, --cpu): a sample is kept when it passes every filter given.
 * Applied as the sample file streams (reduce.c, caliper.c), each run of a
 * joined file by itself: its own start for --time, its own threads'
 * names for --comm.  Nothing is buffered: a run's state is the set of
 * its threads now named as --comm says.
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

/* "START,END", either side may be empty; -1 when not. */
static int
parse_time(struct filter *f, const char *arg)
{
	const char *comma = strchr(arg, ',');

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

void
filter_run_header(struct filter_run *fr, const struct pme_sample_header *h)
{
	fr->start = h->start_mono;
	fr->ncomm = 0;
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
	memset(fr, 0, sizeof(*fr));
}

int
filter_keep(const struct filter *f, const struct filter_run *fr,
    const struct pme_sample *s)
{
	uint64_t t;

	if (f->time) {
		t = s->time > fr->start ? s->time - fr->start : 0;
		if (t < f->t0 || t >= f->t1)
			return 0;
	}
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
