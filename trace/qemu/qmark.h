/*
 * qmark.h - how libpmetrace (trace/runtime.c) marks its region to pme's
 * QEMU plugin (pmeqemu.c), as it marks it to valgrind with callgrind's
 * client requests: a system call of a number no kernel has, which QEMU
 * passes to the plugin's system call callback before it answers ENOSYS.
 * The first argument is the request; the second the guest address of a
 * 32-bit word the plugin sets to 1, so that the runtime knows the plugin
 * saw it (natively, or under a QEMU without the plugin, it stays 0).
 */
#ifndef QMARK_H
#define QMARK_H

#define PMEQEMU_MARK	0x504d45	/* "PME" */
#define PMEQEMU_ZERO	1		/* pme_init: counts from zero */
#define PMEQEMU_REGION	2		/* pme_exit: writes a region dump */

#endif /* QMARK_H */
