/* SPDX-License-Identifier: MIT */
/* The phases and the parallel rounds as tables (phase_tables.h). */
#include "tools/aplog/out/phase_tables.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/aplog/out/text.h"
#include "tools/aplog/stats/phases.h"
#include "tools/aplog/stats/statistics.h"
#include "tools/aplog/util.h"

void print_phases(const struct side *sd)
{
	if (!side_has_phases(sd))
		return;
	struct phase_pool p;
	phase_pool_build(sd, ALL_APICS, &p);
	double chain = 0;
	uint64_t med[PHASE_COUNT] = { 0 };
	for (int k = 0; k < PHASE_COUNT; k++) {
		med[k] = p.n[k] ? median_of(p.v[k], p.n[k]) : 0;
		if (k < PHASE_CHAIN)
			chain += (double)med[k];
	}
	printf("\nPhases of an online, every AP and cycle, microseconds (the first "
	       "%d follow each other; sipi2 overlaps them; share = of the sum of "
	       "their medians):\n", PHASE_CHAIN);
	printf("%-14s %6s %5s %11s %11s %11s %11s %6s\n", "phase", "n", "na",
	       "mean", "median", "min", "max", "share");
	int slowest = -1;
	for (int k = 0; k < PHASE_COUNT; k++) {
		if (!p.n[k] && !p.na[k])
			continue;
		printf("%-14s %6zu %5zu", phase_names[k], p.n[k], p.na[k]);
		if (p.n[k]) {
			struct stats d;
			describe(p.v[k], p.n[k], &d);
			put_us_stats(&d, 11);
		} else {
			printf(" %11s %11s %11s %11s", "-", "-", "-", "-");
		}
		if (k < PHASE_CHAIN && chain > 0)
			printf(" %5.1f%%", 100.0 * (double)med[k] / chain);
		putchar('\n');
		if (k < PHASE_CHAIN && p.n[k] && (slowest < 0 || med[k] > med[slowest]))
			slowest = k;
	}
	if (slowest >= 0)
		printf("Slowest phase (median): %s\n", phase_names[slowest]);
	phase_pool_free(&p);
}

void print_rounds(const struct side *sd)
{
	if (!side_has_rounds(sd))
		return;
	printf("\nParallel rounds (cycles_mode=parallel: every AP at once), wall "
	       "time per round, microseconds:\n");
	printf("%-8s %6s %6s %11s %11s %11s\n", "op", "rounds", "aps", "median", "min",
	       "max");
	for (int op = 0; op < OP_COUNT; op++) {
		size_t n = 0, cap = 0;
		uint32_t aps = 0;
		for (size_t i = 0; i < sd->set.n; i++)
			cap += sd->set.runs[i].nrounds;
		uint64_t *v = xrealloc_array(NULL, cap ? cap : 1, sizeof(*v));
		for (size_t i = 0; i < sd->set.n; i++) {
			const struct run *r = &sd->set.runs[i];
			if (run_use(r) == USE_NONE)
				continue;
			for (size_t j = 0; j < r->nrounds; j++)
				if (r->rounds[j].op == op) {
					v[n++] = r->rounds[j].ns;
					if (r->rounds[j].aps > aps)
						aps = r->rounds[j].aps;
				}
		}
		if (n) {
			qsort(v, n, sizeof(*v), cmp_u64);
			printf("%-8s %6zu %6" PRIu32 " ", op_name[op], n, aps);
			put_us((double)median_of(v, n), 11);
			printf(" ");
			put_us((double)v[0], 11);
			printf(" ");
			put_us((double)v[n - 1], 11);
			putchar('\n');
		}
		free(v);
	}
}

void print_phase_compare(const struct side s[2])
{
	if (!side_has_phases(&s[0]) || !side_has_phases(&s[1]))
		return;
	struct phase_pool p[2];
	phase_pool_build(&s[0], ALL_APICS, &p[0]);
	phase_pool_build(&s[1], ALL_APICS, &p[1]);
	printf("\nPhases, median per phase over every AP and cycle, microseconds "
	       "(A -> B):\n");
	for (int k = 0; k < PHASE_COUNT; k++) {
		if (!p[0].n[k] && !p[1].n[k])
			continue;
		printf("  %-14s ", phase_names[k]);
		double a = p[0].n[k] ? (double)median_of(p[0].v[k], p[0].n[k]) : -1;
		double b = p[1].n[k] ? (double)median_of(p[1].v[k], p[1].n[k]) : -1;
		if (a >= 0)
			put_us(a, 11);
		else
			printf("%11s", "n/a");
		printf(" -> ");
		if (b >= 0)
			put_us(b, 11);
		else
			printf("%11s", "n/a");
		if (a >= 0 && b >= 0)
			printf("  (%+.3f us)", (b - a) / 1000);
		putchar('\n');
	}
	phase_pool_free(&p[0]);
	phase_pool_free(&p[1]);
}

void print_phase_csv(const struct set *set)
{
	printf("file,run,wbinvd,cpu,apic,cycle,phase,ns,nmi\n");
	for (size_t i = 0; i < set->n; i++) {
		const struct run *r = &set->runs[i];
		for (size_t j = 0; j < r->nph; j++) {
			const struct phase_rec *ph = &r->ph[j];
			csv_field(r->file);
			printf(",%u,%u,%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%s,",
			       r->index, r->wbinvd, ph->cpu, ph->apic, ph->cycle,
			       phase_names[ph->phase]);
			if (ph->na)
				printf("na,%d\n", ph->nmi);
			else
				printf("%" PRIu64 ",%d\n", ph->ns, ph->nmi);
		}
	}
}
