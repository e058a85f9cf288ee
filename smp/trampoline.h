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
/* Another trampoline was installed (a wing's: app/wing.h's trampoline
 * provider): SIPIs go to sipi_page from now, and h is its header in this
 * ABI's layout, which its code reads as the core's reads its own: the
 * CPU table, the kernel's page tables, c_entry are filled here. Its count
 * of real-mode entries stays 0 (that code counts none: an AP is known to
 * have entered only once it writes its slot). False, with a message, if
 * the AP could not reach them. */
bool trampoline_use_other(uint64_t sipi_page, struct tramp_header *h,
			  void (*c_entry)(uint32_t apic_id, uint32_t index));
struct tramp_header *trampoline_header(void);
uint64_t trampoline_phys(void);
const char *tramp_stage_name(uint32_t stage);

#endif
