/* SPDX-License-Identifier: MIT */
/* The phases of a bring-up (smp/phases.h): computed from the BSP's marks
 * and the AP's slot, printed as @phase records, summed per phase. */
#include "smp/phases.h"

#include "smp/smp.h"
#include "kernel/bootmem.h"
#include "kernel/console.h"
#include "kernel/tsc.h"
#include "lib/format.h"
#include "lib/phase_names.h"

/* The names are aplog's too (lib/phase_names.c), in enum phase's order. */
_Static_assert(PHASES == PHASE_NAMES_COUNT && PH_CHAIN == PHASE_NAMES_CHAIN,
	       "enum phase and lib/phase_names.c disagree");

int64_t tsc_cross_cpu(const struct cpu *c, uint64_t ap_tsc, uint64_t bsp_tsc)
{
	if (!c->tsc_synced)
		return TICKS_NA;
	return tsc_same_cpu(ap_tsc, bsp_tsc);
}

int64_t tsc_same_cpu(uint64_t later, uint64_t earlier)
{
	int64_t d = (int64_t)(later - earlier);
	return d < 0 ? TICKS_NA : d;
}

int64_t tsc_marks_diff(uint64_t later, uint64_t earlier)
{
	return later && earlier ? tsc_same_cpu(later, earlier) : TICKS_NA;
}

void phases_compute(const struct cpu *c, int64_t out[PHASES])
{
	const struct bsp_marks *m = &c->marks;
	const volatile uint64_t *ap = c->slot->tsc;

	out[PH_INIT_ASSERT] = tsc_same_cpu(m->init_assert, m->start);
	out[PH_INIT_DEASSERT] = tsc_same_cpu(m->init_deassert, m->init_assert);
	out[PH_SIPI] = tsc_same_cpu(m->sipi1, m->init_deassert);
	/* Each AP phase runs from the AP's last mark before it; the first
	 * from the SIPI (cross-CPU). A mark not taken (0) leaves its phase
	 * na and the next one spans it: Linux's trampoline (trampoline=linux)
	 * takes none before it arrives in long mode, so its phase long runs
	 * from the SIPI and real and protected are na; the chain still adds
	 * up to the total. An AP that stopped has no later marks at all. */
	uint64_t from = 0;
	for (int p = PH_REAL; p <= PH_ONLINE; p++) {
		uint64_t t = ap[AP_MARK_REAL + (p - PH_REAL)];
		out[p] = !t ? TICKS_NA : from ? tsc_marks_diff(t, from)
				       : tsc_cross_cpu(c, t, m->sipi1);
		from = t ? t : from;
	}
	out[PH_SEEN] = ap[AP_MARK_ONLINE] && m->seen
			       ? tsc_cross_cpu(c, m->seen, ap[AP_MARK_ONLINE])
			       : TICKS_NA;
	out[PH_SIPI2] = m->sipi2 ? tsc_same_cpu(m->sipi2, m->sipi1) : TICKS_NA;
	/* MARKS=0 builds: only the last phase has both its ends. */
	for (int p = 0; !APSTART_MARKS && p < PHASES; p++)
		if (p != PH_SEEN)
			out[p] = TICKS_NA;
}

/* Per phase, over every AP and cycle recorded: sums for the mean. */
static struct {
	uint64_t n, na, sum, min, max;
} table[PHASES];
static uint64_t nmi_starts; /* starts left out of the table: an NMI */

/* The records wait in a store until phases_flush(): printed between
 * measurements, ~700 bytes a start slowed the next one 2-4x under TCG
 * (serial drains while the next AP starts). Past the store, as they come. */
#define PHASE_STORE_MAX 8192u
struct stored_start {
	uint32_t cpu, cycle;
	uint8_t sipi2;         /* a second SIPI was sent */
	uint8_t nmi;           /* an NMI came within its window */
	int64_t ph[PHASES];
};
/* Two stores: the first bring-up's (allocated before it, small) and the
 * cycles' (after the sample store, so that a store too big for the RAM
 * is still the samples' to report). */
static struct {
	struct stored_start *rec;
	uint32_t cap, n;
} stores[2];
static uint32_t cur = 0;

void phases_store_init(uint32_t starts)
{
	uint32_t i = stores[0].rec ? 1 : 0;
	if (stores[i].rec || !starts)
		return;
	stores[i].cap = starts < PHASE_STORE_MAX ? starts : PHASE_STORE_MAX;
	stores[i].rec = bootmem_alloc((uint64_t)stores[i].cap * sizeof *stores[i].rec,
				      64, "the phase records");
	cur = i;
}

static void print_start(uint32_t cpu, uint32_t cycle, bool sipi2, bool nmi,
			const int64_t ph[PHASES])
{
	const struct cpu *c = &cpus[cpu];
	for (int p = 0; p < PHASES; p++) {
		if (p == PH_SIPI2 && !sipi2)
			continue; /* not sent: no such phase */
		char ns[24] = "na";
		if (ph[p] != TICKS_NA)
			fmt_snprintf(ns, sizeof ns, "%llu",
				     (unsigned long long)tsc_ticks_to_ns((uint64_t)ph[p]));
		cprintf(CON_SERIAL, "@phase cpu=%u apic=%u cycle=%u phase=%s ns=%s%s\n",
			c->index, c->apic_id, cycle, phase_names[p], ns, nmi ? " nmi=1" : "");
	}
}

void phases_flush(void)
{
	for (int k = 0; k < 2; k++) {
		for (uint32_t i = 0; i < stores[k].n; i++) {
			const struct stored_start *st = &stores[k].rec[i];
			print_start(st->cpu, st->cycle, st->sipi2, st->nmi, st->ph);
		}
		stores[k].n = 0;
	}
}

void phases_record(const struct cpu *c, uint32_t cycle, bool nmi)
{
	int64_t ph[PHASES];
	bool sipi2 = c->marks.sipi2 != 0;
	phases_compute(c, ph);
	if (stores[cur].n < stores[cur].cap) {
		struct stored_start *st = &stores[cur].rec[stores[cur].n++];
		st->cpu = c->index;
		st->cycle = cycle;
		st->sipi2 = sipi2;
		st->nmi = nmi;
		for (int p = 0; p < PHASES; p++)
			st->ph[p] = ph[p];
	} else {
		print_start(c->index, cycle, sipi2, nmi, ph);
	}
	if (cycle == 0)
		return;
	if (nmi) { /* as aplog leaves such samples out (smp/events.h) */
		nmi_starts++;
		return;
	}
	for (int p = 0; p < PHASES; p++) {
		if (p == PH_SIPI2 && !sipi2)
			continue;
		if (ph[p] == TICKS_NA) {
			table[p].na++;
			continue;
		}
		uint64_t v = tsc_ticks_to_ns((uint64_t)ph[p]);
		if (!table[p].n || v < table[p].min)
			table[p].min = v;
		if (v > table[p].max)
			table[p].max = v;
		table[p].n++;
		table[p].sum += v;
	}
}

void phases_report(void)
{
	phases_flush();
	int slowest = -1;
	uint64_t slowest_mean = 0, chain_sum = 0;

	for (int p = 0; p < PH_CHAIN; p++)
		chain_sum += table[p].n ? table[p].sum / table[p].n : 0;
	cprintf(CON_SERIAL, "phases: where an online goes, every AP and cycle "
		"(ns; the first %u add up to it, sipi2 overlaps them):\n", PH_CHAIN);
	if (nmi_starts)
		cprintf(CON_SERIAL, "  (%llu starts with an NMI in their window left "
			"out, as their nmi=1 samples are)\n", (unsigned long long)nmi_starts);
	cprintf(CON_SERIAL, "  %-14s %8s %6s %12s %12s %12s %6s\n", "phase", "n", "na",
		"mean", "min", "max", "share");
	for (int p = 0; p < PHASES; p++) {
		uint64_t n = table[p].n;
		uint64_t mean = n ? table[p].sum / n : 0;
		if (!n && !table[p].na)
			continue;
		/* share of the chain's mean, in tenths of a percent */
		uint64_t share = p < PH_CHAIN && chain_sum ? mean * 1000 / chain_sum : 0;
		cprintf(CON_SERIAL, "  %-14s %8llu %6llu %12llu %12llu %12llu %3llu.%llu%%\n",
			phase_names[p], (unsigned long long)n,
			(unsigned long long)table[p].na, (unsigned long long)mean,
			(unsigned long long)table[p].min,
			(unsigned long long)table[p].max,
			(unsigned long long)(share / 10), (unsigned long long)(share % 10));
		cprintf(CON_SERIAL, "@phases phase=%s n=%llu na=%llu mean_ns=%llu "
			"min_ns=%llu max_ns=%llu\n", phase_names[p], (unsigned long long)n,
			(unsigned long long)table[p].na, (unsigned long long)mean,
			(unsigned long long)table[p].min,
			(unsigned long long)table[p].max);
		if (p < PH_CHAIN && n && mean > slowest_mean) {
			slowest = p;
			slowest_mean = mean;
		}
	}
	if (slowest >= 0)
		kprintf("slowest phase: %s, mean %llu ns of %llu ns per online "
			"(%llu%%)\n", phase_names[slowest], (unsigned long long)slowest_mean,
			(unsigned long long)chain_sum,
			(unsigned long long)(chain_sum ? slowest_mean * 100 / chain_sum : 0));
}
