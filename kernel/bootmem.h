/* SPDX-License-Identifier: MIT */
/* Boot-time memory: the big buffers (AP stacks, sample stores) come from
 * free RAM in the loader's map, not .bss, so the image stays small and
 * lands on no ACPI NVS or reserved memory (OVMF keeps ACPI NVS at 8 MiB).
 * Nothing is ever freed. */
#ifndef APSTART_BOOTMEM_H
#define APSTART_BOOTMEM_H

#include <stdint.h>

#include "kernel/memmap.h"
#include "kernel/multiboot.h"

/* Ranges never handed out besides what the map reserves (the kernel, the
 * boot information...). Copied; at most BOOTMEM_MAX_RESERVED. */
#define BOOTMEM_MAX_RESERVED 8
void bootmem_init(const struct mem_range *mem, uint32_t count,
		  const struct phys_range *reserved, uint32_t reserved_count);

/* size bytes, zeroed, aligned to align (a power of two), from the lowest
 * free RAM above 1 MiB and below 4 GiB (the boot code's identity map).
 * On failure: a message naming what and how much, then the run ends
 * (abort_run): a machine without 10 MiB of free RAM cannot be measured. */
void *bootmem_alloc(uint64_t size, uint64_t align, const char *what);
/* The same for what a run can do without (the end screens' buffers): on
 * failure a line on serial and NULL. */
void *bootmem_try_alloc(uint64_t size, uint64_t align, const char *what);

#endif
