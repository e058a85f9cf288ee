/* SPDX-License-Identifier: MIT */
#include "wings/linux_trampoline/realmode_setup.h"

#include "kernel/x86.h"
#include "lib/bytes.h"
#include "lib/kstring.h"

/* entry.asm: where Linux's trampoline jumps (tr_start). */
extern const uint8_t linux_tr_entry[];

#define PAGE 4096u
#define MSR_EFER 0xC0000080u
#define EFER_LMA (1ull << 10)  /* SDM Vol. 3A §2.2.1; read-only to WRMSR on some AMD */
#define CR4_PCIDE (1ull << 17) /* settable only in IA-32e mode (SDM Vol. 3A §2.5) */

uint64_t realmode_size(const struct lrm_header *hdr)
{
	return ((uint64_t)hdr->blob_size + PAGE - 1) / PAGE * PAGE;
}

/* realmode.relocs (lrm_blob.h): u32 n, n offsets of 16-bit segment words
 * set to base >> 4; u32 m, m offsets of 32-bit words base is added to.
 * lrm_check() has seen every offset inside the blob. */
static void relocate(uint8_t *copy, const uint8_t *relocs, uint64_t base)
{
	uint32_t n = rd32(relocs);
	const uint8_t *e = relocs + 4;
	for (uint32_t i = 0; i < n; i++, e += 4)
		wr16(copy + rd32(e), (uint16_t)(base >> 4));
	uint32_t m = rd32(e);
	e += 4;
	for (uint32_t i = 0; i < m; i++, e += 4) {
		uint8_t *w = copy + rd32(e);
		wr32(w, rd32(w) + (uint32_t)base);
	}
}

#if defined(__i386__)
/* trampoline_32.S loads tr_gdt and jumps to __BOOT_CS (GDT entry 2, 0x10,
 * arch/x86/include/asm/segment.h), as Linux's boot_gdt has it; entry 3
 * (0x18) is __BOOT_DS. Flat 4 GiB segments (kernel/gdt.h's descriptors). */
#include "kernel/gdt.h"
static const uint64_t boot_gdt[4] __attribute__((aligned(16))) = {
	0, 0, GDT_DESC_CODE32, GDT_DESC_DATA,
};

static void fill_header(uint8_t *copy, const struct lrm_header *hdr)
{
	wr32(copy + hdr->tr_start, (uint32_t)(uintptr_t)linux_tr_entry);
	/* tr_gdt: u16 limit, u32 base (lgdtl's operand): Linux writes
	 * __BOOT_DS + 7 and boot_gdt's address. */
	wr16(copy + hdr->tr_gdt, sizeof boot_gdt - 1);
	wr32(copy + hdr->tr_gdt + 2, (uint32_t)(uintptr_t)boot_gdt);
	linux_tr_lock = 0;
}
#else
static void fill_header(uint8_t *copy, const struct lrm_header *hdr)
{
	/* As Linux: EFER without LMA (some AMD CPUs #GP on WRMSR with it
	 * set); the BSP's CR4, which Linux's startup_32 loads before paging
	 * is on, so without PCIDE (Linux's mmu_cr4_features never has it). */
	wr64(copy + hdr->tr_start, (uint64_t)(uintptr_t)linux_tr_entry);
	wr64(copy + hdr->tr_efer, rdmsr(MSR_EFER) & ~EFER_LMA);
	wr32(copy + hdr->tr_cr4, (uint32_t)(read_cr4() & ~CR4_PCIDE));
	wr32(copy + hdr->tr_flags, 0); /* no TH_FLAGS_SME_ACTIVE: no SME here */
	linux_tr_lock = 0;
	if (hdr->tr_lock) {
		wr32(copy + hdr->tr_lock, 0);
		linux_tr_lock = (uintptr_t)(copy + hdr->tr_lock);
	}
	/* trampoline_pgd: Linux maps low memory 1:1 in entry 0 and copies the
	 * kernel half of its own PGD; apstart runs identity-mapped, so the
	 * whole of its PML4 (the blob, the entry in the kernel image, the
	 * LAPIC page, the CPU table and stacks), its lower levels shared. */
	const uint64_t *pml4 = (const uint64_t *)(uintptr_t)(read_cr3() & ~0xFFFull);
	memcpy(copy + hdr->trampoline_pgd, pml4, PAGE);
}
#endif

uint64_t realmode_setup(const uint8_t *file, const struct lrm_header *hdr, uint64_t base)
{
	uint8_t *copy = (uint8_t *)(uintptr_t)base;

	memset(copy, 0, realmode_size(hdr));
	memcpy(copy, file + hdr->blob_offset, hdr->blob_size);
	relocate(copy, file + hdr->relocs_offset, base);
	fill_header(copy, hdr);
	return base + hdr->trampoline_start;
}
