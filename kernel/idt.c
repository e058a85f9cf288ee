/* SPDX-License-Identifier: MIT */
/* One IDT shared by all CPUs: every vector's gate points at its stub in
 * kernel/isr.asm, which saves the frame and calls trap_dispatch(). */
#include "kernel/idt.h"

#include <stdint.h>

#include "kernel/gdt.h"

/* Interrupt gates, SDM Vol. 3A §6.11 (32-bit, 8 bytes) and §6.14.1
 * (64-bit, 16 bytes); type 0x8E: present, DPL 0, 32-bit or 64-bit
 * interrupt gate by the mode. */
#if defined(__i386__)
struct idt_entry {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t zero;
	uint8_t type_attr;
	uint16_t offset_hi;
} __attribute__((packed));
#define SEL_KERNEL_CODE SEL_CODE32
#else
struct idt_entry {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t zero;
} __attribute__((packed));
#define SEL_KERNEL_CODE SEL_CODE64
#endif

#define GATE_INTERRUPT 0x8E

extern const uintptr_t isr_table[256];

static struct idt_entry idt[256] __attribute__((aligned(16)));

static void set_gate(unsigned vector, uintptr_t handler)
{
	idt[vector] = (struct idt_entry){
		.offset_lo = (uint16_t)handler,
		.selector = SEL_KERNEL_CODE,
		.type_attr = GATE_INTERRUPT,
#if defined(__i386__)
		.offset_hi = (uint16_t)(handler >> 16),
#else
		.offset_mid = (uint16_t)(handler >> 16),
		.offset_hi = (uint32_t)(handler >> 32),
#endif
	};
}

void idt_init(void)
{
	for (unsigned v = 0; v < 256; v++)
		set_gate(v, isr_table[v]);
}

void idt_load(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) desc = { sizeof idt - 1, (uint64_t)(uintptr_t)idt };
	__asm__ volatile("lidt %0" :: "m"(desc));
}
