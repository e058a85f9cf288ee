/* SPDX-License-Identifier: MIT */
/* Waiting for APs: one bounded wait, for one AP and for a set, used by
 * every start and every offline (smp/one_ap.c, smp/many_aps.c,
 * smp/sipi.c). Inline: a measured window ends in it, and one AP's wait
 * compiles to the short loop it was first written as. */
#ifndef APSTART_AP_WAIT_H
#define APSTART_AP_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include "smp/lapic.h"
#include "smp/smp.h"
#include "smp/wake.h"
#include "kernel/abort.h"
#include "kernel/trap.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"

/* What the BSP waits for, read with acquire ordering (the AP's release
 * stores publish its marks and slot first). */
static inline bool ap_is_online(const struct cpu *c)
{
	return __atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == CPU_ONLINE;
}

static inline bool ap_is_parked(const struct cpu *c) /* reported dead */
{
	return __atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == CPU_PARKED;
}

static inline bool ap_has_settled(const struct cpu *c) /* flushed, about to halt */
{
	return __atomic_load_n(&c->tsc_settled, __ATOMIC_ACQUIRE) != 0;
}

/* Until done(set[i]) for every i with want[i] (every i: want NULL),
 * bounded by ap_timeout_ms (bsp_wait=hlt: asleep, the LAPIC timer as
 * safety net); seen[i] <- the BSP's TSC when it saw it, 0: timed out.
 * Another CPU ending the run stops the BSP here, silent. */
static inline void ap_wait_all(struct cpu *const *set, uint32_t n, const bool *want,
			       bool (*done)(const struct cpu *), uint64_t *seen,
			       const struct wake_config *w)
{
	uint64_t deadline = tsc_deadline_us((uint64_t)w->ap_timeout_ms * 1000);
	bool halt = w->bsp_wait == BSP_WAIT_HLT;
	uint32_t pending = 0;

	for (uint32_t i = 0; i < n; i++) {
		seen[i] = 0;
		pending += !want || want[i];
	}
	if (halt)
		lapic_timer_periodic_us(1000);
	while (pending) {
		cli();
		for (uint32_t i = 0; i < n; i++) {
			if ((want && !want[i]) || seen[i] || !done(set[i]))
				continue;
			seen[i] = rdtsc();
			pending--;
		}
		if (!pending)
			break;
		if (run_ended())
			halt_forever();
		if (tsc_passed(deadline))
			break;
		if (halt)
			sti_hlt();
		else
			cpu_relax();
	}
	if (halt)
		lapic_timer_stop();
}

/* The same for one AP: the BSP's TSC when it saw done(c), or 0. */
static inline uint64_t ap_wait_one(struct cpu *c, bool (*done)(const struct cpu *),
				   const struct wake_config *w)
{
	uint64_t seen;
	ap_wait_all(&c, 1, NULL, done, &seen, w);
	return seen;
}

#endif
