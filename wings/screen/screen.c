/* SPDX-License-Identifier: MIT */
/* One interface over the two screens: VGA text (wings/screen/vga_text.c, and
 * wings/screen/vga_gfx.c for pictures) and the framebuffer (wings/screen/fbcon.c). */
#include "wings/screen/screen.h"

#include "kernel/console.h"
#include "wings/screen/fbcon.h"
#include "kernel/paging.h"
#include "wings/screen/vga_gfx.h"
#include "wings/screen/vga_text.h"

enum kind { KIND_NONE, KIND_VGA_TEXT, KIND_FB };

static enum kind kind;

/* The same colours on both screens: the CGA palette VGA text shows. */
static const struct {
	uint8_t vga;
	uint32_t fg, bg;
} styles[] = {
	[SCREEN_NORMAL] = { VGA_ATTR_NORMAL, 0xAAAAAA, 0x000000 },
	[SCREEN_BRIGHT] = { VGA_ATTR_BRIGHT, 0xFFFFFF, 0x000000 },
	[SCREEN_DIM] = { VGA_ATTR_DIM, 0x555555, 0x000000 },
	[SCREEN_GOOD] = { VGA_ATTR_GOOD, 0x55FF55, 0x000000 },
	[SCREEN_WARN] = { VGA_ATTR_WARN, 0xFFFF55, 0x000000 },
	[SCREEN_BAD] = { VGA_ATTR_BAD, 0xFF5555, 0x000000 },
	[SCREEN_BAR] = { VGA_ATTR_BAR, 0xFFFFFF, 0x0000AA },
};

void screen_init(const struct boot_info *bi)
{
	const struct framebuffer *fb = &bi->fb;

	if (fb->present && fb->type == 2) {
		vga_text_init(fb->addr, fb->width, fb->height);
		kind = KIND_VGA_TEXT;
	} else if (fb->present && fb->type == 1) {
		uint64_t bytes = (uint64_t)fb->pitch * fb->height;
		/* UC-, never WB: see cache_bits() in kernel/paging.c. */
		uint8_t *pixels = paging_map_phys(fb->addr, bytes, MAP_UC_MINUS);
		if (pixels && fbcon_init(fb, pixels)) {
			kind = KIND_FB;
			fbcon_set_color(styles[SCREEN_NORMAL].fg, styles[SCREEN_NORMAL].bg);
		}
	} else if (!fb->present && bi->firmware == FIRMWARE_BIOS) {
		/* No framebuffer tag on a BIOS boot: the loader left the
		 * standard 80x25 text mode (QEMU -kernel, Multiboot1). */
		vga_text_init(0xB8000, 80, 25);
		kind = KIND_VGA_TEXT;
	}
}

const char *screen_kind(void)
{
	switch (kind) {
	case KIND_VGA_TEXT: return "vga-text";
	case KIND_FB: return "framebuffer";
	default: return "none";
	}
}

/* At the start of a line, and inside a record line: records (which may
 * arrive in pieces) never reach the screen. */
static bool at_line_start = true, in_record;

void screen_stream_locked(const char *s)
{
	for (; *s; s++) {
		if (at_line_start)
			in_record = *s == '@';
		at_line_start = *s == '\n';
		if (in_record)
			continue;
		if (kind == KIND_VGA_TEXT && !vga_gfx_active())
			vga_text_putc(*s);
		else if (kind == KIND_FB)
			fbcon_putc(*s);
	}
}

uint32_t screen_columns(void)
{
	if (kind == KIND_VGA_TEXT)
		return vga_gfx_active() ? VGA_GFX_WIDTH / 8 : vga_text_columns();
	return kind == KIND_FB ? fbcon_columns() : 0;
}

uint32_t screen_rows(void)
{
	if (kind == KIND_VGA_TEXT)
		return vga_gfx_active() ? VGA_GFX_HEIGHT / 16 : vga_text_rows();
	return kind == KIND_FB ? fbcon_rows() : 0;
}

void screen_set_scroll_rows(uint32_t top, uint32_t bottom)
{
	bool taken = console_lock();
	if (kind == KIND_VGA_TEXT)
		vga_text_set_scroll_rows(top, bottom);
	else if (kind == KIND_FB)
		fbcon_set_scroll_rows(top, bottom);
	console_unlock(taken);
}

/* Cells in a style, from text (NULL: blanks), n at most (0: to the
 * edge); the printed text's colours are put back afterwards. */
static void put_cells(uint32_t col, uint32_t row, enum screen_style st,
		      const char *text, uint32_t n)
{
	uint32_t cols = screen_columns();
	if (!n || n > cols - col)
		n = col < cols ? cols - col : 0;
	if (kind == KIND_FB)
		fbcon_set_color(styles[st].fg, styles[st].bg);
	for (uint32_t i = 0; i < n; i++) {
		char c = ' ';
		if (text) {
			if (!text[i])
				break;
			c = text[i];
		}
		if (kind == KIND_FB)
			fbcon_put_at(col + i, row, c);
		else if (vga_gfx_active())
			vga_gfx_char(col + i, row, c);
		else
			vga_text_put_at(col + i, row, c, styles[st].vga);
	}
	if (kind == KIND_FB)
		fbcon_set_color(styles[SCREEN_NORMAL].fg, styles[SCREEN_NORMAL].bg);
}

void screen_text(uint32_t col, uint32_t row, enum screen_style st, const char *s)
{
	if (kind == KIND_NONE || !s)
		return;
	bool taken = console_lock();
	put_cells(col, row, st, s, 0);
	console_unlock(taken);
}

void screen_blank(uint32_t col, uint32_t row, uint32_t n, enum screen_style st)
{
	if (kind == KIND_NONE)
		return;
	bool taken = console_lock();
	put_cells(col, row, st, NULL, n);
	console_unlock(taken);
}

void screen_clear_rows(uint32_t top, uint32_t bottom)
{
	bool taken = console_lock();
	if (kind == KIND_VGA_TEXT && vga_gfx_active())
		vga_gfx_fill(0, top * 16, VGA_GFX_WIDTH, (bottom - top) * 16, false);
	else if (kind == KIND_VGA_TEXT)
		vga_text_clear_rows(top, bottom);
	else if (kind == KIND_FB)
		fbcon_clear_rows(top, bottom);
	console_unlock(taken);
}

bool screen_picture_begin(uint32_t *w, uint32_t *h)
{
	bool ok = false;
	bool taken = console_lock();
	if (kind == KIND_FB) {
		fbcon_clear_rows(0, fbcon_rows());
		fbcon_fill_rect(0, 0, fbcon_width(), fbcon_height(), 0x000000);
		*w = fbcon_width();
		*h = fbcon_height();
		ok = true;
	} else if (kind == KIND_VGA_TEXT && vga_text_is_standard() && vga_gfx_enter()) {
		*w = VGA_GFX_WIDTH;
		*h = VGA_GFX_HEIGHT;
		ok = true;
	}
	console_unlock(taken);
	return ok;
}

void screen_picture_rect(uint32_t x, uint32_t y, uint32_t w, uint32_t h, bool light)
{
	bool taken = console_lock();
	if (kind == KIND_FB)
		fbcon_fill_rect(x, y, w, h, light ? 0xFFFFFF : 0x000000);
	else if (kind == KIND_VGA_TEXT)
		vga_gfx_fill(x, y, w, h, light);
	console_unlock(taken);
}

void screen_picture_end(void)
{
	bool taken = console_lock();
	if (kind == KIND_VGA_TEXT && vga_gfx_active()) {
		vga_gfx_leave();
		vga_text_clear_rows(0, vga_text_rows());
	} else if (kind == KIND_FB) {
		fbcon_fill_rect(0, 0, fbcon_width(), fbcon_height(), 0x000000);
		fbcon_clear_rows(0, fbcon_rows());
	}
	console_unlock(taken);
}
