/* SPDX-License-Identifier: MIT */
/* Console fan-out and locking. Output is formatted into a line buffer
 * first, so a record line is never interleaved with another CPU's. */
#include "kernel/console.h"

#include <stdarg.h>
#include <stdbool.h>

#include "kernel/cpu.h"
#include "kernel/fbcon.h"
#include "kernel/format.h"
#include "kernel/paging.h"
#include "kernel/serial.h"
#include "kernel/vga_text.h"
#include "kernel/x86.h"

#define NO_OWNER APIC_ID_NONE /* lock owners are APIC IDs */
#define LINE_MAX 512

enum screen { SCREEN_NONE, SCREEN_VGA_TEXT, SCREEN_FB };

static enum screen screen;
static volatile uint32_t lock_owner = NO_OWNER;
static uint32_t (*self_id_fn)(void);
static void (*sink)(unsigned targets, const char *text);

void console_set_sink(void (*fn)(unsigned targets, const char *text))
{
	sink = fn;
}

void console_set_self_id(uint32_t (*fn)(void))
{
	self_id_fn = fn;
}

void console_init_serial(void)
{
	serial_init();
}

bool console_switch_serial(uint16_t base, uint32_t baud)
{
	return serial_init_port(base, baud);
}

void console_init_screen(const struct boot_info *bi)
{
	const struct framebuffer *fb = &bi->fb;

	if (fb->present && fb->type == 2) {
		vga_text_init(fb->addr, fb->width, fb->height);
		screen = SCREEN_VGA_TEXT;
	} else if (fb->present && fb->type == 1) {
		uint64_t bytes = (uint64_t)fb->pitch * fb->height;
		/* UC-, never WB: see cache_bits() in kernel/paging.c. */
		uint8_t *pixels = paging_map_phys(fb->addr, bytes, MAP_UC_MINUS);
		if (pixels && fbcon_init(fb, pixels))
			screen = SCREEN_FB;
	} else if (!fb->present && bi->firmware == FIRMWARE_BIOS) {
		/* No framebuffer tag on a BIOS boot: the loader left the
		 * standard 80x25 text mode (QEMU -kernel, Multiboot1). */
		vga_text_init(0xB8000, 80, 25);
		screen = SCREEN_VGA_TEXT;
	}
}

const char *console_screen_kind(void)
{
	switch (screen) {
	case SCREEN_VGA_TEXT: return "vga-text";
	case SCREEN_FB: return "framebuffer";
	default: return "none";
	}
}

static bool lock(void)
{
	uint32_t self = self_id_fn ? self_id_fn() : 0;

	if (lock_owner == self)
		return false; /* re-entered (exception while printing) */
	/* Bounded: if the owner died holding the lock, take it over. */
	for (uint64_t spins = 0; spins < 100000000; spins++) {
		uint32_t expected = NO_OWNER;
		if (__atomic_compare_exchange_n(&lock_owner, &expected, self, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
		cpu_relax();
	}
	__atomic_store_n(&lock_owner, self, __ATOMIC_SEQ_CST);
	return true;
}

static void unlock(bool taken)
{
	if (taken)
		__atomic_store_n(&lock_owner, NO_OWNER, __ATOMIC_RELEASE);
}

static void emit(unsigned targets, const char *s)
{
	for (; *s; s++) {
		if (targets & CON_SERIAL) {
			if (*s == '\n')
				serial_putc('\r');
			serial_putc(*s);
		}
		if (targets & CON_SCREEN) {
			if (screen == SCREEN_VGA_TEXT)
				vga_text_putc(*s);
			else if (screen == SCREEN_FB)
				fbcon_putc(*s);
		}
	}
}

static void vcprintf(unsigned targets, const char *fmt, va_list ap)
{
	char line[LINE_MAX];

	int n = fmt_vsnprintf(line, sizeof line, fmt, ap);
	/* Cut short: mark it and keep the line's end, so that the next line
	 * (often a record a parser waits for) starts on a line of its own. */
	if (n >= LINE_MAX) {
		char *end = line + LINE_MAX - 5;
		*end++ = '.';
		*end++ = '.';
		*end++ = '.';
		*end++ = '\n';
		*end = '\0';
	}
	bool taken = lock();
	emit(targets, line);
	if (sink)
		sink(targets, line);
	unlock(taken);
}

void cprintf(unsigned targets, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vcprintf(targets, fmt, ap);
	va_end(ap);
}

void kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vcprintf(CON_ALL, fmt, ap);
	va_end(ap);
}
