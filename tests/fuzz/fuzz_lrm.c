/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the LRM file and the realmode blob check
 * (wings/linux_trampoline/), what the kernel runs on a module before it
 * ever jumps into it. The input is checked as a whole LRM file, and split
 * (at its first byte's choice) into a blob and its relocations; a blob
 * that passes must make a file that lrm_check accepts, with the same
 * derived offsets, every one inside the blob. Each piece is an exact-size
 * heap copy, so ASan sees a read past it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wings/linux_trampoline/lrm_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t *copy(const uint8_t *p, size_t n)
{
	uint8_t *c = malloc(n ? n : 1);
	if (!c)
		abort();
	memcpy(c, p, n);
	return c;
}

static void inside(const struct lrm_blob_info *in, size_t blob_size)
{
	const uint32_t offs[] = { in->trampoline_start, in->trampoline_header, in->trampoline_pgd,
				  in->tr_start, in->tr_efer, in->tr_cr4, in->tr_flags, in->tr_lock,
				  in->tr_gdt, in->wbinvd_at, in->ljmp_at };
	for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++)
		if (offs[i] >= blob_size)
			abort();
	if (!in->layout || in->trampoline_start % LRM_PAGE || !in->trampoline_start)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[LRM_WHY_SIZE];
	struct lrm_header h;
	struct lrm_blob_info in;

	uint8_t *file = copy(data, size);
	if (lrm_check(file, size, &h, &in, why))
		inside(&in, h.blob_size);
	else if (!why[0] || memchr(why, '\n', strlen(why)))
		abort(); /* a refusal is one line */
	free(file);

	if (size < 2)
		return 0;
	/* The split: relocations of 8 + 4 * data[0] bytes at the end. */
	size_t rsize = 8 + 4 * (size_t)data[0];
	if (rsize > size - 1)
		return 0;
	size_t bsize = size - 1 - rsize;
	uint8_t *blob = copy(data + 1, bsize), *relocs = copy(data + 1 + bsize, rsize);
	if (lrm_blob_check(blob, bsize, relocs, rsize, &in, why)) {
		inside(&in, bsize);
		size_t cap = LRM_FILE_MAX;
		uint8_t *out = malloc(cap);
		if (!out)
			abort();
		uint32_t origin = LRM_FROM_IMAGE | ((in.flags & LRM_WBINVD) ? 0 : LRM_PATCHED);
		uint8_t shipped[SHA256_BYTES] = { 1 };
		if (!lrm_build(&h, blob, bsize, relocs, rsize, origin,
			       (in.flags & LRM_EDITED) ? shipped : NULL, "Linux version fuzz", why))
			abort();
		size_t len = lrm_write(&h, blob, relocs, out, cap);
		struct lrm_blob_info again;
		if (!len || !lrm_check(out, len, NULL, &again, why) ||
		    again.trampoline_header != in.trampoline_header || again.layout != in.layout)
			abort();
		free(out);
	}
	free(blob);
	free(relocs);
	return 0;
}
