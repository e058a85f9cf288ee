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
#include "smp/instrument.h"
#include "smp/lapic.h"
#include "smp/phases.h"
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

bool ap_send_ipi(struct cpu *c, uint32_t icr, const char *what, void (*after_write)(void))
{
	bool sent = after_write ? lapic_send_ipi_then(c->apic_id, icr, after_write)
				: lapic_send_ipi(c->apic_id, icr);
	if (!sent)
		kprintf("smp: APIC ID %u: ICR stayed busy sending %s\n", c->apic_id, what);
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

/* The two INIT IPIs of the sequence, in order. */
enum init_step { INIT_ASSERT, INIT_DEASSERT };

/* The BSP's mark of an INIT step of c. */
FORCE_INLINE uint64_t *init_mark(struct cpu *c, enum init_step step)
{
	return step == INIT_ASSERT ? &c->marks.init_assert : &c->marks.init_deassert;
}

/* One INIT step to every AP of s (one IPI each, or one broadcast); each
 * AP's mark is the BSP's TSC after it. */
FORCE_INLINE void init_round(const struct wake_set *s, enum init_step step)
{
	uint32_t icr = step == INIT_ASSERT ? ICR_INIT | ICR_LEVEL_ASSERT | ICR_TRIGGER_LEVEL
					   : ICR_INIT | ICR_TRIGGER_LEVEL;
	const char *what = step == INIT_ASSERT ? "INIT assert" : "INIT de-assert";

	if (s->target == WAKE_BROADCAST) {
		if (!lapic_send_ipi_all_but_self(icr))
			kprintf("smp: ICR stayed busy broadcasting %s\n", what);
		uint64_t t = APSTART_MARKS ? rdtsc() : 0;
		for (uint32_t i = 0; APSTART_MARKS && i < s->n; i++)
			*init_mark(s->cpus[i], step) = t;
		return;
	}
	for (uint32_t i = 0; i < s->n; i++) {
		struct cpu *c = s->cpus[i];
		ap_send_ipi(c, icr, what, NULL);
		if (APSTART_MARKS)
			*init_mark(c, step) = rdtsc();
	}
}

FORCE_INLINE void init_sequence(const struct wake_set *s, const struct wake_config *w)
{
	init_round(s, INIT_ASSERT);
	for (uint32_t i = 0; i < s->n; i++)
		nmi_cpu_reset(s->cpus[i]->apic_id); /* a parked AP may have been in its NMI handler */
	udelay(w->init_delay_us);
	/* INIT level de-assert: needed by the 82489DX; the SDM says Pentium 4
	 * and later do not support it (Vol. 3A §11.6.1, ICR delivery mode
	 * 101), i.e. they ignore it. Sent anyway, in both APIC modes, as
	 * Linux does: the sequence timed is the one Linux sends. */
	init_round(s, INIT_DEASSERT);
}

void ap_send_init_many(const struct wake_set *s, const struct wake_config *w)
{
	init_sequence(s, w);
}

void ap_send_init(struct cpu *c, const struct wake_config *w)
{
	init_sequence(&(struct wake_set){ .cpus = &c, .n = 1, .target = WAKE_ONE }, w);
}

uint32_t ap_last_stage(const struct cpu *c, bool in_real)
{
	uint32_t stage = __atomic_load_n(&c->slot->stage, __ATOMIC_ACQUIRE);
	if (stage == TRAMP_STAGE_NONE && in_real)
		return TRAMP_STAGE_REAL;
	return stage;
}

bool ap_entered(const struct cpu *c, enum wake_target target)
{
	if (__atomic_load_n(&c->slot->stage, __ATOMIC_ACQUIRE) != TRAMP_STAGE_NONE)
		return true;
	/* Before protected mode an AP is only counted: when it is the only
	 * one being woken, the count can only be its. */
	return target == WAKE_ONE && __atomic_load_n(&trampoline_header()->real_entries,
						     __ATOMIC_ACQUIRE) != c->real_entries;
}

FORCE_INLINE bool all_entered(const struct wake_set *s)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (!ap_entered(s->cpus[i], s->target))
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

/* One round of STARTUP IPIs: number k+1 to every AP of s that wants it. */
struct startup_round {
	const struct wake_set *s;
	const struct wake_config *w;
	uint32_t icr;               /* ICR_STARTUP | the vector */
	uint32_t k;                 /* 0: the first STARTUP IPI, 1: the second */
	bool until_in;              /* sipi_count=auto: a wait ends once every AP is in */
};

/* What follows one STARTUP IPI of a round: the next AP's, or, after the
 * round's last, the round's waits. */
enum sipi_then { SIPI_THEN_NEXT, SIPI_THEN_WAIT };

/* Wait us after a STARTUP IPI; until_in: stop as soon as every AP of
 * the round has entered the trampoline; true if they have. */
FORCE_INLINE bool sipi_wait(const struct startup_round *r, uint64_t us)
{
	if (!r->until_in) {
		udelay(us);
		return false;
	}
	uint64_t deadline = tsc_deadline_us(us);
	while (!all_entered(r->s) && !tsc_passed(deadline))
		cpu_relax();
	return all_entered(r->s);
}

/* The waits around a STARTUP IPI's ICR going idle. sipi_delay=linux is
 * Linux 6.6's loop (wakeup_secondary_cpu_via_init()), per STARTUP IPI:
 * clear the ESR, write the ICR, udelay(10), wait for the ICR to go idle
 * (its "send status"), udelay(10), read the ESR masked with 0xEF (its
 * "accept status"), and stop after an error in either. The two delays
 * are 300 and 200 us where Linux keeps the 10 ms INIT delay (init_udelay
 * != 0; here init_delay_us != 0). sipi_delay=fixed: one wait of
 * sipi_delay_us after the ICR has gone idle. */
struct sipi_delays {
	uint32_t before_idle, after_idle; /* us */
};

FORCE_INLINE struct sipi_delays sipi_delays(const struct wake_config *w)
{
	bool modern = w->init_delay_us == 0;

	if (w->sipi_delay == SIPI_DELAY_LINUX)
		return (struct sipi_delays){ modern ? 10 : 300, modern ? 10 : 200 };
	return (struct sipi_delays){ 0, w->sipi_delay_us };
}

/* A STARTUP IPI to c that the ICR did not take (!sent) or the APIC
 * reported errors for (esr), said and kept in c->esr: true if either. */
static bool report_sipi(struct cpu *c, bool sent, uint32_t esr, uint32_t k)
{
	if (!sent)
		kprintf("smp: APIC ID %u: ICR stayed busy sending STARTUP %u\n", c->apic_id, k + 1);
	if (esr) {
		c->esr |= esr;
		kprintf("smp: APIC ID %u: APIC error status 0x%x after SIPI %u\n",
			c->apic_id, esr, k + 1);
	}
	return !sent || esr;
}

/* The same for the broadcast of round k. */
static void report_broadcast_sipi(bool sent, uint32_t esr, uint32_t k)
{
	if (!sent)
		kprintf("smp: ICR stayed busy broadcasting STARTUP\n");
	if (esr)
		kprintf("smp: broadcast to all but self, SIPI round %u: APIC error "
			"status 0x%x after SIPI %u\n", k + 1, esr, k + 1);
}

FORCE_INLINE uint64_t *sipi_mark(struct cpu *c, uint32_t k)
{
	return k == 0 ? &c->marks.sipi1 : &c->marks.sipi2;
}

/* The BSP's TSC for the marks of a STARTUP IPI: read before its ICR
 * write, since the AP may run (and, under -icount, its whole trampoline)
 * before the BSP's next instruction. */
FORCE_INLINE uint64_t sipi_time(void)
{
	return APSTART_MARKS ? rdtsc() : 0;
}

/* STARTUP number k+1 to c: clear the ESR, mark, write the ICR; after the
 * round's last (SIPI_THEN_WAIT) the round's waits around the ICR going
 * idle, as Linux; then the ESR. An AP whose IPI failed gets no more
 * (Linux stops after an error). True: every AP of the round has entered
 * (until_in). */
FORCE_INLINE bool startup_to(const struct startup_round *r, struct cpu *c, enum sipi_then then)
{
	bool waits = then == SIPI_THEN_WAIT, in = false;
	struct sipi_delays us = { 0, 0 };

	lapic_clear_esr();
	uint64_t t = sipi_time();
	if (APSTART_MARKS)
		*sipi_mark(c, r->k) = t;
	bool sent = lapic_write_icr(c->apic_id, r->icr,
				    waits ? INSTRUMENT_AFTER_SIPI_WRITE(r->w, r->k) : NULL);
	if (waits)
		us = sipi_delays(r->w);
	if (waits && us.before_idle)
		in = sipi_wait(r, us.before_idle);
	sent = sent && lapic_wait_icr_idle();
	if (waits && !in)
		in = sipi_wait(r, us.after_idle);
	uint32_t esr = lapic_read_esr() & ESR_REPORT_MASK;
	if ((!sent || esr) && report_sipi(c, sent, esr, r->k))
		c->sipi_failed = true;
	return in;
}

/* STARTUP number k+1 to every AP of the round at once, by the
 * all-excluding-self shorthand (which waits for the ICR to go idle
 * itself), then the round's waits and the ESR. True: every AP has
 * entered (until_in). */
FORCE_INLINE bool startup_to_all(const struct startup_round *r)
{
	bool in = false;

	lapic_clear_esr();
	uint64_t t = sipi_time();
	for (uint32_t i = 0; APSTART_MARKS && i < r->s->n; i++)
		*sipi_mark(r->s->cpus[i], r->k) = t;
	bool sent = lapic_send_ipi_all_but_self(r->icr);
	INSTRUMENT_BROADCAST_SIPI_SENT(r->w, r->k);
	struct sipi_delays us = sipi_delays(r->w);
	if (us.before_idle)
		in = sipi_wait(r, us.before_idle);
	if (!in)
		in = sipi_wait(r, us.after_idle);
	uint32_t esr = lapic_read_esr() & ESR_REPORT_MASK;
	if (!sent || esr)
		report_broadcast_sipi(sent, esr, r->k);
	return in;
}

/* Does c get this round's STARTUP IPI? Not one withheld, not after a
 * failed one, and with sipi_count=auto not once it is in (one that runs
 * ignores it anyway: in the sequence cited at the top, a STARTUP IPI is
 * taken only in wait-for-SIPI). */
FORCE_INLINE bool wants_sipi(const struct startup_round *r, const struct cpu *c)
{
	return !INSTRUMENT_SIPIS_WITHHELD(c) && !c->sipi_failed &&
	       !(r->k > 0 && r->until_in && ap_entered(c, r->s->target));
}

/* The round to every AP of s that wants it, the round's waits with the
 * last IPI (so that one AP gets Linux's sequence exactly). True: every
 * AP has entered (until_in). */
FORCE_INLINE bool send_round(const struct startup_round *r)
{
	const struct wake_set *s = r->s;
	uint32_t last = s->n;
	bool in = false;

	if (s->target == WAKE_BROADCAST)
		return startup_to_all(r);
	for (uint32_t i = 0; i < s->n; i++)
		if (wants_sipi(r, s->cpus[i]))
			last = i;
	if (last == s->n)
		INSTRUMENT_NO_SIPI_SENT(r->w, r->k);
	for (uint32_t i = 0; i < s->n && last < s->n; i++)
		if (i == last || wants_sipi(r, s->cpus[i]))
			in = startup_to(r, s->cpus[i], i == last ? SIPI_THEN_WAIT : SIPI_THEN_NEXT);
	return in;
}

FORCE_INLINE void startups(const struct wake_set *s, const struct wake_config *w, uint8_t vector)
{
	bool until_in = w->sipi_count == SIPI_COUNT_AUTO;
	uint32_t count = until_in ? 2 : w->sipi_count;

	for (uint32_t i = 0; i < s->n; i++)
		s->cpus[i]->sipi_failed = false;
	for (uint32_t k = 0; k < count; k++) {
		struct startup_round r = { .s = s, .w = w, .icr = ICR_STARTUP | vector, .k = k,
					   .until_in = until_in };
		if (send_round(&r) && until_in)
			break;
	}
}

void ap_send_startups_many(const struct wake_set *s, const struct wake_config *w, uint8_t vector)
{
	startups(s, w, vector);
}

void ap_send_startups(struct cpu *c, const struct wake_config *w, uint8_t vector)
{
	startups(&(struct wake_set){ .cpus = &c, .n = 1, .target = WAKE_ONE }, w, vector);
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
static void wake_again(struct cpu *c, const struct wake_config *w, uint32_t attempt, bool in_real)
{
	uint32_t stage = ap_last_stage(c, in_real);

	c->retries++;
	kprintf("smp: APIC ID %u did not come online within %u ms (stage %u): "
		"INIT-SIPI-SIPI again (retry %u of %u)\n", c->apic_id,
		w->ap_timeout_ms, stage, attempt, w->sipi_retry);
	warn_record("what=sipi_retry apic=%u retry=%u stage=%u", c->apic_id, attempt, stage);
	ap_send_init(c, w);
	reset_slot(c);
	c->marks.sipi1 = c->marks.sipi2 = c->marks.seen = 0;
	__atomic_store_n(&c->state, CPU_STARTING, __ATOMIC_RELEASE);
	INSTRUMENT_WITHHOLD_SIPIS(c, WAKE_ONE);
	ap_send_startups(c, w, sipi_vector());
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
	INSTRUMENT_GAVE_UP(c);
	/* Back to wait-for-SIPI, so it cannot wander in later. */
	ap_send_init(c, w);
	return true;
}
