/* SPDX-License-Identifier: MIT */
/* VGA text mode console (80x25 at 0xB8000 in BIOS text mode). */
#ifndef APSTART_VGA_TEXT_H
#define APSTART_VGA_TEXT_H

#include <stdbool.h>
#include <stdint.h>

/* Attribute bytes: background << 4 | foreground, CGA colours (IBM VGA
 * Technical Reference, attribute byte); bit 7 blinks, so backgrounds
 * stay below 8. */
#define VGA_ATTR_NORMAL 0x07 /* light grey on black */
#define VGA_ATTR_BRIGHT 0x0F /* white */
#define VGA_ATTR_DIM    0x08 /* dark grey */
#define VGA_ATTR_GOOD   0x0A /* light green */
#define VGA_ATTR_WARN   0x0E /* yellow */
#define VGA_ATTR_BAD    0x0C /* light red */
#define VGA_ATTR_BAR    0x1F /* white on blue */

void vga_text_init(uint64_t phys, uint32_t columns, uint32_t rows);
uint32_t vga_text_columns(void); /* 0 before init */
uint32_t vga_text_rows(void);
/* The BIOS's 80x25 colour text mode at 0xB8000, whose registers are the
 * standard VGA's (wings/screen/vga_gfx.h may switch it to graphics). */
bool vga_text_is_standard(void);

/* Streamed text: '\n', '\r', '\t', wraps at the right edge, scrolls
 * within rows [top, bottom) (default: all), in the current attribute. */
void vga_text_putc(char c);
void vga_text_set_attr(uint8_t attr);
/* An empty or out-of-range band means the whole screen; a cursor outside
 * the band moves to its first row. */
void vga_text_set_scroll_rows(uint32_t top, uint32_t bottom);

/* One cell, in place; outside the screen nothing. put_at shows bytes
 * outside ASCII 32..126 as '?', put_raw any code page 437 byte. */
void vga_text_put_at(uint32_t col, uint32_t row, char c, uint8_t attr);
void vga_text_put_raw(uint32_t col, uint32_t row, uint8_t code, uint8_t attr);
void vga_text_clear_rows(uint32_t top, uint32_t bottom);

#endif
