/*
 * fuzz_pmd.c - libFuzzer target for the .PMD parser of pmebuild: any text
 * must be parsed, with errors for what is wrong, and never crash.  The
 * parser's fuzzing entry refuses EXE and MAP files, so the fuzzer touches
 * no file.  `make fuzz` builds and runs it.
 */
#include <stddef.h>
#include <stdint.h>

#include "pmd.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t nbuckets;

	(void)pmd_fuzz_one(data, size, &nbuckets);
	return 0;
}
