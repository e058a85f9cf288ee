/* SPDX-License-Identifier: MIT */
#include "app/wing.h"

#include "lib/kstring.h"

const char *wings_linked(void)
{
	static char names[96];
	size_t n = 0;

	for_each_wing(w) {
		size_t len = strlen(w->name);
		if (n + len + 2 > sizeof names)
			break;
		if (n)
			names[n++] = ',';
		memcpy(names + n, w->name, len);
		n += len;
	}
	names[n] = '\0';
	return n ? names : "none";
}

uint32_t wings_reserved(struct phys_range *out, uint32_t max)
{
	uint32_t n = 0;
	for_each_wing(w)
		if (w->reserved && n < max && w->reserved(&out[n]))
			n++;
	return n;
}

void wings_before_end(void)
{
	for_each_wing(w)
		if (w->before_end)
			w->before_end();
}

/* The options of the wings this kernel was built without, "NAME:WING ...":
 * the Makefile reads them from those wings' tables (app/wing.o only). */
#ifndef APSTART_ABSENT_OPTIONS
#define APSTART_ABSENT_OPTIONS ""
#endif

void wings_option_targets(struct option_targets *t, struct options *o)
{
	static struct option_table tables[WINGS_MAX];
	uint32_t n = 0;

	for_each_wing(w)
		if (w->options.count && n < WINGS_MAX)
			tables[n++] = w->options;
	*t = (struct option_targets){
		.core = o, .wings = tables, .wing_count = n, .absent = APSTART_ABSENT_OPTIONS,
	};
}
