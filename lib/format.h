/* SPDX-License-Identifier: MIT */
/* Freestanding formatted output into a buffer (kernel and host tests).
 * Supports %d %i %u %x %X %c %s %p %% with flags '-', '0', width, precision
 * (strings only) and the length modifiers l, ll, z. */
#ifndef APSTART_FORMAT_H
#define APSTART_FORMAT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Like vsnprintf: always NUL-terminates when size > 0, returns the length
 * the full output would have had. */
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A duration people read, in the unit that fits: "850 ns", "171.3 us",
 * "1.96 ms", "65.83 s" (the reference measurement's form), rounded, never
 * "0.00" of a larger unit. */
void fmt_duration(char *buf, size_t size, uint64_t ns);

/* s made printable for an echo in quotes: a byte below 0x20, 0x7f or
 * above as \xHH, a backslash as \\, a double quote as \"; cut, at a
 * whole character, to fit size (always NUL-terminated when size > 0). */
void fmt_escape(char *out, size_t size, const char *s);

/* Callback used by the parsers to report a problem in their input. */
typedef void (*diag_fn)(void *ctx, const char *msg);

/* Format a message (at most 159 characters) and hand it to diag; nothing
 * happens when diag is NULL. */
void diag_vprintf(diag_fn diag, void *ctx, const char *fmt, va_list ap);
void diag_printf(diag_fn diag, void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
