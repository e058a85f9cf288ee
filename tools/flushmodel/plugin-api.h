/* SPDX-License-Identifier: MIT */
/* The part of QEMU's TCG plugin API that flushmodel uses, declared from
 * QEMU 7.2's documented interface (docs/devel/tcg-plugins.rst and the
 * kernel-doc of include/qemu/qemu-plugin.h: API version 1, QEMU 7.2's).
 * No QEMU header is needed to build the plugin.
 *
 * Contract, as documented for 7.2:
 * - the plugin exports `int qemu_plugin_version`; QEMU refuses a plugin
 *   whose version is outside [QEMU_PLUGIN_MIN_VERSION, QEMU_PLUGIN_VERSION]
 *   (7.2: 0..1). Later QEMUs raise the minimum when they remove or change
 *   a function (API version 3 changed qemu_plugin_insn_data), so a QEMU
 *   without version 1 refuses this plugin instead of misusing it;
 * - it exports qemu_plugin_install(), called once at start-up; a nonzero
 *   return makes QEMU print "Could not load plugin" and exit;
 * - `-plugin FILE,k1=v1,k2=v2` reaches install as argv = {"k1=v1",
 *   "k2=v2"} (the older `arg=k1=v1` form still works, with a deprecation
 *   warning); argv stays valid for the plugin's lifetime;
 * - the API functions are resolved from the QEMU binary at load time. */
#ifndef FLUSHMODEL_PLUGIN_API_H
#define FLUSHMODEL_PLUGIN_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FLUSHMODEL_PLUGIN_API_VERSION 1

#define PLUGIN_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;

typedef struct qemu_info_t {
	const char *target_name; /* "x86_64", "i386", ... */
	struct {
		int min, cur;    /* API versions this QEMU supports */
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus; /* -smp N */
			int max_vcpus; /* -smp maxcpus= */
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;   /* opaque: a block being translated */
struct qemu_plugin_insn; /* opaque: one instruction of that block */

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

/* Called for every block QEMU translates; handles live for the call only. */
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
/* The instruction's bytes (API version 1: a pointer, valid during the
 * translation callback) and their number. */
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
/* The instruction's guest address: on x86 the linear address (CS base +
 * IP; in real mode below 1 MiB). */
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
/* cb runs on the executing vCPU's thread each time, before the insn. */
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
/* cb runs when QEMU exits (also on exit() from a device such as
 * isa-debug-exit, and after a SIGTERM shutdown). */
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);

/* Memory accesses (dirty=track): a callback per access of an instrumented
 * instruction, on the executing vCPU's thread, before the access;
 * qemu_plugin_meminfo_t is 32 bits in API version 1. */
typedef uint32_t qemu_plugin_meminfo_t;
enum qemu_plugin_mem_rw {
	QEMU_PLUGIN_MEM_R = 1,
	QEMU_PLUGIN_MEM_W,
	QEMU_PLUGIN_MEM_RW,
};
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index,
					  qemu_plugin_meminfo_t info,
					  uint64_t vaddr, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
				      qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags,
				      enum qemu_plugin_mem_rw rw,
				      void *userdata);
/* The guest-physical side of an access (system emulation): NULL when
 * QEMU cannot say; valid during the callback only. */
struct qemu_plugin_hwaddr;
struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t info,
						  uint64_t vaddr);
bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *haddr);
uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *haddr);

/* Block execution (disturb=): cb runs on the vCPU's thread each time the
 * block is entered. */
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *userdata);

#endif
