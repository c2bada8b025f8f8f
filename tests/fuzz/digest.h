/*
 * digest.h - for the round-trip fuzz targets: an FNV-style digest of a
 * file's fields, number by number and string by string, so that what was
 * read once can be compared with what is read back.
 */
#ifndef PME_DIGEST_H
#define PME_DIGEST_H

#include <stdint.h>

static uint64_t
mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

/* A string and its end; NULL differs from "". */
static uint64_t
mixs(uint64_t h, const char *s)
{
	if (s == NULL)
		return mix(h, 0x5a5a);
	for (; *s != '\0'; s++)
		h = mix(h, (unsigned char)*s);
	return mix(h, 0);
}

#endif /* PME_DIGEST_H */
