/* SPDX-License-Identifier: MIT */
/* The patched twin of a blob as shipped: "as the reference patch leaves
 * it", by a binary edit. The patch deletes `wbinvd` (0f 09) from
 * trampoline_start; an edit cannot shift the code after it without
 * redoing the relocations and every offset the code holds, so it moves
 * only the ljmpw that follows: its 5 bytes are written 2 bytes earlier,
 * over the wbinvd, and the 2 bytes freed after it become 0xCC 0xCC; the
 * ljmpw's target is unchanged (the label after the freed bytes), and its
 * entry in the segment relocations moves by -2 with it:
 *
 *   x86_64  shipped  fa | 0f 09 | ea lo hi 00 00 | 1: ...
 *           twin     fa | ea lo hi 00 00 | cc cc | 1: ...
 *   i386    shipped  0f 09 | ea lo hi 00 00 | 1: ...
 *           twin     ea lo hi 00 00 | cc cc | 1: ...
 *
 * What the AP executes is then the patch's own instruction stream (cli;
 * ljmpw; the rest as shipped): one instruction fewer than the shipped
 * blob, the same count as a tree rebuilt with the patch. The 0xCC bytes
 * are never executed (the ljmpw jumps over them); an int3 rather than a
 * nop so that a wrong jump could not run on as if nothing happened. */
#ifndef APREALMODE_TWIN_H
#define APREALMODE_TWIN_H

#include <stddef.h>
#include <stdint.h>

#include "wings/linux_trampoline/lrm_blob.h"

/* Edits blob and relocs (as lrm_blob_check described them in *info: a
 * shipped blob with its WBINVD) in place into the twin, and checks the
 * result again (into *twin). Returns 1, or 0 with why. */
int twin_make(uint8_t *blob, size_t blob_size, uint8_t *relocs, size_t relocs_size,
	      const struct lrm_blob_info *info, struct lrm_blob_info *twin, char *why);

#endif
