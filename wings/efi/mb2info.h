/* SPDX-License-Identifier: MIT */
/* The Multiboot2 boot information apstart.efi hands the kernel: the tags
 * GRUB gives on UEFI, so the kernel reads both loaders alike. */
#ifndef APSTART_EFI_MB2INFO_H
#define APSTART_EFI_MB2INFO_H

#include <efi.h>

struct mb2info {
	UINT8 *buf;          /* below 4 GiB, page aligned */
	UINTN cap;
	UINTN len;
};

/* Before ExitBootServices: allocates room for everything, the memory map
 * included (map_cap bytes of descriptors of desc_size), and writes the
 * tags that do not depend on the map: command line, loader name,
 * framebuffer (GOP; only if want_fb), EFI system table, ACPI RSDP. */
EFI_STATUS mb2_begin(struct mb2info *m, const CHAR8 *cmdline, BOOLEAN want_fb,
		     UINTN map_cap, UINTN desc_size);

/* One module tag (the kernel's boot module: an LRM file), its bytes at
 * [start, end) below 4 GiB, its string. Before mb2_finish(). */
void mb2_module(struct mb2info *m, UINT32 start, UINT32 end, const CHAR8 *string);

/* After ExitBootServices (no boot services calls): the memory map tags
 * from the final map, the end tag, the total size. */
void mb2_finish(struct mb2info *m, const UINT8 *map, UINTN map_size, UINTN desc_size,
		UINT32 desc_version);

#endif
