/* SPDX-License-Identifier: MIT */
/* A kernel image's own headers, read without trusting them: the x86 boot
 * protocol's setup header of a bzImage (where its compressed payload is),
 * a vmlinux's ELF header (which machine), and the marks of kernels that
 * are not x86, to name them. Pure C over a buffer (fuzzed with the scan:
 * tests/fuzz/fuzz_realmode_scan.c). */
#ifndef APREALMODE_KERNEL_IMAGE_H
#define APREALMODE_KERNEL_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "wings/linux_trampoline/lrm_blob.h"

/* The x86 boot protocol's setup header (Documentation/arch/x86/boot.rst):
 * where a bzImage's compressed payload is. Returns 1 with the payload's
 * offset and length and the protocol version; 0 with why for a bzImage
 * that cannot hold one (truncated, too old); -1 (why untouched) when img
 * is no bzImage (no 0xAA55 at 0x1fe and "HdrS" at 0x202). */
int bzimage_payload(const uint8_t *img, size_t len, size_t *at, size_t *size,
		    unsigned *protocol, char why[LRM_WHY_SIZE]);

/* Names a kernel that is not x86 (an arm64 or RISC-V Image, an EFI zboot
 * image, an ELF of another machine) into why; 0 if it is none of those. */
int not_x86_kernel(const uint8_t *img, size_t len, char why[LRM_WHY_SIZE]);

/* A vmlinux's ELF header: 64 (x86_64) or 32 (i386); 0 with why for an
 * ELF of another machine or one too short; -1 (why untouched) when img is
 * not an ELF file at all. */
int elf_x86_bits(const uint8_t *img, size_t len, char why[LRM_WHY_SIZE]);

#endif
