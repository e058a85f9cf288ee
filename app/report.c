/* SPDX-License-Identifier: MIT */
/* Results: one row per CPU, totals as the reference gives them ("Online:
 * 65.83 s"), @summary records. Online totals are the BSP's figure (what
 * Linux's bring-up waits for); offline ones the settled figure, since
 * Linux's park path flushes after the BSP has stopped waiting. */
#include "app/report.h"

#include "smp/measure.h"
#include "smp/phases.h"
#include "smp/smp.h"
#include "kernel/bootmem.h"
#include "kernel/console.h"
#include "kernel/tsc.h"
#include "lib/format.h"
#include "lib/stats.h"

/* Room for every sample of one direction (the pools in smp/measure.c),
 * taken from free RAM on first use, when their number is known. */
static uint64_t *scratch;
static uint32_t scratch_len;
static struct ap_result *ap_results; /* one per AP, from bootmem */
static struct run_result result;
static bool reported;

/* "123.4" microseconds from nanoseconds, no FPU. */
static void format_us(char *buf, uint32_t size, uint64_t ns)
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

static void cpu_stats(const struct cpu *c, const uint64_t *ticks, struct stats *out)
{
	uint32_t n = c->cycles_done;
	for (uint32_t k = 0; k < n; k++)
		scratch[k] = tsc_ticks_to_ns(ticks[k]);
	stats_compute(scratch, n, out);
}

/* The same for a cross-CPU figure; false (no statistics) if any sample
 * is TICKS_NA. */
static bool cpu_stats_cross(const struct cpu *c, const int64_t *ticks, struct stats *out)
{
	uint32_t n = c->cycles_done;
	for (uint32_t k = 0; k < n; k++) {
		if (ticks[k] == TICKS_NA)
			return false;
		scratch[k] = tsc_ticks_to_ns((uint64_t)ticks[k]);
	}
	stats_compute(scratch, n, out);
	return true;
}

/* Every AP's samples of one figure, in ns, into scratch; false if a
 * cross-CPU figure (cross != NULL) has a TICKS_NA among them. */
static bool gather(const uint64_t *(*bsp)(const struct cpu *),
		   const int64_t *(*cross)(const struct cpu *), uint32_t *ncpu,
		   uint32_t *count)
{
	uint32_t n = 0;
	*ncpu = 0;
	if (!scratch) { /* the report runs once the cycles are over */
		uint64_t total = 1;
		for (uint32_t i = 0; i < cpu_count; i++)
			total += cpus[i].bsp ? 0 : cpus[i].cycles_done;
		if (total > SMP_SAMPLES_MAX)
			total = SMP_SAMPLES_MAX;
		scratch = bootmem_alloc(total * sizeof *scratch, 4096, "the report's sort buffer");
		scratch_len = (uint32_t)total;
	}
	for (uint32_t i = 0; i < cpu_count; i++) {
		const struct cpu *c = &cpus[i];
		if (c->bsp || !c->cycles_done)
			continue;
		(*ncpu)++;
		for (uint32_t k = 0; k < c->cycles_done && n < scratch_len; k++) {
			if (bsp) {
				scratch[n++] = tsc_ticks_to_ns(bsp(c)[k]);
				continue;
			}
			int64_t t = cross(c)[k];
			if (t == TICKS_NA)
				return false;
			scratch[n++] = tsc_ticks_to_ns((uint64_t)t);
		}
	}
	*count = n;
	return true;
}

static const uint64_t *online_of(const struct cpu *c) { return c->online_ticks; }
static const uint64_t *offline_of(const struct cpu *c) { return c->offline_ticks; }
static const int64_t *ap_of(const struct cpu *c) { return c->ap_ticks; }
static const int64_t *settled_of(const struct cpu *c) { return c->settled_ticks; }

/* "total_ns=T median_ns=T" with a prefix, or "=na" for both. */
static void cross_summary(char *buf, uint32_t size, const char *prefix,
			  const int64_t *(*cross)(const struct cpu *), bool *ok,
			  uint64_t *total)
{
	uint32_t ncpu, n;
	struct stats s;
	*ok = gather(NULL, cross, &ncpu, &n);
	if (!*ok) {
		fmt_snprintf(buf, size, "%s_total_ns=na %s_median_ns=na", prefix, prefix);
		return;
	}
	stats_compute(scratch, n, &s);
	*total = s.sum;
	fmt_snprintf(buf, size, "%s_total_ns=%llu %s_median_ns=%llu", prefix,
		     (unsigned long long)s.sum, prefix, (unsigned long long)s.median);
}

/* One @summary record: the BSP's figure (total_ns, ...) and the op's
 * cross-CPU one (ap_ or settled_). *used gets the statistics of the
 * figure the totals use (see the top of this file); *cross_ok says
 * which. */
static void op_summary(const char *op, bool online, uint32_t cycles, bool *cross_ok,
		       struct stats *used)
{
	uint32_t n, ncpu;
	struct stats s;
	char cross[96];
	uint64_t cross_total = 0;

	gather(online ? online_of : offline_of, NULL, &ncpu, &n);
	stats_compute(scratch, n, &s);
	cross_summary(cross, sizeof cross, online ? "ap" : "settled",
		      online ? ap_of : settled_of, cross_ok, &cross_total);
	kprintf("@summary op=%s cpus=%u cycles=%u total_ns=%llu mean_ns=%llu "
		"median_ns=%llu min_ns=%llu max_ns=%llu %s\n",
		op, ncpu, cycles, (unsigned long long)s.sum,
		(unsigned long long)s.mean, (unsigned long long)s.median,
		(unsigned long long)s.min, (unsigned long long)s.max, cross);
	*used = s;
	if (!online && *cross_ok) {
		gather(NULL, settled_of, &ncpu, &n);
		stats_compute(scratch, n, used);
	}
}

void report_cpusum_line(char *buf, uint32_t size, const struct ap_result *a)
{
	fmt_snprintf(buf, size, "@cpusum cpu=%u apic=%u cycles=%u online_median_ns=%llu "
		     "online_max_ns=%llu offline_median_ns=%llu offline_max_ns=%llu\n",
		     a->cpu, cpus[a->cpu].apic_id, a->cycles,
		     (unsigned long long)a->online_median, (unsigned long long)a->online_max,
		     (unsigned long long)a->offline_median, (unsigned long long)a->offline_max);
}

const struct run_result *report_result(void)
{
	return reported ? &result : 0;
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
	cprintf(CON_SERIAL, "slowest online (median):");
	for (uint32_t k = 0; k < have; k++) {
		char us[24];
		format_us(us, sizeof us, med[k]);
		cprintf(CON_SERIAL, " apic %u %s us%s", cpus[idx[k]].apic_id, us,
			k + 1 < have ? "," : "\n");
	}
}

/* A cell of the table: microseconds, or "na". */
static const char *cell(char *buf, uint64_t ns, bool ok)
{
	if (!ok)
		return "na";
	format_us_cell(buf, 24, ns);
	return buf;
}

bool report_results(uint32_t cycles)
{
	bool complete = true;
	char b[8][24];
	uint32_t aps = 0, ncpu, n;

	for (uint32_t i = 0; i < cpu_count; i++)
		aps += !cpus[i].bsp && cpus[i].state != CPU_SKIPPED;
	if (!ap_results)
		ap_results = bootmem_alloc((aps ? aps : 1) * sizeof *ap_results, 8,
					   "the per-AP results");
	result = (struct run_result){ .cycles = cycles, .aps = aps, .ap = ap_results };
	/* Each AP's offline figure as the Offline total takes it. */
	bool settled_all = gather(NULL, settled_of, &ncpu, &n);

	/* The screen gets a result page of its own (wings/screen/result_page.c):
	 * the table goes to serial, and to the saved summary. Online: the
	 * BSP's figure, then the median of the AP's own; offline: the BSP's
	 * (AP reported dead), then the settled one (AP about to halt). */
	cprintf(CON_SERIAL, "\n              online (us)                 |     offline (us)\n"
		" cpu   apic  median     min     max  ap-med |  median     max settled  st-max\n");
	for (uint32_t i = 0; i < cpu_count; i++) {
		const struct cpu *c = &cpus[i];
		if (c->bsp || c->state == CPU_SKIPPED)
			continue;
		if (c->cycles_done < cycles)
			complete = false;
		else
			result.complete++;
		if (!c->cycles_done) {
			cprintf(CON_SERIAL, "%4u %6u  no samples (state %u)\n", c->index,
				c->apic_id, c->state);
			continue;
		}
		struct stats on, off, ap, st;
		cpu_stats(c, c->online_ticks, &on);
		cpu_stats(c, c->offline_ticks, &off);
		bool ap_ok = cpu_stats_cross(c, c->ap_ticks, &ap);
		bool st_ok = cpu_stats_cross(c, c->settled_ticks, &st);
		const struct stats *offf = settled_all && st_ok ? &st : &off;
		ap_results[result.n++] = (struct ap_result){
			.cpu = i, .cycles = c->cycles_done,
			.online_median = on.median, .online_min = on.min, .online_max = on.max,
			.offline_median = offf->median, .offline_max = offf->max,
		};
		cprintf(CON_SERIAL, "%4u %6u%8s%8s%8s%8s |%8s%8s%8s%8s\n",
			c->index, c->apic_id, cell(b[0], on.median, true),
			cell(b[1], on.min, true), cell(b[2], on.max, true),
			cell(b[3], ap.median, ap_ok), cell(b[4], off.median, true),
			cell(b[5], off.max, true), cell(b[6], st.median, st_ok),
			cell(b[7], st.max, st_ok));
	}
	for (uint32_t k = 0; k < result.n; k++) {
		char rec[256];
		report_cpusum_line(rec, sizeof rec, &ap_results[k]);
		cprintf(CON_SERIAL, "%s", rec);
	}

	print_slowest(5);
	phases_report();

	bool settled_ok, ap_ok;
	op_summary("offline", false, cycles, &settled_ok, &result.offline);
	op_summary("online", true, cycles, &ap_ok, &result.online);
	result.offline_settled = settled_ok;
	/* The reference's three rows, each in a unit that fits it. */
	fmt_duration(b[0], 24, result.offline.sum);
	fmt_duration(b[1], 24, result.online.sum);
	fmt_duration(b[2], 24, result.offline.sum + result.online.sum);
	kprintf("Offline: %10s  %s\nOnline:  %10s\nTotal:   %10s\n", b[0],
		settled_ok ? "until settled" : "until reported dead: settled na", b[1], b[2]);
	reported = true;
	return complete;
}
