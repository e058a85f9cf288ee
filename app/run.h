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
struct wing_run;
/* What the run measures, chosen once the command line is read: the
 * offline/online cycles (NULL), or the one measurement of a wing that its
 * options ask for instead (app/wing.h), which is said. */
const struct wing_run *run_choose(void);
/* The choice run_choose() made. */
const struct wing_run *run_chosen(void);
/* exit=auto resolves to qemu under QEMU (fw_cfg, or QEMU's ACPI OEM ID). */
void run_set_exit_mode(enum exit_mode mode);
/* After the report (complete: every AP did its cycles): the APs that
 * arrived after they were given up on, the NMI and stray counts, and the
 * @end record; returns the verdict, pass or not. */
bool run_verdict(uint32_t cycles, bool complete);
void run_finish(bool pass) __attribute__((noreturn));

#endif
