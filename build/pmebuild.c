/*
 * pmebuild - compiles program definition statements (.PMD) into an empty
 * bucket file (.PME).  See pmebuild(1) and pmd(5).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "pmd.h"
#include "prog.h"

#define DEFAULT_PMD	"PMEFILE.PMD"
#define DEFAULT_PME	"PMEFILE.PME"

static const char *prog = "pmebuild";

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: pmebuild [-qv] [-o output] [input [output]]\n"
	    "       pmebuild [-qv] [-o output] -x program [-b kind] "
	    "[-l library]... [output]\n");
}

static void
help(void)
{
	usage(stdout);
	printf("\n"
	    "Compiles program definition statements (pmd(5)) into an empty "
	    "bucket file.\n\n"
	    "  input        statements, default %s ('-': standard input)\n"
	    "  output       bucket file, default %s ('-': standard output)\n"
	    "  -o output    the bucket file, as the second operand\n"
	    "  -x program   no .PMD: one bucket per unit of program's "
	    "executable\n"
	    "  -b kind      with -x: module, routine (default) or line\n"
	    "  -l library   with -x: a shared library to read as well\n"
	    "  -q           no warnings\n"
	    "  -v           say what was written; show the statements -x "
	    "makes\n"
	    "  -h, --help   this text;  -V, --version  the version\n",
	    DEFAULT_PMD, DEFAULT_PME);
}

/*
 * Feeds statements from fp until END or the end of fp; returns 1 after END.
 * On a terminal each line is prompted for and errors do not count: the
 * user sees them and enters the statement again.  The statements of -x
 * (name NULL) stop at the first error: those after it only fail for it.
 */
static int
feed(struct pmd *p, FILE *fp, const char *name, int tty)
{
	char *buf = NULL;
	size_t cap = 0;
	unsigned line = 0;

	while (p->mode != PMD_MODE_DONE && (name != NULL || p->errors == 0)) {
		if (tty) {
			fputs(pmd_prompt(p), stderr);
			fflush(stderr);
		}
		if (pme_read_line(fp, &buf, &cap) < 0)
			break;
		p->file = name;
		p->line = ++line;
		p->interactive = tty;
		pmd_statement(p, buf);
	}
	if (tty && p->mode != PMD_MODE_DONE)
		fputc('\n', stderr);
	free(buf);
	return p->mode == PMD_MODE_DONE;
}

/* The seed's first question, when pmebuild runs on a terminal with no
 * file names: "Do you wish to specify file names?" */
static void
ask_names(char **in, char **out)
{
	char *a;

	for (;;) {
		a = pme_ask("Do you wish to specify file names? (Yes or No): ",
		    "N");
		if (a == NULL || a[0] == 'n' || a[0] == 'N') {
			free(a);
			return;
		}
		if (a[0] == 'y' || a[0] == 'Y')
			break;
		free(a);
	}
	free(a);
	free(*in);
	free(*out);
	a = pme_ask("Input program definition file [" DEFAULT_PMD "]: ",
	    DEFAULT_PMD);
	*in = a ? pme_with_ext(a, ".PMD") : NULL;
	free(a);
	a = pme_ask("Output bucket file [" DEFAULT_PME "]: ", DEFAULT_PME);
	*out = a ? pme_with_ext(a, ".PME") : NULL;
	free(a);
}

/* Appends s to the statement text t, quoted when it is a name. */
static void
emit(FILE *t, const char *kw, const char *s)
{
	fputs(kw, t);
	if (s == NULL) {
		fputc('\n', t);
		return;
	}
	fputc('"', t);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			fputc('"', t);
		fputc(*s, t);
	}
	fputs("\"\n", t);
}

/* The statements of the quick path -x, in a buffer the caller frees. */
static char *
quick_text(const char *exe, const char *by, char **libs, int nlibs)
{
	const char *base = strrchr(exe, '/');
	char *text = NULL;
	size_t len = 0;
	FILE *t;
	int i, line = strcasecmp(by, "line") == 0;

	base = base ? base + 1 : exe;
	if ((t = open_memstream(&text, &len)) == NULL)
		return NULL;
	fprintf(t, "DEFINE UNITS: PROGRAM, MODULE%s\n",
	    strcasecmp(by, "module") == 0 ? "" :
	    line ? ", ROUTINE, LINE" : ", ROUTINE");
	emit(t, "PROGRAM ", base);
	if (line)
		emit(t, "DEFINE OPTIONS: LINES", NULL);
	emit(t, "DEFINE ADDRESSES: EXE ", exe);
	for (i = 0; i < nlibs; i++)
		emit(t, "DEFINE ADDRESSES: EXE ", libs[i]);
	emit(t, "DEFINE SAMPLING", NULL);
	emit(t, "PROGRAM ", base);
	/* emit() ended the line after the name: put BY on it instead. */
	fseek(t, -1, SEEK_CUR);
	fprintf(t, " BY %s\nEND\n", line ? "LINE" :
	    strcasecmp(by, "module") == 0 ? "MODULE" : "ROUTINE");
	fclose(t);
	return text;
}

static int
build(struct pmd *p, const char *in, FILE *inf, int intty, char *quick)
{
	const char *name;
	int done, stdin_tty = isatty(0);

	if (quick != NULL) {
		FILE *q = fmemopen(quick, strlen(quick), "r");

		if (q == NULL) {
			fprintf(stderr, "%s: %s\n", prog, strerror(errno));
			return -1;
		}
		done = feed(p, q, NULL, 0);
		fclose(q);
		return done ? 0 : -1;
	}
	name = intty && inf == stdin ? "<terminal>" : inf == stdin ?
	    "<stdin>" : in;
	done = feed(p, inf, name, intty);
	if (!done && stdin_tty && !intty)
		done = feed(p, stdin, name = "<terminal>", 1);
	if (!done) {
		fprintf(stderr, "%s: %s: end of input before END\n", prog,
		    name);
		p->errors++;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	char *in = NULL, *out = NULL, *quick = NULL, **libs;
	const char *exe = NULL, *by = "routine", *oname = NULL;
	struct pme_error err;
	struct pmd p;
	FILE *inf = NULL;
	int c, nlibs = 0, quiet = 0, verbose = 0, intty = 0, rc = 1;

	if ((libs = calloc((size_t)argc + 1, sizeof(*libs))) == NULL)
		return 1;
	while ((c = getopt_long(argc, argv, "b:hl:o:qVvx:", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'b':
			by = optarg;
			if (strcasecmp(by, "module") && strcasecmp(by,
			    "routine") && strcasecmp(by, "line")) {
				fprintf(stderr, "%s: -b: '%s' is not module, "
				    "routine or line\n", prog, by);
				free(libs);
				return 2;
			}
			break;
		case 'h':
			help();
			free(libs);
			return 0;
		case 'l':
			libs[nlibs++] = optarg;
			break;
		case 'o':
			oname = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'V':
			printf("pmebuild (pme) %s\n", PME_VERSION_STRING);
			free(libs);
			return 0;
		case 'v':
			verbose = 1;
			break;
		case 'x':
			exe = optarg;
			break;
		default:
			usage(stderr);
			free(libs);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 2 || (exe != NULL && argc > 1) ||
	    (oname != NULL && argc > (exe ? 0 : 1)) ||
	    (exe == NULL && nlibs > 0)) {
		usage(stderr);
		free(libs);
		return 2;
	}
	if (exe == NULL && argc > 0)
		in = pme_with_ext(argv[0], ".PMD");
	if (oname != NULL || argc > (exe ? 0 : 1))
		out = pme_with_ext(oname ? oname : argv[argc - 1], ".PME");
	if (exe == NULL && argc == 0 && oname == NULL && isatty(0))
		ask_names(&in, &out);
	if (in == NULL && exe == NULL)
		in = strdup(DEFAULT_PMD);
	if (out == NULL)
		out = strdup(DEFAULT_PME);

	/* A bucket file on standard output leaves LIST and PRINT stderr. */
	pmd_init(&p, strcmp(out, "-") == 0 ? stderr : stdout, stderr, prog);
	p.quiet = quiet;
	if (exe != NULL) {
		if ((quick = quick_text(exe, by, libs, nlibs)) == NULL)
			goto done;
		if (verbose)
			fputs(quick, stderr);
	} else if (strcmp(in, "-") == 0) {
		inf = stdin;
		intty = isatty(0);
	} else if ((inf = fopen(in, "r")) == NULL) {
		int e = errno;

		if (!isatty(0)) {
			fprintf(stderr, "%s: cannot open '%s': %s\n", prog,
			    in, strerror(e));
			goto done;
		}
		fprintf(stderr, "%s: cannot open '%s': %s; reading "
		    "statements from the terminal\n", prog, in, strerror(e));
		inf = stdin;
		intty = 1;
	}
	if (build(&p, in ? in : "-x", inf, intty, quick) == -1)
		goto done;
	if (p.errors > 0) {
		fprintf(stderr, "%s: no bucket file written: %u error%s\n",
		    prog, p.errors, p.errors == 1 ? "" : "s");
		goto done;
	}
	if (p.groups.n == 0) {
		fprintf(stderr, "%s: no bucket file written: no bucket groups "
		    "were defined (DEFINE SAMPLING)\n", prog);
		goto done;
	}
	fflush(stdout);
	if (pmd_write(&p, out, &err) == -1) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		goto done;
	}
	if (p.interactive)
		fputs("***Bucket File created***\n", stderr);
	if (verbose)
		fprintf(stderr, "%s: wrote '%s': %zu bucket group%s, %zu "
		    "bucket%s\n", prog, out, p.groups.n,
		    p.groups.n == 1 ? "" : "s", p.buckets.n,
		    p.buckets.n == 1 ? "" : "s");
	rc = 0;
done:
	if (inf != NULL && inf != stdin)
		fclose(inf);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "%s: standard output: %s\n", prog,
		    strerror(errno));
		rc = 1;
	}
	pmd_free(&p);
	free(quick);
	free(in);
	free(out);
	free(libs);
	return rc;
}
