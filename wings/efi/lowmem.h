/* SPDX-License-Identifier: MIT */
/* Page allocations below 4 GiB that keep clear of the kernel's load range,
 * for everything the 32-bit entry must still reach: the copy of the
 * kernel, the Multiboot2 information, the hand-over code. */
#ifndef APSTART_EFI_LOWMEM_H
#define APSTART_EFI_LOWMEM_H

#include <efi.h>

/* Until the kernel is chosen nothing is avoided. */
void lowmem_avoid(UINT64 lo, UINT64 hi);
/* bytes rounded up to pages, of the given memory type; NULL if none. */
VOID *lowmem_alloc(UINTN bytes, EFI_MEMORY_TYPE type);
void lowmem_free(VOID *p, UINTN bytes);

#endif
