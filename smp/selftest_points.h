/* SPDX-License-Identifier: MIT */
/* The named points of the AP path where a self-test (selftest=, the
 * failure paths made to happen on purpose) may act. The core owns the
 * points, the selftest wing (wings/selftest/) the tests and their hooks,
 * hung by wings_connect(); the hooks' arm() names the points its test
 * uses as the first bring-up begins. Without the wing, or without
 * selftest=, each point is one compare that is never taken, so a run costs what it did
 * before the points existed. No point lies inside a timed window but
 * ap_arrived and sipis_sent, and those only act on the first bring-up of
 * the one AP chosen (never on the cycles that are measured). */
#ifndef APSTART_SELFTEST_POINTS_H
#define APSTART_SELFTEST_POINTS_H

#include <stdbool.h>
#include <stdint.h>

struct cpu;
struct wake_config;

/* What the wing does at each point (app/wing.h's .selftest_points, hung
 * by wings_connect()); each is called only if arm() armed it. */
struct selftest_points {
	/* BSP, once, as the first bring-up begins (no AP started yet): the
	 * points this run's test acts at (enum selftest_point), 0 for none. */
	uint32_t (*arm)(void);
	/* AP, in ap_entry() before it enables its LAPIC: whenever a test is
	 * armed (it is every test's first sight of its AP; one that does
	 * nothing there returns at once). */
	void (*ap_arrived)(struct cpu *c);
	/* BSP, in ap_start() right after the STARTUP IPIs. */
	void (*sipis_sent)(struct cpu *c, const struct wake_config *w, uint8_t vector);
	/* BSP, before t0 of a start: true to leave its STARTUP IPIs out
	 * (never asked for a broadcast). */
	bool (*lose_sipis)(struct cpu *c);
	/* BSP, once AP c went offline in a cycle (between two windows). */
	void (*parked)(struct cpu *c, const struct wake_config *w);
	/* BSP, after it gave up on an AP, before the INIT that stops it. */
	void (*gave_up)(struct cpu *c);
	/* BSP, a timed window's bracket is open (confound_open()), its
	 * timed code not begun: a cycle's online start, a flush probe's
	 * window. */
	void (*bracket_open)(void);
};
enum selftest_point {
	/* ap_arrived is called whenever any point is armed: this bit is
	 * for a test that acts there alone. */
	SELFTEST_AT_AP_ARRIVED = 1u << 0,
	SELFTEST_AT_SIPIS_SENT = 1u << 1,
	SELFTEST_AT_LOSE_SIPIS = 1u << 2,
	SELFTEST_AT_PARKED = 1u << 3,
	SELFTEST_AT_GAVE_UP = 1u << 4,
	SELFTEST_AT_BRACKET_OPEN = 1u << 5,
};
extern struct selftest_points selftest_points;
/* The points armed (enum selftest_point), 0 until the first bring-up
 * begins (read by the APs). */
extern uint32_t selftest_armed;

/* BSP, as the first bring-up begins: the self-test's points armed. */
static inline void selftest_arm(void)
{
	if (selftest_points.arm)
		__atomic_store_n(&selftest_armed, selftest_points.arm(), __ATOMIC_RELEASE);
}

/* The points, each in one place on the path (see the struct). */
static inline void selftest_at_ap_arrived(struct cpu *c)
{
	if (selftest_armed)
		selftest_points.ap_arrived(c);
}

static inline void selftest_at_sipis_sent(struct cpu *c, const struct wake_config *w,
					  uint8_t vector)
{
	if (selftest_armed & SELFTEST_AT_SIPIS_SENT)
		selftest_points.sipis_sent(c, w, vector);
}

static inline bool selftest_at_lose_sipis(struct cpu *c)
{
	return (selftest_armed & SELFTEST_AT_LOSE_SIPIS) && selftest_points.lose_sipis(c);
}

static inline void selftest_at_parked(struct cpu *c, const struct wake_config *w)
{
	if (selftest_armed & SELFTEST_AT_PARKED)
		selftest_points.parked(c, w);
}

static inline void selftest_at_gave_up(struct cpu *c)
{
	if (selftest_armed & SELFTEST_AT_GAVE_UP)
		selftest_points.gave_up(c);
}

static inline void selftest_at_bracket_open(void)
{
	if (selftest_armed & SELFTEST_AT_BRACKET_OPEN)
		selftest_points.bracket_open();
}

#endif
