/* SPDX-License-Identifier: MIT */
/* Order statistics over timing samples (integer nanoseconds or ticks). */
#ifndef APSTART_STATS_H
#define APSTART_STATS_H

#include <stddef.h>
#include <stdint.h>

struct stats {
	size_t count;
	uint64_t sum;
	uint64_t mean;   /* sum / count, rounded down */
	uint64_t median; /* even count: mean of the two middle values */
	uint64_t min;
	uint64_t max;
	uint64_t p95;    /* nearest-rank 95th percentile */
};

/* Sorts values in place (heapsort: no recursion, no allocation) and fills
 * out. count == 0 gives all zeros. */
void stats_compute(uint64_t *values, size_t count, struct stats *out);
void sort_u64(uint64_t *values, size_t count);
/* The median of count > 0 values sorted ascending (even count: the mean
 * of the two middle values, rounded down). */
uint64_t median_sorted_u64(const uint64_t *sorted, size_t count);

#endif
