/* SPDX-License-Identifier: MIT */
/* Statistics over samples (statistics.h). */
#include "tools/aplog/stats/statistics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/aplog/util.h"

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
