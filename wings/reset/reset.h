/* SPDX-License-Identifier: MIT */
/* The reset wing: the chipset's ways of resetting the machine at the end
 * of a run, exit=reset and the warm exit=reboot (RAM kept for pstore=),
 * after the uefi wing's ResetSystem where the firmware offers it. */
#ifndef APSTART_RESET_H
#define APSTART_RESET_H

#include "kernel/acpi.h"

/* The FADT's reset register, if the tables have one (after ACPI). */
void reset_use_acpi(const struct acpi_info *acpi);

/* Do not return: the machine resets, or, if nothing works, halts. */
void machine_reset(void) __attribute__((noreturn));
void machine_reboot_warm(void) __attribute__((noreturn));

#endif
