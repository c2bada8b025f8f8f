/*
 * plt.h - names for an x86-64 image's PLT stubs ("memcpy@plt"), as
 * perf names them: lib/plt.c says how they are found.
 */
#ifndef PME_PLT_INTERNAL_H
#define PME_PLT_INTERNAL_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#include "pme.h"
#include "util.h"

struct pme_image;

/* The stubs by address: ranges[i] (link-time, end excluded) is the stub
 * named names[i] ("function@plt") for i < nstubs; after them .init's and
 * .fini's code, by address ("_init", "_fini"). */
struct pme_plt {
	struct pme_range *ranges;
	const char	**names;
	size_t		  n, nstubs;
	struct pme_vec	  vr, vn;	/* behind ranges and names */
	struct pme_arena  arena;	/* the names' strings */
};

/*
 * Part k (< PME_PLT_PARTS) of plt as a module unit of its own, as the
 * quick path and pmebuild -x make them alike: its name ("plt": the stubs;
 * "init": .init's and .fini's code), its entries [*first, *first + *n).
 */
#define PME_PLT_PARTS	2
static inline const char *
pme_plt_part(const struct pme_plt *plt, size_t k, size_t *first, size_t *n)
{
	*first = k == 0 ? 0 : plt->nstubs;
	*n = k == 0 ? plt->nstubs : plt->n - plt->nstubs;
	return k == 0 ? "plt" : "init";
}

/*
 * The named stubs of .plt, .plt.sec and .plt.got of e (none for another
 * machine, or a file without them), then .init and .fini; -1 only when
 * out of memory.  Free with pme_plt_free().
 */
int	pme_plt_read(Elf *e, struct pme_plt *plt, struct pme_error *err);
void	pme_plt_free(struct pme_plt *plt);
/* The same of img's own file (not its separate debug file, whose .plt
 * holds no bytes); defined in lib/symbols.c. */
int	pme_image_plt(const struct pme_image *img, struct pme_plt *plt,
	    struct pme_error *err);

#endif /* PME_PLT_INTERNAL_H */
