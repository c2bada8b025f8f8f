/*
 * pmemerge - sums filled bucket files of one layout into one, or joins
 * sample files into one of all their runs: the reduce step of a profile
 * made of many runs, on one machine or many.  See pmemerge(1).
 *
 * A program of its own, not a pmehisto option: the reduce step reads
 * many files and reports nothing, which suits make -j and a batch
 * system's job steps, and pmehisto's options stay those of a report.
 * The inputs are read one at a time and added into the first, so memory
 * is that of two bucket files, whatever their number.  Sample files are
 * not decoded: their chunks are copied into the output as they are
 * stored, so memory is that of the largest chunk.
 */
#include <errno.h>
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histo.h"
#include "prog.h"
#include "util.h"

static const char *prog = "pmemerge";

struct merge {
	uint32_t	 kind;		/* the first input's: PME_KIND_BUCKET
					   or PME_KIND_SAMPLE; 0 before it */
	const char	*out;		/* -o as given */
	char		*outpath;	/* with its extension */
	struct pme_writer *w;		/* the sample file being written */
	uint64_t	 runs;		/* runs of the sample files */
	struct pme_bucketfile *sum;	/* the first file, the others added */
	char		*first;		/* its name */
	size_t		 files;
	uint64_t	 period;	/* the first non-zero period */
	char		*pfirst;	/* the file that gave it */
	size_t		 pother;	/* files sampled at another period */
	int		 quiet;
};

static void
usage(FILE *fp)
{
	fprintf(fp, "usage: pmemerge [-qv] [-@ list] -o output "
	    "[file ...]\n");
}

static void
help(void)
{
	usage(stdout);
	printf("\n"
	    "Sums filled bucket files of one layout into one, or joins "
	    "sample files into\none of all their runs.\n\n"
	    "  file           a filled bucket file, or a sample file, as the "
	    "first is\n"
	    "                 ('-': standard input, a bucket file when first)\n"
	    "  -o output      the sum, written whole ('-': standard output)\n"
	    "  -@ list        also the files named in list, one a line "
	    "('-': stdin)\n"
	    "  -q             no warnings;  -v  say what was written\n"
	    "  -h, --help     this text;  -V, --version  the version\n");
}

static char *
xstrdup(const char *s)
{
	char *p;

	if ((p = strdup(s)) == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	return p;
}

/* Advice for a file of another kind than the first input's, or "". */
static const char *
kind_hint(const struct pme_error *err, const char *path)
{
	if (err->code != PME_EKIND)
		return "";
	switch (pme_file_kind(path)) {
	case PME_KIND_SAMPLE:
	case PME_KIND_BUCKET:
		return "; the inputs of a merge are of one kind, the first "
		    "input's";
	case PME_KIND_EVENT:
		return "; stats(1) reads event files";
	}
	return "";
}

/*
 * The kind of the merge, from its first input: a sample file makes it a
 * merge of sample files, anything else one of bucket files (whose reader
 * says what is wrong with it).  A name without an extension is the
 * bucket file's, else the sample file's when that is there.
 */
static void
first_kind(struct merge *m, const char *name)
{
	char *path;

	m->kind = PME_KIND_BUCKET;
	if ((path = pme_input_name(name, ".PME")) != NULL &&
	    pme_file_kind(path) == 0) {
		free(path);
		path = pme_input_name(name, ".PMS");
	}
	if (path != NULL && pme_file_kind(path) == PME_KIND_SAMPLE)
		m->kind = PME_KIND_SAMPLE;
	free(path);
}

/* Appends the runs of the sample file name to the output, opened with
 * the first; 0, or -1 said. */
static int
add_samples(struct merge *m, const char *name)
{
	struct pme_samplecopy info;
	struct pme_error err;
	char *path;
	int rc = 0;

	if ((path = pme_input_name(name, ".PMS")) == NULL) {
		histo_warn(prog, "out of memory");
		return -1;
	}
	if (m->w == NULL && (m->w = pme_writer_open(m->outpath,
	    PME_KIND_SAMPLE, 0, &err)) == NULL) {
		histo_warn(prog, "%s", pme_strerror(&err));
		free(path);
		return -1;
	}
	if (pme_samplefile_copy(m->w, path, &info, &err) == -1) {
		histo_warn(prog, "%s%s", pme_strerror(&err),
		    kind_hint(&err, path));
		rc = -1;
	} else {
		if (!info.closed && !m->quiet)
			histo_warn(prog, "'%s': cut short (no closing "
			    "record%s): merged as it is, a run cut short", path,
			    info.complete ? "" : ", no END chunk");
		m->files++;
		m->runs += info.runs;
	}
	free(path);
	return rc;
}

/* The period of bf, checked against the sum's: warned when it differs. */
static void
check_period(struct merge *m, struct pme_bucketfile *bf, const char *path)
{
	uint64_t p = pme_bucketfile_info(bf)->period;

	if (p == 0)
		return;
	if (m->period == 0) {
		m->period = p;
		m->pfirst = xstrdup(path);
		return;
	}
	if (p == m->period)
		return;
	if (m->pother++ == 0 && !m->quiet)
		histo_warn(prog, "'%s': sampled every %g ms, '%s' every %g "
		    "ms: the sum says %g ms", path, (double)p / 1e6, m->pfirst,
		    (double)m->period / 1e6, (double)m->period / 1e6);
}

/* Adds the bucket file name to the sum; 0, or -1 said. */
static int
add(struct merge *m, const char *name)
{
	struct pme_bucketfile *bf;
	struct pme_error err;
	char *path;

	if (m->kind == 0)
		first_kind(m, name);
	if (m->outpath == NULL && (m->outpath = pme_with_ext(m->out,
	    m->kind == PME_KIND_SAMPLE ? ".PMS" : ".PME")) == NULL) {
		histo_warn(prog, "out of memory");
		return -1;
	}
	/* The output may be an input (added into); not another kind. */
	if (m->files == 0 && pme_out_check(m->outpath, m->kind, NULL, NULL,
	    0, &err) == -1) {
		histo_warn(prog, "%s", pme_strerror(&err));
		return -1;
	}
	if (m->kind == PME_KIND_SAMPLE)
		return add_samples(m, name);
	if ((path = pme_input_name(name, ".PME")) == NULL) {
		histo_warn(prog, "out of memory");
		return -1;
	}
	if ((bf = pme_bucketfile_open(path, &err)) == NULL) {
		histo_warn(prog, "%s%s", pme_strerror(&err),
		    kind_hint(&err, path));
		free(path);
		return -1;
	}
	check_period(m, bf, path);
	m->files++;
	if (m->sum == NULL) {
		m->sum = bf;
		m->first = path;
		return 0;
	}
	if (pme_bucketfile_accumulate(m->sum, bf, &err) == -1) {
		histo_warn(prog, "'%s': cannot be added to '%s': %s", path,
		    m->first, pme_strerror(&err));
		pme_bucketfile_close(bf);
		free(path);
		return -1;
	}
	pme_bucketfile_close(bf);
	free(path);
	return 0;
}

/* Adds the files list names, one a line (empty lines skipped); 0, or -1
 * said. */
static int
add_list(struct merge *m, const char *list)
{
	struct pme_error err;
	FILE *fp = strcmp(list, "-") == 0 ? stdin : pme_fopen_read(list,
	    &err);
	char *line = NULL;
	size_t cap = 0;
	unsigned no = 0;
	ssize_t n;
	int rc = 0;

	if (fp == NULL) {
		histo_warn(prog, "%s", pme_strerror(&err));
		return -1;
	}
	errno = 0;
	while (rc == 0 && (n = pme_read_line(fp, &line, &cap)) != -1) {
		no++;
		if (n == -2) {
			histo_warn(prog, "'%s':%u: line longer than %u bytes",
			    list, no, PME_LINE_MAX);
			rc = -1;
		} else if (strlen(line) != (size_t)n) {
			histo_warn(prog, "'%s':%u: a NUL byte in the file name",
			    list, no);
			rc = -1;
		} else if (line[0] != '\0')
			rc = add(m, line);
	}
	if (rc == 0 && ferror(fp)) {
		histo_warn(prog, "'%s': read failed: %s", list,
		    strerror(errno));
		rc = -1;
	}
	free(line);
	if (fp != stdin)
		fclose(fp);
	return rc;
}

static int
write_sum(struct merge *m, const char *out, int verbose)
{
	struct pme_info *info;
	struct pme_error err;

	if (m->kind == PME_KIND_SAMPLE) {
		if (pme_writer_commit(m->w, &err) == -1) {
			m->w = NULL;
			histo_warn(prog, "%s", pme_strerror(&err));
			return -1;
		}
		m->w = NULL;
		if (verbose)
			histo_warn(prog, "wrote '%s' (%zu file%s, %llu run%s)",
			    out, m->files, m->files == 1 ? "" : "s",
			    (unsigned long long)m->runs, m->runs == 1 ? "" :
			    "s");
		return 0;
	}
	info = pme_bucketfile_info(m->sum);
	if (m->pother > 1 && !m->quiet)
		histo_warn(prog, "%zu more files sampled at other intervals "
		    "than '%s'", m->pother - 1, m->pfirst);
	if (pme_bucketfile_write(m->sum, out, &err) == -1) {
		histo_warn(prog, "%s", pme_strerror(&err));
		return -1;
	}
	if (verbose)
		histo_warn(prog, "wrote '%s' (%zu file%s, %llu run%s, total "
		    "%llu)", out, m->files, m->files == 1 ? "" : "s",
		    (unsigned long long)info->runs, info->runs == 1 ? "" : "s",
		    (unsigned long long)info->total);
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
	struct merge m;
	const char **lists = NULL;
	const char *out = NULL;
	size_t nlists = 0, i;
	int c, verbose = 0, stdins = 0, rc = 1;

	pme_prog_writes();
	memset(&m, 0, sizeof(m));
#ifdef __GLIBC__
	/*
	 * Each input's tables are allocated and freed in turn, in blocks
	 * that glibc would map and unmap (or trim) for every file: kept
	 * instead, they halve the time of a merge of many files (a page
	 * fault per page per file, else).  Memory stays that of the two
	 * largest files.
	 */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
	while ((c = getopt_long(argc, argv, "@:ho:qVv", longopts, NULL)) !=
	    -1)
		switch (c) {
		case '@':
			if ((lists = realloc(lists, (nlists + 1) *
			    sizeof(*lists))) == NULL) {
				histo_warn(prog, "out of memory");
				return 1;
			}
			lists[nlists++] = optarg;
			stdins += strcmp(optarg, "-") == 0;
			break;
		case 'h':
			help();
			return 0;
		case 'o':
			out = optarg;
			break;
		case 'q':
			m.quiet = 1;
			break;
		case 'V':
			printf("pmemerge (pme) %s\n", PME_VERSION_STRING);
			return 0;
		case 'v':
			verbose = 1;
			break;
		default:
			usage(stderr);
			return 2;
		}
	for (i = (size_t)optind; i < (size_t)argc; i++)
		stdins += strcmp(argv[i], "-") == 0;
	if (out == NULL || (optind == argc && nlists == 0) || stdins > 1) {
		histo_warn(prog, "%s", out == NULL ?
		    "no output: -o names it" :
		    stdins > 1 ? "standard input given twice" :
		    "no input: name bucket files, or a list of them with -@");
		usage(stderr);
		free(lists);
		return 2;
	}
	m.out = out;
	for (i = (size_t)optind; i < (size_t)argc; i++)
		if (add(&m, argv[i]) == -1)
			goto done;
	for (i = 0; i < nlists; i++)
		if (add_list(&m, lists[i]) == -1)
			goto done;
	if (m.files == 0)
		histo_warn(prog, "no input: the lists name no file");
	else if (write_sum(&m, m.outpath, verbose) == 0)
		rc = 0;
done:
	pme_writer_discard(m.w);
	pme_bucketfile_close(m.sum);
	free(m.first);
	free(m.pfirst);
	free(m.outpath);
	free(lists);
	return rc;
}
