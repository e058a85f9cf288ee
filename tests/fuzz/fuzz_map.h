/* SPDX-License-Identifier: MIT */
/* Fuzzing support: the fuzzer's input as physical memory. Every range a
 * parser maps is handed out as an exact-size heap copy, so AddressSanitizer
 * catches a read past what the parser asked for, not only past the input. */
#ifndef FUZZ_MAP_H
#define FUZZ_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct fuzz_mem {
	const uint8_t *data;
	size_t size;
	uint64_t base;      /* physical address of data[0] */
	void *copies[4096];
	size_t ncopies;
};

static inline const void *fuzz_map(void *ctx, uint64_t phys, size_t len)
{
	struct fuzz_mem *m = ctx;
	if (phys < m->base || phys - m->base > m->size ||
	    len > m->size - (phys - m->base) || m->ncopies == 4096)
		return NULL;
	void *c = malloc(len ? len : 1);
	if (!c)
		return NULL;
	memcpy(c, m->data + (phys - m->base), len);
	m->copies[m->ncopies++] = c;
	return c;
}

static inline void fuzz_mem_free(struct fuzz_mem *m)
{
	for (size_t i = 0; i < m->ncopies; i++)
		free(m->copies[i]);
	m->ncopies = 0;
}

static inline void fuzz_diag(void *ctx, const char *msg)
{
	(void)ctx;
	/* Every message must be a terminated string of bounded length. */
	if (strlen(msg) > 200)
		abort();
}

#endif
