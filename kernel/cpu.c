/* SPDX-License-Identifier: MIT */
/* CPUID decoding, and the microcode revision MSR beside it. */
#include "kernel/cpu.h"

#include "kernel/msr_safe.h"
#include "kernel/x86.h"

#if defined(__i386__)
/* LFENCE before RDTSC only on CPUs with SSE2 (kernel/x86.h); the i386
 * boot code sets it from CPUID before kmain(). */
_Bool x86_lfence;
#endif

void cpu_vendor(char out[13])
{
	struct cpuid_regs r = cpuid(0, 0);
	const uint32_t words[3] = { r.ebx, r.edx, r.ecx };
	for (int i = 0; i < 12; i++)
		out[i] = (char)(words[i / 4] >> (8 * (i % 4)));
	out[12] = '\0';
}

static bool vendor_is(const char *want)
{
	char v[13];
	cpu_vendor(v);
	for (int i = 0; i < 12; i++)
		if (v[i] != want[i])
			return false;
	return true;
}

bool cpu_is_intel(void) { return vendor_is("GenuineIntel"); }
bool cpu_is_amd(void) { return vendor_is("AuthenticAMD") || vendor_is("HygonGenuine"); }

bool cpu_microcode(uint32_t *rev)
{
	uint64_t v;
	*rev = 0;
	if (cpu_is_intel()) {
		/* SDM Vol. 3A §10.11.7.1: clear IA32_BIOS_SIGN_ID, execute
		 * CPUID(1), read the signature from bits 63:32. */
		if (!msr_write_safe(MSR_IA32_BIOS_SIGN_ID, 0))
			return false;
		(void)cpuid(1, 0);
		if (!msr_read_safe(MSR_IA32_BIOS_SIGN_ID, &v))
			return false;
		*rev = (uint32_t)(v >> 32);
		return true;
	}
	if (cpu_is_amd() && msr_read_safe(MSR_IA32_BIOS_SIGN_ID, &v)) {
		*rev = (uint32_t)v; /* AMD PPR, MSR0000_008B PatchLevel */
		return true;
	}
	return false;
}

bool cpu_has_hypervisor(void)
{
	return (cpuid(1, 0).ecx >> 31) & 1;
}

uint32_t cpu_family(void)
{
	uint32_t eax = cpuid(1, 0).eax;
	uint32_t family = (eax >> 8) & 0xF;
	if (family == 0xF)
		family += (eax >> 20) & 0xFF;
	return family;
}

uint32_t cpu_model(void)
{
	uint32_t eax = cpuid(1, 0).eax;
	uint32_t family = (eax >> 8) & 0xF;
	uint32_t model = (eax >> 4) & 0xF;
	if (family == 0x6 || family == 0xF)
		model |= ((eax >> 16) & 0xF) << 4;
	return model;
}

uint32_t cpu_stepping(void)
{
	return cpuid(1, 0).eax & 0xF;
}

void cpu_brand(char out[49])
{
	out[0] = '\0';
	if (cpuid(0x80000000, 0).eax < 0x80000004)
		return;
	for (uint32_t leaf = 0; leaf < 3; leaf++) {
		struct cpuid_regs r = cpuid(0x80000002 + leaf, 0);
		const uint32_t words[4] = { r.eax, r.ebx, r.ecx, r.edx };
		for (int i = 0; i < 16; i++)
			out[leaf * 16 + i] = (char)(words[i / 4] >> (8 * (i % 4)));
	}
	out[48] = '\0';
	/* Brand strings are often right-justified with leading spaces. */
	int skip = 0;
	while (out[skip] == ' ')
		skip++;
	int i = 0;
	do
		out[i] = out[i + skip];
	while (out[i++]);
}

/* Walk the deterministic cache parameter leaf: ways * partitions * line
 * size * sets per level (SDM Vol. 2A, CPUID leaf 4; AMD APM Vol. 3,
 * CPUID Fn8000_001D). Returns the largest level's size. */
static uint32_t walk_cache_leaf(uint32_t leaf)
{
	uint32_t best_level = 0, best_kib = 0;
	for (uint32_t sub = 0; sub < 16; sub++) {
		struct cpuid_regs r = cpuid(leaf, sub);
		uint32_t type = r.eax & 0x1F;
		if (type == 0)
			break;
		if (type == 2) /* instruction cache */
			continue;
		uint32_t level = (r.eax >> 5) & 0x7;
		uint64_t bytes = (uint64_t)((r.ebx >> 22) + 1) *
				 (((r.ebx >> 12) & 0x3FF) + 1) *
				 ((r.ebx & 0xFFF) + 1) * ((uint64_t)r.ecx + 1);
		if (level >= best_level) {
			best_level = level;
			best_kib = (uint32_t)(bytes / 1024);
		}
	}
	return best_kib;
}

uint32_t cpu_llc_kib(void)
{
	if (cpu_is_intel() && cpuid(0, 0).eax >= 4)
		return walk_cache_leaf(4);
	uint32_t max_ext = cpuid(0x80000000, 0).eax;
	if (cpu_is_amd() && max_ext >= 0x8000001D &&
	    (cpuid(0x80000001, 0).ecx & (1u << 22))) /* TopologyExtensions */
		return walk_cache_leaf(0x8000001D);
	if (max_ext >= 0x80000006) {
		/* L3: EDX[31:18] in 512 KiB units; else L2: ECX[31:16] KiB
		 * (AMD APM Vol. 3, CPUID Fn8000_0006). */
		struct cpuid_regs r = cpuid(0x80000006, 0);
		if (r.edx >> 18)
			return (r.edx >> 18) * 512;
		return r.ecx >> 16;
	}
	return 0;
}

/* Bits of the APIC ID below the core and the package levels: CPUID 0xB's
 * levels (SDM Vol. 3A §9.9.1, "Hierarchical Mapping of Shared Resources":
 * EAX[4:0] of each level shifts the x2APIC ID to the next one); without
 * it, CPUID 1's logical-processor count (EBX[23:16] when EDX[28]) sizes
 * the package and the SMT width is unknown (0). */
struct cpu_topology cpu_topology(void)
{
	struct cpu_topology t = { 0, 0 };

	if (cpuid(0, 0).eax >= 0x0B && (cpuid(0x0B, 0).ebx & 0xFFFF)) {
		for (uint32_t sub = 0; sub < 8; sub++) {
			struct cpuid_regs r = cpuid(0x0B, sub);
			uint32_t type = (r.ecx >> 8) & 0xFF;
			if (type == 0)
				break;
			if (type == 1)
				t.smt_bits = r.eax & 0x1F;
			t.package_shift = r.eax & 0x1F;
		}
		return t;
	}
	struct cpuid_regs r = cpuid(1, 0);
	if (r.edx & (1u << 28)) {
		uint32_t logical = (r.ebx >> 16) & 0xFF;
		while (logical > (1u << t.package_shift))
			t.package_shift++;
	}
	return t;
}

uint32_t cpu_clflush_bytes(void)
{
	struct cpuid_regs r = cpuid(1, 0);
	uint32_t n = ((r.ebx >> 8) & 0xFF) * 8;
	return (r.edx & (1u << 19)) && n ? n : 64;
}
