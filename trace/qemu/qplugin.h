/*
 * qplugin.h - the few declarations of QEMU's TCG plugin interface
 * (qemu-plugin.h, API version 1 as QEMU 7.2 offers it) that pme's plugin
 * (pmeqemu.c) uses, written from QEMU's documentation of that interface.
 * QEMU refuses a plugin whose qemu_plugin_version is outside the range
 * it supports, and passes the range in qemu_info_t.version.
 */
#ifndef QPLUGIN_H
#define QPLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QPLUGIN_VERSION	1

typedef uint64_t qemu_plugin_id_t;

typedef struct {
	const char	*target_name;
	struct {
		int	 min, cur;
	} version;
	bool		 system_emulation;
	union {
		struct {
			int	 smp_vcpus, max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS
};

enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *udata);
typedef void (*qemu_plugin_vcpu_simple_cb_t)(qemu_plugin_id_t id,
    unsigned int vcpu);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu, void *udata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
    struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_syscall_cb_t)(qemu_plugin_id_t id,
    unsigned int vcpu, int64_t num, uint64_t a1, uint64_t a2, uint64_t a3,
    uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8);
typedef void (*qemu_plugin_vcpu_syscall_ret_cb_t)(qemu_plugin_id_t id,
    unsigned int vcpu, int64_t num, int64_t ret);

void	qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t id,
	    qemu_plugin_vcpu_simple_cb_t cb);
void	qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
	    qemu_plugin_vcpu_tb_trans_cb_t cb);
void	qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
	    qemu_plugin_vcpu_udata_cb_t cb, enum qemu_plugin_cb_flags flags,
	    void *udata);
void	qemu_plugin_register_vcpu_insn_exec_inline(
	    struct qemu_plugin_insn *insn, enum qemu_plugin_op op, void *ptr,
	    uint64_t imm);
void	qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
	    qemu_plugin_vcpu_udata_cb_t cb, enum qemu_plugin_cb_flags flags,
	    void *udata);
void	qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id,
	    qemu_plugin_vcpu_syscall_cb_t cb);
void	qemu_plugin_register_vcpu_syscall_ret_cb(qemu_plugin_id_t id,
	    qemu_plugin_vcpu_syscall_ret_cb_t cb);
void	qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
	    qemu_plugin_udata_cb_t cb, void *udata);
size_t	qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(
	    const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void	*qemu_plugin_insn_haddr(const struct qemu_plugin_insn *insn);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t	qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void	qemu_plugin_outs(const char *string);

#endif /* QPLUGIN_H */
