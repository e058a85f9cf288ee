/* SPDX-License-Identifier: MIT */
/* Facts about the CPU we run on, from CPUID. */
#ifndef APSTART_CPU_H
#define APSTART_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/apic_id.h"

bool cpu_is_intel(void);
bool cpu_is_amd(void);
bool cpu_has_hypervisor(void);
/* Display family/model as the SDM composes them (Vol. 2A, CPUID leaf 1). */
uint32_t cpu_family(void);
uint32_t cpu_model(void);
uint32_t cpu_stepping(void);
void cpu_vendor(char out[13]);
void cpu_brand(char out[49]);   /* "" if leaves 0x80000002-4 are absent */
/* The microcode revision this CPU runs (what Linux prints as
 * "microcode: revision="); false where the MSR faults (some hypervisors)
 * or the vendor is neither Intel nor AMD. */
bool cpu_microcode(uint32_t *rev);
/* Last-level cache size in KiB from CPUID 4 (Intel) or 0x8000001D (AMD);
 * 0 if not reported. */
uint32_t cpu_llc_kib(void);
/* CLFLUSH line size in bytes: CPUID 1 EBX[15:8] x 8 (SDM Vol. 2A,
 * CPUID); 64 if not said. */
uint32_t cpu_clflush_bytes(void);

/* How APIC IDs split into package, core and thread on this machine:
 * package = id >> package_shift, thread = id & ((1 << smt_bits) - 1),
 * core = the bits between. */
struct cpu_topology {
	uint32_t smt_bits, package_shift;
};
struct cpu_topology cpu_topology(void);

#endif
