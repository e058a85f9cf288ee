/* SPDX-License-Identifier: MIT */
/* RDMSR that survives a #GP: for MSRs a CPU may not have (MSR_SMI_COUNT
 * on AMD and most hypervisors, APERF/MPERF where CPUID 6 is silent). */
#ifndef APSTART_MSR_SAFE_H
#define APSTART_MSR_SAFE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/trap.h"

/* Intel SDM Vol. 4, Table 2-2 ... 2-3: MSR_SMI_COUNT (0x34, bits 31:0,
 * Nehalem onwards, read-only), IA32_MPERF (0xE7), IA32_APERF (0xE8). */
#define MSR_SMI_COUNT 0x34
#define MSR_IA32_MPERF 0xE7
#define MSR_IA32_APERF 0xE8

/* *val = the MSR, true; or false (and *val = 0) when RDMSR faulted. */
bool msr_read_safe(uint32_t msr, uint64_t *val);

/* kernel/trap.c, for an exception before any other fixup: true when the
 * fault was msr_read_safe()'s RDMSR and f now resumes after it. */
bool msr_safe_fixup(struct trap_frame *f);

#endif
