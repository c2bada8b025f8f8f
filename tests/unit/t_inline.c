/*
 * t_inline.c - the inlined subroutines of an image (lib/image.h,
 * pme_image_inline_chain()) against addr2line -i: for every address of
 * every routine, the chain of inlined functions (innermost first), each
 * with the file and line it was inlined at, must be what addr2line -i -f
 * prints for the address, exactly.  With no argument: the fixture
 * tests/fixtures/inline/inl.c built -O2 -g, as DWARF 5 and DWARF 4, whose
 * inner(), middle() and outer() must be found three deep.  With an
 * argument: that image, every STEP-th address (default 1), and the
 * figures on standard output (a real program: SQLite, xz).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pme.h"
#include "image.h"
#define TEST_NAME "t_inline"
#include "check.h"

#define MAXCHAIN	64
#define MAXLINE		8192

struct figures {
	uint64_t	 addrs, inlined, deepest, differ;
};

/* "file:line (discriminator N)" into its base name and line. */
static void
file_line(char *s, const char **base, unsigned long *line)
{
	char *colon, *slash;

	s[strcspn(s, " \n")] = '\0';
	*line = 0;
	if ((colon = strrchr(s, ':')) != NULL) {
		*colon = '\0';
		*line = strtoul(colon + 1, NULL, 10);
	}
	slash = strrchr(s, '/');
	*base = slash != NULL ? slash + 1 : s;
}

static const char *
base_of(const char *s)
{
	const char *slash = s != NULL ? strrchr(s, '/') : NULL;

	return s == NULL ? "??" : slash != NULL ? slash + 1 : s;
}

/* addr2line's frames of one address (names and file:line pairs) against
 * ours; 0 when equal. */
static int
same(const struct pme_syminline *const *c, size_t n, char names[][512],
    char places[][512], size_t k)
{
	const char *b;
	unsigned long line;
	size_t i;

	if (k != n + 1)
		return -1;
	for (i = 0; i < n; i++) {
		if (strcmp(names[i], c[i]->name) != 0)
			return -1;
		/* the caller's place is where c[i] was inlined */
		file_line(places[i + 1], &b, &line);
		if (line != c[i]->call_line || strcmp(b,
		    base_of(c[i]->call_file)) != 0)
			return -1;
	}
	return 0;
}

static void
say(uint64_t addr, const struct pme_syminline *const *c, size_t n,
    char names[][512], size_t k)
{
	size_t i;

	fprintf(stderr, "t_inline: %#llx: ours", (unsigned long long)addr);
	for (i = 0; i < n; i++)
		fprintf(stderr, " %s@%s:%u", c[i]->name,
		    base_of(c[i]->call_file), c[i]->call_line);
	fprintf(stderr, "; addr2line's");
	for (i = 0; i < k; i++)
		fprintf(stderr, " %s", names[i]);
	fputc('\n', stderr);
}

/* Reads addr2line -a -i -f's answers from fp, one address after
 * another, each compared with the image's chain. */
static void
compare(const struct pme_image *img, FILE *fp, struct figures *f)
{
	static char names[MAXCHAIN][512], places[MAXCHAIN][512];
	const struct pme_syminline *c[MAXCHAIN];
	char buf[MAXLINE];
	uint64_t addr = 0;
	size_t k = 0, n;
	int have = 0, eof;

	for (;;) {
		eof = fgets(buf, sizeof(buf), fp) == NULL;
		if (eof || strncmp(buf, "0x", 2) == 0) {
			if (have) {
				n = pme_image_inline_chain(img, addr, c,
				    MAXCHAIN);
				f->addrs++;
				f->inlined += n > 0;
				if (n > f->deepest)
					f->deepest = n;
				if (same(c, n, names, places, k) != 0) {
					if (f->differ++ < 10)
						say(addr, c, n, names, k);
				}
			}
			if (eof)
				return;
			addr = strtoull(buf, NULL, 16);
			have = 1;
			k = 0;
			continue;
		}
		if (k < MAXCHAIN) {
			buf[strcspn(buf, "\n")] = '\0';
			snprintf(names[k], sizeof(names[k]), "%.511s", buf);
			if (fgets(buf, sizeof(buf), fp) == NULL)
				buf[0] = '\0';
			snprintf(places[k], sizeof(places[k]), "%.511s", buf);
			k++;
		}
	}
}

/* Every step-th address of path's routines against addr2line. */
static void
check_image(const char *path, uint64_t step, struct figures *f)
{
	const struct pme_symroutine *r;
	struct pme_error err;
	struct pme_image *img;
	char cmd[8192];
	const char *list = tmppath("addrs"), *out = tmppath("a2l");
	size_t nr, i;
	uint32_t j;
	uint64_t a;
	FILE *fp;

	memset(f, 0, sizeof(*f));
	if ((img = pme_image_open_inlines(path, NULL, &err)) == NULL)
		die_pme(path, &err);
	if ((fp = fopen(list, "w")) == NULL)
		die("%s: cannot write", list);
	nr = pme_image_routines(img, &r);
	for (i = 0; i < nr; i++)
		for (j = 0; j < r[i].nranges; j++)
			for (a = r[i].ranges[j].start; a < r[i].ranges[j].end;
			    a += step)
				fprintf(fp, "%#llx\n", (unsigned long long)a);
	if (fclose(fp) != 0)
		die("%s: cannot write", list);
	snprintf(cmd, sizeof(cmd), "addr2line -a -i -f -e '%s' <'%s' >'%s'",
	    path, list, out);
	if (system(cmd) != 0)
		die("'%s' failed", cmd);
	if ((fp = fopen(out, "r")) == NULL)
		die("%s: cannot read", out);
	compare(img, fp, f);
	fclose(fp);
	pme_image_close(img);
}

static void
selftest(const char *dwarf)
{
	struct figures f;
	char cmd[8192];
	const char *top = getenv("PME_TOP"), *bin = tmppath(dwarf);

	snprintf(cmd, sizeof(cmd), "gcc -O2 -g %s -o '%s' "
	    "'%s/tests/fixtures/inline/inl.c'", strcmp(dwarf, "dwarf5") == 0 ?
	    "-gdwarf-5" : "-gdwarf-4", bin, top != NULL ? top : ".");
	if (system(cmd) != 0)
		die("'%s' failed", cmd);
	check_image(bin, 1, &f);
	CHECK(f.addrs > 100);
	/* inner() in middle() in outer() in work() */
	CHECK(f.deepest == 3);
	CHECK(f.inlined > 20);
	CHECK(f.differ == 0);
}

int
main(int argc, char *argv[])
{
	struct figures f;

	if (argc > 1) {
		check_image(argv[1], argc > 2 ? strtoull(argv[2], NULL, 0) :
		    1, &f);
		printf("%llu addresses, %llu in inlined code, %llu deep at "
		    "most, %llu differ from addr2line -i\n",
		    (unsigned long long)f.addrs,
		    (unsigned long long)f.inlined,
		    (unsigned long long)f.deepest,
		    (unsigned long long)f.differ);
		testdir_done();
		return f.differ != 0 || failures != 0;
	}
	selftest("dwarf5");
	selftest("dwarf4");
	testdir_done();
	return failures != 0;
}
