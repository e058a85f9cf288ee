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
