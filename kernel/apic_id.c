/* SPDX-License-Identifier: MIT */
#include "kernel/apic_id.h"

#include "kernel/x86.h"

uint32_t cpu_initial_apic_id(void)
{
	if (cpuid(0, 0).eax >= 0x0B) {
		struct cpuid_regs r = cpuid(0x0B, 0);
		if (r.ebx & 0xFFFF)
			return r.edx;
	}
	return cpuid(1, 0).ebx >> 24;
}

/* The register, not CPUID: firmware may have written the xAPIC ID, and
 * the MADT and every IPI use the register's value, as Linux reads it since
 * its parallel bring-up (head_64.S, STARTUP_READ_APICID) and memtest86+.
 * An xAPIC page above the boot code's 4 GiB identity map, or an APIC
 * globally disabled, falls back to the initial ID (the register's after
 * reset). */
uint32_t cpu_apic_id(void)
{
	uint64_t base = rdmsr(MSR_IA32_APIC_BASE);
	uint64_t mmio = base & APIC_BASE_ADDR;

	if (!(base & APIC_BASE_EN))
		return cpu_initial_apic_id();
	if (base & APIC_BASE_EXTD)
		return (uint32_t)rdmsr(MSR_X2APIC_ID);
	if (mmio >= (4ull << 30))
		return cpu_initial_apic_id();
	return phys_read32(mmio + XAPIC_ID_REG) >> XAPIC_ID_SHIFT;
}
