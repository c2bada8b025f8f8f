/*
 * pmehisto - tallies sample files (.PMS) into a bucket file (.PME) and
 * prints the histogram: a line-printer file (.HIS), the paged terminal
 * display, PostScript or CSV.  See pmehisto(1).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debugfile.h"
#include "histo.h"
#include "prog.h"
#include "util.h"

/* The quick path's rows: by count, those below this percentage left out
 * (-C), so that a large program's profile is a page, not 68. */
#define QUICK_CUTOFF	0.5
/* The views' (-V spy, callgraph): procedures and calls in fewer of the
 * stacks left out, as the Spy's cutoff does. */
#define VIEW_CUTOFF	1.0

enum mode { MODE_AUTO, MODE_CLOCK, MODE_TRACE };
/* TYPE_EXPORT: one of export.c's registry, opts' export. */
enum type { TYPE_DEFAULT, TYPE_TERM, TYPE_TEXT, TYPE_PS, TYPE_CSV,
	TYPE_FOLDED, TYPE_EXPORT, TYPE_NONE };

static const char *prog = "pmehisto";

struct opts {
	enum mode	 mode;
	enum type	 type;
	const struct export_format *export;	/* -T's export, or NULL */
	char		*bin, *bout, *his;	/* NULL: not given */
	const char	*oarg;			/* -o as given */
	char		**pms;
	size_t		 npms;
	unsigned	 flags;			/* PME_REPORT_* */
	double		 cutoff;		/* -1: not given */
	int		 order;			/* -a 'a', -s 's', else 0 */
	int		 quick, quiet, verbose;
	int		 zeros;			/* -z: -D's rows zero in both */
	int		 bin_given, bout_given;
	int		 bout_null;		/* bout is the null device */
	char		*base;			/* -D: the baseline, or NULL */
	struct gate	*gates;			/* -G */
	size_t		 ngates;
	struct pme_bucketfile *read;		/* bin, read by choose() */
	struct view	 view;			/* -V */
	char		*vtext;			/* the view's text, or NULL */
	size_t		 vlen;
	int		 caliper;		/* -V caliper: CAL_*, or CAL_NONE */
	const char	**srcdirs;		/* -I, in argv */
	size_t		 nsrcdirs;
	const char	*measure;		/* -M, or NULL */
	int		 measures;		/* -V measures */
	int		 mlevel;		/* its level: CAL_*, CAL_NONE */
	int		 heap;			/* -V heap */
	int		 wall;			/* -V states 1, locks 2 */
	uint64_t	 lockmin;		/* -W, ns */
	int		 io;			/* -V io */
	struct filter	 filter;		/* --time, --tid, ... */
	const char	*base_arg;		/* -D as given */
	int		 base_stacks;		/* -D names a sample file
						   whose stacks -T folded or
						   an export compares (svg) */
	struct tally	*bt;			/* their tally, or NULL */
	int		 inlines;		/* --inline */
	int		 hide_kernel;		/* --hide-kernel */
};

/* getopt's code of --version, which has no short option (-V is -V view). */
#define OPT_VERSION	256
/* The filters' codes: OPT_FILTER + FILTER_*. */
#define OPT_FILTER	257
/* --inline's and --hide-kernel's codes, above the filters'. */
#define OPT_INLINE	320
#define OPT_HIDE_KERNEL	321

/* The exit status when a gate (-G) failed: make stops on it, and it is
 * told apart from an error (1) and a usage error (2). */
#define EXIT_GATE	3

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: pmehisto [-acknqstvxz] [-B outbucket] [-b bucketfile] "
	    "[-C percent] [-D baseline]\n"
	    "                [-G gate] [-I srcdir] [-M measure] [-o histogram] "
	    "[-T type]\n"
	    "                [-V view] [-W time] [--comm name] [--cpu list] "
	    "[--pid list]\n"
	    "                [--tid list] [--dso list] [--focus regex] "
	    "[--hide regex]\n"
	    "                [--ignore regex] [--time start,end] "
	    "[--hide-kernel]\n"
	    "                [--inline] [samplefile ...]\n");
}

/* The exports' words from the registry, ", " apart, each with its
 * gloss in parentheses when glosses: "svg (a flame graph), callgrind,
 * pprof" for the help, "svg, callgrind, pprof" for a message. */
static const char *
export_list(char *buf, size_t len, int glosses)
{
	const struct export_format *f;
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < export_nformats && n < len; i++) {
		f = &export_formats[i];
		n += (size_t)snprintf(buf + n, len - n, "%s%s%s%s%s",
		    i > 0 ? ", " : "", f->name, glosses && f->gloss ? " (" :
		    "", glosses && f->gloss ? f->gloss : "", glosses &&
		    f->gloss ? ")" : "");
	}
	return buf;
}

static const char *
export_words(char *buf, size_t len)
{
	return export_list(buf, len, 0);
}

static void
help(void)
{
	char exports[256];

	usage(stdout);
	printf("\n"
	    "Tallies sample files into a bucket file and prints the "
	    "histogram.\n\n"
	    "  samplefile     clock input, default %s (several are merged)\n"
	    "  -b bucketfile  input bucket file, default %s\n"
	    "  -B outbucket   filled bucket file written, default the input's "
	    "name\n"
	    "  -o histogram   line-printer histogram, default %s "
	    "('-': stdout)\n"
	    "  -T type        display on stdout: term, text, ps, csv, none,\n"
	    "                 or folded (clock input: call stacks for "
	    "flamegraphs);\n"
	    "                 or an export of the call stacks written "
	    "instead of the\n"
	    "                 histogram: %s\n"
	    "  -c, -t         clock input (samples) or trace input (a filled "
	    "bucket file)\n"
	    "  -x             no bucket file: a bucket per routine of the "
	    "recorded program\n"
	    "  -M measure     clock input: count the samples of this event "
	    "(pmeclock -e),\n"
	    "                 default the clock, or the run's first event\n"
	    "  -s, -a         rows by count, largest first, or in address "
	    "order\n"
	    "                 (the default: -s with -x, -a with a bucket "
	    "file)\n"
	    "  -C percent     leave out buckets below percent of the total\n"
	    "                 (the default: %g with -x, else 0)\n"
	    "  -n             a counts column;  -k  a cumulative %% column\n"
	    "  -D baseline    compare with the counts of a filled bucket "
	    "file\n"
	    "  -G gate        with -D, fail (exit status 3) on growth: "
	    "total:LIMITS\n"
	    "                 or bucket:LIMITS, LIMITS +N%% and/or +N "
	    "counts, e.g.\n"
	    "                 -G total:+2%% -G bucket:+2%%,+10000\n"
	    "  -z             with -D, also the rows with no counts in either "
	    "file\n"
	    "  -V view        the report: histogram (the default), or "
	    "caliper[:LEVEL],\n"
	    "                 LEVEL thread, process, module, function, line, "
	    "instruction\n                 or cpu;\n"
	    "                 from the call chains (pmeclock -g): spy, "
	    "callgraph or\n"
	    "                 callers:ROUTINE; measures: a column per "
	    "measure (-M)\n"
	    "                 per routine, or measures:LEVEL per Caliper "
	    "LEVEL;\n"
	    "                 heap: peak, leaks, temporaries (pmeclock -e "
	    "alloc);\n"
	    "                 io: the I/O calls (pmeclock -e io);\n"
	    "                 of pmeclock -w: states (per thread, routine "
	    "and line),\n"
	    "                 locks, timeline (Chrome trace JSON)\n"
	    "  -W time        -V locks: the waits of time or more "
	    "(default 1ms)\n"
	    "  -I srcdir      -V caliper: source text shown from files under "
	    "srcdir too,\n"
	    "                 not only under the compilation directory\n"
	    "  --time S,E     only samples from S to E seconds from the run's "
	    "start,\n"
	    "  --time 10%%/2   or in percent of the run (10%%-20%%,50%%-60%%);\n"
	    "  --tid, --pid, --cpu LIST   of these threads, processes, CPUs "
	    "(1,4-7);\n"
	    "  --comm NAME    of threads called NAME (clock input; all must "
	    "pass)\n"
	    "  --dso LIST     of samples in these load modules (libc.so.6)\n"
	    "  --focus RE     of stacks through a routine or module RE "
	    "matches, from it down;\n"
	    "  --ignore RE    not those;  --hide RE  its frames taken out of "
	    "the stacks\n"
	    "  --inline       call stacks: inlined functions as frames of "
	    "their own\n"
	    "  --hide-kernel  call stacks: without the kernel's frames\n"
	    "  -q             no warnings;  -v  say what was written\n"
	    "  -h, --help     this text;  --version  the version\n",
	    PME_DEFAULT_PMS, PME_DEFAULT_PME, PME_DEFAULT_HIS,
	    export_list(exports, sizeof(exports), 1), QUICK_CUTOFF);
}

static void *
xmalloc_check(void *p)
{
	if (p == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	return p;
}

/* ----------------------------------------------------- the seed's questions */

/* Asks until the answer starts with one of the two letters (either case);
 * a blank answer is def.  Returns the letter in upper case. */
static int
ask_letter(const char *question, int a, int b, int def)
{
	char *s;
	int c;

	for (;;) {
		if ((s = pme_ask(question, NULL)) == NULL)
			return def;
		c = s[strspn(s, " \t")];
		free(s);
		if (c >= 'a' && c <= 'z')
			c -= 'a' - 'A';
		if (c == a || c == b)
			return c;
	}
}

/* Asks for a file name with its default; default extension added. */
static char *
ask_name(const char *what, const char *def, const char *ext)
{
	char q[512], *a, *s;

	snprintf(q, sizeof(q), "%s [%s]: ", what, def);
	a = xmalloc_check(pme_ask(q, def));
	s = xmalloc_check(pme_with_ext(a, ext));
	free(a);
	return s;
}

static void
ask_questions(struct opts *o, enum mode automatic)
{
	const char *bin;
	char *s;

	if (o->mode == MODE_AUTO)
		o->mode = ask_letter("Clock or Trace? (C or T): ", 'C', 'T',
		    automatic == MODE_CLOCK ? 'C' : 'T') == 'C' ?
		    MODE_CLOCK : MODE_TRACE;
	if (ask_letter("Do you wish to specify file names? (Yes or No): ",
	    'Y', 'N', 'N') != 'Y')
		return;
	if (o->mode == MODE_CLOCK) {
		s = ask_name("Input sample file", PME_DEFAULT_PMS, ".PMS");
		free(o->pms);
		o->pms = xmalloc_check(calloc(2, sizeof(*o->pms)));
		o->pms[0] = s;
		o->npms = 1;
	}
	o->bin = ask_name("Input bucket file", PME_DEFAULT_PME, ".PME");
	o->bin_given = strcmp(o->bin, PME_DEFAULT_PME) != 0;
	bin = o->bin;
	if (o->mode == MODE_CLOCK)
		o->bout = ask_name("Output bucket file", bin, ".PME");
	o->his = ask_name("Output histogram file", PME_DEFAULT_HIS, ".HIS");
}

/* ----------------------------------------------------------- the options */

/* -T's word s into o's type, and its export. */
static int
parse_type(const char *s, struct opts *o)
{
	static const struct {
		const char	*name;
		enum type	 type;
	} types[] = {
		{ "term", TYPE_TERM }, { "text", TYPE_TEXT },
		{ "ps", TYPE_PS }, { "csv", TYPE_CSV },
		{ "folded", TYPE_FOLDED }, { "none", TYPE_NONE }
	};
	size_t i;

	o->export = NULL;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(s, types[i].name) == 0) {
			o->type = types[i].type;
			return 0;
		}
	if ((o->export = export_find(s)) == NULL)
		return -1;
	o->type = TYPE_EXPORT;
	return 0;
}

static int
parse_percent(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end != '\0' || *v < 0 || *v > 100 ?
	    -1 : 0;
}

/* The -V name of a wall-time view (o->wall 1, 2 or 3). */
static const char *
wall_name(const struct opts *o)
{
	return o->wall == 2 ? "locks" : o->wall == 3 ? "timeline" : "states";
}

/* Whether the view -V chose fits the other options; -1, said, if not. */
static int
view_check(const struct opts *o)
{
	const char *why = NULL;

	if (!o->view.chains)
		return 0;
	if (o->mode == MODE_TRACE)
		why = "its call chains come from sample files (clock input), "
		    "not from a filled bucket file (trace input)";
	else if (o->type == TYPE_FOLDED || o->type == TYPE_PS ||
	    o->type == TYPE_CSV)
		why = "a text report: -T text, term or none";
	else if (o->base != NULL)
		why = "call chains are not compared (-D)";
	if (why == NULL)
		return 0;
	histo_warn(prog, "-V %s: %s", o->view.name, why);
	usage(stderr);
	return -1;
}

/* The name of -T's type when it shows call stacks, else NULL. */
static const char *
stacks_type(const struct opts *o)
{
	return o->type == TYPE_FOLDED ? "folded" : o->export != NULL &&
	    o->export->family == EXPORT_STACKS ? o->export->name : NULL;
}

/* Whether -T's type needs call stacks, which trace input has not: not
 * an export with a writer of a filled bucket file's counts. */
static int
needs_stacks(const struct opts *o)
{
	return stacks_type(o) != NULL && (o->export == NULL ||
	    o->export->counts == NULL);
}

static void
folded_trace(const struct opts *o)
{
	histo_warn(prog, "-T %s: call stacks come from sample files "
	    "(clock input), not from a filled bucket file (trace input)",
	    stacks_type(o));
	usage(stderr);
}

/* One option c (with optarg) into o: 0, 1 to stop with exit status 0
 * (--help, --version), -1 for a usage error, said. */
static int
option(struct opts *o, int c)
{
	char words[256];

	switch (c) {
	case 'a':
	case 's':
		o->order = c;
		return 0;
	case 'B':
		free(o->bout);
		o->bout = xmalloc_check(pme_with_ext(optarg, ".PME"));
		return 0;
	case 'b':
		free(o->bin);
		o->bin = xmalloc_check(pme_with_ext(optarg, ".PME"));
		o->bin_given = 1;
		return 0;
	case 'C':
		if (parse_percent(optarg, &o->cutoff) == 0)
			return 0;
		histo_warn(prog, "-C: '%s' is not a percentage from 0 to 100",
		    optarg);
		return -1;
	case 'c':
		o->mode = MODE_CLOCK;
		return 0;
	case 'D':
		free(o->base);
		o->base = xmalloc_check(pme_with_ext(optarg, ".PME"));
		o->base_arg = optarg;
		return 0;
	case 'G':
		o->gates = xmalloc_check(realloc(o->gates, (o->ngates + 1) *
		    sizeof(*o->gates)));
		if (gate_parse(optarg, &o->gates[o->ngates]) == 0) {
			o->ngates++;
			return 0;
		}
		histo_warn(prog, "-G: '%s' is not a gate: total: or bucket:, "
		    "then +N%% and/or +N (e.g. bucket:+2%%,+10000)", optarg);
		return -1;
	case 'h':
		help();
		return 1;
	case 'I':
		o->srcdirs = xmalloc_check(realloc(o->srcdirs,
		    (o->nsrcdirs + 1) * sizeof(*o->srcdirs)));
		o->srcdirs[o->nsrcdirs++] = optarg;
		return 0;
	case 'k':
		o->flags |= PME_REPORT_CUMUL;
		return 0;
	case 'M':
		o->measure = optarg;
		return 0;
	case 'n':
		o->flags |= PME_REPORT_COUNTS;
		return 0;
	case 'o':
		free(o->his);
		o->his = xmalloc_check(pme_with_ext(optarg, ".HIS"));
		o->oarg = optarg;
		return 0;
	case 'q':
		o->quiet = 1;
		return 0;
	case 'T':
		if (parse_type(optarg, o) == 0)
			return 0;
		histo_warn(prog, "-T: '%s' is not term, text, ps, csv, folded, "
		    "%s or none", optarg, export_words(words, sizeof(words)));
		return -1;
	case 't':
		o->mode = MODE_TRACE;
		return 0;
	case 'V':
		o->caliper = CAL_NONE;
		o->measures = mtable_parse(optarg, &o->mlevel) == 0;
		o->heap = strcmp(optarg, "heap") == 0;
		o->io = strcmp(optarg, "io") == 0;
		o->wall = strcmp(optarg, "states") == 0 ? 1 :
		    strcmp(optarg, "locks") == 0 ? 2 :
		    strcmp(optarg, "timeline") == 0 ? 3 : 0;
		if ((o->heap || o->io) &&
		    view_parse("histogram", &o->view) == 0)
			return 0;
		if (o->measures && view_parse("histogram", &o->view) == 0)
			return 0;
		if (o->wall && view_parse("histogram", &o->view) == 0)
			return 0;
		if (mtable_parse(optarg, &o->mlevel) == -1) {
			histo_warn(prog, "-V %s: not a level: routine, thread, "
			    "process, module, function, line, instruction or "
			    "cpu", optarg);
			return -1;
		}
		if (view_parse(optarg, &o->view) == 0)
			return 0;
		if (caliper_parse(optarg, &o->caliper) == 0) {
			view_parse("histogram", &o->view);
			return 0;
		}
		histo_warn(prog, "-V: '%s' is not a view: histogram, caliper, "
		    "caliper:LEVEL (thread, process, module, function, line, "
		    "instruction, cpu), spy, callgraph, callers:ROUTINE, "
		    "measures, "
		    "heap, io, states, locks or timeline",
		    optarg);
		return -1;
	case OPT_VERSION:
		printf("pmehisto (pme) %s\n", PME_VERSION_STRING);
		return 1;
	case OPT_INLINE:
		o->inlines = 1;
		return 0;
	case OPT_HIDE_KERNEL:
		o->hide_kernel = 1;
		return 0;
	case OPT_FILTER + FILTER_TIME:
	case OPT_FILTER + FILTER_TID:
	case OPT_FILTER + FILTER_PID:
	case OPT_FILTER + FILTER_COMM:
	case OPT_FILTER + FILTER_CPU:
	case OPT_FILTER + FILTER_DSO:
	case OPT_FILTER + FILTER_FOCUS:
	case OPT_FILTER + FILTER_IGNORE:
	case OPT_FILTER + FILTER_HIDE:
		if ((c == OPT_FILTER + FILTER_TIME && o->filter.time) ||
		    (c == OPT_FILTER + FILTER_COMM && o->filter.comm !=
		    NULL)) {
			histo_warn(prog, "--%s: given twice (a sample has one "
			    "time and one name)", c == OPT_FILTER +
			    FILTER_TIME ? "time" : "comm");
			usage(stderr);
			return -1;
		}
		if (filter_parse(&o->filter, c - OPT_FILTER, optarg) == 0)
			return 0;
		if (c >= OPT_FILTER + FILTER_DSO) {
			histo_warn(prog, "--%s: '%s' is not %s", c ==
			    OPT_FILTER + FILTER_DSO ? "dso" : c == OPT_FILTER +
			    FILTER_FOCUS ? "focus" : c == OPT_FILTER +
			    FILTER_IGNORE ? "ignore" : "hide", optarg, c ==
			    OPT_FILTER + FILTER_DSO ? "a list of load module "
			    "names (libc.so.6,prog)" : "a regular expression "
			    "(regex(7), extended)");
			usage(stderr);
			return -1;
		}
		histo_warn(prog, "--%s: '%s' is not %s", c == OPT_FILTER +
		    FILTER_TIME ? "time" : c == OPT_FILTER + FILTER_TID ?
		    "tid" : c == OPT_FILTER + FILTER_PID ? "pid" : c ==
		    OPT_FILTER + FILTER_COMM ? "comm" : "cpu", optarg, c ==
		    OPT_FILTER + FILTER_TIME ? "START,END in seconds from the "
		    "run's start (END after START; either may be left out), "
		    "nor windows in percent of the run (10%/2, 0%-25%)" :
		    c == OPT_FILTER + FILTER_COMM ? "a command name" :
		    "a list of numbers and ranges (1,4-7)");
		usage(stderr);
		return -1;
	case 'v':
		o->verbose = 1;
		return 0;
	case 'x':
		o->quick = 1;
		return 0;
	case 'z':
		o->zeros = 1;
		return 0;
	case 'W':
		if (wall_parse_wait(optarg, &o->lockmin) == 0)
			return 0;
		histo_warn(prog, "-W: '%s' is not a time (0, 500us, 1ms, 2s)",
		    optarg);
		return -1;
	default:
		usage(stderr);
		return -1;
	}
}

/* The command line into o: 0 to go on, 1 to stop with exit status 0,
 * -1 for a usage error, said. */
static int
parse(int argc, char *argv[], struct opts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		FILTER_LONGOPTS(OPT_FILTER),
		{ "inline", no_argument, NULL, OPT_INLINE },
		{ "hide-kernel", no_argument, NULL, OPT_HIDE_KERNEL },
		{ NULL, 0, NULL, 0 }
	};
	int c, i, rc;

	while ((c = getopt_long(argc, argv, "aB:b:C:cD:G:hI:kM:no:qsT:tV:vW:xz",
	    longopts, NULL)) != -1)
		if ((rc = option(o, c)) != 0)
			return rc;
	if (o->mode == MODE_TRACE && (optind < argc || o->quick ||
	    o->measure != NULL)) {
		histo_warn(prog, "-t: trace input is a filled bucket file: "
		    "no sample files%s", o->quick ? " and no -x" :
		    o->measure != NULL ? " and no -M" : "");
		usage(stderr);
		return -1;
	}
	if (o->mode == MODE_TRACE && needs_stacks(o)) {
		folded_trace(o);
		return -1;
	}
	if (view_check(o) == -1)
		return -1;
	for (i = optind; i < argc && wall_reads_twice(o->measure); i++)
		if (strcmp(argv[i], "-") == 0) {
			histo_warn(prog, "standard input: -M %s reads the "
			    "sample file twice: give a sample file",
			    o->measure);
			return -1;
		}
	if (o->measures && (o->mode == MODE_TRACE || o->measure != NULL ||
	    o->base != NULL || (o->type != TYPE_DEFAULT &&
	    o->type != TYPE_TEXT && o->type != TYPE_CSV))) {
		histo_warn(prog, "-V measures: clock input, every measure (no "
		    "-M), not compared (-D), as text or CSV (-T text, csv)");
		usage(stderr);
		return -1;
	}
	if (o->io && (o->mode == MODE_TRACE || o->measure != NULL ||
	    o->base != NULL || (o->type != TYPE_DEFAULT &&
	    o->type != TYPE_TEXT && o->type != TYPE_CSV))) {
		histo_warn(prog, "-V io: clock input (sample files of "
		    "pmeclock -e io), not compared (-D), no -M, as text or CSV "
		    "(-T text, csv)");
		usage(stderr);
		return -1;
	}
	if (o->filter.on && (o->wall || o->io || o->heap)) {
		histo_warn(prog, "%s: the filters narrow samples, not the "
		    "records of -V %s: the measures (%s) show them filtered",
		    o->filter.text, o->heap ? "heap" : o->io ? "io" :
		    wall_name(o), o->heap ? "-M bytes, -M allocations" : o->io ?
		    "-M io-time, io-bytes, io-calls" : "-M wall, or a state: "
		    "-M lock, ...");
		usage(stderr);
		return -1;
	}
	if ((o->ngates > 0 || o->zeros) && o->base == NULL) {
		histo_warn(prog, "%s", o->ngates > 0 ? "-G: a gate needs a "
		    "baseline to compare with (-D)" : "-z: the rows zero in "
		    "both files are a comparison's (-D)");
		usage(stderr);
		return -1;
	}
	if (o->nsrcdirs > 0 && o->caliper == CAL_NONE) {
		histo_warn(prog, "-I: source directories are for -V caliper");
		usage(stderr);
		return -1;
	}
	if (o->caliper != CAL_NONE && (o->base != NULL ||
	    stacks_type(o) != NULL || o->type == TYPE_PS)) {
		histo_warn(prog, "-V caliper: a text report (-T text, term, "
		    "csv or none), not compared (-D)");
		usage(stderr);
		return -1;
	}
	if (o->base != NULL && stacks_type(o) != NULL && o->export != NULL &&
	    !o->export->compares) {
		histo_warn(prog, "-T %s: call stacks are not compared "
		    "(-D)", stacks_type(o));
		usage(stderr);
		return -1;
	}
	/* The baseline of -T folded or of a comparing export is a sample
	 * file, with stacks. */
	if (o->base != NULL && stacks_type(o) != NULL) {
		free(o->base);
		o->base = xmalloc_check(pme_with_ext(o->base_arg, ".PMS"));
		o->base_stacks = 1;
	}
	o->npms = (size_t)(argc - optind);
	o->pms = xmalloc_check(calloc(o->npms + 1, sizeof(*o->pms)));
	for (i = optind; i < argc; i++)
		o->pms[i - optind] = xmalloc_check(pme_with_ext(argv[i],
		    ".PMS"));
	return 0;
}

/*
 * The choice of clock or trace input when neither -c nor -t says, nor a
 * sample file or -x on the command line.  Clock input is what a sample
 * file beside the bucket file means, unless the bucket file holds counts
 * that are newer than it; why[] is filled when that is not obvious, and
 * then said (or, on a terminal, asked).  sure is whether the default
 * files are there and fit the choice, so that the seed's questions need
 * not be asked.
 */
struct choice {
	enum mode	 mode;
	int		 sure;
	char		 why[512];
	struct pme_bucketfile *bf;	/* o->bin as read to choose, for
					   open_bucketfile(); NULL: not read */
};

/* What a sample file's mappings say about a bucket file's program. */
struct fit {
	const struct pme_bucketfile *bf;
	uint32_t	 nmods;
	const uint8_t	*used;		/* per module: it has buckets */
	int		 matched, stopped;
	int		 all;		/* every mapping before the samples */
	unsigned	 why;		/* PME_MATCH_OTHER* of any of them */
	char		 command[128];
};

static int
fit_header(void *arg, const struct pme_sample_header *h)
{
	struct fit *f = arg;

	if (h->argc > 0 && h->argv[0] != NULL)
		snprintf(f->command, sizeof(f->command), "%s",
		    pme_base_name(h->argv[0]));
	return 0;
}

static int
fit_mapping(void *arg, const struct pme_mapping *m)
{
	struct fit *f = arg;
	uint32_t mod;
	unsigned why;

	if (m->flags & PME_MAP_KERNEL)
		return 0;
	mod = pme_fill_match(f->bf, f->nmods, m->path, m->buildid,
	    m->buildid_len, (m->flags & PME_MAP_MAIN) != 0, 0, &why);
	f->why |= why;
	if (mod == PME_NONE || !f->used[mod])
		return 0;
	f->matched = 1;
	if (f->all)
		return 0;
	f->stopped = 1;
	return 1;
}

/* The mappings come before the samples in them: none is read. */
static int
fit_samples(void *arg, const struct pme_sample *s, size_t n)
{
	struct fit *f = arg;

	(void)s;
	(void)n;
	f->stopped = 1;
	return 1;
}

/*
 * Whether the samples of pms fell in a load module of bf that has
 * buckets, as far as its mappings tell: 1 yes, or when no bucket is in a
 * module (their ranges are absolute addresses); 0 no; -1 when pms cannot
 * be read (its error comes when it is read for good).  The program
 * sampled is left in command.  With *why not NULL, every mapping before
 * the samples is read, and *why says whether one was of another build
 * of a module of bf, or another main executable (PME_MATCH_OTHER*).
 */
static int
samples_fit(const char *pms, const struct pme_bucketfile *bf, char *command,
    size_t len, unsigned *why)
{
	static const struct pme_sample_visitor v = {
		fit_header, fit_mapping, NULL, fit_samples, NULL
	};
	const struct pme_module *m;
	const struct pme_unit *u;
	struct pme_sample_summary sum;
	struct pme_error err;
	struct fit f;
	size_t nu = pme_bucketfile_units(bf, &u), i;
	uint8_t *used;
	int any = 0, rc;

	if (why != NULL)
		*why = 0;
	memset(&f, 0, sizeof(f));
	f.bf = bf;
	f.all = why != NULL;
	f.nmods = (uint32_t)pme_bucketfile_modules(bf, &m);
	snprintf(command, len, "%s", "another program");
	if ((used = calloc(f.nmods + 1, 1)) == NULL)
		return -1;
	for (i = 0; i < nu; i++)
		if (u[i].module < f.nmods && u[i].nranges > 0)
			any = used[u[i].module] = 1;
	if (!any) {
		free(used);
		return 1;
	}
	f.used = used;
	rc = pme_samplefile_read(pms, &v, &f, &sum, &err) == -1 &&
	    !f.stopped ? -1 : f.matched;
	free(used);
	if (f.command[0] != '\0')
		snprintf(command, len, "%s", f.command);
	if (why != NULL)
		*why = f.why;
	return rc;
}

/*
 * Whether a separate debug file is found now for a module of bf, the
 * quick path's, whose routines were read with none (PME_MODULE_NODEBUG):
 * its DWARF or symbol table names more of them.  The module's path in
 * name.  By build-id only: a file found by .gnu_debuglink was found when
 * the buckets were made as well.
 */
static int
debug_found(struct pme_bucketfile *bf, char *name, size_t len)
{
	const struct pme_module *m;
	size_t n = pme_bucketfile_modules(bf, &m), i;
	char *found;
	int fd;

	for (i = 0; i < n; i++) {
		if (!(m[i].flags & PME_MODULE_NODEBUG) ||
		    m[i].buildid_len == 0 || (fd = pme_debugfile_open(
		    m[i].path, m[i].buildid, m[i].buildid_len, NULL, 0,
		    &found)) == -1)
			continue;
		close(fd);
		free(found);
		snprintf(name, len, "%s", m[i].path);
		return 1;
	}
	return 0;
}

/*
 * Whether bf is the quick path's (pmebuild -x, pmehisto -x: made from
 * symbols, not a definition) and holds no counts but of samples: the
 * one the samples in pms are of, or pme's cache, made again when they
 * are not.
 */
static int
quick_cache(struct pme_bucketfile *bf)
{
	struct pme_info *info = pme_bucketfile_info(bf);

	return (info->options & PME_OPT_QUICK) &&
	    (info->measure == PME_MEASURE_NONE ||
	    info->measure == PME_MEASURE_CLOCK);
}

/*
 * Clock input, for the quick path's bucket file bf beside the default
 * sample file, when its buckets are to be made again: the samples are
 * of another build or program (as their first mappings tell; the tally
 * tells for good), or a debug file was found since; or when the view is
 * Caliper's, whose thread, process and instruction tables are of the
 * samples only.
 */
static int
quick_clock(const struct opts *o, struct pme_bucketfile *bf, int fit,
    unsigned why)
{
	char name[PATH_MAX];

	return quick_cache(bf) && (o->caliper != CAL_NONE || fit == 0 ||
	    why != 0 || debug_found(bf, name, sizeof(name)));
}

/* Whether a's modification time is after b's. */
static int
newer(const struct stat *a, const struct stat *b)
{
	if (a->st_mtim.tv_sec != b->st_mtim.tv_sec)
		return a->st_mtim.tv_sec > b->st_mtim.tv_sec;
	return a->st_mtim.tv_nsec > b->st_mtim.tv_nsec;
}

static void
choose(const struct opts *o, struct choice *c)
{
	struct pme_bucketfile *bf;
	struct pme_error err;
	struct stat s, b;
	char cmd[128];
	uint32_t measure;
	unsigned why;
	int fit;

	memset(c, 0, sizeof(*c));
	c->sure = 1;
	/* Call stacks are in sample files only. */
	if (o->npms > 0 || o->quick || stacks_type(o) != NULL ||
	    o->view.chains) {
		c->mode = MODE_CLOCK;
		return;
	}
	/* Standard input is read once, by open_bucketfile(). */
	if (strcmp(o->bin, "-") == 0) {
		c->mode = stat(PME_DEFAULT_PMS, &s) == 0 ? MODE_CLOCK :
		    MODE_TRACE;
		return;
	}
	if (stat(PME_DEFAULT_PMS, &s) == -1) {
		/* Trace input, or nothing to show: asked on a terminal. */
		c->mode = MODE_TRACE;
		c->sure = (c->bf = pme_bucketfile_open(o->bin, &err)) !=
		    NULL && pme_bucketfile_info(c->bf)->measure !=
		    PME_MEASURE_NONE;
		return;
	}
	c->mode = MODE_CLOCK;
	if (stat(o->bin, &b) == -1)
		return;		/* the quick path: open_bucketfile says */
	if ((bf = c->bf = pme_bucketfile_open(o->bin, &err)) == NULL) {
		c->mode = newer(&s, &b) ? MODE_CLOCK : MODE_TRACE;
		return;		/* its error comes when it is opened */
	}
	measure = pme_bucketfile_info(bf)->measure;
	fit = samples_fit(PME_DEFAULT_PMS, bf, cmd, sizeof(cmd), &why);
	/* The quick path's buckets made again, or newer samples of another
	 * build of a definition's file refused, by the tally. */
	if (quick_clock(o, bf, fit, why) || ((why & PME_MATCH_OTHERBUILD) &&
	    (measure == PME_MEASURE_NONE || newer(&s, &b))))
		return;
	if (fit == 0)
		c->sure = 0;
	if (measure == PME_MEASURE_NONE) {
		/* An empty bucket file has nothing to show but samples. */
		if (fit == 0)
			snprintf(c->why, sizeof(c->why), "clock input, but "
			    "'%s' holds samples of %s, none of whose load "
			    "modules is in '%s'", PME_DEFAULT_PMS, cmd, o->bin);
		return;
	}
	if (fit != 0 && newer(&s, &b)) {
		if (measure != PME_MEASURE_CLOCK) {
			c->sure = 0;
			snprintf(c->why, sizeof(c->why), "clock input: '%s' "
			    "is newer than the counts in '%s' (-t shows "
			    "those)", PME_DEFAULT_PMS, o->bin);
		}
		return;
	}
	c->mode = MODE_TRACE;
	c->sure = 0;
	if (fit == 0)
		snprintf(c->why, sizeof(c->why), "trace input: the counts "
		    "in '%s' ('%s' holds samples of %s, none of whose load "
		    "modules is in it)", o->bin, PME_DEFAULT_PMS, cmd);
	else
		snprintf(c->why, sizeof(c->why), "trace input: the counts "
		    "in '%s', which is newer than '%s' (-c tallies the "
		    "samples%s)", o->bin, PME_DEFAULT_PMS,
		    measure == PME_MEASURE_CLOCK ? " again" : "");
}

/* ------------------------------------------------------------- the work */

/* Reads the input bucket file, or leaves *bf NULL for the quick path. */
static int
open_bucketfile(struct opts *o, struct pme_bucketfile **bf)
{
	struct pme_error err;

	*bf = NULL;
	if (o->quick)
		return 0;
	if (o->read != NULL) {
		*bf = o->read;
		o->read = NULL;
		return 0;
	}
	if (o->mode == MODE_CLOCK && !o->bin_given &&
	    access(o->bin, F_OK) == -1 && errno == ENOENT) {
		if (!o->quiet)
			histo_warn(prog, "no '%s': a bucket per routine of "
			    "the recorded program (-x)", o->bin);
		o->quick = 1;
		return 0;
	}
	if ((*bf = pme_bucketfile_open(o->bin, &err)) == NULL) {
		histo_warn(prog, "%s%s", pme_strerror(&err),
		    histo_kind_hint(&err, o->bin));
		return -1;
	}
	return 0;
}

/*
 * Whether path is the null device, as GNU tar asks of its archive: a
 * filled bucket file written there is one nobody reads, so it is neither
 * encoded nor written (nor, on the quick path, made whole: reduce.c).
 */
static int
null_device(const char *path)
{
	struct stat a, b;

	return stat(path, &a) == 0 && S_ISCHR(a.st_mode) &&
	    stat("/dev/null", &b) == 0 && S_ISCHR(b.st_mode) &&
	    a.st_rdev == b.st_rdev;
}

/*
 * The filled bucket file is the input's counts and this run's added
 * under the input's lock (pme_fill_begin), unless there is no input file
 * to lock: standard input, or the quick path's buckets.
 */
static int
fills(const struct opts *o)
{
	return o->mode == MODE_CLOCK && !o->quick && strcmp(o->bin, "-") != 0;
}

/*
 * Readies an input bucket file for this run's counts: cleared, when they
 * are added to the file's under its lock (CLEARCOUNTS there too, which
 * then clears the file's), else as the file's option says.  Counts of
 * another measure are refused once the samples say theirs (and again
 * under the lock).
 */
static int
prepare_counts(const struct opts *o, struct pme_bucketfile *bf)
{
	/* The measure is the samples' (-M): checked once they are read,
	 * before anything is written (set_measure). */
	if (fills(o) || !(pme_bucketfile_info(bf)->options & PME_OPT_ACCUM))
		pme_bucketfile_clear(bf);
	return 0;
}

/*
 * Whether the quick path need make buckets only for the routines samples
 * fell in: no filled bucket file is written (the null device), one sample
 * file is read ahead (quickscan.c), and what is shown of the buckets is a
 * histogram with a cutoff, which shows those with no count only as a
 * number among the rows below it (pme_report_zeros): not CSV, which
 * lists every bucket, nor a baseline's comparison, an export or a view.
 */
static int
sparse(const struct opts *o)
{
	double cutoff = o->cutoff >= 0 ? o->cutoff : QUICK_CUTOFF;

	return o->quick && o->bout_null && o->npms == 1 &&
	    strcmp(o->pms[0], "-") != 0 && cutoff > 0 && o->base == NULL &&
	    (o->type == TYPE_DEFAULT || o->type == TYPE_TERM ||
	    o->type == TYPE_TEXT || o->type == TYPE_PS ||
	    o->type == TYPE_NONE) && !o->view.chains;
}

/*
 * The measure of the counts tallied into bf: clock samples, or samples
 * of the event m (named in the file).  Counts of an accumulating file
 * (ACCUMCOUNTS) of another measure are refused, naming both.
 */
static int
set_measure(const struct opts *o, struct pme_bucketfile *bf,
    const struct measure *m)
{
	const char *had = pme_bucketfile_event(bf, NULL);
	struct pme_error err;
	int clock = measure_clock(m);

	if (pme_fill_check(bf, clock ? PME_MEASURE_CLOCK : PME_MEASURE_EVENT,
	    o->bin, &err) == 0 && (clock || had == NULL ||
	    !(pme_bucketfile_info(bf)->options & PME_OPT_ACCUM) ||
	    strcmp(had, m->name) == 0)) {
		if (clock)
			pme_bucketfile_info(bf)->measure = PME_MEASURE_CLOCK;
		else if (pme_bucketfile_set_event(bf, m->name, m->unit,
		    &err) == -1) {
			histo_warn(prog, "%s", pme_strerror(&err));
			return -1;
		}
		return 0;
	}
	if (err.code == PME_OK)
		histo_warn(prog, "'%s': its counts are samples of %s, not of "
		    "%s: they cannot be added up (ACCUMCOUNTS)", o->bin, had,
		    m->name);
	else
		histo_warn(prog, "%s", pme_strerror(&err));
	return -1;
}


/*
 * The quick path's bucket file *bfp made again (by the quick path): said
 * in one line, what (the sample file, or the module that has a debug
 * file now) and why first.
 */
static void
remake(struct opts *o, struct pme_bucketfile **bfp, const char *what)
{
	if (!o->quiet)
		histo_warn(prog, "%s: the quick path's buckets in '%s' made "
		    "again (-x)", what, o->bin);
	pme_bucketfile_close(*bfp);
	*bfp = NULL;
	o->quick = 1;
}

/*
 * Tallies the sample files into *bfp, or into the quick path's buckets
 * when *bfp is NULL (made then).  Returns 0; 1 when *bfp was the quick
 * path's and the samples are of another build or program (said, *bfp
 * closed: tally again); -1 on an error, said.
 */
static int
clock_input(struct opts *o, struct pme_bucketfile **bfp, struct tally *t)
{
	struct pme_bucket *bk;
	struct pme_error err;
	struct pme_info *info;
	char name[PATH_MAX], what[PATH_MAX + 64];
	uint64_t period = 0, runs = 0;
	size_t i;

	if (*bfp != NULL && quick_cache(*bfp) && debug_found(*bfp, name,
	    sizeof(name))) {
		snprintf(what, sizeof(what), "'%s': a debug file found now",
		    name);
		remake(o, bfp, what);
	}
	if (*bfp != NULL) {
		info = pme_bucketfile_info(*bfp);
		runs = info->options & PME_OPT_ACCUM ? info->runs : 0;
		period = info->period;
		if (prepare_counts(o, *bfp) == -1)
			return -1;
	}
	tally_init(t, *bfp);
	t->check = *bfp != NULL;
	t->remake = *bfp != NULL && quick_cache(*bfp);
	t->measure.want = o->measure;
	t->quick = o->quick;
	t->quiet = o->quiet;
	t->sparse = sparse(o);
	t->bfname = o->bin;
	if (stacks_type(o) != NULL || o->view.chains)
		t->stacks = xmalloc_check(stacks_new());
	t->sites = o->view.chains;
	t->addrs = !t->sites && o->export != NULL && o->export->addrs;
	if (o->inlines && t->stacks != NULL)
		t->inl = xmalloc_check(inlines_new(prog, o->quiet));
	t->hide_kernel = o->hide_kernel;
	t->filter = o->filter.on ? &o->filter : NULL;
	for (i = 0; i < o->npms; i++)
		if (tally_file(t, o->pms[i], &err) == -1) {
			if (t->stale) {
				remake(o, bfp, pme_strerror(&err));
				t->bf = NULL;
				return 1;
			}
			histo_warn(prog, "%s%s", pme_strerror(&err),
			    histo_kind_hint(&err, o->pms[i]));
			return -1;
		}
	if ((*bfp = t->bf) == NULL && t->filter != NULL &&
	    t->filter->read > 0) {
		histo_warn(prog, "%s: kept none of the %llu samples: no "
		    "routines to make buckets of (-x)", t->filter->text,
		    (unsigned long long)t->filter->read);
		return -1;
	}
	if ((*bfp = t->bf) == NULL) {
		histo_warn(prog, "'%s': no samples: no routines to make "
		    "buckets of (-x)", o->pms[0]);
		return -1;
	}
	if (o->verbose && t->sparse)
		histo_warn(prog, "%zu buckets made, of the routines samples "
		    "fell in; %zu of the others not made (no filled bucket "
		    "file)", pme_bucketfile_buckets(*bfp, &bk), t->unmade);
	info = pme_bucketfile_info(*bfp);
	if (!o->quiet && runs > 0 && period != 0 && t->period != 0 &&
	    period != t->period)
		histo_warn(prog, "'%s': accumulated runs sampled every %g "
		    "ms, this one every %g ms", o->bin,
		    (double)period / 1e6, (double)t->period / 1e6);
	if (!o->quiet && t->periods_differ)
		histo_warn(prog, "the sample files were taken at different "
		    "intervals");
	if (set_measure(o, *bfp, &t->measure) == -1)
		return -1;
	info->period = t->period;
	info->runs += t->files;
	info->total += t->counted;
	info->lost += t->lost;
	info->unmapped += t->unmapped;
	return 0;
}

static void
term_size(int *rows, int *cols)
{
	struct winsize ws;
	const char *s;

	*rows = 24;
	*cols = 80;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
		return;
	}
	if ((s = getenv("LINES")) != NULL && atoi(s) > 0)
		*rows = atoi(s);
	if ((s = getenv("COLUMNS")) != NULL && atoi(s) > 0)
		*cols = atoi(s);
}

/* The display -T asks for, or the default for where the output goes. */
static enum type
display_type(const struct opts *o)
{
	enum type type = o->type;

	if (type == TYPE_DEFAULT)
		type = o->his != NULL && strcmp(o->his, "-") == 0 ? TYPE_NONE :
		    isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) ?
		    TYPE_TERM : TYPE_TEXT;
	if (type == TYPE_TERM && !(isatty(STDIN_FILENO) &&
	    isatty(STDOUT_FILENO))) {
		if (!o->quiet)
			histo_warn(prog, "-T term: standard input and "
			    "output are not both a terminal: text instead");
		type = TYPE_TEXT;
	}
	return type;
}

static int
display(const struct opts *o, const struct pme_report *rep,
    const struct tally *t)
{
	struct pme_error err;
	int rows, cols, rc = 0;

	switch (display_type(o)) {
	case TYPE_TERM:
		term_size(&rows, &cols);
		rc = o->vtext != NULL ? pme_text_term(o->vtext, stdin, stdout,
		    rows, cols, &err) :
		    pme_report_term(rep, stdin, stdout, rows, cols, &err);
		break;
	case TYPE_TEXT:
		if (o->vtext != NULL) {
			memset(&err, 0, sizeof(err));
			if (fwrite(o->vtext, 1, o->vlen, stdout) != o->vlen ||
			    fflush(stdout) == EOF)
				rc = -1;
			err.sys_errno = errno;
			break;
		}
		rc = pme_report_text(rep, stdout, NULL, &err);
		break;
	case TYPE_PS:
		rc = pme_report_ps(rep, stdout, &err);
		break;
	case TYPE_CSV:
		rc = pme_report_csv(rep, stdout, &err);
		break;
	case TYPE_FOLDED:
		memset(&err, 0, sizeof(err));
		if ((rc = o->bt != NULL ? stacks_print_diff(o->bt->stacks,
		    o->bt, t->stacks, t, stdout) : stacks_print(t->stacks, t,
		    stdout)) == 0 &&
		    fflush(stdout) == EOF)
			rc = -1;
		err.sys_errno = errno;
		break;
	default:
		break;
	}
	if (rc == -1)
		histo_warn(prog, "standard output: %s",
		    strerror(err.sys_errno ? err.sys_errno : EIO));
	return rc;
}

/*
 * The histogram file written whole to a temporary file beside it (util.h),
 * whose name is left in *tmp (NULL: path is a device or FIFO, written
 * directly); -1, with the message printed, when it cannot be.
 */
static int
write_his(const char *path, const struct pme_report *rep,
    const struct export_out *x, char **tmp)
{
	struct pme_error err;
	FILE *fp;
	int fd;

	if ((fd = pme_tmp_create(path, tmp, &err)) == -1) {
		histo_warn(prog, "%s", pme_strerror(&err));
		return -1;
	}
	if ((fp = fdopen(fd, "w")) == NULL) {
		histo_warn(prog, "'%s': %s", path, strerror(errno));
		close(fd);
		pme_tmp_abort(*tmp);
		return -1;
	}
	if ((x->data != NULL ? fwrite(x->data, 1, x->len, fp) != x->len :
	    pme_report_text(rep, fp, NULL, &err) == -1) || fclose(fp) == EOF) {
		histo_warn(prog, "'%s': write failed: %s", path,
		    strerror(errno));
		pme_tmp_abort(*tmp);
		return -1;
	}
	return 0;
}

/*
 * Writes the histogram file (to a temporary file first), the filled
 * bucket file when there is one to write (the sum of *fill, which is
 * committed and freed, or bf), then renames the histogram into place: an
 * error leaves the old files as they were.
 */
static int
write_outputs(const struct opts *o, struct pme_fill **fill,
    struct pme_bucketfile *bf, const struct pme_report *rep,
    const struct export_out *x)
{
	struct pme_error err;
	char *tmp = NULL;
	int tostdout = strcmp(o->his, "-") == 0, rc = 0;
	uint64_t runs;

	if (*fill != NULL)
		bf = pme_fill_sum(*fill);
	runs = o->mode == MODE_CLOCK ? pme_bucketfile_info(bf)->runs : 0;
	if (!tostdout && write_his(o->his, rep, x, &tmp) == -1)
		return -1;
	/* To the null device, nothing: run() lets the input's lock go. */
	if (*fill != NULL && !o->bout_null) {
		rc = pme_fill_commit(*fill, o->bout, &err);
		*fill = NULL;
	} else if (o->mode == MODE_CLOCK && !o->bout_null)
		rc = pme_bucketfile_write(bf, o->bout, &err);
	if (rc == -1) {
		histo_warn(prog, "%s", pme_strerror(&err));
		pme_tmp_abort(tmp);
		return -1;
	}
	if (pme_tmp_commit(tmp, o->his, &err) == -1) {
		histo_warn(prog, "%s", pme_strerror(&err));
		return -1;
	}
	if (tostdout && (x->data != NULL ? fwrite(x->data, 1, x->len,
	    stdout) != x->len || fflush(stdout) == EOF :
	    pme_report_text(rep, stdout, NULL, &err) == -1)) {
		histo_warn(prog, "standard output: write failed");
		return -1;
	}
	if (o->verbose) {
		if (o->mode == MODE_CLOCK && o->bout_null)
			histo_warn(prog, "'%s': the null device: no filled "
			    "bucket file written", o->bout);
		else if (o->mode == MODE_CLOCK)
			histo_warn(prog, "wrote '%s' (filled, %llu "
			    "run%s)", o->bout, (unsigned long long)runs,
			    runs == 1 ? "" : "s");
		if (x->data != NULL)
			histo_warn(prog, "wrote '%s' (-T %s)", o->his,
			    stacks_type(o));
		else
			histo_warn(prog, "wrote '%s' (%d page%s)", o->his,
			    pme_report_pages(rep, NULL),
			    pme_report_pages(rep, NULL) == 1 ? "" : "s");
	}
	return 0;
}

/*
 * The subtitle under each page's title (PostScript's, and the seed's
 * page where it has room): the measured command line for clock input;
 * for trace input, which has none, what the counts are of.
 */
static int
subtitle(const struct opts *o, struct pme_bucketfile *bf,
    const struct tally *t, struct pme_report *rep)
{
	const struct pme_info *info = pme_bucketfile_info(bf);
	const struct pme_module *m;
	size_t nm = pme_bucketfile_modules(bf, &m), i;
	const char *what, *of = NULL;
	char sub[1024];

	if (o->mode == MODE_CLOCK)
		return pme_report_subtitle(rep, t->command ? t->command : "",
		    NULL);
	for (i = 0; i < nm && of == NULL; i++)
		if (m[i].flags & PME_MODULE_MAIN && m[i].path[0] != '\0')
			of = m[i].path;
	for (i = 0; i < nm && of == NULL; i++)
		if (m[i].path[0] != '\0')
			of = m[i].path;
	what = info->measure == PME_MEASURE_NONE ? "no counts" :
	    report_measure(info->measure);
	snprintf(sub, sizeof(sub), "%s: %s%s%s, %llu run%s", o->bin, what,
	    of != NULL ? " of " : "", of != NULL ? of : "",
	    (unsigned long long)info->runs, info->runs == 1 ? "" : "s");
	return pme_report_subtitle(rep, sub, NULL);
}

/* The text of the view -V chose, from t's call chains, into o->vtext. */
static int
view_text(struct opts *o, const struct tally *t)
{
	struct pme_error err;
	struct calls *c;
	double cutoff = o->cutoff >= 0 ? o->cutoff :
	    o->view.kind == VIEW_CALLERS ? 0 : VIEW_CUTOFF;
	FILE *fp;
	int rc;

	if (t->chained == 0) {
		histo_warn(prog, "-V %s: '%s'%s: no sample has a call chain "
		    "(record them with pmeclock -g)", o->view.name, o->pms[0],
		    o->npms > 1 ? " and the others" : "");
		return -1;
	}
	if ((c = calls_new(t, &err)) == NULL) {
		histo_warn(prog, "%s", pme_strerror(&err));
		return -1;
	}
	if ((fp = open_memstream(&o->vtext, &o->vlen)) == NULL) {
		calls_free(c);
		histo_warn(prog, "out of memory");
		return -1;
	}
	memset(&err, 0, sizeof(err));
	rc = o->view.kind == VIEW_SPY ? spy_write(c, cutoff, fp, &err) :
	    o->view.kind == VIEW_CALLGRAPH ?
	    callgraph_write(c, cutoff, fp, &err) :
	    callers_write(c, o->view.arg, cutoff, fp, &err);
	if (fclose(fp) == EOF && rc == 0)
		rc = histo_err(&err, PME_ENOMEM, "out of memory");
	calls_free(c);
	if (rc == -1)
		histo_warn(prog, "%s", pme_strerror(&err));
	return rc;
}

/*
 * The differential report of cur against the baseline (-D) into *rep,
 * the gates' failures said; *failed whether one failed.
 */
static int
diff_run(const struct opts *o, struct pme_bucketfile *cur,
    struct pme_report **rep, int *failed)
{
	struct pme_bucketfile *base;
	struct diff_input in;
	struct pme_error err;
	struct diff *d;

	if ((base = pme_bucketfile_open(o->base, &err)) == NULL) {
		histo_warn(prog, "%s%s", pme_strerror(&err),
		    histo_kind_hint(&err, o->base));
		return -1;
	}
	memset(&in, 0, sizeof(in));
	in.base_name = o->base;
	in.new_name = o->mode == MODE_CLOCK ? o->pms[0] : o->bin;
	in.gates = o->gates;
	in.ngates = o->ngates;
	in.flags = o->flags;
	in.cutoff = o->cutoff > 0 ? o->cutoff : 0;
	in.zeros = o->zeros;
	if ((d = diff_new(base, cur, &in, &err)) == NULL ||
	    (*rep = diff_report(d, &err)) == NULL) {
		histo_warn(prog, "%s", pme_strerror(&err));
		diff_free(d);
		pme_bucketfile_close(base);
		return -1;
	}
	*failed = diff_tell(d, prog, o->quiet);
	diff_free(d);
	pme_bucketfile_close(base);
	return 0;
}

/* The Caliper view's text is as wide as the histogram's line-printer
 * page; on a terminal, as the terminal. */
#define CALIPER_WIDTH	132

/* The Caliper view's text paged on the terminal. */
static int
caliper_page(struct caliper *c, struct pme_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	int rows, cols, rc;

	if ((fp = open_memstream(&buf, &len)) == NULL)
		return -1;
	term_size(&rows, &cols);
	rc = caliper_write(c, 0, cols, fp, err);
	if (fclose(fp) == EOF)
		rc = -1;
	if (rc == 0)
		rc = pme_text_term(buf, stdin, stdout, rows, cols, err);
	free(buf);
	return rc;
}

/*
 * The Caliper view (-V caliper[:LEVEL], caliper.c) in place of the
 * histogram: its text written to the histogram file (through a
 * temporary file), and shown as -T says.  No bucket file is written.
 */
static int
caliper_view(struct opts *o)
{
	struct pme_bucketfile *bf = NULL;
	struct caliper_input in;
	struct pme_error err;
	struct caliper *c;
	enum type type = display_type(o);
	char *tmp = NULL;
	FILE *fp = NULL;
	int fd, rc = 1;

	memset(&in, 0, sizeof(in));
	in.prog = prog;
	in.level = o->caliper;
	in.quiet = o->quiet;
	in.cutoff = o->cutoff > 0 ? o->cutoff : 0;
	in.bfname = o->bin;
	in.samples = (const char *const *)o->pms;
	in.nsamples = o->mode == MODE_CLOCK ? o->npms : 0;
	in.srcdirs = o->srcdirs;
	in.nsrcdirs = o->nsrcdirs;
	in.measure = o->measure;
	in.filter = o->filter.on ? &o->filter : NULL;
	in.inl = o->inlines;
	/* Clock input's view needs no bucket file. */
	if (o->mode == MODE_TRACE && open_bucketfile(o, &bf) == -1)
		return 1;
	in.bf = bf;
	if ((c = caliper_new(&in, &err)) == NULL) {
		histo_warn(prog, "%s", pme_strerror(&err));
		pme_bucketfile_close(bf);
		return 1;
	}
	if (strcmp(o->his, "-") == 0 && type == TYPE_NONE)
		type = TYPE_TEXT;
	else if (strcmp(o->his, "-") != 0) {
		if ((fd = pme_tmp_create(o->his, &tmp, &err)) == -1) {
			histo_warn(prog, "%s", pme_strerror(&err));
			goto done;
		}
		if ((fp = fdopen(fd, "w")) == NULL) {
			histo_warn(prog, "'%s': %s", o->his, strerror(errno));
			close(fd);
			goto done;
		}
		if (caliper_write(c, 0, CALIPER_WIDTH, fp, &err) == -1 ||
		    fclose(fp) == EOF) {
			fp = NULL;
			histo_warn(prog, "'%s': write failed", o->his);
			goto done;
		}
		fp = NULL;
		if (pme_tmp_commit(tmp, o->his, &err) == -1) {
			tmp = NULL;
			histo_warn(prog, "%s", pme_strerror(&err));
			goto done;
		}
		tmp = NULL;
		if (o->verbose)
			histo_warn(prog, "wrote '%s' (-V caliper)", o->his);
	}
	if (type == TYPE_TERM ? caliper_page(c, &err) == -1 :
	    type != TYPE_NONE && caliper_write(c, type == TYPE_CSV,
	    CALIPER_WIDTH, stdout, &err) == -1) {
		histo_warn(prog, "standard output: write failed");
		goto done;
	}
	rc = 0;
done:
	if (fp != NULL)
		fclose(fp);
	pme_tmp_abort(tmp);
	caliper_free(c);
	pme_bucketfile_close(bf);
	return rc;
}

/*
 * The table of every measure (-V measures, mtable.c), to standard
 * output: no histogram file, no filled bucket file.
 */
static int
measures_view(struct opts *o)
{
	struct mtable_input in;
	struct pme_error err;

	in.bin = o->bin;
	in.quick = o->quick;
	in.samples = (const char *const *)o->pms;
	in.nsamples = o->npms;
	in.filter = o->filter.on ? &o->filter : NULL;
	in.level = o->mlevel;
	if (!o->quick && access(o->bin, F_OK) == -1 && !o->bin_given)
		in.quick = 1;
	if (mtable_write(&in, o->type == TYPE_CSV, stdout, &err) == -1) {
		histo_warn(prog, "%s", pme_strerror(&err));
		return 1;
	}
	return 0;
}

/*
 * -D's sample file, when it names one (o->base_stacks: -T folded, or an
 * export that compares), into bt: its stacks tallied apart, into the
 * units of the bucket file read again (or, the quick path's, routine
 * buckets made of its own samples), written nowhere; o->bt then points
 * to it.  0, or -1 said.
 */
static int
base_tally(struct opts *o, struct pme_bucketfile *bf, const struct tally *t,
    struct tally *bt)
{
	struct pme_bucketfile *bbf = NULL;
	struct pme_error err;

	tally_init(bt, NULL);
	if (!o->base_stacks)
		return 0;
	if (!o->quick && !(pme_bucketfile_info(bf)->options &
	    PME_OPT_QUICK) && (bbf = pme_bucketfile_open(o->bin, &err)) ==
	    NULL) {
		histo_warn(prog, "%s", pme_strerror(&err));
		return -1;
	}
	tally_init(bt, bbf);
	bt->quick = bbf == NULL;
	bt->quiet = o->quiet;
	bt->bfname = o->bin;
	bt->measure.want = o->measure;
	bt->filter = t->filter;
	bt->stacks = xmalloc_check(stacks_new());
	o->bt = bt;
	if (tally_file(bt, o->base, &err) == -1)
		;
	else if (strcmp(bt->measure.name, t->measure.name) != 0)
		histo_err(&err, PME_EINVAL, "'%s' holds samples of %s, the "
		    "sample files of %s: they cannot be compared", o->base,
		    bt->measure.name, t->measure.name);
	else
		return 0;
	histo_warn(prog, "%s", pme_strerror(&err));
	return -1;
}

/* What base_tally() made: its bucket file, read or made, is its own. */
static void
base_free(struct tally *bt)
{
	pme_bucketfile_close(bt->bf);
	tally_free(bt);
}

/* -V states and -V locks (wall.c), to standard output. */
static int
wall_view(struct opts *o)
{
	struct wall_input in;
	struct pme_error err;

	in.prog = o->quiet ? NULL : prog;
	in.sum = NULL;
	in.samples = (const char *const *)o->pms;
	in.nsamples = o->npms;
	in.csv = o->type == TYPE_CSV;
	in.locks = o->wall == 2;
	in.timeline = o->wall == 3;
	in.lockmin = o->lockmin;
	if (o->npms == 0) {
		histo_warn(prog, "-V %s: a sample file of pmeclock -w is "
		    "needed", wall_name(o));
		return 1;
	}
	if (wall_write(&in, stdout, &err) == -1) {
		histo_warn(prog, "%s", pme_strerror(&err));
		return 1;
	}
	return 0;
}

/* The I/O calls (-V io, io.c), to standard output. */
static int
io_view(struct opts *o)
{
	struct pme_error err;

	if (io_write(o->quiet ? NULL : prog, (const char *const *)o->pms,
	    o->npms, o->type == TYPE_CSV, stdout, &err) == -1) {
		histo_warn(prog, "%s", pme_strerror(&err));
		return 1;
	}
	return 0;
}

static int
run(struct opts *o)
{
	struct pme_bucketfile *bf = NULL;
	struct pme_report *rep = NULL;
	struct pme_fill *fill = NULL;
	struct report_input in;
	struct pme_error err;
	struct export_out x = { NULL, 0 };
	struct tally t, bt;
	int rc = 1, quick, failed = 0, tallied;

	tally_init(&t, NULL);
	tally_init(&bt, NULL);
	in.inl = NULL;
	if (o->caliper != CAL_NONE) {
		rc = caliper_view(o);
		goto done;
	}
	if (o->measures) {
		rc = measures_view(o);
		goto done;
	}
	if (o->heap) {
		if (heap_view(o->quiet ? NULL : prog,
		    (const char *const *)o->pms, o->npms, stdout, &err) == 0)
			rc = 0;
		else
			histo_warn(prog, "%s", pme_strerror(&err));
		goto done;
	}
	if (o->wall) {
		rc = wall_view(o);
		goto done;
	}
	if (o->io) {
		rc = io_view(o);
		goto done;
	}
	if (open_bucketfile(o, &bf) == -1)
		goto done;
	if (o->mode == MODE_CLOCK) {
		if ((tallied = clock_input(o, &bf, &t)) == 1) {
			tally_free(&t);
			tallied = clock_input(o, &bf, &t);
		}
		if (tallied == -1)
			goto done;
		if (base_tally(o, bf, &t, &bt) == -1)
			goto done;
		/* Made whole before any output is written. */
		if (o->export != NULL && export_compare(o->export, &t, o->bt,
		    o->npms == 1 ? o->pms[0] : NULL, &x, &err) == -1) {
			histo_warn(prog, "%s", pme_strerror(&err));
			goto done;
		}
		/* The samples are reduced: now the input's lock, for as
		 * short a time as the report and the writes take. */
		if (fills(o) && (fill = pme_fill_begin(o->bin, bf, &err)) ==
		    NULL) {
			histo_warn(prog, "%s", pme_strerror(&err));
			goto done;
		}
		/* The file says the latest run's interval (warned above
		 * when it differs from the earlier runs'). */
		if (fill != NULL && t.period != 0)
			pme_bucketfile_info(pme_fill_sum(fill))->period =
			    t.period;
	} else {
		if (pme_bucketfile_info(bf)->measure == PME_MEASURE_NONE &&
		    !o->quiet)
			histo_warn(prog, "'%s': no counts yet (an empty "
			    "bucket file, as pmebuild makes it): give it "
			    "samples from pmeclock (clock input, -c), or count "
			    "with pmetrace", o->bin);
		if (o->export != NULL && o->export->counts(bf, &x, &err) ==
		    -1) {
			histo_warn(prog, "%s", pme_strerror(&err));
			goto done;
		}
	}
	memset(&in, 0, sizeof(in));
	in.bucket_in = o->quick ? "(none: -x)" : o->bin;
	in.bucket_out = o->mode == MODE_CLOCK ? o->bout : NULL;
	in.samples = (const char *const *)o->pms;
	in.nsamples = o->mode == MODE_CLOCK ? o->npms : 0;
	in.tally = o->mode == MODE_CLOCK ? &t : NULL;
	if (o->inlines)
		in.inl = xmalloc_check(inlines_new(prog, o->quiet));
	/* The quick path's buckets (pmehisto -x, pmebuild -x) are for
	 * perf's users: their rows by count, the smallest left out; a
	 * .PMD's in its statements' order, all of them. */
	quick = o->quick || (pme_bucketfile_info(fill != NULL ?
	    pme_fill_sum(fill) : bf)->options & PME_OPT_QUICK);
	in.flags = o->flags;
	if (o->order == 's' || (quick && o->order == 0))
		in.flags |= PME_REPORT_SORT;
	in.cutoff = o->cutoff >= 0 ? o->cutoff : quick ? QUICK_CUTOFF : 0;
	if (o->base != NULL && !o->base_stacks) {
		if (diff_run(o, fill != NULL ? pme_fill_sum(fill) : bf, &rep,
		    &failed) == -1)
			goto done;
	} else if ((rep = report_build(fill != NULL ? pme_fill_sum(fill) :
	    bf, &in, &err)) == NULL) {
		histo_warn(prog, "%s", pme_strerror(&err));
		goto done;
	}
	if (subtitle(o, fill != NULL ? pme_fill_sum(fill) : bf, &t, rep) ==
	    -1) {
		histo_warn(prog, "out of memory");
		goto done;
	}
	if (o->view.chains) {
		if (view_text(o, &t) == -1)
			goto done;
		x.data = o->vtext;	/* the view's text is the .HIS; */
		x.len = o->vlen;	/* o keeps it, to display */
	}
	if (write_outputs(o, &fill, bf, rep, &x) == -1)
		goto done;
	rc = display(o, rep, &t) == -1 ? 1 : failed ? EXIT_GATE : 0;
done:
	pme_fill_abort(fill);
	pme_report_free(rep);
	pme_bucketfile_close(bf);
	inlines_free(in.inl);
	tally_free(&t);
	base_free(&bt);
	if (x.data != o->vtext)
		free(x.data);		/* an export's, not the view's */
	return rc;
}

/* Whether the current directory holds a sample or bucket file under
 * a name of its own (run.PMS, gravel.PME): the seed's questions name it. */
static int
other_pme_files(void)
{
	DIR *d;
	struct dirent *e;
	size_t n;
	int found = 0;

	if ((d = opendir(".")) == NULL)
		return 0;
	while (!found && (e = readdir(d)) != NULL)
		found = (n = strlen(e->d_name)) > 4 &&
		    (strcasecmp(e->d_name + n - 4, ".pms") == 0 ||
		    strcasecmp(e->d_name + n - 4, ".pme") == 0);
	closedir(d);
	return found;
}

/*
 * Whether nothing is named and neither default file is here (a first
 * run in a new directory): then what to run first is said, rather than
 * that a file cannot be opened, or the seed's questions asked.  On a
 * terminal, a directory holding such files under other names still gets
 * the questions, which let the user name them.
 */
static int
nothing_here(const struct opts *o)
{
	struct stat s;

	if (o->npms > 0 || o->bin_given || stat(PME_DEFAULT_PMS, &s) == 0 ||
	    errno != ENOENT || stat(PME_DEFAULT_PME, &s) == 0 ||
	    errno != ENOENT)
		return 0;
	if (isatty(STDIN_FILENO) && other_pme_files())
		return 0;
	if (o->mode == MODE_TRACE)
		histo_warn(prog, "no '%s' here: count a run with pmetrace "
		    "first, or name a bucket file with -b", PME_DEFAULT_PME);
	else
		histo_warn(prog, "no '%s' here: record a run first with "
		    "pmeclock (pmeclock -- PROGRAM [ARG ...]), or name a "
		    "sample file", PME_DEFAULT_PMS);
	return 1;
}

/*
 * Neither output replaces an input, nor a pme file of another kind
 * (pme_out_check): the filled bucket file (-B) may be the input bucket
 * file, which it fills (the seed's default: then -b's file, which is
 * read first and refused when it is a sample file), not a sample file or
 * the baseline; the histogram or export (-o) none of them.  0, or -1
 * said.
 */
static int
outputs_check(const struct opts *o)
{
	const char **in;
	struct pme_error err;
	size_t n = 0, i;
	int rc = 0, bout = o->mode == MODE_CLOCK && !o->bout_null &&
	    o->bout_given;

	in = xmalloc_check(malloc((o->npms + 3) * sizeof(*in)));
	for (i = 0; i < o->npms; i++)
		in[n++] = o->pms[i];
	in[n++] = o->base;
	if (bout && pme_out_check(o->bout, PME_KIND_BUCKET, NULL, in, n,
	    &err) == -1)
		rc = -1;
	in[n++] = o->bin;
	if (bout)
		in[n++] = o->bout;
	if (rc == 0 && pme_out_check(o->his, 0, o->export != NULL ?
	    "an export" : "a histogram", in, n, &err) == -1)
		rc = -1;
	if (rc == -1)
		histo_warn(prog, "%s", pme_strerror(&err));
	else if (bout && strcmp(o->his, "-") != 0 &&
	    strcmp(o->his, o->bout) == 0) {
		histo_warn(prog, "'%s' is named by both -B and -o: name "
		    "another output for one of them", o->his);
		rc = -1;
	}
	free(in);
	return rc;
}

static void
opts_free(struct opts *o)
{
	size_t i;

	for (i = 0; i < o->npms; i++)
		free(o->pms[i]);
	free(o->pms);
	free(o->bin);
	free(o->bout);
	free(o->his);
	free(o->base);
	free(o->gates);
	free(o->srcdirs);
	free(o->vtext);
	filter_free(&o->filter);
	pme_bucketfile_close(o->read);
}

int
main(int argc, char *argv[])
{
	struct opts o;
	struct choice c;
	int rc;

	pme_prog_writes();
	memset(&o, 0, sizeof(o));
	o.cutoff = -1;
	o.lockmin = 1000000;	/* -W 1ms */
	o.caliper = CAL_NONE;
	if ((rc = parse(argc, argv, &o)) != 0) {
		opts_free(&o);
		return rc < 0 ? 2 : 0;
	}
	if (o.bin == NULL)
		o.bin = xmalloc_check(strdup(PME_DEFAULT_PME));
	if (nothing_here(&o)) {
		opts_free(&o);
		return 1;
	}
	choose(&o, &c);
	/* The seed's questions, when the default files are not there or
	 * do not fit what they are for. */
	if (o.npms == 0 && !o.bin_given && o.bout == NULL && o.his == NULL &&
	    !o.quick && isatty(STDIN_FILENO) &&
	    !(c.sure && (o.mode == MODE_AUTO || o.mode == c.mode))) {
		if (c.why[0] != '\0')
			histo_warn(prog, "%s", c.why);
		pme_bucketfile_close(c.bf);	/* the names may change */
		c.bf = NULL;
		free(o.bin);
		o.bin = NULL;
		ask_questions(&o, c.mode);
		if (o.bin == NULL)
			o.bin = xmalloc_check(strdup(PME_DEFAULT_PME));
	} else if (o.mode == MODE_AUTO && c.why[0] != '\0' && !o.quiet)
		histo_warn(prog, "%s", c.why);
	o.read = c.bf;
	if (o.mode == MODE_AUTO)
		o.mode = c.mode;
	if (o.mode == MODE_TRACE && needs_stacks(&o)) {
		folded_trace(&o);
		opts_free(&o);
		return 2;
	}
	if (view_check(&o) == -1) {
		opts_free(&o);
		return 2;
	}
	if (o.mode == MODE_TRACE && o.filter.on) {
		histo_warn(prog, "%s: filters take samples of sample files "
		    "(clock input), not of a filled bucket file (trace "
		    "input)", o.filter.text);
		usage(stderr);
		opts_free(&o);
		return 2;
	}
	if (o.mode == MODE_CLOCK && o.npms == 0) {
		o.pms = xmalloc_check(realloc(o.pms, 2 * sizeof(*o.pms)));
		o.pms[0] = xmalloc_check(strdup(PME_DEFAULT_PMS));
		o.npms = 1;
	}
	/* The seed: a named input bucket file is also the output's name. */
	o.bout_given = o.bout != NULL;
	if (o.bout == NULL)
		o.bout = xmalloc_check(strdup(o.bin));
	o.bout_null = null_device(o.bout);
	/* An export is written instead of the histogram: to standard
	 * output, or to -o's file with the export's extension. */
	if (o.export != NULL && (o.his == NULL || o.oarg != NULL)) {
		free(o.his);
		o.his = xmalloc_check(pme_with_ext(o.oarg != NULL ? o.oarg :
		    "-", o.export->ext));
	}
	if (o.his == NULL)
		o.his = xmalloc_check(strdup(PME_DEFAULT_HIS));
	if (o.export != NULL && o.export->binary &&
	    strcmp(o.his, "-") == 0 && isatty(STDOUT_FILENO)) {
		histo_warn(prog, "-T %s: standard output is a terminal: "
		    "name a file with -o", o.export->name);
		usage(stderr);
		opts_free(&o);
		return 2;
	}
	rc = outputs_check(&o) == -1 ? 1 : run(&o);
	opts_free(&o);
	return rc;
}
