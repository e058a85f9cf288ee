/* SPDX-License-Identifier: MIT */
/* libFuzzer target: aplog's record reader (tools/aplog/read: lines,
 * records, runs) on any bytes, as a serial capture, a pstore zone read
 * back by Linux, NVRAM's parts or a QR code's text from a crashed machine
 * reach it. Every run it keeps has its counts within what it allocated.
 * Its error messages go to stderr, which tests/fuzz/run.sh closes for it
 * (-close_fd_mask=2: libFuzzer keeps its own). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/aplog/read/records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

uint64_t sink; /* keeps the walk below */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	FILE *f = fmemopen(copy, size ? size : 1, "rb");
	if (!f) {
		free(copy);
		return 0;
	}
	struct set s = { 0 };
	for (int trunc = 0; trunc < 2; trunc++) {
		if (size)
			load_stream(&s, f, "fuzz", trunc);
		rewind(f);
	}
	for (size_t i = 0; i < s.n; i++) {
		const struct run *r = &s.runs[i];
		/* Walk what the reader kept: ASan checks every index. */
		uint64_t sum = 0;
		for (size_t j = 0; j < r->ns; j++)
			sum += r->s[j].ns;
		if (run_use(r) == USE_FULL && !r->ended)
			abort();
		sink += sum;
	}
	set_free(&s);
	fclose(f);
	free(copy);
	return 0;
}
