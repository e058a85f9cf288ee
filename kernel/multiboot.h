/* SPDX-License-Identifier: MIT */
/* What the boot loader handed us, from Multiboot1 or Multiboot2 info. */
#ifndef APSTART_MULTIBOOT_H
#define APSTART_MULTIBOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/config.h"
#include "kernel/firmware.h"
#include "kernel/mem_types.h"
#include "lib/format.h"

#define MB1_BOOT_MAGIC 0x2BADB002u
#define MB2_BOOT_MAGIC 0x36D76289u

struct mem_range {
	uint64_t base;
	uint64_t length;
	uint32_t type;
};

/* A module loaded beside the kernel (GRUB's module2, kexec's --module,
 * QEMU's -initrd): its bytes and string. A wing that takes one reserves
 * its range (struct wing.reserved) before anything is allocated. */
#define APSTART_MAX_MODULES 8
struct boot_module {
	uint64_t start, end;
	const char *string;           /* "" if none; an MB1 string lives outside
					 * the info block: read it before the
					 * allocator's first use */
};

struct framebuffer {
	bool present;
	uint64_t addr;
	uint32_t pitch;  /* bytes per line */
	uint32_t width;
	uint32_t height;
	uint8_t bpp;
	uint8_t type;    /* 0 indexed, 1 RGB, 2 EGA text */
	uint8_t red_pos, red_size;
	uint8_t green_pos, green_size;
	uint8_t blue_pos, blue_size;
};

/* Maps a physical range for reading; NULL if it cannot. The kernel's
 * version identity-maps, host tests map into a buffer. */
typedef const void *(*phys_map_fn)(void *ctx, uint64_t phys, size_t len);

struct boot_info {
	int protocol;                 /* 1 or 2 */
	enum firmware firmware;       /* UEFI if EFI tags were seen, else UNKNOWN
					 * (kernel/firmware.h decides the rest) */
	const char *cmdline;          /* NUL-terminated, never NULL ("" if none) */
	const char *loader_name;      /* never NULL */
	uint64_t info_start, info_end; /* physical extent of the info block */

	struct mem_range mem[APSTART_MAX_MEM_RANGES];
	uint32_t mem_count;
	bool mem_truncated;           /* more entries than fit */
	const char *mem_source;       /* "mb2-mmap", "mb2-efi-mmap", "mb1-mmap", "basic" */

	const void *rsdp;             /* copy inside the info block, or NULL */
	size_t rsdp_len;
	int rsdp_tag;                 /* 14 (ACPI 1.0), 15 (ACPI 2.0+) or 0 */

	uint64_t efi_system_table;    /* 0 if none */
	const uint8_t *efi_mmap;      /* EFI memory map tag's descriptors, or NULL */
	uint32_t efi_mmap_size;       /* bytes of descriptors */
	uint32_t efi_desc_size;       /* stride, >= 40 (kernel/efi_memmap.h) */
	struct framebuffer fb;
	struct boot_module modules[APSTART_MAX_MODULES];
	uint32_t module_count;
	uint32_t modules_dropped;     /* more than APSTART_MAX_MODULES */
};

/* Parse the MB2 info block (every read within max_len) or the MB1
 * structure (its pointers followed through map) at info. -1 if the magic
 * is unknown or the block malformed; what can be skipped goes to diag. */
int multiboot_parse(uint32_t magic, const void *info, size_t max_len,
		    uint64_t info_phys, phys_map_fn map, void *map_ctx,
		    struct boot_info *out, diag_fn diag, void *diag_ctx);

#endif
