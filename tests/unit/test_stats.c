/* SPDX-License-Identifier: MIT */
/* lib/stats.c: sorting and order statistics. */
#include <stdlib.h>

#include "check.h"
#include "lib/stats.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* xorshift64: reproducible pseudo-random input. */
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_sort(void)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 4, 5, 7, 16, 17, 100, 1000 };

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		uint64_t *a = malloc((n + 1) * sizeof(*a));
		uint64_t *b = malloc((n + 1) * sizeof(*b));
		for (int kind = 0; kind < 4; kind++) {
			for (size_t i = 0; i < n; i++) {
				switch (kind) {
				case 0: a[i] = next_rand(); break;
				case 1: a[i] = i; break;          /* sorted */
				case 2: a[i] = n - i; break;      /* reversed */
				default: a[i] = next_rand() % 4;  /* many equal */
				}
				b[i] = a[i];
			}
			sort_u64(a, n);
			qsort(b, n, sizeof(*b), cmp_u64);
			size_t bad = 0;
			for (size_t i = 0; i < n; i++)
				bad += a[i] != b[i];
			CHECK_EQ(bad, 0);
		}
		free(a);
		free(b);
	}
	/* Extremes survive. */
	uint64_t e[] = { UINT64_MAX, 0, UINT64_MAX - 1, 1 };
	sort_u64(e, 4);
	CHECK(e[0] == 0 && e[1] == 1 && e[2] == UINT64_MAX - 1 &&
	      e[3] == UINT64_MAX);
}

static void test_basic_stats(void)
{
	struct stats st;

	uint64_t odd[] = { 50, 10, 40, 20, 30 };
	stats_compute(odd, 5, &st);
	CHECK_EQ(st.count, 5);
	CHECK_EQ(st.sum, 150);
	CHECK_EQ(st.mean, 30);
	CHECK_EQ(st.median, 30);
	CHECK_EQ(st.min, 10);
	CHECK_EQ(st.max, 50);
	CHECK_EQ(st.p95, 50);   /* ceil(4.75) = 5th */
	CHECK_EQ(odd[0], 10);   /* sorted in place */
	CHECK_EQ(odd[4], 50);

	uint64_t even[] = { 4, 1, 3, 2 };
	stats_compute(even, 4, &st);
	CHECK_EQ(st.median, 2); /* (2 + 3) / 2 rounded down */
	CHECK_EQ(st.mean, 2);   /* 10 / 4 rounded down */
	CHECK_EQ(st.sum, 10);
	uint64_t even2[] = { 10, 20, 30, 40, 50, 60 };
	stats_compute(even2, 6, &st);
	CHECK_EQ(st.median, 35);
	CHECK_EQ(st.mean, 35);

	uint64_t one[] = { 77 };
	stats_compute(one, 1, &st);
	CHECK(st.count == 1 && st.sum == 77 && st.mean == 77 &&
	      st.median == 77 && st.min == 77 && st.max == 77 && st.p95 == 77);

	uint64_t same[9];
	for (int i = 0; i < 9; i++)
		same[i] = 1234;
	stats_compute(same, 9, &st);
	CHECK(st.mean == 1234 && st.median == 1234 && st.min == 1234 &&
	      st.max == 1234 && st.p95 == 1234);

	st.count = 99;
	st.max = 99;
	stats_compute(NULL, 0, &st);
	CHECK(st.count == 0 && st.sum == 0 && st.mean == 0 && st.median == 0 &&
	      st.min == 0 && st.max == 0 && st.p95 == 0);
}

static void test_p95(void)
{
	struct stats st;
	uint64_t v[200];

	/* Values 1..n, shuffled: nearest rank gives ceil(0.95 n). */
	static const struct { size_t n; uint64_t p95; } cases[] = {
		{ 1, 1 }, { 2, 2 }, { 10, 10 }, { 19, 19 }, { 20, 19 },
		{ 21, 20 }, { 39, 38 }, { 40, 38 }, { 100, 95 }, { 101, 96 },
		{ 200, 190 },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t n = cases[c].n;
		for (size_t i = 0; i < n; i++)
			v[i] = i + 1;
		for (size_t i = n; i > 1; i--) {
			size_t j = next_rand() % i;
			uint64_t t = v[i - 1];
			v[i - 1] = v[j];
			v[j] = t;
		}
		stats_compute(v, n, &st);
		CHECK_EQ(st.p95, cases[c].p95);
		CHECK_EQ(st.min, 1);
		CHECK_EQ(st.max, n);
		CHECK_EQ(st.median, (n + 1) / 2); /* 1..n: (n+1)/2 floored */
	}
	/* One outlier among 20 is the max but not the p95. */
	for (int i = 0; i < 20; i++)
		v[i] = 100;
	v[7] = 1000000;
	stats_compute(v, 20, &st);
	CHECK_EQ(st.p95, 100);
	CHECK_EQ(st.max, 1000000);
	CHECK_EQ(st.mean, (19 * 100 + 1000000) / 20);
}

static void test_large_values(void)
{
	struct stats st;

	/* The sum wraps 64 bits; the mean must still be exact. */
	uint64_t big[] = { UINT64_MAX - 2, UINT64_MAX - 4, UINT64_MAX - 6 };
	stats_compute(big, 3, &st);
	CHECK_EQ(st.mean, UINT64_MAX - 4);
	CHECK_EQ(st.sum, UINT64_MAX); /* saturated, not wrapped */
	CHECK_EQ(st.median, UINT64_MAX - 4);

	uint64_t pair[] = { UINT64_MAX, UINT64_MAX - 1 };
	stats_compute(pair, 2, &st);
	CHECK_EQ(st.median, UINT64_MAX - 1); /* no overflow in a + (b-a)/2 */
	CHECK_EQ(st.mean, UINT64_MAX - 1);   /* floor of ...-0.5 */

	/* Remainders that add up across many values. */
	uint64_t r[7];
	for (int i = 0; i < 7; i++)
		r[i] = (i % 2) ? 6 : 5; /* 5,6,5,6,5,6,5 = 38 */
	stats_compute(r, 7, &st);
	CHECK_EQ(st.mean, 38 / 7);
	CHECK_EQ(st.sum, 38);
}

void test_stats(void)
{
	RUN_CASE(test_sort);
	RUN_CASE(test_basic_stats);
	RUN_CASE(test_p95);
	RUN_CASE(test_large_values);
}
