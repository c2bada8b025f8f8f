/*
 * varint.h - libpme internals: the LEB128 varints and zigzagged
 * differences of pme(5)'s tables, one codec for the bucket and sample
 * formats.  Not installed.
 */
#ifndef PME_VARINT_H
#define PME_VARINT_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes a 64-bit varint takes. */
#define PME_VARINT_MAX	10

/* Writes v at p, which has room for PME_VARINT_MAX bytes; returns the
 * byte after it. */
static inline uint8_t *
pme_uv_put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* The bytes v takes. */
static inline size_t
pme_uv_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* A difference modulo 2^64 zigzagged, so that small negatives stay small,
 * and back. */
static inline uint64_t
pme_zig(uint64_t d)
{
	return d >> 63 ? ~(d << 1) : d << 1;
}

static inline uint64_t
pme_unzig(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

/*
 * Reads a varint from [p, end) into *v; returns the byte after it, or NULL
 * when the bytes end first or the value does not fit in 64 bits.  One
 * byte inline, longer ones in pme_uv_get_long().
 */
static inline const uint8_t *
pme_uv_get_long(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift;
	uint8_t b;

	for (shift = 0; shift < 64; shift += 7) {
		if (p == end)
			return NULL;
		b = *p++;
		if (shift == 63 && b > 1)
			return NULL;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return p;
		}
	}
	return NULL;
}

static inline const uint8_t *
pme_uv_get(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	if (p < end && *p < 0x80) {
		*v = *p;
		return p + 1;
	}
	return pme_uv_get_long(p, end, v);
}

#endif /* PME_VARINT_H */
