/* SPDX-License-Identifier: MIT */
/* Time: the TSC, its frequency and where that came from. */
#ifndef APSTART_TSC_H
#define APSTART_TSC_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/acpi.h"

struct tsc_info {
	uint64_t khz;
	const char *source;   /* cpuid-15h, cpuid-16h, hypervisor, hpet, acpi-pm, pit */
	bool invariant;       /* CPUID 0x80000007 EDX[8] */
};

/* Determine the TSC frequency. Falls back along CPUID 0x15 -> 0x16 ->
 * hypervisor leaf -> HPET -> ACPI PM timer -> PIT. Never fails: the PIT
 * always exists on a PC (if it does not, we report 1 GHz and say so).
 * windows: the timer's 10 ms windows (1..3), whose median counts. */
void tsc_init(const struct acpi_info *acpi, int windows);
const struct tsc_info *tsc_info(void);

uint64_t tsc_ticks_to_ns(uint64_t ticks);
uint64_t tsc_deadline_us(uint64_t us);  /* rdtsc() + us worth of ticks */
bool tsc_passed(uint64_t deadline);
void udelay(uint64_t us);

#endif
