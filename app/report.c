/* SPDX-License-Identifier: MIT */
/* Results: one row per CPU, totals in the form of the reference
 * measurement ("Online: 65.83 s"), and @summary records. */
#include "app/report.h"

#include "smp/smp.h"
#include "kernel/console.h"
#include "kernel/format.h"
#include "kernel/stats.h"
#include "kernel/tsc.h"

/* Room for every sample of one direction (the pools in smp/cycles.c). */
static uint64_t scratch[SMP_SAMPLES_MAX];

void format_seconds(char *buf, uint32_t size, uint64_t ns)
{
	uint64_t centis = (ns + 5000000) / 10000000; /* rounded to 0.01 s */
	fmt_snprintf(buf, size, "%llu.%02llu", (unsigned long long)(centis / 100),
		     (unsigned long long)(centis % 100));
}

void format_us(char *buf, uint32_t size, uint64_t ns)
{
	uint64_t tenths = (ns + 50) / 100; /* rounded to 0.1 us */
	fmt_snprintf(buf, size, "%llu.%llu", (unsigned long long)(tenths / 10),
		     (unsigned long long)(tenths % 10));
}

/* At most 7 characters up to 10 s: 0.1 us resolution below 1 ms, whole
 * microseconds above (WBINVD on a big machine costs ~100000 us). */
static void format_us_cell(char *buf, uint32_t size, uint64_t ns)
{
	if (ns < 999950)
		format_us(buf, size, ns);
	else
		fmt_snprintf(buf, size, "%llu", (unsigned long long)((ns + 500) / 1000));
}

static void format_ms(char *buf, uint32_t size, uint64_t ns)
{
	uint64_t us = (ns + 500) / 1000;
	fmt_snprintf(buf, size, "%llu.%03llu", (unsigned long long)(us / 1000),
		     (unsigned long long)(us % 1000));
}

static void cpu_stats(const struct cpu *c, const uint64_t *ticks,
		      struct stats *out)
{
	uint32_t n = c->cycles_done;
	for (uint32_t k = 0; k < n; k++)
		scratch[k] = tsc_ticks_to_ns(ticks[k]);
	stats_compute(scratch, n, out);
}

static void op_summary(const char *op, bool online, uint32_t cycles,
		       uint64_t *total_ns_out)
{
	uint32_t n = 0, ncpu = 0;
	for (uint32_t i = 0; i < cpu_count; i++) {
		const struct cpu *c = &cpus[i];
		if (c->bsp || !c->cycles_done)
			continue;
		ncpu++;
		const uint64_t *t = online ? c->online_ticks : c->offline_ticks;
		for (uint32_t k = 0; k < c->cycles_done && n < SMP_SAMPLES_MAX; k++)
			scratch[n++] = tsc_ticks_to_ns(t[k]);
	}
	struct stats s;
	stats_compute(scratch, n, &s);
	*total_ns_out = s.sum;
	kprintf("@summary op=%s cpus=%u cycles=%u total_ns=%llu mean_ns=%llu "
		"median_ns=%llu min_ns=%llu max_ns=%llu\n",
		op, ncpu, cycles, (unsigned long long)s.sum,
		(unsigned long long)s.mean, (unsigned long long)s.median,
		(unsigned long long)s.min, (unsigned long long)s.max);
}

/* The few CPUs with the slowest median online time: on a big machine
 * the per-CPU rows scroll by on serial, this stays on the screen. */
static void print_slowest(uint32_t want)
{
	uint32_t idx[8];
	uint64_t med[8];
	uint32_t have = 0;

	if (want > 8)
		want = 8;
	for (uint32_t i = 0; i < cpu_count; i++) {
		const struct cpu *c = &cpus[i];
		if (c->bsp || !c->cycles_done)
			continue;
		struct stats st;
		cpu_stats(c, c->online_ticks, &st);
		/* insertion into a short list sorted slowest first */
		uint32_t pos = have < want ? have : want;
		while (pos > 0 && med[pos - 1] < st.median) {
			if (pos < want) {
				med[pos] = med[pos - 1];
				idx[pos] = idx[pos - 1];
			}
			pos--;
		}
		if (pos < want) {
			med[pos] = st.median;
			idx[pos] = i;
			if (have < want)
				have++;
		}
	}
	if (!have)
		return;
	kprintf("slowest online (median):");
	for (uint32_t k = 0; k < have; k++) {
		char us[24];
		format_us(us, sizeof us, med[k]);
		kprintf(" apic %u %s us%s", cpus[idx[k]].apic_id, us,
			k + 1 < have ? "," : "\n");
	}
}

bool report_results(uint32_t cycles)
{
	bool complete = true;
	char b[8][24];
	uint32_t aps = 0;

	for (uint32_t i = 0; i < cpu_count; i++)
		aps += !cpus[i].bsp && cpus[i].state != CPU_SKIPPED;
	/* Up to a screenful of rows goes everywhere; beyond that the rows
	 * scroll by on serial only and the screen keeps the totals. */
	unsigned rows_to = aps <= 16 ? CON_ALL : CON_SERIAL;
	if (rows_to == CON_SERIAL)
		cprintf(CON_SCREEN, "(%u per-CPU rows on the serial console)\n", aps);

	/* 78 columns: fits the 80x25 VGA text screen. */
	cprintf(rows_to, "\n              online (us)                      | offline (us)\n"
		" cpu   apic    mean  median     min     max |    mean  median     min     max\n");
	for (uint32_t i = 0; i < cpu_count; i++) {
		const struct cpu *c = &cpus[i];
		if (c->bsp || c->state == CPU_SKIPPED)
			continue;
		if (c->cycles_done < cycles)
			complete = false;
		if (!c->cycles_done) {
			cprintf(rows_to, "%4u %6u  no samples (state %u)\n", c->index,
				c->apic_id, c->state);
			continue;
		}
		struct stats on, off;
		cpu_stats(c, c->online_ticks, &on);
		cpu_stats(c, c->offline_ticks, &off);
		format_us_cell(b[0], 24, on.mean);
		format_us_cell(b[1], 24, on.median);
		format_us_cell(b[2], 24, on.min);
		format_us_cell(b[3], 24, on.max);
		format_us_cell(b[4], 24, off.mean);
		format_us_cell(b[5], 24, off.median);
		format_us_cell(b[6], 24, off.min);
		format_us_cell(b[7], 24, off.max);
		cprintf(rows_to,
			"%4u %6u%8s%8s%8s%8s |%8s%8s%8s%8s\n",
			c->index, c->apic_id, b[0], b[1], b[2], b[3], b[4],
			b[5], b[6], b[7]);
	}

	print_slowest(5);

	uint64_t on_total, off_total;
	op_summary("offline", false, cycles, &off_total);
	op_summary("online", true, cycles, &on_total);
	format_seconds(b[0], 24, off_total);
	format_seconds(b[1], 24, on_total);
	format_seconds(b[2], 24, off_total + on_total);
	/* The reference form, plus milliseconds: QEMU totals are far below
	 * 0.01 s. */
	format_ms(b[3], 24, off_total);
	format_ms(b[4], 24, on_total);
	format_ms(b[5], 24, off_total + on_total);
	kprintf("Offline: %8s s  (%s ms)\nOnline:  %8s s  (%s ms)\nTotal:   %8s s  (%s ms)\n",
		b[0], b[3], b[1], b[4], b[2], b[5]);
	return complete;
}
