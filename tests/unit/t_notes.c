/*
 * t_notes.c - pme_note_buildid() of lib/util.h, the build-id of notes in
 * memory that both runtimes and pmeclock's vDSO read: the GNU build-id
 * after other notes (a property note, another owner's NT_GNU_BUILD_ID
 * type), names and descriptors padded to 4 bytes, and nothing from a
 * note cut short, an empty or too long descriptor, or no notes.
 */
#define TEST_NAME "t_notes"
#include "check.h"

#include <elf.h>
#include <string.h>

#include "util.h"

static uint8_t	buf[256];
static size_t	len;

/* Appends a note: type, name (its NUL counted), desc of dlen bytes. */
static void
note(uint32_t type, const char *name, const uint8_t *desc, uint32_t dlen)
{
	Elf64_Nhdr nh;
	size_t n = strlen(name) + 1;

	nh.n_namesz = (uint32_t)n;
	nh.n_descsz = dlen;
	nh.n_type = type;
	memcpy(buf + len, &nh, sizeof(nh));
	len += sizeof(nh);
	memset(buf + len, 0, ((n + 3) & ~(size_t)3) + ((dlen + 3) & ~3u));
	memcpy(buf + len, name, n);
	len += (n + 3) & ~(size_t)3;
	memcpy(buf + len, desc, dlen);
	len += (dlen + 3) & ~3u;
}

int
main(void)
{
	static const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4,
	    5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	static const uint8_t prop[16] = { 2, 0, 0, 0xc0, 4, 0, 0, 0, 3 };
	const uint8_t *got = NULL;
	uint32_t n;

	/* a property note, another owner's type 3, then GNU's */
	note(NT_GNU_PROPERTY_TYPE_0, "GNU", prop, sizeof(prop));
	note(NT_GNU_BUILD_ID, "Linux", id, 6);
	note(NT_GNU_BUILD_ID, "GNU", id, sizeof(id));
	n = pme_note_buildid(buf, len, 64, &got);
	if (n != sizeof(id) || got == NULL || memcmp(got, id, n) != 0)
		fail("the build-id after two other notes: %u bytes", n);
	if (pme_note_buildid(buf, len, 19, &got) != 0)
		fail("a 20-byte build-id where 19 at most are wanted");
	/* cut anywhere inside the build-id note: nothing */
	for (n = 1; n <= sizeof(id) + 16; n++)
		if (pme_note_buildid(buf, len - n, 64, &got) != 0)
			fail("the notes cut %u bytes short gave a build-id", n);
	if (pme_note_buildid(buf, 0, 64, &got) != 0)
		fail("no notes gave a build-id");
	/* an odd length, padded */
	len = 0;
	note(NT_GNU_BUILD_ID, "GNU", id, 0);
	note(NT_GNU_BUILD_ID, "GNU", id, 5);
	n = pme_note_buildid(buf, len, 64, &got);
	if (n != 5 || memcmp(got, id, 5) != 0)
		fail("a 5-byte build-id after an empty one: %u bytes", n);
	return failures != 0;
}
