/* SPDX-License-Identifier: MIT */
/* A bump allocator over the memory map: each allocation takes the lowest
 * fit (kernel/memmap.c) and becomes an excluded range; a claim that ends
 * where the previous one ended extends it, so hundreds of stacks cost one
 * entry. */
#include "kernel/bootmem.h"

#include "kernel/abort.h"
#include "kernel/console.h"
#include "lib/kstring.h"

#define BOOTMEM_MIN   0x100000ull      /* below: the trampoline's and firmware's */
#define BOOTMEM_LIMIT 0x100000000ull   /* boot/start.asm maps 0-4 GiB */
#define MAX_EXCLUDED  (BOOTMEM_MAX_RESERVED + 24)

static const struct mem_range *map;
static uint32_t map_count;
static struct phys_range excluded[MAX_EXCLUDED];
static uint32_t excluded_count;
static uint32_t first_claim; /* claims are excluded[first_claim..] */
static uint64_t used;

void bootmem_init(const struct mem_range *mem, uint32_t count,
		  const struct phys_range *reserved, uint32_t reserved_count)
{
	map = mem;
	map_count = count;
	excluded_count = 0;
	for (uint32_t i = 0; i < reserved_count && i < BOOTMEM_MAX_RESERVED; i++)
		if (reserved[i].end > reserved[i].start)
			excluded[excluded_count++] = reserved[i];
	first_claim = excluded_count;
	used = 0;
}

static bool claim(uint64_t start, uint64_t end)
{
	for (uint32_t i = first_claim; i < excluded_count; i++)
		if (excluded[i].end == start) {
			excluded[i].end = end;
			return true;
		}
	if (excluded_count == MAX_EXCLUDED)
		return false;
	excluded[excluded_count++] = (struct phys_range){ start, end };
	return true;
}

static void *take(uint64_t size, uint64_t align, const char *what, bool must)
{
	uint64_t at = memmap_find_free(map, map_count, excluded, excluded_count,
				       size, align, BOOTMEM_MIN, BOOTMEM_LIMIT);
	if (!at || !claim(at, at + size)) {
		cprintf(must ? CON_ALL : CON_SERIAL,
			"%s: no free memory for %s (%llu KiB) in the memory map "
			"between 1 MiB and 4 GiB (%llu KiB taken already)\n",
			must ? "PANIC" : "bootmem", what, (unsigned long long)(size >> 10),
			(unsigned long long)(used >> 10));
		if (!must)
			return NULL;
		abort_run("out of memory");
	}
	used += size;
	cprintf(CON_SERIAL, "bootmem: %s: 0x%llx-0x%llx (%llu bytes)\n", what,
		(unsigned long long)at, (unsigned long long)(at + size),
		(unsigned long long)size);
	void *p = (void *)(uintptr_t)at;
	memset(p, 0, size);
	return p;
}

void *bootmem_alloc(uint64_t size, uint64_t align, const char *what)
{
	return take(size, align, what, true);
}

void *bootmem_try_alloc(uint64_t size, uint64_t align, const char *what)
{
	return take(size, align, what, false);
}
