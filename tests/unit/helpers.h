/* SPDX-License-Identifier: MIT */
/* Shared test fixtures: a diag_fn that records messages, and a fake
 * physical memory whose map function hands out exact-size heap copies, so
 * AddressSanitizer catches any read past what a parser asked to map. */
#ifndef UNIT_HELPERS_H
#define UNIT_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DIAG_MAX 64
#define DIAG_LEN 200

struct diag_log {
	unsigned count; /* messages received, including ones not stored */
	char msg[DIAG_MAX][DIAG_LEN];
};

void diag_reset(struct diag_log *d);
void diag_record(void *ctx, const char *msg); /* a diag_fn */
/* Number of recorded messages containing needle. */
unsigned diag_count_with(const struct diag_log *d, const char *needle);
/* Print every message (for UNIT_VERBOSE=1 runs and failing checks). */
void diag_dump(const struct diag_log *d, const char *title);

struct fake_mem {
	uint64_t base;
	size_t size;
	uint8_t *bytes;
	void **maps;     /* copies handed out, freed by fake_mem_free */
	size_t nmaps, cap;
	unsigned refused; /* map requests outside the memory */
};

void fake_mem_init(struct fake_mem *m, uint64_t base, size_t size);
void fake_mem_free(struct fake_mem *m);
/* phys_map_fn: NULL unless [phys, phys+len) lies inside the memory. */
const void *fake_map(void *ctx, uint64_t phys, size_t len);
/* Pointer for writing test data at a physical address (must be inside). */
uint8_t *fake_at(struct fake_mem *m, uint64_t phys);

void put16(uint8_t *p, uint16_t v);
void put32(uint8_t *p, uint32_t v);
void put64(uint8_t *p, uint64_t v);

/* Text printed to serial, as the summary capture (wings/kept/kept_lines.c)
 * sees it: the console stand-in of test_summary_save.c. */
void summary_feed_serial(const char *text);

#endif
