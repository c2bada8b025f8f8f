/*
 * callgrind.c - the callgrind engine: runs the command under valgrind's
 * callgrind with one cost line per instruction, then reads its output
 * files and tallies.
 *
 * Addresses.  With --dump-instr=yes callgrind writes each instruction's
 * address as the run-time address minus its object's text bias (valgrind
 * reads every object's ELF headers as it maps it), that is, the link-time
 * address that nm prints and that bucket files hold, for PIE executables
 * (which valgrind loads at 0x108000) and shared libraries alike.  The
 * addresses are therefore looked up as they are; pmetrace(1) says so and
 * the tests check it against nm on PIE, non-PIE and shared objects.
 *
 * Code outside .text.  valgrind gives an object only the addresses of
 * its .text: PLT stubs (.plt, .plt.sec, .plt.got), .init and .fini are
 * in no object ("???") for callgrind, at their run-time addresses.  With
 * -v -v valgrind logs each object it maps with its load bias ("Reading
 * syms from PATH", "svma 0x..., avma 0x..."), and pmetrace books such
 * code to the object whose run-time extent holds it, at its link-time
 * address.  The objects are those in the log of the file's own process;
 * else (a forked child inherits its parent's objects without logging
 * them) those of the processes running the same command; else those the
 * file names, as any process mapped them.  Processes that disagree leave
 * the code unmapped, as is code of an image that exec'ed another whose
 * objects no other process mapped (valgrind starts the log again at
 * exec).
 *
 * Checks.  callgrind ends every output file with a "totals:" line, the
 * sum of the file's cost lines, and does not check its writes: a full
 * disk leaves a file cut short and says nothing.  Each file is checked
 * against its totals line as it is read; a file that is short,
 * unfinished or does not add up is an error naming it, with valgrind's
 * exit status and the first error its logs hold.
 *
 * Processes.  --trace-children=yes follows fork and exec, one output file
 * per process (%p).  A forked child starts with a copy of its parent's
 * counts, so the parent dumps its counts (and zeroes them) just before
 * fork (--dump-before=fork): every instruction is then in exactly one
 * file.  valgrind starts over at exec, dropping what the process counted
 * before, so it dumps before execve too.  Every dump file of every
 * process is read.  (An exec'ed program numbers its dumps from 1 again:
 * a process that dumped before exec and dumps again after it loses the
 * earlier dump of the same number; pmetrace(1) says so.)  A process
 * killed before its final dump (SIGKILL) leaves that file empty; its log
 * then has no closing "Collected" line, and its last counts are lost.
 *
 * Regions.  A program linked with libpmetrace brackets its region with
 * client requests: CALLGRIND_ZERO_STATS at pme_init() and
 * CALLGRIND_DUMP_STATS_AT("pmetrace region ...") at pme_exit().  When a
 * dump of that trigger exists, only such dumps are read.
 *
 * The temporary directory.  While valgrind runs, pmetrace waits with the
 * signals that would end it blocked: one sent by another process (kill)
 * is passed on to valgrind, which gives it to the program; one from the
 * terminal reached the program already.  Once valgrind has exited every
 * file is mapped and the directory removed before any is read, so that
 * nothing is left behind, whatever happens next.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <elf.h>

#include "pme_sample.h"
#include "trace.h"
#include "prog.h"
#include "util.h"

#define REGION_TRIGGER	"desc: Trigger: Client Request: pmetrace region"
#define NOOBJ		((size_t)-1)	/* no object */

/* An object (ob= or cob=) of the output, as the tally knows it. */
struct cgobj {
	char		*name;
	uint32_t	 module;
	int		 fixed;		/* loaded at its link-time address */
};

/* An object a process mapped, as its valgrind log says. */
struct cgload {
	const char	*path;		/* in the log */
	size_t		 pathlen;
	size_t		 obj;		/* in cgparse.objs, or NOOBJ */
	uint64_t	 bias;		/* run-time minus link-time address */
	uint64_t	 lo, hi;	/* run-time extent [lo, hi) */
};

/* What a process's log says: its command and what it mapped. */
struct cglog {
	long		 pid;
	const char	*buf;
	size_t		 len;
	const char	*cmd;		/* "Command:" text, or NULL */
	size_t		 cmdlen;
	struct cgload	*loads;
	size_t		 nloads;
};

struct cgparse {
	struct tr_tally	*t;
	const struct tr_opts *o;
	struct cgobj	*objs;
	size_t		 nobjs, capobjs;
	char		**ids;		/* compressed names: (id) -> name */
	size_t		 nids;
	char		 mainpath[PATH_MAX];	/* this file's executable */
	int		 region;	/* read only region dumps */
	uint64_t	 lines;		/* cost lines read, for -v */
	struct cglog	*logs;
	size_t		 nlogs;
	uint64_t	 notext;	/* instructions in no object's .text */
	uint64_t	 lost;		/* of those, in no object at all */
};

char *
tr_find_in_path(const char *name)
{
	char buf[PATH_MAX], dirs[256];
	const char *found;

	if (strchr(name, '/') != NULL)
		return access(name, X_OK) == 0 ? strdup(name) : NULL;
	found = pme_path_find(name, pme_exec_dirs(dirs, sizeof(dirs)), X_OK,
	    buf, sizeof(buf));
	return found != NULL ? strdup(found) : NULL;
}

void
tr_real_command(const char *name, char *out)
{
	char *found;

	out[0] = '\0';
	if ((found = tr_find_in_path(name)) == NULL)
		return;
	if (realpath(found, out) == NULL)
		out[0] = '\0';
	free(found);
}

char *
callgrind_find(void)
{
	return tr_find_in_path("valgrind");
}

/* ------------------------------------------------------------ parsing */

/* The index of the object named name[0..len), or NOOBJ. */
static size_t
find_object(const struct cgparse *cp, const char *name, size_t len)
{
	size_t i;

	/* name may hold a NUL (a damaged log): compared as bytes. */
	for (i = cp->nobjs; i-- > 0;)
		if (strlen(cp->objs[i].name) == len &&
		    memcmp(cp->objs[i].name, name, len) == 0)
			return i;
	return NOOBJ;
}

/*
 * The object named name[0..len), added when new.  Objects are known by
 * their index: the array grows while a file is read.
 */
static size_t
object(struct cgparse *cp, const char *name, size_t len)
{
	struct pme_elf elf;
	struct cgobj *o;
	size_t i;

	if ((i = find_object(cp, name, len)) != NOOBJ)
		return i;
	if (cp->nobjs == cp->capobjs) {
		cp->capobjs = cp->capobjs ? cp->capobjs * 2 : 16;
		o = realloc(cp->objs, cp->capobjs * sizeof(*o));
		if (o == NULL)
			return NOOBJ;
		cp->objs = o;
	}
	o = &cp->objs[cp->nobjs];
	memset(o, 0, sizeof(*o));
	if ((o->name = strndup(name, len)) == NULL)
		return NOOBJ;
	pme_elf_read(o->name, &elf, NULL);	/* zeroed if unreadable */
	/* Addresses in no object ("???") are the run-time ones. */
	o->fixed = elf.type == ET_EXEC || o->name[0] != '/';
	o->module = tr_tally_module(cp->t, o->name, elf.buildid, elf.idlen,
	    strcmp(o->name, cp->mainpath) == 0);
	return cp->nobjs++;
}

/* Whether object i is callgrind's "???": code in no object it knows. */
static int
unknown(const struct cgparse *cp, size_t i)
{
	return i < cp->nobjs && cp->objs[i].name[0] != '/';
}

/* The object a line's value names: "name", "(id) name" or "(id)". */
static size_t
named_object(struct cgparse *cp, const char *s, const char *end)
{
	const char *q;
	char **ids;
	size_t id, n;

	if (s == end || *s != '(')
		return object(cp, s, (size_t)(end - s));
	/* The id's decimal digits, within the line: at most 7. */
	for (q = s + 1, id = 0; q < end && q - s <= 7 && *q >= '0' &&
	    *q <= '9'; q++)
		id = id * 10 + (size_t)(*q - '0');
	if (q == s + 1 || q == end || *q != ')' || id > 1000000)
		return object(cp, s, (size_t)(end - s));
	for (s = q + 1; s < end && *s == ' '; s++)
		continue;
	if (s < end) {
		if (id >= cp->nids) {
			n = id + 16;
			if ((ids = realloc(cp->ids, n * sizeof(*ids))) == NULL)
				return NOOBJ;
			memset(ids + cp->nids, 0, (n - cp->nids) *
			    sizeof(*ids));
			cp->ids = ids;
			cp->nids = n;
		}
		free(cp->ids[id]);
		cp->ids[id] = strndup(s, (size_t)(end - s));
	}
	if (id >= cp->nids || cp->ids[id] == NULL)
		return NOOBJ;
	return object(cp, cp->ids[id], strlen(cp->ids[id]));
}

static uint64_t
number(const char **sp, const char *end)
{
	const char *s = *sp;
	uint64_t v = 0;
	int d;

	if (end - s > 2 && s[0] == '0' && s[1] == 'x') {
		for (s += 2; s < end; s++) {
			if (*s >= '0' && *s <= '9')
				d = *s - '0';
			else if ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')
				d = (*s | 0x20) - 'a' + 10;
			else
				break;
			v = v << 4 | (uint64_t)d;
		}
	} else
		for (; s < end && *s >= '0' && *s <= '9'; s++)
			v = v * 10 + (uint64_t)(*s - '0');
	*sp = s;
	return v;
}

/* A position: absolute, +n / -n from the last, or * for the same. */
static uint64_t
position(const char **sp, const char *end, uint64_t last)
{
	const char *s = *sp;
	uint64_t v;
	int sign;

	if (s < end && *s == '*') {
		*sp = s + 1;
		return last;
	}
	if (s < end && (*s == '+' || *s == '-')) {
		sign = *s++;
		v = number(&s, end);
		*sp = s;
		return sign == '+' ? last + v : last - v;
	}
	v = number(&s, end);
	*sp = s;
	return v;
}

/* The real path of the command of a "cmd:" line, for PME_MODULE_MAIN. */
static void
set_main(struct cgparse *cp, const char *s, const char *end)
{
	char word[PATH_MAX];
	size_t n;

	while (s < end && *s == ' ')
		s++;
	for (n = 0; s + n < end && s[n] != ' '; n++)
		continue;
	cp->mainpath[0] = '\0';
	if (n == 0 || n >= sizeof(word))
		return;
	memcpy(word, s, n);
	word[n] = '\0';
	tr_real_command(word, cp->mainpath);
}

static int
prefix(const char *s, const char *end, const char *p)
{
	size_t n = strlen(p);

	return (size_t)(end - s) >= n && memcmp(s, p, n) == 0;
}

/* The column of Ir in an "events:" line, or -1. */
static int
ir_column(const char *s, const char *end)
{
	int col = 0;

	for (;;) {
		while (s < end && *s == ' ')
			s++;
		if (s == end)
			return -1;
		if (end - s >= 2 && s[0] == 'I' && s[1] == 'r' &&
		    (end - s == 2 || s[2] == ' '))
			return col;
		while (s < end && *s != ' ')
			s++;
		col++;
	}
}

static int
count_words(const char *s, const char *end)
{
	int n = 0;

	for (;;) {
		while (s < end && *s == ' ')
			s++;
		if (s == end)
			return n;
		n++;
		while (s < end && *s != ' ')
			s++;
	}
}

/* --------------------------------------------------------------- logs */

/* The message of a log line, after its "==PID== " or "--PID-- ". */
static const char *
log_message(const char *s, const char *end)
{
	const char *p;

	if (end - s < 5 || (s[0] != '=' && s[0] != '-') || s[1] != s[0])
		return NULL;
	for (p = s + 2; p < end && isdigit((unsigned char)*p); p++)
		continue;
	if (end - p < 3 || p[0] != s[0] || p[1] != s[0] || p[2] != ' ')
		return NULL;
	return p + 3;
}

/* Adds the object at path[0..len) loaded with bias to lg, with its
 * run-time extent from its ELF headers. */
static int
add_load(struct cglog *lg, const char *path, size_t len, uint64_t bias)
{
	char name[PATH_MAX];
	struct pme_elf elf;
	struct cgload *l;
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t i;

	if (len >= sizeof(name))
		return 0;
	memcpy(name, path, len);
	name[len] = '\0';
	if (pme_elf_read(name, &elf, NULL) == -1)
		return 0;
	for (i = 0; i < elf.nload; i++) {
		if (elf.load[i].vaddr < lo)
			lo = elf.load[i].vaddr;
		if (elf.load[i].vaddr + elf.load[i].filesz > hi)
			hi = elf.load[i].vaddr + elf.load[i].filesz;
	}
	if (lo >= hi)
		return 0;
	if ((l = realloc(lg->loads, (lg->nloads + 1) * sizeof(*l))) == NULL)
		return -1;
	lg->loads = l;
	l += lg->nloads++;
	l->path = path;
	l->pathlen = len;
	l->obj = NOOBJ;
	l->bias = bias;
	l->lo = lo + bias;
	l->hi = hi + bias;
	return 0;
}

/*
 * Reads what the log of a process says: "==PID== Command: ...", and
 * with -v -v each object mapped, "--PID-- Reading syms from PATH" then
 * "--PID--    svma 0x..., avma 0x..." (its .text, link-time and run-time).
 */
static int
read_log(struct cglog *lg, struct pme_error *err)
{
	const char *s, *end, *e, *m, *path = NULL;
	uint64_t svma, avma;
	size_t pathlen = 0;

	if (lg->len == 0)
		return 0;	/* empty, not mapped: buf is NULL */
	for (s = lg->buf, end = s + lg->len; s < end; s = e + 1) {
		if ((e = memchr(s, '\n', (size_t)(end - s))) == NULL)
			e = end;
		if ((m = log_message(s, e)) == NULL)
			continue;
		if (prefix(m, e, "Command: ") && lg->cmd == NULL) {
			lg->cmd = m + 9;
			lg->cmdlen = (size_t)(e - lg->cmd);
		} else if (prefix(m, e, "Reading syms from ")) {
			path = m + 18;
			pathlen = (size_t)(e - path);
		} else if (path != NULL && prefix(m, e, "   svma 0x")) {
			m += 8;
			svma = number(&m, e);
			if (!prefix(m, e, ", avma 0x"))
				continue;
			m += 7;
			avma = number(&m, e);
			if (add_load(lg, path, pathlen, avma - svma) == -1)
				return pme_setnomem(err);
			path = NULL;
		}
	}
	return 0;
}

/* Whether two command lines (callgrind's "cmd:", valgrind's "Command:")
 * are the same. */
static int
same_command(const char *a, size_t alen, const char *b, size_t blen)
{
	while (alen > 0 && *a == ' ')
		a++, alen--;
	while (blen > 0 && *b == ' ')
		b++, blen--;
	return alen == blen && memcmp(a, b, alen) == 0;
}

/* ------------------------------------------------------------ reading */

/* The state of one output file being read. */
struct cgfile {
	size_t		 ob, cob;	/* objects, or NOOBJ */
	int		 npos;		/* position columns */
	int		 ir;		/* Ir's column among the costs */
	int		 counting;	/* this part is tallied */
	int		 callcost;	/* the next cost line is a call's */
	uint64_t	 last;		/* last instruction position */
	uint64_t	 sum;		/* Ir of the cost lines since the last
					 * totals line */
	int		 open;		/* a part whose totals are due */
	int		 totals;	/* totals lines read */
	const char	*name;		/* the file */
	long		 pid;		/* its process */
	const char	*cmd;		/* its "cmd:" */
	size_t		 cmdlen;
	size_t		 own;		/* own_log() */
	struct cgload	*lastload;	/* the last found by find_load() */
	unsigned char	*named;		/* [nnamed]: objects it names */
	size_t		 nnamed;
};

/* The log of the process that wrote file f, when it says so ("Dump to
 * .../NAME"), or NOOBJ: an image that exec'ed another lost its log. */
static size_t
own_log(const struct cgparse *cp, const struct cgfile *f)
{
	const char *base = strrchr(f->name, '/');
	char dump[PATH_MAX];
	size_t i;

	snprintf(dump, sizeof(dump), "/%s\n", base ? base + 1 : f->name);
	for (i = 0; i < cp->nlogs; i++)
		if (cp->logs[i].pid == f->pid && cp->logs[i].len > 0 &&
		    memmem(cp->logs[i].buf, cp->logs[i].len, dump,
		    strlen(dump)) != NULL)
			return i;
	return NOOBJ;
}

/* The latest object lg's process mapped at run-time address a; at level
 * 2 only one f names. */
static struct cgload *
log_load(struct cgparse *cp, struct cglog *lg, const struct cgfile *f,
    int level, uint64_t a)
{
	struct cgload *l;
	size_t i, k;

	for (i = lg->nloads; i-- > 0;) {
		l = &lg->loads[i];
		if (a < l->lo || a >= l->hi)
			continue;
		if (level < 2)
			return l;
		k = find_object(cp, l->path, l->pathlen);
		return k < f->nnamed && f->named[k] ? l : NULL;
	}
	return NULL;
}

/*
 * The object holding run-time address a of code in no object's .text:
 * one the file's own process mapped, else one that processes of the
 * same command mapped (a forked child inherits its parent's), else one
 * the file names as any process mapped it.  Processes of one level that
 * disagree leave it unknown (NULL).
 */
static struct cgload *
find_load(struct cgparse *cp, struct cgfile *f, uint64_t a)
{
	struct cgload *l, *found;
	struct cglog *lg;
	size_t i;
	int level;

	if ((l = f->lastload) != NULL && a >= l->lo && a < l->hi)
		return l;
	for (level = 0; level < 3; level++) {
		found = NULL;
		for (i = 0; i < cp->nlogs; i++) {
			lg = &cp->logs[i];
			if ((level == 0 && i != f->own) || (level == 1 &&
			    (lg->cmd == NULL || f->cmd == NULL ||
			    !same_command(lg->cmd, lg->cmdlen, f->cmd,
			    f->cmdlen))) ||
			    (l = log_load(cp, lg, f, level, a)) == NULL)
				continue;
			if (found != NULL && (found->bias != l->bias ||
			    found->pathlen != l->pathlen || memcmp(found->path,
			    l->path, l->pathlen) != 0))
				return NULL;
			found = l;
		}
		if (found != NULL) {
			if (found->obj == NOOBJ)
				found->obj = object(cp, found->path,
				    found->pathlen);
			return f->lastload = found;
		}
	}
	return NULL;
}

/* Marks the objects file f names (ob=, cob=), for find_load(), and
 * finds its main executable (cmd:, which comes first). */
static int
name_objects(struct cgparse *cp, struct cgfile *f, const char *buf,
    size_t len, struct pme_error *err)
{
	const char *s = buf, *end = buf + len, *e;
	unsigned char *v;
	size_t k;

	for (; s < end; s = e + 1) {
		if ((e = memchr(s, '\n', (size_t)(end - s))) == NULL)
			e = end;
		if (prefix(s, e, "cmd:")) {
			set_main(cp, s + 4, e);
			continue;
		}
		if (prefix(s, e, "ob="))
			k = named_object(cp, s + 3, e);
		else if (prefix(s, e, "cob="))
			k = named_object(cp, s + 4, e);
		else
			continue;
		if (k == NOOBJ)
			continue;
		if (k >= f->nnamed) {
			if ((v = realloc(f->named, k + 16)) == NULL)
				return pme_setnomem(err);
			memset(v + f->nnamed, 0, k + 16 - f->nnamed);
			f->named = v;
			f->nnamed = k + 16;
		}
		f->named[k] = 1;
	}
	return 0;
}

/* The cost of column col after the positions. */
static uint64_t
cost_at(const char *s, const char *end, int col)
{
	uint64_t cost = 0;
	int i;

	for (i = 0; i <= col; i++) {
		while (s < end && *s == ' ')
			s++;
		cost = number(&s, end);
	}
	return cost;
}

/* n instructions at address a of object ob. */
static void
book(struct cgparse *cp, struct cgfile *f, size_t ob, uint64_t a,
    uint64_t n)
{
	const struct cgobj *o;
	struct cgload *l;

	if (ob != NOOBJ && unknown(cp, ob)) {
		cp->notext += n;
		if ((l = find_load(cp, f, a)) != NULL && l->obj != NOOBJ) {
			o = &cp->objs[l->obj];
			tr_tally_add(cp->t, o->module, a - l->bias, a, o->fixed,
			    n);
			return;
		}
		cp->lost += n;
	}
	if (ob == NOOBJ)
		tr_tally_add(cp->t, PME_NONE, a, a, 0, n);
	else {
		o = &cp->objs[ob];
		tr_tally_add(cp->t, o->module, a, a, o->fixed, n);
	}
}

static void
cost_line(struct cgparse *cp, struct cgfile *f, const char *s,
    const char *end)
{
	uint64_t addr, cost;
	int i;

	addr = position(&s, end, f->last);
	f->last = addr;
	for (i = 1; i < f->npos; i++) {
		while (s < end && *s == ' ')
			s++;
		while (s < end && *s != ' ')
			s++;
	}
	cost = cost_at(s, end, f->ir);
	if (f->callcost) {
		f->callcost = 0;
		f->cob = NOOBJ;
		return;
	}
	f->open = 1;
	f->sum += cost;
	cp->lines++;
	if (f->counting && cost > 0)
		book(cp, f, f->ob, addr, cost);
}

static void
calls_line(struct cgparse *cp, struct cgfile *f, const char *s,
    const char *end)
{
	size_t callee = f->cob != NOOBJ ? f->cob : f->ob;
	struct cgload *l;
	uint64_t n, target;

	n = number(&s, end);
	while (s < end && *s == ' ')
		s++;
	target = position(&s, end, f->last);
	f->callcost = 1;
	if (!f->counting || callee == NOOBJ || n == 0)
		return;
	if (!unknown(cp, callee))
		tr_tally_calls(cp->t, cp->objs[callee].module, target, n);
	else if ((l = find_load(cp, f, target)) != NULL && l->obj != NOOBJ)
		tr_tally_calls(cp->t, cp->objs[l->obj].module, target - l->bias,
		    n);
}

/* A totals line: the sum of the cost lines before it, back to the last
 * one. */
static int
totals_line(struct cgfile *f, const char *s, const char *end, size_t off,
    struct pme_error *err)
{
	uint64_t v = cost_at(s, end, f->ir);

	if (v != f->sum)
		return pme_setfmt(err, PME_EFORMAT, f->name, off, "totals line "
		    "says %llu instructions, its cost lines add up to %llu",
		    (unsigned long long)v, (unsigned long long)f->sum);
	f->sum = 0;
	f->open = 0;
	f->totals++;
	return 0;
}

static void
header_line(struct cgparse *cp, struct cgfile *f, const char *s,
    const char *end)
{
	if (prefix(s, end, "positions:"))
		f->npos = count_words(s + 10, end);
	else if (prefix(s, end, "events:"))
		f->ir = ir_column(s + 7, end);
	else if (prefix(s, end, "cmd:")) {
		f->cmd = s + 4;
		f->cmdlen = (size_t)(end - f->cmd);
	} else if (prefix(s, end, "desc: Trigger:") && cp->region)
		f->counting = prefix(s, end, REGION_TRIGGER);
	if (prefix(s, end, "part:") || prefix(s, end, "events:"))
		f->open = 1;
}

/* The lines of an output file; see parse(). */
static int
parse_lines(struct cgparse *cp, struct cgfile *f, const char *buf,
    size_t len, struct pme_error *err)
{
	const char *s = buf, *end = buf + len, *e;

	for (; s < end; s = e + 1) {
		if ((e = memchr(s, '\n', (size_t)(end - s))) == NULL)
			return pme_setfmt(err, PME_EFORMAT, f->name, len, "cut "
			    "short: the file ends inside a line");
		if ((*s >= '0' && *s <= '9') || *s == '+' || *s == '-' ||
		    *s == '*')
			cost_line(cp, f, s, e);
		else if (prefix(s, e, "ob="))
			f->ob = named_object(cp, s + 3, e);
		else if (prefix(s, e, "cob="))
			f->cob = named_object(cp, s + 4, e);
		else if (prefix(s, e, "calls="))
			calls_line(cp, f, s + 6, e);
		else if (prefix(s, e, "fn="))
			f->cob = NOOBJ;
		else if (prefix(s, e, "totals:")) {
			if (totals_line(f, s + 7, e, (size_t)(s - buf),
			    err) == -1)
				return -1;
		} else
			header_line(cp, f, s, e);
		if (f->ir < 0)
			return pme_seterr(err, PME_EFORMAT, "'%s': callgrind "
			    "output without an Ir event", f->name);
	}
	if (f->open || f->totals == 0)
		return pme_setfmt(err, PME_EFORMAT, f->name, len, "cut short: "
		    "the file ends before its totals line");
	return 0;
}

/*
 * Reads the output file name, buf[0..len), of process pid into the
 * tally, checking it against its totals lines: a file cut short or that
 * does not add up is an error (and the tally is then dropped).
 */
static int
parse(struct cgparse *cp, const char *buf, size_t len, const char *name,
    long pid, struct pme_error *err)
{
	struct cgfile f;
	int rc;

	memset(&f, 0, sizeof(f));
	f.ob = f.cob = NOOBJ;
	f.npos = 1;
	f.counting = !cp->region;
	f.name = name;
	f.pid = pid;
	f.own = own_log(cp, &f);
	if ((rc = name_objects(cp, &f, buf, len, err)) == 0)
		rc = parse_lines(cp, &f, buf, len, err);
	free(f.named);
	return rc;
}

/* ------------------------------------------------------- output files */

/* A file valgrind left in the directory, mapped. */
struct cgmap {
	char		*path;
	char		*buf;		/* NULL when empty */
	size_t		 len;
	long		 pid;		/* of its name: cg.PID[.N], log.PID */
	int		 last;		/* cg.PID: the process's final dump */
};

struct cgout {
	struct cgmap	*cg, *log;	/* by name */
	size_t		 ncg, nlog;
};

static int
map_file(struct cgmap *m, struct pme_error *err)
{
	struct stat st;
	void *p;
	int fd;

	if ((fd = pme_open_read(m->path, err)) == -1)
		return -1;
	if (fstat(fd, &st) == -1) {
		close(fd);
		return pme_setsys(err, m->path, "cannot read");
	}
	m->len = (size_t)st.st_size;
	if (m->len > 0) {
		p = mmap(NULL, m->len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			close(fd);
			m->len = 0;
			return pme_setsys(err, m->path, "cannot map");
		}
		m->buf = p;
	}
	close(fd);
	return 0;
}

static int
map_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cgmap *)a)->path,
	    ((const struct cgmap *)b)->path);
}

/* Adds dir/name to v[*n], mapped. */
static int
add_file(struct cgmap **v, size_t *n, const char *dir, const char *name,
    struct pme_error *err)
{
	struct cgmap *m;
	char *end;

	if ((m = realloc(*v, (*n + 1) * sizeof(*m))) == NULL)
		return pme_setnomem(err);
	*v = m;
	m += *n;
	memset(m, 0, sizeof(*m));
	if (asprintf(&m->path, "%s/%s", dir, name) == -1) {
		m->path = NULL;
		return pme_setnomem(err);
	}
	(*n)++;
	m->pid = strtol(strchr(name, '.') + 1, &end, 10);
	m->last = *end == '\0';
	return map_file(m, err);
}

static void
free_outputs(struct cgout *out)
{
	size_t i;

	for (i = 0; i < out->ncg + out->nlog; i++) {
		struct cgmap *m = i < out->ncg ? &out->cg[i] :
		    &out->log[i - out->ncg];
		if (m->buf != NULL)
			munmap(m->buf, m->len);
		free(m->path);
	}
	free(out->cg);
	free(out->log);
	memset(out, 0, sizeof(*out));
}

/* The output files (cg.*) and logs (log.*) valgrind left in dir, mapped
 * and sorted. */
static int
list_outputs(const char *dir, struct cgout *out, struct pme_error *err)
{
	struct dirent *de;
	DIR *d;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if ((d = opendir(dir)) == NULL)
		return pme_setsys(err, dir, "cannot read");
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "cg.", 3) == 0)
			rc = add_file(&out->cg, &out->ncg, dir, de->d_name,
			    err);
		else if (strncmp(de->d_name, "log.", 4) == 0)
			rc = add_file(&out->log, &out->nlog, dir, de->d_name,
			    err);
	}
	closedir(d);
	if (rc == 0 && out->ncg > 0)
		qsort(out->cg, out->ncg, sizeof(*out->cg), map_cmp);
	return rc;
}

/* The first of v[0..n) of process pid, or NULL. */
static const struct cgmap *
of_pid(const struct cgmap *v, size_t n, long pid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].pid == pid)
			return &v[i];
	return NULL;
}

/* Whether a log shows its process's end: callgrind's closing summary,
 * written after its final dump. */
static int
log_ended(const struct cgmap *lg)
{
	return lg->buf != NULL &&
	    memmem(lg->buf, lg->len, "== Collected : ", 15) != NULL;
}

/* The first line of a log that says what went wrong, or 0: valgrind's
 * own ("valgrind: ..."), or an error of the tool ("==PID== Error: ..."). */
static int
log_reason(const struct cgmap *lg, char *out, size_t outlen)
{
	const char *s, *end, *e, *m;

	if (lg == NULL || lg->buf == NULL)
		return 0;
	for (s = lg->buf, end = s + lg->len; s < end; s = e + 1) {
		if ((e = memchr(s, '\n', (size_t)(end - s))) == NULL)
			e = end;
		if (prefix(s, e, "valgrind:") || ((m = log_message(s,
		    e)) != NULL && (prefix(m, e, "Error") ||
		    prefix(m, e, "Fatal")))) {
			snprintf(out, outlen, "%.*s", (int)(e - s), s);
			return 1;
		}
	}
	return 0;
}

/* Whether a file holds a region dump (its header names the trigger). */
static int
has_region(const char *buf, size_t len)
{
	const char *s = buf, *end, *e;

	if (len == 0)
		return 0;	/* empty, not mapped: buf is NULL */
	for (end = s + len; s < end; s = e + 1) {
		if ((e = memchr(s, '\n', (size_t)(end - s))) == NULL)
			e = end;
		if (prefix(s, e, "ob=") || prefix(s, e, "fn=") ||
		    prefix(s, e, "fl="))
			return 0;
		if (prefix(s, e, REGION_TRIGGER))
			return 1;
	}
	return 0;
}

/*
 * An empty output file: the final dump of a process whose log shows it
 * never got there (killed by SIGKILL) is lost, and said so; any other
 * could not be written.
 */
static int
empty_file(const struct cgout *out, const struct cgmap *m,
    const struct tr_opts *o, struct pme_error *err)
{
	const struct cgmap *lg = of_pid(out->log, out->nlog, m->pid);

	if (m->last && lg != NULL && lg->len > 0 && !log_ended(lg)) {
		if (!o->quiet)
			fprintf(stderr, "pmetrace: '%s': process %ld ended "
			    "before callgrind wrote its last counts (killed "
			    "by SIGKILL?): they are lost\n", m->path, m->pid);
		return 0;
	}
	return pme_setfmt(err, PME_EFORMAT, m->path, 0, "empty: callgrind "
	    "could not write it%s", lg == NULL || lg->len == 0 ?
	    ", nor valgrind its log" : "");
}

static void
free_parse(struct cgparse *cp)
{
	size_t i;

	for (i = 0; i < cp->nobjs; i++)
		free(cp->objs[i].name);
	free(cp->objs);
	for (i = 0; i < cp->nids; i++)
		free(cp->ids[i]);
	free(cp->ids);
	for (i = 0; i < cp->nlogs; i++)
		free(cp->logs[i].loads);
	free(cp->logs);
}

/* What the logs say: commands, and the objects mapped. */
static int
read_logs(struct cgparse *cp, const struct cgout *out, struct pme_error *err)
{
	struct cglog *lg;
	size_t i;

	if (out->nlog == 0)
		return 0;
	if ((cp->logs = calloc(out->nlog, sizeof(*cp->logs))) == NULL)
		return pme_setnomem(err);
	for (i = 0; i < out->nlog; i++) {
		lg = &cp->logs[cp->nlogs++];
		lg->pid = out->log[i].pid;
		lg->buf = out->log[i].buf;
		lg->len = out->log[i].len;
		if (read_log(lg, err) == -1)
			return -1;
	}
	return 0;
}

/* Reads every output file into t. */
static int
read_outputs(struct tr_tally *t, const struct tr_opts *o,
    const struct cgout *out, struct pme_error *err)
{
	const struct cgmap *m;
	struct cgparse cp;
	size_t i, nread = 0;
	int rc;

	memset(&cp, 0, sizeof(cp));
	cp.t = t;
	cp.o = o;
	rc = read_logs(&cp, out, err);
	for (i = 0; i < out->ncg && !cp.region; i++)
		cp.region = has_region(out->cg[i].buf, out->cg[i].len);
	for (i = 0; i < out->ncg && rc == 0; i++) {
		m = &out->cg[i];
		if (m->len == 0)
			rc = empty_file(out, m, o, err);
		else if ((rc = parse(&cp, m->buf, m->len, m->path, m->pid,
		    err)) == 0)
			nread++;
	}
	if (rc == 0 && nread == 0)
		rc = pme_seterr(err, PME_EIO, "callgrind wrote no counts: "
		    "every process ended before writing them");
	if (rc == 0 && o->verbose)
		fprintf(stderr, "pmetrace: callgrind: %zu output files, %llu "
		    "cost lines; %llu instructions outside the objects' .text "
		    "(PLT, .init, .fini), %llu of them in no object%s\n",
		    out->ncg, (unsigned long long)cp.lines,
		    (unsigned long long)cp.notext,
		    (unsigned long long)cp.lost, cp.region ?
		    "; the libpmetrace region only" : "");
	free_parse(&cp);
	return rc;
}

/*
 * One output file and its process's log (none when log is NULL), as
 * read_outputs() reads what valgrind left, an empty file as one not
 * mapped; for the fuzz target (tests/fuzz/fuzz_cgout.c).
 */
int
tr_callgrind_read(struct tr_tally *t, const struct tr_opts *o,
    const char *buf, size_t len, const char *log, size_t loglen,
    struct pme_error *err)
{
	struct cgmap cg, lg;
	struct cgout out;

	memset(&cg, 0, sizeof(cg));
	memset(&lg, 0, sizeof(lg));
	cg.path = (char *)"cg.1";
	cg.buf = len > 0 ? (char *)buf : NULL;
	cg.len = len;
	cg.pid = 1;
	cg.last = 1;
	lg.path = (char *)"log.1";
	lg.buf = loglen > 0 ? (char *)log : NULL;
	lg.len = loglen;
	lg.pid = 1;
	out.cg = &cg;
	out.ncg = 1;
	out.log = &lg;
	out.nlog = log != NULL;
	return read_outputs(t, o, &out, err);
}

/* ------------------------------------------------------------ running */

char *
tr_tmpdir(struct pme_error *err)
{
	const char *base = getenv("TMPDIR");
	char *dir;

	if (base == NULL || *base == '\0')
		base = "/tmp";
	if (asprintf(&dir, "%s/pmetrace.XXXXXX", base) == -1) {
		pme_setnomem(err);
		return NULL;
	}
	if (mkdtemp(dir) == NULL) {
		pme_setsys(err, base, "cannot make a temporary directory in");
		free(dir);
		return NULL;
	}
	if (getenv("PMETRACE_KEEP") == NULL)
		pme_guard_rmdir(dir);
	return dir;
}


#define VG_MAXARGS	32

/* The signals pmetrace waits with blocked while valgrind runs. */
static const int waitsigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGCHLD };

void
tr_block_signals(struct tr_sigsave *ss)
{
	struct sigaction dfl;
	size_t i;

	sigemptyset(&ss->set);
	for (i = 0; i < sizeof(waitsigs) / sizeof(waitsigs[0]); i++)
		sigaddset(&ss->set, waitsigs[i]);
	sigprocmask(SIG_BLOCK, &ss->set, &ss->old);
	/* Ignored, SIGCHLD would reap valgrind before pmetrace waits. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &dfl, &ss->chld);
}

/*
 * Back to the signals as they were.  A signal that came after valgrind
 * exited: the terminal's reached the program too and is dropped, one
 * sent to pmetrace takes effect now.
 */
void
tr_restore_signals(struct tr_sigsave *ss)
{
	static const struct timespec zero;
	sigset_t raise_set;
	siginfo_t si;
	int sig;

	sigemptyset(&raise_set);
	while ((sig = sigtimedwait(&ss->set, &si, &zero)) > 0)
		if (sig != SIGCHLD && si.si_code != SI_KERNEL)
			sigaddset(&raise_set, sig);
	sigaction(SIGCHLD, &ss->chld, NULL);
	sigprocmask(SIG_SETMASK, &ss->old, NULL);
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(&raise_set, sig) == 1)
			raise(sig);
}

pid_t
tr_spawn(const char *vg, char *const *args, size_t n, const char *engine,
    const char *vglib, const struct tr_opts *o, const struct tr_sigsave *ss,
    struct pme_error *err)
{
	size_t argc, i;
	char **argv;
	pid_t pid;

	for (argc = 0; o->argv[argc] != NULL; argc++)
		continue;
	if ((argv = calloc(n + argc + 1, sizeof(*argv))) == NULL) {
		pme_setnomem(err);
		return -1;
	}
	memcpy(argv, args, n * sizeof(*argv));
	for (i = 0; i < argc; i++)
		argv[n + i] = o->argv[i];
	if ((pid = fork()) == -1) {
		free(argv);
		pme_setsys(err, vg, "cannot fork to run");
		return -1;
	}
	if (pid == 0) {
		sigaction(SIGCHLD, &ss->chld, NULL);
		sigprocmask(SIG_SETMASK, &ss->old, NULL);
		setenv("PMETRACE_ENGINE", engine, 1);
		if (vglib != NULL)
			setenv("VALGRIND_LIB", vglib, 1);
		execv(vg, argv);
		fprintf(stderr, "pmetrace: '%s': %s\n", vg, strerror(errno));
		_exit(127);
	}
	free(argv);
	pme_guard_kill(pid);
	return pid;
}

static pid_t
start(const char *vg, const char *dir, const struct tr_opts *o,
    const struct tr_sigsave *ss, struct pme_error *err)
{
	char *args[VG_MAXARGS], outarg[PATH_MAX + 32], logarg[PATH_MAX + 32];
	size_t n = 0;

	snprintf(outarg, sizeof(outarg), "--callgrind-out-file=%s/cg.%%p",
	    dir);
	snprintf(logarg, sizeof(logarg), "--log-file=%s/log.%%p", dir);
	args[n++] = (char *)"valgrind";
	args[n++] = (char *)"--tool=callgrind";
	/* Each object's load bias in the log, for the code outside .text. */
	args[n++] = (char *)"-v";
	args[n++] = (char *)"-v";
	args[n++] = (char *)"--dump-instr=yes";
	args[n++] = (char *)"--dump-line=no";
	args[n++] = (char *)"--compress-strings=no";
	args[n++] = (char *)"--compress-pos=no";
	args[n++] = (char *)"--separate-threads=no";
	args[n++] = (char *)"--skip-plt=no";
	args[n++] = (char *)"--trace-children=yes";
	args[n++] = (char *)"--dump-before=fork";
	args[n++] = (char *)"--dump-before=vfork";
	args[n++] = (char *)"--dump-before=_Fork";
	args[n++] = (char *)"--dump-before=execve";
	/* No gdbserver: its FIFOs in TMPDIR outlive a killed valgrind. */
	args[n++] = (char *)"--vgdb=no";
	args[n++] = outarg;
	args[n++] = logarg;
	args[n++] = (char *)"--";
	return tr_spawn(vg, args, n, "callgrind", NULL, o, ss, err);
}

/*
 * Waits for valgrind.  A signal another process sent pmetrace is passed
 * on to valgrind, which gives it to the program; one from the terminal
 * (si_code SI_KERNEL) went to the program already.
 */
int
tr_wait_child(pid_t pid, const struct tr_sigsave *ss, int *st)
{
	siginfo_t si;
	pid_t r;

	for (;;) {
		if ((r = waitpid(pid, st, WNOHANG)) == pid)
			return 0;
		if (r == -1 && errno != EINTR)
			return -1;
		if (sigwaitinfo(&ss->set, &si) == -1 || si.si_signo == SIGCHLD)
			continue;
		if (si.si_code != SI_KERNEL)
			kill(pid, si.si_signo);
	}
}

/* Appends valgrind's exit status (-1: not known) and the first error of
 * its logs to err's message. */
static void
add_context(struct pme_error *err, const struct cgout *out, int status)
{
	char reason[256] = "";
	size_t i, n = strlen(err->msg);

	for (i = 0; i < out->nlog && !log_reason(&out->log[i], reason,
	    sizeof(reason)); i++)
		continue;
	if (status != -1)
		snprintf(err->msg + n, sizeof(err->msg) - n, " (valgrind "
		    "exit status %d%s%s)", status, reason[0] ? ": " : "",
		    reason);
	else if (reason[0] != '\0')
		snprintf(err->msg + n, sizeof(err->msg) - n, " (valgrind's "
		    "log: %s)", reason);
}

/* Runs valgrind in a directory of its own, removed once its files are
 * mapped. */
static int
run_valgrind(const char *vg, const struct tr_opts *o, struct cgout *out,
    pid_t *pid, int *status, struct pme_error *err)
{
	struct tr_sigsave ss;
	char *dir;
	int st, rc = -1;

	tr_block_signals(&ss);
	if ((dir = tr_tmpdir(err)) != NULL &&
	    (*pid = start(vg, dir, o, &ss, err)) != -1) {
		if (tr_wait_child(*pid, &ss, &st) == -1)
			pme_setsys(err, vg, "cannot wait for");
		else {
			*status = pme_exit_status(st);
			rc = list_outputs(dir, out, err);
		}
	}
	if (dir != NULL && getenv("PMETRACE_KEEP") != NULL)
		fprintf(stderr, "pmetrace: callgrind output kept in '%s'\n",
		    dir);
	else if (dir != NULL)
		pme_remove_dir(dir);
	pme_guard_forget();
	free(dir);
	tr_restore_signals(&ss);
	return rc;
}

int
engine_callgrind(struct tr_tally *t, const struct tr_opts *o, int *status,
    struct pme_error *err)
{
	const char *kept = getenv("PMETRACE_READ");
	char *vg, reason[512];
	struct cgout out;
	pid_t pid = -1;
	int rc;

	*status = -1;
	memset(&out, 0, sizeof(out));
	if (kept != NULL && *kept != '\0') {
		/* A directory PMETRACE_KEEP kept: read, nothing run. */
		if ((rc = list_outputs(kept, &out, err)) == 0 && out.ncg == 0)
			rc = pme_seterr(err, PME_EIO, "'%s': no callgrind "
			    "output in it (cg.*)", kept);
		else if (rc == 0 && read_outputs(t, o, &out, err) == -1) {
			add_context(err, &out, -1);
			rc = -1;
		} else if (rc == 0)
			*status = 0;
		free_outputs(&out);
		return rc;
	}
	if ((vg = callgrind_find()) == NULL) {
		pme_seterr(err, PME_EIO, "valgrind is not installed (not "
		    "found in PATH)");
		return ENGINE_MISSING;
	}
	rc = run_valgrind(vg, o, &out, &pid, status, err);
	if (rc == 0 && of_pid(out.cg, out.ncg, pid) == NULL) {
		if (!log_reason(of_pid(out.log, out.nlog, pid), reason,
		    sizeof(reason)))
			snprintf(reason, sizeof(reason), "no output");
		rc = pme_seterr(err, PME_EIO, "callgrind wrote no counts "
		    "(program status %d): %s", *status, reason);
	} else if (rc == 0 && read_outputs(t, o, &out, err) == -1) {
		add_context(err, &out, *status);
		rc = -1;
	}
	free_outputs(&out);
	free(vg);
	return rc;
}
