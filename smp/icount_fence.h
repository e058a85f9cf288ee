/* SPDX-License-Identifier: MIT */
/* icount=on: what keeps QEMU -icount timing exact (the timing lane's
 * deterministic gate, docs/timing.md). */
#ifndef APSTART_ICOUNT_FENCE_H
#define APSTART_ICOUNT_FENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "smp/lapic.h"
#include "smp/wake.h"

/* For QEMU -icount (round-robin TCG, seen with QEMU 7.2): the AP carries
 * out INIT inside its own time slice, and INIT's CPU reset zeroes the
 * slice's instruction counters, so QEMU books the whole slice as executed
 * and virtual time (every TSC) jumps to the next timer deadline, up to
 * 100 ms away. A halted AP takes INIT only together with the first SIPI,
 * at the BSP's first yield after it. So a LAPIC timer at its shortest
 * period keeps that deadline a few ns away until just after the first
 * SIPI; it stops right behind that ICR write (after one PAUSE, the
 * yield), or it would slice the AP's trampoline run into ns pieces
 * interleaved with the BSP's. Interrupts are off: it only leaves
 * VEC_TIMER pending. Armed before t0, costing the measurement nothing,
 * unless an INIT delay would keep it ticking for ms (slow on the host):
 * then after the INIT. Off on real hardware. */

/* Before t0: arm the fence if it goes before the INIT; true if armed. */
static inline bool icount_fence_arm_early(const struct wake_config *w)
{
	bool early = w->icount_fence && w->init_delay_us == 0;
	if (early)
		lapic_timer_periodic_ticks(1);
	return early;
}

/* Right after the INIT: arm the fence if it was not armed early. */
static inline void icount_fence_arm_late(const struct wake_config *w, bool armed)
{
	if (w->icount_fence && !armed)
		lapic_timer_periodic_ticks(1);
}

/* PAUSE (the yield), then stop the fence timer. */
void icount_fence_stop(void);

/* What the send of STARTUP IPI number `sipi` (from 0) does right behind
 * its ICR write: stop the fence after the first one. */
static inline void (*icount_fence_after_sipi(const struct wake_config *w,
					     uint32_t sipi))(void)
{
	return w->icount_fence && sipi == 0 ? icount_fence_stop : NULL;
}

#endif
