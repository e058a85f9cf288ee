/* SPDX-License-Identifier: MIT */
/* Installing the real-mode trampoline and reading what the AP reported
 * in its header (layout: realmode/trampoline_abi.h). */
#ifndef APSTART_TRAMPOLINE_H
#define APSTART_TRAMPOLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "realmode/trampoline_abi.h"

/* Copy the blob to page `phys` (below 1 MiB) and patch it: the table of
 * every CPU in cpus[] (after smp_setup()) and c_entry, the C function an
 * AP calls on its own stack (smp/ap_entry.c). Returns false (with a
 * message) if the blob is not what this kernel expects. */
bool trampoline_install(uint64_t phys, void (*c_entry)(uint32_t apic_id, uint32_t index));
/* A wing's trampoline was installed (app/wing.h): SIPIs go to sipi_page
 * from now, and h, its header in this ABI's layout, gets the CPU table,
 * the page tables and c_entry. It counts no real-mode entries: an AP is
 * known to have entered once it writes its slot. False, with a message,
 * if the AP could not reach them. */
bool trampoline_use_other(uint64_t sipi_page, struct tramp_header *h,
			  void (*c_entry)(uint32_t apic_id, uint32_t index));
struct tramp_header *trampoline_header(void);
uint64_t trampoline_phys(void);
const char *tramp_stage_name(uint32_t stage);

#endif
