/* SPDX-License-Identifier: MIT */
/* free=/only= address ranges of the flushmodel plugin (see where.h). */
#include "where.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char where_usage[] =
	"  free=RANGES         flushes executing at these addresses cost nothing\n"
	"  only=RANGES         only flushes executing at these addresses are charged\n"
	"                      RANGES: low1m (0x0-0xfffff: real mode, where Linux's\n"
	"                      AP trampoline runs) or 0xSTART-0xEND, joined by '+'\n";

/* "0x..." hex, whole string. */
static bool hex(const char *s, size_t n, uint64_t *out)
{
	if (n < 3 || n > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return false;
	uint64_t v = 0;
	for (size_t i = 2; i < n; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return true;
}

static int parse_ranges(struct flush_where *w, const char *key, const char *v,
			char *err, size_t errlen)
{
	const char *p = v;
	if (!*p) {
		snprintf(err, errlen, "%s=: no range given (low1m or 0xSTART-0xEND)", key);
		return -1;
	}
	while (*p) {
		size_t n = strcspn(p, "+");
		uint64_t lo, hi;
		const char *dash = memchr(p, '-', n);
		if (n == 5 && !memcmp(p, "low1m", 5)) {
			lo = 0;
			hi = 0xfffff;
		} else if (!dash || !hex(p, (size_t)(dash - p), &lo) ||
			   !hex(dash + 1, n - (size_t)(dash - p) - 1, &hi)) {
			snprintf(err, errlen, "%s=%s: '%.*s' is not low1m or 0xSTART-0xEND", key,
				 v, (int)n, p);
			return -1;
		}
		if (lo > hi) {
			snprintf(err, errlen, "%s=%s: range %.*s ends before it starts", key, v,
				 (int)n, p);
			return -1;
		}
		if (w->n == WHERE_MAX_RANGES) {
			snprintf(err, errlen, "%s=%s: more than %d ranges", key, v,
				 WHERE_MAX_RANGES);
			return -1;
		}
		w->r[w->n].lo = lo;
		w->r[w->n].hi = hi;
		w->n++;
		p += n;
		if (*p == '+') {
			p++;
			if (!*p) {
				snprintf(err, errlen, "%s=%s: ends with '+'", key, v);
				return -1;
			}
		}
	}
	return 0;
}

int where_take(struct flush_where *w, int *argc, char **argv, char *err,
	       size_t errlen)
{
	memset(w, 0, sizeof(*w));
	int out = 0;
	for (int i = 0; i < *argc; i++) {
		const char *a = argv[i];
		bool fr = !strncmp(a, "free=", 5), on = !strncmp(a, "only=", 5);
		if (!fr && !on) {
			argv[out++] = argv[i];
			continue;
		}
		if (w->set) {
			snprintf(err, errlen, "give one free= or one only= (ranges joined by '+')");
			return -1;
		}
		w->set = true;
		w->only = on;
		if (parse_ranges(w, fr ? "free" : "only", a + 5, err, errlen))
			return -1;
	}
	*argc = out;
	return 0;
}

bool where_charged(const struct flush_where *w, uint64_t vaddr)
{
	if (!w->set)
		return true;
	bool inside = false;
	for (unsigned i = 0; i < w->n && !inside; i++)
		inside = vaddr >= w->r[i].lo && vaddr <= w->r[i].hi;
	return w->only ? inside : !inside;
}

void where_describe(const struct flush_where *w, char *buf, size_t len)
{
	size_t o = 0;
	if (!len)
		return;
	buf[0] = '\0';
	if (!w->set)
		return;
	o += (size_t)snprintf(buf + o, len - o, w->only ? "; charged only at " : "; free at ");
	for (unsigned i = 0; i < w->n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s0x%" PRIx64 "-0x%" PRIx64,
				      i ? "+" : "", w->r[i].lo, w->r[i].hi);
	if (o < len)
		snprintf(buf + o, len - o, w->only ? " (elsewhere free)" : " (counted, not held)");
}
