/* SPDX-License-Identifier: MIT */
/* RDMSR and WRMSR that survive a #GP: for MSRs a CPU may not have
 * (MSR_SMI_COUNT on AMD and most hypervisors, APERF/MPERF where CPUID 6
 * is silent, the microcode revision under some hypervisors). */
#ifndef APSTART_MSR_SAFE_H
#define APSTART_MSR_SAFE_H

#include <stdbool.h>
#include <stdint.h>

/* Intel SDM Vol. 4, Table 2-2 ... 2-3: MSR_SMI_COUNT (0x34, bits 31:0,
 * Nehalem onwards, read-only), IA32_MPERF (0xE7), IA32_APERF (0xE8). */
#define MSR_SMI_COUNT 0x34
#define MSR_IA32_MPERF 0xE7
#define MSR_IA32_APERF 0xE8
/* The same table: IA32_BIOS_SIGN_ID (0x8B), the microcode update
 * signature in bits 63:32; AMD's PatchLevel MSR has the same number
 * (bits 31:0, read only). */
#define MSR_IA32_BIOS_SIGN_ID 0x8B

/* *val = the MSR, true; or false (and *val = 0) when RDMSR faulted. */
bool msr_read_safe(uint32_t msr, uint64_t *val);

/* WRMSR msr := val: true, or false when it faulted. */
bool msr_write_safe(uint32_t msr, uint64_t val);

/* kernel/trap.c, on an exception: true, the frame pointed past the
 * instruction and the call made to fail, when it was msr_read_safe()'s
 * RDMSR or msr_write_safe()'s WRMSR. */
struct trap_frame;
bool msr_safe_fixup(struct trap_frame *f);

#endif
