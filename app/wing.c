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

bool wing_linked(const char *name)
{
	for_each_wing(w)
		if (strlen(w->name) == strlen(name) && memcmp(w->name, name, strlen(name)) == 0)
			return true;
	return false;
}
