/*
 * t_symbols - tests of libpme's symbol readers (lib/symbols.c, lib/ldmap.c).
 *
 * With no argument: self-contained checks, building the fixtures of
 * tests/fixtures with gcc into $TMPDIR.  With a mode, dumps what the
 * readers found in a stable text format for tests/sh/symbols_*.sh, which
 * compare it with nm, readelf and the linker map:
 *
 *	t_symbols modules BIN [SECTION]	name start end	(per range; "- -"
 *					for a module without ranges)
 *	t_symbols routines BIN [SECTION]	name start end	(per range)
 *	t_symbols lines BIN [SECTION]	start end line file
 *	t_symbols info BIN [SECTION]	flags, note, build-id, section
 *	t_symbols map MAP [PSECT]	name start end	(per range)
 *	t_symbols open BIN		exit 1 and the error on stderr if
 *					pme_image_open fails, else 0
 *
 * Addresses are lowercase hexadecimal without 0x.  Exit status: 0 pass,
 * 77 skipped (reason on stdout), 1 fail (diagnostics on stderr).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pme_symbols.h"

#define TEST_NAME "t_symbols"
#include "check.h"


/* ------------------------------------------------------------ dumps */

static struct pme_image *
open_or_die(const char *path, const char *section)
{
	struct pme_error err;
	struct pme_image *img;

	if ((img = pme_image_open(path, section, &err)) == NULL) {
		fprintf(stderr, "t_symbols: %s\n", pme_strerror(&err));
		exit(1);
	}
	return img;
}

static void
print_ranges(const char *name, const struct pme_range *r, uint32_t n)
{
	uint32_t i;

	if (n == 0)
		printf("%s - -\n", name);
	for (i = 0; i < n; i++)
		printf("%s %llx %llx\n", name, (unsigned long long)r[i].start,
		    (unsigned long long)r[i].end);
}

static int
dump_modules(struct pme_image *img)
{
	const struct pme_symmod *m;
	size_t i, n = pme_image_modules(img, &m);

	for (i = 0; i < n; i++)
		print_ranges(m[i].name, m[i].ranges, m[i].nranges);
	return 0;
}

static int
dump_routines(struct pme_image *img)
{
	const struct pme_symroutine *r;
	size_t i, n = pme_image_routines(img, &r);

	for (i = 0; i < n; i++)
		print_ranges(r[i].name, r[i].ranges, r[i].nranges);
	return 0;
}

static int
dump_lines(struct pme_image *img)
{
	const struct pme_symline *l;
	struct pme_error err;
	size_t i, n;

	if (pme_image_load_lines(img, PME_NONE, &err) == -1) {
		fprintf(stderr, "t_symbols: %s\n", pme_strerror(&err));
		return 1;
	}
	n = pme_image_lines(img, &l);
	for (i = 0; i < n; i++)
		printf("%llx %llx %u %s\n", (unsigned long long)l[i].start,
		    (unsigned long long)l[i].end, l[i].line, l[i].file);
	return 0;
}

static int
dump_info(struct pme_image *img)
{
	static const char *names[] = { "dwarf", "symtab", "dynsym", "pie",
	    "shared", "exec", "dwarf5" };
	const uint8_t *id;
	struct pme_range sec = pme_image_section(img);
	unsigned f = pme_image_flags(img), i;
	uint32_t len;

	printf("flags");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (f & 1u << i)
			printf(" %s", names[i]);
	printf("\nnote %s\nbuildid ", pme_image_note(img) ?
	    pme_image_note(img) : "-");
	id = pme_image_buildid(img, &len);
	for (i = 0; i < len; i++)
		printf("%02x", id[i]);
	printf("%s\nsection %llx %llx\n", len ? "" : "-",
	    (unsigned long long)sec.start, (unsigned long long)sec.end);
	return 0;
}

static int
dump_map(const char *path, const char *psect)
{
	const struct pme_symmod *m;
	struct pme_error err;
	struct pme_map *map;
	size_t i, n;

	if ((map = pme_map_open(path, psect, &err)) == NULL) {
		fprintf(stderr, "t_symbols: %s\n", pme_strerror(&err));
		return 1;
	}
	n = pme_map_modules(map, &m);
	for (i = 0; i < n; i++)
		print_ranges(m[i].name, m[i].ranges, m[i].nranges);
	pme_map_close(map);
	return 0;
}

static int
dump(int argc, char *argv[])
{
	struct pme_image *img;
	const char *sect = argc > 3 ? argv[3] : NULL;
	int rc;

	if (strcmp(argv[1], "map") == 0)
		return dump_map(argv[2], sect);
	img = open_or_die(argv[2], sect);
	if (strcmp(argv[1], "modules") == 0)
		rc = dump_modules(img);
	else if (strcmp(argv[1], "routines") == 0)
		rc = dump_routines(img);
	else if (strcmp(argv[1], "lines") == 0)
		rc = dump_lines(img);
	else if (strcmp(argv[1], "info") == 0)
		rc = dump_info(img);
	else if (strcmp(argv[1], "open") == 0)
		rc = 0;
	else {
		fprintf(stderr, "t_symbols: unknown mode '%s'\n", argv[1]);
		rc = 2;
	}
	pme_image_close(img);
	return rc;
}

/* ------------------------------------------------------------ fixtures */

static const char *tmpdir, *top;

static int
run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if ((rc = system(cmd)) != 0)
		fprintf(stderr, "t_symbols: '%s' failed (%d)\n", cmd, rc);
	return rc;
}

/* Builds the multi fixture as $TMPDIR/name with the given flags. */
static char *
build_multi(const char *name, const char *flags)
{
	static char out[4][1024];
	static int k;
	char *p = out[k++ % 4];
	const char *d = "tests/fixtures/multi";

	snprintf(p, sizeof(out[0]), "%s/%s", tmpdir, name);
	if (run("cd '%s' && gcc %s -o '%s' %s/main.c %s/util.c %s/hot.c "
	    "%s/data.c", top, flags, p, d, d, d, d) != 0)
		return NULL;
	return p;
}

/* ------------------------------------------------------------ checks */

static const struct pme_symroutine *
find_routine(struct pme_image *img, const char *name)
{
	const struct pme_symroutine *r;
	size_t i, n = pme_image_routines(img, &r);

	for (i = 0; i < n; i++)
		if (strcmp(r[i].name, name) == 0)
			return &r[i];
	return NULL;
}

static uint32_t
find_module(struct pme_image *img, const char *name)
{
	const struct pme_symmod *m;
	size_t i, n = pme_image_modules(img, &m);

	for (i = 0; i < n; i++)
		if (strcmp(m[i].name, name) == 0)
			return (uint32_t)i;
	return PME_NONE;
}

/* Ranges sorted, non-empty, inside the section; merged when strict. */
static void
check_ranges(struct pme_image *img, const struct pme_range *r, uint32_t n,
    int strict, const char *what)
{
	struct pme_range sec = pme_image_section(img);
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (r[i].start >= r[i].end || r[i].start < sec.start ||
		    r[i].end > sec.end)
			fail("%s: range %u bad", what, i);
		if (strict && i > 0 && r[i].start <= r[i - 1].end)
			fail("%s: ranges %u not sorted and merged", what, i);
	}
}

/* What every image must satisfy, whatever its kind. */
static void
check_invariants(struct pme_image *img)
{
	const struct pme_symmod *m;
	const struct pme_symroutine *r;
	size_t nm = pme_image_modules(img, &m), nr = pme_image_routines(img, &r);
	size_t i, j, next = 0;

	for (i = 0; i < nm; i++) {
		check_ranges(img, m[i].ranges, m[i].nranges, 1, m[i].name);
		if (m[i].first_routine != next)
			fail("module %s: routines not contiguous", m[i].name);
		next = m[i].first_routine + m[i].nroutines;
		for (j = m[i].first_routine; j < next && j < nr; j++) {
			if (r[j].module != i)
				fail("routine %s: wrong module", r[j].name);
			if (j > m[i].first_routine && r[j].entry <
			    r[j - 1].entry)
				fail("module %s: routines not sorted",
				    m[i].name);
			check_ranges(img, r[j].ranges, r[j].nranges, 0,
			    r[j].name);
			if (r[j].nranges == 0)
				fail("routine %s: no ranges", r[j].name);
		}
	}
	if (next != nr)
		fail("routines not all in modules (%zu of %zu)", next, nr);
}

/* Lines of module mi: sorted, disjoint, routines right, files interned. */
static void
check_lines(struct pme_image *img, uint32_t mi)
{
	const struct pme_symmod *m;
	const struct pme_symroutine *r;
	const struct pme_symline *l;
	size_t i, nl = pme_image_lines(img, &l);
	uint32_t k;

	pme_image_modules(img, &m);
	pme_image_routines(img, &r);
	if (!m[mi].lines_loaded || m[mi].first_line + (size_t)m[mi].nlines > nl) {
		fail("module %s: lines not loaded", m[mi].name);
		return;
	}
	for (i = m[mi].first_line; i < m[mi].first_line + m[mi].nlines; i++) {
		if (l[i].start >= l[i].end)
			fail("%s: empty line entry", m[mi].name);
		if (i > m[mi].first_line && l[i].start < l[i - 1].end)
			fail("%s: line entries overlap", m[mi].name);
		if (l[i].routine == PME_NONE)
			continue;
		for (k = 0; k < r[l[i].routine].nranges; k++)
			if (r[l[i].routine].ranges[k].start <= l[i].start &&
			    l[i].start < r[l[i].routine].ranges[k].end)
				break;
		if (k == r[l[i].routine].nranges)
			fail("%s: line %u at %llx not in routine %s",
			    m[mi].name, l[i].line,
			    (unsigned long long)l[i].start,
			    r[l[i].routine].name);
		if (l[i].file_is_primary != (strcmp(l[i].file, m[mi].name) == 0))
			fail("%s: file_is_primary wrong for %s", m[mi].name,
			    l[i].file);
	}
}

static void
check_interned(struct pme_image *img)
{
	const struct pme_symline *l;
	size_t i, j, n = pme_image_lines(img, &l);

	for (i = 0; i < n && i < 200; i++)
		for (j = i + 1; j < n && j < 200; j++)
			if (l[i].file != l[j].file &&
			    strcmp(l[i].file, l[j].file) == 0)
				fail("file '%s' not interned", l[i].file);
}

/* -O2: hot_loop has a .cold part; data.c has no code; lines lazily. */
static void
test_dwarf_o2(const char *flags)
{
	struct pme_error err;
	struct pme_image *img;
	const struct pme_symmod *m;
	const struct pme_symroutine *r;
	const struct pme_symline *l;
	const char *bin;
	uint32_t hot, data, i;
	size_t n, n2;
	int hdr = 0;

	if ((bin = build_multi("o2", flags)) == NULL) {
		fail("cannot build fixture with %s", flags);
		return;
	}
	img = open_or_die(bin, NULL);
	CHECK(pme_image_flags(img) & PME_IMAGE_DWARF);
	CHECK(pme_image_note(img) == NULL);
	check_invariants(img);
	pme_image_modules(img, &m);
	hot = find_module(img, "tests/fixtures/multi/hot.c");
	data = find_module(img, "tests/fixtures/multi/data.c");
	CHECK(hot != PME_NONE && data != PME_NONE);
	CHECK(find_module(img, "tests/fixtures/multi/main.c") != PME_NONE);
	if (hot == PME_NONE || data == PME_NONE)
		goto out;
	CHECK(m[data].nranges == 0 && m[data].nroutines == 0);
	CHECK(m[hot].nranges == 2);
	r = find_routine(img, "hot_loop");
	CHECK(r != NULL && r->nranges == 2 && r->module == hot);
	CHECK(r != NULL && r->line == 18 && r->file != NULL &&
	    strcmp(r->file, "tests/fixtures/multi/hot.c") == 0);
	CHECK(find_routine(img, "complain") != NULL);
	CHECK(find_routine(img, "main") != NULL);
	CHECK(!m[hot].lines_loaded);
	CHECK(pme_image_load_lines(img, hot, &err) == 0);
	CHECK(m[hot].lines_loaded && m[hot].nlines > 0);
	CHECK(!m[0].lines_loaded || hot == 0);
	check_lines(img, hot);
	n = pme_image_lines(img, &l);
	for (i = m[hot].first_line; i < m[hot].first_line + m[hot].nlines; i++)
		if (strcmp(l[i].file, "tests/fixtures/multi/multi.h") == 0)
			hdr = 1;
	CHECK(hdr);
	CHECK(pme_image_load_lines(img, PME_NONE, &err) == 0);
	CHECK(pme_image_load_lines(img, PME_NONE, &err) == 0);
	n2 = pme_image_lines(img, &l);
	CHECK(n2 > n);
	for (i = 0; i < pme_image_modules(img, &m); i++)
		check_lines(img, i);
	check_interned(img);
	CHECK(pme_image_load_lines(img, 999, &err) == -1 &&
	    err.code == PME_EINVAL);
out:
	pme_image_close(img);
}

/* -O0: static functions of util.c are routines with their own ranges. */
static void
test_dwarf_o0(const char *flags, const char *want_flag_name,
    unsigned want_flag)
{
	struct pme_image *img;
	const struct pme_symroutine *r;
	const char *bin;

	if ((bin = build_multi("o0", flags)) == NULL) {
		fail("cannot build fixture with %s", flags);
		return;
	}
	img = open_or_die(bin, NULL);
	check_invariants(img);
	if ((pme_image_flags(img) & want_flag) != want_flag)
		fail("%s: flag %s missing", flags, want_flag_name);
	CHECK((r = find_routine(img, "square")) != NULL && r->nranges == 1);
	CHECK((r = find_routine(img, "twist")) != NULL);
	CHECK((r = find_routine(img, "parse")) != NULL);
	CHECK(pme_image_load_lines(img, PME_NONE, NULL) == 0);
	check_interned(img);
	pme_image_close(img);
}

static void
test_nodwarf(void)
{
	struct pme_image *img;
	const struct pme_symmod *m;
	const struct pme_symroutine *r;
	const char *bin;
	uint32_t hot, self;

	if ((bin = build_multi("nodw", "-O2")) == NULL) {
		fail("cannot build fixture without -g");
		return;
	}
	img = open_or_die(bin, NULL);
	check_invariants(img);
	pme_image_modules(img, &m);
	CHECK(!(pme_image_flags(img) & PME_IMAGE_DWARF));
	CHECK(pme_image_flags(img) & PME_IMAGE_SYMTAB);
	CHECK(pme_image_note(img) != NULL);
	hot = find_module(img, "hot.c");
	self = find_module(img, "nodw");
	CHECK(hot != PME_NONE && self != PME_NONE);
	CHECK((r = find_routine(img, "complain")) != NULL && r->module == hot);
	CHECK((r = find_routine(img, "hot_loop")) != NULL &&
	    r->module == self && r->nranges == 2);
	CHECK(find_routine(img, "hot_loop.cold") == NULL);
	CHECK(pme_image_load_lines(img, PME_NONE, NULL) == 0);
	CHECK(pme_image_lines(img, (const struct pme_symline **)&r) == 0);
	pme_image_close(img);
}

static void
test_errors(void)
{
	struct pme_error err;
	char path[1024];
	FILE *fp;

	memset(&err, 0, sizeof(err));
	CHECK(pme_image_open("/nonexistent/x", NULL, &err) == NULL);
	CHECK(err.code == PME_EIO && strstr(err.msg, "/nonexistent/x"));
	CHECK(pme_image_open("/nonexistent/x", NULL, NULL) == NULL);
	snprintf(path, sizeof(path), "%s/notelf", tmpdir);
	if ((fp = fopen(path, "w")) != NULL) {
		fputs("this is not an ELF file\n", fp);
		fclose(fp);
	}
	CHECK(pme_image_open(path, NULL, &err) == NULL);
	CHECK(err.code == PME_EFORMAT && strstr(err.msg, "notelf"));
	CHECK(pme_map_open(path, NULL, &err) == NULL);
	CHECK(err.code == PME_EFORMAT && strstr(err.msg, "notelf"));
	CHECK(pme_map_open("/nonexistent/m", NULL, &err) == NULL);
	CHECK(err.code == PME_EIO);
	snprintf(path, sizeof(path), "%s/o2", tmpdir);
	CHECK(pme_image_open(path, ".nosuch", &err) == NULL);
	CHECK(err.code != PME_OK && strstr(err.msg, ".nosuch"));
	pme_image_close(NULL);
	pme_map_close(NULL);
}

/*
 * Truncated copies at many lengths: a clean error that names the file, and
 * says "truncated" once the ELF header is whole (the section headers are
 * at the end of the file, so every shorter copy lacks them).
 */
static void
test_truncated(void)
{
	struct pme_image *img;
	struct pme_error err;
	char src[1024], dst[1024];
	struct stat st;
	off_t len;
	int step;

	snprintf(src, sizeof(src), "%s/o2", tmpdir);
	snprintf(dst, sizeof(dst), "%s/trunc", tmpdir);
	if (stat(src, &st) == -1) {
		fail("no %s", src);
		return;
	}
	step = (int)(st.st_size / 97) | 1;
	for (len = 0; len < st.st_size; len += step) {
		if (run("cp '%s' '%s' && truncate -s %lld '%s'", src, dst,
		    (long long)len, dst) != 0)
			return;
		memset(&err, 0, sizeof(err));
		img = pme_image_open(dst, NULL, &err);
		if (img != NULL) {
			fail("truncated at %lld: opened", (long long)len);
			pme_image_close(img);
			continue;
		}
		if (strstr(err.msg, "trunc") == NULL || (len >= 64 &&
		    (err.code != PME_ETRUNC || !strstr(err.msg, "truncated"))))
			fail("truncated at %lld: bad error '%s'",
			    (long long)len, err.msg);
	}
}

static unsigned char *
slurp(const char *path, size_t *len)
{
	unsigned char *buf;
	struct stat st;
	FILE *fp;

	if ((fp = fopen(path, "rb")) == NULL || fstat(fileno(fp), &st) == -1 ||
	    (buf = malloc(st.st_size + 1)) == NULL) {
		if (fp != NULL)
			fclose(fp);
		return NULL;
	}
	*len = fread(buf, 1, st.st_size, fp);
	fclose(fp);
	return buf;
}

/*
 * Corrupt copies: bytes flipped at pseudo-random places, more often in
 * the second half of the file where the debug sections are.  Each must
 * give a clean error naming the file or a consistent image; ASan and
 * valgrind runs of this test catch invalid reads.
 */
static void
test_corrupt(void)
{
	struct pme_image *img;
	struct pme_error err;
	unsigned char *orig, *buf;
	char src[1024], dst[1024];
	size_t len, off;
	uint32_t seed = 12345;
	int i, k;
	FILE *fp;

	snprintf(src, sizeof(src), "%s/o2", tmpdir);
	snprintf(dst, sizeof(dst), "%s/corrupt", tmpdir);
	if ((orig = slurp(src, &len)) == NULL || len < 1024 ||
	    (buf = malloc(len)) == NULL) {
		fail("cannot read %s", src);
		free(orig);
		return;
	}
	for (i = 0; i < 300; i++) {
		memcpy(buf, orig, len);
		for (k = 0; k < 4; k++) {
			seed = seed * 1103515245 + 12345;
			off = (seed >> 4) % len;
			if (i % 4 != 0)
				off = len / 2 + off % (len - len / 2);
			buf[off] ^= (unsigned char)(seed >> 24) | 1;
		}
		if ((fp = fopen(dst, "wb")) == NULL ||
		    fwrite(buf, 1, len, fp) != len || fclose(fp) != 0) {
			fail("cannot write %s", dst);
			break;
		}
		memset(&err, 0, sizeof(err));
		if ((img = pme_image_open(dst, NULL, &err)) == NULL) {
			if (strstr(err.msg, "corrupt") == NULL)
				fail("corrupt %d: bad error '%s'", i, err.msg);
			continue;
		}
		check_invariants(img);
		if (pme_image_load_lines(img, PME_NONE, &err) == -1 &&
		    strstr(err.msg, "corrupt") == NULL)
			fail("corrupt %d: bad line error '%s'", i, err.msg);
		pme_image_close(img);
	}
	free(buf);
	free(orig);
}

/* Open file descriptors of this process. */
static int
count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (d == NULL)
		return -1;
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

/*
 * The probe's input, on which libdwarf frees memory twice: an error naming
 * the file and .debug_rnglists, nothing printed (stderr is a file here),
 * no descriptor or child left behind, many times over; with SIGCHLD
 * ignored (no exit status to read) too, and a good image still opens then.
 */
static void
test_contained(void)
{
	struct pme_image *img;
	struct pme_error err;
	char bad[1024], said[1024];
	const char *good;
	size_t len;
	uint8_t *text;
	int fds, saved, i;
	FILE *fp;

	snprintf(bad, sizeof(bad), "%s/tests/fixtures/corrupt/"
	    "rnglists_doublefree", top);
	snprintf(said, sizeof(said), "%s/stderr", tmpdir);
	fflush(stderr);
	saved = dup(2);
	/* freopen() closes 2 first: the file gets 2, which dup2() puts
	 * back afterwards under the same FILE. */
	if ((fp = freopen(said, "w", stderr)) == NULL || fileno(fp) != 2) {
		fail("cannot redirect stderr");
		return;
	}
	fds = count_fds();
	for (i = 0; i < 20; i++) {
		memset(&err, 0, sizeof(err));
		if ((img = pme_image_open(bad, NULL, &err)) != NULL) {
			pme_image_close(img);
			break;
		}
		if (err.code != PME_EFORMAT || strstr(err.msg, bad) == NULL ||
		    strstr(err.msg, "corrupt DWARF (.debug_rnglists): the DWARF "
		    "reader ") == NULL)
			break;
	}
	CHECK(count_fds() == fds);
	CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
	good = build_multi("contained", "-g -O2");
	signal(SIGCHLD, SIG_IGN);
	memset(&err, 0, sizeof(err));
	CHECK(pme_image_open(bad, NULL, &err) == NULL &&
	    strstr(err.msg, "corrupt DWARF (.debug_rnglists)") != NULL);
	img = good != NULL ? pme_image_open(good, NULL, &err) : NULL;
	CHECK(img != NULL && find_routine(img, "hot_loop") != NULL);
	pme_image_close(img);
	signal(SIGCHLD, SIG_DFL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	if (i < 20)
		fail("rnglists_doublefree, run %d: not refused as corrupt "
		    ".debug_rnglists: '%s'", i, err.msg);
	text = readfile(said, &len);
	if (len > 0)
		fail("the library printed: %s", (char *)text);
	free(text);
}

/*
 * Code with several names: one routine, named by perf's rule, the other
 * names its aliases, with DWARF and without.
 */
static void
test_aliases(void)
{
	static const char *want[][2] = { { "__mysqrt", "mysqrt" },
	    { "helper_api", "helper" }, { "spin", "__spin" },
	    { "sum_all", "sum" } };
	static const char *flags[] = { "-g -O2", "-O2" };
	const struct pme_symroutine *r;
	struct pme_image *img;
	char bin[1024];
	size_t f, i;

	for (f = 0; f < 2; f++) {
		snprintf(bin, sizeof(bin), "%s/alias%zu", tmpdir, f);
		if (run("cd '%s' && gcc %s -o '%s' tests/fixtures/alias/"
		    "alias.c", top, flags[f], bin) != 0) {
			fail("cannot build the alias fixture");
			return;
		}
		img = open_or_die(bin, NULL);
		check_invariants(img);
		for (i = 0; i < 4; i++) {
			r = find_routine(img, want[i][0]);
			if (r == NULL || r->naliases != 1 ||
			    strcmp(r->aliases[0], want[i][1]) != 0)
				fail("%s: routine %s: %s", flags[f], want[i][0],
				    r == NULL ? "missing" : r->naliases != 1 ?
				    "not one alias" : r->aliases[0]);
			CHECK(find_routine(img, want[i][1]) == NULL);
		}
		CHECK((r = find_routine(img, "main")) != NULL &&
		    r->naliases == 0 && r->aliases == NULL);
		pme_image_close(img);
	}
}

/* The value readelf -sW gives symbol name of bin's (first) table, or 0. */
static unsigned long long
readelf_value(const char *bin, const char *name)
{
	char out[1100];
	unsigned long long v = 0;
	FILE *fp;

	snprintf(out, sizeof(out), "%s/readelf.txt", tmpdir);
	if (run("readelf -sW '%s' | awk '$8 == \"%s\" { print $2; exit }' "
	    ">'%s'", bin, name, out) != 0 || (fp = fopen(out, "r")) == NULL)
		return 0;
	if (fscanf(fp, "%llx", &v) != 1)
		v = 0;
	fclose(fp);
	return v;
}

/* Routine name of img starts at entry and has alias (NULL: any). */
static void
check_named(struct pme_image *img, const char *what, const char *name,
    unsigned long long entry, const char *alias)
{
	const struct pme_symroutine *r = find_routine(img, name);
	uint32_t i;

	if (r == NULL || entry == 0 || r->entry != entry) {
		fail("%s: no routine %s at %llx (readelf's)", what, name, entry);
		return;
	}
	for (i = 0; alias != NULL && i < r->naliases; i++)
		if (strcmp(r->aliases[i], alias) == 0)
			return;
	if (alias != NULL)
		fail("%s: routine %s has no alias %s", what, name, alias);
}

/*
 * GNU symbol versions, as glibc has them (libc6-dbg's .symtab names
 * "__libc_start_main@@GLIBC_2.34"): the default version is named
 * without it, as .dynsym spells it; an old version's name comes after
 * any other at its address, and in a stripped library it is "f@V1" as
 * the .symtab would have it.  Addresses are readelf's.
 */
static void
test_versions(void)
{
	const struct pme_symroutine *r;
	struct pme_image *img;
	char so[1024], stripped[1024];
	unsigned long long v1, v2;
	size_t i, n;

	snprintf(so, sizeof(so), "%s/libv.so", tmpdir);
	snprintf(stripped, sizeof(stripped), "%s/libv-stripped.so", tmpdir);
	if (run("cd '%s' && gcc -O2 -shared -fPIC -Wl,--version-script="
	    "tests/fixtures/alias/versioned.map -o '%s' tests/fixtures/alias/"
	    "versioned.c && strip -o '%s' '%s'", top, so, stripped, so) != 0) {
		fail("cannot build the versioned fixture");
		return;
	}
	/* The .symtab spells the versions in the names (the fixture is
	 * what it should be); readelf's first table is .dynsym. */
	if (run("readelf -sW '%s' | awk '$8 == \"vfoo@@V2\" && $5 == "
	    "\"GLOBAL\"' | wc -l | grep -qx 2", so) != 0)
		fail("the fixture's tables do not both name vfoo@@V2");
	v1 = readelf_value(so, "vfoo_v1");
	v2 = readelf_value(so, "vfoo_v2");
	CHECK(v1 != 0 && v1 == readelf_value(so, "vfoo@V1"));
	CHECK(v2 != 0 && v2 == readelf_value(so, "vfoo@@V2"));
	img = open_or_die(so, NULL);
	check_invariants(img);
	check_named(img, ".symtab", "vfoo", v2, "vfoo_v2");
	check_named(img, ".symtab", "vfoo_v1", v1, "vfoo@V1");
	n = pme_image_routines(img, &r);
	for (i = 0; i < n; i++)
		if (strstr(r[i].name, "@@") != NULL)
			fail(".symtab: a routine named %s", r[i].name);
	pme_image_close(img);
	img = open_or_die(stripped, NULL);
	CHECK(pme_image_flags(img) & PME_IMAGE_DYNSYM);
	check_named(img, ".dynsym", "vfoo", v2, NULL);
	check_named(img, ".dynsym", "vfoo@V1", v1, NULL);
	pme_image_close(img);
}

static int
selftest(void)
{
	if ((top = getenv("PME_TOP")) == NULL)
		top = ".";
	tmpdir = testdir();
	if (system("gcc --version >/dev/null 2>&1") != 0) {
		printf("skipped: gcc is not available to build fixtures\n");
		return 77;
	}
	test_dwarf_o2("-g -O2");
	test_dwarf_o2("-g -gdwarf-4 -O2 -no-pie");
	test_dwarf_o0("-g -O0", "dwarf", PME_IMAGE_DWARF | PME_IMAGE_PIE);
	test_dwarf_o0("-g -gdwarf-5 -O0 -no-pie", "dwarf5+exec",
	    PME_IMAGE_DWARF5 | PME_IMAGE_EXEC);
	test_nodwarf();
	test_errors();
	test_truncated();
	test_corrupt();
	test_contained();
	test_aliases();
	test_versions();
	if (failures > 0)
		fprintf(stderr, "t_symbols: %d failures\n", failures);
	testdir_done();
	return failures > 0;
}

int
main(int argc, char *argv[])
{
	if (argc >= 3)
		return dump(argc, argv);
	if (argc == 2) {
		fprintf(stderr, "usage: t_symbols [mode file [section]]\n");
		return 2;
	}
	return selftest();
}
