/*
 * t_kallsyms.c - the kernel's symbols and their cache (lib/kallsyms.h), on
 * a kallsyms file of its own (the kernel's own symbols, one out of order,
 * an alias, a data symbol, a zero address, module and BPF symbols above
 * them): what a read keeps and finds; that the cache written from it
 * answers as the read does for every address of the kernel's own span
 * and sends the others back to kallsyms (-1), a damaged name too (-2);
 * and that a cache of another key, cut short, with a bad count, a link,
 * readable by others, in a directory others can write, or after a module
 * among the kernel's own symbols, is not used or not written.
 * sh/quick_kcache checks the same through pmehisto on the machine's
 * /proc/kallsyms.
 */
#define TEST_NAME "t_kallsyms"
#include "check.h"

#include "kallsyms.h"

static const char good[] =
    "0000000000000000 T zero_address\n"
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 T _text\n"
    "ffffffff81000100 t alpha\n"
    "ffffffff81000200 D some_data\n"
    "ffffffff81000300 T gamma\n"
    "ffffffff81000250 t beta_out_of_order\n"
    "ffffffff81000400 T delta\n"
    "ffffffff81000500 T _etext\n"
    "ffffffffc0001000 t mod_fn\t[ext4]\n"
    "ffffffffc0002000 t bpf_prog_1_x\t[bpf]\n"
    "ffffffffc0003000 T mod_end\t[ext4]\n";

/* The name and end of the symbol that holds pc in k, as "name end" or
 * "none" or "ask". */
static const char *
lookup(const struct pme_ksyms *k, uint64_t pc)
{
	static char buf[300];
	uint64_t end;
	size_t i;

	switch (pme_ksyms_find(k, pc, &i, &end)) {
	case -2:
		return "bad";
	case -1:
		return "ask";
	case 0:
		return "none";
	}
	snprintf(buf, sizeof(buf), "%s %llx", k->str + k->name[i],
	    (unsigned long long)end);
	return buf;
}

static void
expect(const struct pme_ksyms *k, uint64_t pc, const char *want)
{
	const char *got = lookup(k, pc);

	if (strcmp(got, want) != 0)
		fail("%s %#llx: '%s', not '%s'", k->cached ? "cache" : "read",
		    (unsigned long long)pc, got, want);
}

static void
put(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd == -1 || write(fd, p, n) != (ssize_t)n || close(fd) == -1)
		die("cannot write %s: %s", path, strerror(errno));
}

static void
putstr(const char *path, const char *s)
{
	put(path, s, strlen(s));
}

/* Whether the cache in dir loads for key. */
static int
loads(const char *dir, const char *key)
{
	struct pme_ksyms k;
	int rc = pme_ksyms_load(&k, dir, key);

	pme_ksyms_free(&k);
	return rc;
}

int
main(void)
{
	struct pme_ksyms k, c;
	char *dir, *cache, *ks, *bad;
	uint8_t *data;
	size_t len, i;
	uint64_t pc;
	struct stat st;

	testdir();
	ks = strdup(tmppath("kallsyms"));
	dir = strdup(tmppath("cache"));
	cache = strdup(tmppath("cache/kallsyms"));
	put(ks, good, sizeof(good) - 1);
	if (mkdir(dir, 0700) == -1)
		die("mkdir %s: %s", dir, strerror(errno));

	CHECK(pme_ksyms_read(&k, ks) == 1);
	CHECK(k.n == 10);		/* text of the kernel's half */
	CHECK(!k.cached && k.tagged != NULL);
	expect(&k, 0xffffffff81000000, "_stext ffffffff81000100");
	expect(&k, 0xffffffff81000150, "alpha ffffffff81000250");
	expect(&k, 0xffffffff81000260, "beta_out_of_order ffffffff81000300");
	expect(&k, 0xffffffff81000500, "_etext ffffffffc0001000");
	expect(&k, 0xffffffffc0001800, "mod_fn ffffffffc0002000");
	expect(&k, 0xffffffffc0002010, "bpf_prog_1_x ffffffffc0003000");
	expect(&k, 0xffffffffc0003000, "none");	/* no end after it */
	expect(&k, 0xffffffff80000000, "none");
	expect(&k, 0x1000, "none");

	/* The cache: the kernel's own symbols, the same answers in their
	 * span, the rest sent back to kallsyms. */
	pme_ksyms_save(&k, dir, "boot-1 0");
	CHECK(stat(cache, &st) == 0 && (st.st_mode & 0777) == 0600);
	CHECK(pme_ksyms_load(&c, dir, "boot-1 0") == 1);
	CHECK(c.cached && c.n == 7);
	for (pc = 0xffffffff81000000; pc < 0xffffffff81000500; pc += 0x10)
		expect(&c, pc, lookup(&k, pc));
	expect(&c, 0xffffffff81000500, "ask");
	expect(&c, 0xffffffffc0001800, "ask");
	expect(&c, 0xffffffff80000000, "ask");
	expect(&c, 0x1000, "none");
	pme_ksyms_free(&c);
	CHECK(loads(dir, "boot-2 0") == 0);	/* another boot */
	CHECK(loads(dir, "boot-1 1") == 0);	/* kptr_restrict changed */
	CHECK(loads(dir, "boot-1 0") == 1);

	/* Damaged: cut short, a count that overruns, a last byte not NUL. */
	data = readfile(cache, &len);
	bad = strdup(tmppath("bad"));
	put(cache, data, len - 1);
	CHECK(loads(dir, "boot-1 0") == 0);
	data[8 + 64] ^= 0x40;			/* n */
	put(cache, data, len);
	CHECK(loads(dir, "boot-1 0") == 0);
	data[8 + 64] ^= 0x40;
	data[len - 1] = 'x';
	put(cache, data, len);
	CHECK(loads(dir, "boot-1 0") == 0);
	data[len - 1] = '\0';
	put(cache, data, len);
	CHECK(loads(dir, "boot-1 0") == 1);
	/* A name offset out of bounds: not followed, the cache bad. */
	for (i = 0; i < 4; i++)
		data[8 + 64 + 16 + 7 * 8 + 3 * 4 + i] = 0xff;
	put(cache, data, len);
	CHECK(pme_ksyms_load(&c, dir, "boot-1 0") == 1);
	expect(&c, 0xffffffff81000150, "alpha ffffffff81000250");
	expect(&c, 0xffffffff81000260, "bad");
	pme_ksyms_free(&c);

	/* Readable by others; a link to a good one; a directory others may
	 * write in: not used.  Saving replaces the first two, leaves the
	 * link's target alone, and writes nothing in the third. */
	put(cache, data, len);
	CHECK(chmod(cache, 0644) == 0);
	CHECK(loads(dir, "boot-1 0") == 0);
	pme_ksyms_save(&k, dir, "boot-1 0");
	CHECK(loads(dir, "boot-1 0") == 1);
	free(data);
	data = readfile(cache, &len);
	put(bad, data, len);
	CHECK(unlink(cache) == 0 && symlink(bad, cache) == 0);
	CHECK(loads(dir, "boot-1 0") == 0);
	pme_ksyms_save(&k, dir, "boot-1 2");
	CHECK(lstat(cache, &st) == 0 && S_ISREG(st.st_mode));
	CHECK(loads(dir, "boot-1 2") == 1);
	CHECK(loads(bad, "boot-1 0") == 0);	/* not a directory */
	CHECK(chmod(dir, 0770) == 0);
	CHECK(loads(dir, "boot-1 2") == 0);
	CHECK(unlink(cache) == 0);
	pme_ksyms_save(&k, dir, "boot-1 2");
	CHECK(lstat(cache, &st) == -1 && errno == ENOENT);
	CHECK(chmod(dir, 0700) == 0);

	/* A module symbol among the kernel's own: no cache. */
	pme_ksyms_free(&k);
	putstr(ks, "ffffffff81000000 T a\n"
	    "ffffffff81000100 t inside\t[mod]\n"
	    "ffffffff81000200 T b\n"
	    "ffffffff81000300 T c\n");
	CHECK(pme_ksyms_read(&k, ks) == 1);
	pme_ksyms_save(&k, dir, "boot-3 0");
	CHECK(lstat(cache, &st) == -1 && errno == ENOENT);
	pme_ksyms_free(&k);

	/* kptr_restrict: all addresses 0; a file that is not there. */
	putstr(ks, "0000000000000000 T a\n0000000000000000 T b\n");
	CHECK(pme_ksyms_read(&k, ks) == 0 && k.n == 0);
	CHECK(pme_ksyms_read(&k, tmppath("none")) == 0);
	testdir_done();
	free(data);
	free(bad);
	free(ks);
	free(dir);
	free(cache);
	return failures != 0;
}
