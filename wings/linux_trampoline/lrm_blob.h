/* SPDX-License-Identifier: MIT */
/* Linux's realmode blob (arch/x86/realmode/rm/realmode.bin) and its
 * relocations (realmode.relocs), checked from their bytes alone against
 * the table of layouts verified here (lrm_blob.c). Pure C over memory
 * views: no allocation, no library call beyond lib/; the kernel and the
 * host command (tools/linux/realmode/) run the same check.
 *
 * What Linux puts there (arch/x86/include/asm/realmode.h, realmode/rm/):
 * the blob starts with struct real_mode_header, u32 offsets into the
 * blob whose fields depend on the configuration; trampoline_start is the
 * first code of the page-aligned .text; trampoline_header and
 * trampoline_pgd are in .bss (zero in the file); the last u32 is the end
 * signature 0x65a22c82. realmode.relocs is u32 n, n u32 offsets of 16-bit
 * segment words (each set to base >> 4), then u32 m, m u32 offsets of
 * 32-bit words (each += base), each table sorted. */
#ifndef APSTART_LRM_BLOB_H
#define APSTART_LRM_BLOB_H

#include <stddef.h>
#include <stdint.h>

/* Real-mode code reaches its data with 16-bit offsets from CS = base >> 4:
 * a blob is at most 64 KiB (Linux's are ~13-25 KiB). */
#define LRM_BLOB_MAX 0x10000u
#define LRM_RELOCS_MAX (8u + 4u * (LRM_BLOB_MAX / 2u))
#define LRM_PAGE 4096u
#define LRM_END_SIGNATURE 0x65a22c82u    /* realmode/rm/realmode.h */
#define LRM_WAKEUP_SIGNATURE 0x51ee1111u /* realmode/rm/wakeup.h */
#define LRM_WAKEUP_SIGNATURE_AT 56u      /* its offset in struct wakeup_header */
#define LRM_HEADER_WORDS_MAX 12u
/* One line of why a check failed, for a message or a record. */
#define LRM_WHY_SIZE 512u

/* The flags an LRM file records (lrm_file.h). WBINVD, 32BIT and EDITED
 * are what the blob's bytes show (lrm_blob_check derives them); the others
 * say where it came from. */
#define LRM_WBINVD (1u << 0)      /* trampoline_start executes WBINVD */
#define LRM_PATCHED (1u << 1)     /* the reference patch's state: no WBINVD */
#define LRM_FROM_SOURCE (1u << 2) /* built from a Linux tree */
#define LRM_FROM_IMAGE (1u << 3)  /* taken from a kernel image */
#define LRM_32BIT (1u << 4)       /* trampoline_32 (an i386 kernel's) */
#define LRM_EDITED (1u << 5)      /* apstart's twin edit: the ljmpw written
				     over the WBINVD, 0xCC 0xCC after it */
#define LRM_FLAGS_ALL 0x3fu

/* The fields struct real_mode_header may have, in Linux's order. */
enum lrm_field {
	RMH_TEXT_START = 1,
	RMH_RO_END,
	RMH_TRAMPOLINE_START,
	RMH_TRAMPOLINE_HEADER,
	RMH_SEV_ES_TRAMPOLINE_START, /* CONFIG_AMD_MEM_ENCRYPT */
	RMH_TRAMPOLINE_START64,      /* CONFIG_X86_64 */
	RMH_TRAMPOLINE_PGD,          /* CONFIG_X86_64 */
	RMH_WAKEUP_START,            /* CONFIG_ACPI_SLEEP */
	RMH_WAKEUP_HEADER,           /* CONFIG_ACPI_SLEEP */
	RMH_MACHINE_REAL_RESTART_ASM,
	RMH_MACHINE_REAL_RESTART_SEG, /* CONFIG_X86_64: __KERNEL32_CS, not relocated */
};

/* Layout ids: stable numbers, recorded in LRM files (never reuse one). */
enum lrm_layout_id {
	LRM_LAYOUT_NONE = 0,
	LRM_LAYOUT_LINUX_6_1_X86_64 = 1,
	LRM_LAYOUT_LINUX_6_12_X86_64 = 2,
	LRM_LAYOUT_LINUX_6_1_I386 = 3,
};

/* One verified layout: real_mode_header's fields, trampoline_header's, and
 * the first instructions of trampoline_start that pin them. */
struct lrm_layout {
	uint32_t id;             /* enum lrm_layout_id */
	const char *name;        /* "linux-6.1-x86_64": at most 31 characters */
	const char *config;      /* the configuration the fields imply */
	const char *verified_on; /* the blobs it was checked against */
	uint8_t bits;            /* 64: trampoline_64.S; 32: trampoline_32.S */
	uint8_t nfields;
	uint8_t fields[LRM_HEADER_WORDS_MAX]; /* enum lrm_field, in order */
	uint8_t th_size;         /* struct trampoline_header's bytes */
	uint8_t has_lock;        /* tr_lock (th + 24) and the lock bts loop that
				    takes it in trampoline_start (Linux 6.6+) */
};

extern const struct lrm_layout lrm_layouts[];
extern const unsigned lrm_layout_count;
/* The layout with that id, or NULL. */
const struct lrm_layout *lrm_layout_by_id(uint32_t id);

/* A field's name as Linux's struct real_mode_header has it ("?" if none). */
const char *lrm_field_name(unsigned field);

/* What a blob is, derived from its bytes. Offsets are into the blob; 0 for
 * a field the layout has not (the blob's header is at 0, so no field the
 * layout has is 0). */
struct lrm_blob_info {
	const struct lrm_layout *layout;
	uint32_t flags;              /* LRM_WBINVD, LRM_32BIT, LRM_EDITED */
	uint32_t text_start, ro_end;
	uint32_t trampoline_start;   /* page-aligned: the SIPI's vector page */
	uint32_t trampoline_header;
	uint32_t trampoline_pgd;     /* 64-bit: the page Linux's pgd is in */
	uint32_t tr_start;           /* 64-bit: u64 entry; 32-bit: u32 entry */
	uint32_t tr_efer, tr_cr4, tr_flags; /* 64-bit: u64, u32, u32 */
	uint32_t tr_lock;            /* 64-bit 6.6+: u32, 0 before */
	uint32_t tr_gdt;             /* 32-bit: u16 limit + u32 base the kernel fills */
	uint32_t wbinvd_at;          /* the WBINVD's offset; 0: none */
	uint32_t ljmp_at;            /* trampoline_start's ljmpw (0xEA) */
	uint32_t rm_stack_end;       /* 64-bit: the real-mode stack's top */
	uint32_t seg_relocs, linear_relocs; /* the relocation tables' counts */
};

/* Checks the blob and its relocations and fills *info (zeroed first).
 * Returns 1 when they match a verified layout, else 0 with why (a buffer of
 * LRM_WHY_SIZE, may be NULL) set to one line naming what was found. */
int lrm_blob_check(const uint8_t *blob, size_t blob_size,
		   const uint8_t *relocs, size_t relocs_size,
		   struct lrm_blob_info *info, char *why);

/* Writes one line into why (LRM_WHY_SIZE bytes; nothing when NULL) and
 * returns 0: the refusals' one form, shared with lrm_file.c. */
int lrm_why(char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The relocation tables' shape alone (counts, entries inside the blob,
 * sorted): what an image scan needs to find where the tables end.
 * Returns the tables' byte length (8 + 4 * entries) when relocs (avail
 * bytes; more may follow) start with tables that fit a blob of blob_size,
 * else 0 with why set. */
size_t lrm_relocs_parse(const uint8_t *relocs, size_t avail, size_t blob_size,
			char *why);

#endif
