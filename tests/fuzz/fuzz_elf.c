/*
 * fuzz_elf.c - libFuzzer target for the ELF/DWARF reader (lib/symbols.c,
 * pmebuild's DEFINE ADDRESSES: EXE and -x): damaged images must either be
 * refused with an error naming the file or give modules, routines and
 * lines whose every index and range is in bounds, read twice the same.
 * The DWARF is read in a child process (pme_symbols.h): a fault there is
 * an error here, never the caller's; what the child hands back is checked
 * all the same.  Seeds: small executables built by `make fuzz-corpus`.
 * `make fuzz` builds and runs it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pme.h"
#include "pme_symbols.h"
#include "plt.h"
#include "memfile.h"

static size_t
touch(const char *s)
{
	return s == NULL ? 0 : strlen(s);
}

static void
check_ranges(const struct pme_range *r, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (r[i].start >= r[i].end)
			abort();
}

static void
walk(struct pme_image *img)
{
	const struct pme_symmod		*mods;
	const struct pme_symroutine	*rts;
	const struct pme_symline	*lines;
	struct pme_error		 err;
	size_t				 nm, nr, nl, i, sum = 0;
	uint32_t			 j, blen;
	const uint8_t			*bid;
	struct pme_plt			 plt;

	sum += pme_image_flags(img) + touch(pme_image_path(img)) +
	    touch(pme_image_note(img));
	if ((bid = pme_image_buildid(img, &blen)) != NULL)
		for (j = 0; j < blen; j++)
			sum += bid[j];
	nm = pme_image_modules(img, &mods);
	nr = pme_image_routines(img, &rts);
	for (i = 0; i < nm; i++) {
		sum += touch(mods[i].name);
		check_ranges(mods[i].ranges, mods[i].nranges);
		if (mods[i].first_routine > nr ||
		    mods[i].nroutines > nr - mods[i].first_routine)
			abort();
	}
	for (i = 0; i < nr; i++) {
		sum += touch(rts[i].name) + touch(rts[i].file);
		if (rts[i].module >= nm)
			abort();
		check_ranges(rts[i].ranges, rts[i].nranges);
		for (j = 0; j < rts[i].naliases; j++)
			sum += touch(rts[i].aliases[j]);
	}
	/* The PLT stubs' names: each a stub of 8 to 32 bytes, in order;
	 * then .init's and .fini's, _init and _fini, not empty, in order. */
	memset(&err, 0, sizeof(err));
	if (pme_image_plt(img, &plt, &err) == 0) {
		if (plt.nstubs > plt.n || plt.n - plt.nstubs > 2)
			abort();
		for (i = 0; i < plt.n; i++) {
			sum += touch(plt.names[i]);
			if ((i < plt.nstubs && (plt.ranges[i].end -
			    plt.ranges[i].start < 8 || plt.ranges[i].end -
			    plt.ranges[i].start > 32)) || (i >= plt.nstubs &&
			    (plt.ranges[i].end <= plt.ranges[i].start ||
			    (strcmp(plt.names[i], "_init") != 0 &&
			    strcmp(plt.names[i], "_fini") != 0))) ||
			    (i > 0 && i != plt.nstubs &&
			    plt.ranges[i].start < plt.ranges[i - 1].start))
				abort();
		}
		pme_plt_free(&plt);
	}
	memset(&err, 0, sizeof(err));
	if (pme_image_load_lines(img, PME_NONE, &err) == -1) {
		if (touch(pme_strerror(&err)) == 0)
			abort();
		return;
	}
	nl = pme_image_lines(img, &lines);
	nm = pme_image_modules(img, &mods);
	for (i = 0; i < nm; i++)
		if (mods[i].lines_loaded && (mods[i].first_line > nl ||
		    mods[i].nlines > nl - mods[i].first_line))
			abort();
	for (i = 0; i < nl; i++) {
		if (lines[i].start >= lines[i].end)
			abort();
		if (lines[i].routine != PME_NONE && lines[i].routine >= nr)
			abort();
		sum += touch(lines[i].file);
	}
	if (sum == SIZE_MAX)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pme_image	*img;
	struct pme_error	 err;
	char			 path[64];
	int			 fd;

	if (memfile(data, size, &fd, path, sizeof(path)) == -1)
		return 0;
	memset(&err, 0, sizeof(err));
	if ((img = pme_image_open(path, NULL, &err)) == NULL) {
		if (err.code == PME_OK || touch(pme_strerror(&err)) == 0)
			abort();
	} else {
		walk(img);
		pme_image_close(img);
	}
	close(fd);
	return 0;
}
