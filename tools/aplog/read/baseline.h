/* SPDX-License-Identifier: MIT */
/* Baseline files: key=value header lines and one "apic=A op=O
 * median_ns=T" line per AP and op (format in tools/aplog/README.md). */
#ifndef APLOG_BASELINE_H
#define APLOG_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bl_entry {
	uint32_t apic;
	uint8_t op;
	uint64_t median_ns;
	size_t line;
};

struct bl_header {
	char *key, *val;
};

struct baseline {
	const char *file;
	struct bl_entry *e;   /* sorted by (apic, op) */
	size_t n, cap;
	struct bl_header *h;
	size_t nh, caph;
	bool has_tol;
	double tol;
	int wbinvd; /* -1 if not given */
};

/* 0, or 1 after messages; *b needs baseline_free() either way. */
int baseline_load(struct baseline *b, const char *path);
void baseline_free(struct baseline *b);
const char *bl_header(const struct baseline *b, const char *key);
/* Order of entries: by APIC ID, then op. */
int cmp_bl(const void *x, const void *y);

#endif
