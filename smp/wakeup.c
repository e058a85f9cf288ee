/* SPDX-License-Identifier: MIT */
/* INIT-SIPI-SIPI, following the SDM's MP initialization sequence (Vol. 3A
 * §9.4.4.1, "Typical BSP Initialization Sequence") with the delays of
 * modern processors that Linux also uses (wakeup_secondary_cpu_via_init). */
#include "smp/wakeup.h"

#include "smp/lapic.h"
#include "smp/smp.h"
#include "smp/test_hooks.h"
#include "smp/trampoline.h"
#include "kernel/abort.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/trap.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"

/* ESR bits worth reporting after a SIPI: all but bit 4 (reserved on
 * P6-family APICs, "redirectable IPI" elsewhere), as Linux masks 0xEF. */
#define ESR_REPORT_MASK 0xEF

bool ap_send_ipi(struct cpu *c, uint32_t icr, const char *what,
		 void (*after_write)(void))
{
	bool sent = after_write ? lapic_send_ipi_then(c->apic_id, icr, after_write)
				: lapic_send_ipi(c->apic_id, icr);
	if (!sent)
		kprintf("smp: APIC ID %u: ICR stayed busy sending %s\n",
			c->apic_id, what);
	return sent;
}

void ap_send_init(struct cpu *c, const struct wake_config *w)
{
	ap_send_ipi(c, ICR_INIT | ICR_LEVEL_ASSERT | ICR_TRIGGER_LEVEL,
		    "INIT assert", NULL);
	udelay(w->init_delay_us);
	/* INIT level de-assert: needed by the 82489DX; the SDM says Pentium 4
	 * and later do not support it (Vol. 3A §11.6.1, ICR delivery mode
	 * 101), i.e. they ignore it. Sent anyway, in both APIC modes, as
	 * Linux does: the sequence timed is the one Linux sends. */
	ap_send_ipi(c, ICR_INIT | ICR_TRIGGER_LEVEL, "INIT de-assert", NULL);
}

static uint32_t last_stage(const struct cpu *c)
{
	if (c->stage)
		return c->stage;
	const struct tramp_header *h = trampoline_header();
	/* Bring-up is serial: the trampoline's stage belongs to this AP
	 * (stage_apic is only known from long mode on). */
	if (h->stage_apic == APIC_ID_NONE || h->stage_apic == c->apic_id)
		return h->stage;
	return 0;
}

const char *ap_stage_name(uint32_t stage)
{
	switch (stage) {
	case AP_STAGE_C_ENTRY: return "C entry";
	case AP_STAGE_TABLES: return "kernel GDT/IDT loaded";
	case AP_STAGE_LAPIC: return "LAPIC enabled";
	case AP_STAGE_ONLINE: return "online";
	default: return tramp_stage_name(stage);
	}
}

/* Wait until the AP reaches `want`; returns the BSP's TSC when it saw it,
 * or 0 on timeout. In hlt mode the BSP sleeps until the AP's IPI, with the
 * LAPIC timer as a safety net so the timeout still holds. */
static uint64_t wait_for_state(struct cpu *c, uint32_t want,
			       const struct wake_config *w)
{
	uint64_t deadline = tsc_deadline_us((uint64_t)w->ap_timeout_ms * 1000);
	bool halt = w->bsp_wait == BSP_WAIT_HLT;
	uint64_t seen = 0;

	if (halt)
		lapic_timer_periodic_us(1000);
	for (;;) {
		cli();
		if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == want) {
			seen = rdtsc();
			break;
		}
		/* Another CPU ended the run (exception): it reports and
		 * exits; the BSP must neither print nor INIT anyone. */
		if (run_ended())
			halt_forever();
		if (tsc_passed(deadline))
			break;
		if (halt)
			sti_hlt();
		else
			cpu_relax();
	}
	if (halt)
		lapic_timer_stop();
	return seen;
}

bool ap_start(struct cpu *c, const struct wake_config *w, struct start_phases *ph)
{
	struct tramp_header *h = trampoline_header();
	uint8_t vector = (uint8_t)(trampoline_phys() >> 12);

	h->stage = TRAMP_STAGE_NONE;
	h->stage_apic = APIC_ID_NONE;
	h->tsc_real = 0;
	h->tsc_long = 0;
	c->stage = 0;
	c->request = REQ_NONE;
	__atomic_store_n(&c->state, CPU_STARTING, __ATOMIC_RELEASE);
	lapic_clear_esr();

	/* icount=on only: see smp/test_hooks.h. */
	bool fence_armed = icount_fence_arm_early(w);

	uint64_t t0 = rdtsc();
	ap_send_init(c, w);
	icount_fence_arm_late(w, fence_armed);
	for (uint32_t i = 0; i < w->sipi_count; i++) {
		lapic_clear_esr();
		ap_send_ipi(c, ICR_STARTUP | vector, "STARTUP",
			    icount_fence_after_sipi(w, i));
		udelay(w->sipi_delay_us);
		uint32_t esr = lapic_read_esr() & ESR_REPORT_MASK;
		if (esr) {
			c->esr |= esr;
			kprintf("smp: APIC ID %u: APIC error status 0x%x after SIPI %u\n",
				c->apic_id, esr, i + 1);
		}
	}

	test_hook_sipis_sent(c, w, vector);

	uint64_t t1 = wait_for_state(c, CPU_ONLINE, w);
	/* Give up by compare-and-exchange, as the AP comes online (see
	 * ap_entry()): if it marked itself online after our last look, it
	 * made it after all. */
	uint32_t starting = CPU_STARTING;
	if (!t1 && !__atomic_compare_exchange_n(&c->state, &starting, CPU_FAILED,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
		t1 = rdtsc();
	if (t1) {
		ph->total = t1 - t0;
		ph->to_real = h->tsc_real - t0;
		ph->to_long = h->tsc_long - h->tsc_real;
		ph->to_online = c->tsc_online - h->tsc_long;
		return true;
	}
	c->fail_stage = last_stage(c);
	kprintf("smp: APIC ID %u did not come online within %u ms; last stage: %u (%s)\n",
		c->apic_id, w->ap_timeout_ms, c->fail_stage,
		ap_stage_name(c->fail_stage));
	kprintf("@fail what=ap_timeout apic=%u stage=%u timeout_ms=%u\n",
		c->apic_id, c->fail_stage, w->ap_timeout_ms);
	test_hook_gave_up(c);
	/* Back to wait-for-SIPI, so it cannot wander in later. */
	ap_send_init(c, w);
	return false;
}

bool ap_offline(struct cpu *c, const struct wake_config *w, uint64_t *ticks)
{
	uint64_t t0 = rdtsc();
	__atomic_store_n(&c->request, REQ_OFFLINE, __ATOMIC_RELEASE);
	ap_send_ipi(c, ICR_FIXED | VEC_WAKE, "wake-up IPI", NULL);

	uint64_t t1 = wait_for_state(c, CPU_PARKED, w);
	if (t1) {
		*ticks = t1 - t0;
		return true;
	}
	__atomic_store_n(&c->state, CPU_FAILED, __ATOMIC_RELEASE);
	kprintf("smp: APIC ID %u did not park within %u ms\n", c->apic_id,
		w->ap_timeout_ms);
	kprintf("@fail what=offline_timeout apic=%u timeout_ms=%u\n", c->apic_id,
		w->ap_timeout_ms);
	ap_send_init(c, w);
	return false;
}
