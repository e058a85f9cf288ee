/* SPDX-License-Identifier: MIT */
/* Page-table edits for the identity map the boot code built (found
 * through CR3, so the platform needs no symbol of the boot layer).
 * x86_64: above 4 GiB, 2 MiB pages are added with tables from a small
 * static pool; the first 2 MiB keep their 4 KiB page table.
 * i386 (32-bit paging, no PAE): 4 GiB is all there is; the cache type is
 * set per 4 MiB page directory entry, the first 4 MiB per 4 KiB page. */
#include "kernel/paging.h"

#include <stdbool.h>

#include "kernel/x86.h"
#include "lib/kstring.h"

#define PTE_P   (1ull << 0)
#define PTE_W   (1ull << 1)
#define PTE_PWT (1ull << 3)
#define PTE_PCD (1ull << 4)
#define PTE_PS  (1ull << 7)
#define PTE_ADDR 0x000FFFFFFFFFF000ull
#define SIZE_2M (2ull << 20)
#define SIZE_4K 4096ull
#define CANONICAL_LIMIT (1ull << 47)

#if defined(__i386__)
#define PDE32_ADDR 0xFFFFF000u
#define LARGE_PAGE (4ull << 20)
#define MAP_LIMIT (4ull << 30)   /* 32-bit paging without PAE */
#else
#define POOL_PAGES 64
#define LARGE_PAGE SIZE_2M
#define MAP_LIMIT CANONICAL_LIMIT
#endif

/* We never reprogram the PAT, so its power-up entries hold on every CPU
 * (SDM Vol. 3A §12.12.2, IA32_PAT 0007040600070406H; INIT leaves it):
 * PCD=1 PWT=1 selects entry 3, UC; PCD=1 PWT=0 entry 2, UC-. A framebuffer
 * is mapped UC-, not WB, where firmware's MTRRs would keep screen writes
 * in the cache; UC- with an MTRR WC range gives WC, else UC (§12.5.2.2,
 * Table 12-7), so a WC framebuffer stays fast without a PAT of our own. */
static uint64_t cache_bits(enum map_type type)
{
	switch (type) {
	case MAP_UC: return PTE_PCD | PTE_PWT;
	case MAP_UC_MINUS: return PTE_PCD;
	default: return 0;
	}
}

#if defined(__i386__)
/* The same PWT/PCD bits in 32-bit PDEs and PTEs (SDM Vol. 3A §4.3,
 * Tables 4-3 to 4-6); the PAT bit is never set. */
static bool map_large(uint64_t addr, enum map_type type)
{
	uint32_t *pd = (uint32_t *)(uintptr_t)(read_cr3() & PDE32_ADDR);
	uint32_t *pde = &pd[(uint32_t)addr >> 22];
	uint32_t bits = (uint32_t)cache_bits(type);

	if (!(*pde & PTE_P))
		return false; /* the boot code maps all 4 GiB */
	if (!(*pde & PTE_PS)) {
		/* 4 KiB page table (first 4 MiB): set the type per page. */
		uint32_t *pt = (uint32_t *)(uintptr_t)(*pde & PDE32_ADDR);
		for (unsigned i = 0; i < 1024; i++) {
			pt[i] = (pt[i] & ~(uint32_t)(PTE_PCD | PTE_PWT)) | bits;
			invlpg(addr + i * SIZE_4K);
		}
		return true;
	}
	uint32_t want = (*pde & ~(uint32_t)(PTE_PCD | PTE_PWT)) | bits;
	if (*pde != want) {
		*pde = want;
		invlpg(addr);
	}
	return true;
}

#else
static uint64_t pool[POOL_PAGES][512] __attribute__((aligned(4096)));
static unsigned pool_used;

static uint64_t *next_table(uint64_t *entry)
{
	if (!(*entry & PTE_P)) {
		if (pool_used == POOL_PAGES)
			return NULL;
		uint64_t *t = pool[pool_used++];
		memset(t, 0, SIZE_4K);
		*entry = (uint64_t)(uintptr_t)t | PTE_P | PTE_W;
	}
	if (*entry & PTE_PS)
		return NULL; /* never produced by us above the PD level */
	return (uint64_t *)(uintptr_t)(*entry & PTE_ADDR);
}

static bool map_large(uint64_t addr, enum map_type type)
{
	uint64_t *pml4 = (uint64_t *)(uintptr_t)(read_cr3() & PTE_ADDR);
	uint64_t *pdpt = next_table(&pml4[(addr >> 39) & 511]);
	if (!pdpt)
		return false;
	uint64_t *pd = next_table(&pdpt[(addr >> 30) & 511]);
	if (!pd)
		return false;
	uint64_t *pde = &pd[(addr >> 21) & 511];

	if ((*pde & PTE_P) && !(*pde & PTE_PS)) {
		/* 4 KiB page table (first 2 MiB): set the type per page. */
		uint64_t *pt = (uint64_t *)(uintptr_t)(*pde & PTE_ADDR);
		for (unsigned i = 0; i < 512; i++) {
			pt[i] = (pt[i] & ~(PTE_PCD | PTE_PWT)) | cache_bits(type);
			invlpg(addr + i * SIZE_4K);
		}
		return true;
	}
	uint64_t want = (addr & ~(SIZE_2M - 1)) | PTE_P | PTE_W | PTE_PS |
			cache_bits(type);
	if (*pde != want) {
		*pde = want;
		invlpg(addr);
	}
	return true;
}
#endif

void *paging_map_phys(uint64_t phys, uint64_t len, enum map_type type)
{
	if (len == 0)
		len = 1;
	if (phys >= MAP_LIMIT || len > MAP_LIMIT - phys)
		return NULL;
	uint64_t first = phys & ~(LARGE_PAGE - 1);
	uint64_t last = (phys + len - 1) & ~(LARGE_PAGE - 1);
	/* Below 4 GiB RAM is already mapped write-back: only MMIO needs a
	 * change of type. */
	for (uint64_t a = first;; a += LARGE_PAGE) {
		if ((a >= (4ull << 30) || type != MAP_WB) && !map_large(a, type))
			return NULL;
		if (a == last)
			break;
	}
	return (void *)(uintptr_t)phys;
}
