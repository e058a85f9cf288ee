/* SPDX-License-Identifier: MIT */
/* UEFI memory map descriptors (UEFI 2.10 §7.2.3, GetMemoryMap): the
 * fields, types and attribute apstart reads, and what each type is in a
 * Multiboot memory map. One definition for the kernel (the EFI memory map
 * tag, the runtime regions) and apstart.efi (which builds both tags). */
#ifndef APSTART_EFI_MEMMAP_H
#define APSTART_EFI_MEMMAP_H

#include <stdint.h>

#include "kernel/mem_types.h"

/* EFI_MEMORY_DESCRIPTOR: Type u32 @0, PhysicalStart u64 @8, VirtualStart
 * u64 @16, NumberOfPages u64 @24, Attribute u64 @32. Firmware may use a
 * larger stride: always step by the DescriptorSize it reports. */
#define EFI_MD_TYPE      0
#define EFI_MD_PHYS      8
#define EFI_MD_PAGES     24
#define EFI_MD_ATTR      32
#define EFI_MD_MIN_SIZE  40
#define EFI_MD_PAGE_SIZE 4096ull
/* Attribute bit 63: the region must be mapped for runtime services. */
#define EFI_MD_ATTR_RUNTIME (1ull << 63)

/* EFI_MEMORY_TYPE values (UEFI 2.10 Table 7.6). */
enum efi_mem_type {
	EFI_MT_RESERVED = 0,
	EFI_MT_LOADER_CODE = 1,
	EFI_MT_LOADER_DATA = 2,
	EFI_MT_BOOT_CODE = 3,
	EFI_MT_BOOT_DATA = 4,
	EFI_MT_RUNTIME_CODE = 5,
	EFI_MT_RUNTIME_DATA = 6,
	EFI_MT_CONVENTIONAL = 7,
	EFI_MT_UNUSABLE = 8,
	EFI_MT_ACPI_RECLAIM = 9,
	EFI_MT_ACPI_NVS = 10,
	EFI_MT_MMIO = 11,
	EFI_MT_MMIO_PORT = 12,
};

/* Once boot services have exited, memory the loader and boot services
 * used is free; runtime regions, MMIO and anything unknown are not. */
static inline uint32_t efi_mem_to_multiboot(uint32_t type)
{
	switch (type) {
	case EFI_MT_LOADER_CODE:
	case EFI_MT_LOADER_DATA:
	case EFI_MT_BOOT_CODE:
	case EFI_MT_BOOT_DATA:
	case EFI_MT_CONVENTIONAL:
		return MEM_AVAILABLE;
	case EFI_MT_UNUSABLE:
		return MEM_BAD;
	case EFI_MT_ACPI_RECLAIM:
		return MEM_ACPI_RECLAIMABLE;
	case EFI_MT_ACPI_NVS:
		return MEM_ACPI_NVS;
	default:
		return MEM_RESERVED;
	}
}

#endif
