/* SPDX-License-Identifier: MIT */
/* The TSC warp test. Linux runs one for every CPU it brings online
 * (Linux 6.6, arch/x86/kernel/tsc_sync.c, check_tsc_warp(): both CPUs in
 * turn take a lock, read the TSC and the value the other CPU wrote last;
 * a reading below that value is a warp, and the TSC is then not trusted
 * across CPUs). Here the turn passes strictly from one CPU to the other,
 * so every round has a reading on each side of the other CPU's, and the
 * AP's offset s = AP TSC - BSP TSC is bounded from both sides:
 *
 *   the BSP reads b, then the AP a:   a - b  = elapsed + s, so s <= a - b
 *   the AP reads a, then the BSP b2:  b2 - a = elapsed - s, so s >= a - b2
 *
 * A bound on the wrong side of zero is a warp Linux's test would see: the
 * AP's TSC is then not synchronised with the BSP's, and that bound is the
 * skew the test proved (tsc_skew_ns=, negative: the AP lags). */
#include "smp/tsc_sync.h"

#include "smp/lapic.h"
#include "smp/sipi.h"
#include "smp/smp.h"
#include "kernel/console.h"
#include "kernel/trap.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"

/* Rounds: up to 256, for at most 20 ms (Linux's check_tsc_warp() runs
 * 20 ms, 2 ms where the package has several cores: loop_timeout()), and
 * at least one, however slow (a busy host can deschedule either vCPU for
 * milliseconds at a time). */
#define WARP_ROUNDS 256
#define WARP_BUDGET_US 20000
#define WARP_NOBODY UINT32_MAX

enum warp_turn { TURN_BSP, TURN_AP };

/* One shared line, written only by the CPU whose turn it is. cpu: the
 * AP taking part (its index), so that an AP the BSP gave up on cannot
 * join a later test. */
static struct {
	volatile uint64_t stamp;
	volatile uint32_t turn;
	volatile uint32_t cpu;
} __attribute__((aligned(64))) warp = { .cpu = WARP_NOBODY };

/* rdtsc() starts with LFENCE: the reading follows the load of the turn.
 * The stamp's store depends on the reading and goes out before the turn's
 * (stores are not reordered with other stores, SDM Vol. 3A §9.2.2), so
 * the other CPU never sees the turn before the reading was taken. */
void tsc_sync_ap(const struct cpu *c)
{
	while (__atomic_load_n(&warp.cpu, __ATOMIC_ACQUIRE) == c->index) {
		if (__atomic_load_n(&warp.turn, __ATOMIC_ACQUIRE) != TURN_AP) {
			cpu_relax();
			continue;
		}
		warp.stamp = rdtsc();
		__atomic_store_n(&warp.turn, TURN_BSP, __ATOMIC_RELEASE);
	}
}

static int64_t signed_ns(int64_t ticks)
{
	uint64_t ns = tsc_ticks_to_ns(ticks < 0 ? -(uint64_t)ticks : (uint64_t)ticks);
	return ticks < 0 ? -(int64_t)ns : (int64_t)ns;
}

bool tsc_sync_check(struct cpu *c, const struct wake_config *w)
{
	uint64_t deadline = tsc_deadline_us((uint64_t)w->ap_timeout_ms * 1000);
	uint64_t budget = tsc_deadline_us(WARP_BUDGET_US);
	int64_t upper = INT64_MAX, lower = INT64_MIN;
	bool answered = true;

	c->tsc_synced = false;
	c->tsc_skew = 0;
	warp.turn = TURN_BSP;
	__atomic_store_n(&warp.cpu, c->index, __ATOMIC_RELEASE);
	__atomic_store_n(&c->request, REQ_TSC_CHECK, __ATOMIC_RELEASE);
	ap_send_ipi(c, ICR_FIXED | VEC_WAKE, "wake-up IPI", NULL);

	for (uint32_t i = 0; i < WARP_ROUNDS && (i == 0 || !tsc_passed(budget)); i++) {
		uint64_t b = rdtsc();
		warp.stamp = b;
		__atomic_store_n(&warp.turn, TURN_AP, __ATOMIC_RELEASE);
		while (__atomic_load_n(&warp.turn, __ATOMIC_ACQUIRE) != TURN_BSP) {
			if (tsc_passed(deadline)) {
				answered = false;
				break;
			}
			cpu_relax();
		}
		if (!answered)
			break;
		uint64_t a = warp.stamp;
		uint64_t b2 = rdtsc();
		if ((int64_t)(a - b) < upper)
			upper = (int64_t)(a - b);
		if ((int64_t)(a - b2) > lower)
			lower = (int64_t)(a - b2);
	}
	__atomic_store_n(&warp.cpu, WARP_NOBODY, __ATOMIC_RELEASE);

	if (!answered) {
		kprintf("tsc: APIC ID %u did not take part in the warp test within "
			"%u ms: its cross-CPU figures print as na\n", c->apic_id,
			w->ap_timeout_ms);
		return false;
	}
	c->tsc_skew = upper < 0 ? upper : lower > 0 ? lower : 0;
	c->tsc_synced = c->tsc_skew == 0;
	if (!c->tsc_synced)
		kprintf("tsc: APIC ID %u: TSC %s the BSP's by at least %lld ns (warp "
			"test): its cross-CPU figures print as na\n", c->apic_id,
			c->tsc_skew < 0 ? "behind" : "ahead of",
			(long long)(c->tsc_skew < 0 ? -signed_ns(c->tsc_skew)
						    : signed_ns(c->tsc_skew)));
	return true;
}

int64_t tsc_skew_ns(const struct cpu *c)
{
	return signed_ns(c->tsc_skew);
}

