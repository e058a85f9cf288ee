/* SPDX-License-Identifier: MIT */
/* The screen, whichever the loader left: VGA text or a framebuffer.
 * Printed text streams into a band of rows (kernel/console.h); the rows
 * around it are written in place (a header, a status line, a result
 * page); and a picture page shows pixels (framebuffer, or the VGA
 * switched to graphics). Text positions are in character cells. Every
 * function takes the console lock and does nothing without a screen. */
#ifndef APSTART_SCREEN_H
#define APSTART_SCREEN_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/multiboot.h"

enum screen_style {
	SCREEN_NORMAL, /* light grey on black, as printed text */
	SCREEN_BRIGHT, /* white */
	SCREEN_DIM,    /* dark grey */
	SCREEN_GOOD,   /* green */
	SCREEN_WARN,   /* yellow */
	SCREEN_BAD,    /* red */
	SCREEN_BAR,    /* white on blue: the header */
};

void screen_init(const struct boot_info *bi);
const char *screen_kind(void); /* "vga-text", "framebuffer", "none" */

/* Printed text (console.c calls it with the console lock held). */
void screen_stream_locked(const char *s);

uint32_t screen_columns(void); /* 0: no screen */
uint32_t screen_rows(void);
/* Printed text stays in rows [top, bottom); see vga_text/fbcon. */
void screen_set_scroll_rows(uint32_t top, uint32_t bottom);
/* Text at a cell, cut at the right edge; no wrapping, the cursor of
 * printed text does not move. Bytes outside ASCII show as '?'. */
void screen_text(uint32_t col, uint32_t row, enum screen_style st, const char *s);
/* n cells from (col, row) blank in a style (n = 0: to the right edge). */
void screen_blank(uint32_t col, uint32_t row, uint32_t n, enum screen_style st);
void screen_clear_rows(uint32_t top, uint32_t bottom);

/* The picture page: the screen cleared to black, *w x *h pixels to draw
 * in; screen_text still works there (white on black on the VGA, whose
 * grid is then 80x30). False if this screen cannot show pixels. */
bool screen_picture_begin(uint32_t *w, uint32_t *h);
void screen_picture_rect(uint32_t x, uint32_t y, uint32_t w, uint32_t h, bool light);
/* Back to text: the screen is blank, everything must be redrawn. */
void screen_picture_end(void);

#endif
