/* SPDX-License-Identifier: MIT */
/* Trampoline page choice from a memory map (kernel/memmap.c). */
#include "check.h"
#include "kernel/memmap.h"

#define R(b, l, t) { (b), (l), (t) }

static uint64_t pick(const struct mem_range *m, uint32_t n,
		     const struct phys_range *x, uint32_t nx)
{
	return memmap_pick_low_range(m, n, x, nx, 0x1000);
}

/* pstore=: a region of RAM, whole (memmap_is_available). */
static void check_available(void)
{
	/* kexec's map under SeaBIOS, -m 1024: the zone at 768 MiB is RAM. */
	const struct mem_range kexec[] = {
		R(0x0, 0x9FC00, MEM_AVAILABLE), R(0x9FC00, 0x400, MEM_RESERVED),
		R(0xF0000, 0x10000, MEM_RESERVED), R(0x100000, 0x3FEE0000, MEM_AVAILABLE),
		R(0x3FFE0000, 0x20000, MEM_RESERVED),
	};
	CHECK(memmap_is_available(kexec, 5, 0x30000000, 0x30080000));
	CHECK(!memmap_is_available(kexec, 5, 0x3FFC0000, 0x40000000)); /* into reserved */
	CHECK(!memmap_is_available(kexec, 5, 0x40000000, 0x40001000)); /* past RAM */
	CHECK(!memmap_is_available(kexec, 5, 0x9F000, 0xA0000));       /* EBDA */
	CHECK(!memmap_is_available(kexec, 5, 0x30000000, 0x30000000)); /* empty */
	/* One bank split in two entries (firmware does): still whole. */
	const struct mem_range split[] = {
		R(0x100000, 0x1000000, MEM_AVAILABLE), R(0x1100000, 0x1000000, MEM_AVAILABLE),
	};
	CHECK(memmap_is_available(split, 2, 0x1000000, 0x1200000));
	CHECK(!memmap_is_available(split, 2, 0x2000000, 0x2200000));
}

/* Several pages below 1 MiB (Linux's realmode blob: 7 in 6.1): the
 * highest run of whole free pages that holds them. */
static void check_low_range(void)
{
	const struct mem_range bios[] = {
		R(0x0, 0x9FC00, MEM_AVAILABLE), R(0x9FC00, 0x400, MEM_RESERVED),
		R(0xF0000, 0x10000, MEM_RESERVED), R(0x100000, 0x1FF00000, MEM_AVAILABLE),
	};
	const struct phys_range firmware[] = { { 0x9F000, 0x100000 }, { 0, 0x1000 } };
	/* 0x6264 bytes: 7 pages, ending where the firmware area starts. */
	CHECK_EQ(memmap_pick_low_range(bios, 4, firmware, 2, 0x6264), 0x98000);
	CHECK_EQ(memmap_pick_low_range(bios, 4, firmware, 2, 0x7000), 0x98000);
	CHECK_EQ(memmap_pick_low_range(bios, 4, firmware, 2, 1), 0x9E000);
	/* A busy page in the middle of the top (the kernel's boot info):
	 * the run goes below it, never across. */
	const struct phys_range busy[] = {
		{ 0x9F000, 0x100000 }, { 0, 0x1000 }, { 0x9A000, 0x9B000 } };
	CHECK_EQ(memmap_pick_low_range(bios, 4, busy, 3, 0x7000), 0x93000);
	/* One page free here and there (UEFI): none for several pages. */
	const struct mem_range holes[] = {
		R(0x0, 0x3000, MEM_RESERVED), R(0x3000, 0x1000, MEM_AVAILABLE),
		R(0x4000, 0x1000, MEM_RESERVED), R(0x5000, 0x2000, MEM_AVAILABLE),
		R(0x7000, 0x99000, MEM_RESERVED),
	};
	CHECK_EQ(memmap_pick_low_range(holes, 5, NULL, 0, 0x2000), 0x5000);
	CHECK_EQ(memmap_pick_low_range(holes, 5, NULL, 0, 0x3000), 0);
	/* Available memory split in two entries is one run. */
	const struct mem_range split[] = {
		R(0x1000, 0x4000, MEM_AVAILABLE), R(0x5000, 0x4000, MEM_AVAILABLE),
	};
	CHECK_EQ(memmap_pick_low_range(split, 2, NULL, 0, 0x8000), 0x1000);
	/* Page 0 never, sizes 0 and beyond the hole refused. */
	const struct mem_range all[] = { R(0x0, 0xA0000, MEM_AVAILABLE) };
	CHECK_EQ(memmap_pick_low_range(all, 1, NULL, 0, 0x9F000), 0x1000);
	CHECK_EQ(memmap_pick_low_range(all, 1, NULL, 0, 0xA0000), 0);
	CHECK_EQ(memmap_pick_low_range(all, 1, NULL, 0, 0), 0);
}

void test_memmap(void)
{
	check_available();
	check_low_range();
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

	/* Linux's reserve_bios_regions() rule. SeaBIOS: 639 KiB, EBDA at
	 * 0x9FC00: the 0x9F000 cap wins. */
	CHECK_EQ(memmap_bios_area_start(639, 0x9FC0), 0x9F000);
	/* A real BIOS with a 16 KiB EBDA counted out of base memory. */
	CHECK_EQ(memmap_bios_area_start(624, 0x9C00), 0x9C000);
	/* Dell quirk: the EBDA below a base memory size that ignores it. */
	CHECK_EQ(memmap_bios_area_start(639, 0x9000), 0x90000);
	/* Bogus sizes (0 on some UEFI machines, > 640 KiB) -> 0x9F000. */
	CHECK_EQ(memmap_bios_area_start(0, 0), 0x9F000);
	CHECK_EQ(memmap_bios_area_start(127, 0), 0x9F000);
	CHECK_EQ(memmap_bios_area_start(641, 0), 0x9F000);
	CHECK_EQ(memmap_bios_area_start(128, 0), 0x20000);
	/* An EBDA below 128 KiB, or above the size, does not count. */
	CHECK_EQ(memmap_bios_area_start(639, 0x1000), 0x9F000);
	CHECK_EQ(memmap_bios_area_start(512, 0x9000), 0x80000);
	CHECK_EQ(memmap_bios_area_start(512, 0x2000), 0x20000);
	/* The old rule took an EBDA only in [0x80000, 0xA0000) and ignored
	 * the size: here it would have let 0x7F000 go. */
	const struct mem_range low[] = { R(0x0, 0x9FC00, MEM_AVAILABLE) };
	const struct phys_range bda[] = {
		{ memmap_bios_area_start(512, 0x2000), 0x100000 } };
	CHECK_EQ(pick(low, 1, bda, 1), 0x1F000);

	/* memmap_find_free: the big buffers' placement (kernel/bootmem.c). */
#define FIND(m, n, x, nx, size, align) \
	memmap_find_free(m, n, x, nx, size, align, 0x100000, 0x100000000ull)
	/* OVMF (q35): ACPI NVS inside a large available bank, the kernel
	 * image at 1 MiB: the lowest fit lands between them. */
	const struct mem_range ovmf[] = {
		R(0x100000, 0x700000, MEM_AVAILABLE), R(0x800000, 0x6000, MEM_AVAILABLE),
		R(0x806000, 0x2000, MEM_ACPI_NVS), R(0x808000, 0x8000, MEM_AVAILABLE),
		R(0x810000, 0xF0000, MEM_ACPI_NVS), R(0x900000, 0x7F700000, MEM_AVAILABLE),
	};
	const struct phys_range kernel[] = { { 0x100000, 0x1BF000 } };
	CHECK_EQ(FIND(ovmf, 6, kernel, 1, 0x100000, 4096), 0x1BF000);
	/* Too big for the gap below the NVS: after it, at 0x900000. */
	CHECK_EQ(FIND(ovmf, 6, kernel, 1, 0x700000, 4096), 0x900000);
	/* Split entries count as one bank: 0x800000-0x806000 follows the
	 * first entry, so a buffer may cross their boundary. */
	CHECK_EQ(FIND(ovmf, 6, kernel, 1, 0x647000, 4096), 0x1BF000);
	CHECK_EQ(FIND(ovmf, 6, kernel, 1, 0x648000, 4096), 0x900000);
	/* Alignment: a 2 MiB-aligned buffer skips to 0x200000. */
	CHECK_EQ(FIND(ovmf, 6, kernel, 1, 0x1000, 0x200000), 0x200000);
	/* Excluded ranges after the first: the fit moves past each. */
	const struct phys_range busy2[] = { { 0x100000, 0x1BF000 }, { 0x1BF000, 0x300000 },
					    { 0x300800, 0x400000 } };
	CHECK_EQ(FIND(ovmf, 6, busy2, 3, 0x1000, 4096), 0x400000);
	CHECK_EQ(FIND(ovmf, 6, busy2, 3, 0x800, 0x800), 0x300000);
	/* Nothing below 1 MiB even when it is free (min), nothing that ends
	 * above the limit, and no fit at all: 0. */
	const struct mem_range lowonly[] = { R(0x1000, 0x9E000, MEM_AVAILABLE),
					     R(0x100000, 0x100000, MEM_AVAILABLE) };
	CHECK_EQ(FIND(lowonly, 2, NULL, 0, 0x1000, 4096), 0x100000);
	CHECK_EQ(FIND(lowonly, 2, NULL, 0, 0x100001, 4096), 0);
	const struct mem_range high[] = { R(0xFFFFF000, 0x2000, MEM_AVAILABLE),
					  R(0x100000000ull, 0x40000000, MEM_AVAILABLE) };
	CHECK_EQ(FIND(high, 2, NULL, 0, 0x1000, 4096), 0xFFFFF000);
	CHECK_EQ(FIND(high, 2, NULL, 0, 0x2000, 4096), 0);
	/* A reserved entry overlapping an available one wins, as for the
	 * trampoline page. */
	const struct mem_range over[] = { R(0x100000, 0x1000000, MEM_AVAILABLE),
					  R(0x200000, 0x1000, MEM_RESERVED) };
	CHECK_EQ(FIND(over, 2, NULL, 0, 0x100000, 4096), 0x100000);
	CHECK_EQ(FIND(over, 2, NULL, 0, 0x100001, 4096), 0x201000);
	/* Bad requests: size 0, alignment 0 or not a power of two; a map
	 * entry that wraps 2^64 does not break the walk. */
	CHECK_EQ(FIND(over, 2, NULL, 0, 0, 4096), 0);
	CHECK_EQ(FIND(over, 2, NULL, 0, 0x1000, 0), 0);
	CHECK_EQ(FIND(over, 2, NULL, 0, 0x1000, 0x3000), 0);
	const struct mem_range wrap2[] = { R(0x100000, 0x100000, MEM_AVAILABLE),
					   R(0xFFFFFFFFFFFFF000ull, 0x2000, MEM_AVAILABLE) };
	CHECK_EQ(FIND(wrap2, 2, NULL, 0, 0x1000, 4096), 0x100000);
	CHECK_EQ(FIND(NULL, 0, NULL, 0, 0x1000, 4096), 0);
#undef FIND
}
