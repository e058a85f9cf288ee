/* SPDX-License-Identifier: MIT */
/* Allocations for the hand-over. AllocateMaxAddress keeps them below
 * 4 GiB (the kernel's 32-bit entry reads them with paging off). When the
 * kernel's range could not be reserved (firmware boot-services memory
 * there, wings/efi/handoff.c), an allocation may land inside it: such a
 * one is kept allocated, so the next try gets other pages, and freed once
 * a good one is found. */
#include "wings/efi/lowmem.h"

#include <efilib.h>

#define TRIES 16

static UINT64 avoid_lo, avoid_hi;

void lowmem_avoid(UINT64 lo, UINT64 hi)
{
	avoid_lo = lo;
	avoid_hi = hi;
}

VOID *lowmem_alloc(UINTN bytes, EFI_MEMORY_TYPE type)
{
	UINTN pages = EFI_SIZE_TO_PAGES(bytes);
	EFI_PHYSICAL_ADDRESS bad[TRIES];
	UINTN nbad = 0;
	VOID *found = NULL;

	while (nbad < TRIES) {
		EFI_PHYSICAL_ADDRESS a = 0xFFFFFFFFull;
		if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateMaxAddress, type,
						pages, &a)))
			break;
		if (a < avoid_hi && avoid_lo < a + pages * EFI_PAGE_SIZE) {
			bad[nbad++] = a;
			continue;
		}
		found = (VOID *)(UINTN)a;
		break;
	}
	while (nbad)
		uefi_call_wrapper(BS->FreePages, 2, bad[--nbad], pages);
	return found;
}

void lowmem_free(VOID *p, UINTN bytes)
{
	if (p)
		uefi_call_wrapper(BS->FreePages, 2, (EFI_PHYSICAL_ADDRESS)(UINTN)p,
				  EFI_SIZE_TO_PAGES(bytes));
}
