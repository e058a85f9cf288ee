/* SPDX-License-Identifier: MIT */
#include "kernel/warn.h"

#include <stdarg.h>

#include "kernel/console.h"
#include "lib/format.h"

static volatile uint32_t warnings;

void warn_record(const char *fmt, ...)
{
	char rec[200];
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(rec, sizeof rec, fmt, ap);
	va_end(ap);
	__atomic_add_fetch(&warnings, 1, __ATOMIC_RELAXED);
	cprintf(CON_SERIAL, "@warn %s\n", rec);
}

uint32_t warn_count(void)
{
	return __atomic_load_n(&warnings, __ATOMIC_RELAXED);
}
