/* SPDX-License-Identifier: MIT */
/* The one handler of every vector (kernel/isr.asm's stubs, the IDT of
 * kernel/idt.c). A fault ends the run with everything needed to find it;
 * an NMI (kernel/nmi.c) or a stray interrupt is counted and the CPU goes
 * back to what it was doing. */
#include "kernel/trap.h"

#include "kernel/abort.h"
#include "kernel/console.h"
#include "kernel/apic_id.h"
#include "kernel/msr_safe.h"
#include "kernel/x86.h"

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
static void (*nmi_handler)(void);
static void (*wing_vector)(void);

void trap_set_wing_vector(void (*handler)(void))
{
	wing_vector = handler;
}

static void (*volatile stray_hook)(uint8_t vector);
static volatile uint32_t strays;

void trap_set_stray_hook(void (*hook)(uint8_t vector))
{
	stray_hook = hook;
}

uint32_t trap_stray_total(void)
{
	return __atomic_load_n(&strays, __ATOMIC_RELAXED);
}

void trap_set_fault_fixup(bool (*fixup)(struct trap_frame *f))
{
	fault_fixup = fixup;
}

void trap_set_nmi_handler(void (*handler)(void))
{
	nmi_handler = handler;
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

void trap_dispatch(struct trap_frame *f);

/* An interrupt vector nobody sends on purpose, or the spurious vector:
 * counted, never fatal. The spurious vector gets no EOI (SDM Vol. 3A
 * §11.9, "Spurious Interrupt"); any other had its in-service bit set by
 * the local APIC and gets one, or it would block every vector of its
 * priority class and below (§11.8.3.1). No handler here nests (interrupt
 * gates keep IF clear), so the EOI retires this vector and no other. */
static void __attribute__((noinline)) stray(uint64_t vector)
{
	void (*hook)(uint8_t) = stray_hook;

	__atomic_add_fetch(&strays, 1, __ATOMIC_RELAXED);
	if (hook)
		hook((uint8_t)vector);
	if (vector != VEC_SPURIOUS)
		eoi();
}

/* Vectors 0..31 but the NMI: fatal unless a fixup takes it back. */
static void __attribute__((noinline)) fault(struct trap_frame *f)
{
	if (msr_safe_fixup(f) || (fault_fixup && fault_fixup(f)))
		return;

	uint32_t apic = cpu_apic_id();
	const char *name = trap_exception_name(f->vector);
#if defined(__i386__)
	kprintf("\nEXCEPTION on CPU apic=%u: vector %u (%s) error=0x%x\n"
		"  eip=0x%08x cr2=0x%08llx eflags=0x%x cs=0x%x\n"
		"  eax=0x%x ebx=0x%x ecx=0x%x edx=0x%x esi=0x%x edi=0x%x ebp=0x%x\n",
		apic, f->vector, name, f->error, f->eip,
		(unsigned long long)read_cr2(), f->eflags, f->cs,
		f->eax, f->ebx, f->ecx, f->edx, f->esi, f->edi, f->ebp);
	kprintf("@fail what=exception apic=%u vector=%u error=0x%x rip=0x%x cr2=0x%llx\n",
		apic, f->vector, f->error, f->eip, (unsigned long long)read_cr2());
#else
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
#endif
	abort_run("CPU exception");
}

/* Off the VEC_WAKE/VEC_TIMER path: a vector of its own, so that the idle
 * loop of every AP (smp/ap_entry.c) and its timed paths stay as they are. */
static void __attribute__((noinline)) wing_interrupt(uint64_t vector)
{
	if (!wing_vector) {
		stray(vector);
		return;
	}
	eoi();
	wing_vector();
}

/* The wake-up and timer vectors first, and nothing else inlined here:
 * their path (on the timed path of every sample) stays a compare and a
 * tail call to the EOI. */
void trap_dispatch(struct trap_frame *f)
{
	uint64_t vector = f->vector;

	if (vector == VEC_WAKE || vector == VEC_TIMER)
		eoi();
	else if (vector == VEC_NMI && nmi_handler)
		nmi_handler();
	else if (vector == VEC_WING)
		wing_interrupt(vector);
	else if (vector >= 32)
		stray(vector);
	else
		fault(f);
}
