/*
 * dwarfdie.c - modules and routines from DWARF: libdwarf's compilation
 * units and their subprograms with code (ranges, entry, declaring file
 * and line, names), read in the containment child (lib/contain.c).  One
 * room of the ELF/DWARF reader, whose rooms share lib/symint.h
 * (lib/symbols.c says which does what).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symint.h"

/* Module name: the CU name relative to comp_dir when it lies under it. */
const char *
relname(const char *compdir, const char *name)
{
	size_t k = compdir != NULL ? strlen(compdir) : 0;

	while (k > 1 && compdir[k - 1] == '/')
		k--;
	if (k > 1 && strncmp(name, compdir, k) == 0 && name[k] == '/' &&
	    name[k + 1] != '\0')
		name += k + 1;
	else if (k == 1 && *compdir == '/' && *name == '/' && name[1] != '\0')
		name++;
	while (name[0] == '.' && name[1] == '/' && name[2] != '\0')
		name += 2;
	return name;
}

/* Adds the ranges of DW_AT_ranges in .debug_ranges (DWARF 2 to 4). */
static int
ranges_v4(struct cu *cu, Dwarf_Die die, Dwarf_Attribute a)
{
	struct pme_image *img = cu->img;
	Dwarf_Ranges *rb;
	Dwarf_Signed n, i;
	Dwarf_Unsigned bytes;
	Dwarf_Off off, real;
	Dwarf_Error e = NULL;
	uint64_t base = cu->base;
	int rc = 0;

	if (dwarf_global_formref(a, &off, &e) != DW_DLV_OK)
		return dwerr(img, e, "DW_AT_ranges");
	set_phase(img, PH_RANGES);
	if (dwarf_get_ranges_b(img->dbg, off, die, &real, &rb, &n, &bytes,
	    &e) != DW_DLV_OK)
		return dwerr(img, e, "DW_AT_ranges");
	for (i = 0; i < n && rc == 0; i++) {
		if (rb[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
			base = rb[i].dwr_addr2;
		else if (rb[i].dwr_type == DW_RANGES_ENTRY)
			rc = scratch_add(img, base + rb[i].dwr_addr1,
			    base + rb[i].dwr_addr2);
	}
	dwarf_ranges_dealloc(img->dbg, rb, n);
	set_phase(img, PH_INFO);
	return rc;
}

/* Adds the ranges of DW_AT_ranges in .debug_rnglists (DWARF 5). */
static int
ranges_v5(struct cu *cu, Dwarf_Attribute a, Dwarf_Half form)
{
	struct pme_image *img = cu->img;
	Dwarf_Rnglists_Head h;
	Dwarf_Unsigned val, n, i, off, raw1, raw2, lo, hi;
	Dwarf_Error e = NULL;
	Dwarf_Bool unavail;
	unsigned len, code;
	int rc = 0, res;

	if (form == DW_FORM_rnglistx)
		res = dwarf_formudata(a, &val, &e);
	else
		res = dwarf_global_formref(a, &val, &e);
	if (res != DW_DLV_OK)
		return dwerr(img, e, "DW_AT_ranges");
	set_phase(img, PH_RNGLISTS);
	if (dwarf_rnglists_get_rle_head(a, form, val, &h, &n, &off, &e) !=
	    DW_DLV_OK)
		return dwerr(img, e, "DW_AT_ranges");
	for (i = 0; i < n && rc == 0; i++) {
		unavail = 0;
		if (dwarf_get_rnglists_entry_fields_a(h, i, &len, &code, &raw1,
		    &raw2, &unavail, &lo, &hi, &e) != DW_DLV_OK) {
			rc = dwerr(img, e, "range list");
			break;
		}
		if (unavail || code == DW_RLE_base_address ||
		    code == DW_RLE_base_addressx || code == DW_RLE_end_of_list)
			continue;
		rc = scratch_add(img, lo, hi);
	}
	dwarf_dealloc_rnglists_head(h);
	set_phase(img, PH_INFO);
	return rc;
}

/*
 * Puts die's code ranges in the scratch ranges and its entry in *entry:
 * DW_AT_low_pc with DW_AT_high_pc (an address, or since DWARF 4 an offset
 * from low_pc) or DW_AT_ranges, whose first entry is the entry point as
 * gcc and clang write it.  Returns 1 when die has code, 0 when not.
 */
static int
die_ranges(struct cu *cu, Dwarf_Die die, uint64_t *entry)
{
	struct pme_image *img = cu->img;
	Dwarf_Attribute a;
	Dwarf_Addr lo, hi;
	Dwarf_Half form;
	enum Dwarf_Form_Class cls;
	Dwarf_Error e = NULL;
	int res, rc;

	img->scratch.n = 0;
	res = dwarf_attr(die, DW_AT_ranges, &a, &e);
	if (res == DW_DLV_ERROR)
		return dwerr(img, e, "DW_AT_ranges");
	if (res == DW_DLV_OK) {
		if (dwarf_whatform(a, &form, &e) != DW_DLV_OK) {
			dwarf_dealloc_attribute(a);
			return dwerr(img, e, "DW_AT_ranges");
		}
		if (form == DW_FORM_rnglistx || cu->version >= 5)
			rc = ranges_v5(cu, a, form);
		else
			rc = ranges_v4(cu, die, a);
		dwarf_dealloc_attribute(a);
		if (rc == -1)
			return -1;
		if (dwarf_lowpc(die, &lo, &e) == DW_DLV_OK)
			*entry = lo;
		else {
			if (e != NULL)
				dwarf_dealloc_error(img->dbg, e);
			*entry = img->scratch.n > 0 ?
			    PME_VEC_AT(&img->scratch, struct pme_range, 0).start
			    : 0;
		}
		return 1;
	}
	res = dwarf_lowpc(die, &lo, &e);
	if (res == DW_DLV_ERROR)
		return dwerr(img, e, "DW_AT_low_pc");
	if (res == DW_DLV_NO_ENTRY)
		return 0;
	res = dwarf_highpc_b(die, &hi, &form, &cls, &e);
	if (res == DW_DLV_ERROR)
		return dwerr(img, e, "DW_AT_high_pc");
	if (res == DW_DLV_NO_ENTRY)
		return 0;
	if (cls == DW_FORM_CLASS_CONSTANT)
		hi += lo;
	*entry = lo;
	if (scratch_add(img, lo, hi) == -1)
		return -1;
	return 1;
}

/* What a subprogram says of itself, or through its origin. */
struct subinfo {
	const char	*name;
	Dwarf_Unsigned	 file, line;
	int		 declaration;
	Dwarf_Off	 origin;	/* DIE offset, 0 if none */
	int		 origin_local;	/* origin in the same unit */
};

static void
sub_attrs(struct pme_image *img, Dwarf_Die die, struct subinfo *si)
{
	Dwarf_Attribute *al;
	Dwarf_Signed n, i;
	Dwarf_Half at, form;
	Dwarf_Error e = NULL;
	Dwarf_Unsigned u;
	Dwarf_Bool flag;
	Dwarf_Off off;
	char *s;

	if (dwarf_attrlist(die, &al, &n, &e) != DW_DLV_OK) {
		if (e != NULL)
			dwarf_dealloc_error(img->dbg, e);
		return;
	}
	for (i = 0; i < n; i++) {
		if (dwarf_whatattr(al[i], &at, &e) != DW_DLV_OK ||
		    dwarf_whatform(al[i], &form, &e) != DW_DLV_OK)
			break;
		if (at == DW_AT_name && si->name == NULL &&
		    dwarf_formstring(al[i], &s, &e) == DW_DLV_OK)
			si->name = s;
		else if (at == DW_AT_decl_file && si->file == 0 &&
		    dwarf_formudata(al[i], &u, &e) == DW_DLV_OK)
			si->file = u;
		else if (at == DW_AT_decl_line && si->line == 0 &&
		    dwarf_formudata(al[i], &u, &e) == DW_DLV_OK)
			si->line = u;
		else if (at == DW_AT_declaration &&
		    dwarf_formflag(al[i], &flag, &e) == DW_DLV_OK)
			si->declaration = flag != 0;
		else if ((at == DW_AT_abstract_origin ||
		    at == DW_AT_specification) && si->origin == 0 &&
		    dwarf_global_formref(al[i], &off, &e) == DW_DLV_OK) {
			si->origin = off;
			si->origin_local = form != DW_FORM_ref_addr;
		}
		if (e != NULL) {
			dwarf_dealloc_error(img->dbg, e);
			e = NULL;
		}
	}
	if (e != NULL)
		dwarf_dealloc_error(img->dbg, e);
	for (i = 0; i < n; i++)
		dwarf_dealloc_attribute(al[i]);
	dwarf_dealloc(img->dbg, al, DW_DLA_LIST);
}

/*
 * Fills si from die and, for what die lacks, from its abstract origin or
 * specification (an out-of-line copy of an inline function, a C++ member
 * defined outside its class), following at most a few links.
 */
static void
sub_info(struct pme_image *img, Dwarf_Die die, struct subinfo *si)
{
	Dwarf_Die o;
	Dwarf_Off off;
	Dwarf_Error e = NULL;
	int depth, local = 1, decl;

	sub_attrs(img, die, si);
	decl = si->declaration;
	for (depth = 0; depth < 4 && si->origin != 0; depth++) {
		if (si->name != NULL && (si->file != 0 || !local))
			break;
		off = si->origin;
		local = local && si->origin_local;
		si->origin = 0;
		if (dwarf_offdie_b(img->dbg, off, 1, &o, &e) != DW_DLV_OK) {
			if (e != NULL)
				dwarf_dealloc_error(img->dbg, e);
			break;
		}
		if (!local)
			si->file = si->line = 0;
		sub_attrs(img, o, si);
		dwarf_dealloc_die(o);
	}
	if (!local)
		si->file = 0;
	si->declaration = decl;
}

/* An unsigned attribute of die, 0 when it has none. */
static Dwarf_Unsigned
attr_udata(struct pme_image *img, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	Dwarf_Unsigned u = 0;

	if (dwarf_attr(die, at, &a, &e) == DW_DLV_OK) {
		if (dwarf_formudata(a, &u, &e) != DW_DLV_OK)
			u = 0;
		dwarf_dealloc_attribute(a);
	}
	if (e != NULL)
		dwarf_dealloc_error(img->dbg, e);
	return u;
}

/* An inlined instance (pme_image_open_inlines()): a record per range. */
static int
add_inline(struct cu *cu, Dwarf_Die die, uint32_t depth)
{
	struct pme_image *img = cu->img;
	struct subinfo si = { 0 };
	struct pme_syminline *in;
	const struct pme_range *r;
	const char *name, *file = NULL;
	Dwarf_Unsigned cf, cl;
	uint64_t entry;
	uint32_t n, i;
	int has;

	if ((has = die_ranges(cu, die, &entry)) <= 0 || img->scratch.n == 0)
		return has;
	sub_info(img, die, &si);
	cf = attr_udata(img, die, DW_AT_call_file);
	cl = attr_udata(img, die, DW_AT_call_line);
	if ((cf != 0 || cu->version >= 5) && cl != 0)
		file = decl_file(cu, cf);
	if ((name = pme_intern(&img->names, si.name != NULL ? si.name :
	    "?")) == NULL)
		return sym_nomem(img);
	r = img->scratch.v;
	n = (uint32_t)pme_ranges_merge(img->scratch.v, img->scratch.n);
	for (i = 0; i < n; i++) {
		if (r[i].start >= r[i].end)
			continue;
		if ((in = pme_vec_push(&img->inlines)) == NULL)
			return sym_nomem(img);
		in->start = r[i].start;
		in->end = r[i].end;
		in->depth = depth;
		in->name = name;
		in->call_file = file;
		in->call_line = (uint32_t)cl;
	}
	img->scratch.n = 0;
	return 0;
}

/*
 * The inlined instances under parent, of depth depth: in its lexical
 * blocks too, and those inlined into them one deeper.
 */
static int
walk_inlines(struct cu *cu, Dwarf_Die parent, uint32_t depth)
{
	struct pme_image *img = cu->img;
	Dwarf_Die die, next;
	Dwarf_Half tag;
	Dwarf_Error e = NULL;
	int res, rc = 0;

	if (depth > 64)
		return 0;
	res = dwarf_child(parent, &die, &e);
	if (res == DW_DLV_ERROR)
		return dwerr(img, e, "DIE child");
	while (res == DW_DLV_OK) {
		if (dwarf_tag(die, &tag, &e) != DW_DLV_OK)
			rc = dwerr(img, e, "DIE tag");
		else if (tag == DW_TAG_inlined_subroutine)
			rc = add_inline(cu, die, depth) == -1 ? -1 :
			    walk_inlines(cu, die, depth + 1);
		else if (tag == DW_TAG_lexical_block)
			rc = walk_inlines(cu, die, depth);
		if (rc == -1) {
			dwarf_dealloc_die(die);
			return -1;
		}
		res = dwarf_siblingof_b(img->dbg, die, 1, &next, &e);
		dwarf_dealloc_die(die);
		if (res == DW_DLV_ERROR)
			return dwerr(img, e, "DIE sibling");
		die = next;
	}
	return 0;
}

static int
add_subprogram(struct cu *cu, Dwarf_Die die, uint32_t mod)
{
	struct pme_image *img = cu->img;
	struct subinfo si = { 0 };
	struct pme_symroutine *r;
	const struct fsym *f;
	uint64_t entry = 0;
	Dwarf_Error e = NULL;
	Dwarf_Bool decl = 1;
	size_t nf;
	int has;

	/* A declaration is passed over.  dwarf_hasattr() reads the DIE
	 * where sub_attrs() has libdwarf make and free every attribute of
	 * it (dwarf_attrlist(), a third of the reader's time on the SQLite
	 * amalgamation): that is done only when one is there, to read its
	 * value, and for the routines kept (sub_info() below). */
	if (dwarf_hasattr(die, DW_AT_declaration, &decl, &e) != DW_DLV_OK) {
		if (e != NULL)
			dwarf_dealloc_error(img->dbg, e);
		decl = 1;
	}
	if (decl) {
		sub_attrs(img, die, &si);
		if (si.declaration)
			return 0;
	}
	if ((has = die_ranges(cu, die, &entry)) <= 0 || img->scratch.n == 0)
		return has;
	/* The origin is read only for routines that are kept. */
	memset(&si, 0, sizeof(si));
	sub_info(img, die, &si);
	if ((r = pme_vec_push(&img->routines)) == NULL)
		return sym_nomem(img);
	r->module = mod;
	r->entry = entry;
	f = syms_at(img, entry, &nf);
	if (f != NULL)
		r->name = f->name;
	else if (si.name != NULL)
		r->name = pme_intern(&img->names, si.name);
	else
		r->name = pme_intern(&img->names, "?");
	if (r->name == NULL)
		return sym_nomem(img);
	r->line = (uint32_t)si.line;
	if ((si.file != 0 || cu->version >= 5) && si.line != 0)
		r->file = decl_file(cu, si.file);
	if (scratch_take(img, 0, &r->ranges, &r->nranges) == -1)
		return -1;
	return img->want_inlines ? walk_inlines(cu, die, 1) : 0;
}

static int walk_children(struct cu *, Dwarf_Die, uint32_t, int);

/* Subprograms at the top of a unit and in namespaces become routines. */
static int
visit_die(struct cu *cu, Dwarf_Die die, uint32_t mod, int depth)
{
	Dwarf_Half tag;
	Dwarf_Error e = NULL;

	if (dwarf_tag(die, &tag, &e) != DW_DLV_OK)
		return dwerr(cu->img, e, "DIE tag");
	if (tag == DW_TAG_subprogram)
		return add_subprogram(cu, die, mod);
	if ((tag == DW_TAG_namespace || tag == DW_TAG_module) && depth < 64)
		return walk_children(cu, die, mod, depth + 1);
	return 0;
}

static int
walk_children(struct cu *cu, Dwarf_Die parent, uint32_t mod, int depth)
{
	struct pme_image *img = cu->img;
	Dwarf_Die die, next;
	Dwarf_Error e = NULL;
	int res;

	res = dwarf_child(parent, &die, &e);
	if (res == DW_DLV_ERROR)
		return dwerr(img, e, "DIE child");
	while (res == DW_DLV_OK) {
		if (visit_die(cu, die, mod, depth) == -1) {
			dwarf_dealloc_die(die);
			return -1;
		}
		res = dwarf_siblingof_b(img->dbg, die, 1, &next, &e);
		dwarf_dealloc_die(die);
		if (res == DW_DLV_ERROR)
			return dwerr(img, e, "DIE sibling");
		die = next;
	}
	return 0;
}

/* The unit's name, comp_dir, version and base address. */
static int
cu_setup(struct cu *cu, Dwarf_Die die)
{
	struct pme_image *img = cu->img;
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	Dwarf_Half off_size;
	Dwarf_Addr lo;
	Dwarf_Off stmt;
	char *s = NULL;

	cu->die = die;
	if (dwarf_get_version_of_die(die, &cu->version, &off_size) !=
	    DW_DLV_OK)
		cu->version = 4;
	if (cu->version >= 5)
		img->flags |= PME_IMAGE_DWARF5;
	cu->compdir = NULL;
	if (dwarf_attr(die, DW_AT_comp_dir, &a, &e) == DW_DLV_OK) {
		if (dwarf_formstring(a, &s, &e) == DW_DLV_OK &&
		    (cu->compdir = pme_intern(&img->names, s)) == NULL)
			return sym_nomem(img);
		dwarf_dealloc_attribute(a);
	}
	if (e != NULL)
		dwarf_dealloc_error(img->dbg, e), e = NULL;
	cu->info.compdir = cu->compdir;
	if (dwarf_attr(die, DW_AT_stmt_list, &a, &e) == DW_DLV_OK) {
		if (dwarf_global_formref(a, &stmt, &e) == DW_DLV_OK) {
			cu->info.stmt = stmt;
			cu->info.has_stmt = 1;
		}
		dwarf_dealloc_attribute(a);
	}
	if (e != NULL)
		dwarf_dealloc_error(img->dbg, e), e = NULL;
	s = NULL;
	if (dwarf_diename(die, &s, &e) != DW_DLV_OK) {
		if (e != NULL)
			dwarf_dealloc_error(img->dbg, e);
		s = "?";
	}
	if ((cu->name = pme_intern(&img->names, relname(cu->compdir, s))) == NULL)
		return sym_nomem(img);
	cu->base = 0;
	if (dwarf_lowpc(die, &lo, &e) == DW_DLV_OK)
		cu->base = lo;
	else if (e != NULL)
		dwarf_dealloc_error(img->dbg, e);
	return 0;
}

static int
read_cu(struct pme_image *img, Dwarf_Die die)
{
	struct cu cu = { 0 };
	struct pme_symmod *m;
	uint64_t entry;
	int rc;

	cu.img = img;
	if (cu_setup(&cu, die) == -1)
		return -1;
	if ((m = add_module(img, cu.name, &cu.info)) == NULL)
		return -1;
	if ((rc = die_ranges(&cu, die, &entry)) == -1)
		return -1;
	if (rc == 1 && scratch_take(img, 1, &m->ranges, &m->nranges) == -1)
		return -1;
	rc = walk_children(&cu, die, (uint32_t)img->mods.n - 1, 0);
	cu_free(&cu);
	if (rc == -1)
		return -1;
	return end_module(img);
}

int
read_dwarf(struct pme_image *img)
{
	Dwarf_Unsigned hlen, abbrev, typeoff, next = 0;
	Dwarf_Half ver, asz, lsz, esz, utype, tag;
	Dwarf_Sig8 sig;
	Dwarf_Die die;
	Dwarf_Error e = NULL;
	int res, rc;

	set_phase(img, PH_INFO);
	for (;;) {
		if (img->watch != NULL) {
			img->watch->unit = next;
			img->watch->inunit = 1;
		}
		res = dwarf_next_cu_header_d(img->dbg, 1, &hlen, &ver, &abbrev,
		    &asz, &lsz, &esz, &sig, &typeoff, &next, &utype, &e);
		/* .debug_info has bytes (PME_IMAGE_DWARF): no unit in it at
		 * all is a unit header libdwarf did not take. */
		if (res == DW_DLV_NO_ENTRY && img->mods.n == 0 && next == 0)
			return pme_seterr(img->err, PME_EFORMAT, "'%s': corrupt "
			    "DWARF (.debug_info): no compilation unit at offset "
			    "0", img->path);
		if (res == DW_DLV_NO_ENTRY)
			return 0;
		if (res == DW_DLV_ERROR)
			return dwerr(img, e, "compilation unit header");
		if (dwarf_siblingof_b(img->dbg, NULL, 1, &die, &e) != DW_DLV_OK)
			return dwerr(img, e, "compilation unit");
		if (dwarf_tag(die, &tag, &e) != DW_DLV_OK) {
			dwarf_dealloc_die(die);
			return dwerr(img, e, "DIE tag");
		}
		rc = tag == DW_TAG_compile_unit ? read_cu(img, die) : 0;
		dwarf_dealloc_die(die);
		if (rc == -1)
			return -1;
	}
}
