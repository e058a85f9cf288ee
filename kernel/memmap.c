/* SPDX-License-Identifier: MIT */
/* Choosing the trampoline page: a conservative intersection of the
 * firmware's map with what we know is in use. Overlapping map entries are
 * common on real firmware, so a page must be available in one entry and
 * claimed by no other. */
#include "kernel/memmap.h"

#include <stdbool.h>

#define PAGE 0x1000ull

static bool overlaps(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	return a0 < b1 && b0 < a1;
}

static bool page_is_free(uint64_t page, const struct mem_range *mem,
			 uint32_t count, const struct phys_range *excluded,
			 uint32_t excluded_count)
{
	uint64_t end = page + PAGE;
	bool available = false;

	for (uint32_t i = 0; i < count; i++) {
		uint64_t r0 = mem[i].base;
		uint64_t r1 = mem[i].length > UINT64_MAX - r0 ? UINT64_MAX
							       : r0 + mem[i].length;
		if (mem[i].type == MEM_AVAILABLE) {
			if (r0 <= page && end <= r1)
				available = true;
		} else if (overlaps(page, end, r0, r1)) {
			return false;
		}
	}
	if (!available)
		return false;
	for (uint32_t i = 0; i < excluded_count; i++)
		if (overlaps(page, end, excluded[i].start, excluded[i].end))
			return false;
	return true;
}

/* Linux's bounds (ebda.c): a base memory size below 128 KiB is taken as
 * bogus, and none is trusted above 0x9F000 (640 KiB less the page below
 * the VGA hole that Linux always keeps: AMD768MPX erratum 56 and Dell
 * systems that leave the EBDA out of the size). An EBDA inside those
 * bounds and below the size moves the start down to it. Linux applies
 * this on every PC, BIOS or UEFI (x86_platform.legacy.
 * reserve_bios_regions, platform-quirks.c); so does apstart, erring on
 * the side of reserving too much as Linux does. */
#define BIOS_START_MIN 0x20000ull
#define BIOS_START_MAX 0x9F000ull

uint64_t memmap_bios_area_start(uint16_t base_mem_kib, uint16_t ebda_segment)
{
	uint64_t start = (uint64_t)base_mem_kib << 10;
	uint64_t ebda = (uint64_t)ebda_segment << 4;

	if (start < BIOS_START_MIN || start > BIOS_START_MAX)
		start = BIOS_START_MAX;
	if (ebda >= BIOS_START_MIN && ebda < start)
		start = ebda;
	return start;
}

uint64_t memmap_pick_low_page(const struct mem_range *mem, uint32_t count,
			      const struct phys_range *excluded,
			      uint32_t excluded_count)
{
	for (uint64_t page = LEGACY_HOLE_START - PAGE; page >= PAGE; page -= PAGE)
		if (page_is_free(page, mem, count, excluded, excluded_count))
			return page;
	return 0;
}
