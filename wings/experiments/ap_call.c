/* SPDX-License-Identifier: MIT */
#include "wings/experiments/ap_call.h"

#include "smp/lapic.h"
#include "smp/smp.h"
#include "kernel/bootmem.h"
#include "kernel/cpu.h"
#include "kernel/trap.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"

/* Keyed by the CPU's index in cpus[]; one line each (the done flag is
 * polled by the BSP while the AP works). From free RAM at the first call,
 * cpu_count of them: the image stays small (2 MiB machines boot). */
struct posted_call {
	ap_call_fn fn;
	void *arg;
	volatile uint32_t done;
} __attribute__((aligned(64)));
static struct posted_call *calls;

static void ap_call_run(struct cpu *c);

bool ap_call_start(struct cpu *c, ap_call_fn fn, void *arg)
{
	if (!calls)
		calls = bootmem_alloc((uint64_t)cpu_count * sizeof *calls, 64, "the posted calls");
	calls[c->index].fn = fn;
	calls[c->index].arg = arg;
	__atomic_store_n(&calls[c->index].done, 0, __ATOMIC_RELEASE);
	return lapic_send_ipi(c->apic_id, ICR_FIXED | VEC_WING);
}

bool ap_call_done(const struct cpu *c)
{
	return calls && __atomic_load_n(&calls[c->index].done, __ATOMIC_ACQUIRE) != 0;
}

/* Halted, not spinning: a spinning BSP would take a host CPU from the AP
 * under emulation, and on hardware its core's share of the cache. The AP
 * wakes it when done; a 10 ms timer bounds the wait. */
bool ap_call_wait(const struct cpu *c, uint64_t timeout_us)
{
	uint64_t deadline = tsc_deadline_us(timeout_us);
	bool ok = true, irq = (read_rflags() & 0x200) != 0;
	lapic_timer_periodic_us(10000);
	for (;;) {
		cli();
		if (ap_call_done(c))
			break;
		if (tsc_passed(deadline)) {
			ok = false;
			break;
		}
		sti_hlt();
	}
	lapic_timer_stop();
	if (irq)
		sti();
	return ok;
}

/* The AP, in its VEC_WING handler (kernel/trap.c): it was idle in its
 * loop's HLT (smp/ap_entry.c, which knows nothing of this). */
void ap_call_interrupt(void)
{
	struct cpu *c = cpu_by_apic(cpu_apic_id());
	if (c && calls)
		ap_call_run(c);
}

static void ap_call_run(struct cpu *c)
{
	ap_call_fn fn = calls[c->index].fn;
	if (fn)
		fn(c, calls[c->index].arg);
	__atomic_store_n(&calls[c->index].done, 1, __ATOMIC_RELEASE);
	lapic_send_ipi(smp_bsp_apic, ICR_FIXED | VEC_WAKE);
}
