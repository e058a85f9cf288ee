/* SPDX-License-Identifier: MIT */
/* Text-mode screen: character + attribute cells, scrolled in place. */
#include "kernel/vga_text.h"

#include <stdbool.h>

#define ATTR_LIGHT_GREY 0x07

static volatile uint16_t *cells;
static uint32_t cols, rows, col, row;

void vga_text_init(uint64_t phys, uint32_t columns, uint32_t nrows)
{
	cells = (volatile uint16_t *)(uintptr_t)phys;
	cols = columns;
	rows = nrows;
	col = row = 0;
	for (uint32_t i = 0; i < cols * rows; i++)
		cells[i] = (uint16_t)(ATTR_LIGHT_GREY << 8 | ' ');
}

static void scroll(void)
{
	for (uint32_t i = 0; i < cols * (rows - 1); i++)
		cells[i] = cells[i + cols];
	for (uint32_t i = cols * (rows - 1); i < cols * rows; i++)
		cells[i] = (uint16_t)(ATTR_LIGHT_GREY << 8 | ' ');
	row = rows - 1;
}

void vga_text_putc(char c)
{
	if (!cells)
		return;
	if (c == '\r') {
		col = 0;
		return;
	}
	if (c == '\n') {
		col = 0;
		if (++row == rows)
			scroll();
		return;
	}
	if (c == '\t') {
		do
			vga_text_putc(' ');
		while (col % 8);
		return;
	}
	uint8_t ch = (uint8_t)c;
	if (ch < 0x20 || ch > 0x7E)
		ch = '?';
	cells[row * cols + col] = (uint16_t)(ATTR_LIGHT_GREY << 8 | ch);
	if (++col == cols) {
		col = 0;
		if (++row == rows)
			scroll();
	}
}
