/* SPDX-License-Identifier: MIT */
/* Linux's persistent-RAM zone format (wings/pstore/persistent_ram.h). */
#include "wings/pstore/persistent_ram.h"

#include <stdbool.h>

#include "lib/bytes.h"
#include "lib/kstring.h"

#define OFF_SIG 0
#define OFF_START 4
#define OFF_SIZE 8

static void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void flush(struct pram_zone *z, const void *p, size_t len)
{
	if (z->flush && len)
		z->flush(z->flush_ctx, p, len);
}

/* The header after the text it describes: a zone cut short by a reset in
 * the middle of a store claims no byte it does not hold. */
static void store_header(struct pram_zone *z)
{
	wr32(z->base + OFF_SIG, PRAM_SIG);
	wr32(z->base + OFF_START, z->start);
	wr32(z->base + OFF_SIZE, z->size);
	flush(z, z->base, PRAM_HEADER);
}

static bool header_valid(const uint8_t *base, uint32_t capacity, uint32_t *start,
			 uint32_t *size)
{
	*start = rd32(base + OFF_START);
	*size = rd32(base + OFF_SIZE);
	return *size <= capacity && *start <= *size;
}

enum pram_found pram_open(struct pram_zone *z, void *base, uint32_t zone_size,
			  void (*flush_fn)(void *ctx, const void *p, size_t len),
			  void *flush_ctx, uint32_t *held_out)
{
	enum pram_found found;
	uint32_t start, size;

	z->base = base;
	z->capacity = zone_size - PRAM_HEADER;
	z->flush = flush_fn;
	z->flush_ctx = flush_ctx;
	z->start = z->size = 0;
	/* In Linux's order (persistent_ram_post_init()): size 0 is empty
	 * whatever start says; start goes back to 0 here, or the next boot
	 * would find start > size. */
	if (rd32(z->base + OFF_SIG) != PRAM_SIG)
		found = PRAM_NEW;
	else if (rd32(z->base + OFF_SIZE) == 0)
		found = PRAM_EMPTY;
	else if (!header_valid(z->base, z->capacity, &start, &size))
		found = PRAM_INVALID;
	else {
		found = PRAM_HELD;
		z->start = start;
		z->size = size;
	}
	if (held_out)
		*held_out = z->size;
	store_header(z);
	return found;
}

void pram_write(struct pram_zone *z, const void *s, size_t n)
{
	const uint8_t *p = s;

	if (n > z->capacity) {
		p += n - z->capacity;
		n = z->capacity;
	}
	/* Two pieces at most: to the ring's end, then from its start. */
	size_t first = z->capacity - z->start;
	if (first > n)
		first = n;
	memcpy(z->base + PRAM_HEADER + z->start, p, first);
	flush(z, z->base + PRAM_HEADER + z->start, first);
	if (n > first) {
		memcpy(z->base + PRAM_HEADER, p + first, n - first);
		flush(z, z->base + PRAM_HEADER, n - first);
	}
	uint64_t size = (uint64_t)z->size + n;
	z->size = size > z->capacity ? z->capacity : (uint32_t)size;
	z->start = (uint32_t)(((uint64_t)z->start + n) % z->capacity);
	store_header(z);
}

size_t pram_read(const void *base, uint32_t zone_size, void *out, size_t cap)
{
	const uint8_t *b = base;
	uint32_t start, size;

	if (zone_size <= PRAM_HEADER || rd32(b + OFF_SIG) != PRAM_SIG ||
	    !header_valid(b, zone_size - PRAM_HEADER, &start, &size))
		return 0;
	size_t n = 0;
	for (uint32_t i = start; i < size && n < cap; i++)
		((uint8_t *)out)[n++] = b[PRAM_HEADER + i];
	for (uint32_t i = 0; i < start && n < cap; i++)
		((uint8_t *)out)[n++] = b[PRAM_HEADER + i];
	return n;
}

const char *pram_found_name(enum pram_found f)
{
	switch (f) {
	case PRAM_NEW: return "new";
	case PRAM_INVALID: return "invalid";
	case PRAM_EMPTY: return "empty";
	case PRAM_HELD: return "held";
	}
	return "?";
}
