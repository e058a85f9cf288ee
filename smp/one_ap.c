/* SPDX-License-Identifier: MIT */
/* One AP (smp/one_ap.h): its start through the INIT-SIPI-SIPI core
 * (smp/sipi.c), and the offline request that ends in smp/park.c. */
#include "smp/one_ap.h"

#include "smp/ap_wait.h"
#include "smp/instrument.h"
#include "smp/lapic.h"
#include "smp/phases.h"
#include "smp/sipi.h"
#include "smp/smp.h"
#include "smp/trampoline.h"
#include "kernel/console.h"
#include "kernel/trap.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"

bool ap_start(struct cpu *c, const struct wake_config *w, struct start_times *ph)
{
	uint8_t vector = sipi_vector();

	INSTRUMENT_WITHHOLD_SIPIS(c, WAKE_ONE);
	ap_prepare(c);
	lapic_clear_esr();
	INSTRUMENT_BEFORE_T0(w);

	c->marks.start = rdtsc();
	ap_send_init(c, w);
	INSTRUMENT_AFTER_INIT(w);
	ap_send_startups(c, w, vector);
	INSTRUMENT_SIPIS_SENT(c, w, vector);

	c->marks.seen = ap_wait_one(c, ap_is_online, w);
	/* An entry counted but no slot written: this AP, in real mode. */
	if (!c->marks.seen &&
	    ap_give_up(c, w, trampoline_header()->real_entries != c->real_entries))
		return false;
	ap_start_figures(c, ph);
	return true;
}

void ap_start_figures(const struct cpu *c, struct start_times *ph)
{
	const volatile uint64_t *ap = c->slot->tsc;
	uint64_t t0 = c->marks.start;

	ph->total = c->marks.seen - t0;
	ph->ap = tsc_cross_cpu(c, ap[AP_MARK_ONLINE], t0);
	ph->to_real = tsc_cross_cpu(c, ap[AP_MARK_REAL], t0);
	ph->to_long = tsc_marks_diff(ap[AP_MARK_LONG], ap[AP_MARK_REAL]);
	ph->to_online = tsc_marks_diff(ap[AP_MARK_ONLINE], ap[AP_MARK_LONG]);
	if (!APSTART_MARKS) /* no such marks taken (smp/phases.h) */
		ph->to_real = ph->to_long = ph->to_online = TICKS_NA;
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
	return ap_wait_one(c, ap_is_parked, w);
}

bool ap_offline_failed(struct cpu *c, const struct wake_config *w, const char *what)
{
	__atomic_store_n(&c->state, CPU_FAILED, __ATOMIC_RELEASE);
	kprintf("smp: APIC ID %u did not %s within %u ms\n", c->apic_id, what, w->ap_timeout_ms);
	kprintf("@fail what=offline_timeout apic=%u timeout_ms=%u\n", c->apic_id, w->ap_timeout_ms);
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
	if (!ap_wait_one(c, ap_has_settled, w))
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
