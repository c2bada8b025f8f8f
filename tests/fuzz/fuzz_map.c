/*
 * fuzz_map.c - libFuzzer target for the GNU ld -Map reader (lib/ldmap.c,
 * pmebuild's DEFINE ADDRESSES: MAP): any text must either be refused with
 * an error naming the file or give modules whose ranges are sorted,
 * non-empty and non-overlapping and whose names are strings.  Tried with
 * the default output section (.text) and with the first word of the input
 * as the PSECT, so that mutations reach other sections' parsing.
 * `make fuzz` builds and runs it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pme.h"
#include "pme_symbols.h"
#include "memfile.h"

static void
one(const char *path, const char *psect)
{
	const struct pme_symmod	*mods;
	struct pme_map		*map;
	struct pme_error	 err;
	size_t			 n, i, sum = 0;
	uint32_t		 j;

	memset(&err, 0, sizeof(err));
	if ((map = pme_map_open(path, psect, &err)) == NULL) {
		if (err.code == PME_OK || strlen(pme_strerror(&err)) == 0)
			abort();
		return;
	}
	n = pme_map_modules(map, &mods);
	for (i = 0; i < n; i++) {
		if (mods[i].name == NULL)
			abort();
		sum += strlen(mods[i].name);
		for (j = 0; j < mods[i].nranges; j++) {
			if (mods[i].ranges[j].start >= mods[i].ranges[j].end)
				abort();
			if (j > 0 && mods[i].ranges[j].start <
			    mods[i].ranges[j - 1].end)
				abort();
		}
	}
	pme_map_close(map);
	if (sum == SIZE_MAX)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], psect[32];
	size_t i;
	int fd;

	if (memfile(data, size, &fd, path, sizeof(path)) == -1)
		return 0;
	one(path, NULL);
	for (i = 0; i < size && i < sizeof(psect) - 1 && data[i] > ' ' &&
	    data[i] < 0x7f; i++)
		psect[i] = (char)data[i];
	psect[i] = '\0';
	if (i > 0)
		one(path, psect);
	close(fd);
	return 0;
}
