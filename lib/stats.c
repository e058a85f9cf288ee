/* SPDX-License-Identifier: MIT */
/* Order statistics for timing samples. */
#include "lib/stats.h"

static void swap_u64(uint64_t *a, uint64_t *b)
{
	uint64_t t = *a;
	*a = *b;
	*b = t;
}

/* Move values[root] down until the max-heap property holds in [0, end). */
static void sift_down(uint64_t *values, size_t root, size_t end)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= end)
			return;
		if (child + 1 < end && values[child + 1] > values[child])
			child++;
		if (values[root] >= values[child])
			return;
		swap_u64(&values[root], &values[child]);
		root = child;
	}
}

void sort_u64(uint64_t *values, size_t count)
{
	if (count < 2)
		return;
	for (size_t i = count / 2; i-- > 0;)
		sift_down(values, i, count);
	for (size_t end = count - 1; end > 0; end--) {
		swap_u64(&values[0], &values[end]);
		sift_down(values, 0, end);
	}
}

uint64_t median_sorted_u64(const uint64_t *sorted, size_t count)
{
	if (count % 2)
		return sorted[count / 2];
	uint64_t a = sorted[count / 2 - 1], b = sorted[count / 2];
	return a + (b - a) / 2; /* (a + b) / 2 without overflow */
}

void stats_compute(uint64_t *values, size_t count, struct stats *out)
{
	*out = (struct stats){ 0 };
	if (count == 0)
		return;

	sort_u64(values, count);

	/* The mean is accumulated as quotient + remainder of each value / n,
	 * so it stays exact even where the plain sum would wrap; rem stays
	 * below n. sum itself saturates at UINT64_MAX. */
	uint64_t n = count;
	uint64_t q = 0, rem = 0, sum = 0;
	for (size_t i = 0; i < count; i++) {
		uint64_t v = values[i];
		sum = sum > UINT64_MAX - v ? UINT64_MAX : sum + v;
		q += v / n;
		rem += v % n;
		if (rem >= n) {
			q += rem / n;
			rem %= n;
		}
	}

	out->count = count;
	out->sum = sum;
	out->mean = q;
	out->min = values[0];
	out->max = values[count - 1];
	out->median = median_sorted_u64(values, count);
	/* Nearest rank: the ceil(0.95 n)-th smallest. For integer n,
	 * ceil(n - n/20) == n - floor(n/20), which cannot overflow. */
	size_t rank = count - count / 20;
	out->p95 = values[rank - 1];
}
