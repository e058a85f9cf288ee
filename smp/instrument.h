/* SPDX-License-Identifier: MIT */
/* The AP path's test instrumentation, all of it: each place where a test
 * acts on the path is one INSTRUMENT_* macro below, a no-op unless that
 * test is armed, and nothing in a release kernel (make RELEASE=1: no
 * call, no compare, no symbol). Three tests act: the self-tests
 * (selftest=, through struct selftest_points: one compare a point; the
 * two inside a timed window act on the first bring-up of the chosen AP
 * only), the icount fence (icount=on, below) and the timing gate's slowed
 * and padded builds (SLOW_*_NS, PAD_*: code only those builds hold). The
 * trampoline's points are realmode/instrument.inc's NASM macros. */
#ifndef APSTART_INSTRUMENT_H
#define APSTART_INSTRUMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "smp/lapic.h"
#include "smp/wake.h"

#ifndef APSTART_RELEASE
#define APSTART_RELEASE 0
#endif

/* ---- The self-test points, hung by the selftest wing (app/wing.h); its
 * arm() names the points its test acts at, and only those are called. */
struct selftest_points {
	/* BSP, once, as the first bring-up begins (no AP started yet): the
	 * points this run's test acts at (enum selftest_point), 0 for none. */
	uint32_t (*arm)(void);
	/* AP, in ap_entry() before it enables its LAPIC, whenever a test is
	 * armed (every test's first sight of its AP). */
	void (*ap_arrived)(struct cpu *c);
	/* BSP, in ap_start() right after the STARTUP IPIs. */
	void (*sipis_sent)(struct cpu *c, const struct wake_config *w, uint8_t vector);
	/* BSP, before t0 of a start and before a retry: true to leave c's
	 * STARTUP IPIs out this attempt (never asked for a broadcast). */
	bool (*withhold_sipis)(struct cpu *c);
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
	SELFTEST_AT_AP_ARRIVED = 1u << 0,
	SELFTEST_AT_SIPIS_SENT = 1u << 1,
	SELFTEST_AT_WITHHOLD_SIPIS = 1u << 2,
	SELFTEST_AT_PARKED = 1u << 3,
	SELFTEST_AT_GAVE_UP = 1u << 4,
	SELFTEST_AT_BRACKET_OPEN = 1u << 5,
};
/* Hung by wings_connect(); every member NULL without the wing. */
extern struct selftest_points selftest_points;
/* The points armed, 0 until the first bring-up begins (read by the APs). */
extern uint32_t selftest_armed;

/* ---- The timing gate's build knobs (docs/timing.md): 0 in every other
 * build, where their points compile to nothing. */
#ifndef APSTART_SLOW_TRAMP_NS
#define APSTART_SLOW_TRAMP_NS 0
#endif
#ifndef APSTART_SLOW_PARK_NS
#define APSTART_SLOW_PARK_NS 0
#endif
#ifndef APSTART_PAD_PARK
#define APSTART_PAD_PARK 0
#endif
/* The largest spin the options slow_tramp_ns= and slow_park_ns= take:
 * 1 ms, far beyond any AP path's cost under QEMU, and within the
 * trampoline's 32-bit tick count at any TSC rate below 4 THz. */
#define SLOW_SPIN_MAX_NS 1000000u

/* icount=on, for QEMU -icount (round-robin TCG, QEMU 7.2): INIT's CPU
 * reset zeroes the AP's slice counters, so QEMU books the whole slice as
 * executed and every TSC jumps to the next timer deadline, up to 100 ms
 * away; a halted AP takes INIT only with the first SIPI, at the BSP's
 * next yield. So a LAPIC timer at its shortest period keeps that deadline
 * ns away until right behind the first SIPI's ICR write (then one PAUSE,
 * the yield, and it stops, or it would slice the AP's trampoline run).
 * Interrupts are off: it only leaves VEC_TIMER pending. Armed before t0,
 * or after the INIT where an INIT delay would keep it ticking for ms. */
void icount_fence_stop(void); /* PAUSE (the yield), then stop the timer */

/* The spins' sizes for this run, in ns (slow_tramp_ns=, slow_park_ns=;
 * the make value by default): the knob puts the spin in the code, the
 * option sizes it per boot to the host (tests/timing/wall.sh). */
void instrument_size_spins(uint32_t tramp_ns, uint32_t park_ns);
/* Into the installed trampoline's page: its spin's TSC ticks
 * (TRAMP_SLOW_TICKS_AT, realmode/trampoline_abi.h). */
void instrument_slow_trampoline(uint8_t *page);
/* AP: spin the park path's slow_park_ns. */
void instrument_slow_park(void);

/* A point's code, or in a release kernel nothing (a value point: the
 * value that means "not armed"). */
#if APSTART_RELEASE
#define INSTRUMENTED(...) ((void)0)
#define INSTRUMENTED_VALUE(value, release_value) (release_value)
#else
#define INSTRUMENTED(...) do { __VA_ARGS__ } while (0)
#define INSTRUMENTED_VALUE(value, release_value) (value)
#endif

#define SELFTEST_ARMED(p) (selftest_armed & (p))

/* At boot: the first wing's self-test points hung. */
#define INSTRUMENT_SELFTEST_HUNG(points) \
	INSTRUMENTED(if (!selftest_points.ap_arrived) selftest_points = *(points);)
/* BSP, as the first bring-up begins: the self-test's points armed. */
#define INSTRUMENT_BRING_UP_BEGINS()                                          \
	INSTRUMENTED(if (selftest_points.arm)                                 \
		__atomic_store_n(&selftest_armed, selftest_points.arm(), __ATOMIC_RELEASE);)

/* BSP, before an attempt's STARTUP IPIs: selftest=lost-sipi. */
#define INSTRUMENT_WITHHOLD_SIPIS(c, target)                                  \
	INSTRUMENTED(if (SELFTEST_ARMED(SELFTEST_AT_WITHHOLD_SIPIS))          \
		(c)->sipis_withheld = (target) != WAKE_BROADCAST &&           \
				      selftest_points.withhold_sipis(c);)
/* In the STARTUP rounds: does c get none this attempt? */
#define INSTRUMENT_SIPIS_WITHHELD(c) INSTRUMENTED_VALUE((c)->sipis_withheld, false)

/* BSP, just before t0: the icount fence, if it goes before the INIT. */
#define INSTRUMENT_BEFORE_T0(w)                                               \
	INSTRUMENTED(if ((w)->icount_fence && (w)->init_delay_us == 0)        \
		lapic_timer_periodic_ticks(1);)
/* BSP, right after the INIT: the icount fence, if it did not go before. */
#define INSTRUMENT_AFTER_INIT(w)                                              \
	INSTRUMENTED(if ((w)->icount_fence && (w)->init_delay_us != 0)        \
		lapic_timer_periodic_ticks(1);)
/* Run right behind the ICR write of STARTUP IPI k (from 0): the fence's
 * end after the first. */
#define INSTRUMENT_AFTER_SIPI_WRITE(w, k) \
	INSTRUMENTED_VALUE((w)->icount_fence && (k) == 0 ? icount_fence_stop : NULL, NULL)
/* The same behind the all-excluding-self shorthand's write; and for a
 * first round that sent no STARTUP IPI, the fence's end all the same. */
#define INSTRUMENT_BROADCAST_SIPI_SENT(w, k) \
	INSTRUMENTED(if ((w)->icount_fence && (k) == 0) icount_fence_stop();)
#define INSTRUMENT_NO_SIPI_SENT(w, k) INSTRUMENT_BROADCAST_SIPI_SENT(w, k)

/* BSP, in ap_start() right after the STARTUP IPIs: selftest=double-start. */
#define INSTRUMENT_SIPIS_SENT(c, w, vector)                                   \
	INSTRUMENTED(if (SELFTEST_ARMED(SELFTEST_AT_SIPIS_SENT))              \
		selftest_points.sipis_sent(c, w, vector);)
/* BSP, having given up on c, before the INIT that stops it: ap-late. */
#define INSTRUMENT_GAVE_UP(c) \
	INSTRUMENTED(if (SELFTEST_ARMED(SELFTEST_AT_GAVE_UP)) selftest_points.gave_up(c);)
/* AP, in ap_entry() before its LAPIC: ap-fault, ap-hang, apic-renumber,
 * ap-late, tsc-skew. */
#define INSTRUMENT_AP_ARRIVED(c) INSTRUMENTED(if (selftest_armed) selftest_points.ap_arrived(c);)
/* BSP, AP c offline in a cycle, between two windows: stray-ipi,
 * parked-nmi. */
#define INSTRUMENT_PARKED(c, w) \
	INSTRUMENTED(if (SELFTEST_ARMED(SELFTEST_AT_PARKED)) selftest_points.parked(c, w);)
/* BSP, a timed window's bracket open, its timed code not begun: smi. */
#define INSTRUMENT_BRACKET_OPEN() \
	INSTRUMENTED(if (SELFTEST_ARMED(SELFTEST_AT_BRACKET_OPEN)) selftest_points.bracket_open();)

/* AP, in the park path right after its WBINVD (before settled_ns): a
 * SLOW_PARK_NS build spins there, a costlier flush than QEMU's free one;
 * a PAD_PARK=K build runs exactly K NOPs, which the exact gate must see
 * as +K ns in settled_ns. */
#define INSTRUMENT_PARK_FLUSHED()                                             \
	INSTRUMENTED(if (APSTART_SLOW_PARK_NS) instrument_slow_park();        \
		     if (APSTART_PAD_PARK)                                    \
			__asm__ volatile(".rept %c0\n\tnop\n\t.endr"          \
					 : : "i"(APSTART_PAD_PARK));)
/* BSP, once the options are read: the spins' sizes for this run. */
#define INSTRUMENT_SPINS_SIZED(tramp_ns, park_ns) \
	INSTRUMENTED(instrument_size_spins(tramp_ns, park_ns);)
/* BSP, the trampoline copied to its page: the slowed build's spin count. */
#define INSTRUMENT_TRAMPOLINE_INSTALLED(page) \
	INSTRUMENTED(if (APSTART_SLOW_TRAMP_NS) instrument_slow_trampoline(page);)

#endif
