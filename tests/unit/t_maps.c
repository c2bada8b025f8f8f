/*
 * t_maps.c - the reader of /proc/PID/maps (lib/maps.h) that pmeclock -p
 * and pmetrace's step engine share: exact fields of lines as the kernel
 * writes them (paths with spaces, " (deleted)", pseudo paths, no path,
 * 64-bit addresses and offsets, a line longer than any buffer), exact
 * messages for lines it does not write, each bad line passed over, and
 * this process's own maps read against the kernel's count of lines and
 * readlink(/proc/self/exe).
 */
#define TEST_NAME "t_maps"
#include "check.h"

#include <limits.h>

#include "maps.h"

/* line parses to these fields. */
static void
is(const char *line, uint64_t start, uint64_t end, const char *perms,
    uint64_t offset, uint32_t major, uint32_t minor, uint64_t inode,
    const char *path, int deleted)
{
	struct pme_maps_line m;
	const char *why = NULL;
	size_t col = 0;
	char *buf = strdup(line);

	if (buf == NULL)
		die("out of memory");
	if (pme_maps_parse(buf, strlen(buf), &m, &col, &why) < 0) {
		fail("'%s': column %zu: %s", line, col, why);
		free(buf);
		return;
	}
	if (m.start != start || m.end != end || strcmp(m.perms, perms) != 0 ||
	    m.offset != offset || m.major != major || m.minor != minor ||
	    m.inode != inode || strcmp(m.path, path) != 0 ||
	    m.deleted != deleted)
		fail("'%s' gave %llx-%llx %s %llx %x:%x %llu '%s' %d", line,
		    (unsigned long long)m.start, (unsigned long long)m.end,
		    m.perms, (unsigned long long)m.offset, m.major, m.minor,
		    (unsigned long long)m.inode, m.path, m.deleted);
	free(buf);
}

/* line is refused at column col because of why. */
static void
bad(const char *line, size_t want_col, const char *want_why)
{
	struct pme_maps_line m;
	const char *why = "";
	size_t col = 0;
	char *buf = malloc(strlen(line) + 1);

	if (buf == NULL)
		die("out of memory");
	memcpy(buf, line, strlen(line) + 1);
	if (pme_maps_parse(buf, strlen(buf), &m, &col, &why) == 0)
		fail("'%s' parsed", line);
	else if (col != want_col || strcmp(why, want_why) != 0)
		fail("'%s': column %zu: %s, not column %zu: %s", line, col,
		    why, want_col, want_why);
	free(buf);
}

static void
test_lines(void)
{
	is("55d4c0a00000-55d4c0a05000 r-xp 00001000 fd:01 1048600"
	    "                    /usr/bin/cat\n", 0x55d4c0a00000,
	    0x55d4c0a05000, "r-xp", 0x1000, 0xfd, 1, 1048600,
	    "/usr/bin/cat", 0);
	/* Spaces inside and at the end of a path are the path's. */
	is("7f0000001000-7f0000002000 r-xp 00000000 08:02 42"
	    "    /tmp/my dir/lib x.so  \n", 0x7f0000001000, 0x7f0000002000,
	    "r-xp", 0, 8, 2, 42, "/tmp/my dir/lib x.so  ", 0);
	is("1000-2000 r-xs 00000000 08:02 42 /tmp/a\r\n", 0x1000, 0x2000,
	    "r-xs", 0, 8, 2, 42, "/tmp/a\r", 0);
	/* " (deleted)": the last one only, and never the whole path. */
	is("1000-2000 r-xp 00002000 08:02 42 /tmp/a.out (deleted)\n",
	    0x1000, 0x2000, "r-xp", 0x2000, 8, 2, 42, "/tmp/a.out", 1);
	is("1000-2000 r-xp 00002000 08:02 42 /a (deleted) (deleted)\n",
	    0x1000, 0x2000, "r-xp", 0x2000, 8, 2, 42, "/a (deleted)", 1);
	is("1000-2000 r-xp 00000000 00:00 0    (deleted)\n", 0x1000, 0x2000,
	    "r-xp", 0, 0, 0, 0, "(deleted)", 0);
	is("1000-2000 r-xp 00000000 00:01 7 /memfd:jit (deleted)\n", 0x1000,
	    0x2000, "r-xp", 0, 0, 1, 7, "/memfd:jit", 1);
	/* Pseudo paths, the top of the address space. */
	is("7ffc1e3f6000-7ffc1e3f8000 r-xp 00000000 00:00 0"
	    "                          [vdso]\n", 0x7ffc1e3f6000,
	    0x7ffc1e3f8000, "r-xp", 0, 0, 0, 0, "[vdso]", 0);
	is("7ffc1e2f0000-7ffc1e311000 rw-p 00000000 00:00 0"
	    "                          [stack]\n", 0x7ffc1e2f0000,
	    0x7ffc1e311000, "rw-p", 0, 0, 0, 0, "[stack]", 0);
	is("ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0"
	    "                  [vsyscall]\n", 0xffffffffff600000,
	    0xffffffffff601000, "--xp", 0, 0, 0, 0, "[vsyscall]", 0);
	is("7f00-8000 rw-p 00000000 00:00 0 [anon:glibc malloc]\n", 0x7f00,
	    0x8000, "rw-p", 0, 0, 0, 0, "[anon:glibc malloc]", 0);
	/* No path: with the kernel's space, without it, without newline. */
	is("7f1234560000-7f1234570000 rw-p 00000000 00:00 0 \n",
	    0x7f1234560000, 0x7f1234570000, "rw-p", 0, 0, 0, 0, "", 0);
	is("7f1234560000-7f1234570000 rw-p 00000000 00:00 0\n",
	    0x7f1234560000, 0x7f1234570000, "rw-p", 0, 0, 0, 0, "", 0);
	is("10-20 ---s 0 0:0 0", 0x10, 0x20, "---s", 0, 0, 0, 0, "", 0);
	/* The largest numbers each field holds. */
	is("0-ffffffffffffffff r-xp ffffffffffffffff ffffffff:ffffffff "
	    "18446744073709551615 /x\n", 0, UINT64_MAX, "r-xp", UINT64_MAX,
	    UINT32_MAX, UINT32_MAX, UINT64_MAX, "/x", 0);
	is("0000000000000000000a-0B r-xp 000000000000000000001 103:a0001 9 /x",
	    0xa, 0xb, "r-xp", 1, 0x103, 0xa0001, 9, "/x", 0);
}

static void
test_bad(void)
{
	bad("", 0, "not a hexadecimal number");
	bad("\n", 0, "not a hexadecimal number");
	bad(" 1000-2000 r-xp 0 00:00 0\n", 0, "not a hexadecimal number");
	bad("0x1000-2000 r-xp 0 00:00 0\n", 1, "no '-' after the start address");
	bad("1000 2000 r-xp 0 00:00 0\n", 4, "no '-' after the start address");
	bad("2000-1000 r-xp 0 00:00 0 /x\n", 5,
	    "end address not above the start");
	bad("1000-1000 r-xp 0 00:00 0 /x\n", 5,
	    "end address not above the start");
	bad("1000-10000000000000000 r-xp 0 00:00 0\n", 5, "number too big");
	bad("1000-2000 r-xp 10000000000000000 00:00 0\n", 15,
	    "number too big");
	bad("1000-2000 r-xp 0 100000000:00 0\n", 17, "number too big");
	bad("1000-2000 r-xp 0 00:00 18446744073709551616 /x\n", 23,
	    "number too big");
	bad("1000-2000 r-x 0 00:00 0\n", 13, "bad permissions");
	bad("1000-2000 rwxq 0 00:00 0\n", 13, "bad permissions");
	bad("1000-2000 xr-p 0 00:00 0\n", 10, "bad permissions");
	bad("1000-2000 r-xp\n", 14, "line ends early");
	bad("1000-2000 r-xp 0 00-00 0\n", 19, "no ':' in the device");
	bad("1000-2000 r-xp 0 00:00\n", 22, "line ends early");
	bad("1000-2000 r-xp 0 00:00 -1\n", 23, "not a decimal number");
	bad("1000-2000 r-xp 0 00:00 12x /x\n", 25, "not a space");
	bad("1000-2000\tr-xp 0 00:00 0\n", 9, "not a space");
	bad("1000-2000 r-xp 0 00:00 0 /a\nb\n", 27,
	    "a newline inside the line");
}

/* Lines read from a stream: each bad one passed over with its message,
 * the last without a newline, a NUL byte in one. */
static void
test_reader(void)
{
	static const char text[] =
	    "1000-2000 r-xp 00000000 08:02 42 /bin/a\n"
	    "junk\n"
	    "3000-4000 r--p 00001000 08:02 42 /bin/a\n"
	    "5000-6000 r-xp 00000000 08:02 43 /bin/b\0c\n"
	    "7000-8000 r-xp 00000000 08:02 44 /bin/c";
	struct pme_maps_line m;
	struct pme_error err;
	struct pme_maps r;
	FILE *fp = fmemopen((void *)text, sizeof(text) - 1, "r");

	if (fp == NULL)
		die("fmemopen: %s", strerror(errno));
	pme_maps_init(&r, fp, "maps");
	CHECK(pme_maps_next(&r, &m, &err) == 1 && m.start == 0x1000 &&
	    strcmp(m.path, "/bin/a") == 0);
	CHECK(pme_maps_next(&r, &m, &err) == -1 &&
	    err.code == PME_EFORMAT && err.offset == 40 &&
	    strcmp(err.msg, "'maps': offset 0x28: line 2: not a "
	    "hexadecimal number") == 0);
	CHECK(pme_maps_next(&r, &m, &err) == 1 && m.start == 0x3000 &&
	    strcmp(m.perms, "r--p") == 0 && m.offset == 0x1000);
	CHECK(pme_maps_next(&r, &m, &err) == -1 &&
	    err.code == PME_EFORMAT && strcmp(err.msg, "'maps': offset "
	    "0x7c: line 4: a NUL byte") == 0);
	CHECK(pme_maps_next(&r, &m, &err) == 1 && m.start == 0x7000 &&
	    m.inode == 44 && strcmp(m.path, "/bin/c") == 0);
	CHECK(pme_maps_next(&r, &m, &err) == 0);
	CHECK(pme_maps_next(&r, &m, &err) == 0);
	pme_maps_end(&r);
	fclose(fp);
}

/* A path of 200000 bytes, longer than PATH_MAX and any stdio buffer. */
static void
test_long(void)
{
	const char *head = "1000-2000 r-xp 00000000 08:02 42 ";
	size_t n = 200000, hl = strlen(head);
	struct pme_maps_line m;
	struct pme_error err;
	struct pme_maps r;
	char *text = malloc(hl + n + 64), *want = malloc(n + 1);
	FILE *fp;

	if (text == NULL || want == NULL)
		die("out of memory");
	want[0] = '/';
	memset(want + 1, 'p', n - 1);
	want[n] = '\0';
	snprintf(text, hl + n + 64, "%s%s\n2000-3000 r-xp 0 0:0 1 /z\n",
	    head, want);
	if ((fp = fmemopen(text, strlen(text), "r")) == NULL)
		die("fmemopen: %s", strerror(errno));
	pme_maps_init(&r, fp, "maps");
	CHECK(pme_maps_next(&r, &m, &err) == 1 && strlen(m.path) == n &&
	    strcmp(m.path, want) == 0 && n > PATH_MAX);
	CHECK(pme_maps_next(&r, &m, &err) == 1 && m.start == 0x2000 &&
	    strcmp(m.path, "/z") == 0);
	CHECK(pme_maps_next(&r, &m, &err) == 0);
	pme_maps_end(&r);
	fclose(fp);
	free(text);
	free(want);
}

/* This process's maps as the kernel writes them: every line read, one
 * executable mapping at least of the executable readlink names. */
static void
test_self(void)
{
	struct pme_maps_line m;
	struct pme_error err;
	struct pme_maps r;
	char exe[PATH_MAX], *line = NULL;
	size_t cap = 0, lines = 0, got = 0, code = 0;
	ssize_t n;
	int rc;
	FILE *fp;

	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) < 0)
		die("readlink: %s", strerror(errno));
	exe[n] = '\0';
	if ((fp = fopen("/proc/self/maps", "r")) == NULL)
		die("/proc/self/maps: %s", strerror(errno));
	while (getline(&line, &cap, fp) > 0)
		lines++;
	free(line);
	rewind(fp);
	pme_maps_init(&r, fp, "/proc/self/maps");
	while ((rc = pme_maps_next(&r, &m, &err)) != 0) {
		if (rc < 0) {
			fail("%s", err.msg);
			continue;
		}
		got++;
		if (strcmp(m.path, exe) == 0 && m.perms[2] == 'x' &&
		    m.major + m.minor > 0 && m.inode != 0)
			code++;
	}
	pme_maps_end(&r);
	fclose(fp);
	/* The maps may have grown between the two readings. */
	CHECK(lines > 5 && got >= lines);
	if (code == 0)
		fail("%zu executable mappings of '%s'", code, exe);
}

int
main(void)
{
	test_lines();
	test_bad();
	test_reader();
	test_long();
	test_self();
	return failures != 0;
}
