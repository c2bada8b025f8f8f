/*
 * x86sp.h - whether an x86-64 instruction moves a value into the stack
 * pointer (mov r64, %rsp; mov m64, %rsp): how longjmp (glibc's
 * __longjmp: mov %r8,%rsp; jmp *%rdx) and the landing of a C++
 * exception (libgcc's _Unwind_RaiseException: mov %rcx,%rsp; pop %rcx;
 * jmp *%rcx) switch to an older frame before their indirect jump.  Such
 * a jump returns into the frame, as callgrind's call stack, unwound to
 * the new stack pointer, takes it: into a routine it is a call only at
 * the routine's entry, wherever it comes from (the dynamic loader's jump
 * to the program's _start, after it restored %rsp, stays a call where
 * no routine holds _start: a stripped program).  pmevg (trace/vgtool/pmevg.c) and
 * pme's QEMU plugin (trace/qemu/pmeqemu.c) share it: no includes, for
 * valgrind's tools have no C library.
 */
#ifndef PME_X86SP_H
#define PME_X86SP_H

static inline int
x86_moves_sp(const unsigned char *p, unsigned long n)
{
	unsigned long i = 0;
	unsigned char rex = 0, m;

	while (i < n && (p[i] == 0x2e || p[i] == 0x3e || p[i] == 0x26 ||
	    p[i] == 0x36 || p[i] == 0x64 || p[i] == 0x65 || p[i] == 0x67))
		i++;
	if (i < n && (p[i] & 0xf0) == 0x40)
		rex = p[i++];
	if (!(rex & 8) || i + 1 >= n)	/* a 64-bit move only */
		return 0;
	m = p[i + 1];
	/* 8b /r: reg (REX.R extends it) is the destination */
	if (p[i] == 0x8b && ((m >> 3) & 7) == 4 && !(rex & 4))
		return 1;
	/* 89 /r, register form: rm (REX.B extends it) is */
	return p[i] == 0x89 && (m >> 6) == 3 && (m & 7) == 4 && !(rex & 1);
}

#endif /* PME_X86SP_H */
