/* SPDX-License-Identifier: MIT */
/* The build knobs of the timing gate (make SLOW_TRAMP_NS=, SLOW_PARK_NS=,
 * PAD_INSNS= PAD_AT=park): builds that are slower on purpose, by a known
 * amount, so that the tests can show the gates catch a slower path
 * (docs/timing.md). Each compiles to nothing in every other build. */
#ifndef APSTART_TIMING_KNOBS_H
#define APSTART_TIMING_KNOBS_H

#include <stdint.h>

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
 * host it runs on (tests/timing/wall.sh). */
void slow_spins_set(uint32_t tramp_ns, uint32_t park_ns);

/* TSC ticks the trampoline of a SLOW_TRAMP_NS=N build spins where WBINVD
 * sits (the regression tests' proof that a slower trampoline is caught);
 * 0 in every other build. */
uint32_t slow_tramp_spin_ticks(void);

void slow_park_spin(void);
/* AP, in the park path right after its WBINVD: a SLOW_PARK_NS=N build
 * spins N ns there (or slow_park_ns=), so that the tests can show a costlier flush moves the
 * offline figure (QEMU's WBINVD costs nothing). Nothing in other builds. */
static inline void knob_park_flushed(void)
{
	if (APSTART_SLOW_PARK_NS)
		slow_park_spin();
}

#ifndef APSTART_PAD_PARK
#define APSTART_PAD_PARK 0
#endif

/* AP, in the park path right after its WBINVD (before settled_ns is
 * taken): a PAD_PARK=K build (make PAD_INSNS=K PAD_AT=park) runs exactly
 * K NOPs there, the park path's counterpart of realmode/pad.inc, so the
 * exact timing gate must see +K ns in settled_ns. Nothing in other
 * builds. */
static inline void knob_park_pad(void)
{
	if (APSTART_PAD_PARK)
		__asm__ volatile(".rept %c0\n\tnop\n\t.endr" : : "i"(APSTART_PAD_PARK));
}

#endif
