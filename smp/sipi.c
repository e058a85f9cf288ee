/* SPDX-License-Identifier: MIT */
/* INIT-SIPI-SIPI (smp/sipi.h), following the SDM's MP initialization
 * sequence (Vol. 3A §9.4.4.1, "Typical BSP Initialization Sequence") the
 * way Linux 6.6 sends it (arch/x86/kernel/smpboot.c,
 * wakeup_secondary_cpu_via_init()), for one AP or a set: a set takes each
 * step to every AP before the next step, and Linux's waits once per
 * round rather than once per AP (Linux 6.5+'s parallel bring-up kicks
 * every AP first as well: kernel/cpu.c, cpuhp_bringup_mask()). For one
 * AP the sequence is Linux's exactly. Then the failure path: give up,
 * wake again, report. */
#include "smp/sipi.h"

#include "smp/ap_wait.h"
#include "smp/icount_fence.h"
#include "smp/lapic.h"
#include "smp/phases.h"
#include "smp/selftest_points.h"
#include "smp/smp.h"
#include "smp/trampoline.h"
#include "kernel/abort.h"
#include "kernel/console.h"
#include "kernel/nmi.h"
#include "kernel/tsc.h"
#include "kernel/warn.h"
#include "kernel/x86.h"
#include "lib/compiler.h"

/* ESR bits worth reporting after a SIPI: all but bit 4 (reserved on
 * P6-family APICs, "redirectable IPI" elsewhere), as Linux masks 0xEF. */
#define ESR_REPORT_MASK 0xEF

/* The steps below are written once, for a set, and inlined into the
 * one-AP entry points (FORCE_INLINE): the measured windows run through
 * them. */

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

uint8_t sipi_vector(void)
{
	return (uint8_t)(trampoline_phys() >> 12);
}

/* c's slot and the count of real-mode entries it is told apart by,
 * cleared for a new attempt. */
static void reset_slot(struct cpu *c)
{
	struct tramp_cpu *slot = c->slot;

	slot->stage = TRAMP_STAGE_NONE;
	for (int p = 0; p < AP_MARKS; p++)
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

/* One INIT to every AP of s (or one broadcast); each AP's mark is the
 * BSP's TSC after it. */
FORCE_INLINE void init_round(const struct wake_set *s, uint32_t icr, const char *what,
		       bool assert)
{
	if (s->broadcast) {
		if (!lapic_send_ipi_all_but_self(icr))
			kprintf("smp: ICR stayed busy broadcasting %s\n", what);
		uint64_t t = APSTART_MARKS ? rdtsc() : 0;
		for (uint32_t i = 0; APSTART_MARKS && i < s->n; i++)
			*(assert ? &s->cpus[i]->marks.init_assert
				 : &s->cpus[i]->marks.init_deassert) = t;
		return;
	}
	for (uint32_t i = 0; i < s->n; i++) {
		struct cpu *c = s->cpus[i];
		ap_send_ipi(c, icr, what, NULL);
		if (APSTART_MARKS)
			*(assert ? &c->marks.init_assert : &c->marks.init_deassert) = rdtsc();
	}
}

FORCE_INLINE void init_sequence(const struct wake_set *s, const struct wake_config *w)
{
	init_round(s, ICR_INIT | ICR_LEVEL_ASSERT | ICR_TRIGGER_LEVEL, "INIT assert", true);
	for (uint32_t i = 0; i < s->n; i++)
		nmi_cpu_reset(s->cpus[i]->apic_id); /* a parked AP may have been in its NMI handler */
	udelay(w->init_delay_us);
	/* INIT level de-assert: needed by the 82489DX; the SDM says Pentium 4
	 * and later do not support it (Vol. 3A §11.6.1, ICR delivery mode
	 * 101), i.e. they ignore it. Sent anyway, in both APIC modes, as
	 * Linux does: the sequence timed is the one Linux sends. */
	init_round(s, ICR_INIT | ICR_TRIGGER_LEVEL, "INIT de-assert", false);
}

void ap_send_init_many(const struct wake_set *s, const struct wake_config *w)
{
	init_sequence(s, w);
}

void ap_send_init(struct cpu *c, const struct wake_config *w)
{
	init_sequence(&(struct wake_set){ .cpus = &c, .n = 1, .broadcast = false, .alone = true },
		      w);
}

uint32_t ap_last_stage(const struct cpu *c, bool in_real)
{
	uint32_t stage = __atomic_load_n(&c->slot->stage, __ATOMIC_ACQUIRE);
	if (stage == TRAMP_STAGE_NONE && in_real)
		return TRAMP_STAGE_REAL;
	return stage;
}

bool ap_entered(const struct cpu *c, bool alone)
{
	if (__atomic_load_n(&c->slot->stage, __ATOMIC_ACQUIRE) != TRAMP_STAGE_NONE)
		return true;
	/* Before protected mode an AP is only counted: when it is the only
	 * one being woken, the count can only be its. */
	return alone && __atomic_load_n(&trampoline_header()->real_entries,
					__ATOMIC_ACQUIRE) != c->real_entries;
}

FORCE_INLINE bool all_entered(const struct wake_set *s)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (!ap_entered(s->cpus[i], s->alone))
			return false;
	return true;
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

/* Wait us after a STARTUP IPI. poll (sipi_count=auto): stop as soon as
 * every AP of s has entered the trampoline; true if they have. */
FORCE_INLINE bool sipi_wait(const struct wake_set *s, uint64_t us, bool poll)
{
	if (!poll) {
		udelay(us);
		return false;
	}
	uint64_t deadline = tsc_deadline_us(us);
	while (!all_entered(s) && !tsc_passed(deadline))
		cpu_relax();
	return all_entered(s);
}

/* The waits around a STARTUP IPI's ICR going idle. sipi_delay=linux is
 * Linux 6.6's loop (wakeup_secondary_cpu_via_init()), per STARTUP IPI:
 * clear the ESR, write the ICR, udelay(10), wait for the ICR to go idle
 * (its "send status"), udelay(10), read the ESR masked with 0xEF (its
 * "accept status"), and stop after an error in either. The two delays
 * are 300 and 200 us where Linux keeps the 10 ms INIT delay (init_udelay
 * != 0; here init_delay_us != 0). sipi_delay=fixed: one wait of
 * sipi_delay_us after the ICR has gone idle. */
FORCE_INLINE void sipi_delays(const struct wake_config *w, uint32_t us[2])
{
	bool modern = w->init_delay_us == 0;

	if (w->sipi_delay == SIPI_DELAY_LINUX) {
		us[0] = modern ? 10 : 300;
		us[1] = modern ? 10 : 200;
	} else {
		us[0] = 0;
		us[1] = w->sipi_delay_us;
	}
}

/* One STARTUP IPI's outcome, reported: true if the ICR stayed busy or
 * the APIC error status has bits set. c NULL: the broadcast of round k. */
static bool report_sipi(struct cpu *c, bool sent, uint32_t esr, uint32_t k)
{
	if (!sent && c)
		kprintf("smp: APIC ID %u: ICR stayed busy sending STARTUP %u\n",
			c->apic_id, k + 1);
	else if (!sent)
		kprintf("smp: ICR stayed busy broadcasting STARTUP\n");
	if (esr && c) {
		c->esr |= esr;
		kprintf("smp: APIC ID %u: APIC error status 0x%x after SIPI %u\n",
			c->apic_id, esr, k + 1);
	} else if (esr) {
		kprintf("smp: broadcast to all but self, SIPI round %u: APIC error "
			"status 0x%x after SIPI %u\n", k + 1, esr, k + 1);
	}
	return !sent || esr;
}

FORCE_INLINE uint64_t *sipi_mark(struct cpu *c, uint32_t k)
{
	return k == 0 ? &c->marks.sipi1 : &c->marks.sipi2;
}

/* STARTUP number k+1 to c, or (c NULL) to all but self: clear the ESR,
 * mark, write the ICR; the round's waits (waits: this IPI is the round's
 * last) around the ICR going idle, as Linux; then the ESR. An AP whose IPI
 * failed gets no more (Linux stops after an error). True: every AP of s
 * has entered (poll). */
FORCE_INLINE bool send_startup(const struct wake_set *s, struct cpu *c, uint32_t icr,
			 uint32_t k, bool waits, bool poll, const struct wake_config *w)
{
	bool in = false, sent;
	uint32_t us[2];

	lapic_clear_esr();
	/* Before the write: the AP may run (and, under -icount, its whole
	 * trampoline) before the BSP's next instruction. */
	uint64_t t = APSTART_MARKS ? rdtsc() : 0;
	if (c) {
		if (APSTART_MARKS)
			*sipi_mark(c, k) = t;
		sent = lapic_write_icr(c->apic_id, icr,
				       waits ? icount_fence_after_sipi(w, k) : NULL);
	} else {
		for (uint32_t i = 0; APSTART_MARKS && i < s->n; i++)
			*sipi_mark(s->cpus[i], k) = t;
		sent = lapic_send_ipi_all_but_self(icr); /* waits for idle itself */
		if (icount_fence_after_sipi(w, k))
			icount_fence_stop();
	}
	if (waits)
		sipi_delays(w, us);
	if (waits && us[0])
		in = sipi_wait(s, us[0], poll);
	if (c)
		sent = sent && lapic_wait_icr_idle();
	if (waits && !in)
		in = sipi_wait(s, us[1], poll);
	uint32_t esr = lapic_read_esr() & ESR_REPORT_MASK;
	if ((!sent || esr) && report_sipi(c, sent, esr, k) && c)
		c->sipi_failed = true;
	return in;
}

/* Does cpus[i] get STARTUP number k+1? Not one left out, not after a
 * failed one, and with sipi_count=auto not once it is in (one that runs
 * ignores it anyway: in the sequence cited at the top, a STARTUP IPI is
 * taken only in wait-for-SIPI). */
FORCE_INLINE bool wants_sipi(const struct wake_set *s, uint32_t i, uint32_t k, bool poll,
		       const struct cpu *lost)
{
	const struct cpu *c = s->cpus[i];
	return c != lost && !c->sipi_failed && !(k > 0 && poll && ap_entered(c, s->alone));
}

/* STARTUP number k+1 to every AP of s that wants it, the round's waits
 * with the last IPI (so that one AP gets Linux's sequence exactly).
 * True: every AP has entered (poll). */
FORCE_INLINE bool startup_round(const struct wake_set *s, const struct wake_config *w,
			  uint32_t icr, uint32_t k, bool poll, const struct cpu *lost)
{
	uint32_t last = s->n;
	bool in = false;

	if (s->broadcast)
		return send_startup(s, NULL, icr, k, true, poll, w);
	for (uint32_t i = 0; i < s->n; i++)
		if (wants_sipi(s, i, k, poll, lost))
			last = i;
	if (last == s->n && k == 0 && w->icount_fence)
		icount_fence_stop(); /* nothing sent: the fence's end all the same */
	for (uint32_t i = 0; i < s->n && last < s->n; i++)
		if (i == last || wants_sipi(s, i, k, poll, lost))
			in = send_startup(s, s->cpus[i], icr, k, i == last, poll, w);
	return in;
}

FORCE_INLINE void startups(const struct wake_set *s, const struct wake_config *w,
		     uint8_t vector, const struct cpu *lost)
{
	bool poll = w->sipi_count == SIPI_COUNT_AUTO;
	uint32_t count = poll ? 2 : w->sipi_count;

	for (uint32_t i = 0; i < s->n; i++)
		s->cpus[i]->sipi_failed = false;
	for (uint32_t k = 0; k < count; k++)
		if (startup_round(s, w, ICR_STARTUP | vector, k, poll, lost) && poll)
			break;
}

void ap_send_startups_many(const struct wake_set *s, const struct wake_config *w,
			uint8_t vector, const struct cpu *lost)
{
	startups(s, w, vector, lost);
}

void ap_send_startups(struct cpu *c, const struct wake_config *w, uint8_t vector,
			  bool lost)
{
	startups(&(struct wake_set){ .cpus = &c, .n = 1, .broadcast = false, .alone = true },
		 w, vector, lost ? c : NULL);
}

/* STARTING -> FAILED by compare-and-exchange, as the AP goes STARTING ->
 * ONLINE (see ap_entry()): true if the BSP gave up first; false if the
 * AP made it after the last look (it is online, seen now). */
static bool fail_if_starting(struct cpu *c)
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
 * up (fail_if_starting()), so a late arrival cannot count itself online
 * in between; the AP is STARTING again when this returns. Its slot is
 * cleared after the INIT (a late AP may have written it until then);
 * marks.start stays the first attempt's, so the start's total and its
 * first phase count the time the lost attempt cost. */
static void wake_again(struct cpu *c, const struct wake_config *w, uint32_t attempt,
		       bool in_real)
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
	ap_send_startups(c, w, sipi_vector(), false);
}

bool ap_give_up(struct cpu *c, const struct wake_config *w, bool in_real)
{
	for (uint32_t attempt = 1;; attempt++) {
		if (!fail_if_starting(c))
			return false; /* it made it after all */
		if (attempt > w->sipi_retry || run_ended())
			break;
		wake_again(c, w, attempt, in_real);
		c->marks.seen = ap_wait_one(c, ap_is_online, w);
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
	selftest_at_gave_up(c);
	/* Back to wait-for-SIPI, so it cannot wander in later. */
	ap_send_init(c, w);
	return true;
}
