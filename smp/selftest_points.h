/* SPDX-License-Identifier: MIT */
/* The named points of the AP path where a self-test (selftest=, the
 * failure paths made to happen on purpose) may act. The core owns them:
 * the selftest wing (wings/selftest/) fills selftest_points and sets
 * selftest_armed when it arms one; without it, or without selftest=, each
 * point is one compare that is never taken, so a run costs what it did
 * before the points existed. No point lies inside a timed window but
 * ap_arrived and sipis_sent, and those only act on the first bring-up of
 * the one AP chosen (never on the cycles that are measured). */
#ifndef APSTART_SELFTEST_POINTS_H
#define APSTART_SELFTEST_POINTS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/keyword.h"

struct cpu;
struct wake_config;

/* Make something go wrong on purpose, once, on the first AP to be
 * started (the BSP for bsp-fault). tsc-skew: that AP sets its TSC back
 * (WRMSR IA32_TSC) before it comes online, so the warp test must find it
 * out of step and its cross-CPU figures must print as na. lost-sipi:
 * that AP's first wake-up sends INIT but no STARTUP IPI, so that only
 * sipi_retry brings it online. stray-ipi: the BSP sends that AP, once
 * parked, and an idle online AP an interrupt vector nobody handles.
 * parked-nmi: the BSP sends that AP, once parked, an NMI IPI; it must
 * go back to its park loop and come online at the next wake-up. smi:
 * the BSP raises one System Management Interrupt inside one timed
 * window's bracket, which must come out marked smi=1 (needs a machine
 * with SMM: QEMU's pc/q35 with SeaBIOS). */
enum selftest { SELFTEST_NONE, SELFTEST_BSP_FAULT, SELFTEST_AP_FAULT,
		SELFTEST_AP_HANG, SELFTEST_DOUBLE_START, SELFTEST_APIC_RENUMBER,
		SELFTEST_AP_LATE, SELFTEST_TSC_SKEW, SELFTEST_LOST_SIPI,
		SELFTEST_STRAY_IPI, SELFTEST_PARKED_NMI, SELFTEST_SMI };
extern const struct keyword selftest_words[]; /* selftest=: smp/modes.c */

/* The self-test armed, SELFTEST_NONE until the wing arms one (before any
 * AP starts; read by the APs). */
extern enum selftest selftest_armed;

/* What the wing does at each point; called only when selftest_armed says
 * the point is the armed test's. */
struct selftest_points {
	/* AP, in ap_entry() before it enables its LAPIC. */
	void (*ap_arrived)(struct cpu *c);
	/* BSP, in ap_start() right after the STARTUP IPIs. */
	void (*sipis_sent)(struct cpu *c, const struct wake_config *w, uint8_t vector);
	/* BSP, before t0 of a start: true to leave its STARTUP IPIs out. */
	bool (*lose_sipis)(struct cpu *c);
	/* BSP, once AP c went offline in a cycle (between two windows). */
	void (*parked)(struct cpu *c, const struct wake_config *w);
	/* BSP, after it gave up on an AP, before the INIT that stops it. */
	void (*gave_up)(struct cpu *c);
	/* BSP, a cycle's online bracket is open (confound_open()), the
	 * start not begun: slot is the AP's place (1-based), cycle from 0. */
	void (*bracket_open)(uint32_t slot, uint32_t cycle);
};
extern struct selftest_points selftest_points;

/* The points, each in one place on the path (see the struct). */
static inline void selftest_at_ap_arrived(struct cpu *c)
{
	if (selftest_armed != SELFTEST_NONE)
		selftest_points.ap_arrived(c);
}

static inline void selftest_at_sipis_sent(struct cpu *c, const struct wake_config *w,
					  uint8_t vector)
{
	if (selftest_armed == SELFTEST_DOUBLE_START)
		selftest_points.sipis_sent(c, w, vector);
}

static inline bool selftest_at_lose_sipis(struct cpu *c)
{
	return selftest_armed == SELFTEST_LOST_SIPI && selftest_points.lose_sipis(c);
}

static inline void selftest_at_parked(struct cpu *c, const struct wake_config *w)
{
	if (selftest_armed == SELFTEST_STRAY_IPI || selftest_armed == SELFTEST_PARKED_NMI)
		selftest_points.parked(c, w);
}

static inline void selftest_at_gave_up(struct cpu *c)
{
	if (selftest_armed == SELFTEST_AP_LATE)
		selftest_points.gave_up(c);
}

static inline void selftest_at_bracket_open(uint32_t slot, uint32_t cycle)
{
	if (selftest_armed == SELFTEST_SMI)
		selftest_points.bracket_open(slot, cycle);
}

#endif
