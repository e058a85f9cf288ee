/* SPDX-License-Identifier: MIT */
/* The standard VGA's 640x480 16-colour graphics mode (the BIOS's mode
 * 12h), entered from the BIOS's text mode and left back to it by
 * programming the registers directly: long mode has no BIOS to call.
 * Drawn in two colours, black and white. For pictures that text cells
 * cannot show, e.g. a QR code with square modules. */
#ifndef APSTART_VGA_GFX_H
#define APSTART_VGA_GFX_H

#include <stdbool.h>
#include <stdint.h>

#define VGA_GFX_WIDTH 640
#define VGA_GFX_HEIGHT 480

/* Saves the text mode's registers, palette and font, switches to
 * graphics and clears the screen to black. False (nothing changed) if
 * the registers do not answer like a VGA's. */
bool vga_gfx_enter(void);
/* Back to the saved text mode, font and palette; the text cells are
 * garbage (graphics used their planes): redraw them. */
void vga_gfx_leave(void);
bool vga_gfx_active(void);

/* Pixels [x, x + w) x [y, y + h), clipped, white or black. */
void vga_gfx_fill(uint32_t x, uint32_t y, uint32_t w, uint32_t h, bool white);
/* A character of the 8x16 console font (wings/screen/fbcon.h), white on black,
 * at text cell (col, row) of the 80x30 grid. */
void vga_gfx_char(uint32_t col, uint32_t row, char c);

#endif
