/* SPDX-License-Identifier: MIT */
/* Finds Linux's realmode blob in a kernel's bytes (a vmlinux, or anything
 * holding one) by validation, never by a fixed offset: rmpiggy.S puts
 * real_mode_blob page-aligned in .init.data and real_mode_relocs right
 * after its end, so each page is tried as a blob's start, each end
 * signature after it as its end, and what follows as the relocations; a
 * candidate counts only when wings/linux_trampoline's check passes. Pure
 * C over a buffer (fuzzed: tests/fuzz/fuzz_realmode_scan.c). */
#ifndef APREALMODE_SCAN_H
#define APREALMODE_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "wings/linux_trampoline/lrm_blob.h"

struct scan_result {
	unsigned found;          /* blobs that passed the check */
	size_t blob_at;          /* the first one: its offset in the buffer, */
	size_t blob_size;        /* its size */
	size_t relocs_size;      /* and its relocations' (right after it) */
	struct lrm_blob_info info;
	size_t second_at;        /* the second one's offset (found > 1) */
	unsigned shapes;         /* page-aligned blob shapes seen that failed
				    the check: a header's start, an end
				    signature after it */
	size_t nearest_at;       /* found == 0, shapes > 0: the first shape's */
	char why[LRM_WHY_SIZE];  /* ... refusal */
};

/* Scans buf (len bytes). Returns the number of blobs found (r->found). */
unsigned scan_for_blob(const uint8_t *buf, size_t len, struct scan_result *r);

/* Finds the banner "Linux version <digit>..." in buf: copies it (up to a
 * newline or an unprintable byte, at most size - 1 bytes) into out.
 * Returns 1 if found, else 0 and out "". */
int scan_banner(const uint8_t *buf, size_t len, char *out, size_t size);

#endif
