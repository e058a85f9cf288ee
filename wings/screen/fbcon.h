/* SPDX-License-Identifier: MIT */
/* Text console on a linear RGB framebuffer (8x16 cells, build-time font).
 * Not locked: callers that print from several CPUs serialise themselves.
 * Every function is a no-op (sizes 0) until fbcon_init has succeeded. */
#ifndef APSTART_FBCON_H
#define APSTART_FBCON_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/multiboot.h"

#define FBCON_CELL_W 8
#define FBCON_CELL_H 16

/* ASCII 32..126, row bytes with MSB = leftmost pixel; generated from GRUB's
 * PF2 font by tools/build/mkfont into build/gen/font8x16.c. */
extern const uint8_t fbcon_font8x16[95][16];

/* Takes over fb (type 1 RGB, 16/24/32 bpp, pitch >= width * bytes) whose
 * pixels are already mapped at pixels, clears it to black and puts the
 * cursor top left in white on black. Returns false and changes nothing
 * (pixels and any earlier console included) for anything else. */
bool fbcon_init(const struct framebuffer *fb, uint8_t *pixels);

/* '\n' next line, '\r' column 0, '\t' spaces to the next multiple of 8;
 * ASCII 32..126 drawn from the font, any other byte as a box. Wraps at the
 * right edge and scrolls one line at the bottom. */
void fbcon_putc(char c);

/* Colours as 0xRRGGBB for the characters drawn from now on. */
void fbcon_set_color(uint32_t fg_rgb, uint32_t bg_rgb);

uint32_t fbcon_columns(void);
uint32_t fbcon_rows(void);
uint32_t fbcon_width(void);  /* pixels */
uint32_t fbcon_height(void);

/* fbcon_putc's lines stay in rows [top, bottom): scrolling moves only
 * those, and a cursor outside moves to the start of top. An empty or
 * out-of-range region means the whole screen (the default). */
void fbcon_set_scroll_rows(uint32_t top, uint32_t bottom);

/* A character at a cell in the current colours, as fbcon_putc draws it;
 * the cursor does not move. Outside the screen: nothing. */
void fbcon_put_at(uint32_t col, uint32_t row, char c);

/* Rows [top, bottom) blank in the current colours. */
void fbcon_clear_rows(uint32_t top, uint32_t bottom);

/* A rectangle of pixels in one colour (0xRRGGBB), clipped to the screen.
 * The text of the cells it covers is forgotten: fbcon_put_at and
 * scrolling draw them again. */
void fbcon_fill_rect(uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint32_t rgb);

#endif
