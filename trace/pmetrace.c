/*
 * pmetrace - runs a command and counts every instruction it executes into
 * the buckets of a bucket file (.PME).  See pmetrace(1).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prog.h"
#include "setid.h"
#include "trace.h"
#include "util.h"

static const char *prog = "pmetrace";

enum engine { ENG_AUTO, ENG_PMEVG, ENG_CALLGRIND, ENG_STEP, ENG_QEMU };

static void
usage(FILE *fp)
{
	fprintf(fp, "usage: pmetrace [-fPqv] [-b bucketfile] "
	    "[-e engine] [-o output] [--start routine]\n"
	    "                [--stop routine] [--] command "
	    "[argument ...]\n");
}

static void
help(void)
{
	usage(stdout);
	printf("\n"
	    "Runs command and counts every instruction it executes into the "
	    "buckets of a\nbucket file (pme(5)).\n\n"
	    "  -b bucketfile  the empty (or filled) bucket file, default %s\n"
	    "  -o output      the filled bucket file, default %s\n"
	    "  -e engine      pmevg (pme's valgrind tool, the default where it "
	    "runs),\n"
	    "                 callgrind (the fallback), step (no valgrind) or\n"
	    "                 qemu (QEMU's user-mode emulator)\n"
	    "  -f             count even when the build-ids differ from the "
	    "bucket file's\n"
	    "  -P             step engine: do not keep the program on "
	    "pmetrace's CPU\n"
	    "  --start routine, --stop routine\n"
	    "                 count only while the entries of the first "
	    "exceed those\n"
	    "                 of the second (pmevg and qemu engines)\n"
	    "  -q             no warnings\n"
	    "  -v             say which engine ran and what was counted\n"
	    "  -h, --help     this text;  -V, --version  the version\n",
	    PME_DEFAULT_PME, PME_DEFAULT_PME);
}

static void
die_nomem(void)
{
	fprintf(stderr, "%s: out of memory\n", prog);
	exit(1);
}

/*
 * The second counts, "calls", are what callgrind and pmevg find beside
 * the instructions, and the qemu engine's plugin by the same rule (its
 * "j" lines).  The step engine counts no calls: without
 * ACCUMCOUNTS a file it fills has none, with it the calls of earlier
 * runs are kept.
 */
static int
prepare_calls(struct pme_bucketfile *bf, enum engine e, int accum,
    struct pme_error *err)
{
	const char *name = pme_bucketfile_counts2(bf, NULL);

	if (e == ENG_STEP)
		return accum ? 0 : pme_bucketfile_set_counts2(bf, NULL, err);
	if (accum && name != NULL && strcmp(name, "calls") == 0)
		return 0;
	return pme_bucketfile_set_counts2(bf, "calls", err);
}

static const char *
engine_name(enum engine e)
{
	return e == ENG_STEP ? "step" : e == ENG_PMEVG ? "pmevg" :
	    e == ENG_QEMU ? "qemu" : "callgrind";
}

/* The engine tried when e is missing here: pmevg, then callgrind, then
 * step; step's is callgrind; qemu's is pmevg. */
static enum engine
next_engine(enum engine e)
{
	if (e == ENG_QEMU)
		return ENG_PMEVG;
	return e == ENG_CALLGRIND ? ENG_STEP : ENG_CALLGRIND;
}

/*
 * Runs the engine chosen, or the next when it is missing here.  The
 * default (ENG_AUTO) is pmevg, whose absence (where its tool was not
 * built) is not worth a warning.
 */
static int
run_engine(struct pme_bucketfile *bf, struct tr_tally *t, const struct tr_opts *o,
    enum engine e, int accum, int *status, struct pme_error *err)
{
	unsigned tried = 0;
	int rc, autopick = e == ENG_AUTO;

	/* Output PMETRACE_READ names is callgrind's to read. */
	if (autopick)
		e = getenv("PMETRACE_READ") != NULL ? ENG_CALLGRIND : ENG_PMEVG;
	for (;;) {
		if (o->start != NULL && (e == ENG_CALLGRIND || e == ENG_STEP))
			return pme_seterr(err, PME_EINVAL, "--start: the %s "
			    "engine cannot count from a routine (the pmevg "
			    "and qemu engines can)", engine_name(e));
		if (prepare_calls(bf, e, accum, err) == -1)
			return -1;
		if (o->verbose)
			fprintf(stderr, "%s: engine %s\n", prog,
			    engine_name(e));
		if (e == ENG_STEP)
			rc = engine_step(t, o, status, err);
		else if (e == ENG_PMEVG)
			rc = engine_pmevg(t, o, status, err);
		else if (e == ENG_QEMU)
			rc = engine_qemu(t, o, status, err);
		else
			rc = engine_callgrind(t, o, status, err);
		if (rc != ENGINE_MISSING)
			return rc;
		tried |= 1u << e;
		if (tried & 1u << next_engine(e))
			break;
		if (!o->quiet && !(autopick && e == ENG_PMEVG))
			fprintf(stderr, "%s: %s: using the %s engine\n",
			    prog, pme_strerror(err),
			    engine_name(next_engine(e)));
		e = next_engine(e);
	}
	return -1;
}

/* What -v says of the file written: its counts, this run's and others'. */
static void
summary(struct pme_bucketfile *bf, const char *out, char *buf, size_t len)
{
	const struct pme_info *i = pme_bucketfile_info(bf);
	struct pme_bucket *b;
	uint64_t in = 0;
	size_t n, k;

	n = pme_bucketfile_buckets(bf, &b);
	for (k = 0; k < n; k++)
		in += b[k].count;
	snprintf(buf, len, "%s: wrote '%s': %llu instructions, %llu in "
	    "buckets, %llu unmapped, %llu runs\n", prog, out,
	    (unsigned long long)i->total, (unsigned long long)in,
	    (unsigned long long)i->unmapped, (unsigned long long)i->runs);
}

/*
 * Writes out: this run's counts in bf added to those of the bucket file
 * in (ACCUMCOUNTS) under its lock (pme_fill_begin), so that runs at the
 * same time each add theirs.  Standard input cannot be read again: its
 * counts are in bf already.
 */
static int
write_counts(struct pme_bucketfile *bf, const char *in, const char *out,
    int verbose, struct pme_error *err)
{
	struct pme_fill *f = NULL;
	char msg[512];

	pme_prog_writes();	/* the run is over: nothing exec'd from here */
	if (strcmp(in, "-") != 0) {
		if ((f = pme_fill_begin(in, bf, err)) == NULL)
			return -1;
		bf = pme_fill_sum(f);
	}
	summary(bf, out, msg, sizeof(msg));
	if ((f != NULL ? pme_fill_commit(f, out, err) :
	    pme_bucketfile_write(bf, out, err)) == -1)
		return -1;
	if (verbose)
		fputs(msg, stderr);
	return 0;
}

/*
 * Reads the bucket file and readies it for this run's counts: cleared
 * (write_counts adds them to the file's), or for standard input as its
 * option says.  Counts of another measure are refused before the program
 * runs (and again under the lock).
 */
static struct pme_bucketfile *
load(const char *in, int *accum)
{
	struct pme_bucketfile *bf;
	struct pme_error err;

	if ((bf = pme_bucketfile_open(in, &err)) == NULL) {
		fprintf(stderr, "%s: %s%s\n", prog, pme_strerror(&err),
		    err.code != PME_EKIND ? "" : pme_file_kind(in) ==
		    PME_KIND_SAMPLE ? "; -b takes a bucket file pmebuild made "
		    "(sample files are for pmehisto)" : "; -b takes a bucket "
		    "file pmebuild made");
		exit(1);
	}
	*accum = (pme_bucketfile_info(bf)->options & PME_OPT_ACCUM) != 0;
	if (pme_fill_check(bf, PME_MEASURE_INSTR, in, &err) == -1) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		exit(1);
	}
	if (!*accum || strcmp(in, "-") != 0)
		pme_bucketfile_clear(bf);
	return bf;
}

/* What the command line asks for. */
struct cmd {
	const char	*bname, *oname;	/* -b, -o as given */
	enum engine	 e;
	struct tr_opts	 o;		/* o.exe, the program found, freed */
};

/*
 * Reads the command line into c and finds the program: -1 to go on, else
 * the exit status (0 after --help or --version; 2 for a usage error, 126
 * or 127 for a program that cannot run, as a shell says; said).
 */
static int
parse(int argc, char **argv, struct cmd *c)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "start", required_argument, NULL, 'S' },
		{ "stop", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 }
	};
	char who[128];
	int ch, e;

	c->bname = c->oname = PME_DEFAULT_PME;
	c->e = ENG_AUTO;
	while ((ch = getopt_long(argc, argv, "+b:e:fhPo:qvV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'b':
			c->bname = optarg;
			break;
		case 'e':
			if (strcmp(optarg, "pmevg") == 0)
				c->e = ENG_PMEVG;
			else if (strcmp(optarg, "callgrind") == 0)
				c->e = ENG_CALLGRIND;
			else if (strcmp(optarg, "step") == 0)
				c->e = ENG_STEP;
			else if (strcmp(optarg, "qemu") == 0)
				c->e = ENG_QEMU;
			else {
				fprintf(stderr, "%s: '%s': no such engine "
				    "(pmevg, callgrind, step or qemu)\n", prog,
				    optarg);
				usage(stderr);
				return 2;
			}
			break;
		case 'f':
			c->o.force = 1;
			break;
		case 'h':
			help();
			return 0;
		case 'o':
			c->oname = optarg;
			break;
		case 'P':
			c->o.nopin = 1;
			break;
		case 'S':
			c->o.start = optarg;
			break;
		case 'T':
			c->o.stop = optarg;
			break;
		case 'q':
			c->o.quiet = 1;
			c->o.verbose = 0;
			break;
		case 'v':
			c->o.verbose = 1;
			c->o.quiet = 0;
			break;
		case 'V':
			printf("pmetrace (pme) %s\n", PME_VERSION_STRING);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (c->o.stop != NULL && c->o.start == NULL) {
		fprintf(stderr, "%s: --stop needs --start\n", prog);
		usage(stderr);
		return 2;
	}
	c->o.argv = argv + optind;
	if ((c->o.exe = tr_find_in_path(c->o.argv[0])) == NULL) {
		e = errno;
		fprintf(stderr, "%s: '%s': %s\n", prog, c->o.argv[0],
		    strchr(c->o.argv[0], '/') ? strerror(e) :
		    "command not found");
		return strchr(c->o.argv[0], '/') && e == EACCES ? 126 : 127;
	}
	/* Traced, its exec would not give it its privileges: the kernel
	 * drops them under ptrace, valgrind runs it as the caller. */
	if (pme_setid_words(c->o.exe, who, sizeof(who)) != SETID_NONE) {
		fprintf(stderr, "%s: '%s' is %s: no engine runs it with its "
		    "privileges (the kernel ignores them under ptrace, "
		    "valgrind runs it as you): not run\n", prog,
		    c->o.argv[0], who);
		free((char *)c->o.exe);
		c->o.exe = NULL;
		return 1;
	}
	return -1;
}

/* --start's and --stop's routines found in bf's objects; -1 when one is
 * not, said. */
static int
find_routines(struct pme_bucketfile *bf, struct tr_opts *o)
{
	const char *name[2] = { o->start, o->stop };
	char **spec[2] = { &o->startspec, &o->stopspec };
	struct pme_error err;
	int i;

	for (i = 0; i < 2; i++) {
		if (name[i] == NULL)
			continue;
		if ((*spec[i] = malloc(PATH_MAX + 32)) == NULL)
			die_nomem();
		if (tr_routine_spec(bf, name[i], *spec[i], PATH_MAX + 32,
		    &err) == -1) {
			fprintf(stderr, "%s: --%s: %s\n", prog, i == 0 ?
			    "start" : "stop", pme_strerror(&err));
			return -1;
		}
	}
	return 0;
}

/* Counts the program into the bucket file in (named out when written);
 * the exit status: the program's, or 1 when pmetrace failed, said. */
static int
run(struct cmd *c, const char *in, const char *out)
{
	struct pme_bucketfile *bf;
	struct pme_error err;
	struct tr_tally *t;
	const char *w;
	int accum, status, rc;

	bf = load(in, &accum);
	c->o.bf = bf;
	if (find_routines(bf, &c->o) == -1) {
		pme_bucketfile_close(bf);
		return 1;
	}
	if ((t = tr_tally_new(bf, &c->o, &err)) == NULL) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		pme_bucketfile_close(bf);
		return 1;
	}
	rc = run_engine(bf, t, &c->o, c->e, accum, &status, &err);
	if (rc == 0 && tr_tally_check(t, in, &err) == -1)
		rc = -1;
	while (!c->o.quiet && (w = tr_tally_warning(t)) != NULL)
		fprintf(stderr, "%s: %s\n", prog, w);
	if (rc == 0) {
		pme_bucketfile_info(bf)->measure = PME_MEASURE_INSTR;
		pme_bucketfile_info(bf)->runs++;
		rc = write_counts(bf, in, out, c->o.verbose, &err);
	}
	if (rc != 0)
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
	tr_tally_free(t);
	pme_bucketfile_close(bf);
	return rc != 0 ? 1 : status;
}

int
main(int argc, char **argv)
{
	struct pme_error err;
	struct cmd c;
	char *in = NULL, *out = NULL;
	int rc;

	memset(&c, 0, sizeof(c));
	if ((rc = parse(argc, argv, &c)) != -1)
		return rc;
	if ((in = pme_with_ext(c.bname, ".PME")) == NULL ||
	    (out = pme_with_ext(c.oname, ".PME")) == NULL)
		die_nomem();
	/* The filled file may be the input (-b), not a pme file of
	 * another kind. */
	if (pme_out_check(out, PME_KIND_BUCKET, NULL, NULL, 0, &err) == -1 ||
	    pme_guard_start(prog, "pmetrace-guard", &err) == -1) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		rc = 1;
	} else
		rc = run(&c, in, out);
	pme_guard_end();
	free(in);
	free(out);
	free((char *)c.o.exe);
	free(c.o.startspec);
	free(c.o.stopspec);
	return rc;
}
