/* SPDX-License-Identifier: MIT */
/* The LRM file: made (lrm_build, lrm_write) and checked (lrm_check). The
 * check trusts no word of the header: each is derived again from the blob
 * and compared (lrm_file.h). */
#include "wings/linux_trampoline/lrm_file.h"

#include "lib/kstring.h"


static uint32_t align8(uint64_t v)
{
	return (uint32_t)((v + 7) & ~(uint64_t)7);
}

/* The header's words that the blob's bytes decide, set from info. */
static void derived_words(struct lrm_header *h, const struct lrm_blob_info *in)
{
	h->layout = in->layout->id;
	h->trampoline_start = in->trampoline_start;
	h->trampoline_header = in->trampoline_header;
	h->trampoline_pgd = in->trampoline_pgd;
	h->tr_start = in->tr_start;
	h->tr_efer = in->tr_efer;
	h->tr_cr4 = in->tr_cr4;
	h->tr_flags = in->tr_flags;
	h->tr_lock = in->tr_lock;
	h->tr_gdt = in->tr_gdt;
	h->wbinvd_at = in->wbinvd_at;
	h->ljmp_at = in->ljmp_at;
	h->rm_stack_end = in->rm_stack_end;
	h->seg_relocs = in->seg_relocs;
	h->linear_relocs = in->linear_relocs;
}

/* The flags the bytes show, and what a file may say beside them. */
#define LRM_FLAGS_SHOWN (LRM_WBINVD | LRM_32BIT | LRM_EDITED)

static int origin_ok(uint32_t flags, char *why)
{
	uint32_t from = flags & (LRM_FROM_SOURCE | LRM_FROM_IMAGE);
	if (from != LRM_FROM_SOURCE && from != LRM_FROM_IMAGE)
		return lrm_why(why, "flags 0x%x: not exactly one of from-source (0x%x) and from-image (0x%x)",
			    (unsigned)flags, LRM_FROM_SOURCE, LRM_FROM_IMAGE);
	if ((flags & LRM_PATCHED) && (flags & LRM_WBINVD))
		return lrm_why(why, "flags 0x%x: patched, yet trampoline_start executes WBINVD", (unsigned)flags);
	if ((flags & LRM_EDITED) && !(flags & LRM_PATCHED))
		return lrm_why(why, "flags 0x%x: the twin edit, not marked patched", (unsigned)flags);
	return 1;
}

/* A NUL-ended printable string in a field of size bytes, zeros after it
 * (no byte of the header is free to carry anything else). */
static int text_ok(const char *s, size_t size)
{
	size_t i = 0;
	for (; i < size && s[i]; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return 0;
	if (i == size)
		return 0;
	for (; i < size; i++)
		if (s[i])
			return 0;
	return 1;
}

int lrm_build(struct lrm_header *h, const uint8_t *blob, size_t blob_size,
	      const uint8_t *relocs, size_t relocs_size, uint32_t origin,
	      const uint8_t *shipped_sha256, const char *kernel_version, char *why)
{
	struct lrm_blob_info in;

	memset(h, 0, sizeof *h);
	if (origin & ~(LRM_FROM_SOURCE | LRM_FROM_IMAGE | LRM_PATCHED))
		return lrm_why(why, "origin 0x%x: only from-source, from-image and patched", (unsigned)origin);
	if (!lrm_blob_check(blob, blob_size, relocs, relocs_size, &in, why))
		return 0;
	memcpy(h->magic, LRM_MAGIC, LRM_MAGIC_SIZE);
	h->header_size = LRM_HEADER_SIZE;
	h->version = LRM_VERSION;
	h->blob_offset = LRM_HEADER_SIZE;
	h->blob_size = (uint32_t)blob_size;
	h->relocs_offset = align8((uint64_t)h->blob_offset + blob_size);
	h->relocs_size = (uint32_t)relocs_size;
	h->flags = origin | in.flags;
	derived_words(h, &in);
	if (!origin_ok(h->flags, why))
		return 0;
	sha256(blob, blob_size, h->blob_sha256);
	sha256(relocs, relocs_size, h->relocs_sha256);
	memcpy(h->shipped_blob_sha256, shipped_sha256 ? shipped_sha256 : h->blob_sha256, SHA256_BYTES);
	if ((h->flags & LRM_EDITED) != 0 &&
	    !memcmp(h->shipped_blob_sha256, h->blob_sha256, SHA256_BYTES))
		return lrm_why(why, "an edited twin needs the SHA-256 of the blob as shipped");
	if (!(h->flags & LRM_EDITED) &&
	    memcmp(h->shipped_blob_sha256, h->blob_sha256, SHA256_BYTES))
		return lrm_why(why, "a blob not edited is the blob as shipped: its SHA-256 is its own");
	size_t n = 0;
	if (kernel_version)
		for (; kernel_version[n] && n < LRM_KERNEL_VERSION_SIZE - 1; n++)
			h->kernel_version[n] = (kernel_version[n] >= 0x20 && kernel_version[n] <= 0x7e)
						       ? kernel_version[n] : '?';
	size_t ln = strlen(in.layout->name);
	if (ln >= LRM_LAYOUT_NAME_SIZE)
		return lrm_why(why, "layout name %s: longer than %u", in.layout->name, LRM_LAYOUT_NAME_SIZE - 1);
	memcpy(h->layout_name, in.layout->name, ln);
	return 1;
}

size_t lrm_file_size(const struct lrm_header *h)
{
	return (size_t)h->relocs_offset + h->relocs_size;
}

size_t lrm_write(const struct lrm_header *h, const uint8_t *blob,
		 const uint8_t *relocs, uint8_t *out, size_t cap)
{
	size_t len = lrm_file_size(h);
	if (len > cap || h->blob_offset < sizeof *h ||
	    (uint64_t)h->blob_offset + h->blob_size > h->relocs_offset)
		return 0;
	memset(out, 0, len);
	memcpy(out, h, sizeof *h);
	memcpy(out + h->blob_offset, blob, h->blob_size);
	memcpy(out + h->relocs_offset, relocs, h->relocs_size);
	return len;
}

/* Compare one recorded word with the derived one. */
#define SAME(field) \
	do { \
		if (h.field != d.field) \
			return lrm_why(why, "%s 0x%x recorded, the blob says 0x%x", #field, \
				    (unsigned)h.field, (unsigned)d.field); \
	} while (0)

int lrm_check(const void *file, size_t len, struct lrm_header *out,
	      struct lrm_blob_info *info_out, char *why)
{
	const uint8_t *f = file;
	struct lrm_header h, d;
	struct lrm_blob_info in;

	if (len < LRM_MAGIC_SIZE || memcmp(f, LRM_MAGIC, LRM_MAGIC_SIZE))
		return lrm_why(why, "not an LRM file (no \"APLRM\" magic)");
	if (len < sizeof h)
		return lrm_why(why, "%zu bytes: shorter than an LRM header (%u)", len, LRM_HEADER_SIZE);
	memcpy(&h, f, sizeof h);
	if (h.version != LRM_VERSION || h.header_size != LRM_HEADER_SIZE)
		return lrm_why(why, "LRM version %u, header %u bytes: this build reads version %u, %u bytes",
			    (unsigned)h.version, (unsigned)h.header_size, LRM_VERSION, LRM_HEADER_SIZE);
	if (h.blob_offset < LRM_HEADER_SIZE || h.blob_offset % 8 ||
	    (uint64_t)h.blob_offset + h.blob_size > len)
		return lrm_why(why, "blob at 0x%x, 0x%x bytes: not 8-aligned after the header inside the file (%zu bytes)",
			    (unsigned)h.blob_offset, (unsigned)h.blob_size, len);
	if (h.relocs_offset < (uint64_t)h.blob_offset + h.blob_size || h.relocs_offset % 8 ||
	    (uint64_t)h.relocs_offset + h.relocs_size != len)
		return lrm_why(why, "relocations at 0x%x, 0x%x bytes: not 8-aligned after the blob, ending the file (%zu bytes)",
			    (unsigned)h.relocs_offset, (unsigned)h.relocs_size, len);
	if (h.flags & ~LRM_FLAGS_ALL)
		return lrm_why(why, "flags 0x%x: unknown bits 0x%x", (unsigned)h.flags,
			    (unsigned)(h.flags & ~LRM_FLAGS_ALL));
	if (!origin_ok(h.flags, why))
		return 0;
	const uint8_t *blob = f + h.blob_offset, *relocs = f + h.relocs_offset;
	if (!lrm_blob_check(blob, h.blob_size, relocs, h.relocs_size, &in, why))
		return 0;

	memset(&d, 0, sizeof d);
	derived_words(&d, &in);
	d.flags = (h.flags & ~LRM_FLAGS_SHOWN) | in.flags;
	SAME(layout);
	SAME(flags);
	SAME(trampoline_start);
	SAME(trampoline_header);
	SAME(trampoline_pgd);
	SAME(tr_start);
	SAME(tr_efer);
	
	SAME(tr_cr4);
	SAME(tr_flags);
	SAME(tr_lock);
	SAME(tr_gdt);
	SAME(wbinvd_at);
	SAME(ljmp_at);
	SAME(rm_stack_end);
	SAME(seg_relocs);
	SAME(linear_relocs);

	uint8_t digest[SHA256_BYTES];
	sha256(blob, h.blob_size, digest);
	if (memcmp(digest, h.blob_sha256, SHA256_BYTES))
		return lrm_why(why, "the blob's SHA-256 is not the one recorded");
	sha256(relocs, h.relocs_size, digest);
	if (memcmp(digest, h.relocs_sha256, SHA256_BYTES))
		return lrm_why(why, "the relocations' SHA-256 is not the one recorded");
	int same = !memcmp(h.shipped_blob_sha256, h.blob_sha256, SHA256_BYTES);
	if ((h.flags & LRM_EDITED) && same)
		return lrm_why(why, "an edited twin records its own SHA-256 as the shipped blob's");
	if (!(h.flags & LRM_EDITED) && !same)
		return lrm_why(why, "a blob not edited records another blob's SHA-256 as shipped");
	if (!text_ok(h.kernel_version, sizeof h.kernel_version))
		return lrm_why(why, "kernel_version: not printable text ended by NUL, zeros after, within %u bytes",
			    LRM_KERNEL_VERSION_SIZE);
	if (!text_ok(h.layout_name, sizeof h.layout_name) ||
	    strlen(h.layout_name) != strlen(in.layout->name) ||
	    memcmp(h.layout_name, in.layout->name, strlen(in.layout->name)))
		return lrm_why(why, "layout_name is not %s, the layout the blob matches", in.layout->name);
	if (out)
		*out = h;
	if (info_out)
		*info_out = in;
	return 1;
}
