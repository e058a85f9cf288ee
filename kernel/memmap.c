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

static uint64_t range_end(const struct mem_range *r)
{
	return r->length > UINT64_MAX - r->base ? UINT64_MAX : r->base + r->length;
}

/* [start, end) lies in the union of the available entries (firmware
 * often splits one bank into several), overlaps no other entry and no
 * excluded range. */
static bool region_is_free(uint64_t start, uint64_t end,
			   const struct mem_range *mem, uint32_t count,
			   const struct phys_range *excluded, uint32_t excluded_count)
{
	for (uint32_t i = 0; i < count; i++)
		if (mem[i].type != MEM_AVAILABLE &&
		    overlaps(start, end, mem[i].base, range_end(&mem[i])))
			return false;
	for (uint32_t i = 0; i < excluded_count; i++)
		if (overlaps(start, end, excluded[i].start, excluded[i].end))
			return false;
	/* Walk forward through available entries until end is covered;
	 * each step advances or fails, so count steps bound it. */
	uint64_t covered = start;
	for (uint32_t step = 0; step <= count && covered < end; step++) {
		uint64_t next = covered;
		for (uint32_t i = 0; i < count; i++)
			if (mem[i].type == MEM_AVAILABLE && mem[i].base <= covered &&
			    range_end(&mem[i]) > next)
				next = range_end(&mem[i]);
		if (next == covered)
			return false;
		covered = next;
	}
	return covered >= end;
}

bool memmap_is_available(const struct mem_range *mem, uint32_t count, uint64_t start, uint64_t end)
{
	return end > start && region_is_free(start, end, mem, count, NULL, 0);
}

/* The lowest fit starts where free memory starts: at an available
 * entry's base (or min), or at the end of something that blocked the
 * addresses below it; so those candidates, aligned up, are enough. */
static uint64_t align_up(uint64_t v, uint64_t align, bool *overflow)
{
	uint64_t r = (v + align - 1) & ~(align - 1);
	*overflow |= r < v;
	return r;
}

static void try_candidate(uint64_t c, uint64_t size, uint64_t align,
			  uint64_t min, uint64_t limit, const struct mem_range *mem,
			  uint32_t count, const struct phys_range *excluded,
			  uint32_t excluded_count, uint64_t *best)
{
	bool overflow = false;
	c = align_up(c < min ? min : c, align, &overflow);
	if (overflow || c > limit || size > limit - c || c >= *best)
		return;
	if (region_is_free(c, c + size, mem, count, excluded, excluded_count))
		*best = c;
}

uint64_t memmap_find_free(const struct mem_range *mem, uint32_t count,
			  const struct phys_range *excluded, uint32_t excluded_count,
			  uint64_t size, uint64_t align, uint64_t min, uint64_t limit)
{
	uint64_t best = UINT64_MAX;

	if (size == 0 || align == 0 || (align & (align - 1)))
		return 0;
	try_candidate(min, size, align, min, limit, mem, count, excluded, excluded_count, &best);
	for (uint32_t i = 0; i < count; i++)
		try_candidate(mem[i].type == MEM_AVAILABLE ? mem[i].base : range_end(&mem[i]),
			      size, align, min, limit, mem, count, excluded,
			      excluded_count, &best);
	for (uint32_t i = 0; i < excluded_count; i++)
		try_candidate(excluded[i].end, size, align, min, limit, mem, count,
			      excluded, excluded_count, &best);
	return best == UINT64_MAX ? 0 : best;
}

/* Linux's bounds (ebda.c): a base memory size below 128 KiB is bogus, and
 * none is trusted above 0x9F000 (the page below the VGA hole Linux always
 * keeps: AMD768MPX erratum 56, Dell systems that leave the EBDA out of
 * the size); an EBDA within them and below the size moves the start down.
 * Linux does this on every PC, BIOS or UEFI (platform-quirks.c); so do we. */
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

uint64_t memmap_pick_low_range(const struct mem_range *mem, uint32_t count,
			       const struct phys_range *excluded,
			       uint32_t excluded_count, uint64_t size)
{
	if (size == 0 || size > LEGACY_HOLE_START - PAGE)
		return 0;
	uint64_t pages = (size + PAGE - 1) / PAGE;
	for (uint64_t at = LEGACY_HOLE_START - pages * PAGE; at >= PAGE; at -= PAGE)
		if (region_is_free(at, at + pages * PAGE, mem, count, excluded, excluded_count))
			return at;
	return 0;
}
