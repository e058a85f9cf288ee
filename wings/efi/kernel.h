/* SPDX-License-Identifier: MIT */
/* The kernel file: its Multiboot2 header and ELF64 load segments. */
#ifndef APSTART_EFI_KERNEL_H
#define APSTART_EFI_KERNEL_H

#include <efi.h>

#define KERNEL_MAX_SEGMENTS 4

struct kernel_segment {
	UINT32 dst;          /* physical load address */
	UINT32 filesz;       /* bytes from the file ... */
	UINT32 memsz;        /* ... then zeroes up to this size */
	const UINT8 *src;    /* inside the file buffer */
};

struct kernel_image {
	UINT32 entry;        /* 32-bit protected-mode entry */
	UINT64 lo, hi;       /* extent of every segment, page aligned */
	UINTN nseg;
	struct kernel_segment seg[KERNEL_MAX_SEGMENTS];
	BOOLEAN wants_framebuffer;   /* framebuffer tag in its header */
};

/* Checks the file as a Multiboot2 loader must and collects what to load.
 * Prints the reason when it refuses. */
EFI_STATUS kernel_parse(const UINT8 *file, UINTN size, struct kernel_image *k);

#endif
