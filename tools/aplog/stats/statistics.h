/* SPDX-License-Identifier: MIT */
/* Statistics over samples. Order statistics (mean, median, min, max, p95)
 * come from the kernel's own implementation (lib/stats.h, compiled for the
 * host), so aplog's figures are the kernel's @summary figures; verdicts
 * on two sets come from whole runs (tools/aplog/stats/verdict.h, through sets.h). */
#ifndef APLOG_STATISTICS_H
#define APLOG_STATISTICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/stats.h"
#include "tools/aplog/read/records.h"

/* stats over n values (copied: v is left as it is). */
void describe(const uint64_t *v, size_t n, struct stats *out);
/* The median alone, as describe() computes it. */
uint64_t median_of(const uint64_t *v, size_t n);

/* Per APIC ID sample lists (sorted) and the pooled lists per op, over
 * every run of a set that run_use() lets in. */
struct cpu_row {
	uint32_t apic;
	long cpu;                    /* -1: index differs between runs */
	const uint64_t *v[OP_COUNT];
	size_t n[OP_COUNT];
	bool from_cpusum;            /* values include @cpusum medians */
};

/* Records-only runs (run.summary_only) give each AP one value per run:
 * its @cpusum median; they go into the rows, never into the pools. */
struct table {
	struct cpu_row *rows;
	size_t nrows;
	uint64_t *store;
	uint64_t *pool[OP_COUNT];
	size_t npool[OP_COUNT];
	bool from_cpusum;            /* some row has @cpusum medians */
};

void table_build(const struct set *s, struct table *t);
void table_free(struct table *t);

/* Sum of a run's figures (sample_figure()) per op, in ns; a records-only
 * run's @summary totals (offline: settled_total_ns where it has one). */
void run_totals(const struct run *r, double tot[OP_COUNT]);

/* b / a, with 0/0 = 1 and x/0 = infinity. */
double ratio_of(double b, double a);

#endif
