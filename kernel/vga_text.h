/* SPDX-License-Identifier: MIT */
/* VGA text mode console (80x25 at 0xB8000 in BIOS text mode). */
#ifndef APSTART_VGA_TEXT_H
#define APSTART_VGA_TEXT_H

#include <stdint.h>

void vga_text_init(uint64_t phys, uint32_t columns, uint32_t rows);
void vga_text_putc(char c);

#endif
