/* SPDX-License-Identifier: MIT */
/* TSC frequency discovery and TSC-based delays. */
#include "kernel/tsc.h"

#include "kernel/clocksource.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/x86.h"

static struct tsc_info info;

/* CPUID 0x15: TSC = crystal * EBX / EAX (SDM Vol. 3B §19.7.3). CPUID 0x16
 * EAX: base frequency in MHz, the TSC rate on parts with an invariant TSC
 * where 0x15 gives no crystal. Both are Intel-defined leaves. */
static uint64_t khz_from_cpuid(const char **source)
{
	if (!cpu_is_intel())
		return 0;
	uint32_t max = cpuid(0, 0).eax;
	if (max >= 0x15) {
		struct cpuid_regs r = cpuid(0x15, 0);
		if (r.eax && r.ebx && r.ecx) {
			*source = "cpuid-15h";
			return (uint64_t)r.ecx * r.ebx / r.eax / 1000;
		}
	}
	if (max >= 0x16) {
		struct cpuid_regs r = cpuid(0x16, 0);
		if (r.eax & 0xFFFF) {
			*source = "cpuid-16h";
			return (uint64_t)(r.eax & 0xFFFF) * 1000;
		}
	}
	return 0;
}

/* Hypervisor timing leaf 0x40000010 EAX = TSC kHz (the VMware/KVM
 * convention QEMU follows with -cpu ...,vmware-cpuid-freq=on). */
static uint64_t khz_from_hypervisor(void)
{
	if (!cpu_has_hypervisor())
		return 0;
	if (cpuid(0x40000000, 0).eax < 0x40000010)
		return 0;
	return cpuid(0x40000010, 0).eax;
}

void tsc_init(const struct acpi_info *acpi, int windows)
{
	const char *source = NULL;
	uint64_t khz = khz_from_cpuid(&source);

	if (!khz && (khz = khz_from_hypervisor()))
		source = "hypervisor";
	if (!khz && acpi->have_hpet && (khz = calibrate_hpet(acpi->hpet_phys, windows)))
		source = "hpet";
	if (!khz && acpi->have_pm_timer &&
	    (khz = calibrate_pm_timer(acpi->pm_timer_port,
				      acpi->pm_timer_32bit ? 32 : 24, windows)))
		source = "acpi-pm";
	if (!khz && (khz = calibrate_pit(windows)))
		source = "pit";
	if (!khz) {
		kprintf("tsc: no reference timer answered; assuming 1 GHz: "
			"times below are in TSC ticks, not ns\n");
		khz = 1000000;
		source = "assumed";
	}
	info.khz = khz;
	info.source = source;
	info.invariant = cpuid(0x80000000, 0).eax >= 0x80000007 &&
			 (cpuid(0x80000007, 0).edx & (1u << 8));
}

const struct tsc_info *tsc_info(void)
{
	return &info;
}

uint64_t tsc_ticks_to_ns(uint64_t ticks)
{
	uint64_t khz = info.khz ? info.khz : 1000000;
	return ticks / khz * 1000000ull + ticks % khz * 1000000ull / khz;
}

uint64_t tsc_deadline_us(uint64_t us)
{
	uint64_t khz = info.khz ? info.khz : 1000000;
	return rdtsc() + us * khz / 1000;
}

bool tsc_passed(uint64_t deadline)
{
	return (int64_t)(rdtsc() - deadline) >= 0;
}

void udelay(uint64_t us)
{
	uint64_t deadline = tsc_deadline_us(us);
	while (!tsc_passed(deadline))
		cpu_relax();
}
