/* SPDX-License-Identifier: MIT */
/* Whether the firmware enforces Secure Boot. */
#ifndef APSTART_EFI_SECUREBOOT_H
#define APSTART_EFI_SECUREBOOT_H

#include <efi.h>

enum secure_boot {
	SECURE_BOOT_OFF,
	SECURE_BOOT_ON,
	SECURE_BOOT_UNKNOWN,   /* the variable could not be read: taken as on */
};

/* Reads the firmware's SecureBoot variable. */
enum secure_boot secure_boot_state(void);

/* "on", "off", or "unknown (taken as on)". */
const CHAR16 *secure_boot_name(enum secure_boot sb);

#endif
