/* SPDX-License-Identifier: MIT */
/* The instrumentation's state and its out-of-line parts
 * (smp/instrument.h). Not linked into a release kernel. */
#include "smp/instrument.h"

#include "realmode/trampoline_abi.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"

struct selftest_points selftest_points;
uint32_t selftest_armed;

/* The spins' sizes, ns; each stays 0 in a build without that spin. */
static uint32_t slow_tramp_ns = APSTART_SLOW_TRAMP_NS;
static uint32_t slow_park_ns = APSTART_SLOW_PARK_NS;

void icount_fence_stop(void)
{
	cpu_relax();
	lapic_timer_stop();
}

void instrument_size_spins(uint32_t tramp_ns, uint32_t park_ns)
{
	if (APSTART_SLOW_TRAMP_NS)
		slow_tramp_ns = tramp_ns;
	if (APSTART_SLOW_PARK_NS)
		slow_park_ns = park_ns;
}

static uint64_t ns_to_ticks(uint32_t ns)
{
	return (uint64_t)ns * tsc_info()->khz / 1000000;
}

void instrument_slow_trampoline(uint8_t *page)
{
	*(volatile uint32_t *)(page + TRAMP_SLOW_TICKS_AT) = (uint32_t)ns_to_ticks(slow_tramp_ns);
}

void instrument_slow_park(void)
{
	uint64_t ticks = ns_to_ticks(slow_park_ns);
	uint64_t start = rdtsc();
	while (rdtsc() - start < ticks)
		cpu_relax();
}
