/* SPDX-License-Identifier: MIT */
/* The memory types of a map, numbered as Multiboot numbers them
 * (identical in MB1 and MB2): the vocabulary the Multiboot parser, the
 * UEFI map's translation (kernel/efi_memmap.h) and the allocators share. */
#ifndef APSTART_MEM_TYPES_H
#define APSTART_MEM_TYPES_H

enum mem_type {
	MEM_AVAILABLE = 1,
	MEM_RESERVED = 2,
	MEM_ACPI_RECLAIMABLE = 3,
	MEM_ACPI_NVS = 4,
	MEM_BAD = 5,
};

#endif
