/*
 * elfaddr.c - the link-time address of a file offset in an ELF file and
 * its GNU build-id, for recorders that turn a mapping (start, file offset)
 * into the addresses nm prints.  Uses libelf: not part of the runtime.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "pme_sample.h"
#include "util.h"

#define BUILDID_MAX 64	/* sizeof(((struct pme_elf *)0)->buildid) */

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
pme_elf_read(const char *path, struct pme_elf *e, struct pme_error *err)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t nph = 0, i;
	Elf *elf;
	int fd;

	memset(e, 0, sizeof(*e));
	if (path == NULL)
		return pme_seterr(err, PME_EINVAL, "pme_elf_read: no path");
	/* A path read from a file (callgrind's output, a counts file,
	 * /proc/PID/maps) may name a FIFO or a terminal, whose open or read
	 * would hang the reader. */
	if ((fd = pme_open_read(path, err)) == -1)
		return -1;
	if (elf_version(EV_CURRENT) == EV_NONE ||
	    (elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL) {
		close(fd);
		return 0;	/* not ELF */
	}
	if (elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh) != NULL) {
		e->type = eh.e_type;
		if (elf_getphdrnum(elf, &nph) != 0)
			nph = 0;
		for (i = 0; i < nph && e->nload < PME_ELF_MAXLOAD; i++) {
			if (gelf_getphdr(elf, (int)i, &ph) == NULL ||
			    ph.p_type != PT_LOAD)
				continue;
			e->load[e->nload].offset = ph.p_offset;
			e->load[e->nload].vaddr = ph.p_vaddr;
			e->load[e->nload].filesz = ph.p_filesz;
			e->load[e->nload].memsz = ph.p_memsz;
			e->load[e->nload].flags = ph.p_flags;
			e->nload++;
		}
		e->idlen = build_id(elf, nph, e->buildid);
	}
	elf_end(elf);
	close(fd);
	return 0;
}

uint64_t
pme_elf_addr(const struct pme_elf *e, uint64_t off)
{
	const struct pme_elfload *l, *pick = NULL;
	uint64_t best = UINT64_MAX, d, end;
	int rank, bestrank = 4;
	uint32_t i;

	for (i = 0; i < e->nload; i++) {
		l = &e->load[i];
		end = l->offset + (l->filesz > 0 ? l->filesz : 1);
		if (off >= l->offset && off < end)
			d = 0;
		else
			d = off < l->offset ? l->offset - off : off - end + 1;
		/* Containing and executable; containing; executable; any. */
		rank = (d == 0 ? 0 : 2) + (l->flags & PF_X ? 0 : 1);
		if (rank < bestrank || (rank == bestrank && d < best)) {
			bestrank = rank;
			best = d;
			pick = l;
		}
	}
	return pick != NULL ? off - pick->offset + pick->vaddr : off;
}

int
pme_elf_vaddr(const char *path, uint64_t off, uint64_t *vaddr,
    uint8_t *buildid, uint32_t *idlen, struct pme_error *err)
{
	struct pme_elf e;

	if (path == NULL || vaddr == NULL)
		return pme_seterr(err, PME_EINVAL, "pme_elf_vaddr: bad "
		    "argument");
	*vaddr = off;
	if (idlen != NULL)
		*idlen = 0;
	if (pme_elf_read(path, &e, err) == -1)
		return -1;
	*vaddr = pme_elf_addr(&e, off);
	if (buildid != NULL && idlen != NULL && e.idlen > 0) {
		memcpy(buildid, e.buildid, e.idlen);
		*idlen = e.idlen;
	}
	return 0;
}
