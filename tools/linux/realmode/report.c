/* SPDX-License-Identifier: MIT */
/* What aprealmode prints about an LRM file's blob: the lines "name: value"
 * that the extraction and --check share (report.h). */
#include "tools/linux/realmode/report.h"


void report_hex(FILE *out, const uint8_t *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%02x", d[i]);
}

/* trampoline_start's first instructions as the check found them. */
static void entry_words(FILE *out, const struct lrm_blob_info *in)
{
	fprintf(out, "0x%x: ", (unsigned)in->trampoline_start);
	if (in->layout->bits == 64)
		fprintf(out, "cli; ");
	if (in->flags & LRM_WBINVD)
		fprintf(out, "wbinvd; ljmpw (WBINVD: yes, at 0x%x)\n", (unsigned)in->wbinvd_at);
	else if (in->flags & LRM_EDITED)
		fprintf(out, "ljmpw; int3; int3 (WBINVD: no, removed by the twin edit)\n");
	else
		fprintf(out, "ljmpw (WBINVD: no)\n");
}

void report_blob(FILE *out, const struct lrm_header *h, const struct lrm_blob_info *in)
{
	const struct lrm_layout *l = in->layout;
	fprintf(out, "kernel:            %s\n", h->kernel_version[0] ? h->kernel_version : "(unknown)");
	fprintf(out, "layout:            %s (%s)\n", l->name, l->config);
	fprintf(out, "blob:              %u bytes, sha256 ", (unsigned)h->blob_size);
	report_hex(out, h->blob_sha256, SHA256_BYTES);
	fprintf(out, "\nrelocs:            %u bytes (%u segment, %u linear), sha256 ", (unsigned)h->relocs_size,
		(unsigned)h->seg_relocs, (unsigned)h->linear_relocs);
	report_hex(out, h->relocs_sha256, SHA256_BYTES);
	fprintf(out, "\ntrampoline_start:  ");
	entry_words(out, in);
	if (l->bits == 64) {
		fprintf(out, "trampoline_header: 0x%x (tr_start +0, tr_efer +8, tr_cr4 +16, tr_flags +20",
			(unsigned)h->trampoline_header);
		if (h->tr_lock)
			fprintf(out, ", tr_lock +%u", (unsigned)(h->tr_lock - h->trampoline_header));
		fprintf(out, "), trampoline_pgd 0x%x\n", (unsigned)h->trampoline_pgd);
	} else {
		fprintf(out, "trampoline_header: 0x%x (tr_start +0, tr_gdt +6)\n", (unsigned)h->trampoline_header);
	}
	fprintf(out, "state:             %s, %s\n",
		h->flags & LRM_FROM_SOURCE ? "from a build tree" : "from a kernel image",
		h->flags & LRM_EDITED    ? "patched (apstart's twin edit)"
		: h->flags & LRM_PATCHED ? "patched (no WBINVD, as built)"
					 : "as shipped");
	if (h->flags & LRM_EDITED) {
		fprintf(out, "shipped blob:      sha256 ");
		report_hex(out, h->shipped_blob_sha256, SHA256_BYTES);
		fprintf(out, "\n");
	}
}
