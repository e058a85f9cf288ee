/* SPDX-License-Identifier: MIT */
/* Kernel console: every line goes to the serial port and, where a wing
 * drives one, to the screen, unless a caller restricts it; machine
 * records (lines starting with '@') never go to the screen. */
#ifndef APSTART_CONSOLE_H
#define APSTART_CONSOLE_H

#include <stdbool.h>
#include <stdint.h>

#define CON_SERIAL 1u
#define CON_SCREEN 2u
#define CON_ALL    (CON_SERIAL | CON_SCREEN)

void console_init_serial(void);
/* Move the serial console to the UART at I/O base (console=ttyS<n>);
 * false, and the old port kept, if none answers there. */
bool console_switch_serial(uint16_t base, uint32_t baud);
/* The screen's writer, set by the wing that drives one (wings/screen/):
 * text printed for CON_SCREEN is handed to it, records and all (it leaves
 * out the record lines itself). kind names it for the records. */
void console_set_screen(const char *kind, void (*write_locked)(const char *text));
const char *console_screen_kind(void);   /* "vga-text", "framebuffer", "none" */

/* A printed line longer than this is cut, its end marked "...\n". */
#define CONSOLE_LINE_MAX 512
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cprintf(unsigned targets, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Everything printed is also handed to each tap, with the targets it went
 * to, under the console lock and in print order: the run's records are
 * kept this way (app/kept_lines.c). False when all TAPS_MAX are taken. */
bool console_add_tap(void (*tap)(unsigned targets, const char *text));

/* Every byte sent to the serial port, exactly as sent (CR LF line ends),
 * is also handed to the mirror once one is set, under the console lock
 * (wings/pstore/pstore.h keeps them in RAM for the next boot). Until then the
 * console keeps the first CONSOLE_EARLY_MAX bytes, and a mirror set gets
 * those first: it starts with the run's first line. console_early_end()
 * stops the keeping once it is known that no mirror will come. */
#define CONSOLE_EARLY_MAX 8192
void console_set_serial_mirror(void (*mirror)(const char *bytes, uint32_t n));
void console_early_end(void);

/* The lock every print takes (wings/screen/screen.h takes it too). Returns
 * false when this CPU already holds it (an exception while printing):
 * pass the result to console_unlock. */
bool console_lock(void);
void console_unlock(bool taken);

/* Console lock owner is tracked by APIC ID so that an exception taken
 * while printing can still print (it takes the lock over). */
void console_set_self_id(uint32_t (*self_id)(void));

#endif
