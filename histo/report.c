/*
 * report.c - the histogram report of a bucket file: a group per bucket
 * group, a row per bucket, then the summary statistics.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "histo.h"
#include "measure.h"
#include "util.h"

/* An outside-bucket share for the summary. */
struct share {
	const char	*name;
	uint64_t	 count;
};

static int
cmp_share(const void *a, const void *b)
{
	const struct share *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

static double
pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

/* The lowest address of unit u, for unit-relative addresses. */
static uint64_t
unit_low(const struct pme_unit *u, const struct pme_range *rng,
    uint64_t fallback)
{
	uint64_t lo = UINT64_MAX;
	uint32_t i;

	for (i = 0; i < u->nranges; i++)
		if (rng[u->range + i].start < lo)
			lo = rng[u->range + i].start;
	return u->nranges ? lo : fallback;
}

void
report_row_of(struct pme_bucketfile *bf, uint32_t i,
    struct pme_report_row *row)
{
	const struct pme_unit *units;
	const struct pme_range *rng;
	const struct pme_module *mods;
	const char *const *kinds;
	struct pme_bucket *bk;
	size_t nk = pme_bucketfile_kinds(bf, &kinds);
	int abs = (pme_bucketfile_info(bf)->options & PME_OPT_ABSADDR) != 0;
	uint64_t lo = UINT64_MAX, hi = 0, base;
	const struct pme_unit *u;
	uint32_t j;

	pme_bucketfile_units(bf, &units);
	pme_bucketfile_ranges(bf, &rng);
	pme_bucketfile_buckets(bf, &bk);
	u = &units[bk[i].unit];
	for (j = 0; j < bk[i].nranges; j++) {
		const struct pme_range *r = &rng[bk[i].range + j];

		if (r->start < lo)
			lo = r->start;
		if (r->end - 1 > hi)
			hi = r->end - 1;
	}
	if (bk[i].nranges == 0)
		lo = 0;
	base = abs ? 0 : unit_low(u, rng, lo);
	memset(row, 0, sizeof(*row));
	row->name = u->name;
	row->kind = u->kind < nk ? kinds[u->kind] : "";
	row->unit = bk[i].unit;
	row->bucket = i;
	row->abs_start = lo;
	row->abs_last = hi;
	row->start = lo - base;
	row->last = hi - base;
	row->count = bk[i].count;
	row->file = u->file;
	row->line = u->line;
	if (u->module < pme_bucketfile_modules(bf, &mods) &&
	    mods[u->module].path[0] != '\0')
		row->module = mods[u->module].path;
}

/*
 * --inline: the name of a LINE unit's row with its function, "inl.c:22
 * inner": the one inlined at its code (inlines_bucket()), else its
 * ROUTINE parent; into *name, which the caller frees.  0, or -1 when
 * out of memory.
 */
static int
line_name(const struct report_input *in, struct pme_bucketfile *bf,
    const struct pme_report_row *row, char **name)
{
	const struct pme_unit *units;
	const char *const *kinds;
	size_t nk = pme_bucketfile_kinds(bf, &kinds);
	const char *fn;
	uint32_t p;

	*name = NULL;
	if (in->inl == NULL || row->kind == NULL ||
	    strcasecmp(row->kind, "LINE") != 0)
		return 0;
	pme_bucketfile_units(bf, &units);
	p = units[row->unit].parent;
	if ((fn = inlines_bucket(in->inl, bf, row->bucket)) == NULL &&
	    p != PME_NONE && units[p].kind < nk &&
	    strcasecmp(kinds[units[p].kind], "ROUTINE") == 0)
		fn = units[p].name;
	if (fn == NULL)
		return 0;
	return asprintf(name, "%s %s", row->name, fn) == -1 ? -1 : 0;
}

static int
add_rows(struct pme_report *rep, struct pme_bucketfile *bf,
    const struct report_input *in, struct pme_error *err)
{
	const struct pme_group *grp;
	size_t ng = pme_bucketfile_groups(bf, &grp), g, i;
	struct pme_report_row row;
	uint64_t *counts2 = NULL;
	char *name;
	int rc;
	const char *name2 = pme_bucketfile_counts2(bf, &counts2);

	/* A second measure (pmetrace's calls) gets a column of its own. */
	if (name2 != NULL && pme_report_count2(rep, name2, err) == -1)
		return -1;
	for (g = 0; g < ng; g++) {
		if (pme_report_group(rep, grp[g].statement, err) == -1)
			return -1;
		for (i = grp[g].first; i < grp[g].first + grp[g].count; i++) {
			report_row_of(bf, (uint32_t)i, &row);
			row.count2 = name2 != NULL ? counts2[i] : 0;
			if (line_name(in, bf, &row, &name) == -1)
				return histo_err(err, PME_ENOMEM,
				    "out of memory");
			if (name != NULL)
				row.name = name;
			rc = pme_report_row(rep, &row, err);
			free(name);
			if (rc == -1)
				return -1;
		}
	}
	return 0;
}

int
report_line(struct pme_report *rep, const char *label, struct pme_error *err,
    const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return pme_report_summary(rep, label, buf, err);
}

/* The outside-bucket shares: the bucket file's modules, the mappings of
 * none (this run), and for a filled file what is left of the total. */
static int
outside(struct pme_report *rep, struct pme_bucketfile *bf,
    const struct tally *t, uint64_t total, uint64_t inside,
    struct pme_error *err)
{
	const struct pme_module *mods;
	const struct pme_info *info = pme_bucketfile_info(bf);
	size_t nm = pme_bucketfile_modules(bf, &mods), n = 0, i;
	struct share *sh = calloc(nm + (t ? t->nforeign : 0) + 1, sizeof(*sh));
	uint64_t known = inside + info->unmapped;
	int rc = 0;

	if (sh == NULL)
		return histo_err(err, PME_ENOMEM, "out of memory");
	for (i = 0; i < nm; i++) {
		known += mods[i].outside;
		if (mods[i].outside == 0)
			continue;
		sh[n].name = mods[i].path[0] ? pme_base_name(mods[i].path) :
		    "(main program)";
		sh[n++].count = mods[i].outside;
	}
	for (i = 0; t != NULL && i < t->nforeign; i++) {
		known += t->foreign[i].count;
		if (t->foreign[i].count == 0)
			continue;
		sh[n].name = pme_base_name(t->foreign[i].path);
		sh[n++].count = t->foreign[i].count;
	}
	if (total > known) {
		sh[n].name = t ? "(earlier runs, other modules)" :
		    "(other modules)";
		sh[n++].count = total - known;
	}
	qsort(sh, n, sizeof(*sh), cmp_share);
	if (n == 0)
		rc = report_line(rep, "Outside buckets", err, "none");
	for (i = 0; i < n && rc == 0; i++)
		rc = report_line(rep, i == 0 ? "Outside buckets" : "", err,
		    "%s %.1f%% (%" PRIu64 ")", sh[i].name,
		    pct(sh[i].count, total), sh[i].count);
	free(sh);
	return rc;
}

const char *
report_measure(uint32_t m)
{
	switch (m) {
	case PME_MEASURE_CLOCK:
		return "clock samples";
	case PME_MEASURE_INSTR:
		return "executed instructions";
	case PME_MEASURE_PAGEFAULT:
		return "page faults";
	case PME_MEASURE_BYTES:
		return "bytes allocated";
	case PME_MEASURE_EVENT:
		return "samples of an event";
	default:
		return "nothing yet (an empty bucket file)";
	}
}

static const char *
method_name(uint32_t m)
{
	switch (m) {
	case PME_METHOD_PERF:
		return "perf_event_open";
	case PME_METHOD_TIMER:
		return "timer_create";
	case PME_METHOD_ITIMER:
		return "setitimer";
	case PME_METHOD_TEST:
		return "test writer";
	default:
		return "unknown";
	}
}

static const char *
event_name(uint32_t e)
{
	switch (e) {
	case PME_EVENT_CPU_CLOCK:
		return ", cpu-clock";
	case PME_EVENT_TASK_CLOCK:
		return ", task-clock";
	case PME_EVENT_PROF:
		return ", ITIMER_PROF";
	default:
		return "";
	}
}

const char *
report_method(uint32_t method)
{
	return method_name(method);
}

const char *
report_event(uint32_t event)
{
	return event_name(event);
}

const char *
report_watched(const struct tally *t)
{
	static char buf[1100];

	if (measure_clock(&t->measure))
		return event_name(t->event);
	buf[0] = ',';
	buf[1] = ' ';
	pme_escape(buf + 2, sizeof(buf) - 2, t->measure.name);
	return buf;
}

const char *
report_every(const struct tally *t, char *buf, size_t len)
{
	const struct measure *m = &t->measure;
	char name[1100];

	pme_escape(name, sizeof(name), m->name);
	if (wall_measure(m->name) != NULL && m->kind == PME_EV_WALL)
		snprintf(buf, len, "; counts are %s of %s (%s)", m->unit, name,
		    wall_measure(m->name));
	else if (measure_clock(m))
		snprintf(buf, len, ", every %g ms", (double)t->period / 1e6);
	else if (m->period == 0)
		snprintf(buf, len, " of %s, the period varied for a rate",
		    name);
	else if (m->period == 1)
		snprintf(buf, len, " of %s, one every event", name);
	else
		snprintf(buf, len, " of %s, one every %llu events", name,
		    (unsigned long long)m->period);
	return buf;
}

static int
interval(struct pme_report *rep, uint64_t period, struct pme_error *err)
{
	if (period == 0)
		return 0;
	return report_line(rep, "Sampling interval", err, "%g ms (%g Hz)",
	    (double)period / 1e6, 1e9 / (double)period);
}

static int
run_lines(struct pme_report *rep, const struct report_input *in,
    struct pme_error *err)
{
	const struct tally *t = in->tally;
	int rc = 0;

	if (t->periods_differ)
		rc |= report_line(rep, "", err, "(the sample files' intervals "
		    "differ)");
	rc |= report_line(rep, "Duration", err, "%.2f s",
	    (double)t->duration / 1e9);
	rc |= report_line(rep, "Processes", err, "%" PRIu64, t->processes);
	rc |= report_line(rep, "Threads", err, "%" PRIu64, t->threads);
	if (t->filter != NULL)
		rc |= report_line(rep, "Filters", err, "%s: kept %" PRIu64
		    " of %" PRIu64 " samples", t->filter->text,
		    t->filter->kept, t->filter->read);
	if (t->command != NULL)
		rc |= report_line(rep, "Command", err, "%s", t->command);
	if (measure_clock(&t->measure))
		rc |= report_line(rep, "Method", err, "%s%s",
		    method_name(t->method), event_name(t->event));
	else
		rc |= report_line(rep, "Method", err, "%s, %s",
		    method_name(t->method), t->measure.name);
	if (t->note != NULL)
		rc |= report_line(rep, "Note", err, "%s", t->note);
	if (t->status >= 0)
		rc |= report_line(rep, "Exit status", err, "%d", t->status);
	else if (t->status == PME_STATUS_RUNNING)
		rc |= report_line(rep, "Exit status", err, "none: still "
		    "running when the recording ended");
	if (t->quick_path != NULL)
		rc |= report_line(rep, "Buckets", err, "routines of %s (-x)",
		    t->quick_path);
	return rc ? -1 : 0;
}

/*
 * What the counts of an event's samples are: samples, each standing for
 * period events (a unit's worth, "page faults"), and the events they
 * stand for, exact when a sample is taken at every event.
 */
static int
event_lines(struct pme_report *rep, struct pme_bucketfile *bf,
    const struct tally *t, struct pme_error *err)
{
	const struct pme_info *info = pme_bucketfile_info(bf);
	const char *unit, *name = pme_bucketfile_event(bf, &unit);
	int rc;

	/* pmehisto's own measures of records and the heap's bytes: the
	 * counts are their unit, the total the events. */
	if ((t != NULL && t->measure.kind == PME_EV_WALL) ||
	    measure_amount(name, unit) != NULL)
		return report_line(rep, "Counts", err, "%s of %s (%s)", unit,
		    name, measure_says(name));
	if (info->period == 0)
		rc = report_line(rep, "Counts", err, "samples of %s (the "
		    "period varied for a rate)", name);
	else
		rc = report_line(rep, "Counts", err, "samples of %s (period "
		    "%" PRIu64 ": a sample every %" PRIu64 " event%s)", name,
		    info->period, info->period, info->period == 1 ? "" : "s");
	if (t != NULL && t->measure.name[0] != '\0')
		rc |= report_line(rep, "Events", err, "%" PRIu64 " %s (%s)",
		    t->measure.events, unit, info->period == 1 ? "exact: a "
		    "sample each" : "estimated: the samples' periods summed");
	return rc;
}

static int
summary(struct pme_report *rep, struct pme_bucketfile *bf,
    const struct report_input *in, uint64_t total, uint64_t inside,
    struct pme_error *err)
{
	const struct pme_info *info = pme_bucketfile_info(bf);
	int rc = 0;
	size_t i;

	rc |= report_line(rep, "Bucket file", err, "%s", in->bucket_in);
	if (in->bucket_out != NULL)
		rc |= report_line(rep, "Filled bucket file", err, "%s",
		    in->bucket_out);
	for (i = 0; i < in->nsamples; i++)
		rc |= report_line(rep, i == 0 ? "Sample files" : "", err, "%s",
		    in->samples[i]);
	if (info->measure == PME_MEASURE_EVENT)
		rc |= event_lines(rep, bf, in->tally, err);
	else
		rc |= report_line(rep, "Counts", err, "%s",
		    report_measure(info->measure));
	rc |= report_line(rep, "Total", err, "%" PRIu64, total);
	rc |= report_line(rep, "In buckets", err, "%" PRIu64 " (%.1f%%)",
	    inside, pct(inside, total));
	if (rc == 0)
		rc = outside(rep, bf, in->tally, total, inside, err);
	rc |= report_line(rep, "Unmapped", err, "%" PRIu64 " (%.1f%%)",
	    info->unmapped, pct(info->unmapped, total));
	/* Samples are lost by a sampling collector; exact counts have
	 * none to lose. */
	if (info->measure == PME_MEASURE_CLOCK || info->lost > 0)
		rc |= report_line(rep, "Lost samples", err, "%" PRIu64
		    " (%.1f%% of those taken)", info->lost, pct(info->lost,
		    total + info->lost));
	rc |= report_line(rep, "Runs", err, "%" PRIu64, info->runs);
	if (info->measure == PME_MEASURE_CLOCK)
		rc |= interval(rep, info->period, err);
	if (rc == 0 && in->tally != NULL)
		rc = run_lines(rep, in, err);
	return rc ? -1 : 0;
}

/* The counts in bf's buckets. */
static uint64_t
inside_of(struct pme_bucketfile *bf)
{
	struct pme_bucket *bk;
	size_t nb = pme_bucketfile_buckets(bf, &bk), i;
	uint64_t inside = 0;

	for (i = 0; i < nb; i++)
		inside += bk[i].count;
	return inside;
}

uint64_t
report_total(struct pme_bucketfile *bf)
{
	const struct pme_info *info = pme_bucketfile_info(bf);
	const struct pme_module *mods;
	size_t nm = pme_bucketfile_modules(bf, &mods), i;
	uint64_t known = inside_of(bf) + info->unmapped;

	for (i = 0; i < nm; i++)
		known += mods[i].outside;
	return info->total > known ? info->total : known;
}

int
report_unit(struct pme_report *rep, struct pme_bucketfile *bf,
    struct pme_error *err)
{
	const char *unit = NULL, *name = NULL;

	if (pme_bucketfile_info(bf)->measure == PME_MEASURE_EVENT)
		name = pme_bucketfile_event(bf, &unit);
	return pme_report_unit(rep, measure_amount(name, unit), err);
}

struct pme_report *
report_build(struct pme_bucketfile *bf, const struct report_input *in,
    struct pme_error *err)
{
	struct pme_info *info = pme_bucketfile_info(bf);
	struct pme_report *rep;
	uint64_t inside = inside_of(bf), total = report_total(bf);

	if ((rep = pme_report_new(NULL, total, err)) == NULL)
		return NULL;
	/* The quick path's buckets (pmehisto -x, pmebuild -x) are each a
	 * routine: the address column is noise there. */
	pme_report_options(rep, in->flags | ((in->tally != NULL &&
	    in->tally->quick) || (info->options & PME_OPT_QUICK) ?
	    PME_REPORT_NOADDR : 0), in->cutoff);
	/* The quick path's buckets nobody sampled, when it made none of
	 * them (pmehisto.c, sparse()). */
	if (report_unit(rep, bf, err) == -1 ||
	    add_rows(rep, bf, in, err) == -1 || (in->tally != NULL &&
	    in->tally->unmade > 0 && pme_report_zeros(rep,
	    in->tally->unmade, err) == -1) ||
	    summary(rep, bf, in, total, inside, err) == -1) {
		pme_report_free(rep);
		return NULL;
	}
	return rep;
}
