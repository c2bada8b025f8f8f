/*
 * crcfix.h - for the fuzz targets: recomputes the CRCs of a pme file's
 * header and of every whole chunk (pme(5)), so that mutated inputs reach
 * the payload decoders instead of stopping at a CRC mismatch.
 */
#ifndef PME_CRCFIX_H
#define PME_CRCFIX_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void
fix_crcs(uint8_t *p, size_t n)
{
	size_t off = 16;
	uint32_t len;
	uLong c;

	if (n < 16)
		return;
	put32(p + 12, (uint32_t)crc32(0, p, 12));
	while (n - off >= 20) {
		len = get32(p + off + 8);
		if (len > n - off - 20)
			break;
		c = crc32(0, p + off, 16);
		c = crc32(c, p + off + 20, len);
		put32(p + off + 16, (uint32_t)c);
		off += 20 + (size_t)len;
	}
}

/* Runs one() on the bytes as they come, then on a copy with its CRCs made
 * good: the body of the binary formats' LLVMFuzzerTestOneInput. */
static void
with_crcs_fixed(const uint8_t *data, size_t size,
    void (*one)(const uint8_t *, size_t))
{
	uint8_t *copy;

	one(data, size);
	if (size > 0 && (copy = malloc(size)) != NULL) {
		memcpy(copy, data, size);
		fix_crcs(copy, size);
		one(copy, size);
		free(copy);
	}
}

#endif /* PME_CRCFIX_H */
