/* SPDX-License-Identifier: MIT */
/* Minimal vsnprintf: enough for the kernel's diagnostics and records. */
#include "lib/format.h"

#include <stdbool.h>
#include <stdint.h>

struct out {
	char *buf;
	size_t size;
	size_t len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_padded(struct out *o, const char *s, size_t n, int width, bool left, char pad)
{
	int fill = width > (int)n ? width - (int)n : 0;

	if (!left)
		while (fill-- > 0)
			put(o, pad);
	for (size_t i = 0; i < n; i++)
		put(o, s[i]);
	if (left)
		while (fill-- > 0)
			put(o, ' ');
}

static void put_number(struct out *o, uint64_t v, bool negative, unsigned base,
		       bool upper, int width, bool left, char pad)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	if (negative) {
		if (pad == '0' && !left) {
			/* sign goes before the zero padding: -0042 */
			put(o, '-');
			if (width > 0)
				width--;
		} else {
			tmp[n++] = '-';
		}
	}
	char rev[24];
	for (size_t i = 0; i < n; i++)
		rev[i] = tmp[n - 1 - i];
	put_padded(o, rev, n, width, left, pad);
}

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			put(&o, *p);
			continue;
		}
		p++;
		bool left = false;
		char pad = ' ';
		for (;; p++) {
			if (*p == '-')
				left = true;
			else if (*p == '0')
				pad = '0';
			else
				break;
		}
		int width = 0;
		while (*p >= '0' && *p <= '9')
			width = width * 10 + (*p++ - '0');
		int precision = -1;
		if (*p == '.') {
			p++;
			precision = 0;
			while (*p >= '0' && *p <= '9')
				precision = precision * 10 + (*p++ - '0');
		}
		int longs = 0;
		bool size_t_arg = false;
		for (;; p++) {
			if (*p == 'l')
				longs++;
			else if (*p == 'z')
				size_t_arg = true;
			else
				break;
		}
		switch (*p) {
		case 'd':
		case 'i': {
			int64_t v;
			if (size_t_arg || longs)
				v = longs >= 2 ? va_arg(ap, long long)
					       : va_arg(ap, long);
			else
				v = va_arg(ap, int);
			uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v
					     : (uint64_t)v;
			put_number(&o, mag, v < 0, 10, false, width, left, pad);
			break;
		}
		case 'u':
		case 'x':
		case 'X': {
			uint64_t v;
			if (size_t_arg)
				v = va_arg(ap, size_t);
			else if (longs >= 2)
				v = va_arg(ap, unsigned long long);
			else if (longs == 1)
				v = va_arg(ap, unsigned long);
			else
				v = va_arg(ap, unsigned int);
			put_number(&o, v, false, *p == 'u' ? 10 : 16, *p == 'X', width, left, pad);
			break;
		}
		case 'p':
			put(&o, '0');
			put(&o, 'x');
			put_number(&o, (uintptr_t)va_arg(ap, void *), false, 16,
				   false, width, left, pad);
			break;
		case 'c': {
			char c = (char)va_arg(ap, int);
			put_padded(&o, &c, 1, width, left, ' ');
			break;
		}
		case 's': {
			const char *s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			size_t n = 0;
			while (s[n] && (precision < 0 || (int)n < precision))
				n++;
			put_padded(&o, s, n, width, left, ' ');
			break;
		}
		case '%':
			put(&o, '%');
			break;
		case '\0':
			p--; /* keep the loop's terminator check */
			break;
		default:
			put(&o, '%');
			put(&o, *p);
			break;
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

void diag_vprintf(diag_fn diag, void *ctx, const char *fmt, va_list ap)
{
	char msg[160];

	if (!diag)
		return;
	fmt_vsnprintf(msg, sizeof(msg), fmt, ap);
	diag(ctx, msg);
}

void diag_printf(diag_fn diag, void *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vprintf(diag, ctx, fmt, ap);
	va_end(ap);
}

/* ns / unit with 1 or 2 decimals, rounded half up, and the unit's name. */
static void fixed(char *buf, size_t size, uint64_t ns, uint64_t unit, int decimals,
		  const char *name)
{
	uint64_t scale = decimals == 1 ? 10 : 100;
	uint64_t v = (ns / unit) * scale + ((ns % unit) * scale + unit / 2) / unit;
	fmt_snprintf(buf, size, decimals == 1 ? "%llu.%01llu %s" : "%llu.%02llu %s",
		     (unsigned long long)(v / scale), (unsigned long long)(v % scale), name);
}

void fmt_duration(char *buf, size_t size, uint64_t ns)
{
	/* Each threshold is where the smaller unit would round to 1000. */
	if (ns >= 999995000ull)
		fixed(buf, size, ns, 1000000000ull, 2, "s");
	else if (ns >= 999950)
		fixed(buf, size, ns, 1000000, 2, "ms");
	else if (ns >= 1000)
		fixed(buf, size, ns, 1000, 1, "us");
	else
		fmt_snprintf(buf, size, "%llu ns", (unsigned long long)ns);
}

void fmt_escape(char *out, size_t size, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	if (!size)
		return;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char e[4] = { (char)c };
		size_t len = 1;
		if (c == '\\' || c == '"') {
			e[0] = '\\';
			e[1] = (char)c;
			len = 2;
		} else if (c < 0x20 || c >= 0x7f) {
			e[0] = '\\';
			e[1] = 'x';
			e[2] = hex[c >> 4];
			e[3] = hex[c & 15];
			len = 4;
		}
		if (n + len > size - 1)
			break;
		for (size_t i = 0; i < len; i++)
			out[n++] = e[i];
	}
	out[n] = '\0';
}
