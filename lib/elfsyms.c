/*
 * elfsyms.c - the ELF side of an image (pme_symbols.h): its section, its
 * kind (PIE, shared, executable) and build-id, and its function symbols
 * (.symtab, else .dynsym; symbol versions) sorted by address with the
 * name perf prefers first at each address.  One room of the ELF/DWARF
 * reader, whose rooms share lib/symint.h (lib/symbols.c says which does
 * what).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symint.h"

int
find_section(struct pme_image *img, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	const char *s;

	if (elf_getshdrstrndx(img->elf, &shstrndx) != 0)
		return elferr(img, "section headers");
	while ((scn = elf_nextscn(img->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			return elferr(img, "section header");
		if ((s = elf_strptr(img->elf, shstrndx, sh.sh_name)) == NULL)
			return elferr(img, "section name");
		if (strcmp(s, ".debug_info") == 0 && sh.sh_type != SHT_NOBITS &&
		    sh.sh_size > 0)
			img->flags |= PME_IMAGE_DWARF;
		if (sh.sh_type == SHT_SYMTAB)
			img->flags |= PME_IMAGE_SYMTAB;
		if (strcmp(s, name) != 0 || (sh.sh_flags & SHF_ALLOC) == 0)
			continue;
		img->sec.start = sh.sh_addr;
		img->sec.end = sh.sh_addr + sh.sh_size;
	}
	if (img->sec.end <= img->sec.start)
		return pme_seterr(img->err, PME_EINVAL,
		    "'%s': no section '%s'", img->path, name);
	return 0;
}

static int
read_buildid(struct pme_image *img, Elf_Data *d)
{
	GElf_Nhdr nh;
	size_t off = 0, noff, doff;

	while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((char *)d->d_buf + noff, "GNU", 4) != 0 ||
		    nh.n_descsz == 0)
			continue;
		img->buildid = pme_arena_alloc(&img->arena, nh.n_descsz);
		if (img->buildid == NULL)
			return sym_nomem(img);
		memcpy(img->buildid, (char *)d->d_buf + doff, nh.n_descsz);
		img->buildid_len = nh.n_descsz;
		return 1;
	}
	return 0;
}

/* DF_1_PIE in the dynamic section marks a PIE even without PT_INTERP. */
static int
dyn_is_pie(Elf_Data *d, const GElf_Shdr *sh)
{
	GElf_Dyn dyn;
	size_t i, n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (i = 0; i < n && gelf_getdyn(d, (int)i, &dyn) != NULL; i++)
		if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE))
			return 1;
	return 0;
}

int
read_kind(struct pme_image *img)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	size_t i, nph;
	int pie = 0, found = 0;

	if (gelf_getehdr(img->elf, &eh) == NULL)
		return elferr(img, "ELF header");
	if (eh.e_type == ET_EXEC)
		img->flags |= PME_IMAGE_EXEC;
	else if (eh.e_type != ET_DYN)
		return pme_seterr(img->err, PME_EFORMAT,
		    "'%s': not an executable or shared object", img->path);
	if (elf_getphdrnum(img->elf, &nph) != 0)
		return elferr(img, "program headers");
	for (i = 0; i < nph; i++)
		if (gelf_getphdr(img->elf, (int)i, &ph) != NULL &&
		    ph.p_type == PT_INTERP)
			pie = 1;
	while ((scn = elf_nextscn(img->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			return elferr(img, "section header");
		if (sh.sh_type != SHT_NOTE && sh.sh_type != SHT_DYNAMIC)
			continue;
		if ((d = elf_getdata(scn, NULL)) == NULL)
			return elferr(img, "section data");
		if (sh.sh_type == SHT_DYNAMIC)
			pie |= dyn_is_pie(d, &sh);
		else if (!found && (found = read_buildid(img, d)) == -1)
			return -1;
	}
	if (eh.e_type == ET_DYN)
		img->flags |= pie ? PME_IMAGE_PIE : PME_IMAGE_SHARED;
	return 0;
}

/* Leading underscores of a name. */
static size_t
underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* The names' part of perf's rule below: fewer leading underscores, then
 * the longer name; 0 when it does not tell. */
int
cmp_names(const char *a, const char *b)
{
	size_t ua = underscores(a), ub = underscores(b), la, lb;

	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(a);
	lb = strlen(b);
	return (la < lb) - (la > lb);
}

/*
 * Symbols by address and, at one address, the preferred name first, as
 * perf chooses among aliases (symbols__fixup_duplicate): a non-weak
 * symbol before a weak one, a global before a local, fewer leading
 * underscores, the longer name, then the earlier in the symbol table.
 * So __finitel (global) names the code it shares with finitel (weak).
 * An old version's name ("memcpy@GLIBC_2.2.5", see unversioned()) comes
 * after all the others.
 */
static int
cmp_fsym(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;
	int c;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->old != y->old)
		return x->old ? 1 : -1;
	if ((x->bind == STB_WEAK) != (y->bind == STB_WEAK))
		return x->bind == STB_WEAK ? 1 : -1;
	if ((x->bind == STB_GLOBAL) != (y->bind == STB_GLOBAL))
		return x->bind == STB_GLOBAL ? -1 : 1;
	if ((c = cmp_names(x->name, y->name)) != 0)
		return c;
	return (x->index > y->index) - (x->index < y->index);
}

static void
fsym_key(const void *e, uint64_t *k)
{
	k[0] = ((const struct fsym *)e)->addr;
}

/*
 * The symbols in cmp_fsym()'s order: by address in a radix sort (a
 * library's thousands cost n log n calls of cmp_fsym() in qsort()), in
 * place (a copy of libc's 6,800 was 66 pages touched for the first time,
 * a page fault each), then each run at one address, a few aliases, by
 * cmp_fsym(), which makes the order whole.  -1 when memory ran out.
 */
static int
sort_syms(struct pme_image *img)
{
	struct fsym *v = img->syms.v, t;
	size_t n = img->syms.n, i, j;

	if (pme_radix_sort_inplace(v, n, sizeof(*v), fsym_key) == -1)
		return -1;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1].addr == v[j].addr &&
		    cmp_fsym(&v[j - 1], &v[j]) > 0; j--) {
			t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return 0;
}

/*
 * A symbol's name as it is shown.  GNU symbol versioning leaves the
 * version in the names of .symtab (libc6-dbg's debug file has
 * "__libc_start_main@@GLIBC_2.34" and "__libc_start_main@GLIBC_2.2.5"),
 * where .dynsym keeps it apart (.gnu.version).  The default version's
 * "@@VERSION" is dropped: that is the symbol's own name, the one .dynsym
 * gives, so that a library's code is named alike with its debug file and
 * without.  An old version's name ("f@VERSION") is kept and *old set:
 * it names its code only when no other name does.  NULL when out of
 * memory.
 */
static const char *
unversioned(struct pme_image *img, const char *name, unsigned char *old)
{
	const char *at = strchr(name, '@'), *r;
	char *s;

	*old = 0;
	if (at == NULL || at == name || at[1] == '\0')
		return name;
	if (at[1] != '@') {
		*old = 1;
		return name;
	}
	if (at[2] == '\0')
		return name;
	if ((s = strndup(name, (size_t)(at - name))) == NULL)
		return NULL;
	r = pme_intern(&img->names, s);
	free(s);
	return r;
}

/*
 * .dynsym's old versions: .gnu.version gives each symbol its version's
 * index, the hidden bit set when it is not the default one, and
 * .gnu.version_d the versions' names by index.  So a stripped library
 * names its old versions "f@VERSION" as its .symtab would.
 */
struct versions {
	Elf_Data	*sym;		/* .gnu.version, or NULL */
	const char	**name;		/* by index, NULL when none */
	size_t		 n;
};

#define VERSYM_HIDDEN	0x8000

static int
read_versions(struct pme_image *img, struct versions *v)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Verdef vd;
	GElf_Verdaux va;
	Elf_Data *d;
	const char **p;
	size_t off, i, k;

	while ((scn = elf_nextscn(img->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL ||
		    (d = elf_getdata(scn, NULL)) == NULL)
			continue;
		if (sh.sh_type == SHT_GNU_versym)
			v->sym = d;
		for (off = 0, i = 0; sh.sh_type == SHT_GNU_verdef &&
		    i < sh.sh_info && gelf_getverdef(d, (int)off, &vd) != NULL &&
		    gelf_getverdaux(d, (int)(off + vd.vd_aux), &va) != NULL;
		    i++, off += vd.vd_next) {
			k = vd.vd_ndx & ~VERSYM_HIDDEN;
			if (k >= v->n) {
				if ((p = realloc(v->name, (k + 1) *
				    sizeof(*p))) == NULL)
					return sym_nomem(img);
				memset(p + v->n, 0, (k + 1 - v->n) * sizeof(*p));
				v->name = p;
				v->n = k + 1;
			}
			v->name[k] = elf_strptr(img->elf, sh.sh_link,
			    va.vda_name);
			if (vd.vd_next == 0)
				break;
		}
	}
	return 0;
}

/* .dynsym's symbol i named "name@VERSION" when its version is an old
 * one; name otherwise, NULL when out of memory. */
static const char *
old_version(struct pme_image *img, const struct versions *v, size_t i,
    const char *name, unsigned char *old)
{
	GElf_Versym vs;
	size_t k, n;
	char *s;
	const char *r;

	if (v->sym == NULL || gelf_getversym(v->sym, (int)i, &vs) == NULL ||
	    !(vs & VERSYM_HIDDEN) || (k = vs & ~VERSYM_HIDDEN) < 2 ||
	    k >= v->n || v->name[k] == NULL)
		return name;
	n = strlen(name) + strlen(v->name[k]) + 2;
	if ((s = malloc(n)) == NULL)
		return NULL;
	snprintf(s, n, "%s@%s", name, v->name[k]);
	r = pme_intern(&img->names, s);
	free(s);
	*old = 1;
	return r;
}

/* The function symbols of table sh (data d) into img->syms, as
 * sym_read_syms() says; 0 or -1. */
static int
read_fsyms(struct pme_image *img, const GElf_Shdr *sh, Elf_Data *d,
    const struct versions *v, struct pme_vec *groups)
{
	GElf_Sym s;
	struct fsym *f;
	const char **g;
	const char *name;
	size_t i, n;
	uint32_t group = PME_NONE;
	int t, b;

	n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	/* Room for all at once (libc's debug file has 10,000 symbols, two
	 * thirds of them functions): growing by doubling copied each
	 * element twice on average, into memory touched for the first time
	 * at each step, a page fault a page.  Pages of it no symbol fills
	 * are never touched. */
	if (pme_vec_reserve(&img->syms, img->syms.n + n) == -1)
		return sym_nomem(img);
	for (i = 1; i < n; i++) {
		if (gelf_getsym(d, (int)i, &s) == NULL)
			return elferr(img, "symbol");
		t = GELF_ST_TYPE(s.st_info);
		b = GELF_ST_BIND(s.st_info);
		if ((name = elf_strptr(img->elf, sh->sh_link, s.st_name)) == NULL)
			return elferr(img, "symbol name");
		if (t == STT_FILE) {
			if ((g = pme_vec_push(groups)) == NULL)
				return sym_nomem(img);
			*g = name;
			group = (uint32_t)(groups->n - 1);
			continue;
		}
		if ((t != STT_FUNC && t != STT_GNU_IFUNC) || s.st_size == 0 ||
		    s.st_shndx == SHN_UNDEF || s.st_value < img->sec.start ||
		    s.st_value >= img->sec.end || *name == '\0')
			continue;
		if ((f = pme_vec_push(&img->syms)) == NULL ||
		    (f->name = unversioned(img, name, &f->old)) == NULL ||
		    (f->name = old_version(img, v, i, f->name, &f->old)) ==
		    NULL)
			return sym_nomem(img);
		f->addr = s.st_value;
		f->size = s.st_size;
		f->group = b == STB_LOCAL ? group : PME_NONE;
		f->index = (uint32_t)i;
		f->bind = (unsigned char)b;
	}
	return 0;
}

/*
 * Reads the STT_FUNC symbols inside the section from the table of type
 * (SHT_SYMTAB or SHT_DYNSYM), noting for each local one the STT_FILE
 * group it follows.  Groups are numbered by their STT_FILE symbols.
 */
int
sym_read_syms(struct pme_image *img, Elf64_Word type, struct pme_vec *groups)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	struct versions v = { 0 };
	int rc;

	while ((scn = elf_nextscn(img->elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == type)
			break;
	if (scn == NULL)
		return 0;
	if ((d = elf_getdata(scn, NULL)) == NULL)
		return elferr(img, "symbol table");
	if (type == SHT_DYNSYM && read_versions(img, &v) == -1) {
		free(v.name);
		return -1;
	}
	rc = read_fsyms(img, &sh, d, &v, groups);
	free(v.name);
	if (rc == -1)
		return -1;
	if (sort_syms(img) == -1)
		return sym_nomem(img);
	return 1;
}

/* The symbols at addr, the preferred one first; *n of them. */
const struct fsym *
syms_at(const struct pme_image *img, uint64_t addr, size_t *n)
{
	const struct fsym *v = img->syms.v;
	size_t lo = 0, hi = img->syms.n, mid, k;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < img->syms.n && v[k].addr == addr; k++)
		continue;
	*n = k - lo;
	return *n > 0 ? &v[lo] : NULL;
}
