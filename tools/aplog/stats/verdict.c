/* SPDX-License-Identifier: MIT */
/* A verdict on two variants from whole runs (verdict.h). Integer
 * arithmetic throughout, so that aplog, the kernel (no FPU, i386 without
 * 128-bit integers) and apstart.efi print the same figures.
 *
 * Precision: the values are scaled by one power of two so that the
 * largest lies in [2^24, 2^25); every square, sum and product below then stays
 * inside 63 bits (<= 2000 runs in all), and the scaled values keep a
 * relative precision of 3e-8 of the largest, far below the 0.1% that is
 * printed. */
#include "tools/aplog/stats/verdict.h"

#include "lib/format.h"

#define SCALE_BITS 25

static uint64_t umin(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* a / b rounded to nearest, b > 0. */
static int64_t div_round(int64_t a, int64_t b)
{
	return a >= 0 ? (a + b / 2) / b : -((-a + b / 2) / b);
}

static uint64_t isqrt(uint64_t v)
{
	uint64_t r = 0, bit = 1ULL << 62;
	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

/* Student's t, 97.5% quantile, against df (both x 1e3 / x 1e6), from
 * scipy.stats.t.ppf(0.975, df); interpolating linearly in 1/df between
 * these points is within 0.074% of the exact quantile for every df >= 2
 * (checked by tests/aplog/verdict_ref.py). */
static const struct {
	uint32_t df_milli, t_micro;
} t975[] = {
	{ 2000, 4302653 }, { 2125, 4068985 }, { 2250, 3875480 },
	{ 2375, 3712923 }, { 2500, 3574655 }, { 2750, 3352545 },
	{ 3000, 3182446 }, { 3250, 3048340 }, { 3500, 2940089 },
	{ 3750, 2850989 }, { 4000, 2776445 }, { 4500, 2658912 },
	{ 5000, 2570582 }, { 5500, 2501859 }, { 6000, 2446912 },
	{ 7000, 2364624 }, { 8000, 2306004 }, { 9000, 2262157 },
	{ 10000, 2228139 }, { 12000, 2178813 }, { 14000, 2144787 },
	{ 16000, 2119905 }, { 18000, 2100922 }, { 20000, 2085963 },
	{ 25000, 2059539 }, { 30000, 2042272 }, { 40000, 2021075 },
	{ 50000, 2008559 }, { 60000, 2000298 }, { 80000, 1990063 },
	{ 100000, 1983972 }, { 150000, 1975905 }, { 200000, 1971896 },
	{ 400000, 1965912 }, { 1000000, 1962339 },
};
#define T975_N (sizeof(t975) / sizeof(t975[0]))
#define Z975_MICRO 1959964 /* the normal quantile, df -> infinity */

uint32_t verdict_t975_micro(uint32_t df_milli)
{
	if (df_milli <= t975[0].df_milli)
		return t975[0].t_micro;
	const uint32_t last = t975[T975_N - 1].df_milli;
	if (df_milli >= last) /* t - z falls as 1/df */
		return Z975_MICRO + (uint32_t)((uint64_t)(t975[T975_N - 1].t_micro -
					       Z975_MICRO) * last / df_milli);
	size_t i = 1;
	while (t975[i].df_milli < df_milli)
		i++;
	uint64_t p0 = t975[i - 1].df_milli, p1 = t975[i].df_milli;
	uint64_t t0 = t975[i - 1].t_micro, t1 = t975[i].t_micro;
	/* weight of p0: (1/df - 1/p1) / (1/p0 - 1/p1), in ppm */
	uint64_t w = (p1 - df_milli) * 1000000 / (p1 - p0) * p0 / df_milli;
	return (uint32_t)(t1 + (t0 - t1) * w / 1000000);
}

struct side_sums {
	uint64_t mean;      /* input unit, rounded */
	uint64_t mean_s;    /* scaled, rounded */
	uint64_t var_mean;  /* scaled^2: the variance of the mean, s^2 / n */
};

/* A value in the scaled unit: shift > 0 divides, < 0 multiplies. */
static uint64_t scaled(uint64_t v, int shift)
{
	v = umin(v, VERDICT_VALUE_MAX);
	return shift >= 0 ? v >> shift : v << -shift;
}

static void side_sums(const uint64_t *v, size_t n, int shift,
		      struct side_sums *o)
{
	uint64_t sum = 0, sum_s = 0;
	for (size_t i = 0; i < n; i++) {
		sum += umin(v[i], VERDICT_VALUE_MAX);
		sum_s += scaled(v[i], shift);
	}
	o->mean = n ? (sum + n / 2) / n : 0;
	o->mean_s = n ? (sum_s + n / 2) / n : 0;
	o->var_mean = 0;
	if (n < 2)
		return;
	uint64_t ss = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t d = (int64_t)scaled(v[i], shift) - (int64_t)o->mean_s;
		ss += (uint64_t)(d * d);
	}
	o->var_mean = ss / (n - 1) / n;
}

/* Welch-Satterthwaite: (u + w)^2 / (u^2 / (na - 1) + w^2 / (nb - 1)),
 * u and w the two variances of the mean; x 1000, 0 if both are 0. */
static uint32_t welch_df_milli(uint64_t u, uint64_t w, size_t na, size_t nb)
{
	if (!u && !w)
		return 0;
	/* df is scale-free: bring the larger into [2^19, 2^20), so that
	 * the squares below neither overflow nor round to 0 */
	while (u >= (1ULL << 20) || w >= (1ULL << 20)) {
		u >>= 1;
		w >>= 1;
	}
	while (u < (1ULL << 19) && w < (1ULL << 19)) {
		u <<= 1;
		w <<= 1;
	}
	uint64_t num = (u + w) * (u + w);
	uint64_t den = u * u / (na - 1) + w * w / (nb - 1);
	if (!den)
		return 0;
	uint64_t df = num * 1000 / den;
	return df > UINT32_MAX ? UINT32_MAX : (uint32_t)df;
}

void verdict_compute(const uint64_t *a, size_t na, const uint64_t *b,
		     size_t nb, size_t min_runs, bool measurable,
		     struct verdict_row *out)
{
	if (min_runs < VERDICT_MIN_RUNS)
		min_runs = VERDICT_MIN_RUNS;
	*out = (struct verdict_row){ .na = na, .nb = nb, .word = VERDICT_NONE };
	if (na > VERDICT_MAX_RUNS)
		na = VERDICT_MAX_RUNS;
	if (nb > VERDICT_MAX_RUNS)
		nb = VERDICT_MAX_RUNS;

	uint64_t max = 0;
	for (size_t i = 0; i < na; i++)
		max = a[i] > max ? a[i] : max;
	for (size_t i = 0; i < nb; i++)
		max = b[i] > max ? b[i] : max;
	max = umin(max, VERDICT_VALUE_MAX);
	int shift = 0; /* the largest value scaled into [2^24, 2^25) */
	while ((max >> shift) >= (1ULL << SCALE_BITS))
		shift++;
	while (shift <= 0 && max && (max << -shift) < (1ULL << (SCALE_BITS - 1)))
		shift--;

	struct side_sums sa, sb;
	side_sums(a, na, shift, &sa);
	side_sums(b, nb, shift, &sb);
	out->mean_a = sa.mean;
	out->mean_b = sb.mean;
	if (!measurable)
		out->word = VERDICT_NOT_MEASURABLE;
	if (!na || !nb || !sa.mean)
		return;

	/* The change from the scaled means; when A's is tiny against the
	 * largest value (the ratio is then above 30000), from the exact
	 * ones, bounded at a million-fold. */
	out->has_change = true;
	if (sa.mean_s >= 1000) {
		int64_t d_s = (int64_t)sb.mean_s - (int64_t)sa.mean_s;
		out->change_ppm = div_round(d_s * 1000000, (int64_t)sa.mean_s);
	} else {
		uint64_t q = sb.mean / sa.mean, r = sb.mean % sa.mean;
		out->change_ppm = q >= 1000000 ? 999999000000LL
			: (int64_t)(q * 1000000 + r * 1000000 / sa.mean) - 1000000;
	}

	if (na < min_runs || nb < min_runs)
		return;
	out->has_ci = true;
	uint64_t se2 = sa.var_mean + sb.var_mean;
	out->df_milli = welch_df_milli(sa.var_mean, sb.var_mean, na, nb);
	int64_t half = 0;
	if (se2 && sa.mean_s) {
		uint64_t t = verdict_t975_micro(out->df_milli);
		/* t x 1e6 times se: below 2^23 x 2^26; / mean -> ppm */
		half = (int64_t)(t * isqrt(se2) / sa.mean_s);
	}
	/* A time cannot fall by more than all of it: the interval is cut
	 * at -100% (the word is the same either way). */
	out->lo_ppm = out->change_ppm - half;
	if (out->lo_ppm < -1000000)
		out->lo_ppm = -1000000;
	out->hi_ppm = out->change_ppm + half;
	if (!measurable)
		return;
	if (out->lo_ppm > 0)
		out->word = VERDICT_SLOWER;
	else if (out->hi_ppm < 0)
		out->word = VERDICT_FASTER;
	else
		out->word = VERDICT_SAME;
}

const char *verdict_word_text(enum verdict_word w)
{
	switch (w) {
	case VERDICT_SAME: return "no difference";
	case VERDICT_FASTER: return "faster";
	case VERDICT_SLOWER: return "slower";
	case VERDICT_NOT_MEASURABLE: return "not measurable here";
	default: return "no verdict";
	}
}

void verdict_format_pct(char *buf, size_t size, int64_t ppm)
{
	/* tenths of a percent, rounded half away from zero */
	int64_t tenths = div_round(ppm, 1000);
	uint64_t mag = (uint64_t)(tenths < 0 ? -tenths : tenths);
	fmt_snprintf(buf, size, "%c%llu.%llu%%", tenths < 0 ? '-' : '+',
		     (unsigned long long)(mag / 10), (unsigned long long)(mag % 10));
}

int verdict_format_row(char *buf, size_t size, const char *name,
		       const struct verdict_row *r)
{
	char label[24], a[24], b[24], ch[24], lo[24], hi[24], runs[48];
	fmt_snprintf(label, sizeof(label), "%s:", name);
	fmt_duration(a, sizeof(a), r->mean_a);
	fmt_duration(b, sizeof(b), r->mean_b);
	if (!r->na) /* no run: no mean, not a mean of 0 */
		fmt_snprintf(a, sizeof(a), "n/a");
	if (!r->nb)
		fmt_snprintf(b, sizeof(b), "n/a");
	ch[0] = '\0';
	if (r->has_change)
		verdict_format_pct(ch, sizeof(ch), r->change_ppm);
	if (r->na == r->nb)
		fmt_snprintf(runs, sizeof(runs), "%zu run%s%s", r->na,
			     r->na == 1 ? "" : "s", r->has_ci ? "" : " per side");
	else
		fmt_snprintf(runs, sizeof(runs), "%zu and %zu runs", r->na, r->nb);

	if (r->has_ci) {
		verdict_format_pct(lo, sizeof(lo), r->lo_ppm);
		verdict_format_pct(hi, sizeof(hi), r->hi_ppm);
		size_t n = 0;
		while (lo[n] && lo[n] != '%')
			n++;
		lo[n] = '\0'; /* "-85.0..-81.2%" */
		return fmt_snprintf(buf, size, "%-9s %s -> %s (%s, 95%% CI %s..%s) "
				    "%s, mean of %s", label, a, b, ch, lo, hi,
				    verdict_word_text(r->word), runs);
	}
	return fmt_snprintf(buf, size, "%-9s %s -> %s%s%s%s no verdict: %s "
			    "cannot tell the change from run-to-run noise", label, a, b,
			    r->has_change ? " (" : "", ch, r->has_change ? ")" : "", runs);
}
