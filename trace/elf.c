/*
 * elf.c - what pmetrace needs of an ELF file: its type, its GNU build-id
 * and its PT_LOAD segments, to turn a file offset (from /proc/PID/maps)
 * into the link-time address that bucket files hold.  pme_sample.h
 * declares pme_elf_vaddr() for the same purpose; until it is in libpme
 * this small reader stands in.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

static void
read_buildid(Elf *elf, const GElf_Phdr *ph, struct tr_elf *e)
{
	Elf_Data *d;
	GElf_Nhdr nh;
	size_t off = 0, noff, doff;

	d = elf_getdata_rawchunk(elf, (int64_t)ph->p_offset, ph->p_filesz,
	    ELF_T_NHDR);
	if (d == NULL)
		return;
	while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((const char *)d->d_buf + noff, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz <= sizeof(e->id)) {
			memcpy(e->id, (const char *)d->d_buf + doff,
			    nh.n_descsz);
			e->idlen = nh.n_descsz;
			return;
		}
	}
}

int
tr_elf_read(const char *path, struct tr_elf *e)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t n, i;
	Elf *elf;
	int fd, rc = -1;

	memset(e, 0, sizeof(*e));
	if (elf_version(EV_CURRENT) == EV_NONE ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	if ((elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL)
		goto out;
	if (gelf_getehdr(elf, &eh) == NULL || elf_getphdrnum(elf, &n) != 0)
		goto out;
	e->type = eh.e_type;
	for (i = 0; i < n; i++) {
		if (gelf_getphdr(elf, (int)i, &ph) == NULL)
			continue;
		if (ph.p_type == PT_NOTE && e->idlen == 0)
			read_buildid(elf, &ph, e);
		if (ph.p_type == PT_LOAD && e->nload < TR_MAXLOAD) {
			e->load[e->nload].off = ph.p_offset;
			e->load[e->nload].vaddr = ph.p_vaddr;
			e->load[e->nload].filesz = ph.p_filesz;
			e->nload++;
		}
	}
	rc = 0;
out:
	elf_end(elf);
	close(fd);
	return rc;
}

uint64_t
tr_elf_vaddr(const struct tr_elf *e, uint64_t off)
{
	size_t i;

	for (i = 0; i < e->nload; i++)
		if (off >= e->load[i].off &&
		    off - e->load[i].off < e->load[i].filesz)
			return off - e->load[i].off + e->load[i].vaddr;
	/* Mappings start page-aligned, often before their segment's offset
	 * (the ELF header, a partial first page): use the segment that
	 * holds the page. */
	for (i = 0; i < e->nload; i++)
		if (off <= e->load[i].off && e->load[i].off - off < 0x10000 &&
		    e->load[i].vaddr >= e->load[i].off - off)
			return e->load[i].vaddr - (e->load[i].off - off);
	return off;
}
