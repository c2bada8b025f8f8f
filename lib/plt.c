/*
 * plt.c - names for the PLT stubs of an x86-64 ELF image, as perf gives
 * them ("memcpy@plt"): the code of .plt, .plt.sec and .plt.got, which no
 * symbol covers, so that samples in it are a routine's and not outside
 * every bucket of their load module.
 *
 * Each stub jumps through a GOT slot: "jmp *disp32(%rip)" (ff 25), after
 * an endbr64 (f3 0f 1e fa) and a bnd prefix (f2) where IBT and MPX stubs
 * have them.  The slot's relocation (R_X86_64_JUMP_SLOT in .rela.plt,
 * R_X86_64_GLOB_DAT in .rela.dyn for .plt.got) names the function
 * (whatever the symbol's type: a weak undefined one may be STT_NOTYPE;
 * a data slot is never a stub's, so never named).  The
 * stub is decoded, rather than numbered by its relocation's index, so
 * that lazy .plt, IBT .plt.sec and .plt.got entries are read alike; a
 * stub that jumps elsewhere (.plt's first entry, the lazy half of an IBT
 * .plt) has no name and is left out.
 *
 * After the stubs come .init and .fini, whatever the machine: code the
 * C runtime (crti.o, crtn.o) gives the names _init and _fini, which
 * their symbols, of size 0, do not cover and a stripped file does not
 * have.  Each is a routine over its whole section, as perf names it; the
 * dynamic loader runs them as it loads and unloads the file.
 */
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plt.h"

struct slot {
	uint64_t	 got;
	const char	*name;
};

static int
cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return (x->got > y->got) - (x->got < y->got);
}

static const char *
slot_name(const struct slot *v, size_t n, uint64_t got)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid].got < got)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].got == got ? v[lo].name : NULL;
}

/* The GOT slots of the relocations of one SHT_RELA section. */
static int
read_slots(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, struct pme_vec *slots)
{
	Elf_Scn *symscn;
	GElf_Shdr ssh;
	Elf_Data *d, *sd;
	GElf_Rela r;
	GElf_Sym s;
	struct slot *sl;
	const char *name;
	size_t i, k, nsyms;
	unsigned type;

	if ((symscn = elf_getscn(e, sh->sh_link)) == NULL ||
	    gelf_getshdr(symscn, &ssh) == NULL || ssh.sh_type != SHT_DYNSYM ||
	    (sd = elf_getdata(symscn, NULL)) == NULL ||
	    (d = elf_getdata(scn, NULL)) == NULL || sh->sh_entsize == 0)
		return 0;
	nsyms = ssh.sh_entsize ? ssh.sh_size / ssh.sh_entsize : 0;
	k = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < k; i++) {
		if (gelf_getrela(d, (int)i, &r) == NULL)
			break;
		type = (unsigned)GELF_R_TYPE(r.r_info);
		if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
		    GELF_R_SYM(r.r_info) == 0 ||
		    GELF_R_SYM(r.r_info) >= nsyms ||
		    gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &s) == NULL ||
		    (name = elf_strptr(e, ssh.sh_link, s.st_name)) == NULL ||
		    *name == '\0')
			continue;
		if ((sl = pme_vec_push(slots)) == NULL)
			return -1;
		sl->got = r.r_offset;
		sl->name = name;
	}
	return 0;
}

/* The GOT slot stub p (len bytes at addr) jumps through, or 0. */
static uint64_t
stub_slot(const uint8_t *p, size_t len, uint64_t addr)
{
	size_t i = 0;
	int32_t disp;

	if (len >= 4 && p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e &&
	    p[3] == 0xfa)
		i = 4;				/* endbr64 */
	if (i < len && p[i] == 0xf2)
		i++;				/* bnd */
	if (i + 6 > len || p[i] != 0xff || p[i + 1] != 0x25)
		return 0;
	memcpy(&disp, p + i + 2, 4);		/* x86-64: little-endian */
	return addr + i + 6 + (uint64_t)(int64_t)disp;
}

/* Entry [start, end) named name and suffix. */
static int
add_entry(struct pme_plt *plt, uint64_t start, uint64_t end,
    const char *name, const char *suffix)
{
	struct pme_range *r;
	const char **np;
	size_t len = strlen(name), slen = strlen(suffix);
	char *str;

	if ((r = pme_vec_push(&plt->vr)) == NULL ||
	    (np = pme_vec_push(&plt->vn)) == NULL ||
	    (str = pme_arena_alloc(&plt->arena, len + slen + 1)) == NULL)
		return -1;
	memcpy(str, name, len);
	memcpy(str + len, suffix, slen + 1);
	r->start = start;
	r->end = end;
	*np = str;
	return 0;
}

/* The stub sections, by address. */
struct stubsec {
	Elf_Scn		*scn;
	GElf_Shdr	 sh;
};

static int
cmp_stubsec(const void *a, const void *b)
{
	const struct stubsec *x = a, *y = b;

	return (x->sh.sh_addr > y->sh.sh_addr) -
	    (x->sh.sh_addr < y->sh.sh_addr);
}

int
pme_plt_read(Elf *e, struct pme_plt *plt, struct pme_error *err)
{
	static const char *const stubs[] = { ".plt", ".plt.sec", ".plt.got" };
	struct stubsec init[2];
	struct pme_vec slots, secs;
	struct stubsec *sec;
	size_t shstrndx, k, off, size;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Data *d;
	const char *s, *name;
	uint64_t got;
	size_t ninit = 0;
	int x86;

	memset(plt, 0, sizeof(*plt));
	pme_vec_init(&plt->vr, sizeof(struct pme_range));
	pme_vec_init(&plt->vn, sizeof(const char *));
	pme_vec_init(&slots, sizeof(struct slot));
	pme_vec_init(&secs, sizeof(struct stubsec));
	if (gelf_getehdr(e, &eh) == NULL ||
	    elf_getshdrstrndx(e, &shstrndx) != 0)
		return 0;
	x86 = eh.e_machine == EM_X86_64;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_RELA && x86) {
			if (read_slots(e, scn, &sh, &slots) == -1)
				goto nomem;
			continue;
		}
		if (sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) ||
		    (s = elf_strptr(e, shstrndx, sh.sh_name)) == NULL)
			continue;
		if ((strcmp(s, ".init") == 0 || strcmp(s, ".fini") == 0) &&
		    sh.sh_size > 0 && ninit < 2) {
			init[ninit].scn = scn;
			init[ninit++].sh = sh;
			continue;
		}
		for (k = 0; k < 3 && strcmp(s, stubs[k]) != 0; k++)
			continue;
		if (k < 3 && x86) {
			if ((sec = pme_vec_push(&secs)) == NULL)
				goto nomem;
			sec->scn = scn;
			sec->sh = sh;
		}
	}
	if (slots.n == 0 || secs.n == 0)
		goto runtime;
	qsort(slots.v, slots.n, sizeof(struct slot), cmp_slot);
	/* By address, so that the stubs come out in order. */
	qsort(secs.v, secs.n, sizeof(*sec), cmp_stubsec);
	sec = secs.v;
	for (k = 0; k < secs.n; k++) {
		if ((d = elf_getdata(sec[k].scn, NULL)) == NULL ||
		    d->d_buf == NULL || d->d_size < sec[k].sh.sh_size)
			continue;
		/* .plt.got's stubs are 8 bytes, 16 with IBT; sh_entsize
		 * says, else 16 (.plt's and .plt.sec's). */
		size = sec[k].sh.sh_entsize >= 8 && sec[k].sh.sh_entsize <= 32 ?
		    sec[k].sh.sh_entsize : 16;
		for (off = 0; off + size <= sec[k].sh.sh_size; off += size) {
			got = stub_slot((const uint8_t *)d->d_buf + off, size,
			    sec[k].sh.sh_addr + off);
			if (got != 0 && (name = slot_name(slots.v, slots.n,
			    got)) != NULL && add_entry(plt, sec[k].sh.sh_addr +
			    off, sec[k].sh.sh_addr + off + size, name,
			    "@plt") == -1)
				goto nomem;
		}
	}
runtime:
	plt->nstubs = plt->vr.n;
	qsort(init, ninit, sizeof(init[0]), cmp_stubsec);
	for (k = 0; k < ninit; k++) {
		s = elf_strptr(e, shstrndx, init[k].sh.sh_name);
		if (init[k].sh.sh_addr + init[k].sh.sh_size <
		    init[k].sh.sh_addr)
			continue;		/* past the address space */
		if (add_entry(plt, init[k].sh.sh_addr, init[k].sh.sh_addr +
		    init[k].sh.sh_size, "_", s + 1) == -1)
			goto nomem;
	}
	pme_vec_free(&slots);
	pme_vec_free(&secs);
	plt->ranges = plt->vr.v;
	plt->names = plt->vn.v;
	plt->n = plt->vr.n;
	return 0;
nomem:
	pme_vec_free(&slots);
	pme_vec_free(&secs);
	pme_plt_free(plt);
	return pme_setnomem(err);
}

void
pme_plt_free(struct pme_plt *plt)
{
	pme_vec_free(&plt->vr);
	pme_vec_free(&plt->vn);
	pme_arena_free(&plt->arena);
	memset(plt, 0, sizeof(*plt));
}
