/* SPDX-License-Identifier: MIT */
/* What Linux's setup_real_mode() (arch/x86/realmode/init.c) does with its
 * realmode blob, done with one from a checked LRM file: the copy in low
 * memory, both relocation tables, trampoline_header and, on x86_64, the
 * trampoline's page table. Linux's code then runs unchanged from the SIPI
 * to its jump through tr_start, which is apstart's entry (entry.asm). */
#ifndef APSTART_REALMODE_SETUP_H
#define APSTART_REALMODE_SETUP_H

#include <stdbool.h>
#include <stdint.h>

#include "realmode/trampoline_abi.h"
#include "wings/linux_trampoline/lrm_file.h"

/* The header apstart's entry reads (the CPU table, the kernel's page
 * tables, the C entry: smp/trampoline.h fills it), in the core
 * trampoline's layout, and where Linux's tr_lock is once placed (0: the
 * layout has none). Both in entry.asm, beside the code that reads them. */
extern struct tramp_header linux_tr_hdr;
extern uint64_t linux_tr_lock;

/* Copy the blob (hdr, at file) to base (page-aligned, its pages below
 * the legacy hole, chosen by the caller), relocate it and fill its
 * trampoline_header for this CPU and apstart's entry. Returns the SIPI's
 * page: base + trampoline_start. */
uint64_t realmode_setup(const uint8_t *file, const struct lrm_header *hdr, uint64_t base);

/* Bytes of low memory the blob takes: its size in whole pages, as Linux's
 * PAGE_ALIGN(real_mode_blob_end - real_mode_blob). */
uint64_t realmode_size(const struct lrm_header *hdr);

#endif
