/* SPDX-License-Identifier: MIT */
/* Kernel console: every line goes to the serial port and to the screen
 * (VGA text or framebuffer, kernel/screen.h) unless a caller restricts
 * it; machine records (lines starting with '@') never go to the screen. */
#ifndef APSTART_CONSOLE_H
#define APSTART_CONSOLE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/multiboot.h"

#define CON_SERIAL 1u
#define CON_SCREEN 2u
#define CON_ALL    (CON_SERIAL | CON_SCREEN)

void console_init_serial(void);
/* Move the serial console to the UART at I/O base (console=ttyS<n>);
 * false, and the old port kept, if none answers there. */
bool console_switch_serial(uint16_t base, uint32_t baud);
/* Picks VGA text or the framebuffer from what the loader handed over. */
void console_init_screen(const struct boot_info *bi);
const char *console_screen_kind(void);   /* "vga-text", "framebuffer", "none" */

/* A printed line longer than this is cut, its end marked "...\n". */
#define CONSOLE_LINE_MAX 512
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cprintf(unsigned targets, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Everything printed is also handed to the sink, if one is set, with the
 * targets it went to, under the console lock and in print order (the
 * application keeps its summary this way: app/summary_save.c). */
void console_set_sink(void (*sink)(unsigned targets, const char *text));

/* Every byte sent to the serial port, exactly as sent (CR LF line ends),
 * is also handed to the mirror once one is set, under the console lock
 * (kernel/pstore.h keeps them in RAM for the next boot). Until then the
 * console keeps the first CONSOLE_EARLY_MAX bytes, and a mirror set gets
 * those first: it starts with the run's first line. console_early_end()
 * stops the keeping once it is known that no mirror will come. */
#define CONSOLE_EARLY_MAX 8192
void console_set_serial_mirror(void (*mirror)(const char *bytes, uint32_t n));
void console_early_end(void);

/* The lock every print takes (kernel/screen.h takes it too). Returns
 * false when this CPU already holds it (an exception while printing):
 * pass the result to console_unlock. */
bool console_lock(void);
void console_unlock(bool taken);

/* Console lock owner is tracked by APIC ID so that an exception taken
 * while printing can still print (it takes the lock over). */
void console_set_self_id(uint32_t (*self_id)(void));

#endif
