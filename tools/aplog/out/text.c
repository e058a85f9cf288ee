/* SPDX-License-Identifier: MIT */
/* Text output shared by the commands (text.h). */
#include "tools/aplog/out/text.h"

#include <stdio.h>
#include <string.h>

void put_us(double ns, int width)
{
	double us = ns / 1000.0;
	int dec = us < 1000.0 ? 3 : us < 100000.0 ? 2 : 1;
	printf("%*.*f", width, dec, us);
}

void put_us_stats(const struct stats *d, int width)
{
	const uint64_t v[] = { d->mean, d->median, d->min, d->max };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		putchar(' ');
		put_us((double)v[i], width);
	}
}

void csv_field(const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}
