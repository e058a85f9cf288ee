/* SPDX-License-Identifier: MIT */
/* Facts about the CPU we run on, from CPUID. */
#ifndef APSTART_CPU_H
#define APSTART_CPU_H

#include <stdbool.h>
#include <stdint.h>

/* No CPU has this APIC ID: it is the x2APIC broadcast destination (SDM
 * Vol. 3A §11.12.9). Stands for "no CPU" wherever an APIC ID is kept. */
#define APIC_ID_NONE 0xFFFFFFFFu

/* This CPU's APIC ID as its local APIC has it, all 32 bits: the x2APIC
 * ID MSR in x2APIC mode, else the xAPIC ID register. Works before the
 * LAPIC is set up, so the console and exception handler can use it. */
uint32_t cpu_apic_id(void);
/* The initial APIC ID from CPUID (0xB EDX if the leaf exists, else 1
 * EBX[31:24]; SDM Vol. 2A, CPUID): the ID after reset, which firmware
 * may since have changed. */
uint32_t cpu_initial_apic_id(void);

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

/* How APIC IDs split into package, core and thread on this machine:
 * package = id >> package_shift, thread = id & ((1 << smt_bits) - 1),
 * core = the bits between. */
struct cpu_topology {
	uint32_t smt_bits, package_shift;
};
struct cpu_topology cpu_topology(void);

#endif
