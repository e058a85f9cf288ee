/* SPDX-License-Identifier: MIT */
/* The 8x16 font of a VGA BIOS image (SeaBIOS's vgabios-stdvga.bin, what
 * QEMU's VGA draws text mode with): tests/qr/qrtool.c draws with it,
 * tests/iso/screentext.c reads screenshots with it. */
#ifndef TESTS_ISO_VGAFONT_H
#define TESTS_ISO_VGAFONT_H

#include <stdint.h>

/* 256 glyphs of 16 bytes (MSB = leftmost dot), or NULL and *why. */
const uint8_t *vga_rom_font(const char *path, const char **why);

#endif
