/* SPDX-License-Identifier: MIT */
/* Physical memory bookkeeping from the boot loader's map. */
#ifndef APSTART_MEMMAP_H
#define APSTART_MEMMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/multiboot.h"

struct phys_range {
	uint64_t start; /* inclusive */
	uint64_t end;   /* exclusive */
};

/* A range in use, and what uses it (for a message). */
struct busy_range {
	struct phys_range r;
	const char *what;
};

/* Lowest address of real-mode-reachable memory a SIPI can start at:
 * vector VV starts the AP at 0xVV000 (SDM Vol. 3A §9.4.4.1), so
 * the page must lie below 1 MiB. */
#define LOW_MEMORY_LIMIT 0x100000ull
/* Legacy video RAM and option/system ROMs: never RAM to us. */
#define LEGACY_HOLE_START 0xA0000ull

/* Where the firmware-owned area below 1 MiB starts, by Linux's rule
 * (reserve_bios_regions(), arch/x86/kernel/ebda.c), from two BIOS data
 * area words: base memory size in KiB (0x413, INT 12h's answer) and the
 * EBDA segment (0x40E). Everything from there to 1 MiB is off limits. */
#define BDA_BASE_MEM_KIB  0x413
#define BDA_EBDA_SEGMENT  0x40E
uint64_t memmap_bios_area_start(uint16_t base_mem_kib, uint16_t ebda_segment);

/* The highest run of whole 4 KiB pages for size bytes below
 * LEGACY_HOLE_START, wholly in available memory, outside every other
 * range of the map and every excluded range, not at page 0 (as Linux's
 * reserve_real_mode(), memblock top-down); 0 if none. */
uint64_t memmap_pick_low_range(const struct mem_range *mem, uint32_t count,
			       const struct phys_range *excluded,
			       uint32_t excluded_count, uint64_t size);

/* [start, end) lies wholly in available memory of the map (entries
 * that split one bank are joined) and overlaps no other entry. */
bool memmap_is_available(const struct mem_range *mem, uint32_t count, uint64_t start, uint64_t end);

/* Lowest address a >= min, a multiple of align (a power of two), such
 * that [a, a + size) lies in available memory of the map, overlaps no
 * other entry and no excluded range, and ends at or below limit.
 * Returns 0 if there is none (min > 0 keeps 0 unambiguous). */
uint64_t memmap_find_free(const struct mem_range *mem, uint32_t count,
			  const struct phys_range *excluded, uint32_t excluded_count,
			  uint64_t size, uint64_t align, uint64_t min, uint64_t limit);

#endif
