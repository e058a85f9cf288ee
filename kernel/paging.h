/* SPDX-License-Identifier: MIT */
/* Identity mapping of physical ranges. The boot code maps 0-4 GiB
 * write-back; this adds mappings above 4 GiB and makes MMIO uncached.
 * Only the BSP changes mappings, and only before any AP runs. */
#ifndef APSTART_PAGING_H
#define APSTART_PAGING_H

#include <stddef.h>
#include <stdint.h>

enum map_type {
	MAP_WB,       /* RAM, ACPI tables */
	MAP_UC,       /* device registers: LAPIC, HPET */
	MAP_UC_MINUS, /* framebuffers: uncached, or WC where the MTRRs say WC */
};

/* Returns the virtual (= physical) address, or NULL if the range lies
 * beyond what can be mapped (canonical 47-bit limit or table pool). */
void *paging_map_phys(uint64_t phys, uint64_t len, enum map_type type);

#endif
