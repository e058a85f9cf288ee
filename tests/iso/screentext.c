/* SPDX-License-Identifier: MIT */
/* screentext: the text on a screenshot (binary PPM), cell by cell.
 *
 *   screentext [--vga-font ROM] FILE.ppm
 *
 * A 720x400 image is VGA text mode as QEMU draws it: 80x25 cells of 9x16
 * pixels, glyphs from the VGA BIOS's 8x16 font (--vga-font, default
 * /usr/share/seabios/vgabios-stdvga.bin), the 9th column left out. Any
 * other size is read as the kernel draws on a framebuffer or in VGA
 * graphics: 8x16 cells in its own font (wings/screen/fbcon.h). In each cell the
 * top-left pixel's colour is the background and every other colour ink;
 * the ink must match a glyph exactly. Prints one line per cell row,
 * trailing blanks removed: printable ASCII, ' ' for an empty cell, '#'
 * for a cell that is no character (a picture). Exit status 0, or 2 for
 * an unreadable file or bad usage. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "wings/screen/fbcon.h"
#include "tests/iso/ppm.h"
#include "tests/iso/vgafont.h"

static const uint8_t *glyph_of(const uint8_t *vga, int code)
{
	return vga ? vga + code * 16 : fbcon_font8x16[code - 32];
}

static char read_cell(const struct ppm *img, const uint8_t *vga, unsigned cw, unsigned x0,
		      unsigned y0)
{
	uint8_t bits[16];
	uint32_t bg = img->rgb[(size_t)y0 * img->w + x0];
	bool any = false;

	for (unsigned y = 0; y < 16; y++) {
		bits[y] = 0;
		for (unsigned x = 0; x < 8; x++)
			if (img->rgb[(size_t)(y0 + y) * img->w + x0 + x] != bg)
				bits[y] |= (uint8_t)(0x80u >> x);
		any |= bits[y] != 0;
	}
	(void)cw;
	if (!any)
		return ' ';
	for (int code = 33; code <= 126; code++)
		if (!memcmp(bits, glyph_of(vga, code), 16))
			return (char)code;
	return '#';
}

int main(int argc, char **argv)
{
	const char *rom = "/usr/share/seabios/vgabios-stdvga.bin", *file = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--vga-font") && i + 1 < argc)
			rom = argv[++i];
		else if (argv[i][0] == '-' || file) {
			fprintf(stderr, "usage: screentext [--vga-font ROM] FILE.ppm\n");
			return 2;
		} else
			file = argv[i];
	}
	if (!file) {
		fprintf(stderr, "usage: screentext [--vga-font ROM] FILE.ppm\n");
		return 2;
	}
	struct ppm img;
	const char *why = ppm_read(file, &img);
	if (why) {
		fprintf(stderr, "screentext: %s: %s\n", file, why);
		return 2;
	}
	const uint8_t *vga = NULL;
	unsigned cw = 8;
	if (img.w == 720 && img.h == 400) {
		vga = vga_rom_font(rom, &why);
		if (!vga) {
			fprintf(stderr, "screentext: %s: %s\n", rom, why);
			ppm_free(&img);
			return 2;
		}
		cw = 9;
	}
	char line[PPM_MAX_SIDE / 8 + 1];
	for (unsigned row = 0; (row + 1) * 16 <= img.h; row++) {
		unsigned n = 0;
		for (unsigned col = 0; (col + 1) * cw <= img.w; col++)
			line[n++] = read_cell(&img, vga, cw, col * cw, row * 16);
		while (n && line[n - 1] == ' ')
			n--;
		line[n] = '\0';
		puts(line);
	}
	ppm_free(&img);
	return 0;
}
