/*
 * pmsgen - a large flat sample file and its bucket file for
 * bench_pmehisto.sh, through libpme's writers:
 *
 *     pmsgen OUT.PMS OUT.PME SAMPLES [ROUTINES [chains]]
 *
 * The bucket file has one load module (the main executable,
 * /bench/prog), one routine unit and bucket of 256 bytes per routine
 * (default 1000), grouped "PROGRAM prog BY ROUTINE".  The sample file
 * maps the executable PIE-style at 0x555555554000 and holds SAMPLES
 * samples of 4 threads at 10 kHz, their PCs drawn from 16 spots in each
 * routine with a skewed choice of routine (a few hot, a long tail), and
 * one in 20 in libc.  Deterministic: the same arguments give the same
 * files.  With "chains" (bench_spy.sh) each sample has a call chain:
 * routine k is called by routine (k - 1) / 2 (a binary tree under
 * routine 0, which libc calls), and the routines are drawn less skewed,
 * so that chains are up to a dozen frames deep.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pme.h"
#include "pme_sample.h"

#define LOAD	0x555555554000ull
#define TEXT	0x1000ull
#define RSIZE	256
#define LIBC	0x7ffff7c00000ull

static uint64_t state = 88172645463325252ull;

static uint64_t
rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static int
die(const char *what, const struct pme_error *err)
{
	fprintf(stderr, "pmsgen: %s: %s\n", what, pme_strerror(err));
	return 1;
}

static int
bucketfile(const char *path, unsigned nr)
{
	struct pme_bucketfile *bf;
	struct pme_error err;
	struct pme_unit u;
	struct pme_range r;
	uint32_t kp, kr, m, prog, ui;
	unsigned i;
	char name[32];

	if ((bf = pme_bucketfile_new(&err)) == NULL)
		return die(path, &err);
	kp = pme_bucketfile_add_kind(bf, "PROGRAM", &err);
	kr = pme_bucketfile_add_kind(bf, "ROUTINE", &err);
	m = pme_bucketfile_add_module(bf, "/bench/prog", NULL, 0,
	    PME_MODULE_MAIN, &err);
	memset(&u, 0, sizeof(u));
	u.name = "prog";
	u.kind = kp;
	u.parent = PME_NONE;
	u.module = m;
	r.start = TEXT;
	r.end = TEXT + (uint64_t)nr * RSIZE;
	prog = pme_bucketfile_add_unit(bf, &u, &r, 1, &err);
	if (prog == PME_NONE || pme_bucketfile_add_group(bf,
	    "PROGRAM prog BY ROUTINE", prog, kr, &err) == PME_NONE)
		return die(path, &err);
	for (i = 0; i < nr; i++) {
		snprintf(name, sizeof(name), "routine_%04u", i);
		u.name = name;
		u.kind = kr;
		u.parent = prog;
		r.start = TEXT + (uint64_t)i * RSIZE;
		r.end = r.start + RSIZE;
		if ((ui = pme_bucketfile_add_unit(bf, &u, &r, 1, &err)) ==
		    PME_NONE || pme_bucketfile_add_bucket(bf, ui, &r, 1,
		    &err) == PME_NONE)
			return die(path, &err);
	}
	if (pme_bucketfile_write(bf, path, &err) == -1)
		return die(path, &err);
	pme_bucketfile_close(bf);
	return 0;
}

/* The call chain of a sample in routine k (chains, above) into f. */
static uint32_t
chain(uint64_t k, uint64_t *f)
{
	uint32_t n = 0;

	while (k > 0) {
		f[n++] = LOAD + TEXT + (k - 1) / 2 * RSIZE + 32 +
		    (k - 1) % 2 * 16 + 5;
		k = (k - 1) / 2;
	}
	f[n++] = LIBC + 0x1d90;
	return n;
}

static int
samplefile(const char *path, uint64_t n, unsigned nr, int chains)
{
	uint64_t frames[64];
	static const char *argv[] = { "/bench/prog", "--bench" };
	struct pme_sample_header h;
	struct pme_samplewriter *w;
	struct pme_sample_close c;
	struct pme_mapping m;
	struct pme_sample s;
	struct pme_error err;
	uint64_t i, t = 1000000;

	memset(&h, 0, sizeof(h));
	h.method = PME_METHOD_TEST;
	h.event = PME_EVENT_CPU_CLOCK;
	h.period = 100000;
	h.pid = 4242;
	h.argc = 2;
	h.argv = argv;
	h.start_mono = t;
	if ((w = pme_samplewriter_open(path, &h, 0, &err)) == NULL)
		return die(path, &err);
	memset(&m, 0, sizeof(m));
	m.pid = 4242;
	m.flags = PME_MAP_EXEC | PME_MAP_MAIN;
	m.start = LOAD + TEXT;
	m.end = LOAD + TEXT + (uint64_t)nr * RSIZE;
	m.offset = TEXT;
	m.vaddr = TEXT;
	m.path = "/bench/prog";
	if (pme_samplewriter_mapping(w, &m, &err) == -1)
		return die(path, &err);
	m.flags = PME_MAP_EXEC;
	m.start = LIBC;
	m.end = LIBC + 0x100000;
	m.offset = 0x28000;
	m.vaddr = 0x28000;
	m.path = "/lib/x86_64-linux-gnu/libc.so.6";
	if (pme_samplewriter_mapping(w, &m, &err) == -1)
		return die(path, &err);
	memset(&s, 0, sizeof(s));
	s.pid = 4242;
	s.weight = h.period;
	for (i = 0; i < n; i++) {
		uint64_t x = rnd(), k;
		double u = (double)(x >> 11) / 9007199254740992.0;

		k = (uint64_t)(chains ? u * u * nr : u * u * u * u * nr);
		s.tid = 4242 + (unsigned)(i & 3);
		s.cpu = (unsigned)(i & 3);
		s.time = t += 25000;
		if (x % 20 == 0)
			s.pc = LIBC + ((x >> 8) & 0xfff0);
		else
			s.pc = LOAD + TEXT + k * RSIZE + ((x >> 40) & 15) * 16;
		if (chains && x % 20 == 0) {	/* libc, called by k */
			frames[0] = LOAD + TEXT + k * RSIZE + 64 + 5;
			s.nframes = 1 + chain(k, frames + 1);
			s.frames = frames;
		} else if (chains) {
			s.nframes = chain(k, frames);
			s.frames = frames;
		}
		if (pme_samplewriter_sample(w, &s, &err) == -1)
			return die(path, &err);
	}
	memset(&c, 0, sizeof(c));
	c.end = t;
	c.samples = n;
	c.threads = 4;
	if (pme_samplewriter_close(w, &c, &err) == -1)
		return die(path, &err);
	return 0;
}

int
main(int argc, char *argv[])
{
	unsigned nr = 1000;
	int chains = argc == 6 && strcmp(argv[5], "chains") == 0;

	if (argc < 4 || argc > 6 || (argc == 6 && !chains)) {
		fprintf(stderr, "usage: pmsgen out.pms out.pme samples "
		    "[routines [chains]]\n");
		return 2;
	}
	if (argc >= 5)
		nr = (unsigned)strtoul(argv[4], NULL, 10);
	if (nr == 0)
		nr = 1;
	return bucketfile(argv[2], nr) ||
	    samplefile(argv[1], strtoull(argv[3], NULL, 10), nr, chains);
}
