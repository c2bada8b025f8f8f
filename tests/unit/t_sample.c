/*
 * t_sample.c - sample files (.PMS), the address map and pme_elf_vaddr().
 *
 *   t_sample                 the tests (run by tests/run from the top
 *                            directory with PME_TOP and TMPDIR set)
 *   t_sample write OUT.PMS   writes a sample file from the text below on
 *                            standard input, deterministically
 *   t_sample dump FILE.PMS   prints every record of a sample file in the
 *                            same text, one per line ("-": standard input)
 *   t_sample bench [N]       writes N (default 20000000) flat samples with
 *                            a realistic pc distribution, reads them back
 *                            from the file and again from memory; prints
 *                            MB, bytes/sample and M samples/s of CPU time
 *                            for write, read (file included) and decode
 *
 * The text: one record per line, a verb and key=value words; numbers in
 * decimal or 0x hex; a value in "double quotes" may hold spaces and C
 * escapes (\" \\ \n \t \xHH); lists are comma-separated; # starts a
 * comment line.
 *
 *   header method=test event=cpu-clock period=10000000 pid=100 start=0
 *          start_mono=0 flags=callchain,inherit argv=./demo,arg
 *          [arg=WORD ...] [note="why"] [boot=ID] [bufsize=N]
 *   map pid=100 [time=0] start=0x555555554000 end=0x555555556000
 *          offset=0x1000 vaddr=0x1000 path=/x/demo flags=exec,main
 *          [buildid=abcd...]
 *   thread comm|fork|exit|exec pid=100 tid=100 [ppid= ptid=] [time=]
 *          [name=demo]
 *   sample pid=100 [tid=PID] pc=0x555555554010 [time=T] [weight=PERIOD]
 *          [cpu=N] [flags=kernel] [frames=0x..,0x..] [count=N]
 *   flush
 *   close [end=0] [status=0] [lost=0] [threads=0]
 *   abort                    (the file is left without CLOS and END)
 *
 * Another header starts another run in the same file (pme(5): a file of
 * several runs, as pmemerge(1) joins them), the run before cut short
 * (as by abort) unless it was closed: each run is written on its own by
 * the library's writer, and its chunks appended to the file's, the END
 * of a closed run before them dropped.
 *
 * method is none, perf, timer, itimer, test or a number; event none,
 * cpu-clock, task-clock, prof or a number; flags names or a number.  A
 * sample without time= comes one period after the previous sample (0 for
 * the first); count=N writes it N times, a period apart.  dump prints
 * every field (arg= per argument; cpu=- when unknown), "flush" after the
 * samples of each SMPL chunk, then a last line "# N samples, closed|not
 * closed, complete|lost N bytes".  What it prints is valid input to write,
 * which gives the same records back in the same chunks (and, with the
 * default buffer, the same bytes).
 *
 * Exit status: 0 pass, 1 fail (diagnostics on standard error), 2 usage,
 * 77 skipped (the reason on the first line of standard output).
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "pme_sample.h"
#include "util.h"

#define TEST_NAME "t_sample"
#include "check.h"

static void
writefile(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		die("%s: cannot write", path);
}

/* ----------------------------------------------------- names of values */

struct name {
	const char	*s;
	uint32_t	 v;
};

static const struct name methods[] = {
	{ "none", PME_METHOD_NONE }, { "perf", PME_METHOD_PERF },
	{ "timer", PME_METHOD_TIMER }, { "itimer", PME_METHOD_ITIMER },
	{ "test", PME_METHOD_TEST }, { NULL, 0 }
};
static const struct name events[] = {
	{ "none", PME_EVENT_NONE }, { "cpu-clock", PME_EVENT_CPU_CLOCK },
	{ "task-clock", PME_EVENT_TASK_CLOCK }, { "prof", PME_EVENT_PROF },
	{ NULL, 0 }
};
static const struct name hflags[] = {
	{ "callchain", PME_SHDR_CALLCHAIN }, { "inherit", PME_SHDR_INHERIT },
	{ NULL, 0 }
};
static const struct name mflags[] = {
	{ "exec", PME_MAP_EXEC }, { "deleted", PME_MAP_DELETED },
	{ "main", PME_MAP_MAIN }, { "kernel", PME_MAP_KERNEL }, { NULL, 0 }
};
static const struct name sflags[] = {
	{ "kernel", PME_SAMPLE_KERNEL }, { NULL, 0 }
};
static const struct name tkinds[] = {
	{ "comm", PME_THREAD_COMM }, { "fork", PME_THREAD_FORK },
	{ "exit", PME_THREAD_EXIT }, { "exec", PME_THREAD_EXEC }, { NULL, 0 }
};

static const char *
name_of(const struct name *t, uint32_t v, char *buf, size_t len)
{
	for (; t->s != NULL; t++)
		if (t->v == v)
			return t->s;
	snprintf(buf, len, "%" PRIu32, v);
	return buf;
}

/* Flags as "a,b" with any unnamed bits as a final 0x number; "0" if none. */
static void
print_flags(FILE *f, const struct name *t, uint32_t v)
{
	const char *sep = "";

	if (v == 0) {
		fputs("0", f);
		return;
	}
	for (; t->s != NULL; t++)
		if (v & t->v) {
			fprintf(f, "%s%s", sep, t->s);
			sep = ",";
			v &= ~t->v;
		}
	if (v != 0)
		fprintf(f, "%s0x%" PRIx32, sep, v);
}

/* ---------------------------------------------------------- the writer */

struct line {
	const char	*file;
	unsigned	 no;
	char		*key[64];
	char		*val[64];
	int		 n;
	unsigned	 used;		/* bit per key consumed */
};

static void
lerr(const struct line *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "t_sample: %s:%u: ", l->file, l->no);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/* Unquotes "..." in place, C escapes and all; returns the end. */
static char *
unquote(const struct line *l, char *s, char **out)
{
	char *w = s, *p = s + 1;
	unsigned x;
	int n;

	*out = w;
	for (; *p != '"'; p++) {
		if (*p == '\0')
			lerr(l, "unterminated quote");
		if (*p != '\\') {
			*w++ = *p;
			continue;
		}
		switch (*++p) {
		case 'n': *w++ = '\n'; break;
		case 't': *w++ = '\t'; break;
		case 'x':
			if (sscanf(p + 1, "%2x%n", &x, &n) != 1)
				lerr(l, "bad \\x escape");
			*w++ = (char)x;
			p += n;
			break;
		case '\0':
			lerr(l, "unterminated quote");
			break;
		default: *w++ = *p; break;
		}
	}
	*w = '\0';
	return p + 1;
}

/* Splits "verb k=v k=v" into l->key/val; returns the verb. */
static char *
split(struct line *l, char *s)
{
	char *verb, *eq;

	l->n = 0;
	l->used = 0;
	while (isspace((unsigned char)*s))
		s++;
	verb = s;
	while (*s != '\0' && !isspace((unsigned char)*s))
		s++;
	if (*s != '\0')
		*s++ = '\0';
	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (*s == '\0')
			break;
		if (l->n == 64)
			lerr(l, "too many words");
		l->key[l->n] = s;
		while (*s != '\0' && *s != '=' && !isspace((unsigned char)*s))
			s++;
		if (*s != '=') {	/* a word without a value */
			eq = s;
			if (*s != '\0')
				*s++ = '\0';
			*eq = '\0';
			l->val[l->n++] = NULL;
			continue;
		}
		*s++ = '\0';
		if (*s == '"')
			s = unquote(l, s, &l->val[l->n]);
		else {
			l->val[l->n] = s;
			while (*s != '\0' && !isspace((unsigned char)*s))
				s++;
		}
		if (*s != '\0' && !isspace((unsigned char)*s))
			lerr(l, "junk after a quoted value");
		if (*s != '\0')
			*s++ = '\0';
		l->n++;
	}
	return verb;
}

static const char *
get(struct line *l, const char *key)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (l->val[i] != NULL && strcmp(l->key[i], key) == 0) {
			l->used |= 1u << (i & 31);
			return l->val[i];
		}
	return NULL;
}

static uint64_t
num(const struct line *l, const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (*s == '\0' || *end != '\0' || errno != 0 || *s == '-')
		lerr(l, "bad number '%s'", s);
	return v;
}

static uint64_t
getnum(struct line *l, const char *key, uint64_t def)
{
	const char *s = get(l, key);

	return s == NULL ? def : num(l, s);
}

static uint32_t
get32(struct line *l, const char *key, uint32_t def)
{
	uint64_t v = getnum(l, key, def);

	if (v > UINT32_MAX)
		lerr(l, "%s=%llu out of range", key, (unsigned long long)v);
	return (uint32_t)v;
}

static uint32_t
getname(struct line *l, const char *key, const struct name *t, uint32_t def)
{
	const char *s = get(l, key);

	if (s == NULL)
		return def;
	for (; t->s != NULL; t++)
		if (strcmp(t->s, s) == 0)
			return t->v;
	if (!isdigit((unsigned char)*s))
		lerr(l, "unknown %s '%s'", key, s);
	return (uint32_t)num(l, s);
}

static uint32_t
getflags(struct line *l, const char *key, const struct name *t)
{
	const char *s = get(l, key), *e;
	const struct name *n;
	uint32_t v = 0;
	char w[64];
	size_t len;

	for (; s != NULL && *s != '\0'; s = *e ? e + 1 : e) {
		e = strchr(s, ',');
		e = e ? e : s + strlen(s);
		if ((len = (size_t)(e - s)) >= sizeof(w))
			lerr(l, "bad %s", key);
		memcpy(w, s, len);
		w[len] = '\0';
		for (n = t; n->s != NULL; n++)
			if (strcmp(n->s, w) == 0)
				break;
		if (n->s != NULL)
			v |= n->v;
		else if (isdigit((unsigned char)w[0]))
			v |= (uint32_t)num(l, w);
		else
			lerr(l, "unknown %s '%s'", key, w);
	}
	return v;
}

/* A comma-separated list of numbers into v[0..max); returns the count. */
static uint32_t
getlist(struct line *l, const char *key, uint64_t *v, uint32_t max)
{
	char *s = (char *)get(l, key), *e;
	uint32_t n = 0;

	for (; s != NULL && *s != '\0'; s = e) {
		if (n == max)
			lerr(l, "too many %s", key);
		if ((e = strchr(s, ',')) != NULL)
			*e++ = '\0';
		else
			e = s + strlen(s);
		v[n++] = num(l, s);
	}
	return n;
}

static void
unused(struct line *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!(l->used & 1u << (i & 31)) && strcmp(l->key[i], "arg"))
			lerr(l, "unknown word '%s'", l->key[i]);
}

static uint8_t *
hexbytes(struct line *l, const char *s, uint32_t *n)
{
	static uint8_t b[1024];
	size_t len = s == NULL ? 0 : strlen(s), i;
	unsigned x;

	if (len % 2 || len / 2 > sizeof(b))
		lerr(l, "bad build-id");
	for (i = 0; i < len / 2; i++) {
		if (!isxdigit((unsigned char)s[2 * i]) ||
		    !isxdigit((unsigned char)s[2 * i + 1]) ||
		    sscanf(s + 2 * i, "%2x", &x) != 1)
			lerr(l, "bad build-id");
		b[i] = (uint8_t)x;
	}
	*n = (uint32_t)(len / 2);
	return len ? b : NULL;
}

struct wstate {
	struct pme_samplewriter *w;
	uint64_t	 period;
	uint64_t	 time;		/* of the next sample by default */
	uint32_t	 pid;
};

static void
wcheck(const struct line *l, int rc, const struct pme_error *err)
{
	if (rc == -1)
		lerr(l, "%s", pme_strerror(err));
}

static void
w_header(struct wstate *ws, struct line *l, const char *out)
{
	struct pme_sample_header h;
	const char *argv[64], *s;
	struct pme_error err;
	char *p, *e;
	int i;

	memset(&h, 0, sizeof(h));
	h.method = getname(l, "method", methods, PME_METHOD_TEST);
	h.event = getname(l, "event", events, PME_EVENT_CPU_CLOCK);
	h.period = getnum(l, "period", 10000000);
	h.start = getnum(l, "start", 0);
	h.start_mono = getnum(l, "start_mono", 0);
	h.pid = get32(l, "pid", 0);
	h.flags = getflags(l, "flags", hflags);
	if ((p = (char *)get(l, "argv")) != NULL)
		for (; *p != '\0' && h.argc < 64; p = e) {
			if ((e = strchr(p, ',')) != NULL)
				*e++ = '\0';
			else
				e = p + strlen(p);
			argv[h.argc++] = p;
		}
	for (i = 0; i < l->n; i++)
		if (strcmp(l->key[i], "arg") == 0 && l->val[i] != NULL &&
		    h.argc < 64)
			argv[h.argc++] = l->val[i];
	h.argv = argv;
	h.note = get(l, "note");
	h.boot = get(l, "boot");
	s = get(l, "bufsize");
	unused(l);
	ws->period = h.period;
	ws->pid = h.pid;
	ws->time = 0;		/* each run's own clock */
	ws->w = pme_samplewriter_open(out, &h, s ? num(l, s) : 0, &err);
	if (ws->w == NULL)
		lerr(l, "%s", pme_strerror(&err));
}

static void
w_map(struct wstate *ws, struct line *l)
{
	struct pme_mapping m;
	struct pme_error err;

	memset(&m, 0, sizeof(m));
	m.pid = get32(l, "pid", ws->pid);
	m.time = getnum(l, "time", 0);
	m.start = getnum(l, "start", 0);
	m.end = getnum(l, "end", 0);
	m.offset = getnum(l, "offset", 0);
	m.vaddr = getnum(l, "vaddr", m.offset);
	m.path = get(l, "path");
	m.flags = getflags(l, "flags", mflags);
	m.buildid = hexbytes(l, get(l, "buildid"), &m.buildid_len);
	unused(l);
	wcheck(l, pme_samplewriter_mapping(ws->w, &m, &err), &err);
}

static void
w_thread(struct wstate *ws, struct line *l)
{
	struct pme_thread t;
	struct pme_error err;
	int i;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < l->n; i++)
		if (l->val[i] == NULL)
			break;
	if (i == l->n)
		lerr(l, "thread: comm, fork, exit or exec?");
	l->used |= 1u << (i & 31);
	t.kind = getname(l, "kind", tkinds, 0);
	for (const struct name *n = tkinds; n->s != NULL; n++)
		if (strcmp(n->s, l->key[i]) == 0)
			t.kind = n->v;
	if (t.kind == 0)
		lerr(l, "unknown thread record '%s'", l->key[i]);
	t.pid = get32(l, "pid", ws->pid);
	t.tid = get32(l, "tid", t.pid);
	t.ppid = get32(l, "ppid", 0);
	t.ptid = get32(l, "ptid", t.ppid);
	t.time = getnum(l, "time", ws->time);
	t.name = get(l, "name");
	unused(l);
	wcheck(l, pme_samplewriter_thread(ws->w, &t, &err), &err);
}

static void
w_sample(struct wstate *ws, struct line *l)
{
	static uint64_t frames[1024];
	struct pme_sample s;
	struct pme_error err;
	const char *c;
	uint64_t n, i;

	memset(&s, 0, sizeof(s));
	s.pid = get32(l, "pid", ws->pid);
	s.tid = get32(l, "tid", s.pid);
	s.pc = getnum(l, "pc", 0);
	s.time = getnum(l, "time", ws->time);
	s.weight = getnum(l, "weight", ws->period);
	c = get(l, "cpu");
	s.cpu = c == NULL || strcmp(c, "-") == 0 ? UINT32_MAX :
	    (uint32_t)num(l, c);
	s.flags = getflags(l, "flags", sflags);
	s.nframes = getlist(l, "frames", frames, 1024);
	s.frames = frames;
	n = getnum(l, "count", 1);
	unused(l);
	for (i = 0; i < n; i++, s.time += ws->period)
		wcheck(l, pme_samplewriter_sample(ws->w, &s, &err), &err);
	ws->time = s.time;
}

static int do_write_file(FILE *, const char *);

static int
do_write(const char *out)
{
	return do_write_file(stdin, out);
}

/* The same from a string, for the tests. */
static int
do_write_str(const char *text, const char *out)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	if (f == NULL)
		die("fmemopen");
	rc = do_write_file(f, out);
	fclose(f);
	return rc;
}

/*
 * The run just written to tmp appended to out: its chunks after the
 * file header, behind out's, whose END (a closed run's) is dropped.
 */
static void
append_run(const char *out, const char *tmp)
{
	uint8_t *a, *b, *t;
	size_t la, lb;

	a = readfile(out, &la);
	b = readfile(tmp, &lb);
	if (la >= 36 && memcmp(a + la - 20, "END ", 4) == 0)
		la -= 20;
	if ((t = malloc(la + lb)) == NULL)
		die("out of memory");
	memcpy(t, a, la);
	memcpy(t + la, b + 16, lb - 16);
	writefile(out, t, la + lb - 16);
	unlink(tmp);
	free(t);
	free(a);
	free(b);
}

static int
do_write_file(FILE *in, const char *out)
{
	struct wstate ws;
	struct pme_sample_close c;
	struct pme_error err;
	struct line l;
	char buf[65536], *verb, tmp[4096];
	int done = 0, runs = 0;

	memset(&ws, 0, sizeof(ws));
	snprintf(tmp, sizeof(tmp), "%s.run", out);
	l.file = "<stdin>";
	l.no = 0;
	while (fgets(buf, sizeof(buf), in) != NULL) {
		l.no++;
		buf[strcspn(buf, "\n")] = '\0';
		verb = split(&l, buf);
		if (*verb == '\0' || *verb == '#')
			continue;
		if (strcmp(verb, "header") == 0) {
			if (runs > 0 && strcmp(out, "-") == 0)
				lerr(&l, "runs after the first: not to '-'");
			if (ws.w != NULL && !done)	/* cut short */
				pme_samplewriter_abort(ws.w);
			if (runs > 1)
				append_run(out, tmp);
			w_header(&ws, &l, runs > 0 ? tmp : out);
			runs++;
			done = 0;
			continue;
		}
		if (done)
			lerr(&l, "after close or abort");
		if (ws.w == NULL)
			lerr(&l, "no header yet");
		if (strcmp(verb, "map") == 0)
			w_map(&ws, &l);
		else if (strcmp(verb, "thread") == 0)
			w_thread(&ws, &l);
		else if (strcmp(verb, "sample") == 0)
			w_sample(&ws, &l);
		else if (strcmp(verb, "flush") == 0) {
			unused(&l);
			wcheck(&l, pme_samplewriter_flush(ws.w, &err), &err);
		} else if (strcmp(verb, "close") == 0) {
			memset(&c, 0, sizeof(c));
			c.end = getnum(&l, "end", 0);
			c.lost = getnum(&l, "lost", 0);
			c.status = (int32_t)getnum(&l, "status", 0);
			c.threads = get32(&l, "threads", 0);
			getnum(&l, "samples", 0);	/* dump's; ignored */
			unused(&l);
			wcheck(&l, pme_samplewriter_close(ws.w, &c, &err),
			    &err);
			done = 1;
		} else if (strcmp(verb, "abort") == 0) {
			pme_samplewriter_abort(ws.w);
			done = 1;
		} else
			lerr(&l, "unknown record '%s'", verb);
	}
	if (ws.w == NULL)
		die("<stdin>: no header");
	if (!done)	/* input ended without close: as if killed */
		pme_samplewriter_abort(ws.w);
	if (runs > 1)
		append_run(out, tmp);
	return 0;
}

/* ------------------------------------------------------------ the dump */

/* A string as a value: bare when it can be, else quoted with escapes. */
static void
print_str(FILE *f, const char *s)
{
	const char *p;
	int bare = *s != '\0' && *s != '"';

	for (p = s; *p != '\0'; p++)
		if (isspace((unsigned char)*p) || *p == '\\' ||
		    !isprint((unsigned char)*p) || *p == ',')
			bare = 0;
	if (bare) {
		fputs(s, f);
		return;
	}
	putc('"', f);
	for (p = s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (!isprint((unsigned char)*p))
			fprintf(f, "\\x%02x", (unsigned char)*p);
		else
			putc(*p, f);
	}
	putc('"', f);
}

static int
d_header(void *arg, const struct pme_sample_header *h)
{
	FILE *f = arg;
	char b1[16], b2[16];
	uint32_t i;

	fprintf(f, "header method=%s event=%s period=%" PRIu64 " start=%"
	    PRIu64 " start_mono=%" PRIu64 " pid=%" PRIu32 " flags=",
	    name_of(methods, h->method, b1, sizeof(b1)),
	    name_of(events, h->event, b2, sizeof(b2)), h->period, h->start,
	    h->start_mono, h->pid);
	print_flags(f, hflags, h->flags);
	for (i = 0; i < h->argc; i++) {
		fputs(" arg=", f);
		print_str(f, h->argv[i]);
	}
	if (h->note != NULL) {
		fputs(" note=", f);
		print_str(f, h->note);
	}
	if (h->boot != NULL) {
		fputs(" boot=", f);
		print_str(f, h->boot);
	}
	putc('\n', f);
	return 0;
}

static int
d_mapping(void *arg, const struct pme_mapping *m)
{
	FILE *f = arg;
	uint32_t i;

	fprintf(f, "map pid=%" PRIu32 " time=%" PRIu64 " start=0x%" PRIx64
	    " end=0x%" PRIx64 " offset=0x%" PRIx64 " vaddr=0x%" PRIx64
	    " flags=", m->pid, m->time, m->start, m->end, m->offset,
	    m->vaddr);
	print_flags(f, mflags, m->flags);
	if (m->path[0] != '\0') {
		fputs(" path=", f);
		print_str(f, m->path);
	}
	if (m->buildid_len > 0) {
		fputs(" buildid=", f);
		for (i = 0; i < m->buildid_len; i++)
			fprintf(f, "%02x", m->buildid[i]);
	}
	putc('\n', f);
	return 0;
}

static int
d_thread(void *arg, const struct pme_thread *t)
{
	FILE *f = arg;
	char b[16];

	fprintf(f, "thread %s pid=%" PRIu32 " tid=%" PRIu32,
	    name_of(tkinds, t->kind, b, sizeof(b)), t->pid, t->tid);
	if (t->kind == PME_THREAD_FORK)
		fprintf(f, " ppid=%" PRIu32 " ptid=%" PRIu32, t->ppid, t->ptid);
	fprintf(f, " time=%" PRIu64, t->time);
	if (t->name != NULL) {
		fputs(" name=", f);
		print_str(f, t->name);
	}
	putc('\n', f);
	return 0;
}

static int
d_samples(void *arg, const struct pme_sample *s, size_t n)
{
	FILE *f = arg;
	size_t i;
	uint32_t j;

	for (i = 0; i < n; i++, s++) {
		fprintf(f, "sample pid=%" PRIu32 " tid=%" PRIu32 " time=%"
		    PRIu64 " pc=0x%" PRIx64 " weight=%" PRIu64, s->pid, s->tid,
		    s->time, s->pc, s->weight);
		if (s->cpu == UINT32_MAX)
			fputs(" cpu=-", f);
		else
			fprintf(f, " cpu=%" PRIu32, s->cpu);
		fputs(" flags=", f);
		print_flags(f, sflags, s->flags);
		for (j = 0; j < s->nframes; j++)
			fprintf(f, "%s0x%" PRIx64, j ? "," : " frames=",
			    s->frames[j]);
		putc('\n', f);
	}
	return 0;
}

/* The dump marks where each batch of samples ended (a chunk, or part of
 * one of more than 32768 samples), so that writing it back keeps the
 * records in the same order around the samples. */
static int
d_batch(void *arg, const struct pme_sample *s, size_t n)
{
	d_samples(arg, s, n);
	fputs("flush\n", arg);
	return 0;
}

static int
d_close(void *arg, const struct pme_sample_close *c)
{
	fprintf(arg, "close end=%" PRIu64 " samples=%" PRIu64 " lost=%"
	    PRIu64 " status=%" PRId32 " threads=%" PRIu32 "\n", c->end,
	    c->samples, c->lost, c->status, c->threads);
	return 0;
}

static const struct pme_sample_visitor dumper = {
	d_header, d_mapping, d_thread, d_batch, d_close
};

static int
do_dump(const char *path)
{
	struct pme_sample_summary sum;
	struct pme_error err;

	if (pme_samplefile_read(path, &dumper, stdout, &sum, &err) == -1) {
		fflush(stdout);
		fprintf(stderr, "t_sample: %s\n", pme_strerror(&err));
		return 1;
	}
	printf("# %" PRIu64 " samples, %s, ", sum.samples,
	    sum.closed ? "closed" : "not closed");
	if (sum.lost_bytes == -1)
		printf("complete\n");
	else
		printf("lost %" PRId64 " bytes\n", sum.lost_bytes);
	return fflush(stdout) == 0 ? 0 : 1;
}

/* ----------------------------------------------------------- the bench */

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU time of the process: steadier than the clock on a busy machine. */
static double
cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t
rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * A realistic flat profile: four threads on four CPUs, each sampled every
 * period with a little jitter, so they come round in turn; 90% of the
 * samples in a hot 64 KiB of the executable (a few hot spots and a spread),
 * the rest over two shared libraries.
 */
static void
bench_fill(struct pme_sample *s, uint64_t *x, uint64_t i, uint32_t nthr)
{
	uint64_t r = rnd(x);

	memset(s, 0, sizeof(*s));
	s->pid = 4242;
	s->tid = 4242 + (uint32_t)(i % nthr);
	if (r % 10 < 9)
		s->pc = 0x555555554000ull + 0x1000 + (r >> 8 & 1 ?
		    (r >> 12) % 16 * 0x40 + (r >> 20) % 0x40 :
		    (r >> 12) % 0x10000);
	else
		s->pc = (r >> 4 & 1 ? 0x7ffff7c00000ull : 0x7ffff7e00000ull) +
		    (r >> 8) % 0x180000;
	s->time = i / nthr * 10000000 + (i % nthr) * 10000000 / nthr +
	    (r >> 40) % 20000;
	s->weight = 10000000;
	s->cpu = UINT32_MAX;
}
struct bsum {
	uint64_t	 n, pcs;
};

static int
b_samples(void *arg, const struct pme_sample *s, size_t n)
{
	struct bsum *b = arg;
	size_t i;

	for (i = 0; i < n; i++)
		b->pcs += s[i].pc + s[i].tid;
	b->n += n;
	return 0;
}

/*
 * Writes n samples, reads them back from the file, then decodes them
 * again from memory: the reader's own speed, without the file's.  Rates
 * are samples per second of CPU time.
 */
static int
do_bench(uint64_t n)
{
	static const char *argv[] = { "bench" };
	struct pme_sample_header h = { PME_METHOD_TEST, PME_EVENT_CPU_CLOCK,
	    10000000, 0, 0, 4242, 0, 1, argv, NULL, NULL, 0, NULL };
	struct pme_sample_visitor v = { NULL, NULL, NULL, b_samples, NULL };
	struct pme_sample_summary sum;
	struct pme_samplewriter *w;
	struct pme_sample s;
	struct pme_error err;
	struct bsum b = { 0, 0 }, b2 = { 0, 0 };
	char path[4200];
	uint64_t x = 88172645463325252ull, i, want = 0;
	double t0, t1, t2, t3, gen;
	uint8_t *buf;
	size_t len;

	snprintf(path, sizeof(path), "%s", tmppath("bench.pms"));
	/* the generator's own cost, taken off the writer's */
	t0 = cpu();
	for (i = 0; i < n; i++) {
		bench_fill(&s, &x, i, 4);
		want += s.pc + s.tid;
	}
	gen = cpu() - t0;
	x = 88172645463325252ull;
	want = 0;
	t0 = cpu();
	if ((w = pme_samplewriter_open(path, &h, 0, &err)) == NULL)
		die("%s", pme_strerror(&err));
	for (i = 0; i < n; i++) {
		bench_fill(&s, &x, i, 4);
		want += s.pc + s.tid;
		if (pme_samplewriter_sample(w, &s, &err) == -1)
			die("%s", pme_strerror(&err));
	}
	if (pme_samplewriter_close(w, NULL, &err) == -1)
		die("%s", pme_strerror(&err));
	t1 = cpu();
	if (pme_samplefile_read(path, &v, &b, &sum, &err) == -1)
		die("%s", pme_strerror(&err));
	t2 = cpu();
	buf = readfile(path, &len);
	t3 = cpu();
	if (pme_samplefile_mem(buf, len, path, &v, &b2, &sum, &err) == -1)
		die("%s", pme_strerror(&err));
	t3 = cpu() - t3;
	if (b.n != n || b.pcs != want || b2.n != n || b2.pcs != want)
		die("bench: read back %" PRIu64 " samples of %" PRIu64, b.n, n);
	printf("samples %" PRIu64 "  file %.1f MB  %.2f bytes/sample  "
	    "write %.1f  read %.1f  decode %.1f M samples/s\n", n,
	    len / 1e6, (double)len / (double)n,
	    n / (t1 - t0 - gen) / 1e6, n / (t2 - t1) / 1e6, n / t3 / 1e6);
	free(buf);
	unlink(path);
	return 0;
}

/* ----------------------------------------------------------- the tests */

/*
 * What a visitor saw, as dump text: the header, mapping, thread and
 * closing records in one stream, the samples in another (a writer puts a
 * buffer's mapping and thread records before its samples).
 */
struct seen {
	char		*meta, *smp;
	size_t		 metalen, smplen;
	FILE		*fm, *fs;
	uint64_t	 samples;
	size_t		 batches;
};

static void
seen_open(struct seen *sn)
{
	memset(sn, 0, sizeof(*sn));
	if ((sn->fm = open_memstream(&sn->meta, &sn->metalen)) == NULL ||
	    (sn->fs = open_memstream(&sn->smp, &sn->smplen)) == NULL)
		die("open_memstream");
}

static void
seen_close(struct seen *sn)
{
	fclose(sn->fm);
	fclose(sn->fs);
}

static void
seen_free(struct seen *sn)
{
	free(sn->meta);
	free(sn->smp);
}

static int
s_samples(void *arg, const struct pme_sample *s, size_t n)
{
	struct seen *sn = arg;

	sn->samples += n;
	sn->batches++;
	return d_samples(sn->fs, s, n);
}

static int
s_header(void *a, const struct pme_sample_header *h)
{
	return d_header(((struct seen *)a)->fm, h);
}

static int
s_mapping(void *a, const struct pme_mapping *m)
{
	return d_mapping(((struct seen *)a)->fm, m);
}

static int
s_thread(void *a, const struct pme_thread *t)
{
	return d_thread(((struct seen *)a)->fm, t);
}

static int
s_close(void *a, const struct pme_sample_close *c)
{
	return d_close(((struct seen *)a)->fm, c);
}

static const struct pme_sample_visitor seer = {
	s_header, s_mapping, s_thread, s_samples, s_close
};

/* Reads buf into sn; returns the reader's result. */
static int
see(const void *buf, size_t len, struct seen *sn,
    struct pme_sample_summary *sum, struct pme_error *err)
{
	int rc;

	seen_open(sn);
	memset(err, 0, sizeof(*err));
	rc = pme_samplefile_mem(buf, len, "t.pms", &seer, sn, sum, err);
	seen_close(sn);
	return rc;
}

static const char *self;

/* Runs `t_sample write OUT` on text; returns its exit status.  Its
 * messages are kept from standard error when it is meant to fail. */
static int
write_text_q(const char *text, const char *out, int quiet)
{
	char cmd[8600];
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "'%s' write '%s'%s", self, out,
	    quiet ? " 2>/dev/null" : "");
	if ((p = popen(cmd, "w")) == NULL)
		die("popen");
	fputs(text, p);
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int
write_text(const char *text, const char *out)
{
	return write_text_q(text, out, 0);
}

/* Runs `t_sample dump FILE`; returns its output (malloc'd). */
static char *
dump_text(const char *file)
{
	char cmd[8600], *out = NULL;
	size_t cap = 0, n = 0, r;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' dump '%s'", self, file);
	if ((p = popen(cmd, "r")) == NULL)
		die("popen");
	do {
		if (n + 4096 + 1 > cap && (out = realloc(out,
		    cap = 2 * cap + 8192)) == NULL)
			die("out of memory");
		r = fread(out + n, 1, 4096, p);
		n += r;
	} while (r > 0);
	out[n] = '\0';
	if (pclose(p) != 0)
		fail("dump '%s' failed", file);
	return out;
}

/* ------------------------------------------------ a file of everything */

struct gen {
	FILE		*fm, *fs;	/* expected text, as struct seen */
	char		*meta, *smp;
	size_t		 metalen, smplen;
	uint64_t	 x;
	uint64_t	 nsamples;
};

static const char *hargv[] = { "./prog", "an argument with spaces",
    "", "quote\"back\\slash", "\x01\xff", "comma,arg" };

static void
gen_header(struct pme_samplewriter **w, struct gen *g, const char *path,
    size_t bufsize)
{
	struct pme_sample_header h = { PME_METHOD_PERF, PME_EVENT_CPU_CLOCK,
	    1000000, 1763700000123456789ull, 987654321, 4242,
	    PME_SHDR_CALLCHAIN | PME_SHDR_INHERIT, 6, hargv,
	    "perf_event_open refused: EACCES\nfell back", NULL, 0, NULL };
	struct pme_error err;

	*w = pme_samplewriter_open(path, &h, bufsize, &err);
	if (*w == NULL)
		die("open: %s", pme_strerror(&err));
	d_header(g->fm, &h);
}

static void
gen_map(struct pme_samplewriter *w, struct gen *g, uint32_t pid,
    uint64_t t, uint64_t start, uint64_t end, uint32_t flags,
    const char *path, uint32_t idlen)
{
	static uint8_t id[1024];
	struct pme_mapping m = { pid, flags, t, start, end, 0x3000, 0x403000,
	    path, id, idlen };
	struct pme_error err;
	uint32_t i;

	for (i = 0; i < idlen; i++)
		id[i] = (uint8_t)(i * 7 + idlen);
	if (idlen == 0)
		m.buildid = NULL;
	if (path == NULL)
		m.path = "";
	CHECK(pme_samplewriter_mapping(w, &m, &err) == 0);
	d_mapping(g->fm, &m);
}

static void
gen_thread(struct pme_samplewriter *w, struct gen *g, uint32_t kind,
    uint32_t pid, uint32_t tid, const char *name)
{
	struct pme_thread t = { kind, pid, tid, 0, 0, 777, NULL };
	struct pme_error err;

	if (kind == PME_THREAD_FORK) {
		t.ppid = pid - 1;
		t.ptid = pid - 1;
	}
	if (kind == PME_THREAD_COMM || kind == PME_THREAD_EXEC)
		t.name = name;
	CHECK(pme_samplewriter_thread(w, &t, &err) == 0);
	d_thread(g->fm, &t);
}

/* n samples of every shape: many threads, chains, 64-bit extremes. */
static void
gen_samples(struct pme_samplewriter *w, struct gen *g, size_t n,
    uint32_t nthreads, int chains)
{
	static uint64_t frames[1024];
	struct pme_sample s;
	struct pme_error err;
	uint64_t r, pc = 0x555555555000ull, t = 1000;
	size_t i;
	uint32_t j;

	for (i = 0; i < n; i++) {
		r = rnd(&g->x);
		memset(&s, 0, sizeof(s));
		s.pid = 4242 + (uint32_t)(r % 3);
		s.tid = r % 5 == 0 ? UINT32_MAX - (uint32_t)(r >> 8) %
		    nthreads : s.pid + (uint32_t)(r >> 8) % nthreads;
		pc += (r >> 20) % 4096 - 2048;
		s.pc = r % 97 == 0 ? UINT64_MAX - r % 5 : r % 89 == 0 ? 0 :
		    pc;
		t += r % 7 == 0 ? (uint64_t)0 - 5000 : 1000000 + r % 3000;
		s.time = r % 101 == 0 ? UINT64_MAX : t;
		s.weight = r % 13 == 0 ? r : 1000000;
		s.cpu = r % 11 == 0 ? UINT32_MAX : (uint32_t)(r >> 40) % 64;
		s.flags = r % 17 == 0 ? PME_SAMPLE_KERNEL : 0;
		if (chains && r % 3 != 0) {
			s.nframes = r % 293 == 0 ? 1024 : (uint32_t)(r >> 50) %
			    40;
			for (j = 0; j < s.nframes; j++)
				frames[j] = j % 9 == 8 ? rnd(&g->x) : s.pc +
				    j * 0x40 + (rnd(&g->x) % 0x1000);
			s.frames = frames;
		}
		if (pme_samplewriter_sample(w, &s, &err) != 0) {
			fail("sample: %s", pme_strerror(&err));
			return;
		}
		d_samples(g->fs, &s, 1);
		g->nsamples++;
	}
}

static void
gen_open(struct gen *g)
{
	memset(g, 0, sizeof(*g));
	g->x = 0x9e3779b97f4a7c15ull;
	if ((g->fm = open_memstream(&g->meta, &g->metalen)) == NULL ||
	    (g->fs = open_memstream(&g->smp, &g->smplen)) == NULL)
		die("open_memstream");
}

static void gen_file_n(struct gen *, const char *, size_t, size_t, size_t,
    uint32_t, size_t);

/*
 * Writes a file of every record kind to path; returns the expected text
 * in g.  Records are flushed now and then so that the file has many
 * chunks of each kind.
 */
static void
gen_file(struct gen *g, const char *path, size_t bufsize, int big)
{
	gen_file_n(g, path, bufsize, big ? 50000 : 300, big ? 20000 : 100,
	    big ? 3000 : 5, big ? 30000 : 50);
}

static void
gen_file_n(struct gen *g, const char *path, size_t bufsize, size_t n1,
    size_t n2, uint32_t nthr, size_t n3)
{
	struct pme_sample_close c = { 1763700009000000000ull, 0, 3, 128 + 9,
	    17 };
	struct pme_samplewriter *w;
	struct pme_error err;
	char longpath[4097];

	gen_open(g);
	memset(longpath, 'p', 4096);
	longpath[0] = '/';
	longpath[4096] = '\0';
	gen_header(&w, g, path, bufsize);
	gen_map(w, g, 4242, 0, 0x555555554000ull, 0x555555556000ull,
	    PME_MAP_EXEC | PME_MAP_MAIN, "/usr/bin/prog", 20);
	gen_map(w, g, 0, 0, 0xffffffff81000000ull, UINT64_MAX,
	    PME_MAP_EXEC | PME_MAP_KERNEL, "[kernel.kallsyms]", 0);
	gen_map(w, g, 4242, 5, 1, 2, 0xff00, NULL, 1024);
	gen_map(w, g, 4242, UINT64_MAX, 0x7f0000000000ull,
	    0x7f0000001000ull, PME_MAP_DELETED, longpath, 64);
	gen_thread(w, g, PME_THREAD_COMM, 4242, 4242, "prog");
	gen_thread(w, g, PME_THREAD_FORK, 4243, 4243, NULL);
	gen_map(w, g, 4243, 9, 0x1000, 0x2000, 0, "after fork", 0);
	gen_samples(w, g, n1, 7, 1);
	gen_thread(w, g, PME_THREAD_EXEC, 4243, 4243, "/bin/other prog");
	gen_thread(w, g, PME_THREAD_COMM, 4243, 4244, "");
	gen_samples(w, g, n2, nthr, 0);
	CHECK(pme_samplewriter_flush(w, &err) == 0);
	CHECK(pme_samplewriter_flush(w, &err) == 0);
	gen_thread(w, g, PME_THREAD_EXIT, 4243, 4244, NULL);
	gen_samples(w, g, n3, 2, 1);
	c.samples = g->nsamples;
	d_close(g->fm, &c);
	c.samples = 12345;	/* the writer counts for itself */
	if (pme_samplewriter_close(w, &c, &err) != 0)
		fail("close: %s", pme_strerror(&err));
	fclose(g->fm);
	fclose(g->fs);
}

static void
gen_free(struct gen *g)
{
	free(g->meta);
	free(g->smp);
}

/* The text seen equals the text written; reports the first difference. */
static void
same_text(const char *what, const char *want, const char *got)
{
	size_t i, line = 1;

	if (strcmp(want, got) == 0)
		return;
	for (i = 0; want[i] == got[i]; i++)
		if (want[i] == '\n')
			line++;
	fail("%s differ at line %zu:\n  want: %.200s\n  got:  %.200s", what,
	    line, strchr(want, '\n') ? want + i - (i > 40 ? 40 : i) : want,
	    got + i - (i > 40 ? 40 : i));
}

static void
test_roundtrip(void)
{
	static const size_t bufs[] = { 0, 1, 16384, 100000, 1u << 20 };
	struct pme_sample_summary sum;
	struct pme_error err;
	struct seen sn;
	struct gen g;
	uint8_t *buf;
	size_t i, len;
	const char *path = tmppath("rt.pms");

	for (i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++) {
		gen_file(&g, path, bufs[i], 1);
		buf = readfile(path, &len);
		if (see(buf, len, &sn, &sum, &err) != 0)
			fail("bufsize %zu: %s", bufs[i], pme_strerror(&err));
		same_text("records", g.meta, sn.meta);
		same_text("samples", g.smp, sn.smp);
		CHECK(sum.closed == 1);
		CHECK(sum.lost_bytes == -1);
		CHECK(sum.samples == g.nsamples);
		CHECK(sn.samples == g.nsamples);
		/* batches: one per chunk, so several in a file this big */
		CHECK(sn.batches > 3);
		/* the same through a file name */
		memset(&err, 0, sizeof(err));
		CHECK(pme_samplefile_read(path, NULL, NULL, &sum, &err) == 0);
		CHECK(sum.samples == g.nsamples && sum.closed == 1);
		free(buf);
		seen_free(&sn);
		gen_free(&g);
	}
}


static const char demo_text[] =
    "# the example of the file comment\n"
    "header method=test event=cpu-clock period=10000000 pid=100 start=0 "
    "argv=./demo,arg note=\"why \\\"not\\\"\"\n"
    "map pid=100 start=0x555555554000 end=0x555555556000 offset=0x1000 "
    "vaddr=0x1000 path=/x/demo flags=exec,main buildid=abcd0123\n"
    "thread comm pid=100 tid=100 name=demo\n"
    "sample pid=100 tid=100 pc=0x555555554010 count=3\n"
    "sample pid=100 tid=101 pc=0x555555554020 cpu=3 flags=kernel "
    "frames=0x555555554100,0x555555554200\n"
    "flush\n"
    "thread fork pid=101 tid=101 ppid=100 time=7\n"
    "sample pid=101 pc=0x10 time=5 weight=3\n"
    "close end=5 status=137 lost=3 threads=2\n";

static const char demo_dump[] =
    "header method=test event=cpu-clock period=10000000 start=0 "
    "start_mono=0 pid=100 flags=0 arg=./demo arg=arg "
    "note=\"why \\\"not\\\"\"\n"
    "map pid=100 time=0 start=0x555555554000 end=0x555555556000 "
    "offset=0x1000 vaddr=0x1000 flags=exec,main path=/x/demo "
    "buildid=abcd0123\n"
    "thread comm pid=100 tid=100 time=0 name=demo\n"
    "sample pid=100 tid=100 time=0 pc=0x555555554010 weight=10000000 "
    "cpu=- flags=0\n"
    "sample pid=100 tid=100 time=10000000 pc=0x555555554010 "
    "weight=10000000 cpu=- flags=0\n"
    "sample pid=100 tid=100 time=20000000 pc=0x555555554010 "
    "weight=10000000 cpu=- flags=0\n"
    "sample pid=100 tid=101 time=30000000 pc=0x555555554020 "
    "weight=10000000 cpu=3 flags=kernel "
    "frames=0x555555554100,0x555555554200\n"
    "flush\n"
    "thread fork pid=101 tid=101 ppid=100 ptid=100 time=7\n"
    "sample pid=101 tid=101 time=5 pc=0x10 weight=3 cpu=- flags=0\n"
    "flush\n"
    "close end=5 samples=5 lost=3 status=137 threads=2\n"
    "# 5 samples, closed, complete\n";

/* The text language: the example dumps as documented, the dump writes
 * back to the same bytes, and the same text twice gives the same file. */
static void
test_text(void)
{
	const char *a = tmppath("a.pms"), *b = tmppath("b.pms");
	uint8_t *ba, *bb;
	size_t la, lb;
	char *d, *d2;

	CHECK(write_text(demo_text, a) == 0);
	d = dump_text(a);
	same_text("dump", demo_dump, d);
	CHECK(write_text(d, b) == 0);
	d2 = dump_text(b);
	same_text("dump of the dump", d, d2);
	ba = readfile(a, &la);
	bb = readfile(b, &lb);
	CHECK(la == lb && memcmp(ba, bb, la) == 0);
	free(bb);
	CHECK(write_text(demo_text, b) == 0);
	bb = readfile(b, &lb);
	CHECK(la == lb && memcmp(ba, bb, la) == 0);
	free(ba);
	free(bb);
	free(d);
	free(d2);
	/* errors name the line */
	CHECK(write_text_q("header\nsample pc=zz\n", b, 1) == 1);
	CHECK(write_text_q("sample pc=1\n", b, 1) == 1);
	CHECK(write_text_q("header\nmap start=2 end=1\n", b, 1) == 1);
	CHECK(write_text_q("header\nbogus\n", b, 1) == 1);
	/* without close: a file cut short, read in full */
	CHECK(write_text("header\nsample pc=1 count=2\nflush\n"
	    "sample pc=2\n", b) == 0);
	d = dump_text(b);
	CHECK(strstr(d, "# 2 samples, not closed, lost 0 bytes\n") != NULL);
	free(d);
}

/*
 * A file of several runs: each run's header, records and closing record
 * passed in turn, as the files of one run each give them; a run cut short
 * before the next header read up to the cut, the next read whole; a
 * header straight after a header; pme_samplefile_copy() (pmemerge's)
 * joins files into the same bytes, refuses a damaged or cut file naming
 * its offset, and keeps a joined file's runs.
 */
static size_t	 chunk_ends(const uint8_t *, size_t, size_t *, size_t);

static const char runs_b[] =
    "header method=test period=10000000 pid=100 start=9 argv=./other\n"
    "map pid=100 start=0x555555554000 end=0x555555556000 offset=0 "
    "vaddr=0x9000 path=/x/other flags=exec,main\n"
    "sample pid=100 tid=100 pc=0x555555554010 count=2\n"
    "close end=12 threads=1\n";

/* The dump's text without its last line, the summary. */
static char *
records(char *d)
{
	char *e = d + strlen(d);

	CHECK(e > d && e[-1] == '\n');
	for (e--; e > d && e[-1] != '\n'; e--)
		;
	*e = '\0';
	return d;
}

static void
test_runs(void)
{
	const char *a = tmppath("ra.pms"), *b = tmppath("rb.pms"),
	    *ab = tmppath("rab.pms"), *j = tmppath("rj.pms"),
	    *k = tmppath("rk.pms"), *bad = tmppath("rbad.pms");
	struct pme_sample_summary sum;
	struct pme_samplecopy info;
	struct pme_error err;
	struct pme_writer *w;
	char *da, *db, *dab, *want, text[4096];
	uint8_t *ba, *bb, *bj, *bk;
	size_t la, lb, lj, lk, ends[64], n;

	CHECK(write_text(demo_text, a) == 0);
	CHECK(write_text(runs_b, b) == 0);
	snprintf(text, sizeof(text), "%s%s", demo_text, runs_b);
	CHECK(write_text(text, ab) == 0);
	/* the bytes: a's less its END, then b's chunks */
	ba = readfile(a, &la);
	bb = readfile(b, &lb);
	bj = readfile(ab, &lj);
	CHECK(lj == la - 20 + lb - 16 && memcmp(bj, ba, la - 20) == 0 &&
	    memcmp(bj + la - 20, bb + 16, lb - 16) == 0);
	/* read: a's records, then b's */
	da = records(dump_text(a));
	db = records(dump_text(b));
	dab = dump_text(ab);
	if (asprintf(&want, "%s%s# 7 samples, closed, complete\n", da,
	    db) == -1)
		die("asprintf");
	same_text("two runs", want, dab);
	free(want);
	free(dab);
	/* joined by pme_samplefile_copy: the same bytes */
	CHECK((w = pme_writer_open(j, PME_KIND_SAMPLE, 0, &err)) != NULL);
	CHECK(pme_samplefile_copy(w, a, &info, &err) == 0);
	CHECK(info.runs == 1 && info.cut == 0 && info.closed &&
	    info.complete);
	CHECK(pme_samplefile_copy(w, b, &info, &err) == 0);
	CHECK(pme_writer_commit(w, &err) == 0);
	free(bj);
	bj = readfile(j, &lj);
	bk = readfile(ab, &lk);
	CHECK(lj == lk && memcmp(bj, bk, lj) == 0);
	free(bk);
	/* a joined file joined again keeps its runs: (a+b)+a = a+(b+a) */
	CHECK((w = pme_writer_open(k, PME_KIND_SAMPLE, 0, &err)) != NULL);
	CHECK(pme_samplefile_copy(w, ab, &info, &err) == 0);
	CHECK(info.runs == 2 && info.closed && info.complete);
	CHECK(pme_samplefile_copy(w, a, &info, &err) == 0);
	CHECK(pme_writer_commit(w, &err) == 0);
	CHECK((w = pme_writer_open(j, PME_KIND_SAMPLE, 0, &err)) != NULL);
	CHECK(pme_samplefile_copy(w, b, &info, &err) == 0);
	CHECK(pme_samplefile_copy(w, a, &info, &err) == 0);
	CHECK(pme_writer_commit(w, &err) == 0);
	CHECK((w = pme_writer_open(ab, PME_KIND_SAMPLE, 0, &err)) != NULL);
	CHECK(pme_samplefile_copy(w, a, &info, &err) == 0);
	CHECK(pme_samplefile_copy(w, j, &info, &err) == 0);
	CHECK(pme_writer_commit(w, &err) == 0);
	free(bj);
	bj = readfile(k, &lj);
	bk = readfile(ab, &lk);
	CHECK(lj == lk && memcmp(bj, bk, lj) == 0);
	CHECK(pme_samplefile_read(k, NULL, NULL, &sum, &err) == 0 &&
	    sum.samples == 12 && sum.closed && sum.lost_bytes == -1);
	free(bk);

	/* a run cut short before the next header: read to its cut */
	snprintf(text, sizeof(text), "header pid=7 argv=./cut\n"
	    "sample pid=7 pc=0x44 count=2\nflush\nsample pid=7 pc=0x55\n"
	    "%s", runs_b);
	CHECK(write_text(text, ab) == 0);
	dab = dump_text(ab);
	if (asprintf(&want, "header method=test event=cpu-clock "
	    "period=10000000 start=0 start_mono=0 pid=7 flags=0 arg=./cut\n"
	    "sample pid=7 tid=7 time=0 pc=0x44 weight=10000000 cpu=- "
	    "flags=0\n"
	    "sample pid=7 tid=7 time=10000000 pc=0x44 weight=10000000 cpu=- "
	    "flags=0\nflush\n%s# 4 samples, closed, complete\n", db) == -1)
		die("asprintf");
	same_text("a run cut short", want, dab);
	free(want);
	free(dab);
	/* copied, the cut counted */
	CHECK((w = pme_writer_open(j, PME_KIND_SAMPLE, 0, &err)) != NULL);
	CHECK(pme_samplefile_copy(w, ab, &info, &err) == 0);
	CHECK(info.runs == 2 && info.cut == 1 && info.closed);
	pme_writer_discard(w);
	/* a file that ends cut between chunks: copied, not closed */
	writefile(bad, ba, la - 20 - 52);	/* less END and CLOS */
	CHECK((w = pme_writer_open(j, PME_KIND_SAMPLE, 0, &err)) != NULL);
	CHECK(pme_samplefile_copy(w, bad, &info, &err) == 0);
	CHECK(info.runs == 1 && !info.closed && !info.complete);
	/* cut inside a chunk: refused, naming the offset */
	writefile(bad, ba, la - 25);
	CHECK(pme_samplefile_copy(w, bad, &info, &err) == -1);
	CHECK(err.code == PME_ETRUNC);
	snprintf(text, sizeof(text), "offset 0x%zx: cut short inside a "
	    "chunk: 47 bytes lost", la - 20 - 52);
	if (strstr(err.msg, text) == NULL)
		fail("cut inside a chunk: '%s'", err.msg);
	/* a flipped byte: the CRC */
	n = chunk_ends(ba, la, ends, 64);
	CHECK(n >= 3);
	memcpy(bj, ba, la);
	bj[ends[1] + 25] ^= 1;
	writefile(bad, bj, la);
	CHECK(pme_samplefile_copy(w, bad, &info, &err) == -1);
	snprintf(text, sizeof(text), "offset 0x%zx: chunk crc mismatch",
	    ends[1]);
	if (strstr(err.msg, text) == NULL)
		fail("damaged: '%s'", err.msg);
	/* a record chunk before any header */
	memcpy(bj, ba, 16);
	memcpy(bj + 16, ba + ends[0], la - ends[0]);
	writefile(bad, bj, 16 + la - ends[0]);
	CHECK(pme_samplefile_copy(w, bad, &info, &err) == -1);
	CHECK(strstr(err.msg, "offset 0x10: 'MAPS' chunk: before the "
	    "header") != NULL);
	/* no header at all */
	writefile(bad, ba, 16);
	CHECK(pme_samplefile_copy(w, bad, &info, &err) == -1);
	CHECK(strstr(err.msg, "cut short before its header chunk") != NULL);
	pme_writer_discard(w);
	free(da);
	free(db);
	free(ba);
	free(bb);
	free(bj);
}

/* A file cut short, read by name: lost bytes counted, records kept. */
static void
test_cut_file(void)
{
	const char *a = tmppath("c.pms"), *b = tmppath("c2.pms");
	struct pme_sample_summary sum;
	struct pme_error err;
	uint8_t *buf;
	size_t len;

	CHECK(write_text(demo_text, a) == 0);
	buf = readfile(a, &len);
	writefile(b, buf, len - 25);	/* END and 5 bytes of CLOS */
	CHECK(pme_samplefile_read(b, NULL, NULL, &sum, &err) == 0);
	CHECK(sum.lost_bytes == 20 + 32 - 5);
	CHECK(sum.closed == 0 && sum.samples == 5);
	free(buf);
}


/* The ends of the whole chunks of a pme file, walked independently. */
static size_t
chunk_ends(const uint8_t *b, size_t len, size_t *ends, size_t max)
{
	size_t off = 16, n = 0, stored;

	while (len - off >= 20 && n < max) {
		stored = b[off + 8] | b[off + 9] << 8 | b[off + 10] << 16 |
		    (size_t)b[off + 11] << 24;
		if (stored > len - off - 20)
			break;
		off += 20 + stored;
		ends[n++] = off;
	}
	return n;
}

static int
prefix(const char *p, const char *full)
{
	return strncmp(p, full, strlen(p)) == 0;
}

/* Cut at every offset: read up to the last whole chunk, lost bytes exact,
 * the records read the first ones of the whole file.  Cut before the
 * header chunk is whole, it holds no samples: an error. */
static void
test_cut_everywhere(void)
{
	const char *path = tmppath("cut.pms");
	struct pme_sample_summary sum, full;
	struct pme_error err;
	struct seen all, sn;
	struct gen g;
	size_t len, L, ends[4096], nends, k, good;
	uint8_t *buf;

	gen_file_n(&g, path, 0, 20, 8, 3, 6);
	gen_free(&g);
	buf = readfile(path, &len);
	CHECK(see(buf, len, &all, &full, &err) == 0);
	nends = chunk_ends(buf, len, ends, 4096);
	CHECK(nends > 5 && ends[nends - 1] == len);
	for (L = 0; L <= len; L++) {
		if (see(buf, L, &sn, &sum, &err) != 0) {
			if (L >= ends[0] || err.code != PME_ETRUNC ||
			    strstr(err.msg, "t.pms") == NULL || (L >= 16 &&
			    strstr(err.msg, "'t.pms': offset 0x10: cut short "
			    "before its header chunk: it holds no samples") ==
			    NULL))
				fail("cut at %zu: %s", L, pme_strerror(&err));
			seen_free(&sn);
			continue;
		}
		CHECK(L >= ends[0]);
		for (good = 16, k = 0; k < nends && ends[k] <= L; k++)
			good = ends[k];
		if (L == len)
			CHECK(sum.lost_bytes == -1);
		else if (sum.lost_bytes != (int64_t)(L - good))
			fail("cut at %zu: lost %lld, not %zu", L,
			    (long long)sum.lost_bytes, L - good);
		CHECK(prefix(sn.meta, all.meta) && prefix(sn.smp, all.smp));
		CHECK(sum.closed == (L >= len - 20));
		CHECK(sum.samples <= full.samples);
		seen_free(&sn);
	}
	seen_free(&all);
	free(buf);
}

/* Makes the header's and every whole chunk's CRC good again. */
static void
fix_crcs(uint8_t *p, size_t n)
{
	size_t off = 16;
	uint32_t len, c;

	if (n < 16)
		return;
	c = (uint32_t)crc32(0, p, 12);
	p[12] = (uint8_t)c; p[13] = (uint8_t)(c >> 8);
	p[14] = (uint8_t)(c >> 16); p[15] = (uint8_t)(c >> 24);
	while (n - off >= 20) {
		len = p[off + 8] | p[off + 9] << 8 | p[off + 10] << 16 |
		    (uint32_t)p[off + 11] << 24;
		if (len > n - off - 20)
			break;
		c = (uint32_t)crc32(crc32(0, p + off, 16), p + off + 20, len);
		p[off + 16] = (uint8_t)c; p[off + 17] = (uint8_t)(c >> 8);
		p[off + 18] = (uint8_t)(c >> 16);
		p[off + 19] = (uint8_t)(c >> 24);
		off += 20 + len;
	}
}

/* Every byte flipped, with the CRCs as they are and made good: an error
 * naming the file, or a read; never a crash (ASan and valgrind watch). */
static void
test_flip(void)
{
	static const uint8_t masks[] = { 0xff, 0x01, 0x80 };
	const char *path = tmppath("flip.pms");
	struct pme_sample_summary sum;
	struct pme_error err;
	struct seen sn;
	struct gen g;
	size_t len, i, k, errors = 0, reads = 0;
	uint8_t *buf, *copy;
	int fix, rc;

	gen_file_n(&g, path, 0, 10, 6, 3, 4);
	gen_free(&g);
	buf = readfile(path, &len);
	copy = malloc(len);
	for (fix = 0; fix < 2; fix++)
		for (i = 0; i < len; i++)
			for (k = 0; k < sizeof(masks); k++) {
				memcpy(copy, buf, len);
				copy[i] ^= masks[k];
				if (fix)
					fix_crcs(copy, len);
				rc = see(copy, len, &sn, &sum, &err);
				if (rc == 0)
					reads++;
				else if (err.code == PME_OK ||
				    strstr(err.msg, "t.pms") == NULL)
					fail("flip %zu: no message", i);
				else
					errors++;
				seen_free(&sn);
			}
	/* most flips are caught by the CRCs; some reach the decoders */
	CHECK(errors > len && reads > 0);
	free(copy);
	free(buf);
}

/* ------------------------------------------------ forged payloads */

struct forge {
	uint8_t		 b[1 << 16];
	size_t		 n;
};

static void
f_bytes(struct forge *f, const void *p, size_t n)
{
	memcpy(f->b + f->n, p, n);
	f->n += n;
}

static void
f_uv(struct forge *f, uint64_t v)
{
	while (v >= 0x80) {
		f->b[f->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	f->b[f->n++] = (uint8_t)v;
}

/* A file: header chunk of the library's, then the chunk forged. */
static int
forged(const char *type, const struct forge *payload, int closed,
    const char *expect)
{
	static const uint8_t shdr[45] = { 4, 0, 0, 0, 1 };  /* argc 0 */
	const char *path = tmppath("forged.pms");
	struct pme_sample_summary sum;
	struct pme_error err;
	struct pme_writer *w;
	struct seen sn;
	uint8_t *buf;
	size_t len;
	int rc;

	w = pme_writer_open(path, PME_KIND_SAMPLE, 0, &err);
	if (w == NULL)
		die("%s", pme_strerror(&err));
	if (type != NULL && strcmp(type, "SHDR") != 0)
		CHECK(pme_writer_chunk(w, PME_FOURCC('S', 'H', 'D', 'R'), shdr,
		    42, 0, &err) == 0);
	if (type != NULL)
		CHECK(pme_writer_chunk(w, PME_FOURCC(type[0], type[1], type[2],
		    type[3]), payload->b, payload->n, 0, &err) == 0);
	if (closed)
		CHECK(pme_writer_chunk(w, PME_FOURCC('C', 'L', 'O', 'S'),
		    shdr, 32, 0, &err) == 0);
	CHECK(pme_writer_commit(w, &err) == 0);
	buf = readfile(path, &len);
	rc = see(buf, len, &sn, &sum, &err);
	if (expect == NULL && rc != 0)
		fail("forged %s: %s", type, pme_strerror(&err));
	if (expect != NULL && (rc != -1 || err.code != PME_EFORMAT ||
	    strstr(err.msg, expect) == NULL ||
	    strstr(err.msg, "'t.pms': offset 0x") == NULL))
		fail("forged %s: want '%s', got rc %d '%s'", type, expect, rc,
		    pme_strerror(&err));
	seen_free(&sn);
	free(buf);
	return rc;
}

/* An SMPL payload's head: n, one thread, step, bases, column flags. */
static void
f_smpl(struct forge *f, uint64_t n, uint64_t ntids, unsigned cols)
{
	uint64_t k;

	f->n = 0;
	f_uv(f, n);
	f_uv(f, ntids);
	for (k = 0; k < ntids && k < 100; k++) {
		f_uv(f, 7);
		f_uv(f, 2 * k);
	}
	f_uv(f, 10);
	f_uv(f, 0x1000);
	f_uv(f, 0);
	f_uv(f, cols);
}

/* Forged counts and fields: refused before they size anything. */
static void
test_forged(void)
{
	struct forge f;
	uint8_t shdr[64];

	/* a good one first: 2 samples, one thread, no columns stored */
	f_smpl(&f, 2, 1, 0);
	f_bytes(&f, "\x00\x05\x00\x01\x00" "\x02\x02" "\x00\x00", 9);
	CHECK(forged("SMPL", &f, 1, NULL) == 0);
	f_smpl(&f, (uint64_t)1 << 62, 1, 0);
	forged("SMPL", &f, 0, "bad sample or thread count");
	f_smpl(&f, 2, (uint64_t)1 << 40, 0);
	forged("SMPL", &f, 0, "bad sample or thread count");
	f_smpl(&f, 2, 3, 0);		/* more threads than samples */
	forged("SMPL", &f, 0, "bad sample or thread count");
	f_smpl(&f, 2, 1, 0);		/* constant thread index 1 of 1 */
	f_bytes(&f, "\x01\x05\x00\x01\x00" "\x02\x02" "\x00\x00", 9);
	forged("SMPL", &f, 0, "bad sample chunk header");
	f_smpl(&f, 2, 1, 1 << 4);	/* nframes column of 2^32-1 each */
	f_bytes(&f, "\x00\x05\x00\x01", 4);
	f_bytes(&f, "\xff\xff\xff\xff\x0f\xff\xff\xff\xff\x0f", 10);
	f_bytes(&f, "\x02\x02\x00\x00\x00\x00", 6);
	forged("SMPL", &f, 0, "bad sample columns");
	f_smpl(&f, 2, 1, 0);		/* constant nframes 2^32-1 */
	f_bytes(&f, "\x00\x05\x00\x01\xff\xff\xff\xff\x0f", 9);
	f_bytes(&f, "\x02\x02\x00\x00", 4);
	forged("SMPL", &f, 0, "bad sample chunk header");
	f_smpl(&f, 2, 2, 1);		/* thread index out of range */
	f_bytes(&f, "\x05\x00\x01\x00" "\x00\x02" "\x02\x02\x00\x00", 10);
	forged("SMPL", &f, 0, "bad sample columns");
	f_smpl(&f, 2, 1, 0);		/* a byte left over */
	f_bytes(&f, "\x00\x05\x00\x01\x00" "\x02\x02" "\x00\x00\x00", 10);
	forged("SMPL", &f, 0, "bad sample columns");
	f_smpl(&f, 2, 1, 0);		/* a varint of eleven bytes */
	f_bytes(&f, "\x00\x05\x00\x01\x00" "\x02", 6);
	f_bytes(&f, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
	f_bytes(&f, "\x00\x00", 2);
	forged("SMPL", &f, 0, "bad sample columns");
	f_smpl(&f, 1, 1, 32);
	forged("SMPL", &f, 0, "bad column flags");
	f.n = 0;
	f_uv(&f, (uint64_t)1 << 40);
	forged("MAPS", &f, 0, "bad record count");
	f.n = 0;			/* an empty mapping */
	f_bytes(&f, "\x01\x01\x00\x00\x10\x00\x00\x00\x00\x00", 10);
	forged("MAPS", &f, 0, "bad mapping");
	f.n = 0;			/* a mapping past 2^64 */
	f_bytes(&f, "\x01\x01\x00\x00", 4);
	f_uv(&f, UINT64_MAX - 10);
	f_bytes(&f, "\x7f\x00\x00\x00\x00", 5);
	forged("MAPS", &f, 0, "bad mapping");
	f.n = 0;			/* a path with a NUL */
	f_bytes(&f, "\x01\x01\x00\x00\x10\x01\x00\x00\x02\x61\x00\x00", 12);
	forged("MAPS", &f, 0, "bad mapping path");
	f.n = 0;			/* a build-id of 1025 bytes */
	f_bytes(&f, "\x01\x01\x00\x00\x10\x01\x00\x00\x00\x81\x08", 11);
	memset(f.b + f.n, 1, 1025);
	f.n += 1025;
	forged("MAPS", &f, 0, "bad mapping path or build-id");
	f.n = 0;
	f_bytes(&f, "\x01\x09\x01\x01\x00", 5);
	forged("THRD", &f, 0, "bad thread record kind");
	f.n = 0;
	f_uv(&f, (uint64_t)1 << 40);
	forged("THRD", &f, 0, "bad record count");
	f.n = 0;
	f_bytes(&f, "\x01\x01\x01\x01\x00\x05\x61", 7);	/* name cut */
	forged("THRD", &f, 0, "bad thread record");
	memset(shdr, 0, sizeof(shdr));
	f.n = 0;
	f_bytes(&f, shdr, 40);
	f_bytes(&f, "\xff\xff\xff\xff\x07", 5);		/* argc 2^31-1 */
	forged("SHDR", &f, 0, "bad argument count");
	f.n = 0;
	f_bytes(&f, shdr, 40);
	f_bytes(&f, "\x00\x02", 2);			/* note flag 2 */
	forged("SHDR", &f, 0, "bad note");
	f.n = 0;
	f_bytes(&f, shdr, 40);
	f_bytes(&f, "\x00\x00\x00", 3);
	forged("SHDR", &f, 0, "bad length");
	f.n = 0;
	f_bytes(&f, shdr, 31);
	forged("CLOS", &f, 0, "bad length");
	f.n = 0;
	f_bytes(&f, shdr, 42);
	forged("SHDR", &f, 0, NULL);			/* alone: fine */
	f.n = 0;
	forged("XTRA", &f, 1, NULL);			/* unknown: skipped */
	forged(NULL, &f, 0, "no header chunk");
	f_smpl(&f, 0, 0, 0);
	f_bytes(&f, "\x00\x00\x00\x00\x00", 5);
	forged("SMPL", &f, 0, NULL);			/* no samples */
}

/* The SMPL payload pme(5) shows as its example, byte for byte. */
static void
test_manpage_example(void)
{
	static const uint8_t want[] = { 0x04, 0x02, 0x64, 0x00, 0x64, 0x02,
	    0xe8, 0x07, 0x80, 0xa0, 0x80, 0x02, 0xa0, 0x1f, 0x05, 0xe8, 0x07,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x20, 0x0f, 0x00, 0x00,
	    0x00, 0x06, 0xb8, 0x17, 0x00, 0x00, 0x00, 0x03 };
	const char *path = tmppath("ex.pms");
	size_t len, ends[16], n, k, at;
	uint8_t *buf;

	CHECK(write_text("header period=1000 pid=100\n"
	    "sample pc=0x401000 time=5000\nsample pc=0x401010 time=6000\n"
	    "sample pc=0x401008 time=7003\n"
	    "sample tid=101 pc=0x401000 time=6500 cpu=2\nclose\n",
	    path) == 0);
	buf = readfile(path, &len);
	n = chunk_ends(buf, len, ends, 16);
	CHECK(n == 4);		/* SHDR SMPL CLOS END */
	for (k = 0, at = 16; k < n; at = ends[k++])
		if (memcmp(buf + at, "SMPL", 4) == 0) {
			CHECK(ends[k] - at - 20 == sizeof(want));
			CHECK(memcmp(buf + at + 20, want, sizeof(want)) == 0);
			break;
		}
	CHECK(k < n);
	free(buf);
}

/*
 * Boot ids: a header's is written in a BOOT chunk just before it and read
 * back with it, run by run (a run without one after a run with one has
 * none), the same through pme_samplefile_copy() (pmemerge's); the writer
 * refuses one with a space in it, the reader a BOOT chunk that is not one
 * (naming its offset); a BOOT chunk with no header after it is no run.
 */
static const char boot_text[] =
    "header pid=1 start=1 argv=a boot=8a4c2d1e-5b6f-4a7e-9c3d-2e1f0a9b8c7d\n"
    "sample pid=1 pc=0x10\n"
    "close\n"
    "header pid=2 start=2 argv=b\n"
    "sample pid=2 pc=0x20\n"
    "close\n"
    "header pid=3 start=3 argv=c boot=other-boot\n"
    "sample pid=3 pc=0x30\n"
    "close\n";

static void
test_boot(void)
{
	static const uint8_t shdr[42] = { 4, 0, 0, 0, 1 };	/* argc 0 */
	const char *a = tmppath("boot.pms"), *b = tmppath("boot2.pms"),
	    *c = tmppath("boot3.pms");
	struct pme_sample_summary sum;
	struct pme_samplecopy info;
	struct pme_error err;
	struct pme_writer *w;
	struct seen sn;
	char *d, *d2, *h1, *h2, *h3;
	uint8_t *buf;
	size_t len;

	CHECK(write_text(boot_text, a) == 0);
	d = dump_text(a);
	CHECK((h1 = strstr(d, "header ")) != NULL);
	CHECK((h2 = strstr(h1 + 1, "header ")) != NULL);
	CHECK((h3 = strstr(h2 + 1, "header ")) != NULL);
	CHECK(strncmp(strstr(h1, " arg=a"),
	    " arg=a boot=8a4c2d1e-5b6f-4a7e-9c3d-2e1f0a9b8c7d\n", 48) == 0);
	CHECK(strncmp(strstr(h2, " arg=b"), " arg=b\n", 7) == 0);
	CHECK(strncmp(strstr(h3, " arg=c"), " arg=c boot=other-boot\n", 23) ==
	    0);
	/* pmemerge's copy keeps them */
	CHECK((w = pme_writer_open(b, PME_KIND_SAMPLE, 0, &err)) != NULL);
	CHECK(pme_samplefile_copy(w, a, &info, &err) == 0);
	CHECK(info.runs == 3 && info.cut == 0);
	CHECK(pme_writer_commit(w, &err) == 0);
	d2 = dump_text(b);
	same_text("boot ids copied", d, d2);
	free(d);
	free(d2);
	/* the writer refuses what is not one */
	CHECK(write_text_q("header boot=\"a b\"\n", b, 1) == 1);
	/* the reader too, at its offset (after the 16 bytes of the file
	 * header), and a BOOT chunk alone is not a header */
	CHECK((w = pme_writer_open(c, PME_KIND_SAMPLE, 0, &err)) != NULL);
	CHECK(pme_writer_chunk(w, PME_FOURCC('B', 'O', 'O', 'T'),
	    (const uint8_t *)"a b", 3, 0, &err) == 0);
	CHECK(pme_writer_chunk(w, PME_FOURCC('S', 'H', 'D', 'R'), shdr,
	    sizeof(shdr), 0, &err) == 0);
	CHECK(pme_writer_commit(w, &err) == 0);
	buf = readfile(c, &len);
	if (see(buf, len, &sn, &sum, &err) != -1 ||
	    strstr(err.msg, "offset 0x10: 'BOOT' chunk: bad boot id") == NULL)
		fail("bad boot id: got '%s'", pme_strerror(&err));
	seen_free(&sn);
	free(buf);
	CHECK((w = pme_writer_open(c, PME_KIND_SAMPLE, 0, &err)) != NULL);
	CHECK(pme_writer_chunk(w, PME_FOURCC('B', 'O', 'O', 'T'),
	    (const uint8_t *)"x", 1, 0, &err) == 0);
	CHECK(pme_writer_commit(w, &err) == 0);
	buf = readfile(c, &len);
	if (see(buf, len, &sn, &sum, &err) != -1 ||
	    strstr(err.msg, "no header chunk") == NULL)
		fail("a BOOT chunk alone: got '%s'", pme_strerror(&err));
	seen_free(&sn);
	free(buf);
}

/* Chunks out of order. */
static void
test_order(void)
{
	struct pme_sample_summary sum;
	struct pme_error err;
	struct seen sn;
	uint8_t *buf;
	size_t len, ends[64], n;
	const char *path = tmppath("o.pms");

	CHECK(write_text(demo_text, path) == 0);
	buf = readfile(path, &len);
	n = chunk_ends(buf, len, ends, 64);
	CHECK(n >= 5);
	/* SHDR dropped: MAPS comes first */
	memmove(buf + 16, buf + ends[0], len - ends[0]);
	CHECK(see(buf, len - (ends[0] - 16), &sn, &sum, &err) == -1);
	CHECK(strstr(err.msg, "'MAPS' chunk: before the header") != NULL);
	seen_free(&sn);
	free(buf);
	/* a chunk after CLOS: the last SMPL moved behind it */
	CHECK(write_text("header\nsample pc=1\nflush\nsample pc=2\n"
	    "close\n", path) == 0);
	buf = readfile(path, &len);
	n = chunk_ends(buf, len, ends, 64);
	CHECK(n == 5);		/* SHDR SMPL SMPL CLOS END */
	{
		size_t a = ends[1], b = ends[2], c = ends[3];
		uint8_t *t = malloc(len);

		memcpy(t, buf, a);
		memcpy(t + a, buf + b, c - b);
		memcpy(t + a + (c - b), buf + a, b - a);
		memcpy(t + c, buf + c, len - c);
		CHECK(see(t, len, &sn, &sum, &err) == -1);
		CHECK(strstr(err.msg, "after the closing record") != NULL);
		seen_free(&sn);
		/* a second SHDR: a second run, the first empty and cut
		 * short (test_runs) */
		memcpy(t, buf, ends[0]);
		memcpy(t + ends[0], buf + 16, ends[0] - 16);
		CHECK(see(t, 2 * ends[0] - 16, &sn, &sum, &err) == 0);
		CHECK(sn.meta != NULL && strstr(sn.meta, "header") !=
		    NULL && strstr(strstr(sn.meta, "header") + 1,
		    "header") != NULL);
		seen_free(&sn);
		free(t);
	}
	free(buf);
}

/*
 * A file of the library's header chunk, then a chunk of type holding len
 * zero bytes, stored compressed, then END; read, it must fail with what.
 */
static void
too_big(const char *type, size_t len, const char *what)
{
	static const uint8_t shdr[42] = { 4, 0, 0, 0, 1 };  /* argc 0 */
	const char *path = tmppath("big.pms");
	struct pme_sample_summary sum;
	struct pme_error err;
	struct pme_writer *w;
	struct seen sn;
	uint8_t *zero, *buf;
	size_t n;

	if ((zero = calloc(1, len)) == NULL)
		die("out of memory");
	w = pme_writer_open(path, PME_KIND_SAMPLE, 0, &err);
	if (w == NULL)
		die("%s", pme_strerror(&err));
	if (strcmp(type, "SHDR") != 0)
		CHECK(pme_writer_chunk(w, PME_FOURCC('S', 'H', 'D', 'R'), shdr,
		    sizeof(shdr), 0, &err) == 0);
	CHECK(pme_writer_chunk(w, PME_FOURCC(type[0], type[1], type[2],
	    type[3]), zero, len, 1, &err) == 0);
	CHECK(pme_writer_commit(w, &err) == 0);
	free(zero);
	buf = readfile(path, &n);
	if (see(buf, n, &sn, &sum, &err) != -1 || err.code != PME_EFORMAT ||
	    strstr(err.msg, what) == NULL)
		fail("%s of %zu bytes: want '%s', got '%s'", type, len, what,
		    pme_strerror(&err));
	seen_free(&sn);
	free(buf);
}

/*
 * demo_text's file with a chunk of type spliced in after chunk k (0 the
 * header): flags zlib, raw 1000, a stored payload that is no zlib stream,
 * and a good CRC.  Read, it fails with what, or is read when what is NULL.
 */
static void
junk_after(size_t k, const char *type, const char *what)
{
	const char *path = tmppath("junk.pms");
	struct pme_sample_summary sum;
	struct pme_error err;
	struct seen sn;
	uint8_t *buf, *t, *p;
	size_t len, ends[64];
	uint32_t c;
	int rc;

	CHECK(write_text(demo_text, path) == 0);
	buf = readfile(path, &len);
	CHECK(chunk_ends(buf, len, ends, 64) > k);
	t = malloc(len + 25);
	memcpy(t, buf, ends[k]);
	p = t + ends[k];
	memcpy(p, type, 4);
	memcpy(p + 4, "\x01\0\0\0\x05\0\0\0\xe8\x03\0\0", 12);
	memcpy(p + 20, "junk!", 5);
	c = (uint32_t)crc32(crc32(0, p, 16), p + 20, 5);
	p[16] = (uint8_t)c; p[17] = (uint8_t)(c >> 8);
	p[18] = (uint8_t)(c >> 16); p[19] = (uint8_t)(c >> 24);
	memcpy(p + 25, buf + ends[k], len - ends[k]);
	rc = see(t, len + 25, &sn, &sum, &err);
	if (what == NULL ? rc != 0 : rc != -1 ||
	    strstr(err.msg, what) == NULL)
		fail("junk %s after chunk %zu: want '%s', got '%s'", type, k,
		    what ? what : "read", pme_strerror(&err));
	seen_free(&sn);
	free(t);
	free(buf);
}

/*
 * The writer keeps to the reader's limits on a header: 2^20 words of a
 * command line and 8 MiB, and refuses more rather than write a file no
 * reader takes.
 */
static void
test_writer_limits(const char *path)
{
	static const char *const word[] = { "" };
	struct pme_sample_header h;
	struct pme_sample_summary sum;
	struct pme_samplewriter *w;
	struct pme_error err;
	const char **argv;
	char *huge;
	size_t argc;

	if ((argv = calloc((1u << 20) + 1, sizeof(*argv))) == NULL ||
	    (huge = malloc((8u << 20) + 1)) == NULL)
		die("out of memory");
	memset(huge, 'x', 8u << 20);
	huge[8u << 20] = '\0';
	memset(&h, 0, sizeof(h));
	h.method = PME_METHOD_TEST;
	h.argv = argv;
	for (argc = 1u << 20; argc <= (1u << 20) + 1; argc++) {
		for (size_t i = 0; i < argc; i++)
			argv[i] = word[0];
		h.argc = (uint32_t)argc;
		w = pme_samplewriter_open(path, &h, 0, &err);
		if (argc == 1u << 20) {
			CHECK(w != NULL && pme_samplewriter_close(w, NULL,
			    &err) == 0);
			CHECK(pme_samplefile_read(path, NULL, NULL, &sum,
			    &err) == 0);
		} else
			CHECK(w == NULL && err.code == PME_ELIMIT &&
			    strstr(err.msg, "too long for a header") != NULL);
	}
	argv[0] = huge;
	h.argc = 1;
	w = pme_samplewriter_open(path, &h, 0, &err);
	CHECK(w == NULL && err.code == PME_ELIMIT);
	free(huge);
	free(argv);
}

/*
 * What a chunk may hold: no more than the writer puts in one, refused
 * before anything is inflated; a chunk in the wrong place refused unread;
 * a chunk of an unknown type passed over uninflated.
 */
static void
test_limits(void)
{
	struct forge f;
	uint8_t *big, *p;
	const char *path = tmppath("argc.pms");
	struct pme_sample_summary sum;
	struct pme_error err;
	struct pme_writer *w;
	size_t k, n;
	int argc;

	too_big("SHDR", (8u << 20) + 1, "offset 0x10: 'SHDR' chunk of "
	    "8388609 bytes, more than the 8388608 it may hold");
	too_big("MAPS", (16u << 20) + 257, "offset 0x4e: 'MAPS' chunk of "
	    "16777473 bytes, more than the 16777472 it may hold");
	too_big("THRD", (16u << 20) + 257, "more than the 16777472");
	too_big("SMPL", (16u << 20) + 257, "more than the 16777472");
	too_big("CLOS", 33, "'CLOS' chunk of 33 bytes, more than the 32 it "
	    "may hold");
	too_big("MAPS", 16u << 20, "'MAPS' chunk: bytes after the last "
	    "record");		/* at the limit: read, and found wrong */
	/* another run's header: its payload read, and found wrong */
	junk_after(0, "SHDR", "offset 0x63: bad compressed payload");
	junk_after(6, "SMPL", "'SMPL' chunk: after the closing record");
	junk_after(1, "MAPS", "offset 0x94: bad compressed payload");
	junk_after(1, "JUNK", NULL);
	junk_after(6, "JUNK", NULL);

	/* 1024 threads in a chunk, as the writer's table holds; not 1025 */
	for (n = 1024; n <= 1025; n++) {
		f.n = 0;
		f_uv(&f, n);
		f_uv(&f, n);
		for (k = 0; k < n; k++) {
			f_uv(&f, 7);
			f_uv(&f, 2 * k);
		}
		f_bytes(&f, "\x0a\x80\x20\x00\x01" "\x05\x00\x00\x00", 9);
		for (k = 0; k < n; k++)
			f_uv(&f, k);
		for (k = 0; k < 2 * n; k++)
			f_uv(&f, 0);
		forged("SMPL", &f, 0, n == 1024 ? NULL :
		    "bad sample or thread count");
	}
	/* 1024 frames in a sample, as the writer takes; not 1025 */
	for (n = 1024; n <= 1025; n++) {
		f_smpl(&f, 1, 1, 1 << 4);
		f_bytes(&f, "\x00\x05\x00\x01" "\x00\x00", 6);
		f_uv(&f, n);
		for (k = 0; k < n; k++)
			f_uv(&f, 2);
		forged("SMPL", &f, 0, n == 1024 ? NULL : "bad sample columns");
	}
	/* 2^20 arguments in the header, not one more */
	if ((big = calloc(1, (2u << 20) + 64)) == NULL)
		die("out of memory");
	for (argc = 1 << 20; argc <= (1 << 20) + 1; argc++) {
		p = big + 40;
		for (n = (size_t)argc; n >= 0x80; n >>= 7)
			*p++ = (uint8_t)(n | 0x80);
		*p++ = (uint8_t)n;
		p += argc + 1;		/* empty strings, no note */
		w = pme_writer_open(path, PME_KIND_SAMPLE, 0, &err);
		CHECK(w != NULL && pme_writer_chunk(w, PME_FOURCC('S', 'H',
		    'D', 'R'), big, (size_t)(p - big), 1, &err) == 0 &&
		    pme_writer_commit(w, &err) == 0);
		memset(&err, 0, sizeof(err));
		if (argc == 1 << 20)
			CHECK(pme_samplefile_read(path, NULL, NULL, &sum,
			    &err) == 0);
		else
			CHECK(pme_samplefile_read(path, NULL, NULL, &sum,
			    &err) == -1 && strstr(err.msg,
			    "'SHDR' chunk: bad argument count") != NULL);
	}
	free(big);
	test_writer_limits(path);
}

/* A visitor that checks each batch against the reader's bounds. */
struct batches {
	size_t		 calls, most, mostframes;
	struct seen	 sn;
};

static int
b_check(void *arg, const struct pme_sample *s, size_t n)
{
	struct batches *b = arg;
	size_t i, fr = 0;

	for (i = 0; i < n; i++)
		fr += s[i].nframes;
	b->calls++;
	if (n > b->most)
		b->most = n;
	if (fr > b->mostframes)
		b->mostframes = fr;
	return s_samples(&b->sn, s, n);
}

/*
 * A chunk of the largest buffer holds millions of samples: they are
 * passed in batches of at most 32768 samples and 65536 frames, the same
 * samples in the same order as one chunk of the smallest buffer would.
 */
static void
test_batches(void)
{
	static const struct pme_sample_visitor v = {
		NULL, NULL, NULL, b_check, NULL
	};
	static uint64_t frames[1024];
	struct pme_sample_header h = { PME_METHOD_TEST, 0, 1000, 0, 0, 1, 0,
	    0, NULL, NULL, NULL, 0, NULL };
	struct pme_sample s = { 0x1000, 0, 1000, 1, 1, 0, 0, 0, 0, NULL };
	const char *path = tmppath("batch.pms");
	struct pme_samplewriter *w;
	struct pme_sample_summary sum;
	struct pme_error err;
	struct batches b;
	uint32_t i, j;
	char *want;
	int pass;

	for (j = 0; j < 1024; j++)
		frames[j] = 0x2000 + j;
	for (pass = 0; pass < 2; pass++) {
		w = pme_samplewriter_open(path, &h, pass ? 1 : 16u << 20,
		    &err);
		if (w == NULL)
			die("%s", pme_strerror(&err));
		for (i = 0, s.time = 0; i < 1000000; i++, s.time += 1000) {
			s.pc = 0x1000 + i % 5;
			s.nframes = i % 100000 < 200 ? 1024 : i % 3;
			s.frames = frames;
			if (pme_samplewriter_sample(w, &s, &err) != 0)
				die("%s", pme_strerror(&err));
		}
		CHECK(pme_samplewriter_close(w, NULL, &err) == 0);
		memset(&b, 0, sizeof(b));
		seen_open(&b.sn);
		CHECK(pme_samplefile_read(path, &v, &b, &sum, &err) == 0);
		seen_close(&b.sn);
		CHECK(sum.samples == 1000000 && b.sn.samples == 1000000);
		CHECK(b.most <= 32768 && b.mostframes <= 65536);
		if (pass == 0) {
			/* a few chunks of 16 MiB: batches of each */
			CHECK(b.calls > 30 && b.most == 32768);
			CHECK(b.mostframes > 60000);
			want = b.sn.smp;
		} else {
			same_text("batched samples", want, b.sn.smp);
			free(want);
		}
		if (pass == 1)
			seen_free(&b.sn);
		else
			free(b.sn.meta);
	}
}

static int
stop_at_map(void *arg, const struct pme_mapping *m)
{
	(void)m;
	return ++*(int *)arg;
}

static int
stop_with_err(void *arg, const struct pme_sample *s, size_t n)
{
	(void)s;
	(void)n;
	struct pme_error *err = arg;

	err->code = PME_ELIMIT;
	snprintf(err->msg, sizeof(err->msg), "enough");
	return 1;
}

/* A visitor stops the reading; the writer refuses what it should. */
static void
test_errors(void)
{
	struct pme_sample_visitor v = { NULL, stop_at_map, NULL, NULL, NULL };
	struct pme_sample_header h = { PME_METHOD_TEST, 0, 1, 0, 0, 1, 0, 0,
	    NULL, NULL, NULL, 0, NULL };
	struct pme_sample s = { 1, 2, 3, 4, 5, 6, 0, 0, 1, NULL };
	struct pme_mapping m = { 1, 0, 0, 10, 10, 0, 0, "x", NULL, 3 };
	struct pme_thread t = { 9, 1, 1, 0, 0, 0, NULL };
	struct pme_sample_summary sum;
	struct pme_samplewriter *w;
	struct pme_error err;
	const char *path = tmppath("e.pms");
	uint8_t *buf;
	size_t len;
	int calls = 0;

	CHECK(write_text(demo_text, path) == 0);
	CHECK(pme_samplefile_read(path, &v, &calls, &sum, &err) == -1);
	CHECK(calls == 1 && err.code == PME_EINVAL);
	CHECK(strstr(err.msg, path) != NULL);
	v.mapping = NULL;
	v.samples = stop_with_err;
	CHECK(pme_samplefile_read(path, &v, &err, &sum, &err) == -1);
	CHECK(err.code == PME_ELIMIT && strcmp(err.msg, "enough") == 0);
	/* no file, no directory, a full disk */
	CHECK(pme_samplefile_read(tmppath("none.pms"), NULL, NULL, &sum,
	    &err) == -1 && err.code == PME_EIO && err.sys_errno == ENOENT);
	w = pme_samplewriter_open(tmppath("no/such/dir.pms"), &h, 0, &err);
	CHECK(w == NULL && err.code == PME_EIO);
	CHECK(strstr(err.msg, "no/such/dir.pms") != NULL);
	if (access("/dev/full", W_OK) == 0) {
		w = pme_samplewriter_open("/dev/full", &h, 0, &err);
		CHECK(w == NULL && err.code == PME_EIO &&
		    err.sys_errno == ENOSPC);
		CHECK(strstr(err.msg, "/dev/full") != NULL);
	}
	CHECK(pme_samplewriter_open(NULL, &h, 0, &err) == NULL &&
	    err.code == PME_EINVAL);
	h.argc = 1;
	CHECK(pme_samplewriter_open(path, &h, 0, &err) == NULL &&
	    err.code == PME_EINVAL);
	h.argc = 0;
	w = pme_samplewriter_open(path, &h, 0, &err);
	CHECK(w != NULL);
	if (w == NULL)
		return;
	CHECK(pme_samplewriter_sample(w, &s, &err) == -1 &&
	    err.code == PME_EINVAL);		/* frames NULL */
	s.nframes = 1025;
	s.frames = &s.pc;
	CHECK(pme_samplewriter_sample(w, &s, &err) == -1 &&
	    err.code == PME_ELIMIT);
	CHECK(pme_samplewriter_mapping(w, &m, &err) == -1 &&
	    err.code == PME_EINVAL);		/* empty */
	m.end = 11;
	CHECK(pme_samplewriter_mapping(w, &m, &err) == -1 &&
	    err.code == PME_EINVAL);		/* build-id NULL */
	m.buildid_len = 1025;
	m.buildid = buf = calloc(1, 1025);
	CHECK(pme_samplewriter_mapping(w, &m, &err) == -1 &&
	    err.code == PME_ELIMIT);
	free(buf);
	CHECK(pme_samplewriter_thread(w, &t, &err) == -1 &&
	    err.code == PME_EINVAL);
	CHECK(pme_samplewriter_sample(w, NULL, &err) == -1);
	CHECK(pme_samplewriter_flush(NULL, &err) == -1);
	CHECK(pme_samplewriter_close(NULL, NULL, &err) == -1);
	pme_samplewriter_abort(NULL);
	/* nothing written but the header: close with no record given */
	CHECK(pme_samplewriter_close(w, NULL, &err) == 0);
	buf = readfile(path, &len);
	CHECK(pme_samplefile_mem(buf, len, "x", NULL, NULL, &sum, &err) == 0);
	CHECK(sum.closed && sum.samples == 0 && sum.lost_bytes == -1);
	free(buf);
}

/* abort leaves what was flushed, readable, without CLOS or END. */
static void
test_abort(void)
{
	struct pme_sample_header h = { PME_METHOD_TEST, 0, 1, 0, 0, 1, 0, 0,
	    NULL, NULL, NULL, 0, NULL };
	struct pme_sample s = { 0x1000, 0, 1, 1, 1, UINT32_MAX, 0, 0, 0, NULL };
	struct pme_sample_summary sum;
	struct pme_samplewriter *w;
	struct pme_error err;
	const char *path = tmppath("ab.pms");
	int i;

	w = pme_samplewriter_open(path, &h, 0, &err);
	CHECK(w != NULL);
	if (w == NULL)
		return;
	for (i = 0; i < 100000; i++, s.time += 10, s.pc += i % 7)
		CHECK(pme_samplewriter_sample(w, &s, &err) == 0);
	CHECK(pme_samplewriter_flush(w, &err) == 0);
	for (i = 0; i < 1000; i++, s.time += 10)
		CHECK(pme_samplewriter_sample(w, &s, &err) == 0);
	pme_samplewriter_abort(w);
	CHECK(pme_samplefile_read(path, NULL, NULL, &sum, &err) == 0);
	CHECK(sum.closed == 0 && sum.lost_bytes == 0);
	CHECK(sum.samples == 100000);
}

/* "-" writes standard output. */
static void
test_stdout(void)
{
	const char *path = tmppath("so.pms");
	struct pme_sample_summary sum;
	struct pme_error err;
	pid_t pid;
	int fd, st;

	if ((pid = fork()) == 0) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd == -1 || dup2(fd, 1) == -1)
			_exit(3);
		_exit(do_write_str(demo_text, "-"));
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0);
	CHECK(pme_samplefile_read(path, NULL, NULL, &sum, &err) == 0);
	CHECK(sum.closed && sum.samples == 5 && sum.lost_bytes == -1);
}

/* ------------------------------------------------------- address map */

static uint32_t
am_map(struct pme_addrmap *am, uint32_t pid, uint64_t t, uint64_t start,
    uint64_t end, uint64_t vaddr, uint32_t flags)
{
	struct pme_mapping m = { pid, flags, t, start, end, 0, vaddr, NULL,
	    NULL, 0 };
	struct pme_error err;
	const struct pme_mapping *all;
	char path[64];

	snprintf(path, sizeof(path), "/m/%" PRIu32 "/%" PRIx64, pid, start);
	m.path = path;
	CHECK(pme_addrmap_mapping(am, &m, &err) == 0);
	return (uint32_t)pme_addrmap_mappings(am, &all) - 1;
}

static void
am_thread(struct pme_addrmap *am, uint32_t kind, uint32_t pid, uint32_t ppid)
{
	struct pme_thread t = { kind, pid, pid, ppid, ppid, 0, "x" };
	struct pme_error err;

	CHECK(pme_addrmap_thread(am, &t, &err) == 0);
}

#define LOOK(pid, t, pc, want, wantva) do { \
	uint64_t va_ = 0; \
	uint32_t got_ = pme_addrmap_lookup(am, pid, t, pc, &va_); \
	if (got_ != (want) || (got_ != PME_NONE && va_ != (wantva))) \
		fail("%s:%d: lookup(%u, %llu, 0x%llx): %u 0x%llx, want %u", \
		    __FILE__, __LINE__, (unsigned)(pid), \
		    (unsigned long long)(t), (unsigned long long)(pc), got_, \
		    (unsigned long long)va_, (unsigned)(want)); \
} while (0)

static void
test_addrmap_cases(void)
{
	struct pme_addrmap *am = pme_addrmap_new(NULL);
	const struct pme_mapping *all;
	uint32_t m1, m2, m3, m4, m5, k;

	LOOK(1, 0, 0x1000, PME_NONE, 0);
	m1 = am_map(am, 100, 0, 0x1000, 0x2000, 0x401000, PME_MAP_EXEC);
	LOOK(100, 5, 0x1000, m1, 0x401000);
	LOOK(100, 5, 0x1fff, m1, 0x401fff);
	LOOK(100, 5, 0x2000, PME_NONE, 0);
	LOOK(100, 5, 0xfff, PME_NONE, 0);
	LOOK(101, 5, 0x1000, PME_NONE, 0);
	/* replaced at 100 by a wider mapping */
	m2 = am_map(am, 100, 100, 0x1000, 0x3000, 0, PME_MAP_EXEC);
	LOOK(100, 50, 0x1800, m1, 0x401800);
	LOOK(100, 100, 0x1800, m2, 0x800);
	LOOK(100, 50, 0x1800, m1, 0x401800);	/* the cache knows time */
	LOOK(100, 150, 0x1800, m2, 0x800);
	LOOK(100, 99, 0x1800, m1, 0x401800);
	LOOK(100, 50, 0x2800, m2, 0x1800);	/* only one: before it */
	LOOK(100, UINT64_MAX, 0x2fff, m2, 0x1fff);
	/* reported after the samples it holds */
	m3 = am_map(am, 100, 1000, 0x8000, 0x9000, 0x10, 0);
	LOOK(100, 10, 0x8000, m3, 0x10);
	LOOK(100, 10, 0x1000, m1, 0x401000);
	/* fork copies as of the fork */
	am_thread(am, PME_THREAD_FORK, 200, 100);
	m4 = am_map(am, 100, 2000, 0x5000, 0x6000, 0, 0);
	LOOK(200, 3000, 0x1800, m2, 0x800);
	LOOK(200, 3000, 0x5000, PME_NONE, 0);
	LOOK(100, 3000, 0x5000, m4, 0);
	am_thread(am, PME_THREAD_FORK, 100, 100);	/* a thread */
	LOOK(100, 3000, 0x5000, m4, 0);
	am_thread(am, PME_THREAD_FORK, 300, 999);	/* unknown parent */
	LOOK(300, 3000, 0x1800, PME_NONE, 0);
	/* exec drops; later mappings rebuild */
	am_thread(am, PME_THREAD_EXEC, 200, 0);
	LOOK(200, 3000, 0x1800, PME_NONE, 0);
	LOOK(100, 3000, 0x1800, m2, 0x800);
	m5 = am_map(am, 200, 4000, 0x1000, 0x2000, 0x7000, 0);
	LOOK(200, 4000, 0x1800, m5, 0x7800);
	LOOK(200, 3000, 0x1800, m5, 0x7800);
	am_thread(am, PME_THREAD_COMM, 200, 0);
	am_thread(am, PME_THREAD_EXIT, 200, 0);
	LOOK(200, 3000, 0x1800, m5, 0x7800);
	/* the kernel's, for every process, under the process's own */
	k = am_map(am, 0, 0, 0xffffffff81000000ull, 0xffffffff82000000ull,
	    0xffffffff81000000ull, PME_MAP_KERNEL | PME_MAP_EXEC);
	LOOK(100, 1, 0xffffffff81000010ull, k, 0xffffffff81000010ull);
	LOOK(12345, 1, 0xffffffff81ffffffull, k, 0xffffffff81ffffffull);
	LOOK(12345, 1, 0xffffffff82000000ull, PME_NONE, 0);
	LOOK(100, 1, 0x1000, m1, 0x401000);
	CHECK(pme_addrmap_mappings(am, &all) == 6);
	CHECK(strcmp(all[m4].path, "/m/100/5000") == 0 && all[k].pid == 0);
	pme_addrmap_free(am);
	pme_addrmap_free(NULL);
}

/* A reference: every mapping held, in a plain list per lookup. */
struct refmap {
	uint32_t	 pid, idx;
	uint64_t	 t, start, end;
	int		 live;
};

static uint32_t
ref_lookup(const struct refmap *r, size_t n, uint32_t pid, uint64_t t,
    uint64_t pc)
{
	uint32_t best = PME_NONE, first = PME_NONE;
	uint64_t bt = 0, ft = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!r[i].live || r[i].pid != pid || pc < r[i].start ||
		    pc >= r[i].end)
			continue;
		if (first == PME_NONE || r[i].t < ft) {
			first = r[i].idx;
			ft = r[i].t;
		}
		if (r[i].t <= t && (best == PME_NONE || r[i].t >= bt)) {
			best = r[i].idx;
			bt = r[i].t;
		}
	}
	return best != PME_NONE ? best : first;
}

/* Random mappings, execs and lookups against the reference. */
static void
test_addrmap_random(void)
{
	static struct refmap r[4000];
	struct pme_addrmap *am = pme_addrmap_new(NULL);
	uint64_t x = 12345, v, start, t = 0;
	size_t n = 0, i, j;
	uint32_t pid, want, got, k;

	for (i = 0; i < 200000; i++) {
		v = rnd(&x);
		pid = 1 + (uint32_t)(v % 4);
		if (v % 50 == 0 && n < 4000) {
			start = 0x1000 * ((v >> 8) % 64);
			t += (v >> 20) % 3;
			k = am_map(am, pid, t, start, start + 0x1000 *
			    (1 + (v >> 30) % 8), start, 0);
			r[n] = (struct refmap){ pid, k, t, start, start +
			    0x1000 * (1 + (v >> 30) % 8), 1 };
			n++;
		} else if (v % 997 == 0) {
			am_thread(am, PME_THREAD_EXEC, pid, 0);
			for (j = 0; j < n; j++)
				if (r[j].pid == pid)
					r[j].live = 0;
		} else {
			/* mostly near the last lookup, as samples are */
			uint64_t pc = (v >> 16) % (72 * 0x1000);
			uint64_t when = t - (v >> 40) % 4;

			want = ref_lookup(r, n, pid, when, pc);
			got = pme_addrmap_lookup(am, pid, when, pc, NULL);
			if (got != want) {
				fail("random lookup %zu: got %u want %u", i,
				    got, want);
				break;
			}
		}
	}
	pme_addrmap_free(am);
}

/* Lookups per second, mostly cache hits as in a real profile. */
static void
bench_addrmap(void)
{
	struct pme_addrmap *am = pme_addrmap_new(NULL);
	uint64_t x = 1, sum = 0, va, i, n = 2000000;
	double t0;
	uint32_t j;

	for (j = 0; j < 300; j++)
		am_map(am, 1, 0, 0x10000 * (uint64_t)j, 0x10000 * (uint64_t)j +
		    0x8000, 0, 0);
	t0 = now();
	for (i = 0; i < n; i++) {
		uint64_t v = rnd(&x);
		uint64_t pc = v % 10 < 9 ? 0x10000 * 7 + v % 0x8000 :
		    0x10000 * (v >> 32 & 255) + (v >> 8) % 0x8000;

		sum += pme_addrmap_lookup(am, 1, i, pc, &va);
	}
	if (getenv("T_SAMPLE_VERBOSE") != NULL)
		fprintf(stderr, "addrmap: %.1f M lookups/s (%llu)\n",
		    n / (now() - t0) / 1e6, (unsigned long long)sum);
	pme_addrmap_free(am);
}

/* ---------------------------------- pme_elf_read, _addr and _vaddr */

static int
run(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Every PT_LOAD of readelf -lW: the offset of each, its middle and the
 * page below it give the addresses readelf says. */
static void
check_elf(const char *path)
{
	char cmd[8600], line[512], flags[16];
	unsigned long long off, va, pa, fsz, msz, align;
	uint64_t got;
	struct pme_error err;
	uint8_t id[64];
	uint32_t idlen;
	struct pme_elf e;
	int loads = 0;
	FILE *p;

	CHECK(pme_elf_read(path, &e, &err) == 0);
	snprintf(cmd, sizeof(cmd), "readelf -lW '%s'", path);
	if ((p = popen(cmd, "r")) == NULL)
		die("popen");
	while (fgets(line, sizeof(line), p) != NULL) {
		flags[0] = '\0';
		if (sscanf(line, " LOAD 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx "
		    "%15[RWE ] 0x%llx", &off, &va, &pa, &fsz, &msz, flags,
		    &align) != 7)
			continue;
		/* pme_elf_read() has the same segments, in order */
		if (loads < (int)e.nload) {
			const struct pme_elfload *l = &e.load[loads];

			if (l->offset != off || l->vaddr != va ||
			    l->filesz != fsz || l->memsz != msz ||
			    !(l->flags & PF_X) != !strchr(flags, 'E'))
				fail("%s: PT_LOAD %d differs from readelf's",
				    path, loads);
		}
		loads++;
		CHECK(pme_elf_vaddr(path, off, &got, NULL, NULL, &err) == 0);
		if (got != va)
			fail("%s: offset 0x%llx: 0x%llx, readelf 0x%llx", path,
			    off, (unsigned long long)got, va);
		if (fsz > 2) {
			CHECK(pme_elf_vaddr(path, off + fsz / 2, &got, NULL,
			    NULL, &err) == 0);
			CHECK(got == va + fsz / 2);
		}
		if (strchr(flags, 'E') != NULL) {
			CHECK(pme_elf_vaddr(path, off & ~0xfffull, &got, NULL,
			    NULL, &err) == 0);
			CHECK(got == va - (off & 0xfff));
		}
	}
	pclose(p);
	CHECK(loads >= 2);
	CHECK((int)e.nload == loads);
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | sed -n "
	    "'s/.*Build ID: *\\([0-9a-f]*\\).*/\\1/p'", path);
	if ((p = popen(cmd, "r")) == NULL)
		die("popen");
	line[0] = '\0';
	if (fgets(line, sizeof(line), p) == NULL)
		line[0] = '\0';
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
	CHECK(pme_elf_vaddr(path, 0, &got, id, &idlen, &err) == 0);
	CHECK(idlen * 2 == strlen(line));
	CHECK(e.idlen == idlen && memcmp(e.buildid, id, idlen) == 0);
	for (uint32_t i = 0; i < idlen && i < 64; i++) {
		char hx[3];

		snprintf(hx, sizeof(hx), "%02x", id[i]);
		if (strncmp(hx, line + 2 * i, 2) != 0) {
			fail("%s: build-id differs from readelf's %s", path,
			    line);
			break;
		}
	}
}

static void
test_elf(void)
{
	const char *top = getenv("PME_TOP");
	char cmd[16384], pie[4200], nopie[4200], so[4200];
	struct pme_error err;
	uint8_t id[64];
	uint32_t idlen = 7;
	uint64_t va;

	if (top == NULL)
		top = ".";
	snprintf(pie, sizeof(pie), "%s", tmppath("pie"));
	snprintf(nopie, sizeof(nopie), "%s", tmppath("nopie"));
	snprintf(so, sizeof(so), "%s", tmppath("lib.so"));
	snprintf(cmd, sizeof(cmd), "gcc -O1 -fPIE -pie -Wl,--build-id -o '%s' "
	    "%s/tests/fixtures/demo/*.c && gcc -O1 -no-pie -fno-PIE "
	    "-Wl,--build-id=sha1 -o '%s' %s/tests/fixtures/demo/*.c && "
	    "gcc -O1 -shared -fPIC -Wl,--build-id=md5 -o '%s' "
	    "%s/tests/fixtures/shlib/lib.c", pie, top, nopie, top, so, top);
	if (run("command -v gcc >/dev/null && command -v readelf "
	    ">/dev/null") != 0 || run(cmd) != 0) {
		fprintf(stderr, "t_sample: no gcc or readelf: "
		    "pme_elf_vaddr not checked\n");
		return;
	}
	check_elf(pie);
	check_elf(nopie);
	check_elf(so);
	/* no build-id at all */
	snprintf(cmd, sizeof(cmd), "gcc -O1 -Wl,--build-id=none -o '%s' "
	    "%s/tests/fixtures/demo/*.c", pie, top);
	if (run(cmd) == 0) {
		CHECK(pme_elf_vaddr(pie, 0, &va, id, &idlen, &err) == 0);
		CHECK(idlen == 0);
	}
	/* not ELF: offsets are addresses; no file: an error */
	writefile(tmppath("text"), "hello\n", 6);
	CHECK(pme_elf_vaddr(tmppath("text"), 0x1234, &va, id, &idlen,
	    &err) == 0 && va == 0x1234 && idlen == 0);
	CHECK(pme_elf_vaddr(tmppath("absent"), 0, &va, id, &idlen,
	    &err) == -1 && err.code == PME_EIO);
	/* A FIFO (a path from a damaged file may name one): refused at
	 * once, never waited on (the alarm fails the test if it hangs). */
	if (mkfifo(tmppath("fifo"), 0600) == 0) {
		alarm(10);
		CHECK(pme_elf_vaddr(tmppath("fifo"), 0, &va, id, &idlen,
		    &err) == -1 && strstr(err.msg, "not a regular file"));
		alarm(0);
	}
	{
		struct pme_elf e;

		memset(&e, 0xff, sizeof(e));
		CHECK(pme_elf_read(tmppath("text"), &e, &err) == 0 &&
		    e.type == 0 && e.nload == 0 && e.idlen == 0);
		CHECK(pme_elf_addr(&e, 0x1234) == 0x1234);
		memset(&e, 0xff, sizeof(e));
		CHECK(pme_elf_read(tmppath("absent"), &e, &err) == -1 &&
		    err.code == PME_EIO && e.nload == 0 && e.type == 0);
	}
}

/* What test_events() reads back. */
struct evseen {
	uint32_t	 nevents;
	char		 names[2][32], units[2][32];
	uint64_t	 periods[2];
	uint32_t	 flags[2];
	uint64_t	 per[3];	/* samples of events 0, 1, other */
	uint64_t	 weight[2];
	int		 order_ok;
	uint32_t	 next;		/* the event the next sample has */
};

static int
ev_header(void *arg, const struct pme_sample_header *h)
{
	struct evseen *e = arg;
	uint32_t i;

	e->nevents = h->nevents;
	for (i = 0; i < h->nevents && i < 2; i++) {
		snprintf(e->names[i], 32, "%s", h->events[i].name);
		snprintf(e->units[i], 32, "%s", h->events[i].unit);
		e->periods[i] = h->events[i].period;
		e->flags[i] = h->events[i].flags;
	}
	return 0;
}

static int
ev_samples(void *arg, const struct pme_sample *s, size_t n)
{
	struct evseen *e = arg;
	size_t i;

	for (i = 0; i < n; i++) {
		e->per[s[i].event < 2 ? s[i].event : 2]++;
		if (s[i].event < 2)
			e->weight[s[i].event] += s[i].weight;
		/* samples 0..999 alternate, then 1000 of event 1 alone */
		if (s[i].event != e->next)
			e->order_ok = 0;
		e->next = e->per[0] + e->per[1] < 1000 ?
		    (e->per[0] + e->per[1]) % 2 : 1;
	}
	return 0;
}

/* The chunks of a file, "SMPL SMPX ...", into buf. */
static void
chunk_types(const char *path, char *buf, size_t len)
{
	struct pme_reader *r;
	struct pme_chunk c;
	struct pme_error err;
	size_t at = 0;

	buf[0] = '\0';
	if ((r = pme_reader_open(path, PME_KIND_SAMPLE, &err)) == NULL)
		die("%s", pme_strerror(&err));
	while (pme_reader_next(r, &c, &err) == 1 && at + 6 < len) {
		memcpy(buf + at, &c.type, 4);
		buf[at + 4] = ' ';
		at += 5;
	}
	buf[at] = '\0';
	pme_reader_close(r);
}

/*
 * Format 1.1: a run's events in its header, each sample's event; samples
 * all of the first event in SMPL chunks a 1.0 reader reads, the others in
 * SMPX; a sample of an event the header does not list is refused.
 */
static void
test_events(void)
{
	static const struct pme_sample_visitor v = {
		ev_header, NULL, NULL, ev_samples, NULL
	};
	static const struct pme_sample_event evs[2] = {
		{ "cpu-clock", "ns", 1, 1, 0, 1000, 0 },
		{ "page-faults", "page faults", 2, 1, 2, 0, PME_SEV_FREQ },
	};
	struct pme_sample_header h = { PME_METHOD_TEST, 0, 1000, 0, 0, 1, 0,
	    0, NULL, NULL, NULL, 2, evs };
	struct pme_sample s = { 0x1000, 0, 1000, 1, 1, 0, 0, 0, 0, NULL };
	const char *path = tmppath("events.pms");
	struct pme_sample_summary sum;
	struct pme_samplewriter *w;
	struct pme_error err;
	struct evseen e;
	char types[256];
	uint32_t i;

	/* only the first event: SMPL chunks, as 1.0 wrote them */
	if ((w = pme_samplewriter_open(path, &h, 0, &err)) == NULL)
		die("%s", pme_strerror(&err));
	for (i = 0; i < 10; i++, s.time += 1000)
		CHECK(pme_samplewriter_sample(w, &s, &err) == 0);
	CHECK(pme_samplewriter_close(w, NULL, &err) == 0);
	chunk_types(path, types, sizeof(types));
	CHECK(strstr(types, "EVTS SHDR SMPL CLOS") != NULL &&
	    strstr(types, "SMPX") == NULL);

	if ((w = pme_samplewriter_open(path, &h, 1, &err)) == NULL)
		die("%s", pme_strerror(&err));
	for (i = 0; i < 2000; i++, s.time += 1000) {
		s.event = i < 1000 ? i % 2 : 1;
		s.weight = s.event == 0 ? 1000 : 7;
		CHECK(pme_samplewriter_sample(w, &s, &err) == 0);
	}
	s.event = 2;
	CHECK(pme_samplewriter_sample(w, &s, &err) == -1 &&
	    strstr(err.msg, "sample of event 2, the header lists 2") != NULL);
	CHECK(pme_samplewriter_close(w, NULL, &err) == 0);
	chunk_types(path, types, sizeof(types));
	CHECK(strstr(types, "SMPX") != NULL);
	memset(&e, 0, sizeof(e));
	e.order_ok = 1;
	CHECK(pme_samplefile_read(path, &v, &e, &sum, &err) == 0);
	CHECK(e.nevents == 2 && e.order_ok);
	CHECK(strcmp(e.names[0], "cpu-clock") == 0 &&
	    strcmp(e.units[0], "ns") == 0 && e.periods[0] == 1000 &&
	    e.flags[0] == 0);
	CHECK(strcmp(e.names[1], "page-faults") == 0 &&
	    strcmp(e.units[1], "page faults") == 0 && e.periods[1] == 0 &&
	    e.flags[1] == PME_SEV_FREQ);
	CHECK(e.per[0] == 500 && e.per[1] == 1500 && e.per[2] == 0);
	CHECK(e.weight[0] == 500 * 1000 && e.weight[1] == 1500 * 7);

	/* a file without events: one, nevents 0, every sample event 0 */
	h.nevents = 0;
	h.events = NULL;
	s.event = 0;
	if ((w = pme_samplewriter_open(path, &h, 0, &err)) == NULL)
		die("%s", pme_strerror(&err));
	CHECK(pme_samplewriter_sample(w, &s, &err) == 0);
	s.event = 1;
	CHECK(pme_samplewriter_sample(w, &s, &err) == -1);
	CHECK(pme_samplewriter_close(w, NULL, &err) == 0);
	memset(&e, 0, sizeof(e));
	CHECK(pme_samplefile_read(path, &v, &e, &sum, &err) == 0);
	CHECK(e.nevents == 0 && e.per[0] == 1 && e.per[1] == 0);
}

int
main(int argc, char *argv[])
{
	if (argc == 3 && strcmp(argv[1], "write") == 0)
		return do_write(argv[2]);
	if (argc == 3 && strcmp(argv[1], "dump") == 0)
		return do_dump(argv[2]);
	if ((argc == 2 || argc == 3) && strcmp(argv[1], "bench") == 0) {
		int rc = do_bench(argc == 3 ? strtoull(argv[2], NULL, 0) :
		    20000000);

		testdir_done();
		return rc;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: t_sample [write OUT.PMS | dump FILE.PMS "
		    "| bench [N]]\n");
		return 2;
	}
	self = argv[0];
	test_roundtrip();
	test_text();
	test_cut_file();
	test_runs();
	test_cut_everywhere();
	test_flip();
	test_forged();
	test_manpage_example();
	test_order();
	test_boot();
	test_limits();
	test_batches();
	test_events();
	test_errors();
	test_abort();
	test_stdout();
	test_addrmap_cases();
	test_addrmap_random();
	bench_addrmap();
	test_elf();
	if (failures > 0) {
		fprintf(stderr, "t_sample: %d failures\n", failures);
		return 1;
	}
	testdir_done();
	return 0;
}
