/* SPDX-License-Identifier: MIT */
/* wings/pstore/persistent_ram.c against Linux's own rules (fs/pstore/ram_core.c):
 * a model written from persistent_ram_write()'s steps (buffer_size_add,
 * buffer_start_add, the split at the ring's end) must leave the same
 * bytes and header after every write; the text read back is the end of
 * the stream; a valid zone is appended to, an invalid one emptied. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/bytes.h"
#include "wings/pstore/persistent_ram.h"

/* Linux's algorithm on a plain buffer (ECC off). */
struct model {
	uint8_t *zone;
	size_t buffer_size;
};

static void model_write(struct model *m, const uint8_t *s, size_t count)
{
	uint8_t *data = m->zone + PRAM_HEADER;
	size_t c = count, start, rem;
	uint32_t sz = rd32(m->zone + 8), st = rd32(m->zone + 4);

	if (c > m->buffer_size) {
		s += c - m->buffer_size;
		c = m->buffer_size;
	}
	if (sz != m->buffer_size) { /* buffer_size_add */
		sz += (uint32_t)c;
		if (sz > m->buffer_size)
			sz = (uint32_t)m->buffer_size;
	}
	start = st; /* buffer_start_add */
	st = (uint32_t)((st + c) % m->buffer_size);
	memcpy(m->zone + 4, &st, 4);
	memcpy(m->zone + 8, &sz, 4);
	rem = m->buffer_size - start;
	if (rem < c) {
		memcpy(data + start, s, rem);
		s += rem;
		c -= rem;
		start = 0;
	}
	memcpy(data + start, s, c);
}

static size_t flushed;
static void count_flush(void *ctx, const void *p, size_t len)
{
	(void)ctx, (void)p;
	flushed += len;
}

static void test_same_as_linux(void)
{
	static const uint32_t sizes[] = { 13, 64, 4096 };
	for (size_t k = 0; k < 3; k++) {
		uint32_t zs = sizes[k];
		uint8_t *a = calloc(1, zs), *b = calloc(1, zs);
		uint8_t *stream = malloc(20000), *text = malloc(zs);
		struct pram_zone z;
		struct model m = { b, zs - PRAM_HEADER };
		size_t total = 0;

		CHECK_EQ(pram_open(&z, a, zs, count_flush, NULL, NULL), PRAM_NEW);
		CHECK_EQ(rd32(a), PRAM_SIG);
		memcpy(b, a, PRAM_HEADER);
		srand(7 + k);
		for (int i = 0; i < 400; i++) {
			size_t n = (size_t)(rand() % (i % 50 == 49 ? 3 * zs : 40));
			uint8_t buf[3 * 4096];
			for (size_t j = 0; j < n; j++)
				stream[(total + j) % 20000] = buf[j] = (uint8_t)(' ' + (total + j) % 90);
			flushed = 0;
			pram_write(&z, buf, n);
			model_write(&m, buf, n);
			total += n;
			if (!CHECK(memcmp(a, b, zs) == 0))
				break;
			/* Every byte written is handed to the flush (and the header). */
			CHECK_EQ(flushed, (n > zs - PRAM_HEADER ? zs - PRAM_HEADER : n) + PRAM_HEADER);
			/* Read back: the last min(total, capacity) bytes, in order. */
			size_t keep = total < zs - PRAM_HEADER ? total : zs - PRAM_HEADER;
			size_t got = pram_read(a, zs, text, zs);
			CHECK_EQ(got, keep);
			int same = 1;
			for (size_t j = 0; j < keep; j++)
				same &= text[j] == stream[(total - keep + j) % 20000];
			CHECK(same);
		}
		free(a), free(b), free(stream), free(text);
	}
}

static void test_open_states(void)
{
	uint8_t zone[64];
	struct pram_zone z;
	uint32_t held = 99;
	char text[64];

	memset(zone, 0xA5, sizeof zone);
	CHECK_EQ(pram_open(&z, zone, sizeof zone, NULL, NULL, &held), PRAM_NEW);
	CHECK_EQ(held, 0);
	CHECK_EQ(rd32(zone + 4), 0);
	CHECK_EQ(rd32(zone + 8), 0);
	CHECK_EQ(pram_read(zone, sizeof zone, text, sizeof text), 0);
	pram_write(&z, "run 1\n", 6);
	/* Held text is appended to, as Linux's console does. */
	CHECK_EQ(pram_open(&z, zone, sizeof zone, NULL, NULL, &held), PRAM_HELD);
	CHECK_EQ(held, 6);
	pram_write(&z, "run 2\n", 6);
	CHECK_EQ(pram_read(zone, sizeof zone, text, sizeof text), 12);
	CHECK(memcmp(text, "run 1\nrun 2\n", 12) == 0);
	/* Linux's zap (start = size = 0): empty. */
	memset(zone + 4, 0, 8);
	CHECK_EQ(pram_open(&z, zone, sizeof zone, NULL, NULL, &held), PRAM_EMPTY);
	CHECK_EQ(held, 0);
	/* size 0 with start left over: start goes back to 0, or Linux would
	 * later see start > size and throw the text away. */
	zone[4] = 20;
	CHECK_EQ(pram_open(&z, zone, sizeof zone, NULL, NULL, NULL), PRAM_EMPTY);
	pram_write(&z, "abc", 3);
	CHECK_EQ(rd32(zone + 4), 3);
	CHECK_EQ(pram_read(zone, sizeof zone, text, sizeof text), 3);
	/* Linux's invalid buffers: size > capacity, start > size. */
	zone[8] = 53;
	CHECK_EQ(pram_open(&z, zone, sizeof zone, NULL, NULL, &held), PRAM_INVALID);
	CHECK_EQ(held, 0);
	CHECK_EQ(rd32(zone + 8), 0);
	zone[4] = 5, zone[8] = 4;
	CHECK_EQ(pram_read(zone, sizeof zone, text, sizeof text), 0);
	CHECK_EQ(pram_open(&z, zone, sizeof zone, NULL, NULL, NULL), PRAM_INVALID);
	/* A full ring at capacity 52: size stays 52, start wraps to 0 exactly. */
	CHECK_EQ(pram_open(&z, zone, sizeof zone, NULL, NULL, NULL), PRAM_EMPTY);
	pram_write(&z, "0123456789012345678901234567890123456789012345678901", 52);
	CHECK_EQ(rd32(zone + 4), 0);
	CHECK_EQ(rd32(zone + 8), 52);
	pram_write(&z, "XY", 2);
	CHECK_EQ(rd32(zone + 4), 2);
	CHECK_EQ(pram_read(zone, sizeof zone, text, sizeof text), 52);
	CHECK(memcmp(text, "23456789012345678901234567890123456789012345678901XY", 52) == 0);
	CHECK_STREQ(pram_found_name(PRAM_HELD), "held");
}

void test_persistent_ram(void)
{
	RUN_CASE(test_same_as_linux);
	RUN_CASE(test_open_states);
}
