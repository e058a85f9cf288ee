/* SPDX-License-Identifier: MIT */
/* Synthetic Linux realmode blobs for the tests of wings/linux_trampoline/:
 * the shape of the real ones (the header words, trampoline_start's first
 * instructions, the relocations, the signatures of Debian 12's 6.1 amd64,
 * 6.12 amd64 and 6.1 686 blobs) without Linux's code, so that the unit
 * and fuzz lanes need no download. The real blobs are checked by the
 * realmode lane (tests/realmode/). */
#ifndef UNIT_LRM_FIXTURE_H
#define UNIT_LRM_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

enum fixture_entry {
	FIXTURE_SHIPPED, /* [cli;] wbinvd; ljmpw */
	FIXTURE_PATCHED, /* [cli;] ljmpw: the reference patch, rebuilt */
	FIXTURE_EDITED,  /* [cli;] ljmpw; int3; int3: apstart's twin edit */
};

#define FIXTURE_BLOB_MAX 0x7000u
#define FIXTURE_RELOCS_MAX 256u

struct fixture {
	uint8_t blob[FIXTURE_BLOB_MAX];
	size_t blob_size;
	uint8_t relocs[FIXTURE_RELOCS_MAX];
	size_t relocs_size;
	/* What lrm_blob_check must derive. */
	uint32_t th, pgd, ljmp_at, wbinvd_at, stack_end;
};

/* layout: an enum lrm_layout_id. */
void fixture_make(struct fixture *fx, uint32_t layout, enum fixture_entry entry);

#endif
