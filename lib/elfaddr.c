/*
 * elfaddr.c - the link-time address of a file offset in an ELF file and
 * its GNU build-id, for recorders that turn a mapping (start, file offset)
 * into the addresses nm prints.  Uses libelf: not part of the runtime.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "pme_sample.h"
#include "util.h"

#define BUILDID_MAX 64

/*
 * The PT_LOAD segment for offset off: one whose file bytes hold it,
 * executable ones first; else the executable one whose page-aligned start
 * is nearest (a mapping starts at a page boundary, which may be below
 * its segment's first byte).  Returns 0, or -1 if there is no PT_LOAD.
 */
static int
pick_segment(Elf *e, size_t n, uint64_t off, GElf_Phdr *out)
{
	GElf_Phdr ph;
	uint64_t best = UINT64_MAX, d, end;
	int rank, bestrank = 4;
	size_t i;

	for (i = 0; i < n; i++) {
		if (gelf_getphdr(e, (int)i, &ph) == NULL ||
		    ph.p_type != PT_LOAD)
			continue;
		end = ph.p_offset + (ph.p_filesz > 0 ? ph.p_filesz : 1);
		if (off >= ph.p_offset && off < end)
			d = 0;
		else
			d = off < ph.p_offset ? ph.p_offset - off : off - end + 1;
		/* Containing and executable; containing; executable; any. */
		rank = (d == 0 ? 0 : 2) + (ph.p_flags & PF_X ? 0 : 1);
		if (rank < bestrank || (rank == bestrank && d < best)) {
			bestrank = rank;
			best = d;
			*out = ph;
		}
	}
	return bestrank == 4 ? -1 : 0;
}

/* The build-id in the notes of [data, data + len), or 0 bytes. */
static uint32_t
find_note(Elf_Data *d, uint8_t *id)
{
	GElf_Nhdr nh;
	size_t off = 0, next, noff, doff;

	while (off < d->d_size &&
	    (next = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((char *)d->d_buf + noff, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz <= BUILDID_MAX) {
			memcpy(id, (char *)d->d_buf + doff, nh.n_descsz);
			return nh.n_descsz;
		}
		off = next;
	}
	return 0;
}

static uint32_t
build_id(Elf *e, size_t nph, uint8_t *id)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Phdr ph;
	Elf_Data *d;
	uint32_t n;
	size_t i;

	for (i = 0; i < nph; i++) {
		if (gelf_getphdr(e, (int)i, &ph) == NULL ||
		    ph.p_type != PT_NOTE || ph.p_filesz == 0)
			continue;
		d = elf_getdata_rawchunk(e, (int64_t)ph.p_offset,
		    (size_t)ph.p_filesz, ELF_T_NHDR);
		if (d != NULL && (n = find_note(d, id)) > 0)
			return n;
	}
	/* No program headers (a relocatable object) or no note in them. */
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE)
			continue;
		if ((d = elf_getdata(scn, NULL)) != NULL &&
		    (n = find_note(d, id)) > 0)
			return n;
	}
	return 0;
}

int
pme_elf_vaddr(const char *path, uint64_t off, uint64_t *vaddr,
    uint8_t *buildid, uint32_t *idlen, struct pme_error *err)
{
	GElf_Phdr ph;
	size_t nph = 0;
	uint8_t id[BUILDID_MAX];
	uint32_t n = 0;
	Elf *e;
	int fd;

	if (path == NULL || vaddr == NULL)
		return pme_seterr(err, PME_EINVAL, "pme_elf_vaddr: bad "
		    "argument");
	*vaddr = off;
	if (idlen != NULL)
		*idlen = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return pme_setsys(err, path, "cannot open");
	if (elf_version(EV_CURRENT) == EV_NONE ||
	    (e = elf_begin(fd, ELF_C_READ, NULL)) == NULL) {
		close(fd);
		return 0;	/* not ELF: offsets are addresses */
	}
	if (elf_kind(e) == ELF_K_ELF && elf_getphdrnum(e, &nph) == 0) {
		if (pick_segment(e, nph, off, &ph) == 0)
			*vaddr = off - ph.p_offset + ph.p_vaddr;
		n = build_id(e, nph, id);
	} else if (elf_kind(e) == ELF_K_ELF)
		n = build_id(e, 0, id);
	if (buildid != NULL && idlen != NULL && n > 0) {
		memcpy(buildid, id, n);
		*idlen = n;
	}
	elf_end(e);
	close(fd);
	return 0;
}
