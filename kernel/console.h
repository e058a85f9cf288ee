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
/* console=ttyS<n>,<baud>: the serial console moves to Linux's fixed
 * address for ttyS<n> (UEFI machines often leave the BIOS data area's
 * COM<n+1> empty; on a BIOS boot a different one is said), said on the
 * old port first. If no UART answers there, ttyS0 at 115200 stays. */
void console_use_ttyS(uint32_t n, uint32_t baud, bool bios);
/* What the console hands up, set once at boot by app/wing.c from the
 * wings' hook points (app/wing.h says what each gets). Any may be NULL. */
struct console_hooks {
	void (*screen)(const char *text);
	const char *(*screen_kind)(void);
	void (*tap)(unsigned targets, const char *text);
};
void console_set_hooks(const struct console_hooks *h);
const char *console_screen_kind(void);   /* "vga-text", "framebuffer", "none" */

/* A printed line longer than this is cut, its end marked "...\n". */
#define CONSOLE_LINE_MAX 512
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cprintf(unsigned targets, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The lock every print takes (wings/screen/screen.h takes it too). Returns
 * false when this CPU already holds it (an exception while printing):
 * pass the result to console_unlock. */
bool console_lock(void);
void console_unlock(bool taken);

/* Console lock owner is tracked by APIC ID so that an exception taken
 * while printing can still print (it takes the lock over). */
void console_set_self_id(uint32_t (*self_id)(void));

#endif
