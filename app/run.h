/* SPDX-License-Identifier: MIT */
/* End of a run: the verdict record, the exit status, and how the machine
 * is left (leave QEMU, or halt every CPU on real hardware). */
#ifndef APSTART_RUN_H
#define APSTART_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "app/options.h"

/* Registers the end of a failed run with the platform (kernel/abort.h),
 * so that an exception on any CPU prints the verdict and exits. */
void run_init(void);
/* exit=auto resolves to qemu under QEMU (fw_cfg, or QEMU's ACPI OEM ID). */
void run_set_exit_mode(enum exit_mode mode);
/* run_id= as parsed (the string stays the caller's), for @end. */
void run_set_id(const char *id);
/* After the report (complete: every AP did its cycles): the APs that
 * arrived after they were given up on, the NMI and stray counts, and the
 * @end record; returns the verdict, pass or not. */
bool run_verdict(uint32_t cycles, bool complete);
void run_finish(bool pass) __attribute__((noreturn));

#endif
