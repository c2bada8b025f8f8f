/*
 * fuzz_sample.c - libFuzzer target for the sample file reader: any bytes
 * must either be refused with an error or be read with every field in
 * bounds (strings terminated, frames where the sample says).  Each input
 * is tried as it comes, then with its CRCs made good so that mutations
 * reach the payload decoders; what is read also feeds an address map.
 * `make fuzz` builds and runs it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pme_sample.h"
#include "crcfix.h"
#include "memfile.h"

struct state {
	struct pme_addrmap *am;
	uint64_t	 sum;
};

static size_t
touch(const char *s)
{
	return s == NULL ? 0 : strlen(s);
}

static int
v_header(void *arg, const struct pme_sample_header *h)
{
	struct state *st = arg;
	uint32_t i;

	st->sum += h->method + h->event + h->period + h->start +
	    h->start_mono + h->pid + h->flags + touch(h->note);
	for (i = 0; i < h->argc; i++)
		st->sum += touch(h->argv[i]);
	if (h->argv[h->argc] != NULL)
		abort();
	return 0;
}

static int
v_mapping(void *arg, const struct pme_mapping *m)
{
	struct state *st = arg;
	uint32_t i;

	if (m->end <= m->start || m->path == NULL ||
	    (m->buildid == NULL) != (m->buildid_len == 0))
		abort();
	st->sum += m->pid + m->flags + m->time + m->offset + m->vaddr +
	    touch(m->path);
	for (i = 0; i < m->buildid_len; i++)
		st->sum += m->buildid[i];
	pme_addrmap_mapping(st->am, m, NULL);
	return 0;
}

static int
v_thread(void *arg, const struct pme_thread *t)
{
	struct state *st = arg;

	if (t->kind < PME_THREAD_COMM || t->kind > PME_THREAD_EXEC ||
	    ((t->kind == PME_THREAD_COMM || t->kind == PME_THREAD_EXEC) !=
	    (t->name != NULL)))
		abort();
	st->sum += t->pid + t->tid + t->ppid + t->ptid + t->time +
	    touch(t->name);
	pme_addrmap_thread(st->am, t, NULL);
	return 0;
}

static int
v_samples(void *arg, const struct pme_sample *s, size_t n)
{
	struct state *st = arg;
	uint64_t va;
	size_t i;
	uint32_t j;

	if (n == 0)
		abort();
	for (i = 0; i < n; i++) {
		st->sum += s[i].pc + s[i].time + s[i].weight + s[i].pid +
		    s[i].tid + s[i].cpu + s[i].flags;
		if ((s[i].nframes > 0) != (s[i].frames != NULL))
			abort();
		for (j = 0; j < s[i].nframes; j++)
			st->sum += s[i].frames[j];
		if (i < 64 && pme_addrmap_lookup(st->am, s[i].pid, s[i].time,
		    s[i].pc, &va) != PME_NONE)
			st->sum += va;
	}
	return 0;
}

static int
v_close(void *arg, const struct pme_sample_close *c)
{
	struct state *st = arg;

	st->sum += c->end + c->samples + c->lost + (uint32_t)c->status +
	    c->threads;
	return 0;
}

static const struct pme_sample_visitor visitor = {
	v_header, v_mapping, v_thread, v_samples, v_close
};

/* An I/O record (IOCL): a call that is one, frames where it says. */
static int
v_io(void *arg, const struct pme_io *io)
{
	struct state *st = arg;
	uint32_t i;

	if (pme_io_name(io->call) == NULL || io->nframes > 1024 ||
	    (io->nframes > 0 && io->frames == NULL))
		abort();
	st->sum += io->pid + io->tid + io->flags + (uint64_t)io->fd +
	    (uint64_t)io->ret + io->start + io->duration + io->pc +
	    touch(io->path);
	for (i = 0; i < io->nframes; i++)
		st->sum += io->frames[i];
	if (pme_addrmap_lookup(st->am, io->pid, io->start, io->pc,
	    &st->sum) != PME_NONE)
		st->sum++;
	return 0;
}

/* The same bytes through the reader of I/O records, which reads files
 * by name only. */
static void
one_io(const uint8_t *data, size_t size, struct state *st)
{
	struct pme_error err;
	char path[64];
	int fd;

	if (memfile(data, size, &fd, path, sizeof(path)) == -1)
		return;
	memset(&err, 0, sizeof(err));
	if (pme_samplefile_read_io(path, &visitor, v_io, st, NULL,
	    &err) == -1 && (err.code == PME_OK ||
	    touch(pme_strerror(&err)) == 0))
		abort();
	close(fd);
}

static void
one(const uint8_t *data, size_t size)
{
	struct pme_sample_summary sum;
	struct pme_error err;
	struct state st;
	const struct pme_mapping *maps;

	memset(&err, 0, sizeof(err));
	st.sum = 0;
	if ((st.am = pme_addrmap_new(NULL)) == NULL)
		return;
	if (pme_samplefile_mem(data, size, "fuzz", &visitor, &st, &sum,
	    &err) == -1) {
		if (err.code == PME_OK || touch(pme_strerror(&err)) == 0)
			abort();
	} else if (sum.lost_bytes < -1 ||
	    (sum.lost_bytes >= 0 && (uint64_t)sum.lost_bytes > size))
		abort();
	(void)pme_addrmap_mappings(st.am, &maps);
	pme_addrmap_free(st.am);
	if ((st.am = pme_addrmap_new(NULL)) != NULL)
		one_io(data, size, &st);
	pme_addrmap_free(st.am);
	if (st.sum == 1)	/* keeps the sums from being optimised away */
		abort();
}

/* The bytes as they come, then with their CRCs made good. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	with_crcs_fixed(data, size, one);
	return 0;
}
