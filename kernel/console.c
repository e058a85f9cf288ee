/* SPDX-License-Identifier: MIT */
/* Console fan-out and locking. Output is formatted into a line buffer
 * first, so a record line is never interleaved with another CPU's.
 * Machine records (lines that start with '@') go to serial only: the
 * screen is for people (its writer leaves them out). */
#include "kernel/console.h"

#include <stdarg.h>
#include <stdbool.h>

#include "kernel/apic_id.h"
#include "kernel/serial.h"
#include "kernel/x86.h"
#include "lib/format.h"

#define NO_OWNER APIC_ID_NONE /* lock owners are APIC IDs */

static volatile uint32_t lock_owner = NO_OWNER;
static uint32_t (*self_id_fn)(void);
static struct console_hooks hooks;

void console_set_hooks(const struct console_hooks *h)
{
	hooks = *h;
}

const char *console_screen_kind(void)
{
	return hooks.screen_kind ? hooks.screen_kind() : "none";
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

/* The serial side: LF goes out as CR LF. */
static void emit_serial(const char *s)
{
	for (const char *p = s; *p; p++) {
		if (*p == '\n')
			serial_putc('\r');
		serial_putc(*p);
	}
}

static void emit(unsigned targets, const char *s)
{
	if (targets & CON_SERIAL)
		emit_serial(s);
	if ((targets & CON_SCREEN) && hooks.screen)
		hooks.screen(s);
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
	if (hooks.tap)
		hooks.tap(targets, line);
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
