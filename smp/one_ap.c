/* SPDX-License-Identifier: MIT */
/* INIT-SIPI-SIPI, following the SDM's MP initialization sequence (Vol. 3A
 * §9.4.4.1, "Typical BSP Initialization Sequence") the way Linux 6.6 sends
 * it (arch/x86/kernel/smpboot.c, wakeup_secondary_cpu_via_init()), and
 * the offline request that ends in smp/park.c. */
#include "smp/one_ap.h"

#include "smp/lapic.h"
#include "smp/smp.h"
#include "smp/test_hooks.h"
#include "smp/trampoline.h"
#include "smp/tsc_sync.h"
#include "kernel/abort.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/nmi.h"
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
	c->marks.init_assert = rdtsc();
	nmi_cpu_reset(c->apic_id); /* a parked AP may have been in its NMI handler */
	udelay(w->init_delay_us);
	/* INIT level de-assert: needed by the 82489DX; the SDM says Pentium 4
	 * and later do not support it (Vol. 3A §11.6.1, ICR delivery mode
	 * 101), i.e. they ignore it. Sent anyway, in both APIC modes, as
	 * Linux does: the sequence timed is the one Linux sends. */
	ap_send_ipi(c, ICR_INIT | ICR_TRIGGER_LEVEL, "INIT de-assert", NULL);
	c->marks.init_deassert = rdtsc();
}

uint32_t ap_last_stage(const struct cpu *c, bool in_real)
{
	uint32_t stage = __atomic_load_n(&c->slot->stage, __ATOMIC_ACQUIRE);
	if (stage == TRAMP_STAGE_NONE && in_real)
		return TRAMP_STAGE_REAL;
	return stage;
}

bool ap_entered(const struct cpu *c, bool serial)
{
	if (__atomic_load_n(&c->slot->stage, __ATOMIC_ACQUIRE) != TRAMP_STAGE_NONE)
		return true;
	/* Before protected mode an AP is only counted: in a serial start
	 * the count can only be this AP's. */
	return serial && __atomic_load_n(&trampoline_header()->real_entries,
					 __ATOMIC_ACQUIRE) != c->real_entries;
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
static bool sipi_wait(const struct cpu *c, uint64_t us, bool poll)
{
	if (!poll) {
		udelay(us);
		return false;
	}
	uint64_t deadline = tsc_deadline_us(us);
	while (!ap_entered(c, true) && !tsc_passed(deadline))
		cpu_relax();
	return ap_entered(c, true);
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
		/* Before the write: the AP may run (and, under -icount, its
		 * whole trampoline) before the BSP's next instruction. */
		*(i == 0 ? &c->marks.sipi1 : &c->marks.sipi2) = rdtsc();
		bool sent = lapic_write_icr(c->apic_id, ICR_STARTUP | vector,
					    icount_fence_after_sipi(w, i));
		if (linux_delays) {
			arrived = sipi_wait(c, modern ? 10 : 300, poll);
			sent = sent && lapic_wait_icr_idle();
			if (!arrived)
				arrived = sipi_wait(c, modern ? 10 : 200, poll);
		} else {
			sent = sent && lapic_wait_icr_idle();
			arrived = sipi_wait(c, w->sipi_delay_us, poll);
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

/* c's slot and the count of real-mode entries it is told apart by,
 * cleared for a new attempt. */
static void reset_slot(struct cpu *c)
{
	struct tramp_cpu *slot = c->slot;

	slot->stage = TRAMP_STAGE_NONE;
	for (int p = 0; p < AP_PHASES; p++)
		slot->tsc[p] = 0;
	c->real_entries = trampoline_header()->real_entries;
}

void ap_prepare(struct cpu *c)
{
	reset_slot(c);
	c->marks = (struct bsp_marks){ 0 };
	c->request = REQ_NONE;
	__atomic_store_n(&c->state, CPU_STARTING, __ATOMIC_RELEASE);
}

void ap_start_figures(const struct cpu *c, struct start_phases *ph)
{
	const volatile uint64_t *ap = c->slot->tsc;
	uint64_t t0 = c->marks.start;

	ph->total = c->marks.seen - t0;
	ph->ap = tsc_cross_cpu(c, ap[AP_PHASE_ONLINE], t0);
	ph->to_real = tsc_cross_cpu(c, ap[AP_PHASE_REAL], t0);
	ph->to_long = tsc_same_cpu(ap[AP_PHASE_LONG], ap[AP_PHASE_REAL]);
	ph->to_online = tsc_same_cpu(ap[AP_PHASE_ONLINE], ap[AP_PHASE_LONG]);
}

/* STARTING -> FAILED by compare-and-exchange, as the AP goes STARTING ->
 * ONLINE (see ap_entry()): true if we gave up first; false if the AP made
 * it after our last look (it is online, seen now). */
static bool give_up(struct cpu *c)
{
	uint32_t starting = CPU_STARTING;
	if (__atomic_compare_exchange_n(&c->state, &starting, CPU_FAILED, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return true;
	c->marks.seen = rdtsc();
	return false;
}

/* A lost STARTUP IPI (EDK2 re-sends them on busy hosts) leaves the AP in
 * wait-for-SIPI: the whole INIT-SIPI-SIPI once more, from INIT, since an
 * AP that did start may be stuck half-way. Called once the BSP has given
 * up (give_up()), so a late arrival cannot count itself online in
 * between; the AP is STARTING again when this returns. Its slot is
 * cleared after the INIT (a late AP may have written it until then);
 * marks.start stays the first attempt's, so the start's total and its
 * first phase count the time the lost attempt cost. */
void ap_wake_again(struct cpu *c, const struct wake_config *w, uint8_t vector,
		   uint32_t attempt, bool in_real)
{
	uint32_t stage = ap_last_stage(c, in_real);

	c->retries++;
	kprintf("smp: APIC ID %u did not come online within %u ms (stage %u): "
		"INIT-SIPI-SIPI again (retry %u of %u)\n", c->apic_id,
		w->ap_timeout_ms, stage, attempt, w->sipi_retry);
	warn_record("what=sipi_retry apic=%u retry=%u stage=%u", c->apic_id,
		    attempt, stage);
	ap_send_init(c, w);
	reset_slot(c);
	c->marks.sipi1 = c->marks.sipi2 = c->marks.seen = 0;
	__atomic_store_n(&c->state, CPU_STARTING, __ATOMIC_RELEASE);
	ap_send_startup_ipis(c, w, vector);
}

bool ap_give_up(struct cpu *c, const struct wake_config *w, bool in_real)
{
	uint8_t vector = (uint8_t)(trampoline_phys() >> 12);

	for (uint32_t attempt = 1;; attempt++) {
		if (!give_up(c))
			return false; /* it made it after all */
		if (attempt > w->sipi_retry || run_ended())
			break;
		ap_wake_again(c, w, vector, attempt, in_real);
		c->marks.seen = wait_for_state(c, CPU_ONLINE, w);
		if (c->marks.seen)
			return false;
		/* Only this AP was woken since reset_slot() (in a parallel
		 * start, one still pending could be counted too: then the
		 * stage reported is real mode where it may be none). */
		in_real = trampoline_header()->real_entries != c->real_entries;
	}
	c->fail_stage = ap_last_stage(c, in_real);
	kprintf("smp: APIC ID %u did not come online within %u ms; last stage: %u (%s)\n",
		c->apic_id, w->ap_timeout_ms, c->fail_stage,
		ap_stage_name(c->fail_stage));
	kprintf("@fail what=ap_timeout apic=%u stage=%u timeout_ms=%u\n",
		c->apic_id, c->fail_stage, w->ap_timeout_ms);
	test_hook_gave_up(c);
	/* Back to wait-for-SIPI, so it cannot wander in later. */
	ap_send_init(c, w);
	return true;
}

bool ap_start(struct cpu *c, const struct wake_config *w, struct start_phases *ph)
{
	uint8_t vector = (uint8_t)(trampoline_phys() >> 12);
	/* selftest=lost-sipi: this attempt's SIPIs are "lost". */
	bool lose_sipis = test_hook_lose_sipis(c);

	ap_prepare(c);
	lapic_clear_esr();

	/* icount=on only: see smp/test_hooks.h. */
	bool fence_armed = icount_fence_arm_early(w);

	c->marks.start = rdtsc();
	ap_send_init(c, w);
	icount_fence_arm_late(w, fence_armed);
	if (!lose_sipis)
		ap_send_startup_ipis(c, w, vector);

	test_hook_sipis_sent(c, w, vector);

	c->marks.seen = wait_for_state(c, CPU_ONLINE, w);
	/* An entry counted but no slot written: this AP, in real mode. */
	if (!c->marks.seen &&
	    ap_give_up(c, w, trampoline_header()->real_entries != c->real_entries))
		return false;
	ap_start_figures(c, ph);
	return true;
}

void ap_request_park(struct cpu *c, uint32_t req)
{
	__atomic_store_n(&c->tsc_settled, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&c->request, req, __ATOMIC_RELEASE);
	ap_send_ipi(c, ICR_FIXED | VEC_WAKE, "wake-up IPI", NULL);
}

/* Ask online AP c for req (REQ_OFFLINE or REQ_HALT) and wait until it
 * reports dead; the BSP's TSC then, or 0 after reporting a timeout. */
static uint64_t request_park(struct cpu *c, uint32_t req, const struct wake_config *w)
{
	ap_request_park(c, req);
	return wait_for_state(c, CPU_PARKED, w);
}

bool ap_offline_failed(struct cpu *c, const struct wake_config *w,
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
		return ap_offline_failed(c, w, "report dead");
	/* Linux's wait ends here (cpuhp_bp_sync_dead()); the AP may still be
	 * flushing. Wait for that too, so that the next bring-up cannot cut
	 * it short, and keep when it finished. */
	t->total = t1 - t0;
	if (!wait_until(c, has_settled, 0, w))
		return ap_offline_failed(c, w, "settle after reporting dead");
	t->settled = tsc_cross_cpu(c, c->tsc_settled, t0);
	if (w->park == PARK_INIT)
		ap_send_init(c, w); /* now in wait-for-SIPI */
	return true;
}

bool ap_halt(struct cpu *c, const struct wake_config *w)
{
	return request_park(c, REQ_HALT, w) || ap_offline_failed(c, w, "halt");
}
