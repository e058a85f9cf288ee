/* SPDX-License-Identifier: MIT */
/* The twin edit (twin.h). */
#include "tools/linux/realmode/twin.h"

#include <string.h>

#include "lib/bytes.h"

#define LJMPW_BYTES 5u
#define WBINVD_BYTES 2u

int twin_make(uint8_t *blob, size_t blob_size, uint8_t *relocs, size_t relocs_size,
	      const struct lrm_blob_info *info, struct lrm_blob_info *twin, char *why)
{
	if (!(info->flags & LRM_WBINVD))
		return lrm_why(why, "trampoline_start at 0x%x has no WBINVD to remove",
			       (unsigned)info->trampoline_start);
	uint32_t w = info->wbinvd_at, j = info->ljmp_at;
	if (j != w + WBINVD_BYTES)
		return lrm_why(why, "the ljmpw at 0x%x does not follow the WBINVD at 0x%x",
			       (unsigned)j, (unsigned)w);
	/* The segment relocation of the ljmpw's segment word. */
	uint32_t nseg = rd32(relocs), i;
	for (i = 0; i < nseg && rd32(relocs + 4 + 4 * i) != j + 3; i++)
		;
	if (i == nseg)
		return lrm_why(why, "no segment relocation for the ljmpw's segment word at 0x%x",
			       (unsigned)(j + 3));
	memmove(blob + w, blob + j, LJMPW_BYTES);
	memset(blob + w + LJMPW_BYTES, 0xcc, WBINVD_BYTES);
	uint32_t moved = w + 3;
	memcpy(relocs + 4 + 4 * i, &moved, 4);
	if (!lrm_blob_check(blob, blob_size, relocs, relocs_size, twin, why))
		return 0;
	if (!(twin->flags & LRM_EDITED) || (twin->flags & LRM_WBINVD) ||
	    twin->ljmp_at != w || twin->trampoline_header != info->trampoline_header)
		return lrm_why(why, "the edited blob does not check as the twin (flags 0x%x)",
			       (unsigned)twin->flags);
	return 1;
}
