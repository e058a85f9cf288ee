/* SPDX-License-Identifier: MIT */
/* Which CPU is this: its APIC ID, read without any set-up, so that the
 * console's lock and the exception report can name the CPU from the first
 * instruction on. A leaf: it needs the instructions (kernel/x86.h) only. */
#ifndef APSTART_APIC_ID_H
#define APSTART_APIC_ID_H

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

#endif
