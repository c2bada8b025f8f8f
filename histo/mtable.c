/*
 * mtable.c - pmehisto -V measures: a table with a column per measure,
 * per unit (per routine with -x), as the Oracle Analyzer's function list
 * shows CPU time, page faults and context switches side by side.  The
 * sample files are tallied once per event of their first run, each into
 * buckets of its own (the same buckets: the bucket file, or the quick
 * path's routines of the same program), and the rows joined by unit.
 * Per thread, process, module, function or line (-V measures:LEVEL) the
 * files are read by caliper.c once per measure, and the rows joined by
 * the names caliper_row_key() gives them, so that each column is what
 * -V caliper:LEVEL -M MEASURE counts.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histo.h"
#include "measure.h"
#include "util.h"

struct mrow {
	char		*name;
	uint64_t	 c[PME_EVENTS_MAX];
};

struct mtab {
	char		 names[PME_EVENTS_MAX][256];
	char		 units[PME_EVENTS_MAX][64];
	int		 clock[PME_EVENTS_MAX];
	uint64_t	 period[PME_EVENTS_MAX];
	uint32_t	 n;
	struct pme_bucketfile *bf[PME_EVENTS_MAX];
	struct mrow	*rows;
	size_t		 nrows;
	int		 level;		/* CAL_NONE: units */
};

static const char *const level_heads[CAL_NLEVELS] = {
	"thread", "process", "module", "function", "line", "instruction",
	"cpu"
};

/* The events of the first run, then stop. */
static int
first_header(void *arg, const struct pme_sample_header *h)
{
	struct mtab *m = arg;
	uint32_t i;

	m->n = h->nevents > 0 ? h->nevents : 1;
	for (i = 0; i < h->nevents; i++) {
		snprintf(m->names[i], sizeof(m->names[i]), "%s",
		    h->events[i].name);
		snprintf(m->units[i], sizeof(m->units[i]), "%s",
		    h->events[i].unit);
		m->clock[i] = h->events[i].kind == PME_EV_CLOCK;
		m->period[i] = h->events[i].period;
	}
	if (h->nevents == 0) {
		snprintf(m->names[0], sizeof(m->names[0]), "cpu-clock");
		m->clock[0] = 1;
	}
	/* A run of pmeclock -w: its wall time and states too, in ns. */
	for (i = 0; (h->flags & PME_SHDR_WALL) && m->n < PME_EVENTS_MAX &&
	    wall_run_measure(i) != NULL; i++, m->n++) {
		snprintf(m->names[m->n], sizeof(m->names[m->n]), "%s",
		    wall_run_measure(i));
		snprintf(m->units[m->n], sizeof(m->units[m->n]), "ns");
		m->period[m->n] = 1;
	}
	return 1;
}

static int
events_of(struct mtab *m, const char *path, struct pme_error *err)
{
	static const struct pme_sample_visitor v = {
		first_header, NULL, NULL, NULL, NULL
	};

	if (pme_samplefile_read(path, &v, m, NULL, err) == -1 && m->n == 0)
		return -1;
	return 0;
}

static struct mrow *
row_of(struct mtab *m, const char *name)
{
	struct mrow *r;
	size_t i;

	for (i = 0; i < m->nrows; i++)
		if (strcmp(m->rows[i].name, name) == 0)
			return &m->rows[i];
	if ((r = realloc(m->rows, (m->nrows + 1) * sizeof(*r))) == NULL)
		return NULL;
	m->rows = r;
	r += m->nrows;
	memset(r, 0, sizeof(*r));
	if ((r->name = strdup(name)) == NULL)
		return NULL;
	m->nrows++;
	return r;
}

/* Measure k's counts, by unit, into the rows. */
static int
add_counts(struct mtab *m, uint32_t k, struct pme_error *err)
{
	const struct pme_unit *u;
	struct pme_bucket *bk;
	size_t nb = pme_bucketfile_buckets(m->bf[k], &bk), nu, i;
	struct mrow *r;

	nu = pme_bucketfile_units(m->bf[k], &u);
	for (i = 0; i < nb; i++) {
		if (bk[i].count == 0 || bk[i].unit >= nu)
			continue;
		if ((r = row_of(m, u[bk[i].unit].name)) == NULL)
			return histo_err(err, PME_ENOMEM, "out of memory");
		r->c[k] += bk[i].count;
	}
	return 0;
}

/* Tallies measure k of the sample files into m->bf[k] (bin, or -x). */
static int
tally_measure(struct mtab *m, uint32_t k, const struct mtable_input *in,
    struct pme_error *err)
{
	struct pme_bucketfile *bf = NULL;
	struct tally t;
	size_t i;
	int rc = 0;

	if (!in->quick && (bf = pme_bucketfile_open(in->bin, err)) == NULL)
		return -1;
	if (bf != NULL)
		pme_bucketfile_clear(bf);
	tally_init(&t, bf);
	t.quick = in->quick;
	t.quiet = 1;
	t.bfname = in->bin;
	t.measure.want = m->names[k];
	t.filter = in->filter;
	for (i = 0; i < in->nsamples && rc == 0; i++)
		rc = tally_file(&t, in->samples[i], err);
	m->bf[k] = t.bf;
	tally_free(&t);
	/* A measure of the run without a sample (the quick path made no
	 * buckets of it) is a column of zeros, as perf stat shows 0. */
	if (rc == 0 && m->bf[k] == NULL)
		return 0;
	return rc == 0 ? add_counts(m, k, err) : -1;
}

/* Measure k of the sample files per Caliper level in->level, into the
 * rows. */
static int
level_measure(struct mtab *m, uint32_t k, const struct mtable_input *in,
    struct pme_error *err)
{
	struct caliper_input ci;
	struct caliper *c;
	struct mrow *r;
	uint64_t count;
	size_t i, n;
	char *key;
	int rc = 0;

	memset(&ci, 0, sizeof(ci));
	ci.prog = "pmehisto";
	ci.level = in->level;
	ci.quiet = 1;
	ci.samples = in->samples;
	ci.nsamples = in->nsamples;
	ci.measure = m->names[k];
	ci.filter = in->filter;
	if ((c = caliper_new(&ci, err)) == NULL)
		return -1;
	n = caliper_rows(c, in->level);
	for (i = 0; i < n && rc == 0; i++) {
		if ((key = caliper_row_key(c, in->level, i, &count)) == NULL ||
		    (r = row_of(m, key)) == NULL)
			rc = histo_err(err, PME_ENOMEM, "out of memory");
		else
			r->c[k] += count;
		free(key);
	}
	caliper_free(c);
	return rc;
}

static int
cmp_row(const void *a, const void *b)
{
	const struct mrow *x = a, *y = b;
	uint32_t k;

	for (k = 0; k < PME_EVENTS_MAX; k++)
		if (x->c[k] != y->c[k])
			return x->c[k] < y->c[k] ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The heading of measure k, naming what its counts are: "cpu-clock
 * (samples)", "page-faults (page faults)" (a sample each), "page-faults
 * (samples x 4 page faults)", "page-faults (samples)" (a rate's). */
static void
heading(const struct mtab *m, uint32_t k, char *buf, size_t len)
{
	if (m->clock[k] || m->period[k] == 0)
		snprintf(buf, len, "%s (samples)", m->names[k]);
	else if (m->period[k] == 1)
		snprintf(buf, len, "%s (%s)", m->names[k], m->units[k]);
	else
		snprintf(buf, len, "%s (samples x %" PRIu64 " %s)",
		    m->names[k], m->period[k], m->units[k]);
}

/* The text's first column: the longest name, escaped, and at least 32
 * (a routine's) and at most 200 columns wide. */
static int
name_width(const struct mtab *m)
{
	char e[1024];
	size_t i, w = 32, n;

	for (i = 0; i < m->nrows; i++) {
		pme_escape(e, sizeof(e), m->rows[i].name);
		if ((n = strlen(e)) > w)
			w = n < 200 ? n : 200;
	}
	return (int)w;
}

/* "unit" or the level's name; upper case and padded to width in text. */
static void
first_heading(const struct mtab *m, int csv, int width, FILE *fp)
{
	const char *s = m->level == CAL_NONE ? "unit" :
	    level_heads[m->level];
	size_t i;

	if (csv) {
		fputs(s, fp);
		return;
	}
	for (i = 0; s[i] != '\0'; i++)
		fputc(toupper((unsigned char)s[i]), fp);
	fprintf(fp, "%*s", width - (int)i, "");
}

static int
write_table(const struct mtab *m, int csv, FILE *fp)
{
	char h[400], e[1024];
	int width = name_width(m);
	uint32_t k;
	size_t i;

	first_heading(m, csv, width, fp);
	for (k = 0; k < m->n; k++) {
		heading(m, k, h, sizeof(h));
		if (csv)
			fprintf(fp, ",\"%s\"", h);
		else
			fprintf(fp, " %*s", (int)(strlen(h) > 12 ?
			    strlen(h) : 12), h);
	}
	fputc('\n', fp);
	for (i = 0; i < m->nrows; i++) {
		pme_escape(e, sizeof(e), m->rows[i].name);
		if (csv)
			fprintf(fp, "\"%s\"", e);
		else
			fprintf(fp, "%-*s", width, e);
		for (k = 0; k < m->n; k++) {
			heading(m, k, h, sizeof(h));
			if (csv)
				fprintf(fp, ",%" PRIu64, m->rows[i].c[k]);
			else
				fprintf(fp, " %*" PRIu64, (int)(strlen(h) > 12 ?
				    strlen(h) : 12), m->rows[i].c[k]);
		}
		fputc('\n', fp);
	}
	return ferror(fp) ? -1 : 0;
}

int
mtable_parse(const char *spec, int *level)
{
	char buf[64];

	if (strncmp(spec, "measures", 8) != 0 ||
	    (spec[8] != '\0' && spec[8] != ':'))
		return 1;
	*level = CAL_NONE;
	if (spec[8] == '\0' || strcmp(spec + 9, "routine") == 0)
		return 0;
	snprintf(buf, sizeof(buf), "caliper:%s", spec + 9);
	return strlen(spec + 9) < 32 && caliper_parse(buf, level) == 0 &&
	    *level != CAL_ALL ? 0 : -1;
}

int
mtable_write(const struct mtable_input *in, int csv, FILE *fp,
    struct pme_error *err)
{
	struct mtab *m;
	uint32_t k;
	size_t i;
	int rc = -1;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		return histo_err(err, PME_ENOMEM, "out of memory");
	m->level = in->level;
	if (events_of(m, in->samples[0], err) == -1)
		goto out;
	for (k = 0; k < m->n; k++)
		if ((m->level == CAL_NONE ? tally_measure(m, k, in, err) :
		    level_measure(m, k, in, err)) == -1)
			goto out;
	qsort(m->rows, m->nrows, sizeof(*m->rows), cmp_row);
	if (write_table(m, csv, fp) == -1) {
		histo_err(err, PME_EIO, "standard output: write failed");
		goto out;
	}
	rc = 0;
out:
	for (k = 0; k < m->n; k++)
		pme_bucketfile_close(m->bf[k]);
	for (i = 0; i < m->nrows; i++)
		free(m->rows[i].name);
	free(m->rows);
	free(m);
	return rc;
}
