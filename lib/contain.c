/*
 * contain.c - the containment of libdwarf: the DWARF is read in a child
 * process that hands its modules and routines back through a pipe, so
 * that a fault of libdwarf's on corrupt input is an error naming the
 * section and unit, never the caller's crash.  One room of the ELF/DWARF
 * reader, whose rooms share lib/symint.h (lib/symbols.c says which does
 * what).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "symint.h"

/*
 * Debian's libdwarf 20210528 has many memory faults on corrupt input
 * (fuzzers found hundreds; a double free on a bad .debug_rnglists header
 * is one): checking what it will trust could only catch the faults known
 * today.  So every call into libdwarf, the walk over the DIEs, is made in
 * a child process, which hands the modules and routines it found back
 * through a pipe.  A child that dies, or ends without its results, is
 * corrupt DWARF, reported with the section and unit it was reading (in a
 * shared page); the caller's process is never hurt.  The line tables are
 * decoded by our own bounded reader, in the caller's process.
 *
 * The results are records of little-endian fields (pme_buf); strings are
 * a u32 length, then the bytes and a NUL:
 *	'M' name, compdir ("" for none), has_stmt u8, stmt u64,
 *	    nranges u32, ranges (start u64, end u64)..., nroutines u32
 *	'R' name, entry u64, file ("" for none), line u32, nranges u32,
 *	    ranges..., naliases u32, aliases...		(nroutines of them)
 *	'I' depth u32, start u64, end u64, name, call_file ("" for none),
 *	    call_line u32: a range of an inlined instance (only for
 *	    pme_image_open_inlines())
 *	'E' flags u32: the end
 *	'X' code u32, message: an error, the end
 */

static void
put_str(struct pme_buf *b, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	pme_buf_u32(b, (uint32_t)n + 1);
	pme_buf_bytes(b, n > 0 ? s : "", n + 1);
}

static void
put_ranges(struct pme_buf *b, const struct pme_range *r, uint32_t n)
{
	uint32_t i;

	pme_buf_u32(b, n);
	for (i = 0; i < n; i++) {
		pme_buf_u64(b, r[i].start);
		pme_buf_u64(b, r[i].end);
	}
}

static void
put_routine(struct pme_buf *b, const struct pme_symroutine *r)
{
	uint32_t i;

	pme_buf_u8(b, 'R');
	put_str(b, r->name);
	pme_buf_u64(b, r->entry);
	put_str(b, r->file);
	pme_buf_u32(b, r->line);
	put_ranges(b, r->ranges, r->nranges);
	pme_buf_u32(b, r->naliases);
	for (i = 0; i < r->naliases; i++)
		put_str(b, r->aliases[i]);
}

static void
put_inline(struct pme_buf *b, const struct pme_syminline *in)
{
	pme_buf_u8(b, 'I');
	pme_buf_u32(b, in->depth);
	pme_buf_u64(b, in->start);
	pme_buf_u64(b, in->end);
	put_str(b, in->name);
	put_str(b, in->call_file);
	pme_buf_u32(b, in->call_line);
}

/* The child's results, or its error, into b. */
static void
put_results(struct pme_image *img, int rc, const struct pme_error *err,
    struct pme_buf *b)
{
	const struct pme_symmod *m = img->mods.v;
	const struct modinfo *info = img->info.v;
	const struct pme_symroutine *r = img->routines.v;
	size_t i;
	uint32_t j;

	if (rc == -1) {
		pme_buf_u8(b, 'X');
		pme_buf_u32(b, (uint32_t)err->code);
		put_str(b, err->msg);
		return;
	}
	for (i = 0; i < img->mods.n; i++) {
		pme_buf_u8(b, 'M');
		put_str(b, m[i].name);
		put_str(b, info[i].compdir);
		pme_buf_u8(b, (uint8_t)info[i].has_stmt);
		pme_buf_u64(b, info[i].stmt);
		put_ranges(b, m[i].ranges, m[i].nranges);
		pme_buf_u32(b, m[i].nroutines);
		for (j = 0; j < m[i].nroutines; j++)
			put_routine(b, &r[m[i].first_routine + j]);
	}
	for (i = 0; i < img->inlines.n; i++)
		put_inline(b, &PME_VEC_AT(&img->inlines, struct pme_syminline,
		    i));
	pme_buf_u8(b, 'E');
	pme_buf_u32(b, img->flags);
}

/*
 * libdwarf loads .debug_rnglists and .debug_loclists whole when it first
 * reads .debug_info, where a fault in them could not be told from one in
 * .debug_info.  Loading each first through a Dwarf_Debug of its own (a
 * second load through one leaks the first) names the section.
 */
static int
probe_list(struct pme_image *img, enum phase ph)
{
	Dwarf_Debug d;
	Dwarf_Error e = NULL;
	Dwarf_Unsigned n;
	int res;

	if (dwarf_elf_init_b(img->elf, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL,
	    NULL, &d, &e) != DW_DLV_OK)
		return 0;		/* the reader's own init says why */
	set_phase(img, ph);
	if (ph == PH_RNGLISTS)
		res = dwarf_load_rnglists(d, &n, &e);
	else
		res = dwarf_load_loclists(d, &n, &e);
	if (res == DW_DLV_ERROR) {
		pme_seterr(img->err, PME_EFORMAT, "'%s': corrupt DWARF (%s): "
		    "%s", img->path, phase_sect[ph], dwarf_errmsg(e));
		dwarf_dealloc_error(d, e);
	}
	dwarf_finish(d, &e);
	set_phase(img, PH_NONE);
	return res == DW_DLV_ERROR ? -1 : 0;
}

/* The DWARF reader proper, in the child. */
static int
read_dwarf_child(struct pme_image *img)
{
	Dwarf_Error e = NULL;
	int res;

	res = dwarf_elf_init_b(img->elf, DW_DLC_READ, DW_GROUPNUMBER_ANY,
	    NULL, NULL, &img->dbg, &e);
	if (res == DW_DLV_NO_ENTRY) {
		img->dbg = NULL;
		img->flags &= ~PME_IMAGE_DWARF;
		return 0;
	}
	if (res != DW_DLV_OK) {
		img->dbg = NULL;
		return dwerr(img, e, "DWARF");
	}
	if (probe_list(img, PH_RNGLISTS) == -1 ||
	    probe_list(img, PH_LOCLISTS) == -1)
		return -1;
	return read_dwarf(img);
}

static int
write_all(int fd, const uint8_t *p, size_t n)
{
	ssize_t k;

	while (n > 0) {
		if ((k = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/*
 * The child: no core file, no messages (libdwarf's or the C library's
 * on a fault), default actions for the faults whatever the caller set;
 * it ends with _exit(), so that nothing of the caller's (stdio buffers,
 * atexit handlers) runs twice.
 */
static void
child(struct pme_image *img, int fd, struct watch *w)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE,
	    SIGABRT };
	struct rlimit nocore = { 0, 0 };
	struct pme_error err;
	Dwarf_Error e = NULL;
	struct pme_buf b = { 0 };
	size_t i;
	int null, rc;

	setrlimit(RLIMIT_CORE, &nocore);
	for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		signal(faults[i], SIG_DFL);
	if ((null = open("/dev/null", O_RDWR)) != -1) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	memset(&err, 0, sizeof(err));
	img->err = &err;
	img->watch = w;
	rc = read_dwarf_child(img);
	set_phase(img, PH_NONE);
	w->inunit = 0;
	put_results(img, rc, &err, &b);
	rc = b.failed || write_all(fd, b.p, b.n) == -1;
	/* The results are on their way: libdwarf is freed while the caller
	 * reads them, so that memory checkers see no leak here. */
	close(fd);
	if (img->dbg != NULL)
		dwarf_finish(img->dbg, &e);
	_exit(rc);
}

/* Everything the child wrote, until it closes the pipe. */
static int
read_all(struct pme_image *img, int fd, struct pme_buf *b)
{
	uint8_t chunk[65536];
	ssize_t k;

	for (;;) {
		if ((k = read(fd, chunk, sizeof(chunk))) == 0)
			return 0;
		if (k == -1 && errno == EINTR)
			continue;
		if (k == -1)
			return pme_setsys(img->err, img->path,
			    "reading the DWARF reader's results");
		pme_buf_bytes(b, chunk, (size_t)k);
		if (b->failed)
			return sym_nomem(img);
	}
}

/* A cursor over the results; oom when memory ran out reading them. */
struct rescur {
	struct pme_cur	 c;
	int		 oom;
};

/* A string of the results, interned; NULL (and bad) when malformed. */
static const char *
get_str(struct pme_image *img, struct rescur *rc)
{
	uint32_t n = pme_cur_u32(&rc->c);
	const uint8_t *p = pme_cur_bytes(&rc->c, n);
	const char *s;

	if (p == NULL || n == 0 || memchr(p, '\0', n) != p + n - 1) {
		rc->c.bad = 1;
		return NULL;
	}
	if ((s = pme_intern(&img->names, (const char *)p)) == NULL)
		rc->oom = rc->c.bad = 1;
	return s;
}

static void
get_ranges(struct pme_image *img, struct rescur *rc,
    const struct pme_range **out, uint32_t *n)
{
	struct pme_range *r;
	uint32_t i, k = pme_cur_u32(&rc->c);

	img->scratch.n = 0;
	if (!pme_cur_fits(&rc->c, k, 16)) {
		rc->c.bad = 1;
		return;
	}
	for (i = 0; i < k; i++) {
		if ((r = pme_vec_push(&img->scratch)) == NULL) {
			rc->oom = rc->c.bad = 1;
			return;
		}
		r->start = pme_cur_u64(&rc->c);
		r->end = pme_cur_u64(&rc->c);
	}
	if (scratch_take(img, 0, out, n) == -1)
		rc->oom = rc->c.bad = 1;
}

static void
get_routine(struct pme_image *img, struct rescur *rc, uint32_t mod)
{
	struct pme_symroutine *r;
	const char **v = NULL;
	const char *file;
	uint32_t i, n;

	if (pme_cur_u8(&rc->c) != 'R') {
		rc->c.bad = 1;
		return;
	}
	if ((r = pme_vec_push(&img->routines)) == NULL) {
		rc->oom = rc->c.bad = 1;
		return;
	}
	r->module = mod;
	r->name = get_str(img, rc);
	r->entry = pme_cur_u64(&rc->c);
	file = get_str(img, rc);
	r->file = file != NULL && *file != '\0' ? file : NULL;
	r->line = pme_cur_u32(&rc->c);
	get_ranges(img, rc, &r->ranges, &r->nranges);
	n = pme_cur_u32(&rc->c);
	if (rc->c.bad || n > PME_MAXALIASES) {
		rc->c.bad = 1;
		return;
	}
	if (n > 0 && (v = pme_arena_alloc(&img->arena, n * sizeof(*v))) ==
	    NULL) {
		rc->oom = rc->c.bad = 1;
		return;
	}
	for (i = 0; i < n; i++)
		v[i] = get_str(img, rc);
	r->aliases = v;
	r->naliases = n;
}

static void
get_module(struct pme_image *img, struct rescur *rc)
{
	struct modinfo info;
	struct pme_symmod *m;
	const char *name;
	uint32_t i, n, mi = (uint32_t)img->mods.n;

	memset(&info, 0, sizeof(info));
	name = get_str(img, rc);
	info.compdir = get_str(img, rc);
	if (info.compdir != NULL && *info.compdir == '\0')
		info.compdir = NULL;
	info.has_stmt = pme_cur_u8(&rc->c);
	info.stmt = pme_cur_u64(&rc->c);
	if (rc->c.bad)
		return;
	if ((m = add_module(img, name, &info)) == NULL) {
		rc->oom = rc->c.bad = 1;
		return;
	}
	get_ranges(img, rc, &m->ranges, &m->nranges);
	n = pme_cur_u32(&rc->c);
	if (!pme_cur_fits(&rc->c, n, 30)) {
		rc->c.bad = 1;
		return;
	}
	for (i = 0; i < n && !rc->c.bad; i++)
		get_routine(img, rc, mi);
	PME_VEC_AT(&img->mods, struct pme_symmod, mi).nroutines = n;
}

static void
get_inline(struct pme_image *img, struct rescur *rc)
{
	struct pme_syminline *in;
	const char *file;

	if ((in = pme_vec_push(&img->inlines)) == NULL) {
		rc->oom = rc->c.bad = 1;
		return;
	}
	in->depth = pme_cur_u32(&rc->c);
	in->start = pme_cur_u64(&rc->c);
	in->end = pme_cur_u64(&rc->c);
	in->name = get_str(img, rc);
	file = get_str(img, rc);
	in->call_file = file != NULL && *file != '\0' ? file : NULL;
	in->call_line = pme_cur_u32(&rc->c);
	/* depth 0 or ranges upside down: the records are not the child's */
	if (in->depth == 0 || in->depth > 65 || in->start >= in->end)
		rc->c.bad = 1;
}

/* The child's results into img: 1 when they are whole, 0 when not, -1
 * for the child's error or no memory. */
static int
get_results(struct pme_image *img, const struct pme_buf *b)
{
	struct rescur rc = { { b->p, b->n, 0 }, 0 };
	const char *msg;
	uint32_t code;

	while (!rc.c.bad && rc.c.n > 0) {
		switch (pme_cur_u8(&rc.c)) {
		case 'M':
			get_module(img, &rc);
			break;
		case 'I':
			get_inline(img, &rc);
			break;
		case 'E':
			img->flags = pme_cur_u32(&rc.c);
			return rc.c.bad || rc.c.n > 0 ? 0 : 1;
		case 'X':
			code = pme_cur_u32(&rc.c);
			if ((msg = get_str(img, &rc)) == NULL)
				break;
			pme_seterr(img->err, (enum pme_errcode)code, "%s", msg);
			return -1;
		default:
			rc.c.bad = 1;
			break;
		}
	}
	return rc.oom ? sym_nomem(img) : 0;
}

static const char *
signame(int sig, char *buf, size_t len)
{
	static const struct { int sig; const char *name; } names[] = {
		{ SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" },
		{ SIGILL, "SIGILL" }, { SIGFPE, "SIGFPE" },
		{ SIGABRT, "SIGABRT" }, { SIGKILL, "SIGKILL" },
		{ SIGPIPE, "SIGPIPE" }, { SIGTERM, "SIGTERM" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].sig == sig)
			return names[i].name;
	snprintf(buf, len, "signal %d", sig);
	return buf;
}

/* The error for a child that did not hand back whole results. */
static int
died(struct pme_image *img, const struct watch *w, int status, int waited)
{
	char sect[64], unit[64], how[64], sig[32];

	if (waited && WIFSIGNALED(status))
		snprintf(how, sizeof(how), "died of %s",
		    signame(WTERMSIG(status), sig, sizeof(sig)));
	else if (waited && WIFEXITED(status) && WEXITSTATUS(status) != 0)
		snprintf(how, sizeof(how), "exited with status %d",
		    WEXITSTATUS(status));
	else
		snprintf(how, sizeof(how), "ended without its results");
	return pme_seterr(img->err, PME_EFORMAT, "'%s': corrupt DWARF%s: "
	    "the DWARF reader %s%s", img->path, phase_tag(w, sect,
	    sizeof(sect)), how, unit_tag(w, unit, sizeof(unit)));
}

/*
 * Runs the DWARF reader in a child and takes its results.  Its exit
 * status is only known when the caller leaves SIGCHLD alone; whole
 * results are then trusted only with status 0 (valgrind or a sanitizer
 * in the child exits non-zero after a memory error it survived).
 */
int
open_dwarf(struct pme_image *img)
{
	struct watch *w;
	struct pme_buf b = { 0 };
	pid_t pid;
	int fds[2], status = 0, waited, rc;

	if (debug_sects(img) == -1)
		return -1;
	w = mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (w == MAP_FAILED)
		return pme_setsys(img->err, img->path, "mmap");
	if (pipe2(fds, O_CLOEXEC) == -1) {
		munmap(w, sizeof(*w));
		return pme_setsys(img->err, img->path, "pipe");
	}
	if ((pid = fork()) == -1) {
		rc = pme_setsys(img->err, img->path, "fork");
		close(fds[0]);
		close(fds[1]);
		munmap(w, sizeof(*w));
		return rc;
	}
	if (pid == 0) {
		close(fds[0]);
		child(img, fds[1], w);
	}
	close(fds[1]);
	rc = read_all(img, fds[0], &b);
	close(fds[0]);
	if (rc == -1)
		kill(pid, SIGKILL);
	while ((waited = waitpid(pid, &status, 0)) == -1 && errno == EINTR)
		continue;
	waited = waited == pid;
	if (rc == 0 && (rc = get_results(img, &b)) == 1 && waited &&
	    !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		rc = 0;
	if (rc == 0)
		rc = died(img, w, status, waited);
	else if (rc == 1)
		rc = 0;
	pme_buf_free(&b);
	munmap(w, sizeof(*w));
	return rc;
}
