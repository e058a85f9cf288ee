/* SPDX-License-Identifier: MIT */
/* The firmware's SecureBoot variable (UEFI 2.10 §3.3, Globally Defined
 * Variables: one byte, 1 when the platform is in user mode and verifies
 * every image it starts). Firmware before UEFI 2.3.1 has no such
 * variable and no Secure Boot. A variable that is there but cannot be
 * read as one byte is taken as on: the kernel check then refuses rather
 * than opens the chain. */
#include "wings/efi/secureboot.h"

#include <efilib.h>

enum secure_boot secure_boot_state(void)
{
	UINT8 value = 0;
	UINTN size = sizeof value;
	UINT32 attrs;

	EFI_STATUS st = uefi_call_wrapper(RT->GetVariable, 5, L"SecureBoot",
					  &gEfiGlobalVariableGuid, &attrs, &size, &value);
	if (st == EFI_NOT_FOUND)
		return SECURE_BOOT_OFF;
	if (EFI_ERROR(st) || size != 1 || value > 1)
		return SECURE_BOOT_UNKNOWN;
	return value ? SECURE_BOOT_ON : SECURE_BOOT_OFF;
}

const CHAR16 *secure_boot_name(enum secure_boot sb)
{
	switch (sb) {
	case SECURE_BOOT_OFF:
		return L"off";
	case SECURE_BOOT_ON:
		return L"on";
	default:
		return L"unknown (taken as on)";
	}
}
