/* SPDX-License-Identifier: MIT */
/* Trampoline page choice from a memory map (kernel/memmap.c). */
#include "check.h"
#include "kernel/memmap.h"

#define R(b, l, t) { (b), (l), (t) }

static uint64_t pick(const struct mem_range *m, uint32_t n,
		     const struct phys_range *x, uint32_t nx)
{
	return memmap_pick_low_page(m, n, x, nx);
}

void test_memmap(void)
{
	/* SeaBIOS under QEMU: 0-0x9FBFF available, EBDA reserved above. */
	const struct mem_range bios[] = {
		R(0x0, 0x9FC00, MEM_AVAILABLE), R(0x9FC00, 0x400, MEM_RESERVED),
		R(0xF0000, 0x10000, MEM_RESERVED), R(0x100000, 0x1FF00000, MEM_AVAILABLE),
	};
	/* The page holding 0x9FC00 is partly reserved: the one below wins. */
	CHECK_EQ(pick(bios, 4, NULL, 0), 0x9E000);
	const struct phys_range ebda[] = { { 0x9F000, 0x100000 } };
	CHECK_EQ(pick(bios, 4, ebda, 1), 0x9E000);

	/* An exclusion (kernel, boot info) covering the top pages. */
	const struct phys_range busy[] = { { 0x90000, 0x9F000 } };
	CHECK_EQ(pick(bios, 4, busy, 1), 0x8F000);

	/* Overlapping entries: available, but a reserved entry inside it. */
	const struct mem_range overlap[] = {
		R(0x0, 0xA0000, MEM_AVAILABLE), R(0x98000, 0x8000, MEM_ACPI_NVS),
	};
	CHECK_EQ(pick(overlap, 2, NULL, 0), 0x97000);

	/* UEFI: firmware keeps most of low memory; one free page at 0x3000. */
	const struct mem_range uefi[] = {
		R(0x0, 0x3000, MEM_RESERVED), R(0x3000, 0x1000, MEM_AVAILABLE),
		R(0x4000, 0x9C000, MEM_RESERVED),
	};
	CHECK_EQ(pick(uefi, 3, NULL, 0), 0x3000);

	/* Page 0 is never chosen, even when it is the only free page. */
	const struct mem_range only0[] = { R(0x0, 0x1000, MEM_AVAILABLE) };
	CHECK_EQ(pick(only0, 1, NULL, 0), 0);

	/* Nothing free below 1 MiB: 0, the caller panics with a message. */
	const struct mem_range none[] = {
		R(0x0, 0x100000, MEM_RESERVED), R(0x100000, 0x1000000, MEM_AVAILABLE),
	};
	CHECK_EQ(pick(none, 2, NULL, 0), 0);
	CHECK_EQ(pick(NULL, 0, NULL, 0), 0);

	/* Available memory only above the legacy hole does not count. */
	const struct mem_range hole[] = { R(0xA0000, 0x60000, MEM_AVAILABLE) };
	CHECK_EQ(pick(hole, 1, NULL, 0), 0);

	/* A range too short for a whole page, and one that wraps 2^64. */
	const struct mem_range tiny[] = {
		R(0x5000, 0x800, MEM_AVAILABLE), R(0xFFFFFFFFFFFFF000ull, 0x2000, MEM_RESERVED),
	};
	CHECK_EQ(pick(tiny, 2, NULL, 0), 0);
	const struct mem_range wrap[] = {
		R(0x1000, 0x1000, MEM_AVAILABLE), R(0xFFFFFFFFFFFFF000ull, 0x2000, MEM_RESERVED),
	};
	CHECK_EQ(pick(wrap, 2, NULL, 0), 0x1000);
}
