/* SPDX-License-Identifier: MIT */
/* One IDT shared by all CPUs. Exceptions are fatal to the run: print
 * everything needed to find the fault, then end with a failure status. */
#include "kernel/trap.h"

#include "kernel/abort.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/gdt.h"
#include "kernel/x86.h"

struct idt_entry {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t zero;
} __attribute__((packed));

#define GATE_INTERRUPT 0x8E /* present, DPL 0, 64-bit interrupt gate */

extern const uint64_t isr_table[35];

static struct idt_entry idt[256] __attribute__((aligned(16)));

static void eoi_none(void)
{
}

/* Never NULL: the dispatch calls it without a test. */
static void (*eoi)(void) = eoi_none;

void trap_set_eoi(void (*fn)(void))
{
	eoi = fn ? fn : eoi_none;
}

static bool (*fault_fixup)(struct trap_frame *f);

void trap_set_fault_fixup(bool (*fixup)(struct trap_frame *f))
{
	fault_fixup = fixup;
}

static const char *const exception_names[32] = {
	"#DE divide error", "#DB debug", "NMI", "#BP breakpoint",
	"#OF overflow", "#BR bound range", "#UD invalid opcode",
	"#NM device not available", "#DF double fault", "coprocessor overrun",
	"#TS invalid TSS", "#NP segment not present", "#SS stack fault",
	"#GP general protection", "#PF page fault", "reserved 15",
	"#MF x87 error", "#AC alignment check", "#MC machine check",
	"#XM SIMD error", "#VE virtualization", "#CP control protection",
	"reserved 22", "reserved 23", "reserved 24", "reserved 25",
	"reserved 26", "reserved 27", "#HV hypervisor injection",
	"#VC VMM communication", "#SX security", "reserved 31",
};

const char *trap_exception_name(uint64_t vector)
{
	return vector < 32 ? exception_names[vector] : "interrupt";
}

static void set_gate(unsigned vector, uint64_t handler)
{
	idt[vector] = (struct idt_entry){
		.offset_lo = (uint16_t)handler,
		.selector = SEL_CODE64,
		.type_attr = GATE_INTERRUPT,
		.offset_mid = (uint16_t)(handler >> 16),
		.offset_hi = (uint32_t)(handler >> 32),
	};
}

void idt_init(void)
{
	for (unsigned v = 0; v < 32; v++)
		set_gate(v, isr_table[v]);
	set_gate(VEC_WAKE, isr_table[32]);
	set_gate(VEC_TIMER, isr_table[33]);
	set_gate(VEC_SPURIOUS, isr_table[34]);
}

void idt_load(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) desc = { sizeof idt - 1, (uint64_t)(uintptr_t)idt };
	__asm__ volatile("lidt %0" :: "m"(desc));
}

void trap_dispatch(struct trap_frame *f);

void trap_dispatch(struct trap_frame *f)
{
	if (f->vector == VEC_WAKE || f->vector == VEC_TIMER) {
		eoi();
		return;
	}
	if (f->vector == VEC_SPURIOUS)
		return; /* spurious: no EOI (SDM Vol. 3A §11.9) */
	if (f->vector < 32 && fault_fixup && fault_fixup(f))
		return;

	uint32_t apic = cpu_apic_id();
	const char *name = trap_exception_name(f->vector);
	kprintf("\nEXCEPTION on CPU apic=%u: vector %llu (%s) error=0x%llx\n"
		"  rip=0x%016llx cr2=0x%016llx rsp=0x%016llx rflags=0x%llx cs=0x%llx\n"
		"  rax=0x%llx rbx=0x%llx rcx=0x%llx rdx=0x%llx rsi=0x%llx rdi=0x%llx\n",
		apic, (unsigned long long)f->vector, name,
		(unsigned long long)f->error, (unsigned long long)f->rip,
		(unsigned long long)read_cr2(), (unsigned long long)f->rsp,
		(unsigned long long)f->rflags, (unsigned long long)f->cs,
		(unsigned long long)f->rax, (unsigned long long)f->rbx,
		(unsigned long long)f->rcx, (unsigned long long)f->rdx,
		(unsigned long long)f->rsi, (unsigned long long)f->rdi);
	kprintf("@fail what=exception apic=%u vector=%llu error=0x%llx rip=0x%llx cr2=0x%llx\n",
		apic, (unsigned long long)f->vector, (unsigned long long)f->error,
		(unsigned long long)f->rip, (unsigned long long)read_cr2());
	abort_run("CPU exception");
}
