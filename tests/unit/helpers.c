/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void diag_reset(struct diag_log *d)
{
	d->count = 0;
}

void diag_record(void *ctx, const char *msg)
{
	struct diag_log *d = ctx;

	if (getenv("UNIT_VERBOSE"))
		printf("  diag: %s\n", msg);
	if (d->count < DIAG_MAX)
		snprintf(d->msg[d->count], DIAG_LEN, "%s", msg);
	d->count++;
}

unsigned diag_count_with(const struct diag_log *d, const char *needle)
{
	unsigned n = 0;
	unsigned stored = d->count < DIAG_MAX ? d->count : DIAG_MAX;

	for (unsigned i = 0; i < stored; i++)
		if (strstr(d->msg[i], needle))
			n++;
	return n;
}

void diag_dump(const struct diag_log *d, const char *title)
{
	unsigned stored = d->count < DIAG_MAX ? d->count : DIAG_MAX;

	printf("  %s: %u message(s)\n", title, d->count);
	for (unsigned i = 0; i < stored; i++)
		printf("    %s\n", d->msg[i]);
}

void fake_mem_init(struct fake_mem *m, uint64_t base, size_t size)
{
	m->base = base;
	m->size = size;
	m->bytes = calloc(1, size);
	m->maps = NULL;
	m->nmaps = m->cap = 0;
	m->refused = 0;
	if (!m->bytes) {
		perror("calloc");
		exit(2);
	}
}

void fake_mem_free(struct fake_mem *m)
{
	for (size_t i = 0; i < m->nmaps; i++)
		free(m->maps[i]);
	free(m->maps);
	free(m->bytes);
	m->bytes = NULL;
	m->maps = NULL;
	m->nmaps = m->cap = 0;
}

const void *fake_map(void *ctx, uint64_t phys, size_t len)
{
	struct fake_mem *m = ctx;

	if (phys < m->base || phys - m->base > m->size ||
	    len > m->size - (phys - m->base)) {
		m->refused++;
		return NULL;
	}
	if (m->nmaps == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->maps = realloc(m->maps, m->cap * sizeof(*m->maps));
		if (!m->maps) {
			perror("realloc");
			exit(2);
		}
	}
	uint8_t *copy = malloc(len ? len : 1);
	if (!copy) {
		perror("malloc");
		exit(2);
	}
	memcpy(copy, m->bytes + (phys - m->base), len);
	m->maps[m->nmaps++] = copy;
	return copy;
}

uint8_t *fake_at(struct fake_mem *m, uint64_t phys)
{
	if (phys < m->base || phys - m->base >= m->size) {
		fprintf(stderr, "fake_at: 0x%llx outside test memory\n",
			(unsigned long long)phys);
		exit(2);
	}
	return m->bytes + (phys - m->base);
}

void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
