/* SPDX-License-Identifier: MIT */
/* The measurement: first bring-up of every AP (with a TSC warp test each),
 * then for each AP `cycles` rounds of offline (request -> reported dead,
 * and -> settled) and online (first INIT -> the BSP sees the online mark,
 * and -> the AP's own mark). A sample whose window held an NMI on the
 * BSP or on its AP says nmi=1 (smp/events.h). */
#include "smp/events.h"
#include "smp/smp.h"
#include "smp/test_hooks.h"
#include "smp/tsc_sync.h"
#include "smp/wakeup.h"
#include "kernel/abort.h"
#include "kernel/bootmem.h"
#include "kernel/console.h"
#include "kernel/format.h"
#include "kernel/tsc.h"

/* The sample store: cycles entries per AP that came online, in free RAM
 * (kernel/bootmem.h), at most SMP_SAMPLES_MAX per pool (main clamps
 * cycles with smp_max_cycles). */
static uint64_t *online_pool, *offline_pool;
static int64_t *ap_pool, *settled_pool;

static void alloc_sample_store(uint32_t cycles)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < cpu_count; i++)
		n += !cpus[i].bsp && cpus[i].state == CPU_ONLINE;
	n *= cycles;
	if (n > SMP_SAMPLES_MAX)
		n = SMP_SAMPLES_MAX;
	if (n == 0 || online_pool)
		return;
	online_pool = bootmem_alloc(n * sizeof *online_pool, 4096, "the online samples");
	offline_pool = bootmem_alloc(n * sizeof *offline_pool, 4096, "the offline samples");
	ap_pool = bootmem_alloc(n * sizeof *ap_pool, 4096, "the AP-side samples");
	settled_pool = bootmem_alloc(n * sizeof *settled_pool, 4096, "the settled samples");
}

static void (*progress_hook)(const struct smp_progress *p);

void smp_set_progress_hook(void (*hook)(const struct smp_progress *p))
{
	progress_hook = hook;
}

/* Only ever between two timed windows. */
static void progress(enum smp_phase phase, uint32_t cpu, uint32_t cpus, uint32_t cycle,
		     uint32_t cycles, uint32_t done, uint32_t total)
{
	if (progress_hook)
		progress_hook(&(struct smp_progress){ phase, cpu, cpus, cycle, cycles,
						      done, total });
}

uint32_t smp_max_cycles(uint32_t aps)
{
	return aps ? SMP_SAMPLES_MAX / aps : SMP_SAMPLES_MAX;
}

/* A cross-CPU figure in ns, or "na". */
static const char *ns_or_na(char buf[24], int64_t ticks)
{
	if (ticks == TICKS_NA)
		return "na";
	fmt_snprintf(buf, 24, "%llu", (unsigned long long)tsc_ticks_to_ns((uint64_t)ticks));
	return buf;
}

/* Records go to serial only: thousands of lines would bury the screen;
 * the summary goes to both. */
static void offline_line(const struct cpu *c, uint32_t cycle,
			 const struct offline_times *t, bool nmi)
{
	char settled[24];
	cprintf(CON_SERIAL, "@sample cpu=%u apic=%u cycle=%u op=offline ns=%llu ticks=%llu "
		"settled_ns=%s nmi=%d\n",
		c->index, c->apic_id, cycle,
		(unsigned long long)tsc_ticks_to_ns(t->total),
		(unsigned long long)t->total, ns_or_na(settled, t->settled), nmi);
}

static void online_line(const struct cpu *c, uint32_t cycle,
			const struct start_phases *ph, bool nmi)
{
	char ap[24], real[24], lng[24], onl[24];
	cprintf(CON_SERIAL, "@sample cpu=%u apic=%u cycle=%u op=online ns=%llu ticks=%llu "
		"ap_ns=%s to_real_ns=%s to_long_ns=%s to_online_ns=%s nmi=%d\n",
		c->index, c->apic_id, cycle,
		(unsigned long long)tsc_ticks_to_ns(ph->total),
		(unsigned long long)ph->total, ns_or_na(ap, ph->ap),
		ns_or_na(real, ph->to_real), ns_or_na(lng, ph->to_long),
		ns_or_na(onl, ph->to_online), nmi);
}

void smp_bring_up(const struct wake_config *w)
{
	smp_bsp_wait = w->bsp_wait; /* read by the APs */
	/* Firmware may leave APs running (OVMF's spin after
	 * ExitBootServices): put every one into wait-for-SIPI before
	 * anything is timed. */
	for (uint32_t i = 0; i < cpu_count; i++)
		if (cpus[i].state == CPU_ABSENT)
			ap_send_init(&cpus[i], w);

	uint32_t aps = smp_count_state(CPU_ABSENT), k = 0;
	progress(SMP_PHASE_BRING_UP, 1, aps, 0, 0, 0, aps);
	for (uint32_t i = 0; i < cpu_count && !run_ended(); i++) {
		struct cpu *c = &cpus[i];
		if (c->state != CPU_ABSENT)
			continue;
		struct start_phases ph;
		bool started = ap_start(c, w, &ph);
		events_report();
		if (!started) {
			k++;
			progress(SMP_PHASE_BRING_UP, k, aps, 0, 0, k, aps);
			continue;
		}
		c->boot_ticks = ph.total;
		/* Linux checks each CPU it brings up (check_tsc_sync_target()
		 * in start_secondary()); here after the timed bring-up. */
		tsc_sync_check(c, w);
		cprintf(CON_SERIAL, "@cpu cpu=%u apic=%u state=online boot_ns=%llu "
			"tsc_skew_ns=%lld tsc_sync=%d retries=%u\n",
			c->index, c->apic_id,
			(unsigned long long)tsc_ticks_to_ns(c->boot_ticks),
			(long long)tsc_skew_ns(c), c->tsc_synced, c->retries);
		k++;
		progress(SMP_PHASE_BRING_UP, k, aps, 0, 0, k, aps);
	}
}

void smp_run_cycles(const struct wake_config *w, uint32_t cycles)
{
	uint32_t slot = 0, aps = 0;
	for (uint32_t i = 0; i < cpu_count; i++)
		aps += !cpus[i].bsp && cpus[i].state == CPU_ONLINE;

	alloc_sample_store(cycles);
	progress(SMP_PHASE_CYCLES, 1, aps, 0, cycles, 0, aps * cycles);
	for (uint32_t i = 0; i < cpu_count && !run_ended(); i++) {
		struct cpu *c = &cpus[i];
		if (c->bsp || c->state != CPU_ONLINE)
			continue;
		c->online_ticks = &online_pool[slot * cycles];
		c->offline_ticks = &offline_pool[slot * cycles];
		c->ap_ticks = &ap_pool[slot * cycles];
		c->settled_ticks = &settled_pool[slot * cycles];
		slot++;
		for (uint32_t k = 0; k < cycles && !run_ended(); k++) {
			struct offline_times off;
			struct start_phases ph;
			uint32_t nmis = events_window_nmis(c);
			bool ok = ap_offline(c, w, &off);
			bool nmi = events_window_nmis(c) != nmis;
			events_report();
			if (!ok)
				break;
			c->offline_ticks[k] = off.total;
			c->settled_ticks[k] = off.settled;
			offline_line(c, k + 1, &off, nmi);
			test_hook_parked(c, w);
			nmis = events_window_nmis(c);
			ok = ap_start(c, w, &ph);
			nmi = events_window_nmis(c) != nmis;
			events_report();
			if (!ok)
				break;
			c->online_ticks[k] = ph.total;
			c->ap_ticks[k] = ph.ap;
			c->cycles_done = k + 1;
			online_line(c, k + 1, &ph, nmi);
			progress(SMP_PHASE_CYCLES, slot, aps, k + 1, cycles,
				 (slot - 1) * cycles + k + 1, aps * cycles);
		}
	}
}

void smp_park_all(const struct wake_config *w)
{
	for (uint32_t i = 0; i < cpu_count; i++) {
		struct cpu *c = &cpus[i];
		if (!c->bsp && c->state == CPU_ONLINE)
			ap_halt(c, w);
	}
}
