/* SPDX-License-Identifier: MIT */
/* Framebuffer text console: 8x16 glyphs on a 16/24/32 bpp RGB framebuffer. */
#include "wings/screen/fbcon.h"

#include <stddef.h>

#define FIRST_GLYPH 32
#define LAST_GLYPH 126
#define TAB_STOP 8

/* Drawn for bytes the font has no glyph for: a hollow box. */
static const uint8_t box_glyph[FBCON_CELL_H] = {
	0x00, 0x00, 0x7e, 0x42, 0x42, 0x42, 0x42, 0x42,
	0x42, 0x42, 0x42, 0x42, 0x42, 0x7e, 0x00, 0x00,
};

/* A copy of the screen as character cells. Scrolling then rewrites only
 * the cells that change, with stores alone: reading back a real
 * framebuffer (uncached or write-combined) is orders of magnitude slower
 * than writing it. Screens with more cells than this fall back to copying
 * pixel rows. */
#define SHADOW_MAX_CELLS (480u * 135u) /* 3840x2160 in 8x16 cells */
#define MAX_PAIRS 16
#define CODE_BOX 0xFF
#define CODE_DRAWN 0x00 /* pixels drawn over the cell (fbcon_fill_rect) */

static uint8_t shadow_code[SHADOW_MAX_CELLS];
static uint8_t shadow_pair[SHADOW_MAX_CELLS];
static struct { uint32_t fg, bg; } pairs[MAX_PAIRS];
static uint32_t npairs, cur_pair;
static bool shadow;

static struct {
	bool ready;
	/* volatile: this is device memory, and it keeps the compiler from
	 * turning the copy loops into memmove calls we do not link. */
	volatile uint8_t *pix;
	uint32_t pitch;       /* bytes per pixel row */
	uint32_t width, height;
	uint32_t bytes;       /* per pixel */
	uint8_t pos[3], size[3]; /* red, green, blue */
	uint32_t cols, rows;
	uint32_t top, bottom; /* fbcon_putc's rows: [top, bottom) */
	uint32_t cx, cy;      /* cx == cols: wrap before the next glyph */
	uint32_t fg, bg;      /* in the framebuffer's pixel format */
} con;

/* Scale each 8-bit channel to its field width, rounding. */
static uint32_t encode(uint32_t rgb)
{
	uint32_t v = 0;

	for (int i = 0; i < 3; i++) {
		uint32_t c = (rgb >> (16 - 8 * i)) & 0xff;
		uint32_t max = (1u << con.size[i]) - 1;
		v |= ((c * max + 127) / 255) << con.pos[i];
	}
	return v;
}

static void put_pixel(volatile uint8_t *p, uint32_t v)
{
	/* One store where alignment allows: fewer bus cycles on real VRAM. */
	if (con.bytes == 4 && ((uintptr_t)p & 3) == 0) {
		*(volatile uint32_t *)(volatile void *)p = v;
	} else if (con.bytes == 2 && ((uintptr_t)p & 1) == 0) {
		*(volatile uint16_t *)(volatile void *)p = (uint16_t)v;
	} else {
		for (uint32_t i = 0; i < con.bytes; i++)
			p[i] = (uint8_t)(v >> (8 * i));
	}
}

static volatile uint8_t *pixel_at(uint32_t x, uint32_t y)
{
	return con.pix + (size_t)y * con.pitch + (size_t)x * con.bytes;
}

/* Fill pixel rows [y0, y1) across the visible width; the pitch padding
 * beyond it is left alone. */
static void fill_rows(uint32_t y0, uint32_t y1, uint32_t v)
{
	for (uint32_t y = y0; y < y1; y++) {
		volatile uint8_t *p = pixel_at(0, y);
		for (uint32_t x = 0; x < con.width; x++, p += con.bytes)
			put_pixel(p, v);
	}
}

static const uint8_t *glyph_for(uint8_t code)
{
	if (code >= FIRST_GLYPH && code <= LAST_GLYPH)
		return fbcon_font8x16[code - FIRST_GLYPH];
	return box_glyph;
}

static void draw_cell(uint8_t code, uint32_t fg, uint32_t bg, uint32_t col,
		      uint32_t row)
{
	const uint8_t *glyph = glyph_for(code);
	for (uint32_t y = 0; y < FBCON_CELL_H; y++) {
		volatile uint8_t *p = pixel_at(col * FBCON_CELL_W, row * FBCON_CELL_H + y);
		uint8_t bits = glyph[y];
		for (uint32_t x = 0; x < FBCON_CELL_W; x++, p += con.bytes)
			put_pixel(p, (bits & (0x80u >> x)) ? fg : bg);
	}
}

/* Put code in a cell with the current colours, drawing only if the cell
 * shows something else. */
static void set_cell(uint8_t code, uint32_t col, uint32_t row)
{
	if (shadow) {
		size_t i = (size_t)row * con.cols + col;
		if (shadow_code[i] == code && shadow_pair[i] == cur_pair)
			return;
		shadow_code[i] = code;
		shadow_pair[i] = (uint8_t)cur_pair;
	}
	draw_cell(code, con.fg, con.bg, col, row);
}

/* dst and src are 16 pitches apart, so they share their alignment mod 8
 * and the bulk can move in aligned 64-bit words. */
static void copy_bytes(volatile uint8_t *dst, const volatile uint8_t *src, size_t n)
{
	while (n && ((uintptr_t)dst & 7)) {
		*dst++ = *src++;
		n--;
	}
	volatile uint64_t *dw = (volatile uint64_t *)(volatile void *)dst;
	const volatile uint64_t *sw = (const volatile uint64_t *)(const volatile void *)src;
	for (; n >= 8; n -= 8)
		*dw++ = *sw++;
	dst = (volatile uint8_t *)dw;
	src = (const volatile uint8_t *)sw;
	while (n--)
		*dst++ = *src++;
}

/* Move rows [top + 1, bottom) up by one and blank the last. */
static void scroll(void)
{
	uint32_t y0 = con.top * FBCON_CELL_H, y1 = con.bottom * FBCON_CELL_H;
	size_t line = (size_t)con.width * con.bytes;

	if (shadow) {
		for (uint32_t row = con.top; row + 1 < con.bottom; row++) {
			for (uint32_t col = 0; col < con.cols; col++) {
				size_t to = (size_t)row * con.cols + col;
				size_t from = to + con.cols;
				if (shadow_code[to] == shadow_code[from] &&
				    shadow_pair[to] == shadow_pair[from] &&
				    shadow_code[to] != CODE_DRAWN)
					continue;
				/* pixels drawn over a cell scroll as a blank */
				shadow_code[to] = shadow_code[from] == CODE_DRAWN
							  ? ' ' : shadow_code[from];
				shadow_pair[to] = shadow_pair[from];
				draw_cell(shadow_code[to], pairs[shadow_pair[to]].fg,
					  pairs[shadow_pair[to]].bg, col, row);
			}
		}
		/* The new last line: blank in the current colours, margin
		 * included, as the pixel-copy path leaves it. */
		for (uint32_t col = 0; col < con.cols; col++) {
			size_t i = (size_t)(con.bottom - 1) * con.cols + col;
			shadow_code[i] = ' ';
			shadow_pair[i] = (uint8_t)cur_pair;
		}
		fill_rows(y1 - FBCON_CELL_H, y1, con.bg);
		return;
	}

	for (uint32_t y = y0; y + FBCON_CELL_H < y1; y++)
		copy_bytes(pixel_at(0, y), pixel_at(0, y + FBCON_CELL_H), line);
	fill_rows(y1 - FBCON_CELL_H, y1, con.bg);
}

static void newline(void)
{
	con.cx = 0;
	if (con.cy + 1 < con.bottom)
		con.cy++;
	else
		scroll();
}

static void put_code(uint8_t code)
{
	if (con.cx >= con.cols)
		newline();
	set_cell(code, con.cx, con.cy);
	con.cx++;
}

/* Index of a colour pair in pairs[], added if new; when the table is full
 * the last slot is reused (only matters for scrolled-up text's colours). */
static uint32_t pair_index(uint32_t fg, uint32_t bg)
{
	for (uint32_t i = 0; i < npairs; i++)
		if (pairs[i].fg == fg && pairs[i].bg == bg)
			return i;
	uint32_t i = npairs < MAX_PAIRS ? npairs++ : MAX_PAIRS - 1;
	pairs[i].fg = fg;
	pairs[i].bg = bg;
	return i;
}

static bool field_ok(uint8_t pos, uint8_t size, uint32_t bpp)
{
	return size >= 1 && size <= 16 && (uint32_t)pos + size <= bpp;
}

bool fbcon_init(const struct framebuffer *fb, uint8_t *pixels)
{
	if (!fb || !pixels || !fb->present || fb->type != 1)
		return false;
	if (fb->bpp != 16 && fb->bpp != 24 && fb->bpp != 32)
		return false;
	uint32_t bytes = fb->bpp / 8u;
	if (fb->width < FBCON_CELL_W || fb->height < FBCON_CELL_H ||
	    (uint64_t)fb->pitch < (uint64_t)fb->width * bytes)
		return false;
	if (!field_ok(fb->red_pos, fb->red_size, fb->bpp) ||
	    !field_ok(fb->green_pos, fb->green_size, fb->bpp) ||
	    !field_ok(fb->blue_pos, fb->blue_size, fb->bpp))
		return false;

	con.pix = pixels;
	con.pitch = fb->pitch;
	con.width = fb->width;
	con.height = fb->height;
	con.bytes = bytes;
	con.pos[0] = fb->red_pos;
	con.size[0] = fb->red_size;
	con.pos[1] = fb->green_pos;
	con.size[1] = fb->green_size;
	con.pos[2] = fb->blue_pos;
	con.size[2] = fb->blue_size;
	con.cols = fb->width / FBCON_CELL_W;
	con.rows = fb->height / FBCON_CELL_H;
	con.top = 0;
	con.bottom = con.rows;
	con.cx = con.cy = 0;
	con.fg = encode(0xffffff);
	con.bg = encode(0x000000);
	/* Whatever the loader left on screen would show between our lines. */
	fill_rows(0, con.height, con.bg);
	shadow = (uint64_t)con.cols * con.rows <= SHADOW_MAX_CELLS;
	npairs = 0;
	cur_pair = pair_index(con.fg, con.bg);
	if (shadow)
		for (size_t i = 0; i < (size_t)con.cols * con.rows; i++) {
			shadow_code[i] = ' ';
			shadow_pair[i] = (uint8_t)cur_pair;
		}
	con.ready = true;
	return true;
}

void fbcon_putc(char c)
{
	if (!con.ready)
		return;
	unsigned char ch = (unsigned char)c;
	switch (ch) {
	case '\n':
		newline();
		break;
	case '\r':
		con.cx = 0;
		break;
	case '\t':
		/* Spaces, so a tab over old text clears it; stops at the edge. */
		do
			put_code(' ');
		while (con.cx % TAB_STOP != 0 && con.cx < con.cols);
		break;
	default:
		put_code(ch >= FIRST_GLYPH && ch <= LAST_GLYPH ? ch : CODE_BOX);
		break;
	}
}

void fbcon_set_color(uint32_t fg_rgb, uint32_t bg_rgb)
{
	if (!con.ready)
		return;
	con.fg = encode(fg_rgb);
	con.bg = encode(bg_rgb);
	cur_pair = pair_index(con.fg, con.bg);
}

uint32_t fbcon_columns(void)
{
	return con.ready ? con.cols : 0;
}

uint32_t fbcon_rows(void)
{
	return con.ready ? con.rows : 0;
}

uint32_t fbcon_width(void)
{
	return con.ready ? con.width : 0;
}

uint32_t fbcon_height(void)
{
	return con.ready ? con.height : 0;
}

void fbcon_set_scroll_rows(uint32_t top, uint32_t bottom)
{
	if (!con.ready)
		return;
	if (bottom > con.rows)
		bottom = con.rows;
	if (top >= bottom) {
		top = 0;
		bottom = con.rows;
	}
	con.top = top;
	con.bottom = bottom;
	if (con.cy < top || con.cy >= bottom) {
		con.cy = top;
		con.cx = 0;
	}
}

void fbcon_put_at(uint32_t col, uint32_t row, char c)
{
	unsigned char ch = (unsigned char)c;

	if (!con.ready || col >= con.cols || row >= con.rows)
		return;
	set_cell(ch >= FIRST_GLYPH && ch <= LAST_GLYPH ? ch : CODE_BOX, col, row);
}

void fbcon_clear_rows(uint32_t top, uint32_t bottom)
{
	if (!con.ready)
		return;
	if (bottom > con.rows)
		bottom = con.rows;
	for (uint32_t row = top; row < bottom; row++)
		for (uint32_t col = 0; col < con.cols; col++)
			set_cell(' ', col, row);
}

void fbcon_fill_rect(uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint32_t rgb)
{
	if (!con.ready || x >= con.width || y >= con.height)
		return;
	if (w > con.width - x)
		w = con.width - x;
	if (h > con.height - y)
		h = con.height - y;
	uint32_t v = encode(rgb);
	for (uint32_t yy = y; yy < y + h; yy++) {
		volatile uint8_t *p = pixel_at(x, yy);
		for (uint32_t xx = 0; xx < w; xx++, p += con.bytes)
			put_pixel(p, v);
	}
	if (!shadow)
		return;
	/* The cells under the rectangle no longer show their text: a code
	 * no glyph has makes the next set_cell there draw. */
	uint32_t c1 = (x + w + FBCON_CELL_W - 1) / FBCON_CELL_W;
	uint32_t r1 = (y + h + FBCON_CELL_H - 1) / FBCON_CELL_H;
	for (uint32_t row = y / FBCON_CELL_H; row < r1 && row < con.rows; row++)
		for (uint32_t col = x / FBCON_CELL_W; col < c1 && col < con.cols; col++)
			shadow_code[(size_t)row * con.cols + col] = CODE_DRAWN;
}
