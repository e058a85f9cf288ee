/* SPDX-License-Identifier: MIT */
/* Resetting the machine at the end of a run: exit=reset (cold where the
 * firmware offers it) and exit=reboot (warm: RAM kept for pstore=). */
#ifndef APSTART_RESET_H
#define APSTART_RESET_H

#include "kernel/acpi.h"

/* The FADT's reset register, if the tables have one (after ACPI). */
void reset_use_acpi(const struct acpi_info *acpi);

/* Do not return: the machine resets, or, if nothing works, halts. */
void machine_reset(void) __attribute__((noreturn));
void machine_reboot_warm(void) __attribute__((noreturn));

#endif
