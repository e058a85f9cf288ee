/* SPDX-License-Identifier: MIT */
#include "wings/screen/warn_events.h"

#include "lib/kstring.h"

bool warn_is_event(const char *line, size_t len)
{
	static const char *const events[] = { "@warn what=nmi ", "@warn what=stray_irq ",
					      "@warn what=sipi_retry " };
	for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
		size_t n = strlen(events[i]);
		if (len >= n && memcmp(line, events[i], n) == 0)
			return true;
	}
	return false;
}
