/* SPDX-License-Identifier: MIT */
/* Console fan-out and locking. Output is formatted into a line buffer
 * first, so a record line is never interleaved with another CPU's.
 * Machine records (lines that start with '@') go to serial only: the
 * screen is for people (kernel/screen.h). */
#include "kernel/console.h"

#include <stdarg.h>
#include <stdbool.h>

#include "kernel/cpu.h"
#include "kernel/screen.h"
#include "kernel/serial.h"
#include "kernel/x86.h"
#include "lib/format.h"

#define NO_OWNER APIC_ID_NONE /* lock owners are APIC IDs */

static volatile uint32_t lock_owner = NO_OWNER;
static uint32_t (*self_id_fn)(void);
static void (*sink)(unsigned targets, const char *text);
static void (*mirror)(const char *bytes, uint32_t n);
/* The serial bytes sent before a mirror is set (console.h). */
static char early[CONSOLE_EARLY_MAX];
static uint32_t early_len;
static bool early_on = true;
/* Screen side: at the start of a line, and inside a record line. */
static bool screen_at_line_start = true, screen_in_record;

void console_set_sink(void (*fn)(unsigned targets, const char *text))
{
	sink = fn;
}

void console_set_serial_mirror(void (*fn)(const char *bytes, uint32_t n))
{
	bool taken = console_lock();
	if (early_on && early_len)
		fn(early, early_len);
	early_on = false;
	mirror = fn;
	console_unlock(taken);
}

void console_early_end(void)
{
	early_on = false;
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
	screen_init(bi);
}

const char *console_screen_kind(void)
{
	return screen_kind();
}

bool console_lock(void)
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

void console_unlock(bool taken)
{
	if (taken)
		__atomic_store_n(&lock_owner, NO_OWNER, __ATOMIC_RELEASE);
}

/* The part of s that goes to the screen: everything but record lines,
 * which may arrive in pieces. */
static void emit_screen(const char *s)
{
	char part[CONSOLE_LINE_MAX];
	uint32_t n = 0;

	for (; *s; s++) {
		if (screen_at_line_start)
			screen_in_record = *s == '@';
		screen_at_line_start = *s == '\n';
		if (!screen_in_record && n < sizeof part - 1)
			part[n++] = *s;
	}
	part[n] = '\0';
	if (n)
		screen_stream_locked(part);
}

static void mirror_bytes(const char *b, uint32_t n)
{
	if (mirror)
		mirror(b, n);
	else if (early_on)
		for (uint32_t i = 0; i < n && early_len < CONSOLE_EARLY_MAX; i++)
			early[early_len++] = b[i];
}

/* The serial side: LF goes out as CR LF; what went out is mirrored, in
 * pieces (small: this may run on an AP's stack, inside an exception). */
static void emit_serial(const char *s)
{
	char sent[128];
	uint32_t n = 0;

	for (const char *p = s; *p; p++) {
		if (n + 2 > sizeof sent) {
			mirror_bytes(sent, n);
			n = 0;
		}
		if (*p == '\n') {
			serial_putc('\r');
			sent[n++] = '\r';
		}
		serial_putc(*p);
		sent[n++] = *p;
	}
	mirror_bytes(sent, n);
}

static void emit(unsigned targets, const char *s)
{
	if (targets & CON_SERIAL)
		emit_serial(s);
	if (targets & CON_SCREEN)
		emit_screen(s);
}

static void vcprintf(unsigned targets, const char *fmt, va_list ap)
{
	char line[CONSOLE_LINE_MAX];

	int n = fmt_vsnprintf(line, sizeof line, fmt, ap);
	/* Cut short: mark it and keep the line's end, so that the next line
	 * (often a record a parser waits for) starts on a line of its own. */
	if (n >= CONSOLE_LINE_MAX) {
		char *end = line + CONSOLE_LINE_MAX - 5;
		*end++ = '.';
		*end++ = '.';
		*end++ = '.';
		*end++ = '\n';
		*end = '\0';
	}
	bool taken = console_lock();
	emit(targets, line);
	if (sink)
		sink(targets, line);
	console_unlock(taken);
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
