/* SPDX-License-Identifier: MIT */
#include "smp/timing_knobs.h"

#include "kernel/tsc.h"
#include "kernel/x86.h"

/* The spins' sizes, ns; each stays 0 in a build without that spin. */
static uint32_t slow_tramp_ns = APSTART_SLOW_TRAMP_NS;
static uint32_t slow_park_ns = APSTART_SLOW_PARK_NS;

void slow_spins_set(uint32_t tramp_ns, uint32_t park_ns)
{
	if (APSTART_SLOW_TRAMP_NS)
		slow_tramp_ns = tramp_ns;
	if (APSTART_SLOW_PARK_NS)
		slow_park_ns = park_ns;
}

uint32_t slow_tramp_spin_ticks(void)
{
	return (uint32_t)((uint64_t)slow_tramp_ns * tsc_info()->khz / 1000000);
}

void slow_park_spin(void)
{
	uint64_t ticks = (uint64_t)slow_park_ns * tsc_info()->khz / 1000000;
	uint64_t start = rdtsc();
	while (rdtsc() - start < ticks)
		cpu_relax();
}
