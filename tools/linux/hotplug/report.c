// SPDX-License-Identifier: MIT
/* @sample/@summary records and the per-CPU table. Statistics are the
 * kernel's own (lib/stats.c, as aplog's): median of an even count is the
 * mean of the middle two (rounded down), mean rounded down. */
#include "report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"

static const char *const op_name[2] = { "offline", "online" };

int lh_samples_alloc(struct lh_samples *s, size_t slots, uint32_t cycles)
{
	memset(s, 0, sizeof(*s));
	s->cycles = cycles;
	s->slots = slots;
	size_t n = slots * cycles;
	if (slots && n / slots != cycles)
		return -1;
	for (int op = 0; op < 2; op++) {
		s->ns[op] = calloc(n ? n : 1, sizeof(uint64_t));
		if (!s->ns[op])
			return -1;
	}
	return 0;
}

void lh_samples_free(struct lh_samples *s)
{
	free(s->ns[0]);
	free(s->ns[1]);
	memset(s, 0, sizeof(*s));
}

void lh_print_sample(const struct lh_cpu *c, uint32_t cycle, enum lh_op op,
		     uint64_t ns)
{
	/* ticks: CLOCK_MONOTONIC counts nanoseconds (tsc_khz=1000000 in
	 * @boot), so ticks = ns. */
	printf("@sample cpu=%u apic=%ld cycle=%" PRIu32 " op=%s ns=%" PRIu64
	       " ticks=%" PRIu64 "\n", c->id, c->apic, cycle, op_name[op], ns, ns);
}

static void us_cell(char *b, size_t len, uint64_t ns)
{
	snprintf(b, len, "%.1f", (double)ns / 1e3);
}

void lh_report(const struct lh_cpus *cs, const struct lh_samples *s)
{
	size_t total = s->slots * s->cycles;
	uint64_t *all = malloc((total ? total : 1) * sizeof(uint64_t));
	uint64_t *one = malloc((s->cycles ? s->cycles : 1) * sizeof(uint64_t));
	if (!all || !one) {
		fprintf(stderr, "linux-hotplug: out of memory for the report\n");
		free(all);
		free(one);
		return;
	}

	printf("\n                 online (us)                        | offline (us)\n"
	       " cpu   apic      mean    median       min       max |      mean    median       min       max\n");
	size_t slot = 0, ncpu = 0;
	for (size_t i = 0; i < cs->n; i++) {
		const struct lh_cpu *c = &cs->cpu[i];
		if (!c->selected)
			continue;
		size_t base = slot++ * s->cycles;
		if (!c->samples[0] && !c->samples[1]) {
			printf("%4u %6ld  no samples%s\n", c->id, c->apic,
			       c->failed ? " (failed)" : "");
			continue;
		}
		ncpu++;
		char b[8][24];
		for (int op = 1; op >= 0; op--) {
			struct stats st;
			/* A CPU that went offline but did not come back has one
			 * offline sample more than online ones. */
			size_t n = c->samples[op];
			memcpy(one, s->ns[op] + base, n * sizeof(uint64_t));
			stats_compute(one, n, &st);
			int k = op == 1 ? 0 : 4;
			us_cell(b[k], 24, st.mean);
			us_cell(b[k + 1], 24, st.median);
			us_cell(b[k + 2], 24, st.min);
			us_cell(b[k + 3], 24, st.max);
		}
		printf("%4u %6ld%10s%10s%10s%10s |%10s%10s%10s%10s%s\n", c->id, c->apic,
		       b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
		       c->failed ? " (failed)" : "");
	}

	uint64_t tot[2];
	for (int op = 0; op < 2; op++) {
		size_t n = 0;
		slot = 0;
		for (size_t i = 0; i < cs->n; i++) {
			const struct lh_cpu *c = &cs->cpu[i];
			if (!c->selected)
				continue;
			size_t base = slot++ * s->cycles;
			memcpy(all + n, s->ns[op] + base, c->samples[op] * sizeof(uint64_t));
			n += c->samples[op];
		}
		struct stats st;
		stats_compute(all, n, &st);
		tot[op] = st.sum;
		printf("@summary op=%s cpus=%zu cycles=%" PRIu32 " total_ns=%" PRIu64
		       " mean_ns=%" PRIu64 " median_ns=%" PRIu64 " min_ns=%" PRIu64
		       " max_ns=%" PRIu64 "\n", op_name[op], ncpu, s->cycles, st.sum,
		       st.mean, st.median, st.min, st.max);
	}
	uint64_t sum = tot[0] + tot[1];
	printf("Offline: %8.2f s  (%.3f ms)\nOnline:  %8.2f s  (%.3f ms)\n"
	       "Total:   %8.2f s  (%.3f ms)\n",
	       tot[0] / 1e9, tot[0] / 1e6, tot[1] / 1e9, tot[1] / 1e6,
	       sum / 1e9, sum / 1e6);
	free(all);
	free(one);
}
