/* SPDX-License-Identifier: MIT */
/* Text-mode screen: character + attribute cells. Streamed text scrolls
 * within a band of rows; other rows are written in place. */
#include "wings/screen/vga_text.h"

#include <stdbool.h>

#include "kernel/x86.h"

#define VGA_TEXT_PHYS 0xB8000
/* CRT controller (IBM VGA Technical Reference, CRTC registers): index
 * 0x0A is Cursor Start, whose bit 5 turns the cursor off. */
#define CRTC_INDEX 0x3D4
#define CRTC_DATA 0x3D5
#define CRTC_CURSOR_START 0x0A
#define CURSOR_OFF 0x20

static volatile uint16_t *cells;
static uint32_t cols, rows, col, row;
static uint32_t top, bottom; /* streamed rows: [top, bottom) */
static uint8_t attr = VGA_ATTR_NORMAL;

static uint16_t cell(char c, uint8_t a)
{
	uint8_t ch = (uint8_t)c;
	if (ch < 0x20 || ch > 0x7E)
		ch = '?';
	return (uint16_t)(a << 8 | ch);
}

void vga_text_init(uint64_t phys, uint32_t columns, uint32_t nrows)
{
	cells = (volatile uint16_t *)(uintptr_t)phys;
	cols = columns;
	rows = nrows;
	col = row = 0;
	top = 0;
	bottom = rows;
	attr = VGA_ATTR_NORMAL;
	for (uint32_t i = 0; i < cols * rows; i++)
		cells[i] = cell(' ', attr);
	/* A blinking cursor where the loader left it would sit in the
	 * middle of the result screen. Only the standard VGA has it at
	 * these ports. */
	if (phys == VGA_TEXT_PHYS) {
		outb(CRTC_INDEX, CRTC_CURSOR_START);
		outb(CRTC_DATA, inb(CRTC_DATA) | CURSOR_OFF);
	}
}

uint32_t vga_text_columns(void)
{
	return cells ? cols : 0;
}

uint32_t vga_text_rows(void)
{
	return cells ? rows : 0;
}

bool vga_text_is_standard(void)
{
	return cells == (volatile uint16_t *)(uintptr_t)VGA_TEXT_PHYS && cols == 80 &&
	       rows == 25;
}

static void scroll(void)
{
	for (uint32_t i = top * cols; i < cols * (bottom - 1); i++)
		cells[i] = cells[i + cols];
	for (uint32_t i = cols * (bottom - 1); i < cols * bottom; i++)
		cells[i] = cell(' ', attr);
	row = bottom - 1;
}

static void newline(void)
{
	col = 0;
	if (++row >= bottom)
		scroll();
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
		newline();
		return;
	}
	if (c == '\t') {
		do
			vga_text_putc(' ');
		while (col % 8);
		return;
	}
	cells[row * cols + col] = cell(c, attr);
	if (++col == cols)
		newline();
}

void vga_text_set_attr(uint8_t a)
{
	attr = a;
}

void vga_text_set_scroll_rows(uint32_t t, uint32_t b)
{
	if (!cells)
		return;
	if (b > rows)
		b = rows;
	if (t >= b) {
		t = 0;
		b = rows;
	}
	top = t;
	bottom = b;
	if (row < top || row >= bottom) {
		row = top;
		col = 0;
	}
}

void vga_text_put_at(uint32_t x, uint32_t y, char c, uint8_t a)
{
	if (cells && x < cols && y < rows)
		cells[y * cols + x] = cell(c, a);
}

void vga_text_put_raw(uint32_t x, uint32_t y, uint8_t code, uint8_t a)
{
	if (cells && x < cols && y < rows)
		cells[y * cols + x] = (uint16_t)(a << 8 | code);
}

void vga_text_clear_rows(uint32_t t, uint32_t b)
{
	if (!cells)
		return;
	if (b > rows)
		b = rows;
	for (uint32_t i = t * cols; i < b * cols; i++)
		cells[i] = cell(' ', attr);
}
