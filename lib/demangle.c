/*
 * demangle.c - routines' names demangled as nm -C prints them (C++ and
 * Rust, by libiberty when the build has it), the raw names kept as
 * aliases.  One room of the ELF/DWARF reader, whose rooms share
 * lib/symint.h (lib/symbols.c says which does what).
 */
#include <stdlib.h>
#include <string.h>

#ifdef PME_HAVE_DEMANGLE
#include <libiberty/demangle.h>
#endif

#include "symint.h"

/*
 * The name nm -C and perf give a mangled C++ or Rust symbol
 * ("ns::f(int)", "core::fmt::write"), interned; name itself when it is
 * not mangled or pme was built without libiberty.  libiberty's
 * cplus_demangle() is the demangler of binutils and gdb: it reads the
 * Itanium C++ ABI and both Rust manglings (legacy and v0) in C, where
 * libstdc++'s __cxa_demangle() reads C++ only and needs the C++ runtime.
 */
static const char *
demangled(struct pme_image *img, const char *name)
{
#ifdef PME_HAVE_DEMANGLE
	const char *in;
	char *d;

	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return name;
	if ((d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI)) == NULL)
		return name;
	in = pme_intern(&img->names, d);
	free(d);
	return in;
#else
	(void)img;
	return name;
#endif
}

/*
 * Names routine r by its demangled name: the raw symbol becomes its
 * first alias, then its other aliases, raw and demangled, each once.
 */
static int
demangle_routine(struct pme_image *img, struct pme_symroutine *r)
{
	const char *name = demangled(img, r->name), *d, **v;
	uint32_t i, k = 0, max;

	if (name == NULL)
		return sym_nomem(img);
	r->raw = r->name;
	if (name == r->name)
		return 0;
	max = 1 + 2 * r->naliases;
	if (max > PME_MAXALIASES)
		max = PME_MAXALIASES;
	if ((v = pme_arena_alloc(&img->arena, max * sizeof(*v))) == NULL)
		return sym_nomem(img);
	v[k++] = r->name;
	for (i = 0; i < r->naliases && k < max; i++) {
		if ((d = demangled(img, r->aliases[i])) == NULL)
			return sym_nomem(img);
		if (!has_name(r, v, k, r->aliases[i]))
			v[k++] = r->aliases[i];
		if (k < max && strcmp(d, name) != 0 && !has_name(r, v, k, d))
			v[k++] = d;
	}
	r->name = name;
	r->aliases = v;
	r->naliases = k;
	return 0;
}

int
demangle_routines(struct pme_image *img)
{
	size_t i;

	for (i = 0; i < img->routines.n; i++)
		if (demangle_routine(img, &PME_VEC_AT(&img->routines,
		    struct pme_symroutine, i)) == -1)
			return -1;
	return 0;
}
