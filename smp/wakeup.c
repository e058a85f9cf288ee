/* SPDX-License-Identifier: MIT */
/* INIT-SIPI-SIPI, following the SDM's MP initialization sequence (Vol. 3A
 * §9.4.4.1, "Typical BSP Initialization Sequence") the way Linux 6.6 sends
 * it (arch/x86/kernel/smpboot.c, wakeup_secondary_cpu_via_init()), and
 * the offline request that ends in smp/park.c. */
#include "smp/wakeup.h"

#include "smp/lapic.h"
#include "smp/smp.h"
#include "smp/test_hooks.h"
#include "smp/trampoline.h"
#include "smp/tsc_sync.h"
#include "kernel/abort.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/trap.h"
#include "kernel/tsc.h"
#include "kernel/warn.h"
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

static bool in_state(const struct cpu *c, uint32_t want)
{
	return __atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == want;
}

static bool has_settled(const struct cpu *c, uint32_t unused)
{
	(void)unused;
	return __atomic_load_n(&c->tsc_settled, __ATOMIC_ACQUIRE) != 0;
}

/* Wait until done(c, arg); returns the BSP's TSC when it saw that, or 0
 * on timeout. In hlt mode the BSP sleeps until the AP's IPI, with the
 * LAPIC timer as a safety net so the timeout still holds. */
static uint64_t wait_until(struct cpu *c, bool (*done)(const struct cpu *, uint32_t),
			   uint32_t arg, const struct wake_config *w)
{
	uint64_t deadline = tsc_deadline_us((uint64_t)w->ap_timeout_ms * 1000);
	bool halt = w->bsp_wait == BSP_WAIT_HLT;
	uint64_t seen = 0;

	if (halt)
		lapic_timer_periodic_us(1000);
	for (;;) {
		cli();
		if (done(c, arg)) {
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

static uint64_t wait_for_state(struct cpu *c, uint32_t want,
			       const struct wake_config *w)
{
	return wait_until(c, in_state, want, w);
}

/* Wait us after a STARTUP IPI. poll (sipi_count=auto): stop as soon as
 * the AP has entered the trampoline; true if it has. */
static bool sipi_wait(uint64_t us, bool poll)
{
	if (!poll) {
		udelay(us);
		return false;
	}
	const struct tramp_header *h = trampoline_header();
	uint64_t deadline = tsc_deadline_us(us);
	while (h->stage == TRAMP_STAGE_NONE && !tsc_passed(deadline))
		cpu_relax();
	return h->stage != TRAMP_STAGE_NONE;
}

/* sipi_delay=linux is Linux 6.6's loop (wakeup_secondary_cpu_via_init()),
 * per STARTUP IPI: clear the ESR, write the ICR, udelay(10), wait for the
 * ICR to go idle (its "send status"), udelay(10), read the ESR masked with
 * 0xEF (its "accept status"), and stop after an error in either. The two
 * delays are 300 and 200 us where Linux keeps the 10 ms INIT delay
 * (init_udelay != 0; here init_delay_us != 0). sipi_delay=fixed: one wait
 * of sipi_delay_us after the ICR has gone idle. sipi_count=auto stops
 * each wait once the AP has entered the trampoline and then sends no
 * second SIPI, the check Zircon's x86_bringup_aps() makes before its
 * second one (kernel/arch/x86/smp.cc). */
void ap_send_startup_ipis(struct cpu *c, const struct wake_config *w, uint8_t vector)
{
	bool linux_delays = w->sipi_delay == SIPI_DELAY_LINUX;
	bool modern = w->init_delay_us == 0;
	bool poll = w->sipi_count == SIPI_COUNT_AUTO;
	uint32_t count = poll ? 2 : w->sipi_count;
	bool arrived = false;

	for (uint32_t i = 0; i < count && !arrived; i++) {
		lapic_clear_esr();
		bool sent = lapic_write_icr(c->apic_id, ICR_STARTUP | vector,
					    icount_fence_after_sipi(w, i));
		if (linux_delays) {
			arrived = sipi_wait(modern ? 10 : 300, poll);
			sent = sent && lapic_wait_icr_idle();
			if (!arrived)
				arrived = sipi_wait(modern ? 10 : 200, poll);
		} else {
			sent = sent && lapic_wait_icr_idle();
			arrived = sipi_wait(w->sipi_delay_us, poll);
		}
		uint32_t esr = lapic_read_esr() & ESR_REPORT_MASK;
		if (!sent)
			kprintf("smp: APIC ID %u: ICR stayed busy sending STARTUP %u\n",
				c->apic_id, i + 1);
		if (esr) {
			c->esr |= esr;
			kprintf("smp: APIC ID %u: APIC error status 0x%x after SIPI %u\n",
				c->apic_id, esr, i + 1);
		}
		if (!sent || esr)
			break;
	}
}

/* The trampoline's per-bring-up fields, cleared before each wake-up. */
static void reset_tramp_stage(struct cpu *c)
{
	struct tramp_header *h = trampoline_header();

	h->stage = TRAMP_STAGE_NONE;
	h->stage_apic = APIC_ID_NONE;
	h->tsc_real = 0;
	h->tsc_long = 0;
	c->stage = 0;
}

/* STARTING -> FAILED by compare-and-exchange, as the AP goes STARTING ->
 * ONLINE (see ap_entry()): true if we gave up first, false if the AP made
 * it after our last look (it is online). */
static bool give_up(struct cpu *c)
{
	uint32_t starting = CPU_STARTING;
	return __atomic_compare_exchange_n(&c->state, &starting, CPU_FAILED, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* A lost STARTUP IPI (EDK2 re-sends them on busy hosts) leaves the AP in
 * wait-for-SIPI: the whole INIT-SIPI-SIPI once more, from INIT, since an
 * AP that did start may be stuck half-way. Called once the BSP has given
 * up (give_up()), so a late arrival cannot count itself online in
 * between; the AP is STARTING again when this returns. The serial start
 * and a per-AP step of a parallel one both retry through here. */
void ap_wake_again(struct cpu *c, const struct wake_config *w, uint8_t vector,
		   uint32_t attempt)
{
	c->retries++;
	kprintf("smp: APIC ID %u did not come online within %u ms (stage %u): "
		"INIT-SIPI-SIPI again (retry %u of %u)\n", c->apic_id,
		w->ap_timeout_ms, last_stage(c), attempt, w->sipi_retry);
	warn_record("what=sipi_retry apic=%u retry=%u stage=%u", c->apic_id,
		    attempt, last_stage(c));
	ap_send_init(c, w);
	reset_tramp_stage(c);
	__atomic_store_n(&c->state, CPU_STARTING, __ATOMIC_RELEASE);
	ap_send_startup_ipis(c, w, vector);
}

bool ap_start(struct cpu *c, const struct wake_config *w, struct start_phases *ph)
{
	struct tramp_header *h = trampoline_header();
	uint8_t vector = (uint8_t)(trampoline_phys() >> 12);
	/* selftest=lost-sipi: this attempt's SIPIs are "lost". */
	bool lose_sipis = test_hook_lose_sipis(c);

	reset_tramp_stage(c);
	c->request = REQ_NONE;
	__atomic_store_n(&c->state, CPU_STARTING, __ATOMIC_RELEASE);
	lapic_clear_esr();

	/* icount=on only: see smp/test_hooks.h. */
	bool fence_armed = icount_fence_arm_early(w);

	uint64_t t0 = rdtsc();
	ap_send_init(c, w);
	icount_fence_arm_late(w, fence_armed);
	if (!lose_sipis)
		ap_send_startup_ipis(c, w, vector);

	test_hook_sipis_sent(c, w, vector);

	uint64_t t1 = wait_for_state(c, CPU_ONLINE, w);
	for (uint32_t attempt = 1; !t1; attempt++) {
		if (!give_up(c)) {
			t1 = rdtsc(); /* it made it after all */
			break;
		}
		if (attempt > w->sipi_retry || run_ended())
			break;
		ap_wake_again(c, w, vector, attempt);
		t1 = wait_for_state(c, CPU_ONLINE, w);
	}
	if (t1) {
		ph->total = t1 - t0;
		ph->ap = tsc_cross_cpu(c, c->tsc_online, t0);
		ph->to_real = tsc_cross_cpu(c, h->tsc_real, t0);
		ph->to_long = tsc_same_cpu(h->tsc_long, h->tsc_real);
		ph->to_online = tsc_same_cpu(c->tsc_online, h->tsc_long);
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

/* Ask online AP c for req (REQ_OFFLINE or REQ_HALT) and wait until it
 * reports dead; the BSP's TSC then, or 0 after reporting a timeout. */
static uint64_t request_park(struct cpu *c, uint32_t req, const struct wake_config *w)
{
	__atomic_store_n(&c->tsc_settled, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&c->request, req, __ATOMIC_RELEASE);
	ap_send_ipi(c, ICR_FIXED | VEC_WAKE, "wake-up IPI", NULL);
	return wait_for_state(c, CPU_PARKED, w);
}

static bool offline_failed(struct cpu *c, const struct wake_config *w,
			   const char *what)
{
	__atomic_store_n(&c->state, CPU_FAILED, __ATOMIC_RELEASE);
	kprintf("smp: APIC ID %u did not %s within %u ms\n", c->apic_id, what,
		w->ap_timeout_ms);
	kprintf("@fail what=offline_timeout apic=%u timeout_ms=%u\n", c->apic_id,
		w->ap_timeout_ms);
	ap_send_init(c, w);
	return false;
}

bool ap_offline(struct cpu *c, const struct wake_config *w, struct offline_times *t)
{
	uint64_t t0 = rdtsc();
	uint64_t t1 = request_park(c, REQ_OFFLINE, w);
	if (!t1)
		return offline_failed(c, w, "report dead");
	/* Linux's wait ends here (cpuhp_bp_sync_dead()); the AP may still be
	 * flushing. Wait for that too, so that the next bring-up cannot cut
	 * it short, and keep when it finished. */
	t->total = t1 - t0;
	if (!wait_until(c, has_settled, 0, w))
		return offline_failed(c, w, "settle after reporting dead");
	t->settled = tsc_cross_cpu(c, c->tsc_settled, t0);
	if (w->park == PARK_INIT)
		ap_send_init(c, w); /* now in wait-for-SIPI */
	return true;
}

bool ap_halt(struct cpu *c, const struct wake_config *w)
{
	return request_park(c, REQ_HALT, w) || offline_failed(c, w, "halt");
}
