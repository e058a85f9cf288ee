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
/* exit=: how the machine is left, decided before anything can fail, so
 * that a failure under QEMU ends QEMU instead of halting it until a
 * timeout: auto is qemu under QEMU (fw_cfg, a hypervisor), else halt. */
void run_choose_exit(enum exit_mode asked);
/* Once the ACPI tables are read, said: auto is qemu too on QEMU's tables
 * without a hypervisor bit (TCG: OEM ID "BOCHS "). */
void run_confirm_exit(enum exit_mode asked, const char *acpi_oem_id);
/* A clean stop before the results: says why, ends the run as failed. */
void run_fail(const char *what) __attribute__((noreturn));
/* run_id= as parsed (the string stays the caller's), for @end. */
void run_set_id(const char *id);
/* After the report (complete: every AP did its cycles): the APs that
 * arrived after they were given up on, the NMI and stray counts, and the
 * @end record; returns the verdict, pass or not. */
bool run_verdict(uint32_t cycles, bool complete);
void run_finish(bool pass) __attribute__((noreturn));

#endif
