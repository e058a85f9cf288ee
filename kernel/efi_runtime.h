/* SPDX-License-Identifier: MIT */
/* UEFI runtime services after ExitBootServices, called at their physical
 * addresses: SetVirtualAddressMap is never called, which the UEFI spec
 * allows when the caller keeps every runtime region identity-mapped
 * (UEFI 2.10 §2.3.4.2, §8.4). Only the BSP calls them, one call at a time. */
#ifndef APSTART_EFI_RUNTIME_H
#define APSTART_EFI_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/multiboot.h"
#include "lib/format.h"

typedef uint64_t efi_status;

#define EFI_SUCCESS 0ull
#define EFI_ERROR_BIT (1ull << 63)
/* Not a UEFI status: the firmware took an exception inside the call and
 * the kernel took the call back (kernel/efi_runtime.c). */
#define EFI_STATUS_FAULTED (EFI_ERROR_BIT | 0x0FFFFFFFull)

struct efi_guid {
	uint32_t data1;
	uint16_t data2, data3;
	uint8_t data4[8];
};

/* Checks the system table and its runtime services table and maps every
 * region the EFI memory map marks EFI_MEMORY_RUNTIME. Call on the BSP
 * before any AP starts (kernel/paging.h). False, with the reason through
 * diag, if the services cannot be used; true at once if they are mapped
 * already. */
bool efi_runtime_init(const struct boot_info *bi, diag_fn diag, void *ctx);
bool efi_runtime_usable(void);

efi_status efi_set_variable(const uint16_t *name, const struct efi_guid *vendor,
			    uint32_t attrs, uint64_t size, const void *data);
/* QueryVariableInfo (UEFI 2.0 and later); EFI_UNSUPPORTED before. */
efi_status efi_query_variable_info(uint32_t attrs, uint64_t *max_storage,
				   uint64_t *remaining, uint64_t *max_variable);
/* ResetSystem(EfiResetCold), or EfiResetWarm (UEFI 2.10 §8.5.1: RAM kept
 * where the platform can): returns only if the firmware did not reset. */
efi_status efi_reset_system(bool warm);

/* "EFI_OUT_OF_RESOURCES" and the like; "EFI_STATUS_FAULTED"; "unknown". */
const char *efi_status_name(efi_status st);

#endif
