/* SPDX-License-Identifier: MIT */
/* Thin wrappers around x86 instructions (SDM Vol. 2). */
#ifndef APSTART_X86_H
#define APSTART_X86_H

#include <stdint.h>

/* The architecture this kernel is built for, as its records name it. */
#if defined(__i386__)
#define APSTART_ARCH "i386"
#else
#define APSTART_ARCH "x86_64"
#endif

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" :: "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint32_t inl(uint16_t port) { uint32_t v; __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port)); return v; }

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" :: "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

/* RDTSC is not serializing; the LFENCE before it keeps it from running
 * ahead of earlier loads (SDM Vol. 2B, RDTSC). LFENCE came with SSE2,
 * which every x86_64 CPU has; an i386 CPU without it (Pentium III,
 * Athlon XP) would take #UD, so there the fence depends on CPUID
 * (x86_lfence, set by cpu_features_init(); until then no fence). */
#if defined(__i386__)
extern _Bool x86_lfence;
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	if (x86_lfence)
		__asm__ volatile("lfence" ::: "memory");
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return ((uint64_t)hi << 32) | lo;
}
#else
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return ((uint64_t)hi << 32) | lo;
}
#endif

struct cpuid_regs { uint32_t eax, ebx, ecx, edx; };

static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;
	__asm__ volatile("cpuid" : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
			 : "a"(leaf), "c"(subleaf));
	return r;
}

static inline void cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }
static inline void cli(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void sti(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void hlt(void) { __asm__ volatile("hlt" ::: "memory"); }
/* STI's one-instruction interrupt shadow makes "sti; hlt" race-free
 * (SDM Vol. 2B, STI). */
static inline void sti_hlt(void) { __asm__ volatile("sti; hlt" ::: "memory"); }
static inline void wbinvd(void) { __asm__ volatile("wbinvd" ::: "memory"); }
static inline void barrier(void) { __asm__ volatile("" ::: "memory"); }
static inline void mfence(void) { __asm__ volatile("mfence" ::: "memory"); }
/* The instructions of Linux's mwait_play_dead() (SDM Vol. 2A CLFLUSH,
 * Vol. 2B MONITOR, MWAIT): MONITOR arms the line at addr (ECX = EDX = 0),
 * MWAIT waits with the C-state hint in EAX (ECX = 0: no extensions). */
static inline void clflush(const volatile void *addr) { __asm__ volatile("clflush (%0)" :: "r"(addr) : "memory"); }
static inline void monitor(const volatile void *addr) { __asm__ volatile("monitor" :: "a"(addr), "c"(0), "d"(0) : "memory"); }
static inline void mwait(uint32_t hint) { __asm__ volatile("mwait" :: "a"(hint), "c"(0) : "memory"); }

/* Control registers are register-sized (32 bits on i386); callers get
 * them zero-extended. */
static inline uint64_t read_cr2(void) { uintptr_t v; __asm__ volatile("mov %%cr2, %0" : "=r"(v)); return v; }
static inline uint64_t read_cr3(void) { uintptr_t v; __asm__ volatile("mov %%cr3, %0" : "=r"(v)); return v; }
static inline uint64_t read_cr4(void) { uintptr_t v; __asm__ volatile("mov %%cr4, %0" : "=r"(v)); return v; }
static inline void invlpg(uint64_t addr) { __asm__ volatile("invlpg (%0)" :: "r"((uintptr_t)addr) : "memory"); }
static inline uint64_t read_rflags(void) { uintptr_t v; __asm__ volatile("pushf; pop %0" : "=r"(v)); return v; }

/* Read low physical memory (identity mapped). The empty asm hides the
 * constant address from gcc, which otherwise warns about "arrays" at
 * small addresses. */
static inline uint16_t phys_read16(uint64_t phys)
{
	__asm__("" : "+r"(phys));
	return *(volatile uint16_t *)(uintptr_t)phys;
}

static inline void phys_write16(uint64_t phys, uint16_t v)
{
	__asm__("" : "+r"(phys));
	*(volatile uint16_t *)(uintptr_t)phys = v;
}

static inline uint32_t phys_read32(uint64_t phys)
{
	__asm__("" : "+r"(phys));
	return *(volatile uint32_t *)(uintptr_t)phys;
}

/* IA32_APIC_BASE (SDM Vol. 3A §11.4.4, Figure 11-5; §11.12.1 for EXTD). */
#define MSR_IA32_APIC_BASE 0x1B
#define APIC_BASE_BSP   (1ull << 8)
#define APIC_BASE_EXTD  (1ull << 10)  /* x2APIC mode */
#define APIC_BASE_EN    (1ull << 11)  /* APIC globally enabled */
#define APIC_BASE_ADDR  0x000FFFFFFFFFF000ull
/* The APIC ID register: xAPIC MMIO offset 0x20, ID in bits 31:24 (SDM Vol.
 * 3A §11.4.6); x2APIC MSR 0x802, all 32 bits (§11.12.5.1, Table 11-6). */
#define XAPIC_ID_REG    0x20
#define XAPIC_ID_SHIFT  24
#define MSR_X2APIC_ID   0x802

#endif
