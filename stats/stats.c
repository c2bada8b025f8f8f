/*
 * stats.c - stats(1): event graphs from an event file (or a sample
 * file) and graph specifications, to the terminal, text, PostScript,
 * CSV or Chrome's trace event JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats.h"
#include "prog.h"
#include "util.h"
#include "defgraph.h"
#include "../histo/histo.h"	/* the sample filters */

static const char *prog = "stats";

struct opts {
	const char	*events;	/* -f */
	const char	*graphs;	/* -g */
	const char	*out;		/* -o */
	const char	*buckets;	/* -B */
	const char	*by;		/* -b */
	enum otype	 type;
	int		 typed;
	int		 list;		/* -l */
	int		 summary;	/* -m */
	int		 quiet, verbose;
	int		 ncols;		/* -w */
	int		 xset, rset;
	uint64_t	 t0, t1;	/* -x */
	long		 r0, r1;	/* -r */
	struct outopt	 o;
	char		**ids;		/* graphs named */
	int		 nids;
	struct filter	 filter;	/* --time, --tid, ... */
};

/* The filters' option codes: OPT_FILTER + FILTER_*. */
#define OPT_FILTER	257

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: stats [-lmnqv] [-f eventfile] [-g graphfile] [-T type] "
	    "[-o output]\n"
	    "             [-w columns] [-x start,end] [-r first,last] "
	    "[-s size]\n"
	    "             [-t title] [-u subtitle] [-B bucketfile] "
	    "[-b kind]\n"
	    "             [--comm name] [--cpu list] [--dso list] "
	    "[--focus regex] [--hide regex]\n"
	    "             [--ignore regex] [--pid list] [--tid list] "
	    "[--time start,end]\n"
	    "             [graph ...]\n"
	    "  -f file   event file (default events.sim), or a sample "
	    "file (.PMS)\n"
	    "  -g file   graph file (default Graphfile, else the one "
	    "stats ships)\n"
	    "  -T type   term, text, ps, csv or json (default: term on a "
	    "terminal, else text)\n"
	    "  -o file   output (default standard output)\n"
	    "  -l        list the graphs and histometrics, then exit\n"
	    "  -m        the run, its metrics and parameters (text or csv), "
	    "then exit\n"
	    "  -n        legends in time or event counts, not "
	    "percentages\n"
	    "  -w cols   columns of the chart (text: 80, ps: 600)\n"
	    "  -x s,e    the window of time [s, e) (default: the run)\n"
	    "  -r f,l    rows f to l (default: the graph's)\n"
	    "  -s size   PostScript paper: a4, a3, letter, legal, "
	    "WxH (inches), WxHcm\n"
	    "  -t, -u    title and subtitle\n"
	    "  -B file   a sample file's bucket file (default PMEFILE.PME)\n"
	    "  -b kind   a sample file's rows coloured by state (a -w "
	    "run's default),\n"
	    "            routine (else the default) or module\n"
	    "  --time, --tid, --pid, --comm, --cpu, --dso, --focus, "
	    "--ignore, --hide\n"
	    "            a sample file's samples these keep, as pmehisto's "
	    "filters\n"
	    "  -q, -v    fewer, more messages\n");
}

static int
parse_pair(const char *arg, int sign, uint64_t *a, uint64_t *b)
{
	char *end;

	errno = 0;
	if (!sign && *arg == '-')
		return -1;
	*a = strtoull(arg, &end, 0);
	if (errno != 0 || end == arg || *end != ',')
		return -1;
	arg = end + 1;
	if (*arg == '-')
		return -1;
	*b = strtoull(arg, &end, 0);
	if (errno != 0 || end == arg || *end != '\0' || *b < *a)
		return -1;
	return 0;
}

/* Filter which's optarg into op (a sample file's filters, as
 * pmehisto's); 0, or -1 said. */
static int
filter_option(struct opts *op, int which)
{
	if ((which == FILTER_TIME && op->filter.time) ||
	    (which == FILTER_COMM && op->filter.comm != NULL)) {
		fprintf(stderr, "%s: --%s: given twice\n", prog,
		    filter_names[which]);
		return -1;
	}
	if (filter_parse(&op->filter, which, optarg) == 0)
		return 0;
	fprintf(stderr, "%s: --%s: '%s' is not a filter: see pmehisto(1), "
	    "Filters\n", prog, filter_names[which], optarg);
	return -1;
}

static int
option(struct opts *op, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		FILTER_LONGOPTS(OPT_FILTER),
		{ NULL, 0, NULL, 0 }
	};
	uint64_t a, b;
	int c;

	op->o.percent = 1;
	while ((c = getopt_long(argc, argv, "B:b:f:g:lmno:qr:s:T:t:u:vw:x:",
	    lo, NULL)) != -1) {
		switch (c) {
		case 'B': op->buckets = optarg; break;
		case 'b':
			if (strcmp(optarg, "routine") != 0 &&
			    strcmp(optarg, "module") != 0 &&
			    strcmp(optarg, "state") != 0) {
				fprintf(stderr, "%s: -b: 'state', 'routine' "
				    "or 'module', not '%s'\n", prog, optarg);
				return 2;
			}
			op->by = optarg;
			break;
		case 'f': op->events = optarg; break;
		case 'g': op->graphs = optarg; break;
		case 'l': op->list = 1; break;
		case 'm': op->summary = 1; break;
		case 'n': op->o.percent = 0; break;
		case 'o': op->out = optarg; break;
		case 'q': op->quiet = 1; break;
		case 'v': op->verbose = 1; break;
		case 's': op->o.paper = optarg; break;
		case 't': op->o.title = optarg; break;
		case 'u': op->o.subtitle = optarg; break;
		case 'T':
			op->typed = 1;
			if (strcmp(optarg, "term") == 0)
				op->type = O_TERM;
			else if (strcmp(optarg, "text") == 0)
				op->type = O_TEXT;
			else if (strcmp(optarg, "ps") == 0)
				op->type = O_PS;
			else if (strcmp(optarg, "csv") == 0)
				op->type = O_CSV;
			else if (strcmp(optarg, "json") == 0)
				op->type = O_JSON;
			else {
				fprintf(stderr, "%s: -T: unknown type '%s' "
				    "(term, text, ps, csv, json)\n", prog,
				    optarg);
				return 2;
			}
			break;
		case 'w':
			op->ncols = atoi(optarg);
			if (op->ncols < 10 || op->ncols > 10000) {
				fprintf(stderr, "%s: -w: columns from 10 to "
				    "10000, not '%s'\n", prog, optarg);
				return 2;
			}
			break;
		case 'x':
			if (parse_pair(optarg, 0, &op->t0, &op->t1) == -1 ||
			    op->t1 == op->t0) {
				fprintf(stderr, "%s: -x: 'start,end' with "
				    "start < end, not '%s'\n", prog, optarg);
				return 2;
			}
			op->xset = 1;
			break;
		case 'r':
			if (parse_pair(optarg, 0, &a, &b) == -1 ||
			    b >= 1u << 24) {
				fprintf(stderr, "%s: -r: 'first,last' rows, "
				    "not '%s'\n", prog, optarg);
				return 2;
			}
			op->r0 = (long)a;
			op->r1 = (long)b;
			op->rset = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("stats (pme) %s\n", PME_VERSION_STRING);
			exit(0);
		default:
			if (c >= OPT_FILTER && c <= OPT_FILTER + FILTER_HIDE) {
				if (filter_option(op, c - OPT_FILTER) == 0)
					break;
				return 2;
			}
			usage(stderr);
			return 2;
		}
	}
	op->ids = argv + optind;
	op->nids = argc - optind;
	if (!op->typed)
		op->type = isatty(0) && isatty(1) && op->out == NULL ?
		    O_TERM : O_TEXT;
	if (op->o.width == 0)
		op->o.width = op->ncols ? op->ncols + 20 : 80;
	return 0;
}

/* ----------------------------------------------------------- graphs */

/* The graph file: -g, else ./Graphfile, else the one stats ships. */
static int
load_graphs(const struct opts *op, struct gfile *gf, struct pme_error *err)
{
	if (op->graphs != NULL)
		return gfile_load(op->graphs, gf, err);
	if (access("Graphfile", F_OK) == 0)
		return gfile_load("Graphfile", gf, err);
	return gfile_parse(default_graphfile, strlen(default_graphfile),
	    GFILE_SHIPPED, gf, err);
}

static int
write_temp(const struct gfile *gf, struct pme_error *err)
{
	struct outfile of;

	if (outfile_open(&of, "GraphfileTemp", err) == -1)
		return -1;
	gfile_write(gf, of.fp);		/* its errors are the stream's */
	return outfile_commit(&of, err);
}

/* Moves one's graphs to the end of all (of room for *cap); -1 when out
 * of memory, one then still holding them. */
static int
append_graphs(struct gfile *all, size_t *cap, struct gfile *one)
{
	struct graph *p;
	size_t c = *cap ? *cap : 16;

	if (all->n + one->n > *cap) {
		while (c < all->n + one->n)
			c *= 2;
		if ((p = realloc(all->g, c * sizeof(*p))) == NULL)
			return -1;
		all->g = p;
		*cap = c;
	}
	if (one->n > 0)
		memcpy(all->g + all->n, one->g, one->n * sizeof(*one->g));
	all->n += one->n;
	free(one->g);
	one->g = NULL;
	one->n = 0;
	return 0;
}

/* The event file's specifications under the graph file's, written to
 * GraphfileTemp as the seed did. */
static int
merge_specs(const struct opts *op, struct src *s, struct gfile *gf)
{
	const char *const *specs;
	size_t n = s->ef != NULL ? pme_eventfile_specs(s->ef, &specs) : 0;
	struct gfile all = { 0 }, from = { 0 }, one;
	struct pme_error err;
	char name[64];
	size_t cap = 0;

	if (n == 0)
		return 0;
	/* The specifications' graphs one after another, merged at once:
	 * the same as merging each in turn, at the cost of one pass. */
	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s (spec %zu)", "events", i + 1);
		if (gfile_parse(specs[i], strlen(specs[i]), name, &one,
		    &err) == -1) {
			fprintf(stderr, "%s: '%s': %s\n", prog, s->path,
			    pme_strerror(&err));
			gfile_free(&all);
			return -1;
		}
		if (append_graphs(&all, &cap, &one) == -1) {
			fprintf(stderr, "%s: out of memory\n", prog);
			gfile_free(&one);
			gfile_free(&all);
			return -1;
		}
	}
	if (gfile_merge(&from, &all, &err) == -1 ||
	    gfile_merge(gf, &from, &err) == -1) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		gfile_free(&all);
		gfile_free(&from);
		return -1;
	}
	gfile_free(&all);
	gfile_free(&from);
	/* GraphfileTemp is a record for the user, not needed to draw: a
	 * directory stats cannot write still gets its graphs. */
	if (write_temp(gf, &err) == -1) {
		if (!op->quiet)
			fprintf(stderr, "%s: %s: the merged graphs are "
			    "drawn, not kept\n", prog, pme_strerror(&err));
		return 0;
	}
	if (op->verbose)
		fprintf(stderr, "%s: the graphs of '%s' merged into "
		    "'GraphfileTemp'\n", prog, s->path);
	return 0;
}

static int
drawable(const struct graph *g, const struct src *s)
{
	return gkinds[g->kind].drawable(g, s);
}

static void
list_graphs(const struct gfile *gf, const struct src *s)
{
	const struct pme_histo *h;
	size_t n = s->ef != NULL ? pme_eventfile_histos(s->ef, &h) : 0;
	char id[256], menu[256];

	/* Names from the files, escaped for a terminal. */
	for (size_t i = 0; i < gf->n; i++) {
		pme_escape(id, sizeof(id), gf->g[i].id);
		pme_escape(menu, sizeof(menu), gf->g[i].menu != NULL ?
		    gf->g[i].menu : "");
		printf("%-12s %-20s %s%s\n", gkinds[gf->g[i].kind].name, id, menu,
		    drawable(&gf->g[i], s) ? "" : " (no events)");
	}
	for (size_t i = 0; i < n; i++) {
		pme_escape(id, sizeof(id), h[i].name);
		printf("%-12s \"%s\" %u sets\n", "histometric", id,
		    h[i].nsets);
	}
}

/* ----------------------------------------------------------- output */

/* A -w run's states as Chrome trace JSON: pmehisto -V timeline's. */
static int
json_states(FILE *fp, const char *path, struct pme_error *err)
{
	const char *paths[1] = { path };
	struct wall_input in = { NULL, paths, 1, 0, 0, 1, 0, NULL };

	return wall_write(&in, fp, err);
}

static int
draw_one(FILE *fp, const struct opts *op, const struct graph *g,
    struct src *s, struct pme_error *err)
{
	struct grid gr;
	struct window w;
	uint32_t cols;
	int rc;

	if (gkinds[g->kind].draw != NULL)
		return gkinds[g->kind].draw(fp, g, s, op->type, &op->o, err);
	if (grid_prepare(&gr, g, s, err) == -1)
		return -1;
	if (op->type == O_CSV) {
		rc = out_csv(fp, &gr, err);
		grid_free(&gr);
		return rc;
	}
	cols = op->ncols ? (uint32_t)op->ncols : op->type == O_PS ? 600 :
	    text_columns(&gr, op->o.width);
	grid_whole(&gr, cols, &w);
	if (op->xset) {
		w.t0 = op->t0;
		w.t1 = op->t1;
	}
	if (op->rset) {
		w.r0 = op->r0 > gr.rlo ? op->r0 : gr.rlo;
		w.r1 = op->r1 < gr.rhi ? op->r1 : gr.rhi;
		if (w.r0 > w.r1) {
			pme_seterr(err, PME_EINVAL,
			    "-r: rows %ld to %ld: graph '%s' "
			    "has rows %ld to %ld", op->r0, op->r1, g->id,
			    gr.rlo, gr.rhi);
			grid_free(&gr);
			return -1;
		}
	}
	rc = grid_draw(&gr, &w, err);
	if (rc == 0)
		rc = op->type == O_PS ? out_ps(fp, &gr, &op->o) :
		    out_text(fp, &gr, &op->o);
	grid_free(&gr);
	return rc;
}

/* The graphs to draw: those named, else every drawable one. */
static int
pick(const struct opts *op, const struct gfile *gf, const struct src *s,
    const struct graph ***out, size_t *n)
{
	const struct graph **v = calloc(gf->n + 1, sizeof(*v));

	*n = 0;
	if (v == NULL)
		return -1;
	if (op->nids == 0) {
		for (size_t i = 0; i < gf->n; i++)
			if (drawable(&gf->g[i], s))
				v[(*n)++] = &gf->g[i];
	} else
		for (int i = 0; i < op->nids; i++) {
			const struct graph *g = gfile_find(gf, op->ids[i]);

			if (g == NULL) {
				fprintf(stderr, "%s: no graph '%s' (stats -l "
				    "lists them)\n", prog, op->ids[i]);
				free(v);
				return -1;
			}
			v[(*n)++] = g;
		}
	*out = v;
	return 0;
}

static int
run(struct opts *op)
{
	struct src s;
	struct gfile gf = { 0 };
	const struct graph **gv = NULL;
	size_t ng = 0;
	struct pme_error err;
	const char *path = op->events != NULL ? op->events : PME_EVENT_FILE;
	struct outfile of = { NULL, NULL, NULL };
	const char *in[] = { path, op->buckets, op->graphs != NULL ?
	    op->graphs : "Graphfile" };
	struct pme_error pe;
	int rc = 1;

	/* -o replaces none of the inputs, nor a pme file. */
	if (op->out != NULL && pme_out_check(op->out, 0, "stats' output", in,
	    3, &pe) == -1) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&pe));
		return 1;
	}
	if (src_open(&s, path, op->buckets, op->by, &op->filter, &err) ==
	    -1) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		return 1;
	}
	if (op->filter.on && !op->quiet)
		fprintf(stderr, "%s: '%s': filters %s: kept %llu of %llu "
		    "samples\n", prog, path, op->filter.text,
		    (unsigned long long)op->filter.kept,
		    (unsigned long long)op->filter.read);
	if (s.run.lost > 0 && !op->quiet)
		fprintf(stderr, "%s: '%s': the file was cut short: %lld "
		    "bytes after its last whole chunk lost\n", prog, path,
		    (long long)s.run.lost);
	else if (s.ef != NULL && !(s.run.flags & PME_RUN_COMPLETE) &&
	    !op->quiet)
		fprintf(stderr, "%s: '%s': incomplete (the program did not "
		    "close it): the events written so far\n", prog, path);
	if (s.run.failed > 0 && !op->quiet)
		fprintf(stderr, "%s: '%s': %llu calls of the event API failed "
		    "in the program; the first: %s\n", prog, path,
		    (unsigned long long)s.run.failed, s.run.failure != NULL ?
		    s.run.failure : "(unknown)");
	if (load_graphs(op, &gf, &err) == -1) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		goto out;
	}
	if (merge_specs(op, &s, &gf) == -1)
		goto out;
	if (op->summary) {
		rc = out_summary(stdout, &s, op->type == O_CSV) == 0 ? 0 : 1;
		goto out;
	}
	if (op->list) {
		list_graphs(&gf, &s);
		rc = 0;
		goto out;
	}
	if (op->type == O_JSON) {
		if (outfile_open(&of, op->out, &err) == -1 ||
		    (s.states ? json_states(of.fp, path, &err) :
		    out_json(of.fp, &s, &gf, &err)) == -1) {
			outfile_why(&of, &err);
			fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
			goto out;
		}
		goto done;
	}
	if (s.ef == NULL && s.nev == 0) {
		fprintf(stderr, "%s: '%s': no samples in the sample file: "
		    "nothing to draw\n", prog, path);
		goto out;
	}
	if (pick(op, &gf, &s, &gv, &ng) == -1)
		goto out;
	if (ng == 0) {
		fprintf(stderr, "%s: '%s': no graph of %s has events here "
		    "(stats -l lists them)\n", prog, path, op->graphs != NULL ?
		    op->graphs : "the graph file");
		goto out;
	}
	if (op->type == O_TERM) {
		rc = term_run(&s, gv, ng, op->o.percent, &err);
		if (rc == -1)
			fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		rc = rc == 0 ? 0 : 1;
		goto out;
	}
	if (outfile_open(&of, op->out, &err) == -1 ||
	    (op->type == O_PS && ps_begin(of.fp, ng, &op->o, &err) == -1)) {
		outfile_why(&of, &err);
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		goto out;
	}
	for (size_t i = 0; i < ng; i++) {
		if (i > 0 && op->type == O_TEXT)
			fprintf(of.fp, "\n\f\n");
		if (i > 0 && op->type == O_CSV)
			putc('\n', of.fp);
		if (draw_one(of.fp, op, gv[i], &s, &err) == -1) {
			outfile_why(&of, &err);
			fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
			goto out;
		}
	}
	if (op->type == O_PS && ps_end(of.fp) == -1) {
		outfile_why(&of, &err);
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		goto out;
	}
done:
	if (outfile_commit(&of, &err) == -1) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		goto out;
	}
	rc = 0;
out:
	outfile_abort(&of);
	free(gv);
	gfile_free(&gf);
	src_close(&s);
	return rc;
}

int
main(int argc, char **argv)
{
	struct opts op = { 0 };
	int rc;

	pme_prog_writes();
	if ((rc = option(&op, argc, argv)) == 0)
		rc = run(&op);
	filter_free(&op.filter);
	return rc;
}
