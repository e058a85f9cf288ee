/* SPDX-License-Identifier: MIT */
/* The AP side: arrive in C, report online, idle until the BSP asks for
 * something: the TSC warp test, or going offline (smp/park.c). */
#include "smp/ap_entry.h"

#include "smp/instrument.h"
#include "smp/lapic.h"
#include "smp/park.h"
#include "smp/phases.h"
#include "smp/smp.h"
#include "smp/tsc_sync.h"
#include "kernel/abort.h"
#include "kernel/gdt.h"
#include "kernel/idt.h"
#include "kernel/trap.h"
#include "kernel/x86.h"

/* Phase p reached: its timestamp (MARKS=0 builds: the online mark's
 * only, smp/phases.h), then the stage the BSP reads. Always inline: on
 * the measured path, where a call costs more than the mark (make
 * marks-cost). */
static inline __attribute__((always_inline)) void ap_reached(struct tramp_cpu *slot,
							     enum ap_mark p, uint32_t stage)
{
	if (APSTART_MARKS || p == AP_MARK_ONLINE)
		slot->tsc[p] = rdtsc();
	__atomic_store_n(&slot->stage, stage, __ATOMIC_RELEASE);
}

void ap_entry(uint32_t apic_id, uint32_t index)
{
	struct cpu *c = index < cpu_count ? &cpus[index] : 0;

	if (!c || c->apic_id != apic_id) {
		/* The table handed to the trampoline and cpus[] disagree:
		 * cannot happen unless memory was corrupted. Stop here. */
		halt_forever();
	}
	struct tramp_cpu *slot = c->slot;
	ap_reached(slot, AP_MARK_C_ENTRY, AP_STAGE_C_ENTRY);
	gdt_reload();
	idt_load();
	ap_reached(slot, AP_MARK_TABLES, AP_STAGE_TABLES);

	if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) != CPU_STARTING) {
		/* We were given up on (timed out) and arrived late: stop
		 * without touching the state the BSP reported. */
		c->late_arrivals++;
		halt_forever();
	}
	INSTRUMENT_AP_ARRIVED(c);
	lapic_init_ap();
	ap_reached(slot, AP_MARK_LAPIC, AP_STAGE_LAPIC);
	c->request = REQ_NONE;
	ap_reached(slot, AP_MARK_ONLINE, AP_STAGE_ONLINE);
	/* STARTING -> ONLINE only if the BSP has not given up on us in the
	 * meantime (it moves STARTING -> FAILED the same way, in ap_start()):
	 * one of the two wins, a late AP is never counted online. */
	uint32_t starting = CPU_STARTING;
	if (!__atomic_compare_exchange_n(&c->state, &starting, CPU_ONLINE, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		c->late_arrivals++;
		halt_forever();
	}
	ap_notify_bsp();
	/* After the online mark, off the timed path: NMIs may reach this
	 * CPU from here on (extnmi=all), which its IDT is ready for. */
	lapic_extnmi_ap();

	for (;;) {
		cli();
		uint32_t req = __atomic_exchange_n(&c->request, REQ_NONE, __ATOMIC_ACQ_REL);
		switch (req) {
		case REQ_TSC_CHECK:
			tsc_sync_ap(c);
			break;
		case REQ_OFFLINE:
		case REQ_HALT:
			__atomic_store_n(&c->state, CPU_GOING_OFFLINE, __ATOMIC_RELEASE);
			park_ap(c, req == REQ_HALT);
		default:
			sti_hlt(); /* woken by the BSP's VEC_WAKE IPI */
		}
	}
}
