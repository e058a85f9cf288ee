/* SPDX-License-Identifier: MIT */
/* The LRM file ("Linux realmode module", version 1): one Linux realmode
 * blob and its relocations, with what the host command found in them, for
 * the kernel to load from a Multiboot2 module. All little-endian:
 *
 *   0x000  struct lrm_header (LRM_HEADER_SIZE bytes, below)
 *   blob_offset    the blob (realmode.bin's bytes), 8-aligned
 *   relocs_offset  the relocations (realmode.relocs' bytes), 8-aligned,
 *                  after the blob; the file ends where they end
 *
 * lrm_check() takes nothing on trust: it re-derives every offset and flag
 * from the blob's bytes (lrm_blob_check, the verified layouts) and refuses
 * a file whose header says otherwise, whose sizes or offsets leave the
 * file, or whose SHA-256s do not match. Pure C, no allocation: the kernel
 * and the host run it alike (the kernel links lib/sha256.c for it). */
#ifndef APSTART_LRM_FILE_H
#define APSTART_LRM_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/sha256.h"
#include "wings/linux_trampoline/lrm_blob.h"

#define LRM_MAGIC "APLRM\0\1\0" /* 8 bytes */
#define LRM_MAGIC_SIZE 8u
#define LRM_VERSION 1u
#define LRM_HEADER_SIZE 0x140u
#define LRM_KERNEL_VERSION_SIZE 96u
#define LRM_LAYOUT_NAME_SIZE 32u
/* The largest file: the header, the blob and its tables, 8-aligned. */
#define LRM_FILE_MAX (LRM_HEADER_SIZE + LRM_BLOB_MAX + 8u + LRM_RELOCS_MAX)

/* The header as it is in the file (x86 is little-endian: it is read and
 * written as this struct; the asserts below pin every offset). Offsets
 * named tr_* and trampoline_* are into the blob; 0: the layout has none. */
struct lrm_header {
	char magic[LRM_MAGIC_SIZE];  /* LRM_MAGIC */
	uint32_t header_size;        /* LRM_HEADER_SIZE */
	uint32_t version;            /* LRM_VERSION */
	uint32_t blob_offset, blob_size;
	uint32_t relocs_offset, relocs_size;
	uint32_t layout;             /* enum lrm_layout_id */
	uint32_t flags;              /* LRM_* (lrm_blob.h) */
	uint32_t trampoline_start;   /* page-aligned */
	uint32_t trampoline_header;
	uint32_t trampoline_pgd;     /* 64-bit only */
	uint32_t tr_start;           /* the entry the kernel writes (u64; i386 u32) */
	uint32_t tr_efer, tr_cr4, tr_flags; /* 64-bit: u64, u32, u32 */
	uint32_t tr_lock;            /* 64-bit 6.6+ */
	uint32_t tr_gdt;             /* i386: u16 limit, u32 base */
	uint32_t wbinvd_at;          /* the WBINVD's offset, 0: none */
	uint32_t ljmp_at;            /* trampoline_start's ljmpw */
	uint32_t rm_stack_end;       /* 64-bit: the real-mode stack's top */
	uint32_t seg_relocs, linear_relocs; /* the tables' entry counts */
	uint8_t blob_sha256[SHA256_BYTES];    /* of the blob as in this file */
	uint8_t relocs_sha256[SHA256_BYTES];  /* of the relocations as here */
	uint8_t shipped_blob_sha256[SHA256_BYTES]; /* the blob as shipped, this
				      one was made from (= blob_sha256 unless
				      LRM_EDITED) */
	char kernel_version[LRM_KERNEL_VERSION_SIZE]; /* the image's banner
				      ("Linux version 6.1.0-57-amd64 ..."), or
				      what the tree's build says; NUL-ended */
	char layout_name[LRM_LAYOUT_NAME_SIZE]; /* the layout's name, NUL-ended */
};

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "LRM files are read as structs on x86");
_Static_assert(offsetof(struct lrm_header, header_size) == 0x08, "lrm_header");
_Static_assert(offsetof(struct lrm_header, version) == 0x0c, "lrm_header");
_Static_assert(offsetof(struct lrm_header, blob_offset) == 0x10, "lrm_header");
_Static_assert(offsetof(struct lrm_header, blob_size) == 0x14, "lrm_header");
_Static_assert(offsetof(struct lrm_header, relocs_offset) == 0x18, "lrm_header");
_Static_assert(offsetof(struct lrm_header, relocs_size) == 0x1c, "lrm_header");
_Static_assert(offsetof(struct lrm_header, layout) == 0x20, "lrm_header");
_Static_assert(offsetof(struct lrm_header, flags) == 0x24, "lrm_header");
_Static_assert(offsetof(struct lrm_header, trampoline_start) == 0x28, "lrm_header");
_Static_assert(offsetof(struct lrm_header, trampoline_header) == 0x2c, "lrm_header");
_Static_assert(offsetof(struct lrm_header, trampoline_pgd) == 0x30, "lrm_header");
_Static_assert(offsetof(struct lrm_header, tr_start) == 0x34, "lrm_header");
_Static_assert(offsetof(struct lrm_header, tr_efer) == 0x38, "lrm_header");
_Static_assert(offsetof(struct lrm_header, tr_cr4) == 0x3c, "lrm_header");
_Static_assert(offsetof(struct lrm_header, tr_flags) == 0x40, "lrm_header");
_Static_assert(offsetof(struct lrm_header, tr_lock) == 0x44, "lrm_header");
_Static_assert(offsetof(struct lrm_header, tr_gdt) == 0x48, "lrm_header");
_Static_assert(offsetof(struct lrm_header, wbinvd_at) == 0x4c, "lrm_header");
_Static_assert(offsetof(struct lrm_header, ljmp_at) == 0x50, "lrm_header");
_Static_assert(offsetof(struct lrm_header, rm_stack_end) == 0x54, "lrm_header");
_Static_assert(offsetof(struct lrm_header, seg_relocs) == 0x58, "lrm_header");
_Static_assert(offsetof(struct lrm_header, linear_relocs) == 0x5c, "lrm_header");
_Static_assert(offsetof(struct lrm_header, blob_sha256) == 0x60, "lrm_header");
_Static_assert(offsetof(struct lrm_header, relocs_sha256) == 0x80, "lrm_header");
_Static_assert(offsetof(struct lrm_header, shipped_blob_sha256) == 0xa0, "lrm_header");
_Static_assert(offsetof(struct lrm_header, kernel_version) == 0xc0, "lrm_header");
_Static_assert(offsetof(struct lrm_header, layout_name) == 0x120, "lrm_header");
_Static_assert(sizeof(struct lrm_header) == LRM_HEADER_SIZE, "lrm_header");

/* Checks the whole file (len bytes at file, any alignment). Returns 1 and
 * fills *hdr and *info (either may be NULL) when it is a valid LRM file
 * of a verified layout; else 0 with why (LRM_WHY_SIZE bytes, may be NULL)
 * set to one line. The blob and relocations are then at file +
 * hdr->blob_offset and + hdr->relocs_offset. */
int lrm_check(const void *file, size_t len, struct lrm_header *hdr,
	      struct lrm_blob_info *info, char *why);

/* Makes the header for blob + relocs: checks them (lrm_blob_check), takes
 * the offsets and flags they show, their SHA-256s, the offsets in the file.
 * origin: LRM_FROM_SOURCE or LRM_FROM_IMAGE, with LRM_PATCHED when the blob
 * is in the reference patch's state (an edited twin must say so; a tree
 * built with the patch may). shipped_sha256: for a twin, the SHA-256 of the
 * blob as shipped it was made from; NULL: this blob's. kernel_version is
 * cut at LRM_KERNEL_VERSION_SIZE - 1 bytes. Returns 1, or 0 and why. */
int lrm_build(struct lrm_header *hdr, const uint8_t *blob, size_t blob_size,
	      const uint8_t *relocs, size_t relocs_size, uint32_t origin,
	      const uint8_t *shipped_sha256, const char *kernel_version, char *why);

/* The file's length for a header lrm_build made. */
size_t lrm_file_size(const struct lrm_header *hdr);

/* Writes the whole file (lrm_file_size(hdr) bytes, padding zero) into out
 * (cap bytes). Returns the length written, 0 if cap is too small. */
size_t lrm_write(const struct lrm_header *hdr, const uint8_t *blob,
		 const uint8_t *relocs, uint8_t *out, size_t cap);

#endif
