/*
 * pprof.c - pmehisto -T pprof: the call stacks as a profile.proto
 * message (github.com/google/pprof, proto/profile.proto), gzipped, as
 * pprof reads it.  The protocol buffer encoding is done here, by hand:
 * varints and length-delimited fields are all the message needs.
 *
 * A location per frame name and address (export.h's locations): the
 * sampled pc, or a call's return address less one, link-time, with the
 * line the DWARF line table gives it; with --inline, the functions
 * inlined at the address are lines of that location, the innermost
 * first, each with its own function, file and line (addr2line -i's),
 * as pprof reads inlined frames.  A function per frame name and the
 * source file of its lines; a mapping per load module or mapping path,
 * spanning its locations' addresses.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export.h"
#include "measure.h"
#include "util.h"
#include "varint.h"

/* profile.proto's field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING,
	PROFILE_LOCATION, PROFILE_FUNCTION, PROFILE_STRING_TABLE,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE, PROFILE_PERIOD,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14
};
enum { VALUE_TYPE = 1, VALUE_UNIT };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE };
enum {
	MAPPING_ID = 1, MAPPING_START, MAPPING_LIMIT, MAPPING_OFFSET,
	MAPPING_FILENAME, MAPPING_BUILD_ID, MAPPING_HAS_FUNCTIONS,
	MAPPING_HAS_FILENAMES, MAPPING_HAS_LINE_NUMBERS
};
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE };
enum { LINE_FUNCTION_ID = 1, LINE_LINE };
enum {
	FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME,
	FUNCTION_FILENAME
};

/* The string table's first entries; the frame names follow. */
enum { S_EMPTY, S_SAMPLES, S_COUNT, S_CPU, S_NANOSECONDS, S_NAMES };

/* ------------------------------------------------ protocol buffer bytes */

/* The bytes go to a struct pme_buf (util.h), whose failed flag says
 * that memory ran out; varints are pme(5)'s LEB128 (varint.h). */
static void
pb_varint(struct pme_buf *b, uint64_t v)
{
	uint8_t buf[PME_VARINT_MAX];

	pme_buf_bytes(b, buf, (size_t)(pme_uv_put(buf, v) - buf));
}

/* A varint field (wire type 0); zero is the default, left out. */
static void
pb_uint(struct pme_buf *b, unsigned field, uint64_t v)
{
	if (v == 0)
		return;
	pb_varint(b, (uint64_t)field << 3);
	pb_varint(b, v);
}

/* A length-delimited field (wire type 2): bytes, a string, a message, a
 * packed repeated field. */
static void
pb_bytes(struct pme_buf *b, unsigned field, const void *data, size_t len)
{
	pb_varint(b, (uint64_t)field << 3 | 2);
	pb_varint(b, len);
	pme_buf_bytes(b, data, len);
}

/* Field of message m, whose bytes are then reused for the next. */
static void
pb_message(struct pme_buf *b, unsigned field, struct pme_buf *m)
{
	if (m->failed)
		b->failed = 1;
	pb_bytes(b, field, m->p, m->n);
	m->n = 0;
}

/* ---------------------------------------------------------- the profile */

/* A function: a frame name and the file of a location's line (or of
 * the name's unit when the line is not known). */
struct pfunc {
	uint32_t	 name;
	const char	*file;		/* or NULL */
};

struct prof {
	const struct xmodel *m;
	struct pme_buf	 out, msg, sub;
	struct strset	 paths;		/* mapping i + 1 is paths.s[i] */
	struct strset	 files;		/* string index S_NAMES + nnames +
					   npaths + i */
	uint32_t	*mapping;	/* per name: mapping id, 0: none */
	uint64_t	*lo, *hi;	/* per mapping: the addresses' span */
	struct pfunc	*fn;		/* distinct, sorted */
	size_t		 nfn;
	uint32_t	*fnof;		/* per location: its function's index */
	uint32_t	*locid;		/* per location: its id in the profile,
					   0 for an inlined level (a line of
					   the location outside it) */
	size_t		*at;		/* per location with an id: a pool slot
					   of it, its levels after it */
};

/* Whether pool slot j of stack s is the outermost frame at its address
 * (an inlined level's outer neighbour is the level after it). */
static int
outermost(const struct xmodel *m, const struct xstack *s, size_t j)
{
	return j == s->off || m->level[j - 1] == 0;
}

/* The profile's locations: those of the frames outermost at their
 * addresses, numbered in the order of the model's; 0 or -1. */
static int
locations_of(struct prof *p)
{
	const struct xmodel *m = p->m;
	size_t i, j;
	uint32_t next = 0;

	if ((p->locid = calloc(m->nlocs + 1, sizeof(*p->locid))) == NULL ||
	    (p->at = calloc(m->nlocs + 1, sizeof(*p->at))) == NULL)
		return -1;
	for (i = 0; i < m->nst; i++)
		for (j = m->st[i].off; j < m->st[i].off + m->st[i].n; j++)
			if (outermost(m, &m->st[i], j)) {
				p->locid[m->locof[j]] = 1;
				p->at[m->locof[j]] = j;
			}
	for (i = 0; i < m->nlocs; i++)
		if (p->locid[i])
			p->locid[i] = ++next;
	return 0;
}

static void
value_type(struct prof *p, unsigned field, uint64_t type, uint64_t unit)
{
	pb_uint(&p->sub, VALUE_TYPE, type);
	pb_uint(&p->sub, VALUE_UNIT, unit);
	pb_message(&p->out, field, &p->sub);
}

/* Whether the counts are a weighted measure's own (pmehisto's wall
 * time, states and I/O: ns, bytes or calls), of one value a stack, not
 * samples. */
static int
weighted(const struct prof *p)
{
	return p->m->t->measure.kind == PME_EV_WALL;
}

/* The pprof unit of such a measure's counts. */
static const char *
weighted_unit(const struct prof *p)
{
	const char *u = p->m->t->measure.unit;

	return strcmp(u, "ns") == 0 ? "nanoseconds" : strcmp(u, "calls") ==
	    0 ? "count" : u;
}

static void
samples(struct prof *p)
{
	const struct xmodel *m = p->m;
	uint64_t period = m->t->period;
	size_t i, j;

	/* A rate's samples stand for periods not kept per stack. */
	if (period == 0 && !measure_clock(&m->t->measure))
		period = 1;

	for (i = 0; i < m->nst; i++) {
		const struct xstack *s = &m->st[i];

		/* Location ids, the innermost first, packed. */
		for (j = s->off + s->n; j-- > s->off; )
			if (outermost(m, s, j))
				pb_varint(&p->sub, p->locid[m->locof[j]]);
		pb_message(&p->msg, SAMPLE_LOCATION_ID, &p->sub);
		if (!weighted(p))
			pb_varint(&p->sub, s->count);
		pb_varint(&p->sub, s->count * period);
		pb_message(&p->msg, SAMPLE_VALUE, &p->sub);
		pb_message(&p->out, PROFILE_SAMPLE, &p->msg);
	}
}

/* The path of the bucket file's main program, if a frame is in it. */
static const char *
main_path(const struct xmodel *m)
{
	size_t i;

	for (i = 0; i < m->nnames; i++)
		if (m->names[i].mod != NULL &&
		    (m->names[i].mod->flags & PME_MODULE_MAIN) &&
		    m->names[i].path != NULL)
			return m->names[i].path;
	return NULL;
}

/* Each name's mapping (the set of paths) and the span of addresses. */
static int
mappings_of(struct prof *p)
{
	const struct xmodel *m = p->m;
	const char *prog;
	size_t i, k;

	if ((p->mapping = calloc(m->nnames + 1, sizeof(*p->mapping))) == NULL)
		return -1;
	/* pprof takes the first mapping for the program's. */
	if ((prog = main_path(m)) != NULL && strset_add(&p->paths, prog) ==
	    (size_t)-1)
		return -1;
	for (i = 0; i < m->nnames; i++)
		if (m->names[i].path != NULL) {
			if ((k = strset_add(&p->paths, m->names[i].path)) ==
			    (size_t)-1)
				return -1;
			p->mapping[i] = (uint32_t)k + 1;
		}
	if ((p->lo = calloc(p->paths.n + 1, sizeof(*p->lo))) == NULL ||
	    (p->hi = calloc(p->paths.n + 1, sizeof(*p->hi))) == NULL)
		return -1;
	for (i = 0; i < p->paths.n; i++)
		p->lo[i] = UINT64_MAX;
	for (i = 0; i < m->nlocs; i++) {
		uint64_t a = m->locs[i].addr;

		if ((k = p->mapping[m->locs[i].name]) == 0)
			continue;
		if (a < p->lo[k - 1])
			p->lo[k - 1] = a;
		if (a + 1 > p->hi[k - 1])
			p->hi[k - 1] = a + 1;
	}
	for (i = 0; i < p->nfn; i++)
		if (p->fn[i].file != NULL &&
		    strset_add(&p->files, p->fn[i].file) == (size_t)-1)
			return -1;
	return 0;
}

static int
pfunc_cmp(const void *a, const void *b)
{
	const struct pfunc *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->file == NULL || y->file == NULL)
		return (x->file != NULL) - (y->file != NULL);
	return strcmp(x->file, y->file);
}

/* The functions of the locations, and each location's; 0 or -1. */
static int
functions_of(struct prof *p)
{
	const struct xmodel *m = p->m;
	struct pfunc key;
	size_t i;

	if ((p->fn = calloc(m->nlocs + 1, sizeof(*p->fn))) == NULL ||
	    (p->fnof = calloc(m->nlocs + 1, sizeof(*p->fnof))) == NULL)
		return -1;
	for (i = 0; i < m->nlocs; i++) {
		key.name = m->locs[i].name;
		key.file = m->locs[i].file != NULL ? m->locs[i].file :
		    m->names[key.name].file;
		p->fn[i] = key;
	}
	qsort(p->fn, m->nlocs, sizeof(*p->fn), pfunc_cmp);
	for (i = 0; i < m->nlocs; i++)
		if (p->nfn == 0 || pfunc_cmp(&p->fn[p->nfn - 1], &p->fn[i]) !=
		    0)
			p->fn[p->nfn++] = p->fn[i];
	for (i = 0; i < m->nlocs; i++) {
		key.name = m->locs[i].name;
		key.file = m->locs[i].file != NULL ? m->locs[i].file :
		    m->names[key.name].file;
		p->fnof[i] = (uint32_t)((struct pfunc *)bsearch(&key, p->fn,
		    p->nfn, sizeof(key), pfunc_cmp) - p->fn);
	}
	return 0;
}

/* The build-id of mapping k, in hexadecimal, if the bucket file has
 * one for its module. */
static void
build_id(const struct prof *p, size_t k, char *hex, size_t len)
{
	const struct pme_module *mod;
	size_t i, j;

	hex[0] = '\0';
	for (i = 0; i < p->m->nnames; i++) {
		if (p->mapping[i] != k + 1 || (mod = p->m->names[i].mod) ==
		    NULL || mod->buildid == NULL)
			continue;
		for (j = 0; j < mod->buildid_len && 2 * j + 2 < len; j++)
			snprintf(hex + 2 * j, 3, "%02x", mod->buildid[j]);
		return;
	}
}

/* Whether a location of mapping k has a line. */
static int
has_lines(const struct prof *p, size_t k)
{
	size_t i;

	for (i = 0; i < p->m->nlocs; i++)
		if (p->m->locs[i].line != 0 &&
		    p->mapping[p->m->locs[i].name] == k + 1)
			return 1;
	return 0;
}

static void
mappings(struct prof *p, const uint64_t *buildid_str)
{
	size_t i, base = S_NAMES + p->m->nnames;

	for (i = 0; i < p->paths.n; i++) {
		int spans = p->lo[i] < p->hi[i];

		pb_uint(&p->msg, MAPPING_ID, i + 1);
		pb_uint(&p->msg, MAPPING_START, spans ? p->lo[i] : 0);
		pb_uint(&p->msg, MAPPING_LIMIT, spans ? p->hi[i] : 0);
		pb_uint(&p->msg, MAPPING_OFFSET, spans ? p->lo[i] : 0);
		pb_uint(&p->msg, MAPPING_FILENAME, base + i);
		pb_uint(&p->msg, MAPPING_BUILD_ID, buildid_str[i]);
		pb_uint(&p->msg, MAPPING_HAS_FUNCTIONS, 1);
		pb_uint(&p->msg, MAPPING_HAS_FILENAMES, p->files.n > 0);
		pb_uint(&p->msg, MAPPING_HAS_LINE_NUMBERS, has_lines(p, i));
		pb_message(&p->out, PROFILE_MAPPING, &p->msg);
	}
}

static void
locations_functions(struct prof *p)
{
	const struct xmodel *m = p->m;
	size_t i, fbase = S_NAMES + m->nnames + p->paths.n;

	for (i = 0; i < m->nlocs; i++) {
		const struct xloc *l = &m->locs[i];
		size_t j, k;

		if (p->locid[i] == 0)
			continue;
		pb_uint(&p->msg, LOCATION_ID, p->locid[i]);
		pb_uint(&p->msg, LOCATION_MAPPING_ID, p->mapping[l->name]);
		pb_uint(&p->msg, LOCATION_ADDRESS, l->addr);
		/* Its lines, the innermost level first. */
		for (j = p->at[i] + l->level + 1; j-- > p->at[i]; ) {
			k = m->locof[j];
			pb_uint(&p->sub, LINE_FUNCTION_ID, p->fnof[k] + 1);
			pb_uint(&p->sub, LINE_LINE, m->locs[k].line);
			pb_message(&p->msg, LOCATION_LINE, &p->sub);
		}
		pb_message(&p->out, PROFILE_LOCATION, &p->msg);
	}
	for (i = 0; i < p->nfn; i++) {
		const struct pfunc *f = &p->fn[i];

		pb_uint(&p->msg, FUNCTION_ID, i + 1);
		pb_uint(&p->msg, FUNCTION_NAME, S_NAMES + f->name);
		pb_uint(&p->msg, FUNCTION_SYSTEM_NAME, S_NAMES + f->name);
		if (f->file != NULL)
			pb_uint(&p->msg, FUNCTION_FILENAME, fbase +
			    strset_add(&p->files, f->file));
		pb_message(&p->out, PROFILE_FUNCTION, &p->msg);
	}
}

static void
string(struct prof *p, const char *s)
{
	pb_bytes(&p->out, PROFILE_STRING_TABLE, s, strlen(s));
}

/* The string table: the fixed words, the names, the paths, the files,
 * the build-ids (their indices, 0 for none, left in buildid_str). */
static void
strings(struct prof *p, uint64_t *buildid_str)
{
	static const char *const fixed[] = {
		"", "samples", "count", "cpu", "nanoseconds"
	};
	size_t i, next;
	char hex[2 * 64 + 1];

	/* An event's samples: "page-faults events" in place of "cpu
	 * nanoseconds" (samples of a rate: "page-faults samples"). */
	for (i = 0; i < S_NAMES; i++)
		string(p, measure_clock(&p->m->t->measure) ? fixed[i] :
		    i == S_CPU ? p->m->t->measure.name : i == S_NANOSECONDS ?
		    (weighted(p) ? weighted_unit(p) : p->m->t->period != 0 ?
		    "events" : "samples") : fixed[i]);
	for (i = 0; i < p->m->nnames; i++)
		string(p, p->m->names[i].name);
	for (i = 0; i < p->paths.n; i++)
		string(p, p->paths.s[i]);
	for (i = 0; i < p->files.n; i++)
		string(p, p->files.s[i]);
	next = S_NAMES + p->m->nnames + p->paths.n + p->files.n;
	for (i = 0; i < p->paths.n; i++) {
		build_id(p, i, hex, sizeof(hex));
		if (hex[0] != '\0') {
			string(p, hex);
			buildid_str[i] = next++;
		}
	}
}

static int
profile(struct prof *p)
{
	uint64_t *buildid_str;
	const struct tally *t = p->m->t;

	if (functions_of(p) == -1 || locations_of(p) == -1 ||
	    mappings_of(p) == -1 ||
	    (buildid_str = calloc(p->paths.n + 1, sizeof(*buildid_str))) ==
	    NULL)
		return -1;
	if (!weighted(p))
		value_type(p, PROFILE_SAMPLE_TYPE, S_SAMPLES, S_COUNT);
	value_type(p, PROFILE_SAMPLE_TYPE, S_CPU, S_NANOSECONDS);
	samples(p);
	strings(p, buildid_str);
	mappings(p, buildid_str);
	locations_functions(p);
	pb_uint(&p->out, PROFILE_DURATION_NANOS, t->duration);
	value_type(p, PROFILE_PERIOD_TYPE, S_CPU, S_NANOSECONDS);
	pb_uint(&p->out, PROFILE_PERIOD, t->period);
	pb_uint(&p->out, PROFILE_DEFAULT_SAMPLE_TYPE, S_CPU);
	free(buildid_str);
	return p->out.failed || p->msg.failed || p->sub.failed ? -1 : 0;
}

/* in[0..len) gzipped into out. */
static int
gzip(const uint8_t *in, size_t len, struct export_out *out)
{
	z_stream z;
	size_t cap = compressBound((uLong)len) + 64;
	int rc;

	memset(&z, 0, sizeof(z));
	if ((out->data = malloc(cap)) == NULL)
		return -1;
	/* windowBits 15 + 16: a gzip header and trailer. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)out->data;
	z.avail_out = (uInt)cap;
	rc = deflate(&z, Z_FINISH);
	out->len = cap - z.avail_out;
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : -1;
}

int
pprof_make(const struct xmodel *m, struct export_out *out,
    struct pme_error *err)
{
	struct prof p;
	int rc;

	memset(&p, 0, sizeof(p));
	p.m = m;
	rc = profile(&p);
	if (rc == 0 && (p.out.n > UINT32_MAX || gzip(p.out.p, p.out.n, out)
	    == -1)) {
		free(out->data);
		out->data = NULL;
		rc = -1;
	}
	pme_buf_free(&p.out);
	pme_buf_free(&p.msg);
	pme_buf_free(&p.sub);
	strset_free(&p.paths);
	strset_free(&p.files);
	free(p.mapping);
	free(p.lo);
	free(p.hi);
	free(p.fn);
	free(p.fnof);
	free(p.locid);
	free(p.at);
	return rc == -1 ? histo_err(err, PME_ENOMEM, "out of memory") : 0;
}
