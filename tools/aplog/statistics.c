/* SPDX-License-Identifier: MIT */
/* Statistics over samples (statistics.h). */
#include "statistics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void describe(const uint64_t *v, size_t n, struct stats *out)
{
	uint64_t *copy = xrealloc_array(NULL, n, sizeof(*copy));
	if (n)
		memcpy(copy, v, n * sizeof(*copy));
	stats_compute(copy, n, out);
	free(copy);
}

uint64_t median_of(const uint64_t *v, size_t n)
{
	struct stats st;
	describe(v, n, &st);
	return st.median;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct flat {
	uint32_t apic, cpu;
	uint8_t op;
	bool cpusum; /* an @cpusum median, not a sample */
	uint64_t ns;
};

static int cmp_flat(const void *a, const void *b)
{
	const struct flat *x = a, *y = b;
	if (x->apic != y->apic)
		return x->apic < y->apic ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

void table_build(const struct set *s, struct table *t)
{
	size_t total = 0;
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < s->n; i++) {
		if (run_use(&s->runs[i]) == USE_NONE)
			continue;
		for (size_t j = 0; j < s->runs[i].ns; j++)
			total += sample_counted(&s->runs[i].s[j]);
		if (s->runs[i].summary_only)
			total += 2 * s->runs[i].ncs;
	}

	struct flat *f = xrealloc_array(NULL, total, sizeof(*f));
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct run *r = &s->runs[i];
		if (run_use(r) == USE_NONE)
			continue;
		for (size_t j = 0; j < r->ns; j++)
			if (sample_counted(&r->s[j]))
				f[k++] = (struct flat){ r->s[j].apic, r->s[j].cpu,
							r->s[j].op, false,
							sample_figure(r, &r->s[j]) };
		for (size_t j = 0; r->summary_only && j < r->ncs; j++)
			for (int op = 0; op < OP_COUNT; op++)
				f[k++] = (struct flat){ r->cs[j].apic, r->cs[j].cpu,
							(uint8_t)op, true,
							r->cs[j].median[op] };
	}
	qsort(f, total, sizeof(*f), cmp_flat);

	t->store = xrealloc_array(NULL, total, sizeof(uint64_t));
	for (int op = 0; op < OP_COUNT; op++)
		t->pool[op] = xrealloc_array(NULL, total, sizeof(uint64_t));
	t->rows = xrealloc_array(NULL, total, sizeof(*t->rows));
	for (size_t i = 0; i < total; i++) {
		t->store[i] = f[i].ns;
		if (!f[i].cpusum)
			t->pool[f[i].op][t->npool[f[i].op]++] = f[i].ns;
		if (i == 0 || f[i].apic != f[i - 1].apic) {
			struct cpu_row *r = &t->rows[t->nrows++];
			memset(r, 0, sizeof(*r));
			r->apic = f[i].apic;
			r->cpu = f[i].cpu;
		}
		struct cpu_row *r = &t->rows[t->nrows - 1];
		if (r->cpu != (long)f[i].cpu)
			r->cpu = -1;
		r->from_cpusum |= f[i].cpusum;
		t->from_cpusum |= f[i].cpusum;
		if (r->n[f[i].op]++ == 0)
			r->v[f[i].op] = &t->store[i];
	}
	for (int op = 0; op < OP_COUNT; op++)
		qsort(t->pool[op], t->npool[op], sizeof(uint64_t), cmp_u64);
	free(f);
}

void table_free(struct table *t)
{
	free(t->rows);
	free(t->store);
	for (int op = 0; op < OP_COUNT; op++)
		free(t->pool[op]);
	memset(t, 0, sizeof(*t));
}

void run_totals(const struct run *r, double tot[OP_COUNT])
{
	tot[OP_ONLINE] = tot[OP_OFFLINE] = 0;
	if (r->summary_only) {
		tot[OP_ONLINE] = (double)r->sum[OP_ONLINE].total_ns;
		tot[OP_OFFLINE] = (double)(r->settled ? r->sum[OP_OFFLINE].settled_total_ns
						      : r->sum[OP_OFFLINE].total_ns);
		return;
	}
	for (size_t i = 0; i < r->ns; i++)
		if (sample_counted(&r->s[i]))
			tot[r->s[i].op] += (double)sample_figure(r, &r->s[i]);
}

double ratio_of(double b, double a)
{
	if (a == 0)
		return b == 0 ? 1.0 : INFINITY;
	return b / a;
}

/* xoshiro256** seeded by splitmix64: fixed seed, reproducible output. */
struct rng {
	uint64_t s[4];
};

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		r->s[i] = z ^ (z >> 31);
	}
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

/* Uniform in [0, n) without modulo bias. */
static size_t rng_below(struct rng *r, size_t n)
{
	uint64_t lim = (0 - (uint64_t)n) % n, x;
	do
		x = rng_next(r);
	while (x < lim);
	return (size_t)(x % n);
}

/* Median of a resample with replacement of sorted v: count how often each
 * index is drawn and walk the counts, O(n) and no sorting per resample.
 * An even count averages the middle pair rounding down, as stats.h does. */
static double resample_median(const uint64_t *v, size_t n, uint32_t *counts,
			      struct rng *r)
{
	memset(counts, 0, n * sizeof(*counts));
	for (size_t i = 0; i < n; i++)
		counts[rng_below(r, n)]++;
	size_t k1 = (n - 1) / 2, k2 = n / 2, seen = 0;
	uint64_t lo = 0;
	bool have_lo = false;
	for (size_t i = 0; i < n; i++) {
		seen += counts[i];
		if (!have_lo && seen > k1) {
			lo = v[i];
			have_lo = true;
		}
		if (seen > k2)
			return (double)(lo + (v[i] - lo) / 2);
	}
	return (double)lo; /* not reached: the counts add up to n */
}

void bootstrap(const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
	       unsigned resamples, uint64_t seed, struct boot *out)
{
	memset(out, 0, sizeof(*out));
	out->na = na;
	out->nb = nb;
	if (!na || !nb)
		return;
	out->ok = true;
	out->med_a = (double)median_of(a, na);
	out->med_b = (double)median_of(b, nb);
	out->ratio = ratio_of(out->med_b, out->med_a);

	/* Each side resampled independently. */
	struct rng rng;
	rng_seed(&rng, seed);
	uint32_t *counts = xrealloc_array(NULL, na > nb ? na : nb,
					  sizeof(*counts));
	double *ratios = xrealloc_array(NULL, resamples, sizeof(*ratios));
	for (unsigned i = 0; i < resamples; i++) {
		double ma = resample_median(a, na, counts, &rng);
		double mb = resample_median(b, nb, counts, &rng);
		ratios[i] = ratio_of(mb, ma);
	}
	qsort(ratios, resamples, sizeof(*ratios), cmp_double);
	size_t tail = (size_t)resamples * 25 / 1000;
	out->lo = ratios[tail];
	out->hi = ratios[resamples - 1 - tail];
	free(counts);
	free(ratios);
}

const char *verdict(const struct boot *b)
{
	if (b->hi < 1.0)
		return "faster";
	if (b->lo > 1.0)
		return "slower";
	return "noise";
}
