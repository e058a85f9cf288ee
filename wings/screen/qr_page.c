/* SPDX-License-Identifier: MIT */
/* Module size: at least 3 pixels, so that a photo of the screen resolves
 * every module (beside the caption, 640x480 VGA: version 31, 1452 bytes;
 * 800x600: version 40, 2331 bytes; larger screens draw bigger modules).
 * Level M (ISO/IEC 18004:2015 Table 7: ~15% of codewords recoverable)
 * rather than L: glare and moire on a photographed screen cost modules,
 * and the records that matter fit either way. The quiet zone is the spec's 4
 * modules (section 6.3.8), drawn light on the black screen. */
#include "wings/screen/qr_page.h"

#include "wings/screen/header.h"
#include "wings/screen/qr_records.h"

#include <stdint.h>

#include "app/report.h"
#include "kernel/bootmem.h"
#include "wings/screen/screen.h"
#include "lib/format.h"
#include "wings/screen/qr.h"

#define MIN_SCALE 3
#define CAPTION_COLS 22 /* text beside the code, 8-pixel cells */
#define MARGIN 8        /* pixels around the quiet zone */

/* From bootmem when the page is first drawn: the run does without. */
static uint8_t *modules, *work;
static char *payload;
static char summary[160];

struct draw {
	uint32_t x0, y0;
};

static void rect(void *ctx, int x, int y, int w, int h, bool dark)
{
	const struct draw *d = ctx;
	screen_picture_rect(d->x0 + (uint32_t)x, d->y0 + (uint32_t)y, (uint32_t)w,
			    (uint32_t)h, !dark);
}

bool qr_page_draw(bool pass, const char *const *footer, unsigned footer_lines)
{
	uint32_t w, h;
	unsigned cpusums;
	const struct run_result *r = report_result();

	if (!payload) {
		modules = bootmem_try_alloc(QR_BUFFER_BYTES_MAX, 16, "the QR code's modules");
		work = bootmem_try_alloc(QR_BUFFER_BYTES_MAX, 16, "the QR encoder's work area");
		payload = bootmem_try_alloc(QR_BUFFER_BYTES_MAX, 16, "the QR code's text");
	}
	if (!modules || !work || !payload || !screen_picture_begin(&w, &h))
		return false;
	uint32_t side = w > CAPTION_COLS * 8 + 2 * MARGIN ? w - CAPTION_COLS * 8 - 2 * MARGIN : 0;
	if (side > h - 2 * MARGIN)
		side = h - 2 * MARGIN;
	int max_v = qr_max_version_for_modules((int)(side / MIN_SCALE), QR_QUIET_SPEC);
	if (max_v < 1)
		return false;
	size_t len = qr_records(payload, qr_capacity(max_v, QR_ECC_M), &cpusums);
	struct qr_options opt = { QR_ECC_M, 1, max_v, QR_MASK_AUTO };
	struct qr_code qr;
	if (!len || qr_encode(payload, len, &opt, modules, QR_BUFFER_BYTES_MAX, work,
			      QR_BUFFER_BYTES_MAX, &qr) != QR_OK)
		return false;
	uint32_t span = (uint32_t)qr.size + 2 * QR_QUIET_SPEC;
	uint32_t scale = side / span;
	struct draw d = { MARGIN, (h - span * scale) / 2 };
	qr_render_pixels(&qr, QR_QUIET_SPEC, (int)scale, rect, &d);

	/* The caption, right of the code, top-aligned with it: what a photo
	 * of this page alone must say, then what the code holds. */
	char t[9][48];
	unsigned records = 0;
	for (size_t i = 0; i < len; i++)
		records += payload[i] == '\n';
	const struct run_facts *f = header_facts();
	fmt_snprintf(t[0], sizeof t[0], "apstart records");
	fmt_snprintf(t[1], sizeof t[1], "WBINVD=%d  %s", f ? f->wbinvd : -1, pass ? "PASS" : "FAIL");
	fmt_snprintf(t[2], sizeof t[2], "%u lines, %u bytes", records, (unsigned)len);
	fmt_snprintf(t[3], sizeof t[3], "QR version %d-M", qr.version);
	fmt_snprintf(t[4], sizeof t[4], "%u of %u per-CPU", cpusums, r ? r->n : 0);
	fmt_snprintf(t[5], sizeof t[5], "summaries (@cpusum)");
	fmt_snprintf(t[6], sizeof t[6], "Scan, save as a file:");
	fmt_snprintf(t[7], sizeof t[7], "aplog reads it like");
	fmt_snprintf(t[8], sizeof t[8], "a serial log.");
	uint32_t col = (MARGIN + span * scale + MARGIN + 7) / 8, row = d.y0 / 16;
	static const uint32_t gap_after[9] = { 0, 1, 0, 0, 0, 1, 0, 0, 1 };
	for (unsigned i = 0; i < 9; i++) {
		screen_text(col, row++, i < 2 ? SCREEN_BRIGHT : SCREEN_NORMAL, t[i]);
		row += gap_after[i];
	}
	for (unsigned i = 0; i < footer_lines; i++)
		screen_text(col, row++, SCREEN_NORMAL, footer[i]);
	fmt_snprintf(summary, sizeof summary,
		     "%u record lines (%u of %u @cpusum), %u bytes, QR version %d-M, mask %d, "
		     "%u px per module", records, cpusums, r ? r->n : 0, (unsigned)len,
		     qr.version, qr.mask, scale);
	return true;
}

const char *qr_page_summary(void)
{
	return summary;
}
