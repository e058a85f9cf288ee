/* SPDX-License-Identifier: MIT */
/* pstore=ADDR,SIZE parsed (wings/pstore/pstore_option.h). */
#include "wings/pstore/pstore_option.h"

#include <stdbool.h>
#include <stddef.h>

#include "lib/format.h"

struct pstore_options pstore_options;

/* A size or address of pstore=: decimal or 0x hex, then K, M or G (KiB,
 * MiB, GiB). Linux's memparse() would read a leading 0 as octal: refused
 * rather than read another way. */
static const char *parse_quantity(const char *v, size_t n, uint64_t *out)
{
	unsigned base = 10, shift = 0;
	uint64_t x = 0;

	if (n && (v[n - 1] == 'K' || v[n - 1] == 'k'))
		shift = 10;
	else if (n && (v[n - 1] == 'M' || v[n - 1] == 'm'))
		shift = 20;
	else if (n && (v[n - 1] == 'G' || v[n - 1] == 'g'))
		shift = 30;
	if (shift)
		n--;
	if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		base = 16;
		v += 2;
		n -= 2;
	} else if (n > 1 && v[0] == '0') {
		return "a leading 0 (octal to Linux's memparse): write 0x...";
	}
	if (n == 0)
		return "ADDR,SIZE: numbers, decimal or 0x hex, K/M/G allowed";
	for (size_t i = 0; i < n; i++) {
		int d = option_hex_digit(v[i]);
		if (d < 0 || (unsigned)d >= base)
			return "ADDR,SIZE: numbers, decimal or 0x hex, K/M/G allowed";
		if (x > (UINT64_MAX - (unsigned)d) / base)
			return "a number beyond 64 bits";
		x = x * base + (unsigned)d;
	}
	if (shift && x > UINT64_MAX >> shift)
		return "a number beyond 64 bits";
	*out = x << shift;
	return NULL;
}

static const char *parse_pstore(void *store, const char *v, size_t n)
{
	struct pstore_options *o = store;
	size_t comma = 0;
	uint64_t addr, size;
	const char *why;

	while (comma < n && v[comma] != ',')
		comma++;
	if (comma == n)
		return "ADDR,SIZE wanted (e.g. 0x30000000,512K)";
	if ((why = parse_quantity(v, comma, &addr)) ||
	    (why = parse_quantity(v + comma + 1, n - comma - 1, &size)))
		return why;
	if (size < PSTORE_SIZE_MIN || size > PSTORE_SIZE_MAX || (size & (size - 1)))
		return "SIZE must be a power of two from 4K to 1G (ramoops' console_size)";
	if (addr % 4)
		return "ADDR must be a multiple of 4";
	if (addr > UINT64_MAX - size)
		return "ADDR+SIZE beyond 64 bits";
	o->pstore.addr = addr;
	o->pstore.size = size;
	return NULL;
}

static void show_pstore(const void *store, char *buf, size_t size)
{
	const struct pstore_options *o = store;

	if (o->pstore.size)
		fmt_snprintf(buf, size, "0x%llx,%lluK", (unsigned long long)o->pstore.addr,
			     (unsigned long long)(o->pstore.size >> 10));
	else
		fmt_snprintf(buf, size, "none");
}

const struct option_row pstore_option_rows[1] = {
	OPTION_WIDE(struct pstore_options, pstore, parse_pstore, show_pstore),
};
