/* SPDX-License-Identifier: MIT */
/* End of a run: the verdict record, the exit status, and how the machine
 * is left (leave QEMU, or halt every CPU on real hardware). */
#ifndef APSTART_RUN_H
#define APSTART_RUN_H

#include <stdbool.h>

#include "app/options.h"

/* Registers the end of a failed run with the platform (kernel/abort.h),
 * so that an exception on any CPU prints the verdict and exits. */
void run_init(void);
/* exit=auto resolves to qemu under QEMU (fw_cfg, or QEMU's ACPI OEM ID). */
void run_set_exit_mode(enum exit_mode mode);
void run_finish(bool pass) __attribute__((noreturn));

#endif
