/* SPDX-License-Identifier: MIT */
/* QEMU's own devices: how the kernel knows it runs under QEMU and how it
 * leaves QEMU with a verdict. */
#ifndef APSTART_QEMU_H
#define APSTART_QEMU_H

#include <stdbool.h>

/* True under QEMU: only asked when CPUID says we run under a hypervisor,
 * then QEMU's fw_cfg device must answer with its "QEMU" signature (QEMU
 * docs, specs/fw_cfg). Bare metal never sees a port access. */
bool qemu_detect(void);
/* isa-debug-exit (port 0xF4) turns our value v into QEMU's exit status
 * (v << 1) | 1: 1 = pass, 3 = fail. Returns if there is no such device. */
void qemu_debug_exit(bool pass);

#endif
