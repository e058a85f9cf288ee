/* SPDX-License-Identifier: MIT */
#include "smp/timing_knobs.h"

#include "kernel/tsc.h"
#include "kernel/x86.h"

uint32_t slow_tramp_spin_ticks(void)
{
	return (uint32_t)((uint64_t)APSTART_SLOW_TRAMP_NS * tsc_info()->khz / 1000000);
}

void slow_park_spin(void)
{
	uint64_t ticks = (uint64_t)APSTART_SLOW_PARK_NS * tsc_info()->khz / 1000000;
	uint64_t start = rdtsc();
	while (rdtsc() - start < ticks)
		cpu_relax();
}
