/* SPDX-License-Identifier: MIT */
/* libFuzzer target: plan.txt as apstart.efi reads it from the stick
 * (wings/efi/plan_text.c). Whatever the bytes, a plan it accepts has every
 * count within its bound: 1..100 runs per variant, an order of exactly k
 * A's and k B's, a terminated printable command line; and a plan written
 * back (plan_format) reads back the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wings/efi/plan_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy: a read past the file is ASan's to catch. */
	uint8_t *text = malloc(size ? size : 1);
	struct plan p = { .number = 1 }, q = { .number = 1 };
	char why[PLAN_WHY_MAX];

	if (!text)
		return 0;
	memcpy(text, data, size);
	bool ok = plan_parse(text, size, &p, why, sizeof why);
	if (memchr(why, 0, sizeof why) == NULL || ok != (why[0] == 0))
		abort();
	if (ok) {
		size_t a = 0, b = 0;
		if (p.k < 1 || p.k > PLAN_K_MAX || p.runs != 2 * p.k || strlen(p.order) != p.runs)
			abort();
		for (size_t i = 0; i < p.runs; i++) {
			a += p.order[i] == 'A';
			b += p.order[i] == 'B';
		}
		if (a != p.k || b != p.k)
			abort();
		const char *nul = memchr(p.cmdline, 0, sizeof p.cmdline);
		if (!nul)
			abort();
		size_t n = (size_t)(nul - p.cmdline);
		for (size_t i = 0; i < n; i++)
			if (p.cmdline[i] < 0x20 || p.cmdline[i] > 0x7e)
				abort();
		static char out[4096];
		int len = plan_format(&p, "2026-01-01T00:00:00", out, sizeof out);
		if (len < 0)
			abort();
		if (!plan_parse((const uint8_t *)out, (size_t)len, &q, why, sizeof why) ||
		    q.k != p.k || strcmp(q.order, p.order) || q.seed != p.seed)
			abort();
	}
	free(text);
	return 0;
}
