/* SPDX-License-Identifier: MIT */
/* Many APs at once: bringup=parallel and broadcast, and the offline half
 * of cycles_mode=parallel. */
#ifndef APSTART_MANY_APS_H
#define APSTART_MANY_APS_H

#include <stdbool.h>
#include <stdint.h>

#include "smp/wake.h"

struct cpu;

/* Start every AP of set[0..n) (each CPU_ABSENT, parked or failed: in
 * wait-for-SIPI or halted) in one round: INIT to all, SIPIs to all, then
 * wait for all, bounded by ap_timeout_ms; target WAKE_MANY (an IPI
 * each) or WAKE_BROADCAST (the caller has checked
 * smp_broadcast_refused()). Each AP's marks hold its figures
 * (ap_start_figures()); an AP that did not come is reported with its
 * exact stage and put back into wait-for-SIPI. Returns how many came
 * online; *wall = the round's first INIT -> last AP seen (BSP ticks). */
uint32_t ap_start_many(struct cpu *const *set, uint32_t n,
		       const struct wake_config *w, enum wake_target target, uint64_t *wall);

/* Take every AP of set offline at once: all requests, then wait for all
 * to report dead and to settle. t[i] gets each one's figures (request ->
 * seen dead, -> settled); false in ok[i] for one that timed out
 * (reported, INITed, CPU_FAILED). *wall = first request -> last settled. */
void ap_offline_many(struct cpu *const *set, uint32_t n, const struct wake_config *w,
		     struct offline_times *t, bool *ok, uint64_t *wall);

#endif
