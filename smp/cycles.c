/* SPDX-License-Identifier: MIT */
/* The measurement: first bring-up of every AP, then for each AP `cycles`
 * rounds of offline (request -> parked) and online (first INIT -> online
 * mark in C), both timed on the BSP's TSC. */
#include "smp/smp.h"
#include "smp/wakeup.h"
#include "kernel/abort.h"
#include "kernel/console.h"
#include "kernel/tsc.h"

static uint64_t online_pool[SMP_SAMPLES_MAX];
static uint64_t offline_pool[SMP_SAMPLES_MAX];

uint32_t smp_max_cycles(uint32_t aps)
{
	return aps ? SMP_SAMPLES_MAX / aps : SMP_SAMPLES_MAX;
}

/* Records go to serial only: thousands of lines would bury the screen;
 * the summary goes to both. */
static void offline_line(const struct cpu *c, uint32_t cycle, uint64_t ticks)
{
	cprintf(CON_SERIAL, "@sample cpu=%u apic=%u cycle=%u op=offline ns=%llu ticks=%llu\n",
		c->index, c->apic_id, cycle,
		(unsigned long long)tsc_ticks_to_ns(ticks),
		(unsigned long long)ticks);
}

static void online_line(const struct cpu *c, uint32_t cycle,
			const struct start_phases *ph)
{
	cprintf(CON_SERIAL, "@sample cpu=%u apic=%u cycle=%u op=online ns=%llu ticks=%llu "
		"to_real_ns=%llu to_long_ns=%llu to_online_ns=%llu\n",
		c->index, c->apic_id, cycle,
		(unsigned long long)tsc_ticks_to_ns(ph->total),
		(unsigned long long)ph->total,
		(unsigned long long)tsc_ticks_to_ns(ph->to_real),
		(unsigned long long)tsc_ticks_to_ns(ph->to_long),
		(unsigned long long)tsc_ticks_to_ns(ph->to_online));
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

	for (uint32_t i = 0; i < cpu_count && !run_ended(); i++) {
		struct cpu *c = &cpus[i];
		if (c->state != CPU_ABSENT)
			continue;
		struct start_phases ph;
		if (ap_start(c, w, &ph)) {
			c->boot_ticks = ph.total;
			cprintf(CON_SERIAL, "@cpu cpu=%u apic=%u state=online boot_ns=%llu\n",
				c->index, c->apic_id,
				(unsigned long long)tsc_ticks_to_ns(c->boot_ticks));
		}
	}
}

void smp_run_cycles(const struct wake_config *w, uint32_t cycles)
{
	uint32_t slot = 0;

	for (uint32_t i = 0; i < cpu_count && !run_ended(); i++) {
		struct cpu *c = &cpus[i];
		if (c->bsp || c->state != CPU_ONLINE)
			continue;
		c->online_ticks = &online_pool[slot * cycles];
		c->offline_ticks = &offline_pool[slot * cycles];
		slot++;
		for (uint32_t k = 0; k < cycles && !run_ended(); k++) {
			uint64_t t;
			struct start_phases ph;
			if (!ap_offline(c, w, &t))
				break;
			c->offline_ticks[k] = t;
			offline_line(c, k + 1, t);
			if (!ap_start(c, w, &ph))
				break;
			c->online_ticks[k] = ph.total;
			c->cycles_done = k + 1;
			online_line(c, k + 1, &ph);
		}
	}
}

void smp_park_all(const struct wake_config *w)
{
	for (uint32_t i = 0; i < cpu_count; i++) {
		struct cpu *c = &cpus[i];
		uint64_t t;
		if (!c->bsp && c->state == CPU_ONLINE)
			ap_offline(c, w, &t);
	}
}
