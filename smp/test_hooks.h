/* SPDX-License-Identifier: MIT */
/* Test and experiment hooks, kept in one module so that the bring-up code
 * reads without them: the failure-path self-tests (selftest=), the icount
 * fence that keeps QEMU -icount timing exact (icount=on), the C side of
 * the SLOW_TRAMP_NS build knob and the SLOW_PARK_NS one (sized per boot by
 * the options slow_tramp_ns= and slow_park_ns=). Compiled into every build; each is
 * called from one named point and does nothing unless asked for. The
 * checks on the measured path are inline, so that a run without hooks
 * costs what it did when they were written into the code. */
#ifndef APSTART_TEST_HOOKS_H
#define APSTART_TEST_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smp/lapic.h"
#include "smp/smp.h"
#include "smp/wake.h"
#include "lib/keyword.h"

/* ------------------------------------------------------------ selftest= */

/* Make something go wrong on purpose, once, on the first AP to be
 * started (the BSP for bsp-fault). tsc-skew: that AP sets its TSC back
 * (WRMSR IA32_TSC) before it comes online, so the warp test must find it
 * out of step and its cross-CPU figures must print as na. lost-sipi:
 * that AP's first wake-up sends INIT but no STARTUP IPI, so that only
 * sipi_retry brings it online. stray-ipi: the BSP sends that AP, once
 * parked, and an idle online AP an interrupt vector nobody handles.
 * parked-nmi: the BSP sends that AP, once parked, an NMI IPI; it must
 * go back to its park loop and come online at the next wake-up. smi:
 * the BSP raises one System Management Interrupt (APM control port,
 * kernel/confound.h) inside one timed window, which must come out marked
 * smi=1 (needs a machine with SMM: QEMU's pc/q35 with SeaBIOS). */
enum selftest { SELFTEST_NONE, SELFTEST_BSP_FAULT, SELFTEST_AP_FAULT,
		SELFTEST_AP_HANG, SELFTEST_DOUBLE_START, SELFTEST_APIC_RENUMBER,
		SELFTEST_AP_LATE, SELFTEST_TSC_SKEW, SELFTEST_LOST_SIPI,
		SELFTEST_STRAY_IPI, SELFTEST_PARKED_NMI, SELFTEST_SMI };
extern const struct keyword selftest_words[]; /* selftest=: smp/modes.c */

/* Set by test_hooks_setup() before any AP starts; read by the APs. */
extern enum selftest test_selftest;

/* After smp_setup(): arm selftest s and pick the AP it acts on. */
void test_hooks_setup(enum selftest s);

/* BSP, just before the bring-up: selftest=bsp-fault takes an exception. */
void test_hook_before_bring_up(void);
/* BSP, after the bring-up: selftest=tsc-skew says what its write did. */
void test_hook_after_bring_up(void);

void test_hooks_ap_selftest(struct cpu *c);
/* AP, in ap_entry() before it enables its LAPIC: selftest=ap-fault takes
 * an exception, selftest=ap-hang never comes online, selftest=ap-late
 * comes online only after the BSP gave up on it, selftest=apic-renumber
 * writes a new xAPIC ID into its APIC ID register (as firmware may) and
 * becomes that CPU: every later bring-up must find it by the new ID;
 * selftest=tsc-skew sets its TSC back. */
static inline void test_hook_ap_arrived(struct cpu *c)
{
	if (test_selftest != SELFTEST_NONE)
		test_hooks_ap_selftest(c);
}

void test_hooks_double_start(struct cpu *c, const struct wake_config *w,
			     uint8_t vector);
/* BSP, in ap_start() after the STARTUP IPIs: selftest=double-start stops
 * the AP with INIT once it runs the trampoline and starts it again, so
 * the blob is entered a second time after the first run wrote into it. */
static inline void test_hook_sipis_sent(struct cpu *c, const struct wake_config *w,
					uint8_t vector)
{
	if (test_selftest == SELFTEST_DOUBLE_START)
		test_hooks_double_start(c, w, vector);
}

bool test_hooks_lose_sipis(struct cpu *c);
/* BSP, in ap_start() or ap_start_many() (per-AP IPIs) before t0: true
 * if selftest=lost-sipi wants this attempt's STARTUP IPIs left out (the
 * first attempt on its AP). */
static inline bool test_hook_lose_sipis(struct cpu *c)
{
	return test_selftest == SELFTEST_LOST_SIPI && test_hooks_lose_sipis(c);
}

void test_hooks_parked(struct cpu *c, const struct wake_config *w);
/* BSP, in smp_run_cycles() once AP c has gone offline: selftest=stray-ipi
 * sends it (parked, interrupts off) and another AP (online, idle with
 * interrupts on) a vector nobody handles, and waits until the idle one
 * has taken it; selftest=parked-nmi sends it an NMI and waits until it
 * has taken that. */
static inline void test_hook_parked(struct cpu *c, const struct wake_config *w)
{
	if (test_selftest == SELFTEST_STRAY_IPI || test_selftest == SELFTEST_PARKED_NMI)
		test_hooks_parked(c, w);
}

void test_hooks_gave_up(struct cpu *c);
/* BSP, in ap_start() after it gave up on an AP, before the INIT that
 * stops it: selftest=ap-late lets the AP arrive first (bounded). */
static inline void test_hook_gave_up(struct cpu *c)
{
	if (test_selftest == SELFTEST_AP_LATE)
		test_hooks_gave_up(c);
}

/* ----------------------------------------------------------- icount=on */

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

/* ------------------------------------------ SLOW_TRAMP_NS, SLOW_PARK_NS */

#ifndef APSTART_SLOW_TRAMP_NS
#define APSTART_SLOW_TRAMP_NS 0
#endif
#ifndef APSTART_SLOW_PARK_NS
#define APSTART_SLOW_PARK_NS 0
#endif
/* The largest spin the options slow_tramp_ns= and slow_park_ns= take:
 * 1 ms, far beyond any AP path's cost under QEMU, and within the
 * trampoline's 32-bit tick count at any TSC rate below 4 THz. */
#define SLOW_SPIN_MAX_NS 1000000u

/* Before the trampoline is installed: how long the spins of this run
 * are, in ns (the options slow_tramp_ns= and slow_park_ns=, which only a
 * build with that spin has; its make value by default). The build knob
 * puts the spin in the code, so that other builds carry none; its size
 * is chosen per boot, so that the timing gate can size its proof to the
 * host it runs on (tests/timing/run.sh). */
void test_hooks_slow_spins(uint32_t tramp_ns, uint32_t park_ns);

/* TSC ticks the trampoline of a SLOW_TRAMP_NS=N build spins where WBINVD
 * sits (the regression tests' proof that a slower trampoline is caught);
 * 0 in every other build. */
uint32_t test_hooks_slow_spin_ticks(void);

/* -------------------------------------------------------- SLOW_PARK_NS */

void test_hooks_slow_park_spin(void);
/* AP, in the park path right after its WBINVD: a SLOW_PARK_NS=N build
 * spins N ns there (or slow_park_ns=), so that the tests can show a costlier flush moves the
 * offline figure (QEMU's WBINVD costs nothing). Nothing in other builds. */
static inline void test_hook_park_flushed(void)
{
	if (APSTART_SLOW_PARK_NS)
		test_hooks_slow_park_spin();
}

/* ------------------------------------------------------------ PAD_PARK */

#ifndef APSTART_PAD_PARK
#define APSTART_PAD_PARK 0
#endif

/* AP, in the park path right after its WBINVD (before settled_ns is
 * taken): a PAD_PARK=K build (make PAD_INSNS=K PAD_AT=park) runs exactly
 * K NOPs there, the park path's counterpart of realmode/pad.inc, so the
 * exact timing gate must see +K ns in settled_ns. Nothing in other
 * builds. */
static inline void test_hook_park_pad(void)
{
	if (APSTART_PAD_PARK)
		__asm__ volatile(".rept %c0\n\tnop\n\t.endr" : : "i"(APSTART_PAD_PARK));
}

#endif
