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

uint64_t memmap_pick_low_page(const struct mem_range *mem, uint32_t count,
			      const struct phys_range *excluded,
			      uint32_t excluded_count)
{
	for (uint64_t page = LEGACY_HOLE_START - PAGE; page >= PAGE; page -= PAGE)
		if (page_is_free(page, mem, count, excluded, excluded_count))
			return page;
	return 0;
}
