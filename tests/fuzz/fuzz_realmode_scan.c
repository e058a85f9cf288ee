/* SPDX-License-Identifier: MIT */
/* libFuzzer target: aprealmode's reading of a kernel's bytes
 * (tools/linux/realmode/): the bzImage setup header, the ELF header, the
 * marks of other machines, the banner, and the scan for the realmode blob
 * by validation. A blob found must lie inside the input, pass the check
 * again, and, if it has a WBINVD, give a twin that checks as edited. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/linux/realmode/kernel_image.h"
#include "tools/linux/realmode/scan.h"
#include "tools/linux/realmode/twin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[LRM_WHY_SIZE], banner[128];
	uint8_t *img = malloc(size ? size : 1);
	if (!img)
		abort();
	memcpy(img, data, size);

	size_t at, len;
	unsigned protocol;
	if (bzimage_payload(img, size, &at, &len, &protocol, why) == 1 && (at > size || len > size - at || !len))
		abort();
	(void)elf_x86_bits(img, size, why);
	(void)not_x86_kernel(img, size, why);
	if (scan_banner(img, size, banner, sizeof banner) && strncmp(banner, "Linux version ", 14))
		abort();

	struct scan_result r;
	if (scan_for_blob(img, size, &r)) {
		if (r.blob_at > size || r.blob_size + r.relocs_size > size - r.blob_at)
			abort();
		uint8_t *blob = malloc(r.blob_size), *relocs = malloc(r.relocs_size);
		if (!blob || !relocs)
			abort();
		memcpy(blob, img + r.blob_at, r.blob_size);
		memcpy(relocs, img + r.blob_at + r.blob_size, r.relocs_size);
		struct lrm_blob_info in, twin;
		if (!lrm_blob_check(blob, r.blob_size, relocs, r.relocs_size, &in, why))
			abort();
		if ((in.flags & LRM_WBINVD) &&
		    !twin_make(blob, r.blob_size, relocs, r.relocs_size, &in, &twin, why))
			abort();
		free(blob);
		free(relocs);
	}
	free(img);
	return 0;
}
