/* SPDX-License-Identifier: MIT */
/* Drawn with Blt only: EfiBltVideoFill for the background and the QR
 * modules, EfiBltBufferToVideo for a line of glyphs at a time (UEFI 2.10
 * §12.9). The console's own text is gone until the next ClearScreen. The
 * QR code (wings/screen/qr.c, level M as the kernel's QR page, for a
 * photographed screen) gets the spec's 4-module quiet zone and modules of
 * at least 3 pixels. */
#include "wings/efi/page.h"

#include <efilib.h>

#include "wings/screen/fbcon.h"
#include "wings/screen/qr.h"

#define CELL_W 8
#define CELL_H 16
#define MIN_SCALE 3
#define LINE_MAX_COLS 160

static EFI_GRAPHICS_OUTPUT_PROTOCOL *gop;
static EFI_GRAPHICS_OUTPUT_BLT_PIXEL white = { 0xFF, 0xFF, 0xFF, 0 }, black = { 0, 0, 0, 0 };
static uint8_t modules[QR_BUFFER_BYTES_MAX], work[QR_BUFFER_BYTES_MAX];
static EFI_GRAPHICS_OUTPUT_BLT_PIXEL line_px[LINE_MAX_COLS * CELL_W * CELL_H];

static void fill(UINTN x, UINTN y, UINTN w, UINTN h, EFI_GRAPHICS_OUTPUT_BLT_PIXEL *c)
{
	uefi_call_wrapper(gop->Blt, 10, gop, c, EfiBltVideoFill, 0, 0, x, y, w, h, 0);
}

static void text_line(UINTN row, const char *s, UINTN cols)
{
	UINTN n = 0;
	while (s[n] && n < cols)
		n++;
	if (!n)
		return;
	for (UINTN c = 0; c < n; c++) {
		unsigned char ch = (unsigned char)s[c];
		const uint8_t *g = fbcon_font8x16[(ch >= 32 && ch < 127 ? ch : '?') - 32];
		for (UINTN y = 0; y < CELL_H; y++)
			for (UINTN x = 0; x < CELL_W; x++)
				line_px[y * n * CELL_W + c * CELL_W + x] =
					g[y] & (0x80 >> x) ? white : black;
	}
	uefi_call_wrapper(gop->Blt, 10, gop, line_px, EfiBltBufferToVideo, 0, 0, 0, row * CELL_H,
			  n * CELL_W, CELL_H, 0);
}

struct origin {
	UINTN x, y;
};

static void module_rect(void *ctx, int x, int y, int w, int h, bool dark)
{
	const struct origin *o = ctx;
	fill(o->x + (UINTN)x, o->y + (UINTN)y, (UINTN)w, (UINTN)h, dark ? &black : &white);
}

BOOLEAN page_show(const char *const *lines, UINTN nlines, const char *payload, UINTN len,
		  const char *short_payload, UINTN short_len, const char **qr_text)
{
	static EFI_GUID guid = EFI_GRAPHICS_OUTPUT_PROTOCOL_GUID;

	*qr_text = "no QR code: the firmware has no graphics output";
	if (EFI_ERROR(uefi_call_wrapper(BS->LocateProtocol, 3, &guid, NULL, (VOID **)&gop)) ||
	    !gop->Mode || !gop->Mode->Info)
		return FALSE;
	UINTN w = gop->Mode->Info->HorizontalResolution, h = gop->Mode->Info->VerticalResolution;
	UINTN cols = w / CELL_W < LINE_MAX_COLS ? w / CELL_W : LINE_MAX_COLS;
	fill(0, 0, w, h, &black);
	for (UINTN i = 0; i < nlines && (i + 1) * CELL_H <= h; i++)
		text_line(i, lines[i], cols);

	UINTN top = (nlines + 1) * CELL_H, room_h = h > top + CELL_H ? h - top - CELL_H : 0;
	UINTN side = room_h < w ? room_h : w;
	int max_v = qr_max_version_for_modules((int)(side / MIN_SCALE), QR_QUIET_SPEC);
	if (max_v < 1) {
		*qr_text = "no QR code: no room on the screen";
		return TRUE;
	}
	struct qr_options opt = { QR_ECC_M, 1, max_v, QR_MASK_AUTO };
	struct qr_code qr;
	*qr_text = "the whole table";
	if (qr_encode(payload, len, &opt, modules, sizeof modules, work, sizeof work, &qr) != QR_OK) {
		*qr_text = "the rows (the whole table does not fit the screen)";
		if (qr_encode(short_payload, short_len, &opt, modules, sizeof modules, work,
			      sizeof work, &qr) != QR_OK) {
			*qr_text = "no QR code: the rows do not fit the screen";
			return TRUE;
		}
	}
	UINTN span = (UINTN)(qr.size + 2 * QR_QUIET_SPEC);
	UINTN scale = side / span;
	struct origin o = { CELL_W, top };
	qr_render_pixels(&qr, QR_QUIET_SPEC, (int)scale, module_rect, &o);
	return TRUE;
}

void page_serial_line(const char *s)
{
	static EFI_GUID guid = EFI_SERIAL_IO_PROTOCOL_GUID;
	EFI_SERIAL_IO_PROTOCOL *io;
	UINTN n = 0;

	if (EFI_ERROR(uefi_call_wrapper(BS->LocateProtocol, 3, &guid, NULL, (VOID **)&io)))
		return;
	while (s[n])
		n++;
	uefi_call_wrapper(io->Write, 3, io, &n, (VOID *)s);
	n = 2;
	uefi_call_wrapper(io->Write, 3, io, &n, (VOID *)"\r\n");
}
