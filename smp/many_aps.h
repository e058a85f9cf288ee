/* SPDX-License-Identifier: MIT */
/* Many APs at once: bringup=parallel and broadcast, and the offline half
 * of cycles_mode=parallel. */
#ifndef APSTART_MANY_APS_H
#define APSTART_MANY_APS_H

#include <stdbool.h>
#include <stdint.h>

#include "smp/wake.h"

struct cpu;

/* Start every AP of set[0..n) (absent, parked or failed) in one round:
 * INIT to all, SIPIs to all, one bounded wait for all, by an IPI each
 * (WAKE_MANY) or the shorthand (WAKE_BROADCAST). Each AP's marks hold its
 * figures; one that did not come is reported with its stage and put back
 * into wait-for-SIPI. Returns how many came online; *wall = the round's
 * first INIT -> last AP seen (BSP ticks). */
uint32_t ap_start_many(struct cpu *const *set, uint32_t n,
		       const struct wake_config *w, enum wake_target target, uint64_t *wall);

/* Take every AP of set offline at once: all requests, then wait for all
 * to report dead and to settle. t[i] gets each one's figures (request ->
 * seen dead, -> settled); false in ok[i] for one that timed out
 * (reported, INITed, CPU_FAILED). *wall = first request -> last settled. */
void ap_offline_many(struct cpu *const *set, uint32_t n, const struct wake_config *w,
		     struct offline_times *t, bool *ok, uint64_t *wall);

#endif
