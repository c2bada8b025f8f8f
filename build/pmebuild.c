/*
 * pmebuild - compiles program definition statements (.PMD) into an empty
 * bucket file (.PME).  See pmebuild(1) and pmd(5).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include "pmd.h"
#include "prog.h"
#include "quick.h"

static const char *prog = "pmebuild";

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: pmebuild [-qv] [--no-demangle] [-o output] [input "
	    "[output]]\n"
	    "       pmebuild [-qv] [--no-demangle] [-o output] -x program "
	    "[-b kind]\n"
	    "                [-l library]... [output]\n");
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
	    "  --no-demangle  routines keep their mangled C++ and Rust "
	    "names\n"
	    "  -v           say what was written; show the statements -x "
	    "makes\n"
	    "  -h, --help   this text;  -V, --version  the version\n",
	    PME_DEFAULT_PMD, PME_DEFAULT_PME);
}

/*
 * Whether line, the first of the input name, is that of a file pmebuild
 * does not read: a pme file or an ELF program.  Then says what to do.
 */
static int
wrong_input(const char *name, const char *line)
{
	static const char *const kinds[][3] = {
		{ "BUCK", "a bucket file (.PME)", "pmebuild writes it: give it "
		    "as the output" },
		{ "SAMP", "a sample file (.PMS)", "pmehisto reads it" },
		{ "EVNT", "an event file", "stats reads it" },
		{ "", "a pme file", "pmebuild writes bucket files" },
	};
	size_t i;

	if (strncmp(line, "\177ELF", 4) == 0) {
		fprintf(stderr, "%s: '%s' is a program, not program definition "
		    "statements (.PMD); pmebuild -x %s makes a bucket per "
		    "routine of it\n", prog, name, name);
		return 1;
	}
	if (strncmp(line, "\177PME", 4) != 0)
		return 0;
	for (i = 0; kinds[i][0][0] != '\0'; i++)
		if (strncmp(line + 4, kinds[i][0], 4) == 0)
			break;
	fprintf(stderr, "%s: '%s' is %s, not program definition statements "
	    "(.PMD); %s\n", prog, name, kinds[i][1], kinds[i][2]);
	return 1;
}

/*
 * Feeds statements from fp until END or the end of fp; returns 1 after END,
 * -1 when fp is no statements at all, or a line longer than PME_LINE_MAX
 * (said).
 * On a terminal each line is prompted for and errors do not count: the
 * user sees them and enters the statement again.  The statements of -x
 * (name NULL) stop at the first error: those after it only fail for it.
 */
static int
feed(struct pmd *p, FILE *fp, const char *name, int tty)
{
	char *buf = NULL;
	const char *nul;
	size_t cap = 0;
	unsigned line = 0;
	ssize_t n;

	while (p->mode != PMD_MODE_DONE && (name != NULL || p->errors == 0)) {
		if (tty) {
			fputs(pmd_prompt(p), stderr);
			fflush(stderr);
		}
		if ((n = pme_read_line(fp, &buf, &cap)) == -1)
			break;
		if (line == 0 && name != NULL && !tty &&
		    wrong_input(name, buf)) {
			free(buf);
			return -1;
		}
		p->file = name;
		p->line = ++line;
		p->interactive = tty;
		if (n == -2) {		/* the rest of it is not read */
			pmd_error(p, "line longer than %u bytes",
			    PME_LINE_MAX);
			free(buf);
			return -1;
		}
		/* A statement is text: a NUL byte would end it silently
		 * where it stands ('MODULE c<NUL>d, 20 - 30' declared c
		 * without addresses). */
		if ((nul = memchr(buf, '\0', (size_t)n)) != NULL)
			pmd_error(p, "column %zu: a NUL byte in the statement",
			    (size_t)(nul - buf) + 1);
		else
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
ask_names(char **in, char **out, int *added)
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
	a = pme_ask("Input program definition file [" PME_DEFAULT_PMD "]: ",
	    PME_DEFAULT_PMD);
	*in = a ? pme_input_name(a, ".PMD") : NULL;
	*added = a != NULL && *in != NULL && strlen(*in) > strlen(a);
	free(a);
	a = pme_ask("Output bucket file [" PME_DEFAULT_PME "]: ",
	    PME_DEFAULT_PME);
	*out = a ? pme_with_ext(a, ".PME") : NULL;
	free(a);
}

/* Appends s to the statement text t, quoted when it is a name. */
static void
emit(FILE *t, const char *kw, const char *s)
{
	fputs(kw, t);
	if (s != NULL)
		pme_quick_quote(t, s);
	fputc('\n', t);
}

/*
 * Where -x and -l look for a name without a '/' that is no file in the
 * current directory: the directories of PATH, as execvp(3) does (an
 * empty entry is the current directory; without PATH, confstr(3)'s
 * default), and those the dynamic loader searches for a library: those
 * of LD_LIBRARY_PATH, then the system's (not the others of
 * /etc/ld.so.conf).  Returns a copy the caller frees, NULL when out of
 * memory.
 */
#if defined(__x86_64__)
#define MULTIARCH	"x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH	"aarch64-linux-gnu"
#elif defined(__i386__)
#define MULTIARCH	"i386-linux-gnu"
#endif
#ifdef MULTIARCH
#define LIBDIRS	"/lib/" MULTIARCH ":/usr/lib/" MULTIARCH ":"
#else
#define LIBDIRS	""
#endif

static char *
search_dirs(int library)
{
	const char *env = getenv("LD_LIBRARY_PATH");
	char *s, buf[256];

	if (!library)
		return strdup(pme_exec_dirs(buf, sizeof(buf)));
	if (asprintf(&s, "%s%s%s", env != NULL ? env : "",
	    env != NULL && *env != '\0' ? ":" : "",
	    LIBDIRS "/usr/local/lib:/lib64:/usr/lib64:/lib:/usr/lib") == -1)
		return NULL;
	return s;
}

/*
 * The file -x (library 0) or -l (library 1) reads for name: name itself
 * when it holds a '/' or is a file here, else the first file of that
 * name, executable for a program, in the directories search_dirs() says.
 * Returns a name the caller frees, or NULL after saying where it looked.
 */
static char *
find_file(const char *name, int library)
{
	char *dirs, *path = NULL, buf[PATH_MAX];
	struct stat st;

	if (strchr(name, '/') != NULL || *name == '\0' ||
	    (stat(name, &st) == 0 && S_ISREG(st.st_mode)))
		return strdup(name);
	if ((dirs = search_dirs(library)) == NULL)
		return NULL;
	if (pme_path_find(name, dirs, library ? R_OK : R_OK | X_OK, buf,
	    sizeof(buf)) != NULL && (path = strdup(buf)) == NULL) {
		free(dirs);
		return NULL;
	}
	if (path == NULL)
		fprintf(stderr, "%s: '%s': not in the current directory nor in "
		    "%s (%s)\n", prog, name, library ? "the dynamic loader's "
		    "directories" : "PATH", dirs);
	free(dirs);
	return path;
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
	if ((done = feed(p, inf, name, intty)) == -1)
		return -1;
	if (!done && stdin_tty && !intty)
		done = feed(p, stdin, name = "<terminal>", 1);
	if (!done) {
		fprintf(stderr, "%s: %s: end of input before END\n", prog,
		    name);
		p->errors++;
	}
	return 0;
}

/* What the command line asks for. */
struct opts {
	char		*in, *out;	/* .PMD and .PME names (NULL in: -x) */
	const char	*exe, *by;	/* -x program, -b kind */
	char		**libs;		/* -l libraries */
	int		 added;		/* in is the name given plus .PMD
					   (or .pmd) */
	int		 nlibs, quiet, verbose;
	int		 nodemangle;	/* --no-demangle */
};

/*
 * Reads the command line into o: -1 to go on, else the exit status (0
 * after --help or --version, 2 for a usage error, said).
 */
static int
parse(int argc, char *argv[], struct opts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "no-demangle", no_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 }
	};
	const char *oname = NULL;
	int c;

	o->by = "routine";
	if ((o->libs = calloc((size_t)argc + 1, sizeof(*o->libs))) == NULL)
		return 1;
	while ((c = getopt_long(argc, argv, "b:hl:o:qVvx:", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'b':
			o->by = optarg;
			if (strcasecmp(o->by, "module") && strcasecmp(o->by,
			    "routine") && strcasecmp(o->by, "line")) {
				fprintf(stderr, "%s: -b: '%s' is not module, "
				    "routine or line\n", prog, o->by);
				return 2;
			}
			break;
		case 'h':
			help();
			return 0;
		case 'l':
			o->libs[o->nlibs++] = optarg;
			break;
		case 'N':
			o->nodemangle = 1;
			break;
		case 'o':
			oname = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'V':
			printf("pmebuild (pme) %s\n", PME_VERSION_STRING);
			return 0;
		case 'v':
			o->verbose = 1;
			break;
		case 'x':
			o->exe = optarg;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 2 || (o->exe != NULL && argc > 1) ||
	    (oname != NULL && argc > (o->exe ? 0 : 1)) ||
	    (o->exe == NULL && o->nlibs > 0)) {
		usage(stderr);
		return 2;
	}
	if (o->exe == NULL && argc > 0 &&
	    (o->in = pme_input_name(argv[0], ".PMD")) != NULL)
		o->added = strlen(o->in) > strlen(argv[0]);
	if (oname != NULL || argc > (o->exe ? 0 : 1))
		o->out = pme_with_ext(oname ? oname : argv[argc - 1], ".PME");
	if (o->exe == NULL && argc == 0 && oname == NULL && isatty(0))
		ask_names(&o->in, &o->out, &o->added);
	if (o->in == NULL && o->exe == NULL)
		o->in = strdup(PME_DEFAULT_PMD);
	if (o->out == NULL)
		o->out = strdup(PME_DEFAULT_PME);
	return o->out == NULL || (o->exe == NULL && o->in == NULL) ? 1 : -1;
}

/* The statements of -x into *quick, with the files found (find_file());
 * -1 when one is not found, said. */
static int
quick_input(const struct opts *o, char **quick)
{
	char *exe, **libs;
	int i, n = 0;

	if ((libs = calloc((size_t)o->nlibs + 1, sizeof(*libs))) == NULL)
		return -1;
	if ((exe = find_file(o->exe, 0)) != NULL)
		while (n < o->nlibs && (libs[n] = find_file(o->libs[n], 1)) !=
		    NULL)
			n++;
	if (exe != NULL && n == o->nlibs &&
	    (*quick = quick_text(exe, o->by, libs, n)) != NULL &&
	    o->verbose)
		fputs(*quick, stderr);
	for (i = 0; i < n; i++)
		free(libs[i]);
	free(libs);
	free(exe);
	return *quick != NULL ? 0 : -1;
}

/*
 * What to say when the input o->in is not found: that the name given is
 * a program, for -x, or the name of a .PMD file near it.
 */
static void
open_hint(const struct opts *o)
{
	size_t n = strlen(o->in) - (o->added ? 4 : 0);
	char *given, *near, magic[4];
	FILE *f;

	if ((given = strndup(o->in, n)) == NULL)
		return;
	if (o->added && (f = fopen(given, "r")) != NULL) {
		if (fread(magic, 1, 4, f) == 4 && memcmp(magic, "\177ELF", 4)
		    == 0)
			fprintf(stderr, "; '%s' is a program: pmebuild -x %s "
			    "makes a bucket per routine of it", given, given);
		fclose(f);
	} else if ((near = pme_near_file(o->in, ".PMD")) != NULL) {
		fprintf(stderr, "; did you mean '%s'?", near);
		free(near);
	}
	free(given);
}

/* Where the statements come from: *quick for -x, else *inf (stdin on a
 * terminal, *intty set).  -1 when there is nothing to read, said. */
static int
open_input(const struct opts *o, char **quick, FILE **inf, int *intty)
{
	struct pme_error err;
	size_t n;
	int e;

	if (o->exe != NULL)
		return quick_input(o, quick);
	if (strcmp(o->in, "-") == 0) {
		*inf = stdin;
		*intty = isatty(0);
		return 0;
	}
	if ((*inf = pme_fopen_read(o->in, &err)) != NULL)
		return 0;
	if ((e = err.sys_errno) == 0) {		/* a FIFO, a directory */
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		return -1;
	}
	fprintf(stderr, "%s: cannot open '%s'", prog, o->in);
	/* pme_input_name() tried the lower-case extension too. */
	n = strlen(o->in);
	if (o->added && e == ENOENT && n > 4 && strcmp(o->in + n - 4,
	    ".PMD") == 0)
		fprintf(stderr, " or '%.*s.pmd'", (int)n - 4, o->in);
	fprintf(stderr, ": %s", strerror(e));
	if (e == ENOENT)
		open_hint(o);
	if (!isatty(0)) {
		fputc('\n', stderr);
		return -1;
	}
	fputs("; reading statements from the terminal\n", stderr);
	*inf = stdin;
	*intty = 1;
	return 0;
}

/* Writes what p built to o->out: 0, or -1 when nothing was written. */
static int
write_out(struct pmd *p, const struct opts *o)
{
	struct pme_error err;

	if (p->errors > 0) {
		fprintf(stderr, "%s: no bucket file written: %u error%s\n",
		    prog, p->errors, p->errors == 1 ? "" : "s");
		return -1;
	}
	if (p->groups.n == 0) {
		fprintf(stderr, "%s: no bucket file written: no bucket groups "
		    "were defined (DEFINE SAMPLING)\n", prog);
		return -1;
	}
	fflush(stdout);
	if (pmd_write(p, o->out, &err) == -1) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		return -1;
	}
	if (p->interactive)
		fputs("***Bucket File created***\n", stderr);
	if (o->verbose)
		fprintf(stderr, "%s: wrote '%s': %zu bucket group%s, %zu "
		    "bucket%s\n", prog, o->out, p->groups.n,
		    p->groups.n == 1 ? "" : "s", p->buckets.n,
		    p->buckets.n == 1 ? "" : "s");
	return 0;
}

/* The bucket file replaces none of the inputs, nor a pme file of
 * another kind (pme_out_check); 0, or -1 said. */
static int
outputs_check(const struct opts *o)
{
	struct pme_error err;
	const char **in;
	int i, n = 0, rc = 0;

	if ((in = calloc((size_t)o->nlibs + 2, sizeof(*in))) == NULL)
		return -1;
	in[n++] = o->in != NULL ? o->in : o->exe;
	for (i = 0; i < o->nlibs; i++)
		in[n++] = o->libs[i];
	if (pme_out_check(o->out, PME_KIND_BUCKET, NULL, in, (size_t)n,
	    &err) == -1) {
		fprintf(stderr, "%s: %s\n", prog, pme_strerror(&err));
		rc = -1;
	}
	free(in);
	return rc;
}

/* Reads the statements and writes the bucket file; the exit status. */
static int
run(const struct opts *o)
{
	char *quick = NULL;
	struct pmd p;
	FILE *inf = NULL;
	int intty = 0, rc = 1;

	/* A bucket file on standard output leaves LIST and PRINT stderr. */
	pmd_init(&p, strcmp(o->out, "-") == 0 ? stderr : stdout, stderr,
	    prog);
	p.quiet = o->quiet;
	p.quick = o->exe != NULL;
	p.nodemangle = o->nodemangle;
	if (outputs_check(o) == 0 &&
	    open_input(o, &quick, &inf, &intty) == 0 &&
	    build(&p, o->in ? o->in : "-x", inf, intty, quick) == 0 &&
	    write_out(&p, o) == 0)
		rc = 0;
	if (inf != NULL && inf != stdin)
		fclose(inf);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "%s: standard output: %s\n", prog,
		    strerror(errno));
		rc = 1;
	}
	pmd_free(&p);
	free(quick);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct opts o;
	int rc;

	pme_prog_writes();
#ifdef __GLIBC__
	/*
	 * Large blocks from the heap, and the heap never trimmed: the line
	 * rows, their sort's scratch and the keys are freed as the units are
	 * made, and what follows reuses their pages, where blocks of their
	 * own (mmap) were unmapped on free and every new one faulted in
	 * afresh (a quarter of the page faults on the SQLite amalgamation,
	 * and of the CPU time the kernel spent on them).
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
	memset(&o, 0, sizeof(o));
	if ((rc = parse(argc, argv, &o)) == -1)
		rc = run(&o);
	free(o.in);
	free(o.out);
	free(o.libs);
	return rc;
}
