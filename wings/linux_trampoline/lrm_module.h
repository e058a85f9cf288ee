/* SPDX-License-Identifier: MIT */
/* The LRM file (lrm_file.h) as the loader handed it over: a boot module
 * (GRUB's module2, kexec's --module, QEMU's -initrd for a Multiboot1
 * -kernel), found and reserved before anything is allocated, checked
 * whole before anything of it is used. */
#ifndef APSTART_LRM_MODULE_H
#define APSTART_LRM_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/memmap.h"
#include "kernel/multiboot.h"
#include "wings/linux_trampoline/lrm_file.h"

/* The first module, if the loader gave any: kept out of the allocator
 * and low memory from now on (struct wing's claim_memory and reserved);
 * lrm_module_reserved() is false when there is none. */
void lrm_module_claim(const struct boot_info *bi);
bool lrm_module_reserved(struct phys_range *out);

/* The module checked (lrm_check()): true with *file at its first byte,
 * *hdr and *info filled; false with why (LRM_WHY_SIZE bytes) set, also
 * when there is no module. */
bool lrm_module_load(const uint8_t **file, struct lrm_header *hdr,
		     struct lrm_blob_info *info, char *why);

#endif
