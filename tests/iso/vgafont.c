/* SPDX-License-Identifier: MIT */
#include "tests/iso/vgafont.h"

#include <stdio.h>
#include <string.h>

/* Found by glyph 0 (blank) followed by glyph 1 (the smiley face). */
const uint8_t *vga_rom_font(const char *path, const char **why)
{
	static const uint8_t smiley[16] = { 0, 0, 0x7e, 0x81, 0xa5, 0x81, 0x81, 0xbd,
					    0x99, 0x81, 0x81, 0x7e, 0, 0, 0, 0 };
	static uint8_t rom[1 << 20];
	static const uint8_t blank[16];
	FILE *f = fopen(path, "rb");

	if (!f) {
		*why = "cannot open the font ROM";
		return NULL;
	}
	size_t n = fread(rom, 1, sizeof rom, f);
	fclose(f);
	for (size_t i = 16; i + 256 * 16 <= n + 16; i++)
		if (!memcmp(rom + i, smiley, 16) && !memcmp(rom + i - 16, blank, 16) &&
		    i - 16 + 256 * 16 <= n)
			return rom + i - 16;
	*why = "no 8x16 font in the ROM";
	return NULL;
}
