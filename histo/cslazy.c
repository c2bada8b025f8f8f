/*
 * cslazy.c - capstone loaded when the Caliper view first disassembles
 * (pmehisto -V caliper:instruction, caliper.c) rather than when pmehisto
 * starts.  Linked, libcapstone's 77,000 relocations cost every run of
 * pmehisto, whatever it shows, a millisecond and 370 page faults: a sixth
 * of the quick path's report (-x) of a 50,000-sample run.
 *
 * The five functions caliper.c calls, under capstone's own names (the
 * header checks their types), each calling the library's through
 * dlopen(3) and dlsym(3).  pmehisto is not linked with -rdynamic, so the
 * library's calls among its own functions stay its own.  When the library
 * cannot be loaded at run time, cs_open() fails and the view shows
 * addresses, as a build without capstone does.
 */
#ifdef HAVE_CAPSTONE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <capstone/capstone.h>

#define CS_STR(x)	#x
#define CS_XSTR(x)	CS_STR(x)
/* The library of the header's major version: its soname. */
#define CS_SONAME	"libcapstone.so." CS_XSTR(CS_API_MAJOR)

static struct {
	int	 tried;
	cs_err	(*open)(cs_arch, cs_mode, csh *);
	cs_err	(*option)(csh, cs_opt_type, size_t);
	size_t	(*disasm)(csh, const uint8_t *, size_t, uint64_t, size_t,
		    cs_insn **);
	void	(*free)(cs_insn *, size_t);
	cs_err	(*close)(csh *);
} cs;

/* The function name of handle h into *fn (a function pointer's room);
 * 0 when it has none. */
static int
cs_sym(void *h, const char *name, void *fn)
{
	void *p = dlsym(h, name);

	memcpy(fn, &p, sizeof(p));
	return p != NULL;
}

/* 1 when the library is loaded, its functions at hand. */
static int
cs_load(void)
{
	void *h;

	if (cs.tried)
		return cs.open != NULL;
	cs.tried = 1;
	if ((h = dlopen(CS_SONAME, RTLD_NOW | RTLD_LOCAL)) == NULL)
		return 0;
	if (!cs_sym(h, "cs_option", &cs.option) ||
	    !cs_sym(h, "cs_disasm", &cs.disasm) ||
	    !cs_sym(h, "cs_free", &cs.free) ||
	    !cs_sym(h, "cs_close", &cs.close) ||
	    !cs_sym(h, "cs_open", &cs.open)) {
		cs.open = NULL;
		dlclose(h);
		return 0;
	}
	return 1;
}

cs_err
cs_open(cs_arch arch, cs_mode mode, csh *handle)
{
	if (!cs_load())
		return CS_ERR_MEM;
	return cs.open(arch, mode, handle);
}

cs_err
cs_option(csh handle, cs_opt_type type, size_t value)
{
	return cs.option(handle, type, value);
}

size_t
cs_disasm(csh handle, const uint8_t *code, size_t code_size,
    uint64_t address, size_t count, cs_insn **insn)
{
	return cs.disasm(handle, code, code_size, address, count, insn);
}

void
cs_free(cs_insn *insn, size_t count)
{
	cs.free(insn, count);
}

cs_err
cs_close(csh *handle)
{
	return cs.close(handle);
}
#else
/* ISO C wants something in a translation unit. */
typedef int pme_cslazy_unused;
#endif
