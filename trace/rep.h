/*
 * rep.h - the one rule both ways of stepping (the step engine, step.c,
 * and libpmetrace stepping its own region, runtime.c) count a string
 * instruction with a rep prefix by, so that they agree with valgrind's
 * callgrind (pmetrace(1), "String instructions"): once per pass, a pass
 * being an iteration or the check that finds the count register zero.
 *
 * The trap flag stops after every iteration (the address unchanged until
 * the last), which gives one count per iteration, or one for a count of
 * zero; valgrind makes one pass more when the instruction ends because
 * its count ran out after at least one iteration (not when a repe/repne
 * compare or scan ends on its condition).  So a stepper notes, when a
 * thread arrives at such an instruction, its kind and whether its count
 * is not zero, and when the thread leaves it adds one to it if
 * tr_rep_ran_out() says so.
 */
#ifndef TR_REP_H
#define TR_REP_H

#include <stddef.h>
#include <stdint.h>

/* A string instruction with a rep prefix: how it ends, and its count
 * register. */
#define REP_ALWAYS	1	/* rep movs, stos, lods, ins, outs */
#define REP_E		2	/* repe cmps, scas: while ZF is set */
#define REP_NE		3	/* repne cmps, scas: while ZF is clear */
#define REP_KIND	3
#define REP_ECX		4	/* address-size prefix: ecx counts */
#define REP_NONE	8	/* decoded: not one */

#define REP_EFLAGS_ZF	0x40

/*
 * The REP_* of the instruction whose bytes are b[0..n): REP_NONE unless it
 * is a string instruction with a rep prefix.  Reads no byte past the
 * opcode, so b may be the instruction in place, however near the end of
 * its page.
 */
static inline int
tr_rep_decode(const uint8_t *b, size_t n)
{
	size_t i;
	int rep = 0, ecx = 0;

	for (i = 0; i < n; i++) {
		if (b[i] == 0xf2 || b[i] == 0xf3)
			rep = b[i];
		else if (b[i] == 0x67)
			ecx = REP_ECX;
		else if (b[i] != 0x66 && b[i] != 0xf0 && b[i] != 0x2e &&
		    b[i] != 0x36 && b[i] != 0x3e && b[i] != 0x26 &&
		    b[i] != 0x64 && b[i] != 0x65)
			break;
	}
	if (i < n && (b[i] & 0xf0) == 0x40)
		i++;		/* REX */
	if (i == n || rep == 0)
		return REP_NONE;
	switch (b[i]) {
	case 0x6c: case 0x6d: case 0x6e: case 0x6f:	/* ins, outs */
	case 0xa4: case 0xa5:				/* movs */
	case 0xaa: case 0xab:				/* stos */
	case 0xac: case 0xad:				/* lods */
		return REP_ALWAYS | ecx;
	case 0xa6: case 0xa7:				/* cmps */
	case 0xae: case 0xaf:				/* scas */
		return (rep == 0xf3 ? REP_E : REP_NE) | ecx;
	}
	return REP_NONE;
}

/* The count an instruction of kind uses, from rcx. */
static inline uint64_t
tr_rep_count(int kind, uint64_t rcx)
{
	return kind & REP_ECX ? (uint32_t)rcx : rcx;
}

/*
 * A thread left the rep string instruction of kind, whose count was not
 * zero on arrival when ran is set, with rcx and eflags as they are now:
 * whether valgrind made a last pass there, finding the count zero after
 * at least one iteration.
 */
static inline int
tr_rep_ran_out(int kind, int ran, uint64_t rcx, uint64_t eflags)
{
	if (!ran || tr_rep_count(kind, rcx) != 0)
		return 0;
	switch (kind & REP_KIND) {
	case REP_ALWAYS:
		return 1;
	case REP_E:
		return (eflags & REP_EFLAGS_ZF) != 0;
	default:
		return (eflags & REP_EFLAGS_ZF) == 0;
	}
}

#endif /* TR_REP_H */
