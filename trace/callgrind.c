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
 * Processes.  --trace-children=yes follows fork and exec, one output file
 * per process (%p).  A forked child starts with a copy of its parent's
 * counts, so the parent dumps its counts (and zeroes them) just before
 * fork (--dump-before=fork): every instruction is then in exactly one
 * file.  valgrind starts over at exec, dropping what the process counted
 * before, so it dumps before execve too.  Every dump file of every
 * process is read.  (An exec'ed program numbers its dumps from 1 again:
 * a process that dumped before exec and dumps again after it loses the
 * earlier dump of the same number; pmetrace(1) says so.)
 *
 * Regions.  A program linked with libpmetrace brackets its region with
 * client requests: CALLGRIND_ZERO_STATS at pme_init() and
 * CALLGRIND_DUMP_STATS_AT("pmetrace region ...") at pme_exit().  When a
 * dump of that trigger exists, only such dumps are read.
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

#include "trace.h"
#include "util.h"

#define REGION_TRIGGER	"desc: Trigger: Client Request: pmetrace region"

/* An object (ob= or cob=) of the output, as the tally knows it. */
struct cgobj {
	char		*name;
	uint32_t	 module;
	int		 fixed;		/* loaded at its link-time address */
};

struct cgparse {
	struct tally	*t;
	const struct tr_opts *o;
	struct cgobj	*objs;
	size_t		 nobjs, capobjs;
	char		**ids;		/* compressed names: (id) -> name */
	size_t		 nids;
	char		 mainpath[PATH_MAX];	/* this file's executable */
	int		 region;	/* read only region dumps */
	uint64_t	 lines;		/* cost lines read, for -v */
};

char *
tr_find_in_path(const char *name)
{
	const char *path = getenv("PATH"), *p, *e;
	char buf[PATH_MAX];

	if (strchr(name, '/') != NULL)
		return access(name, X_OK) == 0 ? strdup(name) : NULL;
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = e + 1) {
		e = strchr(p, ':');
		if (e == NULL)
			e = p + strlen(p);
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)(e - p),
		    e == p ? "." : p, name) < (int)sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return strdup(buf);
		if (*e == '\0')
			return NULL;
	}
}

char *
callgrind_find(void)
{
	return tr_find_in_path("valgrind");
}

/* ------------------------------------------------------------ parsing */

static struct cgobj *
object(struct cgparse *cp, const char *name, size_t len)
{
	struct tr_elf elf;
	struct cgobj *o;
	size_t i;

	for (i = cp->nobjs; i-- > 0;)
		if (strncmp(cp->objs[i].name, name, len) == 0 &&
		    cp->objs[i].name[len] == '\0')
			return &cp->objs[i];
	if (cp->nobjs == cp->capobjs) {
		cp->capobjs = cp->capobjs ? cp->capobjs * 2 : 16;
		o = realloc(cp->objs, cp->capobjs * sizeof(*o));
		if (o == NULL)
			return NULL;
		cp->objs = o;
	}
	o = &cp->objs[cp->nobjs];
	if ((o->name = strndup(name, len)) == NULL)
		return NULL;
	if (tr_elf_read(o->name, &elf) == -1)
		memset(&elf, 0, sizeof(elf));
	/* Addresses in no object ("???") are the run-time ones. */
	o->fixed = elf.type == ET_EXEC || o->name[0] != '/';
	o->module = tally_module(cp->t, o->name, elf.id, elf.idlen,
	    strcmp(o->name, cp->mainpath) == 0);
	cp->nobjs++;
	return o;
}

/* The object a line's value names: "name", "(id) name" or "(id)". */
static struct cgobj *
named_object(struct cgparse *cp, const char *s, const char *end)
{
	char **ids;
	size_t id, n;
	char *q;

	if (*s != '(')
		return object(cp, s, (size_t)(end - s));
	id = strtoul(s + 1, &q, 10);
	if (*q != ')' || id > 1000000)
		return object(cp, s, (size_t)(end - s));
	for (s = q + 1; s < end && *s == ' '; s++)
		continue;
	if (s < end) {
		if (id >= cp->nids) {
			n = id + 16;
			if ((ids = realloc(cp->ids, n * sizeof(*ids))) == NULL)
				return NULL;
			memset(ids + cp->nids, 0, (n - cp->nids) *
			    sizeof(*ids));
			cp->ids = ids;
			cp->nids = n;
		}
		free(cp->ids[id]);
		cp->ids[id] = strndup(s, (size_t)(end - s));
	}
	if (id >= cp->nids || cp->ids[id] == NULL)
		return NULL;
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
	char word[PATH_MAX], *found;
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
	if ((found = tr_find_in_path(word)) == NULL)
		return;
	if (realpath(found, cp->mainpath) == NULL)
		cp->mainpath[0] = '\0';
	free(found);
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

/* The state of one output file being read. */
struct cgfile {
	struct cgobj	*ob, *cob;
	int		 npos;		/* position columns */
	int		 ir;		/* Ir's column among the costs */
	int		 counting;	/* this part is tallied */
	int		 callcost;	/* the next cost line is a call's */
	uint64_t	 last;		/* last instruction position */
};

static void
cost_line(struct cgparse *cp, struct cgfile *f, const char *s,
    const char *end)
{
	uint64_t addr, cost = 0;
	int i;

	addr = position(&s, end, f->last);
	f->last = addr;
	for (i = 1; i < f->npos; i++) {
		while (s < end && *s == ' ')
			s++;
		while (s < end && *s != ' ')
			s++;
	}
	for (i = 0; i <= f->ir; i++) {
		while (s < end && *s == ' ')
			s++;
		cost = number(&s, end);
	}
	if (f->callcost) {
		f->callcost = 0;
		f->cob = NULL;
		return;
	}
	cp->lines++;
	if (f->counting && cost > 0)
		tally_add(cp->t, f->ob ? f->ob->module : PME_NONE, addr, addr,
		    f->ob != NULL && f->ob->fixed, cost);
}

static void
calls_line(struct cgparse *cp, struct cgfile *f, const char *s,
    const char *end)
{
	struct cgobj *callee = f->cob ? f->cob : f->ob;
	uint64_t n, target;

	n = number(&s, end);
	while (s < end && *s == ' ')
		s++;
	target = position(&s, end, f->last);
	f->callcost = 1;
	if (f->counting && callee != NULL && n > 0)
		tally_calls(cp->t, callee->module, target, n);
}

static void
header_line(struct cgparse *cp, struct cgfile *f, const char *s,
    const char *end)
{
	if (prefix(s, end, "positions:"))
		f->npos = count_words(s + 10, end);
	else if (prefix(s, end, "events:"))
		f->ir = ir_column(s + 7, end);
	else if (prefix(s, end, "cmd:"))
		set_main(cp, s + 4, end);
	else if (prefix(s, end, "desc: Trigger:") && cp->region)
		f->counting = prefix(s, end, REGION_TRIGGER);
}

static int
parse(struct cgparse *cp, const char *buf, size_t len, const char *name,
    struct pme_error *err)
{
	const char *s = buf, *end = buf + len, *e;
	struct cgfile f;

	memset(&f, 0, sizeof(f));
	f.npos = 1;
	f.counting = !cp->region;
	for (; s < end; s = e + 1) {
		if ((e = memchr(s, '\n', (size_t)(end - s))) == NULL)
			e = end;
		if ((*s >= '0' && *s <= '9') || *s == '+' || *s == '-' ||
		    *s == '*')
			cost_line(cp, &f, s, e);
		else if (prefix(s, e, "ob="))
			f.ob = named_object(cp, s + 3, e);
		else if (prefix(s, e, "cob="))
			f.cob = named_object(cp, s + 4, e);
		else if (prefix(s, e, "calls="))
			calls_line(cp, &f, s + 6, e);
		else if (prefix(s, e, "fn="))
			f.cob = NULL;
		else
			header_line(cp, &f, s, e);
		if (f.ir < 0)
			return pme_seterr(err, PME_EFORMAT, "'%s': callgrind "
			    "output without an Ir event", name);
	}
	return 0;
}

static int
map_file(const char *path, char **buf, size_t *len, struct pme_error *err)
{
	struct stat st;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		if (fd != -1)
			close(fd);
		return pme_setsys(err, path, "cannot read");
	}
	*len = (size_t)st.st_size;
	*buf = NULL;
	if (*len > 0 && (*buf = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd,
	    0)) == MAP_FAILED) {
		close(fd);
		return pme_setsys(err, path, "cannot map");
	}
	close(fd);
	return 0;
}

/* Whether the file holds a region dump (its header names the trigger). */
static int
has_region(const char *buf, size_t len)
{
	const char *s = buf, *end = buf + len, *e;

	for (; s < end; s = e + 1) {
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

struct cgout {
	char		**names;
	size_t		 n;
};

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The output files callgrind left in dir, sorted. */
static int
list_outputs(const char *dir, struct cgout *out, struct pme_error *err)
{
	struct dirent *de;
	char **v;
	DIR *d;

	out->names = NULL;
	out->n = 0;
	if ((d = opendir(dir)) == NULL)
		return pme_setsys(err, dir, "cannot read");
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "cg.", 3) != 0)
			continue;
		if ((v = realloc(out->names, (out->n + 1) * sizeof(*v))) ==
		    NULL)
			break;
		out->names = v;
		if (asprintf(&v[out->n], "%s/%s", dir, de->d_name) == -1)
			break;
		out->n++;
	}
	closedir(d);
	qsort(out->names, out->n, sizeof(*out->names), name_cmp);
	return 0;
}

static void
free_outputs(struct cgout *out)
{
	size_t i;

	for (i = 0; i < out->n; i++)
		free(out->names[i]);
	free(out->names);
}

static int
read_outputs(struct cgparse *cp, const struct cgout *out,
    struct pme_error *err)
{
	size_t i, len;
	char *buf;
	int rc = 0;

	for (i = 0; i < out->n && !cp->region; i++) {
		if (map_file(out->names[i], &buf, &len, err) == -1)
			return -1;
		cp->region = has_region(buf, len);
		if (buf != NULL)
			munmap(buf, len);
	}
	for (i = 0; i < out->n && rc == 0; i++) {
		if (map_file(out->names[i], &buf, &len, err) == -1)
			return -1;
		rc = parse(cp, buf, len, out->names[i], err);
		if (buf != NULL)
			munmap(buf, len);
	}
	return rc;
}

/* ------------------------------------------------------------ running */

static char *
make_tmpdir(struct pme_error *err)
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
	return dir;
}

static void
remove_tmpdir(const char *dir)
{
	struct dirent *de;
	char path[PATH_MAX];
	DIR *d;

	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(dir);
}

/* The first line of valgrind's log that says what went wrong. */
static void
log_reason(const char *dir, pid_t pid, char *out, size_t outlen)
{
	char path[PATH_MAX], line[512];
	FILE *fp;
	size_t n;

	snprintf(out, outlen, "no output");
	snprintf(path, sizeof(path), "%s/log.%ld", dir, (long)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL) {
		n = strcspn(line, "\n");
		line[n] = '\0';
		if (strncmp(line, "valgrind:", 9) == 0 ||
		    (strncmp(line, "==", 2) != 0 && n > 0)) {
			snprintf(out, outlen, "%s", line);
			break;
		}
	}
	fclose(fp);
}

#define VG_MAXARGS	32

static pid_t
start(const char *vg, const char *dir, const struct tr_opts *o,
    struct pme_error *err)
{
	char *args[VG_MAXARGS], outarg[PATH_MAX + 32], logarg[PATH_MAX + 32];
	size_t n = 0, argc, i;
	char **argv;
	pid_t pid;

	snprintf(outarg, sizeof(outarg), "--callgrind-out-file=%s/cg.%%p",
	    dir);
	snprintf(logarg, sizeof(logarg), "--log-file=%s/log.%%p", dir);
	args[n++] = (char *)"valgrind";
	args[n++] = (char *)"--tool=callgrind";
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
	args[n++] = outarg;
	args[n++] = logarg;
	args[n++] = (char *)"--";
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
		setenv("PMETRACE_ENGINE", "callgrind", 1);
		execv(vg, argv);
		fprintf(stderr, "pmetrace: '%s': %s\n", vg, strerror(errno));
		_exit(127);
	}
	free(argv);
	return pid;
}

/* The program's status as a shell gives it. */
int
tr_wait_status(int st)
{
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

int
engine_callgrind(struct tally *t, const struct tr_opts *o, int *status,
    struct pme_error *err)
{
	struct sigaction ign, oint, oquit;
	struct cgparse cp;
	struct cgout out;
	char *vg, *dir, reason[512], first[PATH_MAX + 16];
	pid_t pid;
	size_t i;
	int st, rc = -1;

	*status = -1;
	if ((vg = callgrind_find()) == NULL) {
		pme_seterr(err, PME_EIO, "valgrind is not installed (not "
		    "found in PATH)");
		return ENGINE_MISSING;
	}
	if ((dir = make_tmpdir(err)) == NULL) {
		free(vg);
		return -1;
	}
	/* As system(3): the terminal's signals are for the program. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	if ((pid = start(vg, dir, o, err)) != -1) {
		while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
			continue;
		*status = tr_wait_status(st);
	}
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	if (pid == -1)
		goto out;
	if (list_outputs(dir, &out, err) == -1)
		goto out;
	snprintf(first, sizeof(first), "%s/cg.%ld", dir, (long)pid);
	for (i = 0; i < out.n && strncmp(out.names[i], first,
	    strlen(first)) != 0; i++)
		continue;
	if (i == out.n) {
		log_reason(dir, pid, reason, sizeof(reason));
		pme_seterr(err, PME_EIO, "callgrind wrote no counts "
		    "(program status %d): %s", *status, reason);
	} else {
		memset(&cp, 0, sizeof(cp));
		cp.t = t;
		cp.o = o;
		rc = read_outputs(&cp, &out, err);
		if (rc == 0 && o->verbose)
			fprintf(stderr, "pmetrace: callgrind: %zu output "
			    "files, %llu cost lines%s\n", out.n,
			    (unsigned long long)cp.lines, cp.region ?
			    ", the libpmetrace region only" : "");
		for (i = 0; i < cp.nobjs; i++)
			free(cp.objs[i].name);
		free(cp.objs);
		for (i = 0; i < cp.nids; i++)
			free(cp.ids[i]);
		free(cp.ids);
	}
	free_outputs(&out);
out:
	if (getenv("PMETRACE_KEEP") == NULL)
		remove_tmpdir(dir);
	else
		fprintf(stderr, "pmetrace: callgrind output kept in '%s'\n",
		    dir);
	free(dir);
	free(vg);
	return rc;
}
