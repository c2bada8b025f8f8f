/*
 * t_event.c - the event API and event files (pme_event(3), pme(5)):
 * round trips of every record kind through a file, the seed's state
 * colour rules with exact colours, histometric statistics against
 * figures computed here, bad calls that must not crash, posts from
 * threads, a file left by a killed program, the automatic events.sim
 * of a program that never opens one, and a file of many chunks cut at
 * every byte offset and with every byte flipped.
 */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "pme.h"
#include "pme_event.h"

#define TEST_NAME "t_event"
#include "check.h"

struct evs {
	struct pme_ev	*v;
	size_t		 n, cap;
};

static int
collect(const struct pme_ev *ev, size_t n, void *arg)
{
	struct evs *e = arg;

	if (e->n + n > e->cap) {
		e->cap = (e->n + n) * 2;
		if ((e->v = realloc(e->v, e->cap * sizeof(*e->v))) == NULL)
			die("out of memory");
	}
	memcpy(e->v + e->n, ev, n * sizeof(*ev));
	e->n += n;
	return 0;
}

static struct pme_eventfile *
load(const char *path, struct evs *e)
{
	struct pme_eventfile *ef;
	struct pme_error err;

	if ((ef = pme_eventfile_open(path, &err)) == NULL)
		die_pme(path, &err);
	memset(e, 0, sizeof(*e));
	if (pme_eventfile_events(ef, collect, e, &err) != 0)
		die_pme("events", &err);
	return ef;
}

/* The colours written for processor proc, in order, as "c@t c@t". */
static void
colours(const struct evs *e, uint32_t proc, char *out, size_t len)
{
	size_t k = 0;

	out[0] = '\0';
	for (size_t i = 0; i < e->n && k < len; i++)
		if (e->v[i].type == PME_EV_STATE && e->v[i].proc == proc)
			k += snprintf(out + k, len - k, "%s%lld@%llu",
			    k ? " " : "", (long long)e->v[i].value,
			    (unsigned long long)e->v[i].time);
}

/* A program that never opens a file gets events.sim, closed at exit. */
static void
test_auto(void)
{
	char path[4200];
	struct pme_eventfile *ef;
	struct evs e;
	pid_t pid;
	int st;

	snprintf(path, sizeof(path), "%s/events.sim", testdir());
	if ((pid = fork()) == -1)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		if (chdir(testdir()) == -1)
			_exit(3);
		stateEvent(PME_STATE_BUSY, 0, 10, S_EVS_on);
		stateEvent(PME_STATE_BUSY, 0, 20, S_EVS_off);
		exit(0);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ef = load(path, &e);
	CHECK(pme_eventfile_run(ef)->flags & PME_RUN_COMPLETE);
	CHECK(e.n == 2);
	CHECK(e.n == 2 && e.v[0].value == 1 && e.v[0].time == 10 &&
	    e.v[1].value == 0 && e.v[1].time == 20);
	free(e.v);
	pme_eventfile_close(ef);
}

static void
test_roundtrip(void)
{
	const char *path = tmppath("round.sim");
	struct pme_error err;
	struct pme_eventfile *ef;
	const struct pme_evtype *types;
	const struct pme_metric *m;
	const char *const *specs;
	const struct pme_run *run;
	double arr[3] = { 1.5, -2, 1e300 };
	struct evs e;
	uint32_t a, b;
	size_t n, i;

	if (pme_event_open(path, 0, &err) == -1)
		die_pme(path, &err);
	a = pme_event_type("EV_A");
	b = pme_event_type("EV_MEMACC_LATENCY");
	CHECK(a != PME_NONE && b != PME_NONE && a != b);
	CHECK(pme_event_type("EV_A") == a);
	CHECK(pme_event_type("") == PME_NONE);
	/* Large, negative and backwards values and times. */
	for (i = 0; i < 10000; i++)
		pme_event_post(i % 3 ? a : b, (uint32_t)(i % 7),
		    i == 5 ? UINT64_MAX : i * 1000, (int64_t)i * -77 +
		    (i == 9 ? INT64_MAX : 0));
	pme_event_post(999, 0, 0, 0);		/* no such type: dropped */
	CHECK(strstr(pme_event_error(), "no event type 999") != NULL);
	CHECK(pme_graph_spec("ArrayGraph g { name <- \"x\" }") == 0);
	CHECK(pme_metric("Utilization", 0.75) == 0);
	CHECK(pme_metric("Utilization", 0.5) == 0);	/* the last kept */
	CHECK(pme_metric_array("Per proc", arr, 3) == 0);
	CHECK(pme_param("CACHE_SIZE", "64K") == 0);
	CHECK(pme_event_proc_name(3, "worker 3") == 0);
	CHECK(pme_event_unit("ticks") == 0);
	CHECK(pme_event_processors(16) == 0);
	if (pme_event_close(&err) == -1)
		die_pme("close", &err);

	ef = load(path, &e);
	run = pme_eventfile_run(ef);
	CHECK(run->flags & PME_RUN_COMPLETE);
	CHECK(run->nproc == 16);
	CHECK(run->events == 10000 && e.n == 10000);
	CHECK(run->first == 0 && run->last == UINT64_MAX);
	CHECK(strcmp(run->unit, "ticks") == 0);
	CHECK(run->failed == 2);	/* the empty name, type 999 */
	CHECK(run->failure != NULL &&
	    strstr(run->failure, "pme_event_type") != NULL);
	CHECK(run->host_ns > 0 && run->start > 0);
	for (i = 0; i < e.n && i < 10000; i++)
		if (e.v[i].type != (i % 3 ? a : b) ||
		    e.v[i].proc != i % 7 ||
		    e.v[i].time != (i == 5 ? UINT64_MAX : i * 1000) ||
		    e.v[i].value != (int64_t)i * -77 +
		    (i == 9 ? INT64_MAX : 0)) {
			fail("event %zu read back wrong", i);
			break;
		}
	n = pme_eventfile_types(ef, &types);
	CHECK(n == 3 && strcmp(types[0].name, "EV_STATE") == 0 &&
	    types[0].id == PME_EV_STATE);
	CHECK(pme_eventfile_type(ef, "EV_MEMACC_LATENCY") == b);
	CHECK(pme_eventfile_type(ef, "EV_NONE") == PME_NONE);
	CHECK(pme_eventfile_specs(ef, &specs) == 1 &&
	    strcmp(specs[0], "ArrayGraph g { name <- \"x\" }") == 0);
	n = pme_eventfile_metrics(ef, &m);
	CHECK(n == 3);
	for (i = 0; i < n; i++) {
		if (strcmp(m[i].name, "Utilization") == 0)
			CHECK(m[i].kind == PME_METRIC_SCALAR &&
			    m[i].value == 0.5);
		else if (strcmp(m[i].name, "Per proc") == 0)
			CHECK(m[i].kind == PME_METRIC_ARRAY && m[i].n == 3 &&
			    m[i].v[0] == 1.5 && m[i].v[2] == 1e300);
		else
			CHECK(m[i].kind == PME_METRIC_PARAM &&
			    strcmp(m[i].text, "64K") == 0);
	}
	CHECK(strcmp(pme_eventfile_proc_name(ef, 3), "worker 3") == 0);
	CHECK(pme_eventfile_proc_name(ef, 2) == NULL);
	free(e.v);
	pme_eventfile_close(ef);
}

/*
 * The seed's colour rule, colour by colour.  Sub-states: busy (layer 1,
 * gray 1), lock (100, red 2), barrier (100, translucent over busy: navy
 * 3 without busy, brown 4 with), a user state at 55 (auto colour 5) and
 * a translucent user state at 200 over the first user state (6 / 7).
 */
static void
test_states(void)
{
	const char *path = tmppath("states.sim");
	struct pme_error err;
	struct pme_eventfile *ef;
	const struct pme_state *st;
	struct evs e;
	char got[1024];
	uint32_t q, t;
	size_t n;

	if (pme_event_open(path, 0, &err) == -1)
		die_pme(path, &err);
	q = stateRegisterP(0, 0, 0, 55);	/* queens: auto colour */
	t = stateRegisterP(0, 0, q, 200);	/* translucent over queens */
	CHECK(q == 5 && t == 6);
	/* Processor 0: layers and opaque colours. */
	stateEvent(PME_STATE_BUSY, 0, 10, S_EVS_on);	/* 1 gray */
	stateEvent(q, 0, 20, S_EVS_on);			/* 5 over busy */
	stateEvent(PME_STATE_LOCK, 0, 30, S_EVS_on);	/* 2 over 55 */
	stateEvent(PME_STATE_LOCK, 0, 40, S_EVS_off);	/* back to 5 */
	stateEvent(q, 0, 50, S_EVS_off);		/* back to 1 */
	stateEvent(PME_STATE_BUSY, 0, 60, S_EVS_off);	/* idle: 0 */
	/* Processor 1: the barrier, translucent, co-state busy. */
	stateEvent(PME_STATE_BARRIER, 1, 10, S_EVS_on);	/* navy 3 */
	stateEvent(PME_STATE_BUSY, 1, 20, S_EVS_on);	/* brown 4 */
	stateEvent(PME_STATE_BUSY, 1, 30, S_EVS_off);	/* navy 3 */
	stateEvent(PME_STATE_BARRIER, 1, 40, S_EVS_off); /* idle 0 */
	/* Processor 2: enter/exit count; the change at 0 and back to 0. */
	stateEvent(q, 2, 10, S_EVS_enter);		/* 5 */
	stateEvent(q, 2, 20, S_EVS_enter);		/* still 5 */
	stateEvent(q, 2, 30, S_EVS_exit);		/* still 5 */
	stateEvent(q, 2, 40, S_EVS_exit);		/* 0 */
	CHECK(pme_state_event(q, 2, 50, PME_STATE_EXIT) == -1);
	CHECK(strstr(pme_event_error(), "without an enter") != NULL);
	/* Processor 3: a user translucent state over its co-state. */
	stateEvent(t, 3, 10, S_EVS_on);			/* 6: q off */
	stateEvent(q, 3, 20, S_EVS_on);			/* 7: q on */
	stateEvent(t, 3, 30, S_EVS_off);		/* 5: q alone */
	/* Processor 4: resolution 10 for the lock: 5-long lock dropped. */
	CHECK(stateSetResolution(PME_STATE_LOCK, 10) == 0);
	stateEvent(PME_STATE_BUSY, 4, 100, S_EVS_on);	/* 1 */
	stateEvent(PME_STATE_LOCK, 4, 110, S_EVS_on);	/* 2, short */
	stateEvent(PME_STATE_LOCK, 4, 115, S_EVS_off);	/* dropped */
	stateEvent(PME_STATE_LOCK, 4, 120, S_EVS_on);	/* 2, long */
	stateEvent(PME_STATE_LOCK, 4, 130, S_EVS_off);	/* 1 at 130 */
	/* Processor 5: a default resolution for every other state. */
	sev_default_resolution = 5;
	stateEvent(q, 5, 0, S_EVS_on);			/* 5, kept */
	stateEvent(q, 5, 10, S_EVS_off);		/* 0 for 2: dropped */
	stateEvent(q, 5, 12, S_EVS_on);			/* 5 again */
	stateEvent(q, 5, 20, S_EVS_off);		/* 0 kept at close */
	sev_default_resolution = 0;
	CHECK(pme_state_event(99, 0, 0, PME_STATE_ON) == -1);
	CHECK(pme_state_register(1, 1, 77, 1, NULL) == PME_NONE);
	if (pme_event_close(&err) == -1)
		die_pme("close", &err);

	ef = load(path, &e);
	colours(&e, 0, got, sizeof(got));
	CHECK(strcmp(got, "1@10 5@20 2@30 5@40 1@50 0@60") == 0 ||
	    (fail("processor 0: %s", got), 0));
	colours(&e, 1, got, sizeof(got));
	CHECK(strcmp(got, "3@10 4@20 3@30 0@40") == 0 ||
	    (fail("processor 1: %s", got), 0));
	colours(&e, 2, got, sizeof(got));
	CHECK(strcmp(got, "5@10 0@40") == 0 ||
	    (fail("processor 2: %s", got), 0));
	colours(&e, 3, got, sizeof(got));
	CHECK(strcmp(got, "6@10 7@20 5@30") == 0 ||
	    (fail("processor 3: %s", got), 0));
	colours(&e, 4, got, sizeof(got));
	CHECK(strcmp(got, "1@100 2@120 1@130") == 0 ||
	    (fail("processor 4: %s", got), 0));
	colours(&e, 5, got, sizeof(got));
	CHECK(strcmp(got, "5@0 0@20") == 0 ||
	    (fail("processor 5: %s", got), 0));
	n = pme_eventfile_states(ef, &st);
	CHECK(n == 6);
	CHECK(n == 6 && st[0].primary == 0 && st[0].layer == -1 &&
	    strcmp(st[0].name, "Idle") == 0);
	CHECK(n == 6 && st[3].primary == 3 && st[3].secondary == 4 &&
	    st[3].costate == PME_STATE_BUSY && st[3].layer == 100);
	CHECK(n == 6 && st[5].primary == 6 && st[5].secondary == 7 &&
	    st[5].costate == q);
	CHECK(pme_eventfile_run(ef)->failed == 3);
	free(e.v);
	pme_eventfile_close(ef);
}

static void
test_histo(void)
{
	const char *path = tmppath("histo.sim");
	struct pme_error err;
	struct pme_eventfile *ef;
	const struct pme_histo *hm;
	struct evs e;
	double vals[] = { -5, 0, 0.5, 24.9, 25, 99.99, 100, 250, 7 };
	uint64_t n[2] = { 0 }, below = 0, above = 0, bins[4] = { 0 };
	double sum[2] = { 0 }, sq[2] = { 0 }, asum = 0, total = 0;
	int f, a, mass, i;

	if (pme_event_open(path, 0, &err) == -1)
		die_pme(path, &err);
	/* Fixed bins: 4 of 25 from 0 to 100, two sets. */
	f = newHistoMetric("Latency", 0, 2, 0, 0, 100, 4);
	CHECK(f == 0);
	for (i = 0; i < (int)(sizeof(vals) / sizeof(vals[0])); i++) {
		int s = i % 2;
		double v = vals[i];

		histoMetricSample(f, s, v);
		n[s]++;
		sum[s] += v;
		sq[s] += v * v;
		total += v;
		if (s == 0) {
			if (v < 0)
				below++;
			else if (v >= 100)
				above++, asum += v;
			else
				bins[(int)(v / 25)]++;
		}
	}
	/* Bad calls are errors, not crashes. */
	CHECK(pme_histo_sample(f, 2, 1) == -1);
	CHECK(strstr(pme_event_error(), "has no set 2") != NULL);
	CHECK(pme_histo_sample(f, -1, 1) == -1);
	CHECK(pme_histo_sample(7, 0, 1) == -1);
	CHECK(pme_histo_sample(f, 0, NAN) == -1);
	CHECK(newHistoMetric("Bad", 0, 0, 0, 0, 1, 1) == -1);
	CHECK(newHistoMetric("Bad", 0, 1, 0, 5, 1, 1) == -1);
	CHECK(newHistoMetric("Bad", 0, 1, 10, 0, 1.5, 1) == -1);
	CHECK(fabs(histoMetricAverage(f) - total / 9) < 1e-12);
	/* Automatic bins: 1000 samples 1..1000, the 0th and 95th
	 * percentiles: min 1, max the 50th largest (951). */
	a = newHistoMetric("Pressure", 0, 1, 1000, 0, 0.95, 100);
	for (i = 1000; i >= 1; i--)
		histoMetricSample(a, 0, i);
	histoMetricSample(a, 0, 5000);		/* after: binned directly */
	/* startAt far off: off until turned on. */
	mass = newHistoMetric("Mass", 1e18, 1, 0, 0, 500, 20);
	histoMetricSample(mass, 0, 10);		/* ignored */
	histoMetricOn(mass);
	histoMetricSample(mass, 0, 20);
	histoMetricOff(mass);
	histoMetricSample(mass, 0, 30);		/* ignored */
	histoMetricOnAt(mass, 0);		/* past: on at once */
	histoMetricSample(mass, 0, 499.9);
	histoMetricOnAt(mass, UINT64_MAX);
	histoMetricSample(mass, 0, 40);		/* ignored */
	CHECK(histoMetricAverage(mass) == (20 + 499.9) / 2);
	if (pme_event_close(&err) == -1)
		die_pme("close", &err);

	ef = load(path, &e);
	CHECK(pme_eventfile_histos(ef, &hm) == 3);
	CHECK(strcmp(hm[0].name, "Latency") == 0 && hm[0].nsets == 2 &&
	    hm[0].nbins == 4 && hm[0].min == 0 && hm[0].max == 100);
	for (i = 0; i < 2; i++)
		CHECK(hm[0].n[i] == n[i] && hm[0].sum[i] == sum[i] &&
		    hm[0].sumsq[i] == sq[i]);
	CHECK(hm[0].counts[0] == below && hm[0].counts[5] == above &&
	    hm[0].above_sum[0] == asum && hm[0].below_sum[0] == -5);
	for (i = 0; i < 4; i++)
		CHECK(hm[0].counts[1 + i] == bins[i]);
	CHECK(hm[1].min == 1 && hm[1].max == 951 && hm[1].n[0] == 1001);
	/* 950 samples in 100 bins of 9.5, 51 above (951..1000, 5000). */
	CHECK(hm[1].counts[0] == 0 && hm[1].counts[101] == 51);
	CHECK(hm[1].counts[1] == 10 && hm[1].counts[100] == 9);
	CHECK(hm[2].n[0] == 2 && hm[2].counts[1] == 1 && hm[2].counts[20] == 1);
	CHECK(pme_eventfile_run(ef)->failed == 7);
	free(e.v);
	pme_eventfile_close(ef);
}

struct poster {
	uint32_t	 type;
	uint32_t	 proc;
	int		 n;
};

static void *
post_thread(void *arg)
{
	struct poster *p = arg;

	for (int i = 0; i < p->n; i++)
		pme_event_post(p->type, p->proc, (uint64_t)i, i);
	return NULL;
}

/* Threads post at once; each one's events arrive whole and in order,
 * those of a thread that ended before the close too. */
static void
test_threads(void)
{
	const char *path = tmppath("threads.sim");
	struct poster p[4];
	pthread_t th[4];
	struct pme_error err;
	struct pme_eventfile *ef;
	struct evs e;
	int64_t next[4] = { 0 };
	int i;

	if (pme_event_open(path, 0, &err) == -1)
		die_pme(path, &err);
	for (i = 0; i < 4; i++) {
		p[i].type = pme_event_type("EV_T");
		p[i].proc = i;
		p[i].n = 100000 + i * 777;
		if (pthread_create(&th[i], NULL, post_thread, &p[i]) != 0)
			die("pthread_create");
	}
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	if (pme_event_close(&err) == -1)
		die_pme("close", &err);
	ef = load(path, &e);
	for (size_t k = 0; k < e.n; k++) {
		const struct pme_ev *v = &e.v[k];

		if (v->proc >= 4 || v->value != next[v->proc] ||
		    v->time != (uint64_t)next[v->proc]) {
			fail("thread %u: event %lld where %lld was due",
			    v->proc, (long long)v->value,
			    (long long)next[v->proc % 4]);
			break;
		}
		next[v->proc]++;
	}
	for (i = 0; i < 4; i++)
		CHECK(next[i] == p[i].n);
	free(e.v);
	pme_eventfile_close(ef);
}

/* A program killed before its close leaves a file read to its last
 * whole chunk, with every event of the chunks that were written: all of
 * them after pme_event_flush(); without it, whole buffers of 4096 (those
 * the writer thread wrote before the kill), in order. */
static void
killed(int flush)
{
	const char *path = tmppath(flush ? "flushed.sim" : "killed.sim");
	struct pme_eventfile *ef;
	struct evs e;
	pid_t pid;
	int st;

	if ((pid = fork()) == -1)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		uint32_t t;

		if (pme_event_open(path, 0, NULL) == -1)
			_exit(3);
		t = pme_event_type("EV_K");
		for (int i = 0; i < 10000; i++)
			pme_event_post(t, 0, i, i);
		if (flush && pme_event_flush() == -1)
			_exit(4);
		raise(SIGKILL);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFSIGNALED(st));
	ef = load(path, &e);
	CHECK(!(pme_eventfile_run(ef)->flags & PME_RUN_COMPLETE));
	if (flush)
		CHECK(e.n == 10000);
	else
		CHECK(e.n % 4096 == 0 && e.n <= 8192);
	for (size_t k = 0; k < e.n; k++)
		if (e.v[k].value != (int64_t)k) {
			fail("killed: event %zu is %lld", k,
			    (long long)e.v[k].value);
			break;
		}
	free(e.v);
	pme_eventfile_close(ef);
}

static void
test_killed(void)
{
	killed(0);
	killed(1);
}

/* Counts events that are the sequence 0, 1, 2, ... posted by damaged(). */
struct seq {
	uint64_t	 n;
	int		 bad;
};

static int
in_order(const struct pme_ev *ev, size_t n, void *arg)
{
	struct seq *q = arg;

	for (size_t i = 0; i < n; i++, q->n++)
		if (ev[i].value != (int64_t)q->n)
			q->bad = 1;
	return 0;
}

/* The message of a refused damaged file names it. */
static void
named(const char *what, size_t at, const struct pme_error *err)
{
	if (err->code == PME_OK || strstr(err->msg, "'damaged.sim'") == NULL)
		fail("%s %zu: refused without naming the file: '%s'", what,
		    at, err->msg);
}

/*
 * A file of several chunks (a flush every 250 events), cut at every byte
 * offset: either refused with the file named (a cut inside the header) or
 * read as the events of its whole chunks, in order, their number never
 * falling as the cut moves on, with the bytes lost said; and with every
 * byte flipped: refused with the file named, or read with whatever the
 * events stream gives, never a fault (the sanitizers' runs see those).
 */
static void
test_damaged(void)
{
	const char *path = tmppath("damaged-src.sim");
	struct pme_eventfile *ef;
	struct pme_error err;
	struct seq q;
	uint8_t *buf;
	size_t len, cut, i;
	uint64_t whole, prev = 0;
	int partial = 0;	/* some cut gave some chunks, not all */
	FILE *fp;
	uint32_t t;

	if (pme_event_open(path, 0, &err) == -1)
		die_pme(path, &err);
	t = pme_event_type("EV_D");
	CHECK(pme_metric("m", 1.5) == 0);
	for (int k = 0; k < 2000; k++) {
		pme_event_post(t, (uint32_t)k % 3, (uint64_t)k, k);
		if (k % 250 == 249 && pme_event_flush() == -1)
			die("flush failed");
	}
	if (pme_event_close(&err) == -1)
		die_pme("close", &err);
	if ((fp = fopen(path, "rb")) == NULL)
		die("%s: %s", path, strerror(errno));
	fseek(fp, 0, SEEK_END);
	len = (size_t)ftell(fp);
	rewind(fp);
	if ((buf = malloc(len)) == NULL || fread(buf, 1, len, fp) != len)
		die("read %s", path);
	fclose(fp);

	/* Whole, in order; events of the three processors interleave in
	 * chunks per poster, so only the whole file is checked for order. */
	if ((ef = pme_eventfile_mem(buf, len, "damaged.sim", &err)) == NULL)
		die_pme("whole", &err);
	memset(&q, 0, sizeof(q));
	CHECK(pme_eventfile_events(ef, in_order, &q, &err) == 0);
	CHECK(q.n == 2000 && !q.bad);
	CHECK(pme_eventfile_run(ef)->lost == -1);
	whole = q.n;
	pme_eventfile_close(ef);

	for (cut = 0; cut < len; cut++) {
		if ((ef = pme_eventfile_mem(buf, cut, "damaged.sim",
		    &err)) == NULL) {
			named("cut at", cut, &err);
			if (cut >= 64)
				fail("cut at %zu: refused (%s), not read to its "
				    "last whole chunk", cut, err.msg);
			continue;
		}
		memset(&q, 0, sizeof(q));
		if (pme_eventfile_events(ef, in_order, &q, &err) != 0)
			fail("cut at %zu: events: %s", cut, err.msg);
		if (q.n < prev || q.n > whole)
			fail("cut at %zu: %llu events after %llu", cut,
			    (unsigned long long)q.n, (unsigned long long)prev);
		if (pme_eventfile_run(ef)->lost < 0 ||
		    (uint64_t)pme_eventfile_run(ef)->lost > cut)
			fail("cut at %zu: lost %lld", cut,
			    (long long)pme_eventfile_run(ef)->lost);
		prev = q.n;
		partial |= q.n > 0 && q.n < whole;
		pme_eventfile_close(ef);
	}
	/* The last cut takes only END: every event is whole. */
	CHECK(prev == whole);
	CHECK(partial);

	for (i = 0; i < len; i++) {
		buf[i] ^= 0xff;
		if ((ef = pme_eventfile_mem(buf, len, "damaged.sim",
		    &err)) == NULL)
			named("byte flipped at", i, &err);
		else {
			memset(&q, 0, sizeof(q));
			if (pme_eventfile_events(ef, in_order, &q, &err) < 0)
				named("events, byte flipped at", i, &err);
			pme_eventfile_close(ef);
		}
		buf[i] ^= 0xff;
	}
	free(buf);
}

/*
 * A processor numbered 2^32 - 1, which no row can be, does not hide the
 * others of its chunk from the run's processor count (found by
 * fuzz_event_rt: events on 5 and 2^32 - 1 gave 0 processors).
 */
static void
test_maxproc(void)
{
	const char *path = tmppath("maxproc.sim");
	struct pme_eventfile *ef;
	struct pme_error err;
	struct evs e;

	if (pme_event_open(path, 0, &err) == -1)
		die_pme(path, &err);
	pme_event_post(PME_EV_STATE, 5, 10, 1);
	pme_event_post(PME_EV_STATE, UINT32_MAX, 11, 1);
	pme_event_post(PME_EV_STATE, 2, 12, 1);
	if (pme_event_close(&err) == -1)
		die_pme("close", &err);
	ef = load(path, &e);
	CHECK(e.n == 3 && e.v[1].proc == UINT32_MAX);
	if (pme_eventfile_run(ef)->nproc != 6)
		fail("events on 5 and 2^32 - 1: %u processors, not 6",
		    pme_eventfile_run(ef)->nproc);
	free(e.v);
	pme_eventfile_close(ef);
}

int
main(void)
{
	test_auto();
	test_roundtrip();
	test_states();
	test_histo();
	test_threads();
	test_killed();
	test_damaged();
	test_maxproc();
	testdir_done();
	return failures != 0;
}
