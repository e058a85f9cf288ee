/* SPDX-License-Identifier: MIT */
/* Many APs at once (smp/many_aps.h). parallel follows Linux 6.5+'s
 * parallel bring-up (kernel/cpu.c, cpuhp_bringup_mask(): every AP kicked
 * first, then each waited for), in the order the issue asks for: INIT
 * assert to every AP, one INIT delay, INIT de-assert to every AP, each
 * STARTUP IPI to every AP, Linux's waits after each SIPI taken once per
 * round rather than once per AP, then wait for all. Every wait is
 * bounded: the ICR's (lapic.c), the SIPI delays, ap_timeout_ms. */
#include "smp/many_aps.h"

#include "smp/lapic.h"
#include "smp/one_ap.h"
#include "smp/smp.h"
#include "smp/test_hooks.h"
#include "smp/trampoline.h"
#include "smp/tsc_sync.h"
#include "kernel/abort.h"
#include "kernel/bootmem.h"
#include "kernel/console.h"
#include "kernel/nmi.h"
#include "kernel/trap.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"

#define ESR_REPORT_MASK 0xEF /* as smp/one_ap.c: all but bit 4 */

static bool all_entered(struct cpu *const *set, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (!ap_entered(set[i], false))
			return false;
	return true;
}

/* Wait us after a round of STARTUP IPIs; poll: stop once every AP has
 * entered the trampoline (found its slot). */
static void round_wait(struct cpu *const *set, uint32_t n, uint64_t us, bool poll)
{
	if (!poll) {
		udelay(us);
		return;
	}
	uint64_t deadline = tsc_deadline_us(us);
	while (!all_entered(set, n) && !tsc_passed(deadline))
		cpu_relax();
}

static void report_esr(struct cpu *c, uint32_t esr, uint32_t sipi)
{
	if (!esr)
		return;
	if (c)
		c->esr |= esr;
	kprintf("smp: %s%u: APIC error status 0x%x after SIPI %u\n",
		c ? "APIC ID " : "broadcast to all but self, SIPI round ",
		c ? c->apic_id : sipi, esr, sipi);
}

/* One IPI to every AP of set, or one broadcast; mark[i] <- the BSP's TSC
 * after it (before it for STARTUP: the AP may run at once). */
static void send_round(struct cpu *const *set, uint32_t n, bool broadcast,
		       uint32_t icr, const char *what, size_t mark_offset)
{
	bool startup = (icr & (7u << 8)) == ICR_STARTUP;
	if (broadcast) {
		uint64_t t = rdtsc();
		if (!lapic_send_ipi_all_but_self(icr))
			kprintf("smp: ICR stayed busy broadcasting %s\n", what);
		if (!startup)
			t = rdtsc();
		for (uint32_t i = 0; i < n; i++)
			*(uint64_t *)((char *)&set[i]->marks + mark_offset) = t;
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t *mark = (uint64_t *)((char *)&set[i]->marks + mark_offset);
		if (startup)
			*mark = rdtsc();
		ap_send_ipi(set[i], icr, what, NULL);
		if (!startup)
			*mark = rdtsc();
	}
}

/* Until done(set[i]) for every i with want[i] (every i: want NULL),
 * bounded by ap_timeout_ms; in hlt mode asleep between the APs' IPIs with
 * the LAPIC timer as safety net, as wait_until() in one_ap.c. seen[i] <-
 * the BSP's TSC when it saw it (0: timed out). */
static void wait_all(struct cpu *const *set, uint32_t n, const bool *want,
		     bool (*done)(const struct cpu *), uint64_t *seen,
		     const struct wake_config *w)
{
	uint64_t deadline = tsc_deadline_us((uint64_t)w->ap_timeout_ms * 1000);
	bool halt = w->bsp_wait == BSP_WAIT_HLT;
	uint32_t pending = 0;

	for (uint32_t i = 0; i < n; i++) {
		seen[i] = 0;
		pending += !want || want[i];
	}
	if (halt)
		lapic_timer_periodic_us(1000);
	while (pending) {
		cli();
		for (uint32_t i = 0; i < n; i++) {
			if ((want && !want[i]) || seen[i] || !done(set[i]))
				continue;
			seen[i] = rdtsc();
			pending--;
		}
		if (!pending || tsc_passed(deadline))
			break;
		if (run_ended())
			halt_forever();
		if (halt)
			sti_hlt();
		else
			cpu_relax();
	}
	if (halt)
		lapic_timer_stop();
}

static bool is_online(const struct cpu *c)
{
	return __atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == CPU_ONLINE;
}

uint32_t ap_start_many(struct cpu *const *set, uint32_t n,
		       const struct wake_config *w, bool broadcast, uint64_t *wall)
{
	uint8_t vector = (uint8_t)(trampoline_phys() >> 12);
	bool linux_delays = w->sipi_delay == SIPI_DELAY_LINUX;
	bool modern = w->init_delay_us == 0;
	bool poll = w->sipi_count == SIPI_COUNT_AUTO;
	uint32_t sipis = poll ? 2 : w->sipi_count;
	uint32_t entries0 = trampoline_header()->real_entries;
	/* When the BSP saw each AP: from free RAM at the first round, before
	 * anything is timed (bootmem_alloc() prints). */
	static uint64_t *seen;
	if (!seen)
		seen = bootmem_alloc((uint64_t)cpu_count * sizeof *seen, 64,
				     "the parallel seen marks");

	/* selftest=lost-sipi: one AP's STARTUP IPIs are "lost" (per-AP
	 * IPIs only: a broadcast cannot leave one out). */
	const struct cpu *lost = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!broadcast && !lost && test_hook_lose_sipis(set[i]))
			lost = set[i];
		ap_prepare(set[i]);
	}
	lapic_clear_esr();
	bool fence_armed = icount_fence_arm_early(w);
	uint64_t t0 = rdtsc();
	for (uint32_t i = 0; i < n; i++)
		set[i]->marks.start = t0;

	send_round(set, n, broadcast, ICR_INIT | ICR_LEVEL_ASSERT | ICR_TRIGGER_LEVEL,
		   "INIT assert", offsetof(struct bsp_marks, init_assert));
	for (uint32_t i = 0; i < n; i++)
		nmi_cpu_reset(set[i]->apic_id); /* as ap_send_init() */
	udelay(w->init_delay_us);
	/* De-assert: ignored since the Pentium 4 (smp/one_ap.c), sent as
	 * Linux sends it. */
	send_round(set, n, broadcast, ICR_INIT | ICR_TRIGGER_LEVEL,
		   "INIT de-assert", offsetof(struct bsp_marks, init_deassert));
	icount_fence_arm_late(w, fence_armed);

	for (uint32_t k = 0; k < sipis; k++) {
		/* sipi_count=auto: a second SIPI only to those not yet in
		 * (one that is running ignores it anyway: SDM Vol. 3A
		 * §9.4.4.1, a STARTUP IPI is taken only in wait-for-SIPI). */
		if (k == 1 && poll && all_entered(set, n))
			break;
		size_t mark = k == 0 ? offsetof(struct bsp_marks, sipi1)
				     : offsetof(struct bsp_marks, sipi2);
		if (broadcast) {
			lapic_clear_esr();
			send_round(set, n, true, ICR_STARTUP | vector, "STARTUP", mark);
			report_esr(0, lapic_read_esr() & ESR_REPORT_MASK, k + 1);
		} else {
			for (uint32_t i = 0; i < n; i++) {
				struct cpu *c = set[i];
				if (c == lost || (k == 1 && poll && ap_entered(c, false)))
					continue;
				lapic_clear_esr();
				*(uint64_t *)((char *)&c->marks + mark) = rdtsc();
				bool sent = lapic_write_icr(c->apic_id, ICR_STARTUP | vector, NULL) &&
					    lapic_wait_icr_idle();
				if (!sent)
					kprintf("smp: APIC ID %u: ICR stayed busy sending "
						"STARTUP %u\n", c->apic_id, k + 1);
				report_esr(c, lapic_read_esr() & ESR_REPORT_MASK, k + 1);
			}
		}
		if (k == 0 && w->icount_fence)
			icount_fence_stop();
		if (linux_delays) {
			round_wait(set, n, modern ? 10 : 300, poll);
			round_wait(set, n, modern ? 10 : 200, poll);
		} else {
			round_wait(set, n, w->sipi_delay_us, poll);
		}
	}

	wait_all(set, n, NULL, is_online, seen, w);
	uint32_t online = 0;
	uint64_t last = t0;
	for (uint32_t i = 0; i < n; i++)
		set[i]->marks.seen = seen[i];

	/* Those that did not come: the header counts real-mode entries, the
	 * slots say who got further. If as many entries are unaccounted as
	 * APs show no stage, each of those is in real mode; otherwise the
	 * ones without a stage never took a SIPI, or some did: said so. */
	uint32_t slots_written = 0, no_stage = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t st = __atomic_load_n(&set[i]->slot->stage, __ATOMIC_ACQUIRE);
		slots_written += st != TRAMP_STAGE_NONE;
		no_stage += !set[i]->marks.seen && st == TRAMP_STAGE_NONE;
	}
	uint32_t unaccounted = trampoline_header()->real_entries - entries0 - slots_written;
	if (no_stage && unaccounted && unaccounted != no_stage)
		kprintf("smp: %u AP(s) entered real mode without reaching protected mode, "
			"%u show no stage: which is which is not known\n", unaccounted, no_stage);
	for (uint32_t i = 0; i < n; i++) {
		struct cpu *c = set[i];
		if (!c->marks.seen && ap_give_up(c, w, unaccounted == no_stage && no_stage))
			continue;
		if (c->marks.seen > last)
			last = c->marks.seen;
		online++;
	}
	*wall = last - t0;
	return online;
}

static bool has_settled(const struct cpu *c)
{
	return __atomic_load_n(&c->tsc_settled, __ATOMIC_ACQUIRE) != 0;
}

static bool is_parked(const struct cpu *c)
{
	return __atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == CPU_PARKED;
}

void ap_offline_many(struct cpu *const *set, uint32_t n, const struct wake_config *w,
		     struct offline_times *t, bool *ok, uint64_t *wall)
{
	/* Per AP of the set, from free RAM at the first round (before its
	 * first mark): static arrays for APSTART_MAX_CPUS would take 12 KiB
	 * of the image. */
	static uint64_t *requested, *dead, *settled;
	if (!requested) {
		requested = bootmem_alloc(3 * (uint64_t)cpu_count * sizeof *requested, 64,
					  "the parallel offline marks");
		dead = requested + cpu_count;
		settled = dead + cpu_count;
	}
	uint64_t t0 = rdtsc(), last = t0;

	for (uint32_t i = 0; i < n; i++) {
		ok[i] = true;
		requested[i] = rdtsc();
		ap_request_park(set[i], REQ_OFFLINE);
	}
	wait_all(set, n, ok, is_parked, dead, w);
	for (uint32_t i = 0; i < n; i++)
		if (!dead[i])
			ok[i] = ap_offline_failed(set[i], w, "report dead");
	wait_all(set, n, ok, has_settled, settled, w);
	for (uint32_t i = 0; i < n; i++) {
		struct cpu *c = set[i];
		if (!ok[i])
			continue;
		if (!settled[i]) {
			ok[i] = ap_offline_failed(c, w, "settle after reporting dead");
			continue;
		}
		t[i].total = dead[i] - requested[i];
		t[i].settled = tsc_cross_cpu(c, c->tsc_settled, requested[i]);
		if (settled[i] > last)
			last = settled[i];
		if (w->park == PARK_INIT)
			ap_send_init(c, w); /* now in wait-for-SIPI */
	}
	*wall = last - t0;
}
