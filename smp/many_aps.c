/* SPDX-License-Identifier: MIT */
/* Many APs at once (smp/many_aps.h): bringup=parallel and broadcast, and
 * the offline half of cycles_mode=parallel. parallel follows Linux 6.5+'s
 * parallel bring-up (kernel/cpu.c, cpuhp_bringup_mask(): every AP kicked
 * first, then each waited for), each step to every AP before the next
 * (smp/sipi.c), then one wait for all. Every wait is bounded: the ICR's
 * (lapic.c), the SIPI delays, ap_timeout_ms. */
#include "smp/many_aps.h"

#include "smp/ap_wait.h"
#include "smp/icount_fence.h"
#include "smp/lapic.h"
#include "smp/one_ap.h"
#include "smp/phases.h"
#include "smp/selftest_points.h"
#include "smp/sipi.h"
#include "smp/smp.h"
#include "smp/trampoline.h"
#include "kernel/bootmem.h"
#include "kernel/console.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"

uint32_t ap_start_many(struct cpu *const *set, uint32_t n,
		       const struct wake_config *w, enum wake_target target, uint64_t *wall)
{
	struct wake_set s = { .cpus = set, .n = n, .target = target };
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
		if (target != WAKE_BROADCAST && !lost && selftest_at_lose_sipis(set[i]))
			lost = set[i];
		ap_prepare(set[i]);
	}
	lapic_clear_esr();
	bool fence_armed = icount_fence_arm_early(w);
	uint64_t t0 = rdtsc();
	for (uint32_t i = 0; i < n; i++)
		set[i]->marks.start = t0;

	ap_send_init_many(&s, w);
	icount_fence_arm_late(w, fence_armed);
	ap_send_startups_many(&s, w, sipi_vector(), lost);

	ap_wait_all(set, n, NULL, ap_is_online, seen, w);
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
	ap_wait_all(set, n, ok, ap_is_parked, dead, w);
	for (uint32_t i = 0; i < n; i++)
		if (!dead[i])
			ok[i] = ap_offline_failed(set[i], w, "report dead");
	ap_wait_all(set, n, ok, ap_has_settled, settled, w);
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
