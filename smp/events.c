/* SPDX-License-Identifier: MIT */
/* Events per CPU (smp/events.h). The handlers (kernel/nmi.c,
 * kernel/trap.c) call the hooks below on the CPU that took the event;
 * the hooks find that CPU's record by its APIC ID and bump counters,
 * nothing else: the BSP does the printing, later. */
#include "smp/events.h"

#include "smp/smp.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/nmi.h"
#include "kernel/trap.h"
#include "kernel/warn.h"

static struct cpu *bsp;

static void count_nmi(uint8_t reason)
{
	struct cpu *c = cpu_by_apic(cpu_apic_id());
	if (!c)
		return; /* counted in nmi_total() only */
	__atomic_store_n(&c->nmi_reason, reason, __ATOMIC_RELAXED);
	if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == CPU_PARKED)
		__atomic_add_fetch(&c->nmis_parked, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->nmis, 1, __ATOMIC_RELEASE);
}

static void count_stray(uint8_t vector)
{
	struct cpu *c = cpu_by_apic(cpu_apic_id());
	if (!c)
		return;
	__atomic_store_n(&c->stray_vector, vector, __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->strays, 1, __ATOMIC_RELEASE);
}

void events_init(void)
{
	bsp = cpu_by_apic(smp_bsp_apic);
	nmi_set_hook(count_nmi);
	trap_set_stray_hook(count_stray);
}

uint32_t events_window_nmis(const struct cpu *c)
{
	uint32_t n = __atomic_load_n(&c->nmis, __ATOMIC_ACQUIRE);
	if (bsp && bsp != c)
		n += __atomic_load_n(&bsp->nmis, __ATOMIC_ACQUIRE);
	return n;
}

void events_report(void)
{
	for (uint32_t i = 0; i < cpu_count; i++) {
		struct cpu *c = &cpus[i];
		uint32_t n = __atomic_load_n(&c->nmis, __ATOMIC_ACQUIRE);
		if (n != c->nmis_reported) {
			uint8_t reason = (uint8_t)c->nmi_reason;
			c->nmis_reported = n;
			/* Linux's words for the same event (unknown_nmi_error(),
			 * pci_serr_error(), io_check_error()): serial only, a
			 * storm of them would bury the screen. */
			uint32_t parked = c->nmis_parked;
			cprintf(CON_SERIAL, "nmi: APIC ID %u: NMI received, reason %s "
				"(port 0x61 = 0x%02x), %u so far (%u while parked); "
				"carrying on\n", c->apic_id, nmi_reason_name(reason),
				reason, n, parked);
			warn_record("what=nmi apic=%u count=%u reason=%s port61=0x%02x "
				    "parked=%u", c->apic_id, n, nmi_reason_name(reason),
				    reason, parked);
		}
		n = __atomic_load_n(&c->strays, __ATOMIC_ACQUIRE);
		if (n != c->strays_reported) {
			uint32_t vector = c->stray_vector;
			c->strays_reported = n;
			cprintf(CON_SERIAL, "irq: APIC ID %u: stray interrupt, vector "
				"0x%x%s, %u so far; ignored\n", c->apic_id, vector,
				vector == VEC_SPURIOUS ? " (spurious)" : "", n);
			warn_record("what=stray_irq apic=%u count=%u vector=0x%x",
				    c->apic_id, n, vector);
		}
	}
}

uint32_t events_nmi_total(void)
{
	return nmi_total();
}

uint32_t events_stray_total(void)
{
	return trap_stray_total();
}
