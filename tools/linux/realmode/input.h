/* SPDX-License-Identifier: MIT */
/* What aprealmode reads, told apart by its content (never its name): a
 * kernel image (bzImage/vmlinuz: the x86 boot protocol's setup header,
 * its compressed payload), a vmlinux (ELF), a build tree (a folder with
 * arch/x86/realmode/rm/realmode.bin and realmode.relocs), or a
 * realmode.bin with its realmode.relocs. It ends with the blob and its
 * relocations in hand, found in a kernel by scan.c. */
#ifndef APREALMODE_INPUT_H
#define APREALMODE_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "wings/linux_trampoline/lrm_blob.h"

/* The largest file read (a vmlinux is 16-70 MB). */
#define INPUT_FILE_MAX ((size_t)1 << 30)

struct input {
	char what[LRM_WHY_SIZE];  /* how it was read, for the report */
	char banner[256];         /* "Linux version ..." or what stands for it */
	uint32_t origin;          /* LRM_FROM_IMAGE or LRM_FROM_SOURCE */
	int elf_bits;             /* a vmlinux's ELF class: 64, 32; 0 none */
	uint8_t *blob, *relocs;   /* malloc'd copies */
	size_t blob_size, relocs_size;
	int blob_in_kernel;       /* found in a vmlinux, at: */
	size_t blob_at;
	struct lrm_blob_info info;
};

/* Reads path (relocs_path: realmode.relocs when path is a realmode.bin not
 * beside it; may be NULL) into *in. Returns 1, or 0 with why (one line). */
int input_read(const char *path, const char *relocs_path, struct input *in,
	       char why[LRM_WHY_SIZE]);
void input_free(struct input *in);

#endif
